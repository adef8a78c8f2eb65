"""`pasture profile new`: rows from the previous contract and the version's own catalog; evidence only
from held refusals of that very version, cited directly."""

from __future__ import annotations

import json
import shutil

import pytest
import yaml
from hosts_support import decision_output, field, write_capture, write_catalog
from loading import load_project

from pasture.profile.vocab import EventSemantic, FailureMode, ResponseCapability

SESSION = {"session_id": "<uuid-1>", "hook_event_name": "X"}
PRE = {**SESSION, "tool_use_id": "<fake-id-1>", "tool_name": "Bash"}
NEW_GATE_INPUT = {"session_id": field(), "tool_use_id": field(), "tool_name": field(), "cwd": field()}


def _claude(project, *, exit2_held=True, deny_held=True, stop_held=True, gate_held=True):
    write_catalog(
        project,
        "claude-code",
        "2.1.400",
        like="claude-code@2.1.261",
        drop=("Setup",),
        add={
            # an observation: nothing in its output refuses
            "BrandNewEvent": {"input": {"session_id": field(), "agent_id": field(False)}, "output": {}},
            # pre-action, and its output offers deny: a gate; a scenario refuses it below
            "PreShinyThing": {"input": NEW_GATE_INPUT, "output": decision_output("PreShinyThing", ["allow", "deny"])},
            # a gate no scenario triggers: its blocking waits for evidence
            "PreUntested": {
                "input": {"session_id": field()},
                "output": decision_output("PreUntested", ["deny", "ask"]),
            },
        },
    )
    display = {**SESSION, "turn_id": "<uuid-2>", "message_id": "<uuid-3>"}
    return write_capture(
        project,
        "claude-code",
        "2.1.400",
        [
            {
                "name": "allow",
                "events": {
                    "PreToolUse": [PRE],
                    "PostToolUse": [PRE],
                    "MessageDisplay": [display],
                    "SessionStart": [{"hook_event_name": "SessionStart"}],
                    "BrandNewEvent": [{**SESSION, "agent_id": "<uuid-4>"}],
                },
            },
            {
                "name": "pre-tool-use-exit-2",
                "channel": "exit-2",
                "refused_event": "PreToolUse",
                "held": exit2_held,
                "events": {"PreToolUse": [PRE]},
            },
            {
                "name": "pre-tool-use-json-deny",
                "channel": "json-deny",
                "refused_event": "PreToolUse",
                "held": deny_held,
                "events": {"PreToolUse": [PRE]},
            },
            {
                "name": "stop-exit-2",
                "channel": "exit-2",
                "refused_event": "Stop",
                "held": stop_held,
                "events": {"Stop": [SESSION, SESSION]},
            },
            {
                "name": "pre-shiny-thing-exit-2",
                "channel": "exit-2",
                "refused_event": "PreShinyThing",
                "held": gate_held,
                "events": {"PreShinyThing": [PRE]},
            },
        ],
    )


def _new(pasture, project, *extra):
    return pasture(
        "--root", project, "profile", "new", "claude-code", "2.1.400", "--from", "claude-code@2.1.261", *extra
    )


def _rows(project, contract="claude-code@2.1.400"):
    return {r.name: r for r in load_project(project, [contract])[0].events}


def test_held_refusals_of_this_version_are_cited_and_older_citations_dropped(pasture, project):
    _claude(project)
    result = _new(pasture, project)
    assert result.exit_code == 0, result.output
    rows = _rows(project)
    base = _rows(project, "claude-code@2.1.261")
    cap = "captures/claude-code@2.1.400"
    assert rows["PreToolUse"].evidence == f"{cap}/pre-tool-use-exit-2/scenario.json"
    assert rows["PreToolUse"].deny_evidence == f"{cap}/pre-tool-use-json-deny/scenario.json"
    # 2.1.261's ask citation is a capture of 2.1.261: no evidence for 2.1.400, so it is dropped.
    assert base["PreToolUse"].ask_evidence.startswith("captures/claude-code@2.1.261/")
    assert rows["PreToolUse"].ask_evidence == "" and rows["PreToolUse"].response is ResponseCapability.DENY
    assert rows["Stop"].evidence == f"{cap}/stop-exit-2/scenario.json"
    # Cited in 2.1.261 by its own capture, not exercised here: demoted, never carried.
    assert base["UserPromptSubmit"].failure.blocks and not rows["UserPromptSubmit"].failure.blocks
    assert "is a capture of 2.1.261, not of 2.1.400" in rows["UserPromptSubmit"].note
    # Every citation names this version's capture.
    for row in rows.values():
        for citation in (row.evidence, row.deny_evidence, row.ask_evidence):
            assert not citation or citation.startswith(f"{cap}/"), (row.name, citation)
    assert load_project(project, ["claude-code@2.1.400"])[0].admission.describe() == "at or above 2.1.400"
    assert "blocking claims proven by this capture (4)" in result.stdout


def test_new_events_are_classified_from_the_catalog(pasture, project):
    _claude(project)
    result = _new(pasture, project, "--json")
    report = json.loads(result.stdout)
    rows = _rows(project)
    new = rows["BrandNewEvent"]
    assert (new.semantic, new.blocking.value, new.failure) == (
        EventSemantic.OBSERVATION,
        "nonblocking",
        FailureMode.REPORT_AND_CONTINUE,
    )
    assert [(i.field, i.required) for i in new.identities] == [("session_id", True), ("agent_id", False)]
    # A pre-action event whose output offers a decision is a gate, never an observation, and it
    # blocks because the capture shows its refusal holding on this version.
    gate = rows["PreShinyThing"]
    assert gate.semantic is EventSemantic.GATE_CONSULTATION and gate.pre_action
    assert gate.failure is FailureMode.EXIT_2_BLOCKS
    assert gate.evidence == "captures/claude-code@2.1.400/pre-shiny-thing-exit-2/scenario.json"
    assert [(i.field, i.required) for i in gate.identities] == [("session_id", True), ("tool_use_id", True)]
    assert gate.matcher == "*"
    # A gate nothing refused yet: declared blocking, runs report-and-continue until evidence.
    waiting = rows["PreUntested"]
    assert waiting.semantic is EventSemantic.GATE_CONSULTATION and waiting.demoted
    assert waiting.failure is FailureMode.REPORT_AND_CONTINUE
    # The host dropped Setup: so does the profile.
    assert "Setup" not in rows and report["removed_events"] == ["Setup"]
    assert sorted(report["gates"]) == ["PreShinyThing", "PreUntested"]
    assert list(rows)[-3:] == ["BrandNewEvent", "PreShinyThing", "PreUntested"]


def test_a_refusal_that_did_not_hold_removes_the_evidence(pasture, project):
    _claude(project, exit2_held=False, deny_held=False, gate_held=False)
    assert _new(pasture, project).exit_code == 0
    rows = _rows(project)
    row = rows["PreToolUse"]
    assert row.evidence == "" and row.failure is FailureMode.REPORT_AND_CONTINUE and row.demoted
    assert row.response is ResponseCapability.NONE
    assert "NOT holding" in row.note
    assert not rows["PreShinyThing"].failure.blocks


def test_identities_checked_against_real_payloads_and_the_schema(pasture, project):
    _claude(project)
    _new(pasture, project)
    rows = _rows(project)
    # declared required but absent from a real payload -> optional
    start = {i.field: i.required for i in rows["SessionStart"].identities}
    assert start == {"session_id": False}
    assert "absent from 1 of 1" in rows["SessionStart"].note
    # the schema requires turn_id and message_id on MessageDisplay
    display = {i.field: (i.kind.value, i.required) for i in rows["MessageDisplay"].identities}
    assert display == {"session_id": ("session", True), "turn_id": ("turn", True), "message_id": ("message", True)}
    assert {i.field: i.required for i in rows["PreToolUse"].identities} == {"session_id": True, "tool_use_id": True}


def test_output_is_deterministic_and_refuses_to_overwrite(pasture, project):
    _claude(project)
    assert _new(pasture, project).exit_code == 0
    folder = project / "profiles" / "claude-code@2.1.400"
    first = (folder / "lifecycle.yaml").read_bytes(), (folder / "runtime.yaml").read_bytes()
    again = _new(pasture, project)
    assert again.exit_code == 2 and "exists; pass --force" in again.stderr
    assert _new(pasture, project, "--force").exit_code == 0
    assert ((folder / "lifecycle.yaml").read_bytes(), (folder / "runtime.yaml").read_bytes()) == first
    runtime = yaml.safe_load(first[1])
    base = yaml.safe_load((project / "profiles" / "claude-code@2.1.261" / "runtime.yaml").read_text())
    assert runtime == {**base, "contract": "claude-code@2.1.400"}


def test_capture_must_match_and_live_in_the_project(pasture, project, tmp_path):
    assert "no capture at" in _new(pasture, project).stderr
    write_capture(project, "claude-code", "2.1.400", [{"name": "allow", "events": {}}])
    capture = project / "captures" / "claude-code@2.1.400"
    (capture / "capture.json").write_text(
        (capture / "capture.json").read_text().replace('"host_version": "2.1.400"', '"host_version": "2.1.401"')
    )
    mismatch = _new(pasture, project)
    assert mismatch.exit_code == 2 and "not claude-code 2.1.400" in mismatch.stderr
    outside = write_capture(tmp_path / "elsewhere", "claude-code", "2.1.400", [{"name": "allow", "events": {}}])
    result = _new(pasture, project, "--capture", outside)
    assert result.exit_code == 2 and "outside the project" in result.stderr
    wrong = pasture("--root", project, "profile", "new", "codex", "2.1.400", "--from", "claude-code@2.1.261")
    assert wrong.exit_code == 2 and "not codex" in wrong.stderr
    assert not (project / "profiles" / "claude-code@2.1.400").exists()


def test_captures_are_cited_directly_and_a_missing_one_fails_validation(pasture, project):
    """No commit-then-force step: the citation is written at once; a checkout without the capture
    (it was not committed) fails validate and check instead of passing on an older version's evidence."""
    _claude(project)
    assert _new(pasture, project).exit_code == 0
    assert _rows(project)["PreToolUse"].evidence.startswith("captures/claude-code@2.1.400/")
    shutil.rmtree(project / "captures" / "claude-code@2.1.400" / "pre-tool-use-exit-2")
    result = pasture("--root", project, "evidence", "--contract", "claude-code@2.1.261")  # any command loading
    assert result.exit_code == 2
    assert "captures/claude-code@2.1.400/pre-tool-use-exit-2/scenario.json" in result.stderr
    assert "neither a URL nor a path that exists" in result.stderr


def test_without_a_catalog_new_events_come_from_the_capture_and_the_profile_is_refused(pasture, project):
    """A project that keeps catalogs needs one for the new version too."""
    write_capture(project, "claude-code", "2.1.400", [{"name": "allow", "events": {"BrandNewEvent": [SESSION]}}])
    result = _new(pasture, project)
    assert result.exit_code == 2
    assert "no host catalog for claude-code@2.1.400" in result.stderr


def test_opencode_bus_events_named_hooks_and_the_config_hook(pasture, project):
    write_catalog(
        project,
        "opencode",
        "1.18.40",
        like="opencode@1.18.29",
        add={
            "brand.new": {
                "kind": "bus",
                "input": {
                    "type": field(True, "literal", ["brand.new"]),
                    "properties": {"required": True, "type": "object", "fields": {"sessionID": field()}},
                },
            },
            "thing.before": {
                "input": {"sessionID": field()},
                "output": {"args": field(True, "unknown")},
                "host_calls": 1,
            },
        },
    )
    bus_payload = {"id": "<evt-1>", "type": "brand.new", "properties": {"sessionID": "<ses-1>"}}
    write_capture(
        project,
        "opencode",
        "1.18.40",
        [
            {
                "name": "allow",
                "events": {
                    "brand.new": [bus_payload],
                    "config": [{"input": {"provider": {}}}],
                    "tool.execute.before": [{"input": {"sessionID": "<ses-1>", "callID": "c"}, "output": {"args": {}}}],
                },
            },
            {
                "name": "tool-execute-before-throw",
                "channel": "throw",
                "refused_event": "tool.execute.before",
                "held": True,
                "events": {"tool.execute.before": [{"input": {"sessionID": "<ses-1>", "callID": "c"}}]},
            },
        ],
        bus=["brand.new"],
    )
    result = pasture("--root", project, "profile", "new", "opencode", "1.18.40", "--from", "opencode@1.18.29", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["added"] == ["brand.new: observation", "thing.before: gate (blocking waits for evidence)"]
    contract = load_project(project, ["opencode@1.18.40"])[0]
    names = [r.name for r in contract.events]
    row = contract.row("brand.new")
    assert row.surface.value == "opencode-catch-all-sse" and row.failure is FailureMode.OBSERVE_ONLY
    last_bus = max(i for i, r in enumerate(contract.events) if r.surface.value == "opencode-catch-all-sse")
    assert names.index("brand.new") == last_bus  # after the other bus rows, before the named hooks
    assert [(i.field, i.required) for i in row.identities] == [("sessionID", True)]
    gate = contract.row("thing.before")
    assert gate.semantic is EventSemantic.GATE_CONSULTATION and gate.failure is FailureMode.REPORT_AND_CONTINUE
    before = contract.row("tool.execute.before")
    assert before.failure is FailureMode.THROW_FAIL_FAST
    assert before.evidence == "captures/opencode@1.18.40/tool-execute-before-throw/scenario.json"
    assert "config" not in names  # the configuration hook is no lifecycle event


@pytest.mark.parametrize("bad", ["2.1", "latest"])
def test_version_must_be_semver(pasture, project, bad):
    result = pasture("--root", project, "profile", "new", "claude-code", bad, "--from", "claude-code@2.1.261")
    assert result.exit_code == 2 and "semantic version" in result.stderr


def test_a_json_deny_is_spelled_as_its_surface_reads_it():
    from pasture.evolve.profile_new import _json_deny

    assert _json_deny({"surface": "gemini-command-json"}) == 'decision "deny"'
    assert _json_deny({"surface": "claude-command-json"}) == "permissionDecision deny"
    assert _json_deny({}) == "permissionDecision deny"
