"""OpenCode (real, pinned in tests/npm) with OUR generated v1 plugin and runtime.

Each test: a temp project with ``generated/opencode@<floor>/pasture-lifecycle.ts`` in
``.opencode/plugins/``, ``PASTURE_BIN`` = a wrapper running this repo's runtime,
``PASTURE_POLICY``/``PASTURE_JOURNAL`` in the run folder, and a fake Chat Completions model on
127.0.0.1 that calls ``bash {command: "echo pasture-probe > probe.txt"}`` and then quotes the tool
result. OpenCode loads the plugin under its own Bun; the plugin spawns ``$PASTURE_BIN`` per hook.
"""

from __future__ import annotations

import json
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
    opencode_answers,
    opencode_fail_fast,
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

    (before,) = out.calls("tool.execute.before")
    assert before.payload["input"]["tool"] == "bash" and before.payload["output"]["args"]["command"] == COMMAND
    assert before.rc == 0 and json.loads(before.stdout) == {"decision": "deny", "reason": DENY_REASON}
    # The plugin threw our reason; OpenCode failed the tool part with it and told the model exactly that.
    part = _tool_part(out)
    assert part["state"]["status"] == "error" and part["state"]["error"] == DENY_REASON
    (told,) = out.tool_results()
    assert told["text"] == DENY_REASON, told
    assert told["call_id"] == before.payload["input"]["callID"] == part["callID"]
    assert out.calls("tool.execute.after") == [] and out.calls("shell.env") == []

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

    (before,) = out.calls("tool.execute.before")
    assert before.rc == FAILURE_EXIT["throw-fail-fast"] == 3 and before.stdout == ""
    assert "gate failed on tool.execute.before" in before.stderr and CRASH_MARK in before.stderr
    thrown = opencode_fail_fast("tool.execute.before")
    part = _tool_part(out)
    assert part["state"]["status"] == "error" and part["state"]["error"] == thrown
    (told,) = out.tool_results()
    assert told["text"] == thrown
    # The plugin reported the runtime's diagnostic through OpenCode's log.
    assert CRASH_MARK in out.result.stderr
    (row,) = out.journal(event="tool.execute.before")
    assert (row["decision"], row["answer"], row["gate"]) == ("none", "fail-block", "command")


def test_an_unwritable_journal_gets_each_rows_failure_mode(npm_bin: Path, tmp_path: Path) -> None:
    """The journal cannot be written for the whole run (its folder is a file). The bus events
    (observe-only) still answer proceed; chat.message, the first gate row (throw-fail-fast), fails
    with one line naming the journal, the plugin throws, and OpenCode never asks the model."""
    out = run_host(SPEC, npm_bin, tmp_path / "run", allow_policy(), journal="broken", expect_requests=False)
    spool = f"{out.journal_path}.spool"
    assert out.result.exit_code == 1, out.describe()  # OpenCode's own verdict on a failed prompt
    assert not out.probe_exists, out.describe()
    assert out.result.requests == [], out.describe()

    observed = [c for c in opencode_answers(out) if SPEC.row(c.event).semantic == "observation"]
    assert "session.created" in {c.event for c in observed}, out.describe()
    for call in observed:  # observe-only: exit 0 and a proceed answer
        assert SPEC.row(call.event).failure == "observe-only"
        assert call.rc == 0 and json.loads(call.stdout) == {"decision": "proceed"}, call.brief()
    (message,) = opencode_answers(out, "chat.message")
    assert SPEC.row("chat.message").failure == "throw-fail-fast"
    line = (f"pasture: cannot journal chat.message: journal {spool}: {JOURNAL_REFUSAL}; make that folder writable, "
            "or point PASTURE_JOURNAL or the policy's [journal] path at one (pasture policy show names the journal "
            "in use)")
    assert (message.rc, message.stdout, message.stderr) == (FAILURE_EXIT["throw-fail-fast"], "", line + "\n")
    # The plugin threw, and reported the runtime's line through OpenCode's log.
    assert opencode_fail_fast("chat.message") in out.result.stderr
    assert json.dumps(line + "\n")[1:-1] in out.result.stderr
    assert opencode_answers(out, "tool.execute.before") == []


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
