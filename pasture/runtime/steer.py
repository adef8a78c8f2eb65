"""Steering (issue 17): run a policy's [[context]], [[after]] and [[until]] commands and apply a rewrite.

Imported only when the effective policy has an entry for the event at hand (pasture.runtime.lifecycle
checks `Effective.steer` first), so an event without any pays nothing for this module or `subprocess`.

What holds for every command here:

* only a trusted layer's entries exist at all (pasture.runtime.policy drops an untrusted project
  layer's and reports them like its gates);
* argv, never a shell: `{file_path}` fills one argv item (a path that starts with "-" is passed as
  "./-..." so it can never read as an option); it runs in the project root, stdin from /dev/null,
  in a session of its own so that the whole process group is killed at the deadline;
* the deadline is the row's (the host's hook timeout minus the margin, as for gates): a command still
  running then is killed and the event gets the row's failure mode;
* what is sent to the model is capped at MAX_SENT bytes and sanitized: invalid UTF-8 becomes U+FFFD,
  NUL and the other control characters except tab and newline (ANSI escapes among them) become "?";
* every run is journaled: kind, name, layer, argv, exit, bytes sent (detail["steer"]).

`until` keeps a per-session counter in pasture's state folder (next to the trust store, which the
built-in guard keeps the agent from writing), never in the repository: after `max` continuations in
a session it lets the agent stop and journals why.
"""

import time

from pasture.runtime import fs
from pasture.runtime.fastjson import JSONError, dumps, loads

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the hook path pays for every import
if TYPE_CHECKING:
    from typing import Any

MAX_SENT = 8 * 1024  # bytes of one command's output that reach the model
MAX_READ = 1 << 20  # bytes read from a command (the rest is drained and dropped)
MAX_REWRITE = 64 * 1024  # characters a rewritten field may have
MARGIN = 0.25  # seconds kept back from the deadline to answer and journal


class SteerFailure(Exception):
    """A command that could not give an answer in time (it hung, or could not start)."""


class CounterLost(SteerFailure):
    """The until counter cannot be kept: the agent may stop (a continuation that is not counted is not bounded)."""


def sanitize(data: bytes, limit: int = MAX_SENT) -> str:
    text = data.decode("utf-8", "replace")
    out = []
    for char in text:
        code = ord(char)
        if char in "\n\t" or (code >= 32 and not 127 <= code < 160):
            out.append(char)
        else:
            out.append("?")
    text = "".join(out)
    raw = text.encode("utf-8")
    if len(raw) > limit:
        kept = raw[:limit].decode("utf-8", "ignore")
        text = f"{kept}\n[pasture: output cut at {limit} of {len(raw)} bytes]"
    return text


def _fill(argv: tuple, envelope: dict, path: str | None = None) -> list:
    path = (envelope.get("file_path") if path is None else path) or ""
    if path.startswith("-"):
        path = "./" + path
    # the policy compile let {file_path} in only as an item of its own; every other brace is literal
    return [path if item == "{file_path}" else item for item in argv]


def run(argv: list, root: str, deadline: float) -> tuple:
    """(exit code, stdout+stderr bytes) of argv in root; SteerFailure when it hangs or cannot start."""
    import os
    import signal
    import subprocess

    timeout = deadline - time.perf_counter() - MARGIN
    if timeout <= 0:
        raise SteerFailure(f"no time left before the host's hook timeout to run {argv[0]!r}")
    try:
        child = subprocess.Popen(
            argv,
            cwd=root,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    except (OSError, ValueError) as exc:
        raise SteerFailure(f"{argv[0]!r} could not start: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        out = _drain(child, time.perf_counter() + timeout)
        child.wait(timeout=max(deadline - time.perf_counter() - MARGIN, 0.001))
    except subprocess.TimeoutExpired:
        try:
            os.killpg(child.pid, signal.SIGKILL)
        except OSError:
            pass
        child.kill()
        try:
            child.communicate(timeout=1)
        except (subprocess.TimeoutExpired, ValueError):
            pass
        raise SteerFailure(f"{argv[0]!r} was still running at the row's deadline ({timeout:.1f}s): killed") from None
    finally:
        if child.stdout is not None and not child.stdout.closed:
            child.stdout.close()
    return child.returncode, out


def _drain(child: "Any", end: float) -> bytes:
    """The first MAX_READ bytes of the child's output; the rest is read and dropped, never held (a command
    that prints without end must not fill the hook's memory). TimeoutExpired at `end`."""
    import os
    import select
    import subprocess

    fd = child.stdout.fileno()
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    kept: list = []
    size = 0
    while True:
        left = end - time.perf_counter()
        if left <= 0:
            raise subprocess.TimeoutExpired(child.args, 0)
        if not poller.poll(max(int(left * 1000), 1)):
            continue
        data = os.read(fd, 1 << 16)
        if not data:
            return b"".join(kept)
        if size < MAX_READ:
            kept.append(data[: MAX_READ - size])
            size += len(kept[-1])


def _record(kind: str, layer: str, entry: dict, argv: "Any", code: "Any", sent: str, **more: "Any") -> dict:
    item = {"kind": kind, "name": entry["name"], "layer": layer, "command": argv, "exit": code}
    item["bytes_sent"] = len(sent.encode("utf-8"))
    item.update(more)
    return item


def context(entries: list, root: str, deadline: float, journal: list) -> list:
    """The texts of [[context]] entries (a text, or a command's output whatever its exit)."""
    texts = []
    for layer, entry in entries:
        if "text" in entry:
            text = sanitize(entry["text"].encode("utf-8"))
            journal.append(_record("context", layer, entry, None, None, text))
        else:
            argv = list(entry["command"])
            code, out = run(argv, root, deadline)
            text = sanitize(out).strip()
            journal.append(_record("context", layer, entry, argv, code, text))
        if text:
            texts.append(text)
    return texts


def _kind_matches(entry: dict, envelope: dict) -> bool:
    kinds = entry.get("tool_kind")
    return kinds is None or envelope.get("tool_kind") in kinds


def after(entries: list, envelope: dict, root: str, deadline: float, journal: list) -> list:
    """Feedback texts of the [[after]] entries that match the tool call and exit non-zero."""
    from pasture.runtime.effective import search

    texts = []
    for layer, entry in entries:
        if not _kind_matches(entry, envelope):
            continue
        for path in _edited(envelope, root):
            if "file_path" in entry and (not isinstance(path, str) or not search(entry["file_path"], path)):
                continue
            argv = _fill(entry["command"], envelope, path)
            if any("\x00" in item for item in argv):
                journal.append(_record("after", layer, entry, None, None, "", skipped="a NUL in the file path"))
                continue
            code, out = run(argv, root, deadline)
            text = ""
            if code != 0:
                text = sanitize(out).strip() or f"{argv[0]} exited {code}"
                head = f"[{entry['name']}] {' '.join(argv)} exited {code}:"  # argv holds the agent's file path
                text = f"{sanitize(head.encode('utf-8', 'replace'), MAX_SENT)}\n{text}"
            journal.append(_record("after", layer, entry, argv, code, text))
            if text:
                texts.append(text)
    return texts


def _edited(envelope: dict, root: str) -> list:
    """The files an [[after]] entry runs for: each file a patch leaves behind (not a deleted one, nor
    a move's source), else the tool's one path (None when it has none: an entry without file_path
    still runs once). A patch names its files from the session's folder and the command runs in the
    project root, so a session started below the root gets them relative to the root."""
    if envelope.get("file_paths"):
        from pasture.runtime import patch

        text = patch.text_of(envelope.get("tool_input"))
        if text is not None and patch.headers(text):
            cwd = envelope.get("cwd")
            kept = patch.left_behind(text)
            if isinstance(cwd, str) and fs.isabs(cwd) and fs.normpath(cwd) != fs.normpath(root):
                kept = [_from_root(fs.join(cwd, path), root) if not fs.isabs(path) else path for path in kept]
            return kept
    return [envelope.get("file_path")]


def _from_root(path: str, root: str) -> str:
    path, root = fs.normpath(path), fs.normpath(root)
    inside = root.rstrip("/") + "/"
    return path[len(inside) :] if path.startswith(inside) else path


def after_context(entries: list, envelope: dict, root: str, deadline: float, journal: list) -> list:
    return context([(layer, e) for layer, e in entries if _kind_matches(e, envelope)], root, deadline, journal)


# --- until: a bounded "keep working" ----------------------------------------------------------------


def _fnv(text: str) -> str:
    value = 0xCBF29CE484222325
    for byte in text.encode("utf-8", "surrogatepass"):
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{value:016x}"


def counter_path(env: dict, root: str, session: "Any") -> str:
    from pasture.runtime.layers import trust_store_path

    return fs.join(fs.dirname(trust_store_path(env)), "until", _fnv(repr((root, str(session)))) + ".json")


def _read_counts(path: str) -> dict | None:
    """The counts; {} when there are none yet; None when the file is there but not a counter of ours (a
    counter that was tampered with or damaged counts as spent: it must never reset the bound)."""
    try:
        data = fs.read_file(path, 64 * 1024, follow=False)[0]
        value = loads(data.decode("utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, JSONError):
        return None
    return value if isinstance(value, dict) else None


def _write_counts(path: str, counts: dict) -> None:
    import posix

    fs.makedirs(fs.dirname(path), 0o700)
    temp = f"{path}.{posix.getpid()}.tmp"
    fd = posix.open(temp, fs.O_WRONLY | fs.O_CREAT | fs.O_TRUNC | fs.O_NOFOLLOW | fs.O_CLOEXEC, 0o600)
    try:
        posix.write(fd, dumps(counts).encode("ascii"))
    finally:
        posix.close(fd)
    posix.replace(temp, path)


def until(entries: list, envelope: dict, root: str, env: dict, deadline: float, journal: list) -> str | None:
    """The reason to keep working (the first failing check's output), or None to let the agent stop.

    Each entry counts its continuations per session; past `max` it no longer runs, and says so."""
    session = envelope.get("identities", {}).get("session")
    path = counter_path(env, root, session)
    counts = _read_counts(path)
    keys = [f"{layer}:{entry['name']}" for layer, entry in entries]
    if counts is None or any(not (type(counts.get(k, 0)) is int and counts.get(k, 0) >= 0) for k in keys):
        # not a counter pasture wrote (negative, float, bool, text, another file type): counted as spent,
        # since a reset would lift the bound
        why = f"the until counter {path} is not one pasture wrote (damaged, or written by something else)"
        journal.append({"kind": "until", "counter": path, "stopped": f"{why}: counted as spent"})
        raise CounterLost(f"{why}: counted as spent")
    for layer, entry in entries:
        key = f"{layer}:{entry['name']}"
        used = counts.get(key, 0)
        if used >= entry["max"]:
            journal.append(
                _record(
                    "until",
                    layer,
                    entry,
                    list(entry["command"]),
                    None,
                    "",
                    stopped=f"reached max = {entry['max']} continuations in this session: the agent may stop",
                )
            )
            continue
        argv = list(entry["command"])
        try:
            code, out = run(argv, root, deadline)
        except SteerFailure:
            counts[key] = used + 1  # a hung check still spends a continuation: the bound holds
            _save(path, counts, journal)
            raise
        if code == 0:
            journal.append(_record("until", layer, entry, argv, code, ""))
            continue
        counts[key] = used + 1
        _save(path, counts, journal)
        text = sanitize(out).strip() or f"{argv[0]} exited {code}"
        reason = (
            f"[{entry['name']}] {' '.join(argv)} still fails (exit {code}; continuation {used + 1} of "
            f"{entry['max']}); keep working until it passes:\n{text}"
        )
        journal.append(_record("until", layer, entry, argv, code, reason, continuation=used + 1))
        return reason
    return None


def _save(path: str, counts: dict, journal: list) -> None:
    try:
        _write_counts(path, counts)
    except OSError as exc:  # a counter that cannot be kept must not loop the agent: journaled, and it stops
        why = f"the until counter {path} cannot be written ({exc.strerror or exc})"
        journal.append({"kind": "until", "counter": path, "error": exc.strerror or str(exc), "stopped": why})
        raise CounterLost(why) from None


# --- rewrite ------------------------------------------------------------------------------------------


def rewrite(rules: list, tool_input: "Any", deadline: float | None = None) -> tuple:
    """(new tool input, [(field, before, after, rule name)], problem or None) after every matching rewrite rule,
    in layer order. `replace` is literal: no group references, and so no `re` import. The substitution
    is cut at `deadline` like a rule's match (a polynomial pattern on a long hostile command): a problem."""
    from pasture.runtime.effective import _arm, _Budget, _disarm

    if not isinstance(tool_input, dict):
        return None, [], "the tool call carries no input to rewrite"
    armed = _arm(deadline)
    try:
        return _rewrite(rules, tool_input)
    except _Budget:
        size = _longest(tool_input)
        return None, [], f"its pattern was still rewriting at the row's deadline (a {size}-character input)"
    finally:
        try:
            _disarm(armed)
        except _Budget:
            _disarm(armed)


def _longest(tool_input: dict) -> int:
    return max((len(v) for v in tool_input.values() if isinstance(v, str)), default=0)


def _rewrite(rules: list, tool_input: dict) -> tuple:
    from pasture.runtime.effective import thaw

    new = dict(tool_input)
    changes: list = []
    for _layer, rule in rules:
        spec = rule["rewrite"]
        field = spec["field"]
        value = new.get(field)
        if not isinstance(value, str):
            return None, changes, f"rule {rule['name']!r}: the tool's input has no text field {field!r} to rewrite"
        replacement = spec["replace"]
        result = thaw(spec["pattern"]).sub(lambda _match, text=replacement: text, value)
        if not result.strip():
            return None, changes, f"rule {rule['name']!r}: rewriting {field!r} left it empty"
        if len(result) > MAX_REWRITE:
            size = f"{len(result)} characters (limit {MAX_REWRITE})"
            return None, changes, f"rule {rule['name']!r}: rewriting {field!r} made it {size}"
        if result != value:
            changes.append((field, value, result, rule["name"]))
            new[field] = result
    return new, changes, None
