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

from pasture.hosts.launch import FAKE_API_KEY, HostLauncher, RunContext
from pasture.hosts.protocol import Host
from pasture.profile.contracts import Contract
from pasture.profile.vocab import HookSurface
from pasture.render import commands
from pasture.render.artifact import Artifact, header

__all__ = ["HOST", "PLUGIN_NAME", "ClaudeCode", "ClaudeCodeLauncher", "claude_artifacts", "hooks_table"]

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


def hooks_table(contract: Contract) -> dict:
    """event -> matcher groups, in catalog order; every row becomes one command hook."""
    table: dict[str, list] = {}
    for row in contract.events:
        group: dict = {}
        if row.matcher is not None:
            group["matcher"] = row.matcher
        group["hooks"] = [commands.handler(contract, row)]
        table[row.name] = [group]
    return table


def claude_artifacts(contract: Contract) -> list[Artifact]:
    from pasture.render.env import render  # jinja2: only when rendering, not for the registry

    base = contract.id
    hooks = hooks_table(contract)
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


class ClaudeCode:
    name = "claude-code"
    display_name = "Claude Code"
    surfaces: tuple[HookSurface, ...] = (HookSurface.CLAUDE_COMMAND_JSON,)
    instructions_file = "CLAUDE.md"  # where the generated agent instructions go
    # Agent/SendMessage/TaskStop-era tools only (never the removed TeamCreate/TeamDelete).
    native_calls = frozenset({"Agent", "SendMessage", "TaskStop", "TaskOutput", "Skill", "AskUserQuestion"})
    npm_packages: tuple[str, ...] = ("@anthropic-ai/claude-code",)
    binary = "claude"
    binary_flag = "--claude-bin"
    binary_env = "PASTURE_CLAUDE_BIN"
    catalog_reader = "claude"
    wire = "claude_code"
    gate_failure = "exit-2-blocks"
    launcher: HostLauncher = ClaudeCodeLauncher()

    def surface_of(self, bus: bool) -> HookSurface:
        return HookSurface.CLAUDE_COMMAND_JSON

    def artifacts(self, contract: Contract) -> list[Artifact]:
        return claude_artifacts(contract)


HOST: Host = ClaudeCode()  # mypy checks the class against the Protocol here
