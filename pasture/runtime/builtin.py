"""The guard protects itself: built-in rules that deny the agent writing to pasture's own files.

On in every evaluation; only the user or managed layer can switch them off (`[builtin]
protect_guard_files = false`). Protected: the project's `.pasture/` (policy, journal) and a
`.pasture/` anywhere (one project, one layer: pasture.runtime.project), the adapter files `pasture
install` writes (project and user scope), the user and managed policies, the trust store, pasture's
launcher, data and cache folders. Caught: every host's file tools (Claude Write, Edit, MultiEdit,
NotebookEdit; Codex apply_patch; OpenCode write, edit, patch, apply_patch) and shell commands that
write or delete those paths or run `pasture policy trust|untrust`, `pasture install|uninstall`,
read on the words bash will see (pasture.runtime.shellwrites, pasture.runtime.shellparse), and a
patch's own file headers, as in an `apply_patch` heredoc Codex applies from its shell. What each
host really sends for these tools: tests/runtime/file_tool_payloads/.

A path part only known at run time (UNKNOWN from the reading: `cd $X && : > settings.json`) counts as
possibly any protected path; past the reading's budget the line is judged on its own words (`_unread`).
Not caught, and cannot be by a hook: a program the agent writes elsewhere and then runs (a script,
`python -c`, a build step), whole values only known at run time (the environment, a substitution's
output), or tools that write without naming the file. The hooks' job is to make the plain ways fail
loudly; the user layer's policy and an OS sandbox are the defence in depth.
"""

from pasture.runtime import fs, layers

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the hook path pays for every import
if TYPE_CHECKING:
    from typing import Callable

    from pasture.runtime.shellwrites import Budget

RULE = "guard-files"
REASON = (
    "pasture: {path} belongs to the guard (its policy, journal, hook adapters or trust store) and is off "
    "limits to the agent; leave it unchanged. A person can change it outside the agent session."
)

GUARD_COMMAND = (
    "pasture: `{command}` changes what the guard enforces; only the user runs it, outside the "
    "agent session. Do not run it; ask the user if the policy is in your way."
)

# Cheap screen before any parsing. It is a superset of what the reading in pasture.runtime.shellwrites
# can deny, so it may only add work: it looks at the text with every quote and backslash (and
# backslash-newline) removed, for the guard's names and the basename of every protected path, the
# delete verbs (a folder above ours), and what can spell a name without writing it: $'...' escapes,
# brace expansion, globs, and variables the line itself sets (`$` with `=`: the reading resolves them).
# Each host adds its folders' names (hostwire/<wire>.py SCREEN_WORDS, compiled with the policy).
TOO_LONG = (
    "pasture: this shell command is {size} characters long and names something like the guard's files; "
    "the guard reads at most {limit}. Split it into shorter commands, or write it to a script file."
)

_SCREEN = (
    "pasture",
    "settings",
    "hooks.json",
    "config.toml",
    "plugin",
    "trust",
    "pasture",
    "install",
    ".git",
    "init",
    "rm",
    "mv",
    "unlink",
    "shred",
    "find",
    "rsync",
    "clean",
    "..",
    "/proc/",
    "pwd",
    "~",  # a home (`~`, `~user`, `~-`) that may be above ours
    "cd",  # the folder cd/pushd/popd enter (`cd $X`, `cd -`, `cd ~user`) may be any of ours
    "pushd",
    "popd",
    "{",
    "*",
    "?",
    "[",
)
_NAMES: dict = {}


def screen(command: str, files: tuple, folders: tuple, words: tuple | None = None) -> bool:
    """False only when no reading of the command can name a protected path or a guard command. `words`:
    every host's SCREEN_WORDS as the policy was compiled with them (None: read from the wires now)."""
    if "$'" in command or ("$" in command and "=" in command):
        return True
    if ("$" in command or "`" in command) and ("sh" in command or "xargs" in command):
        return True  # `sh -c '...' _ "$X"`: a script's parameter only known at run time

    # lower case: on a case-insensitive file system (macOS) .PASTURE/ is .pasture/
    if "$" in command:  # `.pas$u"ture"`: an unset variable is empty, so the name is read without it too
        command += "\n" + _unexpanded(command)
    flat = command.replace("\\\n", "").replace("'", "").replace('"', "").replace("\\", "").lower()
    names = _NAMES.get((files, folders, words))
    if names is None:
        extra = {fs.basename(p).lower() for p in files + folders if fs.basename(p)}
        hosts = screen_words() if words is None else words
        names = _NAMES[(files, folders, words)] = _SCREEN + tuple(hosts) + tuple(sorted(extra))
    for name in names:
        if name in flat:
            return True
    return False


def screen_words() -> tuple:
    """Every host's SCREEN_WORDS (its folders' names), in the hook's registry order."""
    from pasture.runtime.hostwire.guarded import modules  # compiled with the policy, off the hook path

    return tuple(dict.fromkeys(word for wire in modules() for word in wire.SCREEN_WORDS))


def _unexpanded(flat: str) -> str:
    out, i, n = [], 0, len(flat)
    while i < n:
        if flat[i] != "$":
            out.append(flat[i])
            i += 1
        elif flat.startswith("${", i):
            end = flat.find("}", i)
            i = n if end < 0 else end + 1
        else:
            i += 1
            while i < n and (flat[i].isalnum() or flat[i] in "_@*#?!-"):
                i += 1
    return "".join(out)


_UNKNOWN = "\ue0ff"  # pasture.runtime.shellwrites.UNKNOWN: a part of a path the reading cannot know
_FILE_KEYS = ("file_path", "filePath", "notebook_path", "notebookPath", "path")
_PATCH_KEYS = ("patch", "patchText", "patch_text", "input", "command")
_PATCH_HEADERS = ("*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ", "+++ ", "--- ")


def protected(root: str, env: dict) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(files, folders) the agent may not write, each as written and resolved through symlinks."""
    import os  # compiled with the policy, off the hook path

    from pasture.runtime.hostwire.guarded import host_paths

    # Each host's settings that hold hooks or off-switches, and its adapter folders: declared by the host
    # (pasture/runtime/hostwire/<host>.py GUARDED_*), project and user scope.
    host_files, host_folders = host_paths(root, env)
    config = layers.config_home(env)
    files = [
        *host_files,
        # the policies; both() below adds the file each resolves to (a symlinked policy's target)
        layers.project_path(root),
        layers.user_path(env),
        layers.managed_path(env),
        env.get("PASTURE_TRUST_STORE") or os.path.join(layers.state_dir(env), "trust.json"),
        # beside the trust store wherever PASTURE_TRUST_STORE puts it: the cache key and until's counters
        layers.cache_key_path(env),
    ]
    folders = [
        os.path.join(root, ".pasture"),
        *host_folders,
        os.path.join(config, "pasture"),
        layers.state_dir(env),
        layers.data_dir(env),
        layers.cache_dir(env),
        os.path.dirname(layers.MANAGED_DEFAULT),
        os.path.join(os.path.dirname(layers.trust_store_path(env)), "until"),
    ]
    # The runtime's own code, which the launcher imports: rewriting builtin.py switches the guard off.
    # Not where it is inside this project (a checkout of pasture the agent works on: that is its job).
    import sys

    inside = os.path.realpath(root) + os.sep
    for name in ("pasture", "pasture_contracts"):
        # imported here if it is not yet: the set must not depend on what this process happened to
        # import (the hook has the contract tables loaded, doctor not), or doctor's compile of the
        # same policy differs from the hook's and reads as a rewritten cache (issue 28)
        module = sys.modules.get(name)
        if module is None:
            try:
                module = __import__(name)
            except ImportError:
                module = None
        where = getattr(module, "__file__", None)
        if isinstance(where, str):
            package = os.path.dirname(os.path.realpath(where))
            if not (package + os.sep).startswith(inside):
                folders.append(package)

    def both(paths: list[str]) -> tuple[str, ...]:
        out: list[str] = []
        for path in paths:
            for form in (os.path.normpath(path), os.path.realpath(path)):
                if form not in out:
                    out.append(form)
        return tuple(out)

    return both(files), both(folders)


def _hits(path: str, files: tuple[str, ...], folders: tuple[str, ...], ancestors: bool) -> bool:
    if path in files or path in folders:
        return True
    low = path.lower()  # a case-insensitive file system (macOS) writes .Claude/Settings.json as ours
    if low != path:
        lower = _lowered(files, folders)
        if _hits(low, lower[0], lower[1], ancestors):
            return True
    if "/.pasture/" in path or path.endswith("/.pasture"):
        return True  # one project, one layer: a `.pasture/` anywhere (src/.pasture/policy.toml) is ours
    for folder in folders:
        if path.startswith(folder + "/"):
            return True
    if ancestors:  # deleting or moving a folder takes what is inside it along
        prefix = path.rstrip("/") + "/"
        return any(p.startswith(prefix) for p in files + folders)
    return False


_LOWER: dict = {}


def _lowered(files: tuple, folders: tuple) -> tuple:
    found = _LOWER.get((files, folders))
    if found is None:
        found = _LOWER[(files, folders)] = (tuple(p.lower() for p in files), tuple(p.lower() for p in folders))
    return found


def _glob_hits(path: str, files: tuple[str, ...], folders: tuple[str, ...], ancestors: bool) -> bool:
    from pasture.runtime.shellwrites import glob_match as _match  # loaded already: only its reading finds globs

    parts = [p for p in path.split("/") if p]
    if any(_match(part, ".pasture") for part in parts):
        return True
    for protected in files + folders:
        target = [p for p in protected.split("/") if p]
        size = min(len(parts), len(target))
        if not all(_match(a, b) for a, b in zip(parts[:size], target[:size], strict=False)):
            continue
        if (
            len(parts) == len(target)
            or (len(parts) < len(target) and ancestors)
            or (len(parts) > len(target) and protected in folders)
        ):
            return True
    return False


def _nested_git(path: str, root: str | None) -> bool:
    """A `.git` below the project root (`src/.git`): a session started in src/ would take src/ for the
    repository's top level, with no project layer (one project, one layer: pasture.runtime.project)."""
    if not root or not path.startswith(root.rstrip("/") + "/"):
        return False
    parts = path[len(root.rstrip("/")) + 1 :].split("/")
    return ".git" in parts[1:]


def _is_protected(
    target: str,
    cwd: str,
    home: str,
    files: tuple[str, ...],
    folders: tuple[str, ...],
    ancestors: bool = False,
    glob: bool = False,
    root: str | None = None,
) -> bool:
    if _UNKNOWN in target or (_UNKNOWN in cwd and not target.startswith(("/", "~", "$"))):
        return True  # a path the reading cannot know (`cd $X && : > f`): possibly any of ours
    if target.startswith("~/") or target == "~":
        target = home + target[1:]
    for variable in ("$HOME", "${HOME}"):
        if target.startswith(variable):
            target = home + target[len(variable) :]
    # the shell's own folder, however it is spelled: ~+ (tilde), $PWD, /proc/self/cwd (the kernel's link)
    for variable in ("~+", "$PWD", "${PWD}", "$(pwd)", "`pwd`", "/proc/self/cwd", "/proc/thread-self/cwd"):
        if target == variable or target.startswith(variable + "/"):
            target = cwd + target[len(variable) :]
    if target.startswith("/proc/") and target.split("/")[3:4] == ["cwd"]:
        target = cwd + target[len("/proc/" + target.split("/")[2] + "/cwd") :]  # /proc/$$/cwd: the shell's
    path = fs.normpath(fs.join(cwd, target))
    if _hits(path, files, folders, ancestors) or _nested_git(path, root):
        return True
    if "/../" in "/" + target + "/" and _through_a_link(target, files, folders):
        return True
    if "/../" in cwd + "/" and not target.startswith("/") and _through_a_link(fs.join(cwd, target), files, folders):
        return True  # `cd s/../..` first, then a relative path
    if glob and _glob_hits(path, files, folders, ancestors):
        return True
    real = fs.realpath(fs.join(cwd, target))  # a symlink to a protected file is that file; `..` after it too
    return real != path and _hits(real, files, folders, ancestors)


def _through_a_link(target: str, files: tuple, folders: tuple) -> bool:
    """`s/../../.claude/settings.json`: the kernel takes `..` after following `s`, which the line may have
    just made (`ln -s a/b s`), so where it lands is unknown: what follows the last `..` is taken as ours
    when it starts with the last two parts (or more) of a guard file or folder."""
    parts = [p for p in target.split("/") if p and p != "."]
    tail = parts[len(parts) - parts[::-1].index("..") :]
    for path in files + folders:
        ends = [p for p in path.split("/") if p]
        for size in range(2, min(len(tail), len(ends)) + 1):
            if tail[:size] == ends[-size:] and (size == len(tail) or path in folders):
                return True
    return False


def _patch_paths(text: str) -> list[str]:
    found = []
    for line in text.splitlines():
        for header in _PATCH_HEADERS:
            if line.startswith(header):
                path = line[len(header) :].strip()
                if header in ("+++ ", "--- "):
                    if path == "/dev/null":
                        break
                    path = path.split("\t", 1)[0]
                    if path[:2] in ("a/", "b/"):
                        path = path[2:]
                if path:
                    found.append(path)
                break
    return found


def file_targets(envelope: dict) -> list[str]:
    tool_input = envelope.get("tool_input")
    if not isinstance(tool_input, dict):
        return []
    targets = [v for k in _FILE_KEYS if isinstance(v := tool_input.get(k), str) and v]
    for key in _PATCH_KEYS:
        value = tool_input.get(key)
        if isinstance(value, str) and ("*** " in value or "+++ " in value):
            targets += _patch_paths(value)
    return targets


UNKNOWN_REASON = (
    "pasture: this command writes {path}, where ? is only known when it runs (a variable, a command's "
    "output, cd into one), and it may be one of the guard's files (its policy, journal, hook adapters or "
    "trust store). Write to a literal path instead."
)
STOPPED = (
    'pasture: the guard stopped reading this shell command at {why} (docs/policy.md, "The guard protects '
    'itself"), and its word {word} {how}. Split it into shorter commands, or write it to a script file.'
)
CARRIED_ON = "the guard stopped reading the shell command at {why}; no word of it names the guard's files: let through"


def check(
    envelope: dict,
    files: tuple[str, ...],
    folders: tuple[str, ...],
    home: str,
    root: str,
    *,
    deadline: float | None = None,
    clock: "Callable[[], float] | None" = None,
    notes: list | None = None,
    words: tuple | None = None,
) -> str | None:
    """The deny reason when the event's tool writes to a protected path, else None. `deadline` (a
    time.perf_counter() instant, on `clock` when given) and the reader's step budget bound the reading
    of a shell command; past them the line is judged on its own words, and `notes` says so when it is
    let through. `words`: the hosts' screen words the policy was compiled with (:func:`screen`)."""
    kind = envelope.get("tool_kind")
    if kind is None:
        return None
    cwd = envelope.get("cwd")
    if not (isinstance(cwd, str) and fs.isabs(cwd)):
        # OpenCode sends no cwd: relative paths are relative to the folder the runtime runs in (the
        # plugin starts it in OpenCode's directory), as they are for the host's own tools.
        cwd = fs.getcwd() or root
    if kind in ("write", "edit"):
        for target in file_targets(envelope):
            if _is_protected(target, cwd, home, files, folders, root=root):
                return REASON.format(path=target)
        return None
    if kind == "shell":
        command = envelope.get("command")
        if not isinstance(command, str) or not screen(command, files, folders, words):
            return None
        # rare path: only commands that name something like ours
        from pasture.runtime.shellparse import MAX_TEXT
        from pasture.runtime.shellwrites import Budget, Exhausted

        if len(command) > MAX_TEXT:  # reading every word of megabytes would outlive the host's hook timeout
            return TOO_LONG.format(size=len(command), limit=MAX_TEXT)
        reading = deadline
        if deadline is not None:  # keep a quarter of what is left (at most 1 s) for judging the words
            import time

            clock = clock or time.perf_counter
            reading = deadline - min(1.0, max(deadline - clock(), 0.0) / 4)
        budget = Budget(deadline=reading, clock=clock)
        try:
            return _shell(command, cwd, home, files, folders, root, budget)
        except (Exhausted, RecursionError):
            why = budget.exhausted or "its nesting limit"
            reason = _unread(command, cwd, home, files, folders, root, why, deadline, clock)
            if reason is None and notes is not None:
                notes.append(CARRIED_ON.format(why=why))
            return reason
    return None


def _shell(
    command: str, cwd: str, home: str, files: tuple[str, ...], folders: tuple[str, ...], root: str, budget: "Budget"
) -> str | None:
    from pasture.runtime.shellwrites import emptied, guard_command, writes

    ran = guard_command(command, budget=budget)
    if ran is not None:
        return GUARD_COMMAND.format(command=ran)
    if "*** " in command or "+++ " in command:
        # The real run wins: Codex 0.171.0 runs `apply_patch <<'EOF' ... EOF` sent through its
        # shell tool as a patch, and its PreToolUse says tool_name "Bash" with the whole heredoc
        # as the command (tests/realhost/file_tools/, codex shell-apply-patch); the shell
        # reading below sees no file verb in it. Read the patch's own file headers instead.
        for target in _patch_paths(command):
            if _is_protected(target, cwd, home, files, folders):
                return REASON.format(path=target)
    for target, deletes, glob in writes(command, cwd, home, budget=budget):
        budget.spend(1)  # judging the paths counts too: the deadline stops it (then the words decide)
        directory, name = target
        if _is_protected(name, directory, home, files, folders, ancestors=deletes, glob=glob, root=root):
            if _UNKNOWN in name or _UNKNOWN in directory:
                where = name if name.startswith("/") or _UNKNOWN in name else directory + "/" + name
                return UNKNOWN_REASON.format(path=where[where.rindex(_UNKNOWN) :].replace(_UNKNOWN, "?"))
            return REASON.format(path=name)
        # .pas${u}ture with u unset; not `$OUT/x` (an unset prefix would make it absolute)
        bare = emptied(name) if "$" in name or "`" in name else name
        relative = name.startswith("/") or not bare.startswith("/")
        if (
            bare != name
            and bare
            and relative
            and _is_protected(bare, directory, home, files, folders, ancestors=deletes, glob=glob, root=root)
        ):
            return REASON.format(path=name)
    return None


_SEPARATORS = " \t\n;&|()<>="


def _unread(
    command: str,
    cwd: str,
    home: str,
    files: tuple[str, ...],
    folders: tuple[str, ...],
    root: str,
    why: str,
    deadline: float | None = None,
    clock: "Callable[[], float] | None" = None,
) -> str | None:
    """Past the reading's budget: the line on its own words. Refused when one names a guard path (as a
    delete would: a folder above ours too), could match one as a glob, holds a value the reading did not
    finish (any `$` or backquote part: it could be any path), the line names a guard command, or the
    row's deadline comes before every word is judged."""
    from pasture.runtime.shellwrites import _flat, _mentions

    flat = _flat(command)
    found = _mentions(flat)
    if found is not None:
        return STOPPED.format(why=why, word=repr("pasture " + found), how="runs a guard command")
    for ch in _SEPARATORS:
        flat = flat.replace(ch, " ")
    for count, word in enumerate(dict.fromkeys(flat.split())):
        if deadline is not None and clock is not None and count & 63 == 0 and clock() >= deadline:
            return STOPPED.format(why=why, word=repr(word[:80]), how="was not judged by the row's deadline")
        if "$" in word or "`" in word:
            return STOPPED.format(why=why, word=repr(word[:80]), how="holds a value the reading did not finish")
        glob = any(c in word for c in "*?[")
        if _is_protected(word, cwd, home, files, folders, ancestors=True, glob=glob, root=root):
            return STOPPED.format(why=why, word=repr(word[:80]), how="names the guard's files")
    return None
