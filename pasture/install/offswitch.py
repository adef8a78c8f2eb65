"""``pasture install`` against a repository that already switches the host's hooks off (issue 28).

The host's declared off-switches (pasture/runtime/hostwire/<host>.py ``OFF_SWITCHES``), read here
(``hits``, which pasture.doctor.offswitch reports as findings) in the folder the host starts in: a
project install refuses (exit 2, nothing written) naming each file and key, unless ``--force``, which
installs and says the guard is off there; a user install warns about the current folder (the
repository's switch turns the user's hooks off too). A switch read in the host's code whose effect is
not established only warns.
"""

from __future__ import annotations

import fnmatch
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pasture.install.report import InstallError
from pasture.install.session import Session
from pasture.runtime.hostwire import WIRES
from pasture.runtime.hostwire.guarded import module

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
    also: str = ""  # the host's own doctor check that reports this switch too (the switch's ``also``)

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
                    Hit(
                        harness,
                        path,
                        switch["key"],
                        switch["why"],
                        switch["fix"],
                        bool(switch["certain"]),
                        detail,
                        switch.get("also", ""),
                    )
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


def check(session: Session, force: bool) -> None:
    opts, report = session.opts, session.report
    project = opts.project
    folder = (project if project is not None else Path.cwd()).resolve()
    found = hits(opts.harness, folder)
    blocking = [hit for hit in found if hit.certain and project is not None]
    if blocking and not force:
        lines = "; ".join(f"{hit.names} holds {hit.detail}: {hit.why} (fix: {hit.fix})" for hit in blocking)
        raise InstallError(
            f"this repository already switches {opts.harness}'s hooks off, so pasture's adapter would not run: "
            f"{lines}; nothing was written",
            hint="fix those files and run the command again, or add --force to install anyway (the guard stays "
            "off until they are fixed; pasture doctor says so)",
        )
    for hit in found:
        if hit in blocking:
            report.warnings.append(
                f"installed anyway (--force): the guard is OFF here while {hit.names} holds {hit.detail} "
                f"({hit.why}); fix: {hit.fix}"
            )
        elif hit.certain:
            report.warnings.append(
                f"{hit.names} holds {hit.detail}: {hit.why}, so a session started in {folder} runs without "
                f"pasture's hooks; fix: {hit.fix}"
            )
        else:
            report.warnings.append(
                f"{hit.names} holds {hit.detail}: {hit.why} (read in the host's code; its effect is not "
                f"established); fix: {hit.fix}"
            )
