"""Host versions and version admission, by semantic-version precedence.

Stdlib only (the hook runtime resolves contracts with it). `packaging.version` is not used:
it implements PEP 440, which rejects or misorders semver prereleases such as 1.0.0-alpha.beta.
"""

from __future__ import annotations

import re
from functools import total_ordering

from pasture import PastureError

_NUM = r"0|[1-9][0-9]*"  # ASCII digits only: \d would admit any Unicode digit
_PRE_ID = r"(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)"
_BUILD_ID = r"[0-9A-Za-z-]+"
_SEMVER = re.compile(
    rf"v?(?P<major>{_NUM})\.(?P<minor>{_NUM})\.(?P<patch>{_NUM})"
    rf"(?:-(?P<pre>{_PRE_ID}(?:\.{_PRE_ID})*))?"
    rf"(?:\+(?P<build>{_BUILD_ID}(?:\.{_BUILD_ID})*))?"
)


class VersionError(PastureError, ValueError):
    """A version string that is not a semantic version; the message says what to write."""


@total_ordering
class HostVersion:
    # A plain class, not a dataclass: importing dataclasses (and inspect) costs the hook ~4 ms.
    __slots__ = ("major", "minor", "patch", "prerelease", "build")

    def __init__(
        self, major: int, minor: int, patch: int, prerelease: tuple[int | str, ...] = (), build: str = ""
    ) -> None:
        self.major, self.minor, self.patch = major, minor, patch
        self.prerelease, self.build = tuple(prerelease), build

    def __repr__(self) -> str:
        return f"HostVersion({str(self)!r})"

    @classmethod
    def parse(cls, value: object) -> "HostVersion":
        if not isinstance(value, str):
            raise VersionError(f"host version must be a string, got {type(value).__name__} {value!r}")
        if value == "":
            raise VersionError("host version is empty; write MAJOR.MINOR.PATCH, e.g. 2.1.261")
        if value != value.strip():
            raise VersionError(f"host version {value!r} is padded with whitespace; write it without spaces")
        match = _SEMVER.fullmatch(value)
        if match is None:
            raise VersionError(
                f"host version {value!r} is not a semantic version; write MAJOR.MINOR.PATCH with an "
                "optional -prerelease and +build, e.g. 2.1.261 or 1.0.0-rc.1"
            )
        pre = match["pre"]
        prerelease: tuple[int | str, ...] = ()
        if pre:
            prerelease = tuple(int(p) if p.isdigit() else p for p in pre.split("."))
        return cls(int(match["major"]), int(match["minor"]), int(match["patch"]), prerelease, match["build"] or "")

    @property
    def is_prerelease(self) -> bool:
        return bool(self.prerelease)

    def _key(self) -> tuple:
        # Semver §11: a release outranks its prereleases; numeric identifiers sort below
        # alphanumeric ones; a longer prerelease series wins when all shared ids are equal.
        if not self.prerelease:
            return (self.major, self.minor, self.patch, 1, ())
        ids = tuple((0, p, "") if isinstance(p, int) else (1, 0, p) for p in self.prerelease)
        return (self.major, self.minor, self.patch, 0, ids)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HostVersion):
            return NotImplemented
        return self._key() == other._key()

    def __lt__(self, other: "HostVersion") -> bool:
        return self._key() < other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __str__(self) -> str:
        text = f"{self.major}.{self.minor}.{self.patch}"
        if self.prerelease:
            text += "-" + ".".join(str(p) for p in self.prerelease)
        if self.build:
            text += "+" + self.build
        return text


def compare_precedence(a: HostVersion, b: HostVersion) -> int:
    """-1, 0 or +1 by semantic-version precedence; build metadata never counts."""
    return (a > b) - (a < b)


class Admission:
    """Which host versions a contract admits: an exact point, a closed range, or a floor."""

    __slots__ = ("minimum", "maximum", "include_prereleases", "exact")

    def __init__(
        self, minimum: HostVersion, maximum: HostVersion | None, include_prereleases: bool = False, exact: bool = False
    ) -> None:
        self.minimum = minimum
        self.maximum = maximum  # None: a floor, no upper bound
        self.include_prereleases = include_prereleases
        self.exact = exact

    def _key(self) -> tuple:
        return (self.minimum, self.maximum, self.include_prereleases, self.exact)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Admission) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Admission({self.describe()!r})"

    @classmethod
    def exactly(cls, version: HostVersion) -> "Admission":
        return cls(version, version, False, True)

    @classmethod
    def floor(cls, version: HostVersion) -> "Admission":
        return cls(version, None, False, False)

    @classmethod
    def between(cls, low: HostVersion, high: HostVersion, include_prereleases: bool = False) -> "Admission":
        return cls(low, high, include_prereleases, False)

    @property
    def has_upper_bound(self) -> bool:
        return self.maximum is not None

    def allows(self, version: HostVersion) -> bool:
        if version.is_prerelease and not self.include_prereleases:
            return False
        if version < self.minimum:
            return False
        return self.maximum is None or version <= self.maximum

    def describe(self) -> str:
        if self.exact:
            return f"exactly {self.minimum}"
        if self.maximum is None:
            return f"at or above {self.minimum}"
        text = f"from {self.minimum} through {self.maximum}"
        return text + (" including prereleases" if self.include_prereleases else "")
