"""Gemini CLI's catalog, read from what ``@google/gemini-cli`` ships: its bundled hook reference and the
code that reads hook output. The package ships no typings and no settings schema (only ``bundle/``).

* **Events**: the ``HookEventName`` enum of the bundle (``var HookEventName = ...``, in a
  content-hashed ``bundle/chunk-*.js``: found by pattern, never by file name). Every member must have
  its section in ``bundle/docs/hooks/reference.md`` and every section a member: a difference is a
  :class:`CatalogError` naming it, never an empty entry.
* **Input**: the reference's "Base input schema" (every event, required) plus the section's "Input
  Fields" bullets (`` `name`: (`type`) ...``; ``("a" | "b")`` is an enum; "Optional" or "if ..." in the
  text makes a field optional).
* **Output**: the reference's "Common output fields" that every event reads (``systemMessage``,
  ``suppressOutput``) plus the section's "Relevant Output Fields" bullets; ``decision`` takes the
  decision words the bullet quotes that the code's ``DefaultHookOutput`` also reads
  (``this.decision === "deny"``). ``hookSpecificOutput.<name>`` bullets become its fields.

Nothing is run; descriptions are never copied.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pasture.catalog.model import CatalogError
from pasture.catalog.packages import HostFile

PACKAGE = "@google/gemini-cli"
REFERENCE = "bundle/docs/hooks/reference.md"
_ENUM = re.compile(r"var HookEventName = /\* @__PURE__ \*/ \(\(HookEventName2\) => \{(.*?)\}\)", re.S)
_MEMBER = re.compile(r'HookEventName2\["(\w+)"\] = "(\w+)"')
_DECISION = re.compile(r'this\.decision === "(\w+)"')
_DEFAULT_OUTPUT = re.compile(r"var DefaultHookOutput = class \{(.*?)\n\};", re.S)
#: the code that turns a blocking hook answer into the tool error the model reads
_BLOCKED = "Tool execution blocked: ${"
_SECTION = re.compile(r"^### `(\w+)`\s*$", re.M)
_BULLET = re.compile(r"^  - `([\w.]+)`(?::\s*(.*))?$")
_TYPE = re.compile(r"^\(`([^`]+)`\)")
_ENUM_TYPE = re.compile(r'^\(`?((?:"[\w-]+"\s*\|\s*)*"[\w-]+")`?\)')
#: the common output fields every event reads (the others are listed per event where they matter)
_COMMON_OUTPUT = ("systemMessage", "suppressOutput")
_SIMPLE_TYPES = {"string", "boolean", "number", "object"}


def _code_chunk(bundle: Path) -> Path | None:
    """The bundle chunk that defines the event enum and the hook output classes and blocks tools."""
    for path in sorted(bundle.glob("chunk-*.js")):
        text = path.read_text(encoding="utf-8", errors="replace")
        if "var HookEventName = " in text and "var DefaultHookOutput = class" in text and _BLOCKED in text:
            return path
    return None


def files(node_modules: Path, add: Callable[[Path, str, str], None]) -> None:
    folder = Path(node_modules) / PACKAGE
    if (folder / REFERENCE).is_file():
        add(folder, REFERENCE, "the hook reference bundled with the CLI: events, input fields, output fields")
    chunk = _code_chunk(folder / "bundle") if (folder / "bundle").is_dir() else None
    if chunk is not None:
        add(
            folder,
            chunk.relative_to(folder).as_posix(),
            "the HookEventName enum and the decisions DefaultHookOutput reads (the code that parses hook output)",
        )


def _field_type(text: str) -> dict[str, Any]:
    enum = _ENUM_TYPE.match(text)
    if enum:
        return {"type": "enum", "values": re.findall(r'"([\w-]+)"', enum.group(1))}
    simple = _TYPE.match(text)
    if simple and simple.group(1) in _SIMPLE_TYPES:
        return {"type": simple.group(1)}
    if simple and simple.group(1).endswith("[]"):
        return {"type": "array"}
    return {"type": "unknown"}


def _bullets(block: str) -> dict[str, str]:
    """`name` -> its text, for the second-level bullets of a list block (continuation lines joined)."""
    out: dict[str, str] = {}
    last = None
    for line in block.splitlines():
        m = _BULLET.match(line)
        if m:
            last = m.group(1)
            out[last] = (m.group(2) or "").strip()
        elif last is not None and line.startswith("    ") and not line.lstrip().startswith("- "):
            out[last] += " " + line.strip()
        elif line.startswith("- "):
            last = None
    return out


def _list_block(section: str, title: str) -> str | None:
    """The bullets under ``- **<title>**:`` (case-insensitive), up to the next top-level bullet."""
    m = re.search(r"^- \*\*" + re.escape(title) + r"\*\*:?\s*$", section, re.M | re.I)
    if m is None:
        return None
    rest = section[m.end() :]
    end = re.search(r"^- \*\*", rest, re.M)
    return rest[: end.start()] if end else rest


def _base_input(reference: str) -> dict[str, Any]:
    m = re.search(r"## Base input schema.*?```\w*\n(.*?)```", reference, re.S)
    if m is None:
        raise CatalogError(f"{REFERENCE}: no 'Base input schema' block (has the reference changed?)")
    fields = dict(re.findall(r'"(\w+)":\s*(\w+)', m.group(1)))
    if "session_id" not in fields or "hook_event_name" not in fields:
        raise CatalogError(f"{REFERENCE}: the base input schema names no session_id / hook_event_name")
    return {
        name: {"required": True, "type": kind if kind in _SIMPLE_TYPES else "unknown"} for name, kind in fields.items()
    }


def _common_output(reference: str) -> dict[str, Any]:
    """The "Common output fields" table: field -> its type."""
    m = re.search(r"## Common output fields(.*?)\n---", reference, re.S)
    rows = re.findall(r"^\| `(\w+)`\s*\| `(\w+)`", m.group(1), re.M) if m else []
    if not rows:
        raise CatalogError(f"{REFERENCE}: no 'Common output fields' table (has the reference changed?)")
    return {name: {"required": False, "type": kind if kind in _SIMPLE_TYPES else "unknown"} for name, kind in rows}


def _sections(reference: str) -> dict[str, str]:
    marks = list(_SECTION.finditer(reference))
    out = {}
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(reference)
        # a section ends at the next heading of any level
        body = reference[m.end() : end]
        cut = re.search(r"^#{1,3} ", body, re.M)
        out[m.group(1)] = body[: cut.start()] if cut else body
    return out


def _event(
    name: str, section: str, base: dict[str, Any], common: dict[str, Any], decisions: list[str]
) -> dict[str, Any]:
    inputs = _list_block(section, "Input Fields")
    outputs = _list_block(section, "Relevant Output Fields")
    if inputs is None or outputs is None:
        missing = "Input Fields" if inputs is None else "Relevant Output Fields"
        raise CatalogError(f"{REFERENCE}: the {name} section has no '{missing}' list (has the reference changed?)")
    spec_in: dict[str, Any] = {k: dict(v) for k, v in base.items()}
    spec_in["hook_event_name"] = {"required": True, "type": "literal", "values": [name]}
    for field, text in _bullets(inputs).items():
        optional = text.startswith("(`object`) Optional") or "Optional" in text.split(".")[0] or " if " in text
        spec_in[field] = {"required": not optional, **_field_type(text)}
    spec_out: dict[str, Any] = {f: dict(common[f]) for f in _COMMON_OUTPUT if f in common}
    specific: dict[str, Any] = {}
    for field, text in _bullets(outputs).items():
        if field.startswith("hookSpecificOutput."):
            path = field.split(".")[1:]
            node = specific
            for part in path[:-1]:
                node = node.setdefault(part, {"required": False, "type": "object", "fields": {}})["fields"]
            node[path[-1]] = {"required": False, **_field_type(text)}
        elif field == "decision":
            words = [w for w in re.findall(r'"(\w+)"', text) if w in decisions]
            if not words:
                read = ", ".join(decisions)
                raise CatalogError(
                    f"{REFERENCE}: {name}'s decision names none of the decisions the code reads ({read})"
                )
            spec_out["decision"] = {"required": False, "type": "enum", "values": words}
        else:
            typed = _field_type(text)
            spec_out[field] = (
                dict(common[field]) if typed["type"] == "unknown" and field in common else {"required": False, **typed}
            )
    if specific:
        spec_out["hookSpecificOutput"] = {"required": False, "type": "object", "fields": specific}
    return {
        "name": name,
        "kind": "hook",
        "input": spec_in,
        "output": spec_out,
        "host_calls": None,
        "sources": [PACKAGE],
    }


def extract(reference: str, code: str) -> list[dict[str, Any]]:
    enum = _ENUM.search(code)
    if enum is None:
        raise CatalogError("no HookEventName enum in the bundle's code (has the bundle changed?)")
    names = [value for _key, value in _MEMBER.findall(enum.group(1))]
    if not names:
        raise CatalogError("the bundle's HookEventName enum has no members")
    output = _DEFAULT_OUTPUT.search(code)
    decisions = sorted(set(_DECISION.findall(output.group(1)))) if output else []
    if "deny" not in decisions:
        raise CatalogError("the bundle's DefaultHookOutput reads no 'deny' decision (has the bundle changed?)")
    sections = _sections(reference)
    base = _base_input(reference)
    common = _common_output(reference)
    undocumented = [n for n in names if n not in sections]
    if undocumented:
        raise CatalogError(
            f"{REFERENCE} documents no section for {', '.join(undocumented)} (in the code's HookEventName)"
        )
    extra = [s for s in sections if s not in names]
    if extra:
        raise CatalogError(f"{REFERENCE} documents {', '.join(extra)}, which the code's HookEventName lacks")
    # the enum's order is arbitrary (BeforeTool first); the catalog lists events in the reference's order
    return [_event(n, sections[n], base, common, decisions) for n in sections]


def events(
    version: str, found: list[HostFile], node_modules: Path | None, binary: Path | None, root: Path | None
) -> tuple[list[HostFile], list[dict[str, Any]]]:
    have = {f.rel for f in found}
    if REFERENCE not in have:
        raise CatalogError(f"no {PACKAGE}/{REFERENCE} under {node_modules} (the bundled hook reference)")
    code = [f for f in found if f.rel != REFERENCE]
    if not code:
        raise CatalogError(
            f"no bundle/chunk-*.js of {PACKAGE} under {node_modules} defines HookEventName and DefaultHookOutput"
        )
    reference = next(f for f in found if f.rel == REFERENCE).path.read_text(encoding="utf-8")
    return found, extract(reference, code[0].path.read_text(encoding="utf-8", errors="replace"))
