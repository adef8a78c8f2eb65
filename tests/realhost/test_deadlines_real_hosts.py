"""Issue 9 item 3 on the REAL hosts: a gate may never outlive the row's host hook timeout.

To keep the runs short, the pre-tool row of each pinned contract registers ``timeout: 6`` here
instead of 60: a copy of this repository's profiles with only that line added, generated with
``pasture generate`` and installed with ``pasture install --root <copy>``, and the runtime reads
that copy's tables, so the host's timeout and the runtime's deadline (6 s minus a 1 s margin,
pasture/runtime/deadline.py) come from the same row, as they do for a real install. The user layer's
gate asks for 20 s (the runtime clamps it, with a note) and takes longer than the host would wait.

Each host must see our answer before its own kill: the row's failure mode (a block), journaled
with the failure, so the tool never runs. The control runs a hook the host does kill, to show what
the host would have done without the deadline.
"""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from realhost_support import (
    COMMAND,
    FAILURE_EXIT,
    REPO,
    SPECS,
    opencode_fail_fast,
    opencode_registered_timeout_ms,
    run_host,
    served_failure,
)

pytestmark = pytest.mark.real_host

HOST_TIMEOUT = 6
DEADLINE = 5.0  # pasture.runtime.deadline.deadline_seconds_for(6): 6 s minus max(1 s, 10 %)
SLOW_GATE = r'''"""A gate slower than any host waits: marks its start, sleeps, marks its end (if it ever gets there)."""
import json, sys, time
envelope = json.load(sys.stdin)
with open(sys.argv[1], "a") as log:
    log.write("started " + str(envelope.get("event")) + "\n")
time.sleep(30)
with open(sys.argv[1], "a") as log:
    log.write("finished\n")
print(json.dumps({"decision": "proceed", "reason": "too late"}))
'''


@pytest.fixture(scope="module")
def short_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This repository's profiles with the pre-tool row of the contract that admits each pinned host
    registering timeout 6, generated."""
    tree = tmp_path_factory.mktemp("short-timeouts")
    for name in ("profiles", "templates", "captures"):
        shutil.copytree(REPO / name, tree / name)
    for contract, event in ((spec.contract, spec.pre_event) for spec in SPECS.values()):
        path = tree / "profiles" / contract / "lifecycle.yaml"
        text = path.read_text()
        row = f"  - name: {event}\n"
        assert text.count(row) == 1, (contract, event)
        start = text.index(row)
        end = text.find("\n  - name: ", start + len(row))
        assert "timeout:" not in text[start:end], f"{contract} {event} already sets a timeout"
        path.write_text(text[:start] + row + f"    timeout: {HOST_TIMEOUT}\n" + text[start + len(row) :])
    done = subprocess.run(
        [sys.executable, "-m", "pasture.entry", "--root", str(tree), "generate"],
        capture_output=True,
        text=True,
        cwd=tree,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return tree


def _registered_timeouts(out) -> list:
    """The timeout the installed adapter registers for the pre-tool row, as the host reads it."""
    spec = out.spec
    if spec.host == "opencode":
        return [opencode_registered_timeout_ms(out.project, spec.pre_event)]
    settings = out.project / (".claude/settings.json" if spec.host == "claude-code" else ".codex/hooks.json")
    groups = json.loads(settings.read_text())["hooks"][spec.pre_event]
    return [h.get("timeout") for g in groups for h in g["hooks"] if "hook lifecycle" in h["command"]]


def _gate_policy(work_log: Path, event: str) -> str:
    argv = [sys.executable, "-I", "-S", str(work_log.parent / "slow-gate.py"), str(work_log)]
    return "\n".join(
        [
            "[gate]",
            'kind = "command"',
            f"command = {json.dumps(argv)}",
            "timeout = 20",
            f"events = [{json.dumps(event)}]",
            "",
        ]
    )


def _ai_policy(port: int, event: str) -> str:
    return "\n".join(
        [
            "[gate]",
            'kind = "ai"',
            'model = "gate/model"',
            f'base_url = "http://127.0.0.1:{port}/v1"',
            "timeout = 20",
            f"events = [{json.dumps(event)}]",
            "",
        ]
    )


def _assert_blocked_before_the_host_kill(out, failure: str) -> dict:
    spec = out.spec
    assert out.result.exit_code == 0, out.describe()
    assert _registered_timeouts(out) == [HOST_TIMEOUT * (1000 if spec.host == "opencode" else 1)], out.describe()
    assert not out.probe_exists, out.describe()  # the tool did not run
    (row,) = out.journal(event=spec.pre_event)
    assert (row["decision"], row["answer"]) == ("none", "fail-block"), row
    assert re.search(failure, row["failure"]), row["failure"]
    assert re.search(r"gate timeout 20s clamped to [45]\.\ds", row["failure"]), row["failure"]
    # Our answer came before the host's kill, by the margin the deadline keeps.
    assert row["runtime_ms"] < (HOST_TIMEOUT - 0.5) * 1000, row["runtime_ms"]
    (told,) = out.tool_results()
    if spec.host == "opencode":
        (before,) = out.served("tool.execute.before")
        assert told["text"] == opencode_fail_fast("tool.execute.before", served_failure(before)), told
    else:
        prefix = {"claude-code": "PreToolUse:Bash hook error: ", "codex": "Command blocked by PreToolUse hook: "}[
            spec.host
        ]
        assert told["text"].startswith(prefix) and "pasture: gate failed on PreToolUse" in told["text"], told
        (call,) = out.calls(spec.pre_event)
        if spec.host == "claude-code":  # exit-2-blocks answered as the JSON deny (issue 17)
            assert call.rc == 0 and json.loads(call.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
            assert "hook lifecycle" not in told["text"], told
        else:
            assert call.rc == FAILURE_EXIT[spec.row(spec.pre_event).failure] == 2, call.brief()
    return row


@pytest.mark.parametrize("host", ["claude-code", "codex", "opencode"])
def test_a_command_gate_longer_than_the_hook_timeout_is_cut_at_the_deadline(
    npm_bin: Path, tmp_path: Path, short_tree: Path, host: str
) -> None:
    spec = SPECS[host]
    work = tmp_path / "gate"
    work.mkdir()
    (work / "slow-gate.py").write_text(SLOW_GATE)
    log = work / "gate.log"
    out = run_host(spec, npm_bin, tmp_path / "run", _gate_policy(log, spec.pre_event), repo=short_tree, timeout=120)
    row = _assert_blocked_before_the_host_kill(out, r"gate command timed out after [45]\.\ds")
    assert row["runtime_ms"] > (DEADLINE - 1.0) * 1000, row["runtime_ms"]  # it did wait for the gate, to the deadline
    assert log.read_text() == f"started {spec.pre_event}\n"  # the gate was stopped; it never finished
    assert row["envelope"]["command"] == COMMAND


@pytest.mark.parametrize("host", ["claude-code", "codex", "opencode"])
def test_the_ai_gates_transient_retries_stay_inside_the_deadline(
    npm_bin: Path, tmp_path: Path, short_tree: Path, host: str
) -> None:
    """The AI gate's endpoint answers 503 every time: it retries after 2 s (and would again after
    4 s and 8 s), but never past the row's deadline; the row blocks before the host's kill."""
    spec = SPECS[host]
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    loggers = {"ai": {"port": port, "default": {"status": 503, "error": "overloaded, try again"}}}
    out = run_host(
        spec,
        npm_bin,
        tmp_path / "run",
        _ai_policy(port, spec.pre_event),
        repo=short_tree,
        loggers=loggers,
        extra_env={"PASTURE_AI_API_KEY": "sk-pasture-realhost-user-key"},
        timeout=120,
    )
    _assert_blocked_before_the_host_kill(out, r"AI gate")
    asked = out.logger_requests("ai")
    assert len(asked) >= 2, asked  # it did retry the transient failure, within the deadline
    assert {r["reply"]["status"] for r in asked} == {503}


SLOW_BIN = """#!/bin/sh
# The control: a hook that outlives the host's timeout on the pre-tool event, the rest go to pasture.
case " $* " in *" --event {event} "*) cat > /dev/null; sleep 20; exit 0;; esac
exec {wrapper} "$@"
"""
#: The same control for OpenCode's one long-lived ``hook serve``: a proxy in front of the real
#: runtime that passes every request through except the pre-tool event's, which it never answers.
SLOW_SERVE = r'''#!PYTHON -I
"""The control (OpenCode): `hook serve` through the recording wrapper, but requests for EVENT are held, unanswered."""
import json, subprocess, sys
child = subprocess.Popen(["WRAPPER", *sys.argv[1:]], stdin=subprocess.PIPE, stdout=sys.stdout.buffer)
for line in sys.stdin.buffer:
    try:
        held = json.loads(line).get("event") == "EVENT"
    except ValueError:
        held = False
    if not held:
        child.stdin.write(line)
        child.stdin.flush()
child.stdin.close()
sys.exit(child.wait())
'''


@pytest.mark.parametrize("host", ["claude-code", "codex", "opencode"])
def test_control_the_host_kills_a_hook_at_the_registered_timeout(
    npm_bin: Path, tmp_path: Path, short_tree: Path, host: str
) -> None:
    """Without a deadline of ours, the host's own kill at 6 s decides, and nothing is journaled:
    Codex RUNS the tool; Claude Code blocks it only because install registers ``onFailure: "block"``
    on its gate rows (the model is told "timed out"); OpenCode's generated plugin gives up on the
    runtime and throws (fail-fast). (OpenCode has no hook timeout of its own: the plugin's wait for
    its ``hook serve`` reply is the row's timeout, so the control holds that reply back.)"""
    spec = SPECS[host]
    slow = tmp_path / "slow-pasture"
    wrapper = tmp_path / "run" / "pasture" / "pasture"  # where run_host writes the recording wrapper
    if host == "opencode":
        slow.write_text(
            SLOW_SERVE.replace("PYTHON", sys.executable)
            .replace("WRAPPER", str(wrapper))
            .replace("EVENT", spec.pre_event)
        )
    else:
        slow.write_text(SLOW_BIN.format(event=spec.pre_event, wrapper=wrapper))
    slow.chmod(0o755)
    out = run_host(
        spec, npm_bin, tmp_path / "run", None, repo=short_tree, extra_env={"PASTURE_BIN": str(slow)}, timeout=120
    )
    assert out.result.exit_code == 0, out.describe()
    assert _registered_timeouts(out) == [HOST_TIMEOUT * (1000 if host == "opencode" else 1)]
    assert out.result.wall_time > HOST_TIMEOUT, out.describe()
    assert out.journal(event=spec.pre_event) == []  # killed: no trace of the decision
    if host == "codex":
        assert out.probe_exists, out.describe()  # the host gave up on the hook and ran the tool
        return
    assert not out.probe_exists, out.describe()
    (told,) = out.tool_results()
    if host == "opencode":
        assert told["text"] == (
            "pasture refused tool.execute.before: no answer within 6000 ms, and this hook fails fast"
        ), told
    else:
        assert (
            told["text"].startswith("PreToolUse:Bash hook error: ")
            and 'timed out; blocking because onFailure is "block"' in told["text"]
        ), told
