"""Host catalogs: each host version's own definition of its lifecycle events, extracted from what it
ships and committed in ``captures/<harness>@<version>/catalog.json`` (format: :mod:`pasture.profile.catalog`).

``pasture catalog extract`` writes one; ``pasture validate`` checks every profile against the
catalog of its host version (:mod:`pasture.profile.closed`); ``pasture bump`` extracts one for the new version and
classifies new events from it.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from pasture.catalog.packages import HostFile, host_files, package_version, provenance, reader
from pasture.hosts import HOSTS
from pasture.profile.catalog import (
    CATALOG_FILE,
    CATALOG_FORMAT,
    Catalog,
    CatalogError,
    EventSchema,
    catalog_path,
    dump,
    find_catalog,
    load_catalog,
    project_keeps_catalogs,
)

__all__ = [
    "CATALOG_FILE",
    "Catalog",
    "CatalogError",
    "EventSchema",
    "catalog_path",
    "dump",
    "extract",
    "find_catalog",
    "load_catalog",
    "project_keeps_catalogs",
    "write_catalog",
]

HOW_TO_REFRESH = "pasture catalog extract {harness} --version {version}"


def extract(
    harness: str,
    version: str,
    *,
    node_modules: Path | None = None,
    binary: Path | None = None,
    root: Path | None = None,
) -> dict[str, Any]:
    """The catalog document of ``harness`` ``version`` from its installed packages (or, for Claude Code and
    Codex, from a bare binary when no npm install holds it). ``root``: the project, whose npm cache of
    tests/npm holds the pinned ``typescript`` that reads OpenCode's typings."""
    files: list[HostFile] = host_files(harness, node_modules) if node_modules is not None else []
    if harness not in HOSTS:
        raise CatalogError(f"unknown harness {harness!r}")
    files, entries = reader(harness).events(version, files, node_modules, binary, root)
    pinned = _pinned_by_host(harness, node_modules)
    for f in files:
        if f.package and f.version.split("-")[0] != version and pinned.get(f.package) != f.version:
            raise CatalogError(f"{f.package} in {node_modules} is version {f.version}, not {version}")
    return {
        "catalog_format": CATALOG_FORMAT,
        "generated_by": "pasture catalog extract",
        "harness": harness,
        "host_version": version,
        "refresh": HOW_TO_REFRESH.format(harness=harness, version=version),
        "sources": provenance(files),
        "events": entries,
    }


def _pinned_by_host(harness: str, node_modules: Path | None) -> dict[str, str]:
    """The exact versions the host's own package pins for its dependencies (Cline's ``cline`` pins
    ``@cline/core`` and ``@cline/shared``): files of those count as the host version's own."""
    import json

    from pasture.catalog.packages import HOST_NPM

    if node_modules is None or not HOST_NPM.get(harness):
        return {}
    try:
        doc = json.loads((Path(node_modules) / HOST_NPM[harness][0] / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    deps = doc.get("dependencies") if isinstance(doc, dict) else None
    return {k: v for k, v in (deps or {}).items() if isinstance(v, str)}


def write_catalog(root: Path, doc: dict[str, Any]) -> Path:
    """Write ``captures/<harness>@<version>/catalog.json`` atomically; return its path."""
    path = catalog_path(root, doc["harness"], doc["host_version"])
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".catalog-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(dump(doc))
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


def installed_version(harness: str, node_modules: Path) -> str | None:
    from pasture.catalog.packages import HOST_NPM

    return package_version(node_modules, HOST_NPM[harness][0])
