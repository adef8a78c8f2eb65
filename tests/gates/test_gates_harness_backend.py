"""HostHarnessBackend and the per-host command lines, against a fake host binary.

The fake (fake_host.py) speaks each host's headless stdout format; the real hosts are exercised
in test_gates_real_hosts.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
import sys
from pathlib import Path

import pytest
from gates_models import CWEExpansion

from pasture.gates import (
    AIIntegrationError,
    EnvAIConfig,
    HarnessWrapper,
    HostHarnessBackend,
    build_schema_retry_prompt,
    harness_prompt,
)
from pasture.gates.agents import HostRequest, UnsupportedHostError, resolve_host
from pasture.gates.harness import HarnessLaunchError, HarnessTimeoutError, extract_json
from pasture.runtime.agentgate import judges

JUDGES = judges()  # the hosts' own judges (each wire's AGENT_JUDGE)

FAKE_HOST = Path(__file__).resolve().parent / "fake_host.py"
VALID = {"additional_cwes": ["CWE-918"], "rationale": "ssrf"}
HOST_KIND = {"claude-code": "claude", "codex": "codex", "opencode": "opencode"}


@pytest.fixture
def fake_hosts(tmp_path, monkeypatch):
    """Executables standing in for claude/codex/opencode; returns (binaries, set_plan, runs)."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    binaries = {}
    for host, kind in HOST_KIND.items():
        exe = bindir / kind
        exe.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE_HOST}" {kind} "$@"\n')
        exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
        binaries[host] = str(exe)
    log = tmp_path / "host-runs.jsonl"
    plan = tmp_path / "plan.json"
    monkeypatch.setenv("FAKE_HOST_LOG", str(log))
    monkeypatch.setenv("FAKE_HOST_PLAN", str(plan))

    def set_plan(*steps):
        plan.write_text(json.dumps(list(steps)))

    def runs():
        return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []

    return binaries, set_plan, runs


def call(backend, cwd, provider="claude-code", **kw):
    return asyncio.run(
        backend.harness("Do the analysis.", schema=CWEExpansion, cwd=str(cwd), provider=provider, model="m/x", **kw)
    )


@pytest.mark.parametrize("host", list(HOST_KIND))
def test_output_file_is_read_and_validated(fake_hosts, tmp_path, host):
    binaries, set_plan, runs = fake_hosts
    set_plan({"write": json.dumps(VALID), "final": "wrote it", "cost": 0.25})
    result = call(HostHarnessBackend(judges=JUDGES, binaries=binaries), tmp_path / "work", provider=host)
    assert result.parsed == CWEExpansion(**VALID)
    assert result.output_source == "file" and not result.is_error and result.host == host
    assert result.result == "wrote it"
    (run,) = runs()
    assert run["prompt"] == "Do the analysis."  # verbatim on stdin
    assert run["cwd"] == str(tmp_path / "work")
    if host in ("claude-code", "opencode"):
        assert result.cost_usd == 0.25


@pytest.mark.parametrize("host", list(HOST_KIND))
def test_stdout_fallback(fake_hosts, tmp_path, host):
    binaries, set_plan, _ = fake_hosts
    set_plan({"final": "Here you go:\n```json\n" + json.dumps(VALID) + "\n```"})
    result = call(HostHarnessBackend(judges=JUDGES, binaries=binaries), tmp_path, provider=host)
    assert result.parsed == CWEExpansion(**VALID) and result.output_source == "stdout"


def test_stale_output_file_is_ignored(fake_hosts, tmp_path):
    binaries, set_plan, _ = fake_hosts
    (tmp_path / ".agentfield_output.json").write_text(json.dumps(VALID))
    set_plan({"final": "I did nothing."})
    result = call(HostHarnessBackend(judges=JUDGES, binaries=binaries), tmp_path)
    assert result.parsed is None and result.output_source is None and not result.is_error


def test_file_that_fails_the_schema_gives_no_parse(fake_hosts, tmp_path):
    binaries, set_plan, _ = fake_hosts
    set_plan({"write": json.dumps({"additional_cwes": "CWE-1"}), "final": json.dumps(VALID)})
    result = call(HostHarnessBackend(judges=JUDGES, binaries=binaries), tmp_path)
    # the file is the contract: a valid-JSON file that fails the schema is not rescued by stdout
    assert result.parsed is None and result.output_source == "file"
    assert "additional_cwes" in result.validation_error


def test_unparseable_file_falls_back_to_stdout(fake_hosts, tmp_path):
    binaries, set_plan, _ = fake_hosts
    set_plan({"write": "{not json", "final": json.dumps(VALID)})
    result = call(HostHarnessBackend(judges=JUDGES, binaries=binaries), tmp_path)
    assert result.parsed == CWEExpansion(**VALID) and result.output_source == "stdout"


@pytest.mark.parametrize("host", list(HOST_KIND))
def test_host_failure_is_an_error_result(fake_hosts, tmp_path, host):
    binaries, set_plan, _ = fake_hosts
    set_plan({"error": "model refused", "exit": 1})
    result = call(HostHarnessBackend(judges=JUDGES, binaries=binaries), tmp_path, provider=host)
    assert result.is_error and result.parsed is None
    assert "model refused" in result.error_message


def test_nonzero_exit_without_output_reports_stderr(fake_hosts, tmp_path):
    binaries, set_plan, _ = fake_hosts
    set_plan({"exit": 3, "stderr": "fatal: no provider configured"})
    result = call(HostHarnessBackend(judges=JUDGES, binaries=binaries), tmp_path, provider="opencode")
    assert result.is_error and result.returncode == 3
    assert result.error_message == "exited with status 3: fatal: no provider configured"


def test_timeout_kills_the_host_and_is_transient(fake_hosts, tmp_path):
    from pasture.gates import is_transient_error

    binaries, set_plan, _ = fake_hosts
    set_plan({"sleep": 30})
    # the host sleeps 30 s: HarnessTimeoutError is the kill at 0.5 s (no wall-clock bound asserted)
    with pytest.raises(HarnessTimeoutError) as info:
        call(HostHarnessBackend(judges=JUDGES, binaries=binaries, timeout=0.5), tmp_path)
    assert is_transient_error(str(info.value))


def test_missing_binary_and_unknown_provider(tmp_path):
    backend = HostHarnessBackend(judges=JUDGES, binaries={"codex": str(tmp_path / "nope")})
    with pytest.raises(HarnessLaunchError, match="harness binary not found"):
        call(backend, tmp_path, provider="codex")
    with pytest.raises(UnsupportedHostError, match="unsupported harness provider 'aforge'"):
        call(backend, tmp_path, provider="aforge")
    with pytest.raises(UnsupportedHostError):
        HostHarnessBackend(judges=JUDGES, binaries={"cursor": "x"})


def test_environment_layers(fake_hosts, tmp_path):
    binaries, set_plan, runs = fake_hosts
    set_plan({"final": "{}"})
    base = {"PATH": os.environ["PATH"], "FAKE_HOST_LOG": os.environ["FAKE_HOST_LOG"],
            "FAKE_HOST_PLAN": os.environ["FAKE_HOST_PLAN"],
            "PASTURE_T_BASE": "base", "PASTURE_T_OVER": "base"}  # fmt: skip
    backend = HostHarnessBackend(judges=JUDGES, binaries=binaries, base_env=base)
    call(backend, tmp_path, env={"PASTURE_T_OVER": "provider", "XDG_DATA_HOME": "/x"})
    assert runs()[0]["env"] == {"PASTURE_T_BASE": "base", "PASTURE_T_OVER": "provider", "XDG_DATA_HOME": "/x"}


def test_aliases_resolve():
    assert resolve_host("Claude", JUDGES).name == "claude-code"
    assert resolve_host("codex-cli", JUDGES).name == "codex"
    assert resolve_host(" opencode ", JUDGES).name == "opencode"


# -- command lines: one place per host ------------------------------------------------------------


def request(**kw):
    base = dict(prompt="P", cwd="/w", model="m/x", binary="BIN", scratch_dir="/s")
    base.update(kw)
    return HostRequest(**base)


def test_claude_command():
    run = JUDGES["claude-code"].command(request(max_turns=50, max_budget_usd=2.5, project_dir="/repo"))
    assert run.argv == ["BIN", "-p", "--output-format", "json", "--model", "m/x", "--max-turns", "50",
                        "--max-budget-usd", "2.5", "--add-dir", "/repo",
                        "--permission-mode", "acceptEdits"]  # fmt: skip
    assert run.stdin == b"P" and run.env == {}
    bypass = JUDGES["claude-code"].command(request(bypass_permissions=True))
    assert bypass.argv[-1] == "--dangerously-skip-permissions"
    assert bypass.env == ({"IS_SANDBOX": "1"} if os.geteuid() == 0 else {})


def test_codex_command():
    run = JUDGES["codex"].command(
        request(max_turns=50, max_budget_usd=1.0, project_dir="/repo", extra_args=("-c", "x=1"))
    )
    assert run.argv == ["BIN", "exec", "--json", "--skip-git-repo-check", "-C", "/w", "-o", "/s/codex-last-message.txt",
                        "-m", "m/x", "--add-dir", "/repo", "--sandbox", "workspace-write",
                        "-c", 'approval_policy="never"', "-c", "x=1"]  # fmt: skip
    assert run.last_message_path == "/s/codex-last-message.txt"
    assert (
        "--dangerously-bypass-approvals-and-sandbox" in JUDGES["codex"].command(request(bypass_permissions=True)).argv
    )


def test_opencode_command():
    run = JUDGES["opencode"].command(request(max_turns=50, server="http://127.0.0.1:4096", project_dir="/repo"))
    assert run.argv == [
        "BIN",
        "run",
        "--format",
        "json",
        "-m",
        "m/x",
        "--attach",
        "http://127.0.0.1:4096",
        "--dir",
        "/w",
    ]
    assert JUDGES["opencode"].command(request(bypass_permissions=True)).argv[-1] == "--auto"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"a": 1}', {"a": 1}),
        ('Result:\n{"a": {"b": [1, 2]}} trailing', {"a": {"b": [1, 2]}}),
        ('first {broken then {"ok": true}', {"ok": True}),
        ("no json here", None),
        ("", None),
        (None, None),
    ],
)
def test_extract_json(text, value):
    assert extract_json(text) == value


# -- through the wrapper ----------------------------------------------------------------------------


@pytest.mark.parametrize("host", list(HOST_KIND))
def test_wrapper_first_invalid_file_triggers_exactly_the_schema_retry_prompt(fake_hosts, tmp_path, host):
    binaries, set_plan, runs = fake_hosts
    set_plan(
        {"write": json.dumps({"cwes": []}), "final": "done", "cost": 0.5},
        {"write": json.dumps(VALID), "final": "fixed", "cost": 0.25},
    )
    cwd = str(tmp_path / "work")
    cfg = EnvAIConfig(provider=host, harness_model="m/x", max_turns=7)
    wrapper = HarnessWrapper(HostHarnessBackend(judges=JUDGES, binaries=binaries), cfg)
    out = asyncio.run(wrapper.invoke(prompt="Expand the CWE list.", schema=CWEExpansion, cwd=cwd, phase="hunt"))
    assert out == CWEExpansion(**VALID)
    first, second = runs()
    assert first["prompt"] == harness_prompt("Expand the CWE list.", "hunt", cwd, CWEExpansion)
    retry_task = build_schema_retry_prompt(CWEExpansion, "Retry attempt 1/3", cwd)
    assert second["prompt"] == harness_prompt(retry_task, "hunt", cwd, CWEExpansion)
    assert wrapper.invocation_count == 1
    if host != "codex":  # codex reports no cost
        assert wrapper.total_cost_usd == pytest.approx(0.75)


def test_wrapper_reports_host_failure(fake_hosts, tmp_path):
    binaries, set_plan, _ = fake_hosts
    set_plan({"error": "usage limit reached", "exit": 1})
    cfg = EnvAIConfig(provider="codex", harness_model="m/x")
    wrapper = HarnessWrapper(HostHarnessBackend(judges=JUDGES, binaries=binaries), cfg)
    with pytest.raises(AIIntegrationError, match=r"^Harness failure \(prove\): usage limit reached$"):
        asyncio.run(wrapper.invoke(prompt="p", schema=CWEExpansion, cwd=str(tmp_path), phase="prove"))
