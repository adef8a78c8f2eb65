"""Claude Code: a settings fragment for .claude/settings.json and a plugin bundle."""

from __future__ import annotations

from generator.profile.contracts import Contract
from generator.render import commands
from generator.render.artifact import Artifact, header
from generator.render.env import render

PLUGIN_NAME = "pasture-lifecycle"


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
