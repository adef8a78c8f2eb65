"""Run the hook runtime in-process (fast) or as a real subprocess (the installed console script)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from pasture.runtime.lifecycle import run


def call(harness: str, event: str, version: str, payload: Any, env: dict) -> tuple[int, str, str]:
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    out, err = io.BytesIO(), io.BytesIO()
    code = run(["--harness", harness, "--event", event, "--host-version", version], io.BytesIO(data), out, err, env)
    return code, out.getvalue().decode(), err.getvalue().decode()


def spawn(harness: str, event: str, version: str, payload: Any, env: dict, timeout: float = 30) -> tuple[int, str, str]:
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pasture.entry",
            "hook",
            "lifecycle",
            "--harness",
            harness,
            "--event",
            event,
            "--host-version",
            version,
        ],
        input=data,
        capture_output=True,
        env=env,
        timeout=timeout,
    )
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def write_policy(folder: Path, text: str) -> Path:
    path = folder / "policy.toml"
    path.write_text(text, encoding="utf-8")
    return path


DENY_PROBE = """
[[rules]]
name = "no-probe"
decision = "deny"
reason = "probe files are off limits"
tool_kind = "shell"
command = "probe"

[[rules]]
name = "ask-curl"
decision = "ask"
reason = "network access needs a human"
command = "curl"
"""


def refusal(out: str) -> str | None:
    """The reason of a Claude Code / Codex JSON refusal on stdout (a PreToolUse permission decision
    deny, or decision block), else None. Claude Code answers a failure that blocks this way (issue
    17: on exit 2 it would hand the model the raw hook command line in front of the reason)."""
    import json as _json

    try:
        value = _json.loads(out) if out.strip() else None
    except ValueError:
        return None
    if not isinstance(value, dict):
        return None
    specific = value.get("hookSpecificOutput") or {}
    if specific.get("permissionDecision") == "deny":
        return specific.get("permissionDecisionReason")
    if value.get("decision") == "block":
        return value.get("reason")
    return None
