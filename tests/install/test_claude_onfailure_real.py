"""What real Claude Code 2.1.328 does with ``"onFailure": "block"`` on a PreToolUse command hook.

The notes (shared reference, claude-code-hooks.md §3.6) only carry the 2.1.295 release note: "a hook
that can't start, times out, or exits with an unexpected code blocks the action". These runs are the
evidence `pasture.hosts.claude_code` cites for writing the key on blocking gate rows:

* settings validation accepts the key (the hook still runs);
* a hook whose binary is missing (exit 127) blocks the tool;
* a hook that outlives its ``timeout`` blocks the tool;
* without the key, the same missing binary lets the tool run (the control).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pasture.hostenv import Script, isolation_support, prepare_run

pytestmark = pytest.mark.real_host

COMMAND = "echo pasture-probe > probe.txt"
PROBE = Script.shell_then_reply(COMMAND, "Done. The tool said: {tool_result}")


def _run(npm_bin: Path, root: Path, handler: dict):
    run = prepare_run("claude-code", npm_bin, root)
    settings = {"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [handler]}]}}
    (run.project / ".claude").mkdir()
    (run.project / ".claude" / "settings.json").write_text(json.dumps(settings, indent=2))
    result = run.execute(PROBE, timeout=120)
    if isolation_support().private_network:
        assert result.extra.get("interfaces") == ["lo"]
    told = [
        part
        for req in result.requests
        for msg in (req.get("body") or {}).get("messages", [])
        if msg.get("role") == "user" and isinstance(msg.get("content"), list)
        for part in msg["content"]
        if isinstance(part, dict) and part.get("type") == "tool_result"
    ]
    return run, result, told


def test_missing_binary_with_on_failure_block_blocks(npm_bin: Path, tmp_path: Path) -> None:
    missing = tmp_path / "gone" / "pasture-hook"
    run, result, told = _run(
        npm_bin,
        tmp_path / "run",
        {"type": "command", "command": f"{missing} hook lifecycle", "timeout": 30, "onFailure": "block"},
    )
    assert result.exit_code == 0, result.describe()
    assert not (run.project / "probe.txt").exists(), result.describe()
    assert told and told[0].get("is_error") is True, (told, result.describe())


def test_timeout_with_on_failure_block_blocks(npm_bin: Path, tmp_path: Path) -> None:
    run, result, told = _run(
        npm_bin, tmp_path / "run", {"type": "command", "command": "sleep 30", "timeout": 2, "onFailure": "block"}
    )
    assert result.exit_code == 0, result.describe()
    assert not (run.project / "probe.txt").exists(), result.describe()
    assert told and told[0].get("is_error") is True, (told, result.describe())


def test_missing_binary_without_on_failure_lets_the_tool_run(npm_bin: Path, tmp_path: Path) -> None:
    """The control: the fail-open default that issue 9 item 1 reported."""
    missing = tmp_path / "gone" / "pasture-hook"
    run, result, told = _run(
        npm_bin, tmp_path / "run", {"type": "command", "command": f"{missing} hook lifecycle", "timeout": 30}
    )
    assert result.exit_code == 0, result.describe()
    assert (run.project / "probe.txt").exists(), result.describe()
