"""The real OpenCode 1.18.x from tests/npm loads the generated plugin from .opencode/plugins/.

The run is the hostenv runner's (offline, in a network namespace where available, against the
scripted fake chat-completions model); `pasture` is the stub runtime on PASTURE_BIN, recording
every call. Skips only when npm/node are absent.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from repo_paths import REPO
from generator.hostenv import Script, prepare_run
from generator.loader import load_project
from generator.render.opencode import opencode_artifacts
from opencode_support import npm_bin, write_stub

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
    result = run.execute(PROBE, extra_env={
        "PASTURE_BIN": str(stub), "STUB_LOG": str(log), "STUB_MODES": json.dumps(modes), "STUB_REASON": REASON,
    })
    calls = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()] if log.exists() else []
    return run, result, stub, calls


def _events(calls: list[dict]) -> list[str]:
    return [c["argv"][c["argv"].index("--event") + 1] for c in calls]


def test_real_opencode_runs_the_generated_plugin_hooks(tmp_path):
    run, result, stub, calls = _run(tmp_path, {})
    assert result.exit_code == 0, result.describe()
    assert (run.project / "probe.txt").read_text() == "pasture-probe\n", result.describe()
    events = _events(calls)
    assert "tool.execute.before" in events, (events, result.describe())
    assert events.index("chat.message") < events.index("tool.execute.before") < events.index("tool.execute.after")

    before = calls[events.index("tool.execute.before")]
    assert before["argv"] == [str(stub), "hook", "lifecycle", "--harness", "opencode", "--event",
                              "tool.execute.before", "--host-version", "1.18.29"]
    payload = json.loads(before["stdin"])
    assert payload["event"] == "tool.execute.before"
    assert payload["input"]["tool"] == "bash" and payload["input"]["sessionID"].startswith("ses_")
    assert payload["output"]["args"]["command"] == COMMAND
    assert before["cwd"] == str(run.project)
    (call,) = [m for r in result.requests for m in r["body"].get("messages", []) if m.get("role") == "tool"][:1]
    assert payload["input"]["callID"] == call["tool_call_id"]
    # the catch-all event handler forwarded a declared bus event too (the host does not await it,
    # but the session is created seconds before this run ends)
    assert "session.created" in events
    # every call was for a row of the contract
    assert set(events) <= {row.name for row in load_project(REPO, only=["opencode@1.18.29"])[0].events}


def test_real_opencode_refuses_the_tool_when_the_runtime_denies(tmp_path):
    run, result, _, calls = _run(tmp_path, {"tool.execute.before": "deny"})
    assert result.exit_code == 0, result.describe()
    assert not (run.project / "probe.txt").exists()
    events = _events(calls)
    assert "tool.execute.before" in events and "tool.execute.after" not in events
    tool_messages = [m for r in result.requests for m in r["body"].get("messages", []) if m.get("role") == "tool"]
    assert tool_messages and tool_messages[-1]["content"] == REASON, result.describe()
