"""Cline CLI 3.0.65 (pinned in tests/npm; not yet a host of pasture's): what its hooks can do, measured on
the real binary offline (issue 29: "whether the 3.0.65 CLI can block a tool from its hooks is unknown:
capture it"). docs/hosts.md, "Cline (not a host yet)", states these results and cites this file.

Each run: a loopback-only network namespace, the OpenAI chat fake on 127.0.0.1 asking for one
``run_commands`` call (``echo pasture-probe > probe.txt``), ``cline auth`` pointing the
``openai-compatible`` provider at it, then ``cline --json`` in a throwaway HOME and workspace, with one
executable ``PreToolUse`` hook file that records its stdin and prints the answer under test.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pasture.hostenv.netns import isolation_support, python_env

pytestmark = pytest.mark.real_host

COMMAND = "echo pasture-probe > probe.txt"
REASON = "pasture-measure: probe.txt may not be written"

#: runs inside the namespace: loopback up, the fake model, `cline auth`, one `cline --json` task
DRIVER = r"""
import json, os, subprocess, sys
from pathlib import Path
from pasture.hostenv.fake_models import FakeModelServer, Script
from pasture.hostenv.netns import bring_loopback_up, network_interfaces

spec = json.loads(Path(sys.argv[1]).read_text())
root = Path(spec["root"])
bring_loopback_up()
script = Script.shell_then_reply(spec["command"], "Done. The tool said: {tool_result}")
env = {"HOME": str(root / "home"), "TMPDIR": str(root / "tmp"), "LANG": "C.UTF-8"}
env["PATH"] = "/usr/local/bin:/usr/bin:/bin"
with FakeModelServer("openai-chat", script, log_path=root / "requests.jsonl", deadline=170) as fake:
    auth = subprocess.run(
        [spec["binary"], "auth", "-p", "openai-compatible", "-k", "sk-fake-pasture", "-m", "fake-model",
         "-b", fake.url + "/v1"], env=env, cwd=root / "ws", capture_output=True, timeout=60)
    run = subprocess.run(
        [spec["binary"], "--json", "-P", "openai-compatible", "-m", "fake-model", "Create the probe file."],
        env=env, cwd=root / "ws", capture_output=True, timeout=120)
text = lambda b: b.decode(errors="replace")
(root / "result.json").write_text(json.dumps({
    "interfaces": network_interfaces(), "auth_exit": auth.returncode, "auth_err": text(auth.stderr),
    "exit": run.returncode, "stdout": text(run.stdout), "stderr": text(run.stderr),
}))
"""


def _cline(npm_bin: Path) -> Path:
    binary = npm_bin / "cline"
    assert binary.exists(), f"tests/npm pins cline 3.0.65; {binary} is missing"
    return binary


def _session(npm_bin: Path, root: Path, answers: dict[str, str]) -> dict[str, Any]:
    """One task with an executable PreToolUse hook at each ``folder`` (relative to the run root) of
    ``answers``, printing that answer; what came out, with every hook payload and model request."""
    for name in ("home", "ws", "tmp"):
        (root / name).mkdir(parents=True, exist_ok=True)
    for n, (folder, answer) in enumerate(answers.items()):
        hooks = root / folder
        hooks.mkdir(parents=True, exist_ok=True)
        hook = hooks / "PreToolUse"
        hook.write_text(f'#!/bin/sh\ncat > "{root}/payload-{n}.json"\n{answer}\n', encoding="utf-8")
        hook.chmod(0o755)
    spec = root / "spec.json"
    spec.write_text(json.dumps({"root": str(root), "binary": str(_cline(npm_bin)), "command": COMMAND}))
    iso = isolation_support()
    assert iso.private_network, f"no loopback-only network namespace here: {iso.note}"
    proc = subprocess.run(
        [*iso.wrapper, sys.executable, "-c", DRIVER, str(spec)],
        env=python_env(),
        capture_output=True,
        timeout=300,
    )
    result_file = root / "result.json"
    assert result_file.is_file(), proc.stderr.decode(errors="replace")[-3000:]
    result: dict[str, Any] = json.loads(result_file.read_text())
    assert result["interfaces"] == ["lo"], result["interfaces"]
    assert result["auth_exit"] == 0, result["auth_err"]
    result["payloads"] = [json.loads(p.read_text()) for p in sorted(root.glob("payload-*.json"))]
    log = root / "requests.jsonl"
    result["requests"] = [json.loads(line)["body"] for line in log.read_text().splitlines() if line.strip()]
    result["probe"] = (root / "ws" / "probe.txt").is_file()
    result["finish"] = _finish(result["stdout"])
    return result


def _finish(stdout: str) -> str | None:
    for line in stdout.splitlines():
        if '"run_result"' in line:
            return str(json.loads(line).get("finishReason"))
    return None


def _answer(obj: dict[str, Any]) -> str:
    return "printf '%s\\n' " + "'" + json.dumps(obj).replace("'", "'\\''") + "'"


def _last_messages(result: dict[str, Any]) -> list[dict[str, Any]]:
    return list(result["requests"][-1]["messages"])


def test_a_pre_tool_use_cancel_stops_the_whole_task_and_the_model_never_reads_why(npm_bin, tmp_path):
    out = _session(npm_bin, tmp_path, {"home/.cline/hooks": _answer({"cancel": True, "errorMessage": REASON})})
    (payload,) = out["payloads"]
    assert payload["hookName"] == "tool_call"
    assert payload["tool_call"]["name"] == "run_commands" and payload["tool_call"]["input"] == {"commands": [COMMAND]}
    assert payload["preToolUse"]["toolName"] == "run_commands"
    assert not out["probe"], "the cancelled command ran"
    assert len(out["requests"]) == 1, "the model was asked again after the cancel"
    assert out["finish"] == "aborted"
    assert REASON not in out["stdout"] + out["stderr"] and out["exit"] == 0  # nothing says why, and exit 0


def test_an_empty_answer_runs_the_tool(npm_bin, tmp_path):
    out = _session(npm_bin, tmp_path, {"home/.cline/hooks": "echo '{}'"})
    assert out["probe"] and out["finish"] == "completed" and len(out["requests"]) == 2


def test_a_hook_that_crashes_lets_the_tool_run(npm_bin, tmp_path):
    """Cline fails open on a hook's exit code: an adapter must print its own cancel when it cannot decide."""
    out = _session(npm_bin, tmp_path, {"home/.cline/hooks": "exit 3"})
    assert out["probe"] and out["finish"] == "completed"


def test_an_empty_override_refuses_the_call_and_context_tells_the_model_why(npm_bin, tmp_path):
    """``overrideInput: {}`` fails the tool's own input check, so it does not run; ``contextModification``
    reaches the model beside that failure, and the task goes on."""
    answer = {"overrideInput": {}, "contextModification": REASON}
    out = _session(npm_bin, tmp_path, {"home/.cline/hooks": _answer(answer)})
    assert not out["probe"] and out["finish"] == "completed"
    messages = _last_messages(out)
    tool = next(m for m in messages if m.get("role") == "tool")
    assert "Invalid input" in str(tool["content"])
    assert any(m.get("role") == "user" and REASON in str(m.get("content")) for m in messages[messages.index(tool) :])


@pytest.mark.parametrize(
    "folder", ["home/.cline/hooks", "home/Documents/Cline/Hooks", "ws/.clinerules/hooks", "ws/.cline/hooks"]
)
def test_every_hook_folder_is_read(npm_bin, tmp_path, folder):
    out = _session(npm_bin, tmp_path, {folder: _answer({"cancel": True})})
    assert len(out["payloads"]) == 1 and not out["probe"] and out["finish"] == "aborted"


def test_a_repository_hook_rewrites_the_call_after_the_users_hook_approved_it(npm_bin, tmp_path):
    """Around any guard: both hooks read the model's call, the repository's override is what runs."""
    rewrite = {"overrideInput": {"commands": ["echo rewritten > rewritten.txt"]}}
    out = _session(npm_bin, tmp_path, {"home/.cline/hooks": "echo '{}'", "ws/.clinerules/hooks": _answer(rewrite)})
    assert len(out["payloads"]) == 2
    assert all(p["tool_call"]["input"] == {"commands": [COMMAND]} for p in out["payloads"])
    assert (tmp_path / "ws" / "rewritten.txt").is_file() and not out["probe"]
