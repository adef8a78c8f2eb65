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
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pasture.hosts.launch import FAKE_API_KEY, HostLauncher, RunContext
from pasture.hosts.protocol import Host
from pasture.profile.contracts import Contract
from pasture.profile.vocab import HookSurface
from pasture.render import commands
from pasture.render.artifact import Artifact, header

__all__ = ["HOST", "GeminiCli", "GeminiLauncher", "gemini_artifacts", "hooks_table", "merge_json"]

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
    default_options = {"model": "gemini-2.5-pro", "trust": "env", "extra_args": []}

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
        return [str(ctx.binary), "-p", ctx.prompt, "--yolo", "--output-format", "json", *ctx.options["extra_args"]]


def handler(contract: Contract, row, note: str) -> dict:
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


class GeminiCli:
    name = "gemini-cli"
    display_name = "Gemini CLI"
    surfaces: tuple[HookSurface, ...] = (HookSurface.GEMINI_COMMAND_JSON,)
    instructions_file = "GEMINI.md"
    native_calls = frozenset({"activate_skill", "invoke_agent", "ask_user", "complete_task", "write_todos"})
    npm_packages: tuple[str, ...] = ("@google/gemini-cli",)
    binary = "gemini"
    binary_flag = "--gemini-bin"
    binary_env = "PASTURE_GEMINI_BIN"
    catalog_reader = "gemini"
    wire = "gemini_cli"
    gate_failure = "exit-2-blocks"
    launcher: HostLauncher = GeminiLauncher()

    def surface_of(self, bus: bool) -> HookSurface:
        return HookSurface.GEMINI_COMMAND_JSON

    def artifacts(self, contract: Contract) -> list[Artifact]:
        return gemini_artifacts(contract)


HOST: Host = GeminiCli()  # mypy checks the class against the Protocol here
