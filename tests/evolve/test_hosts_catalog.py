"""`pasture catalog extract`: each host's own definition of its events, read from what it ships.

Stand-in packages (a made-up minified bundle, an embedded JSON Schema, plugin typings read by the
pinned TypeScript checker) check the readers offline; the real-host test re-extracts the pinned
tests/npm hosts and compares with the committed catalogs byte for byte.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner
from hosts_support import REPO

from pasture.catalog import Catalog, dump, extract, find_catalog
from pasture.catalog.jsexpr import parse_expression
from pasture.cli import main
from pasture.hostenv.npm_tools import HOST_PACKAGES, pinned_versions

# --- the readers ----------------------------------------------------------------------------------


def test_js_expressions_with_regex_templates_arrows_and_functions():
    text = 'x=a({k:b().optional(),"q":[1,2],r:/[}]\\//g,t:`a${c({d:1})}b`,f:(e)=>e+1,g:function(){return {}}})'
    node, end = parse_expression(text, 2)
    assert end == len(text) and node.kind == "call"
    props = {m.value: m.children[0].kind for m in node.children[1].children}
    assert props == {"k": "call", "q": "array", "r": "regex", "t": "template", "f": "arrow", "g": "func"}


BUNDLE = (
    "var p=(e)=>e,B=p(()=>u({session_id:r(),cwd:r(),agent_id:r().optional()})),"
    'T=p(()=>B().and(u({hook_event_name:P("PreToolUse"),tool_name:r(),tool_input:de(),tool_use_id:r()}))),'
    'N=p(()=>B().and(u({hook_event_name:P("Notice"),message:r(),when:v().optional()}))),'
    'S=p(()=>B().and(u({hook_event_name:P("Stop"),stop_hook_active:I()}))),'
    'Q=p(()=>B().and(u({hook_event_name:P("PostToolUse"),tool_name:r(),duration_ms:v().optional()}))),'
    'D=p(()=>U(["allow","deny","ask"])),'
    'O=p(()=>u({continue:I().optional(),decision:U(["approve","block"]).optional(),'
    'hookSpecificOutput:dt([u({hookEventName:P("PreToolUse"),permissionDecision:D().optional(),'
    'permissionDecisionReason:r().optional()}),u({hookEventName:P("Notice"),additionalContext:r().optional()})])'
    '.optional()}));var Ev=["PreToolUse","PostToolUse","Notice","Stop"];'
    'function warn(l){return`Unknown hook event "${l}" was ignored. Valid events: ${Ev.join(", ")}`}'
)


def _exe(path: Path, version_line: str, payload: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'#!/bin/sh\necho "{version_line}"\nexit 0\n# {payload}\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_claude_reader_understands_minified_zod(tmp_path):
    binary = _exe(tmp_path / "claude", "9.9.9 (Claude Code)", BUNDLE)
    doc = extract("claude-code", "9.9.9", binary=binary)
    cat = Catalog(doc)
    assert cat.names == ["PreToolUse", "PostToolUse", "Notice", "Stop"]
    pre = cat.event("PreToolUse")
    assert pre.input["session_id"] == {"required": True, "type": "string"}
    assert pre.input["agent_id"] == {"required": False, "type": "string"}
    assert pre.input["tool_input"]["type"] == "unknown"
    assert cat.event("Stop").input["stop_hook_active"]["type"] == "boolean"
    assert cat.event("PostToolUse").input["duration_ms"] == {"required": False, "type": "number"}
    assert pre.decisions() == {
        "deny": ["hookSpecificOutput.permissionDecision"],
        "ask": ["hookSpecificOutput.permissionDecision"],
        "block": ["decision"],
    }
    assert "deny" not in cat.event("Notice").decisions()
    assert cat.identity_fields("Notice") == {
        "session_id": True,
        "cwd": True,
        "agent_id": False,
        "hook_event_name": True,
        "message": True,
        "when": False,
    }
    (source,) = doc["sources"]
    assert source["file"] == "claude" and len(source["sha256"]) == 64
    assert "description" not in json.dumps(doc)  # structure only, never upstream prose


CODEX_SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "pre-tool-use.command.input",
    "type": "object",
    "definitions": {"NullableString": {"type": ["string", "null"]}},
    "properties": {
        "hook_event_name": {"const": "PreToolUse", "type": "string"},
        "session_id": {"type": "string"},
        "turn_id": {"type": "string"},
        "transcript_path": {"$ref": "#/definitions/NullableString"},
        "agent_id": {"type": "string"},
    },
    "required": ["hook_event_name", "session_id", "turn_id", "transcript_path"],
    "additionalProperties": False,
}
CODEX_OUT = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "pre-tool-use.command.output",
    "type": "object",
    "definitions": {"D": {"enum": ["allow", "deny"], "type": "string"}},
    "properties": {
        "hookSpecificOutput": {
            "type": "object",
            "properties": {"permissionDecision": {"allOf": [{"$ref": "#/definitions/D"}], "default": None}},
        }
    },
}


def test_codex_reader_reads_the_embedded_json_schemas(tmp_path):
    binary = _exe(
        tmp_path / "codex",
        "codex-cli 9.9.9",
        json.dumps(CODEX_SCHEMA, indent=2) + "junk" + json.dumps(CODEX_OUT, indent=2),
    )
    cat = Catalog(extract("codex", "9.9.9", binary=binary))
    assert cat.names == ["PreToolUse"]
    fields = cat.identity_fields("PreToolUse")
    assert (fields["session_id"], fields["turn_id"], fields["agent_id"]) == (True, True, False)
    assert cat.event("PreToolUse").decisions() == {"deny": ["hookSpecificOutput.permissionDecision"]}


PLUGIN_DTS = """import type { Event, Permission } from "@opencode-ai/sdk";
export interface Hooks {
    event?: (input: { event: Event; }) => Promise<void>;
    config?: (input: any) => Promise<void>;
    /** docs are ignored */
    "tool.execute.before"?: (input: { tool: string; sessionID: string; callID: string; }, \
output: { args: any; }) => Promise<void>;
    "permission.ask"?: (input: Permission, output: { status: "ask" | "deny" | "allow"; }) => Promise<void>;
}
"""
SDK_DTS = """export type Permission = { id: string; sessionID: string; callID?: string; };
export type EventSessionIdle = { type: "session.idle"; properties: { sessionID: string; }; };
export type EventThing = { id?: string; type: "thing.done"; properties: { info: { sessionID: string; }; }; };
export type Event = EventSessionIdle | EventThing;
"""
SDK_V2_DTS = """export type Event = { id: string; type: "session.idle"; properties: { sessionID: string; }; };
"""
#: The SDK's package.json as 1.x ships it, trimmed to what type resolution reads.
SDK_EXPORTS = {".": {"types": "./dist/index.d.ts"}, "./v2": {"types": "./dist/v2/index.d.ts"}}


def opencode_install(
    root: Path, version: str, plugin: str = PLUGIN_DTS, sdk: str = SDK_DTS, sdk_v2: str = SDK_V2_DTS
) -> Path:
    """A stand-in npm install of OpenCode ``version`` in the layout 1.x ships (plugin, SDK v1 and v2 typings)."""
    nm = root / "node_modules"
    for rel, text in (
        ("@opencode-ai/plugin/dist/index.d.ts", plugin),
        ("@opencode-ai/sdk/dist/index.d.ts", 'export * from "./gen/types.gen.js";\n'),
        ("@opencode-ai/sdk/dist/gen/types.gen.d.ts", sdk),
        ("@opencode-ai/sdk/dist/v2/index.d.ts", 'export * from "./gen/types.gen.js";\n'),
        ("@opencode-ai/sdk/dist/v2/gen/types.gen.d.ts", sdk_v2),
    ):
        (nm / rel).parent.mkdir(parents=True, exist_ok=True)
        (nm / rel).write_text(text)
    for pkg in ("@opencode-ai/plugin", "@opencode-ai/sdk", "opencode-ai", "opencode-linux-x64"):
        (nm / pkg).mkdir(parents=True, exist_ok=True)
        doc = {"name": pkg, "version": version, "type": "module"}
        if pkg == "@opencode-ai/sdk":
            doc["exports"] = SDK_EXPORTS
        (nm / pkg / "package.json").write_text(json.dumps(doc))
    _exe(nm / "opencode-linux-x64" / "bin" / "opencode", version, 'x.trigger("tool.execute.before",a)')
    return nm


def test_opencode_reader_reads_hooks_events_and_call_sites(tmp_path, npm_bin):
    nm = opencode_install(tmp_path, "9.9.9")
    cat = Catalog(extract("opencode", "9.9.9", node_modules=nm, root=REPO))
    assert cat.names == ["tool.execute.before", "permission.ask", "session.idle", "thing.done"]
    assert cat.event("tool.execute.before").host_calls == 1
    assert cat.event("tool.execute.before").output == {"args": {"required": True, "type": "unknown"}}  # written any
    assert cat.event("permission.ask").host_calls == 0  # typed, never called by the host
    assert cat.event("permission.ask").decisions() == {"ask": ["status"], "deny": ["status"]}
    assert cat.identity_fields("permission.ask")["callID"] is False
    assert cat.identity_fields("thing.done")["sessionID"] is True  # properties.info.sessionID
    assert cat.event("session.idle").kind == "bus"
    assert cat.event("session.idle").input["id"] == {"required": True, "type": "string"}  # v2's shape comes first


# --- the command ----------------------------------------------------------------------------------


def _cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_extract_writes_the_catalog_with_provenance_and_check_mode(tmp_path):
    root = tmp_path / "project"
    root.mkdir()
    binary = _exe(tmp_path / "bin" / "claude", "9.9.9 (Claude Code)", BUNDLE)
    result = _cli("--root", root, "catalog", "extract", "claude-code", "--host-bin", binary)
    assert result.exit_code == 0, result.output
    path = root / "captures" / "claude-code@9.9.9" / "catalog.json"
    doc = json.loads(path.read_text())
    assert doc["refresh"] == "pasture catalog extract claude-code --version 9.9.9"
    assert path.read_text() == dump(doc) and path.stat().st_mode & 0o777 == 0o644
    assert _cli("--root", root, "catalog", "extract", "claude-code", "--host-bin", binary, "--check").exit_code == 0
    path.write_text(path.read_text().replace('"Notice"', '"Notise"'))
    stale = _cli("--root", root, "catalog", "extract", "claude-code", "--host-bin", binary, "--check")
    assert stale.exit_code == 1 and "differs from what claude-code 9.9.9 ships" in stale.stderr
    shown = _cli("--root", root, "catalog", "show", "claude-code@9.9.9")
    assert "PreToolUse [hook] decisions: ask (hookSpecificOutput.permissionDecision)" in shown.stdout


def test_extract_of_something_else_says_so_and_writes_nothing(tmp_path):
    binary = _exe(tmp_path / "bin" / "claude", "9.9.9 (Claude Code)", "no schemas here")
    result = _cli("--root", tmp_path, "catalog", "extract", "claude-code", "--host-bin", binary)
    assert result.exit_code == 2 and "nothing was written" in result.stderr
    assert not (tmp_path / "captures").exists()


# --- the real packages ----------------------------------------------------------------------------


@pytest.mark.real_host
@pytest.mark.parametrize("harness", ["claude-code", "codex", "opencode", "gemini-cli"])
def test_committed_catalog_is_what_the_pinned_host_ships(npm_bin, harness):
    """The catalog of every host version tests/npm pins, re-extracted from the installed packages,
    is byte for byte the committed one (platform-independent fields: sha256 of the files read)."""
    package, _binary = HOST_PACKAGES[harness]
    version = pinned_versions(REPO)[package]
    committed = find_catalog(REPO, harness, version)
    assert committed is not None, f"no committed catalog for {harness} {version}"
    fresh = extract(harness, version, node_modules=npm_bin.parent)
    assert dump(fresh) == dump(committed.doc)
