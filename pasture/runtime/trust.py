"""The trust store: which project policy files the user pinned, by the sha256 of their exact bytes.

Like `direnv allow`: a project layer is trusted only while its bytes hash to what the user pinned
with `pasture policy trust`, and so is every local program file its entries run (a command gate's
`./gate.sh`, the script `python3 gate.py` runs; `programs` finds them the same way for any entry
that runs a command): any change to any of them un-trusts it. A policy is trusted only as the file
it resolves to, in the project it resolves into: a repository whose `.pasture/policy.toml` is a
symlink to a policy trusted elsewhere is not trusted (and its relative programs would resolve in
the wrong folder). The store lives in the user's state folder (`$PASTURE_TRUST_STORE`, else
`$XDG_STATE_HOME/pasture/trust.json`), never inside a project:

    {"version": 2, "trusted": {"/abs/real/path/.pasture/policy.toml":
        {"policy": "sha256:<hex>", "root": "/abs/real/project", "programs": {"/abs/project/gate.sh": "sha256:<hex>"}}}}

Version 1 entries (`"path": "sha256:<hex>"`) still read, as pinning no program and no root.
"""

from __future__ import annotations

import os

from pasture import PastureError
from pasture.runtime import layers
from pasture.runtime.fastjson import JSONError, dumps, loads

VERSION = 2


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


def parse(data: bytes | None, where: str = "trust store") -> dict[str, dict]:
    if data is None:
        return {}
    try:
        doc = loads(data.decode("utf-8"))
    except (UnicodeDecodeError, JSONError) as exc:
        raise TrustStoreError(f"{where}: not JSON ({exc}); remove it and run pasture policy trust again") from None
    trusted = doc.get("trusted") if isinstance(doc, dict) else None
    if not isinstance(trusted, dict):
        raise TrustStoreError(f"{where}: not a pasture trust store; remove it and run pasture policy trust again")
    entries = {}
    for name, value in trusted.items():
        if isinstance(value, str):  # version 1
            value = {"policy": value, "root": None, "programs": {}}
        programs = value.get("programs", {}) if isinstance(value, dict) else None
        if not (
            isinstance(name, str)
            and isinstance(value, dict)
            and isinstance(value.get("policy"), str)
            and isinstance(value.get("root"), (str, type(None)))
            and isinstance(programs, dict)
            and all(isinstance(k, str) and isinstance(v, str) for k, v in programs.items())
        ):
            raise TrustStoreError(f"{where}: not a pasture trust store; remove it and run pasture policy trust again")
        entries[name] = {"policy": value["policy"], "root": value.get("root"), "programs": dict(programs)}
    return entries


def digest(data: bytes) -> str:
    import hashlib

    return "sha256:" + hashlib.sha256(data).hexdigest()


def key(policy_path: str) -> str:
    return os.path.realpath(policy_path)


def trusted_digest(policy_path: str, env: dict) -> str | None:
    entry = parse(read_bytes(env), store_path(env)).get(key(policy_path))
    return entry["policy"] if entry else None


def runs(layer: dict) -> list:
    """Every argv the layer's entries run: its command gate today; any entry with a `command` list
    (context, after, until, ...) is read the same way."""
    out = []
    if layer.get("kind") == "command" and layer.get("command"):
        out.append(tuple(layer["command"]))
    for value in layer.values():
        for entry in value if isinstance(value, list) else ():
            if isinstance(entry, dict) and isinstance(entry.get("command"), (list, tuple)) and entry["command"]:
                out.append(tuple(entry["command"]))
    return out


def programs(layer: dict, root: str) -> list:
    """The local program files the layer's entries run, as the gate finds them (relative to the root,
    where gates run): a program named by a path, and every argument that names an existing file (the
    script an interpreter runs). A bare program name is looked up on PATH and is not the project's."""
    found = []
    for argv in runs(layer):
        for index, word in enumerate(argv):
            if index == 0 and "/" not in word:
                continue
            path = os.path.normpath(os.path.join(root, word))
            if os.path.isfile(path) and path not in found:
                found.append(path)
    return found


def read_programs(paths: list) -> tuple:
    """((path, bytes or None), ...) as they are now."""
    out: list[tuple[str, bytes | None]] = []
    for path in paths:
        try:
            with open(path, "rb") as fh:
                out.append((path, fh.read()))
        except OSError:
            out.append((path, None))
    return tuple(out)


def resolves_into(policy_path: str, root: str) -> bool:
    """The policy file, symlinks resolved, belongs to the project at `root` (not to another one)."""
    from pasture.runtime.project import find_root

    real = os.path.realpath(policy_path)
    return os.path.realpath(find_root(os.path.dirname(real))) == os.path.realpath(root)


def holds(entry: dict | None, policy_path: str, root: str, policy_digest: str, layer: dict | None) -> str | None:
    """None when the pin holds for the policy as it is and the programs its entries run; else why not."""
    if entry is None:
        return "never trusted"
    if not resolves_into(policy_path, root):
        return f"it resolves to {os.path.realpath(policy_path)}, outside this project: trusted only there"
    if entry.get("root") is not None and entry["root"] != os.path.realpath(root):
        return f"it was trusted for the project at {entry['root']}, not this one"
    if entry["policy"] != policy_digest:
        return "changed since you trusted it"
    now = {
        path: digest(data) if data is not None else "missing"
        for path, data in read_programs(programs(layer, root) if layer else [])
    }
    pinned = entry.get("programs", {})
    for path, value in now.items():
        if pinned.get(path) != value:
            return f"its program {path} {'changed since you trusted it' if path in pinned else 'was never pinned'}"
    return None


def _write(entries: dict[str, dict], env: dict) -> None:
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


def compiled(policy_path: str, root: str, data: bytes) -> dict:
    """The layer as it would run once trusted (PolicyError when invalid)."""
    from pasture.runtime.policy import compile_layer

    return compile_layer("project", policy_path, data, root, True)


def pin(policy_path: str, root: str, data: bytes) -> dict:
    """The entry that pins these policy bytes and the programs they run, as they are now."""
    layer = compiled(policy_path, root, data)
    return {
        "policy": digest(data),
        "root": os.path.realpath(root),
        "programs": {
            path: digest(raw) if raw is not None else "missing" for path, raw in read_programs(programs(layer, root))
        },
    }


def trust(policy_path: str, env: dict, root: str | None = None, entry: dict | None = None) -> str:
    """Pin the file's current bytes and its programs' (or `entry`, as shown to the person); returns
    the policy digest recorded. Refused (ValueError) for a policy that resolves into another project."""
    if root is None:
        root = os.path.dirname(os.path.dirname(os.path.abspath(policy_path)))
    if not resolves_into(policy_path, root):
        raise ValueError(f"{policy_path} resolves to {os.path.realpath(policy_path)}, outside the project at {root}")
    if entry is None:
        with open(policy_path, "rb") as fh:
            entry = pin(policy_path, root, fh.read())
    entries = parse(read_bytes(env), store_path(env))
    entries[key(policy_path)] = entry
    _write(entries, env)
    return entry["policy"]


def untrust(policy_path: str, env: dict) -> bool:
    """Forget the file; True when it was trusted."""
    entries = parse(read_bytes(env), store_path(env))
    found = entries.pop(key(policy_path), None) is not None
    if found:
        _write(entries, env)
    return found
