"""Gemini CLI's catalog, read from what ``@google/gemini-cli`` ships: its bundled hook reference and the
code that reads hook output. The package ships no typings and no settings schema (only ``bundle/``).

* **The code the CLI loads**: the package's ``bin`` entry (``bundle/gemini.js``) and every bundle file it
  imports, statically or with ``import("./...")``, followed in import order; the first of them that
  defines the ``HookEventName`` enum and ``DefaultHookOutput`` and blocks tools is read. The bundle also
  ships content-hashed chunks with the same definitions that nothing imports (0.61.0: two of three);
  they are never read, and file names are never guessed.
* **Events**: that file's ``HookEventName`` enum (an arrow IIFE ``var HookEventName = /* @__PURE__ */
  ((HookEventName2) => {...})`` or TypeScript's ``var HookEventName; (function(HookEventName2) {...})``).
  Every member must have its section in ``bundle/docs/hooks/reference.md`` and every section a member: a
  difference is a :class:`CatalogError` naming it, never an empty entry.
* **Input**: the reference's "Base input schema" (every event, required) plus the section's "Input
  Fields" bullets (`` `name`: (`type`) ...``; ``("a" | "b")`` is an enum; "Optional" or "if ..." in the
  text makes a field optional). The code that builds the input overrides that word where it is plain:
  a field spread in only when set (``...mcpContext && { mcp_context: mcpContext }``) is optional, one
  whose value is a literal or a parameter with a default (``stop_hook_active: stopHookActive``,
  ``stopHookActive = false``) is always sent, so required. (0.61.0: AfterTool's ``mcp_context``, which
  the reference types without "Optional", and AfterAgent's ``stop_hook_active``, whose text says "if";
  every capture agrees.)
* **Output**: the reference's "Common output fields" that every event reads (``systemMessage``,
  ``suppressOutput``) plus the section's "Relevant Output Fields" bullets; ``decision`` takes the
  decision words the bullet quotes that the code's ``DefaultHookOutput`` also reads
  (``this.decision === "deny"``). ``hookSpecificOutput.<name>`` bullets become its fields.
  **Plus what the code reads**: the functions that call ``.fire<Event>Event(`` (and, where one
  returns that output, its callers) call ``DefaultHookOutput`` methods on it; each method reads the
  fields its body names (``shouldStopExecution``: ``continue``; ``getEffectiveReason``: ``stopReason``,
  ``reason``) and compares decision words (``isAskDecision``: ``"ask"``), through the methods it calls.
  Those fields join the event's output, typed by the common output table (a field it does not type is
  a :class:`CatalogError`), and those words its ``decision`` (after the reference's). 0.61.0: BeforeTool
  gains ``decision: "ask"`` (``evaluateBeforeToolHook``) and ``stopReason``; the model events
  ``continue``, ``reason`` and ``stopReason`` (``HookSystem.fireBeforeModelEvent`` /
  ``fireAfterModelEvent``); AfterTool, BeforeAgent and AfterAgent ``stopReason``. Code that only logs
  an output (``processCommonHookOutputFields``, which fires nothing) adds nothing.

**Types, never guessed.** A field's type comes from the reference's own type note
(`` (`string`) ``, `` (`"a" | "b"`) ``, `` (`string[]`) ``, the base-input block, the common-output
table). The reference's prose ("Summary of the alert", "An object that ...") is never read for a
type. Where a bullet has no usable note, the type comes from the host's code that handles the field,
in the same file:

* an *output* ``hookSpecificOutput.<name>``: the output class ``createHookOutput`` builds for the
  event (``DefaultHookOutput`` when its ``switch`` names no other), searched up its ``extends`` chain.
  The method that reads ``this.hookSpecificOutput["<name>"]`` must check the value the code accepts:
  ``typeof v === "object" && v !== null && !Array.isArray(v)`` is ``object``; ``typeof v !== "string"``
  (rejected) or ``=== "string"`` is ``string``; ``=== true`` is ``boolean``. ``llm_request`` and
  ``llm_response`` are only tested for truth, then handed to ``defaultHookTranslator.fromHookLLMRequest``
  / ``fromHookLLMResponse``, which read their members; their type is the one the reference's "Stable
  Model API" gives that structure (``**LLMRequest**:`` / ``**LLMResponse**:`` followed by an object
  literal ``{ ... }`` is ``object``). When the reference also has a type note, the two must agree.
* an *input* field: the code that builds the event's input (``const input = { ...this.createBaseInput(
  "<Event>"), ... }``, or ``(HookEventName.<Event>)``, in the method that fires it). The field's value
  is a parameter of that method; every call of the method must pass, at that position, a value whose
  type the code states: a string or template literal (``string``), an object literal (``object``), or a
  ``const`` bound just before the call to one of those or to a call of a ``function`` every ``return``
  of which is one of those (or a ``const`` of the function bound to one). Notification's ``message``
  (``getNotificationMessage``: template literals) and ``details`` (``toSerializableDetails``: object
  literals) are read this way.

A field whose type neither source gives is a :class:`CatalogError` naming the event and the field,
never an ``unknown`` entry.

Nothing is run; descriptions are never copied.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pasture.catalog.hookdocs import reference_and_code, same_events
from pasture.catalog.jsexpr import JsSyntaxError, Node, parse_expression, skip_balanced
from pasture.catalog.packages import HostFile
from pasture.profile.catalog import CatalogError

PACKAGE = "@google/gemini-cli"
REFERENCE = "bundle/docs/hooks/reference.md"
_ENUM = re.compile(
    r"var HookEventName(?: = /\* @__PURE__ \*/ \(\(HookEventName2\) => \{(.*?)\}\)"
    r"|;\s*\(function\(HookEventName2\) \{(.*?)\}\)\(HookEventName \|\| \(HookEventName = \{\}\)\))",
    re.S,
)
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


#: a bundle file's imports of its siblings: ``import {...} from "./x.js"``, ``import "./x.js"``, ``import("./x.js")``
_IMPORT = re.compile(r'^import\s+(?:[^;"]*?\s+from\s+)?"\./([\w.-]+\.js)"|\bimport\(\s*"\./([\w.-]+\.js)"\s*\)', re.M)


def _bin_entry(folder: Path) -> Path | None:
    """The file the package's ``gemini`` command runs (package.json ``bin``), inside the package."""
    try:
        doc = json.loads((folder / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    entry = doc.get("bin") if isinstance(doc, dict) else None
    if isinstance(entry, dict):
        entry = entry.get("gemini")
    if not isinstance(entry, str):
        return None
    path = (folder / entry).resolve()
    return path if path.is_file() and path.is_relative_to(folder.resolve()) else None


def _defines_hooks(text: str) -> bool:
    return "var DefaultHookOutput = class" in text and _BLOCKED in text and _ENUM.search(text) is not None


def _code_file(folder: Path) -> Path | None:
    """The first file, in import order from the bin entry, that defines the hook event enum and output
    classes: the code the CLI runs (every import of a file the CLI loads is loaded, or may be)."""
    entry = _bin_entry(folder)
    if entry is None:
        return None
    queue, seen = [entry], {entry}
    while queue:
        path = queue.pop(0)
        text = path.read_text(encoding="utf-8", errors="replace")
        if _defines_hooks(text):
            return path
        for m in _IMPORT.finditer(text):
            near = path.parent / (m.group(1) or m.group(2))
            if near not in seen and near.is_file():
                seen.add(near)
                queue.append(near)
    return None


def files(node_modules: Path, add: Callable[[Path, str, str], None]) -> None:
    folder = Path(node_modules) / PACKAGE
    if (folder / REFERENCE).is_file():
        add(folder, REFERENCE, "the hook reference bundled with the CLI: events, input fields, output fields")
    code = _code_file(folder) if folder.is_dir() else None
    if code is not None:
        add(
            folder,
            code.resolve().relative_to(folder.resolve()).as_posix(),
            "the code the CLI loads (package.json bin and its imports): the HookEventName enum, the decisions"
            " and output fields DefaultHookOutput reads, the type checks of the hook output classes"
            " createHookOutput builds, and the code that builds each event's input",
        )


def _field_type(text: str) -> dict[str, Any] | None:
    """The type a reference bullet's own note gives, or None when it gives none this reader knows."""
    enum = _ENUM_TYPE.match(text)
    if enum:
        return {"type": "enum", "values": re.findall(r'"([\w-]+)"', enum.group(1))}
    simple = _TYPE.match(text)
    if simple and simple.group(1) in _SIMPLE_TYPES:
        return {"type": simple.group(1)}
    if simple and simple.group(1).endswith("[]"):
        return {"type": "array"}
    return None


_CLASS = re.compile(r"^var (\w+) = class(?: extends (\w+))? \{", re.M)
_CREATE_OUTPUT = re.compile(r"function createHookOutput\(\w+, \w+\) \{(.*?)\n\}", re.S)
_CASE = re.compile(r'case "(\w+)":\s*return new (\w+)\(')
_DEFAULT_CLASS = re.compile(r"default:\s*return new (\w+)\(")
_TRANSLATOR = re.compile(r"defaultHookTranslator\.fromHook(\w+)\(")


_METHOD = re.compile(r"^  (?:async )?(\w+)\(([^()]*)\) \{$", re.M)
#: a function or method header alone on its line (``async function f(a, b) {``, ``  async *m(x = 1) {``)
_HEADER = re.compile(
    r"^[ \t]*(?:static\s+)?(?:async\s+)?(?:function\s*\*?\s*|\*\s*)?([\w$]+)\s*\(([^()]*)\)\s*\{[ \t]*$", re.M
)
_NOT_FUNCTIONS = frozenset({"if", "for", "while", "switch", "catch", "with", "function", "return"})
#: how far back from a call the header of the function holding it is looked for
_WINDOW = 400_000


def _output_methods(code: str) -> dict[str, tuple[frozenset[str], frozenset[str]]]:
    """DefaultHookOutput's methods -> (the output fields they read, the decision words they compare), each
    with what the methods it calls read. The fields are those its constructor copies from ``data``."""
    m = _DEFAULT_OUTPUT.search(code)
    if m is None:
        return {}
    body = m.group(1)
    fields = set(re.findall(r"this\.(\w+) = data\.\1;", body))
    raw: dict[str, str] = {}
    for head in _METHOD.finditer(body):
        end = body.find("\n  }", head.end())
        raw[head.group(1)] = body[head.end() : end if end != -1 else len(body)]

    def reads(name: str, seen: frozenset[str]) -> tuple[frozenset[str], frozenset[str]]:
        text = raw[name]
        found = {f for f in re.findall(r"this\.(\w+)\b(?!\()", text) if f in fields}
        words = set(_DECISION.findall(text))
        for callee in re.findall(r"this\.(\w+)\(", text):
            if callee in raw and callee not in seen:
                more, more_words = reads(callee, seen | {callee})
                found |= more
                words |= more_words
        return frozenset(found), frozenset(words)

    return {name: reads(name, frozenset({name})) for name in raw if name != "constructor"}


def _enclosing(code: str, pos: int) -> tuple[str, int, int] | None:
    """The innermost function or method (name, body start, body end) whose body holds ``pos``."""
    heads = [h for h in _HEADER.finditer(code, max(0, pos - _WINDOW), pos) if h.group(1) not in _NOT_FUNCTIONS]
    for head in reversed(heads):
        brace = code.rfind("{", head.start(), head.end())
        try:
            end = skip_balanced(code, brace)
        except JsSyntaxError:
            continue
        if end > pos:
            return head.group(1), brace, end
    return None


class _Code:
    """What the loaded code says about the types of hook input and output fields."""

    def __init__(self, code: str, reference: str):
        self.code = code
        self.reference = reference
        self.classes: dict[str, tuple[str | None, str]] = {}
        for m in _CLASS.finditer(code):
            end = code.find("\n};", m.end())
            if end != -1:
                self.classes[m.group(1)] = (m.group(2), code[m.end() : end])
        create = _CREATE_OUTPUT.search(code)
        self.output_class: dict[str, str] = dict(_CASE.findall(create.group(1))) if create else {}
        default = _DEFAULT_CLASS.search(create.group(1)) if create else None
        self.default_class = default.group(1) if default else None
        self._builders: dict[str, tuple[str, list[str], Node] | None] = {}
        self.methods = _output_methods(code)

    def consulted(self, event: str) -> tuple[frozenset[str], frozenset[str]]:
        """The output fields, and the decision words, that the code consulting the event's output reads: the
        functions that call ``.fire<Event>Event(`` (and, where one returns that output, its callers) call
        DefaultHookOutput methods on it (``shouldStopExecution``: ``continue``; ``getEffectiveReason``:
        ``stopReason`` and ``reason``; ``isAskDecision``: ``decision === "ask"``; ...)."""
        fields: set[str] = set()
        words: set[str] = set()
        followed: set[str] = set()
        calls = [f"fire{event}Event"]
        while calls:
            name = calls.pop()
            for call in re.finditer(r"\." + re.escape(name) + r"\(", self.code):
                held = _enclosing(self.code, call.start())
                if held is None:
                    continue
                function, start, end = held
                body = self.code[start:end]
                for called in re.findall(r"\.(\w+)\(", body):
                    if called in self.methods:
                        fields |= self.methods[called][0]
                        words |= self.methods[called][1]
                line = self.code[self.code.rfind("\n", 0, call.start()) + 1 : call.start()]
                bound = re.search(r"const (\w+) = await [\w.?()]*$", line)
                returned = bound is not None and re.search(rf"\breturn {bound.group(1)};", body) is not None
                if returned and function not in followed and len(followed) < 8:
                    followed.add(function)
                    calls.append(function)
        return frozenset(fields), frozenset(words)

    def _structure(self, name: str) -> dict[str, Any] | None:
        """The type the reference's "Stable Model API" gives ``**<name>**:`` (an object literal: object)."""
        m = re.search(r"^\*\*" + re.escape(name) + r"\*\*:\s*```\w*\n\s*(\S)", self.reference, re.M)
        return {"type": "object"} if m and m.group(1) == "{" else None

    def output_type(self, event: str, field: str) -> dict[str, Any] | None:
        """The type the event's output class checks ``hookSpecificOutput["<field>"]`` against."""
        name = self.output_class.get(event, self.default_class)
        seen: set[str] = set()
        while name is not None and name in self.classes and name not in seen:
            seen.add(name)
            parent, body = self.classes[name]
            found = self._checked(body, field)
            if found is not None:
                return found
            name = parent
        return None

    def _checked(self, body: str, field: str) -> dict[str, Any] | None:
        key = re.escape(f'this.hookSpecificOutput["{field}"]')
        for m in re.finditer(key, body):
            # the rest of the method that reads it (class methods end at a two-space "}")
            end = body.find("\n  }", m.end())
            rest = body[m.end() : end if end != -1 else len(body)]
            if re.match(r"\s*===\s*true\b", rest):
                return {"type": "boolean"}
            line = body.rfind("\n", 0, m.start()) + 1
            bound = re.fullmatch(r"\s*const (\w+) = " + key + ";", body[line : m.end() + 1])
            if bound is None:
                continue
            v = re.escape(bound.group(1))
            if re.search(rf"typeof {v} === \"object\" && {v} !== null && !Array\.isArray\({v}\)", rest):
                return {"type": "object"}
            if re.search(rf"typeof {v} [!=]== \"string\"", rest):
                return {"type": "string"}
            translated = _TRANSLATOR.search(rest)
            if translated and re.search(rf"\(\s*(?://[^\n]*\s*)*{v}\b", rest[translated.end() - 1 :]):
                return self._structure(translated.group(1))
        return None

    def _builder(self, event: str) -> tuple[str, list[str], Node] | None:
        """The method that builds the event's input: its name, its parameters (``p = default`` kept whole)
        and the object literal it builds (``createBaseInput("<Event>")`` or ``(HookEventName.<Event>)``)."""
        if event in self._builders:
            return self._builders[event]
        pattern = (
            r"async (\w+)\(([\w, =]*)\) \{\s*const input = (?=\{\s*\.\.\.this\.createBaseInput\("
            + rf'(?:"{re.escape(event)}"|HookEventName\.{re.escape(event)}\b))'
        )
        m = re.search(pattern, self.code)
        found = None
        if m is not None:
            try:
                built, _ = parse_expression(self.code, m.end())
                found = (m.group(1), [p.strip() for p in m.group(2).split(",")], built)
            except JsSyntaxError:
                found = None
        self._builders[event] = found
        return found

    def input_presence(self, event: str, field: str) -> bool | None:
        """Whether the code that builds the event's input always sends ``field`` (True: a property whose value
        is a parameter with a default, or a literal), sends it only sometimes (False: inside a spread
        ``...value && { field: value }``), or says neither (None: the reference's word stands)."""
        builder = self._builder(event)
        if builder is None:
            return None
        _method, params, built = builder
        for member in built.children:
            if member.kind == "prop" and member.value == field:
                value = member.children[0]
                if value.kind in ("str", "template", "num", "object", "array"):
                    return True
                defaults = {p.split("=")[0].strip() for p in params if "=" in p}
                return True if value.kind == "ident" and value.value in defaults else None
            if member.kind == "spread" and member.children:
                inner = member.children[0]
                if inner.kind == "binary" and inner.value == "&&" and len(inner.children) == 2:
                    obj = inner.children[1]
                    if obj.kind == "object" and any(c.kind == "prop" and c.value == field for c in obj.children):
                        return False
        return None

    def input_type(self, event: str, field: str) -> dict[str, Any] | None:
        """The type of what every caller passes for ``field`` to the method that builds the event's input."""
        builder = self._builder(event)
        if builder is None:
            return None
        method, params, built = builder
        params = [p.split("=")[0].strip() for p in params]
        value = next((p.children[0] for p in built.children if p.kind == "prop" and p.value == field), None)
        if value is None or value.kind != "ident" or value.value not in params:
            return None
        position = params.index(value.value)
        kinds = []
        for call in re.finditer(r"\." + re.escape(method) + r"\(", self.code):
            try:
                start = call.end() - 1
                args = parse_expression("f" + self.code[start : skip_balanced(self.code, start)], 0)[0].children[1:]
            except JsSyntaxError:
                return None
            if len(args) <= position:
                return None
            kinds.append(self._value_type(args[position], self.code[max(0, call.start() - 2000) : call.start()]))
        if not kinds or None in kinds or len(set(kinds)) != 1:
            return None
        return {"type": kinds[0]}

    def _value_type(self, node: Node, before: str, depth: int = 0) -> str | None:
        """string / object for a literal, or a const (bound in ``before``) to one or to a function's returns."""
        if node.kind in ("str", "template"):
            return "string"
        if node.kind == "object":
            return "object"
        if depth > 3:
            return None
        if node.kind == "ident":
            binds = list(re.finditer(r"\bconst " + re.escape(str(node.value)) + r" = ", before))
            if not binds:
                return None
            try:
                bound, _ = parse_expression(before, binds[-1].end())
            except JsSyntaxError:
                return None
            return self._value_type(bound, before[: binds[-1].start()], depth + 1)
        if node.kind == "call" and node.value != "new" and node.children and node.children[0].kind == "ident":
            return self._returns(str(node.children[0].value), depth + 1)
        return None

    def _returns(self, function: str, depth: int) -> str | None:
        m = re.search(r"^function " + re.escape(function) + r"\([\w, ]*\) (?=\{)", self.code, re.M)
        if m is None:
            return None
        try:
            body = self.code[m.end() : skip_balanced(self.code, m.end())]
        except JsSyntaxError:
            return None
        kinds = set()
        for ret in re.finditer(r"\breturn\b\s*", body):
            try:
                node, _ = parse_expression(body, ret.end())
            except JsSyntaxError:
                return None
            kinds.add(self._value_type(node, body[: ret.start()], depth))
        if len(kinds) != 1 or None in kinds:
            return None
        return kinds.pop()


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
    odd = [f"{name} ({kind})" for name, kind in fields.items() if kind not in _SIMPLE_TYPES]
    if odd:
        raise CatalogError(f"{REFERENCE}: the base input schema gives no type this reader knows for {', '.join(odd)}")
    return {name: {"required": True, "type": kind} for name, kind in fields.items()}


def _common_output(reference: str) -> dict[str, Any]:
    """The "Common output fields" table: field -> its type."""
    m = re.search(r"## Common output fields(.*?)\n---", reference, re.S)
    rows = re.findall(r"^\| `(\w+)`\s*\| `(\w+)`", m.group(1), re.M) if m else []
    if not rows:
        raise CatalogError(f"{REFERENCE}: no 'Common output fields' table (has the reference changed?)")
    odd = [f"{name} ({kind})" for name, kind in rows if kind not in _SIMPLE_TYPES]
    if odd:
        raise CatalogError(f"{REFERENCE}: the common output table gives no type this reader knows for {', '.join(odd)}")
    return {name: {"required": False, "type": kind} for name, kind in rows}


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


def _untyped(event: str, where: str, field: str, searched: str) -> CatalogError:
    return CatalogError(
        f"{event} {where} field {field}: no type in {REFERENCE} (no (`type`) note) nor in the bundle's code"
        f" ({searched}); cannot catalog it without guessing"
    )


def _event(
    name: str, section: str, base: dict[str, Any], common: dict[str, Any], decisions: list[str], code: _Code
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
        typed = _field_type(text) or code.input_type(name, field)
        if typed is None:
            searched = f'the literal its callers pass to the method building createBaseInput("{name}")'
            raise _untyped(name, "input", field, searched)
        present = code.input_presence(name, field)
        spec_in[field] = {"required": (not optional) if present is None else present, **typed}
    spec_out: dict[str, Any] = {f: dict(common[f]) for f in _COMMON_OUTPUT if f in common}
    specific: dict[str, Any] = {}
    for field, text in _bullets(outputs).items():
        if field.startswith("hookSpecificOutput."):
            path = field.split(".")[1:]
            node = specific
            for part in path[:-1]:
                node = node.setdefault(part, {"required": False, "type": "object", "fields": {}})["fields"]
            documented = _field_type(text)
            checked = code.output_type(name, path[0]) if len(path) == 1 else None
            if documented and checked and documented != checked:
                raise CatalogError(
                    f"{name} output field {field}: {REFERENCE} says {documented['type']},"
                    f" the bundle's output class checks {checked['type']}"
                )
            typed = documented or checked
            if typed is None:
                cls = code.output_class.get(name, code.default_class) or "no output class"
                raise _untyped(name, "output", field, f'{cls}\'s check of this.hookSpecificOutput["{path[0]}"]')
            node[path[-1]] = {"required": False, **typed}
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
            if typed is None and field not in common:
                raise _untyped(name, "output", field, "the common output fields table")
            spec_out[field] = {"required": False, **typed} if typed else dict(common[field])
    consulted, read_words = code.consulted(name)
    for extra in sorted(consulted - {"decision", "hookSpecificOutput"} - set(spec_out)):
        if extra not in common:
            raise _untyped(name, "output", extra, f"the common output fields table (the code reads {extra})")
        spec_out[extra] = dict(common[extra])
    if read_words - {"block", "deny"} or ("decision" not in spec_out and read_words):
        listed = spec_out.get("decision", {}).get("values", [])
        spec_out["decision"] = {"required": False, "type": "enum", "values": listed + sorted(read_words - set(listed))}
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
    names = [value for _key, value in _MEMBER.findall(enum.group(1) or enum.group(2))]
    if not names:
        raise CatalogError("the bundle's HookEventName enum has no members")
    output = _DEFAULT_OUTPUT.search(code)
    decisions = sorted(set(_DECISION.findall(output.group(1)))) if output else []
    if "deny" not in decisions:
        raise CatalogError("the bundle's DefaultHookOutput reads no 'deny' decision (has the bundle changed?)")
    sections = _sections(reference)
    base = _base_input(reference)
    common = _common_output(reference)
    same_events(names, list(sections), REFERENCE)
    # the enum's order is arbitrary (BeforeTool first); the catalog lists events in the reference's order
    typed = _Code(code, reference)
    return [_event(n, sections[n], base, common, decisions, typed) for n in sections]


def events(
    version: str, found: list[HostFile], node_modules: Path | None, binary: Path | None, root: Path | None
) -> tuple[list[HostFile], list[dict[str, Any]]]:
    reference, code = reference_and_code(
        found, PACKAGE, REFERENCE, node_modules, "its bin entry loads defines HookEventName and DefaultHookOutput"
    )
    return found, extract(reference, code)
