"""Cline CLI (real, pinned in tests/npm) with OUR generated hook files and runtime.

Each run: a temp project where the real ``pasture install cline --project P`` put pasture's hook files into
``.cline/hooks`` (no trust step: Cline runs every hook file it finds), the hooks' ``PASTURE_BIN`` pointed at a
wrapper running this repo's runtime, the policy and the journal in the run folder, and the fake Chat
Completions model on 127.0.0.1 calling ``run_commands {commands: ["echo pasture-probe > probe.txt"]}`` and then
quoting what the tool said. One host run per gate kind (rules, command, AI against a fake chat server): the
probe file stays absent, PreToolUse answered the refusal the row cites (captures/cline@3.0.65/
pre-tool-use-refusal: the call's input emptied, the reason as contextModification), the model read our reason,
and the journal holds the row. Then the everyday failures: no runtime, a crashing gate, a broken policy, an
unwritable journal, a session started in a subfolder.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from realhost_support import (
    CLINE,
    COMMAND,
    CRASH_MARK,
    DENY_REASON,
    Outcome,
    deny_gate,
    deny_policy,
    hook_contexts,
    run_host,
)

pytestmark = pytest.mark.real_host
SPEC = CLINE
GATE_REASON = "pasture-realhost: the gate refused the probe"


def _refusal(reason: str) -> dict:
    return {"overrideInput": {}, "contextModification": reason}


def _told(out: Outcome, text: str) -> bool:
    """The model read ``text`` as hook context beside the refused call's "Invalid input" result."""
    results = " ".join(r["text"] or "" for r in out.tool_results())
    return "Invalid input" in results and any(text in c for c in hook_contexts(out.result.requests))


def _assert_refused(out: Outcome, reason: str, gate: str) -> dict:
    assert out.result.exit_code == 0, out.describe()
    assert not out.probe_exists, out.describe()
    (pre,) = out.calls("PreToolUse")
    assert pre.payload["tool_call"]["name"] == SPEC.shell_tool
    assert pre.payload["tool_call"]["input"] == {"commands": [COMMAND]}
    assert pre.rc == 0 and json.loads(pre.stdout) == _refusal(reason), out.describe()
    assert _told(out, reason), out.describe()
    (row,) = out.journal(event="PreToolUse")
    assert (row["harness"], row["decision"], row["answer"], row["reason"]) == ("cline", "deny", "deny", reason)
    assert row["gate"] == gate or row["gate"].startswith(gate + ":"), row
    assert row["contract"] == SPEC.contract and row["session"] == pre.payload["taskId"], row
    return row


@pytest.mark.parametrize("kind", ["rules", "command", "ai"])
def test_each_gate_kind_denies_the_shell_call_and_the_model_reads_our_reason(
    npm_bin: Path, tmp_path: Path, kind: str
) -> None:
    policy, loggers, extra, gate = deny_gate(kind, tmp_path / "gate", GATE_REASON, events=("PreToolUse",))
    reason = DENY_REASON if kind == "rules" else GATE_REASON
    out = run_host(SPEC, npm_bin, tmp_path / "run", policy, loggers=loggers or None, extra_env=extra or None)
    _assert_refused(out, reason, gate)
    assert out.install is not None and out.install.how == "pasture install", out.describe()
    if kind == "ai":
        (asked,) = out.logger_requests("ai")
        envelope = json.loads(asked["body"]["messages"][-1]["content"])
        assert envelope["event"] == "PreToolUse" and envelope["command"] == COMMAND, envelope
    if kind == "rules":  # the task went on after the refusal; every other event was answered with {}
        assert out.result.requests and len(out.result.requests) >= 2, out.describe()
        observed = {c.event for c in out.calls()} - {"PreToolUse"}
        assert "TaskStart" in observed, out.describe()
        assert all(c.rc == 0 and json.loads(c.stdout) == {} for c in out.calls() if c.event in observed)


# --- fail closed: Cline runs the tool after a hook that fails, so the hook file answers the refusal -----


def test_a_runtime_that_cannot_start_cancels_the_call(npm_bin: Path, tmp_path: Path) -> None:
    """The hook file's own tail: no runtime (exit 127) prints Cline's cancel as the last HOOK_CONTROL line.
    Cline stops the task there: the tool never runs and the model is not asked again (and reads nothing)."""
    missing = str(tmp_path / "nowhere" / "pasture")
    out = run_host(SPEC, npm_bin, tmp_path / "run", deny_policy(), extra_env={"PASTURE_BIN": missing})
    assert not out.probe_exists, out.describe()
    assert out.calls() == [], out.describe()  # the runtime never ran: the hook file answered
    assert len(out.result.requests) == 1, out.describe()


def test_a_crashing_gate_refuses_the_shell_call_and_the_model_reads_why(npm_bin: Path, tmp_path: Path) -> None:
    out = run_host(SPEC, npm_bin, tmp_path / "run", None, crash_on=("PreToolUse",))
    assert not out.probe_exists, out.describe()
    (pre,) = out.calls("PreToolUse")
    answer = json.loads(pre.stdout)
    assert pre.rc == 0 and answer["overrideInput"] == {}, out.describe()
    assert "gate failed on PreToolUse" in answer["contextModification"], answer
    assert _told(out, CRASH_MARK), out.describe()
    (row,) = out.journal(event="PreToolUse")
    assert row["answer"] == "fail-block" and "exited 7" in row["failure"], row


def test_a_broken_policy_refuses_the_call_with_its_line(npm_bin: Path, tmp_path: Path) -> None:
    out = run_host(SPEC, npm_bin, tmp_path / "run", '[[rules]]\nname = "x"\ndecision = "deny"\ncommand = "("\n')
    assert not out.probe_exists, out.describe()
    (pre,) = out.calls("PreToolUse")
    assert "pasture policy check" in json.loads(pre.stdout)["contextModification"], out.describe()
    assert _told(out, "pasture policy check"), out.describe()


def test_an_unwritable_journal_refuses_the_call(npm_bin: Path, tmp_path: Path) -> None:
    out = run_host(SPEC, npm_bin, tmp_path / "run", None, journal="broken")
    assert not out.probe_exists, out.describe()
    (pre,) = out.calls("PreToolUse")
    assert "cannot journal PreToolUse" in json.loads(pre.stdout)["contextModification"], out.describe()
    for call in out.calls("TaskStart"):  # an observation row proceeds whatever fails
        assert call.rc == 0, out.describe()


SLOW_GATE = r"""import json, sys, time
envelope = json.load(sys.stdin)
if envelope.get("event") == "PreToolUse":
    time.sleep(3600)
print(json.dumps({"decision": "proceed"}))
"""


def test_a_gate_slower_than_the_row_is_ended_by_the_deadline_and_refuses(npm_bin: Path, tmp_path: Path) -> None:
    """A gate asking for more than the row allows is clamped to the row's deadline (its timeout less 10 %),
    which ends well before Cline's own 120 s hook timeout would let the tool run."""
    import sys

    script = tmp_path / "gate" / "slow.py"
    script.parent.mkdir(parents=True)
    script.write_text(SLOW_GATE)
    argv = [sys.executable, "-I", "-S", str(script)]
    policy = f'[gate]\nkind = "command"\ncommand = {json.dumps(argv)}\ntimeout = 600\n'
    out = run_host(SPEC, npm_bin, tmp_path / "run", policy, timeout=240.0)
    assert not out.probe_exists, out.describe()
    (pre,) = out.calls("PreToolUse")
    assert pre.rc == 0 and json.loads(pre.stdout)["overrideInput"] == {}, out.describe()
    (row,) = out.journal(event="PreToolUse")
    assert row["answer"] == "fail-block" and row["detail"]["clamped"], row
    assert _told(out, "PreToolUse"), out.describe()


def test_the_runtimes_deadline_ends_before_clines_hook_timeout() -> None:
    """Cline kills a hook after 120 s and then runs the tool (measured by hand, docs/hosts.md): the runtime's
    deadline (the row's timeout less a margin) ends first."""
    from pasture.runtime.deadline import deadline_seconds

    assert deadline_seconds(SPEC.row("PreToolUse")) < 120


def test_a_session_in_a_subfolder_of_the_repository_runs_the_project_hooks(npm_bin: Path, tmp_path: Path) -> None:
    """Cline's workspace is the git work tree's top folder of where it starts: started in src/ of the project
    (a git repository), the project's hook files run and refuse the call, and `pasture doctor` there says
    nothing is off."""

    def src(run) -> None:  # noqa: ANN001 - hostenv's HostRun
        (run.project / "src").mkdir()
        assert (run.project / ".git").exists()

    out = run_host(SPEC, npm_bin, tmp_path / "run", deny_policy(), cwd="src", prepare=src)
    assert not (out.project / "src" / "probe.txt").exists(), out.describe()
    assert _told(out, DENY_REASON), out.describe()
    doctor = out.pasture("doctor", "--project", str(out.project / "src"), "--json", cwd=out.project / "src")
    body = json.loads(doctor.stdout)
    # (the launcher check is off here: the run's launcher is the test's wrapper, which has no self-test)
    mine = [f for f in body["findings"] if f["host"] == "cline" and f["status"] == "off" and f["check"] != "launcher"]
    assert mine == [], mine
    assert [f["status"] for f in body["findings"] if f["host"] == "cline" and f["check"] == "adapter"] == ["ok"]


def test_a_user_install_guards_a_session_in_a_subfolder(npm_bin: Path, tmp_path: Path) -> None:
    def src(run) -> None:  # noqa: ANN001 - hostenv's HostRun
        (run.project / "src").mkdir()

    out = run_host(SPEC, npm_bin, tmp_path / "run", deny_policy(), cwd="src", prepare=src, install="user")
    assert not (out.project / "src" / "probe.txt").exists(), out.describe()
    assert _told(out, DENY_REASON), out.describe()


def test_the_generated_hook_files_are_the_events_and_names_cline_reads(npm_bin: Path) -> None:
    """Cline ships no schema for hook files: every generated file against what its core bundle reads (the
    event enum, the extensions its discovery accepts) and what it runs a file with (bash for .bash)."""
    from pasture.catalog.cline import hook_names

    bundle = (npm_bin.parent / "@cline" / "core" / "dist" / "index.js").read_text(encoding="utf-8", errors="replace")
    events = hook_names(bundle, "@cline/core")
    assert '".bash"' in bundle.split('"PreToolUse"', 2)[-1][:3000], "the discovery no longer takes .bash"
    files = sorted(p.name for p in SPEC.adapter_dir.glob("*.bash"))
    assert files and all(f[: -len(".bash")] in events for f in files), files
    assert all(events[f[: -len(".bash")]] is not None for f in files), "a file for an event Cline never fires"


def test_refused_calls_in_a_row_end_the_task_at_clines_retry_limit(npm_bin: Path, tmp_path: Path) -> None:
    """Cline counts each refused call (its "Invalid input") as a consecutive mistake and stops the task at
    ``--retries`` (3 by default); every refused call's input being the same emptied {}, its loop detector
    stops it at 5 identical calls whatever ``--retries`` says (tests/realhost/test_packs_real_hosts.py)."""
    from pasture.hostenv.fake_models import Script, Turn

    turns = [Turn.shell(f"echo pasture-probe-{n} > probe.txt") for n in range(4)]
    policy = deny_policy().replace("pasture-probe\\\\s*", "pasture-probe(-\\\\d)?\\\\s*")
    out = run_host(SPEC, npm_bin, tmp_path / "run", policy, script=Script.of(*turns, Turn.reply("done")))
    assert not out.probe_exists, out.describe()
    assert len(out.calls("PreToolUse")) == 3 and len(out.result.requests) == 3, out.describe()
    assert '"finishReason":"aborted"' in out.result.stdout, out.describe()


# --- steering: only what captures/cline@3.0.65 shows honoured -------------------------------------


def test_after_feedback_reaches_the_model_after_the_shell_call(npm_bin: Path, tmp_path: Path) -> None:
    """An [[after]] whose check fails after the shell call: PostToolUse answers its output as
    contextModification (captures/cline@3.0.65/post-tool-use-feedback), which the next request holds."""
    import sys

    marker = "pasture-realhost-after-marker"
    check = tmp_path / "gate" / "after.py"
    check.parent.mkdir(parents=True)
    check.write_text(f"print({marker!r}); raise SystemExit(1)\n")
    argv = json.dumps([sys.executable, str(check)])
    policy = f'[[after]]\nname = "lint"\ntool_kind = "shell"\ncommand = {argv}\n'
    out = run_host(SPEC, npm_bin, tmp_path / "run", policy)
    assert out.probe_exists, out.describe()
    (post,) = out.calls("PostToolUse")
    assert marker in json.loads(post.stdout)["contextModification"], out.describe()
    assert any(marker in c for c in hook_contexts(out.result.requests[1:])), out.describe()
