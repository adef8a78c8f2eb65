"""Pi (real, pinned in tests/npm) with OUR generated extension and runtime.

Each run: a temp project where the real ``pasture install pi --project P`` wrote
``.pi/extensions/pasture-lifecycle.ts`` (Pi loads project extensions with no trust step), ``PASTURE_BIN`` = a
wrapper running this repo's runtime (the extension starts ``$PASTURE_BIN hook serve`` once and sends it every
event), and the fake Chat Completions model on 127.0.0.1 calling ``bash {command: "echo pasture-probe >
probe.txt"}``. One host run per gate kind (rules, command, AI against a fake chat server), the same
assertions for each: the probe file stays absent, the runtime answered the deny, the extension threw it
from tool_call (Pi blocks the call and hands the message to the model as its result), the model read our
reason, and ``pasture journal --json`` holds the row. Then the fail-closed forms: no runtime, a crashing
gate, a runtime that answers too late.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from realhost_support import (
    COMMAND,
    CRASH_MARK,
    DENY_REASON,
    FAILURE_EXIT,
    PI,
    allow_policy,
    deny_gate,
    deny_policy,
    run_host,
)

from pasture.hosts.pi import EXTENSION_FILE, FIX

pytestmark = pytest.mark.real_host
SPEC = PI
GATE_REASON = "pasture-realhost: the gate refused the probe"


def _gate(kind: str, folder: Path) -> tuple[str, dict, dict, str]:
    return deny_gate(kind, folder, GATE_REASON)


@pytest.mark.parametrize("kind", ["rules", "command", "ai"])
def test_each_gate_kind_denies_the_shell_call_and_the_model_reads_our_reason(
    npm_bin: Path, tmp_path: Path, kind: str
) -> None:
    policy, loggers, extra, gate = _gate(kind, tmp_path / "gate")
    reason = DENY_REASON if kind == "rules" else GATE_REASON
    out = run_host(SPEC, npm_bin, tmp_path / "run", policy, loggers=loggers or None, extra_env=extra or None)
    assert out.result.exit_code == 0, out.describe()
    assert out.install is not None and out.install.report["ok"] is True, out.install
    assert (out.project / ".pi" / "extensions" / EXTENSION_FILE).is_file()
    assert not out.probe_exists, out.describe()
    (call,) = out.served("tool_call")
    assert call.wait is True
    assert call.payload["toolName"] == "bash" and call.payload["input"]["command"] == COMMAND
    assert call.rc == 0 and json.loads(call.stdout) == {"decision": "deny", "reason": reason}, out.describe()
    (told,) = out.tool_results()
    assert told["text"] == reason, out.describe()
    assert told["call_id"] == call.payload["toolCallId"]
    assert out.served("tool_result") == []
    (row,) = out.journal(event="tool_call")
    assert (row["decision"], row["answer"], row["reason"]) == ("deny", "deny", reason), row
    assert row["gate"] == gate or row["gate"].startswith(gate), row
    env = row["envelope"]
    assert (env["harness"], env["contract"], env["tool_kind"]) == ("pi", SPEC.contract, "shell")
    assert env["command"] == COMMAND
    assert env["identities"] == {"tool-call": call.payload["toolCallId"]}
    if kind == "ai":
        asked = out.logger_requests("ai")
        assert asked and all(r["path"] == "/v1/chat/completions" for r in asked), out.describe()


def test_allow_runs_the_shell_call_and_journals_the_observations(npm_bin: Path, tmp_path: Path) -> None:
    out = run_host(SPEC, npm_bin, tmp_path / "run", allow_policy())
    assert out.result.exit_code == 0, out.describe()
    assert out.probe_exists, out.describe()
    (call,) = out.served("tool_call")
    assert call.wait is True and json.loads(call.stdout) == {"decision": "proceed"}
    assert out.wait_for_runtime_exit(), out.describe()
    (result,) = out.journal(event="tool_result")
    assert result["envelope"]["identities"] == {"tool-call": call.payload["toolCallId"]}
    assert result["envelope"]["command"] == COMMAND
    journaled = {r["event"] for r in out.journal()}
    assert {"session_start", "input", "tool_call", "tool_result", "agent_end"} <= journaled, journaled


def test_a_missing_runtime_refuses_the_tool_with_one_line(npm_bin: Path, tmp_path: Path) -> None:
    """No runtime: the tool_call row (fail-fast, guards an action) throws the one line with the fix; Pi hands
    it to the model as the blocked call's result; every other event proceeds and the session ends normally."""
    gone = tmp_path / "gone"
    out = run_host(SPEC, npm_bin, tmp_path / "run", deny_policy(), extra_env={"PASTURE_BIN": str(gone)})
    assert out.result.exit_code == 0, out.describe()
    assert not out.probe_exists, out.describe()
    assert out.calls() == []
    line = (
        f"pasture refused tool_call: the pasture runtime is missing: {gone} ($PASTURE_BIN) does not exist; fix: {FIX}"
    )
    (told,) = out.tool_results()
    assert told["text"] == line, out.describe()
    assert len(out.result.model_requests) == 2  # the model got the refusal back and answered


def test_a_crashing_gate_blocks_the_tool_as_the_row_fails_fast(npm_bin: Path, tmp_path: Path) -> None:
    assert SPEC.row("tool_call").failure == "throw-fail-fast"
    out = run_host(SPEC, npm_bin, tmp_path / "run", None, crash_on=("tool_call",))
    assert out.result.exit_code == 0, out.describe()
    assert not out.probe_exists, out.describe()
    (call,) = out.served("tool_call")
    assert call.rc == FAILURE_EXIT["throw-fail-fast"] == 3
    assert "gate failed on tool_call" in call.stderr and CRASH_MARK in call.stderr
    status = FAILURE_EXIT["throw-fail-fast"]
    (told,) = out.tool_results()
    why = json.loads(call.stdout)["failure"]
    assert f"pasture: {why}\n" in call.stderr and CRASH_MARK in why
    assert told["text"] == (
        f"pasture refused tool_call: the runtime failed on this event (status {status}): {' '.join(why.split())}, "
        "and this hook fails fast"
    ), out.describe()
    (row,) = out.journal(event="tool_call")
    assert (row["decision"], row["answer"], row["gate"]) == ("none", "fail-block", "command")


SLOW_GATE = r"""import json, sys, time
envelope = json.load(sys.stdin)
if envelope.get("event") == "tool_call":
    time.sleep(30)
print(json.dumps({"decision": "proceed"}))
"""


def test_a_runtime_that_answers_too_late_blocks_the_tool(npm_bin: Path, tmp_path: Path) -> None:
    """Pi waits for a handler as long as it takes; the extension does not: past the row's timeout
    (PASTURE_HOOK_TIMEOUT_MS here, 4 s) the fail-fast tool_call row throws, and the call never runs."""
    script = tmp_path / "gate" / "slow.py"
    script.parent.mkdir(parents=True)
    script.write_text(SLOW_GATE)
    argv = [sys.executable, "-I", "-S", str(script)]
    policy = f'[gate]\nkind = "command"\ncommand = {json.dumps(argv)}\ntimeout = 60\n'
    out = run_host(SPEC, npm_bin, tmp_path / "run", policy, extra_env={"PASTURE_HOOK_TIMEOUT_MS": "4000"})
    assert out.result.exit_code == 0, out.describe()
    assert not out.probe_exists, out.describe()
    (told,) = out.tool_results()
    assert told["text"] == "pasture refused tool_call: no answer within 4000 ms, and this hook fails fast", (
        out.describe()
    )
