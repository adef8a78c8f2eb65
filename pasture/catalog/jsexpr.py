"""A small parser for JavaScript *expressions*, enough to read minified schema definitions.

It reads one expression from a position in a text (a window of a bundled CLI) and returns a tree
of plain tuples-as-classes (:class:`Node`). It understands what minified schema code is made of:
identifiers, string / template / number / regex literals, array and object literals (with
spreads), calls, member access (``.``, ``?.``, ``[...]``), arrow functions, ``function``
expressions, unary, binary and conditional operators. Statement bodies (``{...}`` of a function)
are skipped as balanced text and come back as :data:`OPAQUE` nodes: the catalog never needs them.

Nothing is executed. Anything it cannot read raises :class:`JsSyntaxError`, which the extractors
turn into "this definition was not understood".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pasture import PastureError

__all__ = ["JsSyntaxError", "Node", "parse_expression", "skip_balanced"]


class JsSyntaxError(PastureError, ValueError):
    pass


@dataclass
class Node:
    kind: str  # ident | str | num | regex | template | array | object | call | member | arrow | func |
    #            unary | binary | cond | opaque | spread
    value: Any = None  # ident name, literal value, operator
    children: list[Any] = field(default_factory=list)  # operands / elements / args
    pos: int = 0  # where it starts in the text

    def __repr__(self) -> str:  # compact, for debugging
        return f"{self.kind}({self.value!r}, {self.children!r})"


OPAQUE = "opaque"

_IDENT = re.compile(r"[A-Za-z_$\u0080-\uffff][\w$\u0080-\uffff]*")
_NUMBER = re.compile(
    r"0[xX][0-9a-fA-F_]+n?|0[bB][01_]+n?|0[oO][0-7_]+n?|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?n?"
)
_PUNCT = sorted(
    [
        ">>>=",
        "...",
        "===",
        "!==",
        "**=",
        "<<=",
        ">>=",
        ">>>",
        "&&=",
        "||=",
        "??=",
        "=>",
        "==",
        "!=",
        "<=",
        ">=",
        "&&",
        "||",
        "??",
        "?.",
        "++",
        "--",
        "+=",
        "-=",
        "*=",
        "/=",
        "%=",
        "&=",
        "|=",
        "^=",
        "**",
        "<<",
        ">>",
        "{",
        "}",
        "(",
        ")",
        "[",
        "]",
        ";",
        ",",
        "<",
        ">",
        "+",
        "-",
        "*",
        "/",
        "%",
        "&",
        "|",
        "^",
        "!",
        "~",
        "?",
        ":",
        "=",
        ".",
        "@",
        "#",
    ],
    key=len,
    reverse=True,
)
_KEYWORD_OPS = {"typeof", "void", "delete", "await", "new"}
_BINARY_WORDS = {"instanceof", "in"}
# After these tokens a '/' starts a regex literal, not a division.
_REGEX_AFTER = set("(,=:[!&|?{};~+-*%<>^") | {
    "=>",
    "return",
    "typeof",
    "void",
    "case",
    "in",
    "of",
    "delete",
    "&&",
    "||",
    "??",
    "==",
    "===",
    "!=",
    "!==",
    "<=",
    ">=",
    "...",
}
_BINARY_PREC = {
    "??": 1,
    "||": 2,
    "&&": 3,
    "|": 4,
    "^": 5,
    "&": 6,
    "==": 7,
    "!=": 7,
    "===": 7,
    "!==": 7,
    "<": 8,
    ">": 8,
    "<=": 8,
    ">=": 8,
    "instanceof": 8,
    "in": 8,
    "<<": 9,
    ">>": 9,
    ">>>": 9,
    "+": 10,
    "-": 10,
    "*": 11,
    "/": 11,
    "%": 11,
    "**": 12,
}
_ASSIGN = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "**=", "<<=", ">>=", ">>>=", "&&=", "||=", "??="}


@dataclass
class _Tok:
    kind: str  # ident | str | num | regex | template | punct | eof
    value: Any
    start: int
    end: int


class _Lexer:
    def __init__(self, text: str, pos: int, limit: int | None = None):
        self.text = text
        self.pos = pos
        self.limit = len(text) if limit is None else min(limit, len(text))
        self.prev: _Tok | None = None

    def _skip_space(self) -> None:
        text, i = self.text, self.pos
        while i < self.limit:
            c = text[i]
            if c in " \t\r\n\u2028\u2029\ufeff":
                i += 1
            elif text.startswith("//", i):
                j = text.find("\n", i)
                i = self.limit if j < 0 else j + 1
            elif text.startswith("/*", i):
                j = text.find("*/", i + 2)
                if j < 0:
                    raise JsSyntaxError(f"unterminated comment at {i}")
                i = j + 2
            else:
                break
        self.pos = i

    def _regex_allowed(self) -> bool:
        p = self.prev
        if p is None:
            return True
        if p.kind == "punct":
            return p.value in _REGEX_AFTER
        if p.kind == "ident":
            return p.value in _REGEX_AFTER
        return False

    def next(self) -> _Tok:
        self._skip_space()
        text, i = self.text, self.pos
        if i >= self.limit:
            tok = _Tok("eof", None, i, i)
        else:
            c = text[i]
            if c in "\"'":
                end, value = _read_string(text, i, self.limit)
                tok = _Tok("str", value, i, end)
            elif c == "`":
                end = _skip_template(text, i, self.limit)
                tok = _Tok("template", text[i + 1 : end - 1], i, end)
            elif c == "/" and self._regex_allowed() and not text.startswith("//", i) and not text.startswith("/*", i):
                end = _skip_regex(text, i, self.limit)
                tok = _Tok("regex", text[i:end], i, end)
            elif (m := _IDENT.match(text, i)) is not None:
                tok = _Tok("ident", m.group(0), i, m.end())
            elif c.isdigit() or (c == "." and i + 1 < self.limit and text[i + 1].isdigit()):
                m = _NUMBER.match(text, i)
                assert m is not None
                tok = _Tok("num", m.group(0), i, m.end())
            else:
                for p in _PUNCT:
                    if text.startswith(p, i):
                        tok = _Tok("punct", p, i, i + len(p))
                        break
                else:
                    raise JsSyntaxError(f"unexpected character {c!r} at {i}")
        self.pos = tok.end
        self.prev = tok
        return tok


def _read_string(text: str, i: int, limit: int) -> tuple[int, str]:
    quote = text[i]
    j = i + 1
    out: list[str] = []
    while j < limit:
        c = text[j]
        if c == quote:
            return j + 1, "".join(out)
        if c == "\\":
            nxt = text[j + 1] if j + 1 < limit else ""
            simple = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}
            if nxt in simple:
                out.append(simple[nxt])
                j += 2
            elif nxt == "u" and text.startswith("{", j + 2):
                k = text.index("}", j + 3)
                out.append(chr(int(text[j + 3 : k], 16)))
                j = k + 1
            elif nxt == "u":
                out.append(chr(int(text[j + 2 : j + 6], 16)))
                j += 6
            elif nxt == "x":
                out.append(chr(int(text[j + 2 : j + 4], 16)))
                j += 4
            elif nxt == "\n":
                j += 2
            else:
                out.append(nxt)
                j += 2
            continue
        if c == "\n":
            raise JsSyntaxError(f"newline in string literal at {j}")
        out.append(c)
        j += 1
    raise JsSyntaxError(f"unterminated string at {i}")


def _skip_template(text: str, i: int, limit: int) -> int:
    """End (exclusive) of the template literal starting at text[i] == '`'."""
    j = i + 1
    while j < limit:
        c = text[j]
        if c == "\\":
            j += 2
        elif c == "`":
            return j + 1
        elif c == "$" and text.startswith("${", j):
            j = skip_balanced(text, j + 1, limit)
        else:
            j += 1
    raise JsSyntaxError(f"unterminated template at {i}")


def _skip_regex(text: str, i: int, limit: int) -> int:
    j = i + 1
    in_class = False
    while j < limit:
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == "\n":
            raise JsSyntaxError(f"newline in regex at {j}")
        if in_class:
            if c == "]":
                in_class = False
        elif c == "[":
            in_class = True
        elif c == "/":
            j += 1
            while j < limit and (text[j].isalnum() or text[j] == "$" or text[j] == "_"):
                j += 1
            return j
        j += 1
    raise JsSyntaxError(f"unterminated regex at {i}")


def skip_balanced(text: str, i: int, limit: int | None = None) -> int:
    """text[i] is an opening bracket; return the index just past its matching close.

    Strings, templates, comments and regex literals inside are skipped as units.
    """
    limit = len(text) if limit is None else limit
    pairs = {"{": "}", "(": ")", "[": "]"}
    if text[i] not in pairs:
        raise JsSyntaxError(f"no bracket at {i}")
    lex = _Lexer(text, i, limit)
    stack: list[str] = []
    while True:
        tok = lex.next()
        if tok.kind == "eof":
            raise JsSyntaxError(f"unbalanced {text[i]!r} from {i}")
        if tok.kind == "punct":
            if tok.value in pairs:
                stack.append(pairs[tok.value])
            elif tok.value in ("}", ")", "]"):
                if not stack or stack.pop() != tok.value:
                    raise JsSyntaxError(f"mismatched {tok.value!r} at {tok.start}")
                if not stack:
                    return tok.end


class _Parser:
    def __init__(self, text: str, pos: int, limit: int | None):
        self.lex = _Lexer(text, pos, limit)
        self.text = text
        self.tok = self.lex.next()

    def advance(self) -> _Tok:
        tok = self.tok
        self.tok = self.lex.next()
        return tok

    def at(self, value: str) -> bool:
        return self.tok.kind == "punct" and self.tok.value == value

    def at_word(self, word: str) -> bool:
        return self.tok.kind == "ident" and self.tok.value == word

    def expect(self, value: str) -> _Tok:
        if not self.at(value):
            raise JsSyntaxError(f"expected {value!r} at {self.tok.start}, got {self.tok.value!r}")
        return self.advance()

    # expression := assignment (',' is left to the caller)
    def expression(self) -> Node:
        left = self.conditional()
        if self.tok.kind == "punct" and self.tok.value in _ASSIGN:
            op = self.advance().value
            right = self.expression()
            return Node("binary", op, [left, right], left.pos)
        return left

    def conditional(self) -> Node:
        test = self.binary(0)
        if self.at("?"):
            self.advance()
            yes = self.expression()
            self.expect(":")
            no = self.expression()
            return Node("cond", None, [test, yes, no], test.pos)
        return test

    def _binary_op(self) -> str | None:
        t = self.tok
        if t.kind == "punct" and t.value in _BINARY_PREC:
            return t.value
        if t.kind == "ident" and t.value in _BINARY_WORDS:
            return t.value
        return None

    def binary(self, min_prec: int) -> Node:
        left = self.unary()
        while (op := self._binary_op()) is not None and _BINARY_PREC[op] > min_prec:
            self.advance()
            right = self.binary(_BINARY_PREC[op] - (1 if op == "**" else 0))
            left = Node("binary", op, [left, right], left.pos)
        return left

    def unary(self) -> Node:
        t = self.tok
        if t.kind == "punct" and t.value in ("!", "-", "+", "~", "++", "--"):
            self.advance()
            return Node("unary", t.value, [self.unary()], t.start)
        if t.kind == "ident" and t.value in _KEYWORD_OPS:
            self.advance()
            if t.value == "new":
                callee = self.postfix(self.primary(), allow_call=False)
                args = self.arguments() if self.at("(") else []
                return self.postfix(Node("call", "new", [callee, *args], t.start))
            return Node("unary", t.value, [self.unary()], t.start)
        return self.postfix(self.primary())

    def arguments(self) -> list[Node]:
        self.expect("(")
        args: list[Node] = []
        while not self.at(")"):
            if self.at("..."):
                start = self.advance().start
                args.append(Node("spread", None, [self.expression()], start))
            else:
                args.append(self.expression())
            if not self.at(")"):
                self.expect(",")
        self.expect(")")
        return args

    def postfix(self, node: Node, allow_call: bool = True) -> Node:
        while True:
            if self.at(".") or self.at("?."):
                self.advance()
                if self.at("("):  # a?.(x)
                    node = Node("call", None, [node, *self.arguments()], node.pos)
                    continue
                if self.at("["):
                    self.advance()
                    key = self.expression()
                    self.expect("]")
                    node = Node("member", None, [node, key], node.pos)
                    continue
                if self.at("#"):
                    self.advance()
                name = self.advance()
                if name.kind != "ident":
                    raise JsSyntaxError(f"expected a property name at {name.start}")
                node = Node("member", name.value, [node], node.pos)
            elif self.at("["):
                self.advance()
                key = self.expression()
                self.expect("]")
                node = Node("member", None, [node, key], node.pos)
            elif self.at("(") and allow_call:
                node = Node("call", None, [node, *self.arguments()], node.pos)
            elif self.tok.kind == "template":
                tok = self.advance()
                node = Node("call", "tagged", [node, Node("template", tok.value, [], tok.start)], node.pos)
            elif self.at("++") or self.at("--"):
                self.advance()
            else:
                return node

    def _arrow_body(self, start: int, params: list[Node]) -> Node:
        if self.at("{"):
            body_start = self.tok.start
            end = skip_balanced(self.text, body_start, self.lex.limit)
            self._resync(end)
            return Node("arrow", None, [Node(OPAQUE, self.text[body_start:end], [], body_start), *params], start)
        body = self.expression()
        return Node("arrow", None, [body, *params], start)

    def _resync(self, pos: int) -> None:
        self.lex.pos = pos
        self.lex.prev = _Tok("punct", "}", pos - 1, pos)
        self.tok = self.lex.next()

    def _function(self, start: int) -> Node:
        # function [name](params) { body }   (async / generator markers already consumed)
        if self.at("*"):
            self.advance()
        name = self.advance().value if self.tok.kind == "ident" and not self.at("(") else None
        params_start = self.tok.start
        if not self.at("("):
            raise JsSyntaxError(f"expected '(' after function at {self.tok.start}")
        params_end = skip_balanced(self.text, params_start, self.lex.limit)
        self._resync(params_end)
        if not self.at("{"):
            raise JsSyntaxError(f"expected a function body at {self.tok.start}")
        body_start = self.tok.start
        end = skip_balanced(self.text, body_start, self.lex.limit)
        self._resync(end)
        return Node(
            "func",
            name,
            [
                Node(OPAQUE, self.text[params_start + 1 : params_end - 1], [], params_start),
                Node(OPAQUE, self.text[body_start:end], [], body_start),
            ],
            start,
        )

    def primary(self) -> Node:
        t = self.tok
        if t.kind == "str":
            self.advance()
            return Node("str", t.value, [], t.start)
        if t.kind == "num":
            self.advance()
            return Node("num", t.value, [], t.start)
        if t.kind == "regex":
            self.advance()
            return Node("regex", t.value, [], t.start)
        if t.kind == "template":
            self.advance()
            return Node("template", t.value, [], t.start)
        if t.kind == "ident":
            if t.value == "function":
                self.advance()
                return self._function(t.start)
            if t.value == "async" and self.lex.text[self.tok.end : self.tok.end + 1] in (" ", "("):
                self.advance()
                if self.at_word("function"):
                    self.advance()
                    return self._function(t.start)
                if self.tok.kind == "ident":  # async x => ...
                    param = Node("ident", self.advance().value, [], t.start)
                    self.expect("=>")
                    return self._arrow_body(t.start, [param])
                if self.at("("):
                    return self._paren(t.start)
                return Node("ident", "async", [], t.start)
            if t.value == "class":
                raise JsSyntaxError(f"class expression at {t.start}")
            self.advance()
            if self.at("=>"):
                self.advance()
                return self._arrow_body(t.start, [Node("ident", t.value, [], t.start)])
            return Node("ident", t.value, [], t.start)
        if t.kind == "punct":
            if t.value == "(":
                return self._paren(t.start)
            if t.value == "[":
                return self._array()
            if t.value == "{":
                return self._object()
        raise JsSyntaxError(f"unexpected {t.value!r} at {t.start}")

    def _paren(self, start: int) -> Node:
        # Either an arrow function's parameter list or a parenthesised expression.
        open_pos = self.tok.start
        close = skip_balanced(self.text, open_pos, self.lex.limit)
        after = _Lexer(self.text, close, self.lex.limit)
        nxt = after.next()
        if nxt.kind == "punct" and nxt.value == "=>":
            params = self.text[open_pos + 1 : close - 1]
            self._resync(close)
            self.expect("=>")
            return self._arrow_body(start, [Node(OPAQUE, params, [], open_pos)])
        self.expect("(")
        inner = self.expression()
        while self.at(","):
            self.advance()
            inner = Node("binary", ",", [inner, self.expression()], inner.pos)
        self.expect(")")
        return inner

    def _array(self) -> Node:
        start = self.expect("[").start
        items: list[Node] = []
        while not self.at("]"):
            if self.at(","):
                self.advance()
                items.append(Node("ident", "undefined", [], self.tok.start))
                continue
            if self.at("..."):
                s = self.advance().start
                items.append(Node("spread", None, [self.expression()], s))
            else:
                items.append(self.expression())
            if not self.at("]"):
                self.expect(",")
        self.expect("]")
        return Node("array", None, items, start)

    def _object(self) -> Node:
        start = self.expect("{").start
        members: list[Node] = []
        while not self.at("}"):
            if self.at("..."):
                s = self.advance().start
                members.append(Node("spread", None, [self.expression()], s))
            else:
                key_tok = self.tok
                if key_tok.kind in ("ident", "str", "num"):
                    self.advance()
                    key: Any = key_tok.value
                elif self.at("["):
                    self.advance()
                    key = self.expression()
                    self.expect("]")
                else:
                    raise JsSyntaxError(f"unexpected {key_tok.value!r} in an object literal at {key_tok.start}")
                if (
                    key_tok.kind == "ident"
                    and key_tok.value in ("get", "set", "async")
                    and self.tok.kind in ("ident", "str")
                    and not self.at(":")
                ):
                    key = self.advance().value
                if self.at(":"):
                    self.advance()
                    members.append(Node("prop", key, [self.expression()], key_tok.start))
                elif self.at("("):  # method shorthand: name(args) { body }
                    params_end = skip_balanced(self.text, self.tok.start, self.lex.limit)
                    self._resync(params_end)
                    body_end = skip_balanced(self.text, self.tok.start, self.lex.limit)
                    self._resync(body_end)
                    members.append(Node("prop", key, [Node(OPAQUE, None, [], key_tok.start)], key_tok.start))
                else:  # shorthand {a, b}
                    members.append(Node("prop", key, [Node("ident", key, [], key_tok.start)], key_tok.start))
            if not self.at("}"):
                self.expect(",")
        self.expect("}")
        return Node("object", None, members, start)


def parse_expression(text: str, pos: int, limit: int | None = None) -> tuple[Node, int]:
    """Parse one expression of ``text`` starting at ``pos``; return it and where it ends."""
    parser = _Parser(text, pos, limit)
    node = parser.expression()
    return node, parser.tok.start
