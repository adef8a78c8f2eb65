"""The proof: hooks put in place by `pasture install codex` fire in a real `codex exec` run WITHOUT
--dangerously-bypass-hook-trust, because install recorded their trust the way Codex does.

Each run: the hostenv runner makes a run folder (project = a fresh git repo, HOME and CODEX_HOME
inside it); the user has trusted the project (the same [projects] table the Codex launcher
writes); `pasture install codex --project <project>` merges the generated hooks.json and records
trust through the real `codex app-server`; then codex exec runs offline against the fake
Responses server in a network namespace with the launcher's hook_trust="none" (no bypass flag, no
trust of its own). PASTURE_BIN points at a stub that records its argv and stdin.

The launcher writes config.toml itself once the fake server's port is known, so the bytes our
install appended to config.toml (exactly those: the test asserts the user's part is unchanged)
are handed to it as config_toml_extra.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from profiles_found import pinned

from pasture.hostenv import HostRun, Script, isolation_support, prepare_run

pytestmark = pytest.mark.real_host

COMMAND = "echo pasture-probe > probe.txt"
PROBE = Script.shell_then_reply(COMMAND, "Done. The tool said: {tool_result}")
REASON = "pasture stub says no"
HOST_VERSION = pinned("@openai/codex")

STUB = """#!{python}
import json, os, sys
raw = sys.stdin.read()
with open({log!r}, "a", encoding="utf-8") as fh:
    fh.write(json.dumps({{"argv": sys.argv[1:], "stdin": raw, "cwd": os.getcwd()}}) + "\\n")
if os.environ.get("PASTURE_STUB_BLOCK") and sys.argv[1:6] == ["hook", "lifecycle", "--harness", "codex", "--event"] \\
        and sys.argv[6] == "PreToolUse":
    sys.stderr.write({reason!r})
    sys.exit(2)
"""


def _stub(run: HostRun) -> tuple[Path, Path]:
    log = run.root / "pasture-calls.jsonl"
    path = run.root / "pasture-stub"
    path.write_text(STUB.format(python=sys.executable, log=str(log), reason=REASON))
    path.chmod(0o755)
    return path, log


def _calls(log: Path) -> list[dict[str, Any]]:
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def _installed_run(
    pasture, npm_bin: Path, root: Path, monkeypatch: pytest.MonkeyPatch, *, record_trust: bool = True
) -> tuple[HostRun, str, dict]:
    run = prepare_run("codex", npm_bin, root)
    codex_home = run.layout.home / ".codex"
    user_part = f'[projects.{json.dumps(str(run.project))}]\ntrust_level = "trusted"\n'
    (codex_home / "config.toml").write_text(user_part)
    monkeypatch.setenv("HOME", str(run.home))
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    args = ["install", "codex", "--project", str(run.project), "--json"]
    if record_trust:
        args += ["--codex-bin", str(npm_bin / "codex")]
    result = pasture(*args)
    report = result.json()
    assert result.code == (0 if record_trust else 3), result
    text = (codex_home / "config.toml").read_text()
    assert text.startswith(user_part)
    return run, text[len(user_part) :], report


def _execute(run: HostRun, trust_tables: str, stub: Path, **env: str):
    # Issue 18: the installed hooks name the launcher by absolute path (no ${PASTURE_BIN:-...}), so the
    # stub takes the launcher's place in the run's own data folder (the launcher is not what Codex hashes).
    from pasture.install.hooktable import recorded_binary

    hooks = json.loads((run.project / ".codex" / "hooks.json").read_text())["hooks"]
    launcher = Path(recorded_binary(next(iter(hooks.values()))[0]["hooks"][0]["command"]))
    launcher.write_text(f'#!/bin/sh\nexec {stub} "$@"\n')
    launcher.chmod(0o755)
    return run.execute(PROBE, options={"hook_trust": "none", "config_toml_extra": trust_tables}, extra_env=env)


def test_installed_hooks_fire_without_the_bypass_flag(
    pasture, npm_bin: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run, trust_tables, report = _installed_run(pasture, npm_bin, tmp_path / "run", monkeypatch)
    assert trust_tables.count("[hooks.state.") == len(report["events"]) == 12
    stub, log = _stub(run)
    result = _execute(run, trust_tables, stub)

    assert "--dangerously-bypass-hook-trust" not in result.argv
    assert result.exit_code == 0, result.describe()
    if isolation_support().private_network:
        assert result.extra.get("interfaces") == ["lo"]
    assert (run.project / "probe.txt").read_text() == "pasture-probe\n"
    calls = _calls(log)
    events = [c["argv"][5] for c in calls]
    assert events == ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd"], (
        result.describe()
    )
    for call in calls:
        event = call["argv"][5]
        assert call["argv"] == [
            "hook",
            "lifecycle",
            "--harness",
            "codex",
            "--event",
            event,
            "--host-version",
            HOST_VERSION,
        ]
        payload = json.loads(call["stdin"])
        assert payload["hook_event_name"] == event and payload["cwd"] == str(run.project)
        assert call["cwd"] == str(run.project)
    pre = json.loads(calls[2]["stdin"])
    assert pre["tool_name"] == "Bash" and pre["tool_input"] == {"command": COMMAND}
    # Codex said nothing about hooks running without review (it does when the bypass flag is used)
    assert "without review" not in result.stdout + result.stderr


def test_installed_pretooluse_hook_blocks_without_the_bypass_flag(
    pasture, npm_bin: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run, trust_tables, _ = _installed_run(pasture, npm_bin, tmp_path / "run", monkeypatch)
    stub, log = _stub(run)
    result = _execute(run, trust_tables, stub, PASTURE_STUB_BLOCK="1")
    assert "--dangerously-bypass-hook-trust" not in result.argv
    assert result.exit_code == 0, result.describe()
    assert not (run.project / "probe.txt").exists()
    assert "PostToolUse" not in [c["argv"][5] for c in _calls(log)]
    told = [
        i["output"]
        for r in result.requests
        for i in r["body"].get("input", [])
        if isinstance(i, dict) and i.get("type") == "function_call_output"
    ]
    assert any(f"Command blocked by PreToolUse hook: {REASON}" in json.dumps(o) for o in told), result.describe()


def test_without_recorded_trust_codex_skips_the_same_hooks_silently(
    pasture, npm_bin: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The control: same install, but no codex to record trust (install exits 3 and says so)."""
    monkeypatch.setenv(
        "PATH", os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if not (Path(p) / "codex").exists())
    )
    run, trust_tables, report = _installed_run(pasture, npm_bin, tmp_path / "run", monkeypatch, record_trust=False)
    assert trust_tables == "" and "SILENTLY SKIP" in report["problems"][0]
    stub, log = _stub(run)
    result = _execute(run, trust_tables, stub, PASTURE_STUB_BLOCK="1")
    assert result.exit_code == 0, result.describe()
    assert _calls(log) == []
    assert (run.project / "probe.txt").exists()
