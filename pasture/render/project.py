"""Every artifact of a project, rendered in memory, in a deterministic order."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Mapping

import jinja2

from pasture import PastureError, __version__
from pasture.profile.contracts import Contract
from pasture.render.artifact import Artifact, RenderedHost
from pasture.render.docs import events_doc, instructions_doc
from pasture.render.env import search_path, template_line, templates_of
from pasture.render.schemas import schema_artifacts
from pasture.render.tables import table_artifacts

MANIFEST = "manifest.json"


class RenderError(PastureError):
    """A validated profile that still cannot be rendered (e.g. a key the host would ignore)."""


def adapter_artifacts(contract: Contract, host: RenderedHost, root: Path | None = None) -> list[Artifact]:
    """The native adapter files of one contract (what `pasture install` puts in place) by its ``host``,
    rendered with project ``root``'s templates (its templates/ overrides, then the packaged ones)."""
    with templates_of(root):
        return host.artifacts(contract)


def render_project(
    contracts: list[Contract], root: Path | None = None, *, hosts: Mapping[str, RenderedHost]
) -> list[Artifact]:
    """Every artifact of the project at ``root`` (None: packaged templates only), manifest last; ``hosts``:
    harness id -> its host (the registry, handed in by the caller)."""
    try:
        with templates_of(root):
            return _render_all(contracts, hosts)
    except jinja2.TemplateSyntaxError as exc:
        raise RenderError(f"{exc.filename or exc.name}:{exc.lineno}: template syntax error: {exc.message}") from exc
    except jinja2.TemplateError as exc:
        # An override template that reads a missing name, that the sandbox stopped, or that went
        # past a bound (time, size, a load from outside templates/).
        where = template_line(exc, search_path(root))
        raise RenderError(
            f"{where + ': ' if where else ''}template error: {exc.message or type(exc).__name__} "
            f"(templates: {', '.join(search_path(root))})"
        ) from exc


def _render_all(contracts: list[Contract], hosts: Mapping[str, RenderedHost]) -> list[Artifact]:
    artifacts: list[Artifact] = []
    try:
        for contract in contracts:
            host = hosts[contract.harness.value]
            artifacts += host.artifacts(contract)
            artifacts.append(events_doc(contract))
            artifacts.append(instructions_doc(contract, host.display_name, host.instructions_file))
        artifacts += table_artifacts(contracts)
    except ValueError as exc:
        raise RenderError(str(exc)) from exc
    artifacts += schema_artifacts()
    artifacts.sort(key=lambda a: a.path)
    paths = [a.path for a in artifacts]
    if len(set(paths)) != len(paths):
        raise RenderError("two artifacts claim the same path")
    artifacts.append(manifest(artifacts))
    return artifacts


def manifest(artifacts: list[Artifact]) -> Artifact:
    files = [{"path": a.path, "sha256": a.sha256, "contract": a.contract} for a in artifacts]
    document = {
        "generator": "pasture",
        "version": __version__,
        "note": "every generated file and its sha256; do not edit",
        "files": files,
    }
    return Artifact(MANIFEST, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
