"""Gemini CLI's answers (build-time half: pasture/hosts/gemini_cli.py).

Both refusal channels reach the model on 0.61.0 (docs/new-hosts.md): exit 0 with
``{"decision": "deny", "reason": ...}`` and exit 2 with the reason on stderr each make the model read
``Tool execution blocked: <reason>`` on BeforeTool. The JSON decision is read by every event's output
class (``DefaultHookOutput.isBlockingDecision`` in the bundle); exit 2 is the documented "System Block"
of every event that can block, so a row without a cited JSON channel answers by exit 2.
"""

from pasture.runtime.fastjson import dumps

PROCEED_STDOUT = ""
BLOCKING_FAILURES = ("exit-2-blocks",)
EXIT_BLOCK = 2


def deny(event: str, row, reason: str) -> tuple:
    if row is not None and getattr(row, "response", None) in ("deny", "deny+ask"):
        return (0, dumps({"decision": "deny", "reason": reason}) + "\n", "", "deny")
    return (EXIT_BLOCK, "", reason + "\n", "deny")


def ask(event: str, reason: str) -> tuple:
    # BeforeTool's "ask" forces the host's own confirmation prompt; the reason goes to the user.
    return (0, dumps({"decision": "ask", "reason": reason, "systemMessage": reason}) + "\n", "", "ask")


def tool_of(payload: object) -> tuple:
    if not isinstance(payload, dict):
        return None, None
    name = payload.get("tool_name")
    return (name if isinstance(name, str) else None), payload.get("tool_input")
