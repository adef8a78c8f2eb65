"""Qwen Code's catalog, read from what ``@qwen-code/qwen-code`` ships: the hook reference bundled for its
help skill (``bundled/qc-helper/docs/features/hooks.md``) and the code that reads hook output. The package
ships no typings and no settings JSON Schema (esbuild chunks only).

* **Events**: the ``HookEventName`` enum of the code (``var HookEventName = ...`` in a content-hashed
  ``chunks/chunk-*.js``, found by pattern, never by file name). Every member must have its ``#### <Event>``
  section in the reference and every section under "Individual Hook Event Details" a member: a difference is
  a :class:`CatalogError` naming it.
* **Input**: the reference's "Common Fields" block (every event) plus the section's "Event-specific fields"
  block, both JSON objects of field -> a note. ``hook_event_name`` is the event's literal.
* **Output**: the common output fields the reference lists (``continue``, ``stopReason``,
  ``suppressOutput``, ``systemMessage``) plus the section's "Output Options" bullets (`` `name` ``);
  ``decision`` takes the words the bullet quotes that the event's output class reads
  (``this.decision === "<word>"`` in ``createHookOutput``'s class for the event, up its ``extends``
  chain); ``hookSpecificOutput.<name>`` bullets become its fields.

**Types.** The reference writes a type for some fields only; the rest are prose ("name of the tool being
executed"). A field's type is, in this order: what the event's output class checks for a
``hookSpecificOutput`` field (``typeof v === "string"``: string; the object check: object; ``v === "a" ||
v === "b"``: those values); a note that is a type (``"string"``, ``"boolean"``), a list of words
(``"a | b | c"``: an enum of them), a JSON array (array), or that opens with ``object``, ``array of``,
``boolean`` or ``true when``/``true on``/``false on`` (boolean); a bullet quoting its values
(``"allow", "deny", or "ask"``: an enum). Anything else is ``unknown``: the catalog records that the
host names the field and says nothing of its type, rather than guessing one. A field is optional when its
note says "optional" or "only when"/"when the".

Nothing is run; descriptions are never copied.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pasture.catalog.hookdocs import reference_and_code, same_events
from pasture.catalog.packages import HostFile
from pasture.profile.catalog import CatalogError

PACKAGE = "@qwen-code/qwen-code"
REFERENCE = "bundled/qc-helper/docs/features/hooks.md"
_ENUM = re.compile(r"var HookEventName = /\* @__PURE__ \*/ \(\(HookEventName2\) => \{(.*?)\}\)", re.S)
_MEMBER = re.compile(r'HookEventName2\["(\w+)"\] = "(\w+)"')
_CLASS = re.compile(r"^var (\w+) = class(?: extends (\w+))? \{", re.M)
_CREATE_OUTPUT = re.compile(r"function createHookOutput\(\w+, \w+\) \{(.*?)\n\}", re.S)
_CASE = re.compile(r'case "(\w+)"(?: /\* \w+ \*/)?:')
_RETURN = re.compile(r"return new (\w+)\(")
_DEFAULT_CLASS = re.compile(r"default:\s*return new (\w+)\(")
_DECISION = re.compile(r'this\.decision === "(\w+)"')
_SECTION = re.compile(r"^#### (\w+)\s*$", re.M)
_BLOCK = re.compile(r"```json\n(.*?)```", re.S)
_COMMON_OUTPUT = ("continue", "stopReason", "suppressOutput", "systemMessage")
_WORDS = re.compile(r"^[\w-]+(?: \| [\w-]+)+")
_UNKNOWN: dict[str, Any] = {"type": "unknown"}


def _code_chunk(folder: Path) -> Path | None:
    """The chunk that defines the event enum and the hook output classes."""
    for path in sorted(folder.glob("chunk-*.js")):
        text = path.read_text(encoding="utf-8", errors="replace")
        if "var HookEventName = " in text and "var DefaultHookOutput = class" in text and "createHookOutput" in text:
            return path
    return None


def files(node_modules: Path, add: Callable[[Path, str, str], None]) -> None:
    folder = Path(node_modules) / PACKAGE
    if (folder / REFERENCE).is_file():
        add(folder, REFERENCE, "the hook reference bundled with the CLI: events, input fields, output fields")
    chunk = _code_chunk(folder / "chunks") if (folder / "chunks").is_dir() else None
    if chunk is not None:
        add(
            folder,
            chunk.relative_to(folder).as_posix(),
            "the HookEventName enum, the hook output classes createHookOutput builds, the decisions and the "
            "hookSpecificOutput fields they read",
        )


class _Code:
    """What the chunk's code says: each event's output class, what it reads."""

    def __init__(self, code: str):
        self.classes: dict[str, tuple[str | None, str]] = {}
        for m in _CLASS.finditer(code):
            end = code.find("\n};", m.end())
            if end != -1:
                self.classes[m.group(1)] = (m.group(2), code[m.end() : end])
        create = _CREATE_OUTPUT.search(code)
        if create is None:
            raise CatalogError("no createHookOutput in the code chunk (has the bundle changed?)")
        self.output_class: dict[str, str] = {}
        pending: list[str] = []
        for line in create.group(1).splitlines():
            pending += _CASE.findall(line)
            ret = _RETURN.search(line)
            if ret and pending:
                self.output_class.update(dict.fromkeys(pending, ret.group(1)))
                pending = []
        default = _DEFAULT_CLASS.search(create.group(1))
        self.default_class = default.group(1) if default else None

    def _chain(self, event: str) -> list[str]:
        name = self.output_class.get(event, self.default_class)
        chain: list[str] = []
        while name is not None and name in self.classes and name not in chain:
            chain.append(name)
            name = self.classes[name][0]
        return chain

    def decisions(self, event: str) -> set[str]:
        return {w for c in self._chain(event) for w in _DECISION.findall(self.classes[c][1])}

    def output_type(self, event: str, field: str) -> dict[str, Any] | None:
        key = re.escape(f'this.hookSpecificOutput["{field}"]')
        for name in self._chain(event):
            body = self.classes[name][1]
            for m in re.finditer(r"const (\w+) = " + key + ";", body):
                end = body.find("\n  }", m.end())
                rest = body[m.end() : end if end != -1 else len(body)]
                v = re.escape(m.group(1))
                if re.search(rf"typeof {v} === \"object\" && {v} !== null && !Array\.isArray\({v}\)", rest):
                    return {"type": "object"}
                if re.search(rf"typeof {v} [!=]== \"string\"", rest):
                    return {"type": "string"}
                values = re.findall(rf'(?<![.\w]){v} === "([\w-]+)"', rest)
                if values:
                    return {"type": "enum", "values": list(dict.fromkeys(values))}
        return None


def _note_type(note: Any) -> dict[str, Any]:
    """The type a field's note in the reference gives (module docstring), else unknown."""
    if isinstance(note, list):
        return {"type": "array"}
    if not isinstance(note, str):
        return dict(_UNKNOWN)
    text = note.strip()
    first = re.match(r"(string|boolean|number|object)\b(?: \(|$)", text)
    if first:
        return {"type": first.group(1)}
    words = _WORDS.match(text)
    if words:
        return {"type": "enum", "values": [w.strip() for w in words.group(0).split("|")]}
    if re.match(r"(object\b|array of\b|boolean\b|true when\b|true on\b|false on\b)", text):
        kind = text.split()[0]
        return {"type": {"object": "object", "array": "array"}.get(kind, "boolean")}
    return dict(_UNKNOWN)


def _optional(note: Any) -> bool:
    return isinstance(note, str) and bool(re.search(r"\boptional\b|\bonly when\b|^\w+ \(when the\b", note, re.I))


def _json_block(section: str, title: str, event: str) -> dict[str, Any] | None:
    m = re.search(r"\*\*" + re.escape(title) + r"\*\*:?\s*\n", section)
    if m is None:
        return None
    block = _BLOCK.search(section, m.end())
    if block is None:
        raise CatalogError(f"{REFERENCE}: {event}'s {title} has no JSON block (has the reference changed?)")
    try:
        doc = json.loads(block.group(1))
    except ValueError as exc:
        raise CatalogError(f"{REFERENCE}: {event}'s {title} block is not JSON ({exc})") from None
    if not isinstance(doc, dict):
        raise CatalogError(f"{REFERENCE}: {event}'s {title} block is not a JSON object")
    return doc


def _bullets(section: str) -> dict[str, str]:
    """`name` -> its text, for the bullets under **Output Options** (up to the next bold heading)."""
    m = re.search(r"\*\*Output Options\*\*:?\s*\n(.*?)(?=\n\*\*|\Z)", section, re.S)
    if m is None:
        return {}
    return dict(re.findall(r"^- `([\w.]+)`(?:\s*/\s*`[\w.]+`)?:?\s*(.*)$", m.group(1), re.M))


def _sections(reference: str) -> dict[str, str]:
    details = reference.find("### Individual Hook Event Details")
    if details == -1:
        raise CatalogError(f"{REFERENCE}: no 'Individual Hook Event Details' (has the reference changed?)")
    end = re.search(r"^## ", reference[details:], re.M)
    part = reference[details : details + end.start()] if end else reference[details:]
    marks = list(_SECTION.finditer(part))
    return {
        m.group(1): part[m.end() : marks[i + 1].start() if i + 1 < len(marks) else len(part)]
        for i, m in enumerate(marks)
    }


def _common_input(reference: str) -> dict[str, Any]:
    m = re.search(r"\*\*Common Fields:\*\*\s*```json\n(.*?)```", reference, re.S)
    if m is None:
        raise CatalogError(f"{REFERENCE}: no 'Common Fields' block (has the reference changed?)")
    doc = json.loads(m.group(1))
    if "session_id" not in doc or "hook_event_name" not in doc:
        raise CatalogError(f"{REFERENCE}: the common fields name no session_id / hook_event_name")
    return {name: {"required": not _optional(note), **_note_type(note)} for name, note in doc.items()}


def _event(name: str, section: str, common: dict[str, Any], code: _Code) -> dict[str, Any]:
    spec_in = {k: dict(v) for k, v in common.items()}
    spec_in["hook_event_name"] = {"required": True, "type": "literal", "values": [name]}
    specific_in = _json_block(section, "Event-specific fields", name)
    if specific_in is None:
        raise CatalogError(f"{REFERENCE}: the {name} section has no 'Event-specific fields' (has it changed?)")
    for field, note in specific_in.items():
        spec_in[field] = {"required": not _optional(note), **_note_type(note)}
    spec_out: dict[str, Any] = {f: {"required": False, "type": "unknown"} for f in _COMMON_OUTPUT}
    spec_out["continue"] = {"required": False, "type": "boolean"}  # DefaultHookOutput: this.continue === false
    specific: dict[str, Any] = {}
    read = code.decisions(name)
    for field, text in _bullets(section).items():
        quoted = re.findall(r'"([\w-]+)"', text)
        if field.startswith("hookSpecificOutput."):
            part = field.split(".", 1)[1]
            typed = code.output_type(name, part) or ({"type": "enum", "values": quoted} if quoted else dict(_UNKNOWN))
            specific[part] = {"required": False, **typed}
        elif field == "decision":
            words = [w for w in quoted if w in read]
            if not words:
                raise CatalogError(
                    f"{REFERENCE}: {name}'s decision names none of the decisions its output class reads "
                    f"({', '.join(sorted(read)) or 'none'})"
                )
            spec_out["decision"] = {"required": False, "type": "enum", "values": words}
        elif field not in spec_out:
            spec_out[field] = {"required": False, **dict(_UNKNOWN)}
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
        raise CatalogError("no HookEventName enum in the code chunk (has the bundle changed?)")
    names = [value for _key, value in _MEMBER.findall(enum.group(1))]
    if not names:
        raise CatalogError("the code's HookEventName enum has no members")
    sections = _sections(reference)
    same_events(names, list(sections), REFERENCE)
    typed = _Code(code)
    common = _common_input(reference)
    return [_event(n, sections[n], common, typed) for n in sections]


def events(
    version: str, found: list[HostFile], node_modules: Path | None, binary: Path | None, root: Path | None
) -> tuple[list[HostFile], list[dict[str, Any]]]:
    what = "(chunks/chunk-*.js) defines HookEventName"
    reference, code = reference_and_code(found, PACKAGE, REFERENCE, node_modules, what)
    return found, extract(reference, code)
