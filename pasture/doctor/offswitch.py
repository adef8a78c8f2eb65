"""A repository that switches a host's hooks off: each host's declared off-switches (``OFF_SWITCHES`` in
pasture/runtime/hostwire/<host>.py), looked up in a project folder, and the env files it loads.

One reading for ``pasture install`` (pasture.install.offswitch: a project install refuses, a user install
warns) and ``pasture doctor`` (``off-switch`` findings, ``host-env`` for env files, ``start-folder`` for a
session started below the folder whose adapter the host reads). Host-neutral: nothing here imports the
host registry.
"""

from __future__ import annotations

import fnmatch
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from pasture.doctor.findings import Finding
from pasture.runtime.hostwire import WIRES
from pasture.runtime.hostwire.guarded import module

CHECK = "off-switch"
MAX_BYTES = 1 << 20
TESTS = ("true", "false", "set", "exists", "names-ours", "excludes-ours", "ignores-ours", "env-true")
# what names our adapter in the lists the tests read: Gemini's hook names (pasture-<Event>), Pi's file
OURS = {"names-ours": "pasture", "excludes-ours": "pasture-lifecycle.ts", "ignores-ours": "pasture-lifecycle.ts"}


@dataclass(frozen=True)
class Hit:
    harness: str
    file: Path
    key: str  # "" for the file itself
    why: str
    fix: str
    certain: bool
    detail: str  # what the file holds there (the value, the entries that name ours)

    @property
    def names(self) -> str:
        """file and key, as the messages say them."""
        return f"{self.file} ({self.key})" if self.key else str(self.file)


def switches(harness: str) -> tuple[dict[str, Any], ...]:
    name = WIRES.get(harness)
    return tuple(module(name).OFF_SWITCHES) if name else ()


def hits(harness: str, folder: Path) -> list[Hit]:
    """The declared switches of `harness` that the files in `folder` (where the host starts) turn on."""
    out: list[Hit] = []
    for switch in switches(harness):
        for path in _files(folder, switch["file"]):
            detail = _test(path, switch)
            if detail is not None:
                out.append(
                    Hit(harness, path, switch["key"], switch["why"], switch["fix"], bool(switch["certain"]), detail)
                )
    return out


def _files(folder: Path, rel: str) -> list[Path]:
    if "*" in rel:
        parent, _, pattern = rel.rpartition("/")
        try:
            return sorted(p for p in (folder / parent).glob(pattern) if p.is_file())
        except OSError:
            return []
    path = folder / rel
    return [path] if path.exists() else []


def _test(path: Path, switch: dict[str, Any]) -> str | None:
    """What `path` holds that turns the switch on (words for the message), else None."""
    when = switch["off_when"]
    if when == "exists":
        return "present"
    if not path.is_file():  # a FIFO or a device would block the read; the host cannot parse one either
        return None
    try:
        with path.open("rb") as fh:
            text = fh.read(MAX_BYTES).decode("utf-8", "replace")
    except OSError:
        return None
    if when == "ignores-ours":
        return _ignored(text, OURS[when])
    if when == "env-true":  # a dotenv file: the variable `key` set to a true value ("1", "true")
        from pasture.runtime.envfiles import values

        found = values(text, lambda name: name == switch["key"]).get(switch["key"], [])
        return next((f"{switch['key']}={v}" for v in found if v.strip().lower() in ("1", "true")), None)
    document = _document(path, text)
    if document is None:
        return None  # the host cannot read it either: it switches nothing
    value: Any = document
    for part in switch["key"].split("."):
        value = value.get(part) if isinstance(value, dict) else None
    if when == "true":
        return "true" if value is True or value == "true" else None
    if when == "false":
        return "false" if value is False else None
    if when == "set":
        return json.dumps(value, ensure_ascii=False)[:200] if value not in (None, "", [], {}) else None
    if when == "names-ours":
        named = [e for e in value if isinstance(e, str) and OURS[when] in e.lower()] if isinstance(value, list) else []
        return ", ".join(repr(e) for e in named) or None
    if when == "excludes-ours":
        return _excluded(value, path, OURS[when])
    raise ValueError(f"off_when {when!r}: not one of {', '.join(TESTS)}")


def _document(path: Path, text: str) -> dict[str, Any] | None:
    if path.suffix == ".toml":
        import tomllib

        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            return None
    for attempt in (text, _jsonc(text)):  # Gemini CLI and Copilot CLI read comments and trailing commas
        try:
            doc = json.loads(attempt)
        except (ValueError, RecursionError):
            continue
        return doc if isinstance(doc, dict) else None
    return None


def _jsonc(text: str) -> str:
    out, i, n = [], 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            end = i + 1
            while end < n and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            out.append(text[i : end + 1])
            i = end + 1
        elif text.startswith("//", i):
            i = text.find("\n", i) if "\n" in text[i:] else n
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        else:
            out.append(ch)
            i += 1
    return re.sub(r",(\s*[}\]])", r"\1", "".join(out))


def _excluded(value: Any, settings: Path, ours: str) -> str | None:
    """Pi's isEnabledByOverrides for .pi/extensions/<ours>: `!` excludes, `+` force-includes, `-` force-excludes
    (patterns against the path, relative to .pi/ or absolute; `*` is taken to cross `/`, a superset)."""
    if not isinstance(value, list):
        return None
    base = settings.parent
    forms = {ours, f"extensions/{ours}", str(base / "extensions" / ours)}

    def matches(pattern: str, exact: bool) -> bool:
        pattern = pattern.strip().removeprefix("./")
        if exact:
            return pattern in forms
        return any(fnmatch.fnmatchcase(form, pattern.replace("**", "*")) for form in forms)

    entries = [e for e in value if isinstance(e, str)]
    excluded = [e for e in entries if e.startswith("!") and matches(e[1:], False)]
    enabled = not excluded
    if any(e.startswith("+") and matches(e[1:], True) for e in entries):
        enabled, excluded = True, []
    forced = [e for e in entries if e.startswith("-") and matches(e[1:], True)]
    if forced:
        enabled, excluded = False, forced
    return None if enabled else ", ".join(repr(e) for e in excluded)


def _ignored(text: str, ours: str) -> str | None:
    """An ignore file (gitignore syntax) in the extensions folder whose last matching line ignores `ours`."""
    last = None
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or line.endswith("/"):
            continue
        negated = line.startswith("!")
        pattern = line[1:] if negated else line
        pattern = pattern.lstrip("/").replace("**/", "").replace("**", "*")
        if fnmatch.fnmatchcase(ours, pattern) or fnmatch.fnmatchcase(ours, pattern.rpartition("/")[2]):
            last = None if negated else line
    return repr(last) if last else None


# --- doctor -----------------------------------------------------------------------------------------


def _said_already(hit: Hit, installs: list) -> bool:
    """What a host's own doctor check reports already: Claude Code's `adapter` check reads disableAllHooks in
    the settings file our hooks are in; Pi's `pi-extensions` an exclusion naming our file literally."""
    if hit.harness == "claude-code" and hit.key == "disableAllHooks":
        return any(inst.target.file == hit.file for inst in installs)
    if hit.harness == "pi" and hit.key == "extensions":
        return all(OURS["excludes-ours"] in entry for entry in hit.detail.split(", "))
    return False


def findings(harness: str, folder: Path, installs: list | None = None) -> list[Finding]:
    """`off-switch` findings: off where the host's own code shows the switch works, warn where not established."""
    out = []
    for hit in hits(harness, folder):
        if installs and _said_already(hit, installs):
            continue
        certain = "" if hit.certain else " (read in the host's code; its effect is not established)"
        out.append(
            Finding(
                CHECK,
                "off" if hit.certain else "warn",
                f"{hit.names} holds {hit.detail}: {hit.why}; pasture's hooks do not hold here{certain}",
                harness,
                fix=hit.fix,
                where=str(hit.file),
            )
        )
    return out


def env_findings(harness: str, start: str, root: str) -> list[Finding]:
    """`host-env`: the host's env files (from the start folder up) that supply a root of the guard. The hook
    drops those values and says so on every call (pasture.runtime.envfiles); doctor names the file."""
    from pasture.runtime import envfiles

    names = tuple(module(WIRES[harness]).ENV_FILES) if harness in WIRES else ()
    paths = envfiles.find((start, root), names)
    out = []
    for path in paths:
        found = sorted(envfiles.injected([path]))
        if not found:
            continue
        said = "every root variable (unreadable within 1 MiB)" if envfiles.UNREAD in found else ", ".join(found)
        out.append(
            Finding(
                "host-env",
                "off",
                f"{path} sets {said}, and {harness} loads that file into the environment its hooks inherit: a "
                "repository must not move the guard's policy, trust store or cache (the hook ignores these values "
                "and says so)",
                harness,
                fix=f"remove {said} from {path}",
                where=path,
            )
        )
    return out


def root_only(harness: str) -> bool:
    return bool(getattr(module(WIRES[harness]), "PROJECT_ADAPTER_ROOT_ONLY", False)) if harness in WIRES else False


def start_findings(
    harness: str, binary: str, start: Path | None, project: Path | None, adapter: Path, covered: bool
) -> list[Finding]:
    """A session started below the folder whose adapter the host reads loads none of it (`cd src; gemini`)."""
    if start is None or project is None or start == project or not root_only(harness):
        return []
    return [
        Finding(
            "start-folder",
            "warn" if covered else "off",
            f"{harness} started in {start} loads no project adapter: it reads {adapter} only when started in "
            f"{project} (host behaviour)"
            + ("; the user-scope adapter still runs" if covered else "; nothing of pasture's runs there"),
            harness,
            fix=f"start {binary} in {project}, or install for the user: pasture install {harness} --user",
            where=str(adapter),
        )
    ]


def all_findings(
    harness: str, binary: str, start: Path | None, project: Path | None, installs: list, env: Mapping[str, str]
) -> list[Finding]:
    """Everything of this module for one host with adapters `installs` (doctor's call site)."""
    if project is None:
        return []
    out = findings(harness, project, installs)
    if start is not None and start != project:  # a session started there reads that folder's settings
        out += findings(harness, start, installs)
    out += env_findings(harness, str(start or project), str(project))
    covered = any(i.target.project is None for i in installs)
    for inst in installs:
        if inst.target.project is not None and harness != "claude-code":  # Claude Code: its claude-start check
            out += start_findings(harness, binary, start, project, inst.target.file, covered)
    return out
