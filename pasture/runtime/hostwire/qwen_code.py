"""Qwen Code's answers (build-time half: pasture/hosts/qwen_code.py).

Qwen Code is a Gemini CLI fork whose hooks answer in Claude Code's shapes: the PreToolUse permission
decision (``hookSpecificOutput.permissionDecision`` + ``permissionDecisionReason``, read by
``PreToolUseHookOutput.getPermissionDecision`` in the bundle), and exit 2 with the reason on stderr, the
documented "blocking error" of every event. So the encoding is the command-JSON hosts' (shared with Claude
Code and Codex in hostwire/commandjson.py, not copied); a
``decision: "block"`` is never sent for a deny (exit 2 carries it on every other event), only where a
steering answer the captures of this host prove needs it.
"""

from pasture.runtime.hostwire.commandjson import (
    MOMENTS,
    PROCEED_STDOUT,
    ask,
    command_deny,
    steer,
    tool_of,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the hook path pays for every import
if TYPE_CHECKING:
    from typing import Any


__all__ = ["BLOCKING_FAILURES", "MOMENTS", "PROCEED_STDOUT", "STEERS", "ask", "deny", "steer", "tool_of"]

BLOCKING_FAILURES = ("exit-2-blocks",)
# Steering: only the answers captures/qwen-code@0.24.4 show honoured: additionalContext on SessionStart and
# UserPromptSubmit, and Stop's decision block + reason. Not honoured there: PreToolUse's updatedInput (the
# asked command ran), permissionDecision allow (a headless run in the default approval mode offers no shell
# tool), PostToolUse's decision block (the reason never reached the model).
STEERS = ("context", "continue")


def deny(event: str, row: "Any", reason: str) -> tuple:
    return command_deny(event, row, reason, ())


# the event it consults the guard on before a tool runs (the one shell calls reach; `pasture policy check`)
TOOL_EVENT = "PreToolUse"

# its tools (chunks/chunk-RSWOFJBY.js ToolNames), lower case -> the kind a policy's tool_kind names
TOOL_KINDS = {
    "run_shell_command": "shell",
    "write_file": "write",
    "edit": "edit",
    "notebook_edit": "edit",
    "read_file": "read",
    "web_fetch": "fetch",
    "agent": "agent",
}


# --- off-switches (issue 28; plain data: pasture/runtime/hostwire/__init__.py) -------------------------
# Read in @qwen-code/qwen-code 0.24.4 (esbuild chunks, content-hashed names):
# * chunks/chunk-WH7PDTZL.js loadCliConfig: `disableAllHooks: bareMode || safeMode ? true :
#   settings.disableAllHooks ?? false` (the merged settings: any scope, the project's included), and
#   `resolveHookSettingsForConfig(settings.hooks, hooksConfig, bareMode || safeMode)`; chunks/chunk-DPEB6S2R.js
#   Config.getDisableAllHooks: `this.disableAllHooks || this.getBareMode() || this.isSafeMode()`;
# * chunks/chunk-DYLGEL4Y.js findEnvFiles / loadEnvironment: from the start folder up to `/`, the first
#   `.qwen/.env` or `.env` (trusted workspaces), loaded into process.env where a variable is unset; then the
#   merged settings' top-level `env` block the same way; hooks inherit process.env;
# * chunks/chunk-LYEINKJD.js loadSettings(workspaceDir = process.cwd()): the workspace settings are
#   `new Storage(workspaceDir).getWorkspaceSettingsPath()`, <cwd>/.qwen/settings.json only (chunk-EL2S73QY.js),
#   so a session started in a subfolder loads none of the project's hooks.
_SETTINGS = ".qwen/settings.json"
OFF_SWITCHES = (
    {
        "file": _SETTINGS,
        "key": "disableAllHooks",
        "off_when": "true",
        "why": "Qwen Code runs no hook at all (system, user or project)",
        "fix": f'remove "disableAllHooks" from {_SETTINGS}',
        "evidence": "@qwen-code/qwen-code chunks/chunk-WH7PDTZL.js loadCliConfig disableAllHooks: "
        "settings.disableAllHooks",
        "certain": True,
    },
)
ENV_FILES = (".qwen/.env", ".env")
# the merged settings' top-level "env" is loaded into process.env too (loadEnvironment), so the hook inherits it
ENV_BLOCK_FILES = (_SETTINGS,)
GUARDED_FILES = (_SETTINGS,)
GUARDED_FOLDERS: tuple = ()
# what the guard's cheap screen looks for in a shell command before reading it (pasture.runtime.builtin)
SCREEN_WORDS = (".qwen",)
USER_DIR = ("QWEN_HOME", "home", ".qwen")
# every command hook gets QWEN_PROJECT_DIR (and CLAUDE_PROJECT_DIR, GEMINI_PROJECT_DIR): bundled hooks.md
PROJECT_DIR_VARIABLE = "QWEN_PROJECT_DIR"
ENV_PREFIX = "QWEN_"
GUARDED_USER_FILES = ("settings.json", "trustedFolders.json")
GUARDED_USER_FOLDERS: tuple = ()
# its administrator channel (chunks/chunk-IDS7MSUP.js getSystemSettingsPath on Linux), which install --managed writes
GUARDED_SYSTEM_FILES = ("/etc/qwen-code/settings.json",)
GUARDED_SYSTEM_FOLDERS: tuple = ()
PROJECT_ADAPTER_ROOT_ONLY = True
