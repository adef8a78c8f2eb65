"""The guard reads a command line into the words bash will pass to the programs it starts.

Differential test: generated command lines (seeded, reproducible: 600 in the fast tier, 3,000 in
the slow one) are run by a real bash in which no program exists, so every simple command lands in
`command_not_found_handle`,
which records its exact argv; pasture.runtime.shellparse must find the same argv lists. What is
generated is what pasture.runtime.shellparse claims: quote removal ('...', "...", $'...' with its
escapes, $"..."), backslash escapes, backslash-newline continuations (inside a word too), brace
expansion of comma lists, comments, redirections and here-documents (an unquoted one's substitutions
run), VAR=value prefixes, `{ }`,
`( )`, `if/then/elif/else/fi`, `for ... do ... done`, `case ... esac`, `&&`, `||`, `;`, `|`, `&`,
newlines, and command substitution (whose commands run too; the word it produces is empty here, so
bash drops it, and the reader marks it not static).
"""

from __future__ import annotations

import random
import shutil
import subprocess

import pytest

from pasture.runtime.shellparse import Unparsable, parse

BASH = shutil.which("bash")
if BASH is None:  # a prerequisite of the suite, like npm: fail with what to install, never skip
    pytest.fail("the differential shell test needs bash on PATH (apt-get install bash)", pytrace=False)

RUNNER = r"""
command_not_found_handle() {
  local r; printf -v r '%s\037' "$@"; printf '%s' "$r" > "$LOGDIR/$N.$BASHPID.$RANDOM$RANDOM"; return 0
}
PATH=/nonexistent-pasture-differential
N=0
while IFS= read -r -d '' line; do eval "$line"; wait; printf '\035' >&2; N=$((N + 1)); done < "$CMDS"
"""

PROGRAMS = ["pasture", "tool", "timeout", "nice", "env", "sudo", "rm", "tee", "python3", "stdbuf", "nohup"]
SAFE = "abcxyz019./_-=:@%+,"
NOT_RUN = {
    "false",
    "wait",
    "x",
    "y",
    "z",
    "never",
}  # builtins, and the branches bash does not take (the reader lists them)


def _plain(rng: random.Random) -> str:
    return "".join(rng.choice(SAFE.replace(",", "").replace("=", "")) for _ in range(rng.randint(1, 5)))


def _piece(rng: random.Random) -> str:
    kind = rng.randrange(11)
    if kind == 0:
        inner = "".join(rng.choice('ab $"\\;|&()<>*?`#\t{},') for _ in range(rng.randint(0, 5)))
        return "'" + inner + "'"
    if kind == 1:
        parts = [
            rng.choice(["a", " ", "'", ";", '\\"', "\\\\", "\\$", "\\`", "\\a", "|", "#", "*", "\\\n", "{x,y}"])
            for _ in range(rng.randint(0, 4))
        ]
        return ('$"' if rng.random() < 0.1 else '"') + "".join(parts) + '"'
    if kind == 2:
        parts = [
            rng.choice(
                [
                    "p",
                    " ",
                    "\\n",
                    "\\t",
                    "\\x41",
                    "\\x7",
                    "\\101",
                    "\\07",
                    "\\\\",
                    "\\'",
                    '\\"',
                    "\\u00e9",
                    "\\e",
                    "\\a",
                    "\\q",
                    "\\?",
                    "\\cA",
                    "\\U0001F600",
                    "$",
                    '"',
                ]
            )
            for _ in range(rng.randint(0, 4))
        ]
        return "$'" + "".join(parts) + "'"
    if kind == 3:
        return "\\" + rng.choice("ab ;|&()<>'\"$`#*?{}\\~=")
    if kind == 4:
        return "\\\n"  # a continuation inside the word
    if kind == 5:
        return "{" + ",".join(_plain(rng) for _ in range(rng.randint(2, 3))) + "}"
    if kind == 6:
        return rng.choice(["''", '""'])
    return _plain(rng)


def _word(rng: random.Random) -> str:
    word = "".join(_piece(rng) for _ in range(rng.randint(1, 3)))
    if word.startswith(("#", "~")) or word in ("{", "}", "!", "\\\n"):
        word = "a" + word
    return word


def _simple(rng: random.Random, depth: int) -> str:
    parts = []
    if rng.random() < 0.15:
        parts.append(f"V{rng.randrange(9)}={_word(rng)}")
    parts.append(
        rng.choice(PROGRAMS)
        if rng.random() < 0.7
        else rng.choice(["pas''ture", "$'pasture'", 'p"a"s\\ture', "pas\\\nture", "to{o,}l"])
    )
    for _ in range(rng.randint(0, 4)):
        roll = rng.random()
        if roll < 0.08:
            parts.append(rng.choice([">/dev/null", "2>/dev/null", "</dev/null", "2>&1", ">>/dev/null", "&>/dev/null"]))
        elif roll < 0.14 and depth < 2:
            parts.append("$( " + _line(rng, depth + 1) + ")")  # `$((` would be arithmetic
        else:
            parts.append(_word(rng))
    return " ".join(parts)


def _inner(rng: random.Random, depth: int) -> str:
    line = _line(rng, depth + 1)
    ends = line.endswith("\n") and not line.endswith("\\\n")
    return line if ends else line + ";"  # a comment or here-document ends its line


def _line(rng: random.Random, depth: int = 0) -> str:
    roll = rng.random()
    if depth < 2 and roll < 0.1:
        return "{ " + _inner(rng, depth) + " }"
    if depth < 2 and roll < 0.18:
        return "( " + _line(rng, depth + 1) + "\nwait)"  # a job started in ( ) is this test's to wait for
    if depth < 2 and roll < 0.25:
        return f"if {_simple(rng, depth)}; then {_inner(rng, depth)} elif x; then y; else z; fi"
    if depth < 2 and roll < 0.3:
        return f"for v in {_plain(rng)}; do {_inner(rng, depth)} done"  # one item: the body runs once
    if depth < 2 and roll < 0.35:
        return f"case k in k|j) {_line(rng, depth + 1)}\n;; *) never ;; esac"
    if depth < 2 and roll < 0.45:
        op = rng.choice([" && ", " ; ", " | ", " & ", "\n", " |& "])
        return _simple(rng, depth) + op + _line(rng, depth + 1)
    if roll < 0.5:
        return "false || " + _simple(rng, depth)
    if roll < 0.55:
        return _simple(rng, depth) + " # a comment; with | words\n"
    if depth == 0 and roll < 0.6:
        return _simple(rng, depth) + " <<'EOF'\nbody $(not run) `nor this`\nEOF\n" + _simple(rng, depth)
    if depth == 0 and roll < 0.64:  # an unquoted delimiter: the body's substitutions run
        return _simple(rng, depth) + f" <<EOF\nbody $( {_simple(rng, 1)}) \\$(not run)\nEOF\n" + _simple(rng, depth)
    return _simple(rng, depth)


def _ours(text: str) -> list:
    """Every argv the reader finds, substitutions included, words bash would drop left out."""
    commands, others = parse(text)
    found = []
    for word in others:
        for sub in word.subs:
            found += _ours(sub)
    for command in commands:
        for word in command.words + [w for _, w in command.assigns] + [w for _, w in command.redirs]:
            for sub in word.subs:
                found += _ours(sub)
        argv = [w.text for w in command.words if w.static]
        if argv and argv[0] not in NOT_RUN:
            found.append(tuple(argv))
    return found


def _bash(lines: list, tmp_path) -> list:
    """The argv of every simple command bash ran, per line. Each record is a file of its own (line
    number, then the recording process): the two sides of a `|` run at once, and records appended
    to one shared file could interleave."""
    cmds, logdir = tmp_path / "cmds", tmp_path / "records"
    cmds.write_bytes(b"".join(line.encode() + b"\0" for line in lines))
    logdir.mkdir()
    done = subprocess.run(
        [BASH, "--norc", "--noprofile", "-c", RUNNER],
        env={"LOGDIR": str(logdir), "CMDS": str(cmds), "LC_ALL": "C.UTF-8"},
        capture_output=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr.decode()
    groups: list[list[tuple]] = [[] for _ in lines]
    for record in logdir.iterdir():
        number = int(record.name.split(".", 1)[0])
        text = record.read_bytes().decode("utf-8", "surrogateescape")
        groups[number].append(tuple(text.split("\x1f")[:-1]))
    errors = done.stderr.decode("utf-8", "replace").split("\x1d")[:-1]
    assert len(errors) == len(lines)
    # None: bash itself rejected the line (bash 5.2 misreads an empty $'' inside $( ) when it runs it)
    return [None if "syntax error" in error else group for group, error in zip(groups, errors, strict=True)]


@pytest.mark.parametrize(
    "count",
    [600, pytest.param(3000, marks=pytest.mark.slow)],  # the fast tier's first 600 lines are the slow tier's too
)
def test_generated_commands_split_as_bash_splits_them(tmp_path, count):
    rng = random.Random(18)
    lines = [_line(rng) for _ in range(count)]
    seen = _bash(lines, tmp_path)
    assert sum(theirs is None for theirs in seen) < len(lines) // 100, "the generator writes what bash rejects"
    mismatches = []
    for line, theirs in zip(lines, seen, strict=True):
        if theirs is None:
            continue
        mine = _ours(line)
        if sorted(mine) != sorted(theirs):  # `|` and `&` run concurrently: order is bash's business
            mismatches.append((line, theirs, mine))
    assert not mismatches, "\n".join(
        f"{line!r}\n  bash: {theirs}\n  ours: {mine}" for line, theirs, mine in mismatches[:5]
    )


@pytest.mark.parametrize(
    "text,argv",
    [
        ("pas''ture policy trust", [["pasture", "policy", "trust"]]),
        ("$'\\x70asture' policy trust", [["pasture", "policy", "trust"]]),
        ("echo .clau''de/sett''ings.json", [["echo", ".claude/settings.json"]]),
        ("pas\\\nture policy trust", [["pasture", "policy", "trust"]]),
        ("{ pasture policy trust; }", [["pasture", "policy", "trust"]]),
        ("if true; then pasture policy trust; fi", [["true"], ["pasture", "policy", "trust"]]),
        ("f() { pasture install; }", [["pasture", "install"]]),  # defined: counted as if it runs
        ("pa{s,}ture x", [["pasture", "pature", "x"]]),
        ("2>/dev/null cmd 2>&1 >out", [["cmd"]]),
    ],
)
def test_known_commands(text, argv):
    assert [c.argv() for c in parse(text)[0]] == argv


@pytest.mark.parametrize(
    "text",
    ["echo 'a", 'echo "a', "echo $(a", "echo `a", "case x in a) b", "for x in a", "echo ${a", "echo $'a", "cat <<"],
)
def test_what_cannot_be_read_says_so(text):
    with pytest.raises(Unparsable):
        parse(text)


def test_a_substitution_s_commands_are_kept_to_read():
    (command,), _ = parse('echo "$(pasture policy trust)" `pasture install` <(tool x)')
    assert [w.subs for w in command.words[1:]] == [["pasture policy trust"], ["pasture install"], ["tool x"]]
    assert [w.static for w in command.words] == [True, False, False, False]
