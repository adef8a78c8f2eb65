"""Codex CLI's answers: Claude's command JSON, fewer ``decision: block`` events, and a PermissionRequest
decision of its own."""

from pasture.runtime.hostwire.claude_code import (
    BLOCKING_FAILURES,
    MOMENTS,
    PROCEED_STDOUT,
    STEERS,
    _json,
    ask,
    command_deny,
    steer,
    tool_of,
)

__all__ = ["BLOCKING_FAILURES", "MOMENTS", "PROCEED_STDOUT", "STEERS", "ask", "deny", "steer", "tool_of"]

BLOCK_JSON = {"UserPromptSubmit", "Stop", "SubagentStop", "PostToolUse"}


def deny(event: str, row, reason: str) -> tuple:
    if event == "PermissionRequest" and row.response in ("deny", "deny+ask"):
        return (
            0,
            _json(
                {
                    "hookSpecificOutput": {
                        "hookEventName": "PermissionRequest",
                        "decision": {"behavior": "deny", "message": reason},
                    }
                }
            ),
            "",
            "deny",
        )
    return command_deny(event, row, reason, BLOCK_JSON)
