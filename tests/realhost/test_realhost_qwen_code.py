"""Qwen Code (real, pinned in tests/npm) with OUR generated settings.json adapter and runtime.

Each run: a temp project where the real ``pasture install qwen-code --project P`` merged our adapter into
``.qwen/settings.json`` (no trust step: Qwen Code's folder trust is off by default), the run's launcher
pointed at a wrapper running this repo's runtime, the policy and the journal in the run folder, and the fake
Chat Completions model on 127.0.0.1 calling ``run_shell_command {command: "echo pasture-probe > probe.txt"}``
and then quoting what the tool said. One host run per gate kind (rules, command, AI against a fake chat
server): the probe file stays absent, PreToolUse answered the JSON permission decision the row cites
(captures/qwen-code@0.24.4/pre-tool-use-json-deny), the model read our reason as the call's result, and the
journal holds the row. Then the everyday failures: no runtime, a crashing gate, a slow gate, a broken policy,
an unwritable journal, a session started in a subfolder; and the steering answers the captures prove
(context at SessionStart and at the prompt, continue at Stop).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from realhost_support import (
    COMMAND,
    CRASH_MARK,
    DENY_REASON,
    JOURNAL_REFUSAL,
    PROBE,
    QWEN,
    Outcome,
    deny_gate,
    deny_policy,
    run_host,
)

from pasture.hostenv.fake_models import Script, Turn

pytestmark = pytest.mark.real_host
SPEC = QWEN
GATE_REASON = "pasture-realhost: the gate refused the probe"


def _assert_refused(out: Outcome, reason: str, gate: str) -> dict:
    """The shell call never ran, our PreToolUse answer carried ``reason`` to the model, the journal holds
    the deny; returns the PreToolUse journal row."""
    assert out.result.exit_code == 0, out.describe()
    assert not out.probe_exists, out.describe()
    (pre,) = out.calls("PreToolUse")
    assert pre.payload["tool_name"] == SPEC.shell_tool and pre.payload["tool_input"]["command"] == COMMAND
    answer = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    }
    assert pre.rc == 0 and json.loads(pre.stdout) == answer, out.describe()
    (told,) = out.tool_results()
    assert told["text"] == reason, out.describe()
    assert out.calls("PostToolUse") == [], out.describe()  # the tool never ran
    (row,) = out.journal(event="PreToolUse")
    assert (row["harness"], row["decision"], row["answer"], row["reason"]) == ("qwen-code", "deny", "deny", reason)
    assert row["gate"] == gate or row["gate"].startswith(gate + ":"), row
    assert row["contract"] == SPEC.contract and row["session"] == pre.payload["session_id"], row
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
    if kind == "rules":  # every other event the host fired is answered with nothing
        observed = {c.event for c in out.calls()} - {"PreToolUse", "UserPromptSubmit", "Stop"}
        assert {"SessionStart", "PostToolBatch"} <= observed, out.describe()
        assert all(c.rc == 0 and c.stdout == "" for c in out.calls() if c.event in observed), out.describe()


# --- fail closed: the host runs the tool after a crashed or timed-out hook, so we answer the deny ----


def test_a_runtime_that_cannot_start_refuses_the_prompt(npm_bin: Path, tmp_path: Path) -> None:
    """Exit 127 (no runtime) would be a non-blocking error; the command's tail turns it into exit 2 on the
    first gate row, UserPromptSubmit: the prompt never reaches the model. Qwen Code's ``-p`` prints an empty
    result and not the line (docs/failures.md says so); its debug log shows the hook that stopped it."""
    missing = str(tmp_path / "nowhere" / "pasture")
    out = run_host(
        SPEC,
        npm_bin,
        tmp_path / "run",
        deny_policy(),
        extra_env={"PASTURE_BIN": missing, "QWEN_DEBUG_LOG_FILE": "1"},
        reaches_model=False,
    )
    assert not out.probe_exists and out.result.requests == [], out.describe()
    assert out.calls() == [], out.describe()  # the runtime never ran: the tail answered
    (log,) = (out.run.layout.home / ".qwen" / "debug").glob("*.txt")
    ended = [line for line in log.read_text().splitlines() if "ended for event UserPromptSubmit" in line]
    assert ended and all(line.endswith(": failed") for line in ended), ended
    assert "so UserPromptSubmit is refused" in ended[0], ended


def test_a_crashing_gate_refuses_the_shell_call_and_the_model_reads_why(npm_bin: Path, tmp_path: Path) -> None:
    out = run_host(SPEC, npm_bin, tmp_path / "run", None, crash_on=("PreToolUse",))
    assert not out.probe_exists, out.describe()
    (pre,) = out.calls("PreToolUse")
    assert pre.rc == 2 and pre.stdout == "", out.describe()  # the row's failure mode: exit 2, reason on stderr
    (told,) = out.tool_results()
    assert "gate failed on PreToolUse" in told["text"] and CRASH_MARK in told["text"], out.describe()
    (row,) = out.journal(event="PreToolUse")
    assert row["answer"] == "fail-block" and "exited 7" in row["failure"], row


SLOW_GATE = r"""import json, sys, time
envelope = json.load(sys.stdin)
if envelope.get("event") == "PreToolUse":
    time.sleep(3600)
print(json.dumps({"decision": "proceed"}))
"""


def test_a_gate_slower_than_the_row_is_ended_by_the_deadline_and_refuses(npm_bin: Path, tmp_path: Path) -> None:
    """A gate asking for more than the row allows is clamped to the row's deadline (its timeout less 10 %),
    which ends before the host's own timeout would let the tool run."""
    script = tmp_path / "gate" / "slow.py"
    script.parent.mkdir(parents=True)
    script.write_text(SLOW_GATE)
    argv = [sys.executable, "-I", "-S", str(script)]
    policy = f'[gate]\nkind = "command"\ncommand = {json.dumps(argv)}\ntimeout = 600\n'
    out = run_host(SPEC, npm_bin, tmp_path / "run", policy, timeout=240.0)
    assert not out.probe_exists, out.describe()
    (pre,) = out.calls("PreToolUse")
    assert pre.rc == 2, out.describe()
    (row,) = out.journal(event="PreToolUse")
    assert row["answer"] == "fail-block" and row["detail"]["clamped"], row
    (told,) = out.tool_results()
    assert "PreToolUse" in told["text"], out.describe()


def test_the_hook_timeout_outlasts_the_runtimes_deadline() -> None:
    """Qwen Code kills a hook at its ``timeout`` (seconds) and then runs the tool: the runtime must answer
    first. Its deadline is the row's timeout less a margin (pasture/runtime/deadline.py)."""
    from pasture.runtime.deadline import deadline_seconds

    settings = json.loads((SPEC.adapter_dir / "settings.json").read_text())
    for event, groups in settings["hooks"].items():
        (group,) = groups
        (hook,) = group["hooks"]
        assert deadline_seconds(SPEC.row(event)) < hook["timeout"], (event, hook["timeout"])


def test_a_broken_policy_refuses_the_prompt_with_its_line(npm_bin: Path, tmp_path: Path) -> None:
    out = run_host(
        SPEC, npm_bin, tmp_path / "run", '[[rules]]\nname = "x"\ndecision = "deny"\ncommand = "("\n',
        reaches_model=False,
    )  # fmt: skip
    assert not out.probe_exists, out.describe()
    (prompt,) = out.calls("UserPromptSubmit")
    assert prompt.rc == 2 and "pasture policy check" in prompt.stderr, out.describe()


def test_an_unwritable_journal_gets_each_rows_failure_mode(npm_bin: Path, tmp_path: Path) -> None:
    out = run_host(SPEC, npm_bin, tmp_path / "run", None, journal="broken", reaches_model=False)
    assert not out.probe_exists, out.describe()
    (prompt,) = out.calls("UserPromptSubmit")
    assert prompt.rc == 2 and "cannot journal UserPromptSubmit" in prompt.stderr, out.describe()
    assert JOURNAL_REFUSAL in prompt.stderr, out.describe()
    for call in out.calls("SessionStart"):  # an observation row proceeds whatever fails
        assert call.rc == 0, out.describe()


def test_a_session_in_a_subfolder_loads_no_project_hook_and_doctor_says_so(npm_bin: Path, tmp_path: Path) -> None:
    """Qwen Code reads <cwd>/.qwen/settings.json only (loadSettings(process.cwd())): started in src/, none of
    the project's hooks run (the tool is not refused), and `pasture doctor` there says start-folder off."""

    def src(run) -> None:  # noqa: ANN001 - hostenv's HostRun
        (run.project / "src").mkdir()

    out = run_host(SPEC, npm_bin, tmp_path / "run", deny_policy(), cwd="src", prepare=src)
    assert out.calls() == [], out.describe()
    assert (out.project / "src" / "probe.txt").exists(), out.describe()
    doctor = out.pasture("doctor", "--project", str(out.project / "src"), "--json", cwd=out.project / "src")
    body = json.loads(doctor.stdout)
    (finding,) = [f for f in body["findings"] if f["check"] == "start-folder" and f["host"] == "qwen-code"]
    assert doctor.returncode == 1 and finding["status"] == "off", body["findings"]


def test_a_user_install_guards_a_session_in_a_subfolder(npm_bin: Path, tmp_path: Path) -> None:
    def src(run) -> None:  # noqa: ANN001 - hostenv's HostRun
        (run.project / "src").mkdir()

    out = run_host(SPEC, npm_bin, tmp_path / "run", deny_policy(), cwd="src", prepare=src, install="user")
    assert not (out.project / "src" / "probe.txt").exists(), out.describe()
    (told,) = out.tool_results()
    assert told["text"] == DENY_REASON, out.describe()


# --- steering: only what captures/qwen-code@0.24.4 shows honoured -------------------------------


def test_context_at_session_start_reaches_the_model(npm_bin: Path, tmp_path: Path) -> None:
    text = "pasture-realhost: the build is red, fix it first"
    policy = f'[[context]]\nname = "status"\non = "session-start"\ntext = "{text}"\n'
    out = run_host(SPEC, npm_bin, tmp_path / "run", policy)
    (start,) = out.calls("SessionStart")
    assert json.loads(start.stdout)["hookSpecificOutput"]["additionalContext"] == text, out.describe()
    first = json.dumps(out.result.requests[0]["body"])
    assert text in first, out.describe()


def test_until_at_stop_continues_the_turn_with_the_reason(npm_bin: Path, tmp_path: Path) -> None:
    """An [[until]] whose check fails keeps the model working: Stop answers decision block + reason, the host
    sends the reason to the model, and the next turn runs the probe command; once the check passes the host
    stops."""
    check = tmp_path / "gate" / "check.py"
    check.parent.mkdir(parents=True)
    check.write_text("import os, sys\nsys.exit(0 if os.path.exists('probe.txt') else 1)\n")
    argv = json.dumps([sys.executable, "-I", "-S", str(check)])
    policy = f'[[until]]\nname = "probe"\ncommand = {argv}\n'
    script = Script.of(Turn.reply("Nothing to do, stopping."), *PROBE.turns)
    out = run_host(SPEC, npm_bin, tmp_path / "run", policy, script=script)
    assert out.probe_exists, out.describe()
    stops = out.calls("Stop")
    assert len(stops) >= 2, out.describe()
    first = json.loads(stops[0].stdout)
    assert first["decision"] == "block" and "probe" in first["reason"], out.describe()
    assert first["reason"].splitlines()[0] in json.dumps(out.result.requests[1]["body"]), out.describe()
    assert json.loads(stops[-1].stdout or "{}").get("decision") is None, out.describe()  # passed: the host stops


def test_context_at_the_prompt_reaches_the_model(npm_bin: Path, tmp_path: Path) -> None:
    text = "pasture-realhost: the prompt context marker"
    policy = f'[[context]]\nname = "note"\non = "prompt"\ntext = "{text}"\n'
    out = run_host(SPEC, npm_bin, tmp_path / "run", policy)
    first, *_ = out.calls("UserPromptSubmit")
    assert json.loads(first.stdout)["hookSpecificOutput"]["additionalContext"] == text, out.describe()
    assert text in json.dumps(out.result.requests[0]["body"]), out.describe()


# --- the adapter's shape against what the package ships (it ships no settings schema or validator) ----


def test_the_generated_settings_have_the_shape_the_bundled_reference_gives(npm_bin: Path) -> None:
    """Every hook of the generated fragment against the "Command Hooks" configuration table of the hook
    reference @qwen-code/qwen-code bundles (field names, types, the required ones), every event against the
    committed catalog (the code's HookEventName enum), and timeouts in the seconds the reference reads."""
    import re

    from pasture.catalog import find_catalog

    reference = npm_bin.parent / "@qwen-code" / "qwen-code" / "bundled" / "qc-helper" / "docs" / "features"
    text = (reference / "hooks.md").read_text(encoding="utf-8")
    section = text.split("### Command Hooks", 1)[1].split("###", 1)[0]
    rows = re.findall(r"^\| `(\w+)`\s*\| `([^`]+)`[^|]*\| (Yes|No)\s*\|", section, re.M)
    assert rows, "no Command Hooks configuration table in the bundled reference"
    fields = {name: (kind, required == "Yes") for name, kind, required in rows}
    python_type = {"string": str, "number": (int, float), "boolean": bool}
    settings = json.loads((SPEC.adapter_dir / "settings.json").read_text())
    catalog = find_catalog(SPEC.adapter_dir.parents[1], SPEC.host, SPEC.contract.partition("@")[2])
    assert list(settings) == ["hooks"] and catalog is not None
    assert set(settings["hooks"]) <= set(catalog.names)
    for event, groups in settings["hooks"].items():
        for group in groups:
            assert set(group) <= {"matcher", "hooks"} and isinstance(group["hooks"], list), event
            for hook in group["hooks"]:
                assert set(hook) <= set(fields), (event, sorted(set(hook) - set(fields)))
                assert {f for f, (_, required) in fields.items() if required} <= set(hook), event
                assert hook["type"] == "command" == fields["type"][0].strip('"'), event
                for field, value in hook.items():
                    kind = fields[field][0]
                    if kind in python_type:
                        assert isinstance(value, python_type[kind]), (event, field)
                assert 0 < hook["timeout"] < 1000, (event, hook["timeout"])  # 1000 and more read as ms
