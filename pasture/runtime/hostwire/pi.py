"""Pi's answers, read by our own generated extension (protocol: pasture/hosts/pi.py, the plugin side shared
with OpenCode's, templates/opencode/_runtime.ts.j2): one JSON decision on stdout; the extension throws
from a fail-fast row, which Pi turns into a blocked tool call whose result is the message."""

from pasture.runtime.fastjson import dumps

PROCEED_STDOUT = dumps({"decision": "proceed"}) + "\n"
BLOCKING_FAILURES = ("throw-fail-fast",)


def deny(event: str, row, reason: str) -> tuple:
    return (0, dumps({"decision": "deny", "reason": reason}) + "\n", "", "deny")


def ask(event: str, reason: str) -> tuple:
    return (0, dumps({"decision": "ask", "reason": reason}) + "\n", "", "ask")


def tool_of(payload: object) -> tuple:
    """The extension hands the runtime Pi's event object as it is: tool_call and tool_result carry
    ``toolName`` and ``input``, the tool_execution_* events ``toolName`` and ``args``."""
    if not isinstance(payload, dict):
        return None, None
    name = payload.get("toolName")
    args = payload.get("input")
    if args is None:
        args = payload.get("args")
    return (name if isinstance(name, str) else None), args
