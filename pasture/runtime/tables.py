"""Resolve (harness, host version, event) to a generated contract row.

Semantic-version precedence is computed here without `re`: `pasture.profile.versions.HostVersion` is
the reference (a test holds the two to the same answers on every input), but it parses with a
regular expression, and importing `re` costs the hook ~8 ms, about as much as starting the
interpreter. The parser lives in this module rather than its own because every module the hook
imports costs ~0.4 M instructions (~1.4 % of a bare interpreter start, callgrind).
"""

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the hook path pays for every import
if TYPE_CHECKING:
    from typing import Any, Iterator

_DIGITS = frozenset("0123456789")
_ALNUM = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-")


def _number(text: str) -> int | None:
    if not text or not set(text) <= _DIGITS or (len(text) > 1 and text[0] == "0"):
        return None
    return int(text)


def key(value: object) -> tuple | None:
    """The precedence key `HostVersion._key()` gives, or None when `value` is not a semantic version."""
    if not isinstance(value, str) or not value:
        return None
    text = value[1:] if value[0] == "v" else value
    core, plus, build = text.partition("+")
    if plus and not all(part and set(part) <= _ALNUM for part in build.split(".")):
        return None
    core, dash, pre = core.partition("-")
    parts = core.split(".")
    if len(parts) != 3:
        return None
    numbers = [_number(p) for p in parts]
    if None in numbers:
        return None
    major, minor, patch = numbers
    if not dash:
        return (major, minor, patch, 1, ())
    ids = []
    for ident in pre.split("."):
        if not ident or not set(ident) <= _ALNUM:
            return None
        if set(ident) <= _DIGITS:
            if len(ident) > 1 and ident[0] == "0":
                return None
            ids.append((0, int(ident), ""))
        else:
            ids.append((1, 0, ident))
    return (major, minor, patch, 0, tuple(ids))


def _table_key(value: str) -> tuple:
    """key() of a version the generator wrote into a contract table: always semantic, loud if not."""
    found = key(value)
    if found is None:
        raise ValueError(f"contract table version {value!r} is not a semantic version")
    return found


def is_prerelease(version_key: tuple) -> bool:
    return version_key[3] == 0


def _index() -> "Any":
    # pasture_contracts is a top-level package of the distribution (mapped from
    # generated/python/pasture_contracts by pyproject.toml), importable in every kind of install.
    import pasture_contracts

    return pasture_contracts


# contract: the admitting contract id or None; row: its pasture_contracts._row.Row or None;
# why: the diagnostic when either is None.
class Resolved:
    __slots__ = ("contract", "row", "why")

    def __init__(self, contract: "Any", row: "Any", why: str) -> None:
        self.contract, self.row, self.why = contract, row, why

    def __iter__(self) -> "Iterator[Any]":
        return iter((self.contract, self.row, self.why))


def resolve(harness: str, host_version: str, event: str) -> Resolved:
    """The admitting contract with the highest minimum wins (a newer floor is more specific)."""
    index = _index()
    candidates = index.ADMISSIONS.get(harness)
    if candidates is None:
        known = ", ".join(sorted(index.ADMISSIONS))
        return Resolved(None, None, f"harness {harness!r} has no pinned contract (known: {known})")
    version = key(host_version)
    if version is None:
        return Resolved(
            None,
            None,
            f"host version {host_version!r} is not a semantic version; write "
            "MAJOR.MINOR.PATCH with an optional -prerelease and +build, e.g. 2.1.261",
        )
    best = None
    for contract_id, module, minimum, maximum, prereleases in candidates:
        low = _table_key(minimum)
        if is_prerelease(version) and not prereleases:
            continue
        if version < low or (maximum is not None and version > _table_key(maximum)):
            continue
        if best is None or low > best[0]:
            best = (low, contract_id, module)
    if best is None:
        table = "; ".join(
            f"{cid} admits {'at or above ' + lo if hi is None else f'from {lo} through {hi}'}"
            for cid, _, lo, hi, _ in candidates
        )
        return Resolved(None, None, f"no contract admits {harness} {host_version} ({table})")
    _, contract_id, module = best
    rows = __import__(f"pasture_contracts.{module}", fromlist=["ROWS"]).ROWS
    row = rows.get(event)
    if row is None:
        return Resolved(contract_id, None, f"{contract_id} declares no event {event!r}")
    return Resolved(contract_id, row, "")
