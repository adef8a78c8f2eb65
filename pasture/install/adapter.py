"""The adapter to install: rendered in memory from the contract's profile, exactly as
``pasture generate`` writes it to generated/ (the same render functions, the same bytes).

Rendering from the profile means an install never depends on generated/ being present (or
current); when generated/ holds a copy that differs, the report warns that it is stale.
"""

from __future__ import annotations

from pathlib import Path

from pasture.hosts import host
from pasture.install.session import Adapter
from pasture.profile.loader import load_project

__all__ = ["Adapter", "load_adapter"]


def load_adapter(root: Path, contract_id: str) -> Adapter:
    """Load and validate one contract (raises ProfileErrors) and render its installable file (its host's
    ``adapter_file``)."""
    (contract,) = load_project(root, [contract_id])
    from pasture.render.project import adapter_artifacts

    name = host(contract.harness.value).adapter_file
    artifact = next(a for a in adapter_artifacts(contract, root) if a.path == f"{contract.id}/{name}")
    on_disk = root / "generated" / artifact.path
    stale = None
    try:
        if on_disk.read_bytes().decode("utf-8").replace("\r\n", "\n") != artifact.text:
            stale = f"generated/{artifact.path}"
    except (OSError, UnicodeDecodeError):
        pass
    return Adapter(contract, artifact, stale)
