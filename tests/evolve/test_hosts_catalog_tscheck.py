"""Catalog extraction never guesses: OpenCode typings go through the TypeScript checker (tscheck.cjs),
which resolves conditional, mapped, indexed and aliased types; whatever it cannot resolve, a hook
without an input type, a changed package layout and a Claude event without an input schema are each
a CatalogError naming what was not found. The checker is the typescript tests/npm pins (session
fixture ``npm_bin``, installed once). Each checker run costs a Node start and a TypeScript program
(1-3 s here): the fast tier runs one resolution and one refusal through it, the other checker cases
are in the slow tier (``-m slow``); the refusals that need no checker run in both.
"""

from __future__ import annotations

import pytest
from hosts_support import REPO
from test_hosts_catalog import BUNDLE, PLUGIN_DTS, _exe, opencode_install

from pasture.catalog import Catalog, CatalogError, extract

TYPED_PLUGIN = """import type { Event, Permission } from "@opencode-ai/sdk";
type IsText<T> = T extends string ? { sessionID: string; callID?: string; } : { never: true; };
type Keys = "status" | "reason";
type Decision = { [K in Keys]: K extends "status" ? "ask" | "deny" | "allow" : string; };
type Wide = { a: string; b: number; drop: boolean; nested: { deep: { deeper: { deepest: string; }; }; }; };
type Picked = Partial<Omit<Wide, "drop">>;
type Indexed = Permission["sessionID"];
export interface Hooks {
    event?: (input: { event: Event; }) => Promise<void>;
    "cond.mapped"?: (input: IsText<"x">, output: Decision) => Promise<void>;
    "partial.indexed"?: (input: Picked,
        output: { id: Indexed; ids: Array<Indexed>; flag: boolean | null; }) => Promise<void>;
}
"""


def _catalog(tmp_path, **typings):
    nm = opencode_install(tmp_path, "9.9.9", **typings)
    return Catalog(extract("opencode", "9.9.9", node_modules=nm, root=REPO))


def _refused(tmp_path, **typings) -> str:
    nm = opencode_install(tmp_path, "9.9.9", **typings)
    with pytest.raises(CatalogError) as caught:
        extract("opencode", "9.9.9", node_modules=nm, root=REPO)
    return str(caught.value)


def test_conditional_mapped_indexed_and_aliased_types_are_resolved(tmp_path, npm_bin):
    cat = _catalog(tmp_path, plugin=TYPED_PLUGIN)
    assert cat.names == ["cond.mapped", "partial.indexed", "session.idle", "thing.done"]
    cond = cat.event("cond.mapped")
    assert cond.input == {
        "sessionID": {"required": True, "type": "string"},  # the conditional's true branch
        "callID": {"required": False, "type": "string"},
    }
    assert set(cond.output) == {"status", "reason"}  # the mapped type's keys
    assert cond.output["reason"] == {"required": True, "type": "string"}
    assert cond.output["status"]["type"] == "enum"
    assert sorted(cond.output["status"]["values"]) == ["allow", "ask", "deny"]
    assert cond.decisions() == {"ask": ["status"], "deny": ["status"]}
    part = cat.event("partial.indexed")
    assert sorted(part.input) == ["a", "b", "nested"]  # Omit dropped 'drop'
    assert not any(f["required"] for f in part.input.values())  # Partial made every field optional
    # three levels of fields are kept; the fourth is an object without fields
    assert part.input["nested"]["fields"]["deep"]["fields"]["deeper"] == {"required": True, "type": "object"}
    assert part.output["id"] == {"required": True, "type": "string"}  # Permission["sessionID"]
    assert part.output["ids"] == {"required": True, "type": "array", "of": {"type": "string"}}
    assert part.output["flag"] == {"required": True, "type": "boolean"}
    assert "unknown" not in repr(cat.doc["events"])


def test_an_unresolved_name_is_refused_naming_file_and_symbol(tmp_path, npm_bin):
    plugin = PLUGIN_DTS.replace("callID: string; }, output", "callID: MissingType; }, output")
    err = _refused(tmp_path, plugin=plugin)
    assert "@opencode-ai/plugin/dist/index.d.ts" in err
    assert 'Hooks["tool.execute.before"] input.callID: the type MissingType does not resolve' in err


@pytest.mark.slow  # a checker run (~1.5 s); the fast tier keeps one resolution and one refusal
def test_an_unresolved_import_is_refused(tmp_path, npm_bin):
    plugin = PLUGIN_DTS.replace("import type { Event, Permission }", "import type { Event, Permission, Gone }").replace(
        "output: { args: any; }", "output: { args: Gone; }"
    )
    err = _refused(tmp_path, plugin=plugin)
    assert 'Hooks["tool.execute.before"] output.args: the type Gone does not resolve' in err


@pytest.mark.slow  # a checker run (~1.5 s); the fast tier keeps one resolution and one refusal
def test_a_hook_without_an_input_type_is_refused(tmp_path, npm_bin):
    plugin = PLUGIN_DTS.replace(
        "(input: { tool: string; sessionID: string; callID: string; }, output", "(input, output"
    )
    err = _refused(tmp_path, plugin=plugin)
    assert 'Hooks["tool.execute.before"] input: the type any resolves to any without being written as any' in err


@pytest.mark.slow  # a checker run (~1.5 s); the fast tier keeps one resolution and one refusal
def test_a_hook_whose_input_is_not_an_object_is_refused(tmp_path, npm_bin):
    plugin = PLUGIN_DTS.replace(
        "(input: { tool: string; sessionID: string; callID: string; }, output", "(input: string, output"
    )
    err = _refused(tmp_path, plugin=plugin)
    assert "Hooks['tool.execute.before'] takes an input that is not an object (string)" in err


@pytest.mark.slow  # a checker run (~1.5 s); the fast tier keeps one resolution and one refusal
def test_a_generic_hook_is_refused_not_guessed(tmp_path, npm_bin):
    plugin = PLUGIN_DTS.replace(
        '"permission.ask"?: (input: Permission,', '"permission.ask"?: <T>(input: T extends string ? Permission : never,'
    )
    err = _refused(tmp_path, plugin=plugin)
    assert 'Hooks["permission.ask"] input: the type T extends string ? Permission : never is left generic' in err


@pytest.mark.parametrize(
    "rel",
    [
        "@opencode-ai/plugin/dist/index.d.ts",
        "@opencode-ai/sdk/dist/gen/types.gen.d.ts",
        "@opencode-ai/sdk/dist/v2/gen/types.gen.d.ts",
    ],
)
def test_a_changed_bundle_layout_names_the_missing_file(tmp_path, rel):
    nm = opencode_install(tmp_path, "9.9.9")
    (nm / rel).unlink()
    with pytest.raises(CatalogError) as caught:
        extract("opencode", "9.9.9", node_modules=nm, root=REPO)
    assert f"{rel} is missing (has the package layout changed?)" in str(caught.value)


@pytest.mark.slow  # a checker run (~1.5 s); the fast tier keeps one resolution and one refusal
def test_typings_without_hooks_or_event_are_refused(tmp_path, npm_bin):
    err = _refused(tmp_path, plugin=PLUGIN_DTS.replace("export interface Hooks", "export interface Hookz"))
    assert "@opencode-ai/plugin/dist/index.d.ts exports no Hooks" in err
    err = _refused(tmp_path / "b", sdk_v2='export type Events = { type: "x" };\n')
    assert "@opencode-ai/sdk/dist/v2/gen/types.gen.d.ts exports no Event" in err


@pytest.mark.slow  # a checker run (~1.5 s); the fast tier keeps one resolution and one refusal
def test_a_bus_event_without_a_type_literal_is_refused(tmp_path, npm_bin):
    err = _refused(tmp_path, sdk_v2="export type Event = { id: string; type: string; };\n")
    assert "@opencode-ai/sdk/dist/v2/gen/types.gen.d.ts: Event member 1 has no type literal" in err


def test_without_node_or_typescript_it_says_what_to_install(tmp_path, monkeypatch):
    nm = opencode_install(tmp_path, "9.9.9")
    with pytest.raises(CatalogError) as caught:  # no typescript in the install, no project cache
        extract("opencode", "9.9.9", node_modules=nm, root=tmp_path)
    assert "needs the typescript package, as pinned in tests/npm" in str(caught.value)
    assert "ensure_npm_tools" in str(caught.value)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(CatalogError) as caught:
        extract("opencode", "9.9.9", node_modules=nm, root=REPO)
    assert "needs Node.js: put `node` on PATH" in str(caught.value)


def test_a_typescript_other_than_the_pinned_one_is_not_used(tmp_path):
    nm = opencode_install(tmp_path, "9.9.9")
    (nm / "typescript" / "lib").mkdir(parents=True)
    (nm / "typescript" / "lib" / "typescript.js").write_text("")
    (nm / "typescript" / "package.json").write_text('{"name": "typescript", "version": "1.0.0"}')
    root = tmp_path / "project"
    (root / "tests" / "npm").mkdir(parents=True)
    (root / "tests" / "npm" / "package.json").write_text('{"dependencies": {"typescript": "5.9.3"}}')
    (root / "tests" / "npm" / "package-lock.json").write_text("{}")
    with pytest.raises(CatalogError) as caught:
        extract("opencode", "9.9.9", node_modules=nm, root=root)
    assert "needs typescript 5.9.3" in str(caught.value) and "typescript is 1.0.0" in str(caught.value)


def test_a_claude_event_without_an_input_schema_is_refused(tmp_path):
    bundle = BUNDLE.replace(
        'var Ev=["PreToolUse","PostToolUse","Notice","Stop"]',
        'var Ev=["PreToolUse","PostToolUse","Notice","Stop","Vanished"]',
    )
    binary = _exe(tmp_path / "claude", "9.9.9 (Claude Code)", bundle)
    with pytest.raises(CatalogError) as caught:
        extract("claude-code", "9.9.9", binary=binary)
    assert "lists the hook event(s) Vanished but holds no input schema for them" in str(caught.value)


@pytest.mark.slow  # a checker run (~1.5 s); the fast tier keeps one resolution and one refusal
def test_an_overloaded_hook_is_refused(tmp_path, npm_bin):
    plugin = PLUGIN_DTS.replace(
        '"permission.ask"?: (input: Permission, output: { status: "ask" | "deny" | "allow"; }) => Promise<void>;',
        '"permission.ask"?: { (input: Permission, output: { status: "ask"; }): Promise<void>; '
        '(input: string, output: { status: "deny"; }): Promise<void>; };',
    )
    err = _refused(tmp_path, plugin=plugin)
    assert 'Hooks["permission.ask"] is overloaded' in err


@pytest.mark.slow  # a checker run (~1.5 s); the fast tier keeps one resolution and one refusal
def test_functions_tuples_and_branded_strings_are_recorded_as_what_they_are(tmp_path, npm_bin):
    plugin = PLUGIN_DTS.replace(
        "output: { args: any; }",
        'output: { done: () => void; pair: [string, number]; id: string & { __brand: "id" }; kind: "a" | "b" | "a"; }',
    )
    out = _catalog(tmp_path, plugin=plugin).event("tool.execute.before").output
    assert out == {
        "done": {"required": True, "type": "function"},
        "pair": {"required": True, "type": "tuple"},
        "id": {"required": True, "type": "string"},
        "kind": {"required": True, "type": "enum", "values": ["a", "b"]},
    }


@pytest.mark.slow  # a checker run (~1.5 s); the fast tier keeps one resolution and one refusal
def test_a_hook_whose_own_type_does_not_resolve_is_refused_not_skipped(tmp_path, npm_bin):
    plugin = PLUGIN_DTS.replace("    /** docs are ignored */\n", '    "session.gone"?: MissingHook;\n')
    err = _refused(tmp_path, plugin=plugin)
    assert 'Hooks["session.gone"]: the type MissingHook does not resolve to a function or object' in err
