"""Managed channels in JSON (:mod:`.managed`): our hooks merged into a JSON settings file with its lock-out keys
(:class:`JsonSettingsChannel`), or a policy hooks file of our own with lock-out keys in another JSON settings file
(:class:`OwnFileChannel`)."""

from __future__ import annotations

import copy
import json
import re
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from pasture.install import hooktable
from pasture.install.managed import (
    ABSENT,
    ManagedRun,
    Note,
    del_key,
    drop_record,
    get_key,
    launcher_notes,
    lock_notes,
    read_json,
    read_record,
    record_path,
    redirect,
    set_key,
    uninstalled_text,
    unreadable,
    write_record,
)
from pasture.install.report import FileChange, InstallError
from pasture.install.session import remove, write


@dataclass(frozen=True)
class JsonSettingsChannel:
    """Our hooks merged into a JSON settings file's ``hooks`` (the host reads it as its administrator's),
    plus ``lock`` (dotted key -> value) set in it. ``env_path``: a variable of the host's that moves the
    file (honoured when set in the installer's environment). ``secret_names``: the host matches a
    hook's ``name`` against lists a project may extend, so each of our hooks gets ``<prefix>-<event>-<token>``
    with a token a repository cannot predict (kept across reinstalls)."""

    paths: tuple[str, ...]
    lockout: str
    read_in: str
    lock: tuple[tuple[str, Any], ...]
    gaps: tuple[tuple[str, str], ...] = ()
    env_path: str | None = None
    secret_names: str | None = None
    name: str = "settings"  # the record's name
    #: dotted keys that must be in the file, whatever their value: set to the default given when absent
    #: (an administrator's own value stays)
    pins: tuple[tuple[str, Any], ...] = ()

    def hooks_file(self, root: Path, env: Mapping[str, str]) -> Path:
        moved = env.get(self.env_path) if self.env_path else None
        return redirect(root, moved) if moved and moved.startswith("/") else redirect(root, self.paths[0])

    def install(self, run: ManagedRun) -> None:
        session = run.session
        path = self.hooks_file(run.root, run.env)
        word = run.launcher_word()
        snap = session.checked(path)
        existing = read_json(snap)
        generated = run.hooks(word)
        if self.secret_names:
            _name_hooks(generated, self.secret_names, _token_of(existing, self.secret_names))
        result = hooktable.merge(existing, generated)
        document = result.document
        record_at = record_path(run.root, session.opts.harness, self.name)
        recorded = read_record(record_at)
        for key, value in self.lock:
            before = get_key(existing or {}, key)
            if before != value and key not in recorded:
                recorded[key] = before
            set_key(document, key, value, path)
        for key, value in self.pins:
            if get_key(document, key) == ABSENT:
                recorded.setdefault(key, ABSENT)
                set_key(document, key, value, path)
        text = hooktable.render(document, snap.text)
        change = write(snap, text) if existing is None or not hooktable.same(document, existing) else None
        session.report.files.append(change or FileChange(path, "unchanged"))
        if recorded:
            write_record(session, record_at, recorded)

    def uninstall(self, run: ManagedRun) -> None:
        session = run.session
        path = self.hooks_file(run.root, run.env)
        snap = session.checked(path)
        existing = read_json(snap)
        record_at = record_path(run.root, session.opts.harness, self.name)
        recorded = read_record(record_at)
        if existing is None:
            session.report.files.append(FileChange(path, "absent"))
            drop_record(record_at)
            return
        result = hooktable.unmerge(existing, keep_hooks_key=False)
        document = result.document
        if result.deleted:
            document.pop("hooks", None)
        for key, value in self.lock + self.pins:
            if key in recorded and get_key(document, key) == value:
                before = recorded[key]
                if before == ABSENT:
                    del_key(document, key)
                else:
                    set_key(document, key, before, path)
            elif key not in recorded and get_key(document, key) == value and result.removed_groups:
                session.report.warnings.append(
                    f"{path}: {key} was already {json.dumps(value)} before pasture's install (or its record "
                    f"{record_at} is gone); left as it is"
                )
        if hooktable.same(document, existing):
            session.report.files.append(FileChange(path, "unchanged", detail="no pasture hooks in it"))
        elif not document:
            remove(snap)
            session.report.files.append(FileChange(path, "removed", detail="nothing else was left in it"))
        else:
            change = write(snap, uninstalled_text(snap, document))
            change.detail = f"{result.removed_groups} pasture group(s) and the lock-out pasture set removed"
            session.report.files.append(change)
        drop_record(record_at)

    def status(self, root: Path, env: Mapping[str, str]) -> list[Note]:
        path = self.hooks_file(root, env)
        try:
            doc = hooktable.parse(path.read_text(encoding="utf-8"), str(path))
        except FileNotFoundError:
            return []
        except (OSError, UnicodeDecodeError, hooktable.HooksDocumentError) as exc:
            return unreadable(path, exc)
        handlers = hooktable.our_handlers(doc)
        if not handlers:
            return []
        notes = [Note("managed", "ok", f"{path} holds pasture's hooks ({len(handlers)})", where=str(path))]
        keys = [(key, value, get_key(doc, key)) for key, value in self.lock]
        keys += [(key, value, value if get_key(doc, key) != ABSENT else ABSENT) for key, value in self.pins]
        notes += lock_notes(path, keys, self.lockout)
        notes += launcher_notes(root, [h["command"] for *_x, h in handlers])
        return notes


_TOKEN = re.compile(r"[0-9a-f]{16}")


def _token_of(existing: dict[str, Any] | None, prefix: str) -> str:
    """The token our installed hooks' names carry (a reinstall keeps it), else a new one."""
    for event, _g, _h, handler in hooktable.our_handlers(existing or {}):
        name = handler.get("name")
        if isinstance(name, str) and name.startswith(f"{prefix}-{event}-"):
            token = name.rsplit("-", 1)[1]
            if _TOKEN.fullmatch(token):
                return token
    return secrets.token_hex(8)


def _name_hooks(doc: dict[str, Any], prefix: str, token: str) -> None:
    for event, _g, _h, handler in hooktable.our_handlers(doc):
        handler["name"] = f"{prefix}-{event}-{token}"


# --- a file of our own in the host's policy folder (and optional lock-out keys elsewhere) ---------------


@dataclass(frozen=True)
class OwnFileChannel:
    """Our hooks document as a file of our own in a folder the host loads as policy. ``lock``: keys set in
    the JSON settings file ``lock_file`` (recorded as :class:`JsonSettingsChannel` records them)."""

    paths: tuple[str, ...]
    lockout: str
    read_in: str
    lock: tuple[tuple[str, Any], ...] = ()
    lock_file: str | None = None
    gaps: tuple[tuple[str, str], ...] = ()
    with_binary: Any = None  # the host's own (document, word) -> document, for a hooks format of its own
    is_ours: Any = None  # (document) -> bool
    commands: Any = None  # (document) -> list of our commands

    def hooks_file(self, root: Path, env: Mapping[str, str]) -> Path:
        return redirect(root, self.paths[0])

    def install(self, run: ManagedRun) -> None:
        session = run.session
        path = self.hooks_file(run.root, run.env)
        word = run.launcher_word()
        adapter = session.adapter
        assert adapter is not None
        snap = session.checked(path)
        existing = read_json(snap)
        if existing is not None and not self.is_ours(existing):
            raise InstallError(f"{path} exists and is not pasture's; refusing to replace it (nothing was written)")
        document = self.with_binary(adapter.hooks_document(), word)
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
        session.report.files.append(write(snap, text, backup=False))
        if self.lock_file:
            _set_lock(run, Path(self.lock_file), self.lock)

    def uninstall(self, run: ManagedRun) -> None:
        session = run.session
        path = self.hooks_file(run.root, run.env)
        snap = session.checked(path)
        existing = read_json(snap)
        if existing is None:
            session.report.files.append(FileChange(path, "absent"))
        elif not self.is_ours(existing):
            session.report.files.append(FileChange(path, "unchanged", detail="not pasture's"))
        else:
            remove(snap)
            session.report.files.append(FileChange(path, "removed"))
        if self.lock_file:
            _unset_lock(run, Path(self.lock_file), self.lock)

    def status(self, root: Path, env: Mapping[str, str]) -> list[Note]:
        path = self.hooks_file(root, env)
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (OSError, ValueError) as exc:
            return unreadable(path, exc)
        if not self.is_ours(doc):
            return []
        commands = self.commands(doc)
        notes = [Note("managed", "ok", f"{path} holds pasture's hooks ({len(commands)})", where=str(path))]
        if self.lock_file:
            lock_path = redirect(root, self.lock_file)
            try:
                settings = json.loads(lock_path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                settings = {}
            notes += lock_notes(lock_path, [(k, v, get_key(settings, k)) for k, v in self.lock], self.lockout)
        else:
            notes.append(Note("managed-lockout", "ok", f"{path}: {self.lockout}", where=str(path)))
        return notes + launcher_notes(root, commands)


def _set_lock(run: ManagedRun, system: Path, lock: tuple[tuple[str, Any], ...]) -> None:
    session = run.session
    path = run.path(str(system))
    snap = session.checked(path)
    existing = read_json(snap)
    document = copy.deepcopy(existing) if existing is not None else {}
    record_at = record_path(run.root, session.opts.harness, path.stem)
    recorded = read_record(record_at)
    for key, value in lock:
        before = get_key(existing or {}, key)
        if before != value and key not in recorded:
            recorded[key] = before
        set_key(document, key, value, path)
    if existing is not None and hooktable.same(document, existing):
        session.report.files.append(FileChange(path, "unchanged"))
    else:
        session.report.files.append(write(snap, hooktable.render(document, snap.text)))
    if recorded:
        write_record(session, record_at, recorded)


def _unset_lock(run: ManagedRun, system: Path, lock: tuple[tuple[str, Any], ...]) -> None:
    session = run.session
    path = run.path(str(system))
    snap = session.checked(path)
    existing = read_json(snap)
    record_at = record_path(run.root, session.opts.harness, path.stem)
    recorded = read_record(record_at)
    if existing is None:
        session.report.files.append(FileChange(path, "absent"))
        drop_record(record_at)
        return
    document = copy.deepcopy(existing)
    for key, value in lock:
        if key in recorded and get_key(document, key) == value:
            if recorded[key] == ABSENT:
                del_key(document, key)
            else:
                set_key(document, key, recorded[key], path)
    if hooktable.same(document, existing):
        session.report.files.append(FileChange(path, "unchanged"))
    elif not document:
        remove(snap)
        session.report.files.append(FileChange(path, "removed", detail="nothing else was left in it"))
    else:
        session.report.files.append(write(snap, uninstalled_text(snap, document)))
    drop_record(record_at)
