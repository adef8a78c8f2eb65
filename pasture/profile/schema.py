"""The JSON Schema of the profile format, for `pasture schema` and editor completion."""

from __future__ import annotations

import json

from pydantic import BaseModel

from pasture.profile.models import LifecycleFile, RuntimeFile

KINDS: dict[str, type[BaseModel]] = {"lifecycle": LifecycleFile, "runtime": RuntimeFile}


def profile_schema(kind: str) -> dict:
    schema = KINDS[kind].model_json_schema(by_alias=True)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"https://pasture.invalid/schema/{kind}.schema.json",
        **schema,
    }


def render_schema(kind: str) -> str:
    return json.dumps(profile_schema(kind), indent=2, ensure_ascii=False) + "\n"
