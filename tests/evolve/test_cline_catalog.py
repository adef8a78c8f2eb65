"""Cline's catalog reader (pasture/catalog/cline.py) on small hand-made copies of what @cline/core bundles: the
hook-file event enum and the agent hook each maps to (PreCompact to none), and the zod object the hook output
is parsed with; a bundle without them is a CatalogError naming what is missing."""

from __future__ import annotations

import json

import pytest
from repo_paths import REPO

from pasture.catalog.cline import control_fields, hook_names
from pasture.profile.catalog import CatalogError

BUNDLE = (
    'var d3;((B)=>{B.TaskStart="TaskStart";B.PreToolUse="PreToolUse";B.PreCompact="PreCompact"})(d3||={});'
    'var ZV={["TaskStart"]:"agent_start",["PreToolUse"]:"tool_call",["PreCompact"]:void 0},Gl=1;'
    "var Al=q6.object({contextModification:q6.string().optional(),cancel:q6.boolean().optional(),"
    "review:q6.boolean().optional(),errorMessage:q6.string().optional(),context:q6.string().optional(),"
    "overrideInput:q6.unknown().optional()}).passthrough();"
)


def test_the_events_and_the_agent_hook_each_is_fired_from():
    assert hook_names(BUNDLE, "core") == {"TaskStart": "agent_start", "PreToolUse": "tool_call", "PreCompact": None}


def test_the_answer_is_the_hook_output_parsers_fields():
    fields = control_fields(BUNDLE, "core")
    assert fields["cancel"] == {"required": False, "type": "boolean"}
    assert fields["overrideInput"] == {"required": False, "type": "unknown"}
    assert sorted(fields) == ["cancel", "context", "contextModification", "errorMessage", "overrideInput", "review"]


@pytest.mark.parametrize(
    ("text", "what"),
    [
        (BUNDLE.replace('B.TaskStart="TaskStart";', ""), "event enum"),
        (BUNDLE.replace('["PreToolUse"]:"tool_call",', ""), "no agent hook mapping for PreToolUse"),
        (BUNDLE.replace("contextModification:", "ctx:"), "hook output parser"),
    ],
)
def test_a_bundle_without_what_is_read_is_refused_naming_it(text, what):
    with pytest.raises(CatalogError, match=what):
        hook_names(text, "core")
        control_fields(text, "core")


def test_the_committed_catalog_marks_only_pre_tool_use_pre_action_and_names_its_payload():
    doc = json.loads((REPO / "captures" / "cline@3.0.65" / "catalog.json").read_text())
    events = {e["name"]: e for e in doc["events"]}
    assert [n for n, e in events.items() if e["pre_action"]] == ["PreToolUse"]
    pre = events["PreToolUse"]["input"]
    assert pre["hookName"]["values"] == ["tool_call"]
    assert set(pre["tool_call"]["fields"]) == {"id", "name", "input"}
    assert events["PreCompact"]["input"] == {}  # fired from no agent hook: the profile excludes it
