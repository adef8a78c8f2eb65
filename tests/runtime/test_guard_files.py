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
    env.update(HOME=str(tmp_path / "home"), XDG_CONFIG_HOME=str(tmp_path / "home" / ".config"),
               PASTURE_POLICY=str(tmp_path / "home" / ".config" / "pasture" / "policy.toml"))
    env.pop("PASTURE_JOURNAL")
    return root


def _claude(env, root, tool, tool_input):
    code, out, err = call("claude-code", "PreToolUse", "2.1.328",
                          {"session_id": "s", "cwd": str(root), "tool_name": tool, "tool_input": tool_input,
                           "tool_use_id": "t"}, env)
    return json.loads(out)["hookSpecificOutput"]["permissionDecision"] if out else "proceed"


def _codex(env, root, tool, tool_input):
    code, out, err = call("codex", "PreToolUse", "0.171.0",
                          {"session_id": "s", "cwd": str(root), "tool_name": tool, "tool_input": tool_input,
                           "tool_use_id": "t", "turn_id": "u"}, env)
    return json.loads(out)["hookSpecificOutput"]["permissionDecision"] if out else "proceed"


def _opencode(env, root, tool, args, monkeypatch):
    monkeypatch.chdir(root)
    code, out, err = call("opencode", "tool.execute.before", "1.18.33",
                          {"input": {"tool": tool, "sessionID": "s", "callID": "c"}, "output": {"args": args}}, env)
    return json.loads(out)["decision"]


@pytest.mark.parametrize("tool,tool_input", [
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
    ("Bash", {"command": "sed -i 's/deny/proceed/' .pasture/policy.toml"}),
    ("Bash", {"command": "truncate -s 0 .pasture/journal.sqlite3"}),
    ("Bash", {"command": "cd .pasture && rm policy.toml"}),
    ("Bash", {"command": "rm -rf ~/.local/state/pasture"}),
    ("Bash", {"command": "pasture policy trust"}),
    ("Bash", {"command": "pasture install codex --trust-only"}),
    # the same through a shell the command starts, and through the module entry point
    ("Bash", {"command": "bash -c 'rm -rf .pasture'"}),
    ("Bash", {"command": "sh -ec \"echo x > .pasture/policy.toml\""}),
    ("Bash", {"command": "sudo bash --norc -c 'cd .pasture && rm policy.toml'"}),
    ("Bash", {"command": "eval 'rm -rf .pasture'"}),
    ("Bash", {"command": "sh -c \"bash -c 'pasture policy trust'\""}),
    ("Bash", {"command": "python -m generator install claude-code --project ."}),
    ("Bash", {"command": "python3 -I -m generator uninstall codex"}),
    ("Bash", {"command": "/usr/bin/python3 -m generator.entry policy untrust"}),
])
def test_claude_tools_writing_guard_files_are_denied(env, project, tool, tool_input):
    home = env["HOME"]
    filled = json.loads(json.dumps(tool_input).replace("{root}", str(project)).replace("{home}", home))
    assert _claude(env, project, tool, filled) == "deny"


@pytest.mark.parametrize("tool,tool_input", [
    ("Write", {"file_path": "src/main.py", "content": "x"}),
    ("Edit", {"file_path": "{root}/README.md", "old_string": "a", "new_string": "b"}),
    ("Bash", {"command": "cat .pasture/policy.toml"}),
    ("Bash", {"command": "pasture policy show"}),
    ("Bash", {"command": "echo settings > notes.txt"}),
    ("Bash", {"command": "cp .claude/settings.json /tmp/backup.json"}),
    ("Bash", {"command": "rm -rf build"}),
    ("Bash", {"command": "mv notes.txt ~/"}),
    ("Bash", {"command": "bash -c 'cat .pasture/policy.toml'"}),
    ("Bash", {"command": "python -m generator check"}),
    ("Bash", {"command": "bash scripts/generator.sh .pasture"}),
])
def test_ordinary_work_near_guard_files_is_not_denied(env, project, tool, tool_input):
    filled = json.loads(json.dumps(tool_input).replace("{root}", str(project)))
    assert _claude(env, project, tool, filled) == "proceed"


def test_a_symlink_to_a_guard_file_is_the_guard_file(env, project):
    (project / "innocent.txt").symlink_to(project / ".pasture" / "policy.toml")
    assert _claude(env, project, "Write", {"file_path": "innocent.txt", "content": "x"}) == "deny"


@pytest.mark.parametrize("patch", [
    "*** Begin Patch\n*** Update File: .pasture/policy.toml\n@@\n-deny\n+proceed\n*** End Patch\n",
    "*** Begin Patch\n*** Add File: .codex/hooks.json\n+{}\n*** End Patch\n",
    "*** Begin Patch\n*** Delete File: .pasture/policy.toml\n*** End Patch\n",
    "*** Begin Patch\n*** Update File: notes.md\n*** Move to: .pasture/policy.toml\n*** End Patch\n",
])
def test_codex_apply_patch_to_guard_files_is_denied(env, project, patch):
    assert _codex(env, project, "apply_patch", {"command": patch}) == "deny"


def test_codex_apply_patch_elsewhere_and_shell_writes(env, project):
    patch = "*** Begin Patch\n*** Update File: src/app.py\n@@\n-a\n+b\n*** End Patch\n"
    assert _codex(env, project, "apply_patch", {"command": patch}) == "proceed"
    assert _codex(env, project, "Bash", {"command": "echo x >> .pasture/policy.toml"}) == "deny"


@pytest.mark.parametrize("tool,args,want", [
    ("write", {"filePath": "{root}/.pasture/policy.toml", "content": "x"}, "deny"),
    ("edit", {"filePath": "{root}/.opencode/plugins/pasture-lifecycle.ts", "oldString": "a", "newString": "b"}, "deny"),
    ("patch", {"patchText": "*** Begin Patch\n*** Update File: .pasture/policy.toml\n*** End Patch\n"}, "deny"),
    ("bash", {"command": "echo x > .pasture/policy.toml"}, "deny"),
    ("write", {"filePath": "{root}/src/x.ts", "content": "x"}, "proceed"),
    ("bash", {"command": "ls .pasture"}, "proceed"),
])
def test_opencode_tools(env, project, monkeypatch, tool, args, want):
    filled = json.loads(json.dumps(args).replace("{root}", str(project)))
    assert _opencode(env, project, tool, filled, monkeypatch) == want


def test_the_reason_tells_the_model_the_files_are_off_limits(env, project):
    code, out, _ = call("claude-code", "PreToolUse", "2.1.328",
                        {"session_id": "s", "cwd": str(project), "tool_name": "Write",
                         "tool_input": {"file_path": ".pasture/policy.toml", "content": ""}, "tool_use_id": "t"}, env)
    reason = json.loads(out)["hookSpecificOutput"]["permissionDecisionReason"]
    assert "belongs to the guard" in reason and "off limits to the agent" in reason
