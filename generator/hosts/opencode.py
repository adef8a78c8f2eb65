"""OpenCode, headless (``opencode run``) against the fake OpenAI Chat Completions server.

Everything OpenCode-specific about a run lives here.

* **Config:** ``<project>/opencode.json`` names a provider ``harness`` using the bundled
  ``@ai-sdk/openai-compatible`` package with ``baseURL = http://127.0.0.1:PORT/v1`` and a fake
  key; ``model`` and ``small_model`` are ``harness/<model>``; only that provider is enabled;
  ``permission`` allows bash and edit; no autoupdate, no sharing. The ``config`` option is
  deep-merged over it (e.g. ``{"permission": {"bash": "ask"}}``).
* **Env:** ``OPENCODE_DISABLE_{AUTOUPDATE,MODELS_FETCH,LSP_DOWNLOAD,SHARE,CLAUDE_CODE,DEFAULT_PLUGINS}=1``.
* **Startup install (obstacle O1):** at startup OpenCode npm-installs ``@opencode-ai/plugin`` into
  every config dir (``<project>/.opencode`` and ``$XDG_CONFIG_HOME/opencode``); offline that
  retries for ~70 s. It skips the install when ``node_modules/`` exists and ``package-lock.json``
  already names the package, so with ``stub_plugin_install=True`` (default) both dirs get an empty
  ``node_modules/`` and a stub lock, unless a ``package-lock.json`` is already there. Plugins must
  then import nothing from ``@opencode-ai/plugin`` at run time (type-only imports are fine).
* **Plugins:** local files ``<project>/.opencode/plugins/*.{js,ts}`` are auto-discovered; a test
  writes them itself. Never pass ``--pure``: it disables local plugins too.
* **Command:** ``opencode run --format json --print-logs --log-level <level> <prompt words...>``;
  the prompt goes as separate words because ``run`` wraps an argument containing spaces in quotes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from generator.hosts.launch import FAKE_API_KEY, HostLauncher, RunContext

__all__ = ["OpenCodeLauncher", "deep_merge"]

DEFAULT_PLUGIN_VERSION = "1.18.33"


def deep_merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def _opencode_version(binary: Path) -> str:
    """The opencode-ai package version next to the binary (the plugin version it installs)."""
    try:
        manifest = Path(binary).parent.parent / "opencode-ai" / "package.json"
        return str(json.loads(manifest.read_text())["version"])
    except (OSError, KeyError, ValueError):
        return DEFAULT_PLUGIN_VERSION


class OpenCodeLauncher(HostLauncher):
    host = "opencode"
    wire_protocol = "openai-chat"
    default_options = {
        "model": "fake-model",
        "config": {},
        "log_level": "INFO",
        "stub_plugin_install": True,
        "extra_args": [],
    }

    def config(self, ctx: RunContext) -> dict[str, Any]:
        model = ctx.options["model"]
        base = {
            "$schema": "https://opencode.ai/config.json",
            "provider": {"harness": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Pasture fake model (127.0.0.1)",
                "options": {"baseURL": ctx.base_url_v1, "apiKey": FAKE_API_KEY},
                "models": {model: {"name": "Fake model", "tool_call": True}},
            }},
            "model": f"harness/{model}",
            "small_model": f"harness/{model}",
            "enabled_providers": ["harness"],
            "permission": {"bash": "allow", "edit": "allow"},
            "autoupdate": False,
            "share": "disabled",
        }
        return deep_merge(base, ctx.options["config"])

    def env(self, ctx: RunContext) -> dict[str, str]:
        return {
            "OPENCODE_DISABLE_AUTOUPDATE": "1",
            "OPENCODE_DISABLE_MODELS_FETCH": "1",
            "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
            "OPENCODE_DISABLE_SHARE": "1",
            "OPENCODE_DISABLE_CLAUDE_CODE": "1",
            "OPENCODE_DISABLE_DEFAULT_PLUGINS": "1",
        }

    def prepare(self, ctx: RunContext) -> None:
        (ctx.layout.project / "opencode.json").write_text(json.dumps(self.config(ctx), indent=2) + "\n")
        if ctx.options["stub_plugin_install"]:
            version = _opencode_version(ctx.binary)
            stub = {"lockfileVersion": 3, "packages": {"": {"dependencies": {"@opencode-ai/plugin": version}}}}
            for config_dir in (ctx.layout.project / ".opencode", ctx.layout.xdg_config / "opencode"):
                (config_dir / "node_modules").mkdir(parents=True, exist_ok=True)
                lock = config_dir / "package-lock.json"
                if not lock.exists():
                    lock.write_text(json.dumps(stub) + "\n")

    def argv(self, ctx: RunContext) -> list[str]:
        return [str(ctx.binary), "run", "--format", "json", "--print-logs", "--log-level",
                ctx.options["log_level"], *list(ctx.options["extra_args"]), *ctx.prompt.split()]
