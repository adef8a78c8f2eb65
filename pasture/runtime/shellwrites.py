"""What a shell command runs and writes, on the words the shell will see (pasture.runtime.shellparse).

Reached only for commands the cheap screen in pasture.runtime.builtin lets through. Every simple
command of the line counts, wherever it sits: in `{ }`, `( )`, `if/for/while/case`, after `&&`,
`||`, `;`, `|` or `&`, inside `$(...)`, backquotes or `<(...)`, in a script handed to a shell
(`bash -c '...'`, `sh -lc "..."`, `eval '...'`, `su -c`, `script -c`, `flock -c`, `watch '...'`), a
here-document or here-string a shell reads, or the output of an earlier command piped into a shell
(`echo '...' | sh`) or into `xargs`, a few levels deep. `cd DIR` and `pushd DIR` move the working
folder for what follows.

Guard commands (`guard_command`) are found at any position of a simple command, so every wrapper
(`timeout 60`, `nice -n 5`, `env -i X=1`, `sudo -u u`, `nohup`, `setsid`, `stdbuf -oL`, `command`,
`exec`, `xargs`, `find -exec`, `time`, ...) is looked through, known or not; the program is `pasture`
or `pasture-hook` by any path, or a Python (`python`, `python3.12`, `pypy3`, any path) running
`-m pasture[.anything]`, a script or `-c` code naming the package. The subcommand is found past
the program's own options (`pasture --root X policy trust`).

Writes (`writes`) are redirections, the usual file verbs after a wrapper in _WRAPPERS (rm, mv, cp, tee,
sed -i, truncate, mkdir, ln, dd of=, find -delete, find -exec, curl -o, tar -C, ...). A command the reader
cannot follow counts as touching every word it names. Out of reach, and said so in docs/policy.md:
values only known at run time (variables the line does not set other than $HOME and $PWD, the output
of a substitution), a script file a shell runs, and a program that writes without naming the file.
"""

from pasture.runtime import fs  # posixpath's basename/join/normpath without importing os (-I -S does not load it)
from pasture.runtime.shellparse import Unparsable, Word, parse

# verb -> which of its plain arguments it writes: "all" or "last" (cp-like: the destination)
_VERBS = {
    "rm": "all",
    "rmdir": "all",
    "unlink": "all",
    "shred": "all",
    "mv": "all",
    "tee": "all",
    "truncate": "all",
    "touch": "all",
    "chmod": "all",
    "chown": "all",
    "chgrp": "all",
    "mkdir": "all",
    "ln": "all",
    "cp": "last",
    "install": "last",
    "rsync": "last",
    "ditto": "last",
    "mkfifo": "all",
    "mknod": "all",
    "sponge": "all",
}
_DELETES = {"rm", "rmdir", "unlink", "shred", "mv"}
_IN_PLACE = {"sed", "perl", "gsed"}
_SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "busybox"}
_STRING_RUNNERS = {"su", "runuser", "script", "flock"}  # -c STRING runs STRING in a shell
_WRAPPERS = {
    "sudo",
    "doas",
    "env",
    "command",
    "builtin",
    "exec",
    "nohup",
    "time",
    "nice",
    "ionice",
    "xargs",
    "timeout",
    "stdbuf",
    "setsid",
    "chrt",
    "taskset",
    "unbuffer",
    "chroot",
    "find",
    "watch",
    "flock",
    "strace",
    "ltrace",
    "caffeinate",
    "systemd-run",
    "unshare",
    "nsenter",
    "firejail",
    "bwrap",
    "cgexec",
    "runuser",
    "su",
    "script",
    "busybox",
    "toybox",
    "eatmydata",
    "nocache",
    "fakeroot",
    "faketime",
    "chronic",
    "torsocks",
    "proxychains",
    "proxychains4",
    "catchsegv",
    "valgrind",
    "gosu",
    "su-exec",
    "setpriv",
    "prlimit",
    "numactl",
    "systemd-inhibit",
    "dbus-run-session",
    "ifne",
    "sg",
    "arch",
    "sandbox-exec",
    "uv",
    "uvx",
    "pipx",
    "poetry",
    "pdm",
    "hatch",
    "npx",
    "pnpm",
    "yarn",
    "bun",
    "direnv",
    "fakechroot",
}
_CHDIR = {"env": ("-C", "--chdir"), "sudo": ("-D", "--chdir")}  # wrappers that move the working folder
# programs that write the file (or into the folder) an option names: curl -o F, tar -x -C DIR, unzip -d DIR
_OUTPUT_OPTIONS = {
    "curl": ("-o", "--output"),
    "wget": ("-O", "--output-document"),
    "sort": ("-o", "--output"),
    "tar": ("-C", "--directory"),
    "unzip": ("-d",),
    "patch": ("-o", "--output"),
}
_KNOWN = set(_VERBS) | _IN_PLACE | set(_OUTPUT_OPTIONS) | {"cd", "pushd", "popd", "dd", "git"}
_DEPTH = 6  # scripts inside scripts: deep enough for `sudo bash -c "sh -c '...'"`, bounded against bombs
_MAX_COMMANDS = 2000
# options whose value is the next word, so that value is not a path the verb writes
_VALUED = {
    "truncate": {"-s", "--size", "-r", "--reference"},
    "install": {"-m", "--mode", "-o", "-g", "-t", "--target-directory"},
    "cp": {"-t", "--target-directory"},
    "mv": {"-t", "--target-directory"},
    "ln": {"-t", "--target-directory"},
    "mkdir": {"-m", "--mode"},
    "mknod": {"-m", "--mode"},
    "mkfifo": {"-m", "--mode"},
}
_TARGETED = {"cp", "mv", "ln", "install"}  # -t DIR: the folder every source is written into
_OUTPUT = {">", ">>", ">|", "&>", "&>>", "<>", ">&"}
GUARD_WORDS = ("trust", "install")  # in "untrust" and "uninstall" too
_PROGRAMS = ("pasture", "pasture-hook")
_INTERPRETERS = ("python", "pypy")
_CODE_RUNNERS = {"perl": "-e", "ruby": "-e", "node": "-e", "deno": "eval", "php": "-r"}


def _flat(text: str) -> str:
    """The text with every quote and backslash removed: what the loose readings below look at."""
    return text.replace("\\\n", "").replace("'", "").replace('"', "").replace("\\", "")


def _shell_script(words: list, start: int):
    """For a shell at words[start]: ("c", script) for `-c SCRIPT`, ("stdin", None) when it reads its
    standard input, None when it runs a script file."""
    index = start + 1
    while index < len(words):
        arg = words[index]
        if arg == "--":
            return ("stdin", None) if index + 1 >= len(words) else None
        if arg.startswith("--"):
            index += 1  # --norc, --login, ...
            continue
        if arg.startswith(("-", "+")) and len(arg) > 1:
            if "c" in arg[1:]:
                return ("c", words[index + 1]) if index + 1 < len(words) else None
            if arg[1:2] == "o" or arg in ("-O", "+O"):
                index += 1  # -o errexit: the option's value
            index += 1
            continue
        return None
    return ("stdin", None)


def _runner_script(words: list, start: int):
    for index in range(start + 1, len(words)):
        arg = words[index]
        if arg in ("-c", "--command") or (arg.startswith("-") and not arg.startswith("--") and arg.endswith("c")):
            return words[index + 1] if index + 1 < len(words) else None
        if arg.startswith("--command="):
            return arg[len("--command=") :]
    return None


def _scripts(cmd, previous) -> list:
    """Scripts this simple command hands to a shell, wherever the shell sits among its words."""
    words = cmd.argv()
    out = []
    upstream = []  # what the previous command of a pipeline writes: its words and here-documents
    if cmd.piped and previous is not None:
        upstream = previous.argv()[1:] + previous.stdin
    for index, word in enumerate(words):
        name = fs.basename(word)
        if name in _SHELLS:
            found = _shell_script(words, index)
            if found is None:
                continue
            if found[0] == "c":
                out.append(found[1])
            else:
                out += cmd.stdin + upstream
        elif name == "eval":
            out.append(" ".join(words[index + 1 :]))
        elif name in _STRING_RUNNERS:
            script = _runner_script(words, index)
            if script is not None:
                out.append(script)
        elif name == "watch":
            rest = [w for w in words[index + 1 :] if not w.startswith("-")]
            if rest:
                out.append(" ".join(rest))
        elif name == "env":  # env -S 'pasture policy trust' splits its string into a command
            for at, arg in enumerate(words[index + 1 :], index + 1):
                if arg in ("-S", "--split-string") and at + 1 < len(words):
                    out.append(" ".join(words[at + 1 :]))
                elif arg.startswith(("--split-string=", "-S")) and len(arg) > 2:
                    out.append(arg.split("=", 1)[1] if arg.startswith("--") else arg[2:])
        elif name in ("sudo", "doas") and any(w in ("-s", "-i", "--shell", "--login") for w in words[index + 1 :]):
            out.append(" ".join(w for w in words[index + 1 :] if not w.startswith("-")))  # run by the shell
        elif name == "ssh":  # the remote command, which may well be this machine
            at = index + 1
            while at < len(words) and words[at].startswith("-"):
                at += 2 if words[at][-1] in "bcDEeFIiJLlmOopQRSWw" and len(words[at]) == 2 else 1
            if at + 1 < len(words):
                out.append(" ".join(words[at + 1 :]))
        elif name == "xargs" and cmd.piped:
            out += upstream  # `echo 'pasture policy trust' | xargs -I{} sh -c '{}'`: the words become commands
    return out


_DECLARE = {"export", "declare", "local", "readonly", "typeset"}


def _substitute(text: str, values: dict) -> str | None:
    """`$a$b`, `${p}ture`: the text with every variable the line set replaced; None when one is unknown
    or something else runs at run time."""
    if "$(" in text or "`" in text:
        return None
    out, i, n = [], 0, len(text)
    while i < n:
        if text[i] != "$":
            out.append(text[i])
            i += 1
            continue
        if text.startswith("${", i):
            end = text.find("}", i)
            name = text[i + 2 : end] if end > 0 else ""
            i = end + 1 if end > 0 else n
            value = _expansion(name, values)
            if value is None:
                return None
            out.append(value)
            continue
        else:
            j = i + 1
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            name, i = text[i + 1 : j], j
        if name == "IFS" and name not in values:
            out.append(" ")  # unset: bash splits on blanks
            continue
        if name not in values:
            if name not in _KEPT:
                return None
            out.append("${" + name + "}")
            continue
        out.append(values[name])
    return "".join(out)


_KEPT = ("HOME", "PWD")  # kept as written: the guard reads them where a path starts (pasture.runtime.builtin)


def _expansion(body: str, values: dict) -> str | None:
    """`${name}`, `${a[1]}` and the default forms `${X:-word}` `${X-word}` `${X:=word}` `${X:+word}`: the
    value the line set, else the default the line names (what an unset variable gives), else None."""
    for op in (":-", ":=", ":+", "-", "=", "+"):
        at = body.find(op)
        if at > 0 and all(c.isalnum() or c in "_[]@*" for c in body[:at]):
            name, word = body[:at], body[at + len(op) :]
            break
    else:
        name, word = body, None
    if word is None and name[-1:] in ("^", ",") and name.rstrip("^,") in values:  # ${x,,} ${x^^}: its case
        value = values[name.rstrip("^,")]
        return value.upper() if name.endswith("^") else value.lower()
    if "[" in name and name.endswith("]"):
        name = name[: name.index("[")]  # an array element: any of the elements the line set (all of them)
    if name in values and (word is None or "+" not in op):
        return values[name]
    if word is None:
        if name == "IFS":
            return " "  # unset: bash splits on blanks (`rm${IFS}-rf${IFS}.pasture`)
        return "${" + name + "}" if name in _KEPT else None
    return _substitute(word, values) if "$" in word else word


def emptied(text: str) -> str:
    """The word with every run-time part it holds taken as empty (`pas${u}ture`, `pas$@ture`: what an
    unset variable gives), for the guard to read as a name of its own too."""
    out, i, n = [], 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "`":
            end = text.find("`", i + 1)
            i = n if end < 0 else end + 1
        elif ch == "$" and text.startswith("${", i):
            end = text.find("}", i)
            i = n if end < 0 else end + 1
        elif ch == "$" and text.startswith("$(", i):
            depth, j = 0, i + 1
            while j < n:
                depth += (text[j] == "(") - (text[j] == ")")
                j += 1
                if depth == 0:
                    break
            i = j
        elif ch == "$" and i + 1 < n and (text[i + 1] in "@*" or text[i + 1].isalpha() or text[i + 1] == "_"):
            j = i + 2
            while j < n and text[i + 1] not in "@*" and (text[j].isalnum() or text[j] == "_"):
                j += 1
            i = j
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _resolve(cmd, values: dict) -> None:
    """Words made of variables this line set (`p=pasture; $p policy trust`) become what they hold."""
    if not values and not any("${" in w.text or "IFS" in w.text for w in cmd.words if not w.static):
        return
    words = []
    for word in cmd.words:
        text = None if word.static else _substitute(word.text, values)
        if text is None:
            words.append(word)
        elif word.quoted and "[@]" not in word.text and "${IFS}" not in word.text:  # "${a[@]}": one per element
            words.append(Word(text, True, True, word.glob, word.subs, 0))
        else:  # unquoted: split into fields as the shell does (on the IFS the line set, too)
            for sep in values.get("IFS", ""):
                text = text.replace(sep, " ")
            words += [Word(field, True, False, word.glob, [], 0) for field in text.split()]
    cmd.words = words


def _remember(cmd, values: dict) -> None:
    pairs = list(cmd.assigns) if not cmd.words else []
    if cmd.words and cmd.words[0].text in _DECLARE:
        for word in cmd.words[1:]:
            if "=" in word.text and not word.text.startswith("-"):
                name, _, value = word.text.partition("=")
                pairs.append((name, Word(value, word.static, word.quoted, word.glob, word.subs, 0)))
    texts = cmd.argv()
    if texts[:2] == ["set", "--"]:  # set -- a b: $1 $2, and "$@"
        pairs += [(str(n), w) for n, w in enumerate(cmd.words[2:], 1)]
        pairs.append(("@", Word(" ".join(texts[2:]), all(w.static for w in cmd.words[2:]), True, False, [], 0)))
    elif texts[:2] == ["printf", "-v"] and len(texts) > 3:  # printf -v d FORMAT [ARG]: d holds what it prints
        value = cmd.words[4] if len(texts) > 4 and texts[3] == "%s" else cmd.words[3]
        pairs.append((texts[2], value))
    elif texts and texts[0] in ("read", "mapfile", "readarray") and cmd.redirs and cmd.redirs[-1][0] == "<<<":
        names = [t for t in texts[1:] if not t.startswith("-")]
        if names:
            pairs.append((names[-1] if texts[0] != "read" else names[0], cmd.redirs[-1][1]))
    for name, value in pairs:
        text = value.text if value.static else _substitute(value.text, values)
        if text is None:
            values.pop(name, None)
        else:
            values[name] = text


def simple_commands(command: str, depth: int = 0, out: list | None = None, values: dict | None = None) -> list:
    """Every simple command the shell may run for `command`, nested scripts included, in order, with
    the variables the line itself sets read into the words that use them."""
    if out is None:
        out = []
    if values is None:
        values = {}
    if depth > _DEPTH:
        raise Unparsable("scripts nested too deep")
    commands, others = parse(command)
    for word in others:
        for sub in word.subs:
            simple_commands(sub, depth + 1, out, values)
    previous = None
    for cmd in commands:
        for word in cmd.words + [w for _, w in cmd.assigns] + [w for _, w in cmd.redirs]:
            for sub in word.subs:  # a substitution runs before the command it is part of
                simple_commands(sub, depth + 1, out, values)
        _resolve(cmd, values)
        _remember(cmd, values)
        texts = cmd.argv()
        if texts and texts[0] == "alias":
            for arg in texts[1:]:
                name, _, value = arg.partition("=")
                values["alias " + name] = value
        elif cmd.words and cmd.words[0].static and "alias " + texts[0] in values:
            # alias expansion: the shell reads what the alias stands for, then the rest of the words
            rest = " ".join("'" + t.replace("'", "'\\''") + "'" for t in texts[1:])
            simple_commands(values["alias " + texts[0]] + " " + rest, depth + 1, out, values)
        if cmd.piped and previous is not None and any(fs.basename(w) == "xargs" for w in cmd.argv()):
            # `... | xargs rm`: the upstream words become arguments (as a reviewer reads it, not split again)
            cmd.words = cmd.words + previous.words[1:]
        out.append(cmd)
        if len(out) > _MAX_COMMANDS:
            raise Unparsable("too many commands to read")
        for script in _scripts(cmd, previous):
            simple_commands(script, depth + 1, out, values)
        previous = cmd
    return out


# --- writes ------------------------------------------------------------------------------------------

# What `find -name PATTERN -delete` must not match: the guard's own names and the folders above them
# (pasture's own, and each host's declared guard files: pasture.runtime.hostwire.guarded).
from pasture.runtime.hostwire.guarded import guard_names as _guard_names  # noqa: E402

_GUARD_NAMES = _guard_names()


def glob_match(pattern: str, name: str, dots: bool = False) -> bool:
    """fnmatch for one path component, as the shell globs (no `re`): * ? [...]; a leading dot must be
    matched explicitly unless `dots` (find's -name matches it with *)."""
    if name.startswith(".") and not pattern.startswith(".") and not dots:
        return False
    p, n, star, mark = 0, 0, -1, 0
    while n < len(name):
        if p < len(pattern) and pattern[p] == "*":
            star, mark, p = p, n, p + 1
            continue
        if p < len(pattern):
            ch = pattern[p]
            if ch == "[" and pattern.startswith("[:", p + 1) and pattern.find(":]", p + 3) > 0:
                end = pattern.find("]", pattern.find(":]", p + 3) + 2)  # [[:alpha:]]: any character (a superset)
                if end > 0:
                    p, n = end + 1, n + 1
                    continue
            if ch == "[":
                end = pattern.find("]", p + 2)
                if end > 0:
                    body = pattern[p + 1 : end]
                    negate = body[:1] in ("!", "^")
                    body = body[1:] if negate else body
                    ranges = any(body[k] <= name[n] <= body[k + 2] for k in range(len(body) - 2) if body[k + 1] == "-")
                    if (ranges or name[n] in body) != negate:
                        p, n = end + 1, n + 1
                        continue
                elif name[n] == "[":
                    p, n = p + 1, n + 1
                    continue
            elif ch == "?" or ch == name[n]:
                p, n = p + 1, n + 1
                continue
        if star >= 0:
            p, mark = star + 1, mark + 1
            n = mark
            continue
        return False
    return all(c == "*" for c in pattern[p:])


def _find_deletes(words: list) -> list:
    """The start folders of `find ... -delete` whose -name/-path filter could match one of ours."""
    texts = [w.text for w in words]
    roots = [w for w in words[1:] if not w.text.startswith(("-", "(", "!"))][:1]
    for option in ("-name", "-iname", "-path", "-ipath", "-wholename", "-regex", "-iregex"):
        if option in texts and texts.index(option) + 1 < len(texts):
            pattern = texts[texts.index(option) + 1]
            if option.endswith("regex"):
                return roots  # a regular expression: assume it can
            tail = fs.basename(pattern) or pattern
            if not any(
                glob_match(tail, name, dots=True) or glob_match(tail.lower(), name, dots=True) for name in _GUARD_NAMES
            ):
                return []
    return roots or [words[0]]


def _loose_words(command: str) -> list:
    text = _flat(command)
    for ch in ";&|()<>`$={}":
        text = text.replace(ch, " ")
    return text.split()


def _option_writes(texts: list, options: tuple, here: str) -> list:
    """The values of the options that name what a program writes: `-o F`, `-sSLo F`, `-oF`, `--output=F`."""
    out = []
    for at, text in enumerate(texts):
        following = texts[at + 1] if at + 1 < len(texts) else None
        for option in options:
            if option.startswith("--"):
                if text == option and following is not None:
                    out.append(((here, following), False, False))
                elif text.startswith(option + "="):
                    out.append(((here, text[len(option) + 1 :]), False, False))
            elif text.startswith("-") and not text.startswith("--") and option[1] in text[1:]:
                value = text[text.index(option[1], 1) + 1 :]
                if value:
                    out.append(((here, value), False, False))
                elif following is not None:
                    out.append(((here, following), False, False))
    return out


def _moved(texts: list) -> str | None:
    """The folder `env -C DIR` / `env --chdir=DIR` / `sudo -D DIR` runs its command in, if any."""
    found = None
    for at, text in enumerate(texts):
        options = _CHDIR.get(fs.basename(text))
        if options is None:
            continue
        for later, arg in enumerate(texts[at + 1 :], at + 1):
            for option in options:
                if arg == option and later + 1 < len(texts):
                    found = texts[later + 1]
                elif arg.startswith(option + ("=" if option.startswith("--") else "")) and len(arg) > len(option):
                    found = arg[len(option) :].lstrip("=")
    return found


_GIT_WRITES = {
    "init": False,
    "rm": True,
    "mv": True,
    "clean": True,
    "checkout": False,
    "restore": False,
    "stash": False,
}


def _git_writes(args: list, here: str) -> list:
    """`git rm|mv|clean|checkout|restore PATH...`: the working-tree paths they remove or overwrite."""
    index = 0
    while index < len(args) and args[index].text.startswith("-"):
        index += 2 if args[index].text in ("-C", "-c", "--git-dir", "--work-tree") else 1
    if index >= len(args) or args[index].text not in _GIT_WRITES:
        return []
    sub = args[index].text
    paths = [a for a in args[index + 1 :] if not a.text.startswith("-")]
    if sub == "init":  # git init DIR: a repository of its own there (pasture.runtime.builtin._nested_git)
        return [((here, (paths[-1].text if paths else ".") + "/.git"), False, False)]
    if sub == "clean" and not paths:
        return [((here, "."), True, False)]  # git clean -fdx takes the journal with it
    return [((here, a.text), _GIT_WRITES[sub], a.glob) for a in paths]


def writes(command: str, cwd: str, home: str = "/") -> list:
    """[((folder, path as written), deletes?, glob?)] for every path the command plainly writes."""
    values: dict = {}
    try:
        commands = simple_commands(command, values=values)
    except (Unparsable, RecursionError):  # cannot be read: it touches everything it names, as a delete would
        return [((cwd, word), True, False) for word in dict.fromkeys(_loose_words(command))]
    out = []
    here = before = cwd
    stack: list = []  # pushd's folders
    restore = None
    for cmd in commands:
        if restore is not None:  # `env -C DIR` moved only the command it ran
            here, restore = restore, None
        for op, target in cmd.redirs:
            if op in _OUTPUT and not (op == ">&" and (target.text.isdigit() or target.text == "-")):
                text = target.text if target.static else (_substitute(target.text, values) or target.text)
                out.append(((here, text), False, target.glob))
                if not target.static and " " in text:  # an array's elements: each may be the one it is
                    out += [((here, field), False, target.glob) for field in text.split()]
        words = cmd.words
        texts = [w.text for w in words]
        if texts and fs.basename(texts[0]) in _WRAPPERS:
            # sudo -u root rm x, timeout 5 tee y, find . -exec rm {} +: look through to the first known verb
            if fs.basename(texts[0]) == "find" and "-delete" in texts:
                out += [((here, w.text if w is not words[0] else "."), True, w.glob) for w in _find_deletes(words)]
            known = next((i for i, t in enumerate(texts) if fs.basename(t) in _KNOWN), None)
            runs = [i for i, t in enumerate(texts) if t in ("-exec", "-execdir", "-ok", "-okdir")]
            if fs.basename(texts[0]) == "find" and runs and known is not None and known > runs[0]:
                # find DIR -exec rm {} +: the verb writes what find finds, everything below DIR its filter allows
                out += [((here, w.text if w is not words[0] else "."), True, w.glob) for w in _find_deletes(words)]
            moved = _moved(texts[:known])
            if moved is not None:
                restore, here = here, fs.normpath(fs.join(here, moved))
            words = words[known:] if known is not None else []
            texts = texts[known:] if known is not None else []
        if not words:
            continue
        verb = fs.basename(texts[0])
        args = words[1:]
        if verb == "popd":  # back to the folder the last pushd left
            here = stack.pop() if stack else here
            continue
        if verb in ("cd", "pushd"):
            plain = [w.text for w in args if not w.text.startswith("-") or w.text == "-"]
            target = plain[0] if plain else home
            if target == "-":  # cd -: the folder before
                here, before = before, here
                continue
            if target.startswith("~"):
                target = home + target[1:]
            if verb == "pushd":
                stack.append(here)
            before = here
            # `..` after a link is the kernel's to resolve: kept as written so the guard reads it as such
            joined = fs.join(here, target)
            here = joined if "/../" in joined + "/" else fs.normpath(joined)
            continue
        if verb == "git":
            out += _git_writes(args, here)
            continue
        if verb in _OUTPUT_OPTIONS:
            out += _option_writes([a.text for a in args], _OUTPUT_OPTIONS[verb], here)
            if verb == "patch":  # patch FILE [PATCH]: the file it patches
                plain = [a for a in args if not a.text.startswith("-")]
                out += [((here, a.text), False, a.glob) for a in plain[:1]]
            continue
        if verb == "dd":
            out += [((here, a.text[3:]), False, a.glob) for a in args if a.text.startswith("of=")]
            continue
        if verb in _IN_PLACE:
            texts = [a.text for a in args]
            if any(
                a.startswith("-i")
                or a.startswith("--in-place")
                or (a.startswith("-") and "i" in a[1:] and not a.startswith("--"))
                for a in texts
            ):
                positional = [a for a in args if not a.text.startswith("-")]
                scripted = any(a in ("-e", "--expression", "-f", "--file") for a in texts)
                out += [((here, a.text), False, a.glob) for a in (positional if scripted else positional[1:])]
            continue
        mode = _VERBS.get(verb)
        if mode is None:
            continue
        valued = _VALUED.get(verb, set())
        positional = []
        skip: bool | str = False  # True: skip the next word; "target": it is the folder written into
        for index, arg in enumerate(args):
            text = arg.text
            if skip:
                if skip == "target" or (index > 0 and args[index - 1].text in ("-t", "--target-directory")):
                    out.append(((here, text), verb in _DELETES, arg.glob))
                skip = False
                continue
            if text in valued:
                skip = True
                continue
            if text.startswith("--target-directory="):
                out.append(((here, text.split("=", 1)[1]), False, arg.glob))
                continue
            if verb in _TARGETED and text.startswith("-") and not text.startswith("--") and "t" in text[1:]:
                value = text[text.index("t", 1) + 1 :]  # -rt DIR, -t.pasture, -vt DIR: the folder it writes into
                if value:
                    out.append(((here, value), verb in _DELETES, arg.glob))
                else:
                    skip = "target"  # the next word is the folder
                continue
            if text.startswith("-") and text != "-":
                continue
            positional.append(arg)
        if verb in ("chmod", "chown", "chgrp") and positional:
            positional = positional[1:]  # the mode / owner
        if verb == "ln":  # a link to a folder above a guard file reaches the guard file through it
            out += [((here, a.text), True, a.glob) for a in (positional[:-1] if len(positional) > 1 else positional)]
        if verb == "mv":  # the sources vanish from where they were; the destination is written
            out += [((here, a.text), True, a.glob) for a in positional[:-1]]
            out += [((here, a.text), False, a.glob) for a in positional[-1:]]
            continue
        chosen = positional if mode == "all" else positional[-1:]
        out += [((here, a.text), verb in _DELETES, a.glob) for a in chosen]
    return out


# --- guard commands --------------------------------------------------------------------------------


def _is(word: str, name: str) -> bool:
    """The word is `name`, or a glob the shell may expand to it (`pastur?`, `tru*`: a file of that name)."""
    return word == name or (("*" in word or "?" in word or "[" in word) and glob_match(word, name))


def _subcommand(rest: list) -> str | None:
    """`policy trust` / `install` ... anywhere past the program's own options (and their values)."""
    for word in rest:
        for name in ("install", "uninstall"):
            if _is(word, name):
                return name
    for at, word in enumerate(rest):
        if _is(word, "policy"):
            for later in rest[at + 1 :]:
                for name in ("trust", "untrust"):
                    if _is(later, name):
                        return "policy " + name
    return None


def _mentions(code: str) -> str | None:
    """Code or a script string that names the program and a guard subcommand (`python -c '...'`)."""
    if "pasture" not in code:
        return None
    for word in ("uninstall", "install", "untrust", "trust"):
        if word in code:
            return ("policy " + word) if "trust" in word else word
    return None


def _python(words: list, start: int) -> str | None:
    """`python [options] -m pasture[.x] ...`, `python path/pasture/... ...`, `python -c CODE ...`."""
    index = start + 1
    while index < len(words):
        arg = words[index]
        if arg.startswith("-") and not arg.startswith("--") and len(arg) > 1:
            for at, flag in enumerate(arg[1:], 2):
                if flag not in "mcWX":
                    continue
                value = arg[at:] or (words[index + 1] if index + 1 < len(words) else "")
                rest = words[index + (1 if arg[at:] else 2) :]
                if flag == "m":
                    if "pasture" in value:
                        return _subcommand(rest)
                    for at, word in enumerate(rest):  # -m runpy pasture ...: a module that runs ours
                        if word == "pasture" or word.startswith("pasture.") or fs.basename(word) in _PROGRAMS:
                            return _subcommand(rest[at + 1 :])
                    return None
                if flag == "c":
                    return _mentions(value + " " + " ".join(rest))
                index += 0 if arg[at:] else 1  # -W / -X take a value
                break
            index += 1
            continue
        if arg.startswith("--"):
            index += 2 if arg == "--check-hash-based-pycs" else 1
            continue
        if "pasture" in arg:  # a script of the package, by path
            return _subcommand(words[index + 1 :])
        return None
    return None


def _guard_in(texts: list, statics: list, flat: str) -> str | None:
    """`flat`: the whole line without quotes, for what only run time decides (`"$@"`, an unknown `$X`)."""
    for index, word in enumerate(texts):
        name = fs.basename(word).lower()  # a case-insensitive file system (macOS) runs PASTURE too
        dynamic_rest = not all(statics[index + 1 :])
        if not statics[index] and fs.basename(emptied(word)).lower() in _PROGRAMS:
            found = _subcommand([emptied(t) for t in texts[index + 1 :]])  # pas${u}ture install: u unset
            if found is not None:
                return "pasture " + found
        if index == 0 and not statics[0]:
            # a program only known at run time (`$X policy trust`, "${a[@]}"): ours, when the line names ours
            found = _subcommand(texts[1:]) if "pasture" in word.lower() else _mentions(flat)
            if found is None and _subcommand(texts[1:]) in ("policy trust", "policy untrust"):
                found = _subcommand(texts[1:])
        elif any(_is(name, program) for program in _PROGRAMS) or (not statics[index] and "pasture" in word.lower()):
            found = _subcommand(texts[index + 1 :]) or (_mentions(flat) if dynamic_rest else None)
        elif name.startswith(_INTERPRETERS):
            found = _python(texts, index)
            if found is None and dynamic_rest and ("pasture" in " ".join(texts[index + 1 :])):
                found = _mentions(flat)
        elif name in _CODE_RUNNERS:  # perl -e/-E/-le, node --eval/-p, ruby -e, php -r: code on the line
            found = (
                _mentions(" ".join(texts[index + 1 :])) if any(t.startswith("-") for t in texts[index + 1 :]) else None
            )
        else:
            continue
        if found is not None:
            return "pasture " + found
    return None


def guard_command(command: str) -> str | None:
    """`pasture policy trust`, `pasture install`, ...: the commands that change what the guard enforces,
    which the agent must not run on the user's behalf. Returns the command as the user would type it."""
    flat = _flat(command)
    try:
        commands = simple_commands(command)
    except (Unparsable, RecursionError):  # cannot be read: it runs what it names
        found = _mentions(flat)
        return None if found is None else "pasture " + found
    aliases: dict = {}
    previous = None
    for cmd in commands:
        texts = cmd.argv()
        statics = [w.static for w in cmd.words]
        if texts and texts[0] == "alias":
            for arg in texts[1:]:
                name, _, value = arg.partition("=")
                aliases[name] = value.split()
        if texts and texts[0] in aliases:  # alias expansion: what the alias stands for, then its arguments
            expansion = aliases[texts[0]]
            texts = expansion + texts[1:]
            statics = [True] * len(expansion) + statics[1:]
        found = _guard_in(texts, statics, flat)
        if found is None and any(
            fs.basename(t).startswith(_INTERPRETERS) or fs.basename(t) in _CODE_RUNNERS for t in texts
        ):
            # `python3 - <<EOF`, `echo '...' | perl`: the code it reads on its standard input
            fed = cmd.stdin + (previous.argv()[1:] + previous.stdin if cmd.piped and previous is not None else [])
            found = _mentions(" ".join(fed))
            found = None if found is None else "pasture " + found
        if found is not None:
            return found
        previous = cmd
    return None
