"""One normalized envelope for every host: what gates and the journal see."""

from pasture.runtime.hostwire import wire

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the hook path pays for every import
if TYPE_CHECKING:
    from typing import Any  # a row: a generated pasture_contracts._row.Row (untyped) or None

_PATCH_KEYS = ("patch", "patchText", "patch_text", "input", "command")  # pasture.runtime.patch.KEYS


def _dig(payload: object, *path: str) -> object:
    for key in path:
        if not isinstance(payload, dict):
            return None
        payload = payload.get(key)
    return payload


def identity_value(payload: object, field: str) -> object:
    """A native identity by its exact field name, where each host carries it."""
    for path in (
        (field,),
        ("input", field),
        ("input", "properties", field),
        ("input", "properties", "info", field),
        ("input", "data", field),
        ("output", field),
    ):
        value = _dig(payload, *path)
        if isinstance(value, (str, int)) and not isinstance(value, bool) and value != "":
            return value
    return None


def tool_of(harness: str, payload: object) -> tuple[str | None, object]:
    return wire(harness).tool_of(payload)


def _fields(tool_input: object, kind: str | None) -> tuple:
    """(command, file_path, file_paths) of a tool's input, as the envelope carries them: every path a
    file tool touches (a patch names several: Codex's apply_patch sends it as ``command``), file_path
    the first of them."""
    command = file_path = None
    paths: list = []
    if isinstance(tool_input, dict):
        command = tool_input.get("command", tool_input.get("cmd"))
        file_path = tool_input.get("file_path", tool_input.get("filePath", tool_input.get("path")))
        if isinstance(file_path, str) and file_path:
            paths.append(file_path)
        listed = tool_input.get("file_paths")  # a tool that names several files (Cline's read_files, by its wire)
        if isinstance(listed, list):
            paths += [p for p in listed if isinstance(p, str) and p and p not in paths]
        if kind in ("write", "edit") and any(
            isinstance(v := tool_input.get(k), str) and ("*** " in v or "+++ " in v) for k in _PATCH_KEYS
        ):  # only then the module that reads a patch's headers: a plain Write or Edit imports nothing more
            from pasture.runtime import patch

            text = patch.text_of(tool_input)
            for _, path in patch.headers(text or ""):
                if path not in paths:
                    paths.append(path)
    if not isinstance(file_path, str):
        file_path = paths[0] if paths else None
    return (command if isinstance(command, str) else None, file_path, paths)


def _kind(harness: str, tool_name: object) -> str | None:
    """The tool's kind in the host's own table (hostwire/<wire>.py TOOL_KINDS: OpenCode's `bash` and Claude
    Code's `Bash` are both `shell`, so a policy written once matches every host), else its name in lower case."""
    if not (isinstance(tool_name, str) and tool_name):
        return None
    return wire(harness).TOOL_KINDS.get(tool_name.lower(), tool_name.lower())


def with_input(envelope: dict, tool_input: dict) -> dict:
    """The envelope as it would be for the same call with `tool_input` (a rewrite's result): what the
    rules and the built-in guard judge again before a rewritten call may run."""
    command, file_path, paths = _fields(tool_input, envelope.get("tool_kind"))
    return dict(envelope, tool_input=tool_input, command=command, file_path=file_path, file_paths=paths)


def build(harness: str, contract: str | None, host_version: str, event: str, row: "Any", payload: object) -> dict:
    identities: dict[str, object] = {}
    unresolved: list[str] = []
    if row is not None:
        for ident in row.identities:
            value = identity_value(payload, ident.field)
            if value is None:
                if ident.required:
                    unresolved.append(ident.kind)
            else:
                identities[ident.kind] = value
        unresolved += [k for k in row.unresolved if k not in unresolved]
    tool_name, tool_input = tool_of(harness, payload)
    kind = _kind(harness, tool_name)
    command, file_path, paths = _fields(tool_input, kind)
    cwd = _dig(payload, "cwd") if isinstance(payload, dict) else None
    return {
        "harness": harness,
        "contract": contract,
        "host_version": host_version,
        "event": event,
        "semantic": row.semantic if row is not None else None,
        "identities": identities,
        "unresolved": unresolved,
        "cwd": cwd if isinstance(cwd, str) else None,
        "tool_name": tool_name,
        "tool_kind": kind,
        "tool_input": tool_input,
        "command": command,
        "file_path": file_path,
        "file_paths": paths,
        "payload": payload,
    }
