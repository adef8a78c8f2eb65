"""The real OpenCode 1.18.x from tests/npm loads the generated plugin from .opencode/plugins/.

The run is the hostenv runner's (offline, in a network namespace where available, against the
scripted fake chat-completions model); `pasture` is the stub runtime server on PASTURE_BIN
(opencode_stub_server.py), recording its starts and every request. Skips only when npm/node are
absent.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from loading import load_project
from opencode_support import npm_bin, write_stub
from repo_paths import REPO

from pasture.hostenv import Script, prepare_run
from pasture.hosts.opencode import opencode_artifacts

pytestmark = pytest.mark.real_host


COMMAND = "echo pasture-probe > probe.txt"
PROBE = Script.shell_then_reply(COMMAND, "Done. The tool said: {tool_result}")
REASON = 'pasture says no: "quoted" $HOME é'


def _run(tmp_path: Path, modes: dict[str, str]):
    bin_dir = npm_bin()
    (contract,) = load_project(REPO, only=["opencode@1.18.29"])
    (artifact,) = opencode_artifacts(contract)
    run = prepare_run("opencode", bin_dir, tmp_path / "run")
    plugins = run.project / ".opencode" / "plugins"
    plugins.mkdir(parents=True)
    (plugins / "pasture-lifecycle.ts").write_text(artifact.text, encoding="utf-8")
    stub = write_stub(run.root / "stub")
    log = run.root / "pasture-calls.jsonl"
    control = run.root / "stub-control.json"
    gates = [row.name for row in contract.events if row.semantic.value == "gate-consultation"]
    control.write_text(json.dumps({"log": str(log), "modes": modes, "reason": REASON, "await": gates}))
    result = run.execute(PROBE, extra_env={"PASTURE_BIN": str(stub), "STUB_CONTROL": str(control)})
    records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()] if log.exists() else []
    starts = [r for r in records if r["kind"] == "start"]
    calls = sorted((r for r in records if r["kind"] == "request"), key=lambda r: r["request"]["id"])
    return run, result, stub, starts, calls


def _events(calls: list[dict]) -> list[str]:
    return [c["request"]["event"] for c in calls]


def test_real_opencode_runs_the_generated_plugin_hooks(tmp_path):
    run, result, stub, starts, calls = _run(tmp_path, {})
    assert result.exit_code == 0, result.describe()
    assert (run.project / "probe.txt").read_text() == "pasture-probe\n", result.describe()
    # one runtime process for the whole session, started in the project directory
    (start,) = starts
    assert start["argv"] == [str(stub), "hook", "serve", "--harness", "opencode", "--host-version", "1.18.29"]
    assert start["cwd"] == str(run.project)
    events = _events(calls)
    assert "tool.execute.before" in events, (events, result.describe())
    assert events.index("chat.message") < events.index("tool.execute.before") < events.index("tool.execute.after")

    before = calls[events.index("tool.execute.before")]["request"]
    assert before["wait"] is True
    payload = before["payload"]
    assert payload["event"] == "tool.execute.before"
    assert payload["input"]["tool"] == "bash" and payload["input"]["sessionID"].startswith("ses_")
    assert payload["output"]["args"]["command"] == COMMAND
    (call,) = [m for r in result.requests for m in r["body"].get("messages", []) if m.get("role") == "tool"][:1]
    assert payload["input"]["callID"] == call["tool_call_id"]
    # the catch-all event handler forwarded declared bus events too, without waiting for them
    bus = [c["request"] for c in calls if c["request"]["event"] == "session.created"]
    assert bus and all(r["wait"] is False for r in bus)
    # every call was for a row of the contract
    assert set(events) <= {row.name for row in load_project(REPO, only=["opencode@1.18.29"])[0].events}


def test_real_opencode_refuses_the_tool_when_the_runtime_denies(tmp_path):
    run, result, _, starts, calls = _run(tmp_path, {"tool.execute.before": "deny"})
    assert result.exit_code == 0, result.describe()
    assert not (run.project / "probe.txt").exists()
    assert len(starts) == 1
    events = _events(calls)
    assert "tool.execute.before" in events and "tool.execute.after" not in events
    tool_messages = [m for r in result.requests for m in r["body"].get("messages", []) if m.get("role") == "tool"]
    assert tool_messages and tool_messages[-1]["content"] == REASON, result.describe()
