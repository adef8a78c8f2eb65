"""The hook path's re-free stand-ins give the same answers as the modules they stand in for."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from pasture.profile.versions import HostVersion, VersionError
from pasture.runtime import effective, fastjson, policy
from pasture.runtime import tables as hostversion
from pasture.runtime.fs import join, normpath

_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20,
)


@given(_json_values)
def test_dumps_matches_json_dumps(value):
    assert fastjson.dumps(value) == json.dumps(value, ensure_ascii=True)
    assert fastjson.dumps(value, compact=True) == json.dumps(value, ensure_ascii=True, separators=(",", ":"))
    assert fastjson.dumps(value, ascii=False) == json.dumps(value, ensure_ascii=False)


@given(st.one_of(_json_values.map(json.dumps), st.text(max_size=30)))
@settings(max_examples=300)
def test_loads_accepts_exactly_what_json_loads_accepts(text):
    try:
        expected = ("ok", json.loads(text))
    except (ValueError, RecursionError):
        expected = ("error",)
    try:
        got = ("ok", fastjson.loads(text))
    except fastjson.JSONError:
        got = ("error",)
    assert got[0] == expected[0]
    if got[0] == "ok":
        assert json.dumps(got[1]) == json.dumps(expected[1])


def test_loads_edge_cases():
    for text in ("", "  ", "1 2", '{"a":1', "[" * 50000, '{"a": 1}x', "\ufeff{}"):
        try:
            json.loads(text)
            ok = True
        except (ValueError, RecursionError):
            ok = False
        try:
            fastjson.loads(text)
            mine = True
        except fastjson.JSONError:
            mine = False
        assert mine == ok, text[:20]


_versions = st.one_of(
    st.from_regex(
        r"v?(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})"
        r"(-[0-9A-Za-z-]{1,6}(\.[0-9A-Za-z-]{1,6}){0,2})?(\+[0-9A-Za-z-]{1,6})?",
        fullmatch=True,
    ),
    st.text(alphabet="0123456789.-+vab \u0661", max_size=14),
)


@given(_versions)
@settings(max_examples=500)
def test_hook_version_keys_match_host_version(text):
    try:
        reference = HostVersion.parse(text)
    except VersionError:
        reference = None
    key = hostversion.key(text)
    if reference is None:
        assert key is None, text
    else:
        assert key == reference._key(), text
        assert hostversion.is_prerelease(key) == reference.is_prerelease


@given(_versions, _versions)
def test_hook_version_order_matches(a, b):
    ka, kb = hostversion.key(a), hostversion.key(b)
    if ka is not None and kb is not None:
        assert (ka < kb) == (HostVersion.parse(a) < HostVersion.parse(b))


@given(st.text(alphabet="ab./", max_size=12), st.text(alphabet="ab./", max_size=8))
def test_path_helpers_match_posixpath(first, second):
    import posixpath

    assert normpath(first) == posixpath.normpath(first)
    assert join(first, second) == posixpath.join(first, second)


@given(
    st.sampled_from(
        [
            r"rm\s+-rf",
            r"(?P<x>git)\s+push.*--force",
            r"^(Bash|bash)$",
            r"[\w.-]+@example\.com",
            r"(?i)secret",
            r"a{2,5}b*?",
            r"\bcurl\b|\bwget\b",
        ]
    ),
    st.text(max_size=30),
)
def test_frozen_patterns_search_like_re(pattern, text):
    import re

    frozen = policy.freeze(pattern)
    assert frozen[:2] == ("re", pattern)  # the cache keeps the source, never an SRE program (issue 18)
    mine = effective.thaw(frozen).search(text)
    theirs = re.compile(pattern).search(text)
    assert (mine and mine.span()) == (theirs and theirs.span())
    # the required-literal shortcut never changes an answer, with or without the literal in the text
    for subject in (text, text + frozen[2], frozen[2] + text):
        assert effective.search(frozen, subject) == (re.search(pattern, subject) is not None)
