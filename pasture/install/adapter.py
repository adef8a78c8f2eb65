"""The adapter to install: rendered in memory from the contract's profile, exactly as
``pasture generate`` writes it to generated/ (the same render functions, the same bytes).

Rendering from the profile means an install never depends on generated/ being present (or
current); when generated/ holds a copy that differs, the report warns that it is stale.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pasture.profile.contracts import Contract
from pasture.profile.loader import load_project
from pasture.profile.vocab import Harness
from pasture.render.artifact import Artifact


@dataclass(frozen=True)
class Adapter:
    contract: Contract
    artifact: Artifact  # the one file the install puts in place (settings / hooks.json / plugin)
    stale_generated: str | None  # generated/<path> when it differs from the rendering

    @property
    def events(self) -> list[str]:
        return [row.name for row in self.contract.events]

    def hooks_document(self) -> dict[str, Any]:
        return json.loads(self.artifact.text)


_FILE = {Harness.CLAUDE_CODE: "settings.json", Harness.CODEX: "hooks.json"}


def load_adapter(root: Path, contract_id: str) -> Adapter:
    """Load and validate one contract (raises ProfileErrors) and render its installable file."""
    (contract,) = load_project(root, [contract_id])
    from pasture.hosts.opencode import PLUGIN_FILE

    name = _FILE.get(contract.harness, PLUGIN_FILE)
    from pasture.render.project import adapter_artifacts

    artifact = next(a for a in adapter_artifacts(contract, root) if a.path == f"{contract.id}/{name}")
    on_disk = root / "generated" / artifact.path
    stale = None
    try:
        if on_disk.read_bytes().decode("utf-8").replace("\r\n", "\n") != artifact.text:
            stale = f"generated/{artifact.path}"
    except (OSError, UnicodeDecodeError):
        pass
    return Adapter(contract, artifact, stale)
