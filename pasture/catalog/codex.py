"""Codex CLI's catalog, read from the JSON Schemas embedded in its binary.

codex-rs generates one JSON Schema per hook wire format (``hooks/schema/generated/
<event>.command.input.schema.json`` and ``.output``) and compiles them into the binary, where
they sit as plain text: each starts ``{ "$schema": "http://json-schema.org/draft-07/schema#"``
and carries its ``title`` (``pre-tool-use.command.input``). An event is in the catalog when its
input schema is; its native name is the input's ``hook_event_name`` constant.
"""

from __future__ import annotations

import json
import mmap
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pasture.catalog.packages import HostFile, bundled_binary
from pasture.profile.catalog import CatalogError, normalize

_SCHEMA_START = re.compile(rb'\{\s*"\$schema"\s*:\s*"http://json-schema\.org/[^"]*"')
_TITLE = re.compile(r"([a-z][a-z-]*)\.command\.(input|output)")


def _tree(schema: dict[str, Any], root: dict[str, Any], depth: int = 0) -> dict[str, Any]:
    """A JSON Schema node as a schema tree (the shape :func:`normalize` reads)."""
    if depth > 12:
        return {"kind": "unknown", "why": "too deep"}
    if not isinstance(schema, dict):  # JSON Schema's boolean schemas: true admits anything
        return {"kind": "primitive", "type": "unknown"}
    if "$ref" in schema:
        target: Any = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            target = target.get(part, {}) if isinstance(target, dict) else {}
        return _tree(target, root, depth + 1)
    if "allOf" in schema and len(schema["allOf"]) == 1:
        return _tree(schema["allOf"][0], root, depth + 1)
    for key in ("anyOf", "oneOf"):
        if key in schema:
            members = [m for m in schema[key] if m.get("type") != "null"]
            nullable = len(members) != len(schema[key])
            if len(members) == 1:
                tree = _tree(members[0], root, depth + 1)
            else:
                tree = {"kind": "union", "of": [_tree(m, root, depth + 1) for m in members]}
            return {**tree, "nullable": True} if nullable else tree
    if "const" in schema:
        return {"kind": "literal", "value": schema["const"]}
    if "enum" in schema:
        return {"kind": "enum", "values": list(schema["enum"])}
    types = schema.get("type")
    nullable = False
    if isinstance(types, list):
        nullable = "null" in types
        rest = [t for t in types if t != "null"]
        types = rest[0] if len(rest) == 1 else None
    if types == "object" or "properties" in schema:
        required = set(schema.get("required") or [])
        fields = {}
        for name, sub in (schema.get("properties") or {}).items():
            tree = _tree(sub, root, depth + 1)
            if name not in required:
                tree = {**tree, "optional": True}
            fields[name] = tree
        tree = {"kind": "object", "fields": fields}
    elif types == "array":
        tree = {"kind": "array", "of": _tree(schema.get("items") or {}, root, depth + 1)}
    elif types in ("string", "boolean", "number", "integer"):
        tree = {"kind": "primitive", "type": "number" if types == "integer" else types}
    else:
        tree = {"kind": "primitive", "type": "unknown"}
    return {**tree, "nullable": True} if nullable else tree


def schemas(binary: Path) -> dict[str, dict[str, Any]]:
    """Every embedded hook wire schema, by title."""
    found: dict[str, dict[str, Any]] = {}
    decoder = json.JSONDecoder()
    with open(binary, "rb") as fh:
        data = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        try:
            for m in _SCHEMA_START.finditer(data):
                chunk = data[m.start() : m.start() + 400_000].decode("utf-8", errors="replace")
                try:
                    doc, _ = decoder.raw_decode(chunk)
                except ValueError:
                    continue
                title = doc.get("title") if isinstance(doc, dict) else None
                if isinstance(title, str) and _TITLE.fullmatch(title):
                    if title in found and found[title] != doc:
                        raise CatalogError(f"the binary embeds two different schemas titled {title!r}")
                    found[title] = doc
        finally:
            data.close()
    return found


def extract(binary: Path) -> tuple[list[str], dict[str, dict[str, Any]]]:
    docs = schemas(binary)
    names: list[str] = []
    events: dict[str, dict[str, Any]] = {}
    for title, doc in docs.items():
        stem, kind = _TITLE.fullmatch(title).groups()  # type: ignore[union-attr]
        if kind != "input":
            continue
        const = (doc.get("properties") or {}).get("hook_event_name", {}).get("const")
        if not isinstance(const, str):
            raise CatalogError(f"schema {title!r} names no hook_event_name constant")
        output = docs.get(f"{stem}.command.output")
        names.append(const)
        events[const] = {
            "input": normalize(_tree(doc, doc))["fields"],
            "output": normalize(_tree(output, output))["fields"] if output else {},
        }
        if output is None:
            events[const]["output_schema"] = "none: the host reads no JSON output for this event"
    if not names:
        raise CatalogError("the binary embeds no *.command.input hook schema: not a Codex CLI this extractor knows")
    return names, events


def files(node_modules: Path, add: Callable[[Path, str, str], None]) -> None:
    """The CLI binary of an npm install (the vendored platform build)."""
    for folder in sorted((node_modules / "@openai").glob("codex-*")):
        hits = sorted(folder.glob("vendor/*/bin/codex")) or sorted(folder.glob("vendor/*/codex/codex"))
        if hits:
            add(
                folder,
                hits[0].relative_to(folder).as_posix(),
                "the *.command.input/output hook JSON Schemas "
                "embedded in the CLI binary (codex-rs hooks/schema/generated)",
            )
            break


def events(
    version: str, found: list[HostFile], node_modules: Path | None, binary: Path | None, root: Path | None
) -> tuple[list[HostFile], list[dict[str, Any]]]:
    target, found = bundled_binary("codex", version, found, node_modules, binary)
    names, found_schemas = extract(target)
    return found, [{"name": n, "kind": "hook", **found_schemas[n]} for n in names]
