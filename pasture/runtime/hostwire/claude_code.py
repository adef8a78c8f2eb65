"""Claude Code's answers: exit 2 + stderr, or the event's JSON decision (the PreToolUse permission decision,
``decision: block`` on the events that read it)."""

from pasture.runtime.fastjson import dumps

PROCEED_STDOUT = ""
BLOCKING_FAILURES = ("exit-2-blocks", "strict-output-exit-2-blocks")
EXIT_BLOCK = 2  # Claude and Codex read exit 2 as "block" where the event honours it

BLOCK_JSON = {
    "UserPromptSubmit",
    "Stop",
    "SubagentStop",
    "PostToolUse",
    "PostToolBatch",
    "ConfigChange",
    "PreCompact",
    "TaskCreated",
    "TaskCompleted",
    "TeammateIdle",
}


def _json(value: object) -> str:
    return dumps(value) + "\n"


def command_deny(event: str, row, reason: str, block_json) -> tuple:
    """The command-JSON hosts' deny (Claude Code; Codex with its own ``block_json``)."""
    if event == "PreToolUse" and row.response in ("deny", "deny+ask"):
        return (
            0,
            _json(
                {
                    "hookSpecificOutput": {
                        "hookEventName": "PreToolUse",
                        "permissionDecision": "deny",
                        "permissionDecisionReason": reason,
                    }
                }
            ),
            "",
            "deny",
        )
    if event in block_json:
        return (0, _json({"decision": "block", "reason": reason}), "", "deny")
    return (EXIT_BLOCK, "", reason + "\n", "deny")


def deny(event: str, row, reason: str) -> tuple:
    return command_deny(event, row, reason, BLOCK_JSON)


def ask(event: str, reason: str) -> tuple:
    return (
        0,
        _json(
            {
                "hookSpecificOutput": {
                    "hookEventName": event,
                    "permissionDecision": "ask",
                    "permissionDecisionReason": reason,
                }
            }
        ),
        "",
        "ask",
    )


# Steering (issue 17): the moment each event is, for [[context]] (on), [[after]] and [[until]].
MOMENTS = {
    "SessionStart": "session-start",
    "UserPromptSubmit": "prompt",
    "PostToolUse": "after-tool",
    "Stop": "stop",
}
STEERS = ("allow", "rewrite", "context", "feedback", "continue")  # what steer() encodes
BEHAVIOR_ALLOW = "hookSpecificOutput.decision.behavior=allow"  # pasture.profile.answers.W_BEHAVIOR_ALLOW


def steer(event: str, offers: dict, parts: dict) -> tuple:
    """One answer carrying the parts the row offers (the caller degraded the rest): an allow or a
    rewrite (updatedInput + permissionDecision allow), additionalContext, and decision block + reason
    for feedback after a tool or a continuation at stop. Shapes as the captures sent them."""
    specific: dict = {"hookEventName": event}
    out: dict = {}
    answers = []
    if "rewrite" in parts:
        new_input, reason = parts["rewrite"]
        specific.update(permissionDecision="allow", permissionDecisionReason=reason, updatedInput=new_input)
        answers.append("rewrite")
    elif "allow" in parts:
        if offers.get("allow") == BEHAVIOR_ALLOW:
            specific["decision"] = {"behavior": "allow"}
        else:
            specific.update(permissionDecision="allow", permissionDecisionReason=parts["allow"])
        answers.append("allow")
    if parts.get("context"):
        specific["additionalContext"] = "\n\n".join(parts["context"])
        answers.append("context")
    texts = list(parts.get("feedback") or ())
    if texts:
        answers.append("feedback")
    if parts.get("continue"):
        texts.append(parts["continue"])
        answers.append("continue")
    if texts:
        out.update(decision="block", reason="\n\n".join(texts))
    if len(specific) > 1:
        out["hookSpecificOutput"] = specific
    return (0, _json(out) if out else PROCEED_STDOUT, "", "+".join(answers) or "proceed")


def fail_json(event: str, row, text: str):
    """A failure that blocks, as the JSON refusal the event reads (the PreToolUse permission decision,
    ``decision: block``), or None where only exit 2 blocks."""
    if event == "PreToolUse" and row.response in ("deny", "deny+ask"):
        return command_deny(event, row, text, BLOCK_JSON)[1]
    if event in BLOCK_JSON:
        return _json({"decision": "block", "reason": text})
    return None


def tool_of(payload: object) -> tuple:
    if not isinstance(payload, dict):
        return None, None
    name = payload.get("tool_name")
    return (name if isinstance(name, str) else None), payload.get("tool_input")


# --- off-switches (issue 28; plain data: pasture/runtime/hostwire/__init__.py) -------------------------
# Read in @anthropic-ai/claude-code 2.1.332, bin/claude.exe (the Bun-compiled CLI; its embedded JS,
# minified): `function Ke(e){return e.disableAllHooks===!0||e.allowManagedHooksOnly===!0}` over every
# settings source, and the settings schema's `disableAllHooks`; `CLAUDE_CODE_SHELL_PREFIX` is in its
# environment table (`CLAUDE_CODE_SHELL_PREFIX:()=>OI`) and wraps every Bash command ("it would run
# through your CLAUDE_CODE_SHELL_PREFIX"); a project's settings `env` block sets it like any variable.
_EVIDENCE = "@anthropic-ai/claude-code bin/claude.exe (embedded cli JS)"
OFF_SWITCHES = tuple(
    entry
    for name in (".claude/settings.json", ".claude/settings.local.json")
    for entry in (
        {
            "file": name,
            "key": "disableAllHooks",
            "off_when": "true",
            "why": "Claude Code runs no hook (user or project) while any settings file sets it",
            "fix": f'remove "disableAllHooks" from {name}',
            "evidence": _EVIDENCE + ": settings key disableAllHooks, `Ke(e)` (disableAllHooks===!0)",
            "certain": True,
            "also": "adapter",  # doctor's adapter check reads it in the file our hooks are in
        },
        {
            "file": name,
            "key": "env.CLAUDE_CODE_SHELL_PREFIX",
            "off_when": "set",
            "why": "Claude Code runs that program in front of every Bash command the guard approved",
            "fix": f'remove CLAUDE_CODE_SHELL_PREFIX from the "env" block of {name}',
            "evidence": _EVIDENCE + ": environment table CLAUDE_CODE_SHELL_PREFIX",
            "certain": True,
        },
    )
)
# Claude Code's env channel is the settings files' "env" block (pasture.runtime.injected), not a dotenv file.
ENV_FILES: tuple = ()
ENV_BLOCK_FILES = (".claude/settings.json", ".claude/settings.local.json")
GUARDED_FILES = ENV_BLOCK_FILES
GUARDED_FOLDERS: tuple = ()
USER_DIR = ("CLAUDE_CONFIG_DIR", "home", ".claude")
GUARDED_USER_FILES = ("settings.json", "settings.local.json")
GUARDED_USER_FOLDERS: tuple = ()
# <dir>/.claude/settings.json is read only for the folder Claude Code starts in: its own doctor check says so.
PROJECT_ADAPTER_ROOT_ONLY = "claude-start"
