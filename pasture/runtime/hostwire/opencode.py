"""OpenCode's answers, read by our own generated plugin (protocol: pasture/hosts/opencode.py): one JSON
decision on stdout; the plugin throws for a fail-fast row, its only refusal channel in 1.x."""

from pasture.runtime.fastjson import dumps

PROCEED_STDOUT = dumps({"decision": "proceed"}) + "\n"
BLOCKING_FAILURES = ("throw-fail-fast",)


def deny(event: str, row: "Any", reason: str) -> tuple:
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


# the event it consults the guard on before a tool runs (the one shell calls reach; `pasture policy check`)
TOOL_EVENT = "tool.execute.before"

# OpenCode's tools (tool.execute.before's tool), by kind: the envelope's
# tool_kind (pasture.runtime.envelope). A tool missing here arrives as its own name in lower case, which
# no `tool_kind = "shell"` (or other kind) rule matches.
TOOL_KINDS = {
    "bash": "shell",
    "write": "write",
    "edit": "edit",
    "apply_patch": "edit",
    "patch": "edit",
    "read": "read",
    "webfetch": "fetch",
    "fetch": "fetch",
    "task": "agent",
}


# --- the agent gate's judge (a policy's kind = "agent" host): this host run headless; only a gate that
# runs it imports pasture.gates (pasture.runtime.agentgate hands it to pasture.gates.agent) ---
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from pasture.gates.agents import HostOutput, HostRequest, HostRun

# its headless command line, which the capture launcher (pasture/hosts/opencode.py) runs too
HEADLESS = ("run", "--format", "json")


class Judge:
    """``opencode run --format json``; JSONL events with text parts and per-step cost."""

    name = "opencode"
    aliases: tuple[str, ...] = ("opencode", "open-code", "opencode-ai")
    install = "npm install -g opencode-ai"  # how a user gets it (the package tests/npm pins)
    default_binary = "opencode"

    def command(self, req: "HostRequest") -> "HostRun":
        from pasture.gates.agents import HostRun

        argv = [req.binary, *HEADLESS]
        if req.model:
            argv += ["-m", req.model]
        if req.server:
            argv += ["--attach", req.server, "--dir", req.cwd]
        if req.bypass_permissions:
            argv.append("--auto")
        argv += list(req.extra_args)
        return HostRun(argv=argv, stdin=req.prompt.encode("utf-8"))

    def read_output(self, stdout: str, stderr: str, returncode: int, run: "HostRun") -> "HostOutput":
        from pasture.gates.agents import HostOutput, exit_failure, json_lines, number

        text: str | None = None
        error: str | None = None
        cost = 0.0
        saw_cost = False
        steps = 0
        for event in json_lines(stdout):
            kind = event.get("type")
            part = found if isinstance(found := event.get("part"), dict) else {}
            if kind == "text" and isinstance(part.get("text"), str):
                text = part["text"]
            elif kind == "step_finish":
                steps += 1
                step_cost = number(part.get("cost"))
                if step_cost is not None:
                    cost += step_cost
                    saw_cost = True
            elif kind == "error":
                detail = event.get("error")
                if isinstance(detail, dict):
                    data = found if isinstance(found := detail.get("data"), dict) else {}
                    error = str(data.get("message") or detail.get("message") or detail.get("name") or detail)
                else:
                    error = str(detail or "error")
        is_error = error is not None or returncode != 0
        return HostOutput(
            final_text=text,
            is_error=is_error,
            error_message=(error or exit_failure(returncode, stderr)) if is_error else None,
            cost_usd=cost if saw_cost else None,
            num_turns=steps,
        )


AGENT_JUDGE = Judge()

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
# what the guard's cheap screen looks for in a shell command before reading it (pasture.runtime.builtin)
SCREEN_WORDS = ("opencode",)
USER_DIR = ("", "config", "opencode")
ENV_PREFIX = "OPENCODE_"  # its own variables (OPENCODE_CONFIG, its judge's server): no project sets them
GUARDED_USER_FILES: tuple = ()
GUARDED_USER_FOLDERS = ("plugins", "plugin")
# no managed (administrator) channel
GUARDED_SYSTEM_FILES: tuple = ()
GUARDED_SYSTEM_FOLDERS: tuple = ()
PROJECT_ADAPTER_ROOT_ONLY = False  # OpenCode finds .opencode/ from the folder up to the worktree

# the word its own variables start with: a capture's recording hook keeps them (pasture/hosts/recorder.py)
RECORDED_ENV = "OPENCODE"
