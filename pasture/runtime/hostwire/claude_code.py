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


def tool_of(payload: object) -> tuple:
    if not isinstance(payload, dict):
        return None, None
    name = payload.get("tool_name")
    return (name if isinstance(name, str) else None), payload.get("tool_input")
