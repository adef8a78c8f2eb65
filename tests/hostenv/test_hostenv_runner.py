"""The runner and the launchers, without npm: a stand-in "host" binary plays the host's part."""

from __future__ import annotations

import json
import os
import stat
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

from pasture.hostenv import Script, isolation_support, prepare_run
from pasture.hostenv.runner import CLEARED_ENV, base_host_env
from pasture.hosts import RunContext, RunLayout, launcher_for
from pasture.hosts.opencode import opencode_recorder_plugin
from pasture.hosts.recorder import install_recorder, read_records, recorder_command

# A stand-in for `claude`: records what it was given, then plays one Anthropic tool loop against
# ANTHROPIC_BASE_URL exactly as Claude Code would (stream, run the Bash command, send the result).
STAND_IN = textwrap.dedent("""\
    #!{python}
    import json, os, socket, subprocess, sys, time, urllib.request
    sys.path.insert(0, {pkg!r})
    from pasture.hostenv.fake_models import parse_sse
    if os.environ.get("STAND_IN_SLEEP"):
        time.sleep(float(os.environ["STAND_IN_SLEEP"]))
    probe = {{"argv": sys.argv[1:], "env": dict(os.environ), "cwd": os.getcwd(),
              "stdin": sys.stdin.read(), "interfaces": [n for _, n in socket.if_nameindex()]}}
    open("stand-in.json", "w").write(json.dumps(probe))
    url = os.environ["ANTHROPIC_BASE_URL"] + "/v1/messages?beta=true"
    def ask(messages):
        body = json.dumps({{"model": "m", "stream": True, "tools": [{{"name": "Bash"}}], "messages": messages}})
        req = urllib.request.Request(url, data=body.encode(), headers={{"x-api-key": os.environ["ANTHROPIC_API_KEY"]}})
        return parse_sse(urllib.request.urlopen(req, timeout=10).read())
    messages = [{{"role": "user", "content": sys.argv[2]}}]
    events = ask(messages)
    start = [e.json()["content_block"] for e in events if e.event == "content_block_start"][0]
    args = json.loads([e.json()["delta"]["partial_json"] for e in events if e.event == "content_block_delta"][0])
    out = subprocess.run(args["command"], shell=True, capture_output=True, text=True).stdout
    messages += [{{"role": "assistant", "content": [dict(start, input=args)]}},
                 {{"role": "user", "content": [{{"type": "tool_result", "tool_use_id": start["id"], "content": out}}]}}]
    events = ask(messages)
    print("".join(e.json()["delta"].get("text", "") for e in events if e.event == "content_block_delta"))
""")


@pytest.fixture
def stand_in_bin(tmp_path: Path) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    pkg = str(Path(__file__).resolve().parents[2])
    claude = bin_dir / "claude"
    claude.write_text(STAND_IN.format(python=sys.executable, pkg=pkg))
    claude.chmod(claude.stat().st_mode | stat.S_IXUSR)
    return bin_dir


def test_runner_isolates_the_host_and_wires_it_to_the_fake(
    stand_in_bin: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-REAL-SECRET")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-REAL-SECRET")
    monkeypatch.setenv("SOME_RANDOM_VAR", "leak")
    run = prepare_run("claude-code", stand_in_bin, tmp_path / "run")
    assert (run.project / ".git").is_dir()
    result = run.execute(
        Script.shell_then_reply("echo from-host > probe.txt; echo printed", "final: {tool_result}"), timeout=60
    )
    assert result.exit_code == 0, result.describe()
    assert result.stdout.strip() == "final: printed"
    assert (run.project / "probe.txt").read_text() == "from-host\n"

    seen = json.loads((run.project / "stand-in.json").read_text())
    env = seen["env"]
    assert env["HOME"] == str(run.home) and env["TMPDIR"] == str(run.layout.tmp)
    assert env["XDG_CONFIG_HOME"].startswith(str(run.root))
    assert env["CLAUDE_CONFIG_DIR"] == str(run.home / ".claude")
    assert env["ANTHROPIC_API_KEY"] != "sk-ant-REAL-SECRET"
    assert env["ANTHROPIC_BASE_URL"].startswith("http://127.0.0.1:")
    assert env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] == "1" and env["IS_SANDBOX"] == "1"
    assert not {"HTTPS_PROXY", "OPENAI_API_KEY", "SOME_RANDOM_VAR", "PYTHONPATH"} & set(env)
    assert seen["cwd"] == str(run.project) and seen["stdin"] == ""
    assert seen["argv"][:2] == ["-p", "Create the pasture probe file, then report."]
    assert "--dangerously-skip-permissions" in seen["argv"]

    if isolation_support().private_network:
        assert result.isolation != "none"
        assert seen["interfaces"] == ["lo"]
    assert [r["reply"]["kind"] for r in result.requests] == ["turn", "turn"]
    assert result.requests[0]["headers"]["x-api-key"] == "<redacted>"
    assert all(r["headers"]["host"].startswith("127.0.0.1:") for r in result.requests)
    assert "sk-fake" not in (run.root / "fake-requests.jsonl").read_text()


def test_runner_times_out_a_hanging_host(stand_in_bin: Path, tmp_path: Path) -> None:
    run = prepare_run("claude-code", stand_in_bin, tmp_path / "run")
    result = run.execute(Script.shell_then_reply("true"), timeout=1.5, extra_env={"STAND_IN_SLEEP": "60"})
    assert result.timed_out and result.exit_code == 124, result.describe()
    assert result.wall_time < 10
    assert result.requests == []


def test_extra_env_cannot_pass_credentials_or_proxies(stand_in_bin: Path, tmp_path: Path) -> None:
    run = prepare_run("claude-code", stand_in_bin, tmp_path / "run")
    with pytest.raises(ValueError, match="ANTHROPIC_API_KEY"):
        run.execute(Script(), extra_env={"ANTHROPIC_API_KEY": "x"})
    assert {"https_proxy", "NO_PROXY", "OPENAI_BASE_URL"} <= CLEARED_ENV
    # each host's own credentials come from its launcher
    assert {"CLAUDE_CODE_OAUTH_TOKEN", "CODEX_API_KEY", "GEMINI_API_KEY"} <= CLEARED_ENV
    with pytest.raises(ValueError, match="CODEX_API_KEY"):
        run.execute(Script(), extra_env={"CODEX_API_KEY": "x"})


def test_unknown_launcher_option_is_refused(stand_in_bin: Path, tmp_path: Path) -> None:
    run = prepare_run("claude-code", stand_in_bin, tmp_path / "run")
    with pytest.raises(ValueError, match="unknown claude-code option"):
        run.execute(Script(), options={"nope": 1})


def test_base_env_is_an_allowlist(tmp_path: Path) -> None:
    layout = RunLayout.at(tmp_path)
    env = base_host_env(
        layout,
        {
            "PATH": "/bin",
            "LC_ALL": "C",
            "http_proxy": "x",
            "AWS_SECRET_ACCESS_KEY": "y",
            "CI": "true",
            "PYENV_VERSION": "3.11.7",
        },
    )
    assert env["PATH"] == "/bin" and env["LC_ALL"] == "C" and env["PYENV_VERSION"] == "3.11.7"
    assert "http_proxy" not in env and "AWS_SECRET_ACCESS_KEY" not in env and "CI" not in env
    assert env["HOME"] == str(layout.home)


# --- launchers --------------------------------------------------------------------------------


def _ctx(host: str, tmp_path: Path, **options: object) -> RunContext:
    launcher = launcher_for(host)
    layout = RunLayout.at(tmp_path / host).create()
    binary = tmp_path / "bin" / "x"
    return RunContext(layout, binary, "http://127.0.0.1:4321", "Do the thing now.", launcher.options(options))


@pytest.mark.parametrize(
    ("host", "headless", "bypass"),
    [
        ("claude-code", ["-p"], "--dangerously-skip-permissions"),
        ("codex", ["exec", "--json", "--skip-git-repo-check"], "--dangerously-bypass-approvals-and-sandbox"),
        ("opencode", ["run", "--format", "json"], None),
    ],
)
def test_the_agent_gates_judge_and_the_capture_launcher_run_one_headless_command(
    tmp_path: Path, host: str, headless: list[str], bypass: str | None
) -> None:
    from pasture.gates.agents import HostRequest
    from pasture.runtime.agentgate import judges

    judge = judges()[host]
    request = HostRequest(prompt="P", cwd="/w", model=None, binary="BIN", scratch_dir="/s", bypass_permissions=True)
    judged = judge.command(request).argv
    launched = launcher_for(host).argv(_ctx(host, tmp_path))
    assert judged[1 : 1 + len(headless)] == headless
    assert launched[1 : 1 + len(headless)] == headless
    assert bypass is None or (bypass in judged and bypass in launched)


def test_codex_config_toml_is_valid_and_trusts_the_project(tmp_path: Path) -> None:
    ctx = _ctx("codex", tmp_path, config_toml_extra="[tui]\nanimations = false")
    launcher = launcher_for("codex")
    launcher.prepare(ctx)
    config = tomllib.loads((ctx.layout.home / ".codex" / "config.toml").read_text())
    assert config["model_providers"]["harness"]["base_url"] == "http://127.0.0.1:4321/v1"
    assert config["model_providers"]["harness"]["wire_api"] == "responses"
    assert config["projects"][str(ctx.layout.project)]["trust_level"] == "trusted"
    assert config["features"]["plugins"] is False and config["tui"]["animations"] is False
    argv = launcher.argv(ctx)
    assert argv[1] == "exec" and "--dangerously-bypass-hook-trust" in argv and argv[-1] == "Do the thing now."
    assert launcher.env(ctx)["CODEX_HOME"] == str(ctx.layout.home / ".codex")
    no_bypass = _ctx("codex", tmp_path / "b", hook_trust="none")
    assert "--dangerously-bypass-hook-trust" not in launcher.argv(no_bypass)


def test_opencode_config_stub_locks_and_word_split_prompt(tmp_path: Path) -> None:
    ctx = _ctx("opencode", tmp_path, config={"permission": {"bash": "ask"}})
    launcher = launcher_for("opencode")
    launcher.prepare(ctx)
    config = json.loads((ctx.layout.project / "opencode.json").read_text())
    assert config["provider"]["harness"]["options"]["baseURL"] == "http://127.0.0.1:4321/v1"
    assert config["permission"] == {"bash": "ask", "edit": "allow"}
    for config_dir in (ctx.layout.project / ".opencode", ctx.layout.xdg_config / "opencode"):
        assert (config_dir / "node_modules").is_dir()
        lock = json.loads((config_dir / "package-lock.json").read_text())
        assert "@opencode-ai/plugin" in lock["packages"][""]["dependencies"]
    assert launcher.argv(ctx)[-4:] == ["Do", "the", "thing", "now."]
    assert "--pure" not in launcher.argv(ctx)


def test_claude_permission_mode_other_than_bypass(tmp_path: Path) -> None:
    ctx = _ctx("claude-code", tmp_path, permission_mode="default")
    launcher = launcher_for("claude-code")
    argv = launcher.argv(ctx)
    assert "--dangerously-skip-permissions" not in argv
    assert argv[argv.index("--permission-mode") + 1] == "default"
    assert "IS_SANDBOX" not in launcher.env(ctx)


# --- recorder ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "event", "code", "stdout_has"),
    [
        ("observe", "PreToolUse", 0, ""),
        ("exit2", "PreToolUse", 2, ""),
        ("deny", "PreToolUse", 0, '"permissionDecision": "deny"'),
        ("allow-permission", "PermissionRequest", 0, '"behavior": "allow"'),
        ("exit2", "PostToolUse", 0, ""),
    ],
)
def test_recorder_hook_modes(tmp_path: Path, mode: str, event: str, code: int, stdout_has: str) -> None:
    import subprocess

    script = install_recorder(tmp_path)
    log = tmp_path / "hooks.jsonl"
    cmd = recorder_command(script, log, event, mode=mode, reason="nope")
    payload = {"hook_event_name": event, "tool_name": "Bash"}
    proc = subprocess.run(
        cmd,
        shell=True,
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "CLAUDE_PROJECT_DIR": "/p",
            "CLAUDE_CODE_MESSAGING_TOKEN": "t",
            "GEMINI_X": "g",
            "COPILOTX": "c",
        },
    )
    assert proc.returncode == code
    assert stdout_has in proc.stdout
    if mode == "exit2" and code == 2:
        assert proc.stderr == "nope"
    (record,) = read_records(log)
    assert record["event"] == event and record["payload"] == payload
    assert record["env"]["CLAUDE_PROJECT_DIR"] == "/p"
    assert record["env"]["CLAUDE_CODE_MESSAGING_TOKEN"] == "<redacted>"
    assert record["env"]["GEMINI_X"] == "g" and record["env"]["COPILOTX"] == "c"


def test_recorder_answer_mode_prints_the_file_on_the_first_calls_only(tmp_path: Path) -> None:
    import subprocess

    script = install_recorder(tmp_path)
    log = tmp_path / "hooks.jsonl"
    answer = tmp_path / "answer.json"
    answer.write_text(
        json.dumps(
            {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "allow",
                    "updatedInput": {"command": "echo b"},
                }
            }
        )
    )
    cmd = recorder_command(
        script, log, "PreToolUse", mode="answer", answer_file=answer, answer_times=2, merge_tool_input=True
    )
    assert "echo b" not in cmd  # the answer stays off the command line
    payload = {"hook_event_name": "PreToolUse", "tool_input": {"command": "echo a", "description": "d"}}
    outs = [
        subprocess.run(cmd, shell=True, input=json.dumps(payload), capture_output=True, text=True).stdout
        for _ in range(3)
    ]
    first = json.loads(outs[0])
    assert first["hookSpecificOutput"]["updatedInput"] == {"command": "echo b", "description": "d"}
    assert outs[1] == outs[0] and outs[2] == ""  # answered twice, then it only observes
    assert len(read_records(log)) == 3
    with pytest.raises(ValueError, match="answer file"):
        recorder_command(script, log, "PreToolUse", mode="answer")


def test_opencode_plugin_answers_are_a_closed_set(tmp_path: Path) -> None:
    source = opencode_recorder_plugin(
        tmp_path / "log.jsonl",
        answers={"tool.execute.before": {"op": "set-arg", "tool": "bash", "field": "command", "value": "echo b"}},
    )
    assert '"set-arg"' in source and '"echo b"' in source
    with pytest.raises(ValueError, match="op must be one of"):
        opencode_recorder_plugin(tmp_path / "log.jsonl", answers={"tool.execute.before": {"op": "eval"}})


def test_opencode_plugin_source_exports_one_function(tmp_path: Path) -> None:
    source = opencode_recorder_plugin(tmp_path / "log.jsonl", block_tool="bash", reason="no bash")
    assert source.count("export ") == 1 and "@opencode-ai/plugin" not in source
    assert '"no bash"' in source and '"tool.execute.before"' in source


def test_each_launcher_speaks_a_fake_protocol() -> None:
    """Which fake model API a host speaks is its launcher's (``wire_protocol``): one the fakes serve."""
    from pasture.hostenv.fake_models import PROTOCOLS
    from pasture.hostenv.npm_tools import HOST_PACKAGES
    from pasture.hosts import LAUNCHERS

    assert set(LAUNCHERS) == set(HOST_PACKAGES)
    unserved = {
        h: launcher.wire_protocol for h, launcher in LAUNCHERS.items() if launcher.wire_protocol not in PROTOCOLS
    }
    assert not unserved, f"no fake model speaks {unserved}; add a WireProtocol to pasture/hostenv/fake_models/"
