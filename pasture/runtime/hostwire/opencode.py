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


# --- off-switches (issue 28; plain data: pasture/runtime/hostwire/__init__.py) -------------------------
# opencode-linux-x64 1.18.33 is a Bun-compiled binary. No settings key in a project file that disables or
# filters its .opencode/plugins files was found in it. Bun's standalone executables load
# .env files from the working folder unless built with autoloadDotenv false (Bun's own bundler test
# compile/AutoloadDotenvDefault), and whether OpenCode's build turns that off is not established; the
# generated plugin hands its process.env to the runtime, so the env-file screen reads the files Bun loads.
# Its flags read OPENCODE_DISABLE_PROJECT_CONFIG (`get OPENCODE_DISABLE_PROJECT_CONFIG(){return
# j("OPENCODE_DISABLE_PROJECT_CONFIG")}`), and the config folders are `[Path.config,
# ...!OPENCODE_DISABLE_PROJECT_CONFIG ? up({targets:[".opencode"]}) : []]`: set, no project
# .opencode/plugins loads. A repository can set it only through a .env Bun loads: certain False.
ENV_FILES = (".env", ".env.local", ".env.development", ".env.production", ".env.test")
OFF_SWITCHES = tuple(
    {
        "file": name,
        "key": "OPENCODE_DISABLE_PROJECT_CONFIG",
        "off_when": "env-true",
        "why": "OpenCode loads no project .opencode/ folder, pasture's plugin included, if Bun loads this file",
        "fix": f"remove OPENCODE_DISABLE_PROJECT_CONFIG from {name}",
        "evidence": "opencode-linux-x64 bin/opencode (embedded JS): flag OPENCODE_DISABLE_PROJECT_CONFIG, "
        'config folders up({targets:[".opencode"]})',
        "certain": False,
    }
    for name in ENV_FILES
)
GUARDED_FILES: tuple = ()
GUARDED_FOLDERS = (".opencode/plugins", ".opencode/plugin")
USER_DIR = ("", "config", "opencode")
GUARDED_USER_FILES: tuple = ()
GUARDED_USER_FOLDERS = ("plugins", "plugin")
PROJECT_ADAPTER_ROOT_ONLY = False  # OpenCode finds .opencode/ from the folder up to the worktree
