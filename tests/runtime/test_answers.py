"""Native answers per host and event, and a deny only where the row can carry it."""

from __future__ import annotations

import json

import pytest
from hookrun import call

from pasture.journal.db import query

CLAUDE = ("claude-code", "2.1.328")
CODEX = ("codex", "0.171.0")
OPENCODE1 = ("opencode", "1.18.33")

SHELL_PROBE = {
    "session_id": "s-1",
    "turn_id": "t-1",
    "cwd": "/",
    "tool_name": "Bash",
    "tool_input": {"command": "echo x > probe.txt"},
    "tool_use_id": "call-1",
}


def test_claude_pretooluse_deny_is_a_permission_decision(env):
    code, out, err = call(*CLAUDE[:1], "PreToolUse", CLAUDE[1], SHELL_PROBE, env)
    assert code == 0 and err == ""
    assert json.loads(out) == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": "probe files are off limits",
        }
    }


def test_claude_pretooluse_ask(env):
    payload = dict(SHELL_PROBE, tool_input={"command": "curl example.invalid"})
    code, out, _ = call("claude-code", "PreToolUse", "2.1.328", payload, env)
    assert code == 0
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "ask"


def test_codex_pretooluse_deny_and_no_ask(env):
    code, out, _ = call(*CODEX[:1], "PreToolUse", CODEX[1], SHELL_PROBE, env)
    assert code == 0
    assert json.loads(out)["hookSpecificOutput"] == {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "probe files are off limits",
    }
    # Codex rejects permissionDecision "ask": an ask rule refuses instead of silently allowing.
    payload = dict(SHELL_PROBE, tool_input={"command": "curl example.invalid"})
    code, out, _ = call("codex", "PreToolUse", "0.171.0", payload, env)
    decision = json.loads(out)["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny"
    assert "needs confirmation" in decision["permissionDecisionReason"]


def test_opencode_decision_protocol(env):
    payload = {
        "input": {"tool": "bash", "sessionID": "ses", "callID": "c1"},
        "output": {"args": {"command": "echo > probe.txt"}},
    }
    code, out, _ = call("opencode", "tool.execute.before", "1.18.33", payload, env)
    assert (code, json.loads(out)) == (0, {"decision": "deny", "reason": "probe files are off limits"})
    payload["output"]["args"]["command"] = "ls"
    code, out, _ = call("opencode", "tool.execute.before", "1.18.33", payload, env)
    assert (code, json.loads(out)) == (0, {"decision": "proceed"})


def test_stop_block_uses_decision_block(env, tmp_path):
    (tmp_path / "policy.toml").write_text(
        '[[rules]]\nname = "keep-going"\ndecision = "deny"\nreason = "tests are still red"\nevent = "Stop"\n'
    )
    for harness, version in (CLAUDE, CODEX):
        code, out, _ = call(
            harness, "Stop", version, {"session_id": "s", "turn_id": "t", "stop_hook_active": False}, env
        )
        assert (code, json.loads(out)) == (0, {"decision": "block", "reason": "tests are still red"})


def test_stop_loop_never_blocks_a_stop_an_earlier_block_triggered(env, tmp_path):
    (tmp_path / "policy.toml").write_text(
        '[[rules]]\nname = "keep-going"\ndecision = "deny"\nreason = "tests are still red"\nevent = "Stop"\n'
    )
    for harness, version in (CLAUDE, CODEX):
        code, out, _ = call(
            harness, "Stop", version, {"session_id": "s", "turn_id": "t", "stop_hook_active": True}, env
        )
        assert (code, out) == (0, "")
    last = query(tmp_path / "journal.sqlite3")[-1]
    assert last["decision"] == "proceed" and "not consulted again" in last["reason"]


def test_deny_without_an_evidenced_channel_proceeds_with_a_note(env, tmp_path):
    # Claude PermissionRequest declares exit-2-blocks but cites nothing: it must never refuse.
    (tmp_path / "policy.toml").write_text('[[rules]]\nname = "all"\ndecision = "deny"\nreason = "no"\n')
    code, out, err = call("claude-code", "PermissionRequest", "2.1.328", {"session_id": "s", "request_id": "r"}, env)
    assert (code, out) == (0, "")
    assert "no evidenced pre-action refusal channel" in err
    assert query(tmp_path / "journal.sqlite3")[-1]["answer"] == "proceed"


@pytest.mark.parametrize(
    "harness,event,version",
    [
        ("claude-code", "PostToolUse", "2.1.328"),
        ("codex", "SessionStart", "0.171.0"),
        ("opencode", "session.idle", "1.18.33"),
        ("claude-code", "ElicitationResult", "2.1.328"),
    ],
)
def test_observation_and_human_rows_never_consult_the_gate(env, tmp_path, harness, event, version):
    (tmp_path / "policy.toml").write_text('[gate]\nkind = "command"\ncommand = ["false"]\n')
    code, out, err = call(
        harness, event, version, {"session_id": "s", "input": {"properties": {"sessionID": "s"}}}, env
    )
    assert code == 0 and err == ""
    assert out == ('{"decision": "proceed"}\n' if harness == "opencode" else "")
    row = query(tmp_path / "journal.sqlite3")[-1]
    assert row["gate"] is None and row["decision"] == "observe"


def test_identities_and_envelope_are_journaled(env, tmp_path):
    call("codex", "PreToolUse", "0.171.0", dict(SHELL_PROBE, tool_input={"command": "ls"}), env)
    entry = query(tmp_path / "journal.sqlite3", session="s-1")[-1]
    envelope = entry["envelope"]
    assert envelope["identities"] == {"session": "s-1", "turn": "t-1", "tool-call": "call-1"}
    assert envelope["contract"] == "codex@0.171.0" and envelope["tool_kind"] == "shell"
    assert envelope["command"] == "ls" and entry["decision"] == "proceed" and entry["gate"] == "rules:default"


def test_missing_required_identity_is_unresolved_not_a_crash(env, tmp_path):
    code, _, _ = call("claude-code", "PostToolUse", "2.1.328", {"tool_name": "Bash"}, env)
    assert code == 0
    envelope = query(tmp_path / "journal.sqlite3")[-1]["envelope"]
    assert envelope["unresolved"] == ["session", "tool-call"]


def test_resolution_picks_the_most_specific_floor(env, tmp_path):
    call("opencode", "tool.execute.before", "2.1.0", {"input": {"tool": "bash"}}, env)
    call("opencode", "tool.execute.before", "1.99.0", {"input": {"tool": "bash"}}, env)
    contracts = [r["contract"] for r in query(tmp_path / "journal.sqlite3")]
    from profiles_found import admitting

    assert contracts == [admitting("opencode", "2.1.0"), admitting("opencode", "1.99.0")]


def _claude_floors() -> str:
    """What the runtime lists for an unadmitted Claude version: every Claude contract, from profiles/."""
    from pathlib import Path

    profiles = Path(__file__).resolve().parents[2] / "profiles"
    ids = sorted((p.name for p in profiles.glob("claude-code@*")), key=lambda c: [int(x) for x in c[12:].split(".")])
    return "; ".join(f"{c} admits at or above {c.partition('@')[2]}" for c in ids)


@pytest.mark.parametrize(
    "version,why",
    [
        ("2.1.0", f"no contract admits claude-code 2.1.0 ({_claude_floors()})"),
        ("2.2.0-rc.1", "no contract admits claude-code 2.2.0-rc.1"),
        ("latest", "host version 'latest' is not a semantic version"),
    ],
)
def test_unknown_coordinates_are_observe_only(env, tmp_path, version, why):
    code, out, err = call("claude-code", "PreToolUse", version, {"session_id": "s"}, env)
    assert (code, out) == (0, "")
    assert why in err and err.endswith("observe-only\n")
    assert query(tmp_path / "journal.sqlite3")[-1]["decision"] == "observe"


def test_unknown_harness_and_event(env):
    assert call("antigravity", "PreToolUse", "1.0.0", {}, env)[:2] == (0, "")
    code, out, err = call("claude-code", "preToolUse", "2.1.328", {}, env)
    assert (code, out) == (0, "") and "declares no event 'preToolUse'" in err


def test_opencode_tool_input_for_before_and_after(env, tmp_path):
    before = {"input": {"tool": "bash", "sessionID": "ses", "callID": "c1"}, "output": {"args": {"command": "ls"}}}
    after = {
        "input": {"tool": "bash", "sessionID": "ses", "callID": "c1", "args": {"command": "ls"}},
        "output": {"title": "ls", "output": "", "metadata": {}},
    }
    v2 = {"input": {"tool": "bash", "sessionID": "ses", "id": "c1", "input": {"command": "ls"}}}
    call("opencode", "tool.execute.before", "1.18.33", before, env)
    call("opencode", "tool.execute.after", "1.18.33", after, env)
    call("opencode", "tool.execute.before", "2.0.20", v2, env)
    rows = query(tmp_path / "journal.sqlite3")
    assert [(r["envelope"]["tool_kind"], r["envelope"]["command"]) for r in rows] == [("shell", "ls")] * 3


def test_post_action_gate_rows_never_deliver_a_deny(env, tmp_path):
    (tmp_path / "policy.toml").write_text('[[rules]]\nname = "all"\ndecision = "deny"\nreason = "no"\n')
    after = {"input": {"tool": "bash", "sessionID": "s", "callID": "c", "args": {"command": "ls"}}, "output": {}}
    code, out, err = call("opencode", "tool.execute.after", "1.18.33", after, env)
    assert (code, json.loads(out)) == (0, {"decision": "proceed"})
    assert "no evidenced pre-action refusal channel" in err
    code, out, _ = call("claude-code", "PostToolBatch", "2.1.328", {"session_id": "s"}, env)
    assert (code, out) == (0, "")


GEMINI_SHELL = {
    "session_id": "g-1",
    "hook_event_name": "BeforeTool",
    "tool_name": "run_shell_command",
    "tool_input": {"command": "rm -rf build", "description": "clean"},
    "cwd": "/tmp",
}
RM_DENY = (
    '[gate]\nkind = "rules"\n\n[[rules]]\nname = "no-rm"\ndecision = "deny"\nreason = "no rm here"\n'
    'tool_kind = "shell"\ncommand = "rm\\\\s+-rf"\n'
)


def test_gemini_cli_answers_in_its_own_channels(env, tmp_path):
    (tmp_path / "policy.toml").write_text(RM_DENY)
    # BeforeTool cites the JSON decision channel (captures/gemini-cli@0.61.0/before-tool-json-deny)
    code, out, err = call("gemini-cli", "BeforeTool", "0.61.0", GEMINI_SHELL, env)
    assert (code, json.loads(out), err) == (0, {"decision": "deny", "reason": "no rm here"}, "")
    entry = query(tmp_path / "journal.sqlite3", session="g-1")[-1]
    assert entry["envelope"]["tool_kind"] == "shell" and entry["envelope"]["identities"] == {"session": "g-1"}
    assert (entry["decision"], entry["answer"]) == ("deny", "deny")
    # an ordinary command proceeds with nothing on stdout (the host reads no output as "go on")
    code, out, err = call("gemini-cli", "BeforeTool", "0.61.0", dict(GEMINI_SHELL, tool_input={"command": "ls"}), env)
    assert (code, out, err) == (0, "", "")
    # an observation row never answers
    code, out, err = call("gemini-cli", "AfterModel", "0.61.0", {"session_id": "g-1"}, env)
    assert (code, out) == (0, "")


def test_gemini_cli_asks_on_before_tool_and_refuses_an_ask_where_no_ask_channel_is_cited(env, tmp_path):
    # BeforeTool offers deny+ask (captures/gemini-cli@0.61.0/before-tool-json-ask): the host's own confirmation
    (tmp_path / "policy.toml").write_text(RM_DENY.replace('decision = "deny"', 'decision = "ask"'))
    code, out, err = call("gemini-cli", "BeforeTool", "0.61.0", GEMINI_SHELL, env)
    answer = {"decision": "ask", "reason": "no rm here", "systemMessage": "no rm here"}
    assert (code, json.loads(out), err) == (0, answer, "")
    entry = query(tmp_path / "journal.sqlite3", session="g-1")[-1]
    assert (entry["decision"], entry["answer"]) == ("ask", "ask")
    # BeforeAgent has no ask channel (only exit 2): an ask there is refused, and says it needed confirmation
    (tmp_path / "policy.toml").write_text(
        '[gate]\nkind = "rules"\n\n[[rules]]\nname = "ask-prompts"\ndecision = "ask"\nreason = "confirm prompts"\n'
        'event = "BeforeAgent"\n'
    )
    prompt = {"session_id": "g-2", "hook_event_name": "BeforeAgent", "prompt": "hello", "cwd": "/tmp"}
    code, out, err = call("gemini-cli", "BeforeAgent", "0.61.0", prompt, env)
    assert (code, out) == (2, "") and "confirm prompts (needs confirmation" in err, (code, out, err)


def test_gemini_cli_refuses_by_exit_2_where_no_json_channel_is_cited():
    from types import SimpleNamespace

    from pasture.runtime.hostwire import gemini_cli

    uncited = SimpleNamespace(response="none")
    assert gemini_cli.deny("BeforeAgent", uncited, "no prompt") == (2, "", "no prompt\n", "deny")
    cited = SimpleNamespace(response="deny")
    assert gemini_cli.deny("BeforeTool", cited, "no") == (0, '{"decision": "deny", "reason": "no"}\n', "", "deny")
    assert gemini_cli.tool_of({"tool_name": "run_shell_command", "tool_input": {"command": "ls"}}) == (
        "run_shell_command",
        {"command": "ls"},
    )
    assert gemini_cli.tool_of(["not", "a", "payload"]) == (None, None)


COPILOT_SHELL = {
    "sessionId": "s-1",
    "timestamp": 1764633600000,
    "cwd": "/",
    "toolName": "bash",
    "toolArgs": {"command": "echo x > probe.txt", "description": "probe"},
}


def test_copilot_pretooluse_deny_is_the_json_that_carries_the_reason(env):
    code, out, err = call("copilot-cli", "preToolUse", "1.0.102", COPILOT_SHELL, env)
    assert (code, err) == (0, "")
    assert json.loads(out) == {"permissionDecision": "deny", "permissionDecisionReason": "probe files are off limits"}
    allowed = dict(COPILOT_SHELL, toolArgs={"command": "ls"})
    assert call("copilot-cli", "preToolUse", "1.0.102", allowed, env) == (0, "", "")


def test_copilot_hooks_folder_and_trust_file_belong_to_the_guard(env, tmp_path):
    """The agent may not rewrite Copilot's project hooks files (pasture's among them) or the folder trust in
    ~/.copilot/config.json, by a file tool or by the shell: either would switch the guard off there."""
    import subprocess

    project = tmp_path / "repo"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    home = tmp_path / "home"
    env = dict(env, HOME=str(home))
    base = {"sessionId": "s-1", "timestamp": 1, "cwd": str(project)}
    attempts = [
        ("create", {"path": str(project / ".github" / "hooks" / "pasture.json"), "file_text": "{}"}),
        ("bash", {"command": "echo '{}' > .github/hooks/pasture.json"}),
        ("bash", {"command": f"echo '{{}}' > {home}/.copilot/config.json"}),
    ]
    for tool, args in attempts:
        code, out, _ = call("copilot-cli", "preToolUse", "1.0.102", dict(base, toolName=tool, toolArgs=args), env)
        assert code == 0 and json.loads(out)["permissionDecision"] == "deny", (tool, args, out)
    ordinary = dict(base, toolName="bash", toolArgs={"command": "echo hi > notes.txt"})
    assert call("copilot-cli", "preToolUse", "1.0.102", ordinary, env) == (0, "", "")
