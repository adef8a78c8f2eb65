"""OpenCode's answers, read by our own generated plugin (protocol: pasture/hosts/opencode.py): one JSON
decision on stdout; the plugin throws for a fail-fast row, its only refusal channel in 1.x."""

from pasture.runtime.fastjson import dumps

PROCEED_STDOUT = dumps({"decision": "proceed"}) + "\n"
BLOCKING_FAILURES = ("throw-fail-fast",)


def deny(event: str, row, reason: str) -> tuple:
    return (0, dumps({"decision": "deny", "reason": reason}) + "\n", "", "deny")


def ask(event: str, reason: str) -> tuple:
    return (0, dumps({"decision": "ask", "reason": reason}) + "\n", "", "ask")


# Steering (issue 17): tool.execute.after carries feedback after a tool; the system transform, in every
# model request, carries the session-start and prompt context (OpenCode has no per-prompt context hook).
MOMENTS = {
    "tool.execute.after": "after-tool",
    "experimental.chat.system.transform": "system",
    # the agent went idle: where an [[until]] would continue it, which 1.x cannot (named, not dropped)
    "session.idle": "stop",
}
STEERS = ("rewrite", "context", "feedback")  # what steer() and the generated plugin carry


def steer(event: str, offers: dict, parts: dict) -> tuple:
    """The plugin's proceed with what it is to write into the hook's output object, in place
    (templates/opencode/_runtime.ts.j2): ``set_args`` (output.args.<field> = value: assigning a new
    output.args is ignored by 1.18.33), ``append_output`` (output.output += text) and ``system``
    (output.system.push(text))."""
    out: dict = {"decision": "proceed"}
    answers = []
    if "rewrite" in parts:
        new_input, reason = parts["rewrite"]
        out["set_args"] = {key: value for key, value in new_input.items() if isinstance(value, str)}
        out["reason"] = reason
        answers.append("rewrite")
    if parts.get("context"):
        out["system"] = list(parts["context"])
        answers.append("context")
    if parts.get("feedback"):
        out["append_output"] = "\n\n".join(parts["feedback"])
        answers.append("feedback")
    return (0, dumps(out) + "\n", "", "+".join(answers) or "proceed")


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
