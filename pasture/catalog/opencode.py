"""OpenCode's catalog, read from the plugin and SDK typings of one version and its binary.

The typings are resolved by the TypeScript compiler's own checker (:mod:`.tscheck`), so aliases,
imports, mapped, conditional and indexed types are what TypeScript says they are; a type it cannot
resolve, or a typings file that is not where the layout below says, is a :class:`CatalogError`.

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
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pasture.catalog import tscheck
from pasture.catalog.packages import HostFile
from pasture.profile.catalog import CatalogError, normalize

PLUGIN = "@opencode-ai/plugin"
SDK = "@opencode-ai/sdk"
#: Hooks members that take arguments but are not lifecycle events (see pasture/evolve/profile_new.py).
NOT_EVENTS = {"event", "config"}
_MODULE_FILES = {
    PLUGIN: ("@opencode-ai/plugin", "dist/index.d.ts"),
    SDK: ("@opencode-ai/sdk", "dist/gen/types.gen.d.ts"),
    f"{SDK}/v2": ("@opencode-ai/sdk", "dist/v2/gen/types.gen.d.ts"),
}
#: Levels of object fields the catalog keeps below an event's input and output.
_DEPTH = 3


def typing_files(node_modules: Path) -> dict[str, Path]:
    """module id -> the declaration file read for it (those that exist)."""
    out = {}
    for module, (package, rel) in _MODULE_FILES.items():
        path = Path(node_modules) / package / rel
        if path.is_file():
            out[module] = path
    return out


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


def extract(
    node_modules: Path, binary: Path | None, root: Path | None = None
) -> tuple[list[str], dict[str, dict[str, Any]], list[str]]:
    """(event names, events, the modules read) from an install holding the plugin and SDK packages.

    Every file of :data:`_MODULE_FILES` must be there (a missing one is a changed layout, named).
    """
    files = typing_files(node_modules)
    for module, (package, rel) in _MODULE_FILES.items():
        if module not in files:
            raise CatalogError(
                f"no {module} typings under {node_modules}: {package}/{rel} is missing (has the "
                "package layout changed?)"
            )
    answer = tscheck.resolve(
        node_modules,
        files[PLUGIN],
        {m: files[m] for m in (f"{SDK}/v2", SDK)},
        skip=sorted(NOT_EVENTS),
        depth=_DEPTH,
        root=root,
    )
    names: list[str] = []
    events: dict[str, dict[str, Any]] = {}
    for hook in answer["hooks"]:
        params = hook.get("params")
        if params is None:  # not a function of (input, output): no lifecycle event
            continue
        name = hook["name"]
        input_tree, output_tree = params
        for what, tree in (("input", input_tree), ("output", output_tree)):
            if tree.get("kind") != "object":
                raise CatalogError(
                    f"{files[PLUGIN]}: Hooks[{name!r}] takes an {what} that is not an object "
                    f"({tree.get('type') or tree.get('kind')})"
                )
        names.append(name)
        events[name] = {
            "kind": "hook",
            "input": normalize(input_tree).get("fields", {}),
            "output": normalize(output_tree).get("fields", {}),
            "sources": [PLUGIN],
        }
    if not names:
        raise CatalogError(f"{files[PLUGIN]}: the Hooks interface has no hook taking (input, output)")
    if binary is not None:
        counts = call_sites(binary, list(events))
        for name, count in counts.items():
            events[name]["host_calls"] = count
    for module in (f"{SDK}/v2", SDK):  # v2 first: the shapes 1.x hosts emit on the bus
        for i, tree in enumerate(answer["buses"][module], 1):
            fields = tree.get("fields", {}) if tree.get("kind") == "object" else {}
            literal = fields.get("type", {})
            if literal.get("kind") != "literal" or not isinstance(literal.get("value"), str):
                raise CatalogError(f"{files[module]}: Event member {i} has no type literal")
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


def files(node_modules: Path, add: Callable[[Path, str, str], None]) -> None:
    """The plugin and SDK typings of an npm install, and the shipped binary (for the trigger call sites)."""
    nm = node_modules
    for module, path in sorted(typing_files(nm).items()):
        folder = nm / ("@opencode-ai/plugin" if module.endswith("plugin") else "@opencode-ai/sdk")
        what = (
            "the Hooks interface (named hooks, input and output types)"
            if module.endswith("plugin")
            else f"the bus Event union ({module})"
        )
        add(folder, path.relative_to(folder).as_posix(), what)
    binaries = sorted(p for p in nm.glob("opencode-*") if (p / "bin" / "opencode").is_file())
    if binaries:
        add(binaries[0], "bin/opencode", 'the call sites trigger("<hook>" of each named hook in the shipped binary')


def events(
    version: str, found: list[HostFile], node_modules: Path | None, binary: Path | None, root: Path | None
) -> tuple[list[HostFile], list[dict[str, Any]]]:
    if node_modules is None:
        raise CatalogError(
            "OpenCode's catalog is read from its plugin and SDK typings: give an npm install "
            "(--version installs one) or a --host-bin inside node_modules"
        )
    bin_file = next((f.path for f in found if f.rel == "bin/opencode"), None)
    names, schemas, _modules = extract(node_modules, bin_file, root)
    return found, [{"name": n, **schemas[n]} for n in names]
