"""Recording hooks: capture what a real host hands its hooks.

* :func:`recorder_command` gives a command-hook command line (Claude Code, Codex) that appends
  ``{"event", "payload", "env", "cwd", "argv"}`` as one JSON line to a log (``env``: the
  hosts' own variables (:func:`recorded_prefixes`), values of token/key-like names redacted), then observes, blocks
  with exit 2, denies with JSON, or allows a permission request.
* :func:`read_records` reads a log back, the command hooks' or a plugin host's (the recording plugins are
  their host modules': ``opencode_recorder_plugin`` in :mod:`pasture.hosts.opencode`,
  ``pi_recorder_extension`` in :mod:`pasture.hosts.pi`).
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

__all__ = [
    "RECORDER_MODES",
    "install_recorder",
    "read_records",
    "recorder_command",
]

RECORDER_MODES = ("observe", "exit2", "deny", "ask", "allow-permission", "answer")

_RECORDER_SOURCE = r'''#!/usr/bin/env python3
"""pasture hostenv recording hook (generated; stdlib only)."""
import argparse, fcntl, json, os, sys

p = argparse.ArgumentParser()
p.add_argument("--log", required=True)
p.add_argument("--event", required=True)
p.add_argument("--mode", default="observe")
p.add_argument("--reason", default="blocked by pasture recorder")
p.add_argument("--block-event", default="PreToolUse")
p.add_argument("--permission-decision", action="store_true")
p.add_argument("--decision-word", default="block")
p.add_argument("--answer-file", default=None)
p.add_argument("--answer-times", type=int, default=1)
p.add_argument("--merge-tool-input", action="store_true")
a = p.parse_args()
raw = sys.stdin.read()
try:
    payload = json.loads(raw)
except ValueError:
    payload = {"_raw": raw}
prefixes = @PREFIXES@
secret = ("TOKEN", "KEY", "SECRET", "PASSWORD", "AUTH")
record = {
    "event": a.event,
    "payload": payload,
    "env": {k: ("<redacted>" if any(s in k.upper() for s in secret) else v)
            for k, v in sorted(os.environ.items()) if k.startswith(prefixes)},
    "cwd": os.getcwd(),
    "argv": sys.argv[1:],
}
with open(a.log, "a+", encoding="utf-8") as fh:
    fcntl.flock(fh, fcntl.LOCK_EX)
    fh.write(json.dumps(record) + "\n")
    fh.flush()
    fh.seek(0)
    # how many calls of this event the log holds, this one included (under the lock)
    calls = sum(1 for line in fh if line.strip() and json.loads(line).get("event") == a.event)
hook_event = payload.get("hook_event_name", a.event) if isinstance(payload, dict) else a.event
# A Stop-family block refuses only the first stop: one that an earlier block caused passes.
again = isinstance(payload, dict) and payload.get("stop_hook_active") is True
blocking = hook_event == a.block_event and not again
if a.mode == "answer":
    # print the given answer on the first --answer-times calls of this event, then observe
    if a.answer_file is not None and calls <= a.answer_times:
        with open(a.answer_file, encoding="utf-8") as answer_fh:
            answer = json.load(answer_fh)
        specific = answer.get("hookSpecificOutput")
        if a.merge_tool_input and isinstance(specific, dict) and isinstance(payload, dict):
            specific["updatedInput"] = {**(payload.get("tool_input") or {}), **specific.get("updatedInput", {})}
        elif a.merge_tool_input and "modifiedArgs" in answer and isinstance(payload, dict):
            # a flat modifiedArgs answer laid over the payload's toolArgs
            args = payload.get("toolArgs")
            answer["modifiedArgs"] = {**(args if isinstance(args, dict) else {}), **answer["modifiedArgs"]}
        print(json.dumps(answer))
    sys.exit(0)
if a.mode == "exit2" and blocking:
    sys.stderr.write(a.reason)
    sys.exit(2)
if a.mode in ("deny", "ask") and blocking and (hook_event == "PreToolUse" or a.permission_decision):
    print(json.dumps({"hookSpecificOutput": {"hookEventName": hook_event, "permissionDecision": a.mode,
                                             "permissionDecisionReason": a.reason}}))
elif a.mode in ("deny", "ask") and blocking:
    # a host reading the shared "decision" field takes an ask there too ({"decision": "ask"})
    print(json.dumps({"decision": a.decision_word if a.mode == "deny" else "ask", "reason": a.reason}))
elif a.mode == "allow-permission" and hook_event == "PermissionRequest":
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                                             "decision": {"behavior": "allow"}}}))
sys.exit(0)
'''


def recorded_prefixes() -> tuple[str, ...]:
    """The variables a record keeps, by prefix: every host's own (its wire's ``RECORDED_ENV``) and pasture's."""
    from pasture.runtime.hostwire.guarded import modules

    words = [getattr(wire, "RECORDED_ENV", None) for wire in modules()]
    return (*(w for w in words if w), "PASTURE")


def install_recorder(folder: str | Path) -> Path:
    """Write the recording hook script into ``folder`` and return its path."""
    path = Path(folder) / "pasture_recorder.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_RECORDER_SOURCE.replace("@PREFIXES@", repr(recorded_prefixes())))
    path.chmod(0o755)
    return path


def recorder_command(
    script: str | Path,
    log: str | Path,
    event: str,
    *,
    mode: str = "observe",
    reason: str = "blocked by pasture recorder",
    python: str | None = None,
    block_event: str = "PreToolUse",
    permission_decision: bool = False,
    answer_file: str | Path | None = None,
    answer_times: int = 1,
    merge_tool_input: bool = False,
    decision_word: str = "block",
) -> str:
    """Shell command line for a command hook that records into ``log``.

    ``mode``: ``observe`` (exit 0, no output), ``exit2`` (on ``block_event``, PreToolUse by default:
    reason on stderr, exit 2), ``deny`` (on PreToolUse: JSON ``permissionDecision: deny``; on any
    other ``block_event``: JSON ``{"decision": <decision_word>, "reason"}`` (Gemini CLI reads "deny"),
    unless ``permission_decision`` says the event reads ``hookSpecificOutput.permissionDecision`` as
    PreToolUse does), ``ask`` (the
    same JSON with ``permissionDecision: ask``, or ``{"decision": "ask", "reason"}`` where ``deny`` prints
    ``{"decision": ...}``), ``allow-permission`` (on
    PermissionRequest: JSON ``decision.behavior: allow``), ``answer`` (print the JSON document in
    ``answer_file`` on the first ``answer_times`` calls of ``event``, counted in the log, then observe;
    the document stays off the command line, which some hosts show the model;
    with ``merge_tool_input`` its ``hookSpecificOutput.updatedInput`` is laid over the payload's
    ``tool_input``, or its flat ``modifiedArgs`` over the payload's ``toolArgs`` (Copilot CLI), so a
    rewrite changes one field and keeps the others). A payload with
    ``stop_hook_active: true`` (a stop an earlier block caused) is never blocked by ``exit2`` /
    ``deny``, so a Stop block refuses exactly once.
    """
    if mode not in RECORDER_MODES:
        raise ValueError(f"mode must be one of {RECORDER_MODES}")
    argv = [python or sys.executable, str(script), "--log", str(log), "--event", event, "--mode", mode]
    if mode == "answer":
        if answer_file is None:
            raise ValueError("mode 'answer' needs the answer file")
        argv += ["--answer-file", str(answer_file), "--answer-times", str(answer_times)]
        if merge_tool_input:
            argv.append("--merge-tool-input")
        return shlex.join(argv)
    argv += ["--reason", reason]
    if block_event != "PreToolUse":
        argv += ["--block-event", block_event]
    if permission_decision:
        argv.append("--permission-decision")
    if decision_word != "block":
        argv += ["--decision-word", decision_word]
    return shlex.join(argv)


def read_records(log: str | Path) -> list[dict[str, Any]]:
    """The JSON lines of a recorder log ([] if it does not exist)."""
    path = Path(log)
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
