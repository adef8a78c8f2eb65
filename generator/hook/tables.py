"""Resolve (harness, host version, event) to a generated contract row."""

from __future__ import annotations

from .hostversion import is_prerelease, key


def _index():
    # pasture_contracts is a top-level package of the distribution (mapped from
    # generated/python/pasture_contracts by pyproject.toml), importable in every kind of install.
    import pasture_contracts

    return pasture_contracts


# contract: the admitting contract id or None; row: its pasture_contracts._row.Row or None;
# why: the diagnostic when either is None.
class Resolved:
    __slots__ = ("contract", "row", "why")

    def __init__(self, contract, row, why: str) -> None:
        self.contract, self.row, self.why = contract, row, why

    def __iter__(self):
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
        return Resolved(None, None, f"host version {host_version!r} is not a semantic version; write "
                                    "MAJOR.MINOR.PATCH with an optional -prerelease and +build, e.g. 2.1.261")
    best = None
    for contract_id, module, minimum, maximum, prereleases in candidates:
        low = key(minimum)
        if is_prerelease(version) and not prereleases:
            continue
        if version < low or (maximum is not None and version > key(maximum)):
            continue
        if best is None or low > best[0]:
            best = (low, contract_id, module)
    if best is None:
        table = "; ".join(
            f"{cid} admits {'at or above ' + lo if hi is None else f'from {lo} through {hi}'}"
            for cid, _, lo, hi, _ in candidates)
        return Resolved(None, None, f"no contract admits {harness} {host_version} ({table})")
    _, contract_id, module = best
    rows = __import__(f"pasture_contracts.{module}", fromlist=["ROWS"]).ROWS
    row = rows.get(event)
    if row is None:
        return Resolved(contract_id, None, f"{contract_id} declares no event {event!r}")
    return Resolved(contract_id, row, "")
