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
    OPENCODE,
    allow_policy,
    deny_policy,
    opencode_received,
    run_host,
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
        "deny", "deny", "rules:realhost-no-probe", DENY_REASON)


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
        "opencode", SPEC.contract, "bash", "shell")
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
    assert before.rc == FAILURE_EXIT["throw-fail-fast"] == 3 and before.stdout == ""
    assert "gate failed on tool.execute.before" in before.stderr and CRASH_MARK in before.stderr
    thrown = ("pasture refused tool.execute.before: the runtime failed on this event (status 3), "
              "and this hook fails fast")
    part = _tool_part(out)
    assert part["state"]["status"] == "error" and part["state"]["error"] == thrown
    (told,) = out.tool_results()
    assert told["text"] == thrown
    # The plugin reported the runtime's diagnostic through OpenCode's log.
    assert CRASH_MARK in out.result.stderr
    (row,) = out.journal(event="tool.execute.before")
    assert (row["decision"], row["answer"], row["gate"]) == ("none", "fail-block", "command")


def test_failures_on_observation_rows_never_block(npm_bin: Path, tmp_path: Path) -> None:
    """The journal cannot be written (its spool is a folder), so every event fails inside the runtime.
    Each observation row still answers proceed, silently, and is never waited for; the gate rows fail
    closed (throw-fail-fast), so the first one, chat.message, ends the prompt and nothing runs.

    (It used to break only the observation rows, with a trigger in the SQLite journal; since the hook
    appends to a spool and never runs SQL, a failure can no longer be aimed at some events only.)"""
    observations = SPEC.observation_events()
    journal = tmp_path / "journal.sqlite3"
    (tmp_path / "journal.sqlite3.spool").mkdir()
    out = run_host(SPEC, npm_bin, tmp_path / "run", allow_policy(), extra_env={"PASTURE_JOURNAL": str(journal)},
                   reaches_model=False)
    assert not out.probe_exists, out.describe()

    failed = [c for c in out.served() if c.event in observations and c.reply is not None]
    assert {c.event for c in failed} >= {"session.created", "session.updated"}, out.describe()
    for call in failed:  # observe-only: exit 0, a proceed answer, no diagnostic, never awaited
        assert SPEC.row(call.event).failure == "observe-only"
        assert call.wait is False
        assert call.rc == 0 and json.loads(call.stdout) == {"decision": "proceed"}, call.brief()
        assert call.stderr == ""
    (chat,) = out.served("chat.message")
    assert chat.wait is True and chat.rc == FAILURE_EXIT["throw-fail-fast"], chat.brief()
    assert "internal error" in chat.stderr
    assert out.served("tool.execute.before") == []


def test_a_deny_on_the_post_hoc_row_never_passes_a_command_that_ran_off_as_refused(npm_bin: Path,
                                                                                  tmp_path: Path) -> None:
    policy = "\n".join([
        "[gate]", 'kind = "rules"', 'default = "proceed"', "",
        "[[rules]]", 'name = "after-the-fact"', 'decision = "deny"', 'reason = "pasture-realhost: denied after the fact"',
        'event = "tool.execute.after"', 'command = "pasture-probe"', "",
    ])
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
    from generator.render.opencode import FIX

    out = run_host(SPEC, npm_bin, tmp_path / "run", deny_policy(), extra_env={"PASTURE_BIN": str(tmp_path / "gone")})
    assert out.result.exit_code == 0, out.describe()
    assert "Unexpected server error" not in out.result.stdout, out.describe()
    assert not out.probe_exists, out.describe()
    assert out.calls() == []
    line = (f"pasture refused tool.execute.before: the pasture runtime is missing: {tmp_path / 'gone'} "
            f"($PASTURE_BIN) does not exist; fix: {FIX}")
    part = _tool_part(out)
    assert part["state"]["status"] == "error" and part["state"]["error"] == line
    (told,) = out.tool_results()
    assert told["text"] == line
    assert len(out.result.model_requests) >= 2  # the model got the refusal back and answered
