"""Qwen Code: its adapter (a ``hooks`` fragment for .qwen/settings.json), its catalog (the hook reference
bundled in ``@qwen-code/qwen-code`` and the code that reads hook output, parsed by pasture.catalog.qwen), and
its offline run. Qwen Code is a Gemini CLI fork (settings layout, .env loading, headless ``-p``) whose hooks
are Claude Code's in shape (PreToolUse, ``hookSpecificOutput.permissionDecision``, ``decision: "block"``,
exit 2): what it shares with each is imported from that host's module, not copied.

Answers on the hook path: pasture/runtime/hostwire/qwen_code.py.

* **Hooks:** ``hooks.<Event>`` in ``<project>/.qwen/settings.json`` or ``~/.qwen/settings.json``
  (``$QWEN_HOME/settings.json``), and a system layer (``/etc/qwen-code/settings.json``, or
  ``QWEN_CODE_SYSTEM_SETTINGS_PATH``): matcher groups of ``{"type": "command", "command", "timeout"
  (seconds)}`` (bundled docs/features/hooks.md). pasture installs at project and user scope only.
* **Failure:** exit 2 is the documented blocking error; any other exit, or a timeout, is a warning and the
  tool runs. So every blocking row gets the command's fail-closed tail and the runtime answers by its row
  deadline, before the host's timeout.
* **Trust:** ``security.folderTrust.enabled`` is false by default (the bundled settings schema), so a
  project's hooks run without a trust step; a user who turns folder trust on must trust the project in
  Qwen Code itself (doctor says so).

Offline run: ``qwen -p PROMPT --yolo --output-format json`` against the fake OpenAI chat completions API
(``OPENAI_BASE_URL``, ``OPENAI_API_KEY``, ``OPENAI_MODEL``; ``security.auth.selectedType: "openai"`` in
``~/.qwen/settings.json``). Option ``yolo`` (default true): false runs in the default approval mode, where a
headless run cannot confirm a shell call (the answer scenarios' control).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from pasture.hosts.gemini_cli import GeminiCliCapture, merge_json
from pasture.hosts.launch import FAKE_API_KEY, HostLauncher, RunContext
from pasture.hosts.members import CommandJsonAnswerMembers, JsonHooksDoctorMembers
from pasture.hosts.protocol import Host
from pasture.hosts.recording import CaptureAdapter
from pasture.hosts.scenario_sets import PROBE, Approvals
from pasture.install.managed import ManagedChannel
from pasture.install.managed_json import JsonSettingsChannel
from pasture.profile.contracts import Contract
from pasture.profile.vocab import HookSurface
from pasture.render import commands
from pasture.render.artifact import Artifact
from pasture.runtime.hostwire.qwen_code import GUARDED_SYSTEM_FILES

if TYPE_CHECKING:
    from pasture.doctor.findings import Finding
    from pasture.doctor.installed import DoctorContext
    from pasture.hosts.scenario_sets import ScenarioSet
    from pasture.install.places import Installation, Target
    from pasture.install.session import Session
    from pasture.profile.versions import HostVersion

__all__ = ["HOST", "QwenCode", "QwenCodeCapture", "QwenLauncher", "qwen_artifacts", "user_folder"]


# Managed install, read in @qwen-code/qwen-code 0.24.4 (chunks/, esbuild): chunk-IDS7MSUP.js
# getSystemSettingsPath: `QWEN_CODE_SYSTEM_SETTINGS_PATH`, else "/etc/qwen-code/settings.json" on Linux;
# chunk-LYEINKJD.js mergeSettings(system, systemDefaults, user, workspace) merges the system settings last, so
# its `disableAllHooks: false` wins over a project's or user's true; chunk-DPEB6S2R.js
# HookRegistry.processHooksFromConfig runs the system hooks (getSystemHooks) first, then the user's and the
# project's. No flag keeps the others out, and --safe-mode / --bare turn every hook off, the system's included
# (chunk-WH7PDTZL.js loadCliConfig: `disableAllHooks: bareMode || safeMode ? true : ...`).
MANAGED = JsonSettingsChannel(
    paths=GUARDED_SYSTEM_FILES,
    lockout="disableAllHooks: false in the system settings, which Qwen Code merges last (a project's or "
    "user's true loses)",
    read_in="0.24.4",
    lock=(("disableAllHooks", False),),
    env_path="QWEN_CODE_SYSTEM_SETTINGS_PATH",
    gaps=(
        (
            "qwen --safe-mode or --bare runs no hook at all, the system settings' included (loadCliConfig)",
            "let users start Qwen Code only through a wrapper that refuses those flags",
        ),
        (
            "no managed-only flag: a repository's own hooks still run beside pasture's",
            "review a repository's .qwen/settings.json hooks before working in it",
        ),
        (
            "QWEN_CODE_SYSTEM_SETTINGS_PATH in the user's own environment moves the system settings file",
            "leave QWEN_CODE_SYSTEM_SETTINGS_PATH unset in the users' environment",
        ),
    ),
)


class QwenLauncher(HostLauncher):
    host = "qwen-code"
    wire_protocol = "openai-chat"
    # yolo False: the default approval mode (answer scenarios)
    default_options = {"model": "fake-model", "extra_args": [], "yolo": True}

    def env(self, ctx: RunContext) -> dict[str, str]:
        return {
            "OPENAI_BASE_URL": ctx.base_url_v1,
            "OPENAI_API_KEY": FAKE_API_KEY,
            "OPENAI_MODEL": ctx.options["model"],
            "QWEN_CODE_NO_RELAUNCH": "true",
        }

    def prepare(self, ctx: RunContext) -> None:
        merge_json(
            ctx.layout.home / ".qwen" / "settings.json",
            {
                "security": {"auth": {"selectedType": "openai"}},
                "general": {"enableAutoUpdate": False},
                "privacy": {"usageStatisticsEnabled": False},
                "telemetry": {"enabled": False},
                # the background memory agents ask the model too: the fake's script is the session's alone
                "memory": {"enableManagedAutoMemory": False, "enableManagedAutoDream": False},
            },
        )

    def argv(self, ctx: RunContext) -> list[str]:
        yolo = ["--yolo"] if ctx.options["yolo"] else []
        return [str(ctx.binary), "-p", ctx.prompt, *yolo, "--output-format", "json", *ctx.options["extra_args"]]


def qwen_artifacts(contract: Contract) -> list[Artifact]:
    """The ``hooks`` table of .qwen/settings.json: Claude Code's shape (timeouts in seconds)."""
    from pasture.render.env import render  # jinja2: only when rendering, not for the registry

    settings = {"hooks": commands.hooks_table(contract)}
    return [Artifact(f"{contract.id}/settings.json", render("json.j2", document=settings), contract.id)]


#: events the host fires from a timer (MessageDisplay: "repeatedly, as the reply streams"), never registered
#: by a capture, whose every file must repeat byte for byte
UNTIMED = frozenset({"MessageDisplay"})


class QwenCodeCapture(GeminiCliCapture):
    """Project hooks in .qwen/settings.json. Like Gemini CLI the host lists no events it accepts (an unknown
    one is a warning naming only itself), so the capture registers every event of its own catalogs and
    profiles (GeminiCliCapture.candidates); timeouts are seconds and the JSON refusals are Claude Code's."""

    harness = "qwen-code"
    config_dir = ".qwen"
    config_file = "settings.json"
    timeout_scale = 1
    decision_word = "block"
    options: dict[str, Any] = {}

    def candidates(self, repo_root: Path) -> list[str]:
        return [name for name in super().candidates(repo_root) if name not in UNTIMED]

    def catalog_method(self) -> str:
        return (
            "settings.json registered every event of the host's own catalogs (captures/qwen-code@*/catalog.json) "
            "and of the qwen-code profiles but MessageDisplay (fired from the reply's stream timer: once or "
            "twice for the same reply, so no capture of it repeats); the host lists no accepted events"
        )

    def scenario_set(self) -> ScenarioSet:
        from pasture.hosts import scenario_sets as s

        return s.ScenarioSet(
            base=s.command_host_scenarios(), extra=(s.ASK,), answer=s.command_answer_scenarios(DEFAULT_APPROVAL)
        )


#: Qwen Code without --yolo: the default approval mode, where a headless run cannot confirm a shell call.
DEFAULT_APPROVAL = Approvals((("yolo", False),), PROBE, "in the default approval mode (no --yolo)", False)


def user_folder(env: Mapping[str, str]) -> Path:
    """Qwen Code's user folder: ``$QWEN_HOME`` (an absolute path; ``~`` expanded), else ``~/.qwen``
    (bundled docs/configuration/settings.md)."""
    from pasture.install.places import home

    value = env.get("QWEN_HOME") or ""
    if value == "~" or value.startswith("~/"):
        return home(env) / value[2:]
    return Path(value) if value and Path(value).is_absolute() else home(env) / ".qwen"


def _folder_trust_on(env: Mapping[str, str]) -> bool:
    """Whether the user's settings turn Qwen Code's folder trust on (off by default)."""
    try:
        doc = json.loads((user_folder(env) / "settings.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return False
    trust = ((doc.get("security") or {}).get("folderTrust") or {}) if isinstance(doc, dict) else {}
    return isinstance(trust, dict) and trust.get("enabled") is True


class QwenCode(CommandJsonAnswerMembers, JsonHooksDoctorMembers):
    name = "qwen-code"
    display_name = "Qwen Code"
    surfaces: tuple[HookSurface, ...] = (HookSurface.QWEN_COMMAND_JSON,)
    instructions_file = "QWEN.md"
    native_calls = frozenset({"agent", "skill", "todo_write", "ask_user_question", "exit_plan_mode"})
    unsupported_operations: Mapping[str, str] = {}  # none (pasture.profile.rules)
    npm_packages: tuple[str, ...] = ("@qwen-code/qwen-code",)
    npm_postinstall: tuple[tuple[str, tuple[str, ...]], ...] = ()
    binary = "qwen"
    binary_flag = "--qwen-bin"
    binary_env = "PASTURE_QWEN_BIN"
    catalog_reader = "qwen"
    wire = "qwen_code"
    gate_failure = "exit-2-blocks"
    launcher: HostLauncher = QwenLauncher()

    def version_env(self, home: str) -> dict[str, str]:
        return {}

    def surface_of(self, bus: bool) -> HookSurface:
        return HookSurface.QWEN_COMMAND_JSON

    def artifacts(self, contract: Contract) -> list[Artifact]:
        return qwen_artifacts(contract)

    # install: the hooks merged into .qwen/settings.json (project) or the user's settings.json. No trust
    # step: folder trust is off by default (doctor reports a project it would not load).
    adapter_file = "settings.json"
    install_flags: frozenset[str] = frozenset()

    def target(self, project: Path | None, env: Mapping[str, str]) -> Target:
        from pasture.install.places import Target, project_folder

        if project is not None:
            project = project_folder(project)
            return Target(self.name, "project", project / ".qwen" / "settings.json", project, project=project)
        folder = user_folder(env)
        return Target(self.name, "user", folder / "settings.json", folder.parent, host_home=folder)

    managed: ManagedChannel | None = MANAGED

    def pick_contract(
        self, available: list[tuple[HostVersion, str]], version: HostVersion | None, seen: str
    ) -> tuple[str, str]:
        from pasture.install.places import highest_floor

        return highest_floor(self.name, available, version, seen)

    def install(self, session: Session) -> None:
        from pasture.install import jsonhooks

        jsonhooks.install(session)

    def trust(self, session: Session) -> None:
        return None

    def uninstall(self, session: Session) -> None:
        from pasture.install import jsonhooks

        jsonhooks.uninstall(session)

    # doctor reads the hooks file: JsonHooksDoctorMembers

    def check_session(self, inst: Installation, ctx: DoctorContext) -> list[Finding]:
        from pasture.doctor.findings import Finding

        project = inst.target.project
        if project is None or not _folder_trust_on(ctx.env):
            return []
        where = user_folder(ctx.env) / "trustedFolders.json"
        return [
            Finding(
                "qwen-trust",
                "warn",
                f"folder trust is on in {user_folder(ctx.env) / 'settings.json'}: Qwen Code loads "
                f"{project}/.qwen/settings.json only if {where} trusts {project}; pasture does not read that "
                "file's rules",
                inst.harness,
                fix=f"trust {project} in Qwen Code itself (run `qwen` there and answer the trust prompt)",
                where=str(where),
            )
        ]

    def check_environment(
        self, project: Path | None, env: Mapping[str, str], installs: list[Installation]
    ) -> list[Finding]:
        return []

    # capture, profile new
    capture: CaptureAdapter = QwenCodeCapture()
    identity_fields: Mapping[str, str] = {
        "session_id": "session",
        "tool_use_id": "tool-call",
        "agent_id": "agent",
        "prompt_id": "turn",
    }
    capture_identity_fields: Mapping[str, str] = {"session_id": "session", "tool_use_id": "tool-call"}
    not_events: Mapping[str, str] = {}
    throw_refuses = False
    tool_matchers = True
    output_in_payload = False
    observation_axes: Mapping[str, Mapping[str, str]] = {
        "qwen-command-json": {
            "order": "concurrent-native",
            "reconciliation": "none",
            "failure": "report-and-continue",
        }
    }
    gate_axes: Mapping[str, Mapping[str, str]] = {
        "qwen-command-json": {"order": "concurrent-native", "reconciliation": "host-native"}
    }

    # install and doctor take no binary of it; no trust flag; its adapter names the launcher by path
    install_binary_use: str | None = None
    doctor_binary_use: str | None = None
    trust_project_help: str | None = None
    pasture_bin_reader: str | None = None


HOST: Host = QwenCode()  # mypy checks the class against the Protocol here
