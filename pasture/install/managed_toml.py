"""A managed channel in TOML (:mod:`.managed`): our hooks and lock-out keys in a requirements file, as two
marked blocks (:class:`TomlRequirementsChannel`)."""

from __future__ import annotations

import copy
import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from pasture.install import files, hooktable
from pasture.install.managed import (
    ABSENT,
    ManagedRun,
    Note,
    get_key,
    launcher_notes,
    lock_notes,
    redirect,
    set_key,
    unreadable,
)
from pasture.install.report import FileChange, InstallError
from pasture.install.session import remove, write

# --- a TOML file: a marked block of top-level keys and a marked block of hook tables ------------------

BEGIN = "# >>> pasture managed install: `pasture uninstall {harness} --managed` removes this block"
END = "# <<< pasture managed install"


@dataclass(frozen=True)
class TomlRequirementsChannel:
    """Our hooks as inline TOML tables (``[[hooks.<Event>]]`` / ``[[hooks.<Event>.hooks]]``) and ``lock``
    (top-level key -> value) in a TOML requirements file. Top-level keys must come before every table, so
    they go in a marked block at the top and the hook tables in a marked block at the end; uninstall cuts
    both out, which gives the file back byte for byte. The edited text is parsed again and must equal the
    old document plus exactly our additions, else nothing is written."""

    paths: tuple[str, ...]
    lockout: str
    read_in: str
    lock: tuple[tuple[str, Any], ...]
    gaps: tuple[tuple[str, str], ...] = ()

    def hooks_file(self, root: Path, env: Mapping[str, str]) -> Path:
        return redirect(root, self.paths[0])

    def install(self, run: ManagedRun) -> None:
        session, harness = run.session, run.session.opts.harness
        path = self.hooks_file(run.root, run.env)
        word = run.launcher_word()
        snap = session.checked(path)
        old = _toml_text(snap)
        foreign_text = strip_blocks(old, harness)
        foreign = _toml_doc(foreign_text, path)
        top = []
        expected = copy.deepcopy(foreign)
        for key, value in self.lock:
            have = get_key(foreign, key)
            if have == value:
                continue
            if have != ABSENT:
                raise InstallError(
                    f"{path} sets {key} = {json.dumps(have)}; pasture's managed install needs {json.dumps(value)} "
                    "(nothing was written)",
                    hint=f"remove {key} from {path} (or set it to {json.dumps(value)}), then run the command again",
                )
            top.append(f"{key} = {_toml_value(value)}")
            set_key(expected, key, value, path)
        hooks = run.hooks(word)["hooks"]
        new = top_block(harness, top) + foreign_text + tail_block(harness, hooks)
        table = expected.setdefault("hooks", {})
        if not isinstance(table, dict):
            raise InstallError(f"{path}: hooks is not a table; refusing to touch it (nothing was written)")
        for event, groups in hooks.items():
            table[event] = list(table.get(event, [])) + [_toml_group(g) for g in groups]
        wanted = ", ".join(f"{k} = {_toml_value(v)}" for k, v in self.lock)
        try:
            parsed = tomllib.loads(new)
        except tomllib.TOMLDecodeError as exc:
            raise InstallError(
                f"{path}: pasture's hooks and {', '.join(k for k, _v in self.lock)} cannot be added to it as it is "
                f"({exc}); nothing was written",
                hint="its hooks tables must be [[hooks.<Event>]] arrays of tables, and a table pasture sets a key "
                f"in must not have a [header] of its own: set {wanted} in {path} yourself (they are then left "
                "alone), then run this again",
            ) from None
        if parsed != expected:
            raise InstallError(f"{path}: adding pasture's hooks would change other settings; nothing was written")
        session.report.files.append(write(snap, new) if new != old else FileChange(path, "unchanged"))

    def uninstall(self, run: ManagedRun) -> None:
        session, harness = run.session, run.session.opts.harness
        path = self.hooks_file(run.root, run.env)
        snap = session.checked(path)
        if not snap.exists:
            session.report.files.append(FileChange(path, "absent"))
            return
        old = _toml_text(snap)
        new = strip_blocks(old, harness)
        if new == old:
            session.report.files.append(FileChange(path, "unchanged", detail="no pasture block in it"))
        elif not new:
            remove(snap)
            session.report.files.append(FileChange(path, "removed", detail="nothing else was left in it"))
        else:
            change = write(snap, new, backup=True)
            change.detail = "pasture's blocks removed"
            session.report.files.append(change)

    def status(self, root: Path, env: Mapping[str, str]) -> list[Note]:
        path = self.hooks_file(root, env)
        try:
            doc = tomllib.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            return unreadable(path, exc)
        hooks = doc.get("hooks")
        handlers = hooktable.our_handlers({"hooks": hooks}) if isinstance(hooks, dict) else []
        if not handlers:
            return []
        notes = [Note("managed", "ok", f"{path} holds pasture's hooks ({len(handlers)})", where=str(path))]
        notes += lock_notes(path, [(key, value, get_key(doc, key)) for key, value in self.lock], self.lockout)
        notes += launcher_notes(root, [h["command"] for *_x, h in handlers])
        return notes


def _toml_text(snap: files.Snapshot) -> str:
    try:
        return snap.text or ""
    except UnicodeDecodeError:
        raise InstallError(f"{snap.path}: not UTF-8 text; refusing to touch it") from None


def _toml_doc(text: str, path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InstallError(f"{path} is not valid TOML ({exc}); refusing to touch it (nothing was written)") from None


def _toml_value(value: Any) -> str:
    from pasture.install.tomledit import basic_string

    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return basic_string(value)
    raise TypeError(f"no TOML form for {value!r}")


def _toml_group(group: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in group.items() if v is not None}


def top_block(harness: str, lines: list[str]) -> str:
    return "".join(f"{line}\n" for line in [BEGIN.format(harness=harness), *lines, END]) if lines else ""


def tail_block(harness: str, hooks: dict[str, Any]) -> str:
    out = ["", BEGIN.format(harness=harness)]
    for event, groups in hooks.items():
        for group in groups:
            out.append(f"[[hooks.{event}]]")
            for key, value in group.items():
                if key != "hooks":
                    out.append(f"{key} = {_toml_value(value)}")
            for handler in group.get("hooks", []):
                out.append(f"[[hooks.{event}.hooks]]")
                out += [f"{key} = {_toml_value(value)}" for key, value in handler.items()]
    out.append(END)
    return "\n".join(out) + "\n"


def strip_blocks(text: str, harness: str) -> str:
    """``text`` without our marked blocks (the top block, and the tail block with the newline before it)."""
    begin, end = re.escape(BEGIN.format(harness=harness)), re.escape(END)
    text = re.sub(rf"\A{begin}\n(?:.*\n)*?{end}\n", "", text)
    return re.sub(rf"\n{begin}\n(?:.*\n)*?{end}\n", "", text)
