"""Which paths a shell command plainly writes or deletes: redirections and the usual file verbs.

Reached only for commands that name something like pasture's files (generator.runtime.builtin screens
first). It reads the command the way a careful reviewer would, not the way a shell runs it: words
are split with shell quoting, `cd DIR` in a command list moves the working folder for what follows,
prefixes such as `sudo`, `env X=1`, `command` or `nohup` are looked through, and a script handed
to a shell (`bash -c '...'`, `sh -lc "..."`, `eval '...'`) is read the same way, a few levels
deep. Anything assembled at run time (variables other than $HOME, globs, `$(...)`) is out of
reach, and the module's caller documents that.

Words are split by hand (`_words`), the way `shlex.shlex(posix=True, punctuation_chars=";&|()<>")`
with `whitespace_split` splits them, token for token (tests/runtime/test_shell_words.py compares the
two on generated commands). Measured reason: `import shlex` pulls in `re`, `enum` and `functools`,
about 9.5 ms per event, half the hook's own cost, on every shell command that names something like
ours (`echo pasture-probe > probe.txt` in the session benchmark, `cat settings.py`, ...).
"""

from generator.runtime import fs  # posixpath's basename/join/normpath without importing os (-I -S does not load it)

_SEPARATORS = {";", "&&", "||", "|", "&", "|&", "(", ")", "\n"}
_PREFIXES = {"sudo", "env", "command", "builtin", "exec", "nohup", "time", "nice", "ionice", "doas", "xargs"}
# verb -> which of its plain arguments it writes: "all" or "last" (cp-like: the destination)
_VERBS = {
    "rm": "all", "rmdir": "all", "unlink": "all", "shred": "all", "mv": "all", "tee": "all",
    "truncate": "all", "touch": "all", "chmod": "all", "chown": "all", "chgrp": "all",
    "cp": "last", "install": "last", "ln": "last", "rsync": "last", "ditto": "last",
}
_DELETES = {"rm", "rmdir", "unlink", "shred", "mv"}
_IN_PLACE = {"sed", "perl", "gsed"}
_SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash"}
_KNOWN = set(_VERBS) | _IN_PLACE | _SHELLS | {"cd", "dd", "eval"}
_DEPTH = 4  # shells inside shells: deep enough for `sudo bash -c "sh -c '...'"`, bounded against bombs
# options whose value is the next word, so that value is not a path the verb writes
_VALUED = {"truncate": {"-s", "--size", "-r", "--reference"}, "chmod": set(), "install": {"-m", "--mode", "-o", "-g"},
           "chown": set(), "cp": {"-t", "--target-directory"}, "mv": {"-t", "--target-directory"},
           "ln": {"-t", "--target-directory"}}


_PUNCTUATION = frozenset(";&|()<>")
_BLANK = frozenset(" \t\r\n")  # shlex's whitespace


def split_words(text: str) -> list[str]:
    """shlex's posix split with punctuation runs as their own words; ValueError as shlex raises it."""
    words: list[str] = []
    token: list[str] = []
    quoted = False  # the current word had quotes, so it is a word even if empty
    punct = False  # the current word is a run of punctuation characters
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if punct:
            if ch in _PUNCTUATION:
                token.append(ch)
                i += 1
                continue
            words.append("".join(token))
            token, punct = [], False
            if ch in _BLANK:
                i += 1
            continue  # anything else starts the next word
        if ch in _BLANK:
            if token or quoted:
                words.append("".join(token))
            token, quoted = [], False
            i += 1
        elif ch in _PUNCTUATION:
            if token or quoted:
                words.append("".join(token))
            token, quoted, punct = [ch], False, True
            i += 1
        elif ch == "'":
            end = text.find("'", i + 1)
            if end < 0:
                raise ValueError("No closing quotation")
            token.append(text[i + 1:end])
            quoted = True
            i = end + 1
        elif ch == '"':
            quoted = True
            i += 1
            while True:
                if i >= n:
                    raise ValueError("No closing quotation")
                ch = text[i]
                if ch == '"':
                    i += 1
                    break
                if ch == "\\":
                    if i + 1 >= n:
                        raise ValueError("No escaped character")
                    nxt = text[i + 1]
                    token.append(nxt if nxt in '"\\' else ch + nxt)  # only \" and \\ are escapes in quotes
                    i += 2
                    continue
                token.append(ch)
                i += 1
        elif ch == "\\":
            if i + 1 >= n:
                raise ValueError("No escaped character")
            token.append(text[i + 1])
            i += 2
        else:
            token.append(ch)
            i += 1
    if token or quoted:
        words.append("".join(token))
    return words


def _words(command: str) -> list[str]:
    try:
        return split_words(command.replace("\n", " ; "))
    except ValueError:  # unbalanced quotes: fall back to plain splitting, never fail open on a parse error
        return command.replace(";", " ; ").replace("&&", " && ").replace("|", " | ").replace(">", " > ").split()


def _split(words: list[str]) -> list[list[str]]:
    commands: list[list[str]] = []
    current: list[str] = []
    for word in words:
        if word in _SEPARATORS:
            if current:
                commands.append(current)
            current = []
        else:
            current.append(word)
    if current:
        commands.append(current)
    return commands


def _is_redirect(word: str) -> bool:
    stripped = word.lstrip("0123456789&")
    return bool(stripped) and set(stripped) <= {">", "|"} and stripped[0] == ">"


def _script(verb: str, args: list[str]) -> str | None:
    """The script a shell runs (`bash -c SCRIPT`, `sh -ec SCRIPT`, `eval WORDS`), else None."""
    if verb == "eval":
        return " ".join(args)
    if verb not in _SHELLS:
        return None
    for index, arg in enumerate(args):
        if arg.startswith("--") and arg != "--":
            continue  # --norc, --login, ...
        if not arg.startswith("-") or arg == "--":
            return None  # a script file: what it runs is out of reach
        if "c" in arg[1:]:
            return args[index + 1] if index + 1 < len(args) else None
    return None


def writes(command: str, cwd: str, home: str = "/", depth: int = 0) -> list:
    """[((folder, path as written), deletes?)] for every path the command plainly writes."""
    out = []
    here = cwd
    for words in _split(_words(command)):
        # Redirections anywhere in the simple command: the next word is the file written.
        plain: list[str] = []
        skip = False
        for index, word in enumerate(words):
            if skip:
                skip = False
                continue
            if _is_redirect(word):
                if index + 1 < len(words) and not words[index + 1].startswith("&"):
                    out.append(((here, words[index + 1]), False))
                skip = True
                continue
            if word.startswith("<"):
                skip = word == "<"
                continue
            plain.append(word)
        while plain and "=" in plain[0] and not plain[0].startswith(("=", "-")):  # VAR=value prefixes
            plain = plain[1:]
        if plain and fs.basename(plain[0]) in _PREFIXES:
            # sudo -u root rm x, env -i X=1 tee y: look through to the first word that is a known verb
            known = next((i for i, w in enumerate(plain) if fs.basename(w) in _KNOWN), None)
            plain = plain[known:] if known is not None else []
        if not plain:
            continue
        verb = fs.basename(plain[0])
        args = plain[1:]
        script = _script(verb, args)
        if script is not None:
            if depth < _DEPTH:
                out += writes(script, here, home, depth + 1)
            continue
        if verb == "cd":
            target = args[0] if args else home
            here = fs.normpath(fs.join(here, target))
            continue
        if verb == "dd":
            out += [((here, a[3:]), False) for a in args if a.startswith("of=")]
            continue
        if verb in _IN_PLACE:
            if any(a == "-i" or a.startswith("-i") or a.startswith("--in-place") or (a.startswith("-") and "i" in a[1:]
                   and not a.startswith("--")) for a in args):
                positional = [a for a in args if not a.startswith("-")]
                scripted = any(a in ("-e", "--expression", "-f", "--file") for a in args)
                out += [((here, a), False) for a in (positional if scripted else positional[1:])]
            continue
        mode = _VERBS.get(verb)
        if mode is None:
            continue
        valued = _VALUED.get(verb, set())
        positional = []
        skip = False
        for index, arg in enumerate(args):
            if skip:
                skip = False
                if index > 0 and args[index - 1] in ("-t", "--target-directory"):
                    out.append(((here, arg), verb in _DELETES))
                continue
            if arg in valued:
                skip = True
                continue
            if arg.startswith("--target-directory="):
                out.append(((here, arg.split("=", 1)[1]), False))
                continue
            if arg.startswith("-") and arg != "-":
                continue
            positional.append(arg)
        if verb in ("chmod", "chown", "chgrp") and positional:
            positional = positional[1:]  # the mode / owner
        if verb == "mv":  # the sources vanish from where they were; the destination is written
            out += [((here, a), True) for a in positional[:-1]] + [((here, a), False) for a in positional[-1:]]
            continue
        chosen = positional if mode == "all" else positional[-1:]
        out += [((here, a), verb in _DELETES) for a in chosen]
    return out


_GUARD_COMMANDS = {("policy", "trust"), ("policy", "untrust"), ("install",), ("uninstall",)}


def _python_module(args: list[str]):
    """(module, its arguments) for `python [options] -m MODULE ...`, else None."""
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "-m":
            return (args[index + 1], args[index + 2:]) if index + 1 < len(args) else None
        if arg.startswith("-m"):
            return arg[2:], args[index + 1:]
        if arg in ("-W", "-X", "--check-hash-based-pycs"):
            index += 2  # options that take a value
            continue
        if not arg.startswith("-") or arg in ("-c", "-"):
            return None  # a script, code or stdin: what it runs is out of reach
        index += 1
    return None


def guard_command(command: str, depth: int = 0) -> str | None:
    """`pasture policy trust`, `pasture install`, ...: the commands that change what the guard enforces,
    which the agent must not run on the user's behalf. Returns the command as the user would type it."""
    for words in _split(_words(command)):
        while words and "=" in words[0] and not words[0].startswith(("=", "-")):
            words = words[1:]
        index = 0
        while index < len(words) and (fs.basename(words[index]) in _PREFIXES or words[index].startswith("-")):
            index += 1  # sudo, env -i, nohup ...: the command is the first word after them
        if index >= len(words):
            continue
        name = fs.basename(words[index])
        rest = words[index + 1:]
        script = _script(name, rest)
        if script is not None:
            found = guard_command(script, depth + 1) if depth < _DEPTH else None
            if found is not None:
                return found
            continue
        if name == "python" or name.startswith("python3"):
            module = _python_module(rest)
            if module is None or module[0] not in ("generator", "generator.entry"):
                continue
            rest = module[1]
        elif name not in ("pasture", "pasture-hook"):
            continue
        rest = [w for w in rest if not w.startswith("-")]
        for size in (2, 1):
            if tuple(rest[:size]) in _GUARD_COMMANDS:
                return "pasture " + " ".join(rest[:size])
    return None
