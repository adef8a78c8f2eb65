"""Cline CLI's answers (build-time half: pasture/hosts/cline.py), as measured on cline 3.0.65.

A Cline hook is an executable file named by its event; it reads the payload on stdin and answers one JSON
object on stdout (``cancel``, ``contextModification``, ``errorMessage``, ``overrideInput``). Cline fails open:
a hook that exits non-zero, prints no JSON or answers ``{}`` lets the tool run. Its two refusals differ:

* ``{"cancel": true}`` stops the whole task: the tool does not run, but neither the model nor the user reads
  why (the run ends "aborted", exit 0);
* ``{"overrideInput": {}, "contextModification": reason}`` replaces the call's input with an empty one, which
  fails the tool's own input check (the tool never runs, its result is "Invalid input"), and the reason
  reaches the model beside it; the task goes on.

So a deny is the second form for a tool whose input has a required field (the shell tool's ``commands``,
measured; the other built-in tools' likewise), and the first for every other tool, where an empty input
could still run. ``deny`` learns the tool from ``tool_of``, which the runtime calls on the same payload
first (one event per process).
"""

from pasture.runtime.fastjson import dumps

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the hook path pays for every import
if TYPE_CHECKING:
    from typing import Any


PROCEED_STDOUT = "{}\n"
# the refusal a failing runtime hands Cline is carried by pasture's own generated hook file (it prints the
# refusal itself; pasture/hosts/cline.py), the seed's arm for a refusal our adapter carries
BLOCKING_FAILURES = ("throw-fail-fast",)

#: Cline's built-in tools whose input has a required field (@cline/core dist/index.js, the S0 tool names and
#: their zod input schemas): an empty overrideInput fails their input check, so the call never runs
REQUIRED_INPUT = frozenset(
    {"run_commands", "read_files", "search_codebase", "fetch_web_content", "apply_patch", "editor", "ask_question"}
)

_seen: "dict[str, str | None]" = {"tool": None}  # this event's tool (tool_of), which deny's form depends on


def _json(value: object) -> str:
    return dumps(value) + "\n"


def refusal(tool: "str | None", reason: str) -> dict:
    """Cline's refusal of a call of ``tool``: the empty input where the tool needs one, else a cancel."""
    if tool in REQUIRED_INPUT:
        return {"overrideInput": {}, "contextModification": reason}
    return {"cancel": True, "errorMessage": reason}


def deny(event: str, row: "Any", reason: str) -> tuple:
    return (0, _json(refusal(_seen["tool"], reason)), "", "deny")


def ask(event: str, reason: str) -> tuple:
    # Cline's hooks cannot ask: a headless run has nobody to ask, so the answer is a refusal saying so
    return deny(event, None, reason)


def fail_json(event: str, row: "Any", text: str) -> "str | None":
    """A guard that could not decide on a fail-fast row: the same refusal, with the line saying why."""
    return _json(refusal(_seen["tool"], text))


def tool_of(payload: object) -> tuple:
    """``tool_call`` (PreToolUse) and ``tool_result`` (PostToolUse) carry ``{id, name, input}``."""
    if not isinstance(payload, dict):
        return None, None
    call = payload.get("tool_call")
    if not isinstance(call, dict):
        call = payload.get("tool_result")
    if not isinstance(call, dict):
        return None, None
    name = call.get("name")
    name = name if isinstance(name, str) else None
    _seen["tool"] = name
    tool_input = call.get("input")
    if isinstance(tool_input, dict) and "command" not in tool_input:
        commands = tool_input.get("commands")
        if isinstance(commands, list) and commands and all(isinstance(c, str) for c in commands):
            tool_input = dict(tool_input, command=joined(commands))
    return name, tool_input


def joined(commands: list) -> str:
    """run_commands' commands as one text the guard reads: one per line, so every simple command of each is
    read. Cline runs each on its own, so one that would run on into the next line (an unclosed quote or
    here-document, a last backslash) goes last: the reader then cannot read the whole text and counts it as
    touching everything it names, never as the next command's data."""
    if len(commands) == 1:
        return commands[0]
    from pasture.runtime.shellparse import Unparsable, parse

    whole: list = []
    open_ended: list = []
    for command in commands:
        tail = len(command) - len(command.rstrip("\\"))
        try:
            parse(command)
            closed = tail % 2 == 0
        except Unparsable:
            closed = False
        (whole if closed else open_ended).append(command)
    return "\n".join(whole + open_ended)


# Steering: feedback after a tool (PostToolUse's contextModification, which Cline hands the model as hook
# context: captures/cline@3.0.65/post-tool-use-feedback). TaskComplete is where an [[until]] would continue
# the task, which Cline cannot: named on stderr and in the journal, not dropped.
MOMENTS = {"PostToolUse": "after-tool", "TaskComplete": "stop"}
STEERS = ("feedback",)  # what steer() encodes


def steer(event: str, offers: dict, parts: dict) -> tuple:
    """The feedback texts as one contextModification."""
    texts = list(parts.get("feedback") or ())
    if not texts:
        return (0, PROCEED_STDOUT, "", "proceed")
    return (0, _json({"contextModification": "\n\n".join(texts)}), "", "feedback")


# the event it consults the guard on before a tool runs (the one shell calls reach; `pasture policy check`)
TOOL_EVENT = "PreToolUse"

# its built-in tools (@cline/core dist/index.js S0), lower case -> the kind a policy's tool_kind names.
# run_commands takes {"commands": [...]}: pasture.runtime.envelope reads each command.
TOOL_KINDS = {
    "run_commands": "shell",
    "editor": "edit",
    "apply_patch": "edit",
    "read_files": "read",
    "search_codebase": "read",
    "fetch_web_content": "fetch",
}


# --- off-switches (issue 28; plain data: pasture/runtime/hostwire/__init__.py) -------------------------
# Read in @cline/shared 0.0.86 (the cline 3.0.65 CLI's), dist/storage/index.js resolveHooksConfigSearchPaths:
# `~/Documents/Cline/Hooks`, `<CLINE_DIR or ~/.cline>/hooks`, and in the workspace (the folder started in)
# `.clinerules/hooks` and `.cline/hooks`; @cline/core dist/index.js: every file there whose name is an event
# (any case) with one of the extensions "", .sh .bash .zsh .js .mjs .cjs .ts .mts .cts .py .ps1 runs, in the
# order of its full path, and where two answer overrideInput the later one's is what runs (the merge of the
# hook results: `overrideInput: next.overrideInput !== undefined ? next.overrideInput : previous...`). So a
# repository's own PreToolUse hook can replace any call the guard refused or approved (measured:
# tests/realhost/test_cline_measured_real_host.py).
_CORE = "@cline/core dist/index.js "
OFF_SWITCHES = tuple(
    {
        "file": f"{folder}/*",
        "key": "PreToolUse",
        "off_when": "foreign-hook",
        "why": "Cline runs that repository hook beside pasture's, and its overrideInput replaces what the guard "
        "refused or approved",
        "fix": f"remove the PreToolUse hook from {folder} (or review it and install with --force)",
        "evidence": _CORE + "the hook-file discovery and the merge of hook results (overrideInput: the later wins)",
        "certain": True,
    }
    for folder in (".clinerules/hooks", ".cline/hooks")
)
ENV_FILES: tuple = ()  # no dotenv loading found in the CLI's packages
GUARDED_FILES: tuple = ()
GUARDED_FOLDERS = (".clinerules/hooks", ".cline/hooks")  # the workspace hook folders (pasture's hooks among them)
# what the guard's cheap screen looks for in a shell command before reading it (pasture.runtime.builtin)
SCREEN_WORDS = (".cline",)
USER_DIR = ("CLINE_DIR", "home", ".cline")  # @cline/shared resolveClineDir: $CLINE_DIR, else ~/.cline
ENV_PREFIX = "CLINE_"
GUARDED_USER_FILES: tuple = ()
GUARDED_USER_FOLDERS = ("hooks",)
# the fourth hook folder, below the home folder whatever CLINE_DIR says
# (@cline/shared resolveDocumentsClineDirectoryPath)
GUARDED_HOME_FOLDERS = ("Documents/Cline/Hooks",)
# no managed (administrator) channel: every hook folder is the user's or the workspace's
GUARDED_SYSTEM_FILES: tuple = ()
GUARDED_SYSTEM_FOLDERS: tuple = ()
# the workspace whose hook folders Cline reads is the git work tree's top folder of the folder it starts in
# (the CLI's `git -C <cwd> rev-parse --show-toplevel`), else that folder: its own doctor check says which
PROJECT_ADAPTER_ROOT_ONLY = "cline-start-folder"
