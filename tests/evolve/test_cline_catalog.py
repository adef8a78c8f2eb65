"""Cline's catalog reader (pasture/catalog/cline.py).

On the pinned install of tests/npm (the ``npm_bin`` fixture, as the Pi and Copilot readers' tests find it:
it installs tests/npm once and fails, never skips, without npm and node): ``files`` names the core bundle
and the payload typings, and ``events`` gives one entry per hook-file event of the enum, its input the
payload of its agent hook (PreCompact: none) and its output the hook output parser's fields.

On small hand-made bundles: what the patterns read, and that a bundle without what is read is a
CatalogError naming the file and the thing missing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from repo_paths import REPO

from pasture.catalog.cline import BUNDLE, CORE, SHARED, TYPES, control_fields, events, files, hook_names
from pasture.catalog.packages import HostFile
from pasture.profile.catalog import CatalogError

EVENTS = [
    "TaskStart",
    "TaskResume",
    "TaskCancel",
    "TaskComplete",
    "TaskError",
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "PreCompact",
    "SessionShutdown",
]
OUTPUT = {
    "cancel": {"required": False, "type": "boolean"},
    "context": {"required": False, "type": "string"},
    "contextModification": {"required": False, "type": "string"},
    "errorMessage": {"required": False, "type": "string"},
    "overrideInput": {"required": False, "type": "unknown"},
    "review": {"required": False, "type": "boolean"},
}
ENUM = (
    'var d3;((B)=>{B.TaskStart="TaskStart";B.PreToolUse="PreToolUse";B.PreCompact="PreCompact"})(d3||={});'
    'var ZV={["TaskStart"]:"agent_start",["PreToolUse"]:"tool_call",["PreCompact"]:void 0},Gl=1;'
)
PARSER = (
    "var Al=q6.object({contextModification:q6.string().optional(),cancel:q6.boolean().optional(),"
    "review:q6.boolean().optional(),errorMessage:q6.string().optional(),context:q6.string().optional(),"
    "overrideInput:q6.unknown().optional()}).passthrough();"
)


def _found(node_modules: Path) -> list[HostFile]:
    """What ``files`` registers, as the HostFile list ``events`` is handed."""
    out: list[HostFile] = []

    def add(folder: Path, rel: str, read: str) -> None:
        version = json.loads((folder / "package.json").read_text())["version"]
        out.append(HostFile(folder.relative_to(node_modules).as_posix(), version, rel, folder / rel, read))

    files(node_modules, add)
    return out


@pytest.fixture(scope="module")
def cline_install(npm_bin: Path) -> tuple[list[HostFile], dict[str, dict]]:
    node_modules = npm_bin.parent
    found = _found(node_modules)
    returned, entries = events("3.0.65", found, node_modules, None, REPO)
    assert returned == found
    return found, {e["name"]: e for e in entries}


def test_files_are_the_core_bundle_and_the_payload_typings(cline_install):
    found, _ = cline_install
    assert [(f.package, f.version, f.rel) for f in found] == [
        (CORE, "0.0.86", BUNDLE),
        (SHARED, "0.0.86", TYPES),
    ]
    assert all(f.read and f.path.is_file() for f in found)


def test_the_events_are_the_hook_file_enum_in_its_order(cline_install):
    _, entries = cline_install
    assert list(entries) == EVENTS
    assert all(e["kind"] == "hook" and e["sources"] == [CORE, SHARED] for e in entries.values())
    assert [n for n, e in entries.items() if e["pre_action"]] == ["PreToolUse"]
    assert entries["PreCompact"]["input"] == {}  # mapped to no agent hook: the file never runs


def test_pre_tool_use_input_is_the_tool_call_payload(cline_install):
    _, entries = cline_install
    pre = entries["PreToolUse"]["input"]
    assert pre["hookName"] == {"required": True, "type": "literal", "values": ["tool_call"]}
    call = pre["tool_call"]
    assert call["required"] is True and call["type"] == "object"
    assert call["fields"] == {
        "id": {"required": True, "type": "string"},
        "input": {"required": True, "type": "unknown"},
        "name": {"required": True, "type": "string"},
    }
    legacy = pre["preToolUse"]
    assert legacy["required"] is False and legacy["type"] == "object"
    assert set(legacy["fields"]) == {"toolName", "parameters"}
    assert legacy["fields"]["toolName"] == {"required": True, "type": "string"}
    for field in ("taskId", "clineVersion", "timestamp", "agent_id"):  # HookEventPayloadBase
        assert pre[field] == {"required": True, "type": "string"}, field
    assert entries["PostToolUse"]["input"]["hookName"]["values"] == ["tool_result"]


def test_every_event_answers_with_the_hook_output_parsers_fields(cline_install):
    _, entries = cline_install
    assert all(e["output"] == OUTPUT for e in entries.values())


def test_the_patterns_read_a_small_bundle():
    assert hook_names(ENUM, "core") == {"TaskStart": "agent_start", "PreToolUse": "tool_call", "PreCompact": None}
    assert control_fields(ENUM + PARSER, "core") == OUTPUT


@pytest.mark.parametrize(
    ("text", "what"),
    [
        (ENUM.replace('B.TaskStart="TaskStart";', "") + PARSER, "event enum"),
        (ENUM.replace('["PreToolUse"]:"tool_call",', "") + PARSER, "no agent hook mapping for PreToolUse"),
        (ENUM, "the hook output parser"),
        (ENUM + PARSER.replace("review:q6.boolean()", "review:q6.enum([1,2])"), "review has a zod type"),
        (ENUM + PARSER.replace("cancel:", "stop:"), "lacks cancel"),
    ],
)
def test_a_bundle_without_what_is_read_is_refused_naming_it(tmp_path, text, what):
    """A fake core bundle beside the real typings' path: events stops at the bundle, before the checker."""
    core, shared = tmp_path / CORE, tmp_path / SHARED
    (core / "dist").mkdir(parents=True)
    (core / BUNDLE).write_text(text)
    found = [
        HostFile(CORE, "0.0.86", BUNDLE, core / BUNDLE, "bundle"),
        HostFile(SHARED, "0.0.86", TYPES, shared / TYPES, "typings"),
    ]
    with pytest.raises(CatalogError, match=what) as err:
        events("3.0.65", found, tmp_path, None, REPO)
    assert f"{CORE}/{BUNDLE}" in str(err.value)


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(CatalogError, match=f"no {SHARED}/{TYPES} under"):
        events("3.0.65", [HostFile(CORE, "0.0.86", BUNDLE, tmp_path / "index.js", "bundle")], tmp_path, None, REPO)
    with pytest.raises(CatalogError, match="give an npm install"):
        events("3.0.65", [], None, None, REPO)


@pytest.mark.real_host
def test_committed_cline_catalog_is_what_the_pinned_host_ships(npm_bin):
    from pasture.catalog import dump, extract, find_catalog

    committed = find_catalog(REPO, "cline", "3.0.65")
    assert committed is not None, "no committed catalog for cline 3.0.65"
    assert dump(extract("cline", "3.0.65", node_modules=npm_bin.parent, root=REPO)) == dump(committed.doc)
