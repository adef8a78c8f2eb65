"""`pasture evidence`, the evidence pass of `pasture check`, and `pasture diff`."""

from __future__ import annotations

import json

from click.testing import CliRunner
from hosts_support import write_capture, write_catalog
from loading import load_project

from pasture.cli import main

PRE = {"session_id": "<uuid-1>", "tool_use_id": "<fake-id-1>"}


def _check(project):
    return CliRunner().invoke(main, ["--root", str(project), "check"], catch_exceptions=False)


def test_evidence_lists_blocking_rows_their_evidence_and_the_demoted(pasture, project):
    result = pasture("--root", project, "evidence", "--contract", "codex@0.153.0", "--json")
    assert result.exit_code == 0, result.output
    (report,) = json.loads(result.stdout)
    contract = load_project(project, ["codex@0.153.0"])[0]
    assert [b["event"] for b in report["blocking"]] == [r.name for r in contract.events if r.failure.blocks]
    assert all(
        b["evidence"]["kind"] == "capture" and b["evidence"]["host_version"] == "0.153.0" for b in report["blocking"]
    )
    assert [d["event"] for d in report["demoted"]] == [r.name for r in contract.events if r.demoted]
    assert report["responses"][0]["event"] == "PreToolUse" and report["problems"] == []
    text = pasture("--root", project, "evidence", "--contract", "opencode@1.18.29").stdout
    assert "tool.execute.before  throw-fail-fast: capture captures/opencode@1.18.29/tool-execute-before-throw" in text


def _edit(project, contract, old, new):
    path = project / "profiles" / contract / "lifecycle.yaml"
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new))


def test_a_citation_of_another_host_version_is_a_problem_for_evidence_and_check(pasture, project):
    """The bump flaw: a new profile whose blocking claims cite the previous version's captures."""
    assert _check(project).exit_code in (0, 1)  # the copy has no generated/: drift, but no evidence problem
    assert "evidence:" not in _check(project).stderr
    _edit(
        project,
        "claude-code@2.1.332",
        "captures/claude-code@2.1.332/pre-tool-use-exit-2/scenario.json",
        "captures/claude-code@2.1.328/pre-tool-use-exit-2/scenario.json",
    )
    bad = pasture("--root", project, "evidence", "--contract", "claude-code@2.1.332", "--json")
    assert bad.exit_code == 1
    (problem,) = json.loads(bad.stdout)[0]["problems"]
    assert problem.startswith("PreToolUse: captures/claude-code@2.1.328/pre-tool-use-exit-2/scenario.json")
    assert "it captures host version 2.1.328, not 2.1.332" in problem
    check = _check(project)
    assert check.exit_code == 1
    assert "evidence: claude-code@2.1.332: PreToolUse: captures/claude-code@2.1.328/" in check.stderr


def test_an_unpinned_url_is_a_problem(pasture, project):
    _edit(
        project,
        "codex@0.171.0",
        "capture-stop-exit-2: captures/codex@0.171.0/stop-exit-2/scenario.json",
        "capture-stop-exit-2: https://github.com/openai/codex/blob/main/codex-rs/hooks/src/events/stop.rs",
    )
    bad = pasture("--root", project, "evidence", "--contract", "codex@0.171.0", "--json")
    assert bad.exit_code == 1
    assert any(
        "Stop: https://github.com/openai/codex/blob/main/" in p and "not pinned to 0.171.0" in p
        for p in json.loads(bad.stdout)[0]["problems"]
    )
    assert "not pinned to 0.171.0" in _check(project).stderr
    # The same source at the version's tag is pinned.
    _edit(project, "codex@0.171.0", "/blob/main/", "/blob/rust-v0.171.0/")
    assert pasture("--root", project, "evidence", "--contract", "codex@0.171.0").exit_code == 0


def test_a_capture_citation_that_does_not_back_the_claim_is_a_problem(pasture, project):
    _edit(
        project,
        "claude-code@2.1.332",
        "capture-pre-tool-use-exit-2: captures/claude-code@2.1.332/pre-tool-use-exit-2/scenario.json",
        "capture-pre-tool-use-exit-2: captures/claude-code@2.1.332/stop-exit-2/scenario.json",
    )
    bad = pasture("--root", project, "evidence", "--contract", "claude-code@2.1.332", "--json")
    assert bad.exit_code == 1
    problems = json.loads(bad.stdout)[0]["problems"]
    assert any("refuses 'Stop', not PreToolUse" in p for p in problems)


def test_a_citation_of_a_missing_file_stops_every_command(pasture, project):
    (project / "captures" / "claude-code@2.1.332" / "stop-exit-2" / "scenario.json").unlink()
    result = _check(project)
    assert result.exit_code == 2
    assert (
        "captures/claude-code@2.1.332/stop-exit-2/scenario.json' is neither a URL nor a path that exists"
        in result.stderr
    )


def test_diff_identical_and_different(pasture, project):
    same = pasture("--root", project, "diff", "codex@0.153.0", "codex@0.153.0")
    assert same.exit_code == 0 and "changed rows: none" in same.stdout and "runtime: unchanged" in same.stdout
    write_catalog(
        project,
        "codex",
        "0.180.0",
        like="codex@0.171.0",
        add={"NewThing": {"input": {"session_id": {"required": False, "type": "string"}}, "output": {}}},
    )
    write_capture(
        project,
        "codex",
        "0.180.0",
        [
            {"name": "allow", "events": {"SessionEnd": [{"session_id": "<uuid-1>"}], "NewThing": [{}]}},
            {
                "name": "pre-tool-use-exit-2",
                "channel": "exit-2",
                "refused_event": "PreToolUse",
                "held": False,
                "events": {"PreToolUse": [PRE]},
            },
            {
                "name": "pre-tool-use-json-deny",
                "channel": "json-deny",
                "refused_event": "PreToolUse",
                "held": False,
                "events": {"PreToolUse": [PRE]},
            },
        ],
    )
    assert pasture("--root", project, "profile", "new", "codex", "0.180.0", "--from", "codex@0.171.0").exit_code == 0
    result = pasture("--root", project, "diff", "codex@0.171.0", "codex@0.180.0")
    assert result.exit_code == 1
    out = result.stdout
    assert "admission: at or above 0.171.0 -> at or above 0.180.0" in out
    assert "events: 12 -> 13 (+1 -0)" in out and "+ NewThing: observation" in out
    assert "blocking lost: UserPromptSubmit, PreToolUse, Stop" in out and "blocking gained: none" in out
    assert "deny channel gained: none; lost: PreToolUse" in out
    assert "effective failure: strict-output-exit-2-blocks -> report-and-continue" in out
    doc = json.loads(pasture("--root", project, "diff", "codex@0.171.0", "codex@0.180.0", "--json").stdout)
    assert doc["events"]["added"] == ["NewThing"] and "PreToolUse" in doc["blocking"]["lost"]
    assert not doc["identical"]
    unknown = pasture("--root", project, "diff", "codex@0.153.0", "codex@9.9.9")
    assert unknown.exit_code == 2 and "no contract 'codex@9.9.9'" in unknown.output
