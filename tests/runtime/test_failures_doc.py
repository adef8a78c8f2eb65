"""docs/failures.md "Every refusal says why, on every host", row by row against the runtime.

Each row names a host@version and its tool event; for each, the runtime answers a policy deny, a
broken policy (a runtime failure) and an `[[until]]` whose check fails, and the first words of the
row's cells must name the channel the reply really used. A host added to the registry without a
row fails here too."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hookrun import call
from repo_paths import REPO

from pasture.journal.db import query
from pasture.runtime.hostwire import WIRES

DOC = REPO / "docs" / "failures.md"
SECTION = "## Every refusal says why, on every host"


def _rows() -> dict[str, dict[str, str]]:
    text = DOC.read_text(encoding="utf-8")
    table = text[text.index(SECTION) :].split("\n## ", 1)[0].split("\n### ", 1)[0]
    lines = [line for line in table.splitlines() if line.startswith("|")]
    head = [cell.strip() for cell in lines[0].strip("|").split("|")]
    rows = {}
    for line in lines[2:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        row = dict(zip(head, cells, strict=True))
        rows[row["host"]] = row
    return rows


ROWS = _rows()
SHELL = "rm -rf build"


def _tool_payload(harness: str, project: Path) -> dict:
    if harness in ("claude-code", "codex"):
        return {"session_id": "s", "turn_id": "t", "cwd": str(project), "tool_name": "Bash", "tool_use_id": "u",
                "tool_input": {"command": SHELL}}  # fmt: skip
    if harness == "copilot-cli":
        return {"sessionId": "s", "cwd": str(project), "toolName": "bash", "toolArgs": {"command": SHELL}}
    if harness in ("gemini-cli", "qwen-code"):
        shell = {"command": SHELL}
        return {"session_id": "s", "cwd": str(project), "tool_name": "run_shell_command", "tool_input": shell}
    if harness == "opencode":
        return {"input": {"tool": "bash", "sessionID": "s", "callID": "c"}, "output": {"args": {"command": SHELL}}}
    if harness == "cline":
        call = {"id": "c", "name": "run_commands", "input": {"commands": [SHELL]}}
        return {"hookName": "tool_call", "taskId": "s", "workspaceRoots": [str(project)], "tool_call": call}
    return {"toolName": "bash", "toolCallId": "c", "input": {"command": SHELL}}  # pi


STOPS = {
    "claude-code": ("Stop", {"session_id": "s", "stop_hook_active": False}),
    "codex": ("Stop", {"session_id": "s", "turn_id": "t", "stop_hook_active": False}),
    "copilot-cli": ("agentStop", {"sessionId": "s"}),
    "gemini-cli": ("AfterAgent", {"session_id": "s", "stop_hook_active": False}),
    "opencode": ("session.idle", {"type": "session.idle", "properties": {"sessionID": "s"}}),
    "pi": ("agent_end", {"type": "agent_end", "messages": []}),
    "qwen-code": ("Stop", {"session_id": "s", "stop_hook_active": False}),
    "cline": ("TaskComplete", {"hookName": "agent_end", "taskId": "s"}),
}


def _channel(code: int, out: str, err: str) -> tuple[str, str]:
    """(the channel a reply used, as the table's cells begin, the text that reaches the model)."""
    if code == 2:
        return "exit 2, stderr", err
    answer = json.loads(out) if out.strip() else {}
    if code == 3 and "failure" in answer:
        return "plugin throw with the line", answer["failure"]
    reason = answer.get("permissionDecisionReason") or answer.get("hookSpecificOutput", {}).get(
        "permissionDecisionReason"
    )
    if reason:
        return "JSON `permissionDecisionReason`", reason
    if answer.get("decision") == "deny":
        return "JSON `decision: deny` + `reason`", answer["reason"]
    if answer.get("overrideInput") == {} and answer.get("contextModification"):
        return "JSON `overrideInput: {}` + `contextModification`", answer["contextModification"]
    return f"something else: {code} {out!r} {err!r}", ""


def _until_channel(code: int, out: str, err: str) -> str:
    answer = json.loads(out) if out.strip() else {}
    if answer.get("decision") in ("block", "deny") and answer.get("reason"):
        return f"`decision: {answer['decision']}` + `reason`"
    if "cannot give 'continue'" in err:
        return "not carried"
    return f"something else: {code} {out!r} {err!r}"


def test_every_host_has_a_row():
    assert {host.split("@")[0] for host in ROWS} == set(WIRES)


@pytest.mark.parametrize("host", sorted(ROWS))
def test_each_row_says_the_channel_the_runtime_uses(env, tmp_path, host):
    harness, version = host.split("@")
    row = ROWS[host]
    event = row["tool event"]
    project = tmp_path / "project"
    project.mkdir()
    policy = Path(env["PASTURE_POLICY"])

    policy.write_text(
        '[[rules]]\nname = "no-rm"\ndecision = "deny"\nreason = "no rm -rf here"\ncommand = "rm\\\\s+-rf"\n'
    )
    channel, text = _channel(*call(harness, event, version, _tool_payload(harness, project), env))
    assert row["a policy deny"].startswith(channel), (host, channel)
    assert "no rm -rf here" in text

    policy.write_text('[[rules]]\nname = "x"\ndecision = "deny"\ncommand = "("\n')
    channel, text = _channel(*call(harness, event, version, _tool_payload(harness, project), env))
    assert row["a runtime failure"].startswith(channel), (host, channel)
    assert "is not a valid regular expression" in text and "pasture policy check" in text

    check = tmp_path / "check.py"
    check.write_text("print('2 failed'); exit(1)")
    argv = f"[{json.dumps(sys.executable)}, {json.dumps(str(check))}]"
    policy.write_text(f'[[until]]\nname = "tests"\ncommand = {argv}\n')
    stop, payload = STOPS[harness]
    code, out, err = call(harness, stop, version, dict(payload, cwd=str(project)), env)
    said = _until_channel(code, out, err)
    assert row["`[[until]]` at the stop"].startswith(said), (host, said)
    if said == "not carried":  # a degraded answer is named in the journal too
        assert query(env["PASTURE_JOURNAL"])[-1]["detail"]["steer"][0]["degraded"]


def test_codex_unhooked_tools_are_named():
    """Codex's write_stdin: captured firing no PreToolUse on 0.171.0; Code Mode exec: reported, not captured,
    so the docs and doctor say "not verified" for it only, with the sandbox as the mitigation."""
    from pasture.hosts.codex.doctor import UNHOOKED_TOOLS, unhooked_finding

    text = DOC.read_text(encoding="utf-8")
    line = next(line for line in text.splitlines() if "`write_stdin`" in line)
    assert "fires no `PreToolUse` on 0.171.0 (captured)" in line and "not captured here" in line and "sandbox" in line
    finding = unhooked_finding("0.171.0")
    assert finding.status == "warn" and "write_stdin fires no PreToolUse on 0.171.0 (captured; also" in finding.message
    assert "not verified here" in finding.message
    assert "0.172.0 not captured" in unhooked_finding("0.172.0").message
    assert all(tool in finding.message for tool in UNHOOKED_TOOLS)
    assert "--sandbox" in finding.fix
