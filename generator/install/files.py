"""Reading and writing the host files we install into: snapshots, backups, atomic replace.

Every change goes through a :class:`Snapshot` taken before we decided what to write: the new bytes
are staged in a temp file beside the target, and the target is replaced by ``os.replace`` only if
it still holds the bytes we read (another program, such as the host itself, may have written it in
between; then nothing is replaced and the caller reports the race).

A symlinked target (dotfile managers link ``~/.claude/settings.json``) is followed: the file it
points to is changed and the link stays a link.

Backups: before a file that may hold someone else's content is changed or removed, its previous
bytes go to ``<file>.pasture-backup`` beside it (one backup per file, overwritten by each later
change; a run that changes nothing leaves the backup alone).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

BACKUP_SUFFIX = ".pasture-backup"


class ConcurrentChange(RuntimeError):
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
    try:
        data = real.read_bytes()
    except FileNotFoundError:
        data = None
    return Snapshot(path, real, data)


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
        raise ConcurrentChange(f"{snap.path} changed while pasture was working on it; nothing was replaced, "
                               "run the command again")


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
    try:
        _check_unchanged(snap)
        saved = write_backup(snap) if backup else None
        os.replace(tmp, snap.real)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return saved


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
