"""The profile JSON Schemas, committed under generated/schema/ for editor completion."""

from __future__ import annotations

from pasture.profile.schema import KINDS, render_schema
from pasture.render.artifact import Artifact


def schema_artifacts() -> list[Artifact]:
    return [Artifact(f"schema/{kind}.schema.json", render_schema(kind)) for kind in KINDS]
