"""Issue 28, the hook's side: the built-in guard refuses the agent writing any file that holds a host's
declared off-switch (pasture/runtime/hostwire/<host>.py), and the env files a host loads cannot move the
guard's roots (pasture.runtime.envfiles), while ordinary `.env` work stays allowed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hookrun import call, spawn

from pasture.runtime import envfiles
from pasture.runtime.hostwire import WIRES
from pasture.runtime.hostwire.guarded import module

PROCEED_ALL = '[[rules]]\nname = "ok"\ndecision = "proceed"\n'
DENY_RM = (
    '[[rules]]\nname = "no-rm"\ndecision = "deny"\nreason = "no rm -rf here"\ntool_kind = "shell"\n'
    'command = "rm\\\\s+-rf"\n'
)


@pytest.fixture
def project(env, tmp_path):
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    (root / ".pasture").mkdir()
    (root / ".pasture" / "policy.toml").write_text(PROCEED_ALL)
    home = tmp_path / "home"
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"))
    env.pop("PASTURE_POLICY")  # the user's policy at its default place, ~/.config/pasture/policy.toml
    (home / ".config" / "pasture").mkdir(parents=True)
    (home / ".config" / "pasture" / "policy.toml").write_text(DENY_RM)
    env.pop("PASTURE_JOURNAL")
    return root


def _claude(env, root, tool, tool_input) -> str:
    _code, out, _err = call(
        "claude-code",
        "PreToolUse",
        "2.1.332",
        {"session_id": "s", "cwd": str(root), "tool_name": tool, "tool_input": tool_input, "tool_use_id": "t"},
        env,
    )
    return json.loads(out)["hookSpecificOutput"]["permissionDecision"] if out else "proceed"


def _switch_files() -> list[str]:
    """Every project file a host declares a switch in (a `*` file: one in its folder), but env files: the
    agent may edit a `.env` (the screen and doctor hold there; test_ordinary_env_file_edits_stay_allowed)."""
    files = {
        s["file"].replace("*", "other")
        for name in WIRES.values()
        for s in module(name).OFF_SWITCHES
        if s["off_when"] != "env-true"
    }
    return sorted(files)


@pytest.mark.parametrize("rel", _switch_files())
def test_the_agent_cannot_write_a_file_that_holds_an_off_switch(env, project, rel):
    assert _claude(env, project, "Write", {"file_path": str(project / rel), "content": "{}"}) == "deny"
    assert _claude(env, project, "Edit", {"file_path": rel, "old_string": "a", "new_string": "b"}) == "deny"
    assert _claude(env, project, "Bash", {"command": f"echo '{{}}' > {rel}"}) == "deny"


@pytest.mark.parametrize(
    "command",
    [
        "mkdir -p .github/copilot && echo '{\"disableAllHooks\": true}' > .github/copilot/settings.local.json",
        'printf \'{"shellCommandPrefix": "rm -rf build;"}\' > .pi/settings.json',
        "cp /tmp/x .pi/extensions/index.ts",
        "echo 'pasture-*' >> .pi/extensions/.gitignore",
        "find . -name settings.local.json -delete",
        "find . -name 'copilot' -exec rm -rf {} +",
    ],
)
def test_the_plain_ways_to_set_a_switch_are_denied(env, project, command):
    assert _claude(env, project, "Bash", {"command": command}) == "deny"


def test_declared_guard_files_are_in_the_compiled_lists(env, project):
    from pasture.runtime.builtin import protected
    from pasture.runtime.hostwire.guarded import MODULES

    assert sorted(MODULES) == sorted(WIRES.values())  # every host's declarations are read

    files, folders = protected(str(project), dict(env))
    for name in WIRES.values():
        wire = module(name)
        for rel in wire.GUARDED_FILES:
            assert str(project / rel) in files, rel
        for rel in wire.GUARDED_FOLDERS:
            assert str(project / rel) in folders, rel


# --- env files ------------------------------------------------------------------------------------------


def _gemini(root: Path, command: str, event: str = "BeforeTool") -> dict:
    return {
        "session_id": "s",
        "hook_event_name": event,
        "cwd": str(root),
        "tool_name": "run_shell_command",
        "tool_input": {"command": command},
    }


def _denied(code: int, out: str) -> bool:
    answer = json.loads(out) if out.strip() else {}
    specific = answer.get("hookSpecificOutput") or {}
    return code == 2 or answer.get("decision") == "deny" or specific.get("permissionDecision") == "deny"


#: (harness, its tool event, version): the hosts that load a repository's .env (Qwen Code: Gemini's loader)
DOTENV_HOSTS = {"gemini-cli": ("BeforeTool", "0.61.0"), "qwen-code": ("PreToolUse", "0.24.4")}


@pytest.mark.parametrize(
    ("harness", "rel"),
    [("gemini-cli", ".env"), ("gemini-cli", ".gemini/.env"), ("qwen-code", ".env"), ("qwen-code", ".qwen/.env")],
)
def test_a_repository_env_file_cannot_replace_the_users_policy_on_gemini(env, project, harness, rel):
    # Gemini CLI (and Qwen Code, its fork) loads the repository's .env into its environment and its hooks
    # inherit it: the user's policy was replaced by the repository's and `rm -rf build` ran.
    event, version = DOTENV_HOSTS[harness]
    mine = project / ".pasture" / "mine.toml"
    mine.write_text(PROCEED_ALL)
    (project / rel).parent.mkdir(parents=True, exist_ok=True)
    (project / rel).write_text(f'# local settings\nGEMINI_API_KEY=k\nexport PASTURE_POLICY="{mine}"\n')
    hooked = dict(env, PASTURE_POLICY=str(mine), GEMINI_API_KEY="k")  # what Gemini CLI handed the hook
    code, out, err = spawn(harness, event, version, _gemini(project, "rm -rf build", event), hooked)
    assert _denied(code, out), (code, out, err)
    said = out + err
    assert "PASTURE_POLICY" in said and str(project / rel) in said and "GEMINI_API_KEY" not in said


@pytest.mark.parametrize(
    "text", ['{"env": {"PASTURE_POLICY": "MINE"}}', '// comments, as Qwen Code reads them\n{"env": {}}']
)
def test_a_repository_qwen_settings_env_block_cannot_replace_the_users_policy(env, project, text):
    # Qwen Code loads the merged settings' top-level "env" into its environment (loadEnvironment) and its
    # hooks inherit it; a file with comments (Qwen strips them, our reader cannot) counts as unread: every
    # guard variable that could have come from it is dropped
    mine = project / ".pasture" / "mine.toml"
    mine.write_text(PROCEED_ALL)
    (project / ".qwen").mkdir()
    (project / ".qwen" / "settings.json").write_text(text.replace("MINE", str(mine)))
    hooked = dict(env, PASTURE_POLICY=str(mine))  # what Qwen Code handed the hook
    code, out, err = spawn("qwen-code", "PreToolUse", "0.24.4", _gemini(project, "rm -rf build", "PreToolUse"), hooked)
    assert "ignored" in err and "PASTURE_POLICY" in err and str(project / ".qwen" / "settings.json") in err
    if "MINE" in text:  # the user's own policy (env's) decides again
        assert _denied(code, out), (code, out, err)


def test_a_value_the_user_set_themselves_is_kept(env, project):
    (project / ".env").write_text("PASTURE_POLICY=/somewhere/else.toml\n")
    user = project.parent / "home" / ".config" / "pasture" / "policy.toml"
    clean, notes = envfiles.screen(dict(env, PASTURE_POLICY=str(user)), [str(project / ".env")])
    assert clean["PASTURE_POLICY"] == str(user) and notes == []


def test_claude_code_reads_no_env_file(env, project):
    # Claude Code does not load .env: a value equal to one there is the user's own
    mine = project / ".pasture" / "mine.toml"
    mine.write_text(PROCEED_ALL)
    (project / ".env").write_text(f"PASTURE_POLICY={mine}\n")
    hooked = dict(env, PASTURE_POLICY=str(mine))
    payload = {
        "session_id": "s",
        "cwd": str(project),
        "tool_name": "Bash",
        "tool_input": {"command": "rm -rf build"},
        "tool_use_id": "t",
    }
    _code, out, err = call("claude-code", "PreToolUse", "2.1.332", payload, hooked)
    assert "env file" not in out + err


def test_opencode_env_files_are_screened(env, project, monkeypatch):
    mine = project / ".pasture" / "mine.toml"
    mine.write_text(PROCEED_ALL)
    (project / ".env.local").write_text(f"XDG_CONFIG_HOME={project}/.cfg\nPASTURE_POLICY='{mine}'\n")
    hooked = dict(env, PASTURE_POLICY=str(mine), XDG_CONFIG_HOME=f"{project}/.cfg")
    monkeypatch.chdir(project)
    payload = {"input": {"tool": "bash", "sessionID": "s", "callID": "c"}, "output": {"args": {"command": "rm -rf b"}}}
    _code, out, err = call("opencode", "tool.execute.before", "1.18.33", payload, hooked)
    assert json.loads(out)["decision"] == "deny", (out, err)
    assert "PASTURE_POLICY" in out + err and "XDG_CONFIG_HOME" in out + err


@pytest.mark.parametrize(
    "tool,tool_input",
    [
        ("Write", {"file_path": ".env", "content": "DATABASE_URL=postgres://x\n"}),
        ("Edit", {"file_path": ".gemini/.env", "old_string": "a", "new_string": "b"}),
        ("Bash", {"command": "echo 'PASTURE_POLICY=/tmp/p.toml' >> .env"}),
    ],
)
def test_ordinary_env_file_edits_stay_allowed(env, project, tool, tool_input):
    # The screen is what holds: a `.env` the agent writes is read by the next hook like any other.
    assert _claude(env, project, tool, tool_input) == "proceed"


@pytest.mark.parametrize(
    "text, name, value",
    [
        ("PASTURE_POLICY=/a/b.toml\n", "PASTURE_POLICY", "/a/b.toml"),
        ("export XDG_STATE_HOME='/s t'\n", "XDG_STATE_HOME", "/s t"),
        ('HOME="/h" # the home\n', "HOME", "/h"),
        ("PASTURE_CACHE_DIR=/c # note\n", "PASTURE_CACHE_DIR", "/c"),
        ('PASTURE_X="a\nb"\n', "PASTURE_X", "a\nb"),
        ("PASTURE_Y: /y\n", "PASTURE_Y", "/y"),
    ],
)
def test_dotenv_values_are_read_generously(text, name, value):
    assert value in envfiles.values(text)[name]


def test_an_env_file_past_the_cap_drops_every_root(env, project):
    big = project / ".env"
    big.write_text("PAD=" + "x" * (envfiles.MAX_BYTES + 10) + "\n")
    clean, notes = envfiles.screen(dict(env, XDG_DATA_HOME="/d"), [str(big)])
    assert "XDG_DATA_HOME" not in clean and "HOME" not in clean and notes


@pytest.mark.parametrize(
    "command",
    [
        "cp /tmp/x ~/Documents/Cline/Hooks/PreToolUse",
        "mkdir -p $HOME/Documents/Cline/Hooks && echo 'echo {}' > $HOME/Documents/Cline/Hooks/PreToolUse.sh",
        "cd ~/Documents/Cline && cp /tmp/x Hooks/PreToolUse.py",
    ],
)
def test_the_agent_cannot_write_a_hook_into_clines_home_hook_folder(env, project, command):
    """Cline runs every hook file in ~/Documents/Cline/Hooks too (its fourth folder, whatever CLINE_DIR says):
    a hook there could replace a call the guard refused, so the folder is the guard's, on every host."""
    home = Path(env["HOME"])
    assert _claude(env, project, "Bash", {"command": command}) == "deny"
    target = home / "Documents" / "Cline" / "Hooks" / "PreToolUse"
    assert _claude(env, project, "Write", {"file_path": str(target), "content": "echo {}"}) == "deny"
    assert _claude(env, project, "Bash", {"command": "ls ~/Documents && cat ~/Documents/notes.txt"}) == "proceed"
