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
from pasture.hosts.members import CommandJsonAnswerMembers
from pasture.hosts.protocol import Host
from pasture.hosts.recording import CATALOG_PROBE, CaptureAdapter, CommandHookCapture, Run, profile_event_names
from pasture.hosts.scenario_sets import PROBE, PROBE_COMMAND, Approvals, Scenario
from pasture.hosts.script import Script, Turn
from pasture.install.managed import ManagedChannel
from pasture.install.managed_json import JsonSettingsChannel
from pasture.profile.contracts import Contract, EventRow
from pasture.profile.versions import HostVersion
from pasture.profile.vocab import Harness, HookSurface
from pasture.render import commands
from pasture.render.artifact import Artifact, header
from pasture.runtime.hostwire.claude_code import BYPASS, GUARDED_SYSTEM_FILES, HEADLESS

if TYPE_CHECKING:
    from pasture.doctor.findings import Finding
    from pasture.doctor.installed import DoctorContext
    from pasture.hosts.scenario_sets import ScenarioSet
    from pasture.install.places import Installation, Target
    from pasture.install.session import Adapter, Session

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
    home_folders = (".claude",)
    cleared_env = ("CLAUDE_CODE_OAUTH_TOKEN",)
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
            "CLAUDE_CONFIG_DIR": str(ctx.layout.home / self.home_folders[0]),
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
        argv = [str(ctx.binary), HEADLESS, ctx.prompt, "--output-format", o["output_format"], "--model", o["model"]]
        if o["permission_mode"] == "bypass":
            argv.append(BYPASS)
        else:
            argv += ["--permission-mode", o["permission_mode"]]
        if o["debug_file"]:
            argv += ["--debug-file", str(ctx.layout.root / "claude-debug.log")]
        return argv + list(o["extra_args"])


#: Claude Code honours ``"onFailure": "block"`` on command hooks from 2.1.295 (release note). The real
#: Claude Code 2.1.328 accepts the key and blocks PreToolUse when the hook cannot start (exit 127)
#: and when it outlives its timeout, where without the key the tool runs
#: (tests/install/test_claude_onfailure_real.py). It covers what the shell tail cannot: a hook the
#: host kills at its timeout. Claude ignores it on Stop, SubagentStop, TaskCompleted and
#: TeammateIdle (its own exemption list), and a Stop must never be blocked by a failure anyway, so
#: Stop-like rows never get it. Contracts whose floor predates 2.1.295 never get it either: an older
#: host may reject the unknown key and skip the hook.
ON_FAILURE_SINCE = HostVersion.parse("2.1.295")


def on_failure_block(contract: Contract, row: EventRow) -> bool:
    return (
        contract.harness is Harness.CLAUDE_CODE
        and contract.version >= ON_FAILURE_SINCE
        and commands.fails_closed(row)
        and not commands.guards_stop_loop(row)
    )


#: Claude Code hands the model ``<Event> hook blocking error from command: "<command>": <reason>`` with
#: every JSON block (a Stop continuation, PostToolUse feedback, a refusal): ~590 bytes of our shell
#: line. Where a command hook sets ``statusMessage``, the host names the hook by it instead (read in
#: the binaries of 2.1.261, 2.1.328 and 2.1.332: the display name is ``statusMessage ?? command`` on
#: the JSON-answer path; the exit-2 path still quotes the command; each one's settings schema has the
#: key). From 2.1.261, the oldest version read.
STATUS_MESSAGE_SINCE = HostVersion.parse("2.1.261")
STATUS_MESSAGE = "pasture guard"


def handler_extra(contract: Contract, row: EventRow) -> dict:
    """Claude Code's own keys of a command handler (render.commands.hooks_table's extra)."""
    out: dict = {}
    if on_failure_block(contract, row):
        out["onFailure"] = "block"
    if contract.harness is Harness.CLAUDE_CODE and contract.version >= STATUS_MESSAGE_SINCE:
        out["statusMessage"] = STATUS_MESSAGE
    return out


def claude_artifacts(contract: Contract) -> list[Artifact]:
    from pasture.render.env import render  # jinja2: only when rendering, not for the registry

    base = contract.id
    hooks = commands.hooks_table(contract, handler_extra)
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


# Managed install (issue 28), read in @anthropic-ai/claude-code 2.1.332 bin/claude.exe (its embedded JS):
# `pr()` is "/etc/claude-code" on Linux (no variable moves it), `os()` joins "managed-settings.json"; the
# hooks of a session, `r()`: `if(o?.disableAllHooks===!0)return{}; if(o?.allowManagedHooksOnly===!0||...)
# return o?.hooks??{}` with `o=me("policySettings")`: with the flag only the managed settings' hooks run,
# and a project's or user's disableAllHooks no longer reaches them (it is read from the other sources
# only after those two returns). The flag does not reach a project's settings `env` block, whose
# CLAUDE_CODE_SHELL_PREFIX still wraps every Bash command the hooks approved (shown on the real host); the
# managed settings' own `env` wins over a project's, and an empty CLAUDE_CODE_SHELL_PREFIX there runs none,
# so the install pins it (an administrator's own value stays). Proven on the real host:
# tests/realhost/test_managed_real_hosts.py.
MANAGED = JsonSettingsChannel(
    paths=GUARDED_SYSTEM_FILES,
    lockout="allowManagedHooksOnly: true: only the managed settings' hooks run; a project's or user's "
    "disableAllHooks and their own hooks are ignored; env.CLAUDE_CODE_SHELL_PREFIX set there, so a project's "
    "cannot wrap the commands the guard approved",
    read_in="2.1.332",
    lock=(("allowManagedHooksOnly", True),),
    pins=(("env.CLAUDE_CODE_SHELL_PREFIX", ""),),
)


class ClaudeCode(CommandJsonAnswerMembers):
    name = "claude-code"
    display_name = "Claude Code"
    surfaces: tuple[HookSurface, ...] = (HookSurface.CLAUDE_COMMAND_JSON,)
    instructions_file = "CLAUDE.md"  # where the generated agent instructions go
    # Agent/SendMessage/TaskStop-era tools only (never the removed TeamCreate/TeamDelete).
    native_calls = frozenset({"Agent", "SendMessage", "TaskStop", "TaskOutput", "Skill", "AskUserQuestion"})
    unsupported_operations: Mapping[str, str] = {}  # none (pasture.profile.rules)
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
    managed: ManagedChannel | None = MANAGED

    def target(self, project: Path | None, env: Mapping[str, str]) -> Target:
        from pasture.install.places import Target, project_folder

        if project is not None:
            project = project_folder(project)
            return Target(self.name, "project", project / ".claude" / "settings.json", project, project=project)
        folder = user_dir(env)
        return Target(self.name, "user", folder / "settings.json", folder.parent)

    def pick_contract(
        self, available: list[tuple[HostVersion, str]], version: HostVersion | None, seen: str
    ) -> tuple[str, str]:
        from pasture.install.places import highest_floor

        return highest_floor(self.name, available, version, seen)

    def install(self, session: Session) -> None:
        from pasture.install import jsonhooks
        from pasture.install.denyrules import DenyRulesAmendment

        jsonhooks.install(session, DenyRulesAmendment(self.display_name, self.deny_records))

    def trust(self, session: Session) -> None:
        return None

    def uninstall(self, session: Session) -> None:
        from pasture.install import jsonhooks
        from pasture.install.denyrules import DenyRulesAmendment

        jsonhooks.uninstall(session, DenyRulesAmendment(self.display_name, self.deny_records))

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
        found: list[Finding] = []
        for inst in installs:
            found += deny_rule_findings(inst.target.file, inst.target.project, env)
        return found + sandbox_findings(project, env)

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
    output_in_payload = False

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

    # install and doctor (per host)

    install_binary_use: str | None = None
    doctor_binary_use: str | None = None
    trust_project_help: str | None = None
    pasture_bin_reader: str | None = None
    #: the state folder of the records of the permissions.deny rules install added (pasture.install.denyrules)
    deny_records = "claude-deny"


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


# install and doctor (per host)


def user_dir(env: Mapping[str, str]) -> Path:
    """Claude Code's user folder: ``$CLAUDE_CONFIG_DIR``, else ``~/.claude``."""
    from pasture.install.places import env_dir, home

    return env_dir(env, "CLAUDE_CONFIG_DIR", home(env) / ".claude")


def _sandbox(doc: dict[str, Any]) -> dict[str, Any]:
    value = doc.get("sandbox")
    return value if isinstance(value, dict) else {}


def _deny_write(entry: str, settings: Path, project: Path, home: Path) -> Path | None:
    """The path a sandbox.filesystem.denyWrite entry names (Claude Code's prefixes), None for a glob."""
    if any(c in entry for c in "*?["):
        return None
    if entry.startswith("//"):
        return Path(entry[1:])
    if entry.startswith("~/"):
        return home / entry[2:]
    if entry.startswith("/"):  # relative to the settings file's project (the folder holding .claude/)
        return settings.parent.parent / entry.lstrip("/")
    return project / entry


def _covers(denied: Path, target: Path) -> bool:
    import os

    denied, target = Path(os.path.normpath(denied)), Path(os.path.normpath(target))
    return denied == target or denied in target.parents


def sandbox_findings(project: Path | None, env: Mapping[str, str]) -> list[Finding]:
    """Claude Code's OS sandbox (pasture.doctor.sandbox: what it keeps from the agent's commands)."""
    from pasture.doctor.findings import Finding
    from pasture.doctor.sandbox import read_json

    home = Path(env.get("HOME") or Path.home())
    files = (
        [project / ".claude" / "settings.local.json", project / ".claude" / "settings.json"]
        if project is not None
        else []
    ) + [user_dir(env) / "settings.json"]
    enabled, said_by, denied = None, None, []
    for path in files:
        box = _sandbox(read_json(path))
        if enabled is None and isinstance(box.get("enabled"), bool):
            enabled, said_by = box["enabled"], path
        filesystem = box.get("filesystem")
        filesystem = filesystem if isinstance(filesystem, dict) else {}
        for entry in filesystem.get("denyWrite") or []:
            if isinstance(entry, str) and project is not None:
                named = _deny_write(entry, path, project, home)
                if named is not None:
                    denied.append(named)
    where = files[0] if project is not None else files[-1]
    pasture_dir = project / ".pasture" if project is not None else None
    deny_entry = f'"//{str(pasture_dir).lstrip("/")}"' if pasture_dir is not None else None
    if not enabled:
        state = f"off ({said_by} sets sandbox.enabled = false)" if said_by else "not enabled in any settings file"
        add = ', "filesystem": {"denyWrite": [' + deny_entry + "]}" if deny_entry else ""
        return [
            Finding(
                "sandbox",
                "warn",
                f"Claude Code's OS sandbox is {state}: a program the agent writes and "
                "runs can change the guard's files (its policy, trust store, journal) where no hook sees it",
                "claude-code",
                fix=f'add "sandbox": {{"enabled": true{add}}} to {where} (or turn it on with /sandbox in Claude Code)',
                where=str(where),
            )
        ]
    if pasture_dir is not None and not any(_covers(d, pasture_dir) for d in denied):
        return [
            Finding(
                "sandbox",
                "warn",
                f"Claude Code's OS sandbox is on ({said_by}): the user's policy, the trust "
                f"store and pasture's state cannot be written by the agent's commands, but {pasture_dir} is "
                "inside the folder they may write",
                "claude-code",
                fix=f'add {deny_entry} to "sandbox": {{"filesystem": {{"denyWrite": [...]}}}} in {where}',
                where=str(where),
            )
        ]
    what = (
        f"and {pasture_dir} is in sandbox.filesystem.denyWrite"
        if pasture_dir is not None
        else "(a project's .pasture/ is writable unless its settings deny it)"
    )
    return [
        Finding(
            "sandbox",
            "ok",
            f"Claude Code's OS sandbox is on ({said_by}): the user's policy, the trust store "
            f"and pasture's state cannot be written by the agent's commands, {what}",
            "claude-code",
        )
    ]


def deny_rule_findings(settings: Path, project: Path | None, env: Mapping[str, str]) -> list[Finding]:
    """Whether the settings file carries the permissions.deny rules install writes (an install by an
    older pasture, or a hand edit, may lack them)."""
    from pasture.doctor.findings import Finding
    from pasture.doctor.sandbox import read_json
    from pasture.install.denyrules import rules_for

    permissions = read_json(settings).get("permissions")
    deny = permissions.get("deny") if isinstance(permissions, dict) else None
    have = set(deny) if isinstance(deny, list) else set()
    missing = [rule for rule in rules_for(project, env)[0] if rule not in have]
    scope = f"--project {project}" if project is not None else "--user"
    if missing:
        return [
            Finding(
                "host-deny",
                "warn",
                f"{settings} lacks {len(missing)} of the permissions.deny rules that make "
                f"Claude Code itself refuse its file tools on the guard's files (e.g. {missing[0]})",
                "claude-code",
                fix=f"pasture install claude-code {scope}",
                where=str(settings),
            )
        ]
    return [
        Finding(
            "host-deny",
            "ok",
            f"{settings}: Claude Code's own permissions.deny rules cover the guard's files",
            "claude-code",
            where=str(settings),
        )
    ]
