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
cannot follow counts as touching every word it names. The paths the shell will use are put in (`place`):
`~`, $HOME, $PWD, $OLDPWD with every parameter operation, the folder cd/pushd/popd (and a CDPATH the line
sets) move to, a `-c` script's $0 $1 ... $@, xargs -I; a part that cannot be known is UNKNOWN, which the
guard reads as possibly any of its paths. Out of reach, and said so in docs/policy.md: whole values only
known at run time (variables the line does not set other than those, the output of a substitution), a
script file a shell runs, and a program that writes without naming the file.

The reading is bounded (issue 27): MAX_VALUE, MAX_ELEMENTS, MAX_WORDS, MAX_COMMANDS, STEPS and a deadline
(Budget); past them it raises Exhausted and the guard judges the line on its own words.
"""

from pasture.runtime import fs  # posixpath's basename/join/normpath without importing os (-I -S does not load it)
from pasture.runtime.shellparse import Command, Unparsable, Word, parse

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the hook path pays for every import
if TYPE_CHECKING:
    from typing import Callable, NoReturn

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

# The reading's caps (docs/policy.md, "The guard protects itself"). Past any of them, or past the
# step budget or the row's deadline, the reading stops with Exhausted and the guard decides on the
# line's own words (pasture.runtime.builtin).
MAX_VALUE = 65_536  # characters one variable's value (or one word after substitution) may hold
MAX_ELEMENTS = 4_096  # elements of one array, fields of one word
MAX_WORDS = 50_000  # words across every command read
MAX_COMMANDS = 2_000  # simple commands, nested scripts included
STEPS = 2_000_000  # characters read and produced: what bounds the time and memory of one reading
_MAX_COMMANDS = MAX_COMMANDS  # the old name
UNKNOWN = "\ue0ff"  # stands for a value the reader cannot know (a path that may be any of the guard's)


class Exhausted(Unparsable):
    """The reading went past a cap, its step budget or its deadline (an Unparsable: a caller that reads
    an unreadable line conservatively does the same here)."""


class Budget:
    """What one line's reading may spend: `steps` (characters read and produced), and a `deadline` on
    `clock` (a time.perf_counter() instant by default; tests inject a clock). Shared by every reading
    of the same line, so guard_command and writes together stay within it."""

    __slots__ = ("steps", "deadline", "clock", "words", "exhausted", "_tick")

    def __init__(
        self, steps: int = STEPS, deadline: float | None = None, clock: "Callable[[], float] | None" = None
    ) -> None:
        self.steps, self.deadline, self.clock = steps, deadline, clock
        self.words = 0
        self.exhausted: str | None = None  # why the reading stopped, once it has
        self._tick = 0

    def spend(self, amount: int = 1) -> None:
        self.steps -= amount
        if self.steps < 0:
            self.stop("its step budget")
        self._tick += 1
        if self.deadline is not None and (self._tick & 15 == 0 or amount > 4096):
            if self.clock is None:
                import time

                self.clock = time.perf_counter
            if self.clock() >= self.deadline:
                self.stop("the row's deadline")

    def count_words(self, amount: int) -> None:
        self.words += amount
        if self.words > MAX_WORDS:
            self.stop(f"{MAX_WORDS} words")

    def stop(self, why: str) -> "NoReturn":
        self.exhausted = self.exhausted or why
        raise Exhausted(f"the reading reached {why}")


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


def _shell_script(words: list, start: int) -> tuple | None:
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
            if "c" in arg[1:]:  # the script, then what becomes its $0 $1 ...
                return ("c", words[index + 1], words[index + 2 :]) if index + 1 < len(words) else None
            if arg[1:2] == "o" or arg in ("-O", "+O"):
                index += 1  # -o errexit: the option's value
            index += 1
            continue
        return None
    return ("stdin", None)


def _runner_script(words: list, start: int) -> str | None:
    for index in range(start + 1, len(words)):
        arg = words[index]
        if arg in ("-c", "--command") or (arg.startswith("-") and not arg.startswith("--") and arg.endswith("c")):
            return words[index + 1] if index + 1 < len(words) else None
        if arg.startswith("--command="):
            return arg[len("--command=") :]
    return None


def _scripts(cmd: Command, previous: Command | None) -> list:
    """Scripts this simple command hands to a shell, wherever the shell sits among its words: each a
    script, or (script, [words]) for `sh -c SCRIPT $0 $1 ...`, whose positional parameters are known."""
    words = cmd.argv()
    out: list = []
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
                out.append((found[1], cmd.words[len(words) - len(found[2]) :]))
            else:
                out += cmd.stdin + upstream
        elif name == "eval":
            out.append(" ".join(words[index + 1 :]))
        elif name in _STRING_RUNNERS:
            script = _runner_script(words, index)
            if script is not None:
                out.append(script)
        elif name == "watch":
            rest: list = []
            at = index + 1
            while at < len(words):
                if words[at] in ("-n", "--interval", "-q", "--equexit") and not rest:
                    at += 2  # watch -n 60 CMD: the interval is not part of the command
                    continue
                if not (words[at].startswith("-") and not rest):
                    rest.append(words[at])
                at += 1
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


_BUDGET = "\0budget"  # the reading's Budget rides in the values every helper is handed


def _spend(values: dict, text: str) -> None:
    budget = values.get(_BUDGET)
    if budget is None:
        return
    if len(text) > MAX_VALUE:
        budget.stop(f"a value longer than {MAX_VALUE} characters")
    if text.count(" ") >= MAX_ELEMENTS:
        budget.stop(f"a value of more than {MAX_ELEMENTS} elements")
    budget.spend(len(text) + 1)


def _substitute(text: str, values: dict) -> str | None:
    """`$a$b`, `${p}ture`: the text with every variable the line set replaced; None when one is unknown
    or something else runs at run time. $HOME, $PWD and $OLDPWD (with any parameter operation) are kept
    as written: the reading of writes knows them (pasture.runtime.shellwrites.place)."""
    if "$(" in text or "`" in text:
        return None
    out, i, n = [], 0, len(text)
    while i < n:
        if text[i] != "$":
            out.append(text[i])
            i += 1
            continue
        if text.startswith("${", i):
            end = _brace_end(text, i)  # `${f:=${HOME}/x}`: the braces nest
            name = text[i + 2 : end] if end > 0 else ""
            i = end + 1 if end > 0 else n
            value = _expansion(name, values)
            if value is None:
                return None
            out.append(value)
            continue
        elif i + 1 < n and (text[i + 1] in "@*#" or text[i + 1].isdigit()):
            name, i = text[i + 1], i + 2  # $@ $* $# and $0..$9: one character (`$10` is `$1` then 0)
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
    result = "".join(out)
    _spend(values, result)
    return result


_KEPT = ("HOME", "PWD", "OLDPWD")  # kept as written: the reading of writes knows them where they are used
_OPERATORS = (":-", ":=", ":+", ":?", "-", "=", "+", "?")


def _expansion(body: str, values: dict) -> str | None:
    """`${name}`, `${a[1]}` and the default forms `${X:-word}` `${X-word}` `${X:=word}` `${X:+word}`: the
    value the line set, else the default the line names (what an unset variable gives; `:=` also sets
    it), else None. ${HOME...}, ${PWD...}, ${OLDPWD...} with any operation stay as written."""
    head = body.lstrip("!#")
    stem = ""
    for ch in head:
        if not (ch.isalnum() or ch == "_"):
            break
        stem += ch
    if stem in _KEPT and stem not in values:
        return "${" + body + "}"
    if stem in values and body.startswith("#") and body[1:] == stem:
        return str(len(values[stem]))  # ${#x}: its length
    rest = body[len(stem) :]
    if stem in values and not body.startswith("!") and rest[:1] in ("%", "#", "/", "^", ",", "@", ":"):
        if rest[:2] not in (":-", ":=", ":+", ":?"):  # those below: the value or the default
            return _parameter(body, {stem: values[stem]}, "", UNKNOWN, "", values.get(_BUDGET))  # ${x%.txt}, ${x:1}
    for op in _OPERATORS:
        at = body.find(op)
        if at > 0 and all(c.isalnum() or c in "_[]@*" for c in body[:at]):
            name, word = body[:at], body[at + len(op) :]
            break
    else:
        name, word, op = body, None, ""
    if word is not None and ('"' in word or "'" in word):
        word = word.replace('"', "").replace("'", "")  # `${f:="$HOME"/x}`: the word after quote removal
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
        return None
    if "+" in op:  # set: the word; unset: empty. Either may be the one that runs: the word (the write)
        return _substitute(word, values) if "$" in word else word
    if "?" in op:
        return None
    value = _substitute(word, values) if "$" in word else word
    if value is not None and "=" in op:
        values[name] = value  # `: ${f:=.claude/settings.json}`: f holds it from here on
    return value


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


def _resolve(cmd: Command, values: dict) -> None:
    """Words made of variables this line set (`p=pasture; $p policy trust`) become what they hold, and so
    do redirection targets (`: > "$1"` in a `-c` script, read where its positional parameters are known)."""
    budget = values.get(_BUDGET)
    if budget is not None:
        budget.count_words(len(cmd.words) + len(cmd.redirs))
    if len(values) <= (_BUDGET in values) and not any(
        "${" in w.text or "IFS" in w.text for w in cmd.words if not w.static
    ):
        return  # nothing the line set, and no ${...} (defaults) or $IFS to read
    words = []
    for word in cmd.words:
        text = None if word.static else _substitute(word.text, values)
        if text is None:
            words.append(word)
        elif word.quoted and not any(s in word.text for s in ("[@]", "${IFS}", "$@", "${@}")):
            words.append(Word(text, UNKNOWN not in text, True, word.glob, word.subs, 0))  # "${a[@]}", "$@": apart
        else:  # unquoted: split into fields as the shell does (on the IFS the line set, too)
            for sep in values.get("IFS", ""):
                text = text.replace(sep, " ")
            words += [Word(field, UNKNOWN not in field, False, word.glob, [], 0) for field in text.split()]
    if budget is not None:
        budget.count_words(len(words) - len(cmd.words))
    cmd.words = words
    for at, (op, target) in enumerate(cmd.redirs):
        if not target.static and op in _OUTPUT:
            text = _substitute(target.text, values)
            if text is not None:  # several fields (an array): kept apart by writes, one target each
                cmd.redirs[at] = (op, Word(text, " " not in text, target.quoted, target.glob, target.subs, 0))


def _remember(cmd: Command, values: dict) -> None:
    pairs = list(cmd.assigns) if not cmd.words else []
    if cmd.words and cmd.words[0].text in _DECLARE:
        for word in cmd.words[1:]:
            if "=" in word.text and not word.text.startswith("-"):
                name, _, value = word.text.partition("=")
                pairs.append((name, Word(value, word.static, word.quoted, word.glob, word.subs, 0)))
    texts = cmd.argv()
    if texts[:1] == ["shift"] and "@" in values:  # shift [N]: $2 becomes $1 ...
        count = int(texts[1]) if len(texts) > 1 and texts[1].isdigit() else 1
        rest = values["@"].split()[count:]
        for number in range(1, 10):
            values.pop(str(number), None)
        for number, text in enumerate(rest[:9], 1):
            values[str(number)] = text
        values["@"] = values["*"] = " ".join(rest)
        values["#"] = str(len(rest))
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


def _positional(values: dict, words: list) -> dict:
    """The variables a `-c` script starts with: the line's (an over-reading: a child shell inherits only
    the exported ones), and $0 $1 ... $@ $* $# bound to the words after the script. A word only known at
    run time binds UNKNOWN (so does `{}`, a path `find -exec` puts there): that parameter may be any path."""
    budget = values.get(_BUDGET)
    if budget is not None:
        budget.spend(len(values) + len(words))  # a copy per script: counted, so copies stay bounded
    inner = {k: v for k, v in values.items() if not (len(k) == 1 and (k.isdigit() or k in "@*#"))}
    texts = [w.text if w.static and w.text != "{}" else UNKNOWN for w in words]  # {}: what find -exec finds
    for number, text in enumerate(texts[:10]):
        inner[str(number)] = text
    inner["@"] = inner["*"] = " ".join(texts[1:])
    inner["#"] = str(max(len(texts) - 1, 0))
    return inner


_XARGS_VALUED = ("-d", "-E", "-L", "-n", "-P", "-s", "-a", "-e", "-l")


def _xargs_replace(words: list) -> str | None:
    """The replace string of `xargs -I R` / `-iR` / `--replace[=R]` (each input line put in its place)."""
    skip = False
    for at, word in enumerate(words):
        text = word.text
        if skip:
            skip = False
            continue
        if text in _XARGS_VALUED or text in ("--delimiter", "--max-args", "--max-procs", "--arg-file"):
            skip = True
            continue
        if text == "-I" and at + 1 < len(words):
            return words[at + 1].text
        if text.startswith("-I") and len(text) > 2:
            return text[2:]
        if text in ("-i", "--replace"):
            return "{}"
        if text.startswith("--replace="):
            return text.split("=", 1)[1] or "{}"
        if text.startswith("-i") and len(text) > 2:
            return text[2:]
        if not text.startswith("-"):
            return None
    return None


_LITERAL_FEEDS = {"echo", "printf"}  # their words are what the next command of the pipeline reads


def _xargs_copies(cmd: Command, previous: Command) -> list:
    """`... | xargs -I{} CMD {}`: CMD once per input word, the replace string put in its place. The input
    is known when echo or printf writes it; otherwise one copy reads UNKNOWN (any path)."""
    texts = cmd.argv()
    at = next((i for i, t in enumerate(texts) if fs.basename(t) == "xargs"), None)
    if at is None:
        return [cmd]
    replace = _xargs_replace(cmd.words[at + 1 :])
    if not replace:
        return [cmd]
    feed = previous.argv() if previous is not None and cmd.piped else []
    known = bool(feed) and fs.basename(feed[0]) in _LITERAL_FEEDS and all(w.static for w in previous.words)
    inputs = [t for t in feed[1:] if not t.startswith("-")][:64] if known else []
    inputs = inputs or [UNKNOWN]
    copies = []
    for value in inputs:
        copy = Command(cmd.piped)
        copy.assigns, copy.redirs, copy.stdin = cmd.assigns, cmd.redirs, cmd.stdin
        copy.words = cmd.words[: at + 1] + [
            Word(w.text.replace(replace, value), w.static, w.quoted, w.glob, w.subs, 0) if replace in w.text else w
            for w in cmd.words[at + 1 :]
        ]
        copies.append(copy)
    return copies


def simple_commands(
    command: str,
    depth: int = 0,
    out: list | None = None,
    values: dict | None = None,
    *,
    budget: Budget | None = None,
) -> list:
    """Every simple command the shell may run for `command`, nested scripts included, in order, with
    the variables the line itself sets read into the words that use them.

    `budget`: what the reading may spend (steps, a deadline on a clock); a fresh Budget() (STEPS, no
    deadline) when None. Past it, or past a cap (MAX_VALUE, MAX_ELEMENTS, MAX_WORDS, MAX_COMMANDS),
    raises Exhausted (an Unparsable) and `budget.exhausted` says why. Nested calls share `values`'s
    budget."""
    if out is None:
        out = []
    if values is None:
        values = {}
    if budget is not None:
        values[_BUDGET] = budget
    elif _BUDGET not in values:
        values[_BUDGET] = Budget()
    budget = values[_BUDGET]
    if depth > _DEPTH:
        raise Unparsable("scripts nested too deep")
    budget.spend(len(command) + 1)
    commands, others = parse(command)
    for word in others:
        for sub in word.subs:
            simple_commands(sub, depth + 1, out, values)
    previous = None
    for cmd in commands:
        budget.spend(1)
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
        copies = [cmd]
        if cmd.piped and previous is not None and any(fs.basename(w) == "xargs" for w in texts):
            copies = _xargs_copies(cmd, previous)
            if copies == [cmd]:
                # `... | xargs rm`: the upstream words become arguments (as a reviewer reads it, not split again)
                cmd.words = cmd.words + previous.words[1:]
        for copy in copies:
            out.append(copy)
            if len(out) > MAX_COMMANDS:
                budget.stop(f"{MAX_COMMANDS} commands")
            for script in _scripts(copy, previous):
                if isinstance(script, tuple):
                    simple_commands(script[0], depth + 1, out, _positional(values, script[1]))
                else:
                    simple_commands(script, depth + 1, out, values)
        previous = cmd
    return out


# --- writes ------------------------------------------------------------------------------------------

# What `find -name PATTERN -delete` must not match: the guard's own names and the folders above them
# (pasture's own, and each host's declared guard files: pasture.runtime.hostwire.guarded). Read on first
# use: the structured rules read every shell line through this module, and importing every host's
# declarations on each event would cost every tool call of every agent.
_NAMES_MEMO: list = []


def _guard_names() -> tuple:
    if not _NAMES_MEMO:
        from pasture.runtime.hostwire.guarded import guard_names

        _NAMES_MEMO.append(tuple(guard_names()))
    return _NAMES_MEMO[0]


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
                glob_match(tail, name, dots=True) or glob_match(tail.lower(), name, dots=True)
                for name in _guard_names()
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


def _short_flag(text: str, flag: str, valued: str) -> bool:
    """`flag` is in the short option cluster `text` (`-nd`), before any option that takes the rest as its value."""
    return text.startswith("-") and not text.startswith("--") and flag in text[1:].split(valued, 1)[0]


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
    rest = [a.text for a in args[index + 1 :]]
    if "--help" in rest or (sub == "clean" and any(t == "--dry-run" or _short_flag(t, "n", "e") for t in rest)):
        return []  # git clean -n only lists what it would delete; --help shows the manual
    if sub == "rm" and "--cached" in rest:
        return []  # git rm --cached only untracks: the files stay
    if sub == "clean" and not paths:
        return [((here, "."), True, False)]  # git clean -fdx takes the journal with it
    return [((here, a.text), _GIT_WRITES[sub], a.glob) for a in paths]


def writes(command: str, cwd: str, home: str = "/", *, budget: Budget | None = None) -> list:
    """[((folder, path as written), deletes?, glob?)] for every path the command plainly writes, with
    $HOME, $PWD, $OLDPWD (any parameter operation) and `~` put in as the shell would; UNKNOWN where a
    part cannot be known (the folder after `cd $X`, `${HOME:$n}`). Exhausted (past `budget` or a cap)
    is raised to the caller, which decides on the line's own words (pasture.runtime.builtin)."""
    values: dict = {}
    try:
        commands = simple_commands(command, values=values, budget=budget)
    except Exhausted:
        raise
    except (Unparsable, RecursionError):  # cannot be read: it touches everything it names, as a delete would
        return [((cwd, word), True, False) for word in dict.fromkeys(_loose_words(command))]
    out: list = []
    if any(_sets(cmd, "HOME") for cmd in commands):
        home = UNKNOWN  # `HOME=$PWD/.claude; : > ~/settings.json`: `~` and a bare `cd` go where it says
    here = cwd
    before = UNKNOWN  # $OLDPWD, `cd -`: the folder before this line is not known
    stack: list = []  # pushd's folders
    restore = None
    others: list = []  # where else the working folder may be (`cd` through a CDPATH the line sets)
    mark = 0
    for cmd in commands:
        mark = _settle(out, mark, before, home, others, budget)
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
        if verb in ("cd", "pushd", "popd"):
            before, here, others = _chdir(verb, cmd, args, here, before, home, stack, values)
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
    _settle(out, mark, before, home, others, budget)
    return out


# --- the paths the shell will use ----------------------------------------------------------------------

_GLOBS = ("*", "?", "[")


def _sets(cmd: Command, name: str) -> bool:
    """The command assigns `name` (`NAME=...`, `export NAME=...`, `read NAME`, ...: any word naming it)."""
    if any(n == name for n, _ in cmd.assigns):
        return True
    return bool(cmd.words) and any(w.text == name or w.text.startswith(name + "=") for w in cmd.words[1:])


def _settle(out: list, mark: int, before: str, home: str, others: list, budget: Budget | None = None) -> int:
    """Put $HOME/$PWD/$OLDPWD/`~` into the writes added since `mark`, as the shell will (the folder each
    was written from is its $PWD), and repeat each relative one under every other folder the working
    folder may be. A glob in the folder (`cd .cl*`) makes the write a glob too. Returns the new mark."""
    end = len(out)
    for at in range(mark, end):
        (folder, text), deletes, glob = out[at]
        placed = place(text, folder, before, home, budget)
        glob = glob or any(c in folder for c in _GLOBS)
        out[at] = ((folder, placed), deletes, glob)
        if " " in placed:  # "$d" of `for d in a .pasture`, "${a[*]}": each field may be the one it is
            out += [((folder, field), deletes, glob) for field in placed.split()]
        if not placed.startswith("/"):
            for other in others:
                again = place(text, other, before, home, budget)
                out.append(((other, again), deletes, glob or any(c in other for c in _GLOBS)))
    return len(out)


def _chdir(verb: str, cmd: Command, args: list, here: str, before: str, home: str, stack: list, values: dict) -> tuple:
    """(before, here, others) after cd / pushd / popd: the folder the shell moves to, UNKNOWN (with what
    follows it, `cd $X/.claude`) where the line cannot tell."""
    plain = [w for w in args if not w.text.startswith("-") or w.text == "-" or w.text[1:].isdigit()]
    # The folder stack starts empty (each tool call is a new shell): popd, or pushd with no folder or
    # +N/-N, fails there and stays put. On what the line pushed: popd goes back to the last one; a
    # rotation (+N/-N) or a bare pushd may land on any of them.
    if not plain and verb == "cd":
        return here, home, []
    if verb == "popd" or not plain or (plain[0].text[:1] in "+-" and plain[0].text[1:].isdigit()):
        if not stack:
            return before, here, []
        if verb == "popd" and not plain:
            return here, stack.pop(), []
        if verb == "popd":  # popd +N drops an entry: the folder stays unless it was the top
            return here, here, []
        stack.append(here)
        return here, stack[-2], list(dict.fromkeys(stack[:-2] + [here]))
    word = plain[0]
    text = word.text if word.static else marked(word.text)
    if text == "-":  # cd -: the folder before
        return here, before, []
    budget = values.get(_BUDGET)
    target = place(text, here, before, home, budget)
    if verb == "pushd":
        stack.append(here)
    folders = [_into(here, target)]
    if not (target.startswith(("/", "./", "../", UNKNOWN)) or target in (".", "..")):
        # CDPATH (`.config` uses it; `./x` does not): the first of its folders holding the target, else
        # the working folder (bash's fallback)
        cdpath = next((w for n, w in cmd.assigns if n == "CDPATH"), None)
        spelled = (cdpath.text if cdpath.static else marked(cdpath.text)) if cdpath else values.get("CDPATH")
        if spelled is not None:
            found = [
                _into(here, fs.join(place(entry or ".", here, before, home, budget), target))
                for entry in _path_list(spelled)
            ]
            folders = found + folders
    return here, folders[0], list(dict.fromkeys(folders[1:]))


def _path_list(text: str) -> list:
    """A colon-separated list of folders (CDPATH), the colons inside `${HOME:-x}` kept."""
    out, depth, start = [], 0, 0
    for at, ch in enumerate(text):
        if text.startswith("${", at):
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
        elif ch == ":" and not depth:
            out.append(text[start:at])
            start = at + 1
    return out + [text[start:]]


def _into(here: str, target: str) -> str:
    if UNKNOWN in target:
        return UNKNOWN + target[target.rindex(UNKNOWN) + 1 :]
    joined = fs.join(here, target) if UNKNOWN not in here or target.startswith("/") else here + "/" + target
    # `..` after a link is the kernel's to resolve: kept as written so the guard reads it as such
    return joined if "/../" in joined + "/" or UNKNOWN in joined else fs.normpath(joined)


def marked(text: str) -> str:
    """The word with every run-time part that is not $HOME/$PWD/$OLDPWD replaced by UNKNOWN."""
    out, i, n = [], 0, len(text)
    while i < n:
        ch = text[i]
        stop = i + 1
        if ch == "`":
            close = text.find("`", i + 1)
            stop = n if close < 0 else close + 1
        elif ch == "$" and text.startswith("${", i):
            close = _brace_end(text, i)
            stop = n if close < 0 else close + 1
        elif ch == "$" and text.startswith("$(", i):
            depth, stop = 0, i + 1
            while stop < n:
                depth += (text[stop] == "(") - (text[stop] == ")")
                stop += 1
                if depth == 0:
                    break
        elif ch == "$" and i + 1 < n and (text[i + 1] in "@*#?!$-" or text[i + 1].isdigit()):
            stop = i + 2
        elif ch == "$" and i + 1 < n and (text[i + 1].isalpha() or text[i + 1] == "_"):
            while stop < n and (text[stop].isalnum() or text[stop] == "_"):
                stop += 1
        else:
            out.append(ch)
            i += 1
            continue
        part = text[i:stop]
        out.append(part if _stem(part) in _KEPT and not part.startswith("$(") else UNKNOWN)
        i = stop
    return "".join(out)


def _stem(part: str) -> str:
    body = part[2:] if part.startswith("${") else part[1:]
    stem = ""
    for ch in body:
        if not (ch.isalnum() or ch == "_"):
            break
        stem += ch
    return stem


def _brace_end(text: str, i: int) -> int:
    """Where the `${` at i closes (nested `${...}` counted), or -1."""
    depth, j = 0, i
    while j < len(text):
        if text.startswith("${", j):
            depth, j = depth + 1, j + 2
            continue
        if text[j] == "}":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    return -1


def place(text: str, here: str, before: str, home: str, budget: Budget | None = None) -> str:
    """`text` with `~`, `~+`, `~-`, $HOME, $PWD, $OLDPWD and ${HOME...}/${PWD...}/${OLDPWD...} (every
    parameter operation) put in; UNKNOWN for a part that cannot be worked out. Other run-time parts stay."""
    if text.startswith("~"):
        end = text.find("/")
        head = text[: end if end > 0 else len(text)]
        tail = text[len(head) :]
        if head == "~":
            text = home + tail
        elif head == "~+":
            text = here + tail
        elif head == "~-":
            text = before + tail
        else:  # ~user: that user's home, which may be this one
            text = UNKNOWN + tail
    if "$" not in text:
        return text
    known = {"HOME": home, "PWD": here, "OLDPWD": before}
    out, i, n = [], 0, len(text)
    while i < n:
        if text[i] != "$":
            out.append(text[i])
            i += 1
            continue
        if text.startswith("${", i):
            end = _brace_end(text, i)
            if end < 0:
                out.append(text[i:])
                break
            body = text[i + 2 : end]
            stem = _stem("${" + body.lstrip("!#"))
            if stem in known:
                out.append(_parameter(body, known, here, before, home, budget))
            else:
                out.append(text[i : end + 1])
            i = end + 1
            continue
        j = i + 1
        while j < n and (text[j].isalnum() or text[j] == "_"):
            j += 1
        name = text[i + 1 : j]
        out.append(known[name] if name in known else text[i:j] or "$")
        i = max(j, i + 1)
    return "".join(out)


def _parameter(body: str, known: dict, here: str, before: str, home: str, budget: Budget | None = None) -> str:
    """${NAME<operation>} for a variable whose value the reader knows (HOME, PWD, OLDPWD)."""
    if body.startswith("!"):
        return UNKNOWN  # indirection: whatever variable it names
    if body.startswith("#"):
        name = body[1:]
        return str(len(known[name])) if name in known and UNKNOWN not in known[name] else UNKNOWN
    name = _stem("${" + body)
    value, rest = known[name], body[len(name) :]
    if not rest:
        return value
    if rest[:2] in (":-", ":=", ":?") or rest[:1] in ("-", "=", "?"):
        return value if value else UNKNOWN  # set (and not empty): the value
    if rest[:2] == ":+" or rest[:1] == "+":
        word = rest[2:] if rest[:2] == ":+" else rest[1:]
        return place(word, here, before, home, budget) if "$" in word or word.startswith("~") else word
    if UNKNOWN in value:
        return UNKNOWN
    for op in ("^^", ",,", "^", ","):
        if rest == op:
            return value.upper() if "^" in op else value.lower()
    if "$" in rest or "`" in rest:
        return UNKNOWN  # a pattern or offset only known at run time
    for op in ("##", "%%", "#", "%"):
        if rest.startswith(op):
            return _trim(value, rest[len(op) :], op, budget)
    if rest.startswith("/"):
        return _replace(value, rest[1:], budget)
    if rest.startswith(":"):
        parts = rest[1:].split(":")
        try:
            numbers = [int(p.strip() or "0") for p in parts]
        except ValueError:
            return UNKNOWN
        start = numbers[0] if numbers[0] >= 0 else max(len(value) + numbers[0], 0)
        if len(numbers) == 1:
            return value[start:]
        stop = start + numbers[1] if numbers[1] >= 0 else len(value) + numbers[1]
        return value[start:stop]
    return UNKNOWN  # @Q, @A and the rest: not followed


_GLOB_VALUE = 256  # longest value a glob pattern operation is worked out on (else UNKNOWN): bounds its time


def _trim(value: str, pattern: str, op: str, budget: Budget | None = None) -> str:
    """${X#p} ${X##p} ${X%p} ${X%%p}: the shortest / longest match of the glob removed from the front / end."""
    if not pattern:
        return value
    if not any(c in pattern for c in _GLOBS):
        if op.startswith("#"):
            return value[len(pattern) :] if value.startswith(pattern) else value
        return value[: len(value) - len(pattern)] if value.endswith(pattern) else value
    if len(value) > _GLOB_VALUE:
        return UNKNOWN
    if budget is not None:  # every cut tried against the glob: its worst case, counted up front
        budget.spend((len(value) + 1) * (len(value) + 1) * len(pattern))
    cuts = range(len(value) + 1)
    if op.startswith("#"):
        hits = [k for k in cuts if glob_match(pattern, value[:k], dots=True)]
        return value if not hits else value[(max(hits) if op == "##" else min(hits)) :]
    hits = [k for k in cuts if glob_match(pattern, value[k:], dots=True)]
    return value if not hits else value[: (min(hits) if op == "%%" else max(hits))]


def _replace(value: str, spec: str, budget: Budget | None = None) -> str:
    """${X/p/r} ${X//p/r} ${X/#p/r} ${X/%p/r}: the longest match of the glob replaced."""
    every = spec.startswith("/")
    anchor = spec[:1] if spec[:1] in ("#", "%") else ""
    spec = spec[1:] if every or anchor else spec
    pattern, _, replacement = spec.partition("/")
    if "\\" in spec:
        return UNKNOWN  # an escaped `/` in the pattern: not followed
    if not pattern:
        return value
    if not any(c in pattern for c in _GLOBS):
        if anchor == "#":
            return replacement + value[len(pattern) :] if value.startswith(pattern) else value
        if anchor == "%":
            return value[: len(value) - len(pattern)] + replacement if value.endswith(pattern) else value
        return value.replace(pattern, replacement, -1 if every else 1)
    if len(value) > _GLOB_VALUE:
        return UNKNOWN
    if budget is not None:  # every span tried against the glob: its worst case, counted up front
        spans = len(value) + 1 if anchor else (len(value) + 1) * (len(value) + 2) // 2
        budget.spend(spans * (len(value) + 1) * len(pattern))
    out, i, n = [], 0, len(value)
    while i <= n:
        starts = [0] if anchor == "#" else range(i, n + 1)
        found = None
        for start in starts:
            for stop in range(n, start - 1, -1):
                if anchor == "%" and stop != n:
                    continue
                if stop > start and glob_match(pattern, value[start:stop], dots=True):
                    found = (start, stop)
                    break
            if found or anchor == "#":
                break
        if found is None:
            out.append(value[i:])
            break
        out.append(value[i : found[0]] + replacement)
        i = found[1]
        if not every or anchor:
            out.append(value[i:])
            break
    return "".join(out)


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


def guard_command(command: str, *, budget: Budget | None = None) -> str | None:
    """`pasture policy trust`, `pasture install`, ...: the commands that change what the guard enforces,
    which the agent must not run on the user's behalf. Returns the command as the user would type it.
    Exhausted (past `budget` or a cap) is raised to the caller."""
    flat = _flat(command)
    try:
        commands = simple_commands(command, budget=budget)
    except Exhausted:
        raise
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
