"""The guard protects itself: the agent may not write pasture's own files, on any host's tools."""

from __future__ import annotations

import json

import pytest
from hookrun import call


@pytest.fixture
def project(env, tmp_path):
    root = tmp_path / "project"
    (root / ".pasture").mkdir(parents=True)
    (root / ".pasture" / "policy.toml").write_text('[[rules]]\nname = "ok"\ndecision = "proceed"\n')
    (root / ".claude").mkdir()
    env.update(
        HOME=str(tmp_path / "home"),
        XDG_CONFIG_HOME=str(tmp_path / "home" / ".config"),
        PASTURE_POLICY=str(tmp_path / "home" / ".config" / "pasture" / "policy.toml"),
    )
    env.pop("PASTURE_JOURNAL")
    return root


def _claude(env, root, tool, tool_input):
    code, out, err = call(
        "claude-code",
        "PreToolUse",
        "2.1.328",
        {"session_id": "s", "cwd": str(root), "tool_name": tool, "tool_input": tool_input, "tool_use_id": "t"},
        env,
    )
    return json.loads(out)["hookSpecificOutput"]["permissionDecision"] if out else "proceed"


def _codex(env, root, tool, tool_input):
    code, out, err = call(
        "codex",
        "PreToolUse",
        "0.171.0",
        {
            "session_id": "s",
            "cwd": str(root),
            "tool_name": tool,
            "tool_input": tool_input,
            "tool_use_id": "t",
            "turn_id": "u",
        },
        env,
    )
    return json.loads(out)["hookSpecificOutput"]["permissionDecision"] if out else "proceed"


def _opencode(env, root, tool, args, monkeypatch):
    monkeypatch.chdir(root)
    code, out, err = call(
        "opencode",
        "tool.execute.before",
        "1.18.33",
        {"input": {"tool": tool, "sessionID": "s", "callID": "c"}, "output": {"args": args}},
        env,
    )
    return json.loads(out)["decision"]


@pytest.mark.parametrize(
    "tool,tool_input",
    [
        ("Write", {"file_path": ".pasture/policy.toml", "content": "x"}),
        ("Edit", {"file_path": "{root}/.pasture/policy.toml", "old_string": "deny", "new_string": "proceed"}),
        ("MultiEdit", {"file_path": "{root}/.claude/settings.json", "edits": []}),
        ("NotebookEdit", {"notebook_path": "{root}/.pasture/journal.sqlite3", "new_source": "x"}),
        ("Write", {"file_path": "{home}/.config/pasture/policy.toml", "content": "x"}),
        ("Write", {"file_path": "{home}/.claude/settings.json", "content": "{}"}),
        ("Bash", {"command": "echo '[[rules]]' > .pasture/policy.toml"}),
        ("Bash", {"command": "rm -rf .pasture"}),
        ("Bash", {"command": "mv .pasture/policy.toml /tmp/p"}),
        ("Bash", {"command": "cp /tmp/evil .claude/settings.local.json"}),
        ("Bash", {"command": "printf x | tee -a .codex/hooks.json"}),
        ("Bash", {"command": "echo '{}' > .gemini/settings.json"}),
        ("Write", {"file_path": "{home}/.gemini/trustedFolders.json", "content": "{}"}),
        ("Bash", {"command": "sed -i 's/deny/proceed/' .pasture/policy.toml"}),
        ("Bash", {"command": "truncate -s 0 .pasture/journal.sqlite3"}),
        ("Bash", {"command": "cd .pasture && rm policy.toml"}),
        ("Bash", {"command": "rm -rf ~/.local/state/pasture"}),
        ("Bash", {"command": "pasture policy trust"}),
        ("Bash", {"command": "pasture install codex --trust-only"}),
        # the same through a shell the command starts, and through the module entry point
        ("Bash", {"command": "bash -c 'rm -rf .pasture'"}),
        ("Bash", {"command": 'sh -ec "echo x > .pasture/policy.toml"'}),
        ("Bash", {"command": "sudo bash --norc -c 'cd .pasture && rm policy.toml'"}),
        ("Bash", {"command": "eval 'rm -rf .pasture'"}),
        ("Bash", {"command": "sh -c \"bash -c 'pasture policy trust'\""}),
        ("Bash", {"command": "python -m pasture install claude-code --project ."}),
        ("Bash", {"command": "python3 -I -m pasture uninstall codex"}),
        ("Bash", {"command": "/usr/bin/python3 -m pasture.entry policy untrust"}),
    ],
)
def test_claude_tools_writing_guard_files_are_denied(env, project, tool, tool_input):
    home = env["HOME"]
    filled = json.loads(json.dumps(tool_input).replace("{root}", str(project)).replace("{home}", home))
    assert _claude(env, project, tool, filled) == "deny"


@pytest.mark.parametrize(
    "tool,tool_input",
    [
        ("Write", {"file_path": "src/main.py", "content": "x"}),
        ("Edit", {"file_path": "{root}/README.md", "old_string": "a", "new_string": "b"}),
        ("Bash", {"command": "cat .pasture/policy.toml"}),
        ("Bash", {"command": "pasture policy show"}),
        ("Bash", {"command": "echo settings > notes.txt"}),
        ("Bash", {"command": "cp .claude/settings.json /tmp/backup.json"}),
        ("Bash", {"command": "rm -rf build"}),
        ("Bash", {"command": "mv notes.txt ~/"}),
        ("Bash", {"command": "bash -c 'cat .pasture/policy.toml'"}),
        ("Bash", {"command": "python -m pasture check"}),
        ("Bash", {"command": "bash scripts/pasture.sh .pasture"}),
    ],
)
def test_ordinary_work_near_guard_files_is_not_denied(env, project, tool, tool_input):
    filled = json.loads(json.dumps(tool_input).replace("{root}", str(project)))
    assert _claude(env, project, tool, filled) == "proceed"


# Issue 18: every spelling the landed tree let through (one quote, a wrapper, a compound command,
# the program's own options, the module entry point, a continuation), and a `.pasture/` anywhere.
ISSUE_18 = [
    "pas''ture policy trust",
    "$'pasture' policy trust",
    "$'\\x70asture' policy trust",
    "pasture --root . policy trust",
    "timeout 60 pasture policy trust",
    "nice -n 5 pasture policy trust",
    "env -i PATH=/usr/bin pasture policy trust",
    "{ pasture policy trust; }",
    "if true; then pasture policy trust; fi",
    "python3 -m pasture.cli policy trust",
    "pas\\\nture policy trust",
    "pasture policy tru\\\nst",
    "echo x > .clau''de/sett''ings.json",
    "echo x > src/.pasture/policy.toml",
    "mkdir -p src/.pasture",
    "cp /tmp/p.toml deep/er/.pasture/policy.toml",
    "/home/u/.local/bin/pasture policy untrust",
    "/x/bin/pasture policy untrust",
    "sudo -u root nohup pasture install claude-code",
    "stdbuf -oL setsid pasture uninstall codex",
    "command exec pasture policy trust",
    "time pasture policy trust",
    "true && pasture policy trust",
    "false || pasture policy trust",
    "ls; pasture policy trust &",
    "(cd /tmp && pasture policy trust)",
    "for i in 1; do pasture policy trust; done",
    "case x in x) pasture policy trust;; esac",
    "while true; do pasture policy trust; break; done",
    "x=$(pasture policy trust)",
    "echo `pasture policy trust`",
    "echo 'pasture policy trust' | sh",
    "bash <<'EOF'\npasture policy trust\nEOF",
    "echo policy trust | xargs pasture",
    "find . -exec pasture install {} +",
    "script -qc 'pasture policy trust' /dev/null",
    "pa{s,}ture policy trust",
    "python -I -m pasture policy trust",
    "python3.12 -Im pasture.entry install codex",
    "rm -rf .pa*",
    "echo .pasture | xargs rm -rf",
    "find . -name '.p*' -delete",
    "find . -delete",
    "echo x > .pastur?/policy.toml",
    "ln -s .pasture/policy.toml notes.txt",
    "pasture policy trust 'unclosed",
    "echo x > '.pasture/policy.toml",
    'python3 -c \'import subprocess; subprocess.run(["pasture", "policy", "trust"])\'',
    # variables, functions and aliases the line itself sets
    "p=pasture; $p policy trust",
    "a=pas; b=ture; $a$b policy trust",
    "c='pasture policy trust'; eval \"$c\"",
    'f() { pasture "$@"; }; f policy trust',
    "shopt -s expand_aliases\nalias p=pasture\np policy trust",
    "d=.pas; e=ture; echo x > $d$e/p.toml",
    'd=.pasture; rm -rf "$d"',
    # more runners and places a command hides
    "watch -n 1 'pasture policy trust'",
    "su -c 'pasture install' root",
    "flock /tmp/l -c 'pasture policy trust'",
    "cat <(pasture policy trust)",
    "pushd .pasture && rm policy.toml",
    "bash <<< 'pasture policy trust'",
    "sh -s <<EOF\nrm -rf .pasture\nEOF",
    "echo ${x:-$(pasture policy trust)}",
    "/usr/bin/env -u HOME pasture install",
    "cat <<EOF\n$(pasture policy trust)\nEOF",
    "env -S 'pasture policy trust'",
    "sudo -s 'pasture install codex'",
    "ssh -p 22 localhost 'pasture policy trust'",
    "echo 'pasture policy trust' | xargs -I{} sh -c '{}'",
    'a=(pasture policy trust); "${a[@]}"',
    "$X policy trust",
    "PASTURE policy trust",
    "echo x > .PASTURE/policy.toml",
    "echo {} > .Claude/Settings.json",
    "git checkout -- .pasture/policy.toml",
    "git rm -r .pasture",
    "git clean -fdx",
    "echo $'\\$\\'' ; pas\\\nture policy trust",
]


@pytest.mark.parametrize("command", ISSUE_18)
def test_every_spelling_of_a_guard_write_or_command_is_denied(env, project, command):
    assert _claude(env, project, "Bash", {"command": command}) == "deny"


@pytest.mark.parametrize("path", ["src/.pasture/policy.toml", "{root}/a/b/.pasture/journal.sqlite3", "lib/.pasture"])
def test_creating_a_pasture_folder_anywhere_is_a_guarded_write(env, project, path):
    assert _claude(env, project, "Write", {"file_path": path.replace("{root}", str(project)), "content": "x"}) == "deny"


@pytest.mark.parametrize(
    "command",
    [
        "git commit -m 'docs: pasture policy trust needs a person'",
        "pip install requests",
        "npm install",
        "ls *.py",
        "find . -name '*.pasture-backup' -type f",
        "echo '{a,b}' > notes.txt",
        "rm -rf build dist",
        "find . -name '*.pyc' -delete",
        "grep -r 'pasture' docs",
        "pasture policy show",
        "python3 -m pasture check",
        "cat src/.pasture-notes",
        "echo $'hello' > out.txt",
        "git status",
        "git checkout -b feature",
        "cat <<'EOF' > notes.md\n$(pasture policy trust) is for people\nEOF",
        "$EDITOR notes.md",
        "pip install --upgrade pip",
    ],
)
def test_ordinary_commands_that_pass_the_screen_still_proceed(env, project, command):
    assert _claude(env, project, "Bash", {"command": command}) == "proceed"


def test_the_screen_never_skips_what_the_reading_would_deny(env, project, tmp_path):
    # The cheap screen may only add work: on generated commands built from the guard's names and the
    # spellings above, whenever the full reading denies, the screen let the command through to it.
    import random

    from pasture.runtime import builtin
    from pasture.runtime.effective import load

    effective = load(str(project), env)
    pieces = [
        "pasture",
        "pas''ture",
        "$'\\x70asture'",
        "pa{s,}ture",
        "policy",
        "trust",
        "tru\\st",
        "install",
        ".pasture/policy.toml",
        ".pa*",
        ".clau''de/settings.json",
        "rm -rf",
        ">",
        "|",
        ";",
        "&&",
        "{",
        "}",
        "cd",
        ".pasture",
        "x",
        "echo",
        "timeout 5",
        "sh -c",
        "'",
        '"',
        "$(",
        ")",
        "\\\n",
        "mkdir -p",
        "src/",
        "d=.pas;",
        "e=ture;",
        "$d$e",
        "${d}ture/p",
        "p=pasture;",
        "$p",
        "alias",
        "q=pasture",
        "\n",
        "f()",
        "eval",
        '"$@"',
        "xargs",
        "find",
        "-delete",
        "-name",
    ]
    rng = random.Random(18)
    checked = denied = 0
    for _ in range(4000):
        command = " ".join(rng.choice(pieces) for _ in range(rng.randint(1, 7)))
        envelope = {"tool_kind": "shell", "command": command, "cwd": str(project)}
        original = builtin.screen
        builtin.screen = lambda *a: True
        try:
            full = builtin.check(envelope, effective.files, effective.folders, effective.home, str(project))
        finally:
            builtin.screen = original
        if full is not None:
            denied += 1
            assert builtin.screen(command, effective.files, effective.folders), command
        checked += 1
    assert denied > 300  # the property was really exercised (about 400 of the 4000 are denied)


def test_a_symlink_to_a_guard_file_is_the_guard_file(env, project):
    (project / "innocent.txt").symlink_to(project / ".pasture" / "policy.toml")
    assert _claude(env, project, "Write", {"file_path": "innocent.txt", "content": "x"}) == "deny"


@pytest.mark.parametrize(
    "patch",
    [
        "*** Begin Patch\n*** Update File: .pasture/policy.toml\n@@\n-deny\n+proceed\n*** End Patch\n",
        "*** Begin Patch\n*** Add File: .codex/hooks.json\n+{}\n*** End Patch\n",
        "*** Begin Patch\n*** Delete File: .pasture/policy.toml\n*** End Patch\n",
        "*** Begin Patch\n*** Update File: notes.md\n*** Move to: .pasture/policy.toml\n*** End Patch\n",
    ],
)
def test_codex_apply_patch_to_guard_files_is_denied(env, project, patch):
    assert _codex(env, project, "apply_patch", {"command": patch}) == "deny"


def test_codex_apply_patch_elsewhere_and_shell_writes(env, project):
    patch = "*** Begin Patch\n*** Update File: src/app.py\n@@\n-a\n+b\n*** End Patch\n"
    assert _codex(env, project, "apply_patch", {"command": patch}) == "proceed"
    assert _codex(env, project, "Bash", {"command": "echo x >> .pasture/policy.toml"}) == "deny"


@pytest.mark.parametrize(
    "tool,args,want",
    [
        ("write", {"filePath": "{root}/.pasture/policy.toml", "content": "x"}, "deny"),
        (
            "edit",
            {"filePath": "{root}/.opencode/plugins/pasture-lifecycle.ts", "oldString": "a", "newString": "b"},
            "deny",
        ),
        ("patch", {"patchText": "*** Begin Patch\n*** Update File: .pasture/policy.toml\n*** End Patch\n"}, "deny"),
        ("bash", {"command": "echo x > .pasture/policy.toml"}, "deny"),
        ("write", {"filePath": "{root}/src/x.ts", "content": "x"}, "proceed"),
        ("bash", {"command": "ls .pasture"}, "proceed"),
    ],
)
def test_opencode_tools(env, project, monkeypatch, tool, args, want):
    filled = json.loads(json.dumps(args).replace("{root}", str(project)))
    assert _opencode(env, project, tool, filled, monkeypatch) == want


def test_the_reason_tells_the_model_the_files_are_off_limits(env, project):
    code, out, _ = call(
        "claude-code",
        "PreToolUse",
        "2.1.328",
        {
            "session_id": "s",
            "cwd": str(project),
            "tool_name": "Write",
            "tool_input": {"file_path": ".pasture/policy.toml", "content": ""},
            "tool_use_id": "t",
        },
        env,
    )
    reason = json.loads(out)["hookSpecificOutput"]["permissionDecisionReason"]
    assert "belongs to the guard" in reason and "off limits to the agent" in reason
