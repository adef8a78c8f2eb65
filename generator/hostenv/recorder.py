"""Recording hooks: capture what a real host hands its hooks.

* :func:`recorder_command` gives a command-hook command line (Claude Code, Codex) that appends
  ``{"event", "payload", "env", "cwd", "argv"}`` as one JSON line to a log (``env``: the
  ``CLAUDE*``/``CODEX*``/``OPENCODE*`` variables, values of token/key-like names redacted), then observes, blocks
  with exit 2, denies with JSON, or allows a permission request.
* :func:`opencode_recorder_plugin` gives the source of a local OpenCode plugin
  (``.opencode/plugins/<name>.js``) that appends ``{"hook", "input", "output"}`` per hook call and
  can throw from ``tool.execute.before`` to block a tool.
* :func:`read_records` reads either log back.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

__all__ = ["RECORDER_MODES", "install_recorder", "opencode_recorder_plugin", "read_records", "recorder_command"]

RECORDER_MODES = ("observe", "exit2", "deny", "allow-permission")

_RECORDER_SOURCE = r'''#!/usr/bin/env python3
"""pasture hostenv recording hook (generated; stdlib only)."""
import argparse, fcntl, json, os, sys

p = argparse.ArgumentParser()
p.add_argument("--log", required=True)
p.add_argument("--event", required=True)
p.add_argument("--mode", default="observe")
p.add_argument("--reason", default="blocked by pasture recorder")
a = p.parse_args()
raw = sys.stdin.read()
try:
    payload = json.loads(raw)
except ValueError:
    payload = {"_raw": raw}
prefixes = ("CLAUDE", "CODEX", "OPENCODE", "PASTURE")
secret = ("TOKEN", "KEY", "SECRET", "PASSWORD", "AUTH")
record = {
    "event": a.event,
    "payload": payload,
    "env": {k: ("<redacted>" if any(s in k.upper() for s in secret) else v)
            for k, v in sorted(os.environ.items()) if k.startswith(prefixes)},
    "cwd": os.getcwd(),
    "argv": sys.argv[1:],
}
with open(a.log, "a", encoding="utf-8") as fh:
    fcntl.flock(fh, fcntl.LOCK_EX)
    fh.write(json.dumps(record) + "\n")
hook_event = payload.get("hook_event_name", a.event) if isinstance(payload, dict) else a.event
if a.mode == "exit2" and hook_event == "PreToolUse":
    sys.stderr.write(a.reason)
    sys.exit(2)
if a.mode == "deny" and hook_event == "PreToolUse":
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
                                             "permissionDecisionReason": a.reason}}))
elif a.mode == "allow-permission" and hook_event == "PermissionRequest":
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PermissionRequest",
                                             "decision": {"behavior": "allow"}}}))
sys.exit(0)
'''


def install_recorder(folder: str | Path) -> Path:
    """Write the recording hook script into ``folder`` and return its path."""
    path = Path(folder) / "pasture_recorder.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_RECORDER_SOURCE)
    path.chmod(0o755)
    return path


def recorder_command(script: str | Path, log: str | Path, event: str, *, mode: str = "observe",
                     reason: str = "blocked by pasture recorder", python: str | None = None) -> str:
    """Shell command line for a command hook that records into ``log``.

    ``mode``: ``observe`` (exit 0, no output), ``exit2`` (on PreToolUse: reason on stderr, exit 2),
    ``deny`` (on PreToolUse: JSON ``permissionDecision: deny``), ``allow-permission`` (on
    PermissionRequest: JSON ``decision.behavior: allow``).
    """
    if mode not in RECORDER_MODES:
        raise ValueError(f"mode must be one of {RECORDER_MODES}")
    argv = [python or sys.executable, str(script), "--log", str(log), "--event", event, "--mode", mode,
            "--reason", reason]
    return shlex.join(argv)


def opencode_recorder_plugin(log: str | Path, *, block_tool: str | None = None,
                             reason: str = "blocked by pasture recorder", export_name: str = "PastureRecorder") -> str:
    """JavaScript source of a local OpenCode plugin that records every hook call into ``log``.

    It imports only ``node:fs`` (nothing from ``@opencode-ai/plugin``) and exports exactly one
    plugin function. With ``block_tool`` it throws ``reason`` from ``tool.execute.before`` for that
    tool.
    """
    hooks = ["event", "config", "chat.message", "chat.params", "chat.headers", "permission.ask",
             "command.execute.before", "tool.execute.before", "tool.execute.after", "shell.env",
             "experimental.chat.system.transform"]
    return f"""// pasture hostenv recording plugin (generated)
import {{ appendFileSync }} from "node:fs"

const LOG = {json.dumps(str(log))}
const BLOCK_TOOL = {json.dumps(block_tool)}
const REASON = {json.dumps(reason)}

function safe(value) {{
  const seen = new WeakSet()
  return JSON.parse(JSON.stringify(value, (key, v) => {{
    if (typeof v === "function") return undefined
    if (typeof v === "bigint") return String(v)
    if (v && typeof v === "object") {{
      if (seen.has(v)) return "[circular]"
      seen.add(v)
    }}
    return v
  }}) ?? "null")
}}

function record(hook, input, output) {{
  let line
  try {{
    line = JSON.stringify({{ hook, time: Date.now(), input: safe(input), output: safe(output) }})
  }} catch (err) {{
    line = JSON.stringify({{ hook, time: Date.now(), error: String(err) }})
  }}
  appendFileSync(LOG, line + "\\n")
}}

export const {export_name} = async (ctx) => {{
  record("plugin.init", {{ keys: Object.keys(ctx), directory: ctx.directory, worktree: ctx.worktree,
                          project: ctx.project }}, null)
  const hooks = {{}}
  for (const name of {json.dumps(hooks)}) {{
    hooks[name] = async (input, output) => {{
      record(name, input, output)
      if (name === "tool.execute.before" && BLOCK_TOOL !== null && input && input.tool === BLOCK_TOOL) {{
        throw new Error(REASON)
      }}
    }}
  }}
  return hooks
}}
"""


def read_records(log: str | Path) -> list[dict[str, Any]]:
    """The JSON lines of a recorder log ([] if it does not exist)."""
    path = Path(log)
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
