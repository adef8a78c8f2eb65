"""Issue 9 items 2-6 at the runtime: subfolder sessions, deadlines, odd strings, stops, matchers."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hookrun import call, refusal
from repo_paths import REPO

from pasture.journal.db import query
from pasture.runtime.project import find_root, ignored_markers


def _env_without_user_policy(env, tmp_path):
    env = dict(env, PASTURE_POLICY=str(tmp_path / "no-user-policy.toml"))
    env.pop("PASTURE_JOURNAL")
    return env


# --- 2. a session started in a subfolder -------------------------------------------------------


def test_the_project_root_is_found_upwards_and_stops_at_the_repository(tmp_path):
    repo = tmp_path / "repo"
    (repo / "src" / "deep").mkdir(parents=True)
    (repo / ".git").mkdir()
    assert find_root(str(repo / "src" / "deep")) == str(repo)
    (repo / ".pasture").mkdir()
    assert find_root(str(repo / "src" / "deep")) == str(repo)
    (repo / "src" / ".pasture").mkdir()
    # one project, one layer (issue 18): a .pasture/ below the repository's top level replaces nothing
    assert find_root(str(repo / "src" / "deep")) == str(repo)
    assert ignored_markers(str(repo / "src" / "deep")) == [str(repo / "src" / ".pasture")]
    # a .pasture above the repository (say in the home folder) never captures it
    (tmp_path / ".pasture").mkdir()
    other = tmp_path / "other"
    (other / "lib").mkdir(parents=True)
    (other / ".git").write_text("gitdir: /elsewhere\n")  # a linked worktree's .git file
    assert find_root(str(other / "lib")) == str(other)
    # outside any repository the search goes on up
    loose = tmp_path / "loose" / "a"
    loose.mkdir(parents=True)
    assert find_root(str(loose)) == str(tmp_path)


@pytest.mark.parametrize(
    "harness,event,version", [("codex", "PreToolUse", "0.171.0"), ("claude-code", "PreToolUse", "2.1.328")]
)
def test_a_session_in_a_subfolder_gets_the_projects_policy_and_journal(env, tmp_path, harness, event, version):
    env = _env_without_user_policy(env, tmp_path)
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / ".pasture").mkdir()
    (project / ".pasture" / "policy.toml").write_text(
        '[[rules]]\nname = "no-rm"\ndecision = "deny"\nreason = "no rm -rf"\ncommand = "rm\\\\s+-rf"\n'
    )
    payload = {
        "session_id": "s",
        "cwd": str(project / "src"),
        "tool_name": "Bash",
        "turn_id": "u",
        "tool_input": {"command": "rm -rf build"},
        "tool_use_id": "t",
    }
    code, out, _ = call(harness, event, version, payload, env)
    assert json.loads(out)["hookSpecificOutput"]["permissionDecisionReason"] == "no rm -rf"
    assert not (project / "src" / ".pasture").exists()
    assert query(project / ".pasture" / "journal.sqlite3")[-1]["rule"] == "no-rm"


def test_opencode_in_a_subfolder_finds_the_project(env, tmp_path, monkeypatch):
    env = _env_without_user_policy(env, tmp_path)
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / ".git").mkdir()
    (project / ".pasture").mkdir()
    (project / ".pasture" / "policy.toml").write_text(
        '[[rules]]\nname = "no-rm"\ndecision = "deny"\nreason = "no rm -rf"\ncommand = "rm\\\\s+-rf"\n'
    )
    monkeypatch.chdir(project / "src")  # the plugin runs the runtime in OpenCode's directory
    code, out, _ = call(
        "opencode",
        "tool.execute.before",
        "1.18.33",
        {"input": {"tool": "bash", "sessionID": "s", "callID": "c"}, "output": {"args": {"command": "rm -rf build"}}},
        env,
    )
    assert json.loads(out) == {"decision": "deny", "reason": "no rm -rf"}
    assert not (project / "src" / ".pasture").exists()


# --- 3. gate deadlines ---------------------------------------------------------------------------


def _sleeping_gate(tmp_path: Path, seconds: float) -> str:
    gate = tmp_path / "slow_gate.py"
    gate.write_text(f'import time\ntime.sleep({seconds})\nprint(\'{{"decision": "proceed"}}\')\n')
    return f"[{json.dumps(sys.executable)}, {json.dumps(str(gate))}]"


def test_a_gate_asking_for_more_than_the_row_allows_is_clamped_and_fails_closed_in_time(env, tmp_path, monkeypatch):
    from pasture.runtime import deadline

    env = dict(env)
    (tmp_path / "policy.toml").write_text(
        f'[gate]\nkind = "command"\ntimeout = 90\ncommand = {_sleeping_gate(tmp_path, 30)}\n'
    )
    monkeypatch.setattr(deadline, "deadline_seconds", lambda row: 1.5)  # the row's host timeout, scaled down
    code, out, err = call(
        "claude-code",
        "PreToolUse",
        "2.1.328",
        {"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "ls"}},
        env,
    )
    # "timed out" comes only from the clamp's timeout (the gate sleeps 30 s): the cut is shown by the
    # answer, not by a wall-clock bound a busy machine could break
    # Claude Code: a blocking failure is its JSON refusal (exit 2 would show the model the hook's command line)
    assert code == 0 and refusal(out).startswith("pasture: gate failed on PreToolUse")
    assert "gate command timed out" in err and "clamped" in err
    entry = query(tmp_path / "journal.sqlite3")[-1]
    assert entry["answer"] == "fail-block" and "timed out" in entry["failure"]
    assert entry["detail"]["clamped"].startswith("gate timeout 90s clamped to ")


def test_a_clamped_gate_that_answers_in_time_still_says_it_was_clamped(env, tmp_path, monkeypatch):
    # Not only when the gate fails: the user asked for 90 s and got less, so stderr says so every time.
    from pasture.runtime import deadline

    env = dict(env)
    (tmp_path / "policy.toml").write_text(
        f'[gate]\nkind = "command"\ntimeout = 90\ncommand = {_sleeping_gate(tmp_path, 0)}\n'
    )
    monkeypatch.setattr(deadline, "deadline_seconds", lambda row: 20.0)
    code, out, err = call(
        "claude-code",
        "PreToolUse",
        "2.1.328",
        {"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "ls"}},
        env,
    )
    assert (code, out) == (0, "")
    assert "gate timeout 90s clamped to " in err
    entry = query(tmp_path / "journal.sqlite3")[-1]
    assert entry["decision"] == "proceed" and entry["detail"]["clamped"].startswith("gate timeout 90s clamped to ")


def test_the_deadline_is_the_host_timeout_minus_a_margin():
    from pasture.runtime.deadline import deadline_seconds_for

    assert deadline_seconds_for(60) == 54 and deadline_seconds_for(10) == 9 and deadline_seconds_for(1) == 0.5
    # the AI gate's transient retries (2, 4, 8 s of backoff) fit inside a gate row's deadline
    assert 2 + 4 + 8 < deadline_seconds_for(60)


def test_every_generated_row_carries_the_timeout_its_adapter_registers():
    sys.path.insert(0, str(REPO / "generated" / "python"))
    from loading import load_project

    import pasture_contracts
    from pasture.render.commands import timeout

    for contract in load_project(REPO):
        module = __import__(f"pasture_contracts.{pasture_contracts.CONTRACTS[contract.id]}", fromlist=["ROWS"])
        for row in contract.events:
            assert module.ROWS[row.name].timeout == timeout(row)


# --- 4. odd strings ------------------------------------------------------------------------------


@pytest.mark.parametrize("field", ["session_id", "tool_name", "tool_use_id"])
def test_lone_surrogates_are_journaled_readably_and_never_a_failure(env, tmp_path, field):
    env = _env_without_user_policy(env, tmp_path)
    payload = {
        "session_id": "s",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "tool_use_id": "t",
        "cwd": str(tmp_path),
    }
    payload[field] = "odd\ud800value"
    raw = json.dumps(payload).encode()  # \ud800 escaped, exactly as a host would send it
    for harness, event, version in (
        ("claude-code", "PreToolUse", "2.1.328"),
        ("codex", "SessionStart", "0.171.0"),
        ("claude-code", "SessionStart", "2.1.328"),
    ):
        code, out, err = call(harness, event, version, raw, env)
        assert (code, out) == (0, "") and "internal error" not in err
    rows = query(tmp_path / ".pasture" / "journal.sqlite3")
    assert len(rows) == 3 and {r["failure"] for r in rows} == {None}
    if field == "session_id":
        assert rows[0]["session"] == "odd\\ud800value"
    if field == "tool_name":
        assert rows[0]["tool_name"] == "odd\\ud800value"
    assert rows[0]["envelope"]["payload"][field] == "odd\ud800value"


def test_a_gate_reason_with_a_lone_surrogate_is_delivered_and_journaled(env, tmp_path):
    gate = tmp_path / "gate.py"
    gate.write_text('print(\'{"decision": "deny", "reason": "no \\\\ud800 way"}\')\n')
    (tmp_path / "policy.toml").write_text(
        f'[gate]\nkind = "command"\ncommand = [{json.dumps(sys.executable)}, {json.dumps(str(gate))}]\n'
    )
    code, out, err = call(
        "claude-code",
        "PreToolUse",
        "2.1.328",
        {"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "ls"}},
        env,
    )
    assert code == 0 and json.loads(out)["hookSpecificOutput"]["permissionDecisionReason"] == "no \ud800 way"
    assert query(tmp_path / "journal.sqlite3")[-1]["reason"] == "no \\ud800 way"


# --- 5. a stop that can never end -----------------------------------------------------------------


def test_a_stop_an_earlier_block_caused_is_never_blocked_again_even_with_no_journal(env, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    env["PASTURE_JOURNAL"] = str(blocker / "journal.sqlite3")  # unwritable: its parent is a file
    (tmp_path / "policy.toml").write_text('[gate]\ndefault = "deny"\n')
    code, out, err = call("claude-code", "Stop", "2.1.328", {"session_id": "s", "stop_hook_active": True}, env)
    assert (code, out) == (0, "")
    assert "never blocked again" in err
    code, out, _ = call("claude-code", "Stop", "2.1.328", {"session_id": "s", "stop_hook_active": False}, env)
    assert code == 0 and refusal(out)  # the first stop still gets the policy (and the failure mode: a JSON block)


# --- 6. every documented matcher, on each host's captured payloads ---------------------------------


def _captured(harness_dir: str, event: str, project: Path) -> dict:
    text = (REPO / "captures" / harness_dir / "allow" / "events" / f"{event}.json").read_text()
    return json.loads(text.replace("$RUN/project", str(project)))[0]


HOSTS = {
    "claude-code": ("claude-code@2.1.328", "PreToolUse", "2.1.328"),
    "codex": ("codex@0.171.0", "PreToolUse", "0.171.0"),
    "opencode": ("opencode@1.18.33", "tool.execute.before", "1.18.33"),
}
MATCHERS = {
    "harness": 'harness = "{harness}"',
    "event": 'event = ["{event}"]',
    "semantic": 'semantic = "gate-consultation"',
    "tool_kind": 'tool_kind = "shell"',
    "tool": 'tool = "^(Bash|bash)$"',
    "command": 'command = "pasture-probe"',
    "input.command": '[rules.input]\ncommand = "probe\\\\.txt"',
}


@pytest.mark.parametrize("matcher", list(MATCHERS))
@pytest.mark.parametrize("harness", list(HOSTS))
def test_every_documented_matcher_denies_on_the_hosts_captured_payload(env, tmp_path, monkeypatch, harness, matcher):
    capture_dir, event, version = HOSTS[harness]
    env = _env_without_user_policy(env, tmp_path)
    project = tmp_path / "project"
    (project / ".pasture").mkdir(parents=True)
    monkeypatch.chdir(project)
    clause = MATCHERS[matcher].format(harness=harness, event=event)
    (project / ".pasture" / "policy.toml").write_text(
        f'[[rules]]\nname = "m"\ndecision = "deny"\nreason = "matched {matcher}"\n{clause}\n'
    )
    code, out, _ = call(harness, event, version, _captured(capture_dir, event, project), env)
    if harness == "opencode":
        assert json.loads(out) == {"decision": "deny", "reason": f"matched {matcher}"}
    else:
        assert json.loads(out)["hookSpecificOutput"]["permissionDecisionReason"] == f"matched {matcher}"
    # and the same rule with a value that does not match lets the call proceed
    unmatched = (
        clause.replace("shell", "fetch")
        .replace("pasture-probe", "nothing-like-it")
        .replace("probe", "zzz")
        .replace("Bash|bash", "Nope")
        .replace(harness, "other")
        .replace(event, "Other")
        .replace("gate-consultation", "observation")
    )
    (project / ".pasture" / "policy.toml").write_text(
        f'[[rules]]\nname = "m"\ndecision = "deny"\nreason = "x"\n{unmatched}\n'
    )
    code, out, _ = call(harness, event, version, _captured(capture_dir, event, project), env)
    assert out in ("", '{"decision": "proceed"}\n')


@pytest.mark.parametrize("harness", ["claude-code", "codex"])
def test_the_file_path_matcher(env, tmp_path, harness):
    _, event, version = HOSTS[harness]
    env = _env_without_user_policy(env, tmp_path)
    project = tmp_path / "project"
    (project / ".pasture").mkdir(parents=True)
    (project / ".pasture" / "policy.toml").write_text(
        '[[rules]]\nname = "m"\ndecision = "deny"\nreason = "no secrets"\nfile_path = "\\\\.env$"\n'
    )
    payload = {
        "session_id": "s",
        "cwd": str(project),
        "tool_name": "Write",
        "turn_id": "u",
        "tool_use_id": "t",
        "tool_input": {"file_path": str(project / ".env"), "content": "KEY=1"},
    }
    code, out, _ = call(harness, event, version, payload, env)
    assert json.loads(out)["hookSpecificOutput"]["permissionDecisionReason"] == "no secrets"
