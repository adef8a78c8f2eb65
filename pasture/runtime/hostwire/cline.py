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
    """``tool_call`` (PreToolUse) and ``tool_result`` (PostToolUse) carry ``{id, name, input}``. The shell
    tool's input gets a ``command`` the guard reads (every command Cline would run, :func:`commands_of`), the
    read tool's a ``file_paths`` (every file it would read)."""
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
    if name == "run_commands":
        base = tool_input if isinstance(tool_input, dict) else {"input": tool_input}
        # a "command" beside "commands" is not what Cline runs: ours replaces it
        tool_input = dict(base, command=joined(commands_of(tool_input)))
    elif name == "read_files":
        base = tool_input if isinstance(tool_input, dict) else {"input": tool_input}
        tool_input = dict(base, file_paths=_paths(tool_input))
    return name, tool_input


def commands_of(value: object) -> list:
    """Every command the shell tool runs for ``value``, as shell text, in the shapes its own reader takes
    (@cline/core dist/index.js ``aZ``: a string, a list, ``{commands}`` as a list, a string or one item,
    ``{command, args}``, ``{command}``, ``{cmd}``); an item ``{command, args}`` runs that program with those
    arguments, no shell, so its text is the argv quoted word by word. A string that is JSON is read both as
    itself and as what it holds (Cline may parse it); anything else is read as its JSON text."""
    if isinstance(value, str):
        return [value] + (commands_of(_parsed(value)) if value.lstrip()[:1] in ("[", "{") else [])
    if isinstance(value, list):
        return [text for item in value for text in _item(item)]
    if isinstance(value, dict):
        if "commands" in value:
            inner = value["commands"]
            return commands_of(inner) if isinstance(inner, (list, str)) else _item(inner)
        if "command" in value:
            return _item(value) if "args" in value else commands_of(value["command"])
        if "cmd" in value:
            return commands_of(value["cmd"])
    return _item(value)


def _item(item: object) -> list:
    if isinstance(item, str):
        return [item]
    if isinstance(item, dict) and isinstance(item.get("command"), str):
        args = item.get("args") or []
        if isinstance(args, list) and all(isinstance(a, str) for a in args):
            return [" ".join(_quoted(word) for word in [item["command"], *args])]
    return [dumps(item)]


_SAFE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%_+=:,./-")


def _quoted(word: str) -> str:
    """One shell word (shlex.quote's rule, without importing shlex and its regex engine on the hook path)."""
    if word and all(c in _SAFE for c in word):
        return word
    return "'" + word.replace("'", "'\\''") + "'"


def _parsed(text: str) -> object:
    from json import loads

    try:
        return loads(text)
    except ValueError:
        return None


def _paths(value: object) -> list:
    """Every path the read tool's input names: ``{files: [{path}]}``, ``file_paths``, ``paths``, a list."""
    out: list = []
    if isinstance(value, dict):
        for key in ("files", "file_paths", "paths", "path", "file_path"):
            out += _paths(value.get(key)) if key in value else []
    elif isinstance(value, list):
        for item in value:
            out += _paths(item)
    elif isinstance(value, str):
        out.append(value)
    return out


def joined(commands: list) -> str:
    """The shell tool's commands as one text the guard reads. One command is read as it is. Several are
    read each as the script of its own ``bash -c`` word, one per line: Cline runs each on its own, so
    nothing of one (an open quote or here-document, a last backslash, a for-list) may run on into the
    next as the reader sees them, and the reader reads a ``bash -c`` script as the commands it runs.
    A regular-expression rule sees that text (an allow written for one bare command does not match)."""
    if len(commands) == 1:
        return commands[0]
    return "\n".join("bash -c " + _quoted(command) for command in commands)


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
        "off_when": when,
        "why": "Cline runs that repository hook beside pasture's, and its overrideInput replaces what the guard "
        "refused or approved",
        "fix": f"remove the PreToolUse hook from {folder} (or review it and install with --force)",
        "evidence": _CORE + "the hook-file discovery and the merge of hook results (overrideInput: the later wins)",
        "certain": True,
    }
    # pasture installs into .cline/hooks only: in .clinerules/hooks every PreToolUse file is the repository's
    for folder, when in ((".clinerules/hooks", "event-hook"), (".cline/hooks", "foreign-hook"))
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
