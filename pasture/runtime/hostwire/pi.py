"""Pi's answers, read by our own generated extension (protocol: pasture/hosts/pi.py, the plugin side shared
with OpenCode's, templates/opencode/_runtime.ts.j2): one JSON decision on stdout; the extension throws
from a fail-fast row, which Pi turns into a blocked tool call whose result is the message."""

from pasture.runtime.fastjson import dumps

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the hook path pays for every import
if TYPE_CHECKING:
    from typing import Any


PROCEED_STDOUT = dumps({"decision": "proceed"}) + "\n"
BLOCKING_FAILURES = ("throw-fail-fast",)


def deny(event: str, row: "Any", reason: str) -> tuple:
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


# the event it consults the guard on before a tool runs (the one shell calls reach; `pasture policy check`)
TOOL_EVENT = "tool_call"

# Pi's tools (tool_call toolName), by kind: the envelope's
# tool_kind (pasture.runtime.envelope). A tool missing here arrives as its own name in lower case, which
# no `tool_kind = "shell"` (or other kind) rule matches.
TOOL_KINDS = {
    "bash": "shell",
    "write": "write",
    "edit": "edit",
    "read": "read",
}


# --- off-switches (issue 28; plain data: pasture/runtime/hostwire/__init__.py) -------------------------
# Read in @mariozechner/pi-coding-agent 0.73.1 (dist/):
# * dist/core/package-manager.js: project extensions are collectAutoExtensionEntries(<cwd>/.pi/extensions)
#   filtered by isEnabledByOverrides(path, projectSettings.extensions): `!pattern` excludes, `+path`
#   force-includes, `-path` force-excludes; resolveExtensionEntries: a package.json with `pi.extensions`,
#   or an index.ts / index.js, in that folder replaces discovery (only those load); addIgnoreRules: its
#   .gitignore / .ignore / .fdignore patterns hide files from discovery;
# * dist/core/agent-session.js _buildRuntime: `bash: { commandPrefix: shellCommandPrefix, shellPath }`
#   from the merged settings (project over user): a prefix run before every bash command, the shell run;
# * dist/core/settings-manager.js: `projectSettingsPath = join(cwd, CONFIG_DIR_NAME, "settings.json")`,
#   and package-manager's `projectBaseDir = join(this.cwd, CONFIG_DIR_NAME)`: the folder started in only.
_PKG = "@mariozechner/pi-coding-agent "
_SETTINGS = ".pi/settings.json"
OFF_SWITCHES = (
    (
        {
            "file": _SETTINGS,
            "key": "extensions",
            "off_when": "excludes-ours",
            "why": "Pi does not load the project extensions those patterns exclude",
            "fix": f'remove the "!"/"-" patterns that match pasture-lifecycle.ts from "extensions" in {_SETTINGS}',
            "evidence": _PKG + "dist/core/package-manager.js isEnabledByOverrides",
            "certain": True,
            "also": "pi-extensions",  # its doctor check names an exclusion that spells our file out
        },
        {
            "file": _SETTINGS,
            "key": "shellCommandPrefix",
            "off_when": "set",
            "why": "Pi runs that text in front of every bash command the guard approved",
            "fix": f'remove "shellCommandPrefix" from {_SETTINGS}',
            "evidence": _PKG + "dist/core/agent-session.js _buildRuntime commandPrefix",
            "certain": True,
        },
        {
            "file": _SETTINGS,
            "key": "shellPath",
            "off_when": "set",
            "why": "Pi runs every bash command the guard approved with the repository's choice of shell program",
            "fix": f'remove "shellPath" from {_SETTINGS}',
            "evidence": _PKG + "dist/core/agent-session.js _buildRuntime shellPath",
            # a warning, not a refusal: /bin/bash there is harmless; a program of the repository's is not
            "certain": False,
        },
        {
            "file": ".pi/extensions/package.json",
            "key": "pi.extensions",
            "off_when": "set",
            "why": "Pi loads only the extensions that manifest lists, not pasture-lifecycle.ts",
            "fix": 'remove "pi.extensions" from .pi/extensions/package.json (or list pasture-lifecycle.ts in it)',
            "evidence": _PKG + "dist/core/package-manager.js resolveExtensionEntries (readPiManifestFile)",
            "certain": True,
        },
    )
    + tuple(
        {
            "file": ".pi/extensions/" + name,
            "key": "",
            "off_when": "exists",
            "why": "Pi loads only that file from .pi/extensions, not pasture-lifecycle.ts",
            "fix": f"move .pi/extensions/{name} into a folder of its own",
            "evidence": _PKG + "dist/core/package-manager.js resolveExtensionEntries (index.ts, index.js)",
            "certain": True,
        }
        for name in ("index.ts", "index.js")
    )
    + tuple(
        {
            "file": ".pi/extensions/" + name,
            "key": "",
            "off_when": "ignores-ours",
            "why": "Pi's extension discovery skips the files it ignores",
            "fix": f"remove the patterns matching pasture-lifecycle.ts from .pi/extensions/{name}",
            "evidence": _PKG + "dist/core/package-manager.js collectAutoExtensionEntries addIgnoreRules",
            "certain": True,
        }
        for name in (".gitignore", ".ignore", ".fdignore")
    )
)
ENV_FILES: tuple = ()  # no dotenv loading in dist/
GUARDED_FILES = (_SETTINGS,)
GUARDED_FOLDERS = (".pi/extensions",)  # its project extensions (pasture-lifecycle.ts among them)
# what the guard's cheap screen looks for in a shell command before reading it (pasture.runtime.builtin)
SCREEN_WORDS = (".pi",)
USER_DIR = ("PI_CODING_AGENT_DIR", "home", ".pi/agent")  # config.js getAgentDir expands a leading ~
GUARDED_USER_FILES = ("settings.json",)
GUARDED_USER_FOLDERS = ("extensions",)
# no managed (administrator) channel
GUARDED_SYSTEM_FILES: tuple = ()
GUARDED_SYSTEM_FOLDERS: tuple = ()
PROJECT_ADAPTER_ROOT_ONLY = True
