"""``pasture install <host> --managed`` / ``pasture uninstall <host> --managed``: our hooks in the host's
administrator channel, with the channel's lock-out flag, so no project or user file can remove or bypass them.

Which channel, which file and which flag is the host's (its module's ``managed``: a :class:`ManagedChannel`
built from the kinds here, or None for a host without one); what is the same for every host is here:

* every system path goes through ``--managed-root DIR`` (:func:`redirect`): tests, and an MDM payload built
  in a folder, write below DIR what would go below ``/``;
* the hooks run one launcher for every user, :data:`SYSTEM_LAUNCHER` (written below the root, recorded as
  the system path, so a payload names the path it will have on the machines it is copied to);
* foreign content is never touched: a JSON settings file gets our hooks merged in (:mod:`.hooktable`) and
  the lock-out keys set, and which of those keys we changed (and what they held) is recorded below
  :data:`RECORDS`, so uninstall puts back exactly what was there (from the backup, byte for byte, when
  nothing else changed); a TOML file gets two marked blocks that uninstall cuts out again; a file of our
  own is ours alone.

The kinds of channel: :mod:`.managed_json` (a JSON settings file; a policy file of our own),
:mod:`.managed_toml` (a TOML requirements file); the run: :mod:`.managed_run`. Host-neutral: the hosts' paths
and keys come from their modules (pasture/hosts/<host>.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Protocol

from pasture.install import files, hooktable, launcher
from pasture.install.places import Target
from pasture.install.report import InstallError
from pasture.install.session import Session
from pasture.runtime.hostwire import guarded

#: The launcher every managed hook runs (one for every user of the machine; mode 755, root's); the guard keeps
#: the agent off its folder (pasture.runtime.hostwire.guarded)
SYSTEM_LAUNCHER = guarded.SYSTEM_LAUNCHER
#: Where install records which lock-out keys it set in a JSON settings file, and what they held before.
RECORDS = "/etc/pasture/managed"

ABSENT = {"absent": True}  # a record's "before" for a key the file did not have


def private_paths(paths: list[str]) -> list[str]:
    """The paths (or a folder above one) other users cannot reach: a folder without o+x, a file without o+r.
    The managed hooks run the launcher as every user; it starts this Python and imports this pasture."""
    import os
    import stat

    blocked: list[str] = []
    for path in dict.fromkeys(p for given in paths for p in (given, os.path.realpath(given))):
        here = Path(path)
        for folder in reversed(here.parents):
            try:
                if not folder.stat().st_mode & stat.S_IXOTH:
                    blocked.append(str(folder))
                    break
            except OSError:
                break
        else:
            try:
                if not os.stat(here).st_mode & stat.S_IROTH:
                    blocked.append(path)
            except OSError:
                pass
    return list(dict.fromkeys(blocked))


def access_note(python: str, paths: list[str]) -> list[Note]:
    blocked = private_paths([python, *paths])
    if not blocked:
        return []
    return [
        Note(
            "managed-access",
            "warn",
            f"the managed launcher runs {python} and imports pasture from {', '.join(paths)}; other users cannot "
            f"reach {', '.join(blocked)}, so every hook of their sessions fails (and the blocking ones refuse)",
            fix="install pasture where every user can read it (e.g. a venv under /opt), then run the managed "
            "install again from there",
        )
    ]


def redirect(root: Path, system: str) -> Path:
    """``system`` (an absolute path) below ``root`` (``/``: the path itself)."""
    return Path(root) / Path(system).relative_to("/")


@dataclass(frozen=True)
class Note:
    """One thing the doctor reports about a managed install (pasture.doctor.managed makes it a Finding)."""

    check: str  # managed | managed-lockout | managed-launcher | managed-gap
    status: str  # ok | warn | off
    message: str
    fix: str | None = None
    where: str | None = None


@dataclass
class ManagedRun:
    """One managed install or uninstall: the session (its target is the channel's first file), the root."""

    session: Session
    root: Path

    @property
    def env(self) -> Mapping[str, str]:
        return self.session.env

    def path(self, system: str) -> Path:
        return redirect(self.root, system)

    def launcher_word(self) -> str:
        """Write the system launcher below the root and check it; the word the hooks record (the system path)."""
        report, harness = self.session.report, self.session.opts.harness
        data_home = self.path(str(Path(SYSTEM_LAUNCHER).parent.parent.parent))  # <root>/usr/local/lib
        try:
            written = launcher.ensure({"XDG_DATA_HOME": str(data_home)}, harness)
            word = launcher.shell_word(SYSTEM_LAUNCHER)
        except launcher.LauncherError as exc:
            raise InstallError(f"{exc}; nothing was installed") from None
        report.launcher = {
            "path": str(written.path),
            "change": written.change,
            "python": written.python,
            "paths": written.paths,
            "checked": written.check.detail,
            "recorded": f"{word} hook lifecycle ...",
        }
        report.warnings += [note.message + f"; fix: {note.fix}" for note in access_note(written.python, written.paths)]
        return word

    def hooks(self, word: str) -> dict[str, Any]:
        adapter = self.session.adapter
        assert adapter is not None  # install sessions carry the adapter
        return hooktable.with_binary(adapter.hooks_document(), word)


class ManagedChannel(Protocol):
    """What a host module's ``managed`` is: where the channel is, what locks it, what it does not close."""

    @property
    def paths(self) -> tuple[str, ...]:
        """The system paths install writes (the first holds the hooks)."""
        ...

    @property
    def lockout(self) -> str:
        """One line: the lock-out flag and what it does, as read in the host's shipped code."""
        ...

    @property
    def read_in(self) -> str:
        """The host version whose shipped code the channel was read in (and proven on)."""
        ...

    @property
    def gaps(self) -> tuple[tuple[str, str], ...]:
        """(what the channel does not close, its fix): doctor warns with each; docs/hosts.md says the same."""
        ...

    def hooks_file(self, root: Path, env: Mapping[str, str]) -> Path: ...

    def install(self, run: ManagedRun) -> None: ...

    def uninstall(self, run: ManagedRun) -> None: ...

    def status(self, root: Path, env: Mapping[str, str]) -> list[Note]: ...


# --- dotted keys in JSON documents -----------------------------------------------------------------


def get_key(doc: Any, dotted: str) -> Any:
    node = doc
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return ABSENT
        node = node[part]
    return node


def set_key(doc: dict[str, Any], dotted: str, value: Any, where: Path) -> None:
    parts = dotted.split(".")
    node = doc
    for part in parts[:-1]:
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            raise InstallError(f"{where}: {part!r} is not an object, so {dotted} cannot be set; nothing was written")
        node = child
    node[parts[-1]] = value


def del_key(doc: dict[str, Any], dotted: str) -> None:
    parts = dotted.split(".")
    chain = [doc]
    for part in parts[:-1]:
        nxt = chain[-1].get(part)
        if not isinstance(nxt, dict):
            return
        chain.append(nxt)
    chain[-1].pop(parts[-1], None)
    for node, part in zip(reversed(chain[:-1]), reversed(parts[:-1]), strict=True):  # drop objects left empty
        if node.get(part) == {}:
            del node[part]


# --- the record of the lock-out keys we set ----------------------------------------------------------


def record_path(root: Path, harness: str, name: str) -> Path:
    return redirect(root, RECORDS) / f"{harness}-{name}.json"


def read_record(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    keys = data.get("keys") if isinstance(data, dict) else None
    return keys if isinstance(keys, dict) else {}


def write_record(session: Session, path: Path, keys: dict[str, Any]) -> None:
    """Record the lock-out keys install set; a record that cannot be written is a warning (the file is written)."""
    text = json.dumps({"keys": keys}, indent=2, sort_keys=True) + "\n"
    try:
        snap = files.snapshot(path)
        if snap.data != text.encode():
            files.replace(snap, text.encode(), backup=False)
    except (OSError, files.ConcurrentChange) as exc:
        session.report.warnings.append(
            f"cannot write {path} ({exc}): which lock-out keys pasture set is not recorded, so "
            "`pasture uninstall --managed` will leave them in place"
        )


def drop_record(path: Path) -> None:
    path.unlink(missing_ok=True)
    files.prune_empty_dirs(path.parent, path.parent.parent)


def unreadable(path: Path, exc: Exception) -> list[Note]:
    """A file the doctor cannot parse: off when it holds a hook of ours (the host cannot read it either), else
    not pasture's business (nothing of ours is in it)."""
    try:
        ours = " hook lifecycle " in path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        ours = False
    if not ours:
        return []
    return [Note("managed", "off", f"{path} cannot be read ({exc})", fix=f"fix or remove {path}", where=str(path))]


def lock_notes(path: Path, keys: list[tuple[str, Any, Any]], lockout: str) -> list[Note]:
    wrong = [f"{key} is {'absent' if now == ABSENT else json.dumps(now)}" for key, want, now in keys if now != want]
    if not wrong:
        return [Note("managed-lockout", "ok", f"{path}: {lockout}", where=str(path))]
    return [
        Note(
            "managed-lockout",
            "off",
            f"{path}: {'; '.join(wrong)}: the lock-out does not hold ({lockout})",
            fix="pasture install <host> --managed",
            where=str(path),
        )
    ]


def launcher_notes(root: Path, commands: list[str]) -> list[Note]:
    recorded = {hooktable.recorded_binary(c) for c in commands} - {None}
    notes = []
    for system in sorted(p for p in recorded if p):
        real = redirect(root, system) if system.startswith("/") else Path(system)
        check = launcher.self_test(real)
        if check.ok:
            notes.append(Note("managed-launcher", "ok", f"{system} runs ({check.detail})", where=str(real)))
            ran = json.loads(check.detail)
            homes = [str(Path(ran[k]).parent.parent) for k in ("pasture", "tables") if isinstance(ran.get(k), str)]
            notes += access_note(str(ran.get("python")), homes)
        else:
            notes.append(
                Note(
                    "managed-launcher",
                    "off",
                    f"the managed hooks run {system}, which does not run ({check.detail}): every hook fails",
                    fix="pasture install <host> --managed",
                    where=str(real),
                )
            )
    return notes


def read_json(snap: files.Snapshot) -> dict[str, Any] | None:
    if not snap.exists:
        return None
    try:
        return hooktable.parse(snap.data.decode("utf-8"), str(snap.path))  # type: ignore[union-attr]
    except (UnicodeDecodeError, hooktable.HooksDocumentError) as exc:
        raise InstallError(f"{exc}; refusing to touch it (nothing was written)") from None


def uninstalled_text(snap: files.Snapshot, document: dict[str, Any]) -> str:
    try:
        saved = files.backup_path(snap.real).read_bytes().decode("utf-8")
        if hooktable.same(hooktable.parse(saved, "backup"), document):
            return saved
    except (OSError, UnicodeDecodeError, hooktable.HooksDocumentError):
        pass
    return hooktable.render(document, snap.text)


# --- the run -----------------------------------------------------------------------------------------


def target(harness: str, channel: ManagedChannel, root: Path, env: Mapping[str, str]) -> Target:
    path = channel.hooks_file(root, env)
    return Target(harness, "managed", path, root)


def no_channel(display_name: str, harness: str) -> str:
    """The one line a host without an administrator channel refuses ``--managed`` with."""
    return (
        f"{display_name} has no managed (administrator) channel that pasture can lock: "
        f"install for the user instead: pasture install {harness} --user"
    )
