"""Claude Code (real, pinned in tests/npm) with OUR generated settings.json adapter and runtime.

Each test: a temp project with ``generated/claude-code@<floor>/settings.json`` as its
``.claude/settings.json``, ``PASTURE_BIN`` = a wrapper running this repo's runtime, ``PASTURE_POLICY``
and ``PASTURE_JOURNAL`` in the run folder, and a fake Anthropic model on 127.0.0.1 that asks for
``Bash {command: "echo pasture-probe > probe.txt"}`` and then quotes the tool result back.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from realhost_support import (
    CLAUDE,
    COMMAND,
    CRASH_MARK,
    DENY_REASON,
    JOURNAL_REFUSAL,
    allow_policy,
    deny_policy,
    run_host,
)

pytestmark = pytest.mark.real_host
SPEC = CLAUDE


def _final(outcome) -> dict:
    return json.loads(outcome.result.stdout)


def test_deny_rule_blocks_bash_and_the_model_gets_our_reason(npm_bin: Path, tmp_path: Path) -> None:
    out = run_host(SPEC, npm_bin, tmp_path / "run", deny_policy())
    assert out.result.exit_code == 0, out.describe()
    assert not out.probe_exists, out.describe()

    (pre,) = out.calls("PreToolUse")
    assert pre.payload["tool_name"] == "Bash" and pre.payload["tool_input"]["command"] == COMMAND
    # We answered with the JSON deny the PreToolUse row's response capability (deny+ask) allows...
    assert pre.rc == 0
    assert json.loads(pre.stdout) == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": DENY_REASON,
        }
    }
    # ...and Claude sent exactly that reason back to the model as an error tool result.
    (told,) = out.tool_results()
    assert told["is_error"] is True
    assert told["text"].startswith(f"PreToolUse:Bash hook error: {DENY_REASON}"), told
    assert told["call_id"] == pre.payload["tool_use_id"]
    assert out.calls("PostToolUse") == []  # the tool never ran
    assert _final(out)["permission_denials"][0]["tool_use_id"] == told["call_id"]

    (row,) = out.journal(event="PreToolUse")
    assert (row["decision"], row["answer"], row["gate"], row["reason"]) == (
        "deny",
        "deny",
        "rules:realhost-no-probe",
        DENY_REASON,
    )


def test_allow_path_runs_bash_and_journals_post_tool_use_with_identities(npm_bin: Path, tmp_path: Path) -> None:
    out = run_host(SPEC, npm_bin, tmp_path / "run", allow_policy())
    assert out.result.exit_code == 0, out.describe()
    assert (out.project / "probe.txt").read_text() == "pasture-probe\n", out.describe()

    session = _final(out)["session_id"]  # Claude's own report of its session
    (told,) = out.tool_results()
    assert told["is_error"] is False
    call_id = told["call_id"]  # the tool_use id Claude sent back to the model

    (pre,) = out.journal(event="PreToolUse")
    assert (pre["decision"], pre["answer"], pre["gate"]) == ("proceed", "proceed", "rules:default")

    (post,) = out.journal(event="PostToolUse", session=session)
    env = post["envelope"]
    assert (post["semantic"], post["decision"], post["answer"]) == ("observation", "observe", "proceed")
    assert post["session"] == session
    assert env["identities"] == {"session": session, "tool-call": call_id}
    assert env["unresolved"] == []
    assert (env["harness"], env["contract"], env["tool_name"], env["tool_kind"], env["command"]) == (
        "claude-code",
        SPEC.contract,
        "Bash",
        "shell",
        COMMAND,
    )
    assert env["payload"]["tool_response"]["interrupted"] is False
    assert env["cwd"] == str(out.project)
    # Every hook Claude ran went through the runtime and into the journal, in one session.
    events = [r["event"] for r in out.journal()]
    assert events[:4] == ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse"], events
    assert {r["session"] for r in out.journal()} == {session}


def test_crashing_gate_on_pre_tool_use_blocks_exit_2(npm_bin: Path, tmp_path: Path) -> None:
    assert SPEC.row("PreToolUse").failure == "exit-2-blocks"  # cited in the profile
    out = run_host(SPEC, npm_bin, tmp_path / "run", None, crash_on=("PreToolUse",))
    assert out.result.exit_code == 0, out.describe()
    assert not out.probe_exists, out.describe()

    (pre,) = out.calls("PreToolUse")
    # exit-2-blocks, answered as the JSON deny (issue 17): on exit 2 Claude (2.1.328, 2.1.332) put the
    # whole hook command line in front of our stderr ("PreToolUse:Bash hook error: [${PASTURE_BIN:-pasture}
    # hook lifecycle --harness claude-code ...]: pasture: gate failed ..."); the JSON deny carries only the reason.
    assert SPEC.row("PreToolUse").failure == "exit-2-blocks" and pre.rc == 0
    decision = json.loads(pre.stdout)["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny"
    assert decision["permissionDecisionReason"].startswith("pasture: gate failed on PreToolUse")
    assert "gate failed on PreToolUse" in pre.stderr and CRASH_MARK in pre.stderr
    (told,) = out.tool_results()
    assert told["is_error"] is True
    assert told["text"].startswith(
        "PreToolUse:Bash hook error: pasture: gate failed on PreToolUse: user policy command gate: "
        "gate command exited 7"
    ), told
    assert "hook lifecycle" not in told["text"], told  # the raw command line never reaches the model
    (row,) = out.journal(event="PreToolUse")
    assert (row["decision"], row["answer"], row["gate"]) == ("none", "fail-block", "command")
    assert CRASH_MARK in row["failure"]


def test_a_crashing_gate_on_a_non_blocking_gate_row_never_blocks(npm_bin: Path, tmp_path: Path) -> None:
    """The gate crashes on PostToolBatch, a gate-consultation row whose EFFECTIVE failure is
    report-and-continue (declared exit-2-blocks, uncited): Claude must run the tool and finish."""
    batch = SPEC.row("PostToolBatch")
    assert (batch.semantic, batch.declared_failure, batch.failure) == (
        "gate-consultation",
        "exit-2-blocks",
        "report-and-continue",
    )
    out = run_host(SPEC, npm_bin, tmp_path / "run", None, crash_on=("PostToolBatch",))
    assert out.result.exit_code == 0, out.describe()
    assert (out.project / "probe.txt").read_text() == "pasture-probe\n", out.describe()
    assert _final(out)["result"].startswith("Done. The tool said:"), out.describe()

    (batch_call,) = out.calls("PostToolBatch")
    assert (batch_call.rc, batch_call.stdout) == (0, "")
    assert "gate failed on PostToolBatch" in batch_call.stderr and CRASH_MARK in batch_call.stderr
    (batch_row,) = out.journal(event="PostToolBatch")
    assert (batch_row["decision"], batch_row["answer"]) == ("none", "fail-open")
    assert CRASH_MARK in batch_row["failure"]


def test_an_unwritable_journal_gets_each_rows_failure_mode(npm_bin: Path, tmp_path: Path) -> None:
    """The journal cannot be written for the whole run (its folder is a file). No event may pass
    unjournaled as if all were well: observation rows (report-and-continue) go on with one line
    saying so, and the first gate row that blocks on failure (UserPromptSubmit, exit-2-blocks)
    refuses the prompt with that line, so the model is never asked and the probe never written."""
    out = run_host(SPEC, npm_bin, tmp_path / "run", allow_policy(), journal="broken", reaches_model=False)
    spool = f"{out.journal_path}.spool"
    assert not out.probe_exists, out.describe()

    (start,) = out.calls("SessionStart")
    assert SPEC.row("SessionStart").failure == "report-and-continue"
    assert (start.rc, start.stdout) == (0, ""), start.brief()
    assert start.stderr == (
        f"pasture: cannot journal SessionStart: journal {spool}: {JOURNAL_REFUSAL}; make that "
        "folder writable, or point PASTURE_JOURNAL or the policy's [journal] path at one "
        "(pasture policy show names the journal in use)\n"
    ), start.brief()
    (prompt,) = out.calls("UserPromptSubmit")
    assert SPEC.row("UserPromptSubmit").failure == "exit-2-blocks"
    assert prompt.rc == 0 and json.loads(prompt.stdout)["decision"] == "block", prompt.brief()  # the JSON block
    assert json.loads(prompt.stdout)["reason"].startswith(f"pasture: cannot journal UserPromptSubmit: journal {spool}")
    assert prompt.stderr.startswith(f"pasture: cannot journal UserPromptSubmit: journal {spool}: {JOURNAL_REFUSAL}")
    assert out.calls("PreToolUse") == [] and out.tool_results() == []
    assert [r for r in out.result.requests if r.get("reply", {}).get("kind") == "turn"] == [], out.describe()
    assert "Traceback" not in "".join(c.stderr for c in out.calls())


def test_the_generated_plugin_bundle_loads_and_denies(npm_bin: Path, tmp_path: Path) -> None:
    """Claude Code loads generated/claude-code@*/plugin/ with --plugin-dir; its hooks run our runtime."""
    plugin = SPEC.adapter_dir / "plugin"
    assert (plugin / ".claude-plugin" / "plugin.json").is_file()
    out = run_host(
        SPEC,
        npm_bin,
        tmp_path / "run",
        deny_policy(),
        install=False,
        options={"extra_args": ["--plugin-dir", str(plugin)]},
    )
    assert out.result.exit_code == 0, out.describe()
    assert not (out.project / ".claude" / "settings.json").exists()  # the plugin is the only adapter
    assert not out.probe_exists, out.describe()
    (pre,) = out.calls("PreToolUse")
    assert json.loads(pre.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert {c.event for c in out.calls()} >= {"SessionStart", "UserPromptSubmit", "PreToolUse", "Stop"}
