"""Codex CLI: hooks.json for a .codex/ layer, strict command hooks only."""

from __future__ import annotations

from generator import PastureError
from generator.profile.contracts import Contract
from generator.render.artifact import Artifact, header
from generator.render.claude import hooks_table
from generator.render.env import render

# The event keys Codex's hooks.json accepts. Codex silently ignores any other key, so a typo would
# be a hole nobody notices: refuse to generate one instead. The eleven come from HooksToml in the
# pinned config schema (shared/schemas/codex-hooks/codex-config.schema.json); Interrupt arrived with
# the 0.153 line (Pasture pins it at 0.153.0; observe-only, systemMessage only). The real Codex 0.171.0
# loads exactly these twelve and nothing else of every Claude/Codex event name offered to it
# (captures/codex@0.171.0/capture.json, catalog.host_listed: `codex app-server` hooks/list).
ACCEPTED_EVENTS = frozenset({
    "PreToolUse", "PermissionRequest", "PostToolUse", "PreCompact", "PostCompact", "SessionStart",
    "SessionEnd", "UserPromptSubmit", "SubagentStart", "SubagentStop", "Stop", "Interrupt",
})


class CodexEventError(PastureError, ValueError):
    pass


def codex_artifacts(contract: Contract) -> list[Artifact]:
    unknown = [row.name for row in contract.events if row.name not in ACCEPTED_EVENTS]
    if unknown:
        raise CodexEventError(
            f"{contract.lifecycle_file}: Codex would silently ignore these event keys: {', '.join(unknown)}; "
            f"accepted: {', '.join(sorted(ACCEPTED_EVENTS))}"
        )
    document = {"description": header("", contract.lifecycle_file).strip(), "hooks": hooks_table(contract)}
    return [Artifact(f"{contract.id}/hooks.json", render("json.j2", document=document), contract.id)]
