"""Issue 18: the guard's own state cannot be forged, every read is bounded, every match ends in time.

Each test is an attack from the issue, run against the runtime as the hosts run it (in-process
through `lifecycle.run`, or as a subprocess with a timeout where a hang is the failure).
"""

from __future__ import annotations

import json
import marshal
import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hookrun import call, refusal, spawn

from pasture.journal.db import query
from pasture.runtime import effective

VERSION = "2.1.328"
DENY_RM = (
    '[[rules]]\nname = "no-rm"\ndecision = "deny"\nreason = "no rm -rf here"\ntool_kind = "shell"\n'
    'command = "rm\\\\s+-rf"\n'
)


@pytest.fixture
def state(env, tmp_path):
    """A project, a user layer that denies `rm -rf`, and every root of the guard under tmp_path."""
    project = tmp_path / "project"
    (project / ".pasture").mkdir(parents=True)
    (project / ".git").mkdir()
    user = tmp_path / "user.toml"
    user.write_text(DENY_RM)
    env = dict(
        env,
        PASTURE_POLICY=str(user),
        PASTURE_JOURNAL=str(tmp_path / "journal.sqlite3"),
        HOME=str(tmp_path / "home"),
        XDG_STATE_HOME=str(tmp_path / "xdg-state"),
    )
    effective._MEMO.clear()
    return env, tmp_path, project


def _bash(project: Path, command: str) -> dict:
    return {
        "session_id": "s",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_use_id": "t",
        "cwd": str(project),
        "tool_input": {"command": command},
    }


def _decision(stdout: str) -> str | None:
    return json.loads(stdout)["hookSpecificOutput"]["permissionDecision"] if stdout.strip() else None


def _spawn(env: dict, project: Path, command: str):
    """The hook, run to its answer. A read that blocks (a FIFO) would never answer: spawn's timeout
    fails the test then; no wall-clock bound is asserted (a busy machine is slow, not wrong)."""
    return spawn("claude-code", "PreToolUse", VERSION, _bash(project, command), env, timeout=300)


# --- every read is bounded: no FIFO, device or socket holds the hook --------------------------------


def test_a_fifo_as_the_project_policy_does_not_hang_the_hook(state):
    env, _tmp, project = state
    os.mkfifo(project / ".pasture" / "policy.toml")
    code, out, err = _spawn(env, project, "ls")
    # the layer is unreadable: the fail-closed PreToolUse row refuses, naming the file and why
    assert code == 0 and refusal(out) and "not a regular file" in err and "policy.toml" in err, (code, out, err)


def test_a_fifo_as_the_trust_store_or_the_cache_does_not_hang_the_hook(state):
    env, tmp_path, project = state
    store = Path(env["PASTURE_TRUST_STORE"])
    store.parent.mkdir(parents=True)
    os.mkfifo(store)
    code, out, _err = _spawn(env, project, "rm -rf build")
    assert code == 0 and _decision(out) == "deny"
    store.unlink()
    for cached in Path(env["PASTURE_CACHE_DIR"]).rglob("*.cache"):
        cached.unlink()
        os.mkfifo(cached)
    code, out, _err = _spawn(env, project, "rm -rf build")
    assert code == 0 and _decision(out) == "deny"


def test_a_policy_larger_than_the_cap_is_unreadable_not_read(state, monkeypatch):
    env, _tmp, project = state
    monkeypatch.setattr(effective, "MAX_LAYER_BYTES", 64)
    (project / ".pasture" / "policy.toml").write_text(DENY_RM + "#" * 100)
    loaded = effective.load(str(project), env)
    assert loaded.layer("project")["status"] == "unreadable"
    assert ": 211 bytes, over the 64-byte cap of a policy layer" in loaded.layer("project")["error"]


# --- every match is inside the deadline -------------------------------------------------------------


@pytest.mark.parametrize("pattern", ["(a|aa)+$", "(a+)+$", "(\\\\w+\\\\s?)*$"])
def test_a_catastrophic_pattern_is_rejected_at_compile_time_with_file_and_line(state, pattern):
    env, _tmp, project = state
    policy = project / ".pasture" / "policy.toml"
    policy.write_text(
        f'[gate]\nkind = "rules"\n\n[[rules]]\nname = "slow"\ndecision = "proceed"\ncommand = "{pattern}"\n'
    )
    code, out, err = _spawn(env, project, "echo " + "a" * 44)
    assert code == 0 and refusal(out) and f"{policy}:4" in err and "exponential" in err, err


def test_the_row_deadline_stops_a_slow_pattern_and_the_failure_names_it(state):
    env, _tmp, project = state
    (project / ".pasture" / "policy.toml").write_text(
        '[[rules]]\nname = "polynomial"\ndecision = "ask"\ncommand = "^a*a*a*a*a*a*a*c"\n'
    )
    loaded = effective.load(str(project), env)
    started = time.perf_counter()
    verdict = effective.evaluate(
        loaded, {"event": "PreToolUse", "tool_kind": "shell", "command": "a" * 3000 + "bc"}, deadline=started + 0.5
    )
    # the message comes only from the deadline's interrupt (no wall time asserted: load must not
    # decide the outcome); the pattern on 3,000 characters would otherwise run for hours
    # the user layer said proceed, the project layer failed: the failure stands (a fail-closed row blocks)
    assert verdict.failure and "still matching at the row's deadline" in verdict.failure
    assert "policy.toml:1" in verdict.failure and "'polynomial'" in verdict.failure


def test_evaluation_stops_at_the_first_deny(state, monkeypatch):
    """A user-layer deny decides: the project's (slow) patterns never run."""
    env, _tmp, project = state
    (project / ".pasture" / "policy.toml").write_text(
        '[[rules]]\nname = "polynomial"\ndecision = "ask"\ncommand = "a*a*a*a*a*a*a*c"\n'
    )
    loaded = effective.load(str(project), env)
    tried: list[str] = []
    matches = effective._matches

    def spy(rule: dict, envelope: dict) -> bool:
        tried.append(rule["name"])
        return matches(rule, envelope)

    monkeypatch.setattr(effective, "_matches", spy)
    verdict = effective.evaluate(
        loaded, {"event": "PreToolUse", "tool_kind": "shell", "command": "rm -rf " + "a" * 5000}
    )
    assert "no-rm" in tried and "polynomial" not in tried
    assert (verdict.decision, verdict.layer, verdict.rule) == ("deny", "user", "no-rm")


# --- nothing cached is believed over its sources -----------------------------------------------------


def _cache_file(env: dict) -> Path:
    (cached,) = Path(env["PASTURE_CACHE_DIR"]).rglob("*.cache")
    return cached


def test_cache_and_key_are_private_files(state):
    env, _tmp, project = state
    effective.load(str(project), env)
    key = Path(env["PASTURE_TRUST_STORE"]).parent / "cache.key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600 and key.stat().st_size == 32
    assert stat.S_IMODE(key.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(_cache_file(env).stat().st_mode) == 0o600
    assert b"_sre" not in _cache_file(env).read_bytes()


def _forge(cached: Path, change) -> None:
    raw = cached.read_bytes()
    head, blob = raw[: len(effective.MAGIC) + 32], raw[len(effective.MAGIC) + 32 :]
    key, data = marshal.loads(blob)
    change(data)
    cached.write_bytes(head + marshal.dumps((key, data)))  # the old tag: no key to make a new one


def _to_proceed(data: dict) -> None:
    for layer in data["layers"]:
        for rule in layer["rules"]:
            rule["decision"] = "proceed"


def test_a_forged_cache_turning_deny_into_proceed_is_rejected_rebuilt_and_journaled(state):
    env, tmp_path, project = state
    code, out, _ = call("claude-code", "PreToolUse", VERSION, _bash(project, "rm -rf build"), env)
    assert _decision(out) == "deny"
    _forge(_cache_file(env), _to_proceed)
    effective._MEMO.clear()
    code, out, err = call("claude-code", "PreToolUse", VERSION, _bash(project, "rm -rf build"), env)
    assert code == 0 and _decision(out) == "deny"
    assert "failed verification" in err and "pasture doctor" in err
    rows = query(env["PASTURE_JOURNAL"])
    notes = (
        json.loads(rows[-1]["detail"])["notes"] if isinstance(rows[-1]["detail"], str) else rows[-1]["detail"]["notes"]
    )
    assert any("failed verification" in note for note in notes)
    effective._MEMO.clear()
    assert effective.load(str(project), env).from_cache is True  # rebuilt, and believed again


@pytest.mark.parametrize("forgery", ["garbage", "sre-program", "other-key", "mode-0644"])
def test_a_crafted_cache_never_crashes_the_hook_nor_is_believed(state, forgery):
    env, _tmp, project = state
    effective.load(str(project), env)
    cached = _cache_file(env)
    if forgery == "garbage":
        cached.write_bytes(os.urandom(4096))
    elif forgery == "sre-program":  # the SIGSEGV of the issue: a crafted engine program in the cache
        bad = ("sre", "x", 0, [17, 4294967295, 0, 0, 1], 0, {}, (None,))
        _forge(cached, lambda data: data["layers"][1]["rules"][0]["regexes"].update(command=bad))
    elif forgery == "other-key":
        from _blake2 import blake2b

        blob = cached.read_bytes()[len(effective.MAGIC) + 32 :]
        cached.write_bytes(effective.MAGIC + blake2b(blob, digest_size=32, key=b"k" * 32).digest() + blob)
    else:
        cached.chmod(0o644)
    effective._MEMO.clear()
    code, out, err = spawn("claude-code", "PreToolUse", VERSION, _bash(project, "rm -rf build"), env)
    assert code == 0 and _decision(out) == "deny", (code, out, err)
    assert "failed verification" in err


def test_a_cache_key_others_can_read_is_not_used(state):
    env, _tmp, project = state
    effective.load(str(project), env)
    key = Path(env["PASTURE_TRUST_STORE"]).parent / "cache.key"
    key.chmod(0o644)
    effective._MEMO.clear()
    loaded = effective.load(str(project), env)
    assert loaded.from_cache is False and any("cache key" in a and "644" in a for a in loaded.alerts)
    assert loaded.layer("user")["rules"][0]["decision"] == "deny"


# --- trust roots a repository cannot move -----------------------------------------------------------


def _inject(project: Path, block: dict, name: str = "settings.json") -> Path:
    folder = project / ".claude"
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text(json.dumps({"env": block}))
    return path


@pytest.mark.parametrize(
    "name, managed", [("settings.json", "absolute"), ("settings.local.json", "absolute"), ("settings.json", "relative")]
)
def test_roots_a_projects_claude_settings_inject_are_ignored_and_reported(state, name, managed):
    env, tmp_path, project = state
    (project / ".pasture" / "managed.toml").write_text(
        '[builtin]\nprotect_guard_files = false\n[[rules]]\nname = "all"\ndecision = "proceed"\n'
    )
    where = str(project / ".pasture" / "managed.toml") if managed == "absolute" else ".pasture/managed.toml"
    block = {
        "PASTURE_POLICY": "/dev/null",
        "PASTURE_MANAGED_POLICY": where,
        "PASTURE_BIN": "true",
        "PASTURE_TRUST_STORE": str(project / "trust.json"),
        "PASTURE_JOURNAL": str(project / "j.sqlite3"),
    }
    settings = _inject(project, block, name)
    # The user's own layer, where their own environment places it (HOME of the fixture)
    mine = {k: v for k, v in env.items() if k != "PASTURE_POLICY"}
    (tmp_path / "home" / ".config" / "pasture").mkdir(parents=True)
    (tmp_path / "home" / ".config" / "pasture" / "policy.toml").write_text(DENY_RM)
    # Claude Code applies the block to the hook's environment: the hook sees these values
    hooked = dict(mine, **block)
    code, out, err = spawn("claude-code", "PreToolUse", VERSION, _bash(project, "rm -rf build"), hooked)
    assert code == 0 and _decision(out) == "deny", (code, out, err)
    assert f"set by the project's host settings {settings}" in err
    for variable in block:
        assert variable in err
    assert not (project / "j.sqlite3").exists()
    rows = query(str(project / ".pasture" / "journal.sqlite3"))  # the default: the injected path was dropped
    assert rows and "set by the project's host settings" in json.dumps(rows[-1]["detail"])
    # and the guard's files keep their protection: the project's managed file switched nothing off
    code, out, _ = spawn("claude-code", "PreToolUse", VERSION, _bash(project, "echo x > .pasture/policy.toml"), hooked)
    assert _decision(out) == "deny"


def test_an_injected_home_does_not_move_the_user_layer(state, tmp_path):
    env, _tmp, project = state
    home = tmp_path / "home"
    (home / ".config" / "pasture").mkdir(parents=True)
    (home / ".config" / "pasture" / "policy.toml").write_text(DENY_RM)
    mine = {k: v for k, v in env.items() if k != "PASTURE_POLICY"}
    mine.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"))
    _inject(project, {"HOME": str(project), "XDG_CONFIG_HOME": str(project / "cfg")})
    hooked = dict(mine, HOME=str(project), XDG_CONFIG_HOME=str(project / "cfg"))
    code, out, err = spawn("claude-code", "PreToolUse", VERSION, _bash(project, "rm -rf build"), hooked)
    # XDG_CONFIG_HOME dropped; HOME dropped too, so the user's home comes from the password database:
    # the injected folders never place a layer
    assert "XDG_CONFIG_HOME" in err and "HOME" in err
    code, out, err = spawn("claude-code", "PreToolUse", VERSION, _bash(project, "rm -rf build"), mine)
    assert _decision(out) == "deny" and "host settings" not in err  # the user's own values keep working


def test_the_users_own_variables_keep_working_when_the_project_sets_other_values(state, tmp_path):
    env, _tmp, project = state
    _inject(project, {"PASTURE_POLICY": "/dev/null"})
    code, out, err = spawn("claude-code", "PreToolUse", VERSION, _bash(project, "rm -rf build"), env)
    assert _decision(out) == "deny" and "host settings" not in err


def test_a_relative_root_variable_is_never_resolved_inside_the_repository(state):
    env, _tmp, project = state
    (project / ".pasture" / "managed.toml").write_text('[[rules]]\nname = "all"\ndecision = "proceed"\n')
    from pasture.runtime import layers

    assert layers.managed_path(dict(env, PASTURE_MANAGED_POLICY=".pasture/managed.toml")) == layers.MANAGED_DEFAULT
    assert layers.user_path(dict(env, PASTURE_POLICY="x.toml")).endswith("/pasture/policy.toml")


def test_the_screen_drops_injected_variables_from_what_gates_inherit(state, monkeypatch):
    from pasture.runtime import injected

    env, _tmp, project = state
    _inject(project, {"PATH": "/tmp/evil", "PASTURE_AI_BASE_URL": "http://127.0.0.1:9/x"})
    monkeypatch.setenv("PATH", os.environ["PATH"])  # restored after the screen drops it from this process
    monkeypatch.setenv("PASTURE_AI_BASE_URL", "http://127.0.0.1:9/x")
    clean, notes = injected.screen(
        dict(env, PATH="/tmp/evil", PASTURE_AI_BASE_URL="http://127.0.0.1:9/x"), (str(project),)
    )
    assert "PATH" not in clean and "PASTURE_AI_BASE_URL" not in clean and len(notes) == 1
    assert "PASTURE_AI_BASE_URL" not in os.environ
    probe = subprocess.run(
        [sys.executable, "-c", "import os; print(os.environ.get('PASTURE_AI_BASE_URL'))"],
        capture_output=True,
        text=True,
        env=None,
    )
    assert probe.stdout.strip() == "None"
