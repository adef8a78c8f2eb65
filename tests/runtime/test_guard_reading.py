"""Issue 27: the guard's own reading of a shell line is bounded, and it follows the paths the shell
will use (`~`, `$HOME` and `${HOME...}`, `$PWD`/`$OLDPWD`, cd/pushd/popd with CDPATH, globs, default
assignments, a `-c` script's positional parameters). docs/policy.md ("The guard protects itself")
states what these tests hold.
"""

from __future__ import annotations

import json
import os

import pytest
from hookrun import call

from pasture.runtime import shellwrites
from pasture.runtime.shellparse import Unparsable
from pasture.runtime.shellwrites import UNKNOWN, Budget, Exhausted, place, simple_commands


@pytest.fixture
def project(env, tmp_path):
    root = tmp_path / "project"
    (root / ".pasture").mkdir(parents=True)
    (root / ".pasture" / "policy.toml").write_text('[[rules]]\nname = "ok"\ndecision = "proceed"\n')
    (root / ".claude").mkdir()
    (root / ".git").mkdir()
    (root / "src").mkdir()
    home = tmp_path / "home"
    (home / ".config" / "pasture").mkdir(parents=True)
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        PASTURE_POLICY=str(home / ".config" / "pasture" / "policy.toml"),
    )
    # the built-in guard alone: the protection packs (on by default) would ask about `rm -rf $X`
    (home / ".config" / "pasture" / "policy.toml").write_text("packs = []\n")
    env.pop("PASTURE_JOURNAL")
    for moved in ("CODEX_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "COPILOT_HOME", "PI_CODING_AGENT_DIR"):
        env.pop(moved, None)  # the guarded places these tests name are the defaults below $HOME
    return root


def _run(env, root, command, cwd=None):
    payload = {
        "session_id": "s",
        "cwd": str(cwd or root),
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "t",
    }
    code, out, err = call("claude-code", "PreToolUse", "2.1.332", payload, env)
    assert code == 0, err
    return json.loads(out)["hookSpecificOutput"] if out else {"permissionDecision": "proceed"}


def _decision(env, root, command, cwd=None) -> str:
    return _run(env, root, command, cwd)["permissionDecision"]


# --- bounded reading ----------------------------------------------------------------------------------


def array_bomb(doublings: int, tail: str = "rm -f ${a[@]}") -> str:
    return "a=(x .pasture); " + "a=(${a[@]} ${a[@]}); " * doublings + tail


def string_bomb(doublings: int, start: str = ".pasture", tail: str = "rm -rf $v{n}") -> str:
    steps = "".join(f"v{i}=$v{i - 1}$v{i - 1}; " for i in range(1, doublings + 1))
    return f"v0={start}; " + steps + tail.format(n=doublings)


BOMBS = [
    pytest.param(array_bomb(18), id="array-doubling-18"),
    pytest.param(array_bomb(40), id="array-doubling-40"),
    pytest.param(string_bomb(27), id="string-doubling-27"),
    pytest.param(string_bomb(40, ".pas", "rm -rf ${{v{n}:0:4}}ture"), id="string-doubling-split-name"),
    pytest.param("x=(.pasture); " + "x=(${x[@]}${x[@]} ${x[@]}); " * 30 + "echo > $x", id="array-words-30"),
]


@pytest.mark.parametrize("command", BOMBS)
def test_a_bomb_is_read_within_the_budget_and_refused(env, project, command):
    # the caps and the default step budget stop it; the line names the guard's folder, so it is refused
    answer = _run(env, project, command)
    assert answer["permissionDecision"] == "deny"
    assert "stopped reading" in answer["permissionDecisionReason"]


@pytest.mark.parametrize("command", BOMBS)
def test_a_bomb_stops_at_the_step_budget(command):
    with pytest.raises(Exhausted):
        simple_commands(command, budget=Budget(steps=20_000))


def test_the_deadline_stops_the_reading_on_an_injected_clock():
    ticks = iter(range(10**9))
    budget = Budget(steps=10**12, deadline=50.0, clock=lambda: float(next(ticks)))
    with pytest.raises(Exhausted) as caught:
        simple_commands("echo a; " * 1500, budget=budget)
    assert "deadline" in str(caught.value)
    assert isinstance(caught.value, Unparsable)  # callers that read Unparsable lines conservatively still do


def test_the_caps_are_what_the_docs_say():
    # docs/policy.md names these numbers
    assert (shellwrites.MAX_VALUE, shellwrites.MAX_ELEMENTS, shellwrites.MAX_WORDS) == (65_536, 4_096, 50_000)
    assert (shellwrites.MAX_COMMANDS, shellwrites.STEPS) == (2_000, 2_000_000)


def test_a_bomb_that_names_nothing_of_ours_carries_on_with_a_note(env, project, tmp_path):
    env["PASTURE_JOURNAL"] = str(tmp_path / "journal.sqlite3")
    command = "rm -f build/a.o; " * 2100  # past the commands cap (rm: the screen lets it through), harmless
    answer = _run(env, project, command)
    assert answer["permissionDecision"] == "proceed" or answer.get("permissionDecision") is None
    from pasture.journal.db import rows

    details = [row["detail"] or "" for row in rows(env["PASTURE_JOURNAL"])]
    assert any("stopped reading" in d and "2000 commands" in d for d in details), details


def test_past_the_budget_an_expansion_is_refused(env, project):
    # a value the reader did not finish could be any path
    command = "echo done; " * 2100 + "rm -rf $X"
    assert _decision(env, project, command) == "deny"


def test_past_the_budget_a_folder_above_ours_is_refused(env, project):
    # judged as a delete would be: the home folder holds the user's policy
    command = "rm -f build/a.o; " * 2100 + "ls ~"
    assert _decision(env, project, command) == "deny"


def test_past_the_budget_a_guard_command_is_refused(env, project):
    command = "rm -f build/a.o; " * 2100 + "pasture policy trust"
    assert _decision(env, project, command) == "deny"


def test_past_the_budget_a_glob_that_can_match_ours_is_refused(env, project):
    command = "echo done; " * 2100 + "rm -rf .pas*"
    assert _decision(env, project, command) == "deny"


# --- the paths the shell will use ---------------------------------------------------------------------

FOLLOWED = [
    "cd $HOME/.config/pasture && echo x > policy.toml",
    'cd "${HOME}" && : > .config/pasture/policy.toml',
    "pushd $HOME/.config/pasture && : > policy.toml",
    "pushd $HOME/.config && pushd /tmp && popd && : > pasture/policy.toml",
    ": > ${HOME:-/x}/.config/pasture/policy.toml",
    ": > ${HOME%/}/.config/pasture/policy.toml",
    ": > ${HOME%%/}/.config/pasture/policy.toml",
    ": > ${HOME#}/.config/pasture/policy.toml",
    ": > ${HOME/x/x}/.config/pasture/policy.toml",
    ": > ${HOME:=/x}/.config/pasture/policy.toml",
    ": > ${HOME-/x}/.config/pasture/policy.toml",
    ": > ${HOME:+$HOME}/.config/pasture/policy.toml",
    ": > ${HOME@Q}/.config/pasture/policy.toml",
    ": > ${HOME:0}/.config/pasture/policy.toml",
    "cd ~ && : > .config/pasture/policy.toml",
    "cd src && : > ${PWD%/*}/.claude/settings.json",
    "cd src && cd .. && : > $PWD/.claude/settings.json",
    "cd .claude && cd /tmp && : > $OLDPWD/settings.json",
    "cd .claude && cd /tmp && cd - && : > settings.json",
    "cd .cl* && : > settings.json",
    "cd .c?aude && rm -f settings.json",
    ": ${f:=.claude/settings.json}; : > $f",
    ": ${f=.pasture}; rm -rf $f",
    "CDPATH=~/.config cd pasture && : > policy.toml",
    "CDPATH=$HOME/.config; cd pasture && : > policy.toml",
    "cd $X && : > .pasture/policy.toml",
    "cd $(mktemp -d) && : > settings.json",
    "bash -c 'rm -rf \"$@\"' _ .pasture",
    "sh -c ': > \"$1\"' _ .claude/settings.json",
    "sh -c ': > \"$0\"' .claude/settings.json",
    "bash -c 'rm -rf $2' _ src .pasture",
    'sh -c \'rm -rf "$@"\' sh "$X"',
    "echo .claude/settings.json | xargs -I{} sh -c ': > {}'",
    "echo .pasture | xargs -I % rm -rf %",
    "cat list | xargs -I{} sh -c ': > {}'",
    "echo .pasture | xargs -i rm -rf {}",
    "echo .pasture | xargs --replace=% rm -rf %",
    "cd .claude && cd /tmp && : > ~-/settings.json",
    "f=.claudeX; : > ${f%X}/settings.json",
    ": ${f:=${HOME}/.config/pasture/policy.toml}; : > $f",
    ': ${f:="$HOME"/.config/pasture/policy.toml}; : > $f',
    "CDPATH=${HOME:-/x} cd .config && : > pasture/policy.toml",
    ": > ~root/.config/pasture/policy.toml",
    "pushd .claude && pushd /tmp && pushd +1 && : > settings.json",
    "pushd .claude && pushd /tmp && pushd && : > settings.json",
    "pushd .claude; pushd /tmp; popd; : > settings.json",
    "cd ~root && : > .config/pasture/policy.toml",
    "cd ~root && : > out.txt",
    "cd - && : > out.txt",
    'sh -c \': > "$1"\' _ "$X"',
    "cd $X && rm -rf *",
    "ls | xargs -I{} rm {}",
    "cd $X && rm -rf build",  # the folder is unknown: it may be one of the guard's
    "cd $(mktemp -d) && : > out.txt",
    'sh -c \'rm -rf "$1"\' _ "$X"/build',
    "HOME=$PWD/.claude; : > ~/settings.json",
    "export HOME=$PWD/.claude; cd; : > settings.json",
    "sh -c 'cd \"$1\" && : > policy.toml' _ ~/.config/pasture",
    "z=~/.config/pasture; cd $z && : > policy.toml",
    "builtin cd ~/.config/pasture && : > policy.toml",
    "bash -c 'rm -rf \"${@}\"' _ .pasture",
    "bash -c 'rm -rf \"$*\"' _ .pasture",
    "bash -c 'for f; do rm -rf \"$f\"; done' _ .pasture",
    "bash -c 'for f do rm -rf \"$f\"; done' _ src .pasture",
    "bash -c 'shift; rm -rf \"$1\"' _ x .pasture",
    "bash -c 'shift 2; rm -rf $1' _ x y .pasture",
    "bash -c 'x=$1; rm -rf $x' _ .pasture",
    'sh -c \'rm -rf "$1"\' _ "$(echo .pasture)"',
    "printf '%s\\n' .pasture | xargs -d '\\n' -I{} rm -rf {}",
    "echo .claude/settings.json | xargs sh -c ': > \"$1\"' _",
    'for d in src .pasture; do rm -rf "$d"; done',
    'a=(src .pasture); rm -rf "${a[*]}"',
    "find . -exec bash -c 'rm -rf \"$1\"' _ {} \\;",
]


@pytest.mark.parametrize("command", FOLLOWED)
def test_the_path_the_shell_will_use_is_followed(env, project, command):
    assert _decision(env, project, command) == "deny", command


SAFE = [
    "cd src && pytest",
    "rm -rf build",
    "echo $HOME",
    "cd /tmp && make",
    "cd ~ && ls",
    "cd $HOME/src && rm -rf build",
    ": > ${HOME}/notes.txt",
    "cd src && : > ${PWD%/*}/notes.txt",
    "bash -c 'rm -rf \"$@\"' _ build dist",
    "sh -c 'echo \"$1\"' _ .pasture",
    "echo a b | xargs -I{} sh -c 'echo {}'",
    "cd .cl* && ls",
    ": ${f:=out.txt}; : > $f",
    "pushd src && make && popd",
    "cd $X && make",  # no write
    "popd; : > settings.json",  # the folder stack starts empty: popd fails and stays
    "pushd; rm -f settings.json",
    "cd src; cd -; rm -rf dist",
    "CDPATH=/tmp cd build && rm -rf cache",
    "bash -c 'for f; do echo \"$f\"; done' _ a b",
    'for f in build dist; do rm -rf "$f"; done',
    "f=a.pasture.b; rm -rf ${f#a}",
    # out of reach, as docs/policy.md says: a whole path only known at run time
    "rm -rf $X",
    'tmp=$(mktemp -d); rm -rf "$tmp"',
]


@pytest.mark.parametrize("command", SAFE)
def test_ordinary_lines_still_pass(env, project, command):
    assert _decision(env, project, command) == "proceed", command


@pytest.mark.parametrize(
    ("text", "placed"),
    [
        ("~/x", "/h/u/x"),
        ("~+/x", "/p/src/x"),
        ("$HOME/x", "/h/u/x"),
        ("${HOME}", "/h/u"),
        ("${HOME:-/x}", "/h/u"),
        ("${HOME-/x}", "/h/u"),
        ("${HOME:=/x}", "/h/u"),
        ("${HOME:?}", "/h/u"),
        ("${HOME:+/x}", "/x"),
        ("${HOME:+$HOME/y}", "/h/u/y"),
        ("${HOME%/}", "/h/u"),
        ("${HOME%/*}", "/h"),
        ("${HOME%%/*}", ""),
        ("${HOME#/}", "h/u"),
        ("${HOME#*/}", "h/u"),
        ("${HOME##*/}", "u"),
        ("${HOME/u/v}", "/h/v"),
        (r"${HOME//\//:}", UNKNOWN),  # an escaped `/`: not worked out
        ("${HOME//h/z}", "/z/u"),
        (r"${HOME/#\/h/z}", UNKNOWN),
        ("${HOME/#?h/z}", "z/u"),
        ("${HOME/%u/w}", "/h/w"),
        ("${HOME:1}", "h/u"),
        ("${HOME:0:2}", "/h"),
        ("${HOME: -1}", "u"),
        ("${HOME^^}", "/H/U"),
        ("${#HOME}", "4"),
        ("${!HOME}", UNKNOWN),
        ("${HOME@Q}", UNKNOWN),
        ("${HOME%$x}", UNKNOWN),
        ("${PWD%/*}/y", "/p/y"),
        ("$OLDPWD/y", "/old/y"),
        ("~-/y", "/old/y"),
        ("~root/y", UNKNOWN + "/y"),
    ],
)
def test_every_parameter_operation_is_worked_out(text, placed):
    assert place(text, "/p/src", "/old", "/h/u") == placed


def test_a_pattern_operation_on_a_long_value_is_unknown():
    # a glob replacement is quadratic in the value's length: past 256 characters it is not worked out
    out = simple_commands("f=" + "y" * 300 + "; g=${f//y*/z}; rm $g")
    assert out[-1].argv() == ["rm", UNKNOWN]
    out = simple_commands("f=" + "y" * 300 + "; g=${f//y/}; rm x$g")  # a literal pattern stays exact
    assert out[-1].argv() == ["rm", "x"]


# --- a symlinked policy ---------------------------------------------------------------------------------


def test_the_file_a_symlinked_project_policy_resolves_to_is_guarded(env, project):
    conf = project / "conf"
    conf.mkdir()
    (conf / "pasture.toml").write_text('[[rules]]\nname = "ok"\ndecision = "proceed"\n')
    (project / ".pasture" / "policy.toml").unlink()
    os.symlink("../conf/pasture.toml", project / ".pasture" / "policy.toml")
    assert _decision(env, project, ": > conf/pasture.toml") == "deny"
    assert _decision(env, project, "rm -f conf/pasture.toml") == "deny"
    assert _decision(env, project, ": > conf/other.toml") == "proceed"


@pytest.mark.parametrize("layer", ["PASTURE_POLICY", "PASTURE_MANAGED_POLICY"])
def test_the_file_a_symlinked_user_or_managed_policy_resolves_to_is_guarded(env, project, tmp_path, layer):
    target = tmp_path / "dotfiles" / "pasture.toml"
    target.parent.mkdir()
    target.write_text('[[rules]]\nname = "ok"\ndecision = "proceed"\n')
    link = tmp_path / "links" / "policy.toml"
    link.parent.mkdir()
    os.symlink(target, link)
    env[layer] = str(link)
    assert _decision(env, project, f": > {target}") == "deny"
    assert _decision(env, project, f"cd {target.parent} && rm pasture.toml") == "deny"


# --- a property: every line built from these constructs is refused ------------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from shell_lines import guarded_lines  # noqa: E402


@settings(max_examples=200, suppress_health_check=list(HealthCheck))
@given(line=guarded_lines())
def test_every_built_line_is_refused(env, project, line):
    # the reading is bounded by its step budget (and the row's deadline), never by this machine's speed
    assert _decision(env, project, line) == "deny", line


def test_the_row_deadline_reaches_the_reading_and_leaves_time_to_judge(env, project):
    # evaluate() hands the row's deadline to the guard; its reading stops a quarter of the time left
    # (at most 1 s) before it, on the clock it is given (here 10 ms per look at it)
    from pasture.runtime.builtin import check

    ticks = iter(range(10**9))
    notes: list = []
    command = "rm -f build/a.o; " * 1500  # within every cap: only the deadline can stop it
    reason = check(
        {"tool_kind": "shell", "command": command, "cwd": str(project)},
        (str(project / ".claude" / "settings.json"),),
        (str(project / ".pasture"),),
        str(project),
        str(project),
        deadline=1.0,
        clock=lambda: next(ticks) / 100,
        notes=notes,
    )
    assert reason is None
    assert notes == [
        "the guard stopped reading the shell command at the row's deadline; no word of it names the "
        "guard's files: let through"
    ]


def test_evaluate_hands_its_deadline_to_the_reading(env, project):
    from pasture.runtime.effective import evaluate, load

    effective = load(str(project), env)
    ticks = iter(range(10**9))
    envelope = {"event": "PreToolUse", "tool_kind": "shell", "command": "rm -f build/a.o; " * 1500, "cwd": str(project)}
    verdict = evaluate(effective, envelope, deadline=1.0, clock=lambda: next(ticks) / 100)
    assert verdict.decision != "deny"
    assert any("stopped reading the shell command at the row's deadline" in note for note in verdict.notes)
    envelope["command"] += "rm -rf .pasture"
    ticks = iter(range(10**9))
    verdict = evaluate(effective, envelope, deadline=1.0, clock=lambda: next(ticks) / 100)
    assert verdict.decision == "deny" and "the row's deadline" in verdict.reason


@pytest.mark.slow  # hundreds of journaled requests through one `hook serve`
@settings(max_examples=40, suppress_health_check=list(HealthCheck))
@given(
    lines=st.lists(st.one_of(guarded_lines(), st.sampled_from([p.values[0] for p in BOMBS])), min_size=1, max_size=8)
)
def test_hook_serve_refuses_the_bombs_and_the_path_constructs(env, project, monkeypatch, lines):
    import io

    from pasture.runtime.serve import Server

    monkeypatch.chdir(project)  # OpenCode sends no cwd: the plugin starts the runtime in its directory
    requests = b"".join(
        json.dumps(
            {
                "id": at,
                "event": "tool.execute.before",
                "wait": True,
                "payload": {
                    "event": "tool.execute.before",
                    "input": {"tool": "bash", "sessionID": "ses_1", "callID": f"call_{at}"},
                    "output": {"args": {"command": line}},
                },
            }
        ).encode()
        + b"\n"
        for at, line in enumerate(lines)
    )
    out = io.BytesIO()
    assert Server("opencode", "1.18.33", io.BytesIO(requests), out, env).serve() == 0
    replies = {m["id"]: m for m in map(json.loads, out.getvalue().splitlines()) if "id" in m}
    for at, line in enumerate(lines):
        assert replies[at]["answer"] == "deny", line


def test_the_screen_never_skips_what_the_reading_would_deny_on_the_path_constructs(env, project):
    # the cheap screen in front of the reading may only add work, on the pieces of issue 27's lines too
    import random

    from pasture.runtime import builtin
    from pasture.runtime.effective import load

    effective = load(str(project), env)
    pieces = ["cd", "pushd", "popd", "cd -", "-", "+1", "$X", '"$X"', "$(mktemp -d)", "~", "~root", "~-", "~+",
              "$HOME", "${HOME%/}", "${HOME:-/x}", "${HOME@Q}", "$PWD", "${PWD%/*}", "$OLDPWD", "CDPATH=~", "src",
              ".cl*", "out.txt", "x", "sh -c", "bash -c", "'rm -rf \"$@\"'", "': > \"$1\"'", "_", "xargs -I{}",
              "{}", "echo", "ls", "|", "&&", ";", ">", ": >", "rm -rf", "touch", "${f:=x}", "$f", "shift", "for f;",
              "do", "done", "HOME=/x", "build"]  # fmt: skip
    rng = random.Random(27)
    denied = 0
    original = builtin.screen
    for _ in range(4000):
        command = " ".join(rng.choice(pieces) for _ in range(rng.randint(1, 7)))
        envelope = {"tool_kind": "shell", "command": command, "cwd": str(project)}
        builtin.screen = lambda *a: True
        try:
            full = builtin.check(envelope, effective.files, effective.folders, effective.home, str(project))
        finally:
            builtin.screen = original
        if full is not None:
            denied += 1
            assert builtin.screen(command, effective.files, effective.folders), command
    assert denied > 100  # the property held on that many refused lines


def test_glob_pattern_operations_count_their_work_against_the_budget():
    # an unanchored glob replacement tries every span: on 256 characters one costs more than the
    # whole budget, so a line of them stops at once instead of running for minutes
    command = "f=" + "ab" * 128 + "; " + "g=${f//*x*/z}; " * 200 + "rm $g"
    with pytest.raises(Exhausted) as caught:
        simple_commands(command)
    assert "step budget" in str(caught.value)
    # on $HOME (a short value) the same operation is worked out
    assert place("${HOME//*u/z}", "/p", "/o", "/h/u", Budget()) == "z"


def test_words_not_judged_by_the_row_deadline_refuse_the_line(env, project):
    # past the reading's share of the time, the words are judged until the row's own deadline: what is
    # left unjudged then refuses the line (it fails closed, and answers in time)
    from pasture.runtime.builtin import check

    ticks = iter(range(10**9))
    command = "rm -f " + " ".join(f"build/o{i}.o" for i in range(3000))
    reason = check(
        {"tool_kind": "shell", "command": command, "cwd": str(project)},
        (str(project / ".claude" / "settings.json"),),
        (str(project / ".pasture"),),
        str(project),
        str(project),
        deadline=1.0,
        clock=lambda: next(ticks) / 100,
    )
    assert reason is not None and "was not judged by the row's deadline" in reason
