"""Codex CLI's answers: Claude's command JSON, fewer ``decision: block`` events, and a PermissionRequest
decision of its own."""

from pasture.runtime.hostwire.claude_code import (
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


def deny(event: str, row, reason: str) -> tuple:
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


# --- off-switches (issue 28; plain data: pasture/runtime/hostwire/__init__.py) -------------------------
# Read in @openai/codex-linux-x64 0.171.0, vendor/x86_64-unknown-linux-musl/bin/codex (Rust; its strings):
# `codex_hooks` is a feature of codex_features (features/src/lib.rs, "legacy feature toggle detected;
# prefer `[features]..."), so a project's `.codex/config.toml` `[features] codex_hooks = false` may turn
# the hooks off (Codex's config schema, tests/host_schemas/codex-config.schema.json, has both
# `features.hooks` and `features.codex_hooks` as booleans); what false does on 0.171.0 is not
# established, hence certain False. A project's config is read only once the project is trusted
# ("Project-local config, hooks, and exec policies are disabled in the following folders until the
# project is trusted"): doctor's codex-trust.
OFF_SWITCHES = (
    {
        "file": ".codex/config.toml",
        "key": "features.codex_hooks",
        "off_when": "false",
        "why": "the hooks feature off: Codex may run no hook",
        "fix": "remove codex_hooks from [features] in .codex/config.toml",
        "evidence": "@openai/codex-linux-x64 bin/codex: codex_features feature `codex_hooks`",
        "certain": False,
    },
    {
        "file": ".codex/config.toml",
        "key": "features.hooks",
        "off_when": "false",
        "why": "the hooks feature off: Codex may run no hook",
        "fix": "remove hooks from [features] in .codex/config.toml",
        "evidence": "@openai/codex-linux-x64 bin/codex: config key list (`...goalshookspluginssuppress...`)",
        "certain": False,
    },
)
# Codex reads a .env only from CODEX_HOME (the user's); a project has no env channel for hooks.
ENV_FILES: tuple = ()
GUARDED_FILES = (".codex/hooks.json", ".codex/config.toml")
GUARDED_FOLDERS: tuple = ()
USER_DIR = ("CODEX_HOME", "home", ".codex")
GUARDED_USER_FILES = ("hooks.json", "config.toml")
GUARDED_USER_FOLDERS: tuple = ()
PROJECT_ADAPTER_ROOT_ONLY = False  # the project's .codex/ is found from any folder below it
