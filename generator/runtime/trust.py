"""The trust store: which project policy files the user pinned, by the sha256 of their exact bytes.

Like `direnv allow`: a project layer is trusted only while its bytes hash to what the user pinned
with `pasture policy trust`; any change un-trusts it. The store lives in the user's state folder
(`$PASTURE_TRUST_STORE`, else `$XDG_STATE_HOME/pasture/trust.json`), never inside a project:

    {"version": 1, "trusted": {"/abs/real/path/.pasture/policy.toml": "sha256:<hex>"}}
"""

from __future__ import annotations

from generator import PastureError
import os

from generator.runtime import layers
from generator.runtime.fastjson import JSONError, dumps, loads

VERSION = 1


class TrustStoreError(PastureError):
    """The trust store exists but cannot be read or is not ours: nothing is trusted, and we say so."""


def store_path(env: dict) -> str:
    return layers.trust_store_path(env)


def read_bytes(env: dict) -> bytes | None:
    """The store's raw bytes (the compiled-policy cache is keyed by them), None when there is none."""
    try:
        with open(store_path(env), "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        return None


def parse(data: bytes | None, where: str = "trust store") -> dict[str, str]:
    if data is None:
        return {}
    try:
        doc = loads(data.decode("utf-8"))
    except (UnicodeDecodeError, JSONError) as exc:
        raise TrustStoreError(f"{where}: not JSON ({exc}); remove it and run pasture policy trust again") from None
    trusted = doc.get("trusted") if isinstance(doc, dict) else None
    if not isinstance(trusted, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in trusted.items()):
        raise TrustStoreError(f"{where}: not a pasture trust store; remove it and run pasture policy trust again")
    return trusted


def digest(data: bytes) -> str:
    import hashlib

    return "sha256:" + hashlib.sha256(data).hexdigest()


def key(policy_path: str) -> str:
    return os.path.realpath(policy_path)


def trusted_digest(policy_path: str, env: dict) -> str | None:
    return parse(read_bytes(env), store_path(env)).get(key(policy_path))


def _write(entries: dict[str, str], env: dict) -> None:
    path = store_path(env)
    folder = os.path.dirname(path)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    text = dumps({"version": VERSION, "trusted": dict(sorted(entries.items()))}) + "\n"
    temp = f"{path}.{os.getpid()}.tmp"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, text.encode("ascii"))
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(temp, path)


def trust(policy_path: str, env: dict) -> str:
    """Pin the file's current bytes; returns the digest recorded."""
    with open(policy_path, "rb") as fh:
        pinned = digest(fh.read())
    entries = parse(read_bytes(env), store_path(env))
    entries[key(policy_path)] = pinned
    _write(entries, env)
    return pinned


def untrust(policy_path: str, env: dict) -> bool:
    """Forget the file; True when it was trusted."""
    entries = parse(read_bytes(env), store_path(env))
    found = entries.pop(key(policy_path), None) is not None
    if found:
        _write(entries, env)
    return found
