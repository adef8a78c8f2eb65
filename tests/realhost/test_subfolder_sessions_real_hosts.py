"""Issue 9 item 2 on the REAL hosts: a session started in a subfolder (``cd src``, then the agent).

The project's ``.pasture/policy.toml`` (a project layer: its deny rule applies untrusted, rules only
ever protect the user) sits at the project root; the host starts in ``<project>/src``, and the fake
model asks for ``echo pasture-probe > probe.txt``. The runtime must find the project the way git
finds ``.git``: policy and journal from the root, on every host that runs our hooks at all.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from realhost_support import COMMAND, DENY_REASON, SPECS, Outcome, deny_policy, run_host

pytestmark = pytest.mark.real_host


def _in_src(spec, npm_bin: Path, tmp_path: Path, **kwargs) -> Outcome:
    return run_host(
        spec,
        npm_bin,
        tmp_path / "run",
        None,
        project_policy=deny_policy(),
        journal="layers",
        cwd="src",
        prepare=lambda run: (run.project / "src").mkdir(),
        **kwargs,
    )


def _assert_denied_from_the_root(out: Outcome) -> None:
    spec, project = out.spec, out.project
    assert out.result.exit_code == 0, out.describe()
    assert not (project / "src" / "probe.txt").exists() and not out.probe_exists, out.describe()
    assert not (project / "src" / ".pasture").exists(), out.describe()  # no stray journal in the subfolder
    (row,) = out.journal(project / ".pasture" / "journal.sqlite3", event=spec.pre_event)
    assert (row["decision"], row["answer"], row["layer"], row["rule"]) == (
        "deny",
        "deny",
        "project",
        "realhost-no-probe",
    ), row
    assert row["envelope"]["command"] == COMMAND
    assert any(DENY_REASON in r["text"] for r in out.tool_results()), out.tool_results()


@pytest.mark.parametrize("host", ["codex", "opencode"])
def test_a_session_started_in_a_subfolder_gets_the_projects_policy_and_journal(
    npm_bin: Path, tmp_path: Path, host: str
) -> None:
    out = _in_src(SPECS[host], npm_bin, tmp_path)
    _assert_denied_from_the_root(out)
    if host == "codex":  # Codex says where the session runs: the subfolder, not the root
        (row,) = out.journal(out.project / ".pasture" / "journal.sqlite3", event="PreToolUse")
        assert row["envelope"]["cwd"] == str(out.project / "src")


def test_claude_code_started_in_a_subfolder_loads_no_project_settings(npm_bin: Path, tmp_path: Path) -> None:
    """Host behaviour, recorded (issue 9): Claude Code (2.1.328, and 2.1.332 still) started in ``src/`` reads no
    ``<project>/.claude/settings.json``, so no project-scope hook runs and nothing can refuse: the
    probe is written in ``src/``. The user-scope adapter (next test) is what guards such sessions,
    and ``pasture doctor`` run in ``src/`` reports enforcement off there (exit 1) and names the fix.
    If this starts failing, Claude began
    loading project settings from a subfolder: update the note and the doctor."""
    out = _in_src(SPECS["claude-code"], npm_bin, tmp_path)
    assert out.result.exit_code == 0, out.describe()
    assert (out.project / ".claude" / "settings.json").is_file()  # installed, yet not read
    assert out.calls() == [], out.describe()
    assert (out.project / "src" / "probe.txt").read_text() == "pasture-probe\n"
    assert json.loads(out.result.stdout)["permission_denials"] == []

    out.env["PATH"] = f"{npm_bin}:{out.env['PATH']}"  # the doctor asks `claude --version`
    done = out.pasture("doctor", "--host", "claude-code", "--json", cwd=out.project / "src")
    findings = [f for f in json.loads(done.stdout)["findings"] if f["check"] == "claude-start"]
    assert [f["status"] for f in findings] == ["off"], done.stdout  # issue 18: never "on" where no hook runs
    assert done.returncode == 1 and json.loads(done.stdout)["ok"] is False
    assert "pasture install claude-code --user" in findings[0]["fix"]


def test_claude_code_in_a_subfolder_is_guarded_by_the_user_scope_adapter(npm_bin: Path, tmp_path: Path) -> None:
    """With ``pasture install claude-code --user`` the hooks run wherever the session starts, and the
    runtime finds the project upwards from ``src/``, where Claude says the session runs."""
    out = _in_src(SPECS["claude-code"], npm_bin, tmp_path, install="user")
    assert not (out.project / ".claude" / "settings.json").exists()
    assert (out.run.layout.home / ".claude" / "settings.json").is_file()
    _assert_denied_from_the_root(out)
    (row,) = out.journal(out.project / ".pasture" / "journal.sqlite3", event="PreToolUse")
    assert row["envelope"]["cwd"] == str(out.project / "src")
