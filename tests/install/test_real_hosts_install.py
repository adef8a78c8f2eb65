"""Claude Code and OpenCode read the adapters exactly where `pasture install` puts them.

Real hosts from tests/npm, offline against the fake models (pasture.hostenv); PASTURE_BIN is a
stub recording argv and stdin (answering OpenCode's plugin protocol with a proceed decision).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from profiles_found import admitting, pinned

from pasture.hostenv import Script, prepare_run

pytestmark = pytest.mark.real_host

PROBE = Script.shell_then_reply("echo pasture-probe > probe.txt", "Done. The tool said: {tool_result}")

STUB = """#!{python}
import json, os, sys
if sys.argv[1:3] == ["hook", "serve"]:  # the OpenCode plugin's long-lived runtime (pasture/runtime/serve.py)
    print(json.dumps({{"pasture": "hook-serve", "protocol": 1, "await": ["tool.execute.before"]}}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        with open({log!r}, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({{"argv": sys.argv[1:], "event": request["event"], "stdin": line}}) + "\\n")
        print(json.dumps({{"id": request["id"], "exit": 0, "stdout": json.dumps({{"decision": "proceed"}}),
                          "stderr": ""}}), flush=True)
    sys.exit(0)
raw = sys.stdin.read()
with open({log!r}, "a", encoding="utf-8") as fh:
    fh.write(json.dumps({{"argv": sys.argv[1:], "stdin": raw}}) + "\\n")
"""


def _stub(root: Path) -> tuple[Path, Path]:
    log, path = root / "pasture-calls.jsonl", root / "pasture-stub"
    path.write_text(STUB.format(python=sys.executable, log=str(log)))
    path.chmod(0o755)
    return path, log


def _launcher_runs(report: dict, stub: Path) -> None:
    """Issue 18: installed hooks run the launcher by absolute path; the test's stub goes in its place."""
    launcher = Path(report["launcher"]["path"])
    launcher.write_text(f'#!/bin/sh\nexec {stub} "$@"\n')
    launcher.chmod(0o755)


def _events(log: Path) -> list[str]:
    if not log.exists():
        return []
    records = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    return [r["event"] if "event" in r else r["argv"][5] for r in records]


def test_claude_code_runs_the_installed_settings(
    pasture, npm_bin: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = prepare_run("claude-code", npm_bin, tmp_path / "run")
    monkeypatch.setenv("HOME", str(run.home))
    installed = pasture("install", "claude-code", "--project", str(run.project), "--json")
    assert installed.code == 0, installed
    stub, log = _stub(run.root)
    _launcher_runs(installed.json(), stub)  # the hooks name the launcher by path: PASTURE_BIN cannot reach them
    result = run.execute(PROBE)
    assert result.exit_code == 0, result.describe()
    assert (run.project / "probe.txt").read_text() == "pasture-probe\n"
    events = _events(log)
    for event in ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"):
        assert event in events, (events, result.describe())
    first = json.loads(log.read_text().splitlines()[0])
    assert first["argv"][:5] == ["hook", "lifecycle", "--harness", "claude-code", "--event"]
    assert first["argv"][6:] == ["--host-version", pinned("@anthropic-ai/claude-code")]


def test_opencode_loads_the_installed_plugin(
    pasture, npm_bin: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = prepare_run("opencode", npm_bin, tmp_path / "run")
    monkeypatch.setenv("HOME", str(run.home))
    installed = pasture(
        "install", "opencode", "--project", str(run.project), "--opencode-bin", str(npm_bin / "opencode"), "--json"
    )
    assert installed.code == 0, installed
    version = pinned("opencode-ai")
    assert installed.json()["contract"] == admitting("opencode", version)  # its --version picks the contract
    assert f"--version` says {version}" in installed.json()["contract_reason"]
    stub, log = _stub(run.root)
    result = run.execute(PROBE, extra_env={"PASTURE_BIN": str(stub)})
    assert result.exit_code == 0, result.describe()
    assert (run.project / "probe.txt").read_text() == "pasture-probe\n"
    events = _events(log)
    assert "tool.execute.before" in events and "tool.execute.after" in events, (events, result.describe())
