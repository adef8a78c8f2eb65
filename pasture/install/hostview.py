"""What ``pasture install`` / ``uninstall`` and the doctor ask of a host (every
:class:`pasture.hosts.protocol.Host` has it). The command line hands the host in; install/ never reads the
registry, so the host modules may build on install/."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Protocol

from pasture.profile.hostview import ProfileHost
from pasture.render.artifact import RenderedHost

if TYPE_CHECKING:
    from pasture.install.managed import ManagedChannel
    from pasture.install.places import Target
    from pasture.install.session import Session
    from pasture.profile.versions import HostVersion


class InstallHost(RenderedHost, ProfileHost, Protocol):
    binary: str
    wire: str  # its runtime half (pasture/runtime/hostwire/<wire>.py): the files whose env it hands to hooks
    binary_flag: str
    install_flags: frozenset[str]
    adapter_file: str
    pasture_bin_reader: str | None  # its adapter, when it still reads PASTURE_BIN
    display_name: str
    managed: ManagedChannel | None

    def target(self, project: Path | None, env: Mapping[str, str]) -> Target: ...

    def version_env(self, home: str) -> dict[str, str]: ...

    def pick_contract(
        self, available: list[tuple[HostVersion, str]], version: HostVersion | None, seen: str
    ) -> tuple[str, str]: ...

    def read_installation(self, target: Target, text: str) -> object: ...

    def install(self, session: Session) -> None: ...

    def trust(self, session: Session) -> None: ...

    def uninstall(self, session: Session) -> None: ...
