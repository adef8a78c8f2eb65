"""GitHub Copilot CLI (real, pinned in tests/npm) with OUR generated hooks file and runtime.

Each run: a temp project where the real ``pasture install copilot-cli --project P --trust-project`` wrote
``.github/hooks/pasture.json`` and recorded the folder trust where Copilot keeps it (``~/.copilot/config.json``
``trustedFolders``: without trust Copilot runs no project hook and says nothing; the launcher itself passes
no trust flag), the installed launcher pointed at the recording wrapper around this repo's runtime, and
the fake Chat Completions model on 127.0.0.1 calling
``bash {command: "echo pasture-probe > probe.txt"}``. One host run per gate kind (rules, command, AI
against a fake chat server), the same assertions for each: the probe file stays absent, the runtime
answered the JSON deny (the channel whose reason reaches the model), the model read our reason, and
``pasture journal --json`` holds the row.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from realhost_support import COMMAND, COPILOT, DENY_REASON, deny_gate, deny_policy, run_host

from pasture.hosts.copilot_cli import HOOKS_FILE, drop_unpacked

pytestmark = pytest.mark.real_host
SPEC = COPILOT
GATE_REASON = "pasture-realhost: the gate refused the probe"


def _gate(kind: str, folder: Path) -> tuple[str, dict, dict, str]:
    return deny_gate(kind, folder, GATE_REASON)


@pytest.mark.parametrize("kind", ["rules", "command", "ai"])
def test_each_gate_kind_denies_the_shell_call_and_the_model_reads_our_reason(
    npm_bin: Path, tmp_path: Path, kind: str
) -> None:
    policy, loggers, extra, gate = _gate(kind, tmp_path / "gate")
    reason = DENY_REASON if kind == "rules" else GATE_REASON
    out = run_host(
        SPEC,
        npm_bin,
        tmp_path / "run",
        policy,
        options={"trust": "none"},
        loggers=loggers or None,
        extra_env=extra or None,
    )
    try:
        assert out.result.exit_code == 0, out.describe()
        assert out.install is not None and out.install.report["ok"] is True, out.install
        assert (out.project / HOOKS_FILE).is_file() and "--trust-folder" not in out.result.argv
        assert not out.probe_exists, out.describe()
        (pre,) = out.calls("preToolUse")
        assert pre.payload["toolName"] == "bash" and pre.payload["toolArgs"]["command"] == COMMAND
        assert pre.rc == 0 and json.loads(pre.stdout) == {
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }, out.describe()
        (told,) = out.tool_results()
        assert told["text"] == f"Denied by preToolUse hook: {reason}", out.describe()
        assert out.calls("postToolUse") == []
        (row,) = out.journal(event="preToolUse")
        assert (row["decision"], row["answer"], row["reason"]) == ("deny", "deny", reason), row
        assert row["gate"] == gate or row["gate"].startswith(gate), row
        env = row["envelope"]
        assert (env["harness"], env["contract"], env["tool_kind"], env["command"]) == (
            "copilot-cli",
            SPEC.contract,
            "shell",
            COMMAND,
        )
        assert env["identities"] == {"session": pre.payload["sessionId"]}
        if kind == "ai":
            asked = out.logger_requests("ai")
            assert asked and all(r["path"] == "/v1/chat/completions" for r in asked), out.describe()
    finally:
        drop_unpacked(out.run.layout)


def test_a_missing_runtime_still_refuses_and_the_model_reads_the_one_line(npm_bin: Path, tmp_path: Path) -> None:
    """Copilot runs the tool when a hook outlives its timeout and says nothing; a runtime that cannot start
    must therefore not leave the answer to the host: the adapter's tail answers the JSON deny itself."""
    out = run_host(
        SPEC,
        npm_bin,
        tmp_path / "run",
        deny_policy(),
        options={"trust": "none"},
        extra_env={"PASTURE_BIN": str(tmp_path / "no-such-runtime")},
    )
    try:
        assert out.result.exit_code == 0, out.describe()
        assert not out.probe_exists, out.describe()
        assert out.calls() == []  # the runtime never started
        (told,) = out.tool_results()
        assert told["text"] == (
            "Denied by preToolUse hook: pasture: the guard could not run (exit 127), so preToolUse is refused; "
            "see `pasture doctor` for the fix"
        ), out.describe()
    finally:
        drop_unpacked(out.run.layout)
