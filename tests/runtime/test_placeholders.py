"""`{file_path}` is the one placeholder (issues 26 and 27): every other brace in a command is literal,
and `{file_path}` is accepted only as an argv item of its own that no shell or interpreter reads as its
script, its one-liner or the program to run (the agent names the file: `a;touch PWNED;b.py`)."""

from __future__ import annotations

import json
import sys

import pytest
from click.testing import CliRunner
from hookrun import call

from pasture.cli import main
from pasture.runtime.policy import PolicyError, compile_layer

CLAUDE = ("claude-code", "2.1.332")
PY = json.dumps(sys.executable)

REFUSED = [
    # the issue's own: a shell's -c script in any option cluster, spliced or whole
    ('["bash", "-lc", "echo$IFS{file_path}"]', "splices"),
    ('["sh", "-ec", "{file_path}"]', "the script of -c"),
    ('["sh", "-ec", "ruff {file_path}"]', "splices"),
    ('["bash", "-xc", "{file_path}"]', "the script of -c"),
    ('["bash", "-cx", "{file_path}"]', "the script of -c"),
    ('["zsh", "-c", "{file_path}"]', "the script of -c"),
    ('["dash", "-c", "--", "{file_path}"]', "the script of -c"),
    ('["ksh", "-o", "pipefail", "-c", "{file_path}"]', "the script of -c"),
    ('["bash", "-c", "-x", "{file_path}"]', "the script of -c"),
    ('["/bin/sh", "-c", "{file_path}"]', "the script of -c"),
    ('["BASH", "-c", "{file_path}"]', "the script of -c"),  # a case-insensitive file system runs it
    ('["bash5.2", "-c", "{file_path}"]', "the script of -c"),
    ('["C:\\\\Windows\\\\Python3.exe", "-c", "{file_path}"]', "the code of -c"),
    ('["ruby3.2", "-e", "{file_path}"]', "the code of -e"),
    # interpreters' one-liners
    ('["perl", "-e", "{file_path}"]', "the code of -e"),
    ('["perl", "-lne", "{file_path}"]', "the code of -lne"),
    ('["ruby", "-E", "{file_path}"]', "the code of -E"),
    ('["node", "-e", "{file_path}"]', "the code of -e"),
    ('["node", "--eval", "{file_path}"]', "the code of --eval"),
    ('["node", "-p", "{file_path}"]', "the code of -p"),
    ('["python3", "-c", "{file_path}"]', "the code of -c"),
    ('["python3.12", "-Bc", "{file_path}"]', "the code of -Bc"),
    ('["pwsh", "-Command", "{file_path}"]', "the script of -Command"),
    ('["pwsh", "-NoProfile", "-c", "Write-Host", "{file_path}"]', "the script of -c"),
    ('["powershell", "{file_path}"]', "read as a command"),
    ('["cmd", "/c", "type", "{file_path}"]', "the command line of /c"),
    ('["awk", "{file_path}"]', "the awk program"),
    ('["gawk", "-e", "{file_path}"]', "the program of -e"),
    ('["sed", "-e", "{file_path}"]', "the script of -e"),
    ('["fish", "-C", "{file_path}"]', "the code of -C"),
    ('["fish", "--init-command", "{file_path}"]', "the script of --init-command"),
    ('["fish", "-c", "{file_path}"]', "the script of -c"),
    ('["su", "-c", "{file_path}"]', "the code of -c"),
    ('["script", "-q", "-c", "{file_path}"]', "the code of -c"),
    ('["deno", "eval", "{file_path}"]', "the code of deno eval"),
    ('["bun", "-e", "{file_path}"]', "the code of -e"),
    ('["node", "--print", "{file_path}"]', "the code of --print"),
    ('["pwsh", "-EncodedCommand", "{file_path}"]', "the script of -EncodedCommand"),
    ('["pwsh", "-ec", "{file_path}"]', "the script of -ec"),
    ('["eval", "{file_path}"]', "the program a wrapper runs"),
    ('["exec", "{file_path}"]', "the program a wrapper runs"),
    ('["stdbuf", "-o", "L", "{file_path}"]', "the program a wrapper runs"),
    ('["sed", "-i", "{file_path}"]', "the sed script"),
    # the program, directly or through a wrapper; a shell behind a wrapper
    ('["{file_path}"]', "the program"),
    ('["./{file_path}", "x"]', "splices"),
    ('["env", "A=1", "{file_path}"]', "the program a wrapper runs"),
    ('["sudo", "-u", "root", "{file_path}"]', "the program a wrapper runs"),
    ('["timeout", "5s", "{file_path}"]', "the program a wrapper runs"),
    ('["env", "bash", "-c", "{file_path}"]', "the script of -c ('bash')"),
    ('["xargs", "-I", "{}", "sh", "-c", "{file_path}"]', "the script of -c ('sh')"),
    ('["watch", "ruff", "{file_path}"]', "watch hands to sh -c"),
    ('["ssh", "host", "ruff", "{file_path}"]', "remote command line"),
    # with other text around it
    ('["tool", "--config={file_path}"]', "splices"),
    ('["ruff", "check {file_path}"]', "splices"),
    ('["ruff", "{file_path}{file_path}"]', "splices"),
]

ACCEPTED = [
    '["ruff", "check", "{file_path}"]',
    '["sh", "-c", "ruff check \\"$1\\"", "sh", "{file_path}"]',
    '["bash", "-lc", "ruff \\"$1\\"", "bash", "{file_path}"]',
    '["perl", "-ne", "print if /x/", "{file_path}"]',
    '["python3", "-m", "py_compile", "{file_path}"]',
    '["python3", "-c", "import sys; print(sys.argv[1])", "{file_path}"]',
    '["wc", "-c", "{file_path}"]',
    '["awk", "{print $1}", "{file_path}"]',
    '["sed", "-n", "1p", "{file_path}"]',
    '["pwsh", "-NoProfile", "-File", "lint.ps1", "{file_path}"]',
    '["env", "RUFF_CACHE_DIR=/tmp/r", "ruff", "check", "{file_path}"]',
    '["watch", "-x", "ruff", "{file_path}"]',
]


def _compile(array: str, command: str):
    text = f'# a layer\n\n[[{array}]]\nname = "x"\n' + ('on = "prompt"\n' if array == "context" else "")
    return compile_layer("user", "user.toml", (text + f"command = {command}\n").encode(), "/", True)


@pytest.mark.parametrize(("command", "message"), REFUSED)
def test_a_file_path_that_would_be_read_as_code_or_a_program_is_a_policy_error_at_file_line(command, message):
    with pytest.raises(PolicyError) as caught:
        _compile("after", command)
    text = str(caught.value)
    assert text.startswith("user.toml:3: [[after]] 'x': command item"), text
    assert message in text, text
    assert "e.g." in text  # the fix


@pytest.mark.parametrize("command", ACCEPTED)
def test_a_file_path_given_as_an_argument_of_its_own_compiles(command):
    assert _compile("after", command)["after"][0]["command"] == tuple(json.loads(command))


@pytest.mark.parametrize(
    "command",
    [
        ["bash", "-lc", "echo$IFS{file_path}"],
        ["sh", "-ec", "ruff check {file_path}"],
        ["bash", "-xc", "{file_path}"],
    ],
)
def test_pasture_policy_check_refuses_the_issues_splices(env, tmp_path, command):
    policy = tmp_path / "user.toml"
    policy.write_text(f'[[after]]\nname = "lint"\ncommand = {json.dumps(command)}\n')
    result = CliRunner().invoke(main, ["policy", "check"], env=dict(env, PASTURE_POLICY=str(policy)))
    assert result.exit_code != 0
    assert f"{policy}:1: [[after]] 'lint': command item" in result.output


BRACES = [
    ["sh", "-c", "pytest -q || { echo failed; exit 1; }"],
    ["awk", "{print $1}", "notes.txt"],
    ["find", ".", "-name", "*.py", "-exec", "ruff", "check", "{}", "+"],
    ["tool", "{path}", "{", "}", "{{file}}", "{file_path"],
]


@pytest.mark.parametrize("array", ["context", "after", "until"])
@pytest.mark.parametrize("command", BRACES)
def test_every_other_brace_is_literal(array, command):
    assert _compile(array, json.dumps(command))[array][0]["command"] == tuple(command)


@pytest.mark.parametrize("array", ["context", "until"])
def test_file_path_outside_after_is_an_error_since_nothing_fills_it(array):
    with pytest.raises(PolicyError, match=r"user.toml:3: .*\{file_path\} is filled only in \[\[after\]\]"):
        _compile(array, '["pytest", "{file_path}"]')


def test_braces_reach_the_program_literally_and_only_the_placeholder_is_filled(env, tmp_path):
    project = tmp_path / "project"
    (project / ".pasture").mkdir(parents=True)
    script = tmp_path / "show.py"
    script.write_text("import sys, json; print(json.dumps(sys.argv[1:])); sys.exit(1)")
    argv = [str(script), "{print $1}", "{}", "+", "{ echo failed; exit 1; }", "{file_path}"]
    policy = tmp_path / "user.toml"
    policy.write_text(f'[[after]]\nname = "show"\ntool_kind = "write"\ncommand = [{PY}, {json.dumps(argv)[1:]}\n')
    payload = {
        "session_id": "s",
        "cwd": str(project),
        "tool_name": "Write",
        "tool_input": {"file_path": "a;touch PWNED;b.py", "content": ""},
        "tool_response": {},
        "tool_use_id": "c",
    }
    code, out, err = call(*CLAUDE[:1], "PostToolUse", CLAUDE[1], payload, dict(env, PASTURE_POLICY=str(policy)))
    assert (code, err) == (0, "")
    printed = json.loads(out)["reason"].split("\n", 1)[1]
    assert json.loads(printed) == ["{print $1}", "{}", "+", "{ echo failed; exit 1; }", "a;touch PWNED;b.py"]
    assert not (project / "PWNED").exists()


def test_random_argvs_a_shell_reads_as_its_script_are_refused_and_its_arguments_are_not():
    """Seeded: a wrapper prefix, a shell, option clusters around a `c`, then {file_path} as the -c script
    (refused) or as an argument after the script (accepted)."""
    import random

    from pasture.runtime.argvcode import code_use

    rng = random.Random(27)
    wrappers = [[], ["env"], ["env", "A=1"], ["sudo", "-u", "root"], ["nice", "-n", "5"], ["timeout", "10"]]
    shells = ["sh", "bash", "/bin/zsh", "dash", "ksh", "BASH", "bash5"]
    letters = "elxuvfi"
    for _ in range(2000):
        cluster = "".join(rng.sample(letters, rng.randint(0, 3)))
        at = rng.randint(0, len(cluster))
        options = ["-" + cluster[:at] + "c" + cluster[at:]]
        if rng.random() < 0.3:
            options = ["-o", "pipefail", *options]
        if rng.random() < 0.3:
            options.append(rng.choice(["-x", "--", "-e"]))
        head = [*rng.choice(wrappers), rng.choice(shells), *options]
        script = [*head, "{file_path}"]
        assert code_use(script, len(script) - 1) is not None, script
        argument = [*head, 'ruff check "$1"', "sh", "{file_path}"]
        assert code_use(argument, len(argument) - 1) is None, argument
