"""Steering on Copilot CLI 1.0.102, Gemini CLI 0.61.0 and Pi 0.73.1 (issues 17 + 20): exact bytes per host
per answer, in the wire forms the captures of those versions show honoured (captures/<host>@<v>/*), and
nothing a host does not offer (Gemini has no allow; Pi no allow, rewrite or continue)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
from hookrun import call

from pasture.journal.db import query
from pasture.runtime.lifecycle import respond

COPILOT = ("copilot-cli", "1.0.102")
GEMINI = ("gemini-cli", "0.61.0")
PI = ("pi", "0.73.1")
PY = json.dumps(sys.executable)

ISSUE_POLICY = r"""
[[rules]]
name = "read-only"
tool_kind = "shell"
command = "^(ls|cat|git status)\\b"
decision = "allow"

[[rules]]
name = "lease"
tool_kind = "shell"
command = "git\\s+push\\b.*--force\\b(?!-)"
decision = "rewrite"
rewrite = { field = "command", pattern = "--force\\b(?!-)", replace = "--force-with-lease" }
except = ["git.push-force"]  # the git pack (on by default) refuses a force push
"""
TOLD = (
    "pasture rewrote this call (rule 'lease'): command 'git push --force origin main' -> "
    "'git push --force-with-lease origin main'"
)
CONTEXT_POLICY = (
    '[[context]]\nname = "status"\non = "session-start"\ntext = "Start: read CONTRIBUTING."\n'
    '[[context]]\nname = "house"\non = "prompt"\ntext = "Run the tests before you stop."\n'
)


@pytest.fixture
def steer(env, tmp_path):
    project = tmp_path / "project"
    (project / ".pasture").mkdir(parents=True)
    env = dict(env, PASTURE_POLICY=str(tmp_path / "user.toml"))
    return env, project, tmp_path / "user.toml"


def _script(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text(body)
    return f"[{PY}, {json.dumps(str(path))}]"


def _after_policy(tmp_path: Path, body: str) -> str:
    lint = _script(tmp_path, "lint.py", body)
    return (
        f'[[after]]\nname = "ruff"\ntool_kind = ["edit", "write"]\nfile_path = "\\\\.py$"\n'
        f'command = {lint[:-1]}, "{{file_path}}"]\n'
    )


def _until_policy(tmp_path: Path) -> str:
    until = _script(tmp_path, "until.py", "print('2 failed'); exit(1)")
    return f'[[until]]\nname = "tests"\ncommand = {until}\nmax = 2\n'


def _journal(env) -> list[dict]:
    return query(env["PASTURE_JOURNAL"])


# --- payloads as the captures show them ----------------------------------------------------------------


def _copilot_shell(project: Path, command: str) -> dict:
    return {
        "cwd": str(project),
        "sessionId": "s-1",
        "timestamp": 1,
        "toolName": "bash",
        "toolArgs": {"command": command, "description": "d"},
    }


def _gemini_shell(project: Path, command: str) -> dict:
    return {
        "cwd": str(project),
        "hook_event_name": "BeforeTool",
        "session_id": "s-1",
        "tool_name": "run_shell_command",
        "tool_input": {"command": command, "description": "d"},
    }


# --- Copilot CLI 1.0.102 -----------------------------------------------------------------------------


def test_copilot_allow_is_the_permission_decision(steer):
    env, project, policy = steer
    policy.write_text(ISSUE_POLICY)
    assert call(*COPILOT[:1], "preToolUse", COPILOT[1], _copilot_shell(project, "ls -la"), env) == (
        0,
        '{"permissionDecision": "allow", "permissionDecisionReason": "pasture policy rule \'read-only\'"}\n',
        "",
    )
    assert _journal(env)[-1]["answer"] == "allow"
    # no matching rule: still no opinion
    assert call("copilot-cli", "preToolUse", COPILOT[1], _copilot_shell(project, "make"), env) == (0, "", "")


def test_copilot_rewrite_is_modified_args_with_allow(steer):
    env, project, policy = steer
    policy.write_text(ISSUE_POLICY)
    payload = _copilot_shell(project, "git push --force origin main")
    code, out, err = call("copilot-cli", "preToolUse", COPILOT[1], payload, env)
    assert code == 0
    assert out == (
        '{"permissionDecision": "allow", '
        f'"permissionDecisionReason": {json.dumps(TOLD)}, "modifiedArgs": '
        '{"command": "git push --force-with-lease origin main", "description": "d"}}\n'
    )
    assert err == "pasture: " + TOLD.replace("pasture rewrote", "rewrote") + "\n"
    assert _journal(env)[-1]["answer"] == "rewrite"


def test_copilot_rewrite_that_empties_the_command_is_refused_as_its_json_deny(steer):
    env, project, policy = steer
    policy.write_text(
        '[[rules]]\nname = "wipe"\ntool_kind = "shell"\ncommand = "danger"\ndecision = "rewrite"\n'
        'rewrite = { field = "command", pattern = "^.*$", replace = "" }\n'
    )
    code, out, _ = call("copilot-cli", "preToolUse", COPILOT[1], _copilot_shell(project, "danger now"), env)
    decision = json.loads(out)
    assert code == 0 and decision["permissionDecision"] == "deny" and "modifiedArgs" not in decision
    assert "rewriting 'command' left it empty" in decision["permissionDecisionReason"]


def test_copilot_context_on_session_start_and_prompt(steer):
    env, project, policy = steer
    policy.write_text(CONTEXT_POLICY)
    start = {"cwd": str(project), "sessionId": "s", "timestamp": 1, "source": "new"}
    assert call("copilot-cli", "sessionStart", COPILOT[1], start, env) == (
        0,
        '{"additionalContext": "Start: read CONTRIBUTING."}\n',
        "",
    )
    prompt = {"cwd": str(project), "sessionId": "s", "timestamp": 1, "prompt": "hi"}
    assert call("copilot-cli", "userPromptSubmitted", COPILOT[1], prompt, env) == (
        0,
        '{"additionalContext": "Run the tests before you stop."}\n',
        "",
    )
    assert _journal(env)[-1]["answer"] == "context"


def _copilot_edit(project: Path, path: str) -> dict:
    return {
        "cwd": str(project),
        "sessionId": "s",
        "timestamp": 1,
        "toolName": "create",
        "toolArgs": {"path": path, "file_text": ""},
        "toolResult": {"resultType": "success", "textResultForLlm": "ok"},
    }


def test_copilot_after_feedback_is_additional_context_on_post_tool_use(steer, tmp_path):
    env, project, policy = steer
    policy.write_text(_after_policy(tmp_path, "import sys; print('E501 in', sys.argv[1]); sys.exit(1)"))
    code, out, err = call("copilot-cli", "postToolUse", COPILOT[1], _copilot_edit(project, "a.py"), env)
    argv = f"{sys.executable} {tmp_path / 'lint.py'} a.py"
    assert (code, err) == (0, "")
    assert out == json.dumps({"additionalContext": f"[ruff] {argv} exited 1:\nE501 in a.py"}) + "\n"
    assert _journal(env)[-1]["answer"] == "feedback"
    policy.write_text(_after_policy(tmp_path, "pass"))
    assert call("copilot-cli", "postToolUse", COPILOT[1], _copilot_edit(project, "a.py"), env) == (0, "", "")


def test_copilot_until_is_agent_stop_block_and_ends_after_max(steer, tmp_path):
    env, project, policy = steer
    policy.write_text(_until_policy(tmp_path))
    argv = f"{sys.executable} {tmp_path / 'until.py'}"
    for n in (1, 2):
        stop = {"cwd": str(project), "sessionId": "s-u", "timestamp": 1, "stopReason": "end_turn"}
        stop["stop_hook_active"] = n > 1
        reason = f"[tests] {argv} still fails (exit 1; continuation {n} of 2); keep working until it passes:\n2 failed"
        assert call("copilot-cli", "agentStop", COPILOT[1], stop, env) == (
            0,
            json.dumps({"decision": "block", "reason": reason}) + "\n",
            "",
        )
    assert call("copilot-cli", "agentStop", COPILOT[1], stop, env) == (0, "", "")


def test_copilot_odd_bytes_of_feedback_stay_valid_json(steer, tmp_path):
    env, project, policy = steer
    body = "import sys; sys.stdout.buffer.write(b'nul\\x00 esc\\x1b[31m \\xff\\xfe \"q\" ' + b'z' * 20000); exit(1)"
    policy.write_text(_after_policy(tmp_path, body))
    out = call("copilot-cli", "postToolUse", COPILOT[1], _copilot_edit(project, "a.py"), env)[1]
    text = json.loads(out)["additionalContext"]
    assert 'nul? esc?[31m \ufffd\ufffd "q" zzz' in text and "\x00" not in text and "\x1b" not in text
    assert text.endswith("[pasture: output cut at 8192 of 20025 bytes]")


# --- Gemini CLI 0.61.0 -------------------------------------------------------------------------------


def test_gemini_rewrite_is_hook_specific_tool_input(steer):
    env, project, policy = steer
    policy.write_text(ISSUE_POLICY)
    code, out, err = call(
        "gemini-cli", "BeforeTool", GEMINI[1], _gemini_shell(project, "git push --force origin main"), env
    )
    assert (code, out) == (
        0,
        '{"hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": '
        '{"command": "git push --force-with-lease origin main", "description": "d"}}}\n',
    )
    assert err == "pasture: " + TOLD.replace("pasture rewrote", "rewrote") + "\n"
    assert _journal(env)[-1]["answer"] == "rewrite"


def test_gemini_offers_no_allow_so_an_allow_rule_is_no_opinion_and_says_so(steer):
    env, project, policy = steer
    policy.write_text(ISSUE_POLICY)
    code, out, err = call("gemini-cli", "BeforeTool", GEMINI[1], _gemini_shell(project, "ls -la"), env)
    assert (code, out) == (0, "")
    assert err == (
        "pasture: BeforeTool of gemini-cli@0.61.0 cannot give 'allow' (no capture of this host version shows it "
        "honoured); proceeding without it (rule 'read-only': on_unsupported = proceed)\n"
    )
    policy.write_text(ISSUE_POLICY.replace('decision = "allow"', 'decision = "allow"\non_unsupported = "deny"'))
    code, out, _ = call("gemini-cli", "BeforeTool", GEMINI[1], _gemini_shell(project, "ls -la"), env)
    assert code == 0 and json.loads(out)["decision"] == "deny" and "on_unsupported = deny" in json.loads(out)["reason"]


def test_gemini_a_huge_rewrite_is_refused_and_no_tool_input_is_sent(steer):
    env, project, policy = steer
    policy.write_text(
        '[[rules]]\nname = "grow"\ntool_kind = "shell"\ncommand = "x"\ndecision = "rewrite"\n'
        f'rewrite = {{ field = "command", pattern = "x", replace = "{"y" * 5000}" }}\n'
    )
    code, out, _ = call("gemini-cli", "BeforeTool", GEMINI[1], _gemini_shell(project, "x" * 20), env)
    assert code == 0 and json.loads(out)["decision"] == "deny" and "tool_input" not in out
    assert "made it 100000 characters (limit 65536)" in json.loads(out)["reason"]


def test_gemini_context_on_session_start_and_before_agent(steer):
    env, project, policy = steer
    policy.write_text(CONTEXT_POLICY)
    start = {"cwd": str(project), "session_id": "s", "hook_event_name": "SessionStart", "source": "startup"}
    assert call("gemini-cli", "SessionStart", GEMINI[1], start, env) == (
        0,
        '{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "Start: read CONTRIBUTING."}}\n',
        "",
    )
    prompt = {"cwd": str(project), "session_id": "s", "hook_event_name": "BeforeAgent", "prompt": "hi"}
    assert call("gemini-cli", "BeforeAgent", GEMINI[1], prompt, env) == (
        0,
        '{"hookSpecificOutput": {"hookEventName": "BeforeAgent", "additionalContext": '
        '"Run the tests before you stop."}}\n',
        "",
    )


def test_gemini_a_denied_prompt_gets_no_context(steer, tmp_path):
    env, project, policy = steer
    marker = tmp_path / "context-ran"
    ctx = _script(tmp_path, "ctx.py", f"import pathlib; pathlib.Path({str(marker)!r}).write_text('x')")
    policy.write_text(
        f'[[context]]\nname = "c"\non = "prompt"\ncommand = {ctx}\n'
        '[[rules]]\nname = "no"\ndecision = "deny"\nreason = "not this prompt"\nevent = "BeforeAgent"\n'
    )
    prompt = {"cwd": str(project), "session_id": "s", "hook_event_name": "BeforeAgent", "prompt": "hi"}
    code, out, _ = call("gemini-cli", "BeforeAgent", GEMINI[1], prompt, env)
    assert "additionalContext" not in out and not marker.exists()


def _gemini_write(project: Path, path: str) -> dict:
    return {
        "cwd": str(project),
        "session_id": "s",
        "hook_event_name": "AfterTool",
        "tool_name": "write_file",
        "tool_input": {"file_path": path, "content": ""},
        "tool_response": {"llmContent": "ok"},
    }


def test_gemini_after_feedback_is_additional_context_appended_to_the_tool_result(steer, tmp_path):
    env, project, policy = steer
    policy.write_text(_after_policy(tmp_path, "import sys; print('E501 in', sys.argv[1]); sys.exit(1)"))
    code, out, err = call("gemini-cli", "AfterTool", GEMINI[1], _gemini_write(project, "a.py"), env)
    argv = f"{sys.executable} {tmp_path / 'lint.py'} a.py"
    assert (code, err) == (0, "")
    assert out == (
        json.dumps(
            {
                "hookSpecificOutput": {
                    "hookEventName": "AfterTool",
                    "additionalContext": f"[ruff] {argv} exited 1:\nE501 in a.py",
                }
            }
        )
        + "\n"
    )
    policy.write_text(_after_policy(tmp_path, "exit(1)"))
    assert call("gemini-cli", "AfterTool", GEMINI[1], _gemini_write(project, "a.txt"), env) == (0, "", "")


def test_gemini_until_is_after_agent_deny_with_the_reason_and_ends_after_max(steer, tmp_path):
    env, project, policy = steer
    policy.write_text(_until_policy(tmp_path))
    argv = f"{sys.executable} {tmp_path / 'until.py'}"
    stop = {"cwd": str(project), "session_id": "s-u", "hook_event_name": "AfterAgent", "stop_hook_active": False}
    for n in (1, 2):
        reason = f"[tests] {argv} still fails (exit 1; continuation {n} of 2); keep working until it passes:\n2 failed"
        assert call("gemini-cli", "AfterAgent", GEMINI[1], stop, env) == (
            0,
            json.dumps({"decision": "deny", "reason": reason}) + "\n",
            "",
        )
    assert call("gemini-cli", "AfterAgent", GEMINI[1], stop, env) == (0, "", "")
    assert _journal(env)[-1]["detail"]["steer"][0]["stopped"].startswith("reached max = 2")


@pytest.mark.slow  # waits out the deadline; Claude's hanging until (test_steer.py) stays fast
def test_gemini_an_until_that_hangs_ends_at_the_deadline_and_the_agent_may_stop(steer, tmp_path):
    env, project, policy = steer
    finished = tmp_path / "finished"
    body = f"import pathlib, time; time.sleep(60); pathlib.Path({str(finished)!r}).touch()"
    policy.write_text(f'[[until]]\nname = "slow"\ncommand = {_script(tmp_path, "hang.py", body)}\n')
    stop = {"cwd": str(project), "session_id": "s-h", "hook_event_name": "AfterAgent"}
    from pasture.runtime.deadline import deadline_seconds
    from pasture.runtime.tables import resolve

    left = deadline_seconds(resolve(*GEMINI, "AfterAgent").row)
    reply = respond("gemini-cli", "AfterAgent", GEMINI[1], stop, None, env, time.perf_counter() - left + 2)
    # cut (killed) at the deadline, not waited for: the command never reached its last line
    assert not finished.exists() and "killed" in reply.stderr
    # AfterAgent is an observation row (report-and-continue): the agent may stop, and the line says why
    assert (reply.exit_code, reply.stdout) == (0, "")
    assert "was still running at the row's deadline" in reply.stderr
    assert "still running at the row's deadline" in _journal(env)[-1]["failure"]


# --- Pi 0.73.1: the extension reads {"decision": "proceed", "system" | "append_output"} ---------------


def test_pi_context_is_the_system_prompt_text_of_before_agent_start(steer):
    env, project, policy = steer
    policy.write_text(CONTEXT_POLICY)
    payload = {"type": "before_agent_start", "prompt": "hi", "systemPrompt": "You are pi.", "cwd": str(project)}
    assert call("pi", "before_agent_start", PI[1], payload, env) == (
        0,
        '{"decision": "proceed", "system": ["Start: read CONTRIBUTING.", "Run the tests before you stop."]}\n',
        "",
    )
    assert _journal(env)[-1]["answer"] == "context"


def test_pi_after_feedback_is_content_for_tool_result(steer, tmp_path):
    env, project, policy = steer
    policy.write_text(_after_policy(tmp_path, "print('bad'); exit(2)"))
    payload = {
        "type": "tool_result",
        "toolName": "write",
        "toolCallId": "c1",
        "input": {"path": "m.py", "content": ""},
        "content": [{"type": "text", "text": "wrote"}],
        "isError": False,
        "cwd": str(project),
    }
    code, out, _ = call("pi", "tool_result", PI[1], payload, env)
    argv = f"{sys.executable} {tmp_path / 'lint.py'} m.py"
    assert (code, out) == (
        0,
        json.dumps({"decision": "proceed", "append_output": f"[ruff] {argv} exited 2:\nbad"}) + "\n",
    )


def test_pi_offers_no_rewrite_allow_or_continue(steer, tmp_path):
    env, project, policy = steer
    policy.write_text(ISSUE_POLICY + _until_policy(tmp_path))
    call_ = {"type": "tool_call", "toolName": "bash", "toolCallId": "c", "input": {"command": "git push --force x"}}
    code, out, err = call("pi", "tool_call", PI[1], dict(call_, cwd=str(project)), env)
    assert json.loads(out)["decision"] == "deny" and "cannot give 'rewrite'" in json.loads(out)["reason"]
    code, out, err = call("pi", "tool_call", PI[1], dict(call_, input={"command": "ls"}, cwd=str(project)), env)
    assert json.loads(out) == {"decision": "proceed"} and "cannot give 'allow'" in err
    # agent_end: no moment of Pi's is a stop that can continue, so the until never runs there
    code, out, err = call("pi", "agent_end", PI[1], {"type": "agent_end", "messages": [], "cwd": str(project)}, env)
    assert json.loads(out) == {"decision": "proceed"} and "keep working" not in out


def test_pi_serve_awaits_the_observation_rows_that_carry_context_and_feedback_only_when_the_policy_has_them(
    steer, tmp_path
):
    from pasture.runtime.effective import load
    from pasture.runtime.serve import awaited_by, contract_rows

    env, project, policy = steer
    _, rows, _ = contract_rows(*PI)
    policy.write_text(ISSUE_POLICY)
    bare = awaited_by(load(str(project), env), "pi", rows)
    assert "before_agent_start" not in bare and "tool_result" not in bare
    policy.write_text(ISSUE_POLICY + CONTEXT_POLICY + _after_policy(tmp_path, "exit(1)"))
    steered = awaited_by(load(str(project), env), "pi", rows)
    assert {"before_agent_start", "tool_result"} <= set(steered)
    assert [name for name in rows if name in steered] == list(steered)  # catalog order
