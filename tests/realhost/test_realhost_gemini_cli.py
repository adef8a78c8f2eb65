"""Gemini CLI (real, pinned in tests/npm) with OUR generated settings.json adapter and runtime.

Each test: a temp project with ``generated/gemini-cli@<floor>/settings.json`` as its
``.gemini/settings.json`` (the folder trusted the headless way, ``GEMINI_CLI_TRUST_WORKSPACE=true``),
``PASTURE_BIN`` = a wrapper running this repo's runtime, the policy and the journal in the run folder,
and the fake Gemini API on 127.0.0.1 calling ``run_shell_command {command: "echo pasture-probe >
probe.txt"}`` and then quoting what the tool said. One host run per gate kind: a rules deny, a command
gate's deny, an AI gate's deny (the AI gate against a fake chat-completions server inside the run's
namespace); each must keep the probe file absent, reach the model as the host's
``Tool execution blocked: <reason>``, and be journaled (``pasture journal --json``).
"""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

import pytest
from realhost_support import COMMAND, DENY_REASON, GEMINI, Outcome, deny_policy, run_host

pytestmark = pytest.mark.real_host
SPEC = GEMINI
GATE_REASON = "pasture-realhost: the command gate refuses probe files"
AI_REASON = "pasture-realhost: the AI gate refuses probe files"

_GATE = r"""import json, sys
envelope = json.load(sys.stdin)
decision = "deny" if "probe.txt" in (envelope.get("command") or "") else "proceed"
print(json.dumps({"decision": decision, "reason": REASON}))
"""


def _command_gate(folder: Path) -> str:
    gate = folder / "deny_gate.py"
    gate.parent.mkdir(parents=True, exist_ok=True)
    gate.write_text(_GATE.replace("REASON", json.dumps(GATE_REASON)))
    argv = ", ".join(json.dumps(a) for a in (sys.executable, "-I", "-S", str(gate)))
    return f'[gate]\nkind = "command"\ncommand = [{argv}]\nevents = ["BeforeTool"]\ntimeout = 20\n'


def _free_port() -> int:
    # free here; the run's own network namespace has every port free (the logger binds it in there)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _assert_refused(out: Outcome, reason: str, gate: str) -> dict:
    """The shell call never ran, our BeforeTool answer carried ``reason`` to the model in the host's
    words, and the journal holds the deny; returns the BeforeTool journal row."""
    assert out.result.exit_code == 0, out.describe()
    assert not out.probe_exists, out.describe()
    (pre,) = out.calls("BeforeTool")
    assert pre.payload["tool_name"] == SPEC.shell_tool and pre.payload["tool_input"]["command"] == COMMAND
    # the row cites a JSON deny channel (captures/gemini-cli@0.61.0/before-tool-json-deny): exit 0 + decision
    assert pre.rc == 0 and json.loads(pre.stdout) == {"decision": "deny", "reason": reason}, out.describe()
    told = [r["text"] for r in out.tool_results()]
    assert told == [f"Tool execution blocked: {reason}"], out.describe()
    assert out.calls("AfterTool") == [], out.describe()  # the tool never ran
    rows = out.journal(event="BeforeTool")
    (row,) = rows
    assert (row["harness"], row["gate"].partition(":")[0], row["decision"], row["answer"], row["reason"]) == (
        "gemini-cli",
        gate,
        "deny",
        "deny",
        reason,
    ), row
    assert row["contract"] == SPEC.contract and row["session"] == pre.payload["session_id"], row
    return row


def test_a_rules_deny_blocks_the_shell_call(npm_bin: Path, tmp_path: Path) -> None:
    out = run_host(SPEC, npm_bin, tmp_path / "run", deny_policy())
    row = _assert_refused(out, DENY_REASON, "rules")
    assert row["gate"] == "rules:realhost-no-probe", row
    # every other event the host fired is an observation row: journaled, and answered with nothing
    observed = {c.event for c in out.calls()} - {"BeforeTool", "BeforeAgent", "BeforeModel"}
    assert {"SessionStart", "AfterModel", "SessionEnd"} <= observed, out.describe()
    assert all(c.rc == 0 and c.stdout == "" for c in out.calls() if c.event in observed), out.describe()


def test_a_command_gate_deny_blocks_the_shell_call(npm_bin: Path, tmp_path: Path) -> None:
    out = run_host(SPEC, npm_bin, tmp_path / "run", _command_gate(tmp_path / "gate"))
    _assert_refused(out, GATE_REASON, "command")


def test_an_ai_gate_deny_blocks_the_shell_call(npm_bin: Path, tmp_path: Path) -> None:
    port = _free_port()
    verdict = json.dumps({"decision": "deny", "reason": AI_REASON})
    policy = (
        f'[gate]\nkind = "ai"\nmodel = "gate/model"\nbase_url = "http://127.0.0.1:{port}/v1"\n'
        'events = ["BeforeTool"]\ntimeout = 20\n'
    )
    out = run_host(
        SPEC,
        npm_bin,
        tmp_path / "run",
        policy,
        loggers={"ai": {"port": port, "default": {"content": verdict}}},
        extra_env={"PASTURE_AI_API_KEY": "sk-fake-pasture-gate"},
    )
    _assert_refused(out, AI_REASON, "ai")
    (asked,) = out.logger_requests("ai")
    assert asked["path"] == "/v1/chat/completions", asked
    envelope = json.loads(asked["body"]["messages"][-1]["content"])
    assert envelope["event"] == "BeforeTool" and envelope["command"] == COMMAND, envelope
