"""A policy that steers (issue 17) in the USER layer, on the real pinned Claude Code, Codex, OpenCode,
Copilot CLI, Gemini CLI and Pi (each as far as its row offers), offline against the fake models: the
rewritten command is the one that ran (the probe file says so), the session-start context is in the
requests the fake model receives, [[after]] feedback reaches the model, and a failing [[until]] yields
further model turns holding its output, then ends after `max`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from realhost_support import CLAUDE, CODEX, run_host

pytestmark = pytest.mark.real_host

CONTEXT = "pasture-steer-context-marker"
AFTER = "pasture-steer-after-marker"
UNTIL = "pasture-steer-until-marker"
REWRITTEN = "pasture-rewritten"


def _policy(folder: Path) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    after = folder / "after.py"
    after.write_text(f"print({AFTER!r}); raise SystemExit(1)\n")
    until = folder / "until.py"
    until.write_text(f"print({UNTIL!r}); raise SystemExit(1)\n")
    py = json.dumps(sys.executable)
    return f"""
[[rules]]
name = "rewrite-probe"
tool_kind = "shell"
command = "pasture-probe"
decision = "rewrite"
rewrite = {{ field = "command", pattern = "pasture-probe", replace = "{REWRITTEN}" }}

[[context]]
name = "marker"
on = "session-start"
text = "{CONTEXT}"

[[after]]
name = "lint"
tool_kind = "shell"
command = [{py}, {json.dumps(str(after))}]

[[until]]
name = "tests"
command = [{py}, {json.dumps(str(until))}]
max = 2
"""


def _requests_with(outcome, marker: str) -> list[int]:
    return [i for i, r in enumerate(outcome.result.requests) if marker in json.dumps(r.get("body", r))]


@pytest.mark.parametrize("spec", [CLAUDE, CODEX], ids=["claude-code", "codex"])
def test_the_steering_policy_works_on_the_real_host(spec, npm_bin: Path, tmp_path: Path) -> None:
    out = run_host(spec, npm_bin, tmp_path / "run", _policy(tmp_path / "scripts"), timeout=180)
    assert out.result.exit_code == 0, out.describe()
    # rewrite: the command that ran is the rewritten one
    assert (out.project / "probe.txt").read_text() == f"{REWRITTEN}\n", out.describe()
    (pre,) = [c for c in out.calls(spec.pre_event) if "pasture-probe" in json.dumps(c.payload)]
    assert json.loads(pre.stdout)["hookSpecificOutput"]["updatedInput"]["command"] == f"echo {REWRITTEN} > probe.txt"
    # context: in the requests the fake model received
    assert _requests_with(out, CONTEXT), out.describe()
    # after: the failing check's output reached the model after the tool
    assert _requests_with(out, AFTER), out.describe()
    # until: two continuations holding its output, then the session ended
    stops = out.calls("Stop")
    assert len(stops) == 3, out.describe()
    assert [json.loads(s.stdout).get("decision") if s.stdout.strip() else None for s in stops] == [
        "block",
        "block",
        None,
    ]
    assert len(_requests_with(out, UNTIL)) >= 2, out.describe()
    last = out.journal(event="Stop")[-1]
    assert last["detail"]["steer"][0]["stopped"].startswith("reached max = 2"), last


ALLOW = """
[[rules]]
name = "probe-ok"
tool_kind = "shell"
command = "pasture-probe"
decision = "allow"
"""


def _allow_case(spec):
    from pasture.hosts.claude_code import _CLAUDE_DEFAULT
    from pasture.hosts.codex import _CODEX_APPROVALS, _ESCALATED
    from pasture.hosts.scenario_sets import PROBE as _PROBE

    return (dict(_CLAUDE_DEFAULT), _PROBE) if spec is CLAUDE else (dict(_CODEX_APPROVALS), _ESCALATED)


@pytest.mark.parametrize("spec", [CLAUDE, CODEX], ids=["claude-code", "codex"])
def test_allow_skips_the_permission_prompt_and_without_it_the_call_does_not_run(
    spec, npm_bin: Path, tmp_path: Path
) -> None:
    options, script = _allow_case(spec)
    # control: the same run with no allow rule, where a headless run has nobody to approve the call
    control = run_host(spec, npm_bin, tmp_path / "control", "", options=options, script=script, timeout=120)
    assert not control.probe_exists, control.describe()
    out = run_host(spec, npm_bin, tmp_path / "run", ALLOW, options=options, script=script, timeout=120)
    assert out.probe_exists, out.describe()
    answered = [r["answer"] for r in out.journal() if r["decision"] == "allow"]
    assert "allow" in answered, out.describe()


def test_the_steering_policy_works_on_the_real_opencode(npm_bin: Path, tmp_path: Path) -> None:
    from realhost_support import OPENCODE

    policy = _policy(tmp_path / "scripts")
    out = run_host(OPENCODE, npm_bin, tmp_path / "run", policy, timeout=180)
    assert out.result.exit_code == 0, out.describe()
    # rewrite: the plugin set output.args.command in place, and that is what ran
    assert (out.project / "probe.txt").read_text() == f"{REWRITTEN}\n", out.describe()
    # context: pushed into the system prompt of the requests the fake model receives
    assert _requests_with(out, CONTEXT), out.describe()
    # after: appended to the tool's output, which the model receives
    assert _requests_with(out, AFTER), out.describe()
    # until: OpenCode 1.18.33 offers no continuation; it degrades to proceed and never runs a turn for it
    assert not _requests_with(out, UNTIL), out.describe()


# --- Copilot CLI 1.0.102, Gemini CLI 0.61.0, Pi 0.73.1 (issue 20): the same policy, each host's own wire ----


def _copilot_rewritten(stdout: str) -> str:
    return json.loads(stdout)["modifiedArgs"]["command"]


def _gemini_rewritten(stdout: str) -> str:
    return json.loads(stdout)["hookSpecificOutput"]["tool_input"]["command"]


def _new_hosts():
    from realhost_support import COPILOT, GEMINI

    # (spec, options, how the PreToolUse-like answer names the rewritten command, stop event, its "go on")
    return {
        # default permissions (no --allow-all-tools), as the rewrite capture: the allow in the rewrite runs it
        "copilot-cli": (COPILOT, {"trust": "none", "allow_all_tools": False}, _copilot_rewritten, "agentStop", "block"),
        "gemini-cli": (GEMINI, {}, _gemini_rewritten, "AfterAgent", "deny"),
    }


@pytest.mark.parametrize("host", ["copilot-cli", "gemini-cli"])
def test_the_steering_policy_works_on_the_real_new_host(host: str, npm_bin: Path, tmp_path: Path) -> None:
    spec, options, rewritten, stop_event, go_on = _new_hosts()[host]
    out = run_host(spec, npm_bin, tmp_path / "run", _policy(tmp_path / "scripts"), options=options, timeout=180)
    try:
        assert out.result.exit_code == 0, out.describe()
        # rewrite: the command that ran is the rewritten one
        assert (out.project / "probe.txt").read_text() == f"{REWRITTEN}\n", out.describe()
        (pre,) = [c for c in out.calls(spec.pre_event) if "pasture-probe" in json.dumps(c.payload)]
        assert rewritten(pre.stdout) == f"echo {REWRITTEN} > probe.txt", out.describe()
        # context: in the requests the fake model received
        assert _requests_with(out, CONTEXT), out.describe()
        # after: the failing check's output reached the model after the tool
        assert _requests_with(out, AFTER), out.describe()
        # until: two continuations holding its output, then the session ended
        stops = out.calls(stop_event)
        assert len(stops) == 3, out.describe()
        assert [json.loads(s.stdout).get("decision") if s.stdout.strip() else None for s in stops] == [
            go_on,
            go_on,
            None,
        ], out.describe()
        assert len(_requests_with(out, UNTIL)) >= 2, out.describe()
        last = out.journal(event=stop_event)[-1]
        assert last["detail"]["steer"][0]["stopped"].startswith("reached max = 2"), last
    finally:
        if host == "copilot-cli":
            from pasture.hosts.copilot_cli import drop_unpacked

            drop_unpacked(out.run.layout)


def test_allow_skips_copilots_permission_prompt_and_without_it_the_call_does_not_run(
    npm_bin: Path, tmp_path: Path
) -> None:
    from realhost_support import COPILOT

    from pasture.hosts.copilot_cli import drop_unpacked

    options = {"trust": "none", "allow_all_tools": False}  # its default permissions: nobody to approve
    control = run_host(COPILOT, npm_bin, tmp_path / "control", "", options=options, timeout=120)
    drop_unpacked(control.run.layout)
    assert not control.probe_exists, control.describe()
    out = run_host(COPILOT, npm_bin, tmp_path / "run", ALLOW, options=options, timeout=120)
    try:
        assert out.probe_exists, out.describe()
        (pre,) = out.calls("preToolUse")
        assert json.loads(pre.stdout) == {
            "permissionDecision": "allow",
            "permissionDecisionReason": "pasture policy rule 'probe-ok'",
        }, out.describe()
        assert "allow" in [r["answer"] for r in out.journal() if r["decision"] == "allow"], out.describe()
    finally:
        drop_unpacked(out.run.layout)


def test_the_steering_policy_works_on_the_real_pi(npm_bin: Path, tmp_path: Path) -> None:
    """Pi offers context and feedback only: the rewrite rule would be refused there (on_unsupported = deny),
    so this policy keeps the rest; the until degrades to proceed (agent_end's result is never read)."""
    from realhost_support import PI

    policy = _policy(tmp_path / "scripts")
    policy = policy[policy.index("[[context]]") :]
    out = run_host(PI, npm_bin, tmp_path / "run", policy, timeout=180)
    assert out.result.exit_code == 0, out.describe()
    assert out.probe_exists, out.describe()
    # context: before_agent_start returned Pi's system prompt with the text appended, and the model got it
    (start,) = out.served("before_agent_start")
    assert start.wait is True and json.loads(start.stdout) == {"decision": "proceed", "system": [CONTEXT]}
    assert _requests_with(out, CONTEXT), out.describe()
    # after: tool_result returned the tool's content plus the check's output, which the model got
    (result,) = out.served("tool_result")
    assert result.wait is True and AFTER in json.loads(result.stdout)["append_output"]
    assert _requests_with(out, AFTER), out.describe()
    # until: not offered; never a turn for it
    assert not _requests_with(out, UNTIL), out.describe()
