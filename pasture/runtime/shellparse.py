"""The words the shell will see: a reader of one bash command line, for the guard's built-in rules.

`parse(text)` gives every simple command of the line as bash would run it: words after quote
removal ('...', "...", $'...' with its escapes, $"..."), backslash escapes and backslash-newline
continuations, brace expansion of comma lists (`pa{s,}ture`), comments, and split at every control
operator (`;` `&` `&&` `||` `|` `|&` `(` `)` `;;` newline). Reserved words (`{ } ! if then else elif
fi for in do done while until case esac select function time [[ ]]`) are read as syntax, not as
commands; function bodies count as commands (defined, so maybe run). Redirections are kept apart
from the words, with here-document bodies and here-strings, which a shell reading its standard
input runs.

What only exists at run time stays as written and marks the word not static: `$VAR`, `${...}`,
`$(...)`, backquotes, `$((...))`, `<(...)`, `>(...)`. The scripts of command and process
substitutions are kept (`Word.subs`): the shell runs them too, and the caller reads them the same way.
Unquoted glob characters are flagged (`Word.glob`), not expanded.

Anything this reader cannot follow (an unclosed quote or substitution, a here-document without its
end, nesting or output past the bounds below) raises `Unparsable`; the caller then treats the
command as touching everything it names. tests/runtime/test_shell_words.py compares the words with
what a real bash passes to the programs it starts, on generated commands.

Standard library only, no `re`: this runs on the hook path for commands the screen lets through.
"""

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: the hook path pays for every import
if TYPE_CHECKING:
    from typing import Any


_BLANK = " \t"
_META = " \t\n;&|()<>"
_OPERATORS = (
    ";;&",
    "&>>",
    "<<<",
    "<<-",
    ";;",
    ";&",
    "&&",
    "||",
    "|&",
    "&>",
    ">>",
    ">|",
    ">&",
    "<&",
    "<>",
    "<<",
    ";",
    "&",
    "|",
    "(",
    ")",
    "<",
    ">",
    "\n",
)
REDIRECTS = frozenset(("&>>", "<<<", "<<-", "&>", ">>", ">|", ">&", "<&", "<>", "<<", "<", ">"))
_SKIP_RESERVED = frozenset(
    ("{", "}", "!", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "esac", "time", "coproc")
)
_ANSI = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}
_SPECIAL_PARAMS = frozenset("@*#?$!-0123456789")
_NAME_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_NAME = _NAME_START | frozenset("0123456789")
_OPEN, _COMMA, _CLOSE = "\ue000", "\ue001", "\ue002"  # unquoted { , } while a word is read
MAX_BRACE_WORDS = 256
MAX_TOKENS = 20000
MAX_NESTING = 32  # $( inside $( ...: past this the command counts as unreadable
MAX_TEXT = 200_000


class Unparsable(ValueError):
    """The reader cannot follow the command (the caller treats it as touching what it names)."""


class Word:
    """One word as the shell passes it on. text: after quote removal, run-time parts as written."""

    __slots__ = ("text", "static", "quoted", "glob", "subs", "plain")

    def __init__(self, text: str, static: bool, quoted: bool, glob: bool, subs: list, plain: int):
        self.text, self.static, self.quoted, self.glob, self.subs = text, static, quoted, glob, subs
        self.plain = plain  # how many leading characters were neither quoted nor expanded

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"Word({self.text!r}{'' if self.static else ', dynamic'})"


class Command:
    """One simple command: its words (program first), VAR=value prefixes, redirections, and what a
    shell reading its standard input would run (`stdin`: here-document bodies and here-strings;
    `piped`: the previous command of a pipeline writes its input)."""

    __slots__ = ("words", "assigns", "redirs", "stdin", "piped")

    def __init__(self, piped: bool) -> None:
        self.words: list = []
        self.assigns: list = []
        self.redirs: list = []
        self.stdin: list = []
        self.piped = piped

    def argv(self) -> list:
        return [w.text for w in self.words]


def continuations(text: str) -> str:
    """The text with backslash-newline removed where bash removes it (not in '...' nor in a comment)."""
    if "\\\n" not in text:
        return text
    out = []
    i, n = 0, len(text)
    start = True  # at the start of a word: `#` begins a comment there
    double = False
    while i < n:
        ch = text[i]
        if ch == "\\":
            if i + 1 < n and text[i + 1] == "\n":
                i += 2
                continue
            out.append(text[i : i + 2])
            i += 2
            start = False
            continue
        if ch == '"':
            double = not double
        elif ch == "'" and not double:
            ansi = i > 0 and text[i - 1] == "$" and (i < 2 or text[i - 2] != "\\")
            j = i + 1
            while j < n and text[j] != "'":
                j += 2 if ansi and text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
            start = False
            continue
        elif ch == "#" and start and not double:
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(text[i:j])
            i = j
            continue
        out.append(ch)
        start = ch in _META and not double
        i += 1
    return "".join(out)


def _ansi(text: str, i: int) -> tuple:
    """$'...' starting after the opening quote: (decoded, index after the closing quote)."""
    out: list[str] = []
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "'":
            return "".join(out), i + 1
        if ch != "\\" or i + 1 >= n:
            out.append(ch)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt in _ANSI:
            out.append(_ANSI[nxt])
            i += 2
        elif nxt in "01234567":
            j = i + 1
            while j < n and j < i + 4 and text[j] in "01234567":
                j += 1
            out.append(chr(int(text[i + 1 : j], 8) & 0xFF))
            i = j
        elif nxt in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[nxt]
            j = i + 2
            while j < n and j < i + 2 + width and text[j] in "0123456789abcdefABCDEF":
                j += 1
            if j == i + 2:
                out.append("\\" + nxt)
            else:
                value = int(text[i + 2 : j], 16)
                out.append(chr(value) if value < 0x110000 else "\ufffd")
            i = j
        elif nxt == "c" and i + 2 < n:
            out.append(chr(ord(text[i + 2]) & 0x1F))
            i += 3
        else:
            out.append("\\" + nxt)
            i += 2
    raise Unparsable("unclosed $'")


def _closing_paren(text: str, i: int, depth: int) -> int:
    """Index of the `)` closing a `$(`, `<(` or `>(` whose body starts at i."""
    if depth > MAX_NESTING:
        raise Unparsable("substitutions nested too deep")
    tokens, end = _lex(text, i, closing=True, nesting=depth + 1)
    return end


def _closing_brace(text: str, i: int, depth: int) -> int:
    """Index of the `}` closing a `${` whose body starts at i."""
    if depth > MAX_NESTING:
        raise Unparsable("expansions nested too deep")
    depth, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "'":
            j = text.find("'", i + 1)
            if j < 0:
                raise Unparsable("unclosed quote in ${")
            i = j + 1
            continue
        if ch == '"':
            i = _closing_double(text, i + 1, depth + 1)
            continue
        if ch == "$" and i + 1 < n and text[i + 1] == "(":
            i = _closing_paren(text, i + 2, depth + 1) + 1
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            if depth == 0:
                return i
            depth -= 1
        i += 1
    raise Unparsable("unclosed ${")


def _closing_double(text: str, i: int, depth: int) -> int:
    """Index after the `"` closing a double-quoted string whose body starts at i."""
    if depth > MAX_NESTING:
        raise Unparsable("expansions nested too deep")
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\\":
            i += 2
        elif ch == '"':
            return i + 1
        elif ch == "$" and i + 1 < n and text[i + 1] == "(":
            i = _closing_paren(text, i + 2, depth + 1) + 1
        elif ch == "$" and i + 1 < n and text[i + 1] == "{":
            i = _closing_brace(text, i + 2, depth + 1) + 1
        elif ch == "`":
            i = _closing_backquote(text, i + 1) + 1
        else:
            i += 1
    raise Unparsable("unclosed double quote")


def _closing_backquote(text: str, i: int) -> int:
    n = len(text)
    while i < n:
        if text[i] == "\\":
            i += 2
        elif text[i] == "`":
            return i
        else:
            i += 1
    raise Unparsable("unclosed backquote")


def _unbackquote(body: str) -> str:
    # inside `...` a backslash escapes only $ ` and \
    out, i = [], 0
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body) and body[i + 1] in "$`\\":
            out.append(body[i + 1])
            i += 2
        else:
            out.append(body[i])
            i += 1
    return "".join(out)


def _dollar(text: str, i: int, buf: list, subs: list, depth: int) -> tuple:
    """An expansion at text[i] == '$' (unquoted or in "..."): (index after it, dynamic?)."""
    n = len(text)
    nxt = text[i + 1] if i + 1 < n else ""
    if nxt == "(":
        end = _closing_paren(text, i + 2, depth)
        subs.append(text[i + 2 : end])
        buf.append(text[i : end + 1])
        return end + 1, True
    if nxt == "{":
        end = _closing_brace(text, i + 2, depth)
        body = text[i + 2 : end]
        if "$(" in body or "`" in body:
            subs.append(body)  # ${x:-$(cmd)}: the substitution inside runs
        buf.append(text[i : end + 1])
        return end + 1, True
    if nxt in _SPECIAL_PARAMS:
        buf.append(text[i : i + 2])
        return i + 2, True
    if nxt in _NAME_START:
        j = i + 1
        while j < n and text[j] in _NAME:
            j += 1
        buf.append("${" + text[i + 1 : j] + "}")  # braced: `$IFS'x'` must not read as the variable IFSx
        return j, True
    buf.append("$")
    return i + 1, False


def _word(text: str, i: int, depth: int = 0) -> tuple:
    """Read one word starting at i: (Word, index after it), or (None, i) at a metacharacter."""
    n = len(text)
    buf: list = []
    subs: list = []
    static, quoted, glob, braces = True, False, False, False
    plain = -1
    while i < n:
        ch = text[i]
        if plain < 0 and ch in "\\'\"$`<>":
            plain = sum(map(len, buf))
        if ch in _META:
            if ch in "<>" and i + 1 < n and text[i + 1] == "(":  # process substitution is part of a word
                end = _closing_paren(text, i + 2, depth)
                subs.append(text[i + 2 : end])
                buf.append(text[i : end + 1])
                static = False
                i = end + 1
                continue
            break
        if ch == "\\":
            if i + 1 < n and text[i + 1] == "\n":
                i += 2  # a continuation (continuations() removes them first; this is its backstop)
            elif i + 1 < n:
                buf.append(text[i + 1])
                quoted = True
                i += 2
            else:
                buf.append("\\")
                i += 1
        elif ch == "'":
            end = text.find("'", i + 1)
            if end < 0:
                raise Unparsable("unclosed single quote")
            buf.append(text[i + 1 : end])
            quoted = True
            i = end + 1
        elif ch == "$" and i + 1 < n and text[i + 1] == "'":
            decoded, i = _ansi(text, i + 2)
            buf.append(decoded)
            quoted = True
        elif ch == '"' or (ch == "$" and i + 1 < n and text[i + 1] == '"'):
            i += 1 if ch == '"' else 2
            quoted = True
            while True:
                if i >= n:
                    raise Unparsable("unclosed double quote")
                ch = text[i]
                if ch == '"':
                    i += 1
                    break
                if ch == "\\" and i + 1 < n and text[i + 1] == "\n":
                    i += 2
                elif ch == "\\" and i + 1 < n and text[i + 1] in '$`"\\':
                    buf.append(text[i + 1])
                    i += 2
                elif ch == "$":
                    i, dynamic = _dollar(text, i, buf, subs, depth)
                    static = static and not dynamic
                elif ch == "`":
                    end = _closing_backquote(text, i + 1)
                    subs.append(_unbackquote(text[i + 1 : end]))
                    buf.append(text[i : end + 1])
                    static = False
                    i = end + 1
                else:
                    buf.append(ch)
                    i += 1
        elif ch == "$":
            i, dynamic = _dollar(text, i, buf, subs, depth)
            static = static and not dynamic
        elif ch == "`":
            end = _closing_backquote(text, i + 1)
            subs.append(_unbackquote(text[i + 1 : end]))
            buf.append(text[i : end + 1])
            static = False
            i = end + 1
        else:
            if ch in "*?[":
                glob = True
            elif ch == "{":
                braces = True
                ch = _OPEN
            elif ch == ",":
                ch = _COMMA
            elif ch == "}":
                ch = _CLOSE
            buf.append(ch)
            i += 1
    if not buf and not quoted:
        return None, i
    text_out = "".join(buf)
    if plain < 0:
        plain = len(text_out)
    if not braces:
        if _COMMA in text_out or _CLOSE in text_out:
            text_out = _restore(text_out)
        return [Word(text_out, static, quoted, glob, subs, plain)], i
    return [Word(t, static, quoted, glob, subs, plain) for t in _brace(text_out)], i


def _restore(text: str) -> str:
    return text.replace(_OPEN, "{").replace(_COMMA, ",").replace(_CLOSE, "}")


def _group(item: str) -> "Any":
    """The leftmost brace group bash expands in `item`, as (open, close, commas), or None; one pass."""
    stack: list = []
    best = None
    for j, ch in enumerate(item):
        if ch == _OPEN:
            stack.append([j])
        elif ch == _COMMA and stack:
            stack[-1].append(j)
        elif ch == _CLOSE and stack:
            group = stack.pop()
            if (len(group) > 1 or _sequence(item[group[0] + 1 : j]) is not None) and (
                best is None or group[0] < best[0]
            ):
                best = (group[0], j, group[1:])
    return best


def _sequence(body: str) -> "Any":
    """`a..e`, `1..3`, `x..z..2`: the words of a brace sequence expression, else None."""
    parts = body.split("..")
    if len(parts) not in (2, 3) or (len(parts) == 3 and not parts[2].lstrip("-").isdigit()):
        return None
    step = abs(int(parts[2])) or 1 if len(parts) == 3 else 1
    a, b = parts[0], parts[1]
    if len(a) == 1 and len(b) == 1 and a.isalpha() and b.isalpha():
        lo, hi = ord(a), ord(b)
        seq = range(lo, hi + 1, step) if lo <= hi else range(lo, hi - 1, -step)
        return [chr(c) for c in seq][: MAX_BRACE_WORDS + 1]
    if a.lstrip("-").isdigit() and b.lstrip("-").isdigit() and len(a) < 12 and len(b) < 12:
        lo, hi = int(a), int(b)
        width = max(len(a), len(b)) if (a.lstrip("-").startswith("0") or b.lstrip("-").startswith("0")) else 0
        seq = range(lo, hi + 1, step) if lo <= hi else range(lo, hi - 1, -step)
        return [str(v).zfill(width) for v in seq[: MAX_BRACE_WORDS + 1]]
    return None


def _brace(text: str) -> list:
    """Brace expansion of comma lists and sequences (bash's `a{b,c}d`, `a{1..3}`); `{x}` stays as written."""
    out: list = []
    pending = [text]
    while pending:
        item = pending.pop()
        found = _group(item)
        if found is None:
            out.append(_restore(item))
        else:
            start, j, commas = found
            head, tail = item[:start], item[j + 1 :]
            if commas:
                cuts = [start] + commas + [j]
                parts = [item[a + 1 : b] for a, b in zip(cuts, cuts[1:], strict=False)]
            else:
                parts = _sequence(item[start + 1 : j])
            for part in reversed(parts):
                pending.append(head + part + tail)
        if len(out) + len(pending) > MAX_BRACE_WORDS:
            raise Unparsable("brace expansion past the bound")
    return out


def _lex(text: str, i: int = 0, closing: bool = False, nesting: int = 0) -> tuple:
    """Tokens from i: ["w", Word] | ["op", operator, here-document body]; with `closing`, stop at
    the `)` that closes an enclosing `$(` and return its index."""
    tokens: list = []
    heredocs: list = []  # [delimiter, strip tabs, token] waiting for the next newline
    depth = 0
    cases = 0  # case ... esac open here: their `pattern)` closes nothing
    pattern = False
    n = len(text)
    start = True
    while i < n:
        ch = text[i]
        if ch in _BLANK:
            i += 1
            start = True
            continue
        if ch == "#" and start:
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if ch in _META and not (ch in "<>" and i + 1 < n and text[i + 1] == "("):
            op = next(o for o in _OPERATORS if text.startswith(o, i))
            i += len(op)
            start = True
            if pattern and op in ("(", ")", "|"):
                pattern = op != ")"
                tokens.append(["op", op, None])
                continue
            if op in (";;", ";&", ";;&") and cases:
                pattern = True
            if op == "(":
                depth += 1
            elif op == ")":
                if closing and depth == 0:
                    if heredocs:
                        raise Unparsable("here-document inside a substitution")
                    return tokens, i - 1
                depth -= 1
            token = ["op", op, None]
            tokens.append(token)
            if op in ("<<", "<<-"):
                while i < n and text[i] in _BLANK:
                    i += 1
                words, i = _word(text, i, nesting)
                if words is None:
                    raise Unparsable("here-document without a delimiter")
                delimiter = words[0]
                tokens.append(["w", delimiter])
                heredocs.append([delimiter.text, op == "<<-", token, delimiter])
            elif op == "\n" and heredocs:
                for delimiter, strip, target, word in heredocs:
                    lines = []
                    while True:
                        if i >= n:
                            break  # bash: here-document ended by end of file (a warning), the rest is its body
                        j = text.find("\n", i)
                        j = n if j < 0 else j
                        line = text[i:j]
                        i = j + 1
                        if (line.lstrip("\t") if strip else line) == delimiter:
                            break
                        lines.append(line)
                    target[2] = "\n".join(lines)
                    if not word.quoted:  # `<<EOF` expands $(...) and `...` in its body: they run
                        word.subs = word.subs + _body_subs(target[2], nesting)
                heredocs = []
            continue
        start = False
        words, i = _word(text, i, nesting)
        if words is None:  # pragma: no cover - _word always consumes a non-metacharacter
            raise Unparsable("stuck")
        if i < n and text[i] in "<>" and len(words) == 1 and words[0].text.isdigit() and not words[0].quoted:
            continue  # `2>file`: the file descriptor the redirection applies to, not a word
        if len(words) == 1 and not words[0].quoted:
            if words[0].text == "case" and _command_start(tokens):
                cases += 1
                pattern = False
                tokens.append(["w", words[0]])
                continue
            if words[0].text == "in" and cases and not pattern and _is_case_head(tokens):
                pattern = True
            elif words[0].text == "esac" and cases:
                cases -= 1
                pattern = False
        for word in words:
            tokens.append(["w", word])
        if len(tokens) > MAX_TOKENS:
            raise Unparsable("command too long to read")
    if closing:
        raise Unparsable("unclosed $(")
    for heredoc in heredocs:  # `cat <<EOF` on the last line: an empty body
        target = heredoc[2]
        target[2] = ""
    return tokens, i


_STARTERS = frozenset(("then", "do", "else", "elif", "{", "!", "if", "while", "until", "time"))


def _command_start(tokens: list) -> bool:
    if not tokens:
        return True
    last = tokens[-1]
    if last[0] == "op":
        return last[1] not in REDIRECTS
    return not last[1].quoted and last[1].text in _STARTERS


def _is_case_head(tokens: list) -> bool:
    """The last two tokens are `case WORD` (so a following `in` opens the patterns)."""
    return len(tokens) >= 2 and tokens[-2][0] == "w" and tokens[-2][1].text == "case" and not tokens[-2][1].quoted


def _body_subs(body: str, depth: int) -> list:
    """The command substitutions in an unquoted here-document's body (read as inside "...")."""
    subs: list = []
    i, n = 0, len(body)
    while i < n:
        ch = body[i]
        if ch == "\\":
            i += 2
        elif ch == "$":
            i, _ = _dollar(body, i, [], subs, depth)
        elif ch == "`":
            end = _closing_backquote(body, i + 1)
            subs.append(_unbackquote(body[i + 1 : end]))
            i = end + 1
        else:
            i += 1
    return subs


def _is_assignment(word: Word) -> bool:
    text = word.text
    eq = text.find("=")
    if eq <= 0 or eq >= word.plain or text[0] not in _NAME_START:
        return False
    name = text[:eq].rstrip("+")
    if name.endswith("]") and "[" in name:
        name = name[: name.index("[")]
    return all(c in _NAME for c in name)


def parse(text: str) -> tuple:
    """(commands, other words): every simple command in order, and the words that are no command's
    (for-lists, case subjects and patterns, [[ ]] operands) whose substitutions still run."""
    if len(text) > MAX_TEXT:
        raise Unparsable("command too long to read")
    tokens, _ = _lex(continuations(text))
    commands: list = []
    others: list = []
    current = None
    piped = False
    mode = "start"  # start | words | skip (for/select header) | case-subject | pattern | cond ([[ ]])
    case_depth = 0
    loop: list = []  # a for/select header's words: its variable, `in`, the values
    index, count = 0, len(tokens)
    while index < count:
        kind, value = tokens[index][0], tokens[index][1]
        index += 1
        if kind == "op":
            if mode == "cond":
                continue  # && || ( ) < > inside [[ ]] are its own syntax
            if mode == "pattern":
                if value == ")":
                    mode = "start"
                continue  # ( and | inside a case pattern
            if value in REDIRECTS:
                if index >= count or tokens[index][0] != "w":
                    raise Unparsable(f"redirection {value} without a target")
                target = tokens[index][1]
                index += 1
                if current is None:
                    current = Command(piped)
                    commands.append(current)
                current.redirs.append((value, target))
                if value in ("<<", "<<-"):
                    current.stdin.append(tokens[index - 2][2])
                elif value == "<<<":
                    current.stdin.append(target.text)
                continue
            if (
                value == "("
                and index < count
                and tokens[index][:2] == ["op", ")"]
                and current is not None
                and len(current.words) == 1
                and not current.redirs
                and not current.assigns
            ):
                commands.remove(current)  # `name () { ...; }`: defines name, runs nothing yet
                index += 1
                mode = "start"
            elif value in (";;", ";&", ";;&") and case_depth:
                mode = "pattern"
            elif mode not in ("skip", "case-subject"):  # a for/case header runs up to its `do` / `in`
                mode = "start"
            current = None
            piped = value in ("|", "|&")
            continue
        word = value
        if mode == "cond":
            others.append(word)
            if word.text == "]]" and not word.quoted:
                mode = "words"
            continue
        if mode == "skip":
            others.append(word)
            if word.text == "do" and not word.quoted:
                mode = "start"
                if len(loop) > 2 and loop[1].text == "in":  # `for d in a b; do`: $d is any of a b
                    current = Command(False)
                    current.assigns.append(
                        (
                            loop[0].text,
                            Word(
                                " ".join(w.text for w in loop[2:]),
                                all(w.static for w in loop[2:]),
                                True,
                                any(w.glob for w in loop[2:]),
                                [],
                                0,
                            ),
                        )
                    )
                    commands.append(current)
                    current = None
                elif len(loop) == 1:  # `for f; do` / `for f do`: $f is any of the positional parameters
                    current = Command(False)
                    current.assigns.append((loop[0].text, Word("$@", False, True, False, [], 0)))
                    commands.append(current)
                    current = None
            else:
                loop.append(word)
            continue
        if mode == "case-subject":
            others.append(word)
            if word.text == "in" and not word.quoted:
                mode = "pattern"
            continue
        if mode == "pattern":
            if word.text == "esac" and not word.quoted:
                case_depth -= 1
                mode = "words"
            else:
                others.append(word)
            continue
        if mode == "start" and current is None and not word.quoted:
            reserved = word.text
            if reserved in _SKIP_RESERVED:
                if reserved == "esac" and case_depth:
                    case_depth -= 1
                if reserved == "time" and index < count and tokens[index][0] == "w" and tokens[index][1].text == "-p":
                    index += 1
                continue
            if reserved in ("for", "select"):
                mode = "skip"
                loop = []
                continue
            if reserved == "case":
                case_depth += 1
                mode = "case-subject"
                continue
            if reserved == "[[":
                mode = "cond"
                continue
            if reserved == "function":
                if index < count and tokens[index][0] == "w":
                    index += 1  # the function's name
                if index + 1 < count and tokens[index][:2] == ["op", "("] and tokens[index + 1][:2] == ["op", ")"]:
                    index += 2
                continue
        if current is None:
            current = Command(piped)
            commands.append(current)
        if mode == "start" and not current.words and _is_assignment(word):
            eq = word.text.index("=")
            current.assigns.append(
                (
                    word.text[:eq].rstrip("+"),
                    Word(word.text[eq + 1 :], word.static, word.quoted, word.glob, word.subs, 0),
                )
            )
            if word.text.endswith("=") and index < count and tokens[index][:2] == ["op", "("]:
                index += 1  # an array `a=(x y)`: its words are values, not a subshell
                elements = []
                while index < count and tokens[index][:2] != ["op", ")"]:
                    if tokens[index][0] == "w":
                        others.append(tokens[index][1])
                        elements.append(tokens[index][1])
                    index += 1
                index += 1
                if elements:  # `$a`, `${a[1]}`, "${a[@]}": read as any of its elements (all of them)
                    current.assigns[-1] = (
                        current.assigns[-1][0],
                        Word(
                            " ".join(e.text for e in elements),
                            all(e.static for e in elements),
                            True,
                            any(e.glob for e in elements),
                            [],
                            0,
                        ),
                    )
            continue
        mode = "words"
        current.words.append(word)
    if mode in ("skip", "case-subject", "pattern", "cond") or case_depth > 0:
        raise Unparsable("unfinished compound command")
    return commands, others
