"""`pasture evidence` and `pasture diff`."""

from __future__ import annotations

import json

from generator.loader import load_project
from hosts_support import write_capture

PRE = {"session_id": "<uuid-1>", "tool_use_id": "<fake-id-1>"}


def test_evidence_lists_blocking_rows_their_evidence_and_the_demoted(pasture, project):
    result = pasture("--root", project, "evidence", "--contract", "codex@0.153.0", "--json")
    assert result.exit_code == 0, result.output
    (report,) = json.loads(result.stdout)
    contract = load_project(project, ["codex@0.153.0"])[0]
    assert [b["event"] for b in report["blocking"]] == [r.name for r in contract.events if r.failure.blocks]
    assert all(b["evidence"]["kind"] == "documentation" for b in report["blocking"])
    assert [d["event"] for d in report["demoted"]] == [r.name for r in contract.events if r.demoted]
    assert report["responses"][0]["event"] == "PreToolUse" and report["problems"] == []
    text = pasture("--root", project, "evidence", "--contract", "opencode@1.18.29").stdout
    assert "tool.execute.before" in text and "pasture's own plugin throws" in text
    assert "demoted for lack of evidence: none" in text


def test_evidence_checks_what_a_capture_citation_claims(pasture, project):
    write_capture(project, "claude-code", "2.1.400", [
        {"name": "pre-tool-use-exit-2", "channel": "exit-2", "refused_event": "PreToolUse", "held": True,
         "events": {"PreToolUse": [PRE]}},
        {"name": "stop-exit-2", "channel": "exit-2", "refused_event": "Stop", "held": False, "events": {}},
    ])
    assert pasture("--root", project, "profile", "new", "claude-code", "2.1.400", "--from",
                   "claude-code@2.1.261").exit_code == 0
    good = pasture("--root", project, "evidence", "--contract", "claude-code@2.1.400")
    assert good.exit_code == 0, good.output
    assert "capture captures/claude-code@2.1.400/pre-tool-use-exit-2/scenario.json" in good.stdout
    assert "held on 2.1.400" in good.stdout
    # Stop's refusal did not hold: profile new removed the evidence, so Stop is demoted now.
    assert "    Stop (declared exit-2-blocks)" in good.stdout
    # A hand-edited citation of a capture that does not back the claim is a problem (exit 1).
    lifecycle = project / "profiles" / "claude-code@2.1.400" / "lifecycle.yaml"
    text = lifecycle.read_text()
    lifecycle.write_text(text.replace("capture-pre-tool-use-exit-2: captures/claude-code@2.1.400/pre-tool-use-exit-2",
                                      "capture-pre-tool-use-exit-2: captures/claude-code@2.1.400/stop-exit-2"))
    bad = pasture("--root", project, "evidence", "--contract", "claude-code@2.1.400", "--json")
    assert bad.exit_code == 1
    problems = json.loads(bad.stdout)[0]["problems"]
    assert any("refuses 'Stop', not PreToolUse" in p and "did not hold" in p for p in problems)


def test_diff_identical_and_different(pasture, project):
    same = pasture("--root", project, "diff", "codex@0.153.0", "codex@0.153.0")
    assert same.exit_code == 0 and "changed rows: none" in same.stdout and "runtime: unchanged" in same.stdout
    write_capture(project, "codex", "0.180.0", [
        {"name": "allow", "events": {"SessionEnd": [{"session_id": "<uuid-1>"}], "NewThing": [{}]}},
        {"name": "pre-tool-use-exit-2", "channel": "exit-2", "refused_event": "PreToolUse", "held": False,
         "events": {"PreToolUse": [PRE]}},
        {"name": "pre-tool-use-json-deny", "channel": "json-deny", "refused_event": "PreToolUse", "held": False,
         "events": {"PreToolUse": [PRE]}},
    ])
    assert pasture("--root", project, "profile", "new", "codex", "0.180.0", "--from", "codex@0.153.0").exit_code == 0
    result = pasture("--root", project, "diff", "codex@0.153.0", "codex@0.180.0")
    assert result.exit_code == 1
    out = result.stdout
    assert "admission: at or above 0.153.0 -> at or above 0.180.0" in out
    assert "events: 12 -> 13 (+1 -0)" in out and "+ NewThing: observation" in out
    assert "blocking lost: PreToolUse" in out and "blocking gained: none" in out
    assert "deny channel gained: none; lost: PreToolUse" in out
    assert "effective failure: strict-output-exit-2-blocks -> report-and-continue" in out
    assert "identities: + session_id (session, optional)" in out
    doc = json.loads(pasture("--root", project, "diff", "codex@0.153.0", "codex@0.180.0", "--json").stdout)
    assert doc["events"]["added"] == ["NewThing"] and doc["blocking"]["lost"] == ["PreToolUse"]
    assert not doc["identical"]
    unknown = pasture("--root", project, "diff", "codex@0.153.0", "codex@9.9.9")
    assert unknown.exit_code == 2 and "no contract 'codex@9.9.9'" in unknown.output
