"""Resolve (harness, host version, event) to a generated contract row."""

from __future__ import annotations

import importlib
from collections import namedtuple

from ..versions import HostVersion, VersionError


def _index():
    # pasture_contracts is a top-level package of the distribution (mapped from
    # generated/python/pasture_contracts by pyproject.toml), importable in every kind of install.
    return importlib.import_module("pasture_contracts")


# contract: the admitting contract id or None; row: its pasture_contracts._row.Row or None;
# why: the diagnostic when either is None.
Resolved = namedtuple("Resolved", "contract row why")


def resolve(harness: str, host_version: str, event: str) -> Resolved:
    """The admitting contract with the highest minimum wins (a newer floor is more specific)."""
    index = _index()
    candidates = index.ADMISSIONS.get(harness)
    if candidates is None:
        known = ", ".join(sorted(index.ADMISSIONS))
        return Resolved(None, None, f"harness {harness!r} has no pinned contract (known: {known})")
    try:
        version = HostVersion.parse(host_version)
    except VersionError as exc:
        return Resolved(None, None, str(exc))
    best = None
    for contract_id, module, minimum, maximum, prereleases in candidates:
        low = HostVersion.parse(minimum)
        if version.is_prerelease and not prereleases:
            continue
        if version < low or (maximum is not None and version > HostVersion.parse(maximum)):
            continue
        if best is None or low > best[0]:
            best = (low, contract_id, module)
    if best is None:
        table = "; ".join(
            f"{cid} admits {'at or above ' + lo if hi is None else f'from {lo} through {hi}'}"
            for cid, _, lo, hi, _ in candidates)
        return Resolved(None, None, f"no contract admits {harness} {host_version} ({table})")
    _, contract_id, module = best
    rows = importlib.import_module(f"pasture_contracts.{module}").ROWS
    row = rows.get(event)
    if row is None:
        return Resolved(contract_id, None, f"{contract_id} declares no event {event!r}")
    return Resolved(contract_id, row, "")
