"""What loading a profile asks of its host (every :class:`pasture.hosts.protocol.Host` has it): the surfaces
its rows may use and the native calls its runtime profile may bind. The caller hands the hosts in
(``load_project(..., hosts=...)``); profile/ never reads the registry, so the host modules may build on it."""

from __future__ import annotations

from typing import Protocol

from pasture.profile.vocab import HookSurface


class ProfileHost(Protocol):
    #: the harness id
    name: str
    #: the native hook surfaces a profile of this host may use
    surfaces: tuple[HookSurface, ...]
    #: the native call names a runtime profile may bind (the host's documented tools)
    native_calls: frozenset[str]
