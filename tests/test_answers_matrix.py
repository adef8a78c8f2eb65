"""The capability matrix (issue 17): derived from the host's catalog output schema and the row's
mutation mode, offered only where a capture of that very version shows the host honoured it;
rendered into the tables, the event matrix docs and `pasture explain`."""

from __future__ import annotations

import importlib
import json
import shutil
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from loading import load_project
from repo_paths import REPO, committed

from pasture.hosts import HOSTS
from pasture.hosts.copilot_cli import W_COP_ALLOW, W_COP_CONTEXT, W_COP_MODIFIED_ARGS
from pasture.hosts.gemini_cli import W_GEM_DENY_REASON, W_GEM_TOOL_INPUT
from pasture.hosts.opencode import W_OC_NEW_ARGS, W_OC_OUTPUT, W_OC_SET_ARG, W_OC_STATUS, W_OC_SYSTEM
from pasture.profile.answers import (
    W_ALLOW,
    W_BEHAVIOR_ALLOW,
    W_BLOCK_REASON,
    W_CONTEXT,
    W_UPDATED_INPUT,
    read_answer_captures,
    row_answers,
)
from pasture.profile.answers import (
    candidates as host_candidates,
)
from pasture.profile.versions import HostVersion
from pasture.profile.vocab import Harness, MutationMode
from pasture.render.docs import events_doc
from pasture.render.explain import explain

PINNED = (
    "claude-code@2.1.332",
    "codex@0.171.0",
    "opencode@1.18.33",
    "gemini-cli@0.61.0",
    "copilot-cli@1.0.102",
    "pi@0.73.1",
    "qwen-code@0.24.4",
    "cline@3.0.65",
)


def candidates(harness, row, output, inputs=None):
    """The capability matrix's candidates as the loader asks them: through the row's host."""
    return host_candidates(HOSTS[harness], row, output, inputs)


@pytest.fixture(scope="module")
def contracts():
    return {c.id: c for c in load_project(REPO)}


def _catalog_event(contract_id: str, event: str) -> dict:
    doc = json.loads((REPO / "captures" / contract_id / "catalog.json").read_text())
    return next(e for e in doc["events"] if e["name"] == event)


# --- 1. the schema and the mutation mode say which forms exist --------------------------------------


def test_candidates_follow_the_catalog_schema(contracts):
    claude = contracts["claude-code@2.1.332"]
    pre = _catalog_event(claude.id, "PreToolUse")
    assert candidates(Harness.CLAUDE_CODE, claude.row("PreToolUse"), pre["output"], pre["input"]) == [
        ("allow", W_ALLOW),
        ("rewrite", W_UPDATED_INPUT),
        ("context", W_CONTEXT),
    ]
    perm = _catalog_event(claude.id, "PermissionRequest")
    assert candidates(Harness.CLAUDE_CODE, claude.row("PermissionRequest"), perm["output"], perm["input"]) == [
        ("allow", W_BEHAVIOR_ALLOW)
    ]
    codex = contracts["codex@0.171.0"]
    stop = _catalog_event(codex.id, "Stop")
    assert candidates(Harness.CODEX, codex.row("Stop"), stop["output"], stop["input"]) == [("continue", W_BLOCK_REASON)]
    post = _catalog_event(codex.id, "PostToolUse")
    assert candidates(Harness.CODEX, codex.row("PostToolUse"), post["output"], post["input"]) == [
        ("context", W_CONTEXT),
        ("feedback", W_BLOCK_REASON),
    ]
    oc = contracts["opencode@1.18.33"]
    expected = {
        "tool.execute.before": [("rewrite", W_OC_SET_ARG), ("rewrite", W_OC_NEW_ARGS)],
        "tool.execute.after": [("feedback", W_OC_OUTPUT)],
        "permission.ask": [("allow", W_OC_STATUS)],
        "experimental.chat.system.transform": [("context", W_OC_SYSTEM)],
        "chat.params": [],
    }
    for event, forms in expected.items():
        schema = _catalog_event(oc.id, event)
        assert candidates(Harness.OPENCODE, oc.row(event), schema["output"], schema["input"]) == forms, event


def test_gemini_candidates_follow_its_catalog_schema(contracts):
    gemini = contracts["gemini-cli@0.61.0"]
    expected = {
        # the catalog's BeforeTool decision is deny/block only (the code reads no "allow"): no allow form
        "BeforeTool": [("rewrite", W_GEM_TOOL_INPUT)],
        "AfterTool": [("feedback", W_CONTEXT), ("feedback", W_GEM_DENY_REASON)],
        "BeforeAgent": [("context", W_CONTEXT)],
        "AfterAgent": [("continue", W_GEM_DENY_REASON)],  # its input carries stop_hook_active
        "SessionStart": [("context", W_CONTEXT)],
        "BeforeModel": [],
        "SessionEnd": [],
    }
    for event, forms in expected.items():
        schema = _catalog_event(gemini.id, event)
        assert candidates(Harness.GEMINI_CLI, gemini.row(event), schema["output"], schema["input"]) == forms, event


def test_copilot_candidates_follow_its_catalog_schema(contracts):
    copilot = contracts["copilot-cli@1.0.102"]
    expected = {
        "preToolUse": [("allow", W_COP_ALLOW), ("rewrite", W_COP_MODIFIED_ARGS), ("context", W_COP_CONTEXT)],
        "postToolUse": [("feedback", W_COP_CONTEXT)],
        "postToolUseFailure": [("feedback", W_COP_CONTEXT)],
        "sessionStart": [("context", W_COP_CONTEXT)],
        "userPromptSubmitted": [("context", W_COP_CONTEXT)],
        "agentStop": [("continue", W_BLOCK_REASON)],  # its input carries stopHookActive
        "subagentStop": [],  # decision: block + reason, but no stopHookActive: not the host's stop
        "sessionEnd": [],
    }
    for event, forms in expected.items():
        schema = _catalog_event(copilot.id, event)
        assert candidates(Harness.COPILOT_CLI, copilot.row(event), schema["output"], schema["input"]) == forms, event


def test_a_rewrite_needs_an_input_mutation_row(contracts):
    row = contracts["claude-code@2.1.332"].row("PreToolUse")
    pre = _catalog_event("claude-code@2.1.332", "PreToolUse")
    frozen = replace(row, mutation=MutationMode.NONE)
    assert ("rewrite", W_UPDATED_INPUT) not in candidates(Harness.CLAUDE_CODE, frozen, pre["output"], pre["input"])
    oc_row = replace(contracts["opencode@1.18.33"].row("tool.execute.before"), mutation=MutationMode.NONE)
    before = _catalog_event("opencode@1.18.33", "tool.execute.before")
    assert candidates(Harness.OPENCODE, oc_row, before["output"], before["input"]) == []
    for contract_id, event, harness in (
        ("gemini-cli@0.61.0", "BeforeTool", Harness.GEMINI_CLI),
        ("copilot-cli@1.0.102", "preToolUse", Harness.COPILOT_CLI),
    ):
        row = replace(contracts[contract_id].row(event), mutation=MutationMode.NONE)
        schema = _catalog_event(contract_id, event)
        assert "rewrite" not in {c for c, _ in candidates(harness, row, schema["output"], schema["input"])}


def test_feedback_only_after_a_tool_and_continue_only_at_a_stop(contracts):
    claude = contracts["claude-code@2.1.332"]
    # PermissionDenied shares decision: block + reason, but its input carries no tool outcome
    denied = _catalog_event(claude.id, "PermissionDenied")
    assert candidates(Harness.CLAUDE_CODE, claude.row("PermissionDenied"), denied["output"], denied["input"]) == []
    start = _catalog_event(claude.id, "SessionStart")
    assert candidates(Harness.CLAUDE_CODE, claude.row("SessionStart"), start["output"], start["input"]) == [
        ("context", W_CONTEXT)
    ]
    assert candidates(Harness.CLAUDE_CODE, claude.row("Stop"), None) == []  # no catalog entry: nothing


# --- 2. the failure-evidence rule, applied to answers ------------------------------------------------


def _answer_capture(
    root: Path,
    contract_id: str,
    name: str,
    *,
    event: str,
    capability: str,
    wire: str,
    honoured: bool,
    version: str | None = None,
    harness: str | None = None,
) -> str:
    folder = root / "captures" / contract_id / name
    folder.mkdir(parents=True)
    h, _, v = contract_id.partition("@")
    doc = {
        "capture_format": 1,
        "generated_by": "pasture capture",
        "harness": harness or h,
        "host_version": version or v,
        "scenario": name,
        "answer": {"capability": capability, "event": event, "wire": wire},
        "result": {"honoured": honoured},
    }
    (folder / "scenario.json").write_text(json.dumps(doc))
    return f"captures/{contract_id}/{name}/scenario.json"


def _forms(root: Path, contract, event: str):
    schema = _catalog_event(contract.id, event)
    return row_answers(
        HOSTS[contract.harness],
        contract.version,
        contract.row(event),
        schema["output"],
        read_answer_captures(root, contract.id),
        schema["input"],
    )


def test_a_schema_form_without_an_honouring_capture_is_not_offered(tmp_path, contracts):
    contract = contracts["claude-code@2.1.332"]
    forms = _forms(tmp_path, contract, "PostToolUse")
    assert [(f.capability, f.wire, f.offered) for f in forms] == [
        ("context", W_CONTEXT, False),
        ("feedback", W_BLOCK_REASON, False),
    ]


def test_an_honouring_capture_of_that_version_offers_it(tmp_path, contracts):
    contract = contracts["claude-code@2.1.332"]
    path = _answer_capture(
        tmp_path,
        contract.id,
        "post-tool-use-feedback",
        event="PostToolUse",
        capability="feedback",
        wire=W_BLOCK_REASON,
        honoured=True,
    )
    forms = {f.capability: f for f in _forms(tmp_path, contract, "PostToolUse")}
    assert forms["feedback"].offered and forms["feedback"].evidence == path
    assert not forms["context"].offered


def test_a_capture_that_shows_it_not_honoured_is_kept_as_tried(tmp_path, contracts):
    contract = contracts["codex@0.171.0"]
    path = _answer_capture(
        tmp_path,
        contract.id,
        "pre-tool-use-allow",
        event="PreToolUse",
        capability="allow",
        wire=W_ALLOW,
        honoured=False,
    )
    allow = next(f for f in _forms(tmp_path, contract, "PreToolUse") if f.capability == "allow")
    assert not allow.offered and allow.tried == (path,)


def test_a_capture_of_another_version_does_not_count(tmp_path, contracts):
    contract = contracts["claude-code@2.1.332"]
    # the same scenario in the folder of another version, and a copy of it relabelled into ours
    _answer_capture(
        tmp_path,
        "claude-code@2.1.328",
        "post-tool-use-feedback",
        event="PostToolUse",
        capability="feedback",
        wire=W_BLOCK_REASON,
        honoured=True,
    )
    _answer_capture(
        tmp_path,
        contract.id,
        "copied",
        event="PostToolUse",
        capability="feedback",
        wire=W_BLOCK_REASON,
        honoured=True,
        version="2.1.328",
    )
    _answer_capture(
        tmp_path,
        contract.id,
        "other-host",
        event="PostToolUse",
        capability="feedback",
        wire=W_BLOCK_REASON,
        honoured=True,
        harness="codex",
    )
    assert not any(f.offered for f in _forms(tmp_path, contract, "PostToolUse"))


def test_a_capture_of_another_event_or_wire_form_does_not_count(tmp_path, contracts):
    contract = contracts["claude-code@2.1.332"]
    _answer_capture(
        tmp_path,
        contract.id,
        "a",
        event="PostToolUseFailure",
        capability="feedback",
        wire=W_BLOCK_REASON,
        honoured=True,
    )
    _answer_capture(
        tmp_path,
        contract.id,
        "b",
        event="PostToolUse",
        capability="context",
        wire="hookSpecificOutput.updatedToolOutput",
        honoured=True,
    )
    assert not any(f.offered for f in _forms(tmp_path, contract, "PostToolUse"))


def test_the_loader_offers_exactly_what_the_committed_captures_show(tmp_path):
    """A project copy without the answer captures offers nothing; the repository offers them."""
    root = tmp_path / "project"
    shutil.copytree(REPO / "profiles", root / "profiles")
    shutil.copytree(REPO / "captures", root / "captures")
    for contract_id in PINNED:
        for scenario in (root / "captures" / contract_id).glob("*/scenario.json"):
            if "answer" in json.loads(scenario.read_text()):
                shutil.rmtree(scenario.parent)
    bare = {c.id: c for c in load_project(root)}
    assert not any(r.offered_answers for c in bare.values() for r in c.events)
    assert any(r.answers for r in bare["claude-code@2.1.332"].events)  # the schema forms are still there


#: What the committed captures show per pinned contract: (event, capability) -> honoured.
HONOURED = {
    "claude-code@2.1.332": {
        ("PreToolUse", "rewrite"): True,
        ("PreToolUse", "allow"): True,
        ("PermissionRequest", "allow"): True,
        ("SessionStart", "context"): True,
        ("UserPromptSubmit", "context"): True,
        ("PostToolUse", "feedback"): True,
        ("Stop", "continue"): True,
    },
    "codex@0.171.0": {
        ("PreToolUse", "rewrite"): True,
        ("PreToolUse", "allow"): False,
        ("PermissionRequest", "allow"): True,
        ("SessionStart", "context"): True,
        ("UserPromptSubmit", "context"): True,
        ("PostToolUse", "feedback"): True,
        ("Stop", "continue"): True,
    },
    "opencode@1.18.33": {
        ("tool.execute.before", "rewrite"): True,
        ("permission.ask", "allow"): False,
        ("experimental.chat.system.transform", "context"): True,
        ("tool.execute.after", "feedback"): True,
    },
    # Gemini's BeforeTool "allow" (captures/gemini-cli@0.61.0/before-tool-allow: not honoured) is no
    # form of its catalog, so the matrix does not list it
    "gemini-cli@0.61.0": {
        ("BeforeTool", "rewrite"): True,
        ("SessionStart", "context"): True,
        ("BeforeAgent", "context"): True,
        ("AfterTool", "feedback"): True,
        ("AfterAgent", "continue"): True,
    },
    "copilot-cli@1.0.102": {
        ("preToolUse", "rewrite"): True,
        ("preToolUse", "allow"): True,
        ("preToolUse", "context"): False,
        ("sessionStart", "context"): True,
        ("userPromptSubmitted", "context"): True,
        ("postToolUse", "feedback"): True,
        ("agentStop", "continue"): True,
    },
    # Pi answers by what a handler returns; no permission prompts (no allow), agent_end's result is never
    # read (no continue), and no rewrite form is offered (the tool_call row mutates nothing).
    "pi@0.73.1": {
        ("before_agent_start", "context"): True,
        ("tool_result", "feedback"): True,
    },
    # Qwen Code: PreToolUse's updatedInput was ignored (the asked command ran), so the row mutates nothing and
    # offers no rewrite; its allow was never read (a headless run in the default approval mode offers no shell
    # tool); PostToolUse's decision block never reached the model, and the row is a pre-action gate (no
    # feedback form)
    "qwen-code@0.24.4": {
        ("PreToolUse", "allow"): False,
        ("SessionStart", "context"): True,
        ("UserPromptSubmit", "context"): True,
        ("Stop", "continue"): True,
    },
    # Cline: a hook file's contextModification after a tool reaches the model (feedback); nothing else tried
    "cline@3.0.65": {
        ("PostToolUse", "feedback"): True,
    },
}


@pytest.mark.parametrize("contract_id", PINNED)
def test_the_pinned_contracts_offer_what_their_captures_show(contracts, contract_id):
    contract = contracts[contract_id]
    offered = {(r.name, cap) for r in contract.events for cap, _ in r.offered_answers}
    assert offered == {key for key, ok in HONOURED[contract_id].items() if ok}
    for (event, capability), ok in HONOURED[contract_id].items():
        forms = [f for f in contract.row(event).answers if f.capability == capability]
        assert any(f.offered for f in forms) is ok, (event, capability)
        for form in forms:
            for path in (form.evidence, *form.tried):
                if path:
                    doc = json.loads((REPO / path).read_text())
                    assert doc["host_version"] == str(contract.version) and doc["answer"]["event"] == event


def test_opencode_offers_the_in_place_rewrite_only(contracts):
    forms = {f.wire: f for f in contracts["opencode@1.18.33"].row("tool.execute.before").answers}
    assert forms[W_OC_SET_ARG].offered
    assert not forms[W_OC_NEW_ARGS].offered and forms[W_OC_NEW_ARGS].tried == (
        "captures/opencode@1.18.33/tool-execute-before-new-args/scenario.json",
    )


def test_older_versions_offer_nothing_without_captures_of_their_own(contracts):
    for contract in contracts.values():
        if contract.id not in PINNED:
            assert not any(r.offered_answers for r in contract.events), contract.id


# --- 3. rendered: tables, event matrix, explain ----------------------------------------------------


@pytest.mark.parametrize("contract_id", PINNED)
def test_the_committed_tables_carry_the_offered_answers(contracts, contract_id):
    from pasture.render.tables import module_name

    sys.path.insert(0, str(REPO / "generated" / "python"))
    try:
        for name in [m for m in sys.modules if m.startswith("pasture_contracts")]:
            del sys.modules[name]
        module = importlib.import_module(f"pasture_contracts.{module_name(contracts[contract_id])}")
    finally:
        sys.path.remove(str(REPO / "generated" / "python"))
    for row in contracts[contract_id].events:
        assert module.ROWS[row.name].answers == row.offered_answers, row.name
    assert all(isinstance(cap, str) and isinstance(wire, str) for r in module.ROWS.values() for cap, wire in r.answers)


def test_the_claude_table_rows_are_these_bytes():
    text = committed("python/pasture_contracts/claude_code_2_1_332.py")
    assert (
        '        response="deny+ask",\n'
        "        timeout=60,\n"
        "        answers=(\n"
        '            ("allow", "hookSpecificOutput.permissionDecision=allow"),\n'
        '            ("rewrite", "hookSpecificOutput.updatedInput+permissionDecision=allow"),\n'
        "        ),\n"
    ) in text
    assert '        answers=(("continue", "decision=block+reason"),),\n' in text


@pytest.mark.parametrize("contract_id", PINNED)
def test_the_event_matrix_doc_is_the_committed_one(contracts, contract_id, golden):
    doc = events_doc(contracts[contract_id])
    assert doc.text == golden(doc.path)


def test_the_event_matrix_names_each_form_and_what_showed_it(contracts):
    text = events_doc(contracts["codex@0.171.0"]).text
    assert (
        "| `PreToolUse` | allow | `hookSpecificOutput.permissionDecision=allow` | no | tried, NOT honoured: "
        "captures/codex@0.171.0/pre-tool-use-allow/scenario.json |"
    ) in text
    assert (
        "| `PermissionRequest` | allow | `hookSpecificOutput.decision.behavior=allow` | yes | honoured: "
        "captures/codex@0.171.0/permission-request-allow/scenario.json |"
    ) in text
    assert "| `SubagentStop` | continue | `decision=block+reason` | no | no capture of 0.171.0 tried it |" in text


def test_explain_shows_the_matrix_per_row(contracts):
    contract = contracts["codex@0.171.0"]
    text = explain(contract, contract.row("PreToolUse"))
    assert (
        "answers: rewrite (hookSpecificOutput.updatedInput+permissionDecision=allow)\n"
        "  allow by hookSpecificOutput.permissionDecision=allow: not offered; tried and NOT honoured in "
        "captures/codex@0.171.0/pre-tool-use-allow/scenario.json\n"
        "  rewrite by hookSpecificOutput.updatedInput+permissionDecision=allow: offered; honoured in "
        "captures/codex@0.171.0/pre-tool-use-rewrite/scenario.json\n"
        "  context by hookSpecificOutput.additionalContext: not offered; the schema allows it, but no capture "
        "of 0.171.0 shows it honoured\n"
    ) in text
    oc = contracts["opencode@1.18.33"]
    text = explain(oc, oc.row("session.idle"))
    assert "answers: none (the output schema in this version's catalog" in text


def test_explain_on_the_command_line(cli):
    result = cli("--root", str(REPO), "explain", "claude-code@2.1.332", "Stop")
    assert result.exit_code == 0
    assert (
        "answers: continue (decision=block+reason)\n"
        "  context by hookSpecificOutput.additionalContext: not offered; the schema allows it, but no capture "
        "of 2.1.332 shows it honoured\n"
        "  continue by decision=block+reason: offered; honoured in "
        "captures/claude-code@2.1.332/stop-block-continue/scenario.json\n"
    ) in result.stdout
    assert str(HostVersion.parse("2.1.332")) in result.stdout
