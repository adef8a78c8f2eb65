"""The commands a shell line runs, as structured rules read them (issue 26): program, options, arguments.

`read(command)` turns every simple command of the line (pasture.runtime.shellwrites.simple_commands:
chains, pipelines, subshells, substitutions, `bash -c`, `eval`, `| sh`, heredocs to a shell) into
`Invocation`s: the program as it will run (the basename of its word after quote removal, `\\git`,
`"git"`, `/usr/bin/git` are git), seen through wrappers (`sudo`, `env -i X=1`, `timeout 5`, `nice -n
5`, `xargs`, ...: the wrapper's own invocation is kept too), `find -exec` commands, and the shell lines
an interpreter one-liner hands to a shell (`python3 -c "os.system('...')"`, `node -e
"execSync('...')"`, `ruby -e 'system("...")'`, `perl -e '`...`'`).

`match(run, invocation)` answers whether a compiled [rules.run] table (pasture.runtime.runrule) holds
for one invocation: "match", "unknown" (an argument it looks at is only known at run time) or None.
Options are normalized per invocation: `--` ends them; `--name=value` is `--name` with a value
(`--force=false|no|0` is absent); `-rf` is `-r`, `-f` and the literal `-rf`; the value word of a valued
option (a per-program table, plus the rule's `valued`) is neither an option nor an argument.

Data is not a command: the words given to `echo`, `grep`, a commit message or a heredoc body fed to
`cat` are arguments of that program, never invocations of their own. Standard library only and no
`re` at import (the hook path); a rule's `text`/`script` regex is compiled when it is first evaluated.
"""

from pasture.runtime import fs
from pasture.runtime.shellparse import Unparsable, Word
from pasture.runtime.shellwrites import glob_match, simple_commands

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the hook path pays for every import
if TYPE_CHECKING:
    from typing import Any, Callable, Iterable

    from pasture.runtime.shellwrites import Budget

STANDARD_BINS = (
    "/bin",
    "/sbin",
    "/usr/bin",
    "/usr/sbin",
    "/usr/local/bin",
    "/usr/local/sbin",
    "/opt/homebrew/bin",
    "node_modules/.bin",
)
_OFF = ("false", "no", "0", "off")
_TEMP = ("/tmp", "/var/tmp", "/private/tmp")
_SHELL_OUTPUT = (">", ">>", ">|", "&>", "&>>", "<>")

_CONTAINER = "-H --host --context -f --file --filter --name --network -e --env -v --volume -w --workdir --entrypoint"
# Options whose value is the next word, per program (a rule adds its own with `valued`).
VALUED: dict = {
    "git": (
        "-C -c --git-dir --work-tree --namespace --super-prefix --config-env -m --message -F --file -b -B "
        "--author --date -X --strategy-option -s --strategy --depth --branch --origin --template --reference "
        "--upload-pack --receive-pack --exec --push-option -o --format --pretty --since --until --grep"
    ),
    "kubectl": (
        "-n --namespace --context --cluster --kubeconfig -l --selector -o --output -f --filename --user "
        "-s --server --field-selector -c --container --timeout --token --as"
    ),
    "docker": _CONTAINER,
    "podman": _CONTAINER,
    "helm": "-n --namespace --kube-context --kubeconfig -f --values --set --set-string --version --timeout",
    "aws": "--region --profile --output --endpoint-url --query --cli-input-json",
    "gcloud": "--project --zone --region --format --account --configuration",
    "gsutil": "-o -h -p",
    "az": "-g --resource-group -n --name --subscription -o --output --query",
    "terraform": "-var -var-file -target -state -backup",
    "psql": "-h --host -p --port -U --username -d --dbname -c --command -f --file -v --set -o --output",
    "mysql": "-h --host -P --port -u --user -e --execute -D --database -S --socket",
    "mariadb": "-h --host -P --port -u --user -e --execute -D --database -S --socket",
    "redis-cli": "-h -p -a -n -u --user --pass -s",
    "mongosh": "--host --port -u --username -p --password --eval --file --authenticationDatabase",
    "kill": "-s -n --signal",
    "pkill": "-s --signal -u -U -g -G -P -t",
    "tar": "-C --directory -f --file",
    "cp": "-t --target-directory -S --suffix",
    "mv": "-t --target-directory -S --suffix",
    "find": (
        "-name -iname -path -ipath -wholename -iwholename -regex -iregex -type -xtype -maxdepth -mindepth "
        "-newer -perm -size -user -group -uid -gid -mtime -atime -ctime -mmin -amin -cmin -links -inum "
        "-samefile -printf -fprintf -fprint -fls -fstype -context -used"
    ),
    "ssh": "-i -p -l -o -F -J -b -c -D -E -e -L -R -S -W -w -m -O -Q -B",
    "systemctl": "-H --host -M --machine -p --property -t --type -s --signal",
    "crontab": "-u",
    "chmod": "--reference",
    "chown": "--reference --from",
    # the wrappers' own valued options (so their value is not taken for the program)
    "sudo": (
        "-u --user -g --group -h --host -p --prompt -C --close-from -D --chdir -r --role -t --type "
        "-U --other-user -T --command-timeout"
    ),
    "doas": "-u -C",
    "env": "-u --unset -C --chdir -S --split-string",
    "exec": "-a",
    "time": "-o --output -f --format",
    "nice": "-n --adjustment",
    "ionice": "-c --class -n --classdata -p --pid",
    "timeout": "-s --signal -k --kill-after",
    "stdbuf": "-i --input -o --output -e --error",
    "xargs": "-I -n --max-args -P --max-procs -L --max-lines -d --delimiter -E --eof -s --max-chars -a --arg-file",
    "setsid": "",
    "chrt": "",
    "taskset": "",
}
_VALUED = {name: frozenset(spec.split()) for name, spec in VALUED.items()}
# The wrappers looked through, and how many positional words each takes before the program it runs.
WRAPPERS = {
    "sudo": 0,
    "doas": 0,
    "env": 0,
    "command": 0,
    "builtin": 0,
    "exec": 0,
    "time": 0,
    "nice": 0,
    "nohup": 0,
    "timeout": 1,
    "stdbuf": 0,
    "xargs": 0,
    "setsid": 0,
    "ionice": 0,
    "chrt": 1,
    "taskset": 1,
}
_NO_PROGRAM = {"command": ("-v", "-V"), "sudo": ("-l", "-v", "-k", "-K", "-e", "--list", "--validate", "--edit")}
_INTERPRETERS = {"python": ("-c",), "pypy": ("-c",), "node": ("-e", "--eval", "-p", "--print"), "ruby": ("-e",)}
_INTERPRETERS["perl"] = ("-e", "-E")
# calls that run a string (or an argv list) in a shell, per interpreter family
_SHELL_CALLS = (
    "os.system(",
    "os.popen(",
    "subprocess.run(",
    "subprocess.call(",
    "subprocess.check_call(",
    "subprocess.check_output(",
    "subprocess.Popen(",
    "subprocess.getoutput(",
    "subprocess.getstatusoutput(",
    "execSync(",
    "exec(",
    "spawnSync(",
    "spawn(",
    "execFileSync(",
    "system(",
    "exec ",
    "system ",
    "%x(",
    "qx(",
    "qx{",
)
MAX_NESTED = 64  # shell strings taken from one-liners per line: bounded against a crafted line


class Invocation:
    """One program the line runs. `args`: the words after the program (Word objects); `assigns`: it has
    VAR=value prefixes (or env's); `path_kind`: bare | standard | other; `loose`: built from a line the
    reader could not follow (every word of it)."""

    __slots__ = (
        "program",
        "path_kind",
        "args",
        "assigns",
        "wrapped_by",
        "redirs",
        "stdin_text",
        "script",
        "loose",
        "names",
        "moved",
        "_norm",
    )

    def __init__(self, program: str, path_kind: str, args: list, assigns: bool = False) -> None:
        self.program, self.path_kind, self.args, self.assigns = program, path_kind, args, assigns
        self.wrapped_by: tuple = ()
        self.redirs: list = []
        self.stdin_text = ""
        self.script: str | None = None
        self.loose = False
        self.names = _names(program)
        self.moved = False  # an earlier `cd` of the line left the project: relative paths are not known
        self._norm: dict = {}

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Invocation({self.program!r}, {[w.text for w in self.args]!r})"

    def normalized(self, extra: tuple = ()) -> tuple:
        """({option: value or ""}, [positional Word]) with the program's valued options plus `extra`."""
        found = self._norm.get(extra)
        if found is None:
            valued = _VALUED.get(self.program, frozenset())
            found = self._norm[extra] = normalize(self.args, valued | frozenset(extra) if extra else valued)
        return found


def _names(program: str) -> tuple:
    """The names a rule may call the program by: `python3.12` is also python3 and python, `node18` node."""
    stem = program.rstrip("0123456789.")
    if stem == program or not stem:
        return (program,)
    return tuple(dict.fromkeys((program, program[: len(stem) + 1], stem)))


def normalize(words: list, valued: "Iterable[str]") -> tuple:
    options: dict = {}
    positional: list = []
    index = 0
    while index < len(words):
        word = words[index]
        text = word.text
        index += 1
        if not text.startswith("-") or text == "-":
            positional.append(word)
            continue
        if text == "--":
            positional.extend(words[index:])
            break
        if text.startswith("--"):
            name, eq, value = text.partition("=")
            if eq:
                if value.lower() not in _OFF:
                    options[name] = value
            elif name in valued and index < len(words):
                options[name] = words[index].text
                index += 1
            else:
                options[name] = ""
            continue
        if text in valued:  # `-C dir`, find's `-name x`
            options[text] = words[index].text if index < len(words) else ""
            index += 1
            continue
        options[text] = ""  # the literal word: find's -delete, terraform's -auto-approve
        name, _, value = text.partition("=")
        if value:  # terraform's -var=x
            options[name] = value
            continue
        for at in range(1, len(text)):
            flag = "-" + text[at]
            if flag in valued:  # `-oL`, `-n5`, `-Cdir`: the rest of the cluster is its value
                rest = text[at + 1 :]
                if rest:
                    options[flag] = rest
                elif index < len(words):
                    options[flag] = words[index].text
                    index += 1
                else:
                    options[flag] = ""
                break
            options.setdefault(flag, "")
    return options, positional


def _path_kind(text: str) -> str:
    if "/" not in text:
        return "bare"
    folder = fs.dirname(text)
    normal = fs.normpath(folder) if folder else folder
    if normal in STANDARD_BINS or normal.endswith("/node_modules/.bin") or normal == "node_modules/.bin":
        return "standard"
    return "other"


def _program(word: Word) -> tuple:
    """(program name, path kind) of a command word; (None, "dynamic") when it is only known at run time."""
    text = word.text
    if not word.static or not text:
        return None, "dynamic"
    name = text.rstrip("/").rsplit("/", 1)[-1]
    return name, _path_kind(text)


def _family(name: str) -> str | None:
    for family in _INTERPRETERS:
        if name == family or (name.startswith(family) and all(c.isdigit() or c == "." for c in name[len(family) :])):
            return family
    if name in ("nodejs", "bun", "deno"):
        return "node"
    return None


def _unwrap(name: str, words: list) -> int | None:
    """Where the program a wrapper runs starts in `words` (words[0] is the wrapper), or None."""
    valued = _VALUED.get(name, frozenset())
    skip = WRAPPERS[name]
    index = 1
    while index < len(words):
        text = words[index].text
        if text == "--":
            index += 1
            break
        if name == "env" and "=" in text and not text.startswith("-"):
            index += 1  # VAR=value
            continue
        if name == "nice" and text[:1] == "-" and text[1:].isdigit():
            index += 1  # nice -5
            continue
        if text.startswith("-") and len(text) > 1 and words[index].static:
            if text in _NO_PROGRAM.get(name, ()):
                return None
            index += 2 if text in valued else 1
            continue
        if skip:
            skip -= 1
            index += 1
            continue
        break
    if skip and index < len(words):  # `timeout -- 5 cmd`
        index += skip
    return index if index < len(words) else None


def _env_assigns(words: list) -> bool:
    return any("=" in w.text and not w.text.startswith("-") for w in words[1:])


def _find_execs(words: list) -> list:
    """The commands of `find ... -exec CMD ... ;|+` (also -execdir, -ok, -okdir)."""
    out = []
    index = 0
    while index < len(words):
        if words[index].text in ("-exec", "-execdir", "-ok", "-okdir") and words[index].static:
            end = index + 1
            while end < len(words) and words[end].text not in (";", "+"):
                end += 1
            if end > index + 1:
                out.append(words[index + 1 : end])
            index = end
        index += 1
    return out


def _expand(words: list, assigns: bool, stdin_text: str, redirs: list, out: list, wrapped: tuple) -> None:
    """Invocations for one command's words: the program and, through wrappers and find -exec, what it runs."""
    while words:
        name, kind = _program(words[0])
        if name is None:
            return
        inv = Invocation(name, kind, words[1:], assigns)
        inv.wrapped_by, inv.stdin_text, inv.redirs = wrapped, stdin_text, redirs
        family = _family(name)
        if family is not None:
            inv.script = _code(words, _INTERPRETERS[family])
        out.append(inv)
        if name == "find":
            for inner in _find_execs(words):
                _expand(inner, False, "", [], out, (*wrapped, "find"))
            return
        if name not in WRAPPERS:
            return
        start = _unwrap(name, words)
        if start is None:
            return
        if name == "env" and _env_assigns(words[:start]):
            assigns = True
        wrapped = (*wrapped, name)
        words = words[start:]
        if name == "xargs":  # and the words it reads on its standard input, known only when it runs
            words = [*words, Word("$XARGS_INPUT", False, False, False, [], 0)]


def _code(words: list, flags: tuple) -> str | None:
    for index in range(1, len(words)):
        text = words[index].text
        if text in flags and index + 1 < len(words):
            return words[index + 1].text
        if text.startswith("--eval="):
            return text[len("--eval=") :]
        if not text.startswith("-"):
            return None  # a script file: its code is not on the line
    return None


def _literal(code: str, at: int) -> tuple:
    """(the string literal starting at code[at], index after it) or (None, at)."""
    while at < len(code) and code[at] in " \t\r\n":
        at += 1
    if code.startswith(("f'", 'f"', "r'", 'r"', "b'", 'b"'), at):
        at += 1
    if at >= len(code) or code[at] not in "'\"`":
        return None, at
    quote = code[at]
    if code.startswith(quote * 3, at):
        end = code.find(quote * 3, at + 3)
        return (code[at + 3 : end], end + 3) if end > 0 else (None, at)
    out, i = [], at + 1
    while i < len(code):
        ch = code[i]
        if ch == "\\" and i + 1 < len(code):
            nxt = code[i + 1]
            out.append({"n": "\n", "t": "\t"}.get(nxt, nxt))
            i += 2
            continue
        if ch == quote:
            return "".join(out), i + 1
        out.append(ch)
        i += 1
    return None, at


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def shell_strings(code: str) -> list:
    """The shell lines an interpreter's code hands to a shell with a literal: `os.system("...")`,
    `subprocess.run([...])` (an argv list, quoted back into a line), `execSync('...')`, `system "..."`,
    ruby/perl backquotes and `%x(...)`/`qx{...}`."""
    found: list = []
    for call in _SHELL_CALLS:
        start = code.find(call)
        while start != -1 and len(found) < MAX_NESTED:
            at = start + len(call)
            if call.endswith(("(", "{")) and call[0] in "%q":
                close = ")" if call.endswith("(") else "}"
                end = code.find(close, at)
                if end > 0:
                    found.append(code[at:end])
            else:
                while at < len(code) and code[at] in " \t(":
                    at += 1
                if at < len(code) and code[at] == "[":
                    items, at = [], at + 1
                    while True:
                        item, after = _literal(code, at)
                        if item is None:
                            break
                        items.append(item)
                        at = after
                        while at < len(code) and code[at] in " \t,":
                            at += 1
                    if items:
                        found.append(" ".join(_quote(i) for i in items))
                else:
                    item, after = _literal(code, at)
                    if item is not None:
                        found.append(item)
            start = code.find(call, start + 1)
    if "`" in code:  # ruby/perl backquotes (JavaScript template strings are read the same: over, never under)
        parts = code.split("`")
        found += [parts[k] for k in range(1, len(parts) - 1, 2)][:MAX_NESTED]
    return found


def _piped_text(previous: "Any") -> str:
    """What a previous pipeline command writes when it is `echo`/`printf` words or a heredoc to `cat`."""
    if previous is None or not previous.words:
        return ""
    name = previous.words[0].text.rsplit("/", 1)[-1]
    if name in ("echo", "printf"):
        return " ".join(w.text for w in previous.words[1:])
    if name == "cat":
        return "\n".join(previous.stdin)
    return ""


def read(command: str, depth: int = 0, *, budget: "Budget | None" = None) -> list:
    """Every invocation the line may run; Unparsable (shellwrites.Exhausted past `budget`, shared by the
    nested one-liners' lines) when the reader cannot follow it."""
    commands = simple_commands(command, budget=budget)
    out: list = []
    previous = None
    moved = False
    for cmd in commands:
        stdin_text = "\n".join(cmd.stdin)
        if cmd.piped:
            piped = _piped_text(previous)
            stdin_text = f"{stdin_text}\n{piped}" if stdin_text else piped
        previous = cmd
        if not cmd.words:
            continue
        start = len(out)
        _expand(list(cmd.words), bool(cmd.assigns), stdin_text, cmd.redirs, out, ())
        for inv in out[start:]:
            inv.moved = moved
            moved = moved or _leaves(inv)
        if depth < 3:
            for inv in out[start:]:
                if inv.script:
                    for line in shell_strings(inv.script):
                        out += read(line, depth + 1, budget=budget)
    if len(out) > 4 * 2000:
        raise Unparsable("too many commands to read")
    return out


def _leaves(inv: Invocation) -> bool:
    """A `cd`/`pushd`/`popd` that may leave the project's folders (absolute, `~`, `..`, `-`, none,
    or only known at run time): what follows it on the line is relative to a folder not known here."""
    if inv.program not in ("cd", "pushd", "popd"):
        return False
    targets = [w for w in inv.args if not (w.static and w.text.startswith("-") and w.text != "-")]
    if inv.program == "popd" or not targets:
        return True
    word = targets[0]
    text = word.text
    return not word.static or text.startswith(("/", "~", "-")) or ".." in text.split("/")


def loose(command: str, programs: "Iterable[str]") -> list:
    """For a line the reader cannot follow: one invocation per word that names one of `programs`, with
    every other word of the line as its options and arguments (read as touching everything it names)."""
    from pasture.runtime.shellwrites import _flat

    text = _flat(command)
    for ch in ";&|()<>`$={}":
        text = text.replace(ch, " ")
    texts = text.split()
    words = [Word(t, True, False, False, [], len(t)) for t in texts]
    out = []
    for index, word in enumerate(words):
        name = word.text.rsplit("/", 1)[-1]
        if name in programs:
            # the words after it first: its own options and arguments keep their places (`bash -c 'git push
            # ...'` read loosely is still `git push ...`), the words before it come after them
            inv = Invocation(name, _path_kind(word.text), words[index + 1 :] + words[:index])
            inv.loose, inv.stdin_text, inv.script = True, command, command
            out.append(inv)
    return out


# --- matching -------------------------------------------------------------------------------------


def _target(word: Word, moved: bool = False) -> tuple:
    """(the argument as a glob sees it, known): `~`, `$HOME`, `${HOME}` read as `~`; `$TMPDIR`,
    `${TMPDIR}` as /tmp; the path normalized; known False when only run time tells what it is."""
    text = word.text
    if text == "{}":
        return text, False  # what find -exec or xargs -I{} puts there: known only when it runs
    if text.startswith(("${HOME:?", "${HOME:-", "${HOME?", "${HOME-")) and "}" in text:
        end = text.index("}")  # `${HOME:?}`, `${HOME:-/x}`: HOME is set, so it is HOME
        if "$" not in text[2:end] and "`" not in text[2:end]:
            text = "${HOME}" + text[end + 1 :]
    for prefix, stand in (("${HOME}", "~"), ("$HOME", "~"), ("${TMPDIR}", "/tmp"), ("$TMPDIR", "/tmp")):
        if text == prefix or text.startswith(prefix + "/"):
            text = stand + text[len(prefix) :]
            break
    known = word.static or ("$" not in text and "`" not in text)
    if moved and not text.startswith(("/", "~")):
        return text, False  # relative to the folder an earlier `cd` of the line went to
    if not known and temp(text) and ".." not in text:
        return text, True  # `"$TMPDIR/build-$$"`: somewhere in the temp folder, whatever the rest is
    if known and text.startswith("~/"):
        rest = fs.normpath(text[2:]).lstrip("/")
        text = "~" if rest in ("", ".") else "~/" + rest
    elif known and text not in ("", "~"):
        text = fs.normpath(text)
    return text, known


_ANY = "\x00"  # a run-time part of a word ($VAR, ${..}, $(..), `..`) in a template


def _template(text: str) -> str:
    """The word with each run-time part as _ANY: `$BUILD_DIR/out` -> "\\x00/out"."""
    out, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch == "`":
            end = text.find("`", i + 1)
            i = len(text) if end < 0 else end + 1
            out.append(_ANY)
        elif ch == "$" and i + 1 < len(text) and text[i + 1] in "({":
            close, depth, j = ")" if text[i + 1] == "(" else "}", 0, i + 1
            while j < len(text):
                if text[j] in "({":
                    depth += 1
                elif text[j] in ")}":
                    depth -= 1
                    if depth == 0 and text[j] == close:
                        break
                j += 1
            i = j + 1
            out.append(_ANY)
        elif ch == "$" and i + 1 < len(text) and (text[i + 1].isalnum() or text[i + 1] in "_@*#?$!-"):
            j = i + 2 if not (text[i + 1].isalpha() or text[i + 1] == "_") else i + 1
            while j < len(text) and (text[j].isalnum() or text[j] == "_"):
                j += 1
            i = max(j, i + 2)
            out.append(_ANY)
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _covers(pattern: str, template: str) -> bool:
    """Every word `template` can become matches `pattern`: its run-time parts (_ANY) are taken only by a
    `*` of the pattern, never by a literal, `?` or `[...]` (which would hold for some values only)."""
    memo: dict = {}

    def step(p: int, t: int) -> bool:
        key = (p, t)
        if key in memo:
            return memo[key]
        if p == len(pattern):
            found = t == len(template)
        elif pattern[p] == "*":
            found = step(p + 1, t) or (t < len(template) and step(p, t + 1))
        elif t == len(template) or template[t] == _ANY:
            found = False
        elif pattern[p] == "[" and pattern.find("]", p + 2) > 0:
            end = pattern.find("]", p + 2)
            body = pattern[p + 1 : end]
            negate = body[:1] in ("!", "^")
            body = body[1:] if negate else body
            ch = template[t]
            ranges = any(body[k] <= ch <= body[k + 2] for k in range(len(body) - 2) if body[k + 1] == "-")
            found = ((ranges or ch in body) != negate) and step(end + 1, t + 1)
        else:
            found = pattern[p] in ("?", template[t]) and step(p + 1, t + 1)
        memo[key] = found
        return found

    return step(0, 0)


def _vouched(text: str, inv: Invocation) -> bool:
    """A run-time word a safe glob can vouch for: one with run-time parts (`$BUILD_DIR/out`), or find
    -exec's `{}` when the rule names it (a pack leaves those to its find rules, which read the start
    folders). Not a relative target after a `cd` that may leave the project, not xargs' `{}`."""
    if text == "{}":  # in find's own words too: the placeholder of its -exec, not a start folder
        return inv.program == "find" or inv.wrapped_by[-1:] == ("find",)
    return "$" in text or "`" in text


def _rooted(text: str) -> bool:
    """An absolute or home path: a glob in it matches only there (`/var/log/*`, `~/*`)."""
    return text.startswith("/") or text == "~" or text.startswith("~/")


def temp(text: str) -> bool:
    return any(text == t or text.startswith(t + "/") for t in _TEMP)


def _globs(text: str, patterns: tuple) -> bool:
    return any(glob_match(pattern, text, dots=True) for pattern in patterns)


def _texts(inv: Invocation) -> str:
    head = " ".join(w.text for w in inv.args)
    return f"{head}\n{inv.stdin_text}" if inv.stdin_text else head


def match(run: dict, inv: Invocation, search: "Callable[[tuple, str], Any]", every: bool = False) -> str | None:
    """ "match", "unknown" or None for one compiled run table and one invocation (`search(frozen, text)`
    is pasture.runtime.effective.search). `every`: `args` must hold for every argument, each known
    (an allow or an exception vouches for all the command touches, a deny for any of it)."""
    if not any(name in run["program"] for name in inv.names):
        return None
    options, positional = inv.normalized(run.get("valued", ()))
    rest = positional
    if "subcommand" in run:
        if inv.loose:
            present = {w.text for w in positional}
            if not any(all(part in present for part in sub) for sub in run["subcommand"]):
                return None
        else:
            texts = [w.text for w in positional]
            for sub in run["subcommand"]:
                if tuple(texts[: len(sub)]) == sub and all(w.static for w in positional[: len(sub)]):
                    rest = positional[len(sub) :]
                    break
            else:
                return None
    for group in run.get("options", ()):
        if not any(o in options for o in group):
            return None
    if not inv.loose and any(o in options for o in run.get("without", ())):
        return None
    unknown = False
    if every and "args" in run:
        for word in rest:
            text, known = _target(word, inv.moved)
            if not known or not _globs(text, run["args"]):
                return None
        if not rest:
            return None
    for key in ("args", "outside") if not every else ("outside",):
        patterns = run.get(key)
        if patterns is None:
            continue
        hit = dynamic = False
        for word in rest:
            text, known = _target(word, inv.moved)
            inside = known and _globs(text, patterns)
            if not known and ".." not in text and len(text) <= 512 and _vouched(text, inv):
                shape = _template(text)  # `$BUILD_DIR/out`: whatever the variable holds, it ends in /out
                if any(_covers(pattern, shape) for pattern in patterns):
                    inside = known = True
            if not known or (word.glob and not inside and not temp(text) and not _rooted(text)):
                dynamic = True  # `rm -rf "$DIR"`, `rm -rf *`: which files only run time tells
                continue  # (`rm -rf ~/*`, `/var/log/*` are not: every match is in that folder, outside)
            if inside == (key == "args"):
                hit = True
                break
        if not hit:
            if not dynamic:
                return None
            unknown = True
    if "text" in run and not search(run["text"], _texts(inv)):
        return None
    if "script" in run and not (inv.script and search(run["script"], inv.script)):
        return None
    return "unknown" if unknown else "match"


def exact(inv: Invocation, root: str) -> str | None:
    """Why an allow cannot approve this invocation (an assignment prefix, a program reached through a
    path, an output redirection outside the project), else None."""
    if inv.assigns:
        return f"{inv.program} runs with a VAR=value prefix"
    if inv.path_kind != "bare":
        return f"{inv.program} is reached through a path"
    for op, target in inv.redirs:
        if op not in _SHELL_OUTPUT and op != ">&":
            continue
        text = target.text
        if op == ">&" and (text.isdigit() or text == "-"):
            continue  # 2>&1: a copy of a stream
        if text == "/dev/null":
            continue
        if not target.static:
            return f"{inv.program} writes to {text} (known only at run time)"
        path = fs.normpath(fs.join(root, text))
        if not (path == root or path.startswith(root.rstrip("/") + "/")):
            return f"{inv.program} writes outside the project ({text})"
    return None
