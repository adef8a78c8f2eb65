"""Cline CLI's catalog, read from two packages the ``cline`` npm package pins (``@cline/core``,
``@cline/shared``).

A Cline hook is a *file* whose name is the event (``PreToolUse``, ``TaskStart``,
...): Cline hands it one JSON payload on stdin and parses one JSON object from its stdout. Nothing of that is
documented as a schema, so the catalog is read from the code and the typings that implement it:

* **Events**: in ``@cline/core``'s bundle (``dist/index.js``), the string enum of hook-file events
  (``<v>.TaskStart="TaskStart";...``) and the object right after it that maps each one to the agent hook it
  is fired from (``["PreToolUse"]:"tool_call"``). One entry per enum member, in the enum's order, named by
  the file event. ``PreCompact`` maps to ``void 0``: Cline finds a file of that name and never runs it. The
  catalog keeps it (it is a name Cline reads) with an empty input; the entry format has no note field, so
  the host module (:mod:`pasture.hosts.cline`) says why in its ``not_events``.
* **Input**: ``@cline/shared``'s typings (``dist/hooks/events.d.ts``), the union ``HookEventPayload`` whose
  members each fix ``hookName`` to one literal (``ToolCallHookPayload``: ``"tool_call"``). An event's input is
  the member whose ``hookName`` is its agent hook, resolved by the TypeScript compiler's checker
  (:mod:`.tscheck`, as for Pi), down to the fields of its nested objects (``tool_call``, ``preToolUse``).
* **Output**: the zod object core parses a hook file's stdout with (``contextModification``, ``cancel``,
  ``review``, ``errorMessage``, ``context``, ``overrideInput``; unknown keys pass through). One parser serves
  every file, so every event has the same output. The bundle keeps zod's method names
  (``<z>.boolean().optional()``), so each field's type is read with a pattern, never by running the code; a
  field whose zod type the pattern does not know is an error rather than a field left out.

**pre_action.** :func:`pasture.evolve.derive.is_pre_action` takes a reader's ``pre_action`` as the answer
when it is set, and otherwise guesses from the name (``Pre*``) and a ``deny`` in the output. Pi's reader sets
it where a boolean refusal (``block``, ``cancel``) is read before the host acts. Every Cline event's output has
``cancel``, so that test would mark all ten; only ``PreToolUse`` is answered before its action (the tool) runs
and can change it (``cancel``, ``overrideInput``). So ``PreToolUse`` is ``pre_action: true`` and every other
event ``pre_action: false``, set explicitly so that no name guess makes ``PreCompact`` a gate.

Anything missing from what is read here is a :class:`CatalogError` naming the file and what was looked for.
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
#: the only event whose answer Cline reads before the action it reports (the tool call) happens
PRE_ACTION = "PreToolUse"
#: fields the hook output parser must have for the catalog to describe Cline's answer at all
CONTROL_FIELDS = ("cancel", "contextModification", "overrideInput")
# The payload, its objects' fields (tool_call, preToolUse, workspaceInfo) and the element type of their
# arrays (workspaceInfo.associatedRemoteUrls); a deeper read of 0.0.86 gives the same catalog.
_DEPTH = 3
_MAP_WINDOW = 2000  # how far after the enum the event -> agent hook object is looked for

# `<var>.TaskStart="TaskStart";...` the enum; then `{["TaskStart"]:"agent_start",...,["PreCompact"]:void 0,...}`
_ENUM = re.compile(r'(\w+)\.TaskStart="TaskStart";(?:\1\.\w+="\w+";?)+')
_MEMBER = re.compile(r'\.(\w+)="(\w+)"')
_MAP_ENTRY = re.compile(r'\["(\w+)"\]:(?:"(\w+)"|void 0)')
_CONTROL = re.compile(r"(\w+)\.object\(\{(contextModification:[^}]*)\}\)")
_KEY = re.compile(r"(?:^|,)(\w+):")
_FIELD = re.compile(r"(?:^|,)(\w+):\w+\.(string|boolean|unknown|number)\(\)(\.optional\(\))?(?=,|$)")


def files(node_modules: Path, add: Callable[[Path, str, str], None]) -> None:
    """The core bundle (events, the answer's parser) and the shared payload typings."""
    core, shared = Path(node_modules) / CORE, Path(node_modules) / SHARED
    if (core / BUNDLE).is_file():
        add(core, BUNDLE, "the hook-file event enum, the agent hook each maps to, and the hook output parser")
    if (shared / TYPES).is_file():
        add(shared, TYPES, f"the {PAYLOADS} union (each agent hook's payload)")


def hook_names(text: str, where: str) -> dict[str, str | None]:
    """Each hook-file event, in the enum's order -> the agent hook it is fired from (None: never fired)."""
    enum = _ENUM.search(text)
    if enum is None:
        raise CatalogError(f"{where}: the hook-file event enum (TaskStart, ...) was not found")
    names = [value for _key, value in _MEMBER.findall(enum.group(0))]
    tail = text[enum.end() : enum.end() + _MAP_WINDOW]
    mapped = {event: hook or None for event, hook in _MAP_ENTRY.findall(tail)}
    missing = [n for n in names if n not in mapped]
    if missing:
        raise CatalogError(f"{where}: no agent hook mapping for {', '.join(missing)} after the event enum")
    return {name: mapped[name] for name in names}


def control_fields(text: str, where: str) -> dict[str, Any]:
    """The hook output parser's fields as catalog field specs, sorted by name."""
    found = _CONTROL.search(text)
    if found is None:
        raise CatalogError(f"{where}: the hook output parser (a zod object with contextModification) was not found")
    body = found.group(2)
    out = {name: {"required": not optional, "type": kind} for name, kind, optional in _FIELD.findall(body)}
    untyped = [k for k in _KEY.findall(body) if k not in out]
    if untyped:
        raise CatalogError(f"{where}: the hook output parser's {', '.join(untyped)} has a zod type not read here")
    lacking = [f for f in CONTROL_FIELDS if f not in out]
    if lacking:
        raise CatalogError(f"{where}: the hook output parser lacks {', '.join(lacking)}")
    return dict(sorted(out.items()))


def payloads(node_modules: Path, types: Path, root: Path | None) -> dict[str, dict[str, Any]]:
    """Agent hook name -> its payload's field specs, from the typings' union."""
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


def _file(found: list[HostFile], package: str, rel: str, node_modules: Path) -> Path:
    path = next((f.path for f in found if f.package == package and f.rel == rel), None)
    if path is None:
        raise CatalogError(f"no {package}/{rel} under {node_modules} (has the package layout changed?)")
    return path


def _entry(event: str, hook: str | None, inputs: dict[str, dict[str, Any]], output: dict[str, Any]) -> dict[str, Any]:
    if hook is not None and hook not in inputs:
        raise CatalogError(f"{SHARED}/{TYPES}: {PAYLOADS} has no member for hookName {hook!r} ({event})")
    return {
        "name": event,
        "kind": "hook",
        "input": inputs[hook] if hook is not None else {},
        "output": output,
        "pre_action": event == PRE_ACTION,
        "sources": [CORE, SHARED],
    }


def events(
    version: str, found: list[HostFile], node_modules: Path | None, binary: Path | None, root: Path | None
) -> tuple[list[HostFile], list[dict[str, Any]]]:
    if node_modules is None:
        raise CatalogError(
            "Cline's catalog is read from its npm packages: give an npm install (--version installs one) "
            "or a --host-bin inside node_modules"
        )
    bundle = _file(found, CORE, BUNDLE, node_modules)
    types = _file(found, SHARED, TYPES, node_modules)
    where = f"{CORE}/{BUNDLE}"
    try:
        text = bundle.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise CatalogError(f"{where}: cannot be read ({exc.strerror or exc})") from None
    hooks, output = hook_names(text, where), control_fields(text, where)
    if PRE_ACTION not in hooks:
        raise CatalogError(f"{where}: the hook-file events have no {PRE_ACTION}")
    inputs = payloads(node_modules, types, root)
    return found, [_entry(event, hook, inputs, output) for event, hook in hooks.items()]
