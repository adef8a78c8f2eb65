"""The built-in guard-files rule on what the real hosts really send for their file tools.

Every payload under file_tool_payloads/ was captured from the pinned real host (README there):
each file tool aimed at the project's ``.pasture/`` must be denied by the built-in rule, and the
same tool aimed at an ordinary project file must not be denied by anything.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hookrun import call
from profiles_found import pinned

from pasture.journal.db import query
from pasture.runtime.builtin import RULE

PAYLOADS = Path(__file__).resolve().parent / "file_tool_payloads"
FILES = sorted(PAYLOADS.glob("*@*/*.json"))
#: The hosts pinned in tests/npm: their payloads are what the real-host run compares (and refreshes).
PINNED = {
    "claude-code": pinned("@anthropic-ai/claude-code"),
    "codex": pinned("@openai/codex"),
    "opencode": pinned("opencode-ai"),
}
HOSTS = {f"{host}@{version}" for host, version in PINNED.items()}


def _placed(value, run: str):
    """The payload with the capture's run folder ($RUN) put where this test's run folder is."""
    if isinstance(value, dict):
        return {k: _placed(v, run) for k, v in value.items()}
    if isinstance(value, list):
        return [_placed(v, run) for v in value]
    return value.replace("$RUN", run) if isinstance(value, str) else value


def _decision(harness: str, stdout: str) -> str:
    if harness == "opencode":
        return json.loads(stdout)["decision"]
    return json.loads(stdout)["hookSpecificOutput"]["permissionDecision"] if stdout.strip() else "proceed"


def test_every_pinned_host_and_file_tool_has_captured_payloads() -> None:
    assert {f.parent.name for f in FILES} == HOSTS
    tools = {(f.parent.name, json.loads(f.read_text())["tool"], json.loads(f.read_text())["target"]) for f in FILES}
    by_host = {
        "claude-code": ("Write", "Edit", "NotebookEdit", "Bash"),
        "codex": ("apply_patch", "Bash"),
        "opencode": ("write", "edit", "apply_patch", "bash"),
    }
    expected = {(f"{host}@{PINNED[host]}", tool) for host, tools in by_host.items() for tool in tools}
    for host, tool in expected:  # each tool both ways: a protected path and an ordinary one
        assert {(host, tool, "protected"), (host, tool, "ordinary")} <= tools, (host, tool)


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_the_builtin_rule_on_a_real_payload(path: Path, env: dict, tmp_path: Path, monkeypatch) -> None:
    doc = json.loads(path.read_text())
    run = tmp_path / "run"
    project = run / "project"
    (project / ".pasture").mkdir(parents=True)
    (project / ".pasture" / "policy.toml").write_text('[gate]\nkind = "rules"\n')
    (project / ".git").mkdir()
    env.update(
        HOME=str(run / "home"),
        XDG_CONFIG_HOME=str(run / "home" / ".config"),
        XDG_STATE_HOME=str(run / "home" / ".local" / "state"),
        PASTURE_POLICY=str(tmp_path / "no-user-policy"),
    )
    monkeypatch.chdir(project)  # OpenCode's payloads carry no cwd: the hook runs in the project
    payload = _placed(doc["payload"], str(run))
    harness = doc["host"]
    code, out, err = call(harness, doc["event"], doc["version"], payload, env)
    assert code == 0, err
    (row,) = query(env["PASTURE_JOURNAL"])
    assert row["tool_name"] == doc["tool"]
    if doc["target"] == "protected":
        assert _decision(harness, out) == "deny", (out, err)
        assert (row["layer"], row["rule"]) == ("builtin", RULE)
        assert "belongs to the guard" in row["reason"]
    else:
        assert _decision(harness, out) == "proceed", (out, err)
        assert row["decision"] == "proceed" and row["rule"] is None
