"""The committed profiles: valid, exact row counts, and the derived values reviewers rely on."""

from __future__ import annotations

import json

import pytest

from repo_paths import REPO
from generator.loader import load_project
from generator.vocab import CoreOperation, EventSemantic, FailureMode, MutationMode, ResponseCapability, RuntimeClass


@pytest.fixture(scope="module")
def contracts():
    return {c.id: c for c in load_project(REPO)}


def test_validate_exits_zero_on_committed_profiles(cli):
    result = cli("--root", str(REPO), "validate", "--json")
    assert result.exit_code == 0, result.output
    listed = {c["id"]: c["events"] for c in json.loads(result.stdout)["contracts"]}
    pinned = {"claude-code@2.1.261": 33, "codex@0.153.0": 12, "opencode@1.18.29": 47, "opencode@2.0.20": 17}
    # Written by `pasture profile new` from the captures of the tests/npm host versions.
    captured = {"claude-code@2.1.328": 33, "codex@0.171.0": 12, "opencode@1.18.33": 52}
    assert listed == {**pinned, **captured}


def test_catalog_order_starts_and_ends_as_pinned(contracts):
    claude = [r.name for r in contracts["claude-code@2.1.261"].events]
    assert claude[:4] == ["SessionStart", "Setup", "SessionEnd", "UserPromptSubmit"]
    assert claude[-3:] == ["PreModelSwitch", "PostModelSwitch", "DirectoryAdded"]
    codex = [r.name for r in contracts["codex@0.153.0"].events]
    assert codex == ["SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse",
                     "PreCompact", "PostCompact", "SubagentStart", "SubagentStop", "Stop", "SessionEnd", "Interrupt"]
    opencode = contracts["opencode@1.18.29"]
    named = [r.name for r in opencode.events if r.surface.value == "opencode-named-output"]
    bus = [r.name for r in opencode.events if r.surface.value == "opencode-catch-all-sse"]
    assert (len(named), len(bus)) == (15, 32)
    assert "installation.update-available" in bus and "tool.execute.before" in named


def test_only_cited_claude_rows_block_by_exit_code(contracts):
    claude = contracts["claude-code@2.1.261"]
    blocking = {r.name for r in claude.events if r.failure is FailureMode.EXIT_2_BLOCKS}
    assert blocking == {"UserPromptSubmit", "Stop", "PreToolUse", "SubagentStop"}
    demoted = {r.name for r in claude.events if r.demoted}
    assert "PreModelSwitch" in demoted and "PermissionRequest" in demoted
    assert claude.row("PreToolUse").response is ResponseCapability.DENY_ASK
    assert [k.value for k in claude.row("PostToolBatch").unresolved] == ["tool-call"]


def test_codex_blocks_only_where_the_handlers_are_cited(contracts):
    codex = contracts["codex@0.153.0"]
    blocking = {r.name for r in codex.events if r.failure is FailureMode.STRICT_OUTPUT_EXIT_2_BLOCKS}
    assert blocking == {"UserPromptSubmit", "PreToolUse", "SubagentStop", "Stop"}
    assert all(r.evidence.startswith("https://github.com/openai/codex/blob/") for r in codex.events
               if r.name in blocking)
    assert {r.name for r in codex.events if r.demoted} == {"PermissionRequest", "PostToolUse", "PreCompact",
                                                            "PostCompact"}
    assert codex.row("PreToolUse").response is ResponseCapability.DENY
    assert {r.reconciliation.value for r in codex.events} == {"no-adapter-merge"}


def test_opencode_v2_permission_evaluate_is_the_one_deny_channel(contracts):
    v2 = contracts["opencode@2.0.20"]
    with_response = {r.name: r.response for r in v2.events if r.response is not ResponseCapability.NONE}
    assert with_response == {"permission.evaluate": ResponseCapability.DENY}


def test_captured_contracts_block_where_their_predecessors_did(contracts):
    for old, new in (("claude-code@2.1.261", "claude-code@2.1.328"), ("codex@0.153.0", "codex@0.171.0"),
                     ("opencode@1.18.29", "opencode@1.18.33")):
        before = {r.name for r in contracts[old].events if r.failure.blocks}
        after = {r.name for r in contracts[new].events if r.failure.blocks}
        assert after == before, (new, after ^ before)
        kept = [r.name for r in contracts[old].events]
        assert [r.name for r in contracts[new].events if r.name in kept] == kept  # every row kept, same order
        assert contracts[new].admission.describe() == f"at or above {contracts[new].version}"
    claude = contracts["claude-code@2.1.328"]
    cited = {r.name: r.evidence for r in claude.events if r.failure.blocks}
    assert cited == {
        "UserPromptSubmit": "captures/claude-code@2.1.328/user-prompt-submit-exit-2/scenario.json",
        "Stop": "captures/claude-code@2.1.328/stop-exit-2/scenario.json",
        "PreToolUse": "captures/claude-code@2.1.328/pre-tool-use-exit-2/scenario.json",
        "SubagentStop": "https://docs.claude.com/en/docs/claude-code/hooks",  # no scenario spawns a subagent
    }
    assert claude.row("PreToolUse").deny_evidence == "captures/claude-code@2.1.328/pre-tool-use-json-deny/scenario.json"
    codex = contracts["codex@0.171.0"]
    assert {r.name for r in codex.events if r.evidence.startswith("captures/")} == {
        "UserPromptSubmit", "PreToolUse", "Stop"}
    assert codex.row("PreToolUse").response is ResponseCapability.DENY
    added = [r.name for r in contracts["opencode@1.18.33"].events if contracts["opencode@1.18.29"].row(r.name) is None]
    assert added == ["catalog.updated", "integration.updated", "message.part.delta", "plugin.added",
                     "reference.updated"]
    assert all(contracts["opencode@1.18.33"].row(n).semantic is EventSemantic.OBSERVATION for n in added)


@pytest.mark.parametrize("contract", ["claude-code@2.1.261", "codex@0.153.0", "opencode@1.18.29", "opencode@2.0.20",
                                      "claude-code@2.1.328", "codex@0.171.0", "opencode@1.18.33"])
def test_cross_field_rules_hold(contracts, contract):
    for row in contracts[contract].events:
        if row.semantic is not EventSemantic.GATE_CONSULTATION:
            assert row.mutation is MutationMode.NONE, row.name


def test_opencode_stop_assignment_is_unsupported(contracts):
    for cid in ("opencode@1.18.29", "opencode@1.18.33", "opencode@2.0.20"):
        assert contracts[cid].runtime.operation(CoreOperation.STOP_ASSIGNMENT).klass is RuntimeClass.UNSUPPORTED
