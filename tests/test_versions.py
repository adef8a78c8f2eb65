"""Host version parsing, precedence and admission, including the semver spec's own ordering."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pasture.profile.versions import Admission, HostVersion, VersionError, compare_precedence

SPEC_ORDER = [
    "1.0.0-alpha",
    "1.0.0-alpha.1",
    "1.0.0-alpha.beta",
    "1.0.0-beta",
    "1.0.0-beta.2",
    "1.0.0-beta.11",
    "1.0.0-rc.1",
    "1.0.0",
]

numbers = st.integers(min_value=0, max_value=10**6)
alnum_ids = st.from_regex(r"[0-9A-Za-z-]*[A-Za-z-][0-9A-Za-z-]*", fullmatch=True).filter(bool)
pre_ids = st.one_of(numbers.map(str), alnum_ids)
builds = st.lists(st.from_regex(r"[0-9A-Za-z-]+", fullmatch=True), min_size=1, max_size=3).map(".".join)


@st.composite
def versions(draw):
    text = f"{draw(numbers)}.{draw(numbers)}.{draw(numbers)}"
    if draw(st.booleans()):
        text += "-" + ".".join(draw(st.lists(pre_ids, min_size=1, max_size=4)))
    if draw(st.booleans()):
        text += "+" + draw(builds)
    return text


def test_semver_spec_example_order():
    parsed = [HostVersion.parse(v) for v in SPEC_ORDER]
    for earlier, later in zip(parsed, parsed[1:], strict=False):
        assert earlier < later
        assert compare_precedence(earlier, later) == -1
        assert compare_precedence(later, earlier) == 1
    assert sorted(reversed(parsed)) == parsed


@given(versions())
def test_round_trip_and_leading_v(text):
    version = HostVersion.parse(text)
    assert str(version) == text
    assert HostVersion.parse("v" + text) == version


@given(versions(), builds)
def test_build_metadata_never_changes_precedence(text, build):
    base = text.split("+")[0]
    assert compare_precedence(HostVersion.parse(base), HostVersion.parse(f"{base}+{build}")) == 0


@given(versions(), versions(), versions())
def test_precedence_is_a_total_order(a, b, c):
    x, y, z = (HostVersion.parse(v) for v in (a, b, c))
    assert compare_precedence(x, y) == -compare_precedence(y, x)
    if x <= y and y <= z:
        assert x <= z


@given(versions())
def test_prerelease_sorts_below_its_release(text):
    version = HostVersion.parse(text)
    release = HostVersion(version.major, version.minor, version.patch)
    if version.is_prerelease:
        assert version < release
    else:
        assert version == release


@given(versions(), st.sampled_from([" ", "\t", "\n"]))
def test_padded_versions_are_rejected(text, pad):
    with pytest.raises(VersionError, match="padded with whitespace"):
        HostVersion.parse(pad + text)
    with pytest.raises(VersionError, match="padded with whitespace"):
        HostVersion.parse(text + pad)


@pytest.mark.parametrize(
    "garbage",
    [
        "1",
        "1.2",
        "01.2.3",
        "1.02.3",
        "1.2.3-",
        "1.2.3-01",
        "1.2.3+",
        "1.2.3-a..b",
        "latest",
        "vv1.2.3",
        "1.2.3.4",
        "1.2.3-a+b+c",
        "１.2.3",
    ],
)
def test_garbage_is_rejected_with_a_message(garbage):
    with pytest.raises(VersionError, match="is not a semantic version"):
        HostVersion.parse(garbage)


def test_empty_and_non_string():
    with pytest.raises(VersionError, match="host version is empty"):
        HostVersion.parse("")
    with pytest.raises(VersionError, match="must be a string, got float 2.1"):
        HostVersion.parse(2.1)


@given(versions())
def test_floor_admits_every_later_release_but_no_prerelease(text):
    floor = Admission.floor(HostVersion.parse("2.1.261"))
    version = HostVersion.parse(text)
    expected = (not version.is_prerelease) and version >= HostVersion.parse("2.1.261")
    assert floor.allows(version) is expected


def test_admission_descriptions():
    v = HostVersion.parse
    assert Admission.exactly(v("0.153.0")).describe() == "exactly 0.153.0"
    assert Admission.floor(v("2.1.261")).describe() == "at or above 2.1.261"
    assert Admission.between(v("1.18.0"), v("1.18.33")).describe() == "from 1.18.0 through 1.18.33"
    assert (
        Admission.between(v("2.0.0-rc.1"), v("2.0.20"), True).describe()
        == "from 2.0.0-rc.1 through 2.0.20 including prereleases"
    )


def test_range_prerelease_policy_is_explicit():
    v = HostVersion.parse
    closed = Admission.between(v("1.0.0"), v("2.0.0"))
    assert closed.allows(v("1.5.0")) and closed.allows(v("2.0.0")) and closed.allows(v("1.0.0"))
    assert not closed.allows(v("1.5.0-rc.1"))
    assert not closed.allows(v("2.0.1"))
    opted_in = Admission.between(v("1.0.0"), v("2.0.0"), include_prereleases=True)
    assert opted_in.allows(v("1.5.0-rc.1"))
    assert not opted_in.allows(v("1.0.0-rc.1"))  # below the range by precedence
    exact = Admission.exactly(v("0.153.0"))
    assert exact.allows(v("0.153.0+build.7")) and not exact.allows(v("0.153.1"))
