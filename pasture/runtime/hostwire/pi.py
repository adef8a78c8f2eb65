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


# Steering (issue 17). before_agent_start, before every prompt's agent run, carries the system prompt:
# both the session-start and the prompt context go into it (as OpenCode's system transform); tool_result
# carries feedback after a tool. Pi has no stop that can continue and asks no permission.
MOMENTS = {
    "before_agent_start": "system",
    "tool_result": "after-tool",
    "agent_end": "stop",  # where an [[until]] would continue, which Pi cannot (named, not dropped)
}
STEERS = ("context", "feedback")  # what steer() and the generated extension carry


def steer(event: str, offers: dict, parts: dict) -> tuple:
    """The extension's proceed with what its handler is to return (templates/pi/extension.ts.j2), as
    the captures of 0.73.1 show Pi honour it: ``system`` (before_agent_start returns
    ``{systemPrompt: event.systemPrompt + "\\n" + text}``) and ``append_output`` (tool_result returns
    ``{content: [...event.content, {type: "text", text}]}``)."""
    out: dict = {"decision": "proceed"}
    answers = []
    if parts.get("context"):
        out["system"] = list(parts["context"])
        answers.append("context")
    if parts.get("feedback"):
        out["append_output"] = "\n\n".join(parts["feedback"])
        answers.append("feedback")
    return (0, dumps(out) + "\n", "", "+".join(answers) or "proceed")
