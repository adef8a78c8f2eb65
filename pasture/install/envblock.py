"""The screened variables a project's settings files set in their ``env`` block, by file: what
``pasture install`` warns about and ``pasture doctor`` flags (both read :mod:`pasture.runtime.injected`)."""

from __future__ import annotations

from typing import Iterable, Protocol


class EnvBlockHost(Protocol):
    name: str
    display_name: str
    wire: str


def host_of(path: str, hosts: Iterable[EnvBlockHost]) -> EnvBlockHost | None:
    """The host that hands the env block of the settings file ``path`` to its hooks: the one whose runtime
    half declares the file (pasture/runtime/hostwire/<wire>.py ENV_BLOCK_FILES)."""
    from pasture.runtime.hostwire.guarded import module

    for host in hosts:
        for rel in getattr(module(host.wire), "ENV_BLOCK_FILES", ()):
            if path == rel or path.endswith("/" + rel):
                return host
    return None


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
