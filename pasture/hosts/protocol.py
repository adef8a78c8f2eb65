"""The one interface every host module implements (``pasture/hosts/<host>.py``, its ``HOST``).

Build time only: the hook runtime's half of a host is ``pasture/runtime/hostwire/<wire>.py`` (stdlib only),
which never imports this package.

What the generic code asks a host, by command:

* ``pasture generate`` / ``pasture bump``: ``surfaces``, ``surface_of``, ``artifacts``, ``gate_failure``,
  ``catalog_reader``, ``instructions_file``, ``native_calls``;
* ``pasture install`` / ``uninstall`` (:mod:`pasture.install.actions`): ``adapter_file``, ``install_flags``,
  ``target``, ``pick_contract``, ``install``, ``trust``, ``uninstall``; with ``--managed``
  (:mod:`pasture.install.managed`): ``managed``;
* ``pasture doctor`` (:mod:`pasture.doctor.run`): ``target`` again, ``read_installation``, ``check_adapter``,
  ``check_launcher``, ``check_session``, ``check_environment``;
* ``pasture validate`` and every command that loads profiles (:mod:`pasture.profile.loader`, handed the hosts):
  ``display_name``, ``surfaces``, ``surface_of``, ``native_calls``, ``answer_candidates``, ``throw_refuses``,
  ``output_in_payload`` (the catalog rules, :mod:`pasture.profile.closed`);
* ``pasture capture`` / ``pasture profile new`` / ``pasture host status`` / the real-host tests: ``launcher``,
  ``capture``, ``identity_fields``, ``capture_identity_fields``, ``not_events``, ``throw_refuses``,
  ``tool_matchers``, ``output_in_payload``, ``lifecycle_payload``, ``npm_packages``, ``npm_postinstall``,
  ``binary``, ``version_env``.

The command line hands the packages below the registry the host they need (they declare what they ask of
one: ``ProfileHost``, ``RenderedHost``, ``InstallHost``, ``DoctorHost``, which every ``Host`` meets).

The members are small because the mechanics are shared, host-neutral helpers a host module calls:
:mod:`pasture.install.jsonhooks` (``hooks.<Event>`` lists in a JSON settings file, with a
:class:`~pasture.install.jsonhooks.SettingsAmendment` for what else the host keeps there),
:mod:`pasture.install.pluginfile` (one plugin file of pasture's own), :mod:`pasture.install.places`
(targets, versions, contract choice), :mod:`pasture.doctor.installed` (the doctor checks of each adapter
kind), :mod:`pasture.hosts.recording` (capture adapters), :mod:`pasture.hosts.scenario_sets` (the scenarios
hosts share). None of them imports this package's registry.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping, Protocol

from pasture.hosts.launch import HostLauncher
from pasture.profile.vocab import HookSurface

if TYPE_CHECKING:
    from pathlib import Path

    from pasture.doctor.findings import Finding
    from pasture.doctor.installed import DoctorContext
    from pasture.hosts.recording import CaptureAdapter
    from pasture.install.managed import ManagedChannel
    from pasture.install.places import Installation, Target
    from pasture.install.session import Adapter, Session
    from pasture.profile.contracts import Contract
    from pasture.profile.versions import HostVersion
    from pasture.render.artifact import Artifact


class Host(Protocol):
    #: the harness id: profiles' ``harness``, ``--harness``, ``captures/<name>@<version>``, install targets
    name: str
    #: what the host is called in prose (generated profile titles, reports)
    display_name: str
    #: the file the host reads agent instructions from (the generated instructions doc names it)
    instructions_file: str
    #: the native hook surfaces a profile of this host may use
    surfaces: tuple[HookSurface, ...]
    #: the native call names a runtime profile may bind (the host's documented tools)
    native_calls: frozenset[str]
    #: core operations the host has no way to do (operation -> why): a runtime profile must bind them unsupported
    unsupported_operations: Mapping[str, str]
    #: the npm packages of one host version, all pinned to it (``tests/npm``); the first carries the version
    #: and ships ``binary`` (``pasture.hostenv.npm_tools.HOST_PACKAGES`` is derived from these two)
    npm_packages: tuple[str, ...]
    #: the install scripts the host needs run after ``npm ci --ignore-scripts`` (package folder under
    #: node_modules, argv run there); ``()`` when it needs none
    npm_postinstall: tuple[tuple[str, tuple[str, ...]], ...]
    #: the CLI's name on PATH and in node_modules/.bin (asked ``--version`` by install, doctor, host status)
    binary: str
    #: the flag and variable that name the binary (``pasture host status`` has one option per host;
    #: ``install`` and ``doctor`` use the binary given with this flag where they have the option:
    #: ``--codex-bin``, ``--opencode-bin``)
    binary_flag: str
    binary_env: str

    def version_env(self, home: str) -> dict[str, str]:
        """What ``<binary> --version`` needs in its environment, besides a throwaway ``home``, to answer offline
        (no update check, no network, its folders under ``home``): ``pasture host status``, ``pasture capture``."""
        ...

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
        """The native adapter files of one contract of this host (what ``pasture generate`` writes)."""
        ...

    # --- install / uninstall -------------------------------------------------------------------------

    #: which of ``artifacts`` is the adapter install puts in place: its path below ``generated/<contract id>/``
    adapter_file: str
    #: the host-only flags ``pasture install`` takes for this host (refused for the others), e.g. Codex's
    #: ``--trust-project``, ``--trust-only``, ``--codex-bin``; the commands a report suggests repeat them
    install_flags: frozenset[str]

    def target(self, project: Path | None, env: Mapping[str, str]) -> Target:
        """Where the adapter goes: project scope when ``project`` is a folder (refuse with TargetError when it
        is not: :func:`pasture.install.places.project_folder`), user scope when None. Only ``env`` locates the
        user's folders: never anything a repository can set."""
        ...

    def pick_contract(
        self, available: list[tuple[HostVersion, str]], version: HostVersion | None, seen: str
    ) -> tuple[str, str]:
        """(contract id, why) among ``available`` (oldest first, never empty) for the installed version
        (None: it could not be told; ``seen`` says what was run). Most hosts:
        :func:`pasture.install.places.highest_floor`."""
        ...

    #: the host's administrator channel for ``pasture install --managed`` (pasture.install.managed: its
    #: system files, its lock-out flag as read in the host's shipped code, the gaps it leaves); None: the
    #: host has none (``--managed`` refuses and recommends the user install)
    managed: ManagedChannel | None

    def install(self, session: Session) -> None:
        """Put ``session.adapter`` in place at ``session.target``: merged into the host's settings without
        touching foreign hooks (uninstall must give the file back byte for byte), the launcher written
        (``session.install_launcher()``), every file through ``session.checked`` and
        :func:`pasture.install.session.write`. Refuse with InstallError before writing anything."""
        ...

    def trust(self, session: Session) -> None:
        """The host's own trust step, after :meth:`install` in the same session (or alone, for
        ``--trust-only``): make the host run the hooks, or say loudly (``session.report.problems``, exit 3)
        that it will not and the command that fixes it. A no-op for a host that runs them untrusted."""
        ...

    def uninstall(self, session: Session) -> None:
        """Take pasture's adapter (only ours) back out of ``session.target``; prune folders left empty."""
        ...

    # --- doctor --------------------------------------------------------------------------------------

    def read_installation(self, target: Target, text: str) -> Installation | Finding | None:
        """What ``target``'s file (its text) holds: our installation, a Finding when the host cannot read the
        file either, None when nothing of pasture's is in it."""
        ...

    def check_adapter(self, inst: Installation, adapter: Adapter) -> list[Finding]:
        """Our adapter there is exactly ``adapter`` (the contract it was installed from, as rendered)."""
        ...

    def check_launcher(self, inst: Installation, env: Mapping[str, str]) -> list[Finding]:
        """The runtime binary the installed adapter starts exists and passes its self-test."""
        ...

    def check_session(self, inst: Installation, ctx: DoctorContext) -> list[Finding]:
        """Whether the host will run the installed adapter at all: its trust, where a session must start,
        the shell it runs hooks with (after the generic host-version check)."""
        ...

    def check_environment(
        self, project: Path | None, env: Mapping[str, str], installs: list[Installation]
    ) -> list[Finding]:
        """Once per host with an adapter here: what the host's own settings add or take away (its OS
        sandbox, its own deny rules). ``[]`` when it has nothing of the kind."""
        ...

    # --- capture / profile new ----------------------------------------------------------------------

    #: how ``pasture capture`` records this host (its recording hooks or plugin, its scenarios, its catalog pass)
    capture: CaptureAdapter
    #: catalog input field -> identity kind (``session``, ``turn``, ``tool-call``, ...) for new rows (bump)
    identity_fields: Mapping[str, str]
    #: the same, for identities ``pasture profile new`` adds to a row when a capture shows the field
    capture_identity_fields: Mapping[str, str]
    #: hooks a capture sees that are not lifecycle events -> why they never become rows
    not_events: Mapping[str, str]
    #: the refusal the host reads is one pasture's own adapter gives (OpenCode 1.x and Pi: a throw from the
    #: plugin's handler, hooks that return no decision field; Cline: the JSON refusal the generated hook file
    #: prints): ``pasture bump`` makes every pre-action named hook a gate row, and demotes a throw-fail-fast
    #: row no capture backs (a scenario of channel ``throw`` or ``adapter``) to report-and-continue
    throw_refuses: bool
    #: rows of events whose payload names a tool get ``matcher: "*"`` (the matcher groups of command hooks)
    tool_matchers: bool
    #: a named hook's payload carries its output object beside its input (OpenCode's plugin hands each hook's
    #: ``input`` and ``output``): the runtime reads identities from both, so the catalog's output fields
    #: count as identity fields of the event (never required ones)
    output_in_payload: bool
    #: surface value -> the axes (``order``, ``reconciliation``, ``failure``) of a new observation row there
    observation_axes: Mapping[str, Mapping[str, str]]
    #: surface value -> the axes (``order``, ``reconciliation``) of a new gate row there (its failure is
    #: ``gate_failure``); only the surfaces that can carry a gate
    gate_axes: Mapping[str, Mapping[str, str]]

    def answer_candidates(self, row: Any, output: dict[str, Any], inputs: dict[str, Any]) -> list[tuple[str, str]]:
        """(capability, wire form) pairs a row's catalog output schema and input fields allow, in the host's own
        wire forms (the capability matrix, :mod:`pasture.profile.answers`; the JSON command hosts share
        :func:`~pasture.profile.answers.command_candidates`)."""
        ...

    def lifecycle_payload(self, event: str, payload: Any, bus: bool) -> Any:
        """A captured payload as the generated adapter hands it to ``pasture hook lifecycle``."""
        ...

    # install and doctor (per host)

    #: what ``pasture install`` runs the host's binary for, in the help of its ``binary_flag`` there ("used to
    #: record hook trust"); None: install takes no binary option for this host
    install_binary_use: str | None
    #: the same for ``pasture doctor`` ("asked about hook trust"); None: doctor takes none for this host
    doctor_binary_use: str | None
    #: what ``pasture install --trust-project`` records for this host, in the option's help, in the host's own
    #: words (``Gemini CLI: trustedFolders.json``); None when ``--trust-project`` is not in ``install_flags``
    trust_project_help: str | None
    #: its adapter, when it still reads ``PASTURE_BIN`` to find the launcher ("the OpenCode plugin"): install
    #: warns that the hooks of the others ignore the variable; None when it names the launcher by path
    pasture_bin_reader: str | None
