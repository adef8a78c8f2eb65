"""Claude Code, headless (``claude -p``) against the fake Anthropic Messages server.

Everything Claude-specific about a run lives here.

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

from generator.hosts.launch import FAKE_API_KEY, HostLauncher, RunContext

__all__ = ["ClaudeCodeLauncher"]


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
