"""Pi's catalog, read from the extension typings ``@mariozechner/pi-coding-agent`` ships.

Pi has no hook files: an extension (``.pi/extensions/*.ts``) subscribes with ``pi.on(<event>, handler)``.
The catalog is the overloads of ``ExtensionAPI.on`` in ``dist/core/extensions/types.d.ts``, resolved by the
TypeScript compiler's own checker (:mod:`.tscheck`): one entry per overload, named by its event literal,
with the handler's event type as the input and its result type as the output (none where the host never
reads the handler's result). A missing typings file, an overload whose event is not one string literal,
or a type the checker cannot resolve is a :class:`CatalogError`.

An event whose handler result carries a boolean ``block`` or ``cancel`` (``ToolCallEventResult``,
``SessionBefore*Result``) is marked ``pre_action``: the host reads that refusal before it acts. Which of
those refusals Pi honours, and how it treats a handler that throws, is what a capture shows.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pasture.catalog.packages import HostFile
from pasture.profile.catalog import CatalogError, normalize

PACKAGE = "@mariozechner/pi-coding-agent"
TYPES = "dist/core/extensions/types.d.ts"
INTERFACE = "ExtensionAPI"
METHOD = "on"
#: boolean fields of a handler's result through which the host is refused before it acts
REFUSAL_FIELDS = ("block", "cancel")
_DEPTH = 1  # the event's own fields (below them, AgentMessage.details is a generic parameter defaulting to any)


def files(node_modules: Path, add: Callable[[Path, str, str], None]) -> None:
    """The extension typings of the coding-agent package."""
    folder = node_modules / PACKAGE
    if (folder / TYPES).is_file():
        add(folder, TYPES, f"the {INTERFACE}.{METHOD} overloads (event names, event and result types)")


def _merged(spec: dict[str, Any]) -> dict[str, Any]:
    """An object spec's fields; a union of objects (``ToolCallEvent``: one variant per tool) as one object whose
    fields are every variant's, required where every variant requires them; where variants type a field
    differently, the widest wins (a literal or enum gives way to its primitive, e.g. ``toolName: string``)."""
    if spec.get("type") == "object":
        return dict(spec.get("fields") or {})
    variants = spec.get("variants") or []
    if spec.get("type") != "object-union" or not variants:
        return {}
    out: dict[str, Any] = {}
    for variant in variants:
        for key, sub in (variant.get("fields") or {}).items():
            have = out.get(key)
            if have is None:
                out[key] = dict(sub)
            elif have.get("type") in ("literal", "enum") and sub.get("type") in ("literal", "enum"):
                values = list(have.get("values") or [])
                values += [v for v in sub.get("values") or [] if v not in values]
                out[key] = {**have, "type": "enum", "values": values, "required": have["required"] and sub["required"]}
            elif have.get("type") in ("literal", "enum"):
                out[key] = {**sub, "required": have["required"] and sub["required"]}
            else:
                out[key] = {**have, "required": have["required"] and sub["required"]}
    for key in out:
        if any(key not in (v.get("fields") or {}) for v in variants):
            out[key] = {**out[key], "required": False}
    return out


def read_types(node_modules: Path, types: Path, root: Path | None) -> list[dict[str, Any]]:
    """The catalog's event entries from one ``types.d.ts``, in the order the overloads are declared."""
    from pasture.catalog import tscheck

    answer = tscheck.resolve_overloads(node_modules, types, INTERFACE, METHOD, depth=_DEPTH, root=root)
    entries: list[dict[str, Any]] = []
    for handler in answer:
        name = handler["name"]
        event = _merged(normalize(handler["input"]))
        if not event:
            raise CatalogError(
                f"{types}: {INTERFACE}.{METHOD}({name!r}) hands its handler an event that is not an object"
            )
        output_tree = handler["output"]
        output: dict[str, Any] = {}
        if not (output_tree.get("kind") == "primitive" and output_tree.get("type") == "void"):
            output = _merged(normalize(output_tree))  # InputEventResult: one object per action
        entry: dict[str, Any] = {"name": name, "kind": "hook", "input": event, "output": output}
        refusals = [f for f in REFUSAL_FIELDS if (output.get(f) or {}).get("type") == "boolean"]
        if refusals:
            entry["pre_action"] = True
            entry["refused_by"] = refusals
        entry["sources"] = [PACKAGE]
        entries.append(entry)
    if not any(e["name"] == "tool_call" for e in entries):
        raise CatalogError(f"{types}: {INTERFACE}.{METHOD} has no tool_call overload (has the extension API changed?)")
    return entries


def events(
    version: str, found: list[HostFile], node_modules: Path | None, binary: Path | None, root: Path | None
) -> tuple[list[HostFile], list[dict[str, Any]]]:
    if node_modules is None:
        raise CatalogError(
            "Pi's catalog is read from its extension typings: give an npm install (--version installs one) "
            "or a --host-bin inside node_modules"
        )
    types = next((f.path for f in found if f.rel == TYPES), None)
    if types is None:
        raise CatalogError(
            f"no {PACKAGE} typings under {node_modules}: {PACKAGE}/{TYPES} is missing (has the package layout changed?)"
        )
    return found, read_types(node_modules, types, root)
