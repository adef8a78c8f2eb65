"""Gemini CLI, Copilot CLI and Pi, installed from tests/npm, run headless and offline against the fakes.

Each runs inside the loopback-only network namespace against a fake model on 127.0.0.1 (the new
``gemini`` fake for Gemini CLI, the existing ``openai-chat`` fake, unchanged, for Copilot CLI and Pi),
with a hand-written pre-tool hook (Gemini, Copilot) or extension (Pi): an allow run creates the probe
file, a block run leaves it absent and the model reads the refusal. What each test asserts is what
docs/new-hosts.md records. The drivers are tests/hostenv/newhosts_support.py.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from newhosts_support import (
    GEMINI_EVENTS,
    NEW_HOST_PACKAGES,
    copilot_hooks,
    gemini_hooks,
    pi_extension,
    read_records,
    recorder_command,
    run_new_host,
    write_recorder,
)

from pasture.hostenv import HostRunResult, RunLayout, Script, isolation_support
from pasture.hostenv.npm_tools import binary_version, pinned_versions

pytestmark = pytest.mark.real_host

REPO = Path(__file__).resolve().parents[2]
COMMAND = "echo pasture-probe > probe.txt"
PROBE = Script.shell_then_reply(COMMAND, "Done. The tool said: {tool_result}")
REASON = "pasture-newhosts: probe.txt may not be written (rule no-probe)"


def _assert_isolated(result: HostRunResult) -> None:
    assert isolation_support().private_network, "these runs need a loopback-only namespace"
    assert result.isolation != "none" and result.extra.get("interfaces") == ["lo"]
    assert result.requests and all(r["headers"].get("host", "").startswith("127.0.0.1:") for r in result.requests)


def _probe(result: HostRunResult) -> Path:
    return result.project / "probe.txt"


@pytest.mark.parametrize("host", sorted(NEW_HOST_PACKAGES))
def test_each_new_host_reports_its_pinned_version(npm_bin: Path, host: str) -> None:
    package, binary = NEW_HOST_PACKAGES[host]
    wrapper = isolation_support().wrapper  # not even a version check reaches the network
    found = binary_version(Path(npm_bin).absolute() / binary, wrapper=wrapper, timeout=120)
    assert found == pinned_versions(REPO)[package]


# --- Gemini CLI -------------------------------------------------------------------------------


def _gemini(
    npm_bin: Path,
    tmp_path: Path,
    mode: str,
    *,
    timeout_s: int = 20,
    persist_trust: bool = False,
    user_level: bool = False,
    **options: Any,
) -> tuple[HostRunResult, list[dict[str, Any]]]:
    log = tmp_path / "run" / "hooks.jsonl"

    def setup(layout: RunLayout) -> None:
        recorder = write_recorder(layout.root)
        hooks = gemini_hooks(
            lambda e: recorder_command(recorder, log, e, mode, "BeforeTool", REASON, "gemini-cli"), timeout_s=timeout_s
        )
        if persist_trust:  # what the interactive trust dialog saves (docs/cli/trusted-folders.md)
            (layout.home / ".gemini").mkdir(parents=True, exist_ok=True)
            (layout.home / ".gemini" / "trustedFolders.json").write_text(
                json.dumps({str(layout.project): "TRUST_FOLDER"})
            )
        folder = layout.home if user_level else layout.project  # the launcher merges its keys into the user's
        (folder / ".gemini").mkdir(exist_ok=True)
        (folder / ".gemini" / "settings.json").write_text(json.dumps(hooks, indent=2))

    result = run_new_host("gemini-cli", npm_bin, tmp_path / "run", PROBE, setup=setup, options=options)
    return result, read_records(log)


def _gemini_tool_response(result: HostRunResult) -> dict[str, Any]:
    parts = result.requests[1]["body"]["contents"][-1]["parts"]
    (response,) = [p["functionResponse"] for p in parts if "functionResponse" in p]
    assert response["name"] == "run_shell_command"
    return response["response"]


def test_gemini_allow_run_fires_ten_events_with_snake_case_payloads(npm_bin: Path, tmp_path: Path) -> None:
    result, records = _gemini(npm_bin, tmp_path, "observe")
    assert result.exit_code == 0, result.describe()
    _assert_isolated(result)
    assert _probe(result).read_text() == "pasture-probe\n"
    # only the streaming endpoint is called: one request per model turn
    assert [(r["method"], r["path"], r["query"]) for r in result.requests] == [
        ("POST", "/v1beta/models/gemini-2.5-pro:streamGenerateContent", "alt=sse")
    ] * 2
    fired = Counter(r["event"] for r in records)
    assert set(fired) == set(GEMINI_EVENTS) - {"Notification"}, fired
    assert fired["BeforeTool"] == fired["AfterTool"] == 1
    assert all(r["payload"]["hook_event_name"] == r["event"] for r in records)

    before = next(r for r in records if r["event"] == "BeforeTool")
    payload = before["payload"]
    assert set(payload) == {
        "session_id",
        "transcript_path",
        "cwd",
        "hook_event_name",
        "timestamp",
        "tool_name",
        "tool_input",
    }
    assert payload["tool_name"] == "run_shell_command"
    assert payload["tool_input"] == {"command": COMMAND, "description": "Run a shell command"}
    assert payload["cwd"] == str(result.project) and payload["timestamp"].endswith("Z")
    assert Path(payload["transcript_path"]).is_relative_to(result.layout.home / ".gemini")
    after = next(r for r in records if r["event"] == "AfterTool")["payload"]
    assert set(after["tool_response"]) >= {"llmContent", "returnDisplay"}
    assert before["env"]["GEMINI_PROJECT_DIR"] == before["env"]["CLAUDE_PROJECT_DIR"] == str(result.project)
    assert before["env"]["GEMINI_SESSION_ID"] == payload["session_id"]
    assert "project-level hooks have been detected" in result.stderr
    assert json.loads(result.stdout)["response"].startswith("Done. The tool said: <untrusted_context>")


@pytest.mark.parametrize("mode", ["exit2", "deny"])
def test_gemini_before_tool_refusal_blocks_and_the_model_reads_the_reason(
    npm_bin: Path, tmp_path: Path, mode: str
) -> None:
    """exit 2 + stderr and ``{"decision": "deny", "reason"}`` on exit 0 both carry the reason."""
    result, records = _gemini(npm_bin, tmp_path, mode)
    assert result.exit_code == 0, result.describe()
    _assert_isolated(result)
    assert not _probe(result).exists()
    fired = Counter(r["event"] for r in records)
    assert fired["BeforeTool"] == 1 and "AfterTool" not in fired
    assert _gemini_tool_response(result) == {"error": f"Tool execution blocked: {REASON}"}
    assert json.loads(result.stdout)["response"] == f"Done. The tool said: Tool execution blocked: {REASON}"


def test_gemini_crashing_before_tool_hook_is_a_warning_and_the_tool_runs(npm_bin: Path, tmp_path: Path) -> None:
    """Exit 1 (any code but 0 and 2) is non-fatal: fail-open, which an adapter must not rely on."""
    result, records = _gemini(npm_bin, tmp_path, "crash")
    assert result.exit_code == 0, result.describe()
    assert _probe(result).exists()
    assert Counter(r["event"] for r in records)["AfterTool"] == 1
    assert f"Hook system message: Warning: {REASON}" in result.stderr


def test_gemini_hook_past_its_timeout_is_a_warning_and_the_tool_runs(npm_bin: Path, tmp_path: Path) -> None:
    result, records = _gemini(npm_bin, tmp_path, "hang", timeout_s=3)
    assert result.exit_code == 0, result.describe()
    assert _probe(result).exists()
    assert "Hook execution for BeforeTool: 0 succeeded, 1 failed (pasture-BeforeTool)" in result.stderr
    assert Counter(r["event"] for r in records)["AfterTool"] == 1


def test_gemini_persisted_folder_trust_loads_project_hooks(npm_bin: Path, tmp_path: Path) -> None:
    """``~/.gemini/trustedFolders.json`` naming the project trusts it without the variable."""
    result, records = _gemini(npm_bin, tmp_path, "exit2", trust=False, persist_trust=True)
    assert "GEMINI_CLI_TRUST_WORKSPACE" not in result.env
    assert result.exit_code == 0, result.describe()
    assert not _probe(result).exists()
    assert _gemini_tool_response(result) == {"error": f"Tool execution blocked: {REASON}"}


def test_gemini_untrusted_workspace_refuses_loudly_with_exit_55(npm_bin: Path, tmp_path: Path) -> None:
    result, records = _gemini(npm_bin, tmp_path, "exit2", trust=False)
    assert result.exit_code == 55, result.describe()
    assert result.requests == [] and records == [] and not _probe(result).exists()
    assert "Gemini CLI is not running in a trusted directory" in result.stderr
    assert "GEMINI_CLI_TRUST_WORKSPACE=true" in result.stderr and "--skip-trust" in result.stderr


def test_gemini_skip_trust_flag_runs_without_project_hooks(npm_bin: Path, tmp_path: Path) -> None:
    """``--skip-trust`` (which the refusal above recommends) sets GEMINI_CLI_TRUST_WORKSPACE only after
    the settings were loaded untrusted: the session runs, no project hook runs, nothing is said."""
    result, records = _gemini(npm_bin, tmp_path, "exit2", trust=False, extra_args=["--skip-trust"])
    assert result.exit_code == 0, result.describe()
    assert records == []
    assert _probe(result).exists()
    assert "hook" not in result.stderr.lower()


def test_gemini_user_level_hooks_run_under_skip_trust(npm_bin: Path, tmp_path: Path) -> None:
    """The same hooks in ``~/.gemini/settings.json`` are loaded in the untrusted workspace ``--skip-trust`` runs."""
    result, records = _gemini(npm_bin, tmp_path, "exit2", trust=False, user_level=True, extra_args=["--skip-trust"])
    assert result.exit_code == 0, result.describe()
    assert not _probe(result).exists()
    assert Counter(r["event"] for r in records)["BeforeTool"] == 1
    assert _gemini_tool_response(result) == {"error": f"Tool execution blocked: {REASON}"}
    assert "project-level hooks" not in result.stderr


# --- Copilot CLI ------------------------------------------------------------------------------


def _copilot(
    npm_bin: Path,
    tmp_path: Path,
    mode: str,
    *,
    user_level: bool = False,
    timeout_s: int = 20,
    persist_trust: bool = False,
    extra_env: dict[str, str] | None = None,
    **options: Any,
) -> tuple[HostRunResult, list[dict[str, Any]]]:
    log = tmp_path / "run" / "hooks.jsonl"

    def setup(layout: RunLayout) -> None:
        recorder = write_recorder(layout.root)
        hooks = copilot_hooks(
            lambda e: recorder_command(recorder, log, e, mode, "preToolUse", REASON, "copilot-cli"), timeout_s=timeout_s
        )
        if persist_trust:  # the config.json key the CLI keeps trusted folders in
            (layout.home / ".copilot").mkdir(parents=True, exist_ok=True)
            (layout.home / ".copilot" / "config.json").write_text(json.dumps({"trustedFolders": [str(layout.project)]}))
        if user_level:  # inline hooks in the user's settings.json (`copilot help config`)
            (layout.home / ".copilot").mkdir(parents=True)
            (layout.home / ".copilot" / "settings.json").write_text(json.dumps({"hooks": hooks["hooks"]}, indent=2))
        else:
            (layout.project / ".github" / "hooks").mkdir(parents=True)
            (layout.project / ".github" / "hooks" / "pasture.json").write_text(json.dumps(hooks, indent=2))

    result = run_new_host(
        "copilot-cli", npm_bin, tmp_path / "run", PROBE, setup=setup, options=options, extra_env=extra_env
    )
    # the native binary unpacks its ~235 MB JavaScript package into $XDG_CACHE_HOME on every fresh HOME
    shutil.rmtree(result.layout.xdg_cache / "copilot" / "pkg", ignore_errors=True)
    return result, read_records(log)


def _copilot_tool_message(result: HostRunResult) -> str:
    (tool,) = [m for m in result.requests[1]["body"]["messages"] if m.get("role") == "tool"]
    return tool["content"]


def test_copilot_allow_run_fires_camel_case_events_through_the_unchanged_chat_fake(
    npm_bin: Path, tmp_path: Path
) -> None:
    result, records = _copilot(npm_bin, tmp_path, "observe")
    assert result.exit_code == 0, result.describe()
    _assert_isolated(result)
    assert _probe(result).read_text() == "pasture-probe\n"
    assert [(r["path"], r["reply"]["kind"]) for r in result.requests] == [("/v1/chat/completions", "turn")] * 2
    events = [r["event"] for r in records]
    # Copilot starts its sessionStart and userPromptSubmitted hooks together: either logs first
    assert sorted(events[:2]) == ["sessionStart", "userPromptSubmitted"]
    assert events[2:] == [
        "userPromptTransformed",
        "preToolUse",
        "permissionRequest",
        "postToolUse",
        "agentStop",
        "sessionEnd",
    ]
    pre = records[3]["payload"]
    assert set(pre) == {"sessionId", "timestamp", "cwd", "toolName", "toolArgs"}
    assert pre["toolName"] == "bash" and pre["toolArgs"] == {"command": COMMAND, "description": "Run a shell command"}
    assert isinstance(pre["timestamp"], int) and pre["timestamp"] > 10**12  # epoch milliseconds
    assert pre["cwd"] == str(result.project)
    permission = records[4]["payload"]
    assert permission["hookName"] == "permissionRequest" and permission["toolInput"] == {"command": COMMAND}
    post = records[5]["payload"]
    assert post["toolResult"]["resultType"] == "success" and "textResultForLlm" in post["toolResult"]
    assert records[6]["payload"]["stop_hook_active"] is False  # the one snake_case field seen
    env = records[3]["env"]
    assert env["COPILOT_PROJECT_DIR"] == env["CLAUDE_PROJECT_DIR"] == str(result.project)
    assert env["COPILOT_HOOK_DIR"] == str(result.project / ".github" / "hooks")
    assert not any(k.startswith("COPILOT_PROVIDER") for k in env) and "COPILOT_OFFLINE" not in env


def test_copilot_exit2_blocks_but_the_model_reads_only_the_exit_code(npm_bin: Path, tmp_path: Path) -> None:
    result, records = _copilot(npm_bin, tmp_path, "exit2")
    assert result.exit_code == 0, result.describe()
    _assert_isolated(result)
    assert not _probe(result).exists()
    events = [r["event"] for r in records]
    assert "preToolUse" in events and "postToolUse" not in events and "permissionRequest" not in events
    assert _copilot_tool_message(result) == "Denied by preToolUse hook: hook exited with code 2"
    assert REASON not in json.dumps(result.requests)


def test_copilot_json_deny_blocks_and_carries_the_reason(npm_bin: Path, tmp_path: Path) -> None:
    result, records = _copilot(npm_bin, tmp_path, "deny")
    assert result.exit_code == 0, result.describe()
    assert not _probe(result).exists()
    assert "postToolUse" not in [r["event"] for r in records]
    assert _copilot_tool_message(result) == f"Denied by preToolUse hook: {REASON}"


def test_copilot_crashing_pre_tool_hook_denies_without_its_stderr(npm_bin: Path, tmp_path: Path) -> None:
    result, _ = _copilot(npm_bin, tmp_path, "crash")
    assert result.exit_code == 0, result.describe()
    assert not _probe(result).exists()
    assert _copilot_tool_message(result) == 'Denied by preToolUse hook from ".github/hooks/pasture.json" (hook errored)'


def test_copilot_pre_tool_hook_past_its_timeout_lets_the_tool_run_silently(npm_bin: Path, tmp_path: Path) -> None:
    """Unlike a crash (denied), a timed-out preToolUse hook is ignored: fail-open, nothing said."""
    result, records = _copilot(npm_bin, tmp_path, "hang", timeout_s=3)
    assert result.exit_code == 0, result.describe()
    assert _probe(result).exists()
    assert "postToolUse" in [r["event"] for r in records]
    assert "hook" not in (result.stdout + result.stderr).lower()


def test_copilot_persisted_folder_trust_loads_project_hooks(npm_bin: Path, tmp_path: Path) -> None:
    result, records = _copilot(npm_bin, tmp_path, "exit2", trust=False, persist_trust=True)
    assert "--trust-folder" not in result.argv
    assert result.exit_code == 0, result.describe()
    assert not _probe(result).exists()
    assert "preToolUse" in [r["event"] for r in records]


def test_copilot_untrusted_folder_runs_no_project_hook_and_says_nothing(npm_bin: Path, tmp_path: Path) -> None:
    result, records = _copilot(npm_bin, tmp_path, "exit2", trust=False)
    assert "--trust-folder" not in result.argv
    assert result.exit_code == 0, result.describe()
    assert records == []
    assert _probe(result).exists()  # fail-open: the tool ran
    assert "hook" not in (result.stdout + result.stderr).lower()
    assert "trust" not in (result.stdout + result.stderr).lower()


def test_copilot_allow_all_true_trusts_the_folder(npm_bin: Path, tmp_path: Path) -> None:
    result, records = _copilot(npm_bin, tmp_path, "exit2", trust=False, extra_env={"COPILOT_ALLOW_ALL": "true"})
    assert result.exit_code == 0, result.describe()
    assert not _probe(result).exists()
    assert "preToolUse" in [r["event"] for r in records]


def test_copilot_user_level_hooks_run_without_folder_trust(npm_bin: Path, tmp_path: Path) -> None:
    result, records = _copilot(npm_bin, tmp_path, "exit2", trust=False, user_level=True)
    assert "--trust-folder" not in result.argv
    assert result.exit_code == 0, result.describe()
    assert not _probe(result).exists()
    assert "preToolUse" in [r["event"] for r in records]
    assert "COPILOT_HOOK_DIR" not in records[0]["env"]
    assert _copilot_tool_message(result) == "Denied by preToolUse hook: hook exited with code 2"


# --- Pi ---------------------------------------------------------------------------------------


def _pi(npm_bin: Path, tmp_path: Path, mode: str) -> tuple[HostRunResult, list[dict[str, Any]]]:
    log = tmp_path / "run" / "extension.jsonl"

    def setup(layout: RunLayout) -> None:
        (layout.project / ".pi" / "extensions").mkdir(parents=True)
        (layout.project / ".pi" / "extensions" / "pasture-recorder.ts").write_text(pi_extension(log, mode, REASON))

    result = run_new_host("pi", npm_bin, tmp_path / "run", PROBE, setup=setup)
    return result, read_records(log)


def _pi_tool_message(result: HostRunResult) -> str:
    (tool,) = [m for m in result.requests[1]["body"]["messages"] if m.get("role") == "tool"]
    return tool["content"]


def test_pi_allow_run_fires_extension_events_through_the_unchanged_chat_fake(npm_bin: Path, tmp_path: Path) -> None:
    result, records = _pi(npm_bin, tmp_path, "observe")
    assert result.exit_code == 0, result.describe()
    _assert_isolated(result)
    assert _probe(result).read_text() == "pasture-probe\n"
    assert [(r["path"], r["reply"]["kind"]) for r in result.requests] == [("/v1/chat/completions", "turn")] * 2
    fired = Counter(r["event"] for r in records)
    assert {
        "session_start",
        "input",
        "before_agent_start",
        "context",
        "before_provider_request",
        "tool_call",
        "tool_result",
        "tool_execution_start",
        "tool_execution_end",
        "agent_end",
        "session_shutdown",
    } <= set(fired)
    assert len(fired) == 20, fired
    assert all(r["payload"]["type"] == r["event"] for r in records)
    call = next(r for r in records if r["event"] == "tool_call")["payload"]
    assert set(call) == {"type", "toolName", "toolCallId", "input"}
    assert call["toolName"] == "bash" and call["input"] == {"command": COMMAND, "description": "Run a shell command"}
    assert call["toolCallId"] == result.requests[1]["body"]["messages"][-1]["tool_call_id"]
    tool_result = next(r for r in records if r["event"] == "tool_result")["payload"]
    assert tool_result["isError"] is False and tool_result["content"][0]["type"] == "text"
    assert result.stdout.strip() == "Done. The tool said: (no output)"


@pytest.mark.parametrize("mode", ["block", "throw"])
def test_pi_tool_call_refusal_blocks_and_the_reason_is_the_tool_result(
    npm_bin: Path, tmp_path: Path, mode: str
) -> None:
    """``{block: true, reason}`` and a thrown Error both block; the model reads exactly the reason."""
    result, records = _pi(npm_bin, tmp_path, mode)
    assert result.exit_code == 0, result.describe()
    _assert_isolated(result)
    assert not _probe(result).exists()
    fired = Counter(r["event"] for r in records)
    assert fired["tool_call"] == 1 and "tool_result" not in fired and "tool_execution_update" not in fired
    end = next(r for r in records if r["event"] == "tool_execution_end")["payload"]
    assert end["isError"] is True and end["result"]["content"] == [{"type": "text", "text": REASON}]
    assert _pi_tool_message(result) == REASON
    assert result.stdout.strip() == f"Done. The tool said: {REASON}"
