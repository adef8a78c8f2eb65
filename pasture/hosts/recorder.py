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
from typing import Any, Sequence

__all__ = [
    "OPENCODE_RECORDED_HOOKS",
    "pi_recorder_extension",
    "RECORDER_MODES",
    "install_recorder",
    "opencode_recorder_plugin",
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
prefixes = ("CLAUDE", "CODEX", "OPENCODE", "PASTURE", "GEMINI", "COPILOT")
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
            # Copilot CLI: flat modifiedArgs laid over the payload's toolArgs
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
elif a.mode == "deny" and blocking:
    print(json.dumps({"decision": a.decision_word, "reason": a.reason}))
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
    same JSON with ``permissionDecision: ask``), ``allow-permission`` (on
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


#: The named hooks the OpenCode recording plugin registers unless told otherwise.
OPENCODE_RECORDED_HOOKS = (
    "event",
    "config",
    "chat.message",
    "chat.params",
    "chat.headers",
    "permission.ask",
    "command.execute.before",
    "tool.execute.before",
    "tool.execute.after",
    "shell.env",
    "experimental.chat.system.transform",
)


#: How the recording plugin can answer (see :func:`opencode_recorder_plugin`).
OPENCODE_ANSWER_OPS = ("set-arg", "replace-args", "append-output", "push-system", "set-status")


def opencode_recorder_plugin(
    log: str | Path,
    *,
    block_tool: str | None = None,
    reason: str = "blocked by pasture recorder",
    export_name: str = "PastureRecorder",
    hooks: Sequence[str] | None = None,
    discover: bool = False,
    answers: dict[str, dict[str, Any]] | None = None,
) -> str:
    """JavaScript source of a local OpenCode plugin that records every hook call into ``log``.

    It imports only ``node:fs`` (nothing from ``@opencode-ai/plugin``) and exports exactly one
    plugin function. With ``block_tool`` it throws ``reason`` from ``tool.execute.before`` for that
    tool. ``hooks`` names the hooks it registers (default :data:`OPENCODE_RECORDED_HOOKS`). With
    ``discover`` the plugin's hooks object is a Proxy: every property the host looks up is recorded
    as ``{"hook": "plugin.lookup", "name"}``, and ``event``, ``config``, every name in ``hooks`` and
    every dotted name the host asks for (OpenCode's hook names are dotted) get a recording hook, so
    hooks missing from ``hooks`` show up too.

    ``answers`` makes hooks answer by mutating their ``output`` after recording it, once per call:
    ``{hook: {"op": OP, "value": V, "tool"?: name, "field"?: name}}`` with OP one of
    :data:`OPENCODE_ANSWER_OPS` (``set-arg``: ``output.args[field] = V`` in place; ``replace-args``:
    ``output.args = V``, a new object; ``append-output``: ``output.output += V``; ``push-system``:
    ``output.system.push(V)``; ``set-status``: ``output.status = V``); ``tool`` limits a tool hook
    to that tool.
    """
    for hook_name, spec in (answers or {}).items():
        if spec.get("op") not in OPENCODE_ANSWER_OPS:
            raise ValueError(f"{hook_name}: op must be one of {OPENCODE_ANSWER_OPS}")
    names = list(OPENCODE_RECORDED_HOOKS if hooks is None else hooks)
    if not discover:
        body = f"""  const hooks = {{}}
  for (const name of {json.dumps(names)}) {{
    hooks[name] = hook(name)
  }}
  return hooks"""
    else:
        body = f"""  const known = new Set({json.dumps(names)})
  const made = {{}}
  return new Proxy({{}}, {{
    get(_target, name) {{
      if (typeof name !== "string") return undefined
      record("plugin.lookup", {{ name }}, null)
      if (name === "then") return undefined
      if (!(known.has(name) || name === "event" || name === "config" || name.includes("."))) return undefined
      if (!made[name]) made[name] = hook(name)
      return made[name]
    }},
  }})"""
    return f"""// pasture hostenv recording plugin (generated)
import {{ appendFileSync }} from "node:fs"

const LOG = {json.dumps(str(log))}
const BLOCK_TOOL = {json.dumps(block_tool)}
const REASON = {json.dumps(reason)}
const ANSWERS = {json.dumps(answers or {}, sort_keys=True)}

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

function hook(name) {{
  return async (input, output) => {{
    record(name, input, output)
    if (name === "tool.execute.before" && BLOCK_TOOL !== null && input && input.tool === BLOCK_TOOL) {{
      throw new Error(REASON)
    }}
    const answer = ANSWERS[name]
    if (answer && output && !(answer.tool && (!input || input.tool !== answer.tool))) {{
      if (answer.op === "set-arg") output.args[answer.field] = answer.value
      else if (answer.op === "replace-args") output.args = answer.value
      else if (answer.op === "append-output") output.output = String(output.output ?? "") + answer.value
      else if (answer.op === "push-system") output.system.push(answer.value)
      else if (answer.op === "set-status") output.status = answer.value
    }}
  }}
}}

export const {export_name} = async (ctx) => {{
  record("plugin.init", {{ keys: Object.keys(ctx), directory: ctx.directory, worktree: ctx.worktree,
                          project: ctx.project }}, null)
{body}
}}
"""


#: How the Pi recording extension can answer (see :func:`pi_recorder_extension`).
PI_ANSWER_OPS = ("append-system-prompt", "return-content")


def pi_recorder_extension(
    log: str | Path,
    events: Sequence[str],
    *,
    refuse: str | None = None,
    tool: str = "bash",
    reason: str = "blocked by pasture recorder",
    answers: dict[str, dict[str, Any]] | None = None,
) -> str:
    """TypeScript source of a Pi project extension (``.pi/extensions/*.ts``) that subscribes to every
    event of ``events`` (``pi.on(name, handler)``) and records each as ``{"hook": name, "input": event}``
    into ``log``. ``refuse``: ``"throw"`` throws ``new Error(reason)`` from ``tool_call`` of ``tool``;
    ``"block"`` returns ``{block: true, reason}`` there. ``answers``: ``{event: {"op": OP, "value": V}}``
    with OP one of :data:`PI_ANSWER_OPS`, once per event (``append-system-prompt``: before_agent_start
    returns ``{systemPrompt: event.systemPrompt + "\\n" + V}``; ``return-content``: tool_result returns
    ``{content: [{type: "text", text: V}]}``). It imports only ``node:fs``. Every string reaches the source
    through :func:`pasture.render.encode.js_literal`."""
    from pasture.render.encode import js_literal

    if refuse not in (None, "throw", "block"):
        raise ValueError("refuse must be None, 'throw' or 'block'")
    for event, spec in (answers or {}).items():
        if spec.get("op") not in PI_ANSWER_OPS:
            raise ValueError(f"{event}: op must be one of {PI_ANSWER_OPS}")
    return f"""// pasture capture: Pi recording extension (generated; records every subscribed event)
import {{ appendFileSync }} from "node:fs"
const LOG = {js_literal(str(log))}
const EVENTS: string[] = {js_literal(list(events))}
const REFUSE = {js_literal(refuse or "")}
const TOOL = {js_literal(tool)}
const REASON = {js_literal(reason)}
const ANSWERS: Record<string, {{ op: string; value: string }}> = {js_literal(answers or {})}
const answered = new Set<string>()
function safe(value: unknown): unknown {{
  try {{ return JSON.parse(JSON.stringify(value, (_k, v) => (typeof v === "bigint" ? String(v) : v))) }}
  catch (err) {{ return {{ unserializable: String(err) }} }}
}}
export default function (pi: any) {{
  for (const name of EVENTS) {{
    pi.on(name, async (event: any) => {{
      appendFileSync(LOG, JSON.stringify({{ hook: name, input: safe(event) }}) + "\\n")
      if (name === "tool_call" && event && event.toolName === TOOL) {{
        if (REFUSE === "throw") throw new Error(REASON)
        if (REFUSE === "block") return {{ block: true, reason: REASON }}
      }}
      const answer = Object.prototype.hasOwnProperty.call(ANSWERS, name) ? ANSWERS[name] : undefined
      if (answer !== undefined && !answered.has(name)) {{
        answered.add(name)
        if (answer.op === "append-system-prompt") {{
          return {{ systemPrompt: String(event.systemPrompt) + "\\n" + answer.value }}
        }}
        if (answer.op === "return-content") return {{ content: [{{ type: "text", text: answer.value }}] }}
      }}
      return undefined
    }})
  }}
}}
"""


def read_records(log: str | Path) -> list[dict[str, Any]]:
    """The JSON lines of a recorder log ([] if it does not exist)."""
    path = Path(log)
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
