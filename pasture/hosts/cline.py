"""Cline CLI (npm ``cline``): its adapter (one generated hook file per event of the contract), its catalog
(the hook-file events and the hook output parser of ``@cline/core``, the payload typings of
``@cline/shared``, read by pasture.catalog.cline), and its offline run. Answers on the hook path:
pasture/runtime/hostwire/cline.py, which says how Cline reads a hook's answer.

* **Hooks:** executable files named ``<Event>`` with an optional extension, in ``~/.cline/hooks``
  (``$CLINE_DIR/hooks``), ``~/Documents/Cline/Hooks``, and in the workspace (the folder Cline starts in)
  ``.clinerules/hooks`` and ``.cline/hooks``; every one that matches runs. pasture's are ``<Event>.bash``
  (a name users rarely take: ``PreToolUse`` or ``PreToolUse.sh`` of the user's own stay beside them),
  with pasture's header as the first line; without a shebang Cline runs a ``.bash`` file with ``bash``.
  Project scope writes ``<project>/.cline/hooks``, user scope ``$CLINE_DIR/hooks`` or ``~/.cline/hooks``.
* **Failure:** Cline runs the tool when a hook fails in any way (non-zero exit, no JSON, a timeout of its
  120 s), measured. So the blocking arm is carried by the generated file: on a row that fails fast it
  prints Cline's ``cancel`` itself, as the last ``HOOK_CONTROL`` line (the one Cline reads), when the
  runtime exits non-zero; the runtime's own failures (a gate, a policy) answer the row's refusal at exit 0.
* **Trust:** none; Cline runs every hook file it finds. The workspace's two hook folders are therefore the
  host's off-switches (hostwire/cline.py): a repository hook's ``overrideInput`` replaces what the guard
  decided.
* **Managed:** none. Every folder Cline reads hooks from is the user's or the workspace's.

Offline run: ``cline --json -P openai-compatible -m M PROMPT`` against the fake OpenAI chat completions
API, with the provider written where ``cline auth -p openai-compatible -k K -m M -b URL`` writes it
(``~/.cline/data/settings/providers.json``).
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from pasture.hosts.launch import FAKE_API_KEY, HostLauncher, RunContext
from pasture.hosts.members import PluginFileMembers
from pasture.hosts.protocol import Host
from pasture.hosts.recording import CaptureAdapter, CommandHookCapture, Run
from pasture.profile.contracts import Contract, EventRow
from pasture.profile.vocab import EventSemantic, FailureMode, HookSurface
from pasture.render import commands
from pasture.render.artifact import Artifact, header
from pasture.render.encode import shell_words

if TYPE_CHECKING:
    from pasture.doctor.findings import Finding
    from pasture.doctor.installed import DoctorContext
    from pasture.hosts.scenario_sets import Scenario, ScenarioSet
    from pasture.install.managed import ManagedChannel
    from pasture.install.places import Installation, Target
    from pasture.install.session import Session
    from pasture.profile.versions import HostVersion

__all__ = ["HOST", "Cline", "ClineCapture", "ClineLauncher", "cline_artifacts", "cline_dir", "hook_file"]

#: the extension of pasture's hook files (one of those Cline reads: "", .sh .bash .zsh .js ... .py .ps1)
EXTENSION = ".bash"
#: the file install puts in place first, whose header doctor reads (every contract guards tool calls)
MAIN_EVENT = "PreToolUse"
_EXIT = "@EXIT@"  # where the exit status goes in the tail's lines (plain ASCII: json.dumps keeps it)


def hook_file(event: str) -> str:
    return event + EXTENSION


class ClineLauncher(HostLauncher):
    host = "cline"
    wire_protocol = "openai-chat"
    default_options = {"model": "fake-model", "extra_args": []}
    home_folders = (".cline/hooks",)

    def env(self, ctx: RunContext) -> dict[str, str]:
        return {}

    def prepare(self, ctx: RunContext) -> None:
        # what `cline auth -p openai-compatible -k K -m M -b URL` writes (3.0.65), without its timestamp
        path = ctx.layout.home / ".cline" / "data" / "settings" / "providers.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        settings = {
            "provider": "openai-compatible",
            "apiKey": FAKE_API_KEY,
            "model": ctx.options["model"],
            "baseUrl": ctx.base_url_v1,
        }
        doc = {
            "version": 1,
            "lastUsedProvider": "openai-compatible",
            "modes": {},
            "providers": {
                "openai-compatible": {
                    "settings": settings,
                    "updatedAt": "2026-01-01T00:00:00.000Z",
                    "tokenSource": "manual",
                }
            },
        }
        path.write_text(json.dumps(doc, indent=2) + "\n")

    def argv(self, ctx: RunContext) -> list[str]:
        return [
            str(ctx.binary),
            "--json",
            "-P",
            "openai-compatible",
            "-m",
            ctx.options["model"],
            *ctx.options["extra_args"],
            ctx.prompt,
        ]


def _refusal_words(row: EventRow) -> tuple[str, str, str, str] | None:
    """The fail-fast tail's two lines (stderr, and Cline's cancel) as shell words around the exit status."""
    if not (row.semantic is EventSemantic.GATE_CONSULTATION and row.failure is FailureMode.THROW_FAIL_FAST):
        return None
    line = (
        f"pasture: the guard could not run (exit {_EXIT}), so {row.name} is refused; see `pasture doctor` for the fix"
    )
    control = json.dumps({"cancel": True, "errorMessage": line}, ensure_ascii=False)
    head, _, tail = line.partition(_EXIT)
    c_head, _, c_tail = control.partition(_EXIT)
    return shlex.quote(head), shlex.quote(tail), shlex.quote(c_head), shlex.quote(c_tail)


def cline_artifacts(contract: Contract) -> list[Artifact]:
    """One hook file per row, named for its event."""
    from pasture.render.env import render  # jinja2: only when rendering, not for the registry

    out = []
    for row in contract.events:
        words = _refusal_words(row)
        text = render(
            "cline/hook.bash.j2",
            header=header("#", contract.lifecycle_file),
            event=row.name,
            argv=shell_words(commands.argv(contract, row)),
            refusal=words is not None,
            refusal_head=words[0] if words else "",
            refusal_tail=words[1] if words else "",
            control_head=words[2] if words else "",
            control_tail=words[3] if words else "",
        )
        out.append(Artifact(f"{contract.id}/{hook_file(row.name)}", text, contract.id))
    return out


def cline_dir(env: Mapping[str, str]) -> Path:
    """Cline's user folder: ``$CLINE_DIR`` (trimmed), else ``~/.cline`` (@cline/shared resolveClineDir)."""
    from pasture.install.places import home

    value = (env.get("CLINE_DIR") or "").strip()
    return Path(value) if value else home(env) / ".cline"


class ClineCapture(CommandHookCapture):
    """Recording hook files in the throwaway workspace's ``.cline/hooks``, one per event, each running the
    recording hook; the refusal is printed from an answer file. What the hooks recorded is read as for a
    command-hook host (CommandHookCapture.records). No catalog pass: Cline runs a file for any event name of
    its enum, so the candidates are the catalog's events."""

    harness = "cline"
    options: dict[str, Any] = {}

    def candidates(self, repo_root: Path) -> list[str]:
        from pasture.hosts.recording import profile_event_names

        names = set(profile_event_names(repo_root, (self.harness,)))
        for path in sorted((Path(repo_root) / "captures").glob("cline@*/catalog.json")):
            try:
                doc = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            names |= {e["name"] for e in doc.get("events") or [] if isinstance(e, dict) and "name" in e}
        return sorted(names - set(HOST.not_events))

    def install(self, run: Run, scenario: Scenario, events: list[str]) -> None:
        from pasture.hosts.recorder import install_recorder, recorder_command

        recorder = install_recorder(run.root)
        log = run.root / self.log_name
        folder = run.project / ".cline" / "hooks"
        folder.mkdir(parents=True, exist_ok=True)
        for event in events:
            kwargs: dict[str, Any] = {"mode": "observe"}
            answer: Any = None
            if scenario.refused_event == event and scenario.channel == "adapter":
                answer = {"overrideInput": {}, "contextModification": scenario.reason()}
            elif scenario.refused_event == event and scenario.channel == "cancel":
                answer = {"cancel": True, "errorMessage": scenario.reason()}
            elif scenario.answer is not None and scenario.answer.event == event:
                answer = scenario.answer.filled(scenario.marker or "")
            if answer is not None:
                answer_file = run.root / f"answer-{event}.json"
                answer_file.write_text(json.dumps(answer, sort_keys=True) + "\n")
                kwargs = {"mode": "answer", "answer_file": answer_file}
            command = recorder_command(recorder, log, event, **kwargs)
            path = folder / event
            path.write_text(f"#!/bin/sh\nexec {command}\n")
            path.chmod(0o755)

    def catalog_method(self) -> str:
        return (
            "no catalog pass: Cline runs a hook file for every event of its own enum, so the events are those "
            "of the shipped packages (captures/<version>/catalog.json); a recording hook file for each"
        )

    def scenario_set(self) -> ScenarioSet:
        from pasture.hosts import scenario_sets as s

        return s.ScenarioSet(base=cline_scenarios(), answer=cline_answer_scenarios())


def cline_scenarios() -> tuple[Scenario, ...]:
    from pasture.hosts import scenario_sets as s

    return (
        s.ALLOW,
        s.Scenario(
            "pre-tool-use-refusal",
            "PreToolUse refuses the shell call as pasture's hook file does (hostwire/cline.py): overrideInput {} "
            "(the call's input emptied, which fails run_commands' input check) and the reason as "
            "contextModification",
            s.PROBE,
            "PreToolUse",
            "adapter",
            False,
        ),
        s.Scenario(
            "pre-tool-use-cancel",
            "PreToolUse refuses the shell call with cancel true and an errorMessage (Cline stops the task)",
            s.PROBE,
            "PreToolUse",
            "cancel",
            False,
        ),
    )


#: Cline's answer wire forms: a hook's contextModification, which Cline adds for the model as hook context
W_CLINE_CONTEXT = "contextModification"


def cline_answer_scenarios() -> tuple[Scenario, ...]:
    """The answers beyond a refusal a hook file can give: its contextModification after a tool (TaskStart's
    never reaches the model and UserPromptSubmit does not fire for a prompt on the command line, measured by
    hand: docs/hosts.md, so no context scenario is tried)."""
    from pasture.hosts import scenario_sets as s

    return (
        s.Scenario(
            "post-tool-use-feedback",
            "after the shell call PostToolUse answers contextModification; honoured if the text is in what the "
            "next request adds after the tool call",
            s.PROBE,
            answer=s.Answer("feedback", "PostToolUse", W_CLINE_CONTEXT, {"contextModification": "{marker}"}),
        ),
    )


def _cline_candidates(row: Any, output: dict[str, Any]) -> list[tuple[str, str]]:
    """A hook file's contextModification reaches the model as hook context: feedback after a tool."""
    from pasture.profile.answers import schema_field

    field = schema_field(output, W_CLINE_CONTEXT)
    if row.name == "PostToolUse" and field is not None and field.get("type") == "string":
        return [("feedback", W_CLINE_CONTEXT)]
    return []


class Cline(PluginFileMembers):
    name = "cline"
    display_name = "Cline CLI"
    surfaces: tuple[HookSurface, ...] = (HookSurface.CLINE_HOOK_FILE,)
    instructions_file = "AGENTS.md"
    native_calls: frozenset[str] = frozenset({"ask_question", "skills", "submit_and_exit"})
    unsupported_operations: Mapping[str, str] = {}  # none (pasture.profile.rules)
    npm_packages: tuple[str, ...] = ("cline",)
    npm_postinstall: tuple[tuple[str, tuple[str, ...]], ...] = ()
    binary = "cline"
    binary_flag = "--cline-bin"
    binary_env = "PASTURE_CLINE_BIN"
    catalog_reader = "cline"
    wire = "cline"
    gate_failure = "throw-fail-fast"
    launcher: HostLauncher = ClineLauncher()

    def version_env(self, home: str) -> dict[str, str]:
        return {}

    def surface_of(self, bus: bool) -> HookSurface:
        return HookSurface.CLINE_HOOK_FILE

    def artifacts(self, contract: Contract) -> list[Artifact]:
        return cline_artifacts(contract)

    # install: the hook files are pasture's own (pasture.install.hookfiles), beside the user's
    adapter_file = hook_file(MAIN_EVENT)
    install_flags: frozenset[str] = frozenset()
    managed: ManagedChannel | None = None  # no administrator channel: `--managed` refuses, doctor says so

    def target(self, project: Path | None, env: Mapping[str, str]) -> Target:
        from pasture.install.places import Target, project_folder

        if project is not None:
            project = project_folder(project)
            folder = project / ".cline" / "hooks"
            return Target(self.name, "project", folder / self.adapter_file, project, project=project)
        user = cline_dir(env)
        return Target(self.name, "user", user / "hooks" / self.adapter_file, user.parent, host_home=user)

    def pick_contract(
        self, available: list[tuple[HostVersion, str]], version: HostVersion | None, seen: str
    ) -> tuple[str, str]:
        from pasture.install.places import highest_floor

        return highest_floor(self.name, available, version, seen)

    def install(self, session: Session) -> None:
        from pasture.install import hookfiles

        adapter = session.adapter
        assert adapter is not None  # install sessions carry the adapter
        files = self.artifacts(adapter.contract)
        hookfiles.install(session, files)
        # another contract's files of ours that this one has no row for: replaced whole means those go too
        for name in _stale(session.target.file.parent, {Path(a.path).name for a in files}):
            hookfiles.uninstall_one(session, session.target.file.parent / name)

    def trust(self, session: Session) -> None:
        return None  # Cline runs every hook file it finds

    def uninstall(self, session: Session) -> None:
        from pasture.install import hookfiles

        folder = session.target.file.parent
        names = sorted({p.name for p in folder.glob("*" + EXTENSION)} | {self.adapter_file}) if folder.is_dir() else []
        hookfiles.uninstall(session, [n for n in names if n[: -len(EXTENSION)] in EVENTS or n == self.adapter_file])

    # doctor reads the PreToolUse file as a plugin file of pasture's own: PluginFileMembers

    def check_session(self, inst: Installation, ctx: DoctorContext) -> list[Finding]:
        """No trust step (the workspace's foreign hooks are off-switches: pasture.doctor.offswitch). Cline's
        workspace is the git work tree's top folder of where it starts, else that folder: a session started
        where that is not the project reads none of the project's hook files."""
        from pasture.doctor.findings import Finding

        project, start = inst.target.project, ctx.start
        if project is None or start is None or workspace_of(start) == project:
            return []
        return [
            Finding(
                "cline-start-folder",
                "warn" if ctx.covered else "off",
                f"Cline started in {start} reads the hook files of {workspace_of(start)} (its workspace: the git "
                f"work tree's top folder, else the folder it starts in), not {project}/.cline/hooks"
                + ("; the user-scope hooks still run" if ctx.covered else "; nothing of pasture's runs there"),
                inst.harness,
                fix=f"start cline in {project}, or install for the user: pasture install cline --user",
                where=str(inst.target.file),
            )
        ]

    def check_environment(
        self, project: Path | None, env: Mapping[str, str], installs: list[Installation]
    ) -> list[Finding]:
        return []

    # capture, profile new
    capture: CaptureAdapter = ClineCapture()
    identity_fields: Mapping[str, str] = {"taskId": "session"}
    capture_identity_fields: Mapping[str, str] = {"taskId": "session"}
    not_events: Mapping[str, str] = {
        "PreCompact": "@cline/core maps the PreCompact hook file to no agent hook (undefined): it never runs"
    }
    # the refusal Cline reads is the one pasture's generated hook file prints (hostwire/cline.py): a PreToolUse
    # row fails fast only where a capture shows that refusal holding (channel "adapter")
    throw_refuses = True
    tool_matchers = False
    output_in_payload = False
    observation_axes: Mapping[str, Mapping[str, str]] = {
        "cline-hook-file": {
            "order": "sequential-load-order",
            "reconciliation": "none",
            "failure": "report-and-continue",
        }
    }
    gate_axes: Mapping[str, Mapping[str, str]] = {
        "cline-hook-file": {"order": "sequential-load-order", "reconciliation": "sequential-mutation"}
    }

    def answer_candidates(self, row: Any, output: dict[str, Any], inputs: dict[str, Any]) -> list[tuple[str, str]]:
        return _cline_candidates(row, output)

    def lifecycle_payload(self, event: str, payload: Any, bus: bool) -> Any:
        return payload  # the hook file's stdin, as Cline sent it

    install_binary_use: str | None = None
    doctor_binary_use: str | None = None
    trust_project_help: str | None = None
    pasture_bin_reader: str | None = "the Cline hook files"


#: the hook-file events of @cline/core's enum (pasture.catalog.cline reads them from the package)
EVENTS = frozenset(
    {
        "TaskStart",
        "TaskResume",
        "TaskCancel",
        "TaskComplete",
        "TaskError",
        "PreToolUse",
        "PostToolUse",
        "UserPromptSubmit",
        "PreCompact",
        "SessionShutdown",
    }
)


def workspace_of(start: Path) -> Path:
    """The folder Cline takes for its workspace when started in ``start``: the top of the git work tree
    holding it (a ``.git`` folder or file), else ``start`` itself."""
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return start


def _stale(folder: Path, names: set[str]) -> list[str]:
    """pasture hook files in ``folder`` that the installed contract does not have (an older contract's)."""
    from pasture.install.hookfiles import is_ours

    out = []
    for path in sorted(folder.glob("*" + EXTENSION)):
        if path.name in names or path.name[: -len(EXTENSION)] not in EVENTS:
            continue
        try:
            with path.open("rb") as fh:
                if is_ours(fh.read(64)):
                    out.append(path.name)
        except OSError:
            continue
    return out


HOST: Host = Cline()  # mypy checks the class against the Protocol here
