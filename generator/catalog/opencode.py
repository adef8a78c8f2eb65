"""OpenCode's catalog, read from the plugin and SDK typings of one version and its binary.

* Named hooks: every member of the ``Hooks`` interface of ``@opencode-ai/plugin``
  (``dist/index.d.ts``) whose type is a function of ``(input, output)``; the catalog keeps both
  parameter types, references followed into ``@opencode-ai/sdk``.
* Bus events: every member of the ``Event`` unions of ``@opencode-ai/sdk`` (``dist/gen`` and
  ``dist/v2/gen`` ``types.gen.d.ts``), by its ``type`` literal; the host delivers them to a plugin's
  catch-all ``event`` hook.
* ``host_calls``: how many call sites ``trigger("<name>"`` the shipped binary has for each named
  hook. Zero means the typings promise a hook the host never calls (``permission.ask`` in 1.x).
"""

from __future__ import annotations

import mmap
import re
from pathlib import Path
from typing import Any

from generator.catalog.model import CatalogError, normalize
from generator.catalog.tsdecl import Declarations, TsSyntaxError, TypeTable, parse_file

PLUGIN = "@opencode-ai/plugin"
SDK = "@opencode-ai/sdk"
#: Hooks members that take arguments but are not lifecycle events (see generator/evolve/profile_new.py).
NOT_EVENTS = {"event", "config"}
_MODULE_FILES = {
    PLUGIN: ("@opencode-ai/plugin", "dist/index.d.ts"),
    SDK: ("@opencode-ai/sdk", "dist/gen/types.gen.d.ts"),
    f"{SDK}/v2": ("@opencode-ai/sdk", "dist/v2/gen/types.gen.d.ts"),
}
_DEPTH = 3


def typing_files(node_modules: Path) -> dict[str, Path]:
    """module id -> the declaration file read for it (those that exist)."""
    out = {}
    for module, (package, rel) in _MODULE_FILES.items():
        path = Path(node_modules) / package / rel
        if path.is_file():
            out[module] = path
    return out


def _table(files: dict[str, Path]) -> TypeTable:
    modules: dict[str, Declarations] = {}
    for module, path in files.items():
        try:
            modules[module] = parse_file(path)
        except TsSyntaxError as exc:
            raise CatalogError(f"cannot read {path}: {exc}") from None
    return TypeTable(modules)


def call_sites(binary: Path, names: list[str]) -> dict[str, int]:
    counts = {n: 0 for n in names}
    with open(binary, "rb") as fh:
        data = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        try:
            for m in re.finditer(rb'trigger\("([A-Za-z0-9._-]+)"', data):
                name = m.group(1).decode()
                if name in counts:
                    counts[name] += 1
        finally:
            data.close()
    return counts


def extract(node_modules: Path, binary: Path | None) -> tuple[list[str], dict[str, dict[str, Any]], list[str]]:
    """(event names, events, the modules read) from an install holding the plugin and SDK packages."""
    files = typing_files(node_modules)
    if PLUGIN not in files:
        raise CatalogError(f"no {PLUGIN} typings under {node_modules} (dist/index.d.ts)")
    table = _table(files)
    hooks = table.lookup(PLUGIN, "Hooks")
    if not isinstance(hooks, dict) or hooks.get("kind") != "object":
        raise CatalogError(f"{files[PLUGIN]} declares no Hooks interface")
    names: list[str] = []
    events: dict[str, dict[str, Any]] = {}
    for name, member in hooks["fields"].items():
        if member.get("kind") != "function" or name in NOT_EVENTS:
            continue
        params = member.get("params") or []
        if len(params) != 2:
            continue
        (_, input_t, _), (_, output_t, _) = params
        input_tree = table.resolve(PLUGIN, input_t, _DEPTH)
        output_tree = table.resolve(PLUGIN, output_t, _DEPTH)
        names.append(name)
        events[name] = {
            "kind": "hook",
            "input": normalize(input_tree).get("fields", {}),
            "output": normalize(output_tree).get("fields", {}),
            "sources": [PLUGIN],
        }
    if binary is not None:
        counts = call_sites(binary, list(events))
        for name, count in counts.items():
            events[name]["host_calls"] = count
    for module in (f"{SDK}/v2", SDK):  # v2 first: the shapes 1.x hosts emit on the bus
        if module not in files:
            continue
        union = table.lookup(module, "Event")
        if not isinstance(union, dict) or union.get("kind") != "union":
            raise CatalogError(f"{files[module]} declares no Event union")
        for member in union["of"]:
            tree = table.resolve(module, member, _DEPTH)
            fields = tree.get("fields", {}) if tree.get("kind") == "object" else {}
            literal = fields.get("type", {})
            if literal.get("kind") != "literal" or not isinstance(literal.get("value"), str):
                raise CatalogError(f"an Event member of {files[module]} has no type literal")
            event = literal["value"]
            spec = normalize(tree).get("fields", {})
            if event in events:
                if events[event]["kind"] != "bus":
                    raise CatalogError(f"{event!r} is both a named hook and a bus event")
                if module not in events[event]["sources"]:
                    events[event]["sources"].append(module)
                continue
            names.append(event)
            events[event] = {"kind": "bus", "input": spec, "output": {}, "sources": [module]}
    return names, events, sorted(files)
