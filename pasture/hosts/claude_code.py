"""Claude Code: its adapter (a settings fragment for .claude/settings.json and a plugin bundle), its
catalog (the zod schemas bundled into the CLI, parsed by pasture.catalog.claude), and its offline run.

Answers on the hook path: pasture/runtime/hostwire/claude_code.py.

Offline run: headless (``claude -p``) against the fake Anthropic Messages server.

* **Env:** ``ANTHROPIC_BASE_URL`` = the fake (no ``/v1``), a fake ``ANTHROPIC_API_KEY``,
  ``CLAUDE_CONFIG_DIR`` inside the run's HOME, and the switches that stop non-essential traffic
  (bootstrap, telemetry, error reports, auto-update).
* **Permissions:** ``permission_mode="bypass"`` (default) passes
  ``--dangerously-skip-permissions``; as root that flag is refused unless ``IS_SANDBOX=1``, which is
  set with it. Any other value is passed as ``--permission-mode <value>`` (e.g. ``"default"``:
  then a PermissionRequest hook must allow the call, or ``-p`` denies it).
* **Trust:** under ``-p`` the project's ``.claude/settings.json`` hooks run with no trust prompt.
* **Config files:** none are needed; a test writes ``<project>/.claude/settings.json`` itself.
* **Debug log:** ``<run>/claude-debug.log`` (Claude also puts a ``latest`` symlink beside it).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from pasture.hosts.launch import FAKE_API_KEY, HostLauncher, RunContext
from pasture.hosts.protocol import Host
from pasture.hosts.recording import CATALOG_PROBE, CaptureAdapter, CommandHookCapture, Run, profile_event_names
from pasture.hosts.scenario_sets import PROBE, PROBE_COMMAND, Approvals, Scenario
from pasture.hosts.script import Script, Turn
from pasture.profile.answers import command_candidates
from pasture.profile.contracts import Contract
from pasture.profile.vocab import HookSurface
from pasture.render import commands
from pasture.render.artifact import Artifact, header

if TYPE_CHECKING:
    from pasture.doctor.findings import Finding
    from pasture.doctor.installed import DoctorContext, Installation
    from pasture.hosts.scenario_sets import ScenarioSet
    from pasture.install.places import Target
    from pasture.install.session import Adapter, Session
    from pasture.profile.versions import HostVersion

__all__ = [
    "HOST",
    "PLUGIN_NAME",
    "ClaudeCode",
    "ClaudeCodeCapture",
    "ClaudeCodeLauncher",
    "claude_artifacts",
]

PLUGIN_NAME = "pasture-lifecycle"


class ClaudeCodeLauncher(HostLauncher):
    host = "claude-code"
    wire_protocol = "anthropic"
    default_options = {
        "model": "claude-sonnet-4-5",
        "permission_mode": "bypass",  # or "default", "acceptEdits", "plan", ...
        "output_format": "json",
        "debug_file": True,
        "extra_args": [],
    }

    def env(self, ctx: RunContext) -> dict[str, str]:
        env = {
            "ANTHROPIC_BASE_URL": ctx.base_url,
            "ANTHROPIC_API_KEY": FAKE_API_KEY,
            "CLAUDE_CONFIG_DIR": str(ctx.layout.claude_config),
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_ERROR_REPORTING": "1",
        }
        if ctx.options["permission_mode"] == "bypass":
            env["IS_SANDBOX"] = "1"  # --dangerously-skip-permissions is refused as root otherwise
        return env

    def argv(self, ctx: RunContext) -> list[str]:
        o = ctx.options
        argv = [str(ctx.binary), "-p", ctx.prompt, "--output-format", o["output_format"], "--model", o["model"]]
        if o["permission_mode"] == "bypass":
            argv.append("--dangerously-skip-permissions")
        else:
            argv += ["--permission-mode", o["permission_mode"]]
        if o["debug_file"]:
            argv += ["--debug-file", str(ctx.layout.root / "claude-debug.log")]
        return argv + list(o["extra_args"])


def claude_artifacts(contract: Contract) -> list[Artifact]:
    from pasture.render.env import render  # jinja2: only when rendering, not for the registry

    base = contract.id
    hooks = commands.hooks_table(contract)
    note = header("", contract.lifecycle_file).strip()
    settings = {"hooks": hooks}
    plugin = {
        "name": PLUGIN_NAME,
        "version": str(contract.version),
        "description": f"Pasture lifecycle hooks for Claude Code ({contract.admission.describe()}); {note}",
    }
    plugin_hooks = {"description": note, "hooks": hooks}
    return [
        Artifact(f"{base}/settings.json", render("json.j2", document=settings), contract.id),
        Artifact(f"{base}/plugin/.claude-plugin/plugin.json", render("json.j2", document=plugin), contract.id),
        Artifact(f"{base}/plugin/hooks/hooks.json", render("json.j2", document=plugin_hooks), contract.id),
    ]


_CLAUDE_VALID = re.compile(rf'Unknown hook event "{CATALOG_PROBE}" was ignored\. Valid events: ([A-Za-z, ]+)')


class ClaudeCodeCapture(CommandHookCapture):
    """Claude Code names every valid hook event when its settings carry an unknown one: the catalog pass
    registers only the probe key :data:`CATALOG_PROBE`; the debug log then says
    ``Unknown hook event "PastureCatalogProbe" was ignored. Valid events: ...``."""

    harness = "claude-code"
    config_dir = ".claude"
    config_file = "settings.json"
    options = {"debug_file": True}

    def candidates(self, repo_root: Path) -> list[str]:
        return profile_event_names(repo_root, (self.harness,))

    def has_catalog_pass(self) -> bool:
        return True

    def install_catalog_probe(self, run: Run, candidates: list[str]) -> None:
        # Only the probe key: the host's error message lists every valid event.
        self._write(run, self._hooks(run, [CATALOG_PROBE], None))

    def read_catalog(self, run: Run) -> list[str] | None:
        log = run.root / "claude-debug.log"
        if not log.exists():
            return None
        match = _CLAUDE_VALID.search(log.read_text(errors="replace"))
        if match is None:
            return None
        return [name.strip() for name in match.group(1).split(",") if name.strip()]

    def catalog_method(self) -> str:
        return (
            f"settings.json registered the unknown hook event {CATALOG_PROBE}; the host's debug log "
            "listed its valid events"
        )

    def scenario_set(self) -> ScenarioSet:
        from pasture.hosts import scenario_sets as s

        return s.ScenarioSet(
            base=s.command_host_scenarios(),
            extra=(s.ASK,),
            trigger=slash_command_scenarios(),
            answer=s.command_answer_scenarios(DEFAULT_PERMISSION_MODE),
        )


def check_start(inst: Installation, start: Path | None, covered: bool = False) -> list[Finding]:
    """Claude Code reads <dir>/.claude/settings.json only for the folder it is started in. ``covered``:
    our user-scope adapter is installed too, so such a session still runs pasture's hooks."""
    from pasture.doctor.findings import Finding
    from pasture.doctor.installed import q

    project = inst.target.project
    if project is None or start is None:
        return []
    start, project = start.resolve(), project.resolve()
    if start == project:
        return []
    # Issue 18: a session started here runs none of the project's hooks, so unless our user-scope
    # adapter covers it, enforcement is off for it (issue 9 called it a warning; "on" was false).
    status = "warn" if covered else "off"
    tail = (
        "; the user-scope adapter still runs pasture's hooks" if covered else ": no pasture hook runs in such a session"
    )
    return [
        Finding(
            "claude-start",
            status,
            f"Claude Code started in {start} loads no project settings: it reads "
            f"{project}/.claude/settings.json only when started in {project} (host behaviour){tail}",
            inst.harness,
            fix=f"start claude in {project} (cd {q(project)}), or install for the user: "
            "pasture install claude-code --user",
        )
    ]


def _disable_all_hooks(inst: Installation) -> Any:
    def check(doc: dict[str, Any]) -> list[Finding]:
        from pasture.doctor.findings import Finding

        where = str(inst.target.file)
        if doc.get("disableAllHooks") is not True:
            return []
        return [
            Finding(
                "adapter",
                "off",
                f"{where} sets disableAllHooks: true: Claude Code runs no hook",
                inst.harness,
                fix=f'remove "disableAllHooks" from {where}',
                where=where,
            )
        ]

    return check


class ClaudeCode:
    name = "claude-code"
    display_name = "Claude Code"
    surfaces: tuple[HookSurface, ...] = (HookSurface.CLAUDE_COMMAND_JSON,)
    instructions_file = "CLAUDE.md"  # where the generated agent instructions go
    # Agent/SendMessage/TaskStop-era tools only (never the removed TeamCreate/TeamDelete).
    native_calls = frozenset({"Agent", "SendMessage", "TaskStop", "TaskOutput", "Skill", "AskUserQuestion"})
    npm_packages: tuple[str, ...] = ("@anthropic-ai/claude-code",)
    npm_postinstall: tuple[tuple[str, tuple[str, ...]], ...] = (("@anthropic-ai/claude-code", ("node", "install.cjs")),)
    binary = "claude"
    binary_flag = "--claude-bin"
    binary_env = "PASTURE_CLAUDE_BIN"
    catalog_reader = "claude"
    wire = "claude_code"
    gate_failure = "exit-2-blocks"
    launcher: HostLauncher = ClaudeCodeLauncher()

    def version_env(self, home: str) -> dict[str, str]:
        return {
            "CLAUDE_CONFIG_DIR": f"{home}/.claude",
            "DISABLE_AUTOUPDATER": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        }

    def surface_of(self, bus: bool) -> HookSurface:
        return HookSurface.CLAUDE_COMMAND_JSON

    def artifacts(self, contract: Contract) -> list[Artifact]:
        return claude_artifacts(contract)

    # install: the hooks merged into settings.json, plus Claude Code's own permissions.deny rules for the
    # guard's files (pasture.install.denyrules). No trust step: the hooks of a project's
    # .claude/settings.json run once Claude Code is started in it (headless -p: with no prompt at all).
    adapter_file = "settings.json"
    install_flags: frozenset[str] = frozenset()

    def target(self, project: Path | None, env: Mapping[str, str]) -> Target:
        from pasture.install.places import Target, claude_user_dir, project_folder

        if project is not None:
            project = project_folder(project)
            return Target(self.name, "project", project / ".claude" / "settings.json", project, project=project)
        folder = claude_user_dir(env)
        return Target(self.name, "user", folder / "settings.json", folder.parent)

    def pick_contract(
        self, available: list[tuple[HostVersion, str]], version: HostVersion | None, seen: str
    ) -> tuple[str, str]:
        from pasture.install.places import highest_floor

        return highest_floor(self.name, available, version, seen)

    def install(self, session: Session) -> None:
        from pasture.install import jsonhooks
        from pasture.install.denyrules import DenyRulesAmendment

        jsonhooks.install(session, DenyRulesAmendment())

    def trust(self, session: Session) -> None:
        return None

    def uninstall(self, session: Session) -> None:
        from pasture.install import jsonhooks
        from pasture.install.denyrules import DenyRulesAmendment

        jsonhooks.uninstall(session, DenyRulesAmendment())

    # doctor
    def read_installation(self, target: Target, text: str) -> Installation | Finding | None:
        from pasture.doctor.installed import read_json_hooks

        return read_json_hooks(self.name, target, text)

    def check_adapter(self, inst: Installation, adapter: Adapter) -> list[Finding]:
        from pasture.doctor.installed import check_json_hooks

        return check_json_hooks(inst, adapter, _disable_all_hooks(inst))

    def check_launcher(self, inst: Installation, env: Mapping[str, str]) -> list[Finding]:
        from pasture.doctor.installed import check_json_launcher

        return check_json_launcher(inst, env)

    def check_session(self, inst: Installation, ctx: DoctorContext) -> list[Finding]:
        return check_start(inst, ctx.start, ctx.covered)

    def check_environment(
        self, project: Path | None, env: Mapping[str, str], installs: list[Installation]
    ) -> list[Finding]:
        from pasture.doctor import sandbox

        found: list[Finding] = []
        for inst in installs:
            found += sandbox.claude_deny_rules(inst.target.file, inst.target.project, env)
        return found + sandbox.claude(project, env)

    # capture, profile new
    capture: CaptureAdapter = ClaudeCodeCapture()
    identity_fields: Mapping[str, str] = {
        "session_id": "session",
        "turn_id": "turn",
        "tool_use_id": "tool-call",
        "agent_id": "agent",
        "request_id": "request",
        "message_id": "message",
        "elicitation_id": "request",
    }
    capture_identity_fields: Mapping[str, str] = {
        "session_id": "session",
        "turn_id": "turn",
        "tool_use_id": "tool-call",
        "agent_id": "agent",
        "request_id": "request",
        "message_id": "message",
    }
    not_events: Mapping[str, str] = {}
    throw_refuses = False
    tool_matchers = True

    observation_axes: Mapping[str, Mapping[str, str]] = {
        "claude-command-json": {
            "order": "concurrent-native",
            "reconciliation": "none",
            "failure": "report-and-continue",
        }
    }
    gate_axes: Mapping[str, Mapping[str, str]] = {
        "claude-command-json": {"order": "concurrent-native", "reconciliation": "host-native"}
    }

    def answer_candidates(self, row: Any, output: dict[str, Any], inputs: dict[str, Any]) -> list[tuple[str, str]]:
        return command_candidates(row, output, inputs)

    def lifecycle_payload(self, event: str, payload: Any, bus: bool) -> Any:
        return payload  # the command hook's stdin, as the host sent it


HOST: Host = ClaudeCode()  # mypy checks the class against the Protocol here


# --- what `pasture capture` runs on this host (the scenarios its ScenarioSet is made of) ---------

# Claude Code's PreSkillShellCommand fires before a shell command embedded in a slash command or
# skill (a line "!`command`") runs, at prompt expansion, before the model sees the prompt. A
# project slash command whose only shell line writes the probe file triggers it offline: the
# prompt "/pasture-probe" expands it, and the fake model just answers.
_SKILL_COMMAND = (
    ".claude/commands/pasture-probe.md",
    f"""---
description: Write the pasture probe file
allowed-tools: Bash(echo:*)
---
!`{PROBE_COMMAND}`
Report what the command above printed.
""",
)

_SKILL_REPLY = Script.of(Turn.reply("Done."))


def slash_command_scenarios() -> tuple[Scenario, ...]:
    expansion: dict[str, Any] = dict(prompt="/pasture-probe", files=(_SKILL_COMMAND,))
    common: dict[str, Any] = dict(expansion, triggers=("PreSkillShellCommand",))
    return (
        Scenario(
            "slash-command-allow",
            "the slash command /pasture-probe holds the shell line "
            f"!`{PROBE_COMMAND}`; nothing refuses, so expanding it writes the probe file",
            _SKILL_REPLY,
            **expansion,
            triggers=("UserPromptExpansion", "PreSkillShellCommand"),
        ),
        Scenario(
            "user-prompt-expansion-exit-2",
            "UserPromptExpansion refuses the expansion of /pasture-probe by "
            "exiting 2; the expansion (and its shell line) must not happen",
            _SKILL_REPLY,
            "UserPromptExpansion",
            "exit-2",
            False,
            **expansion,
            triggers=("UserPromptExpansion",),
        ),
        Scenario(
            "pre-skill-shell-command-exit-2",
            "PreSkillShellCommand refuses the slash command's shell line by exiting 2 with the reason on stderr",
            _SKILL_REPLY,
            "PreSkillShellCommand",
            "exit-2",
            False,
            **common,
        ),
        Scenario(
            "pre-skill-shell-command-json-deny",
            "PreSkillShellCommand refuses the slash command's shell line "
            "with hookSpecificOutput.permissionDecision deny",
            _SKILL_REPLY,
            "PreSkillShellCommand",
            "json-deny",
            False,
            **common,
        ),
    )


# Claude Code's default permission mode (no --dangerously-skip-permissions): the redirect needs approval.
_CLAUDE_DEFAULT = (("permission_mode", "default"),)

#: Claude Code's default permission mode (no --dangerously-skip-permissions).
DEFAULT_PERMISSION_MODE = Approvals(_CLAUDE_DEFAULT, PROBE, "in the default permission mode (no bypass flag)", True)
