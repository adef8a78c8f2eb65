"""Gemini CLI (real, pinned in tests/npm) with OUR generated settings.json adapter and runtime.

Each test: a temp project where the real ``pasture install gemini-cli --project P --trust-project``
merged our adapter into ``.gemini/settings.json`` and recorded the folder in the run's
``~/.gemini/trustedFolders.json`` (the host runs WITHOUT ``GEMINI_CLI_TRUST_WORKSPACE``: install's trust is
what loads the hooks), the run's launcher pointed at a wrapper running this repo's runtime, the policy
and the journal in the run folder,
and the fake Gemini API on 127.0.0.1 calling ``run_shell_command {command: "echo pasture-probe >
probe.txt"}`` and then quoting what the tool said. One host run per gate kind: a rules deny, a command
gate's deny, an AI gate's deny (the AI gate against a fake chat-completions server inside the run's
namespace); each must keep the probe file absent, reach the model as the host's
``Tool execution blocked: <reason>``, and be journaled (``pasture journal --json``).
"""

from __future__ import annotations

import json
import socket
import sys
from pathlib import Path

import pytest
from realhost_support import COMMAND, DENY_REASON, GEMINI, Outcome, deny_policy, run_host

pytestmark = pytest.mark.real_host
SPEC = GEMINI
GATE_REASON = "pasture-realhost: the command gate refuses probe files"
AI_REASON = "pasture-realhost: the AI gate refuses probe files"

_GATE = r"""import json, sys
envelope = json.load(sys.stdin)
decision = "deny" if "probe.txt" in (envelope.get("command") or "") else "proceed"
print(json.dumps({"decision": decision, "reason": REASON}))
"""


def _command_gate(folder: Path) -> str:
    gate = folder / "deny_gate.py"
    gate.parent.mkdir(parents=True, exist_ok=True)
    gate.write_text(_GATE.replace("REASON", json.dumps(GATE_REASON)))
    argv = ", ".join(json.dumps(a) for a in (sys.executable, "-I", "-S", str(gate)))
    return f'[gate]\nkind = "command"\ncommand = [{argv}]\nevents = ["BeforeTool"]\ntimeout = 20\n'


def _free_port() -> int:
    # free here; the run's own network namespace has every port free (the logger binds it in there)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _assert_refused(out: Outcome, reason: str, gate: str) -> dict:
    """The shell call never ran, our BeforeTool answer carried ``reason`` to the model in the host's
    words, and the journal holds the deny; returns the BeforeTool journal row."""
    assert out.result.exit_code == 0, out.describe()
    assert not out.probe_exists, out.describe()
    (pre,) = out.calls("BeforeTool")
    assert pre.payload["tool_name"] == SPEC.shell_tool and pre.payload["tool_input"]["command"] == COMMAND
    # the row cites a JSON deny channel (captures/gemini-cli@0.61.0/before-tool-json-deny): exit 0 + decision
    assert pre.rc == 0 and json.loads(pre.stdout) == {"decision": "deny", "reason": reason}, out.describe()
    told = [r["text"] for r in out.tool_results()]
    assert told == [f"Tool execution blocked: {reason}"], out.describe()
    assert out.calls("AfterTool") == [], out.describe()  # the tool never ran
    rows = out.journal(event="BeforeTool")
    (row,) = rows
    assert (row["harness"], row["gate"].partition(":")[0], row["decision"], row["answer"], row["reason"]) == (
        "gemini-cli",
        gate,
        "deny",
        "deny",
        reason,
    ), row
    assert row["contract"] == SPEC.contract and row["session"] == pre.payload["session_id"], row
    return row


def test_a_rules_deny_blocks_the_shell_call(npm_bin: Path, tmp_path: Path) -> None:
    out = run_host(SPEC, npm_bin, tmp_path / "run", deny_policy())
    row = _assert_refused(out, DENY_REASON, "rules")
    assert row["gate"] == "rules:realhost-no-probe", row
    # the hooks loaded through the folder trust `pasture install` recorded, not the session variable
    assert out.install is not None and out.install.how == "pasture install", out.describe()
    assert out.install.report["trust"]["added"] is True, out.install.report
    assert "GEMINI_CLI_TRUST_WORKSPACE" not in out.result.env, sorted(out.result.env)
    trusted = json.loads((out.run.layout.home / ".gemini" / "trustedFolders.json").read_text())
    assert trusted == {str(out.project.resolve()): "TRUST_FOLDER"}
    # every other event the host fired is an observation row: journaled, and answered with nothing
    observed = {c.event for c in out.calls()} - {"BeforeTool", "BeforeAgent", "BeforeModel"}
    assert {"SessionStart", "AfterModel", "SessionEnd"} <= observed, out.describe()
    assert all(c.rc == 0 and c.stdout == "" for c in out.calls() if c.event in observed), out.describe()


def test_a_command_gate_deny_blocks_the_shell_call(npm_bin: Path, tmp_path: Path) -> None:
    out = run_host(SPEC, npm_bin, tmp_path / "run", _command_gate(tmp_path / "gate"))
    _assert_refused(out, GATE_REASON, "command")


def test_an_ai_gate_deny_blocks_the_shell_call(npm_bin: Path, tmp_path: Path) -> None:
    port = _free_port()
    verdict = json.dumps({"decision": "deny", "reason": AI_REASON})
    policy = (
        f'[gate]\nkind = "ai"\nmodel = "gate/model"\nbase_url = "http://127.0.0.1:{port}/v1"\n'
        'events = ["BeforeTool"]\ntimeout = 20\n'
    )
    out = run_host(
        SPEC,
        npm_bin,
        tmp_path / "run",
        policy,
        loggers={"ai": {"port": port, "default": {"content": verdict}}},
        extra_env={"PASTURE_AI_API_KEY": "sk-fake-pasture-gate"},
    )
    _assert_refused(out, AI_REASON, "ai")
    (asked,) = out.logger_requests("ai")
    assert asked["path"] == "/v1/chat/completions", asked
    envelope = json.loads(asked["body"]["messages"][-1]["content"])
    assert envelope["event"] == "BeforeTool" and envelope["command"] == COMMAND, envelope


ASK_REASON = "pasture-realhost: a person confirms probe files"


def test_a_policy_ask_reaches_gemini_as_its_own_confirmation(npm_bin: Path, tmp_path: Path) -> None:
    """BeforeTool's row offers deny+ask (captures/gemini-cli@0.61.0/before-tool-json-ask): a rules ``ask``
    leaves as ``{"decision": "ask"}``, never as a deny. Gemini then asks for confirmation (its
    Notification ToolPermission hook fires, even under --yolo); headless, nobody answers: the call never
    runs, the model is told nothing, and the run ends there (no AfterAgent, no SessionEnd), exit 0 with
    nothing on stdout."""
    policy = deny_policy().replace('decision = "deny"', 'decision = "ask"').replace(DENY_REASON, ASK_REASON)
    assert 'decision = "ask"' in policy and ASK_REASON in policy
    out = run_host(SPEC, npm_bin, tmp_path / "run", policy)
    assert out.result.exit_code == 0, out.describe()
    assert not out.probe_exists, out.describe()
    (pre,) = out.calls("BeforeTool")
    assert pre.payload["tool_input"]["command"] == COMMAND, out.describe()
    answer = {"decision": "ask", "reason": ASK_REASON, "systemMessage": ASK_REASON}
    assert pre.rc == 0 and json.loads(pre.stdout) == answer, out.describe()
    (note,) = out.calls("Notification")  # the host's confirmation request
    assert note.payload["notification_type"] == "ToolPermission", out.describe()
    assert note.payload["details"]["command"] == COMMAND, out.describe()
    assert out.tool_results() == [], out.describe()  # neither a result nor a refusal reached the model
    # what a headless caller gets: exit 0, no JSON result on stdout, the reason as the hook's system message
    assert out.result.stdout.strip() == "", out.describe()
    assert f"Hook system message: {ASK_REASON}" in out.result.stderr, out.describe()
    assert out.calls("AfterTool") == [] and out.calls("AfterAgent") == [], out.describe()
    (row,) = out.journal(event="BeforeTool")
    assert (row["decision"], row["answer"], row["reason"]) == ("ask", "ask", ASK_REASON), row


# --- fail closed: the host runs the tool after a crashed or timed-out hook, so we answer the deny --------


def test_a_runtime_that_cannot_start_refuses_the_prompt_with_one_line(npm_bin: Path, tmp_path: Path) -> None:
    """Exit 127 (no runtime) would be a warning and the session would go on; the command's tail turns it
    into exit 2 on the first gate row, BeforeAgent: the prompt never reaches the model."""
    missing = str(tmp_path / "nowhere" / "pasture")
    out = run_host(
        SPEC, npm_bin, tmp_path / "run", deny_policy(), extra_env={"PASTURE_BIN": missing}, reaches_model=False
    )
    assert not out.probe_exists, out.describe()
    line = "pasture: the guard could not run (exit 127), so BeforeAgent is refused; see `pasture doctor` for the fix"
    assert line in out.result.stdout + out.result.stderr, out.describe()


def test_a_crashing_gate_refuses_the_shell_call_and_the_model_reads_why(npm_bin: Path, tmp_path: Path) -> None:
    out = run_host(SPEC, npm_bin, tmp_path / "run", None, crash_on=("BeforeTool",))
    assert not out.probe_exists, out.describe()
    (pre,) = out.calls("BeforeTool")
    assert pre.rc == 2 and pre.stdout == "", out.describe()  # the row's failure mode: exit 2, reason on stderr
    (told,) = [r["text"] for r in out.tool_results()]
    assert told.startswith("Tool execution blocked: ") and "gate failed on BeforeTool" in told, told
    (row,) = out.journal(event="BeforeTool")
    assert row["answer"] == "fail-block" and "exited 7" in row["failure"], row


def test_the_hook_timeout_outlasts_the_runtimes_deadline() -> None:
    """Gemini kills a hook at its ``timeout`` (milliseconds) and then runs the tool: the runtime must have
    answered by then. Its deadline is the row's timeout less a margin (pasture/runtime/deadline.py)."""
    from pasture.runtime.deadline import deadline_seconds

    settings = json.loads((SPEC.adapter_dir / "settings.json").read_text())
    for event, groups in settings["hooks"].items():
        (group,) = groups
        (hook,) = group["hooks"]
        assert deadline_seconds(SPEC.row(event)) * 1000 < hook["timeout"], (event, hook["timeout"])


# --- the adapter's shape against what the package ships (it ships no settings schema or validator) ----


def _doc_table(reference: str, title: str) -> dict[str, tuple[str, bool]]:
    """field -> (type, required) from a table of the bundled docs/hooks/reference.md."""
    import re

    section = reference.split(f"### {title}", 1)[1].split("###", 1)[0]
    rows = re.findall(r"^\| `(\w+)`\s*\| `(\w+)`\s*\| ([^|]+)\|", section, re.M)
    assert rows, f"no table under '{title}' in the bundled reference"
    return {name: (kind, "Yes" in required) for name, kind, required in rows}


def test_the_generated_settings_have_the_shape_the_bundled_reference_gives(npm_bin: Path) -> None:
    from pasture.catalog import find_catalog

    reference = (npm_bin.parent / "@google" / "gemini-cli" / "bundle" / "docs" / "hooks" / "reference.md").read_text()
    groups_doc, hook_doc = _doc_table(reference, "Hook definition"), _doc_table(reference, "Hook configuration")
    python_type = {"string": str, "boolean": bool, "number": int, "array": list}
    settings = json.loads((SPEC.adapter_dir / "settings.json").read_text())
    assert list(settings) == ["hooks"]
    catalog = find_catalog(SPEC.adapter_dir.parents[1], SPEC.host, SPEC.contract.partition("@")[2])
    assert catalog is not None and set(settings["hooks"]) <= set(catalog.names)
    for event, groups in settings["hooks"].items():
        for group in groups:
            assert set(group) <= set(groups_doc) and {f for f, (_, req) in groups_doc.items() if req} <= set(group)
            for field, value in group.items():
                assert isinstance(value, python_type[groups_doc[field][0]]), (event, field)
            for hook in group["hooks"]:
                assert set(hook) <= set(hook_doc), (event, sorted(set(hook) - set(hook_doc)))
                assert {f for f, (_, req) in hook_doc.items() if req} <= set(hook), event
                assert hook["type"] == "command"  # 'Currently only "command" is supported'
                for field, value in hook.items():
                    assert isinstance(value, python_type[hook_doc[field][0]]), (event, field)
