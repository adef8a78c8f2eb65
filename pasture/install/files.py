"""Reading and writing the host files we install into: snapshots, backups, atomic replace.

Every change goes through a :class:`Snapshot` taken before we decided what to write: the new bytes
are staged in a temp file beside the target, and the target is replaced by ``os.replace`` only if
it still holds the bytes we read (another program, such as the host itself, may have written it in
between; then nothing is replaced and the caller reports the race).

A symlinked target (dotfile managers link ``~/.claude/settings.json``) is followed: the file it
points to is changed and the link stays a link. In a project, a link (the file or a folder on the
way) that leads out of the project is refused unless the user says ``--follow-symlinks``
(:func:`outside`): a repository must not be able to point our write at a file elsewhere.

A file whose permission bits say read-only is never replaced, even where the directory would allow
it (and root could): the user made it read-only on purpose (:func:`check_writable`). A write that
fails anyway (an immutable file, a full disk) leaves the target and its backup as they were.

Backups: before a file that may hold someone else's content is changed or removed, its previous
bytes go to ``<file>.pasture-backup`` beside it (one backup per file, overwritten by each later
change; a run that changes nothing leaves the backup alone).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from pasture import PastureError

BACKUP_SUFFIX = ".pasture-backup"


class ConcurrentChange(PastureError, RuntimeError):
    """The file changed on disk between our read and our write; nothing was replaced."""


@dataclass(frozen=True)
class Snapshot:
    """A file as we read it: ``path`` as the user named it, ``real`` the file to change."""

    path: Path
    real: Path
    data: bytes | None  # None: the file does not exist

    @property
    def exists(self) -> bool:
        return self.data is not None

    @property
    def text(self) -> str | None:
        return None if self.data is None else self.data.decode("utf-8")


def snapshot(path: Path) -> Snapshot:
    path = Path(path)
    real = path.resolve() if path.is_symlink() else path
    refuse_folder(path)
    try:
        data = real.read_bytes()
    except FileNotFoundError:
        data = None
    return Snapshot(path, real, data)


class NotWritable(PastureError, RuntimeError):
    """The target (or the folder it must be written in) cannot be written: nothing was written."""


class NotAFile(NotWritable):
    """A folder stands where pasture reads and writes a file: nothing was read or written."""


def refuse_folder(path: Path) -> None:
    """Raise NotAFile when ``path`` (or where its symlink leads) is a folder: the one-line refusal,
    before any read fails on it."""
    if Path(path).is_dir():
        raise NotAFile(folder_message(path))


def folder_message(path: Path) -> str:
    return f"{path} is a folder, not a file: move it out of the way, then run the command again"


def outside(path: Path, root: Path) -> Path | None:
    """Where ``path`` really leads when a symlink on the way takes it out of ``root``; else None."""
    real_root = Path(os.path.realpath(root))
    real = Path(os.path.realpath(path))
    return None if real == real_root or real_root in real.parents else real


def _existing_ancestor(path: Path) -> Path:
    folder = path
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return folder


def check_writable(snap: Snapshot) -> None:
    """Raise NotWritable, naming the reason and the fix, before anything is written."""
    real = snap.real
    if snap.exists:
        try:
            mode = real.stat().st_mode
        except OSError as exc:
            raise NotWritable(f"{snap.path}: cannot stat it ({exc.strerror})") from None
        if not mode & stat.S_IWUSR or not os.access(real, os.W_OK):
            raise NotWritable(
                f"{snap.path} is read-only (mode {stat.filemode(mode)}); pasture does not override "
                f"that. Make it writable (chmod u+w {real}) and run the command again"
            )
    folder = _existing_ancestor(real.parent)
    if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
        raise NotWritable(
            f"cannot write in {folder} (needed for {snap.path}, its temp file and backup); "
            "fix the folder's permissions and run the command again"
        )


def backup_path(path: Path) -> Path:
    return path.with_name(path.name + BACKUP_SUFFIX)


def _write_temp(target: Path, data: bytes, mode: int | None) -> Path:
    # The temp name must not end like the target (".ts", ".json"): hosts glob their config folders.
    tmp = target.with_name(f".{target.name}.pasture-tmp-{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600 if mode is None else mode & 0o7777)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode & 0o7777)
        else:
            os.chmod(tmp, 0o666 & ~_umask())
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def _check_unchanged(snap: Snapshot) -> None:
    try:
        now = snap.real.read_bytes()
    except FileNotFoundError:
        now = None
    if now != snap.data:
        raise ConcurrentChange(
            f"{snap.path} changed while pasture was working on it; nothing was replaced, run the command again"
        )


def write_backup(snap: Snapshot) -> Path | None:
    """Save the snapshot's bytes as ``<file>.pasture-backup`` (atomically); None if there was no file."""
    if snap.data is None:
        return None
    target = backup_path(snap.real)
    tmp = _write_temp(target, snap.data, _mode(snap.real))
    os.replace(tmp, target)
    return target


def _mode(path: Path) -> int | None:
    try:
        return path.stat().st_mode
    except FileNotFoundError:
        return None


def replace(snap: Snapshot, data: bytes, *, backup: bool) -> Path | None:
    """Write ``data`` over the snapshot's file atomically; returns the backup path if one was made.

    The file keeps its permission bits. Missing parent folders are created.
    """
    snap.real.parent.mkdir(parents=True, exist_ok=True)
    tmp = _write_temp(snap.real, data, _mode(snap.real))
    previous_backup = _read_or_none(backup_path(snap.real)) if backup else None
    saved = None
    try:
        _check_unchanged(snap)
        saved = write_backup(snap) if backup else None
        os.replace(tmp, snap.real)
    except BaseException:
        tmp.unlink(missing_ok=True)
        if saved is not None:  # the target was not replaced: its backup goes back to what it was
            _restore(saved, previous_backup)
        raise
    return saved


def _read_or_none(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _restore(path: Path, data: bytes | None) -> None:
    try:
        if data is None:
            path.unlink(missing_ok=True)
        else:
            os.replace(_write_temp(path, data, _mode(path)), path)
    except OSError:
        pass


def remove(snap: Snapshot, *, backup: bool) -> Path | None:
    """Delete the snapshot's file (after an optional backup); returns the backup path."""
    _check_unchanged(snap)
    saved = write_backup(snap) if backup else None
    snap.real.unlink(missing_ok=True)
    return saved


def prune_empty_dirs(folder: Path, stop: Path) -> list[Path]:
    """Remove ``folder`` and its parents while they are empty, never ``stop`` or above it."""
    removed: list[Path] = []
    folder, stop = Path(folder), Path(stop)
    while folder != stop and stop in folder.parents and folder.is_dir() and not folder.is_symlink():
        try:
            folder.rmdir()
        except OSError:
            break
        removed.append(folder)
        folder = folder.parent
    return removed
