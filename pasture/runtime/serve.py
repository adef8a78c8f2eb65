"""`pasture hook serve --harness H --host-version V`: one long-lived runtime per OpenCode plugin instance.

The OpenCode plugin used to start `pasture hook lifecycle` for every hook call (79-94 processes in a
one-tool session on 1.18.33; tool.definition alone fires twelve at once before every model request).
It now starts this server once, at plugin init, and talks JSON lines over the child's stdin/stdout.
Every request is answered by the same `lifecycle.respond()` the one-shot process uses, so the
decision, the journal row and the failure mode are the same on both transports.

Protocol 1: UTF-8, one JSON object per line, both ways (the plugin side is
templates/opencode/_runtime.ts.j2).

server -> plugin, first line, the handshake::

    {"pasture": "hook-serve", "protocol": 1, "harness": H, "host_version": V, "contract": C | null,
     "await": [event, ...], "note": "..."}

  or, when the runtime cannot load its own tables (then exit 70) or was started wrongly (exit 2)::

    {"pasture": "hook-serve", "protocol": 1, "error": "pasture: <what is wrong>; fix: <command>"}

plugin -> server, one line per hook call or bus event::

    {"id": N, "event": E, "wait": true | false, "payload": {...}}

  ``payload`` is the last member, so a line too long or too deep to parse can still be attributed
  from its head (the first HEAD bytes, walked member by member without recursion). Instead of
  ``payload`` the plugin may send ``"payload_error": "<why there is none>"``.

server -> plugin, one line per request, in completion order (match them by id)::

    {"id": N, "exit": int, "answer": str, "stdout": str, "stderr": str [, "await": [...]]}

  ``exit``, ``stdout`` and ``stderr`` are exactly what ``pasture hook lifecycle`` would exit with
  and print for the same event; ``answer`` is what the journal records the host was told. A line
  that names no event gets ``{"id": N | null, "error": "..."}`` and is not journaled (our own
  plugin never sends one); ``id`` is null only when no integer id can be read from the line's head.

server -> plugin, unsolicited: ``{"await": [...]}`` when a policy change alters the set (polled).

``await`` names the events whose answer can change what the host does: the gate-consultation rows
that some gate of the current policy may refuse or fail on. The plugin sends every other event with
``wait: false`` and never waits for it; it is journaled all the same. A reply carries ``await``
only when the set changed since the server last said it.

Scheduling: a slow gate on one call never holds up another call, a bus event or a deny. The reader
never waits for a request to finish: each ``wait: true`` request gets a thread of its own at once (no
pool that slow calls could use up; past MAX_CONCURRENT in flight, a request is answered at once with
its row's failure mode and journaled, never queued behind them). ``wait: false`` requests are
handled one at a time, in arrival order, by one worker thread; a gate-consultation row among them
(sent unawaited by a plugin that has not yet heard of a policy change) runs on a thread of its own,
and the worker waits for it at most LANE_PATIENCE before going on, so the journal keeps arrival order
for everything answered in time and a bus event is never held behind a slow gate.

End: at EOF on stdin the server stops reading, finishes every request it has read (each is
journaled) and exits 0. SIGINT, SIGHUP and a closed stdout do not stop it, so neither a host that
exits nor a Ctrl-C in its terminal costs a journal row (the plugin also starts it in a session of
its own, out of the host's process group).

Standard library only: this is a hook path.
"""

from __future__ import annotations

import sys
import threading
import time
from queue import SimpleQueue

from pasture.runtime.fastjson import JSONError, dumps, loads

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the hook path pays for every import
if TYPE_CHECKING:
    from typing import Any, TypeGuard

    from pasture.runtime.effective import Effective

PROTOCOL = 1
MAX_PAYLOAD = 16 * 1024 * 1024  # the one-shot runtime's limit (lifecycle.MAX_PAYLOAD)
MAX_LINE = MAX_PAYLOAD + 64 * 1024  # a payload at the limit plus the request's own members
HEAD = 4096  # how much of an oversized or unparsable line is searched for its id and event
MAX_CONCURRENT = 1024  # a runaway bound, not a pool: past it a call fails in its row's mode at once
LANE_PATIENCE = 0.25  # how long the unawaited lane waits for a gate row before it goes on
POLL_SECONDS = 1.0
EXIT_USAGE = 2
EXIT_UNAVAILABLE = 70  # EX_SOFTWARE: the runtime cannot run at all (same code as the launcher's)

USAGE = "usage: pasture hook serve --harness H --host-version V  (JSON lines on stdin and stdout)"
FIX = "pip install --force-reinstall pasture, then pasture install {harness} again"  # lifecycle.REINSTALL


# --- which events need an answer ------------------------------------------------------------------


def contract_rows(harness: str, host_version: str) -> tuple[str | None, dict, str]:
    """(contract id, its rows by event name, why there is none). Raises when the tables cannot load."""
    from pasture.runtime.tables import _index, resolve

    resolved = resolve(harness, host_version, "\x00")  # no event is named NUL: only the contract resolves
    if resolved.contract is None:
        return None, {}, resolved.why
    module = next(m for cid, m, *_ in _index().ADMISSIONS[harness] if cid == resolved.contract)
    return resolved.contract, __import__(f"pasture_contracts.{module}", fromlist=["ROWS"]).ROWS, ""


def _may_refuse(rule: dict, harness: str, event: str) -> bool:
    """Whether a non-proceed rule can match this event at all: only its harness, event and semantic
    matchers are known before the payload; every other matcher might match."""
    if rule["decision"] == "proceed":
        return False
    known = {"harness": harness, "event": event, "semantic": "gate-consultation"}
    return all(value in rule["lists"][key] for key, value in known.items() if key in rule["lists"])


def _carries_tool(row: Any) -> bool:
    # The built-in guard rules judge a tool's writes (pasture/runtime/builtin.py: no tool_kind, no
    # refusal); the rows whose payload names a tool call are the ones carrying its identity.
    return any(ident.kind == "tool-call" for ident in row.identities)


def awaited_by(effective: Effective, harness: str, rows: dict) -> tuple[str, ...]:
    """The gate rows whose answer this effective policy can make anything but proceed, in catalog order.

    A decision (deny, ask) changes the host's course only where answer.can_deny holds (a pre-action
    row with a refusal channel; elsewhere it is delivered as proceed); a failure (an invalid or
    unreadable layer, a command or AI gate that crashes or runs out of time) changes it on any gate
    row whose failure mode blocks, which is why those wait wherever such a layer reaches.
    """
    from pasture.runtime.answer import can_deny

    gates = [name for name, row in rows.items() if row.semantic == "gate-consultation"]
    refusable = [name for name in gates if can_deny(harness, rows[name])]
    need: set[str] = set()
    if getattr(effective, "steer", None):  # [[context]]/[[after]]: the rows that carry them are answered
        from pasture.runtime.lifecycle import steering

        # observation rows too: Pi's before_agent_start and tool_result answer context and feedback
        need.update(name for name, row in rows.items() if row.answers and steering(effective, harness, name))
    if effective.protect:
        need.update(name for name in refusable if _carries_tool(rows[name]))
    for layer in effective.layers:
        status = layer["status"]
        if status == "absent":
            continue
        if status in ("invalid", "unreadable"):
            return tuple(gates)
        covered = set(gates if layer["events"] is None else layer["events"])
        if layer["kind"] != "rules":  # a gate that runs (pasture.runtime.gatekinds)
            need.update(name for name in gates if name in covered)
        elif layer["default"] != "proceed":
            need.update(name for name in refusable if name in covered)
        else:
            need.update(
                name
                for name in refusable
                if name in covered and any(_may_refuse(rule, harness, name) for rule in layer["rules"])
            )
    return tuple(name for name in rows if name in need)


class Coverage:
    """The current ``await`` set: the effective policy (cached by content in pasture.runtime.effective)
    for the project root of the server's working directory, recomputed only when it changes."""

    def __init__(self, harness: str, rows: dict, env: dict) -> None:
        self.harness, self.rows, self.env = harness, rows, env
        self._effective: object = None  # compared by identity only
        self._value: tuple[str, ...] = ()
        self._lock = threading.Lock()

    def current(self) -> tuple[str, ...]:
        from pasture.runtime.effective import load
        from pasture.runtime.project import root_for

        effective = load(root_for(None, self.env), self.env)
        with self._lock:
            if effective is not self._effective:
                self._value = awaited_by(effective, self.harness, self.rows)
                self._effective = effective
            return self._value


# --- the server -----------------------------------------------------------------------------------


class Request:
    __slots__ = ("id", "event", "wait", "payload", "payload_error", "started")

    def __init__(
        self, rid: int, event: str, wait: bool, payload: Any, payload_error: str | None, started: float
    ) -> None:
        self.id, self.event, self.wait = rid, event, wait
        self.payload, self.payload_error, self.started = payload, payload_error, started


_KINDS = {list: "array", str: "string", bool: "boolean", type(None): "null"}


def _kind(value: Any) -> str:
    return "object" if isinstance(value, dict) else _KINDS.get(type(value), "number")


_BLANK = b" \t\r\n"
_HEAD_KEYS = ("id", "event", "wait")


def _string_end(head: bytes, at: int) -> int:
    """The index after the JSON string that opens at `at`, or -1 when it runs past the head."""
    i = at + 1
    while i < len(head):
        c = head[i]
        if c == 0x5C:  # a backslash: the next byte is escaped
            i += 2
        elif c == 0x22:
            return i + 1
        else:
            i += 1
    return -1


def _value_end(head: bytes, at: int) -> int:
    """The index after the JSON value at `at` (nesting counted, strings skipped: no recursion), or -1."""
    c = head[at]
    if c == 0x22:
        return _string_end(head, at)
    if c in b"[{":
        depth, i = 0, at
        while i < len(head):
            c = head[i]
            if c == 0x22:
                i = _string_end(head, i)
                if i < 0:
                    return -1
                continue
            if c in b"[{":
                depth += 1
            elif c in b"]}":
                depth -= 1
                if depth == 0:
                    return i + 1
            i += 1
        return -1
    i = at
    while i < len(head) and head[i] not in b",}] \t\r\n":
        i += 1
    return i if i < len(head) else -1  # a number cut at the head's end may go on


def _scan_head(data: bytes) -> dict | None:
    """id, event and wait from the first HEAD bytes of a line that cannot be parsed whole (too long,
    nested too deep, a bad member anywhere): the top-level members are walked in order, each value
    skipped by counting brackets, and only those three decoded. None unless one of them is read."""
    head = data[:HEAD]

    def blank(i: int) -> int:
        while i < len(head) and head[i] in _BLANK:
            i += 1
        return i

    i = blank(0)
    if head[i : i + 1] != b"{":
        return None
    found: dict = {}
    i += 1
    while True:
        i = blank(i)
        if head[i : i + 1] != b'"':
            break
        end = _string_end(head, i)
        if end < 0:
            break
        try:
            key = loads(head[i:end].decode("utf-8"))
        except (UnicodeDecodeError, JSONError, ValueError, RecursionError):
            break
        i = blank(end)
        if head[i : i + 1] != b":":
            break
        i = blank(i + 1)
        if i >= len(head):
            break
        end = _value_end(head, i)
        if end < 0:
            break
        if key in _HEAD_KEYS:
            try:
                found[key] = loads(head[i:end].decode("utf-8"))  # the last one wins, as in JSON
            except (UnicodeDecodeError, JSONError, ValueError, RecursionError):
                found.pop(key, None)
        i = blank(end)
        if head[i : i + 1] != b",":
            break
        i += 1
    return found or None


def _valid_id(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


class Server:
    def __init__(
        self,
        harness: str,
        host_version: str,
        stdin: Any,
        stdout: Any,
        env: dict,
        *,
        poll_seconds: float = POLL_SECONDS,
    ) -> None:
        self.harness, self.host_version = harness, host_version
        self.stdin, self.stdout, self.env = stdin, stdout, env
        self.poll_seconds = poll_seconds
        self._write_lock = threading.Lock()
        self._sent: tuple[str, ...] | None = None
        self._stdout_open = True
        self._queue: SimpleQueue = SimpleQueue()
        self._active = 0
        self._idle = threading.Condition()
        self._stop = threading.Event()
        self.coverage: Coverage | None = None

    # output ---------------------------------------------------------------------------------------

    def _write(self, message: dict) -> None:
        with self._write_lock:
            self._write_locked(message)

    def _write_locked(self, message: dict) -> None:
        """One line, whole, or nothing once the reader is gone (the host exited: keep journaling)."""
        if not self._stdout_open:
            return
        data = dumps(message, compact=True).encode("ascii") + b"\n"
        try:
            self.stdout.write(data)
            self.stdout.flush()
        except (OSError, ValueError):  # BrokenPipeError, or a closed stream
            self._stdout_open = False

    def _announce(self, message: dict) -> None:
        """Write ``message``, adding ``await`` when the set changed since it was last said. The set
        is read under the write lock, so a later line never carries an older set."""
        with self._write_lock:
            current = self._current()
            if current is not None and current != self._sent:
                message["await"] = list(current)
                self._sent = current
            if message:
                self._write_locked(message)

    def _current(self) -> tuple[str, ...] | None:
        if self.coverage is None:
            return None
        try:
            return self.coverage.current()
        except Exception:  # never fail a request over the await set; the old one stands
            return None

    # requests -------------------------------------------------------------------------------------

    def _handle(self, request: Request) -> None:
        from pasture.runtime.lifecycle import respond

        try:
            reply = respond(
                self.harness,
                request.event,
                self.host_version,
                request.payload,
                request.payload_error,
                self.env,
                request.started,
                cpu_started=time.thread_time(),
            )
            message = {
                "id": request.id,
                "exit": reply.exit_code,
                "answer": reply.answer,
                "stdout": reply.stdout,
                "stderr": reply.stderr,
            }
        except Exception as exc:  # respond() never raises; if it ever does, the plugin applies the row's mode
            message = {"id": request.id, "error": f"internal error ({type(exc).__name__}: {exc})"}
        self._announce(message)

    def _parse(self, line: bytes, oversized: bool, started: float) -> Request | dict:
        """A Request, or the error reply for a line that names no event."""
        obj = None
        problem = None
        if oversized:
            problem = f"payload larger than {MAX_PAYLOAD} bytes"
        else:
            try:
                obj = loads(line.decode("utf-8"))
            except UnicodeDecodeError:
                problem = "payload is not JSON (UnicodeDecodeError)"
            except JSONError as exc:
                problem = f"payload is not JSON ({exc})"
        if obj is None and problem is not None:  # (None with no problem: the line parsed, as JSON null)
            # every line whose id can be read is answered with it, however the rest of it fails
            obj = _scan_head(line)
            line_problem = f"malformed request line ({problem.replace('payload', 'line', 1)})"
            if obj is None or not _valid_id(obj.get("id")):
                return {"id": None, "error": line_problem}
            if not isinstance(obj.get("event"), str) or not obj["event"]:
                return {"id": obj["id"], "error": line_problem}
        if not isinstance(obj, dict):
            return {"id": None, "error": f"malformed request line (a JSON {_kind(obj)}, not an object)"}
        rid = obj.get("id")
        if not _valid_id(rid):
            return {"id": None, "error": "malformed request line (no integer id)"}
        event = obj.get("event")
        if not isinstance(event, str) or not event:
            return {"id": rid, "error": "malformed request (no event name)"}
        wait = obj.get("wait") is True
        payload = None
        if problem is None:
            payload = obj.get("payload")
            if "payload" not in obj:
                given = obj.get("payload_error")
                problem = given if isinstance(given, str) and given else "request carries no payload"
            elif not isinstance(payload, dict):
                problem = f"payload is a JSON {_kind(payload)}, not an object"
                payload = None
        return Request(rid, event, wait, payload, problem, started)

    def _observer(self) -> None:
        rows = self.coverage.rows if self.coverage is not None else {}
        while True:
            request = self._queue.get()
            if request is None:
                return
            row = rows.get(request.event)
            if row is None or row.semantic != "gate-consultation":
                self._handle(request)  # consults no gate (lifecycle.respond): quick, in order
                continue
            done = self._start(request)
            if done is not None:
                done.wait(LANE_PATIENCE)

    def _start(self, request: Request) -> threading.Event | None:
        """Handle ``request`` on a thread of its own, now; past MAX_CONCURRENT in flight, answer it here
        with its row's failure mode instead (None then: it is already done)."""
        with self._idle:
            full = self._active >= MAX_CONCURRENT
            if not full:
                self._active += 1
        if full:
            request.payload = None
            request.payload_error = f"{MAX_CONCURRENT} hook calls already in flight in pasture hook serve"
            self._handle(request)
            return None
        done = threading.Event()
        threading.Thread(target=self._gate, args=(request, done), name="pasture-gate", daemon=True).start()
        return done

    def _gate(self, request: Request, done: threading.Event) -> None:
        try:
            self._handle(request)
        finally:
            done.set()
            with self._idle:
                self._active -= 1
                self._idle.notify_all()

    def _poller(self) -> None:
        while not self._stop.wait(self.poll_seconds):
            self._announce({})

    def _read_line(self) -> tuple[bytes, bool]:
        """The next line and whether it was longer than MAX_LINE (then only its head is kept)."""
        line = self.stdin.readline(MAX_LINE + 1)
        if len(line) <= MAX_LINE or line.endswith(b"\n"):
            return line, False
        head = line[:HEAD]
        while line and not line.endswith(b"\n"):  # skip the rest of it
            line = self.stdin.readline(1024 * 1024)
        return head, True

    # lifecycle ------------------------------------------------------------------------------------

    def handshake(self) -> int | None:
        """Say which contract and which events; None on success, else the exit code."""
        try:
            contract, rows, why = contract_rows(self.harness, self.host_version)
        except Exception as exc:  # the generated tables are missing or broken
            self._write(
                {
                    "pasture": "hook-serve",
                    "protocol": PROTOCOL,
                    "error": (
                        f"pasture: cannot load the generated contract tables ({type(exc).__name__}: {exc}); "
                        f"fix: {FIX.format(harness=self.harness)}"
                    ),
                }
            )
            return EXIT_UNAVAILABLE
        gates = tuple(name for name, row in rows.items() if row.semantic == "gate-consultation")
        self.coverage = Coverage(self.harness, rows, self.env)
        message = {
            "pasture": "hook-serve",
            "protocol": PROTOCOL,
            "harness": self.harness,
            "host_version": self.host_version,
            "contract": contract,
            "note": f"{why}; every event is journaled observe-only" if why else "",
        }
        with self._write_lock:
            current = self._current()
            # A policy that cannot even be looked at is assumed to gate every gate row.
            self._sent = gates if current is None else current
            message["await"] = list(self._sent)
            self._write_locked(message)
        return None

    def serve(self) -> int:
        failed = self.handshake()
        if failed is not None:
            return failed
        observer = threading.Thread(target=self._observer, name="pasture-observe", daemon=True)
        observer.start()
        poller = threading.Thread(target=self._poller, name="pasture-poll", daemon=True)
        poller.start()
        try:
            while True:
                try:
                    line, oversized = self._read_line()
                except (OSError, ValueError):
                    break
                if not line:
                    break
                started = time.perf_counter()
                if not line.strip():
                    continue
                parsed = self._parse(line, oversized, started)
                if isinstance(parsed, dict):
                    self._write(parsed)
                elif parsed.wait:
                    self._start(parsed)  # never waits: a slow gate holds only its own call
                else:
                    self._queue.put(parsed)
        finally:
            # EOF (the host closed our stdin, or exited): finish and journal everything read.
            self._stop.set()
            self._queue.put(None)
            observer.join()
            with self._idle:
                while self._active:
                    self._idle.wait()
        return 0


def main(argv: list[str] | None = None) -> int:
    """Entry for ``pasture hook serve ...`` (argv: the words after ``hook serve``)."""
    from pasture.runtime.lifecycle import _args

    args = _args(sys.argv[3:] if argv is None else argv, {"--harness": "harness", "--host-version": "host_version"})
    stdout = sys.stdout.buffer
    if args is None:
        line = {"pasture": "hook-serve", "protocol": PROTOCOL, "error": f"pasture: {USAGE}"}
        stdout.write(dumps(line).encode() + b"\n")
        stdout.flush()
        return EXIT_USAGE
    import signal

    for name in ("SIGINT", "SIGHUP"):  # the host's terminal going away must not cost journal rows
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)
    import os

    server = Server(args["harness"], args["host_version"], sys.stdin.buffer, stdout, dict(os.environ))
    return server.serve()
