"""Gemini CLI's answers (build-time half: pasture/hosts/gemini_cli.py).

Both refusal channels reach the model on 0.61.0 (docs/new-hosts.md): exit 0 with
``{"decision": "deny", "reason": ...}`` and exit 2 with the reason on stderr each make the model read
``Tool execution blocked: <reason>`` on BeforeTool. The JSON decision is read by every event's output
class (``DefaultHookOutput.isBlockingDecision`` in the bundle); exit 2 is the documented "System Block"
of every event that can block, so a row without a cited JSON channel answers by exit 2.
"""

from pasture.runtime.fastjson import dumps

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the hook path pays for every import
if TYPE_CHECKING:
    from typing import Any


PROCEED_STDOUT = ""
BLOCKING_FAILURES = ("exit-2-blocks",)
EXIT_BLOCK = 2


def deny(event: str, row: "Any", reason: str) -> tuple:
    if row is not None and getattr(row, "response", None) in ("deny", "deny+ask"):
        return (0, dumps({"decision": "deny", "reason": reason}) + "\n", "", "deny")
    return (EXIT_BLOCK, "", reason + "\n", "deny")


def ask(event: str, reason: str) -> tuple:
    # BeforeTool's "ask" forces the host's own confirmation prompt; the reason goes to the user.
    return (0, dumps({"decision": "ask", "reason": reason, "systemMessage": reason}) + "\n", "", "ask")


def tool_of(payload: object) -> tuple:
    if not isinstance(payload, dict):
        return None, None
    name = payload.get("tool_name")
    return (name if isinstance(name, str) else None), payload.get("tool_input")


# Steering (issue 17): the moment each event is, for [[context]] (on), [[after]] and [[until]].
MOMENTS = {
    "SessionStart": "session-start",
    "BeforeAgent": "prompt",
    "AfterTool": "after-tool",
    "AfterAgent": "stop",
}
# No allow: BeforeTool's ``decision: "allow"`` was never read on 0.61.0 (captures/gemini-cli@0.61.0/
# before-tool-allow), so no row offers it.
STEERS = ("rewrite", "context", "feedback", "continue")  # what steer() encodes
FEEDBACK_DENY = "decision=deny+reason"  # AfterTool's other captured form: the reason replaces the tool result


def steer(event: str, offers: dict, parts: dict) -> tuple:
    """One answer carrying the parts the row offers (the caller degraded the rest), in the shapes the
    captures of 0.61.0 sent (captures/gemini-cli@0.61.0/*): BeforeTool ``hookSpecificOutput.tool_input``
    (the tool input with the rewritten field; the host merges it over the model's arguments);
    ``hookSpecificOutput.additionalContext`` for context (SessionStart, BeforeAgent) and for feedback
    after a tool (AfterTool: appended to the tool result); AfterAgent ``decision: "deny"`` + ``reason`` to
    keep working (the host sends the reason as a new prompt)."""
    specific: dict = {"hookEventName": event}
    out: dict = {}
    answers = []
    if "rewrite" in parts:
        new_input, _reason = parts["rewrite"]
        specific["tool_input"] = new_input
        answers.append("rewrite")
    texts = list(parts.get("context") or ())
    if texts:
        answers.append("context")
    reasons = []
    if parts.get("feedback"):
        answers.append("feedback")
        if offers.get("feedback") == FEEDBACK_DENY:
            reasons.extend(parts["feedback"])
        else:
            texts.extend(parts["feedback"])
    if texts:
        specific["additionalContext"] = "\n\n".join(texts)
    if parts.get("continue"):
        reasons.append(parts["continue"])
        answers.append("continue")
    if reasons:
        out.update(decision="deny", reason="\n\n".join(reasons))
    if len(specific) > 1:
        out["hookSpecificOutput"] = specific
    return (0, dumps(out) + "\n" if out else PROCEED_STDOUT, "", "+".join(answers) or "proceed")


# the event it consults the guard on before a tool runs (the one shell calls reach; `pasture policy check`)
TOOL_EVENT = "BeforeTool"

# Gemini CLI's tools (BeforeTool tool_name), by kind: the envelope's
# tool_kind (pasture.runtime.envelope). A tool missing here arrives as its own name in lower case, which
# no `tool_kind = "shell"` (or other kind) rule matches.
TOOL_KINDS = {
    "run_shell_command": "shell",
    "write_file": "write",
    "replace": "edit",
    "read_file": "read",
    "web_fetch": "fetch",
}


# --- off-switches (issue 28; plain data: pasture/runtime/hostwire/__init__.py) -------------------------
# Read in @google/gemini-cli 0.61.0 (bundle/, esbuild chunks):
# * bundle/gemini-3HFX2LNT.js loadCliConfig: `enableHooks: settings.hooksConfig.enabled`,
#   `disabledHooks: settings.hooksConfig?.disabled || []`; bundle/chunk-JDPZ4CE3.js
#   HookRegistry.processHookDefinition: `enabled: !disabledHooks.includes(hookName)`, getHookName:
#   `config.name || config.command` (ours are named pasture-<Event>);
# * bundle/chunk-2YTYPKEZ.js findEnvFile / loadEnvironment: from the workspace folder up to `/`, the first
#   `.gemini/.env` (trusted folders) or `.env`, parsed with dotenv.parse into process.env where a variable is
#   not set yet (untrusted: only its auth whitelist); hooks inherit process.env;
# * bundle/chunk-2YTYPKEZ.js loadSettings(workspaceDir = process.cwd()): the workspace settings are
#   <cwd>/.gemini/settings.json only (Storage.getWorkspaceSettingsPath), so a subfolder loads none.
_SETTINGS = ".gemini/settings.json"
OFF_SWITCHES = (
    {
        "file": _SETTINGS,
        "key": "hooksConfig.enabled",
        "off_when": "false",
        "why": "Gemini CLI loads no hook at all",
        "fix": f'remove "enabled": false from "hooksConfig" in {_SETTINGS}',
        "evidence": "@google/gemini-cli bundle/gemini-3HFX2LNT.js loadCliConfig enableHooks: hooksConfig.enabled",
        "certain": True,
    },
    {
        "file": _SETTINGS,
        "key": "hooksConfig.disabled",
        "off_when": "names-ours",
        "why": "Gemini CLI skips the hooks that list names",
        "fix": f'remove the pasture-* entries from "hooksConfig.disabled" in {_SETTINGS}',
        "evidence": "@google/gemini-cli bundle/chunk-JDPZ4CE3.js HookRegistry.processHookDefinition disabledHooks",
        "certain": True,
    },
)
ENV_FILES = (".gemini/.env", ".env")
GUARDED_FILES = (_SETTINGS,)
GUARDED_FOLDERS: tuple = ()
# what the guard's cheap screen looks for in a shell command before reading it (pasture.runtime.builtin)
SCREEN_WORDS = (".gemini",)
USER_DIR = ("", "home", ".gemini")
GUARDED_USER_FILES = ("settings.json", "trustedFolders.json")  # its user hooks; the trust project hooks need
GUARDED_USER_FOLDERS: tuple = ()
# the managed (administrator) channel's system files and folders (`pasture install --managed`: its host
# module's MANAGED, which names these), guarded like the rest
GUARDED_SYSTEM_FILES = ("/etc/gemini-cli/settings.json",)
GUARDED_SYSTEM_FOLDERS: tuple = ()
PROJECT_ADAPTER_ROOT_ONLY = True

# the word its own variables start with: a capture's recording hook keeps them (pasture/hosts/recorder.py)
RECORDED_ENV = "GEMINI"
