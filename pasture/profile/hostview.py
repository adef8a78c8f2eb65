"""What loading a profile asks of its host (every :class:`pasture.hosts.protocol.Host` has it): the surfaces
its rows may use, the native calls its runtime profile may bind and its answers' wire forms. The caller
hands the hosts in (``load_project(..., hosts=...)``); profile/ never reads the registry, so the host
modules may build on it."""

from __future__ import annotations

from typing import Mapping, Protocol

from pasture.profile.answers import AnswerHost
from pasture.profile.vocab import HookSurface


class ProfileHost(AnswerHost, Protocol):
    #: the native hook surfaces a profile of this host may use
    surfaces: tuple[HookSurface, ...]
    #: the native call names a runtime profile may bind (the host's documented tools)
    native_calls: frozenset[str]
    #: core operations the host has no way to do (operation -> why): a runtime profile must bind them unsupported
    unsupported_operations: Mapping[str, str]
