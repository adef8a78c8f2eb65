"""Answer scenarios (issue 17): what the committed captures of the pinned hosts show, read back the way
`pasture capture` wrote it; and (marker ``real_host``) the real pinned hosts showing it again.

The real-host tests run only the answer scenarios (``pasture capture --scenario``, merged into a copy
of the committed capture, about a minute per host) and compare each scenario's verdict and evidence
with the committed one; the full byte-for-byte re-capture is test_hosts_capture.py's.
"""

from __future__ import annotations

import json
import shutil

import pytest
from hosts_support import REPO

from pasture.evolve.captured import load_capture
from pasture.evolve.scenarios import (
    ANSWER_SCENARIOS,
    ASKED_COMMAND,
    CAPABILITIES,
    CONTINUE_BOUND,
    PROBE_COMMAND,
    scenarios_for,
)
from pasture.hostenv.npm_tools import HOST_PACKAGES, pinned_versions

PINNED = {harness: f"{harness}@{pinned_versions(REPO)[package]}" for harness, (package, _) in HOST_PACKAGES.items()}

#: scenario -> honoured, per host, as the pinned hosts showed it (the issue's table, checked).
EXPECTED = {
    "claude-code": {
        "pre-tool-use-rewrite": True,
        "pre-tool-use-allow": True,
        "permission-request-allow": True,
        "session-start-context": True,
        "user-prompt-submit-context": True,
        "post-tool-use-feedback": True,
        "stop-block-continue": True,
    },
    "codex": {
        "pre-tool-use-rewrite": True,
        "pre-tool-use-allow": False,
        "permission-request-allow": True,
        "session-start-context": True,
        "user-prompt-submit-context": True,
        "post-tool-use-feedback": True,
        "stop-block-continue": True,
    },
    "opencode": {
        "tool-execute-before-rewrite": True,
        "tool-execute-before-new-args": False,
        "permission-ask-allow": False,
        "system-transform-context": True,
        "tool-execute-after-feedback": True,
    },
    "gemini-cli": {
        "before-tool-rewrite": True,
        "before-tool-allow": False,  # without --yolo the shell tool is not even offered: BeforeTool never fires
        "session-start-context": True,
        "before-agent-context": True,
        "after-tool-context-feedback": True,
        "after-tool-deny-feedback": True,
        "after-agent-continue": True,
    },
    "copilot-cli": {
        "pre-tool-use-rewrite": True,
        "pre-tool-use-allow": True,
        "session-start-context": True,
        "user-prompt-submitted-context": True,
        "post-tool-use-feedback": True,
        "agent-stop-continue": True,
    },
}

#: Pi (not in EXPECTED: it has no permission prompt, so no allow answer and no no-answer-approval control;
#: its two answer scenarios, both honoured, are checked in tests/test_answers_matrix.py and here below).
PI_EXPECTED = {"before-agent-start-context": True, "tool-result-feedback": True}

#: Answer scenarios whose answering event never fired (the answer was never given), each with why.
NEVER_CALLED = {("gemini-cli", "before-tool-allow"): "no shell tool offered"}


def _capture(harness: str):
    return load_capture(REPO / "captures" / PINNED[harness])


@pytest.mark.parametrize("harness", sorted(EXPECTED))
def test_every_answer_scenario_is_committed_with_its_verdict(harness):
    capture = _capture(harness)
    found = {s.name: s.honoured for s in capture.answers()}
    assert found == EXPECTED[harness]
    assert [s.name for s in ANSWER_SCENARIOS[harness] if s.answer] == list(found)
    listed = {entry["name"]: entry for entry in capture.doc["scenarios"]}
    for scenario in capture.answers():
        doc = scenario.doc
        assert (doc["harness"], doc["host_version"]) == (capture.harness, capture.version)
        assert scenario.answer["capability"] in CAPABILITIES
        assert isinstance(scenario.honoured, bool) and scenario.honoured_shown_by
        # capture.json's summary says the same as the scenario itself
        assert listed[scenario.name]["honoured"] is scenario.honoured
        assert listed[scenario.name]["answer"] == {k: scenario.answer[k] for k in ("capability", "event", "wire")}
        assert doc["refused_event"] is None  # an answer is not a refusal: it never backs a blocking claim


@pytest.mark.parametrize("harness", sorted(EXPECTED))
def test_the_evidence_behind_each_verdict(harness):
    capture = _capture(harness)
    by_name = {s.name: s for s in capture.scenarios}
    control = by_name["no-answer-approval"]
    assert control.answer is None and control.doc["result"]["probe_file"] == "absent"
    assert "launcher_options" in control.doc  # the host's default permission mode, not the capture's bypass
    for scenario in capture.answers():
        result, answer = scenario.doc["result"], scenario.answer
        never = NEVER_CALLED.get((harness, scenario.name))
        if never is not None:
            # the answer was never given: the event did not fire, and the model's side says why
            assert result["answer_event_calls"] == 0 and answer["event"] not in scenario.doc["event_counts"]
            assert "never fired" in scenario.honoured_shown_by and not scenario.honoured
            model = json.loads((scenario.folder / "model.json").read_text())
            assert never in model["main_requests"][0]["answered"]["text"]
        else:
            assert result["answer_event_calls"] >= (0 if answer["event"] == "permission.ask" else 1), scenario.name
        if answer["capability"] == "rewrite":
            assert result["probe_file"] == ("present" if scenario.honoured else "absent")
            assert result["asked_file"] == ("absent" if scenario.honoured else "present")
        elif answer["capability"] == "allow":
            assert scenario.doc["control"] == "no-answer-approval"
            assert scenario.doc["launcher_options"] == control.doc["launcher_options"]
            assert result["probe_file"] == ("present" if scenario.honoured else "absent")
        elif answer["capability"] == "context":
            assert (1 in result["marker_in_main_requests"]) is scenario.honoured
            assert answer["marker"] in result["marker_excerpt"]
        elif answer["capability"] == "feedback":
            model = json.loads((scenario.folder / "model.json").read_text())
            assert answer["marker"] in model["main_requests"][1]["told_text"]
        else:
            assert answer["times"] == CONTINUE_BOUND
            assert result["answer_event_calls"] == CONTINUE_BOUND + 1
            assert scenario.doc["event_counts"][answer["event"]] == CONTINUE_BOUND + 1
            assert result["probe_file"] == "present"


def test_the_answer_never_rides_on_the_hook_command_line():
    """Claude Code shows the model the hook's command line on a block; the marker must come from the answer."""
    capture = _capture("claude-code")
    for scenario in capture.answers():
        processes = json.loads((scenario.folder / "hook-process.json").read_text())
        assert scenario.answer["marker"] not in json.dumps(processes)
    feedback = json.loads(
        (REPO / "captures" / PINNED["claude-code"] / "post-tool-use-feedback" / "model.json").read_text()
    )["main_requests"][1]["told_text"]
    assert 'hook blocking error from command: "$PYTHON $RUN/pasture_recorder.py' in feedback


def test_what_the_model_history_shows_after_a_rewrite():
    shows = {
        h: next(s for s in _capture(h).answers() if s.answer["capability"] == "rewrite" and s.honoured).doc["result"][
            "next_request_shows_asked_command"
        ]
        for h in EXPECTED
    }
    # Copilot CLI's next request no longer holds the asked command; Gemini CLI's keeps it and appends
    # "[System] Tool input parameters were modified by a hook before execution." to the tool result
    assert shows == {"claude-code": True, "codex": True, "opencode": False, "gemini-cli": True, "copilot-cli": False}
    gemini = next(s for s in _capture("gemini-cli").answers() if s.name == "before-tool-rewrite")
    told = json.loads((gemini.folder / "model.json").read_text())["main_requests"][1]["told_text"]
    assert "[System] Tool input parameters were modified by a hook before execution." in told
    rewrite = next(s for s in _capture("claude-code").answers() if s.name == "pre-tool-use-rewrite")
    assert rewrite.events["PreToolUse"][0]["tool_input"]["command"] == ASKED_COMMAND
    assert rewrite.events["PostToolUse"][0]["tool_input"]["command"] == PROBE_COMMAND


def test_answer_scenarios_run_for_every_version_of_a_host():
    for harness, scenarios in ANSWER_SCENARIOS.items():
        names = [s.name for s in scenarios_for(harness, None)]
        assert names[-len(scenarios) :] == [s.name for s in scenarios]


# --- the real hosts --------------------------------------------------------------------------------


@pytest.mark.real_host
@pytest.mark.parametrize("harness", sorted(EXPECTED))
def test_real_host_shows_each_answer_again(pasture, npm_bin, tmp_path, harness):
    binary = HOST_PACKAGES[harness][1]
    contract_id = PINNED[harness]
    out = tmp_path / "captures"
    shutil.copytree(REPO / "captures" / contract_id, out / contract_id)
    names = [s.name for s in ANSWER_SCENARIOS[harness]]
    args = [a for name in names for a in ("--scenario", name)]
    result = pasture("--root", REPO, "capture", harness, "--host-bin", npm_bin / binary, "--out", out, *args)
    assert result.exit_code == 0, result.output
    fresh, committed = load_capture(out / contract_id), _capture(harness)
    assert {s.name: s.honoured for s in fresh.answers()} == EXPECTED[harness]
    for name in names:
        new, old = (next(s for s in c.scenarios if s.name == name) for c in (fresh, committed))
        assert new.doc["result"] == old.doc["result"], name
        assert new.doc.get("answer") == old.doc.get("answer"), name
    # the merge kept every other scenario and the files beside them byte for byte
    for path in sorted((REPO / "captures" / contract_id).rglob("*")):
        rel = path.relative_to(REPO / "captures" / contract_id)
        if path.is_file() and rel.parts[0] not in names and rel.name != "capture.json":
            assert (out / contract_id / rel).read_bytes() == path.read_bytes(), rel
    assert json.loads((out / contract_id / "capture.json").read_text()) == committed.doc


def test_the_bump_review_lists_answers_gained_and_lost():
    from loading import load_project

    from pasture.evolve import review

    contracts = {c.id: c for c in load_project(REPO)}
    old, new = contracts["codex@0.153.0"], contracts[PINNED["codex"]]
    rep = review.build(old, new, None, None, None, None, None, {})
    assert rep["answers"]["lost"] == []
    assert rep["answers"]["gained"] == [
        "PermissionRequest: allow (hookSpecificOutput.decision.behavior=allow)",
        "PostToolUse: feedback (decision=block+reason)",
        "PreToolUse: rewrite (hookSpecificOutput.updatedInput+permissionDecision=allow)",
        "SessionStart: context (hookSpecificOutput.additionalContext)",
        "Stop: continue (decision=block+reason)",
        "UserPromptSubmit: context (hookSpecificOutput.additionalContext)",
    ]
    back = review.build(new, old, None, None, None, None, None, {})
    assert back["answers"]["lost"] == rep["answers"]["gained"]
    assert any(line.startswith("answer lost: PreToolUse: rewrite") for line in back["needs_human"])
    text = review.render_markdown(rep)
    assert "## Answers beyond deny and ask" in text
    assert "- Stop: continue (decision=block+reason)" in text


# --- Gemini CLI and Copilot CLI: the bump report and the first profile --------------------------------

FIRST = {
    "gemini-cli": "gemini-cli@0.61.0",
    "copilot-cli": "copilot-cli@1.0.102",
    "pi": "pi@0.73.1",
    "qwen-code": "qwen-code@0.24.4",
    "cline": "cline@3.0.65",
}


def _without_answers(tmp_path, contract_id):
    """A project copy whose capture of ``contract_id`` keeps only its refusal scenarios."""
    root = tmp_path / "project"
    shutil.copytree(REPO / "profiles", root / "profiles")
    shutil.copytree(REPO / "captures", root / "captures")
    head = root / "captures" / contract_id / "capture.json"
    doc = json.loads(head.read_text())
    for entry in [e for e in doc["scenarios"] if "answer" in e or e["name"] == "no-answer-approval"]:
        shutil.rmtree(head.parent / entry["name"])
        doc["scenarios"].remove(entry)
    head.write_text(json.dumps(doc))
    return root


@pytest.mark.parametrize("harness", sorted(FIRST))
def test_the_bump_report_lists_the_answers_gained_and_lost_on_the_new_hosts(tmp_path, harness):
    from loading import load_project

    from pasture.catalog import find_catalog
    from pasture.evolve import review

    contract_id = FIRST[harness]
    version = contract_id.partition("@")[2]
    (new,) = load_project(REPO, [contract_id])
    rep = review.build(None, new, None, find_catalog(REPO, harness, version), None, _capture(harness), None, {})
    honoured = {s.answer["event"] for s in _capture(harness).answers() if s.honoured}
    assert rep["answers"]["lost"] == []
    assert {entry.partition(":")[0] for entry in rep["answers"]["gained"]} == honoured
    # the committed report's section is what the review makes of the committed files
    section = "## Answers beyond deny and ask"
    text = review.render_markdown(rep)
    committed = (REPO / "captures" / contract_id / "bump-report.md").read_text()
    assert committed.split(section, 1)[1].split("\n## ", 1)[0] == text.split(section, 1)[1].split("\n## ", 1)[0]
    # a version whose capture shows none of them honoured loses every one, and a human is asked
    (bare,) = load_project(_without_answers(tmp_path, contract_id), [contract_id])
    back = review.build(new, bare, None, None, None, None, None, {})
    assert back["answers"]["lost"] == rep["answers"]["gained"] and back["answers"]["gained"] == []
    assert sum(line.startswith("answer lost: ") for line in back["needs_human"]) == len(rep["answers"]["gained"])


def test_the_first_profile_declares_an_input_mutation_only_where_a_rewrite_was_honoured(tmp_path):
    """`pasture bump`'s first profile: BeforeTool is `mutation: input` because the rewrite capture holds;
    without that capture the same derivation writes `mutation: none` (and the matrix then offers no rewrite)."""
    import yaml
    from loading import load_project

    from pasture.evolve.profile_new import new_profile

    contract_id = FIRST["gemini-cli"]
    committed = yaml.safe_load((REPO / "profiles" / contract_id / "lifecycle.yaml").read_text())
    assert {r["name"]: r["mutation"] for r in committed["events"]}["BeforeTool"] == "input"
    assert [r["name"] for r in committed["events"] if r["mutation"] != "none"] == ["BeforeTool"]
    root = _without_answers(tmp_path, contract_id)
    new_profile(root, "gemini-cli", "0.61.0", None, force=True)
    derived = yaml.safe_load((root / "profiles" / contract_id / "lifecycle.yaml").read_text())
    assert all(r["mutation"] == "none" for r in derived["events"])
    (contract,) = load_project(root, [contract_id])
    assert not any(r.offered_answers for r in contract.events)


def test_pis_answer_scenarios_are_committed_with_their_verdicts():
    capture = _capture("pi")
    found = {s.name: s.honoured for s in capture.answers()}
    assert found == PI_EXPECTED
    assert [s.name for s in ANSWER_SCENARIOS["pi"] if s.answer] == list(found)
    for scenario in capture.answers():
        result, answer = scenario.doc["result"], scenario.answer
        assert result["answer_event_calls"] >= 1 and scenario.doc["refused_event"] is None
        if answer["capability"] == "context":
            assert 1 in result["marker_in_main_requests"] and answer["marker"] in result["marker_excerpt"]
        else:
            model = json.loads((scenario.folder / "model.json").read_text())
            assert answer["marker"] in model["main_requests"][1]["told_text"]
