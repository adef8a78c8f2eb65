"""GitHub Copilot CLI's answers: the JSON permission decision on preToolUse, ``decision: block`` where the
typings offer it, exit 2 elsewhere.

Copilot 1.0.102 blocks a preToolUse on exit 2 but tells the model only "hook exited with code 2"; the
JSON deny ``{"permissionDecision": "deny", "permissionDecisionReason": ...}`` on stdout (exit 0) is the
channel that carries the reason (docs/new-hosts.md, tests/hostenv/test_new_hosts_offline.py), so a
row that may answer deny answers in JSON.
"""

from pasture.runtime.fastjson import dumps

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the hook path pays for every import
if TYPE_CHECKING:
    from typing import Any


PROCEED_STDOUT = ""
BLOCKING_FAILURES = ("exit-2-blocks",)
EXIT_BLOCK = 2

# Events whose output reads {"decision": "block", "reason"} (copilot-sdk/types.d.ts of 1.0.102).
BLOCK_JSON = {"userPromptSubmitted", "agentStop", "subagentStop"}


def _json(value: object) -> str:
    return dumps(value) + "\n"


def deny(event: str, row: "Any", reason: str) -> tuple:
    if event == "preToolUse" and row.response in ("deny", "deny+ask"):
        return (0, _json({"permissionDecision": "deny", "permissionDecisionReason": reason}), "", "deny")
    if event in BLOCK_JSON:
        return (0, _json({"decision": "block", "reason": reason}), "", "deny")
    return (EXIT_BLOCK, "", reason + "\n", "deny")


def fail_json(event: str, row: "Any", text: str) -> "str | None":
    """A failure that blocks (a broken policy, an unwritable journal, a gate past its deadline) as the
    same JSON refusal a deny is: on exit 2 the model would read only "hook exited with code 2"."""
    if event == "preToolUse" and row.response in ("deny", "deny+ask"):
        return _json({"permissionDecision": "deny", "permissionDecisionReason": text})
    if event in BLOCK_JSON:
        return _json({"decision": "block", "reason": text})
    return None


def ask(event: str, reason: str) -> tuple:
    return (0, _json({"permissionDecision": "ask", "permissionDecisionReason": reason}), "", "ask")


def tool_of(payload: object) -> tuple:
    if not isinstance(payload, dict):
        return None, None
    name = payload.get("toolName")
    args = payload.get("toolArgs")
    if args is None:  # permissionRequest carries toolInput
        args = payload.get("toolInput")
    return (name if isinstance(name, str) else None), args


# Steering (issue 17): the moment each event is, for [[context]] (on), [[after]] and [[until]].
MOMENTS = {
    "sessionStart": "session-start",
    "userPromptSubmitted": "prompt",
    "postToolUse": "after-tool",
    "agentStop": "stop",
}
STEERS = ("allow", "rewrite", "context", "feedback", "continue")  # what steer() encodes


def steer(event: str, offers: dict, parts: dict) -> tuple:
    """One answer carrying the parts the row offers (the caller degraded the rest), in the shapes the
    captures of 1.0.102 sent (captures/copilot-cli@1.0.102/*): preToolUse ``permissionDecision: allow``
    (+ ``modifiedArgs``, the whole tool input with the rewritten field, for a rewrite);
    ``additionalContext`` for context (sessionStart, userPromptSubmitted) and for feedback after a tool
    (postToolUse); agentStop ``decision: block`` + ``reason`` to keep working."""
    out: dict = {}
    answers = []
    if "rewrite" in parts:
        new_input, reason = parts["rewrite"]
        out.update(permissionDecision="allow", permissionDecisionReason=reason, modifiedArgs=new_input)
        answers.append("rewrite")
    elif "allow" in parts:
        out.update(permissionDecision="allow", permissionDecisionReason=parts["allow"])
        answers.append("allow")
    texts = []
    for capability in ("context", "feedback"):
        if parts.get(capability):
            texts.extend(parts[capability])
            answers.append(capability)
    if texts:
        out["additionalContext"] = "\n\n".join(texts)
    if parts.get("continue"):
        out.update(decision="block", reason=parts["continue"])
        answers.append("continue")
    return (0, _json(out) if out else PROCEED_STDOUT, "", "+".join(answers) or "proceed")


# the event it consults the guard on before a tool runs (the one shell calls reach; `pasture policy check`)
TOOL_EVENT = "preToolUse"

# Copilot CLI's tools (preToolUse toolName), by kind: the envelope's
# tool_kind (pasture.runtime.envelope). A tool missing here arrives as its own name in lower case, which
# no `tool_kind = "shell"` (or other kind) rule matches.
TOOL_KINDS = {
    "bash": "shell",
    "powershell": "shell",
    "create": "write",
    "edit": "edit",
    "view": "read",
    "web_fetch": "fetch",
    "fetch": "fetch",
    "task": "agent",
}


# --- off-switches (issue 28; plain data: pasture/runtime/hostwire/__init__.py) -------------------------
# Read in @github/copilot-linux-x64 1.0.102: the binary unpacks its package (pasture.catalog.copilot);
# prebuilds/linux-x64/runtime.node (the native runtime) embeds the settings schema
# `{"path":"disableAllHooks","leafKind":"boolean","description":"Disable all hooks, both user-level and
# repo-level."}` and `disabledHooks` ("Hooks discovered but not executed (content-hash keys)"); the
# hook-file reader's "disableAllHooks must be a boolean" next to "hooks must be an object" (a hooks
# file in .github/hooks/ may carry the flag too); cli-main.js names `.github/copilot/settings.json`
# (checked in) and settings.local.json (git-ignored) as the repository's settings. Whether a repository
# may set disabledHooks (its governance list) and what a hooks file's flag does are not established.
OFF_SWITCHES = tuple(
    entry
    for name in (".github/copilot/settings.json", ".github/copilot/settings.local.json")
    for entry in (
        {
            "file": name,
            "key": "disableAllHooks",
            "off_when": "true",
            "why": "Copilot CLI runs no hook, user-level or repo-level",
            "fix": f'remove "disableAllHooks" from {name}',
            "evidence": "@github/copilot runtime.node settings schema disableAllHooks",
            "certain": True,
        },
        {
            "file": name,
            "key": "disabledHooks",
            "off_when": "set",
            "why": "Copilot CLI skips the hooks whose content hashes it lists (ours may be among them)",
            "fix": f'remove "disabledHooks" from {name}',
            "evidence": "@github/copilot runtime.node settings schema disabledHooks",
            "certain": False,
        },
    )
) + (
    {
        "file": ".github/hooks/*.json",
        "key": "disableAllHooks",
        "off_when": "true",
        "why": "a hooks file that switches every hook off",
        "fix": 'remove "disableAllHooks" from that hooks file',
        "evidence": "@github/copilot runtime.node hook file reader: 'disableAllHooks must be a boolean'",
        "certain": False,
    },
)
ENV_FILES: tuple = ()  # no dotenv loading in cli-main.js or runtime.node
GUARDED_FILES = (".github/copilot/settings.json", ".github/copilot/settings.local.json")
GUARDED_FOLDERS = (".github/hooks",)  # its project hooks files (pasture.json among them)
# what the guard's cheap screen looks for in a shell command before reading it (pasture.runtime.builtin)
SCREEN_WORDS = (".copilot",)
USER_DIR = ("COPILOT_HOME", "home", ".copilot")
# its inline user hooks, and the folder trust without which no project hook runs
GUARDED_USER_FILES = ("settings.json", "config.json")
# cli-main.js hookSessionCreate `userHooksDir: <config>/hooks`: user-level hooks files (a disableAllHooks there)
GUARDED_USER_FOLDERS = ("hooks",)
# cli-main.js getHooksDir: `.github/hooks` of the git root (gitFindRootWithOptionalWorktreeResolutionAsync),
# so a session started in a subfolder runs the repository's hooks.
# the managed (administrator) channel's system files and folders (`pasture install --managed`: its host
# module's MANAGED, which names these), guarded like the rest
GUARDED_SYSTEM_FILES = ("/etc/github-copilot/managed-settings.json",)
GUARDED_SYSTEM_FOLDERS = ("/etc/github-copilot/policy.d",)
PROJECT_ADAPTER_ROOT_ONLY = False

# the word its own variables start with: a capture's recording hook keeps them (pasture/hosts/recorder.py)
RECORDED_ENV = "COPILOT"
