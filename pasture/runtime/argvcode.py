"""Where in an argv a `{file_path}` would be read as code or as the program, not as a file argument.

The agent chooses the file's name (`a;touch PWNED;b.py` is a valid name), so an [[after]] command may
hand it to a program only as an argument of its own, never as the program, a shell's `-c` script or
an interpreter's one-liner. `code_use(argv, index)` says why argv[index] would be read as code, or
None. It looks at every item that names a shell or interpreter (also behind a wrapper such as `env`,
`sudo` or `xargs`, or as an argument of another program): a false refusal costs the policy's author a
rewrite, a missed one runs the agent's text outside the host's sandbox.
"""

from __future__ import annotations

SHELLS = frozenset(("sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "fish", "csh", "tcsh"))
PYTHONS = ("python", "pypy")
# interpreter -> the options whose value is code (a cluster ending in one of the letters counts too)
ONE_LINERS = {
    "perl": "eE",
    "ruby": "eE",
    "node": "epE",
    "nodejs": "epE",
    "bun": "ep",
    "osascript": "e",
    "php": "rB",
    "lua": "e",
    "r": "e",
    "rscript": "e",
    "su": "c",
    "script": "c",
}
LONG_CODE = frozenset(("--eval", "--command", "--print", "--init-command", "--source", "--expression", "--exec"))
POWERSHELLS = frozenset(("pwsh", "powershell"))
# programs that run the next plain word as a program
WRAPPERS = frozenset(
    (
        "env",
        "sudo",
        "doas",
        "nice",
        "nohup",
        "timeout",
        "stdbuf",
        "xargs",
        "exec",
        "command",
        "builtin",
        "time",
        "setsid",
        "ionice",
        "chrt",
        "taskset",
        "flock",
        "unbuffer",
        "chronic",
        "strace",
        "ltrace",
        "eval",
    )
)
AWKS = frozenset(("awk", "gawk", "mawk", "nawk", "busybox-awk"))


def program_name(item: str) -> str:
    """`/usr/bin/Python3.12.exe` -> `python`, `bash5` -> `bash`: the name a shell or interpreter goes
    by, in lower case (a case-insensitive file system runs `BASH` as bash), without a version."""
    name = item.replace("\\", "/").rsplit("/", 1)[-1].lower()
    name = name[:-4] if name.endswith(".exe") else name
    return name.rstrip("0123456789.-") or name


def _is_python(name: str) -> bool:
    return name in PYTHONS


def _is_option(item: str) -> bool:
    return item.startswith(("-", "+")) and item not in ("-", "--", "+")


def _shell(args: list[str], target: int) -> str | None:
    """args follow a shell; is args[target] its -c script (or a value of an option that runs code)?"""
    has_c = False
    i = 0
    while i < len(args):
        item = args[i]
        if item in ("--", "-"):
            i += 1
            break
        if not _is_option(item):
            break
        if item.startswith("--"):
            if item in LONG_CODE:
                if i + 1 == target:
                    return f"the script of {item}"
                has_c = item == "--command"
                i += 1
            elif item in ("--rcfile", "--init-file"):
                i += 1
            i += 1
            continue
        letters = item[1:]
        if "c" in letters and item[0] == "-":
            has_c = True
        consumed = sum(letters.count(x) for x in "oOC")
        if "C" in letters and target in range(i + 1, i + 1 + consumed):
            return f"the code of {item}"  # fish -C runs its value
        i += 1 + consumed
    if has_c and i == target:
        return "the script of -c"
    return None


def _python(args: list[str], target: int) -> str | None:
    i = 0
    while i < len(args) and _is_option(args[i]) and args[i] != "--":
        item = args[i]
        if item.startswith("--"):
            i += 1
            continue
        letters = item[1:]
        for pos, letter in enumerate(letters):
            if letter in "cmWX":
                if pos == len(letters) - 1:
                    if letter == "c" and i + 1 == target:
                        return f"the code of {item}"
                    if letter in "cm":
                        return None  # the rest are the one-liner's (or module's) arguments
                    i += 1
                elif letter in "cm":
                    return None  # the code is attached; the rest are its arguments
                break
        i += 1
    return None


def _one_liner(name: str, args: list[str], target: int) -> str | None:
    letters_of_code = ONE_LINERS[name]
    for i, item in enumerate(args[:target]):
        if item == "--":
            return None
        if item in LONG_CODE and i + 1 == target:
            return f"the code of {item}"
        if item.startswith("-") and not item.startswith("--") and item[-1] in letters_of_code and i + 1 == target:
            return f"the code of {item}"
    return None


def _powershell(args: list[str], target: int) -> str | None:
    """PowerShell joins everything after -Command (-c) into the script, and Windows PowerShell reads a
    first plain argument as a command: the path may only follow -File (-f)."""
    for item in args[:target]:
        word = item.lower().lstrip("-/")
        code = word == "ec" or "command".startswith(word) or "encodedcommand".startswith(word)  # -ec: an alias
        if item[:1] in "-/" and word and code:
            return f"part of the script of {item}"
        if item[:1] in "-/" and word and "file".startswith(word):
            return None
    return "read as a command (pass it after -File)"


def _cmd(args: list[str], target: int) -> str | None:
    for item in args[:target]:
        if item.lower() in ("/c", "/k", "/r"):
            return f"part of the command line of {item}"
    return None


def _awk(args: list[str], target: int) -> str | None:
    sourced = False
    i = 0
    while i < len(args) and _is_option(args[i]):
        item = args[i]
        if item == "--":
            i += 1
            break
        if item in ("-e", "--source") and i + 1 == target:
            return f"the program of {item}"
        if item in ("-f", "--file", "-e", "--source") or item.startswith(("-f", "--file=", "-e", "--source=")):
            sourced = True  # the program comes from these; plain words are inputs
        i += 2 if item in ("-F", "-v", "-f", "--file", "-e", "--source", "-i", "-l", "--include", "--load") else 1
    return "the awk program" if not sourced and i == target else None


def _sed(args: list[str], target: int) -> str | None:
    scripted = False
    i = 0
    while i < len(args) and _is_option(args[i]):
        item = args[i]
        if item in ("-e", "--expression") or item in ("-f", "--file"):
            if item in ("-e", "--expression") and i + 1 == target:
                return f"the script of {item}"
            scripted = True
            i += 2
            continue
        if item.startswith(("--expression=", "--file=")) or (item[:2] in ("-e", "-f") and len(item) > 2):
            scripted = True
        i += 1
    return "the sed script" if not scripted and i == target else None


def _wrapped(args: list[str], target: int) -> str | None:
    """A wrapper runs its first plain word (not an option, an assignment or a number) as the program;
    the word after a short option (`sudo -u root`, `nice -n 10`) may be that option's value or the
    program, so both count."""
    after_short = False
    for i, item in enumerate(args):
        if _is_option(item):
            after_short = len(item) == 2 and item[0] == "-"
            continue
        if i == target:
            return "the program a wrapper runs"
        if "=" in item or item.replace(".", "").rstrip("smhd").isdigit() or after_short:
            after_short = False
            continue
        return None
    return None


def _joined(name: str, args: list[str], target: int) -> str | None:
    """watch (without -x) and ssh join their words into a line a shell reads."""
    if name == "watch" and not any(a in ("-x", "--exec") for a in args[:target]):
        return "part of the line watch hands to sh -c (use watch -x)"
    if name == "ssh":
        return "part of the remote command line ssh hands to a shell"
    return None


def code_use(argv: list[str] | tuple[str, ...], index: int) -> str | None:
    """Why argv[index] would be read as code or as the program to run, or None when it is a plain argument."""
    if index == 0:
        return "the program"
    for start in range(index):
        name = program_name(argv[start])
        args, target = list(argv[start + 1 :]), index - start - 1
        found = None
        if name in SHELLS:
            found = _shell(args, target)
        elif _is_python(name):
            found = _python(args, target)
        elif name in ONE_LINERS:
            found = _one_liner(name, args, target)
        elif name in POWERSHELLS:
            found = _powershell(args, target)
        elif name == "cmd":
            found = _cmd(args, target)
        elif name in AWKS:
            found = _awk(args, target)
        elif name in ("sed", "gsed"):
            found = _sed(args, target)
        elif name in WRAPPERS:
            found = _wrapped(args, target)
        elif name in ("watch", "ssh"):
            found = _joined(name, args, target)
        elif name == "deno" and args[:1] == ["eval"] and target == 1:
            found = "the code of deno eval"
        if found:
            return f"{found} ({argv[start]!r})" if start else found
    return None
