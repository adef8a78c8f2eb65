"""The hook path imports only the standard library, pasture.runtime.* and the generated tables
(pasture_contracts.*): every tool call of every agent pays for what it imports.

Checked in a fresh interpreter that runs the runtime's entry (pasture.runtime.main) on a payload the policy
denies (so the gate, the journal and the answer all run), then lists what the run added to
sys.modules (what `site` loaded before, e.g. an editable install's finder, is not the hook's).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from pasture.runtime import hostwire

PROBE = r"""
import json, sys
before = set(sys.modules)
from pasture.runtime.main import main  # what the console script and the launcher call
code = main(["hook", "lifecycle", *sys.argv[2:]])  # process=False: return, so the modules can be listed
with open(OUT, "w") as fh:
    json.dump({"code": code, "added": sorted(set(sys.modules) - before)}, fh)
"""

# `_pasture_re.*`: the standard library's own `re/_compiler.py`, `_parser.py`, `_constants.py`,
# `_casefix.py`, loaded under a private package name without `re/__init__` (pasture.runtime.effective).
ALLOWED_PREFIXES = ("pasture.runtime.", "pasture_contracts.", "_pasture_re.")
ALLOWED_EXACT = {
    "pasture",
    "pasture.entry",
    "pasture.runtime",
    "pasture_contracts",
    "_pasture_re",
}


def _third_party(added: list[str]) -> list[str]:
    stdlib = sys.stdlib_module_names
    return [
        name
        for name in added
        if name.split(".")[0] not in stdlib and name not in ALLOWED_EXACT and not name.startswith(ALLOWED_PREFIXES)
    ]


CASES = {
    "claude-deny": (
        "claude-code",
        "PreToolUse",
        "2.1.328",
        {
            "session_id": "s1",
            "tool_use_id": "t1",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "cat probe"},
            "cwd": "/tmp",
        },
    ),
    "codex-deny": (
        "codex",
        "PreToolUse",
        "0.171.0",
        {
            "session_id": "s1",
            "turn_id": "u1",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "cat probe"},
            "cwd": "/tmp",
            "tool_use_id": "t1",
        },
    ),
    "opencode-observe": ("opencode", "session.created", "1.18.33", {"sessionID": "s1"}),
    "gemini-deny": (
        "gemini-cli",
        "BeforeTool",
        "0.61.0",
        {
            "session_id": "s1",
            "hook_event_name": "BeforeTool",
            "tool_name": "run_shell_command",
            "tool_input": {"command": "cat probe"},
            "cwd": "/tmp",
        },
    ),
    "copilot-deny": (
        "copilot-cli",
        "preToolUse",
        "1.0.102",
        {"sessionId": "s1", "timestamp": 1, "cwd": "/tmp", "toolName": "bash", "toolArgs": {"command": "cat probe"}},
    ),
    "pi-deny": (
        "pi",
        "tool_call",
        "0.73.1",
        {"type": "tool_call", "toolName": "bash", "toolCallId": "c1", "input": {"command": "cat probe"}},
    ),
    "qwen-deny": (
        "qwen-code",
        "PreToolUse",
        "0.24.4",
        {
            "session_id": "s1",
            "hook_event_name": "PreToolUse",
            "tool_name": "run_shell_command",
            "tool_input": {"command": "cat probe"},
            "tool_use_id": "t1",
            "cwd": "/tmp",
        },
    ),
    "cline-deny": (
        "cline",
        "PreToolUse",
        "3.0.65",
        {
            "hookName": "tool_call",
            "taskId": "t1",
            "tool_call": {"id": "c1", "name": "run_commands", "input": {"commands": ["cat probe"]}},
            "preToolUse": {"toolName": "run_commands", "parameters": {"commands": '["cat probe"]'}},
            "workspaceRoots": ["/tmp"],
        },
    ),
    "unknown-harness": ("nobody", "PreToolUse", "1.0.0", {}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_hook_path_imports_only_stdlib_and_generated_tables(case, env, tmp_path):
    harness, event, version, payload = CASES[case]
    out = tmp_path / "modules.json"
    probe = PROBE.replace("OUT", repr(str(out)))
    argv = [sys.executable, "-c", probe, "--", "--harness", harness, "--event", event, "--host-version", version]
    done = subprocess.run(argv, input=json.dumps(payload).encode(), capture_output=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    result = json.loads(out.read_text())
    added = result["added"]
    assert _third_party(added) == [], f"the hook path imported {_third_party(added)}"
    assert not any(m.startswith(("click", "pydantic", "jinja2", "yaml", "black")) for m in added)
    # the hook imports its own host's wire and no other (Claude Code's, Codex's and Qwen Code's build on the answers the
    # command-JSON hosts share, hostwire/commandjson.py); compiling the policy (this cold run) reads every
    # host's declared guard files (pasture.runtime.hostwire.guarded)
    wires = sorted(m.rpartition(".")[2] for m in added if m.startswith("pasture.runtime.hostwire."))
    own = hostwire.WIRES.get(harness, hostwire.DEFAULT)
    mine = sorted({own, "commandjson"} if own in ("claude_code", "codex", "qwen_code") else {own})
    compiled = "pasture.runtime.builtin" in added and "pasture.runtime.hostwire.guarded" in added
    assert wires == (sorted({*hostwire.WIRES.values(), "guarded", "commandjson"}) if compiled else mine), wires
    assert compiled or not case.endswith("deny")  # a deny case starts cold: its first run compiles
    if compiled:  # the next call loads the compiled policy from its cache: its own wire only again
        done = subprocess.run(argv, input=json.dumps(payload).encode(), capture_output=True, env=env, timeout=60)
        assert done.returncode == 0, done.stderr.decode()
        again = json.loads(out.read_text())["added"]
        warm = sorted(m.rpartition(".")[2] for m in again if m.startswith("pasture.runtime.hostwire."))
        assert warm == mine, warm
        assert "pasture.runtime.hostwire.guarded" not in again
    if case.endswith("deny"):
        # The run really went through the gate: the policy's deny came back, the tables were imported.
        refused = ("deny", '"overrideInput": {}')  # Cline's refusal empties the call's input
        assert any(w in done.stdout.decode() for w in refused) or result["code"] == 2, done.stdout.decode()
        assert "pasture.runtime.policy" in added and any(m.startswith("pasture_contracts.") for m in added)


def test_the_audit_would_see_a_third_party_import():
    """Not vacuous: a module outside the stdlib and the allowed packages is reported."""
    assert _third_party(
        ["json", "pasture.runtime.answer", "pasture_contracts._row", "click", "pasture.cli", "yaml"]
    ) == ["click", "pasture.cli", "yaml"]
