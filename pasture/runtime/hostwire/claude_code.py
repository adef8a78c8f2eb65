"""Claude Code's answers: exit 2 + stderr, or the event's JSON decision (the PreToolUse permission decision,
``decision: block`` on the events that read it)."""

from pasture.runtime.hostwire.commandjson import (
    BEHAVIOR_ALLOW,
    BLOCKING_FAILURES,
    EXIT_BLOCK,
    MOMENTS,
    PROCEED_STDOUT,
    STEERS,
    _json,
    ask,
    command_deny,
    steer,
    tool_of,
)

__all__ = [
    "BEHAVIOR_ALLOW",
    "BLOCKING_FAILURES",
    "EXIT_BLOCK",
    "MOMENTS",
    "PROCEED_STDOUT",
    "STEERS",
    "ask",
    "deny",
    "fail_json",
    "steer",
    "tool_of",
]

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


def deny(event: str, row: "Any", reason: str) -> tuple:
    return command_deny(event, row, reason, BLOCK_JSON)


def fail_json(event: str, row: "Any", text: str) -> "str | None":
    """A failure that blocks, as the JSON refusal the event reads (the PreToolUse permission decision,
    ``decision: block``), or None where only exit 2 blocks."""
    if event == "PreToolUse" and row.response in ("deny", "deny+ask"):
        return command_deny(event, row, text, BLOCK_JSON)[1]
    if event in BLOCK_JSON:
        return _json({"decision": "block", "reason": text})
    return None


# the event it consults the guard on before a tool runs (the one shell calls reach; `pasture policy check`)
TOOL_EVENT = "PreToolUse"

# Claude Code's tools (PreToolUse tool_name), by kind: the envelope's
# tool_kind (pasture.runtime.envelope). A tool missing here arrives as its own name in lower case, which
# no `tool_kind = "shell"` (or other kind) rule matches.
TOOL_KINDS = {
    "bash": "shell",
    "powershell": "shell",
    "write": "write",
    "edit": "edit",
    "multiedit": "edit",
    "notebookedit": "edit",
    "read": "read",
    "webfetch": "fetch",
    "agent": "agent",
    "task": "agent",
}


# --- the agent gate's judge (a policy's kind = "agent" host): this host run headless; only a gate that
# runs it imports pasture.gates (pasture.runtime.agentgate hands it to pasture.gates.agent) ---
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from pasture.gates.agents import HostOutput, HostRequest, HostRun

# its headless command line, which the capture launcher (pasture/hosts/claude_code.py) runs too
HEADLESS = "-p"
BYPASS = "--dangerously-skip-permissions"  # plus IS_SANDBOX=1 as root, which it refuses otherwise


class Judge:
    """``claude -p --output-format json``; the result object carries text, cost and turns."""

    name = "claude-code"
    aliases: tuple[str, ...] = ("claude-code", "claude", "claude_code", "claudecode")
    install = "npm install -g @anthropic-ai/claude-code"  # how a user gets it (the package tests/npm pins)
    default_binary = "claude"

    def command(self, req: "HostRequest") -> "HostRun":
        import os  # only when a judge runs: the hook path never loads os

        from pasture.gates.agents import HostRun

        argv = [req.binary, HEADLESS, "--output-format", "json"]
        if req.model:
            argv += ["--model", req.model]
        if req.max_turns:
            argv += ["--max-turns", str(req.max_turns)]
        if req.max_budget_usd is not None:
            argv += ["--max-budget-usd", repr(float(req.max_budget_usd))]
        if req.project_dir:
            argv += ["--add-dir", req.project_dir]
        env: dict[str, str] = {}
        if req.bypass_permissions:
            argv.append(BYPASS)
            if hasattr(os, "geteuid") and os.geteuid() == 0:
                env["IS_SANDBOX"] = "1"
        else:
            argv += ["--permission-mode", "acceptEdits"]
        argv += list(req.extra_args)
        return HostRun(argv=argv, env=env, stdin=req.prompt.encode("utf-8"))

    def read_output(self, stdout: str, stderr: str, returncode: int, run: "HostRun") -> "HostOutput":
        import json

        from pasture.gates.agents import HostOutput, exit_failure, json_lines, number

        result: dict[str, Any] | None = None
        for event in json_lines(stdout):
            if event.get("type") == "result" or "is_error" in event:
                result = event
        if result is None:
            try:
                parsed = json.loads(stdout)
                result = parsed if isinstance(parsed, dict) else None
            except ValueError:
                result = None
        if result is None:
            return HostOutput(
                final_text=stdout.strip() or None,
                is_error=True,
                error_message=exit_failure(returncode, stderr) if returncode else "no result object on stdout",
            )
        text = result.get("result") if isinstance(result.get("result"), str) else None
        is_error = bool(result.get("is_error")) or returncode != 0
        message = None
        if is_error:
            message = text or str(result.get("subtype") or "") or exit_failure(returncode, stderr)
        turns = result.get("num_turns")
        return HostOutput(
            final_text=text,
            is_error=is_error,
            error_message=message,
            cost_usd=number(result.get("total_cost_usd")),
            num_turns=turns if isinstance(turns, int) else None,
        )


AGENT_JUDGE = Judge()

# --- off-switches (issue 28; plain data: pasture/runtime/hostwire/__init__.py) -------------------------
# Read in @anthropic-ai/claude-code 2.1.332, bin/claude.exe (the Bun-compiled CLI; its embedded JS,
# minified): `function Ke(e){return e.disableAllHooks===!0||e.allowManagedHooksOnly===!0}` over every
# settings source, and the settings schema's `disableAllHooks`; `CLAUDE_CODE_SHELL_PREFIX` is in its
# environment table (`CLAUDE_CODE_SHELL_PREFIX:()=>OI`) and wraps every Bash command ("it would run
# through your CLAUDE_CODE_SHELL_PREFIX"); a project's settings `env` block sets it like any variable.
_EVIDENCE = "@anthropic-ai/claude-code bin/claude.exe (embedded cli JS)"
OFF_SWITCHES = tuple(
    entry
    for name in (".claude/settings.json", ".claude/settings.local.json")
    for entry in (
        {
            "file": name,
            "key": "disableAllHooks",
            "off_when": "true",
            "why": "Claude Code runs no hook (user or project) while any settings file sets it",
            "fix": f'remove "disableAllHooks" from {name}',
            "evidence": _EVIDENCE + ": settings key disableAllHooks, `Ke(e)` (disableAllHooks===!0)",
            "certain": True,
            "also": "adapter",  # doctor's adapter check reads it in the file our hooks are in
        },
        {
            "file": name,
            "key": "env.CLAUDE_CODE_SHELL_PREFIX",
            "off_when": "set",
            "why": "Claude Code runs that program in front of every Bash command the guard approved",
            "fix": f'remove CLAUDE_CODE_SHELL_PREFIX from the "env" block of {name}',
            "evidence": _EVIDENCE + ": environment table CLAUDE_CODE_SHELL_PREFIX",
            "certain": True,
        },
    )
)
# Claude Code's env channel is the settings files' "env" block (pasture.runtime.injected), not a dotenv file.
ENV_FILES: tuple = ()
ENV_BLOCK_FILES = (".claude/settings.json", ".claude/settings.local.json")
GUARDED_FILES = ENV_BLOCK_FILES
GUARDED_FOLDERS: tuple = ()
# what the guard's cheap screen looks for in a shell command before reading it (pasture.runtime.builtin)
SCREEN_WORDS = (".claude",)
USER_DIR = ("CLAUDE_CONFIG_DIR", "home", ".claude")
# Claude Code sets it to the project's folder for its hooks, and its own variables start with the prefix
PROJECT_DIR_VARIABLE = "CLAUDE_PROJECT_DIR"
ENV_PREFIX = "CLAUDE_"
GUARDED_USER_FILES = ("settings.json", "settings.local.json")
GUARDED_USER_FOLDERS: tuple = ()
# <dir>/.claude/settings.json is read only for the folder Claude Code starts in: its own doctor check says so.
# the managed (administrator) channel's system files and folders (`pasture install --managed`: its host
# module's MANAGED, which names these), guarded like the rest
GUARDED_SYSTEM_FILES = ("/etc/claude-code/managed-settings.json",)
GUARDED_SYSTEM_FOLDERS: tuple = ()
PROJECT_ADAPTER_ROOT_ONLY = "claude-start"

# the word its own variables start with: a capture's recording hook keeps them (pasture/hosts/recorder.py)
RECORDED_ENV = "CLAUDE"
