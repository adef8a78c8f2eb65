"""Cline CLI's catalog, read from the packages the ``cline`` npm package installs (``@cline/core``,
``@cline/shared``).

Cline runs a hook *file* named by its event. Three things it ships say what such a file is handed and
what it may answer:

* the event names and the agent hook each one is fired from: in ``@cline/core``'s bundle
  (``dist/index.js``), the string enum of hook-file events (``TaskStart`` ... ``SessionShutdown``) and,
  right after it, the object mapping each to its agent hook (``PreToolUse`` -> ``tool_call``; ``PreCompact``
  -> ``void 0``: a file of that name is found but never run, which the host module's ``not_events`` says);
* the payload of each agent hook: ``@cline/shared``'s typings (``dist/hooks/events.d.ts``), the union
  ``HookEventPayload`` whose members each fix ``hookName`` to one literal, resolved by the TypeScript
  compiler's checker (:mod:`.tscheck`); an event's input is the member whose ``hookName`` is its agent hook;
* the answer: the zod object ``@cline/core`` parses a hook file's stdout with (``contextModification``,
  ``cancel``, ``review``, ``errorMessage``, ``context``, ``overrideInput``), the same for every event. Its
  constructors keep zod's method names in the bundle (``<z>.string().optional()``), so their fields are
  read with a pattern, not evaluated.

``PreToolUse`` is marked ``pre_action`` (and every other event not): Cline reads its answer before the tool
runs (``cancel`` stops it, ``overrideInput`` replaces its input); every other event's answer comes after or
beside what it reports.
A file that lacks what is read here is a :class:`CatalogError` naming the file and what was looked for.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pasture.catalog.packages import HostFile
from pasture.profile.catalog import CatalogError, normalize

CORE = "@cline/core"
SHARED = "@cline/shared"
BUNDLE = "dist/index.js"
TYPES = "dist/hooks/events.d.ts"
PAYLOADS = "HookEventPayload"
#: the event whose answer Cline reads before the tool runs
PRE_ACTION = "PreToolUse"
_DEPTH = 3  # the payload's fields, their objects' fields (tool_call.input), one more for workspaceInfo

# `<var>.TaskStart="TaskStart";...` the enum; then `{["TaskStart"]:"agent_start",...,["PreCompact"]:void 0,...}`
_ENUM = re.compile(r'(\w+)\.TaskStart="TaskStart";(?:\1\.\w+="\w+";?)+')
_MEMBER = re.compile(r'\.(\w+)="(\w+)"')
_MAP_ENTRY = re.compile(r'\["(\w+)"\]:(?:"(\w+)"|void 0)')
_CONTROL = re.compile(r"(\w+)\.object\(\{contextModification:[^}]*\}\)")
_FIELD = re.compile(r"(\w+):\w+\.(string|boolean|unknown|number)\(\)(\.optional\(\))?")


def files(node_modules: Path, add: Callable[[Path, str, str], None]) -> None:
    """The core bundle (events, the answer's parser) and the shared payload typings."""
    core, shared = node_modules / CORE, node_modules / SHARED
    if (core / BUNDLE).is_file():
        add(core, BUNDLE, "the hook-file event enum, the agent hook each maps to, and the hook output parser")
    if (shared / TYPES).is_file():
        add(shared, TYPES, f"the {PAYLOADS} union (each agent hook's payload)")


def hook_names(text: str, where: str) -> dict[str, str | None]:
    """Each hook-file event (in the enum's order) -> the agent hook it is fired from (None: never fired)."""
    enum = _ENUM.search(text)
    if enum is None:
        raise CatalogError(f"{where}: the hook-file event enum (TaskStart, ...) was not found")
    names = [value for _, value in _MEMBER.findall(enum.group(0))]
    tail = text[enum.end() : enum.end() + 2000]
    mapped = {event: hook or None for event, hook in _MAP_ENTRY.findall(tail)}
    missing = [n for n in names if n not in mapped]
    if missing:
        raise CatalogError(f"{where}: no agent hook mapping for {', '.join(missing)} after the event enum")
    return {name: mapped[name] for name in names}


def control_fields(text: str, where: str) -> dict[str, Any]:
    """The hook output parser's fields, as catalog field specs."""
    found = _CONTROL.search(text)
    if found is None:
        raise CatalogError(f"{where}: the hook output parser (a zod object with contextModification) was not found")
    out: dict[str, Any] = {}
    for name, kind, optional in _FIELD.findall(found.group(0)):
        out[name] = {"required": not optional, "type": kind}
    if not {"cancel", "overrideInput", "contextModification"} <= set(out):
        raise CatalogError(f"{where}: the hook output parser lacks cancel, overrideInput or contextModification")
    return dict(sorted(out.items()))


def payloads(node_modules: Path, types: Path, root: Path | None) -> dict[str, dict[str, Any]]:
    """agent hook name -> its payload's field specs, from the typings' union."""
    from pasture.catalog import tscheck

    tree = tscheck.resolve_types(node_modules, types, [PAYLOADS], depth=_DEPTH, root=root)[PAYLOADS]
    members = tree.get("of") if tree.get("kind") == "union" else [tree]
    out: dict[str, dict[str, Any]] = {}
    for member in members or []:
        hook = ((member.get("fields") or {}).get("hookName") or {}).get("value")
        if member.get("kind") != "object" or not isinstance(hook, str):
            raise CatalogError(f"{types}: a member of {PAYLOADS} does not fix hookName to one string")
        out[hook] = normalize(member, _DEPTH)["fields"]
    return out


def events(
    version: str, found: list[HostFile], node_modules: Path | None, binary: Path | None, root: Path | None
) -> tuple[list[HostFile], list[dict[str, Any]]]:
    if node_modules is None:
        raise CatalogError(
            "Cline's catalog is read from its npm packages: give an npm install (--version installs one) "
            "or a --host-bin inside node_modules"
        )
    bundle = next((f.path for f in found if f.rel == BUNDLE), None)
    types = next((f.path for f in found if f.rel == TYPES), None)
    if bundle is None or types is None:
        raise CatalogError(
            f"no {CORE}/{BUNDLE} or {SHARED}/{TYPES} under {node_modules} (has the package layout changed?)"
        )
    text = bundle.read_text(encoding="utf-8", errors="replace")
    where = f"{CORE}/{BUNDLE}"
    hooks, output = hook_names(text, where), control_fields(text, where)
    inputs = payloads(node_modules, types, root)
    entries = []
    for event, hook in hooks.items():
        if hook is not None and hook not in inputs:
            raise CatalogError(f"{SHARED}/{TYPES}: {PAYLOADS} has no member for hookName {hook!r} ({event})")
        entry: dict[str, Any] = {"name": event, "kind": "hook", "input": inputs.get(hook or "", {}), "output": output}
        entry["pre_action"] = event == PRE_ACTION  # said of every event: no name heuristic guesses (PreCompact)
        entry["sources"] = [CORE, SHARED]
        entries.append(entry)
    if not any(e["name"] == PRE_ACTION for e in entries):
        raise CatalogError(f"{where}: the hook-file events have no {PRE_ACTION}")
    return found, entries
