"""config.toml edits: verified tomlkit edits (tomledit) and the [hooks.state] plan (codex_trust)."""

from __future__ import annotations

import tomllib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pasture.install import codex_trust, tomledit

USER_CONFIG = '''# my codex config
model = "gpt-5"   # inline comment
notify = ["say", "[done]"]
banner = """
[hooks.state."looks-like-a-header"]
trusted_hash = "no"
"""

[projects."/work/repo"]
trust_level = "trusted"

# review state for another tool
[hooks.state."/other/hooks.json:stop:0:0"]
trusted_hash = "sha256:other"

[[mcp_servers.list]]
name = "x"

[tui]
animations = false
'''

F = "/p/.codex/hooks.json"
STATE = ("hooks", "state")


def _state(text: str) -> dict:
    return tomllib.loads(text).get("hooks", {}).get("state", {})


def test_set_value_adds_a_table_beside_its_siblings_and_keeps_every_byte_of_the_rest() -> None:
    key = f"{F}:pre_tool_use:1:0"
    out = tomledit.set_value(USER_CONFIG, STATE + (key,), "trusted_hash", "sha256:a")
    added = f'[hooks.state."{key}"]\ntrusted_hash = "sha256:a"\n\n'
    # after the other [hooks.state] table, set apart by a blank line like the rest of the file
    assert out == USER_CONFIG.replace("[[mcp_servers.list]]", added + "[[mcp_servers.list]]")
    assert _state(out)[key] == {"trusted_hash": "sha256:a"}
    assert tomledit.set_value(out, STATE + (key,), "trusted_hash", "sha256:a") == out  # idempotent


def test_set_value_at_the_end_of_a_file() -> None:
    key = f"{F}:stop:0:0"
    text = '[projects."/work/repo"]\ntrust_level = "trusted"\n'
    out = tomledit.set_value(text, STATE + (key,), "trusted_hash", "sha256:a")
    assert out == text + f'\n[hooks.state."{key}"]\ntrusted_hash = "sha256:a"\n'
    assert tomledit.delete_table(out, STATE + (key,)) == text


def test_crlf_files_stay_crlf() -> None:
    """Issue 9 item 9: a CRLF config.toml came back with mixed line endings."""
    text = USER_CONFIG.replace("\n", "\r\n")
    key = f"{F}:stop:0:0"
    out = tomledit.set_value(text, STATE + (key,), "trusted_hash", "sha256:a")
    out = tomledit.set_value(out, ("projects", "/new"), "trust_level", "trusted")
    assert out.count("\n") == out.count("\r\n") > text.count("\r\n")
    assert tomllib.loads(out)["banner"] == tomllib.loads(text)["banner"]
    back = tomledit.delete_table(tomledit.delete_table(out, ("projects", "/new")), STATE + (key,))
    assert "\n" not in back.replace("\r\n", "")
    lf = USER_CONFIG + "x = 1\n"
    assert "\r" not in tomledit.set_value(lf, STATE + (key,), "trusted_hash", "h")  # LF stays LF


def test_set_value_replaces_in_place_and_keeps_enabled() -> None:
    key = f"{F}:stop:0:0"
    text = USER_CONFIG + f'\n[hooks.state."{key}"]\nenabled = false\ntrusted_hash = "sha256:old"\n\n[after]\nx = 1\n'
    out = tomledit.set_value(text, STATE + (key,), "trusted_hash", "sha256:new")
    assert out == text.replace("sha256:old", "sha256:new")
    assert _state(out)[key] == {"enabled": False, "trusted_hash": "sha256:new"}


def test_a_header_inside_a_multiline_string_is_not_a_table() -> None:
    key = "looks-like-a-header"
    out = tomledit.set_value(USER_CONFIG, STATE + (key,), "trusted_hash", "sha256:x")
    assert tomllib.loads(out)["banner"] == tomllib.loads(USER_CONFIG)["banner"]
    assert _state(out)[key] == {"trusted_hash": "sha256:x"}


def test_delete_removes_the_table_and_nothing_else() -> None:
    out = tomledit.delete_table(USER_CONFIG, STATE + ("/other/hooks.json:stop:0:0",))
    # tomlkit takes the blank line that ended the table with it
    assert out == USER_CONFIG.replace(
        '[hooks.state."/other/hooks.json:stop:0:0"]\ntrusted_hash = "sha256:other"\n\n', ""
    )
    assert "# review state for another tool\n" in out  # comments are never ours to drop
    assert tomllib.loads(out)["mcp_servers"] == tomllib.loads(USER_CONFIG)["mcp_servers"]


def test_renames_are_simultaneous() -> None:
    a, b = f"{F}:pre_tool_use:1:0", f"{F}:pre_tool_use:2:0"
    text = f'[hooks.state."{a}"]\ntrusted_hash = "A"\n\n[hooks.state."{b}"]\ntrusted_hash = "B"\n'
    out = tomledit.rename_tables(text, {STATE + (a,): STATE + (b,), STATE + (b,): STATE + (f"{F}:pre_tool_use:3:0",)})
    assert _state(out) == {b: {"trusted_hash": "A"}, f"{F}:pre_tool_use:3:0": {"trusted_hash": "B"}}


@pytest.mark.parametrize(
    "text",
    [
        'hooks = { state = { "k" = { trusted_hash = "x" } } }\n',
        '[hooks]\nstate."k".trusted_hash = "x"\n',
        '[hooks.state]\n"k" = { trusted_hash = "x" }\n',
    ],
)
def test_inline_and_dotted_forms_are_edited_in_their_own_form(text: str) -> None:
    out = tomledit.set_value(text, STATE + ("k",), "trusted_hash", "y")
    assert out == text.replace('"x"', '"y"')
    assert _state(tomledit.delete_table(text, STATE + ("k",))) == {}


def test_an_edit_that_would_change_more_is_refused() -> None:
    # a new table inside a dotted-key table cannot be written without touching its neighbours
    with pytest.raises(tomledit.TomlEditError):
        tomledit.set_value('[hooks]\nstate."k".trusted_hash = "x"\n', STATE + ("k2",), "trusted_hash", "y")
    with pytest.raises(tomledit.TomlEditError, match="not a table"):
        tomledit.set_value("hooks = 3\n", STATE + ("k2",), "trusted_hash", "y")


def test_invalid_toml_is_an_error() -> None:
    with pytest.raises(tomledit.TomlEditError, match="invalid TOML"):
        tomledit.set_value("a = \n", ("x",), "y", "z")


@settings(max_examples=200)
@given(
    key=st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=40),
    value=st.text(st.characters(blacklist_categories=("Cs",)), max_size=40),
)
def test_any_key_and_value_round_trip(key: str, value: str) -> None:
    out = tomledit.set_value(USER_CONFIG, STATE + (key,), "trusted_hash", value)
    assert _state(out)[key]["trusted_hash"] == value
    back = tomledit.delete_table(out, STATE + (key,))
    assert back == USER_CONFIG


# --- the state plan -------------------------------------------------------------------------------


def _config(**entries: dict) -> dict:
    return {"hooks": {"state": entries}, "model": "m"}


def test_event_labels_match_codex() -> None:
    assert [
        codex_trust.event_label(e) for e in ("PreToolUse", "SessionStart", "Stop", "Interrupt", "UserPromptSubmit")
    ] == ["pre_tool_use", "session_start", "stop", "interrupt", "user_prompt_submit"]


def test_plan_trusts_ours_moves_foreign_and_drops_stale(tmp_path) -> None:
    hooks = tmp_path / "hooks.json"
    f = str(hooks)
    config = _config(
        **{
            f"{f}:pre_tool_use:0:0": {"trusted_hash": "foreign-a"},  # foreign, stays
            f"{f}:pre_tool_use:1:0": {"trusted_hash": "ours-old"},  # ours, removed by the edit
            f"{f}:pre_tool_use:2:0": {"trusted_hash": "foreign-b", "enabled": False},  # foreign, moves to 1
            f"{f}:stop:0:0": {"trusted_hash": "ours-stop", "enabled": False},  # ours, kept in place, rehashed
            "/elsewhere/hooks.json:pre_tool_use:1:0": {"trusted_hash": "x"},  # another file: untouched
        }
    )
    plan = codex_trust.plan_state(
        config,
        hooks,
        before={("pre_tool_use", 1, 0), ("stop", 0, 0)},
        kept=set(),
        moved=[("PreToolUse", 2, 1)],
        trust={f"{f}:stop:0:0": "ours-new"},
    )
    assert plan.drop == [f"{f}:pre_tool_use:1:0"]
    assert plan.move == {f"{f}:pre_tool_use:2:0": f"{f}:pre_tool_use:1:0"}
    assert plan.trust == {f"{f}:stop:0:0": "ours-new"}
    text = "\n".join(
        f'[hooks.state."{k}"]\n'
        + "".join(f"{n} = {tomledit.basic_string(v) if isinstance(v, str) else 'false'}\n" for n, v in e.items())
        for k, e in config["hooks"]["state"].items()
    )
    out = _state(codex_trust.apply_state(text, plan))
    assert out == {
        f"{f}:pre_tool_use:0:0": {"trusted_hash": "foreign-a"},
        f"{f}:pre_tool_use:1:0": {"trusted_hash": "foreign-b", "enabled": False},
        f"{f}:stop:0:0": {"trusted_hash": "ours-new", "enabled": False},
        "/elsewhere/hooks.json:pre_tool_use:1:0": {"trusted_hash": "x"},
    }


def test_plan_without_codex_keeps_trust_of_unchanged_hooks(tmp_path) -> None:
    f = str(tmp_path / "hooks.json")
    config = _config(**{f"{f}:stop:0:0": {"trusted_hash": "h"}, f"{f}:pre_tool_use:0:0": {"trusted_hash": "old"}})
    plan = codex_trust.plan_state(
        config,
        tmp_path / "hooks.json",
        before={("stop", 0, 0), ("pre_tool_use", 0, 0)},
        kept={("stop", 0, 0)},
        moved=[],
    )
    assert plan.drop == [f"{f}:pre_tool_use:0:0"] and not plan.move and not plan.trust


def test_plan_drops_a_leftover_where_ours_now_sit(tmp_path) -> None:
    f = str(tmp_path / "hooks.json")
    config = _config(**{f"{f}:stop:3:0": {"trusted_hash": "leftover", "enabled": False}})
    plan = codex_trust.plan_state(
        config, tmp_path / "hooks.json", before=set(), kept=set(), moved=[], trust={f"{f}:stop:3:0": "ours"}
    )
    assert plan.drop == [f"{f}:stop:3:0"] and plan.trust == {f"{f}:stop:3:0": "ours"}


def test_project_trust_root_is_the_git_root(tmp_path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "sub" / "deeper").mkdir(parents=True)
    assert codex_trust.project_trust_root(repo / "sub" / "deeper") == repo
    plain = tmp_path / "plain"
    plain.mkdir()
    assert codex_trust.project_trust_root(plain) == plain
    worktree = tmp_path / "wt"
    worktree.mkdir()
    (worktree / ".git").write_text(f"gitdir: {repo}/.git/worktrees/wt\n")
    assert codex_trust.project_trust_root(worktree) == repo
