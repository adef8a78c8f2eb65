"""`pasture profile new`: rows from the previous contract, evidence only from held refusals of that version."""

from __future__ import annotations

import json
import subprocess

import pytest
import yaml

from generator.loader import load_project
from generator.vocab import FailureMode, ResponseCapability
from hosts_support import write_capture

SESSION = {"session_id": "<uuid-1>", "hook_event_name": "X"}


def _claude_capture(project, *, exit2_held=True, deny_held=True, stop_held=True):
    pre = {**SESSION, "tool_use_id": "<fake-id-1>", "tool_name": "Bash"}
    display = {**SESSION, "turn_id": "<uuid-2>", "message_id": "<uuid-3>"}
    return write_capture(project, "claude-code", "2.1.400", [
        {"name": "allow", "events": {"PreToolUse": [pre], "PostToolUse": [pre], "MessageDisplay": [display],
                                     "SessionStart": [{"hook_event_name": "SessionStart"}],
                                     "BrandNewEvent": [{**SESSION, "agent_id": "<uuid-4>"}]}},
        {"name": "pre-tool-use-exit-2", "channel": "exit-2", "refused_event": "PreToolUse", "held": exit2_held,
         "events": {"PreToolUse": [pre]}},
        {"name": "pre-tool-use-json-deny", "channel": "json-deny", "refused_event": "PreToolUse",
         "held": deny_held, "events": {"PreToolUse": [pre]}},
        {"name": "stop-exit-2", "channel": "exit-2", "refused_event": "Stop", "held": stop_held,
         "events": {"Stop": [SESSION, SESSION]}},
    ], host_listed=[r.name for r in load_project(project, ["claude-code@2.1.261"])[0].events
                    if r.name != "Setup"] + ["BrandNewEvent", "ListedOnly"])


def _new(pasture, project, *extra):
    return pasture("--root", project, "profile", "new", "claude-code", "2.1.400", "--from", "claude-code@2.1.261",
                   *extra)


def _rows(project, contract="claude-code@2.1.400"):
    return {r.name: r for r in load_project(project, [contract])[0].events}


def test_held_refusals_are_cited_and_nothing_else_gains_evidence(pasture, project):
    _claude_capture(project)
    result = _new(pasture, project)
    assert result.exit_code == 0, result.output
    rows = _rows(project)
    base = {r.name: r for r in load_project(project, ["claude-code@2.1.261"])[0].events}
    cap = "captures/claude-code@2.1.400"
    assert rows["PreToolUse"].evidence == f"{cap}/pre-tool-use-exit-2/scenario.json"
    assert rows["PreToolUse"].deny_evidence == f"{cap}/pre-tool-use-json-deny/scenario.json"
    assert rows["PreToolUse"].ask_evidence == base["PreToolUse"].ask_evidence  # carried, not invented
    assert rows["PreToolUse"].response is ResponseCapability.DENY_ASK
    assert rows["Stop"].evidence == f"{cap}/stop-exit-2/scenario.json"
    # Not exercised: carried exactly as the previous contract cited it.
    assert rows["SubagentStop"].evidence == base["SubagentStop"].evidence
    assert rows["UserPromptSubmit"].evidence == base["UserPromptSubmit"].evidence
    # Never a new blocking claim: every row that blocks now blocked before (or is a new observation).
    for name, row in rows.items():
        if row.failure.blocks:
            assert name in base and base[name].failure.blocks, name
        if row.evidence.startswith("captures/"):
            assert name in ("PreToolUse", "Stop")
    assert {n for n, r in rows.items() if r.demoted} == {n for n, r in base.items() if r.demoted}
    admission = load_project(project, ["claude-code@2.1.400"])[0].admission
    assert admission.describe() == "at or above 2.1.400"
    assert "blocking claims proven by this capture (3)" in result.stdout


def test_a_refusal_that_did_not_hold_removes_the_evidence(pasture, project):
    _claude_capture(project, exit2_held=False, deny_held=False)
    assert _new(pasture, project).exit_code == 0
    row = _rows(project)["PreToolUse"]
    assert row.evidence == "" and row.failure is FailureMode.REPORT_AND_CONTINUE and row.demoted
    assert row.response is ResponseCapability.NONE
    assert "NOT holding" in row.note


def test_new_unseen_and_unlisted_events(pasture, project):
    _claude_capture(project)
    result = _new(pasture, project)
    rows = _rows(project)
    new = rows["BrandNewEvent"]
    assert (new.semantic.value, new.blocking.value, new.failure.value) == ("observation", "nonblocking",
                                                                          "report-and-continue")
    assert not new.pre_action and "not in claude-code@2.1.261" in new.note
    assert [(i.field, i.required) for i in new.identities] == [("session_id", False), ("agent_id", False)]
    assert "ListedOnly" in rows and "listed by the host itself" in rows["ListedOnly"].note
    assert "not seen in captures/claude-code@2.1.400" in rows["Elicitation"].note
    assert "Setup" in rows and "does not name it" in rows["Setup"].note  # kept, flagged
    assert "Setup" in result.stdout.split("review!")[1]
    order = list(rows)
    assert order[-2:] == ["BrandNewEvent", "ListedOnly"]


def test_identities_checked_against_real_payloads(pasture, project):
    _claude_capture(project)
    _new(pasture, project)
    rows = _rows(project)
    # declared required but absent from a real payload -> optional
    start = {i.field: i.required for i in rows["SessionStart"].identities}
    assert start == {"session_id": False}
    assert "absent from 1 of 1" in rows["SessionStart"].note
    # present fields of undeclared kinds are added as optional
    display = {i.field: (i.kind.value, i.required) for i in rows["MessageDisplay"].identities}
    assert display == {"session_id": ("session", True), "turn_id": ("turn", False), "message_id": ("message", False)}
    # declared and present: unchanged
    assert {i.field: i.required for i in rows["PreToolUse"].identities} == {"session_id": True, "tool_use_id": True}


def test_output_is_deterministic_and_refuses_to_overwrite(pasture, project):
    _claude_capture(project)
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
        (capture / "capture.json").read_text().replace('"host_version": "2.1.400"', '"host_version": "2.1.401"'))
    mismatch = _new(pasture, project)
    assert mismatch.exit_code == 2 and "not claude-code 2.1.400" in mismatch.stderr
    outside = write_capture(tmp_path / "elsewhere", "claude-code", "2.1.400", [{"name": "allow", "events": {}}])
    result = _new(pasture, project, "--capture", outside)
    assert result.exit_code == 2 and "outside the project" in result.stderr
    wrong = pasture("--root", project, "profile", "new", "codex", "2.1.400", "--from", "claude-code@2.1.261")
    assert wrong.exit_code == 2 and "not codex" in wrong.stderr
    assert not (project / "profiles" / "claude-code@2.1.400").exists()


def test_an_uncommitted_capture_is_never_cited(pasture, project):
    _claude_capture(project)
    git = ["git", "-C", str(project), "-c", "user.email=t@example.invalid", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "profiles"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "profiles"], check=True)
    result = _new(pasture, project)
    assert result.exit_code == 0
    rows = _rows(project)
    assert not rows["PreToolUse"].evidence.startswith("captures/")
    assert "not cited because not committed" in result.stdout
    subprocess.run([*git, "add", "captures"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "capture"], check=True)
    assert _new(pasture, project, "--force").exit_code == 0
    assert _rows(project)["PreToolUse"].evidence.startswith("captures/")


def test_opencode_bus_events_and_the_config_hook(pasture, project):
    bus_payload = {"id": "<evt-1>", "type": "plugin.added", "properties": {"sessionID": "<ses-1>"}}
    write_capture(project, "opencode", "1.18.40", [
        {"name": "allow", "events": {"plugin.added": [bus_payload], "config": [{"input": {"provider": {}}}],
                                     "tool.execute.before": [{"input": {"sessionID": "<ses-1>", "callID": "c"},
                                                              "output": {"args": {}}}]}},
        {"name": "tool-execute-before-throw", "channel": "throw", "refused_event": "tool.execute.before",
         "held": True, "events": {"tool.execute.before": [{"input": {"sessionID": "<ses-1>", "callID": "c"}}]}},
    ], bus=["plugin.added"])
    result = pasture("--root", project, "profile", "new", "opencode", "1.18.40", "--from", "opencode@1.18.29", "--json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["added"] == ["plugin.added"] and report["skipped"][0].startswith("config:")
    contract = load_project(project, ["opencode@1.18.40"])[0]
    names = [r.name for r in contract.events]
    row = contract.row("plugin.added")
    assert row.surface.value == "opencode-catch-all-sse" and row.failure is FailureMode.OBSERVE_ONLY
    # inserted after the last bus row, before the named hooks
    assert names.index("plugin.added") == names.index("chat.message") - 1
    assert [(i.field, i.required) for i in row.identities] == [("sessionID", False)]
    before = contract.row("tool.execute.before")
    assert before.failure is FailureMode.THROW_FAIL_FAST
    assert before.evidence == "captures/opencode@1.18.40/tool-execute-before-throw/scenario.json"


@pytest.mark.parametrize("bad", ["2.1", "latest"])
def test_version_must_be_semver(pasture, project, bad):
    result = pasture("--root", project, "profile", "new", "claude-code", bad, "--from", "claude-code@2.1.261")
    assert result.exit_code == 2 and "semantic version" in result.stderr
