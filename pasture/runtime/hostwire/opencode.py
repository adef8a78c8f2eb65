"""OpenCode's answers, read by our own generated plugin (protocol: pasture/hosts/opencode.py): one JSON
decision on stdout; the plugin throws for a fail-fast row, its only refusal channel in 1.x."""

from pasture.runtime.fastjson import dumps

PROCEED_STDOUT = dumps({"decision": "proceed"}) + "\n"
BLOCKING_FAILURES = ("throw-fail-fast",)


def deny(event: str, row, reason: str) -> tuple:
    return (0, dumps({"decision": "deny", "reason": reason}) + "\n", "", "deny")


def ask(event: str, reason: str) -> tuple:
    return (0, dumps({"decision": "ask", "reason": reason}) + "\n", "", "ask")


def _dig(payload: object, *path: str) -> object:
    for key in path:
        if not isinstance(payload, dict):
            return None
        payload = payload.get(key)
    return payload


def tool_of(payload: object) -> tuple:
    name = _dig(payload, "input", "tool")
    # v2 tool hooks carry input.input; v1 tool.execute.before carries output.args, and
    # tool.execute.after carries input.args (captured on OpenCode 1.18.33).
    args = _dig(payload, "input", "input")
    if args is None:
        args = _dig(payload, "output", "args")
    if args is None:
        args = _dig(payload, "input", "args")
    return (name if isinstance(name, str) else None), args
