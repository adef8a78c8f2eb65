"""The screened variables a project's settings files set in their ``env`` block, by file: what
``pasture install`` warns about and ``pasture doctor`` flags (both read :mod:`pasture.runtime.injected`)."""

from __future__ import annotations


def injected_by_file(start: str, root: str) -> dict[str, list[str]]:
    """settings file -> the screened variables its env block sets (pasture.runtime.injected's reading)."""
    from pasture.runtime import injected

    by_file: dict[str, list[str]] = {}
    for name, values in injected.injected((start, root)).items():
        for _value, path in values:
            by_file.setdefault(path, [])
            if name == injected.UNREAD:
                name = "every root variable (the file cannot be read as JSON within 1 MiB, so any may be set)"
            if name not in by_file[path]:
                by_file[path].append(name)
    return {path: sorted(names) for path, names in by_file.items()}
