"""The few path and file operations the hook path needs, on the built-in `posix` module.

`import os` is the single most expensive import of the hook: about 6.4 million instructions, 23 %
of what starting the interpreter costs (measured with callgrind; most of it is
`collections.abc`, which `os` imports). The interpreter already has `posix` loaded at start, so
these helpers use it directly. They follow POSIX path rules only; where `posix` is missing
(Windows) the same names come from `os`.
"""

import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the hook path pays for every import
if TYPE_CHECKING:
    from typing import Any

try:
    import posix as _sys_os
except ImportError:  # pragma: no cover - not a POSIX system
    import os as _sys_os  # type: ignore[no-redef]  # the same names, from os where posix is missing

O_RDONLY = _sys_os.O_RDONLY
O_WRONLY = _sys_os.O_WRONLY
O_RDWR = _sys_os.O_RDWR
O_APPEND = _sys_os.O_APPEND
O_CREAT = _sys_os.O_CREAT
O_TRUNC = _sys_os.O_TRUNC
O_CLOEXEC = getattr(_sys_os, "O_CLOEXEC", 0)
O_NONBLOCK = getattr(_sys_os, "O_NONBLOCK", 0)
O_NOFOLLOW = getattr(_sys_os, "O_NOFOLLOW", 0)
open_fd = _sys_os.open
write = _sys_os.write
read_fd = _sys_os.read
close = _sys_os.close
fstat = _sys_os.fstat
stat = _sys_os.stat
getpid = _sys_os.getpid
getcwd = _sys_os.getcwd
rename = _sys_os.rename
replace = _sys_os.replace
unlink = _sys_os.unlink
fast_exit = _sys_os._exit
_S_IFMT, _S_IFDIR, _S_IFREG, _S_IFLNK = 0o170000, 0o040000, 0o100000, 0o120000


def environ() -> dict[str, str]:
    """The process environment as str (os.environ's decoding: the filesystem encoding, surrogateescape)."""
    raw: dict = _sys_os.environ  # bytes keys and values on POSIX, str on Windows
    if not raw or isinstance(next(iter(raw)), str):  # os.environ on Windows
        return dict(raw)
    encoding, errors = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()
    return {k.decode(encoding, errors): v.decode(encoding, errors) for k, v in raw.items()}


def isabs(path: str) -> bool:
    return path.startswith("/")


def join(first: str, *rest: str) -> str:
    path = first
    for part in rest:
        if part.startswith("/"):
            path = part
        elif not path or path.endswith("/"):
            path += part
        else:
            path += "/" + part
    return path


def dirname(path: str) -> str:
    head = path[: path.rfind("/") + 1]
    stripped = head.rstrip("/")
    return stripped if stripped else head


def basename(path: str) -> str:
    return path[path.rfind("/") + 1 :]


def normpath(path: str) -> str:
    """posixpath.normpath: collapse `//`, `.` and `..` (lexically, like the shell's cd -L)."""
    if not path:
        return "."
    initial = 2 if path.startswith("//") and not path.startswith("///") else 1 if path.startswith("/") else 0
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part != ".." or (not initial and not parts) or (parts and parts[-1] == ".."):
            parts.append(part)
        elif parts:
            parts.pop()
    text = "/".join(parts)
    return ("/" * initial + text) or "."


class NotRegular(OSError):
    """A file the runtime will not read: a FIFO, device, socket or folder, or larger than its cap."""


def read_file(path: str, limit: int, follow: bool = True) -> "tuple[bytes, Any]":
    """(bytes, stat) of a regular file of at most `limit` bytes; FileNotFoundError when absent.

    Opened non-blocking, so a FIFO in a file's place cannot hold the hook before any deadline applies
    (the open returns at once, fstat names it, and it is never read); `follow=False` refuses a
    symlink (ELOOP). Anything else that is not a regular file, or too large, is NotRegular."""
    fd = _sys_os.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (0 if follow else O_NOFOLLOW))
    try:
        st = _sys_os.fstat(fd)
        if st.st_mode & _S_IFMT != _S_IFREG:
            raise NotRegular(22, "not a regular file (a FIFO, device, socket or folder)", path)
        if st.st_size > limit:
            raise NotRegular(27, f"larger than {limit} bytes", path)
        chunks, size = [], 0
        while True:
            chunk = _sys_os.read(fd, max(st.st_size + 1 - size, 65536))
            if not chunk:
                break
            size += len(chunk)
            if size > limit:
                raise NotRegular(27, f"larger than {limit} bytes", path)
            chunks.append(chunk)
        return b"".join(chunks), st
    finally:
        _sys_os.close(fd)


def _mode(path: str, follow: bool = True) -> int | None:
    try:
        return (_sys_os.stat(path) if follow else _sys_os.lstat(path)).st_mode & _S_IFMT
    except (OSError, ValueError):
        return None


def exists(path: str) -> bool:
    return _mode(path) is not None


def isdir(path: str) -> bool:
    return _mode(path) == _S_IFDIR


def isfile(path: str) -> bool:
    return _mode(path) == _S_IFREG


def makedirs(path: str, mode: int = 0o777) -> None:
    """mkdir -p."""
    if not path or isdir(path):
        return
    parent = dirname(path)
    if parent and parent != path:
        makedirs(parent, mode)
    try:
        _sys_os.mkdir(path, mode)
    except FileExistsError:
        if not isdir(path):
            raise


def realpath(path: str, _depth: int = 0) -> str:
    """posixpath.realpath for an absolute path: every symlink resolved; missing tails kept as written."""
    if _depth > 40:
        return normpath(path)  # a symlink loop: give the path as it stands
    done = "/"
    parts = [p for p in path.split("/") if p and p != "."]
    for index, part in enumerate(parts):
        if part == "..":  # after the link before it is followed, as the kernel does (`s/../x`)
            done = dirname(done)
            continue
        candidate = join(done, part)
        if _mode(candidate, follow=False) == _S_IFLNK:
            try:
                target = _sys_os.readlink(candidate)
            except OSError:
                return normpath(join(candidate, *parts[index + 1 :]))
            resolved = realpath(join(done, target) if not target.startswith("/") else target, _depth + 1)
            done = resolved
        else:
            done = candidate
    return done
