"""A policy that steers (issue 17): allow, rewrite, [[context]], [[after]], [[until]], exact bytes per host.

Every answer here is one the row's Row.answers offers (a capture of that host version shows it
honoured); where it does not, the entry degrades by its on_unsupported and says so."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
from hookrun import call

from pasture.journal.db import query
from pasture.runtime import trust
from pasture.runtime.lifecycle import respond
from pasture.runtime.policy import PolicyError, compile_layer

CLAUDE = ("claude-code", "2.1.332")
CODEX = ("codex", "0.171.0")
OPENCODE = ("opencode", "1.18.33")
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


@pytest.fixture
def steer(env, tmp_path):
    """(env, project root, user policy path): a project folder the commands run in."""
    project = tmp_path / "project"
    (project / ".pasture").mkdir(parents=True)
    env = dict(env, PASTURE_POLICY=str(tmp_path / "user.toml"))
    return env, project, tmp_path / "user.toml"


def _script(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text(body)
    return f"[{PY}, {json.dumps(str(path))}]"


def _shell(project: Path, command: str, **extra) -> dict:
    return {
        "session_id": "s-1",
        "cwd": str(project),
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "c-1",
        **extra,
    }


def _journal(env) -> list[dict]:
    return query(env["PASTURE_JOURNAL"])


# --- allow ---------------------------------------------------------------------------------------


def test_claude_allow_is_a_permission_decision_and_permission_request_allow(steer):
    env, project, policy = steer
    policy.write_text(ISSUE_POLICY)
    assert call(*CLAUDE[:1], "PreToolUse", CLAUDE[1], _shell(project, "ls -la"), env) == (
        0,
        '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", '
        '"permissionDecisionReason": "pasture policy rule \'read-only\'"}}\n',
        "",
    )
    assert call("claude-code", "PermissionRequest", CLAUDE[1], _shell(project, "ls -la"), env) == (
        0,
        '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}\n',
        "",
    )
    assert _journal(env)[-1]["answer"] == "allow" and _journal(env)[-1]["decision"] == "allow"


def test_codex_pretooluse_allow_is_not_offered_so_it_is_no_opinion_and_permission_request_allows(steer):
    env, project, policy = steer
    policy.write_text(ISSUE_POLICY)
    code, out, err = call("codex", "PreToolUse", CODEX[1], _shell(project, "ls -la"), env)
    assert (code, out) == (0, "")
    assert err == (
        "pasture: PreToolUse of codex@0.171.0 cannot give 'allow' (no capture of this host version shows it "
        "honoured); proceeding without it (rule 'read-only': on_unsupported = proceed)\n"
    )
    entry = _journal(env)[-1]
    assert entry["detail"]["steer"][0]["degraded"].startswith("PreToolUse of codex@0.171.0 cannot give 'allow'")
    assert call("codex", "PermissionRequest", CODEX[1], _shell(project, "ls -la"), env) == (
        0,
        '{"hookSpecificOutput": {"hookEventName": "PermissionRequest", "decision": {"behavior": "allow"}}}\n',
        "",
    )


def test_allow_with_on_unsupported_deny_refuses_where_the_host_cannot_allow(steer):
    env, project, policy = steer
    policy.write_text(ISSUE_POLICY.replace('decision = "allow"', 'decision = "allow"\non_unsupported = "deny"'))
    code, out, _ = call("codex", "PreToolUse", CODEX[1], _shell(project, "ls -la"), env)
    decision = json.loads(out)["hookSpecificOutput"]
    assert code == 0 and decision["permissionDecision"] == "deny"
    assert "on_unsupported = deny" in decision["permissionDecisionReason"]


def test_no_matching_rule_is_still_no_opinion(steer):
    env, project, policy = steer
    policy.write_text(ISSUE_POLICY)
    for harness, version in (CLAUDE, CODEX):
        for event in ("PreToolUse", "PermissionRequest"):
            assert call(harness, event, version, _shell(project, "make build"), env) == (0, "", "")


# --- rewrite -------------------------------------------------------------------------------------

REWRITTEN = {"command": "git push --force-with-lease origin main"}
TOLD = (
    "pasture rewrote this call (rule 'lease'): command 'git push --force origin main' -> "
    "'git push --force-with-lease origin main'"
)


@pytest.mark.parametrize("host", [CLAUDE, CODEX], ids=["claude-code", "codex"])
def test_rewrite_is_updated_input_with_allow_and_says_what_it_became(steer, host):
    env, project, policy = steer
    policy.write_text(ISSUE_POLICY)
    code, out, err = call(host[0], "PreToolUse", host[1], _shell(project, "git push --force origin main"), env)
    assert code == 0
    assert out == (
        '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", '
        f'"permissionDecisionReason": {json.dumps(TOLD)}, "updatedInput": {json.dumps(REWRITTEN)}}}}}\n'
    )
    assert err == "pasture: " + TOLD.replace("pasture rewrote", "rewrote") + "\n"
    entry = _journal(env)[-1]
    assert entry["answer"] == "rewrite" and entry["decision"] == "rewrite"
    assert entry["detail"]["steer"] == [
        {
            "kind": "rewrite",
            "name": "lease",
            "field": "command",
            "before": "git push --force origin main",
            "after": "git push --force-with-lease origin main",
        }
    ]
    # --force-with-lease itself is left alone: the rule does not match it
    assert call(host[0], "PreToolUse", host[1], _shell(project, REWRITTEN["command"]), env)[1] == ""


def test_opencode_rewrite_sets_the_argument_in_place(steer):
    env, project, policy = steer
    policy.write_text(ISSUE_POLICY)
    payload = {
        "input": {"tool": "bash", "sessionID": "ses", "callID": "c1"},
        "output": {"args": {"command": "git push --force origin main", "description": "push"}},
    }
    code, out, _ = call("opencode", "tool.execute.before", OPENCODE[1], payload, env)
    assert code == 0
    assert json.loads(out) == {
        "decision": "proceed",
        "set_args": {"command": "git push --force-with-lease origin main", "description": "push"},
        "reason": TOLD,
    }


def test_a_rewrite_that_leaves_the_command_empty_is_refused(steer):
    env, project, policy = steer
    policy.write_text(
        '[[rules]]\nname = "wipe"\ntool_kind = "shell"\ncommand = "danger"\ndecision = "rewrite"\n'
        'rewrite = { field = "command", pattern = "^.*$", replace = "" }\n'
    )
    for host in (CLAUDE, CODEX):
        code, out, _ = call(host[0], "PreToolUse", host[1], _shell(project, "danger now"), env)
        decision = json.loads(out)["hookSpecificOutput"]
        assert code == 0 and decision["permissionDecision"] == "deny"
        assert "rewriting 'command' left it empty" in decision["permissionDecisionReason"]


def test_a_rewrite_that_makes_the_command_huge_is_refused(steer):
    env, project, policy = steer
    policy.write_text(
        '[[rules]]\nname = "grow"\ntool_kind = "shell"\ncommand = "x"\ndecision = "rewrite"\n'
        f'rewrite = {{ field = "command", pattern = "x", replace = "{"y" * 5000}" }}\n'
    )
    code, out, _ = call("claude-code", "PreToolUse", CLAUDE[1], _shell(project, "x" * 20), env)
    reason = json.loads(out)["hookSpecificOutput"]["permissionDecisionReason"]
    assert "made it 100000 characters (limit 65536)" in reason and len(out) < 1000


def test_a_rewrite_a_row_cannot_give_is_refused_by_default_and_proceeds_when_asked(steer):
    env, project, policy = steer
    policy.write_text(ISSUE_POLICY)
    # Codex's PermissionRequest offers no rewrite, and no refusal either: proceed, said on stderr
    code, out, err = call("codex", "PermissionRequest", CODEX[1], _shell(project, "git push --force x"), env)
    assert (code, out) == (0, "") and "cannot give 'rewrite'" in err and "on_unsupported = deny" in err
    # Claude 2.1.261 offers no rewrite on PreToolUse (no capture of that version): refused
    code, out, _ = call("claude-code", "PreToolUse", "2.1.261", _shell(project, "git push --force x"), env)
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny"
    policy.write_text(ISSUE_POLICY.replace('decision = "rewrite"', 'decision = "rewrite"\non_unsupported = "proceed"'))
    code, out, err = call("claude-code", "PreToolUse", "2.1.261", _shell(project, "git push --force x"), env)
    assert (code, out) == (0, "") and "on_unsupported = proceed" in err


# --- precedence ----------------------------------------------------------------------------------


def test_deny_anywhere_beats_allow_and_rewrite_ask_beats_rewrite_rewrite_beats_allow(steer, tmp_path):
    env, project, policy = steer
    managed = Path(env["PASTURE_MANAGED_POLICY"])
    managed.write_text(ISSUE_POLICY)
    policy.write_text('[[rules]]\nname = "no-push"\ndecision = "deny"\nreason = "no pushing"\ncommand = "push"\n')
    code, out, _ = call("claude-code", "PreToolUse", CLAUDE[1], _shell(project, "git push --force x"), env)
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny"
    policy.write_text('[[rules]]\nname = "ask-push"\ndecision = "ask"\ncommand = "push"\n')
    code, out, _ = call("claude-code", "PreToolUse", CLAUDE[1], _shell(project, "git push --force x"), env)
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "ask"
    policy.write_text('[[rules]]\nname = "ok-git"\ndecision = "allow"\ncommand = "^git"\n')
    code, out, _ = call("claude-code", "PreToolUse", CLAUDE[1], _shell(project, "git push --force x"), env)
    assert json.loads(out)["hookSpecificOutput"]["updatedInput"] == {"command": "git push --force-with-lease x"}
    # a user allow over the managed layer's silence: allow
    code, out, _ = call("claude-code", "PreToolUse", CLAUDE[1], _shell(project, "git log"), env)
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "allow"


def test_a_deny_at_stop_wins_over_until_which_then_never_runs(steer, tmp_path):
    env, project, policy = steer
    marker = tmp_path / "until-ran"
    until = _script(tmp_path, "until.py", f"import pathlib; pathlib.Path({str(marker)!r}).write_text('x'); exit(1)")
    policy.write_text(
        f'[[until]]\nname = "tests"\ncommand = {until}\n'
        '[[rules]]\nname = "red"\ndecision = "deny"\nreason = "tests are red"\nevent = "Stop"\n'
    )
    out = call("claude-code", "Stop", CLAUDE[1], {"session_id": "s", "cwd": str(project)}, env)[1]
    assert json.loads(out) == {"decision": "block", "reason": "tests are red"} and not marker.exists()


# --- context -------------------------------------------------------------------------------------


@pytest.mark.parametrize("host", [CLAUDE, CODEX], ids=["claude-code", "codex"])
def test_context_on_session_start_and_prompt(steer, tmp_path, host):
    env, project, policy = steer
    status = _script(tmp_path, "status.py", "import os; print('cwd=' + os.getcwd())")
    policy.write_text(
        f'[[context]]\nname = "status"\non = "session-start"\ncommand = {status}\n'
        '[[context]]\nname = "house"\non = "prompt"\ntext = "Run the tests before you stop."\n'
    )
    start = {"session_id": "s", "cwd": str(project), "source": "startup"}
    assert call(host[0], "SessionStart", host[1], start, env) == (
        0,
        '{"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": '
        f"{json.dumps('cwd=' + str(project))}}}}}\n",
        "",
    )
    entry = _journal(env)[-1]
    assert entry["answer"] == "context"
    assert entry["detail"]["steer"] == [
        {
            "kind": "context",
            "name": "status",
            "layer": "user",
            "command": [sys.executable, str(tmp_path / "status.py")],
            "exit": 0,
            "bytes_sent": len(f"cwd={project}"),
        }
    ]
    prompt = {"session_id": "s", "cwd": str(project), "prompt": "hi"}
    assert call(host[0], "UserPromptSubmit", host[1], prompt, env) == (
        0,
        '{"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": '
        '"Run the tests before you stop."}}\n',
        "",
    )


def test_opencode_context_goes_into_the_system_prompt(steer):
    env, project, policy = steer
    policy.write_text('[[context]]\nname = "house"\non = "prompt"\ntext = "Be brief."\n')
    payload = {"input": {"sessionID": "ses"}, "output": {"system": []}, "cwd": str(project)}
    code, out, _ = call("opencode", "experimental.chat.system.transform", OPENCODE[1], payload, env)
    assert (code, json.loads(out)) == (0, {"decision": "proceed", "system": ["Be brief."]})


def test_a_denied_prompt_gets_no_context(steer, tmp_path):
    env, project, policy = steer
    marker = tmp_path / "context-ran"
    ctx = _script(tmp_path, "ctx.py", f"import pathlib; pathlib.Path({str(marker)!r}).write_text('x')")
    policy.write_text(
        f'[[context]]\nname = "c"\non = "prompt"\ncommand = {ctx}\n'
        '[[rules]]\nname = "no"\ndecision = "deny"\nreason = "not this prompt"\nevent = "UserPromptSubmit"\n'
    )
    out = call("claude-code", "UserPromptSubmit", CLAUDE[1], {"session_id": "s", "cwd": str(project)}, env)[1]
    assert json.loads(out) == {"decision": "block", "reason": "not this prompt"} and not marker.exists()


# --- after ---------------------------------------------------------------------------------------


def _after_policy(tmp_path: Path, body: str) -> str:
    lint = _script(tmp_path, "lint.py", body)
    return (
        f'[[after]]\nname = "ruff"\ntool_kind = ["edit", "write"]\nfile_path = "\\\\.py$"\n'
        f'command = {lint[:-1]}, "{{file_path}}"]\n'
    )


def _write(project: Path, path: str) -> dict:
    return {
        "session_id": "s",
        "cwd": str(project),
        "tool_name": "Write",
        "tool_input": {"file_path": path, "content": ""},
        "tool_response": {},
        "tool_use_id": "c",
    }


@pytest.mark.parametrize("host", [CLAUDE, CODEX], ids=["claude-code", "codex"])
def test_after_feedback_is_decision_block_with_the_failing_output(steer, tmp_path, host):
    env, project, policy = steer
    policy.write_text(_after_policy(tmp_path, "import sys; print('E501 in', sys.argv[1]); sys.exit(1)"))
    code, out, err = call(host[0], "PostToolUse", host[1], _write(project, "a.py"), env)
    argv = f"{sys.executable} {tmp_path / 'lint.py'} a.py"
    assert (code, err) == (0, "")
    assert json.loads(out) == {"decision": "block", "reason": f"[ruff] {argv} exited 1:\nE501 in a.py"}
    steer_rec = _journal(env)[-1]["detail"]["steer"][0]
    assert steer_rec["kind"] == "after" and steer_rec["exit"] == 1 and steer_rec["bytes_sent"] > 0
    # a clean run, a file the regex does not take, another tool kind: no feedback
    policy.write_text(_after_policy(tmp_path, "pass"))
    assert call(host[0], "PostToolUse", host[1], _write(project, "a.py"), env)[:2] == (0, "")
    policy.write_text(_after_policy(tmp_path, "exit(1)"))
    assert call(host[0], "PostToolUse", host[1], _write(project, "a.txt"), env)[:2] == (0, "")


def test_opencode_after_feedback_appends_to_the_tool_output(steer, tmp_path):
    env, project, policy = steer
    policy.write_text(_after_policy(tmp_path, "print('bad'); exit(2)"))
    payload = {
        "input": {"tool": "write", "sessionID": "ses", "callID": "c1", "args": {"filePath": "m.py"}},
        "output": {"output": "wrote", "title": "", "metadata": {}},
        "cwd": str(project),
    }
    code, out, _ = call("opencode", "tool.execute.after", OPENCODE[1], payload, env)
    argv = f"{sys.executable} {tmp_path / 'lint.py'} m.py"
    assert (code, json.loads(out)) == (0, {"decision": "proceed", "append_output": f"[ruff] {argv} exited 2:\nbad"})


def test_after_output_with_odd_bytes_is_sanitized_and_capped(steer, tmp_path):
    env, project, policy = steer
    body = (
        "import sys; out = sys.stdout.buffer; "
        "out.write(b'nul\\x00 esc\\x1b[31m bad\\xff\\xfe utf8 \\xc3\\xa9 ' + b'z' * 20000); sys.exit(1)"
    )
    policy.write_text(_after_policy(tmp_path, body))
    out = call("claude-code", "PostToolUse", CLAUDE[1], _write(project, "a.py"), env)[1]
    reason = json.loads(out)["reason"]
    assert "nul? esc?[31m bad\ufffd\ufffd utf8 \u00e9 zzz" in reason
    assert "\x00" not in reason and "\x1b" not in reason
    assert reason.endswith("[pasture: output cut at 8192 of 20032 bytes]")
    assert len(reason.encode()) < 8192 + 400


def test_a_file_path_that_looks_like_an_option_stays_a_path(steer, tmp_path):
    env, project, policy = steer
    policy.write_text(_after_policy(tmp_path, "import sys; print(sys.argv[1:]); exit(1)"))
    out = call("claude-code", "PostToolUse", CLAUDE[1], _write(project, "--fix.py"), env)[1]
    assert "['./--fix.py']" in json.loads(out)["reason"]


# --- until ---------------------------------------------------------------------------------------


def _stop(project: Path, active: bool, session: str = "s-until") -> dict:
    return {"session_id": session, "turn_id": "t", "cwd": str(project), "stop_hook_active": active}


@pytest.mark.parametrize("host", [CLAUDE, CODEX], ids=["claude-code", "codex"])
def test_until_continues_while_the_check_fails_and_stops_after_max(steer, tmp_path, host):
    env, project, policy = steer
    until = _script(tmp_path, "until.py", "print('2 failed'); exit(1)")
    policy.write_text(f'[[until]]\nname = "tests"\ncommand = {until}\nmax = 2\n')
    argv = f"{sys.executable} {tmp_path / 'until.py'}"
    for n in (1, 2):
        code, out, err = call(host[0], "Stop", host[1], _stop(project, n > 1), env)
        assert (code, err) == (0, "")
        assert json.loads(out) == {
            "decision": "block",
            "reason": f"[tests] {argv} still fails (exit 1; continuation {n} of 2); keep working until it passes:"
            "\n2 failed",
        }
    assert call(host[0], "Stop", host[1], _stop(project, True), env) == (0, "", "")
    last = _journal(env)[-1]["detail"]["steer"][0]
    assert last["stopped"] == "reached max = 2 continuations in this session: the agent may stop"
    # another session has its own count; the counter is outside the repository
    assert json.loads(call(host[0], "Stop", host[1], _stop(project, False, "s-other"), env)[1])["decision"] == "block"
    assert not list(project.rglob("*until*")) and list((tmp_path / "state" / "until").iterdir())


def test_until_that_passes_lets_the_agent_stop(steer, tmp_path):
    env, project, policy = steer
    policy.write_text(f'[[until]]\nname = "tests"\ncommand = {_script(tmp_path, "ok.py", "pass")}\n')
    assert call("claude-code", "Stop", CLAUDE[1], _stop(project, False), env) == (0, "", "")
    assert _journal(env)[-1]["detail"]["steer"][0]["exit"] == 0


def test_an_until_command_that_hangs_ends_at_the_deadline_in_the_rows_failure_mode(steer, tmp_path):
    env, project, policy = steer
    finished = tmp_path / "finished"
    body = f"import pathlib, time; time.sleep(60); pathlib.Path({str(finished)!r}).touch()"
    hang = _script(tmp_path, "hang.py", body)
    policy.write_text(f'[[until]]\nname = "slow"\ncommand = {hang}\n')
    # the Stop row's deadline is 54 s after `started`: start the clock 52 s ago so 2 s are left
    reply = respond(
        "claude-code",
        "Stop",
        CLAUDE[1],
        _stop(project, False),
        None,
        env,
        time.perf_counter() - 52,
    )
    # the command was cut (killed), not waited for: it never got to its last line (no wall time is
    # asserted, so a busy machine cannot fail this)
    assert not finished.exists() and "killed" in json.loads(reply.stdout)["reason"]
    # Claude's Stop: exit-2-blocks, answered as its JSON block (the reason is our line)
    assert reply.exit_code == 0 and reply.answer == "fail-block"
    assert json.loads(reply.stdout)["decision"] == "block" and "still running" in json.loads(reply.stdout)["reason"]
    assert "was still running at the row's deadline" in reply.stderr
    entry = _journal(env)[-1]
    assert "still running at the row's deadline" in entry["failure"]
    # the hung check spent a continuation: the bound holds for a check that never answers
    (counter,) = (Path(env["PASTURE_TRUST_STORE"]).parent / "until").iterdir()
    assert json.loads(counter.read_text()) == {"user:slow": 1}


def test_until_on_a_host_without_continue_degrades_and_says_so(steer, tmp_path):
    env, project, policy = steer
    policy.write_text(f'[[until]]\nname = "tests"\ncommand = {_script(tmp_path, "bad.py", "exit(1)")}\n')
    # claude-code 2.1.261 has no capture of a stop continuation: proceed, named on stderr
    code, out, err = call("claude-code", "Stop", "2.1.261", _stop(project, False), env)
    assert (code, out) == (0, "") and "cannot give 'continue'" in err


# --- trust ---------------------------------------------------------------------------------------


def test_an_untrusted_project_layer_keeps_deny_and_ask_and_loses_every_steer(steer, tmp_path):
    env, project, policy = steer
    marker = tmp_path / "ran"
    run = _script(tmp_path, "mark.py", f"import pathlib; pathlib.Path({str(marker)!r}).write_text('x'); exit(1)")
    layer = project / ".pasture" / "policy.toml"
    layer.write_text(
        ISSUE_POLICY
        + f'[[context]]\nname = "c"\non = "session-start"\ncommand = {run}\n'
        + f'[[after]]\nname = "a"\ncommand = {run}\n'
        + f'[[until]]\nname = "u"\ncommand = {run}\n'
        + '[[rules]]\nname = "no-rm"\ndecision = "deny"\nreason = "no rm"\ncommand = "^rm"\n'
    )
    code, out, err = call("claude-code", "PreToolUse", CLAUDE[1], _shell(project, "ls"), env)
    assert (code, out) == (0, "")
    assert "is not trusted: ignored rule 'read-only' (allow, " in err
    assert "rule 'lease' (rewrite, " in err and "[[context]] 'c'" in err and "[[after]] 'a'" in err
    assert "[[until]] 'u'" in err and f"{layer}:" in err
    out = call("claude-code", "PreToolUse", CLAUDE[1], _shell(project, "rm -rf x"), env)[1]
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny"
    for event, payload in (
        ("SessionStart", {"session_id": "s", "cwd": str(project)}),
        ("PostToolUse", _write(project, "a.py")),
        ("Stop", _stop(project, False)),
    ):
        assert call("claude-code", event, CLAUDE[1], payload, env)[1] == ""
    assert not marker.exists()
    trust.trust(str(layer), env)
    out = call("claude-code", "PreToolUse", CLAUDE[1], _shell(project, "ls"), env)[1]
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "allow"


# --- the policy's own errors -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '[[rules]]\nname = "r"\ndecision = "approve"\n',
            "p.toml:1: rule 'r' (rules[0]): decision 'approve' is not one of proceed, deny, ask, allow, rewrite",
        ),
        (
            '[[rules]]\nname = "r"\ndecision = "rewrite"\n',
            "p.toml:1: rule 'r' (rules[0]): decision \"rewrite\" needs rewrite =",
        ),
        (
            '\n[[rules]]\nname = "r"\ndecision = "rewrite"\nrewrite = { field = "command", pattern = "x" }\n',
            "p.toml:2: rule 'r' (rules[0]): rewrite has missing key(s) replace",
        ),
        (
            '[[rules]]\nname = "r"\ndecision = "deny"\nrewrite = { field = "c", pattern = "x", replace = "" }\n',
            "p.toml:1: rule 'r' (rules[0]): 'rewrite' needs decision = \"rewrite\"",
        ),
        (
            '[[rules]]\nname = "r"\ndecision = "allow"\non_unsupported = "warn"\n',
            "p.toml:1: rule 'r' (rules[0]): on_unsupported 'warn' is not one of deny, proceed",
        ),
        (
            '# c\n[[context]]\nname = "c"\non = "startup"\ntext = "x"\n',
            "p.toml:2: [[context]] 'c': on 'startup' is not one of session-start, prompt, after-tool",
        ),
        (
            '[[context]]\nname = "c"\non = "prompt"\ntext = "x"\ncommand = ["a"]\n',
            "p.toml:1: [[context]] 'c': give exactly one of command",
        ),
        (
            '[[after]]\nname = "a"\ncommand = "ruff check {file_path}"\n',
            "p.toml:1: [[after]] 'a': command must be an argv list",
        ),
        (
            '[[after]]\nname = "a"\ncommand = ["ruff", "--config={file_path}"]\n',
            "p.toml:1: [[after]] 'a': command item '--config={file_path}' splices {file_path} into other text",
        ),
        (
            '[[until]]\nname = "u"\ncommand = ["pytest"]\n\n[[until]]\nname = "v"\ncommand = ["x"]\nmax = 0\n',
            "p.toml:5: [[until]] 'v': max must be a whole number of continuations from 1 to 100",
        ),
        (
            '[[until]]\nname = "u"\ncommand = ["pytest", "{file_path}"]\n',
            "p.toml:1: [[until]] 'u': command item '{file_path}': {file_path} is filled only in [[after]] commands",
        ),
        (
            '[[after]]\nname = "a"\ncommand = ["x"]\nwhen = 1\n',
            "p.toml:1: [[after]] 'a': unknown key(s) when; allowed:",
        ),
    ],
)
def test_policy_errors_name_file_line_and_the_allowed_members(text, message):
    with pytest.raises(PolicyError) as caught:
        compile_layer("user", "p.toml", text.encode(), "/", True)
    assert str(caught.value).startswith(message), str(caught.value)


def test_the_issue_policy_compiles_as_written():
    text = ISSUE_POLICY + (
        '[[context]]\nname = "status"\non = "session-start"\ncommand = ["git", "status", "--short"]\n'
        '[[after]]\nname = "ruff"\ntool_kind = ["edit", "write"]\nfile_path = "\\\\.py$"\n'
        'command = ["ruff", "check", "{file_path}"]\n'
        '[[until]]\nname = "tests"\ncommand = ["pytest", "-q"]\nmax = 3\n'
    )
    layer = compile_layer("user", "p.toml", text.encode(), "/", True)
    assert [r["decision"] for r in layer["rules"]] == ["allow", "rewrite"]
    assert layer["rules"][1]["rewrite"]["replace"] == "--force-with-lease"
    assert layer["rules"][1]["on_unsupported"] == "deny" and layer["rules"][0]["on_unsupported"] == "proceed"
    assert layer["context"][0]["on"] == "session-start" and layer["after"][0]["command"][-1] == "{file_path}"
    assert layer["until"][0]["max"] == 3 and layer["until"][0]["line"] > layer["after"][0]["line"]


def test_rewrites_of_several_layers_apply_in_layer_order_and_replace_is_literal(steer):
    env, project, policy = steer
    Path(env["PASTURE_MANAGED_POLICY"]).write_text(
        '[[rules]]\nname = "m"\ndecision = "rewrite"\ncommand = "a"\n'
        'rewrite = { field = "command", pattern = "(a)", replace = "b\\\\1" }\n'
    )
    policy.write_text(
        '[[rules]]\nname = "u"\ndecision = "rewrite"\ncommand = "a"\n'
        'rewrite = { field = "command", pattern = "b", replace = "c" }\n'
    )
    out = call("claude-code", "PreToolUse", CLAUDE[1], _shell(project, "echo a"), env)[1]
    assert json.loads(out)["hookSpecificOutput"]["updatedInput"] == {"command": "echo c\\1"}
    steps = [(s["name"], s["before"], s["after"]) for s in _journal(env)[-1]["detail"]["steer"]]
    assert steps == [("m", "echo a", "echo b\\1"), ("u", "echo b\\1", "echo c\\1")]


def test_pasture_journal_shows_what_steered(steer, tmp_path, monkeypatch):
    from click.testing import CliRunner

    from pasture.cli import main

    env, project, policy = steer
    policy.write_text(ISSUE_POLICY + _after_policy(tmp_path, "print('bad'); exit(1)"))
    call("claude-code", "PreToolUse", CLAUDE[1], _shell(project, "git push --force origin main"), env)
    call("claude-code", "PostToolUse", CLAUDE[1], _write(project, "a.py"), env)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    result = CliRunner().invoke(main, ["journal", "--root", str(project)])
    assert result.exit_code == 0, result.output
    rewrite_line, after_line = result.output.splitlines()[-2:]
    assert rewrite_line.endswith(
        "steer: rewrite lease: command 'git push --force origin main' -> 'git push --force-with-lease origin main'"
    )
    argv = f"{sys.executable} {tmp_path / 'lint.py'} a.py"
    sent = len(f"[ruff] {argv} exited 1:\nbad".encode())
    assert after_line.endswith(f"steer: after ruff: {argv} exit=1 sent={sent}B")


PROBE = r"""
import json, sys
before = set(sys.modules)
from pasture.runtime.main import main
code = main(["hook", "lifecycle", *sys.argv[2:]])
with open(OUT, "w") as fh:
    json.dump({"code": code, "added": sorted(set(sys.modules) - before)}, fh)
"""


def _added(env, tmp_path, event: str, payload: dict) -> list[str]:
    import subprocess

    out = tmp_path / "modules.json"
    argv = [sys.executable, "-c", PROBE.replace("OUT", repr(str(out))), "--", "--harness", "claude-code"]
    argv += ["--event", event, "--host-version", CLAUDE[1]]
    done = subprocess.run(argv, input=json.dumps(payload).encode(), capture_output=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    return json.loads(out.read_text())["added"]


def test_events_without_entries_of_their_own_pay_nothing_for_steering(steer, tmp_path):
    env, project, policy = steer
    policy.write_text(ISSUE_POLICY + _after_policy(tmp_path, "exit(1)") + '[[until]]\nname = "t"\ncommand = ["x"]\n')
    # a PreToolUse no rule matches, and an allow: neither imports steer nor subprocess
    for command in ("make", "ls -la"):
        added = _added(env, tmp_path, "PreToolUse", _shell(project, command))
        assert "pasture.runtime.steer" not in added and "subprocess" not in added, added
    # the event that has an entry does (the control: the probe would see it)
    added = _added(env, tmp_path, "PostToolUse", _write(project, "a.py"))
    assert "pasture.runtime.steer" in added and "subprocess" in added


def test_a_degradation_on_an_observation_row_is_said_on_stderr_and_in_the_journal(steer):
    env, project, policy = steer
    policy.write_text('[[context]]\nname = "c"\non = "session-start"\ntext = "hello"\n')
    # Claude Code 2.1.261 has no capture of SessionStart context: proceed, and say so
    code, out, err = call("claude-code", "SessionStart", "2.1.261", {"session_id": "s", "cwd": str(project)}, env)
    assert (code, out) == (0, "")
    assert err == (
        "pasture: SessionStart of claude-code@2.1.261 cannot give 'context' (no capture of this host version "
        "shows it honoured); proceeding without it ([[context]] 'c': on_unsupported = proceed)\n"
    )
    entry = _journal(env)[-1]
    assert entry["detail"]["notes"] == [err[len("pasture: ") : -1]]
    assert entry["detail"]["steer"][-1]["degraded"].startswith("SessionStart of claude-code@2.1.261")


def test_a_host_whose_runtime_speaks_no_steering_offers_nothing_whatever_its_captures_show(steer, monkeypatch):
    """Gemini CLI's BeforeTool has a rewrite captured as honoured (Row.answers); were its hostwire module
    to encode no steering (STEERS empty), a rewrite rule there is refused (on_unsupported = deny), never a
    silent proceed."""
    from pasture.runtime.answer import offers
    from pasture.runtime.hostwire import gemini_cli
    from pasture.runtime.tables import resolve

    row = resolve("gemini-cli", "0.61.0", "BeforeTool").row
    assert offers(row, "gemini-cli") == {"rewrite": "hookSpecificOutput.tool_input"}
    monkeypatch.setattr(gemini_cli, "STEERS", ())
    assert "rewrite" in offers(row) and offers(row, "gemini-cli") == {}
    env, project, policy = steer
    policy.write_text(ISSUE_POLICY)
    payload = {
        "session_id": "s",
        "cwd": str(project),
        "hook_event_name": "BeforeTool",
        "tool_name": "run_shell_command",
        "tool_input": {"command": "git push --force x"},
    }
    code, out, err = call("gemini-cli", "BeforeTool", "0.61.0", payload, env)
    assert "cannot give 'rewrite'" in out + err and "on_unsupported = deny" in out + err
    assert "updatedInput" not in out and "tool_input" not in out
