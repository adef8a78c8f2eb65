"""Gemini CLI: its adapter (a ``hooks`` fragment for .gemini/settings.json), its catalog (the hook docs
bundled in the npm package and the code that reads hook output, parsed by pasture.catalog.gemini), and
its offline run. What the real host does is in docs/new-hosts.md (observed on 0.61.0, offline).

Answers on the hook path: pasture/runtime/hostwire/gemini_cli.py.

* **Hooks:** ``hooks.<Event>`` in ``<project>/.gemini/settings.json`` or ``~/.gemini/settings.json``:
  matcher groups of ``{"type": "command", "command", "name", "timeout" (milliseconds), "description"}``.
* **Fail-open host:** a hook that crashes (exit 1) or outlives its ``timeout`` is a warning and the tool
  runs. So every blocking row gets the command's fail-closed tail (exit 2 for any other exit), and the
  runtime answers by its row deadline, before the host's timeout (pasture/runtime/deadline.py).
* **Trust:** project hooks load only in a trusted folder (``GEMINI_CLI_TRUST_WORKSPACE=true``, or the
  folder in ``~/.gemini/trustedFolders.json``); untrusted, the CLI exits 55. ``--skip-trust`` runs
  WITHOUT project hooks, silently. User-level hooks run without trust.

Offline run: ``gemini -p PROMPT --yolo --output-format json`` against the fake Gemini API
(``GOOGLE_GEMINI_BASE_URL``; API-key auth selected in ``~/.gemini/settings.json``). Option ``trust``:
``"env"`` (default: the variable), ``"folder"`` (the project in ``trustedFolders.json``), ``"none"``.
Option ``yolo`` (default true): false drops ``--yolo`` (the default approval mode, where a headless run
does not offer the shell tool: the answer scenarios' control).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from pasture.hosts.launch import FAKE_API_KEY, HostLauncher, RunContext
from pasture.hosts.members import JsonHooksDoctorMembers
from pasture.hosts.protocol import Host
from pasture.hosts.recording import CaptureAdapter, CommandHookCapture, profile_event_names
from pasture.hosts.scenario_sets import (
    ALLOW,
    ASKED_COMMAND,
    CONTINUE_BOUND,
    PROBE,
    PROBE_COMMAND,
    REWRITE,
    STOP_THEN_PROBE,
    Answer,
    Scenario,
    specific,
)
from pasture.install.managed import ManagedChannel
from pasture.install.managed_json import JsonSettingsChannel
from pasture.profile.answers import STOP_ACTIVE, W_CONTEXT, schema_field, schema_offers
from pasture.profile.contracts import Contract
from pasture.profile.vocab import HookSurface, MutationMode
from pasture.render import commands
from pasture.render.artifact import Artifact, header
from pasture.runtime.hostwire.gemini_cli import GUARDED_SYSTEM_FILES

if TYPE_CHECKING:
    from pasture.doctor.findings import Finding
    from pasture.doctor.installed import DoctorContext
    from pasture.hosts.scenario_sets import ScenarioSet
    from pasture.install.places import Installation, Target
    from pasture.install.session import Session
    from pasture.profile.versions import HostVersion

__all__ = [
    "HOST",
    "GeminiCli",
    "GeminiCliCapture",
    "GeminiLauncher",
    "folder_trusted",
    "gemini_artifacts",
    "hooks_table",
    "merge_json",
    "trust_file",
]

#: the value ``~/.gemini/trustedFolders.json`` gives a trusted folder (bundled docs/cli/trusted-folders.md)
TRUST_FOLDER = "TRUST_FOLDER"
#: the prefix of every hook name we generate (the host lists project hooks by name on each start)
HOOK_NAME = "pasture"


def merge_json(path: Path, over: dict[str, Any]) -> None:
    """Deep-merge ``over`` into the JSON object at ``path`` (a run may have written hooks there)."""

    def merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
        out = dict(base)
        for key, value in extra.items():
            out[key] = merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
        return out

    current = json.loads(path.read_text()) if path.exists() else {}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(merge(current, over), indent=2) + "\n")


class GeminiLauncher(HostLauncher):
    host = "gemini-cli"
    wire_protocol = "gemini"
    cleared_env = ("GEMINI_API_KEY",)
    # yolo False: the default approval mode (answer scenarios)
    default_options = {"model": "gemini-2.5-pro", "trust": "env", "extra_args": [], "yolo": True}

    def env(self, ctx: RunContext) -> dict[str, str]:
        env = {
            "GOOGLE_GEMINI_BASE_URL": ctx.base_url,
            "GEMINI_API_KEY": FAKE_API_KEY,
            "GEMINI_MODEL": ctx.options["model"],
            "GEMINI_CLI_NO_RELAUNCH": "true",
        }
        trust = ctx.options["trust"]
        if trust is True or trust == "env":
            env["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
        return env

    def prepare(self, ctx: RunContext) -> None:
        trust = ctx.options["trust"]
        if trust not in (True, False, "env", "folder", "none"):
            raise ValueError(f"trust must be env, folder or none, not {trust!r}")
        gemini = ctx.layout.home / ".gemini"
        merge_json(
            gemini / "settings.json",
            {
                "security": {"auth": {"selectedType": "gemini-api-key"}},
                "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
                "privacy": {"usageStatisticsEnabled": False},
            },
        )
        if trust == "folder":
            merge_json(gemini / "trustedFolders.json", {str(ctx.layout.project): TRUST_FOLDER})

    def argv(self, ctx: RunContext) -> list[str]:
        yolo = ["--yolo"] if ctx.options["yolo"] else []
        return [str(ctx.binary), "-p", ctx.prompt, *yolo, "--output-format", "json", *ctx.options["extra_args"]]


def handler(contract: Contract, row: Any, note: str) -> dict:
    """One command hook. Gemini's ``timeout`` is in milliseconds (bundled docs/hooks/reference.md)."""
    return {
        "type": "command",
        "name": f"{HOOK_NAME}-{row.name}",
        "command": commands.shell_command(contract, row),
        "timeout": commands.timeout(row) * 1000,
        "description": note,
    }


def hooks_table(contract: Contract) -> dict:
    """event -> matcher groups, in profile order; every row becomes one command hook. A matcher is a
    regex on this host, so the profiles' catch-all ``*`` is written as no matcher (every tool)."""
    note = header("", contract.lifecycle_file).strip()
    table: dict[str, list] = {}
    for row in contract.events:
        group: dict = {}
        if row.matcher is not None and row.matcher != "*":
            group["matcher"] = row.matcher
        group["hooks"] = [handler(contract, row, note)]
        table[row.name] = [group]
    return table


def gemini_artifacts(contract: Contract) -> list[Artifact]:
    from pasture.render.env import render  # jinja2: only when rendering, not for the registry

    settings = {"hooks": hooks_table(contract)}
    return [Artifact(f"{contract.id}/settings.json", render("json.j2", document=settings), contract.id)]


# Managed install (issue 28), read in @google/gemini-cli 0.61.0 (bundle/, esbuild chunks):
# bundle/chunk-2YTYPKEZ.js getSystemSettingsPath: `GEMINI_CLI_SYSTEM_SETTINGS_PATH`, else
# "/etc/gemini-cli/settings.json" on Linux; mergeSettings(system, systemDefaults, user, workspace) merges the
# system settings LAST, so its `hooksConfig.enabled: true` wins over a project's false; but the schema merges
# `hooksConfig.disabled` by "union" across scopes, and bundle/chunk-JDPZ4CE3.js
# HookRegistry.processHookDefinition drops a hook whose `getHookName` (`config.name || config.command`) is in
# that list: so each managed hook is named pasture-<Event>-<16 hex digits drawn at install>, a name no
# repository can know in advance. processHooksFromConfig runs the merged hooks (system ones included) only
# when `isTrustedFolder()`. Proven on the real host: tests/realhost/test_managed_real_hosts.py.
MANAGED = JsonSettingsChannel(
    paths=GUARDED_SYSTEM_FILES,
    lockout="hooksConfig.enabled: true in the system settings, which Gemini CLI merges last (a project's "
    "false loses); each hook's name carries a token no repository can list in hooksConfig.disabled",
    read_in="0.61.0",
    lock=(("hooksConfig.enabled", True),),
    env_path="GEMINI_CLI_SYSTEM_SETTINGS_PATH",
    secret_names="pasture",
    gaps=(
        (
            "Gemini CLI runs no hook, the system settings' included, in a folder it does not trust "
            "(HookRegistry.processHooksFromConfig: isTrustedFolder()); headless it refuses to start there, "
            "interactive it asks the user before every tool call",
            "let Gemini CLI trust only folders you mean to guard (its trustedFolders.json)",
        ),
        (
            "no managed-only flag: a trusted repository's own hooks still run beside pasture's",
            "review a repository's .gemini/settings.json hooks before trusting the folder",
        ),
        (
            "GEMINI_CLI_SYSTEM_SETTINGS_PATH in the user's own environment moves the system settings file "
            "(a repository's .env cannot: loadSettings reads the path before it loads the .env)",
            "leave GEMINI_CLI_SYSTEM_SETTINGS_PATH unset in the users' environment",
        ),
    ),
)


class GeminiCliCapture(CommandHookCapture):
    """Project hooks in .gemini/settings.json, loaded in a trusted folder (the launcher sets
    GEMINI_CLI_TRUST_WORKSPACE). The host lists no events it accepts, so the capture registers every event
    of the host's own catalogs (captures/gemini-cli@<version>/catalog.json) and of its profiles; what fired
    is what the host calls. Hook timeouts are milliseconds; the JSON refusal is ``decision: "deny"``."""

    harness = "gemini-cli"
    config_dir = ".gemini"
    config_file = "settings.json"
    timeout_scale = 1000
    decision_word = "deny"
    options = {"trust": "env"}

    def candidates(self, repo_root: Path) -> list[str]:
        # read leniently, like the profiles: a half-written catalog elsewhere must not stop a capture (and
        # pasture.catalog is not imported: it depends on the host registry)
        names = set(profile_event_names(repo_root, (self.harness,)))
        for path in sorted((Path(repo_root) / "captures").glob(f"{self.harness}@*/catalog.json")):
            try:
                doc = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            events = doc.get("events") if isinstance(doc, dict) else None
            names |= {e["name"] for e in events or [] if isinstance(e, dict) and isinstance(e.get("name"), str)}
        return sorted(names)

    def catalog_method(self) -> str:
        return (
            "settings.json registered every event of the host's own catalogs (captures/gemini-cli@*/catalog.json) "
            "and of the gemini-cli profiles; the host lists no accepted events"
        )

    def scenario_set(self) -> ScenarioSet:
        from pasture.hosts import scenario_sets as s

        return s.ScenarioSet(base=gemini_scenarios(), answer=gemini_answer_scenarios())


# --- folder trust ----------------------------------------------------------------------------------


def trust_file(env: Mapping[str, str]) -> Path:
    """Where Gemini CLI keeps folder trust: ``$GEMINI_CLI_TRUSTED_FOLDERS_PATH``, else
    ``~/.gemini/trustedFolders.json`` (bundled docs/cli/trusted-folders.md). The user's environment only."""
    from pasture.install.places import home

    value = env.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
    return Path(value) if value and Path(value).is_absolute() else home(env) / ".gemini" / "trustedFolders.json"


def _trust_rules(path: Path) -> dict[str, Any] | None:
    """The trust file's rules; None when it does not exist; {} when it cannot be read as an object."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, UnicodeDecodeError):
        return {}
    return doc if isinstance(doc, dict) else {}


def folder_trusted(project: Path, env: Mapping[str, str]) -> bool:
    """Whether the trust file trusts ``project``: a ``TRUST_FOLDER`` rule for it or a folder above it, or a
    ``TRUST_PARENT`` rule whose parent holds it, and no ``DO_NOT_TRUST`` rule for the folder itself. Only
    the rules file counts: the session variable and --skip-trust are per run (and --skip-trust loads no
    project hooks at all)."""
    rules = _trust_rules(trust_file(env)) or {}
    here = Path(os.path.realpath(project))
    own = rules.get(str(here))
    if own == "DO_NOT_TRUST":
        return False
    for key, level in rules.items():
        try:
            base = Path(os.path.realpath(key))
        except (TypeError, ValueError):
            continue
        base = base.parent if level == "TRUST_PARENT" else base
        if level in (TRUST_FOLDER, "TRUST_PARENT") and (here == base or base in here.parents):
            return True
    return False


def _record_path(project: Path, env: Mapping[str, str]) -> Path:
    from pasture.runtime.layers import state_dir

    key = hashlib.sha256(os.path.realpath(project).encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return Path(state_dir(dict(env))) / "gemini-trust" / f"{key}.json"


def _write_json(path: Path, doc: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def _readable_rules(session: Session, project: Path) -> dict[str, Any] | None:
    """The trust file's rules, refused (InstallError) when the file is there but no JSON object of rules."""
    from pasture.install.report import InstallError

    path = trust_file(session.env)
    rules = _trust_rules(path)
    if rules == {} and path.exists() and path.read_text(encoding="utf-8", errors="replace").strip():
        raise InstallError(
            f"{path} is not a JSON object of folder rules; refusing to touch it (nothing was written)",
            hint=f"fix {path}, or trust {project} in Gemini CLI itself (run `gemini` there), then run this again",
            command=session.rerun("--trust-project"),
        )
    return rules


def _add_trust(session: Session, project: Path) -> None:
    """Trust ``project`` in the trust file (merged: every other rule kept), recording that pasture added it."""
    from pasture.install.report import FileChange

    path = trust_file(session.env)
    rules = _readable_rules(session, project)
    before = path.read_bytes() if path.exists() else None
    key = os.path.realpath(project)
    _write_json(path, {**(rules or {}), key: TRUST_FOLDER})
    record = {"trust_file": str(path), "folder": key, "before": before.decode("utf-8") if before else None}
    _write_json(_record_path(project, session.env), record)
    session.report.files.append(
        FileChange(path, "updated" if before is not None else "created", detail=f"{key}: {TRUST_FOLDER}")
    )


def _remove_trust(session: Session, project: Path) -> None:
    """Take out the trust rule pasture added (only that one, only if it is still ours); the file's old bytes
    come back when nothing else in it changed since."""
    from pasture.install.report import FileChange

    record_path = _record_path(project, session.env)
    try:
        record = json.loads(record_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    path = Path(record.get("trust_file") or trust_file(session.env))
    rules = _trust_rules(path)
    key = record.get("folder")
    if rules and rules.get(key) == TRUST_FOLDER:
        rest = {k: v for k, v in rules.items() if k != key}
        before = record.get("before")
        change = "updated"
        if before is not None and json.loads(before) == rest:
            path.write_text(before, encoding="utf-8")
        elif before is None and not rest:
            path.unlink()
            change = "removed"
        else:
            _write_json(path, rest)
        session.report.files.append(FileChange(path, change, detail=f"{key}: the trust rule pasture added, removed"))
    record_path.unlink(missing_ok=True)


def _trust_finding(inst: Installation, env: Mapping[str, str]) -> list[Finding]:
    from pasture.doctor.findings import Finding

    project = inst.target.project
    if project is None or folder_trusted(project, env):
        return []
    return [
        Finding(
            "gemini-trust",
            "off",
            f"Gemini CLI loads {project}/.gemini/settings.json only in a trusted folder, and {trust_file(env)} "
            f"does not trust {project}: a session there exits 55 (or, with --skip-trust, runs with no project "
            "hook at all)",
            inst.harness,
            fix=f"pasture install gemini-cli --project {project} --trust-project",
            where=str(trust_file(env)),
        )
    ]


# Gemini CLI's answer wire forms (bundled docs/hooks/reference.md, the hook output classes of its bundle)
W_GEM_TOOL_INPUT = "hookSpecificOutput.tool_input"
W_GEM_ALLOW = "decision=allow"
W_GEM_DENY_REASON = "decision=deny+reason"


def _gemini_candidates(row: Any, output: dict[str, Any], inputs: dict[str, Any]) -> list[tuple[str, str]]:
    """Gemini CLI: ``decision`` (allow / deny) + ``reason`` and ``hookSpecificOutput`` fields per event. An
    ``additionalContext`` after a tool is appended to its result (feedback), elsewhere it is context; a deny
    after a tool replaces its result (feedback); on the stop event (AfterAgent, whose input carries
    ``stop_hook_active``) a deny sends the reason as a new prompt (continue)."""
    out = []
    after_tool = "tool_response" in inputs
    stop = any(name in inputs for name in STOP_ACTIVE)
    if row.pre_action and schema_offers(output, "decision", "allow"):
        out.append(("allow", W_GEM_ALLOW))
    if (
        row.pre_action
        and row.mutation is MutationMode.INPUT
        and schema_field(output, "hookSpecificOutput.tool_input") is not None
    ):
        out.append(("rewrite", W_GEM_TOOL_INPUT))
    if schema_field(output, "hookSpecificOutput.additionalContext") is not None:
        out.append(("feedback" if after_tool else "context", W_CONTEXT))
    denies = schema_offers(output, "decision", "deny") and schema_field(output, "reason") is not None
    if denies and not row.pre_action and after_tool:
        out.append(("feedback", W_GEM_DENY_REASON))
    if denies and stop:
        out.append(("continue", W_GEM_DENY_REASON))
    return out


class GeminiCli(JsonHooksDoctorMembers):
    name = "gemini-cli"
    display_name = "Gemini CLI"
    surfaces: tuple[HookSurface, ...] = (HookSurface.GEMINI_COMMAND_JSON,)
    instructions_file = "GEMINI.md"
    native_calls = frozenset({"activate_skill", "invoke_agent", "ask_user", "complete_task", "write_todos"})
    unsupported_operations: Mapping[str, str] = {}  # none (pasture.profile.rules)
    npm_packages: tuple[str, ...] = ("@google/gemini-cli",)
    npm_postinstall: tuple[tuple[str, tuple[str, ...]], ...] = ()
    binary = "gemini"
    binary_flag = "--gemini-bin"
    binary_env = "PASTURE_GEMINI_BIN"
    catalog_reader = "gemini"
    wire = "gemini_cli"
    gate_failure = "exit-2-blocks"
    launcher: HostLauncher = GeminiLauncher()

    def version_env(self, home: str) -> dict[str, str]:
        return {}

    def surface_of(self, bus: bool) -> HookSurface:
        return HookSurface.GEMINI_COMMAND_JSON

    def artifacts(self, contract: Contract) -> list[Artifact]:
        return gemini_artifacts(contract)

    # install: the hooks merged into .gemini/settings.json; at project scope the folder must be trusted in
    # the trust file (``--trust-project`` adds it; uninstall takes out only a rule pasture added).
    adapter_file = "settings.json"
    install_flags: frozenset[str] = frozenset({"--trust-project"})
    managed: ManagedChannel | None = MANAGED

    def target(self, project: Path | None, env: Mapping[str, str]) -> Target:
        from pasture.install.places import Target, home, project_folder

        if project is not None:
            project = project_folder(project)
            return Target(self.name, "project", project / ".gemini" / "settings.json", project, project=project)
        folder = home(env) / ".gemini"
        return Target(self.name, "user", folder / "settings.json", folder.parent, host_home=folder)

    def pick_contract(
        self, available: list[tuple[HostVersion, str]], version: HostVersion | None, seen: str
    ) -> tuple[str, str]:
        from pasture.install.places import highest_floor

        return highest_floor(self.name, available, version, seen)

    def install(self, session: Session) -> None:
        from pasture.install import jsonhooks
        from pasture.install.report import InstallError

        project = session.target.project
        if project is not None and not folder_trusted(project, session.env) and not session.opts.trust_project:
            raise InstallError(
                f"Gemini CLI loads {project}/.gemini/settings.json only in a trusted folder, and "
                f"{trust_file(session.env)} does not trust {project}; nothing was written",
                hint=(
                    f"add --trust-project to record {project} as TRUST_FOLDER in {trust_file(session.env)}, or "
                    f"trust the folder in Gemini CLI itself (run `gemini` in {project}) and run this again"
                ),
                command=session.rerun("--trust-project"),
            )
        if project is not None and not folder_trusted(project, session.env):
            _readable_rules(session, project)  # refuse an unreadable trust file before writing anything
        jsonhooks.install(session)

    def trust(self, session: Session) -> None:
        project = session.target.project
        if project is None:  # user-level hooks run without folder trust (docs/new-hosts.md)
            session.report.trust = {"needed": False, "summary": "user-level hooks run without folder trust"}
            return
        if folder_trusted(project, session.env):
            session.report.trust = {
                "folder": str(project),
                "trusted": True,
                "added": False,
                "summary": f"{project} is already trusted in {trust_file(session.env)}",
            }
            return
        _add_trust(session, project)
        session.report.trust = {
            "folder": str(project),
            "trusted": True,
            "added": True,
            "summary": f"{project} recorded as TRUST_FOLDER in {trust_file(session.env)} (uninstall removes it)",
        }

    def uninstall(self, session: Session) -> None:
        from pasture.install import jsonhooks

        jsonhooks.uninstall(session)
        if session.target.project is not None:
            _remove_trust(session, session.target.project)

    # doctor reads the hooks file: JsonHooksDoctorMembers

    def check_session(self, inst: Installation, ctx: DoctorContext) -> list[Finding]:
        return _trust_finding(inst, ctx.env)

    def check_environment(
        self, project: Path | None, env: Mapping[str, str], installs: list[Installation]
    ) -> list[Finding]:
        return []

    # capture, profile new: Gemini CLI 0.61.0 payloads carry no turn, tool-call or agent id
    capture: CaptureAdapter = GeminiCliCapture()
    identity_fields: Mapping[str, str] = {"session_id": "session"}
    capture_identity_fields: Mapping[str, str] = {"session_id": "session"}
    not_events: Mapping[str, str] = {}
    throw_refuses = False
    tool_matchers = True
    output_in_payload = False
    observation_axes: Mapping[str, Mapping[str, str]] = {
        "gemini-command-json": {
            "order": "concurrent-native",
            "reconciliation": "none",
            "failure": "report-and-continue",
        }
    }
    gate_axes: Mapping[str, Mapping[str, str]] = {
        "gemini-command-json": {"order": "concurrent-native", "reconciliation": "host-native"}
    }

    def answer_candidates(self, row: Any, output: dict[str, Any], inputs: dict[str, Any]) -> list[tuple[str, str]]:
        return _gemini_candidates(row, output, inputs)

    def lifecycle_payload(self, event: str, payload: Any, bus: bool) -> Any:
        return payload  # the command hook's stdin, as the host sent it

    # install and doctor (per host)

    install_binary_use: str | None = None
    doctor_binary_use: str | None = None
    trust_project_help: str | None = "Gemini CLI: trustedFolders.json"
    pasture_bin_reader: str | None = None


HOST: Host = GeminiCli()  # mypy checks the class against the Protocol here


# --- what `pasture capture` runs on this host (the scenarios its ScenarioSet is made of) ---------


def gemini_scenarios() -> tuple[Scenario, ...]:
    """Gemini CLI: command hooks refuse by exit 2 (reason on stderr) or by {"decision": "deny"} on stdout;
    BeforeTool's code also reads {"decision": "ask"} (``isAskDecision``: the host's confirmation)."""
    return (
        ALLOW,
        Scenario(
            "before-tool-exit-2",
            "BeforeTool refuses the shell call by exiting 2 with the reason on stderr",
            PROBE,
            "BeforeTool",
            "exit-2",
            False,
        ),
        Scenario(
            "before-tool-json-deny",
            'BeforeTool refuses the shell call with {"decision": "deny", "reason": ...}',
            PROBE,
            "BeforeTool",
            "json-deny",
            False,
        ),
        Scenario(
            "before-tool-json-ask",
            'BeforeTool answers the shell call with {"decision": "ask", "reason": ...}; a headless run has '
            "nobody to ask, so the call must not run",
            PROBE,
            "BeforeTool",
            "json-ask",
            False,
        ),
        Scenario(
            "before-agent-exit-2",
            "BeforeAgent refuses the prompt by exiting 2; the first model turn would write the probe file",
            PROBE,
            "BeforeAgent",
            "exit-2",
            False,
        ),
        Scenario(
            "before-model-exit-2",
            "BeforeModel refuses the model request by exiting 2; the first model turn would write the probe file",
            PROBE,
            "BeforeModel",
            "exit-2",
            False,
        ),
    )


#: Gemini CLI without --yolo: the default approval mode, where a headless run cannot confirm a shell call.
GEMINI_DEFAULT_APPROVAL = (("yolo", False),)


def gemini_answer_scenarios() -> tuple[Scenario, ...]:
    """Gemini CLI's answers in the forms its bundled docs/hooks/reference.md and the code that reads hook
    output (``BeforeToolHookOutput.getModifiedToolInput``, ``getAdditionalContext``, AfterAgent's
    ``isBlockingDecision`` retry) name."""
    where = "in the default approval mode (no --yolo)"
    return (
        Scenario(
            "before-tool-rewrite",
            f"BeforeTool answers hookSpecificOutput.tool_input with the rewritten command (the model asked for "
            f"{ASKED_COMMAND}); the rewritten command must be the one that ran",
            REWRITE,
            answer=Answer(
                "rewrite",
                "BeforeTool",
                W_GEM_TOOL_INPUT,
                {"hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": {"command": PROBE_COMMAND}}},
            ),
        ),
        Scenario(
            "no-answer-approval",
            f"control for the allow answer: the shell call {where}, nothing answers; a headless run has "
            "nobody to confirm it, so it must not run",
            PROBE,
            options=GEMINI_DEFAULT_APPROVAL,
        ),
        Scenario(
            "before-tool-allow",
            f'BeforeTool answers {{"decision": "allow"}} {where}; honoured if the call runs without a prompt',
            PROBE,
            options=GEMINI_DEFAULT_APPROVAL,
            control="no-answer-approval",
            answer=Answer("allow", "BeforeTool", W_GEM_ALLOW, {"decision": "allow", "reason": "{marker}"}),
        ),
        Scenario(
            "session-start-context",
            "SessionStart adds hookSpecificOutput.additionalContext; honoured if the text is in the first "
            "request the model receives",
            PROBE,
            answer=Answer("context", "SessionStart", W_CONTEXT, specific("SessionStart", additionalContext="{marker}")),
        ),
        Scenario(
            "before-agent-context",
            "BeforeAgent adds hookSpecificOutput.additionalContext; honoured if the text is in the first "
            "request the model receives",
            PROBE,
            answer=Answer("context", "BeforeAgent", W_CONTEXT, specific("BeforeAgent", additionalContext="{marker}")),
        ),
        Scenario(
            "after-tool-context-feedback",
            "after the shell call AfterTool adds hookSpecificOutput.additionalContext (appended to the tool "
            "result); honoured if the text is in what the next request adds after the tool call",
            PROBE,
            answer=Answer("feedback", "AfterTool", W_CONTEXT, specific("AfterTool", additionalContext="{marker}")),
        ),
        Scenario(
            "after-tool-deny-feedback",
            'after the shell call AfterTool answers {"decision": "deny", "reason"} (the reason replaces the '
            "tool result); honoured if the reason is in what the next request adds after the tool call",
            PROBE,
            answer=Answer("feedback", "AfterTool", W_GEM_DENY_REASON, {"decision": "deny", "reason": "{marker}"}),
        ),
        Scenario(
            "after-agent-continue",
            f'the model stops at once; AfterAgent answers {{"decision": "deny", "reason"}} on the first '
            f"{CONTINUE_BOUND} stops (our bound), then lets the host stop; honoured if the next request holds "
            f"the reason, the next turn writes the probe file, and the host stops by itself after "
            f"{CONTINUE_BOUND} continuations",
            STOP_THEN_PROBE,
            answer=Answer(
                "continue",
                "AfterAgent",
                W_GEM_DENY_REASON,
                {"decision": "deny", "reason": "{marker}"},
                times=CONTINUE_BOUND,
            ),
        ),
    )
