"""The one interface every host module implements (``pasture/hosts/<host>.py``, its ``HOST``).

Build time only: the hook runtime's half of a host is ``pasture/runtime/hostwire/<wire>.py`` (stdlib only),
which never imports this package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from pasture.hosts.launch import HostLauncher
from pasture.profile.vocab import HookSurface

if TYPE_CHECKING:
    from pasture.profile.contracts import Contract
    from pasture.render.artifact import Artifact


class Host(Protocol):
    #: the harness id: profiles' ``harness``, ``--harness``, ``captures/<name>@<version>``, install targets
    name: str
    #: what the host is called in prose (generated profile titles)
    display_name: str
    #: the file the host reads agent instructions from (the generated instructions doc names it)
    instructions_file: str
    #: the native hook surfaces a profile of this host may use
    surfaces: tuple[HookSurface, ...]
    #: the native call names a runtime profile may bind (the host's documented tools)
    native_calls: frozenset[str]
    #: the npm packages of one host version, all pinned to it; the first carries the version
    npm_packages: tuple[str, ...]
    #: the CLI's name on PATH and in node_modules/.bin
    binary: str
    #: the flag and variable that name the binary for ``pasture host status``
    binary_flag: str
    binary_env: str
    #: the module of pasture.runtime.hostwire that encodes this host's answers on the hook path
    wire: str
    #: the failure arm ``pasture bump`` derives for a new gate row (before evidence promotes it)
    gate_failure: str
    #: the module of pasture.catalog that reads the host's event catalog from what it ships: it defines
    #: ``files(node_modules, add)`` (record, via ``add(folder, rel, read)``, the files of an npm install the
    #: catalog is read from) and ``events(version, files, node_modules, binary, root)`` (the files read and
    #: the catalog's event entries). Named, not imported: pasture.catalog depends on this package.
    catalog_reader: str
    #: how to run the host headless, offline, against a fake model (capture, real-host tests)
    launcher: HostLauncher

    def surface_of(self, bus: bool) -> HookSurface:
        """The surface a new row gets (``bus``: a catalog event delivered on the host's event bus)."""
        ...

    def artifacts(self, contract: Contract) -> list[Artifact]:
        """The native adapter files of one contract of this host (what ``pasture install`` puts in place)."""
        ...
