"""A gate that crashes, hangs or answers garbage, a bad policy, a bad payload, or our own bug: the
row's effective failure mode, exactly, and never a traceback."""

from __future__ import annotations

import json
import sys

import pytest
from hookrun import call, refusal

from pasture.journal.db import query

GATES = {
    "crash": f'command = ["{sys.executable}", "-c", "import sys; sys.exit(7)"]',
    "hang": f'command = ["{sys.executable}", "-c", "import time; time.sleep(30)"]\ntimeout = 0.5',
    "garbage": f'command = ["{sys.executable}", "-c", "print(\'not json\')"]',
    "wrong-shape": f'command = ["{sys.executable}", "-c", "print(\'{{\\"decision\\": \\"maybe\\"}}\')"]',
    "missing": 'command = ["/nonexistent/gate"]',
}

# (harness, event, version) -> (exit code, stdout, what the host does)
ROWS = {
    # Claude Code: exit-2-blocks, answered as its JSON refusal (on exit 2 the model would read the raw
    # hook command line before the reason); stdout is then the permission decision with our line
    ("claude-code", "PreToolUse", "2.1.328"): (0, "refusal", "blocks: exit-2-blocks, cited"),
    ("claude-code", "PermissionRequest", "2.1.328"): (0, "", "proceeds: demoted to report-and-continue"),
    ("codex", "PreToolUse", "0.171.0"): (2, "", "blocks: strict-output-exit-2-blocks, cited"),
    ("codex", "PermissionRequest", "0.171.0"): (0, "", "proceeds: demoted"),
    # OpenCode: the plugin throws with the runtime's line from stdout (what the model reads)
    ("opencode", "tool.execute.before", "1.18.33"): (3, "failure", "plugin throws: throw-fail-fast"),
}


@pytest.fixture(params=sorted(GATES))
def broken_gate(request, env, tmp_path):
    (tmp_path / "policy.toml").write_text(f'[gate]\nkind = "command"\n{GATES[request.param]}\n')
    return request.param


@pytest.mark.parametrize("coordinate", sorted(ROWS))
def test_broken_gate_gets_the_effective_failure_mode(env, tmp_path, broken_gate, coordinate):
    code, out, err = call(
        *coordinate,
        {"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "ls"}, "input": {"tool": "bash"}},
        env,
    )
    want_code, want_out, _ = ROWS[coordinate]
    if want_out == "refusal":
        assert code == want_code and refusal(out) == err[: -len("\n")]
    elif want_out == "failure":
        assert code == want_code and json.loads(out) == {"failure": err[len("pasture: ") : -len("\n")]}
    else:
        assert (code, out) == (want_code, want_out)
    assert err.startswith("pasture: gate failed on ") and "Traceback" not in err
    entry = query(tmp_path / "journal.sqlite3")[-1]
    assert entry["decision"] == "none" and entry["failure"] and entry["gate"] == "command"


def test_strict_hook_failure_row_exits_one(env, tmp_path):
    # Codex SessionStart is an observation; a strict-hook-failure *gate* does not exist in the profile,
    # so check the arm through the answer module directly.
    from pasture.runtime.answer import fail

    class Row:
        failure, semantic = "strict-hook-failure", "gate-consultation"

    assert fail("codex", Row, "boom")[:3] == (1, "", "pasture: boom\n")


def test_invalid_policy_names_file_and_rule_and_applies_failure_mode(env, tmp_path):
    (tmp_path / "policy.toml").write_text('[[rules]]\nname = "bad-regex"\ndecision = "deny"\ncommand = "("\n')
    code, out, err = call("claude-code", "PreToolUse", "2.1.328", {"session_id": "s"}, env)
    assert code == 0 and refusal(out) == err.strip()
    assert (
        f"user policy: {tmp_path / 'policy.toml'}:1: rule 'bad-regex' (rules[0]): 'command' is not a valid "
        "regular expression"
        in err
        and "(run: pasture policy check)" in err
    )


@pytest.mark.parametrize(
    "text,message",
    [
        ('[gate]\nkind = "oracle"\n', "[gate] kind 'oracle' is not one of rules, command, ai"),
        (
            '[[rules]]\nname = "x"\ndecision = "block"\n',
            "rule 'x' (rules[0]): decision 'block' is not one of proceed, deny, ask",
        ),
        (
            '[[rules]]\nname = "x"\ndecision = "deny"\ntool_kinds = "shell"\n',
            "rule 'x' (rules[0]): unknown key(s) tool_kinds",
        ),
        ('[gate]\nkind = "command"\n', "[gate] kind 'command' needs command = "),
        ("not = [toml", "not valid TOML"),
    ],
)
def test_policy_errors(env, tmp_path, text, message):
    (tmp_path / "policy.toml").write_text(text)
    code, _, err = call("codex", "PreToolUse", "0.171.0", {"session_id": "s"}, env)
    assert code == 2 and message in err


def test_unreadable_payload_on_a_gate_row_takes_its_failure_mode(env):
    assert refusal(call("claude-code", "PreToolUse", "2.1.328", b"{not json", env)[1])
    assert call("claude-code", "PermissionRequest", "2.1.328", b"{not json", env)[0] == 0
    assert call("claude-code", "PostToolUse", "2.1.328", b"{not json", env)[:2] == (0, "")
    assert call("opencode", "tool.execute.before", "1.18.33", b"[1,2]", env)[0] == 3


def test_our_own_bug_takes_the_failure_mode_without_a_traceback(env, monkeypatch):
    import pasture.runtime.envelope as envelope

    def explode(*args, **kwargs):
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(envelope, "build", explode)
    code, out, err = call("claude-code", "PreToolUse", "2.1.328", {"session_id": "s"}, env)
    assert code == 0 and refusal(out) and "internal error (RuntimeError: simulated bug)" in err
    code, out, err = call("claude-code", "PostToolUse", "2.1.328", {"session_id": "s"}, env)
    assert (code, out) == (0, "") and "Traceback" not in err


def test_unwritable_journal_is_a_failure_not_a_silent_allow(env, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    env["PASTURE_JOURNAL"] = str(blocker / "journal.sqlite3")  # parent is a file
    code, out, err = call(
        "claude-code",
        "PreToolUse",
        "2.1.328",
        {"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "ls"}},
        env,
    )
    # One line: what cannot be written, why, and where to fix it; not an "internal error".
    assert code == 0 and refusal(out) == err.strip()
    assert "internal error" not in err and len(err.strip().splitlines()) == 1
    assert f"cannot journal PreToolUse: journal {blocker / 'journal.sqlite3'}.spool: Not a directory" in err
    assert "PASTURE_JOURNAL" in err and "pasture policy show" in err
    code, out, err = call("claude-code", "SessionStart", "2.1.328", {"session_id": "s"}, env)
    assert (code, out) == (0, "") and "cannot journal SessionStart" in err


def test_ai_gate_failure_takes_the_failure_mode(env, tmp_path, monkeypatch):
    # Nothing listens on 127.0.0.1:9 (discard): the backend fails fast, on loopback only.
    (tmp_path / "policy.toml").write_text('[gate]\nkind = "ai"\ntimeout = 1\nbase_url = "http://127.0.0.1:9/v1"\n')
    monkeypatch.setenv("PASTURE_AI_BASE_URL", "http://127.0.0.1:9/v1")
    code, out, err = call(
        "codex", "PreToolUse", "0.171.0", {"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "ls"}}, env
    )
    assert code == 2 and out == "" and "AI gate" in err
    entry = query(tmp_path / "journal.sqlite3")[-1]
    assert entry["failure"].startswith("user policy ai gate: AI gate: ") and entry["gate"] == "ai"
    assert entry["layer"] == "user"
    assert "127.0.0.1" in json.dumps(entry) or entry["detail"]["attempts"] >= 1


def test_gate_events_scope_which_rows_consult_the_gate(env, tmp_path):
    (tmp_path / "policy.toml").write_text(f'[gate]\nkind = "command"\nevents = ["Stop"]\n{GATES["crash"]}\n')
    code, out, _ = call("claude-code", "PreToolUse", "2.1.328", {"session_id": "s"}, env)
    assert (code, out) == (0, "")
    assert query(tmp_path / "journal.sqlite3")[-1]["reason"] == "no layer of the policy covers this event"
    code, out, _ = call("claude-code", "Stop", "2.1.328", {"session_id": "s", "stop_hook_active": False}, env)
    assert code == 0 and refusal(out).startswith("pasture: gate failed on Stop")
