"""OpenCode (real, pinned in tests/npm) with OUR generated v1 plugin and runtime.

Each test: a temp project with ``generated/opencode@<floor>/pasture-lifecycle.ts`` in
``.opencode/plugins/``, ``PASTURE_BIN`` = a wrapper running this repo's runtime,
``PASTURE_POLICY``/``PASTURE_JOURNAL`` in the run folder, and a fake Chat Completions model on
127.0.0.1 that calls ``bash {command: "echo pasture-probe > probe.txt"}`` and then quotes the tool
result. OpenCode loads the plugin under its own Bun; the plugin starts ``$PASTURE_BIN hook serve``
once and sends it every hook call and bus event.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from realhost_support import (
    COMMAND,
    CRASH_MARK,
    DENY_REASON,
    FAILURE_EXIT,
    JOURNAL_REFUSAL,
    OPENCODE,
    allow_policy,
    deny_policy,
    opencode_fail_fast,
    opencode_received,
    run_host,
    served_failure,
)

pytestmark = pytest.mark.real_host
SPEC = OPENCODE


def _events(out) -> list[dict]:
    return [json.loads(line) for line in out.result.stdout.splitlines() if line.startswith("{")]


def _tool_part(out) -> dict:
    (part,) = [e["part"] for e in _events(out) if e.get("type") == "tool_use"]
    return part


def test_deny_rule_blocks_bash_and_the_model_gets_our_reason(npm_bin: Path, tmp_path: Path) -> None:
    out = run_host(SPEC, npm_bin, tmp_path / "run", deny_policy())
    assert out.result.exit_code == 0, out.describe()
    assert not out.probe_exists, out.describe()

    (before,) = out.served("tool.execute.before")
    assert before.payload["input"]["tool"] == "bash" and before.payload["output"]["args"]["command"] == COMMAND
    assert before.wait is True
    assert before.rc == 0 and json.loads(before.stdout) == {"decision": "deny", "reason": DENY_REASON}
    # The plugin threw our reason; OpenCode failed the tool part with it and told the model exactly that.
    part = _tool_part(out)
    assert part["state"]["status"] == "error" and part["state"]["error"] == DENY_REASON
    (told,) = out.tool_results()
    assert told["text"] == DENY_REASON, told
    assert told["call_id"] == before.payload["input"]["callID"] == part["callID"]
    assert out.served("tool.execute.after") == [] and out.served("shell.env") == []

    (row,) = out.journal(event="tool.execute.before")
    assert (row["decision"], row["answer"], row["gate"], row["reason"]) == (
        "deny",
        "deny",
        "rules:realhost-no-probe",
        DENY_REASON,
    )


@pytest.fixture(scope="module")
def allowed(npm_bin: Path, tmp_path_factory: pytest.TempPathFactory):
    """One allow-path run, shared by the two tests below."""
    return run_host(SPEC, npm_bin, tmp_path_factory.mktemp("opencode-allow") / "run", allow_policy())


def test_allow_path_runs_bash_and_journals_tool_execute_after_with_identities(allowed) -> None:
    out = allowed
    assert out.result.exit_code == 0, out.describe()
    assert (out.project / "probe.txt").read_text() == "pasture-probe\n", out.describe()

    part = _tool_part(out)
    assert part["state"]["status"] == "completed"
    session = part["sessionID"]  # OpenCode's own report of its session and call
    (told,) = out.tool_results()
    assert told["call_id"] == part["callID"]

    (after,) = out.journal(event="tool.execute.after", session=session)
    env = after["envelope"]
    # OpenCode's tool.execute.after is declared a gate-consultation row (note: "Post-hoc: the tool
    # already ran"): it consults the gate, which proceeds here.
    assert (after["semantic"], after["decision"], after["answer"]) == ("gate-consultation", "proceed", "proceed")
    assert env["identities"] == {"session": session, "tool-call": part["callID"]}
    assert env["unresolved"] == []
    assert (env["harness"], env["contract"], env["tool_name"], env["tool_kind"]) == (
        "opencode",
        SPEC.contract,
        "bash",
        "shell",
    )
    # What OpenCode 1.18.33 really hands tool.execute.after: the call's args under input.args
    # (tool.execute.before has them under output.args).
    assert env["payload"]["input"]["args"]["command"] == COMMAND
    assert "args" not in env["payload"]["output"]
    (before,) = out.journal(event="tool.execute.before", session=session)
    assert (before["decision"], before["gate"]) == ("proceed", "rules:default")
    assert before["envelope"]["identities"] == env["identities"]
    assert before["envelope"]["command"] == COMMAND


def test_tool_execute_after_envelope_carries_the_command(allowed) -> None:
    (after,) = allowed.journal(event="tool.execute.after")
    assert after["envelope"]["command"] == COMMAND
    assert after["envelope"]["tool_input"]["command"] == COMMAND


def test_crashing_gate_on_tool_execute_before_throws_and_blocks(npm_bin: Path, tmp_path: Path) -> None:
    assert SPEC.row("tool.execute.before").failure == "throw-fail-fast"
    out = run_host(SPEC, npm_bin, tmp_path / "run", None, crash_on=("tool.execute.before",))
    assert out.result.exit_code == 0, out.describe()
    assert not out.probe_exists, out.describe()

    (before,) = out.served("tool.execute.before")
    assert before.rc == FAILURE_EXIT["throw-fail-fast"] == 3
    assert "gate failed on tool.execute.before" in before.stderr and CRASH_MARK in before.stderr
    thrown = opencode_fail_fast("tool.execute.before", served_failure(before))
    part = _tool_part(out)
    assert part["state"]["status"] == "error" and part["state"]["error"] == thrown
    (told,) = out.tool_results()
    assert told["text"] == thrown
    # The plugin reported the runtime's diagnostic through OpenCode's log.
    assert CRASH_MARK in out.result.stderr
    (row,) = out.journal(event="tool.execute.before")
    assert (row["decision"], row["answer"], row["gate"]) == ("none", "fail-block", "command")


def test_an_unwritable_journal_gets_each_rows_failure_mode(npm_bin: Path, tmp_path: Path) -> None:
    """The journal cannot be written for the whole run (its folder is a file), so every event fails
    inside the runtime, and each gets its row's effective failure mode from the profile: the
    observation rows (observe-only) answer proceed, silently, and are never waited for; a
    report-and-continue gate row proceeds with one line naming the journal; a throw-fail-fast row
    fails with that line and the plugin throws. The first fail-fast row of the session decides
    what OpenCode does: chat.message (before the model is asked) ends the prompt; tool.execute.before
    refuses the tool and the model is told. Nothing is written either way.

    (This used to break only some rows, with a trigger in the SQLite journal; the hook appends to a
    spool and never runs SQL, so a failure can no longer be aimed at some events only.)"""
    prompt_fails_fast = SPEC.row("chat.message").failure == "throw-fail-fast"
    assert SPEC.row("tool.execute.before").failure == "throw-fail-fast"
    out = run_host(
        SPEC, npm_bin, tmp_path / "run", allow_policy(), journal="broken", reaches_model=not prompt_fails_fast
    )
    spool = f"{out.journal_path}.spool"
    assert not out.probe_exists, out.describe()

    def line(event: str) -> str:
        return (
            f"pasture: cannot journal {event}: journal {spool}: {JOURNAL_REFUSAL}; make that folder writable, "
            "or point PASTURE_JOURNAL or the policy's [journal] path at one (pasture policy show names the "
            "journal in use)\n"
        )

    answered = [s for s in out.served() if s.reply is not None]
    observed = [s for s in answered if SPEC.row(s.event).semantic == "observation"]
    assert {"session.created", "session.updated"} <= {s.event for s in observed}, out.describe()
    for call in observed:  # observe-only: exit 0, a proceed answer, no diagnostic, never awaited
        assert SPEC.row(call.event).failure == "observe-only"
        assert call.wait is False
        assert call.rc == 0 and json.loads(call.stdout) == {"decision": "proceed"}, call.brief()
        assert call.stderr == ""
    gates = [s for s in answered if SPEC.row(s.event).semantic != "observation"]
    assert "chat.message" in {s.event for s in gates}, out.describe()
    for call in gates:  # each its own row's failure mode, with the one line
        failure = SPEC.row(call.event).failure
        assert (call.rc, call.stderr) == (FAILURE_EXIT[failure], line(call.event)), call.brief()
        assert "Traceback" not in call.stderr
        # never silently: even a row the plugin did not wait for has its line in OpenCode's log
        assert line(call.event).rstrip("\n") in out.result.stderr, call.brief()

    if prompt_fails_fast:
        assert out.result.exit_code == 1, out.describe()  # OpenCode's own verdict on a failed prompt
        (prompt,) = [call for call in gates if call.event == "chat.message"]
        assert opencode_fail_fast("chat.message", served_failure(prompt)) in out.result.stderr
        assert out.served("tool.execute.before") == []
        return
    # chat.message reports and continues: the model is asked, and the tool call is where it stops.
    assert out.result.exit_code == 0, out.describe()
    (before,) = out.served("tool.execute.before")
    assert before.wait is True, before.brief()
    thrown = opencode_fail_fast("tool.execute.before", served_failure(before))
    part = _tool_part(out)
    assert part["state"]["status"] == "error" and part["state"]["error"] == thrown
    (told,) = out.tool_results()
    assert told["text"] == thrown
    # The plugin reported the runtime's line through OpenCode's log.
    assert json.dumps(line("tool.execute.before"))[1:-1] in out.result.stderr
    assert out.served("tool.execute.after") == []


def test_a_deny_on_the_post_hoc_row_never_passes_a_command_that_ran_off_as_refused(
    npm_bin: Path, tmp_path: Path
) -> None:
    policy = "\n".join(
        [
            "[gate]",
            'kind = "rules"',
            'default = "proceed"',
            "",
            "[[rules]]",
            'name = "after-the-fact"',
            'decision = "deny"',
            'reason = "pasture-realhost: denied after the fact"',
            'event = "tool.execute.after"',
            'command = "pasture-probe"',
            "",
        ]
    )
    out = run_host(SPEC, npm_bin, tmp_path / "run", policy)
    assert out.result.exit_code == 0, out.describe()
    assert out.probe_exists  # the command ran: tool.execute.after is after the fact
    (after,) = out.journal(event="tool.execute.after")
    assert after["decision"] == "deny" and after["answer"] != "deny", after
    assert _tool_part(out)["state"]["status"] == "completed"
    (told,) = out.tool_results()
    assert told["text"] == "(no output)", told


def test_one_runtime_process_journals_every_event_the_plugin_was_handed(npm_bin: Path, tmp_path: Path) -> None:
    """Issue 12: at most 2 pasture processes for a one-tool session (one per plugin instance, plus
    one restart), and after the host has exited the journal holds every event the plugin was
    handed, counted against a recording plugin loaded next to ours. ``netns`` isolation: the
    runtime must outlive the host, which a pid namespace would not let it do."""
    record = tmp_path / "recorded.jsonl"
    out = run_host(SPEC, npm_bin, tmp_path / "run", allow_policy(), isolation="netns", record_opencode=record)
    assert out.result.exit_code == 0, out.describe()
    assert (out.project / "probe.txt").read_text() == "pasture-probe\n", out.describe()
    assert out.wait_for_runtime_exit(), out.describe()

    processes = out.calls()
    assert 1 <= len(processes) <= 2, out.describe()
    assert all(c.serves and c.rc == 0 for c in processes), out.describe()
    received = opencode_received(SPEC, record)
    assert received["tool.execute.before"] == 1 and received["session.idle"] >= 1, received
    assert sum(received.values()) > 50, received  # a real session's worth, bus events included
    journaled = Counter(row["event"] for row in out.journal())
    assert dict(journaled) == received  # 0 lost, nothing extra
    # and the plugin sent exactly that, so nothing was dropped before the runtime either
    assert dict(Counter(s.event for s in out.served())) == received


def test_missing_runtime_refuses_the_tool_with_one_line_and_the_session_lives(npm_bin: Path, tmp_path: Path) -> None:
    """Issue 9, item 1: with the pasture binary missing and a deny policy, OpenCode still reaches
    the model (no "Unexpected server error" from chat.message), the tool call is refused on the gate
    row and the model is told our one line, with the fix; observation rows do not end the session."""
    from pasture.hosts.opencode import FIX

    out = run_host(SPEC, npm_bin, tmp_path / "run", deny_policy(), extra_env={"PASTURE_BIN": str(tmp_path / "gone")})
    assert out.result.exit_code == 0, out.describe()
    assert "Unexpected server error" not in out.result.stdout, out.describe()
    assert not out.probe_exists, out.describe()
    assert out.calls() == []
    line = (
        f"pasture refused tool.execute.before: the pasture runtime is missing: {tmp_path / 'gone'} "
        f"($PASTURE_BIN) does not exist; fix: {FIX}"
    )
    part = _tool_part(out)
    assert part["state"]["status"] == "error" and part["state"]["error"] == line
    (told,) = out.tool_results()
    assert told["text"] == line
    assert len(out.result.model_requests) >= 2  # the model got the refusal back and answered
