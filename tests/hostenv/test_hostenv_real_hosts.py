"""The real hosts, installed from tests/npm, run offline against the fake models; their hooks fire.

These skip only when npm/node are absent (see conftest.npm_bin); anywhere else they must pass.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pasture.hostenv import (
    HostRunResult,
    Script,
    host_version,
    install_recorder,
    isolation_support,
    prepare_run,
    read_records,
    recorder_command,
)
from pasture.hostenv.npm_tools import pinned_versions
from pasture.hosts.opencode import opencode_recorder_plugin

pytestmark = pytest.mark.real_host

REPO = Path(__file__).resolve().parents[2]
COMMAND = "echo pasture-probe > probe.txt"
PROBE = Script.shell_then_reply(COMMAND, "Done. The tool said: {tool_result}")
REASON = "pasture says no"


def _tool_calls(result: HostRunResult) -> list[dict[str, Any]]:
    return [c for r in result.requests for c in r.get("reply", {}).get("tool_calls", [])]


def _assert_isolated(result: HostRunResult) -> None:
    if isolation_support().private_network:
        assert result.isolation != "none"
        assert result.extra.get("interfaces") == ["lo"]
    assert all(r["headers"].get("host", "").startswith("127.0.0.1:") for r in result.requests)


def _command_hooks(events: dict[str, str], matcher: str | None = None) -> dict[str, Any]:
    """Claude/Codex hook config: {"hooks": {Event: [{matcher?, hooks: [{type: command, ...}]}]}}."""
    out: dict[str, Any] = {}
    for event, command in events.items():
        group: dict[str, Any] = {"hooks": [{"type": "command", "command": command, "timeout": 30}]}
        if matcher and "Tool" in event:
            group["matcher"] = matcher
        out[event] = [group]
    return {"hooks": out}


def test_installed_hosts_report_their_pinned_versions(npm_bin: Path) -> None:
    pins = pinned_versions(REPO)
    assert host_version("claude-code", npm_bin) == pins["@anthropic-ai/claude-code"]
    assert host_version("codex", npm_bin) == pins["@openai/codex"]
    assert host_version("opencode", npm_bin) == pins["opencode-ai"]


# --- Claude Code ------------------------------------------------------------------------------


def _claude_run(npm_bin: Path, tmp_path: Path, mode: str) -> tuple[Any, HostRunResult, list[dict[str, Any]]]:
    run = prepare_run("claude-code", npm_bin, tmp_path / "run")
    log = run.root / "hooks.jsonl"
    recorder = install_recorder(run.root)
    settings = _command_hooks(
        {
            "PreToolUse": recorder_command(recorder, log, "PreToolUse", mode=mode, reason=REASON),
            "PostToolUse": recorder_command(recorder, log, "PostToolUse"),
        },
        matcher="Bash",
    )
    (run.project / ".claude").mkdir()
    (run.project / ".claude" / "settings.json").write_text(json.dumps(settings, indent=2))
    result = run.execute(PROBE)
    return run, result, read_records(log)


def test_claude_code_pretooluse_command_hook_fires(npm_bin: Path, tmp_path: Path) -> None:
    run, result, records = _claude_run(npm_bin, tmp_path, "observe")
    assert result.exit_code == 0, result.describe()
    _assert_isolated(result)
    assert (run.project / "probe.txt").read_text() == "pasture-probe\n"
    assert [r["event"] for r in records] == ["PreToolUse", "PostToolUse"], result.describe()

    pre = records[0]["payload"]
    (call,) = _tool_calls(result)
    tool_use_id = result.requests[1]["body"]["messages"][-1]["content"][0]["tool_use_id"]
    assert pre["hook_event_name"] == "PreToolUse"
    assert pre["tool_name"] == "Bash"
    assert pre["tool_input"]["command"] == COMMAND == call["arguments"]["command"]
    assert pre["tool_use_id"] == tool_use_id
    assert pre["session_id"] and Path(pre["transcript_path"]).is_relative_to(run.home)
    assert pre["cwd"] == str(run.project)
    assert pre["permission_mode"] == "bypassPermissions"
    assert records[0]["env"]["CLAUDE_PROJECT_DIR"] == str(run.project)
    assert records[1]["payload"]["tool_response"]["interrupted"] is False
    assert json.loads(result.stdout)["result"].startswith("Done. The tool said:")


def test_claude_code_exit2_hook_blocks_the_tool(npm_bin: Path, tmp_path: Path) -> None:
    run, result, records = _claude_run(npm_bin, tmp_path, "exit2")
    assert result.exit_code == 0, result.describe()
    assert not (run.project / "probe.txt").exists()
    assert [r["event"] for r in records] == ["PreToolUse"]
    tool_result = result.requests[1]["body"]["messages"][-1]["content"][0]
    assert tool_result["type"] == "tool_result" and tool_result["is_error"] is True
    assert REASON in json.dumps(tool_result["content"])


# --- Codex CLI --------------------------------------------------------------------------------


def _codex_run(npm_bin: Path, tmp_path: Path, mode: str, hook_trust: str) -> tuple[Any, HostRunResult, list]:
    run = prepare_run("codex", npm_bin, tmp_path / "run")
    log = run.root / "hooks.jsonl"
    recorder = install_recorder(run.root)
    hooks = _command_hooks(
        {
            "PreToolUse": recorder_command(recorder, log, "PreToolUse", mode=mode, reason=REASON),
            "PostToolUse": recorder_command(recorder, log, "PostToolUse"),
        }
    )
    (run.project / ".codex").mkdir()
    (run.project / ".codex" / "hooks.json").write_text(json.dumps(hooks, indent=2))
    result = run.execute(PROBE, options={"hook_trust": hook_trust})
    return run, result, read_records(log)


def test_codex_pretooluse_command_hook_fires(npm_bin: Path, tmp_path: Path) -> None:
    run, result, records = _codex_run(npm_bin, tmp_path, "observe", "bypass")
    assert result.exit_code == 0, result.describe()
    _assert_isolated(result)
    assert (run.project / "probe.txt").read_text() == "pasture-probe\n"
    assert [r["event"] for r in records] == ["PreToolUse", "PostToolUse"], result.describe()

    pre = records[0]["payload"]
    call_id = next(i["call_id"] for i in result.requests[1]["body"]["input"] if i.get("type") == "function_call")
    assert pre["hook_event_name"] == "PreToolUse"
    assert pre["tool_name"] == "Bash"  # the model called exec_command {cmd}; hooks see Bash {command}
    assert pre["tool_input"] == {"command": COMMAND}
    assert pre["tool_use_id"] == call_id
    assert pre["session_id"] and pre["turn_id"] and pre["model"] == "fake-model"
    assert pre["cwd"] == str(run.project)
    assert Path(pre["transcript_path"]).is_relative_to(run.home / ".codex")
    assert records[1]["payload"]["tool_response"] == ""
    assert records[0]["env"]["CODEX_HOME"] == str(run.home / ".codex")


def test_codex_persisted_hook_trust_lets_an_exit2_hook_block(npm_bin: Path, tmp_path: Path) -> None:
    run, result, records = _codex_run(npm_bin, tmp_path, "exit2", "persist")
    assert "--dangerously-bypass-hook-trust" not in result.argv
    assert result.exit_code == 0, result.describe()
    assert not (run.project / "probe.txt").exists()
    assert [r["event"] for r in records] == ["PreToolUse"]
    output = next(i["output"] for i in result.requests[1]["body"]["input"] if i.get("type") == "function_call_output")
    assert f"Command blocked by PreToolUse hook: {REASON}" in json.dumps(output)
    trusted = json.loads((run.root / "codex-hook-trust.json").read_text())
    assert {h["eventName"] for h in trusted} == {"preToolUse", "postToolUse"}


def test_codex_untrusted_hooks_are_skipped_silently(npm_bin: Path, tmp_path: Path) -> None:
    run, result, records = _codex_run(npm_bin, tmp_path, "exit2", "none")
    assert result.exit_code == 0, result.describe()
    assert records == []
    assert (run.project / "probe.txt").exists()


# --- OpenCode ---------------------------------------------------------------------------------


def _opencode_run(npm_bin: Path, tmp_path: Path, block: bool) -> tuple[Any, HostRunResult, list]:
    run = prepare_run("opencode", npm_bin, tmp_path / "run")
    log = run.root / "plugin.jsonl"
    plugins = run.project / ".opencode" / "plugins"
    plugins.mkdir(parents=True)
    (plugins / "pasture-recorder.js").write_text(
        opencode_recorder_plugin(log, block_tool="bash" if block else None, reason=REASON)
    )
    result = run.execute(PROBE)
    return run, result, read_records(log)


def test_opencode_plugin_tool_execute_before_fires(npm_bin: Path, tmp_path: Path) -> None:
    run, result, records = _opencode_run(npm_bin, tmp_path, block=False)
    assert result.exit_code == 0, result.describe()
    _assert_isolated(result)
    assert (run.project / "probe.txt").read_text() == "pasture-probe\n"
    hooks = [r["hook"] for r in records]
    assert "tool.execute.before" in hooks and "tool.execute.after" in hooks, result.describe()
    assert hooks.index("tool.execute.before") < hooks.index("tool.execute.after")

    before = next(r for r in records if r["hook"] == "tool.execute.before")
    (call,) = [m for r in result.requests for m in r["body"].get("messages", []) if m.get("role") == "tool"][:1]
    assert before["input"]["tool"] == "bash"
    assert before["input"]["callID"] == call["tool_call_id"]
    assert before["input"]["sessionID"].startswith("ses_")
    assert before["output"]["args"]["command"] == COMMAND
    init = records[0]
    assert init["hook"] == "plugin.init" and init["input"]["directory"] == str(run.project)
    # no startup npm install attempt (the stub lock works) and the title side query was answered
    assert [r["reply"]["kind"] for r in result.requests].count("side") >= 1
    assert result.wall_time < 60


def test_opencode_plugin_throw_blocks_the_tool(npm_bin: Path, tmp_path: Path) -> None:
    run, result, records = _opencode_run(npm_bin, tmp_path, block=True)
    assert result.exit_code == 0, result.describe()
    assert not (run.project / "probe.txt").exists()
    hooks = [r["hook"] for r in records]
    assert "tool.execute.before" in hooks and "tool.execute.after" not in hooks
    tool_messages = [m for r in result.requests for m in r["body"].get("messages", []) if m.get("role") == "tool"]
    assert tool_messages and tool_messages[-1]["content"] == REASON
