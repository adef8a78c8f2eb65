"""Read minified zod schema definitions (as bundled into a CLI) into plain schema trees.

A bundler renames every identifier, so nothing here knows what ``u``, ``r`` or ``P`` mean. The
schema constructors are recognised by the *shape* of their use instead:

* ``X({k: ...})`` an object; ``X("lit")`` / ``X(!0)`` a literal; ``X(["a", "b"])`` an enum (also
  through an identifier bound to a string array); ``X([s1, s2])`` a union of schemas;
  ``X(s1, s2)`` a record; ``X(s)`` an array of ``s``; ``X(() => s)`` lazy ``s``.
* ``NAME = LAZY(() => s)`` is a definition; a zero-argument call of a defined name is a reference
  to it, of any other name a primitive (its type is calibrated afterwards from fields whose type
  every hook payload fixes, see :func:`calibrate`).
* ``function NAME(p) { return s }`` is inlined with its parameters bound.
* methods: ``.optional()`` / ``.nullish()`` / ``.default()`` / ``.catch()`` make a field optional;
  ``.nullable()``; ``.and(o)`` / ``.merge(o)`` / ``.extend({...})`` merge objects; ``.or(s)`` a
  union; ``.array()``; everything else (``describe``, ``int``, ``max``, ``refine``...) keeps the
  schema as it is. Descriptions are not kept: the catalog records structure, not upstream prose.

Trees are dicts: ``{"kind": "object", "fields": {name: tree}}``, ``{"kind": "enum", "values": [...]}``,
``{"kind": "literal", "value": v}``, ``{"kind": "union", "of": [...]}``, ``{"kind": "array", "of": t}``,
``{"kind": "record"}``, ``{"kind": "primitive", "ctor": name}``, ``{"kind": "unknown", "why": ...}``;
any tree may carry ``"optional": True`` and ``"nullable": True``.
"""

from __future__ import annotations

import re
from typing import Any

from pasture.catalog.jsexpr import JsSyntaxError, Node, parse_expression

_PASSTHROUGH_METHODS = {
    "describe",
    "int",
    "min",
    "max",
    "length",
    "regex",
    "refine",
    "superRefine",
    "transform",
    "brand",
    "readonly",
    "pipe",
    "passthrough",
    "strict",
    "strip",
    "nonempty",
    "positive",
    "nonnegative",
    "negative",
    "url",
    "uuid",
    "email",
    "datetime",
    "trim",
    "toLowerCase",
    "toUpperCase",
    "startsWith",
    "endsWith",
    "gte",
    "lte",
    "gt",
    "lt",
    "finite",
    "safe",
    "multipleOf",
    "meta",
    "check",
    "overwrite",
    "loose",
    "catchall",
}
_OPTIONAL_METHODS = {"optional", "default", "catch", "prefault"}
_MERGE_METHODS = {"and", "merge", "extend", "safeExtend"}


def unknown(why: str) -> dict[str, Any]:
    return {"kind": "unknown", "why": why}


class ZodSource:
    """One window of bundled JavaScript and the schema definitions in it."""

    def __init__(self, text: str, lazy: str):
        self.text = text
        self.lazy = lazy
        self._defs: dict[str, list[int]] = {}
        pattern = re.compile(r"(?<![\w$.])([A-Za-z_$][\w$]*)=" + re.escape(lazy) + r"\(\(\)=>")
        for m in pattern.finditer(text):
            self._defs.setdefault(m.group(1), []).append(m.start(1) + len(m.group(1)) + 1)
        self._memo: dict[tuple[int, str], dict[str, Any]] = {}
        self._active: set[tuple[int, str]] = set()

    # --- definitions ----------------------------------------------------------------------------

    @staticmethod
    def _nearest(positions: list[int], near: int) -> int:
        return min(positions, key=lambda p: (abs(p - near), p))

    def lazy_definition(self, name: str, near: int) -> int | None:
        positions = self._defs.get(name)
        return self._nearest(positions, near) if positions else None

    def array_definition(self, name: str, near: int) -> list[str] | None:
        positions = [m.end() - 1 for m in re.finditer(r"(?<![\w$.])" + re.escape(name) + r"=\[", self.text)]
        if not positions:
            return None
        pos = self._nearest(positions, near)
        try:
            node, _ = parse_expression(self.text, pos)
        except JsSyntaxError:
            return None
        if node.kind == "array" and all(c.kind == "str" for c in node.children):
            return [c.value for c in node.children]
        return None

    def function_definition(self, name: str, near: int) -> tuple[list[str], Node] | None:
        """``function NAME(a,b){return EXPR}``: the parameter names and EXPR, if it has that form."""
        found = [m for m in re.finditer(r"function " + re.escape(name) + r"\(([\w$,]*)\)\{return ", self.text)]
        if not found:
            return None
        m = min(found, key=lambda x: (abs(x.start() - near), x.start()))
        try:
            node, end = parse_expression(self.text, m.end())
        except JsSyntaxError:
            return None
        if self.text[end : end + 1] not in ("}", ";"):
            return None
        params = [p for p in m.group(1).split(",") if p]
        return params, node

    # --- evaluation -----------------------------------------------------------------------------

    def definition(self, name: str, near: int) -> dict[str, Any] | None:
        pos = self.lazy_definition(name, near)
        if pos is None:
            return None
        return self.evaluate_at(pos)

    def evaluate_at(self, pos: int) -> dict[str, Any]:
        key = (pos, "")
        if key in self._memo:
            return self._memo[key]
        if key in self._active:
            return unknown("recursive definition")
        self._active.add(key)
        try:
            try:
                node, _ = parse_expression(self.text, pos)
            except JsSyntaxError as exc:
                result = unknown(f"unreadable definition: {exc}")
            else:
                result = self.evaluate(node, {})
        finally:
            self._active.discard(key)
        self._memo[key] = result
        return result

    def evaluate(self, node: Node, env: dict[str, Any]) -> dict[str, Any]:
        kind = node.kind
        if kind == "ident":
            if node.value in env:
                bound = env[node.value]
                return bound if isinstance(bound, dict) else unknown(f"parameter {node.value}")
            found = self.definition(node.value, node.pos)
            return found if found is not None else unknown(f"unresolved name {node.value}")
        if kind == "call":
            return self._call(node, env)
        if kind == "member" and node.value == "shape" and node.children:
            base = self.evaluate(node.children[0], env)
            return base if base.get("kind") == "object" else unknown("shape of a non-object")
        if kind == "arrow":
            return self.evaluate(node.children[0], env)
        return unknown(f"{kind} expression")

    def _strings(self, node: Node, env: dict[str, Any]) -> list[str] | None:
        if node.kind == "array" and node.children and all(c.kind == "str" for c in node.children):
            return [c.value for c in node.children]
        if node.kind == "ident":
            bound = env.get(node.value)
            if isinstance(bound, list):
                return bound
            if node.value not in env:
                return self.array_definition(node.value, node.pos)
        return None

    def _arg_value(self, node: Node, env: dict[str, Any]) -> Any:
        """A function argument as the inlined body will see it: a string list or a schema."""
        strings = self._strings(node, env)
        return strings if strings is not None else self.evaluate(node, env)

    def _call(self, node: Node, env: dict[str, Any]) -> dict[str, Any]:
        callee, args = node.children[0], node.children[1:]
        if callee.kind == "member" and callee.value is not None:
            return self._method(callee.value, self.evaluate(callee.children[0], env), args, env)
        if callee.kind != "ident":
            return unknown("call of an expression")
        name = callee.value
        if name in env:
            return unknown(f"call of parameter {name}")
        if len(args) == 1 and args[0].kind == "arrow":  # lazy(() => s)
            return self.evaluate(args[0].children[0], env)
        if not args:
            found = self.definition(name, node.pos)
            if found is not None:
                return found
            return {"kind": "primitive", "ctor": name}
        first = args[0]
        if len(args) == 1:
            if first.kind in ("str", "num", "template"):
                return {"kind": "literal", "value": first.value}
            if first.kind == "unary" and first.value == "!" and first.children[0].kind == "num":
                return {"kind": "literal", "value": first.children[0].value == "0"}
            if first.kind == "object":
                return {"kind": "object", "fields": self._fields(first, env)}
        inlined = self._inline(name, node, args, env)
        if inlined is not None:
            return inlined
        if len(args) == 1:
            strings = self._strings(first, env)
            if strings is not None:
                return {"kind": "enum", "values": strings}
            if first.kind == "array":
                return {"kind": "union", "of": [self.evaluate(c, env) for c in first.children]}
            return {"kind": "array", "of": self.evaluate(first, env)}
        if len(args) >= 2:
            if first.kind == "object":
                return {"kind": "object", "fields": self._fields(first, env)}
            return {"kind": "record"}
        return unknown(f"call of {name}")

    def _inline(self, name: str, node: Node, args: list[Node], env: dict[str, Any]) -> dict[str, Any] | None:
        found = self.function_definition(name, node.pos)
        if found is None:
            return None
        params, body = found
        key = (body.pos, name)
        if key in self._active:
            return unknown("recursive function")
        bound = {p: self._arg_value(a, env) for p, a in zip(params, args, strict=False)}  # JS: extras ignored
        self._active.add(key)
        try:
            result = self.evaluate(body, bound)
        finally:
            self._active.discard(key)
        # Only a function that builds an object schema is a schema helper; anything else (a zod
        # constructor bundled into the same chunk) is classified by the shape of its call instead.
        return result if result.get("kind") == "object" else None

    def _fields(self, obj: Node, env: dict[str, Any]) -> dict[str, Any]:
        fields: dict[str, Any] = {}
        for member in obj.children:
            if member.kind == "spread":
                spread = self.evaluate(member.children[0], env)
                if spread.get("kind") == "object":
                    fields.update(spread["fields"])
                continue
            if member.kind == "prop" and isinstance(member.value, str):
                fields[member.value] = self.evaluate(member.children[0], env)
        return fields

    def _method(self, method: str, base: dict[str, Any], args: list[Node], env: dict[str, Any]) -> dict[str, Any]:
        if method in _OPTIONAL_METHODS:
            return {**base, "optional": True}
        if method == "nullable":
            return {**base, "nullable": True}
        if method == "nullish":
            return {**base, "optional": True, "nullable": True}
        if method in _MERGE_METHODS and args:
            other: dict[str, Any] = (
                self.evaluate(args[0], env)
                if args[0].kind != "object"
                else {"kind": "object", "fields": self._fields(args[0], env)}
            )
            if base.get("kind") == "object" and other.get("kind") == "object":
                merged = {**base, "fields": {**base["fields"], **other["fields"]}}
                return merged
            return unknown(f"{method} of non-objects")
        if method == "or" and args:
            return {"kind": "union", "of": [base, self.evaluate(args[0], env)]}
        if method == "array":
            return {"kind": "array", "of": base}
        if method in _PASSTHROUGH_METHODS:
            return base
        return base  # an unknown refinement keeps the structure


def calibrate(tree: Any, types: dict[str, str]) -> Any:
    """Replace primitive constructor names by the type they were calibrated to ("value" if none)."""
    if isinstance(tree, dict):
        if tree.get("kind") == "primitive":
            out = {k: v for k, v in tree.items() if k != "ctor"}
            out["type"] = types.get(tree.get("ctor", ""), "value")
            return out
        return {k: calibrate(v, types) for k, v in tree.items()}
    if isinstance(tree, list):
        return [calibrate(v, types) for v in tree]
    return tree
