"""Codex CLI's answers: Claude's command JSON, fewer ``decision: block`` events, and a PermissionRequest
decision of its own."""

from pasture.runtime.hostwire.commandjson import (
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


def deny(event: str, row: "Any", reason: str) -> tuple:
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


# the event it consults the guard on before a tool runs (the one shell calls reach; `pasture policy check`)
TOOL_EVENT = "PreToolUse"

# Codex's tools as its hooks name them (exec_command and the shell tools arrive as Bash; apply_patch
# also under Write/Edit), by kind: the envelope's
# tool_kind (pasture.runtime.envelope). A tool missing here arrives as its own name in lower case, which
# no `tool_kind = "shell"` (or other kind) rule matches.
TOOL_KINDS = {
    "bash": "shell",
    "shell": "shell",
    "exec_command": "shell",
    "local_shell": "shell",
    "powershell": "shell",
    "write": "write",
    "edit": "edit",
    "apply_patch": "edit",
    "spawn_agent": "agent",
}


# --- the agent gate's judge (a policy's kind = "agent" host): this host run headless; only a gate that
# runs it imports pasture.gates (pasture.runtime.agentgate hands it to pasture.gates.agent) ---
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from pasture.gates.agents import HostOutput, HostRequest, HostRun

# its headless command line, which the capture launcher (pasture/hosts/codex.py) runs too; the last
# message is also written to LAST_MESSAGE (-o)
HEADLESS = ("exec", "--json", "--skip-git-repo-check")
BYPASS = "--dangerously-bypass-approvals-and-sandbox"
LAST_MESSAGE = "codex-last-message.txt"


class Judge:
    """``codex exec --json``; JSONL events, the final message also written to ``-o FILE``."""

    name = "codex"
    aliases: tuple[str, ...] = ("codex", "codex-cli", "codex_cli")
    install = "npm install -g @openai/codex"  # how a user gets it (the package tests/npm pins)
    default_binary = "codex"

    def command(self, req: "HostRequest") -> "HostRun":
        import os  # only when a judge runs: the hook path never loads os

        from pasture.gates.agents import HostRun

        last_message = os.path.join(req.scratch_dir, LAST_MESSAGE)
        argv = [req.binary, *HEADLESS, "-C", req.cwd, "-o", last_message]
        if req.model:
            argv += ["-m", req.model]
        if req.project_dir:
            argv += ["--add-dir", req.project_dir]
        if req.bypass_permissions:
            argv.append(BYPASS)
        else:
            argv += ["--sandbox", "workspace-write", "-c", 'approval_policy="never"']
        argv += list(req.extra_args)
        return HostRun(argv=argv, stdin=req.prompt.encode("utf-8"), last_message_path=last_message)

    def read_output(self, stdout: str, stderr: str, returncode: int, run: "HostRun") -> "HostOutput":
        import os

        from pasture.gates.agents import HostOutput, exit_failure, json_lines, read_file_capped

        text: str | None = None
        failure: str | None = None
        fatal: str | None = None
        turns = 0
        for event in json_lines(stdout):
            kind = event.get("type")
            item = event.get("item")
            if kind == "item.completed" and isinstance(item, dict) and item.get("type") == "agent_message":
                text = item.get("text") if isinstance(item.get("text"), str) else text
            elif kind == "turn.completed":
                turns += 1
            elif kind == "turn.failed":
                error = event.get("error")
                failure = (error.get("message") if isinstance(error, dict) else None) or "turn failed"
            elif kind == "error":  # top-level stream error (item-level "error" items are warnings)
                fatal = str(event.get("message") or "stream error")
        if run.last_message_path and os.path.exists(run.last_message_path):
            text = read_file_capped(run.last_message_path, "the judge's last message") or text
        is_error = failure is not None or returncode != 0
        message = None
        if is_error:
            message = failure or fatal or exit_failure(returncode, stderr)
        return HostOutput(final_text=text, is_error=is_error, error_message=message, num_turns=turns)


AGENT_JUDGE = Judge()

# --- off-switches (issue 28; plain data: pasture/runtime/hostwire/__init__.py) -------------------------
# Read in @openai/codex-linux-x64 0.171.0, vendor/x86_64-unknown-linux-musl/bin/codex (Rust; its strings):
# `codex_hooks` is a feature of codex_features (features/src/lib.rs, "legacy feature toggle detected;
# prefer `[features]..."), the deprecated name of `hooks` (Codex's config schema,
# tests/host_schemas/codex-config.schema.json, has both as booleans). Either set false in a project's
# `.codex/config.toml` runs no hook at all on 0.171.0, a user install's included: captured by
# tests/realhost/test_offswitch_real_hosts.py (no runtime call; the command ran), hence certain. A
# project's config is read only once the project is trusted ("Project-local config, hooks, and exec
# policies are disabled in the following folders until the project is trusted"): doctor's codex-trust.
OFF_SWITCHES = (
    {
        "file": ".codex/config.toml",
        "key": "features.codex_hooks",
        "off_when": "false",
        "why": "the hooks feature off: Codex runs no hook, user or project",
        "fix": "remove codex_hooks from [features] in .codex/config.toml",
        "evidence": "@openai/codex-linux-x64 bin/codex: codex_features feature `codex_hooks`",
        "certain": True,
    },
    {
        "file": ".codex/config.toml",
        "key": "features.hooks",
        "off_when": "false",
        "why": "the hooks feature off: Codex runs no hook, user or project",
        "fix": "remove hooks from [features] in .codex/config.toml",
        "evidence": "@openai/codex-linux-x64 bin/codex: config key list (`...goalshookspluginssuppress...`)",
        "certain": True,
    },
)
# Codex reads a .env only from CODEX_HOME (the user's); a project has no env channel for hooks.
ENV_FILES: tuple = ()
GUARDED_FILES = (".codex/hooks.json", ".codex/config.toml")
GUARDED_FOLDERS: tuple = ()
# what the guard's cheap screen looks for in a shell command before reading it (pasture.runtime.builtin)
SCREEN_WORDS = (".codex",)
USER_DIR = ("CODEX_HOME", "home", ".codex")
ENV_PREFIX = "CODEX_"  # its own variables (CODEX_HOME, its judge's settings): no project sets them
GUARDED_USER_FILES = ("hooks.json", "config.toml")
GUARDED_USER_FOLDERS: tuple = ()
# the managed (administrator) channel's system files and folders (`pasture install --managed`: its host
# module's MANAGED, which names these), guarded like the rest
GUARDED_SYSTEM_FILES = ("/etc/codex/requirements.toml",)
GUARDED_SYSTEM_FOLDERS: tuple = ()
PROJECT_ADAPTER_ROOT_ONLY = False  # the project's .codex/ is found from any folder below it

# the word its own variables start with: a capture's recording hook keeps them (pasture/hosts/recorder.py)
RECORDED_ENV = "CODEX"
