"""Layered policy: every layer evaluated, the most restrictive decision wins, trust gates the rest."""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

import pytest
from hookrun import call, refusal

from pasture.journal.db import query
from pasture.runtime import trust

DECISIONS = (None, "proceed", "ask", "deny")
RANK = {"proceed": 0, "ask": 1, "deny": 2}
PAYLOAD = {"session_id": "s", "tool_name": "Bash", "tool_input": {"command": "ls -la"}, "tool_use_id": "t"}


@pytest.fixture
def layered(env, tmp_path):
    """env with a managed, a user and a project layer location, and a project root with .pasture/."""
    project = tmp_path / "project"
    (project / ".pasture").mkdir(parents=True)
    env = dict(env, PASTURE_MANAGED_POLICY=str(tmp_path / "managed.toml"), PASTURE_POLICY=str(tmp_path / "user.toml"))
    env.pop("PASTURE_JOURNAL")
    return env, tmp_path, project


def _rule_layer(decision: str, name: str) -> str:
    return (
        f'[[rules]]\nname = "{name}"\ndecision = "{decision}"\nreason = "{name} says {decision}"\ntool_kind = "shell"\n'
    )


def _paths(tmp_path: Path, project: Path) -> dict[str, Path]:
    return {
        "managed": tmp_path / "managed.toml",
        "user": tmp_path / "user.toml",
        "project": project / ".pasture" / "policy.toml",
    }


def _payload(project: Path, **extra) -> dict:
    return dict(PAYLOAD, cwd=str(project), **extra)


@pytest.mark.parametrize(
    "combo", list(itertools.product(DECISIONS, repeat=3)), ids=lambda c: "-".join(d or "absent" for d in c)
)
def test_every_combination_of_layer_decisions_is_most_restrictive_wins(layered, combo):
    env, tmp_path, project = layered
    paths = _paths(tmp_path, project)
    for (layer, path), decision in zip(paths.items(), combo, strict=True):
        if decision is not None:
            path.write_text(_rule_layer(decision, f"{layer}-rule"))
    if combo[2] is not None:
        trust.trust(str(paths["project"]), env)
    code, out, err = call("claude-code", "PreToolUse", "2.1.328", _payload(project), env)
    present = [(layer, d) for layer, d in zip(paths, combo, strict=True) if d is not None]
    entry = query(project / ".pasture" / "journal.sqlite3")[-1]
    if not present:
        assert (code, out) == (0, "") and entry["reason"] == "no policy configured"
        return
    want = max((d for _, d in present), key=RANK.__getitem__)
    decider = next(layer for layer, d in present if d == want)
    assert entry["decision"] == want
    assert entry["layer"] == decider and entry["rule"] == f"{decider}-rule"
    if want == "proceed":
        assert (code, out) == (0, "")
    else:
        answer = json.loads(out)["hookSpecificOutput"]
        assert answer["permissionDecision"] == want
        assert answer["permissionDecisionReason"] == f"{decider}-rule says {want}"


def test_an_untrusted_project_layer_keeps_its_rules_and_loses_its_command_gate(layered):
    env, tmp_path, project = layered
    marker = tmp_path / "gate-ran"
    gate = tmp_path / "gate.py"
    gate.write_text(
        f"import pathlib, sys\npathlib.Path({str(marker)!r}).write_text('ran')\n"
        'print(\'{"decision": "deny", "reason": "the repository gate says no"}\')\n'
    )
    policy = project / ".pasture" / "policy.toml"
    policy.write_text(
        f'[gate]\nkind = "command"\ncommand = [{json.dumps(sys.executable)}, {json.dumps(str(gate))}]\n'
        + _rule_layer("ask", "project-ask").replace('tool_kind = "shell"', 'command = "curl"')
    )
    code, out, err = call("claude-code", "PreToolUse", "2.1.328", _payload(project), env)
    assert (code, out) == (0, "") and not marker.exists()
    assert "is not trusted: ignored command gate" in err and f"pasture policy trust --project {project}" in err
    # its rules still apply, untrusted: they can only protect the user
    code, out, _ = call(
        "claude-code", "PreToolUse", "2.1.328", _payload(project, tool_input={"command": "curl example.test"}), env
    )
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "ask" and not marker.exists()
    trust.trust(str(policy), env)
    code, out, err = call("claude-code", "PreToolUse", "2.1.328", _payload(project), env)
    assert marker.read_text() == "ran"
    assert json.loads(out)["hookSpecificOutput"]["permissionDecisionReason"] == "the repository gate says no"
    assert "not trusted" not in err
    marker.unlink()
    policy.write_text(policy.read_text() + "\n# an edit\n")  # any change un-trusts it
    code, out, err = call("claude-code", "PreToolUse", "2.1.328", _payload(project), env)
    assert (code, out) == (0, "") and not marker.exists() and "changed since you trusted it" in err


def test_an_untrusted_project_journal_path_outside_the_project_is_ignored(layered):
    env, tmp_path, project = layered
    outside = tmp_path / "elsewhere" / "journal.sqlite3"
    policy = project / ".pasture" / "policy.toml"
    policy.write_text(f"[journal]\npath = {json.dumps(str(outside))}\n")
    call("claude-code", "PreToolUse", "2.1.328", _payload(project), env)
    assert not (tmp_path / "elsewhere").exists()
    assert len(query(project / ".pasture" / "journal.sqlite3")) == 1
    policy.write_text('[journal]\npath = "logs/journal.sqlite3"\n')  # inside the project: honoured untrusted
    call("claude-code", "PreToolUse", "2.1.328", _payload(project), env)
    assert len(query(project / "logs" / "journal.sqlite3")) == 1
    policy.write_text(f"[journal]\npath = {json.dumps(str(outside))}\n")
    trust.trust(str(policy), env)
    call("claude-code", "PreToolUse", "2.1.328", _payload(project), env)
    assert len(query(outside)) == 1


def test_an_untrusted_project_ai_gate_never_sends_the_key(layered, monkeypatch):
    env, tmp_path, project = layered
    # 127.0.0.1:9 (discard): had the gate run, it would fail on loopback; untrusted, it never runs.
    (project / ".pasture" / "policy.toml").write_text(
        '[gate]\nkind = "ai"\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m"\ndefault = "proceed"\n'
    )
    env = dict(env, PASTURE_AI_API_KEY="sk-user-secret")
    code, out, err = call("claude-code", "PreToolUse", "2.1.328", _payload(project), env)
    assert (code, out) == (0, "")
    assert "ignored AI gate (endpoint http://127.0.0.1:9/v1)" in err
    entry = query(project / ".pasture" / "journal.sqlite3")[-1]
    assert entry["gate"] == "rules:default" and entry["failure"] is None


def test_a_project_layer_cannot_switch_the_guard_off(layered):
    env, tmp_path, project = layered
    (project / ".pasture" / "policy.toml").write_text("[builtin]\nprotect_guard_files = false\n")
    trust.trust(str(project / ".pasture" / "policy.toml"), env)
    write = _payload(
        project, tool_name="Write", tool_input={"file_path": str(project / ".pasture" / "policy.toml"), "content": "x"}
    )
    code, out, err = call("claude-code", "PreToolUse", "2.1.328", write, env)
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "only the user or managed policy can switch" in err
    (tmp_path / "user.toml").write_text("[builtin]\nprotect_guard_files = false\n")
    code, out, _ = call("claude-code", "PreToolUse", "2.1.328", write, env)
    assert (code, out) == (0, "")


@pytest.mark.parametrize("layer", ["managed", "user", "project"])
def test_an_unreadable_layer_fails_closed_on_gate_rows_and_stays_quiet_on_observations(layered, layer, monkeypatch):
    env, tmp_path, project = layered
    monkeypatch.chdir(project)  # the OpenCode plugin runs the runtime in the project folder (no cwd in payloads)
    path = _paths(tmp_path, project)[layer]
    path.mkdir()  # a folder where the file should be: it exists and cannot be read (works as root too)
    code, out, err = call("claude-code", "PreToolUse", "2.1.328", _payload(project), env)
    assert code == 0 and refusal(out) == err.strip()  # Claude Code: the JSON refusal, not exit 2
    assert f"{layer} policy: {path}: cannot be read" in err
    code, out, err = call("claude-code", "PostToolUse", "2.1.328", _payload(project), env)
    assert (code, out, err) == (0, "", "")
    code, out, _ = call(
        "opencode",
        "tool.execute.before",
        "1.18.33",
        {"input": {"tool": "bash", "sessionID": "s"}, "output": {"args": {"command": "ls"}}},
        env,
    )
    assert code == 3  # the OpenCode plugin throws on this fail-fast row


def test_a_deny_from_one_layer_holds_even_when_another_layer_is_broken(layered):
    env, tmp_path, project = layered
    (tmp_path / "managed.toml").write_text("not = [toml")
    (tmp_path / "user.toml").write_text(_rule_layer("deny", "user-deny"))
    code, out, _ = call("claude-code", "PreToolUse", "2.1.328", _payload(project), env)
    assert json.loads(out)["hookSpecificOutput"]["permissionDecisionReason"] == "user-deny says deny"
    assert query(project / ".pasture" / "journal.sqlite3")[-1]["layer"] == "user"


def test_gates_do_not_run_once_a_layer_denies(layered):
    env, tmp_path, project = layered
    marker = tmp_path / "gate-ran"
    gate = tmp_path / "gate.py"
    gate.write_text(
        f"import pathlib\npathlib.Path({str(marker)!r}).write_text('x')\nprint('{{\"decision\": \"proceed\"}}')\n"
    )
    (tmp_path / "managed.toml").write_text(_rule_layer("deny", "managed-deny"))
    (tmp_path / "user.toml").write_text(
        f'[gate]\nkind = "command"\ncommand = [{json.dumps(sys.executable)}, {json.dumps(str(gate))}]\n'
    )
    code, out, _ = call("claude-code", "PreToolUse", "2.1.328", _payload(project), env)
    assert json.loads(out)["hookSpecificOutput"]["permissionDecision"] == "deny" and not marker.exists()


def test_the_trust_store_pins_exact_bytes_and_lives_outside_the_project(layered):
    env, tmp_path, project = layered
    policy = project / ".pasture" / "policy.toml"
    policy.write_text(_rule_layer("deny", "x"))
    pinned = trust.trust(str(policy), env)
    store = Path(trust.store_path(env))
    assert project not in store.parents
    assert json.loads(store.read_text())["trusted"] == {
        str(policy.resolve()): {"policy": pinned, "root": str(project.resolve()), "programs": {}}
    }  # this policy runs no program
    assert trust.trusted_digest(str(policy), env) == pinned == trust.digest(policy.read_bytes())
    assert trust.untrust(str(policy), env) is True and trust.untrust(str(policy), env) is False
    assert json.loads(store.read_text())["trusted"] == {}


def test_a_corrupt_trust_store_trusts_nothing_and_says_so(layered):
    env, tmp_path, project = layered
    gate = tmp_path / "gate.py"
    gate.write_text('print(\'{"decision": "deny", "reason": "gate"}\')\n')
    policy = project / ".pasture" / "policy.toml"
    policy.write_text(f'[gate]\nkind = "command"\ncommand = [{json.dumps(sys.executable)}, {json.dumps(str(gate))}]\n')
    trust.trust(str(policy), env)
    Path(trust.store_path(env)).write_text("{not json")
    code, out, err = call("claude-code", "PreToolUse", "2.1.328", _payload(project), env)
    assert (code, out) == (0, "")
    assert "no project policy is trusted" in err


def test_the_compiled_policy_is_cached_by_content(layered):
    from pasture.runtime import effective

    env, tmp_path, project = layered
    policy = project / ".pasture" / "policy.toml"
    policy.write_text(_rule_layer("deny", "first"))
    effective._MEMO.clear()
    first = effective.load(str(project), env)
    effective._MEMO.clear()
    again = effective.load(str(project), env)
    assert (first.from_cache, again.from_cache) == (False, True)
    policy.write_text(_rule_layer("ask", "second"))  # same size class, different bytes
    effective._MEMO.clear()
    changed = effective.load(str(project), env)
    assert changed.from_cache is False and changed.layer("project")["rules"][0]["name"] == "second"
    for cached in Path(env["PASTURE_CACHE_DIR"]).rglob("*.cache"):
        cached.write_bytes(b"garbage")  # a broken cache costs speed, never a decision
    effective._MEMO.clear()
    broken = effective.load(str(project), env)
    assert broken.from_cache is False and broken.layer("project")["rules"][0]["decision"] == "ask"
