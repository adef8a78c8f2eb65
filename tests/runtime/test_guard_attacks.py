"""The guard's own files against a hostile agent's shell: spellings bash runs that the reader missed.

Each command below wrote a guard file (or ran a guard command) and was let through on the tree this
file was written against; docs/policy.md ("The guard protects itself") claims them caught.
"""

from __future__ import annotations

import json

import pytest

from hookrun import call, spawn


@pytest.fixture
def project(env, tmp_path):
    root = tmp_path / "project"
    (root / ".pasture").mkdir(parents=True)
    (root / ".pasture" / "policy.toml").write_text('[[rules]]\nname = "ok"\ndecision = "proceed"\n')
    (root / ".claude").mkdir()
    (root / ".git").mkdir()
    env.update(HOME=str(tmp_path / "home"), XDG_CONFIG_HOME=str(tmp_path / "home" / ".config"),
               PASTURE_POLICY=str(tmp_path / "home" / ".config" / "pasture" / "policy.toml"))
    env.pop("PASTURE_JOURNAL")
    return root


def _payload(root, command):
    return {"session_id": "s", "cwd": str(root), "tool_name": "Bash", "tool_input": {"command": command},
            "tool_use_id": "t"}


def _decision(out: str) -> str:
    return json.loads(out)["hookSpecificOutput"]["permissionDecision"] if out else "proceed"


def _claude(env, root, command):
    code, out, err = call("claude-code", "PreToolUse", "2.1.332", _payload(root, command), env)
    return _decision(out)


ATTACKS = [
    # parameter expansion defaults: what an unset variable gives is written on the line
    "echo x > ${d:-.pasture}/policy.toml", "${X:-pas}ture install claude-code", "rm -rf ${D-.pasture}",
    # the shell's own folder, spelled three ways
    "echo {} > ~+/.claude/settings.json", "echo {} > $PWD/.claude/settings.json",
    "echo {} > /proc/self/cwd/.claude/settings.json",
    # -t DIR in every spelling cp/install take
    "install -t .pasture /tmp/policy.toml", "cp -t.pasture /tmp/policy.toml", "cp -rt .pasture /tmp/p/policy.toml",
    # brace sequence expressions are brace expansion too
    "echo x > .pastur{e..e}/policy.toml", "p{a..a}sture policy trust",
    # globs the shell expands into the program or its subcommand
    "/usr/local/bin/pastur? policy trust", "touch trust && pasture policy tru*",
    "echo x > .pas[[:alpha:]]ure/policy.toml",
    # arrays the line sets
    "a=(.pasture); rm -rf $a", "a=(x .pasture); echo x > ${a[1]}/policy.toml",
]


@pytest.mark.parametrize("command", ATTACKS)
def test_an_attack_spelling_is_denied(env, project, command):
    assert _claude(env, project, command) == "deny"


def test_unclosed_braces_do_not_hold_the_hook(env, project):
    # `_brace` scanned from every `{` to the end of the word: 20,000 of them held the hook 105 s, past
    # Claude Code's 60 s hook timeout, after which the host runs the tool. A hang guard, not a timing.
    command = "echo " + "{" * 40000 + " ; rm -rf .pasture"
    code, out, err = spawn("claude-code", "PreToolUse", "2.1.332", _payload(project, command), env, timeout=30)
    assert _decision(out) == "deny"
