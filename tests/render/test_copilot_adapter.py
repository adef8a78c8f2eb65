"""GitHub Copilot CLI: the hooks file (exact bytes, the shape of what Copilot ships, the event-key guard), the
fail-closed tail run by a real sh, and the wire's answers in Copilot's own JSON (the runtime's:
tests/runtime/test_answers.py).

Copilot ships no JSON Schema of a hooks file (its package has schemas/api.schema.json and
session-events.schema.json, neither of which describes one); the shape is checked against what it does
ship: the hook event names of the settings schema in its hook runtime and the SDK's output types, both
read into captures/copilot-cli@1.0.102/catalog.json. The real host loading it: tests/realhost/test_copilot_cli.py.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from loading import load_project
from repo_paths import REPO, committed

from pasture.catalog import find_catalog
from pasture.hosts.copilot_cli import CopilotEventError, copilot_artifacts, hooks_document
from pasture.runtime.hostwire import copilot_cli as wire

CONTRACT = "copilot-cli@1.0.102"
SHELL = {
    "sessionId": "s-1",
    "timestamp": 1764633600000,
    "cwd": "/",
    "toolName": "bash",
    "toolArgs": {"command": "echo x > probe.txt", "description": "probe"},
}


@pytest.fixture(scope="module")
def contract():
    return next(c for c in load_project(REPO) if c.id == CONTRACT)


def test_copilot_hooks_file_bytes_and_shape(contract, golden):
    (artifact,) = copilot_artifacts(contract)
    assert artifact.path == f"{CONTRACT}/pasture.json" and artifact.text == golden(artifact.path)
    doc = json.loads(artifact.text)
    assert set(doc) == {"version", "hooks"} and doc["version"] == 1
    catalog = find_catalog(REPO, "copilot-cli", "1.0.102")
    assert catalog is not None and list(doc["hooks"]) == catalog.names  # every key an event the host names
    for handlers in doc["hooks"].values():
        (handler,) = handlers
        assert set(handler) == {"type", "bash", "timeoutSec"} and handler["type"] == "command"
        assert handler["bash"].startswith("${PASTURE_BIN:-pasture} hook lifecycle --harness copilot-cli --event ")
        assert isinstance(handler["timeoutSec"], int) and handler["timeoutSec"] > 0
    gate = doc["hooks"]["preToolUse"][0]
    assert gate["timeoutSec"] == 60 and "permissionDecision" in gate["bash"]
    assert doc["hooks"]["sessionStart"][0]["bash"].endswith("--host-version 1.0.102")  # observations: no tail


def test_copilot_guard_refuses_an_event_copilot_does_not_fire(contract):
    row = dataclasses.replace(contract.events[0], name="PreToolUse")
    with pytest.raises(CopilotEventError, match="fires no hook event named PreToolUse"):
        hooks_document(dataclasses.replace(contract, events=(row,)))


def _run_tail(command: str, binary: str, payload: bytes = b"{}") -> subprocess.CompletedProcess:
    return subprocess.run(
        ["sh", "-c", command],
        input=payload,
        capture_output=True,
        env={"PATH": os.environ["PATH"], "PASTURE_BIN": binary},
        timeout=30,
    )


@pytest.mark.parametrize("binary", ["/nonexistent/pasture-hook", "false"])
def test_copilot_tail_answers_the_json_deny_when_the_runtime_cannot_run(contract, binary):
    command = json.loads(committed(f"{CONTRACT}/pasture.json"))["hooks"]["preToolUse"][0]["bash"]
    done = _run_tail(command, binary)
    exit_of = "127" if binary.startswith("/") else "1"
    assert done.returncode == 0
    assert json.loads(done.stdout) == {
        "permissionDecision": "deny",
        "permissionDecisionReason": f"pasture: the guard could not run (exit {exit_of}), so preToolUse is "
        "refused; see `pasture doctor` for the fix",
    }


def test_copilot_tail_leaves_the_runtimes_own_answers_alone(contract, tmp_path):
    command = json.loads(committed(f"{CONTRACT}/pasture.json"))["hooks"]["preToolUse"][0]["bash"]
    two = tmp_path / "two"
    two.write_text("#!/bin/sh\nexit 2\n")
    zero = tmp_path / "zero"
    zero.write_text('#!/bin/sh\necho \'{"permissionDecision":"deny","permissionDecisionReason":"r"}\'\n')
    for script in (two, zero):
        script.chmod(0o755)
    done = _run_tail(command, str(two))
    assert (done.returncode, done.stdout) == (2, b"")
    done = _run_tail(command, str(zero))
    assert done.returncode == 0 and json.loads(done.stdout)["permissionDecisionReason"] == "r"


def test_copilot_wire_encodes_each_refusal_in_its_events_own_form():
    class Row:
        response = "deny"

    assert wire.deny("userPromptSubmitted", Row(), "no") == (0, '{"decision": "block", "reason": "no"}\n', "", "deny")
    assert wire.deny("sessionStart", Row(), "no") == (2, "", "no\n", "deny")
    Row.response = "none"
    assert wire.deny("preToolUse", Row(), "no") == (2, "", "no\n", "deny")  # no cited JSON channel: exit 2
    assert wire.tool_of(SHELL) == ("bash", SHELL["toolArgs"])
    assert wire.tool_of({"toolName": "bash", "toolInput": {"command": "x"}}) == ("bash", {"command": "x"})
    assert wire.tool_of([1]) == (None, None)


def test_copilot_hook_imports_only_its_own_wire():
    probe = (
        "import sys; from pasture.runtime.hostwire import wire; wire('copilot-cli'); "
        "print(sorted(m for m in sys.modules if m.startswith('pasture.runtime.hostwire.')))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=Path(REPO))
    assert out.stdout.strip() == "['pasture.runtime.hostwire.copilot_cli']"
