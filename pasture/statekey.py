"""A secret key in the user's own state folder, to authenticate what pasture caches outside a project.

A cache is only worth believing if nothing but pasture could have written it. The key is 32 random
bytes in ``<state folder>/key`` (``$XDG_STATE_HOME/pasture``, the folder the trust store lives in;
the guard denies agents every write there). The folder is kept 0700 and the file 0600, both owned by
the user running pasture; a key that fails any of those checks is never used: it is replaced with a
fresh one (which only invalidates what the old one signed) or, where the folder belongs to someone
else, no key is given and callers fall back to rebuilding.

    mac = statekey.sign(b"...", "check-verdict")            # None: no usable key, do not record
    statekey.verify(b"...", mac, "check-verdict")           # False for any mismatch or no key

``purpose`` separates the uses of one key (a MAC made for one kind of record never verifies another).
Standard library only, and nothing heavy at import time: the hook path may use it.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (stdlib-light, like the hook)
if TYPE_CHECKING:
    import os

KEY_NAME = "key"
_KEY_BYTES = 32


def key_path(env: dict | None = None) -> str:
    import os

    from pasture.runtime import layers

    return os.path.join(layers.state_dir(dict(os.environ) if env is None else env), KEY_NAME)


def _ours(st: os.stat_result) -> bool:
    import os

    return not hasattr(os, "getuid") or st.st_uid == os.getuid()


def _folder(folder: str) -> bool:
    """Make the state folder exist as a 0700 folder of ours; False when it is someone else's."""
    import os
    import stat

    os.makedirs(folder, mode=0o700, exist_ok=True)
    st = os.stat(folder)
    if not stat.S_ISDIR(st.st_mode) or not _ours(st):
        return False
    if st.st_mode & 0o077:
        os.chmod(folder, 0o700)
    return True


def _read(path: str) -> bytes | None:
    """The key's bytes if the file is a regular 0600 file of ours holding exactly a key; else None."""
    import os
    import stat

    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or not _ours(st) or st.st_mode & 0o077 or st.st_size != _KEY_BYTES:
            return None
        data = os.read(fd, _KEY_BYTES + 1)
    finally:
        os.close(fd)
    return data if len(data) == _KEY_BYTES else None


def _create(path: str) -> bytes | None:
    """Write a fresh key beside ``path`` and move it into place (replacing whatever failed _read)."""
    import os

    temp = f"{path}.{os.getpid()}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        os.unlink(temp)
    except FileNotFoundError:
        pass
    fd = os.open(temp, flags, 0o600)
    try:
        os.write(fd, os.urandom(_KEY_BYTES))
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.link(temp, path)  # first writer wins: two processes creating at once agree on one key
    except FileExistsError:
        if _read(path) is None:
            os.replace(temp, path)
    finally:
        try:
            os.unlink(temp)
        except FileNotFoundError:
            pass
    return _read(path)


def key(env: dict | None = None, create: bool = True) -> bytes | None:
    """The user's key; made (or remade, when the file on disk fails the checks) if ``create``."""
    import os

    path = key_path(env)
    try:
        folder = os.path.dirname(path)
        if create and not _folder(folder):
            return None
        found = _read(path)
        if found is not None:
            st = os.stat(folder)
            if not _ours(st) or st.st_mode & 0o077:  # a key in a folder others can reach is not secret
                found = None
        if found is None and create:
            found = _create(path)
        return found
    except OSError:
        return None


def _mac(secret: bytes, data: bytes, purpose: str) -> str:
    import hashlib
    import hmac

    return hmac.new(secret, purpose.encode("utf-8") + b"\0" + data, hashlib.sha256).hexdigest()


def sign(data: bytes, purpose: str, env: dict | None = None) -> str | None:
    secret = key(env, create=True)
    return None if secret is None else _mac(secret, data, purpose)


def verify(data: bytes, mac: object, purpose: str, env: dict | None = None) -> bool:
    import hmac

    secret = key(env, create=False)
    if secret is None or not isinstance(mac, str):
        return False
    return hmac.compare_digest(_mac(secret, data, purpose), mac)
