"""What loading a profile asks of its host (every :class:`pasture.hosts.protocol.Host` has it): the surfaces
its rows may use, the native calls its runtime profile may bind, its answers' wire forms and what its
catalog rules need (pasture.profile.closed). The caller
hands the hosts in (``load_project(..., hosts=...)``); profile/ never reads the registry, so the host
modules may build on it."""

from __future__ import annotations

from typing import Mapping, Protocol

from pasture.profile.answers import AnswerHost
from pasture.profile.vocab import HookSurface


class ProfileHost(AnswerHost, Protocol):
    #: the host's name in messages ("OpenCode")
    display_name: str
    #: the native hook surfaces a profile of this host may use
    surfaces: tuple[HookSurface, ...]
    #: the native call names a runtime profile may bind (the host's documented tools)
    native_calls: frozenset[str]
    #: core operations the host has no way to do (operation -> why): a runtime profile must bind them unsupported
    unsupported_operations: Mapping[str, str]
    #: a throw from a pre-action hook is a refusal the host reads (then a throw-fail-fast row cites evidence)
    throw_refuses: bool
    #: a named hook's payload carries its output object beside its input (its fields count as identities)
    output_in_payload: bool

    def surface_of(self, bus: bool) -> HookSurface:
        """The surface of a catalog event (``bus``: delivered on the host's event bus, else a named hook)."""
        ...
