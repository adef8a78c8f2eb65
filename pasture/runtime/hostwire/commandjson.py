"""What the command-JSON hosts share on the hook path (Claude Code's wire and Codex's, which differ in which
events read ``decision: block`` and in Codex's PermissionRequest decision): exit 2 + stderr, or the event's
JSON decision (the PreToolUse permission decision, ``decision: block`` on the events that read it), the
steering answer, and where the payload carries the tool."""

from pasture.runtime.fastjson import dumps

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the hook path pays for every import
if TYPE_CHECKING:
    from typing import Any


PROCEED_STDOUT = ""
BLOCKING_FAILURES = ("exit-2-blocks", "strict-output-exit-2-blocks")
EXIT_BLOCK = 2  # exit 2 is "block" where the event honours it


def _json(value: object) -> str:
    return dumps(value) + "\n"


def command_deny(event: str, row: "Any", reason: str, block_json: "Any") -> tuple:
    """The deny of a command-JSON host whose ``decision: block`` events are ``block_json``."""
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


def tool_of(payload: object) -> tuple:
    if not isinstance(payload, dict):
        return None, None
    name = payload.get("tool_name")
    return (name if isinstance(name, str) else None), payload.get("tool_input")
