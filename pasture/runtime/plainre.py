"""Patterns without repeats, answered without the regex engine.

Why this is hand-written: the standard library's regex compiler costs the hook about 1.2 ms to load
(`re/_compiler.py` and `_parser.py`, measured in-process on this project's machine) of an event that
costs about 16 ms in all, and the policy's commonest rules need none of it: prefix lists such as
`^(ls|cat|git status)\\b` (benchmarks/bench_hook.py's "allow rule" row). The policy compiler
(:func:`plan`, run where `re` is loaded anyway) turns a pattern built only of literals, character
sets, `.`, groups, alternations and anchors into a small plan; :func:`search` answers
``re.search(pattern, text) is not None`` for it. Without a repeat, every way of matching is tried by
walking the plan once per start, so the answer is the engine's whatever order it tries them in
(tests/runtime/test_plainre.py holds the two equal on generated patterns and texts). Every other
pattern (a repeat, a lookaround, a back-reference, a flag) has no plan and is compiled as before.

A plan is a tuple of nodes, each a tuple: ``("L", text)``, ``("C", negate, items)`` (one character;
items ``("c", ch)``, ``("r", low, high)``, ``("k", category)``), ``("N", ch)`` (any character but
``ch``), ``("A",)`` (any but a newline), ``("B", (plan, ...))`` (an alternation) and the anchors
``("^",)``, ``("$",)``, ``("Z",)``, ``("b",)``, ``("nb",)``. Marshal keeps it in the policy cache.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Iterator

#: the global flags a plan stands for: UNICODE (every str pattern's) and VERBOSE (parsing only)
_PLAIN_FLAGS = 32 | 64
_AT = {
    "AT_BEGINNING": "^",
    "AT_BEGINNING_STRING": "^",
    "AT_END": "$",
    "AT_END_STRING": "Z",
    "AT_BOUNDARY": "b",
    "AT_NON_BOUNDARY": "nb",
}
_CATEGORIES = frozenset(
    {
        "CATEGORY_DIGIT",
        "CATEGORY_NOT_DIGIT",
        "CATEGORY_SPACE",
        "CATEGORY_NOT_SPACE",
        "CATEGORY_WORD",
        "CATEGORY_NOT_WORD",
    }
)


class _NoPlan(Exception):
    pass


# --- the compiler's side (policy.freeze) ------------------------------------------------------------


def plan(parsed: "Any") -> "tuple | None":
    """The plan of a parsed pattern (`re._parser.parse`), or None where it needs the engine."""
    if parsed.state.flags & ~_PLAIN_FLAGS:
        return None
    try:
        return _sequence(parsed.data)
    except _NoPlan:
        return None


def _sequence(items: "Any") -> tuple:
    out: list[tuple] = []
    for op, av in items:
        name = str(op)
        if name == "LITERAL":
            if out and out[-1][0] == "L":
                out[-1] = ("L", out[-1][1] + chr(av))
            else:
                out.append(("L", chr(av)))
        elif name == "NOT_LITERAL":
            out.append(("N", chr(av)))
        elif name == "ANY":
            out.append(("A",))
        elif name == "IN":
            out.append(_charset(av))
        elif name == "AT" and str(av) in _AT:
            out.append((_AT[str(av)],))
        elif name == "SUBPATTERN" and not av[1] and not av[2]:  # a group: its items, in place
            out.extend(_sequence(av[3]))
        elif name == "BRANCH":
            out.append(("B", tuple(_sequence(branch) for branch in av[1])))
        else:  # a repeat, a lookaround, a back-reference, inline flags...
            raise _NoPlan(name)
    return tuple(out)


def _charset(items: "Any") -> tuple:
    negate = False
    members: list[tuple] = []
    for op, av in items:
        name = str(op)
        if name == "NEGATE":
            negate = True
        elif name == "LITERAL":
            members.append(("c", chr(av)))
        elif name == "RANGE":
            members.append(("r", chr(av[0]), chr(av[1])))
        elif name == "CATEGORY" and str(av) in _CATEGORIES:
            members.append(("k", str(av)))
        else:
            raise _NoPlan(name)
    return ("C", negate, tuple(members))


# --- the hook's side (pasture.runtime.effective.search) ------------------------------------------


def _word(ch: str) -> bool:
    # the engine's word character for a str pattern: alphanumeric (str.isalnum's four classes) or "_"
    return ch.isalnum() or ch == "_"


def _category(name: str, ch: str) -> bool:
    if name == "CATEGORY_DIGIT":
        return ch.isdecimal()
    if name == "CATEGORY_NOT_DIGIT":
        return not ch.isdecimal()
    if name == "CATEGORY_SPACE":
        return ch.isspace()
    if name == "CATEGORY_NOT_SPACE":
        return not ch.isspace()
    if name == "CATEGORY_WORD":
        return _word(ch)
    return not _word(ch)


def _one(node: tuple, ch: str) -> bool:
    kind = node[0]
    if kind == "A":
        return ch != "\n"
    if kind == "N":
        return ch != node[1]
    hit = False
    for member in node[2]:
        tag = member[0]
        if (
            (tag == "c" and ch == member[1])
            or (tag == "r" and member[1] <= ch <= member[2])
            or (tag == "k" and _category(member[1], ch))
        ):
            hit = True
            break
    return hit != node[1]


def _at(kind: str, text: str, pos: int) -> bool:
    end = len(text)
    if kind == "^":
        return pos == 0
    if kind == "Z":
        return pos == end
    if kind == "$":
        return pos == end or (pos == end - 1 and text[pos] == "\n")
    if not text:  # the engine: no word boundary, and no non-boundary either, in an empty string
        return False
    before = pos > 0 and _word(text[pos - 1])
    after = pos < end and _word(text[pos])
    return (before != after) if kind == "b" else (before == after)


def _ends(seq: tuple, k: int, text: str, pos: int) -> "Iterator[int]":
    """Every position at which ``seq[k:]`` can finish, matched from ``pos``."""
    while k < len(seq):
        node = seq[k]
        kind = node[0]
        if kind == "L":
            if not text.startswith(node[1], pos):
                return
            pos += len(node[1])
        elif kind in ("C", "N", "A"):
            if pos >= len(text) or not _one(node, text[pos]):
                return
            pos += 1
        elif kind == "B":
            for branch in node[1]:
                for after in _ends(branch, 0, text, pos):
                    yield from _ends(seq, k + 1, text, after)
            return
        elif not _at(kind, text, pos):
            return
        k += 1
    yield pos


def _found(literal: str, text: str) -> "Iterator[int]":
    at = text.find(literal)
    while at >= 0:
        yield at
        at = text.find(literal, at + 1)


#: the longest subject a plan is tried at every position of (about 0.4 us a character here): past it a
#: pattern that starts with neither an anchor nor a literal is left to the engine, which is faster there
SCAN_MAX = 1024
_ZERO_WIDTH = ("b", "nb", "$", "Z")


def search(steps: tuple, text: str) -> "bool | None":
    """``re.search(pattern, text) is not None`` for the pattern ``steps`` is the plan of; None where the
    engine is the faster way to tell (a long subject the plan would be tried at every position of)."""
    lead = 0
    while lead < len(steps) and steps[lead][0] in _ZERO_WIDTH:
        lead += 1
    if not steps or steps[0][0] == "^":
        starts: "Iterator[int] | range" = range(1)
    elif lead < len(steps) and steps[lead][0] == "L":  # only where its first literal is
        starts = _found(steps[lead][1], text)
    elif len(text) > SCAN_MAX:
        return None
    else:
        starts = range(len(text) + 1)
    for start in starts:
        for _end in _ends(steps, 0, text, start):
            return True
    return False
