"""A small reader for TypeScript declaration files (``.d.ts``), enough for plugin and SDK typings.

It reads the top-level ``type`` aliases, ``interface`` declarations and ``import`` bindings of a
file into a :class:`TypeTable`, and type expressions into schema trees (the shape
:func:`generator.catalog.model.normalize` reads): object types with optional members, string
literal unions (enums), unions, intersections (merged objects), arrays, ``Record``/index
signatures (records), function types (kept with their parameters) and references to named types,
which :meth:`TypeTable.resolve` follows across the files of a package set.

Generics are not instantiated (a reference to a generic alias resolves to its body), conditional
and mapped types come back as ``unknown``: hook and event typings do not use them where the
catalog looks.
"""

from __future__ import annotations

from generator import PastureError
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["TsSyntaxError", "TypeTable", "parse_file"]


class TsSyntaxError(PastureError, ValueError):
    pass


_TOKEN = re.compile(r"""
    (?P<space>\s+|//[^\n]*|/\*.*?\*/)
  | (?P<str>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
  | (?P<tmpl>`(?:[^`\\]|\\.)*`)
  | (?P<num>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?n?)
  | (?P<ident>[A-Za-z_$][\w$]*)
  | (?P<punct>=>|\.\.\.|\?\.|[{}()\[\]<>;,:?|&=.*+\-!@#~^%/])
""", re.S | re.X)
_KEYWORDS = {"string": "string", "number": "number", "boolean": "boolean", "bigint": "number", "any": "unknown",
             "unknown": "unknown", "object": "unknown", "symbol": "unknown", "never": "never", "void": "void",
             "undefined": "undefined", "null": "null"}


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise TsSyntaxError(f"unexpected character {text[pos]!r} at offset {pos}")
        pos = m.end()
        kind = m.lastgroup or ""
        if kind != "space":
            out.append((kind, m.group(0)))
    out.append(("eof", ""))
    return out


def _unquote(s: str) -> str:
    body = s[1:-1]
    return re.sub(r"\\(.)", r"\1", body)


@dataclass
class Declarations:
    types: dict[str, Any] = field(default_factory=dict)  # name -> tree
    imports: dict[str, tuple[str, str]] = field(default_factory=dict)  # local name -> (module, exported name)
    reexports: list[str] = field(default_factory=list)  # export * from "<module>"


class _Parser:
    def __init__(self, text: str):
        self.toks = _tokens(text)
        self.i = 0

    def peek(self, k: int = 0) -> tuple[str, str]:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def at(self, value: str, k: int = 0) -> bool:
        kind, v = self.peek(k)
        return v == value and kind in ("punct", "ident")

    def take(self) -> tuple[str, str]:
        tok = self.toks[self.i]
        self.i = min(self.i + 1, len(self.toks) - 1)
        return tok

    def expect(self, value: str) -> None:
        kind, v = self.take()
        if v != value:
            raise TsSyntaxError(f"expected {value!r}, got {v!r} (token {self.i})")

    def skip_balanced(self) -> None:
        pairs = {"{": "}", "(": ")", "[": "]", "<": ">"}
        open_ = self.take()[1]
        close = pairs[open_]
        depth = 1
        while depth:
            kind, v = self.take()
            if kind == "eof":
                raise TsSyntaxError(f"unbalanced {open_!r}")
            if v == open_ and kind == "punct":
                depth += 1
            elif v == close and kind == "punct":
                depth -= 1

    def skip_statement(self) -> None:
        while True:
            kind, v = self.peek()
            if kind == "eof":
                return
            if v == ";" and kind == "punct":
                self.take()
                return
            if v in "{([" and kind == "punct":
                self.skip_balanced()
                if v == "{" and not self.at("="):
                    # a block ends the statement unless more follows on it (e.g. `};`)
                    if self.at(";"):
                        self.take()
                    return
                continue
            self.take()

    # --- declarations -----------------------------------------------------------------------

    def file(self) -> Declarations:
        out = Declarations()
        while self.peek()[0] != "eof":
            if self.at("export") or self.at("declare"):
                self.take()
                continue
            if self.at("import"):
                self._import(out)
            elif self.at("*") and self.at("from", 1):  # export * from "x"
                self.take()
                self.take()
                kind, v = self.take()
                if kind == "str":
                    out.reexports.append(_unquote(v))
                self.skip_statement()
            elif self.at("type") and self.peek(1)[0] == "ident":
                self.take()
                name = self.take()[1]
                if self.at("<"):
                    self.skip_balanced()
                self.expect("=")
                out.types[name] = self.type()
                if self.at(";"):
                    self.take()
            elif self.at("interface"):
                self.take()
                name = self.take()[1]
                if self.at("<"):
                    self.skip_balanced()
                bases: list[Any] = []
                if self.at("extends"):
                    self.take()
                    bases.append(self.postfix())
                    while self.at(","):
                        self.take()
                        bases.append(self.postfix())
                body = self.object_type()
                out.types[name] = {"kind": "intersection", "of": [*bases, body]} if bases else body
            else:
                self.skip_statement()
        return out

    def _import(self, out: Declarations) -> None:
        self.take()  # import
        if self.at("type"):
            self.take()
        names: list[tuple[str, str]] = []
        if self.at("{"):
            self.take()
            while not self.at("}"):
                if self.at("type"):
                    self.take()
                exported = self.take()[1]
                local = exported
                if self.at("as"):
                    self.take()
                    local = self.take()[1]
                names.append((local, exported))
                if self.at(","):
                    self.take()
            self.take()
        else:
            self.skip_statement()
            return
        if self.at("from"):
            self.take()
            kind, v = self.take()
            if kind == "str":
                for local, exported in names:
                    out.imports[local] = (_unquote(v), exported)
        if self.at(";"):
            self.take()

    # --- types ----------------------------------------------------------------------------------

    def type(self) -> Any:
        if self.at("|") or self.at("&"):
            self.take()
        first = self.intersection()
        if self.at("extends"):  # conditional type: A extends B ? C : D
            self.take()
            self.intersection()
            self.expect("?")
            self.type()
            self.expect(":")
            self.type()
            return {"kind": "primitive", "type": "unknown"}
        members = [first]
        while self.at("|"):
            self.take()
            members.append(self.intersection())
        return members[0] if len(members) == 1 else {"kind": "union", "of": members}

    def intersection(self) -> Any:
        members = [self.postfix()]
        while self.at("&"):
            self.take()
            members.append(self.postfix())
        return members[0] if len(members) == 1 else {"kind": "intersection", "of": members}

    def postfix(self) -> Any:
        node = self.primary()
        while self.at("["):
            if self.at("]", 1):
                self.take()
                self.take()
                node = {"kind": "array", "of": node}
            else:
                self.take()
                self.type()
                self.expect("]")
                node = {"kind": "primitive", "type": "unknown"}
        return node

    def _is_function_type(self) -> bool:
        """At '(': does a balanced group followed by '=>' start here?"""
        depth = 0
        j = self.i
        while True:
            kind, v = self.toks[j]
            if kind == "eof":
                return False
            if kind == "punct" and v == "(":
                depth += 1
            elif kind == "punct" and v == ")":
                depth -= 1
                if depth == 0:
                    return self.toks[j + 1][1] == "=>"
            j += 1

    def params(self) -> list[tuple[str, Any, bool]]:
        self.expect("(")
        out: list[tuple[str, Any, bool]] = []
        while not self.at(")"):
            if self.at("..."):
                self.take()
            kind, name = self.take()
            if name == "{" or name == "[":  # destructured parameter
                self.i -= 1
                self.skip_balanced()
                name = "_"
            optional = False
            if self.at("?"):
                self.take()
                optional = True
            tree: Any = {"kind": "primitive", "type": "unknown"}
            if self.at(":"):
                self.take()
                tree = self.type()
            out.append((name, tree, optional))
            if self.at(","):
                self.take()
        self.expect(")")
        return out

    def primary(self) -> Any:
        kind, v = self.peek()
        if kind == "str":
            self.take()
            return {"kind": "literal", "value": _unquote(v)}
        if kind == "tmpl":
            self.take()
            return {"kind": "primitive", "type": "string"}
        if kind == "num":
            self.take()
            return {"kind": "literal", "value": float(v) if "." in v else int(v.rstrip("n"))}
        if kind == "punct":
            if v == "(":
                if self._is_function_type():
                    params = self.params()
                    self.expect("=>")
                    return {"kind": "function", "params": params, "returns": self.type()}
                self.take()
                inner = self.type()
                self.expect(")")
                return inner
            if v == "{":
                return self.object_type()
            if v == "[":
                self.take()
                items = []
                while not self.at("]"):
                    if self.at("..."):
                        self.take()
                    if self.peek()[0] == "ident" and (self.at(":", 1) or (self.at("?", 1) and self.at(":", 2))):
                        self.take()
                        if self.at("?"):
                            self.take()
                        self.take()
                    items.append(self.type())
                    if self.at("?"):
                        self.take()
                    if self.at(","):
                        self.take()
                self.take()
                return {"kind": "tuple", "of": items}
            if v == "<":  # generic function type <T>(...) => R
                self.skip_balanced()
                return self.primary()
            if v == "-":
                self.take()
                return self.primary()
        if kind == "ident":
            if v in ("true", "false"):
                self.take()
                return {"kind": "literal", "value": v == "true"}
            if v in ("typeof", "keyof", "unique", "readonly", "infer", "asserts"):
                self.take()
                inner = self.postfix()
                return inner if v == "readonly" else {"kind": "primitive", "type": "unknown"}
            if v == "new" or v == "abstract":
                self.take()
                if self.at("new"):
                    self.take()
                if self.at("<"):
                    self.skip_balanced()
                self.params()
                self.expect("=>")
                self.type()
                return {"kind": "primitive", "type": "unknown"}
            if v in _KEYWORDS:
                self.take()
                return {"kind": "primitive", "type": _KEYWORDS[v]}
            self.take()
            name = v
            while self.at("."):
                self.take()
                name += "." + self.take()[1]
            args: list[Any] = []
            if self.at("<"):
                self.take()
                while not self.at(">"):
                    args.append(self.type())
                    if self.at(","):
                        self.take()
                self.take()
            if name == "Record":
                return {"kind": "record"}
            if name in ("Promise", "Partial", "Readonly", "Required", "NonNullable", "Awaited") and args:
                return args[0] if name != "Promise" else {"kind": "promise", "of": args[0]}
            if name == "Array" and args:
                return {"kind": "array", "of": args[0]}
            return {"kind": "ref", "name": name}
        raise TsSyntaxError(f"unexpected {v!r} in a type (token {self.i})")

    def object_type(self) -> Any:
        self.expect("{")
        fields: dict[str, Any] = {}
        record = False
        while not self.at("}"):
            if self.at("readonly"):
                self.take()
            if self.at("["):  # index signature or mapped type
                self.skip_balanced()
                if self.at("?"):
                    self.take()
                if self.at(":"):
                    self.take()
                    self.type()
                record = True
            elif self.at("(") or self.at("<"):  # call signature
                if self.at("<"):
                    self.skip_balanced()
                self.params()
                if self.at(":"):
                    self.take()
                    self.type()
            else:
                kind, name = self.take()
                if kind == "str":
                    name = _unquote(name)
                optional = False
                if self.at("?"):
                    self.take()
                    optional = True
                if self.at("(") or self.at("<"):  # method signature
                    if self.at("<"):
                        self.skip_balanced()
                    params = self.params()
                    returns: Any = {"kind": "primitive", "type": "unknown"}
                    if self.at(":"):
                        self.take()
                        returns = self.type()
                    tree: Any = {"kind": "function", "params": params, "returns": returns}
                else:
                    self.expect(":")
                    tree = self.type()
                fields[name] = {**tree, "optional": True} if optional else tree
            if self.at(";") or self.at(","):
                self.take()
        self.take()
        if record and not fields:
            return {"kind": "record"}
        return {"kind": "object", "fields": fields}


def parse_file(path: Path) -> Declarations:
    return parse_text(Path(path).read_text(encoding="utf-8"))


def parse_text(text: str) -> Declarations:
    return _Parser(text).file()


class TypeTable:
    """Named types across a set of modules: module id -> Declarations."""

    def __init__(self, modules: dict[str, Declarations]):
        self.modules = modules

    def lookup(self, module: str, name: str, seen: frozenset[tuple[str, str]] = frozenset()) -> Any:
        if (module, name) in seen:
            return None
        seen = seen | {(module, name)}
        decls = self.modules.get(module)
        if decls is None:
            return None
        head, _, rest = name.partition(".")
        if rest:  # a namespace-qualified name: not followed
            return None
        if name in decls.types:
            return decls.types[name]
        if name in decls.imports:
            target_module, exported = decls.imports[name]
            return self.lookup(target_module, exported, seen)
        for target in decls.reexports:
            found = self.lookup(target, name, seen)
            if found is not None:
                return found
        return None

    def resolve(self, module: str, tree: Any, depth: int) -> Any:
        """The tree with references followed ``depth`` levels deep and intersections merged."""
        if not isinstance(tree, dict):
            return tree
        kind = tree.get("kind")
        flags = {k: tree[k] for k in ("optional",) if tree.get(k)}
        if kind == "ref":
            if depth <= 0:
                return {"kind": "primitive", "type": "object", **flags}
            target = self.lookup(module, tree["name"])
            if target is None:
                return {"kind": "primitive", "type": "unknown", **flags}
            resolved = self.resolve(module, target, depth)
            return {**resolved, **flags}
        if kind == "intersection":
            parts = [self.resolve(module, t, depth) for t in tree["of"]]
            if all(p.get("kind") == "object" for p in parts):
                merged: dict[str, Any] = {}
                for p in parts:
                    merged.update(p["fields"])
                return {"kind": "object", "fields": merged, **flags}
            return {"kind": "primitive", "type": "unknown", **flags}
        if kind == "object":
            if depth <= 0:
                return {"kind": "primitive", "type": "object", **flags}
            return {"kind": "object",
                    "fields": {k: self.resolve(module, v, depth - 1) for k, v in tree["fields"].items()}, **flags}
        if kind == "union":
            members = [self.resolve(module, t, depth) for t in tree["of"]]
            members = [m for m in members if not (m.get("kind") == "primitive" and m.get("type") in (
                "undefined", "null", "void"))]
            if len(members) == 1:
                return {**members[0], **flags}
            if members and all(m.get("kind") == "literal" for m in members):
                return {"kind": "enum", "values": [m["value"] for m in members], **flags}
            return {"kind": "union", "of": members, **flags}
        if kind == "array":
            return {"kind": "array", "of": self.resolve(module, tree["of"], depth - 1), **flags}
        return tree
