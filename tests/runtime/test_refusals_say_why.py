"""Every refusal says why, through the channel the host shows the model (issue 28, item 4).

Copilot CLI 1.0.102 shows the model only "hook exited with code 2" for an exit-2 block; its JSON deny
carries the reason (docs/new-hosts.md). So a runtime failure on a blocking row (a broken policy, an
unwritable journal, a gate past its deadline) leaves as the JSON deny too, with the line on stderr
for the user. A steering answer the host cannot carry (`[[until]]` on OpenCode and Pi) is named in
the journal and on stderr, never dropped without a word."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
from hookrun import call

from pasture.journal.db import query
from pasture.runtime.lifecycle import respond

COPILOT = ("copilot-cli", "preToolUse", "1.0.102")


def _copilot_shell(project: Path) -> dict:
    return {"cwd": str(project), "toolName": "bash", "toolArgs": {"command": "ls"}, "sessionId": "s"}


def _assert_copilot_json_deny(code: int, out: str, err: str, words: str) -> None:
    assert code == 0, (code, out, err)
    answer = json.loads(out)
    assert answer["permissionDecision"] == "deny"
    assert words in answer["permissionDecisionReason"]
    assert answer["permissionDecisionReason"].startswith("pasture: ")
    assert answer["permissionDecisionReason"] == err.strip()  # the user's copy of the same line


def test_copilot_broken_policy_is_a_json_deny_with_the_reason(env, tmp_path):
    Path(env["PASTURE_POLICY"]).write_text('[[rules]]\nname = "x"\ndecision = "deny"\ncommand = "("\n')
    code, out, err = call(*COPILOT, _copilot_shell(tmp_path), env)
    _assert_copilot_json_deny(code, out, err, "'command' is not a valid regular expression")


def test_copilot_unwritable_journal_is_a_json_deny_with_the_reason(env, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    env["PASTURE_JOURNAL"] = str(blocker / "journal.sqlite3")
    code, out, err = call(*COPILOT, _copilot_shell(tmp_path), env)
    _assert_copilot_json_deny(code, out, err, "cannot journal preToolUse")


def test_copilot_gate_past_its_deadline_is_a_json_deny_with_the_reason(env, tmp_path):
    hang = tmp_path / "hang.py"
    hang.write_text("import time; time.sleep(60)")
    Path(env["PASTURE_POLICY"]).write_text(
        f'[gate]\nkind = "command"\ncommand = [{json.dumps(sys.executable)}, {json.dumps(str(hang))}]\n'
    )
    # the row's deadline (its timeout less 10 %) is counted from `started`: leave about 1 s of it
    from pasture.runtime.deadline import deadline_seconds
    from pasture.runtime.tables import resolve

    budget = deadline_seconds(resolve(*COPILOT[:1], COPILOT[2], COPILOT[1]).row)
    reply = respond(*COPILOT[:2], COPILOT[2], _copilot_shell(tmp_path), None, env, time.perf_counter() - budget + 1)
    _assert_copilot_json_deny(reply.exit_code, reply.stdout, reply.stderr, "gate failed on preToolUse")
    assert reply.answer == "fail-block"
    assert query(env["PASTURE_JOURNAL"])[-1]["answer"] == "fail-block"


def _until(tmp_path: Path) -> str:
    check = tmp_path / "check.py"
    check.write_text("print('1 failed'); exit(1)")
    return f'[[until]]\nname = "tests"\ncommand = [{json.dumps(sys.executable)}, {json.dumps(str(check))}]\n'


@pytest.mark.parametrize(
    "harness,event,version,payload",
    [
        ("opencode", "session.idle", "1.18.33", {"type": "session.idle", "properties": {"sessionID": "ses"}}),
        ("pi", "agent_end", "0.73.1", {"type": "agent_end", "messages": []}),
    ],
)
def test_until_on_a_host_that_cannot_continue_is_named_in_the_journal_and_on_stderr(
    env, tmp_path, harness, event, version, payload
):
    Path(env["PASTURE_POLICY"]).write_text(_until(tmp_path))
    code, out, err = call(harness, event, version, payload, env)
    assert code == 0 and json.loads(out) == {"decision": "proceed"}
    assert "cannot give 'continue'" in err and "[[until]] 'tests'" in err
    steer = query(env["PASTURE_JOURNAL"])[-1]["detail"]["steer"]
    assert steer[0]["kind"] == "continue" and "cannot give 'continue'" in steer[0]["degraded"]
