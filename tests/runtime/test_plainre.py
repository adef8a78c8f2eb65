"""pasture.runtime.plainre answers exactly what `re.search` answers, for every pattern it plans.

Patterns are generated from the constructs a plan may hold (literals, sets with ranges, negations and
categories, `.`, groups, alternations, anchors) and texts from an alphabet that has word and non-word
characters, a newline, a non-ASCII letter and digit; every planned pattern is checked against the
engine on each text. Patterns with a repeat, a lookaround, a back-reference or a flag get no plan."""

from __future__ import annotations

import re
from re import _parser  # type: ignore[attr-defined]

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pasture.runtime import policy
from pasture.runtime.effective import search
from pasture.runtime.plainre import plan
from pasture.runtime.plainre import search as plain_search

ALPHABET = "ab_ 1-\n.é٣/"

atoms = st.sampled_from(
    [
        "a",
        "b",
        "ab",
        " ",
        "-",
        r"\.",
        r"\n",
        ".",
        "[ab]",
        "[^a]",
        "[a-c]",
        r"[\d_]",
        r"[^\w]",
        r"\d",
        r"\D",
        r"\s",
        r"\S",
        r"\w",
        r"\W",
        "é",
        r"\b",
        r"\B",
        "^",
        "$",
        r"\A",
        r"\Z",
    ]
)


@st.composite
def patterns(draw: st.DrawFn, depth: int = 2) -> str:
    parts = draw(st.lists(atoms, min_size=0, max_size=5))
    if depth and draw(st.booleans()):
        branches = draw(st.lists(patterns(depth - 1), min_size=1, max_size=3))
        group = "(" + ("?:" if draw(st.booleans()) else "") + "|".join(branches) + ")"
        parts.insert(draw(st.integers(0, len(parts))), group)
    return "".join(parts)


texts = st.text(alphabet=ALPHABET, max_size=12)


@given(patterns(), st.lists(texts, min_size=1, max_size=8))
def test_a_plan_answers_what_the_engine_answers(pattern, subjects):
    steps = plan(_parser.parse(pattern))
    assert steps is not None, pattern
    compiled = re.compile(pattern)
    for text in subjects:
        assert plain_search(steps, text) == (compiled.search(text) is not None), (pattern, text)


@pytest.mark.parametrize(
    ("pattern", "text", "found"),
    [
        (r"^(ls|cat|git status)\b", "git status --short", True),
        (r"^(ls|cat|git status)\b", "git statusx", False),
        (r"^(ls|cat|git status)\b", "lsblk", False),
        (r"\B", "", False),
        (r"\b", "", False),
        (r"a$", "xa\n", True),
        (r"a\Z", "xa\n", False),
        (r"\bé", " é", True),
        (r"\d", "٣", True),
    ],
)
def test_edges_the_engine_defines(pattern, text, found):
    assert (re.search(pattern, text) is not None) is found
    assert plain_search(plan(_parser.parse(pattern)), text) is found


@pytest.mark.parametrize(
    "pattern",
    [r"a+", r"a*", r"a{2}", r"a?", r"(?=a)", r"(?!a)", r"(a)\1", r"(?i)a", r"(?m)^a", r"(?s).", r"(?a)\w", r"a(?i:b)"],
)
def test_what_needs_the_engine_has_no_plan(pattern):
    assert plan(_parser.parse(pattern)) is None


def test_the_hooks_search_takes_the_plan_and_never_the_engine_for_it(monkeypatch):
    """A frozen pattern carries its plan; with one, the hook's search answers without compiling."""
    frozen = policy.freeze(r"^(ls|cat|git status)\b")
    assert frozen[3] is not None

    def no_engine(_frozen):
        raise AssertionError("compiled a pattern that has a plan")

    monkeypatch.setattr("pasture.runtime.effective.thaw", no_engine)
    assert search(frozen, "git status")
    assert not search(frozen, "git push")
    repeat = policy.freeze(r"git\s+push")
    assert repeat[3] is None
    with pytest.raises(AssertionError, match="compiled a pattern"):
        search(repeat, "git  push")


def test_a_long_subject_goes_to_the_engine_unless_an_anchor_or_a_literal_leads():
    from pasture.runtime.plainre import SCAN_MAX

    long = "x " * SCAN_MAX + "ac"
    assert plain_search(plan(_parser.parse(r"[ab]c")), long) is None  # tried at every position: the engine's
    assert search(policy.freeze(r"[ab]c"), long) is True
    assert plain_search(plan(_parser.parse(r"\bac\b")), long) is True  # only where "ac" is
    assert plain_search(plan(_parser.parse(r"^x (y|x)")), long) is True
