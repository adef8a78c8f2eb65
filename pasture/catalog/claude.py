"""Claude Code's catalog, read from the JavaScript bundled into its CLI binary.

The binary (``@anthropic-ai/claude-code``'s ``bin/claude.exe``, copied from the platform package
by its install script) carries the SDK's zod schemas of every hook input (objects whose
``hook_event_name`` is a literal), of the hook output (``hookSpecificOutput``: one object per
event, keyed by a literal ``hookEventName``, inside the shared output object), and the list the
host prints when settings name an unknown event (``Valid events: ${LIST.join(", ")}``). All three
are read structurally (:mod:`pasture.catalog.zod`); nothing is run.
"""

from __future__ import annotations

import bisect
import mmap
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pasture.catalog.jsexpr import JsSyntaxError, parse_expression
from pasture.catalog.packages import HostFile, bundled_binary
from pasture.catalog.zod import ZodSource, calibrate
from pasture.profile.catalog import CatalogError, normalize

_INPUT = re.compile(rb'hook_event_name:([A-Za-z_$][\w$]*)\("([A-Za-z]+)"\)')
_OUTPUT = re.compile(rb'hookEventName:([A-Za-z_$][\w$]*)\("([A-Za-z]+)"\)')
_VALID = re.compile(rb"Valid events: \$\{([A-Za-z_$][\w$]*)\.join\(")
_ANY_LAZY_DEF = r"(?<![\w$.])[A-Za-z_$][\w$]*=([A-Za-z_$][\w$]*)\(\(\)=>"


def _fields_count(tree: dict[str, Any]) -> int:
    return len(tree.get("fields", {})) if tree.get("kind") == "object" else -1


def _collect_ctors(tree: Any, field: str, out: set[str]) -> None:
    if isinstance(tree, dict):
        fields = tree.get("fields") if tree.get("kind") == "object" else None
        if fields and field in fields and fields[field].get("kind") == "primitive":
            out.add(fields[field]["ctor"])


def extract(binary: Path) -> tuple[list[str], dict[str, dict[str, Any]]]:
    """(the host's event list, {event: {"input": fields, "output": fields}}) from a Claude Code binary."""
    with open(binary, "rb") as fh:
        data = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        try:
            return _extract(data)
        finally:
            data.close()


def _event_list(data: mmap.mmap) -> list[str]:
    lists: list[list[str]] = []
    for m in _VALID.finditer(data):
        name = m.group(1)
        pattern = re.compile(rb"(?<![\w$.])" + re.escape(name) + rb'=\["[A-Za-z]+"')
        best = None
        for d in pattern.finditer(data):
            if best is None or abs(d.start() - m.start()) < abs(best - m.start()):
                best = d.start()
        if best is None:
            continue
        start = best + len(name) + 1
        text = data[start : start + 20_000].decode("latin-1")
        try:
            node, _ = parse_expression(text, 0)
        except JsSyntaxError:
            continue
        if node.kind == "array" and node.children and all(c.kind == "str" for c in node.children):
            lists.append([c.value for c in node.children])
    if not lists:
        raise CatalogError(
            "the binary holds no 'Valid events' list of hook events: not a Claude Code CLI this extractor knows"
        )
    first = lists[0]
    if any(set(other) != set(first) for other in lists[1:]):
        raise CatalogError("the binary holds two different 'Valid events' lists; refusing to guess")
    return first


def _chunks(data: mmap.mmap, positions: list[int]) -> list[tuple[int, int]]:
    """The bundled modules (NUL-delimited in the binary) that hold these positions."""
    spans: list[tuple[int, int]] = []
    for pos in sorted(positions):
        if spans and spans[-1][0] <= pos < spans[-1][1]:
            continue
        low = data.rfind(b"\0", 0, pos) + 1
        high = data.find(b"\0", pos)
        high = len(data) if high < 0 else high
        if high - low > 64_000_000:
            raise CatalogError("a bundled module holding hook schemas is larger than 64 MB; refusing to read it")
        spans.append((low, high))
    return spans


def _lazy_wrapper(text: str) -> str | None:
    """The name of the lazy-schema helper of a module: the most common callee of NAME=X(()=>."""
    counts: dict[str, int] = {}
    for m in re.finditer(_ANY_LAZY_DEF, text):
        counts[m.group(1)] = counts.get(m.group(1), 0) + 1
    return max(sorted(counts), key=lambda k: counts[k]) if counts else None


def _extract(data: mmap.mmap) -> tuple[list[str], dict[str, dict[str, Any]]]:
    names = _event_list(data)
    inputs = [(m.start(), m.group(2).decode()) for m in _INPUT.finditer(data)]
    outputs = [(m.start(), m.group(2).decode()) for m in _OUTPUT.finditer(data)]
    if not inputs:
        raise CatalogError("no hook input schema (hook_event_name literal) found in the binary")
    found_inputs: dict[str, dict[str, Any]] = {}
    found_outputs: dict[str, dict[str, Any]] = {}
    commons: list[tuple[int, dict[str, Any]]] = []
    for low, high in _chunks(data, [p for p, _ in inputs + outputs]):
        text = data[low:high].decode("latin-1")
        lazy = _lazy_wrapper(text)
        if lazy is None:
            continue
        source = ZodSource(text, lazy)
        starts = sorted(p for positions_ in source._defs.values() for p in positions_)
        for pos, name in inputs:
            if not low <= pos < high:
                continue
            i = bisect.bisect_right(starts, pos - low) - 1
            if i < 0:
                continue
            tree = source.evaluate_at(starts[i])
            fields = tree.get("fields", {}) if tree.get("kind") == "object" else {}
            lit = fields.get("hook_event_name", {})
            if lit.get("kind") != "literal" or lit.get("value") != name:
                continue
            if _fields_count(tree) > _fields_count(found_inputs.get(name, {})):
                found_inputs[name] = tree
        for pos, name in outputs:
            if not low <= pos < high:
                continue
            at = pos - low
            if text[at - 1 : at] != "{" or text[at - 2 : at - 1] != "(":
                continue
            j = at - 2
            while j > 0 and (text[j - 1].isalnum() or text[j - 1] in "_$"):
                j -= 1
            try:
                node, _ = parse_expression(text, j)
            except JsSyntaxError:
                continue
            tree = source.evaluate(node, {})
            fields = tree.get("fields", {}) if tree.get("kind") == "object" else {}
            lit = fields.get("hookEventName", {})
            if lit.get("kind") != "literal" or lit.get("value") != name:
                continue
            if _fields_count(tree) > _fields_count(found_outputs.get(name, {})):
                found_outputs[name] = tree
        scored = _common_output(text, source, starts)
        if scored is not None:
            commons.append(scored)
    if not commons:
        raise CatalogError("no hook output schema (an object with continue and hookSpecificOutput) found")
    common = max(commons, key=lambda c: c[0])[1]

    types: dict[str, str] = {}
    for event, field, kind in (
        ("PreToolUse", "session_id", "string"),
        ("Stop", "stop_hook_active", "boolean"),
        ("PostToolUse", "duration_ms", "number"),
        ("PreToolUse", "tool_input", "unknown"),
    ):
        ctors: set[str] = set()
        _collect_ctors(found_inputs.get(event, {}), field, ctors)
        for ctor in ctors:
            types.setdefault(ctor, kind)

    missing = [name for name in names if name not in found_inputs]
    if missing:  # an empty input would make `validate` blame a profile's correct identity fields
        raise CatalogError(
            f"the binary lists the hook event(s) {', '.join(missing)} but holds no input schema for "
            "them (an object whose hook_event_name is that literal): not a layout this extractor "
            "knows; nothing is guessed"
        )
    events: dict[str, dict[str, Any]] = {}
    for name in names:
        tree = calibrate(found_inputs[name], types)
        output_fields = dict(calibrate(common, types))
        specific = found_outputs.get(name)
        if specific is not None:
            output_fields["hookSpecificOutput"] = {**calibrate(specific, types), "optional": True}
        else:
            output_fields.pop("hookSpecificOutput", None)
        events[name] = {
            "input": normalize(tree)["fields"],
            "output": normalize({"kind": "object", "fields": output_fields})["fields"],
        }
    return names, events


def _common_output(text: str, source: ZodSource, starts: list[int]) -> tuple[int, dict[str, Any]] | None:
    """The fields every hook's JSON output may carry (continue, decision, reason, ...), with the
    size of its hookSpecificOutput union (the fullest definition wins)."""
    best: tuple[int, dict[str, Any]] | None = None
    for m in re.finditer(r"hookSpecificOutput:", text):
        i = bisect.bisect_right(starts, m.start()) - 1
        if i < 0:
            continue
        tree = source.evaluate_at(starts[i])
        fields = tree.get("fields", {}) if tree.get("kind") == "object" else {}
        if "hookSpecificOutput" not in fields or "continue" not in fields:
            continue
        union = fields["hookSpecificOutput"]
        size = len(union.get("of", [])) if union.get("kind") == "union" else 0
        if best is None or size > best[0]:
            best = (size, fields)
    return best


def files(node_modules: Path, add: Callable[[Path, str, str], None]) -> None:
    """The CLI binary of an npm install (a platform package, or the package's own bin/claude.exe)."""
    nm = node_modules
    read = "the hook input/output zod schemas and the valid-event list bundled into the CLI binary"
    folders = sorted(p for p in (nm / "@anthropic-ai").glob("claude-code-*") if (p / "claude").is_file())
    if folders:
        add(folders[0], "claude", read)
    elif (nm / "@anthropic-ai/claude-code/bin/claude.exe").is_file():
        add(nm / "@anthropic-ai/claude-code", "bin/claude.exe", read)


def events(
    version: str, found: list[HostFile], node_modules: Path | None, binary: Path | None, root: Path | None
) -> tuple[list[HostFile], list[dict[str, Any]]]:
    target, found = bundled_binary("claude-code", version, found, node_modules, binary)
    names, schemas = extract(target)
    return found, [{"name": n, "kind": "hook", **schemas[n]} for n in names]
