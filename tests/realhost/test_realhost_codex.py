"""Codex CLI (real, pinned in tests/npm) with OUR generated hooks.json adapter and runtime.

Each test: a temp project with ``generated/codex@<floor>/hooks.json`` as its ``.codex/hooks.json``,
``PASTURE_BIN`` = a wrapper running this repo's runtime, ``PASTURE_POLICY``/``PASTURE_JOURNAL`` in
the run folder, and a fake Responses model on 127.0.0.1 that calls ``exec_command {cmd: "echo
pasture-probe > probe.txt"}`` (hooks see it as ``Bash {command}``) and then quotes the tool output.

Hook trust: NO run passes ``--dangerously-bypass-hook-trust``. Trust is recorded the way Codex
records a user's review (``codex app-server`` ``hooks/list`` -> ``[hooks.state."<key>"]
trusted_hash`` in ``$CODEX_HOME/config.toml``): hostenv's ``hook_trust="persist"`` route, see
``realhost_support.run_host``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from realhost_support import (
    CODEX,
    COMMAND,
    CRASH_MARK,
    DENY_REASON,
    FAILURE_EXIT,
    JOURNAL_REFUSAL,
    allow_policy,
    deny_policy,
    run_host,
)

pytestmark = pytest.mark.real_host
SPEC = CODEX
BYPASS = "--dangerously-bypass-hook-trust"


def _events(out) -> list[dict]:
    return [json.loads(line) for line in out.result.stdout.splitlines() if line.startswith("{")]


def _thread_id(out) -> str:
    return next(e["thread_id"] for e in _events(out) if e.get("type") == "thread.started")


def _turn_metadata(out) -> dict:
    """What Codex told the model server about the turn (session, thread and turn ids)."""
    return json.loads(out.result.requests[0]["headers"]["x-codex-turn-metadata"])


def _assert_trusted_without_bypass(out) -> None:
    """Codex ran without the bypass flag, with trust recorded for exactly our installed hooks (by
    ``pasture install`` when it exists, else hostenv's app-server route) in the config it ran with."""
    assert BYPASS not in out.result.argv, out.result.argv
    assert out.install_trust in ("pasture install", "persist"), out.install_trust
    hooks_file = out.project / ".codex" / "hooks.json"
    installed = json.loads(hooks_file.read_text())["hooks"]
    trusted = out.codex_trust()
    assert len(trusted) == sum(len(group["hooks"]) for groups in installed.values() for group in groups)
    assert all(h["key"].startswith(f"{hooks_file}:") for h in trusted), trusted
    config = (out.run.layout.home / ".codex" / "config.toml").read_text()
    assert all(h["hash"] in config for h in trusted)
    if out.install_trust == "pasture install":
        report = out.install.report
        assert report["ok"] is True and report["contract"] == SPEC.contract, report
        assert {h["after"] for h in report["trust"]["hooks"]} == {"trusted"}, report["trust"]


def test_deny_rule_blocks_the_shell_command_and_the_model_gets_our_reason(npm_bin: Path, tmp_path: Path) -> None:
    out = run_host(SPEC, npm_bin, tmp_path / "run", deny_policy())
    assert out.result.exit_code == 0, out.describe()
    _assert_trusted_without_bypass(out)
    assert not out.probe_exists, out.describe()

    (pre,) = out.calls("PreToolUse")
    assert pre.payload["tool_name"] == "Bash" and pre.payload["tool_input"] == {"command": COMMAND}
    # Strict output: exactly the fields PreToolUse allows, hookEventName present, exit 0.
    assert pre.rc == 0
    assert json.loads(pre.stdout) == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": DENY_REASON,
        }
    }
    # Codex told the model our reason (and, its own doing, appends the raw command).
    (told,) = out.tool_results()
    assert told["call_id"] == pre.payload["tool_use_id"]
    assert told["text"] == f"Command blocked by PreToolUse hook: {DENY_REASON}. Command: {COMMAND}", told
    assert out.calls("PostToolUse") == []
    assert not any(e.get("item", {}).get("type") == "command_execution" for e in _events(out))

    (row,) = out.journal(event="PreToolUse")
    assert (row["decision"], row["answer"], row["gate"], row["reason"]) == (
        "deny",
        "deny",
        "rules:realhost-no-probe",
        DENY_REASON,
    )


def test_allow_path_runs_the_command_and_journals_post_tool_use_with_identities(npm_bin: Path, tmp_path: Path) -> None:
    out = run_host(SPEC, npm_bin, tmp_path / "run", allow_policy())
    assert out.result.exit_code == 0, out.describe()
    _assert_trusted_without_bypass(out)
    assert (out.project / "probe.txt").read_text() == "pasture-probe\n", out.describe()

    meta = _turn_metadata(out)
    session = _thread_id(out)
    assert meta["session_id"] == session
    (told,) = out.tool_results()
    call_id = told["call_id"]  # the function_call id Codex echoed back with the output

    (post,) = out.journal(event="PostToolUse", session=session)
    env = post["envelope"]
    assert post["semantic"] == "gate-consultation"  # Codex PostToolUse consults the gate (proceed here)
    assert (post["decision"], post["answer"], post["gate"]) == ("proceed", "proceed", "rules:default")
    assert env["identities"] == {"session": session, "turn": meta["turn_id"], "tool-call": call_id}
    assert env["unresolved"] == []
    assert (env["harness"], env["contract"], env["tool_name"], env["tool_kind"], env["command"]) == (
        "codex",
        SPEC.contract,
        "Bash",
        "shell",
        COMMAND,
    )
    assert env["cwd"] == str(out.project)
    events = [r["event"] for r in out.journal()]
    assert events[:4] == ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse"], events


def test_crashing_gate_on_pre_tool_use_blocks_exit_2(npm_bin: Path, tmp_path: Path) -> None:
    row = SPEC.row("PreToolUse")
    # cited: the codex-rs handler (0.153.0) or our committed capture of the refusal (0.171.0)
    assert row.failure == "strict-output-exit-2-blocks" and (
        "pre_tool_use.rs" in row.evidence or row.evidence.startswith("captures/codex@")
    )
    out = run_host(SPEC, npm_bin, tmp_path / "run", None, crash_on=("PreToolUse",))
    assert out.result.exit_code == 0, out.describe()
    _assert_trusted_without_bypass(out)
    assert not out.probe_exists, out.describe()

    (pre,) = out.calls("PreToolUse")
    assert pre.rc == FAILURE_EXIT[row.failure] == 2 and pre.stdout == ""
    assert "gate failed on PreToolUse" in pre.stderr and CRASH_MARK in pre.stderr
    (told,) = out.tool_results()
    assert told["text"].startswith(
        "Command blocked by PreToolUse hook: pasture: gate failed on PreToolUse: "
        "user policy command gate: gate command exited 7"
    ), told
    (journaled,) = out.journal(event="PreToolUse")
    assert (journaled["decision"], journaled["answer"], journaled["gate"]) == ("none", "fail-block", "command")


def test_a_crashing_gate_on_a_non_blocking_gate_row_never_blocks(npm_bin: Path, tmp_path: Path) -> None:
    """The gate crashes on PostToolUse, a gate-consultation row whose EFFECTIVE failure is
    report-and-continue (declared strict-output-exit-2-blocks, uncited): Codex must carry on."""
    post_row = SPEC.row("PostToolUse")
    assert (post_row.semantic, post_row.declared_failure, post_row.failure) == (
        "gate-consultation",
        "strict-output-exit-2-blocks",
        "report-and-continue",
    )
    out = run_host(SPEC, npm_bin, tmp_path / "run", None, crash_on=("PostToolUse",))
    assert out.result.exit_code == 0, out.describe()
    _assert_trusted_without_bypass(out)
    assert (out.project / "probe.txt").read_text() == "pasture-probe\n", out.describe()

    (post,) = out.calls("PostToolUse")
    assert (post.rc, post.stdout) == (0, "") and CRASH_MARK in post.stderr
    # The tool output reached the model untouched, and the turn finished.
    (told,) = out.tool_results()
    assert "Process exited with code 0" in told["text"]
    assert (out.result.layout.root / "codex-last-message.txt").read_text().startswith("Done. The tool said:")
    (journaled,) = out.journal(event="PostToolUse")
    assert (journaled["decision"], journaled["answer"]) == ("none", "fail-open")


def test_an_unwritable_journal_gets_each_rows_failure_mode(npm_bin: Path, tmp_path: Path) -> None:
    """The journal cannot be written for the whole run (its folder is a file). SessionStart
    (strict-hook-failure) exits 1 with one line, which Codex records and ignores; UserPromptSubmit
    (strict-output-exit-2-blocks) refuses the prompt, so the model is never asked for a tool."""
    out = run_host(SPEC, npm_bin, tmp_path / "run", allow_policy(), journal="broken", reaches_model=False)
    _assert_trusted_without_bypass(out)
    spool = f"{out.journal_path}.spool"
    assert not out.probe_exists, out.describe()

    (start,) = out.calls("SessionStart")
    assert SPEC.row("SessionStart").failure == "strict-hook-failure"
    assert (start.rc, start.stdout) == (1, ""), start.brief()
    assert start.stderr == (
        f"pasture: cannot journal SessionStart: journal {spool}: {JOURNAL_REFUSAL}; make that "
        "folder writable, or point PASTURE_JOURNAL or the policy's [journal] path at one "
        "(pasture policy show names the journal in use)\n"
    ), start.brief()
    (prompt,) = out.calls("UserPromptSubmit")
    assert SPEC.row("UserPromptSubmit").failure == "strict-output-exit-2-blocks"
    assert (prompt.rc, prompt.stdout) == (2, ""), prompt.brief()
    assert prompt.stderr.startswith(f"pasture: cannot journal UserPromptSubmit: journal {spool}: {JOURNAL_REFUSAL}")
    assert out.calls("PreToolUse") == [] and out.tool_results() == []
    assert "Traceback" not in "".join(c.stderr for c in out.calls())


def test_without_recorded_trust_codex_skips_our_hooks_silently(npm_bin: Path, tmp_path: Path) -> None:
    """The control for the trust proof above: same deny policy, no trust recorded and no bypass flag:
    Codex runs none of our hooks (no runtime call at all) and the command runs."""
    out = run_host(SPEC, npm_bin, tmp_path / "run", deny_policy(), options={"hook_trust": "none"})
    assert out.result.exit_code == 0, out.describe()
    assert BYPASS not in out.result.argv
    assert out.calls() == [], out.describe()
    assert out.probe_exists
