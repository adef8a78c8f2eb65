"""The adapter to install: rendered in memory from the contract's profile, exactly as
``pasture generate`` writes it to generated/ (the same render functions, the same bytes).

Rendering from the profile means an install never depends on generated/ being present (or
current); when generated/ holds a copy that differs, the report warns that it is stale.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pasture.install.session import Adapter
from pasture.profile.loader import load_project

if TYPE_CHECKING:
    from pasture.install.hostview import InstallHost

__all__ = ["Adapter", "load_adapter"]


def load_adapter(root: Path, contract_id: str, host: InstallHost) -> Adapter:
    """Load and validate one contract of ``host`` (raises ProfileErrors) and render its installable file (the
    host's ``adapter_file``)."""
    (contract,) = load_project(root, [contract_id], hosts={host.name: host})
    from pasture.render.project import adapter_artifacts

    artifact = next(
        a for a in adapter_artifacts(contract, host, root) if a.path == f"{contract.id}/{host.adapter_file}"
    )
    on_disk = root / "generated" / artifact.path
    stale = None
    try:
        if on_disk.read_bytes().decode("utf-8").replace("\r\n", "\n") != artifact.text:
            stale = f"generated/{artifact.path}"
    except (OSError, UnicodeDecodeError):
        pass
    return Adapter(contract, artifact, stale)
