"""Codex CLI: its adapter (hooks.json for a .codex/ layer, strict command hooks only), its catalog (the hook
JSON Schemas embedded in the CLI, parsed by pasture.catalog.codex), and its offline run.

Answers on the hook path: pasture/runtime/hostwire/codex.py.

Offline run: headless (``codex exec``) against the fake OpenAI Responses server.

* **Config:** ``$CODEX_HOME/config.toml`` (``CODEX_HOME`` = ``<run>/home/.codex``) names a custom
  provider ``harness`` with ``base_url = http://127.0.0.1:PORT/v1``, ``wire_api = "responses"``,
  no retries; ``approval_policy = "never"``, ``sandbox_mode = "danger-full-access"`` (options
  ``approval_policy``, ``sandbox_mode``; ``bypass_approvals=False`` drops the bypass flag); the project
  folder is ``trust_level = "trusted"`` (the project ``.codex/`` layer, hooks.json included, loads
  only for trusted projects); ``features.plugins = false`` (else Codex tries to sync its curated
  plugins from the internet); analytics and OTEL off; no update check. ``config_toml_extra`` is
  appended verbatim.
* **Env:** ``CODEX_HOME`` and ``HARNESS_FAKE_KEY`` (the provider's ``env_key``).
* **Hook trust** (untrusted hooks are skipped *silently* by ``codex exec``):
  ``hook_trust="bypass"`` (default) passes ``--dangerously-bypass-hook-trust``;
  ``hook_trust="persist"`` does what a user's review does: asks ``codex app-server`` for
  ``hooks/list`` and writes ``[hooks.state."<key>"] trusted_hash = "<currentHash>"`` for each hook
  into config.toml, then runs without the bypass flag; ``hook_trust="none"`` does neither.
* **Command:** ``codex exec --json --skip-git-repo-check
  --dangerously-bypass-approvals-and-sandbox [--dangerously-bypass-hook-trust]
  -o <run>/codex-last-message.txt <prompt>`` with stdin from /dev/null (it would wait for stdin).
"""

from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from pasture import PastureError
from pasture.hosts.launch import FAKE_API_KEY, HostLauncher, RunContext
from pasture.hosts.members import CommandJsonAnswerMembers, JsonHooksDoctorMembers
from pasture.hosts.protocol import Host
from pasture.hosts.recording import CATALOG_PROBE, CaptureAdapter, CommandHookCapture, Run, profile_event_names
from pasture.hosts.scenario_sets import PROBE_COMMAND, Approvals
from pasture.hosts.script import Script, Turn
from pasture.install.managed import ManagedChannel
from pasture.install.managed_toml import TomlRequirementsChannel
from pasture.profile.contracts import Contract
from pasture.profile.vocab import HookSurface
from pasture.render import commands
from pasture.render.artifact import Artifact, header
from pasture.runtime.hostwire.codex import BYPASS, GUARDED_SYSTEM_FILES, HEADLESS, LAST_MESSAGE

if TYPE_CHECKING:
    from pasture.doctor.findings import Finding
    from pasture.doctor.installed import DoctorContext
    from pasture.hosts.scenario_sets import ScenarioSet
    from pasture.install.places import Installation, Target
    from pasture.install.session import Session
    from pasture.profile.versions import HostVersion

__all__ = [
    "ACCEPTED_EVENTS",
    "HOST",
    "Codex",
    "CodexCapture",
    "CodexEventError",
    "CodexLauncher",
    "codex_artifacts",
    "persist_hook_trust",
]

# The event keys Codex's hooks.json accepts. Codex silently ignores any other key, so a typo would
# be a hole nobody notices: refuse to generate one instead. The eleven come from HooksToml in the
# pinned config schema (shared/schemas/codex-hooks/codex-config.schema.json); Interrupt arrived with
# the 0.153 line (Pasture pins it at 0.153.0; observe-only, systemMessage only). The real Codex 0.171.0
# loads exactly these twelve and nothing else of every Claude/Codex event name offered to it
# (captures/codex@0.171.0/capture.json, catalog.host_listed: `codex app-server` hooks/list).
ACCEPTED_EVENTS = frozenset(
    {
        "PreToolUse",
        "PermissionRequest",
        "PostToolUse",
        "PreCompact",
        "PostCompact",
        "SessionStart",
        "SessionEnd",
        "UserPromptSubmit",
        "SubagentStart",
        "SubagentStop",
        "Stop",
        "Interrupt",
    }
)


class CodexEventError(PastureError, ValueError):
    pass


def _toml_str(value: str) -> str:
    return json.dumps(value)  # a JSON string is a valid TOML basic string for our inputs


class CodexLauncher(HostLauncher):
    host = "codex"
    wire_protocol = "openai-responses"
    home_folders = (".codex",)
    cleared_env = ("CODEX_API_KEY",)
    default_options = {
        "model": "fake-model",
        "hook_trust": "bypass",  # "bypass" | "persist" | "none"
        "config_toml_extra": "",
        "model_catalog": None,  # None, or the slug of a model in the binary's own catalog to play
        # approvals: "never" + the bypass flag by default; a run that shows whether a hook's allow
        # skips an approval sets e.g. approval_policy="untrusted", bypass_approvals=False
        "approval_policy": "never",
        "sandbox_mode": "danger-full-access",
        "bypass_approvals": True,
        "extra_args": [],
    }

    def config_toml(self, ctx: RunContext) -> str:
        project = str(ctx.layout.project)
        catalog = []
        if ctx.options.get("model_catalog"):
            catalog = [f"model_catalog_json = {_toml_str(str(ctx.layout.root / 'codex-model-catalog.json'))}"]
        return "\n".join(
            [
                f"model = {_toml_str(ctx.options['model'])}",
                *catalog,
                'model_provider = "harness"',
                f"approval_policy = {_toml_str(ctx.options['approval_policy'])}",
                f"sandbox_mode = {_toml_str(ctx.options['sandbox_mode'])}",
                "check_for_update_on_startup = false",
                "",
                "[model_providers.harness]",
                'name = "Pasture fake model (127.0.0.1)"',
                f"base_url = {_toml_str(ctx.base_url_v1)}",
                'env_key = "HARNESS_FAKE_KEY"',
                'wire_api = "responses"',
                "request_max_retries = 0",
                "stream_max_retries = 0",
                "",
                f"[projects.{_toml_str(project)}]",
                'trust_level = "trusted"',
                "",
                "[features]",
                "plugins = false",
                "",
                "[analytics]",
                "enabled = false",
                "",
                "[otel]",
                'exporter = "none"',
                "",
                ctx.options["config_toml_extra"],
                "",
            ]
        )

    def env(self, ctx: RunContext) -> dict[str, str]:
        return {"CODEX_HOME": str(ctx.layout.home / self.home_folders[0]), "HARNESS_FAKE_KEY": FAKE_API_KEY}

    def prepare(self, ctx: RunContext) -> None:
        config = ctx.layout.home / self.home_folders[0] / "config.toml"
        config.parent.mkdir(parents=True, exist_ok=True)
        if ctx.options.get("model_catalog"):
            entry = catalog_entry(ctx.binary, ctx.options["model_catalog"], ctx.options["model"])
            (ctx.layout.root / "codex-model-catalog.json").write_text(json.dumps({"models": [entry]}, indent=1))
        config.write_text(self.config_toml(ctx))
        if ctx.options["hook_trust"] == "persist":
            trusted = persist_hook_trust(ctx.binary, ctx.layout.project, config, ctx.env)
            (ctx.layout.root / "codex-hook-trust.json").write_text(json.dumps(trusted, indent=2))
        elif ctx.options["hook_trust"] not in ("bypass", "none"):
            raise ValueError(f"hook_trust must be bypass, persist or none, not {ctx.options['hook_trust']!r}")

    def argv(self, ctx: RunContext) -> list[str]:
        argv = [str(ctx.binary), *HEADLESS]
        if ctx.options["bypass_approvals"]:
            argv.append(BYPASS)
        if ctx.options["hook_trust"] == "bypass":
            argv.append("--dangerously-bypass-hook-trust")
        argv += ["-o", str(ctx.layout.root / LAST_MESSAGE)]
        return argv + list(ctx.options["extra_args"]) + [ctx.prompt]


def catalog_entry(binary: Path, slug: str, model: str) -> dict[str, Any]:
    """The binary's own model-catalog entry for ``slug`` (the catalog Codex ships embedded), renamed
    to ``model`` and without websockets, for ``model_catalog_json``. The fake model then gets the
    tools Codex offers that real model (``fake-model`` alone gets fallback metadata, which offers no
    ``apply_patch`` tool), so hooks see what a real session's model can make them see."""
    real = Path(binary).resolve()
    data = real.read_bytes()
    if not data.startswith(b"\x7fELF"):  # npm's bin/codex.js: the native binary is @openai/codex-<platform>
        native = sorted(real.parents[2].glob("codex-*/vendor/*/bin/codex"))
        if not native:
            raise FileNotFoundError(f"no native codex binary beside {real}")
        data = native[0].read_bytes()
    at = data.find(b'\n  "models": [')
    if at < 0:
        raise ValueError(f"{binary}: no embedded model catalog found")
    catalog, _ = json.JSONDecoder().raw_decode(data[data.rfind(b"{", 0, at) :].decode("utf-8", "replace"))
    entry = next((m for m in catalog["models"] if m.get("slug") == slug), None)
    if entry is None:
        raise ValueError(
            f"{binary}: the embedded catalog has no {slug!r} (has: "
            f"{', '.join(m.get('slug', '?') for m in catalog['models'])})"
        )
    return {**entry, "slug": model, "display_name": model, "prefer_websockets": False}


def _find_hooks(node: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        if "key" in node and "currentHash" in node:
            found.append(node)
        for value in node.values():
            found.extend(_find_hooks(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(_find_hooks(value))
    return found


def persist_hook_trust(
    binary: Path, project: Path, config: Path, env: dict[str, str], timeout: float = 30.0
) -> list[dict[str, Any]]:
    """Trust every hook Codex discovers for ``project``, the way a user's review would.

    Talks JSON-RPC (one object per line) to ``codex app-server`` over stdio: ``initialize``,
    ``initialized``, ``hooks/list {cwds: [project]}``; then appends
    ``[hooks.state."<key>"] trusted_hash = "<currentHash>"`` per hook to ``config``. Returns the
    hook entries as Codex listed them.
    """
    proc = subprocess.Popen(
        [str(binary), "app-server"],
        cwd=project,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        bufsize=1,
    )
    assert proc.stdin is not None and proc.stdout is not None
    deadline = time.monotonic() + timeout

    def send(obj: dict[str, Any]) -> None:
        proc.stdin.write(json.dumps(obj) + "\n")  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]

    lines: "queue.Queue[str]" = queue.Queue()

    def pump() -> None:
        for line in proc.stdout:  # type: ignore[union-attr]
            lines.put(line)
        lines.put("")

    threading.Thread(target=pump, daemon=True).start()

    def wait_for(request_id: int) -> dict[str, Any]:
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = lines.get(timeout=left)
            except queue.Empty:
                break
            if not line:
                break
            try:
                msg = json.loads(line)
            except json.JSONDecodeError:
                continue
            if msg.get("id") == request_id and ("result" in msg or "error" in msg):
                if "error" in msg:
                    raise RuntimeError(f"codex app-server error: {msg['error']}")
                return msg["result"]
        raise TimeoutError(f"codex app-server gave no answer to request {request_id}")

    try:
        send(
            {
                "id": 1,
                "method": "initialize",
                "params": {
                    "clientInfo": {"name": "pasture-hostenv", "version": "0"},
                    "capabilities": {"experimentalApi": True},
                },
            }
        )
        wait_for(1)
        send({"method": "initialized"})
        send({"id": 2, "method": "hooks/list", "params": {"cwds": [str(project)]}})
        hooks = _find_hooks(wait_for(2))
    finally:
        proc.kill()
        proc.wait()
    with config.open("a") as fh:
        for hook in hooks:
            fh.write(f"\n[hooks.state.{_toml_str(hook['key'])}]\ntrusted_hash = {_toml_str(hook['currentHash'])}\n")
    return hooks


def codex_artifacts(contract: Contract) -> list[Artifact]:
    from pasture.render.env import render  # jinja2: only when rendering, not for the registry

    unknown = [row.name for row in contract.events if row.name not in ACCEPTED_EVENTS]
    if unknown:
        raise CodexEventError(
            f"{contract.lifecycle_file}: Codex would silently ignore these event keys: {', '.join(unknown)}; "
            f"accepted: {', '.join(sorted(ACCEPTED_EVENTS))}"
        )
    document = {"description": header("", contract.lifecycle_file).strip(), "hooks": commands.hooks_table(contract)}
    return [Artifact(f"{contract.id}/hooks.json", render("json.j2", document=document), contract.id)]


class CodexCapture(CommandHookCapture):
    """Codex silently ignores unknown keys in ``hooks.json``, but ``codex app-server``'s ``hooks/list`` (the
    hook-trust route) lists the hooks it loaded. The catalog pass registers every event name any Claude
    Code or Codex profile knows (Codex copies Claude's names) plus the probe key; what ``hooks/list``
    returns is what this Codex accepts."""

    harness = "codex"
    config_dir = ".codex"
    config_file = "hooks.json"
    # The production trust route: codex app-server hooks/list, then [hooks.state] trusted_hash per hook.
    options = {"hook_trust": "persist"}

    def candidates(self, repo_root: Path) -> list[str]:
        return sorted(set(profile_event_names(repo_root, ("claude-code", "codex"))) | {CATALOG_PROBE})

    def has_catalog_pass(self) -> bool:
        return True

    def read_catalog(self, run: Run) -> list[str] | None:
        path = run.root / "codex-hook-trust.json"
        if not path.exists():
            return None
        hooks = json.loads(path.read_text())
        names = []
        for hook in hooks:
            event = hook.get("eventName")
            if isinstance(event, str) and event:
                pascal = event[0].upper() + event[1:]
                if pascal not in names:
                    names.append(pascal)
        return names

    def catalog_method(self) -> str:
        return (
            "hooks.json registered every event name the Claude Code and Codex profiles know plus "
            f"{CATALOG_PROBE}; codex app-server hooks/list named the ones this Codex loaded"
        )

    def scenario_set(self) -> ScenarioSet:
        from pasture.hosts import scenario_sets as s

        return s.ScenarioSet(base=s.command_host_scenarios(), answer=s.command_answer_scenarios(APPROVALS_ON_REQUEST))


# Managed install (issue 28), read in @openai/codex-linux-x64 0.171.0 bin/codex (Rust; its strings):
# "/etc/codex/requirements.toml" (next to "/etc/codex/config.toml"); the requirements keys
# (`ConfigRequirementsToml`) list `allow_managed_hooks_only`; `ManagedHooksRequirementsToml` is the
# requirements' `[hooks]` table (`managed_dir`, `windows_managed_dir`, and the events flattened in, the
# same `[[hooks.<Event>]]` / `[[hooks.<Event>.hooks]]` tables as config.toml's), and 0.171.0 names a managed
# hook's source "<requirements-composition>/requirements.toml" when no `managed_dir` is given (the build
# with "skipping managed hooks ...: no managed hook directory" is older). Managed hooks skip the trust
# review. Proven on the real host: tests/realhost/test_managed_real_hosts.py.
MANAGED = TomlRequirementsChannel(
    paths=GUARDED_SYSTEM_FILES,
    lockout="allow_managed_hooks_only = true: only the requirements' (managed) hooks run; a project's or "
    "user's hooks.json and [hooks] tables are ignored",
    read_in="0.171.0",
    lock=(("allow_managed_hooks_only", True), ("features.hooks", True)),
)


class Codex(CommandJsonAnswerMembers, JsonHooksDoctorMembers):
    name = "codex"
    display_name = "Codex CLI"
    surfaces: tuple[HookSurface, ...] = (HookSurface.CODEX_STRICT_COMMAND_JSON,)
    instructions_file = "AGENTS.md"  # where the generated agent instructions go
    native_calls = frozenset({"spawn_agent", "send_input", "wait", "close_agent", "resume_agent", "request_user_input"})
    unsupported_operations: Mapping[str, str] = {}  # none (pasture.profile.rules)
    npm_packages: tuple[str, ...] = ("@openai/codex",)
    npm_postinstall: tuple[tuple[str, tuple[str, ...]], ...] = ()
    binary = "codex"
    binary_flag = "--codex-bin"
    binary_env = "PASTURE_CODEX_BIN"
    catalog_reader = "codex"
    wire = "codex"
    gate_failure = "strict-output-exit-2-blocks"
    launcher: HostLauncher = CodexLauncher()

    def version_env(self, home: str) -> dict[str, str]:
        return {"CODEX_HOME": home}

    def surface_of(self, bus: bool) -> HookSurface:
        return HookSurface.CODEX_STRICT_COMMAND_JSON

    def artifacts(self, contract: Contract) -> list[Artifact]:
        return codex_artifacts(contract)

    # install: hooks.json merged (pasture.install.hooktable); trust in $CODEX_HOME/config.toml, keys and
    # hashes asked of `codex app-server` (pasture.hosts.codex.install, server; pasture.install.codex_trust):
    # codex skips an untrusted hook, and a project's .codex/ layer of an untrusted project, without a word.
    adapter_file = "hooks.json"
    install_flags: frozenset[str] = frozenset({"--trust-project", "--trust-only", "--codex-bin"})
    managed: ManagedChannel | None = MANAGED

    def target(self, project: Path | None, env: Mapping[str, str]) -> Target:
        from pasture.hosts.codex.home import codex_home
        from pasture.install.places import Target, project_folder

        if project is not None:
            project = project_folder(project)
            return Target(
                self.name,
                "project",
                project / ".codex" / "hooks.json",
                project,
                host_home=codex_home(env),
                project=project,
            )
        folder = codex_home(env)
        return Target(self.name, "user", folder / "hooks.json", folder.parent, host_home=folder)

    def pick_contract(
        self, available: list[tuple[HostVersion, str]], version: HostVersion | None, seen: str
    ) -> tuple[str, str]:
        from pasture.install.places import highest_floor

        return highest_floor(self.name, available, version, seen)

    def install(self, session: Session) -> None:
        from pasture.hosts.codex import install

        install.install(session)

    def trust(self, session: Session) -> None:
        from pasture.hosts.codex import install

        install.trust(session)

    def uninstall(self, session: Session) -> None:
        from pasture.hosts.codex import install

        install.uninstall(session)

    # doctor reads the hooks file: JsonHooksDoctorMembers

    def check_session(self, inst: Installation, ctx: DoctorContext) -> list[Finding]:
        from pasture.hosts.codex import doctor as codex

        version = (inst.contract or "codex@?").partition("@")[2]
        return (
            codex.check_trust(inst, ctx.env, ctx.binary, ctx.timeout)
            + codex.check_shell(ctx.env)
            + [codex.unhooked_finding(version)]
        )

    def check_environment(
        self, project: Path | None, env: Mapping[str, str], installs: list[Installation]
    ) -> list[Finding]:
        from pasture.hosts.codex import sandbox

        return sandbox.codex(project, env)

    # capture, profile new
    capture: CaptureAdapter = CodexCapture()
    identity_fields: Mapping[str, str] = {
        "session_id": "session",
        "turn_id": "turn",
        "tool_use_id": "tool-call",
        "agent_id": "agent",
        "request_id": "request",
        "message_id": "message",
    }
    capture_identity_fields: Mapping[str, str] = identity_fields
    not_events: Mapping[str, str] = {}
    throw_refuses = False
    tool_matchers = True
    output_in_payload = False

    observation_axes: Mapping[str, Mapping[str, str]] = {
        "codex-strict-command-json": {
            "order": "concurrent-native",
            "reconciliation": "no-adapter-merge",
            "failure": "strict-hook-failure",
        }
    }
    gate_axes: Mapping[str, Mapping[str, str]] = {
        "codex-strict-command-json": {"order": "concurrent-native", "reconciliation": "no-adapter-merge"}
    }

    # install and doctor (per host)

    install_binary_use: str | None = "used to record hook trust"
    doctor_binary_use: str | None = "asked about hook trust"
    trust_project_help: str | None = 'Codex: [projects."DIR"] trust_level = "trusted"'
    pasture_bin_reader: str | None = None


HOST: Host = Codex()  # mypy checks the class against the Protocol here


# --- what `pasture capture` runs on this host (the scenarios its ScenarioSet is made of) ---------

# Codex runs a call without asking unless it leaves the sandbox: the model asks for an unsandboxed
# run (require_escalated), which needs an approval.
_ESCALATED = Script.of(
    Turn.tool(
        "exec_command",
        {
            "cmd": PROBE_COMMAND,
            "sandbox_permissions": "require_escalated",
            "justification": "Write the pasture probe file",
        },
    ),
    Turn.reply("Done. The tool said: {tool_result}"),
)

# Codex with approvals on (no bypass flag): a read-only sandbox, approvals on request, and
# --approve-for-me, which routes an approval to a review (the hook's answer comes first).
_CODEX_APPROVALS = (
    ("approval_policy", "on-request"),
    ("sandbox_mode", "read-only"),
    ("bypass_approvals", False),
    ("extra_args", ("--approve-for-me",)),
)

#: Codex with approvals on request, and a model that asks for an unsandboxed run.
APPROVALS_ON_REQUEST = Approvals(
    _CODEX_APPROVALS,
    _ESCALATED,
    "with approvals on (read-only sandbox, on-request, --approve-for-me; the model asks for an unsandboxed run)",
    False,
)
