"""Issue 9 item 1 and 7 on the real hosts: the guard never switches off silently.

Real Claude Code and Codex (pinned in tests/npm), offline against the fake models in the
loopback-only namespace. The adapter is put in place by the real `pasture install` (which writes
and checks the launcher and, for Codex, records hook trust through `codex app-server`, itself run
in a namespace). No PASTURE_BIN wrapper: the hosts run exactly the command lines install recorded,
with a PATH that holds no `pasture`. The fake model asks for `rm -rf build` under a deny policy.

Per host, three ways the runtime goes missing after install, each of which let the tool run before
(exit 127 / 70 read as a non-blocking hook error):

* ``not-on-path``: nothing broken, only `pasture` is absent from the host's PATH: the policy's own
  deny reaches the model (the launcher needs no PATH);
* ``launcher-missing``: the launcher file is gone (exit 127);
* ``broken-install``: the launcher cannot import the runtime (a moved checkout; exit 70).

In the last two, `rm -rf build` is refused and the model is told our one line.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from realhost_support import (
    CLAUDE,
    CODEX,
    REPO,
    _codex_config_for_install,
    _hooks_state_toml,
    _install_env,
    install_adapter,
    tool_results,
)

from pasture.hostenv import HostRun, Script, isolation_support, prepare_run

pytestmark = pytest.mark.real_host

RM = "rm -rf build"
REASON = "pasture-realhost: rm -rf is not allowed here (rule no-rm-rf)"
PROBE = "echo pasture-probe > probe.txt"
PROBE_REASON = "pasture-realhost: probe.txt may not be written (rule no-probe)"
POLICY = f"""[gate]
kind = "rules"

[[rules]]
name = "no-rm-rf"
decision = "deny"
reason = {json.dumps(REASON)}
tool_kind = "shell"
command = "rm\\\\s+-rf"

[[rules]]
name = "no-probe"
decision = "deny"
reason = {json.dumps(PROBE_REASON)}
tool_kind = "shell"
command = "pasture-probe\\\\s*>\\\\s*probe\\\\.txt"
"""
OUR_LINE = "pasture: the guard could not run (exit {code}), so PreToolUse is refused; see `pasture doctor` for the fix"
#: The PATH the hosts get: the system folders only (node for Codex's launcher), no venv, no pasture.
HOST_PATH = "/usr/local/bin:/usr/bin:/bin"


class Outcome:
    def __init__(self, run: HostRun, result, host: str) -> None:
        self.run, self.result, self.host = run, result, host

    @property
    def build_survived(self) -> bool:
        return (self.run.project / "build" / "keep.txt").exists()

    def tool_results(self) -> list[str]:
        """The text of every tool result the host sent the model, oldest first."""
        return [r["text"] for r in tool_results(self.host, self.result.requests)]

    def describe(self) -> str:
        return f"{self.result.describe()}\ntool results: {self.tool_results()}"


def _prepare(host: str, npm_bin: Path, root: Path) -> tuple[HostRun, dict, str]:
    """A run folder with `build/`, the real `pasture install`, and the policy in the user layer."""
    spec = CLAUDE if host == "claude-code" else CODEX
    run = prepare_run(host, npm_bin, root)
    (run.project / "build").mkdir()
    (run.project / "build" / "keep.txt").write_text("still here\n")
    policy = run.root / "policy.toml"
    policy.write_text(POLICY)
    installed = install_adapter(spec, run, npm_bin)
    assert installed.how == "pasture install", installed
    report = installed.report
    launcher = Path(report["launcher"]["path"])
    assert launcher == run.layout.xdg_data / "pasture" / "bin" / "pasture-hook"
    assert json.loads(report["launcher"]["checked"])["ok"] is True
    return run, report, installed.codex_trust_toml


def _execute(host: str, run: HostRun, trust_toml: str, command: str = RM) -> Outcome:
    options = {"hook_trust": "none", "config_toml_extra": trust_toml} if host == "codex" else {}
    result = run.execute(
        Script.shell_then_reply(command, "Done. The tool said: {tool_result}"),
        timeout=120,
        options=options,
        extra_env={"PATH": HOST_PATH, "PASTURE_POLICY": str(run.root / "policy.toml")},
    )
    assert "--dangerously-bypass-hook-trust" not in result.argv
    assert "pasture" not in result.env["PATH"] and "PASTURE_BIN" not in result.env
    outcome = Outcome(run, result, host)
    if isolation_support().private_network:
        assert result.isolation != "none" and result.extra.get("interfaces") == ["lo"]
    # (a refused prompt may mean the model is never asked at all)
    assert all(r["headers"].get("host", "").startswith("127.0.0.1:") for r in result.requests)
    return outcome


def _launcher(run: HostRun) -> Path:
    return run.layout.xdg_data / "pasture" / "bin" / "pasture-hook"


def _break(run: HostRun, how: str) -> None:
    launcher = _launcher(run)
    if how == "launcher-missing":
        launcher.unlink()
    elif how == "broken-install":
        text = launcher.read_text()
        moved = text.replace("PATHS = [", "PATHS = ['/nonexistent/moved-checkout', ", 1).replace(
            repr(str(REPO)) + ", ", "", 1
        )
        assert moved != text
        launcher.write_text(moved)


def _user_saw(out: Outcome) -> str:
    return out.result.stdout + out.result.stderr


@pytest.mark.parametrize("host", ["claude-code", "codex"])
def test_without_pasture_on_the_path_the_deny_still_holds(npm_bin: Path, tmp_path: Path, host: str) -> None:
    """The venv is not activated where the host was started: the recorded launcher needs no PATH."""
    run, _report, trust = _prepare(host, npm_bin, tmp_path / "run")
    out = _execute(host, run, trust)
    assert out.result.exit_code == 0, out.describe()
    assert out.build_survived, out.describe()
    (told,) = out.tool_results()
    assert REASON in told, out.describe()


@pytest.mark.parametrize("host", ["claude-code", "codex"])
@pytest.mark.parametrize("how", ["launcher-missing", "broken-install"])
def test_a_broken_runtime_refuses_the_prompt_and_says_why(npm_bin: Path, tmp_path: Path, host: str, how: str) -> None:
    """With no runtime at all, the first blocking row is UserPromptSubmit: the prompt is refused (so
    `rm -rf build` is never even asked for). Claude Code shows the user our line with its own
    ("UserPromptSubmit operation blocked by hook: ..."). Codex 0.171.0 refuses the prompt too (no
    model request at all), but `codex exec --json` prints no reason for a UserPromptSubmit block
    (host behaviour, the same in our committed capture captures/codex@0.171.0/user-prompt-submit-exit-2):
    the line reaches Codex only; `pasture doctor` names the cause."""
    run, _report, trust = _prepare(host, npm_bin, tmp_path / "run")
    _break(run, how)
    out = _execute(host, run, trust)
    assert out.build_survived, out.describe()
    assert out.tool_results() == [] and out.result.requests == [], out.describe()
    code = 127 if how == "launcher-missing" else 70
    line = OUR_LINE.format(code=code).replace("PreToolUse", "UserPromptSubmit")
    if host == "claude-code":
        result = json.loads(out.result.stdout)["result"]
        assert result.startswith("UserPromptSubmit operation blocked by hook:") and line in result, out.describe()
        if how == "broken-install":
            assert "the hook runtime cannot be loaded (ModuleNotFoundError: No module named 'pasture'" in result
            assert f"then run `pasture install {host}`" in result
    else:
        assert '"type":"turn.completed"' in out.result.stdout and "agent_message" not in out.result.stdout


#: A launcher whose PreToolUse calls cannot start (the interpreter it names is gone); every other
#: event runs the real one. The launcher is not part of what Codex hashes, so trust stays valid.
_PRE_TOOL_USE_GONE = """#!/bin/sh
case " $* " in *" --event PreToolUse "*) exec /nonexistent/python3 -IS "$0" "$@";; esac
exec {real} "$@"
"""


@pytest.mark.parametrize("host", ["claude-code", "codex"])
def test_pre_tool_use_whose_runtime_cannot_start_refuses_rm_rf(npm_bin: Path, tmp_path: Path, host: str) -> None:
    run, _report, trust = _prepare(host, npm_bin, tmp_path / "run")
    launcher = _launcher(run)
    real = launcher.with_name("pasture-hook.real")
    launcher.rename(real)
    launcher.write_text(_PRE_TOOL_USE_GONE.format(real=real))
    launcher.chmod(0o755)
    out = _execute(host, run, trust)
    assert out.result.exit_code == 0, out.describe()
    assert out.build_survived, out.describe()
    (told,) = out.tool_results()
    assert OUR_LINE.format(code=127) in told, out.describe()
    if host == "claude-code":
        assert told.startswith("PreToolUse:Bash hook error: "), told
    else:
        assert told.startswith("Command blocked by PreToolUse hook: "), told


# --- item 7: Codex trust drift -------------------------------------------------------------------

FOREIGN = {"hooks": [{"type": "command", "command": "true", "timeout": 5}]}


def _pasture(run: HostRun, npm_bin: Path, *args: str) -> subprocess.CompletedProcess:
    """`pasture ARGS` as the user runs it, inside its own loopback-only namespace."""
    argv = [*isolation_support().wrapper, sys.executable, "-m", "pasture.entry", *args]
    return subprocess.run(
        argv,
        capture_output=True,
        text=True,
        cwd=run.project,
        env=_install_env(run, npm_bin),
        stdin=subprocess.DEVNULL,
        timeout=240,
    )


def test_codex_trust_drift_is_reported_and_the_named_fix_restores_the_deny(npm_bin: Path, tmp_path: Path) -> None:
    run, _report, _trust = _prepare("codex", npm_bin, tmp_path / "run")
    codex = str(npm_bin / "codex")
    doctor = ["doctor", "--project", str(run.project), "--root", str(REPO), "--codex-bin", codex, "--json"]
    live = _pasture(run, npm_bin, *doctor)
    assert live.returncode == 0, live.stdout + live.stderr
    (trust,) = [f for f in json.loads(live.stdout)["findings"] if f["check"] == "codex-trust"]
    assert trust["status"] == "ok", trust

    # Someone adds a hook of their own in front of ours: our trust keys shift.
    hooks_file = run.project / ".codex" / "hooks.json"
    doc = json.loads(hooks_file.read_text())
    doc["hooks"]["PreToolUse"].insert(0, FOREIGN)
    hooks_file.write_text(json.dumps(doc, indent=2))

    drifted = _pasture(run, npm_bin, *doctor)
    assert drifted.returncode == 1, drifted.stdout + drifted.stderr
    (trust,) = [f for f in json.loads(drifted.stdout)["findings"] if f["check"] == "codex-trust"]
    assert trust["status"] == "off" and "SILENTLY SKIPS" in trust["message"] and "PreToolUse[1]" in trust["message"]
    assert trust["fix"] == f"pasture install codex --project {run.project} --trust-only"

    # The control: as issue 9 item 7 says, real Codex now skips our PreToolUse hook without a word.
    config = run.layout.home / ".codex" / "config.toml"
    recorded = _hooks_state_toml(config)
    # (Codex refuses `rm -rf` by itself; the probe write is what only our hook refuses)
    skipped = _execute("codex", run, recorded, PROBE)
    assert (run.project / "probe.txt").exists(), skipped.describe()
    assert not any(PROBE_REASON in t for t in skipped.tool_results())
    (run.project / "probe.txt").unlink()

    # The fix the doctor named, run as named (plus where to find codex), restores it. hostenv
    # rewrote config.toml for its run (the fake's port); the user's recorded trust is carried over.
    _codex_config_for_install(run)
    config.write_text(config.read_text() + recorded)
    fixed = _pasture(run, npm_bin, *trust["fix"].split()[1:], "--root", str(REPO), "--codex-bin", codex, "--json")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    warnings = json.loads(fixed.stdout)["warnings"]
    assert any("Codex had stopped trusting" in w for w in warnings), warnings
    again = _pasture(run, npm_bin, *doctor)
    assert again.returncode == 0, again.stdout + again.stderr

    out = _execute("codex", run, _hooks_state_toml(config), PROBE)
    assert out.result.exit_code == 0, out.describe()
    assert not (run.project / "probe.txt").exists(), out.describe()
    told = out.tool_results()[-1]  # (the run folder's request log also holds the control run's)
    assert told == f"Command blocked by PreToolUse hook: {PROBE_REASON}. Command: {PROBE}", out.describe()
