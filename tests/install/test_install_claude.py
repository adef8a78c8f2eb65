"""pasture install/uninstall claude-code: merge into .claude/settings.json without disturbing anyone."""

from __future__ import annotations

import json
import os
from pathlib import Path

import host_schemas
import jsonschema
import pytest
from profiles_found import newest

from pasture.install.hooktable import COMMAND_PREFIX, is_our_group

REPO = Path(__file__).resolve().parents[2]
CONTRACT = newest("claude-code")  # install picks the newest contract when claude is not on PATH
SCHEMA = host_schemas.load("claude-code-settings.schema.json")  # committed; a missing copy fails, never skips
# SchemaStore's schema predates onFailure (Claude 2.1.295); the real 2.1.328 accepts and honours
# it on command hooks (tests/install/test_claude_onfailure_real.py): add exactly that key.
next(
    shape
    for shape in SCHEMA["$defs"]["hookCommand"]["anyOf"]
    if shape.get("properties", {}).get("type", {}).get("const") == "command"
)["properties"]["onFailure"] = {"type": "string", "enum": ["continue", "block"]}

FOREIGN = {
    "permissions": {"allow": ["Bash(ls:*)"]},
    "hooks": {
        "PreToolUse": [
            {"matcher": "Bash", "hooks": [{"type": "command", "command": "lint-bash", "timeout": 5}]},
            {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "fmt"}]},
        ],
        "Stop": [{"hooks": [{"type": "command", "command": "notify-done"}]}],
        "Stop2Custom": [],
    },
    "env": {"FOO": "bar"},
}


def _settings(project: Path) -> Path:
    return project / ".claude" / "settings.json"


def _write_foreign(project: Path, doc=FOREIGN, indent=4) -> bytes:
    path = _settings(project)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = (json.dumps(doc, indent=indent) + "\n").encode()
    path.write_bytes(data)
    return data


def _ours(group: dict) -> bool:
    return is_our_group(group)


def _deny(project: Path | None) -> list[str]:
    """The permissions.deny rules install adds for this HOME (pasture/install/denyrules.py)."""
    from pasture.install.denyrules import rules_for

    return rules_for(None if project is None else project.resolve(), os.environ)[0]


def test_fresh_install_writes_exactly_the_generated_fragment(pasture, project: Path, generated) -> None:
    run = pasture("install", "claude-code", "--project", str(project))
    assert run.code == 0, run
    # the generated hooks, then Claude Code's own deny rules for the guard's files
    expected = json.loads(generated[f"{CONTRACT}/settings.json"]) | {"permissions": {"deny": _deny(project)}}
    assert _settings(project).read_text() == json.dumps(expected, indent=2) + "\n"
    assert "created" in run.stdout and CONTRACT in run.stdout
    assert not list(_settings(project).parent.glob("*.pasture-backup"))  # nothing existed to back up


def test_merge_keeps_foreign_hooks_keys_and_order(pasture, project: Path, generated) -> None:
    _write_foreign(project)
    run = pasture("install", "claude-code", "--project", str(project))
    assert run.code == 0, run
    doc = json.loads(_settings(project).read_text())
    ours = json.loads(generated[f"{CONTRACT}/settings.json"])["hooks"]
    assert list(doc) == ["permissions", "hooks", "env"]
    assert doc["permissions"] == FOREIGN["permissions"] | {"deny": _deny(project)} and doc["env"] == FOREIGN["env"]
    # existing events first, in their order; then ours in catalog order
    existing = list(FOREIGN["hooks"])
    assert list(doc["hooks"])[: len(existing)] == existing
    assert list(doc["hooks"])[len(existing) :] == [e for e in ours if e not in existing]
    # foreign groups untouched and first; ours appended after them
    assert doc["hooks"]["PreToolUse"][:2] == FOREIGN["hooks"]["PreToolUse"]
    assert doc["hooks"]["PreToolUse"][2:] == ours["PreToolUse"]
    assert doc["hooks"]["Stop"] == FOREIGN["hooks"]["Stop"] + ours["Stop"]
    assert doc["hooks"]["Stop2Custom"] == []
    for event, groups in ours.items():
        assert [g for g in doc["hooks"][event] if _ours(g)] == groups
    # the file keeps its 4-space indent
    assert _settings(project).read_text().startswith('{\n    "permissions"')
    jsonschema.validate(
        {k: v for k, v in doc.items() if k != "hooks"}
        | {"hooks": {e: g for e, g in doc["hooks"].items() if e in SCHEMA["properties"]["hooks"]["properties"]}},
        SCHEMA,
    )


def test_backup_holds_the_bytes_before_the_install(pasture, project: Path) -> None:
    before = _write_foreign(project)
    run = pasture("install", "claude-code", "--project", str(project), "--json")
    assert run.code == 0, run
    backup = _settings(project).with_name("settings.json.pasture-backup")
    assert backup.read_bytes() == before
    report = run.json()
    assert report["files"] == [
        {
            "path": str(_settings(project)),
            "change": "updated",
            "backup": str(backup),
            "detail": f"permissions.deny: {len(_deny(project))} rule(s) keep Claude Code's "
            "file tools off the guard's files",
        }
    ]
    assert report["contract"] == CONTRACT and "PreToolUse" in report["events"] and report["ok"] is True


def test_reinstall_is_byte_identical_and_keeps_the_backup(pasture, project: Path) -> None:
    _write_foreign(project)
    assert pasture("install", "claude-code", "--project", str(project)).code == 0
    after_first = _settings(project).read_bytes()
    backup = _settings(project).with_name("settings.json.pasture-backup")
    backup_bytes, backup_mtime = backup.read_bytes(), backup.stat().st_mtime_ns
    stat = _settings(project).stat()
    run = pasture("install", "claude-code", "--project", str(project), "--json")
    assert run.code == 0, run
    assert run.json()["files"][0]["change"] == "unchanged"
    assert _settings(project).read_bytes() == after_first
    assert _settings(project).stat().st_ino == stat.st_ino  # not even rewritten
    assert backup.read_bytes() == backup_bytes and backup.stat().st_mtime_ns == backup_mtime


def test_reinstall_replaces_ours_in_place(pasture, project: Path, generated) -> None:
    """An older pasture group between foreign ones is replaced at the same position."""
    old_ours = {
        "matcher": "*",
        "hooks": [
            {
                "type": "command",
                "timeout": 5,
                "command": COMMAND_PREFIX + "--harness claude-code --event PreToolUse --host-version 2.0.0",
            }
        ],
    }
    stale = {"hooks": [{"type": "command", "command": COMMAND_PREFIX + "--harness claude-code --event Gone"}]}
    doc = json.loads(json.dumps(FOREIGN))
    doc["hooks"]["PreToolUse"].insert(1, old_ours)
    doc["hooks"]["RetiredEvent"] = [stale]
    doc["hooks"]["Stop"].append(stale)
    _write_foreign(project, doc)
    assert pasture("install", "claude-code", "--project", str(project)).code == 0
    new = json.loads(_settings(project).read_text())
    ours = json.loads(generated[f"{CONTRACT}/settings.json"])["hooks"]
    assert new["hooks"]["PreToolUse"] == [
        FOREIGN["hooks"]["PreToolUse"][0],
        ours["PreToolUse"][0],
        FOREIGN["hooks"]["PreToolUse"][1],
    ]
    assert "RetiredEvent" not in new["hooks"]  # held only our stale group
    assert new["hooks"]["Stop"] == FOREIGN["hooks"]["Stop"] + ours["Stop"]  # stale one replaced in place


def test_uninstall_removes_only_ours_and_restores_the_original_bytes(pasture, project: Path) -> None:
    before = _write_foreign(project, indent=3)
    assert pasture("install", "claude-code", "--project", str(project)).code == 0
    run = pasture("uninstall", "claude-code", "--project", str(project), "--json")
    assert run.code == 0, run
    assert _settings(project).read_bytes() == before
    assert run.json()["files"][0]["change"] == "updated"
    again = pasture("uninstall", "claude-code", "--project", str(project), "--json")
    assert again.code == 0 and again.json()["files"][0]["change"] == "unchanged"


def test_uninstall_after_foreign_edits_keeps_them(pasture, project: Path) -> None:
    _write_foreign(project)
    assert pasture("install", "claude-code", "--project", str(project)).code == 0
    doc = json.loads(_settings(project).read_text())
    doc["hooks"]["PreToolUse"].append({"hooks": [{"type": "command", "command": "added-later"}]})
    doc["model"] = "opus"
    _settings(project).write_text(json.dumps(doc, indent=2))
    assert pasture("uninstall", "claude-code", "--project", str(project)).code == 0
    left = json.loads(_settings(project).read_text())
    expected = json.loads(json.dumps(FOREIGN))
    expected["hooks"]["PreToolUse"].append({"hooks": [{"type": "command", "command": "added-later"}]})
    expected["model"] = "opus"
    assert left == expected and list(left) == list(expected)
    assert list(left["hooks"]) == list(expected["hooks"])


def test_uninstall_of_a_file_only_we_wrote_removes_it_and_the_empty_folder(pasture, project: Path) -> None:
    assert pasture("install", "claude-code", "--project", str(project)).code == 0
    run = pasture("uninstall", "claude-code", "--project", str(project))
    assert run.code == 0, run
    assert not (project / ".claude").exists()
    assert list(project.iterdir()) == []


def test_uninstall_keeps_a_folder_holding_other_files(pasture, project: Path) -> None:
    assert pasture("install", "claude-code", "--project", str(project)).code == 0
    (project / ".claude" / "agents.md").write_text("mine")
    assert pasture("uninstall", "claude-code", "--project", str(project)).code == 0
    assert sorted(p.name for p in (project / ".claude").iterdir()) == ["agents.md"]


@pytest.mark.parametrize(
    "text, why",
    [
        ('{"hooks": {', "invalid JSON"),
        ('{"hooks": {}, "hooks": {}}', "duplicate key"),
        ("[]", "not an object"),
        ('{"hooks": []}', "not an object"),
        ('{"hooks": {"Stop": {}}}', "not an array"),
        ('{"timeout": NaN}', "NaN is not JSON"),
    ],
)
def test_invalid_existing_file_is_refused_untouched(pasture, project: Path, text: str, why: str) -> None:
    path = _settings(project)
    path.parent.mkdir()
    path.write_text(text)
    for action in ("install", "uninstall"):
        run = pasture(action, "claude-code", "--project", str(project))
        assert run.code == 2, run
        assert why in run.stderr and str(path) in run.stderr
        assert path.read_text() == text
        assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json"]
    as_json = pasture("install", "claude-code", "--project", str(project), "--json")
    assert as_json.code == 2 and as_json.json()["ok"] is False and why in as_json.json()["error"]


def test_non_utf8_file_is_refused(pasture, project: Path) -> None:
    path = _settings(project)
    path.parent.mkdir()
    path.write_bytes(b'{"x": "\xff"}')
    run = pasture("install", "claude-code", "--project", str(project))
    assert run.code == 2 and "UTF-8" in run.stderr
    assert path.read_bytes() == b'{"x": "\xff"}'


def test_mixed_group_is_left_alone_and_reported(pasture, project: Path) -> None:
    mixed = {
        "hooks": [
            {"type": "command", "command": "mine"},
            {"type": "command", "command": COMMAND_PREFIX + "--harness claude-code --event Stop"},
        ]
    }
    _write_foreign(project, {"hooks": {"Stop": [mixed]}})
    run = pasture("install", "claude-code", "--project", str(project))
    assert run.code == 0 and "hooks.Stop[0] mix pasture's hook" in run.stdout
    assert json.loads(_settings(project).read_text())["hooks"]["Stop"][0] == mixed
    assert pasture("uninstall", "claude-code", "--project", str(project)).code == 0
    assert json.loads(_settings(project).read_text()) == {"hooks": {"Stop": [mixed]}}


def test_user_scope_uses_home_and_claude_config_dir(
    pasture, private_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = pasture("install", "claude-code", "--user", "--json")
    assert run.code == 0, run
    assert run.json()["files"][0]["path"] == str(private_home / ".claude" / "settings.json")
    assert run.json()["scope"] == "user" and run.json()["project"] is None
    custom = tmp_path / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(custom))
    assert pasture("install", "claude-code", "--user").code == 0
    assert (custom / "settings.json").is_file()
    assert pasture("uninstall", "claude-code", "--user").code == 0
    assert not custom.exists()


def test_default_scope_is_the_current_folder(pasture, project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project)
    assert pasture("install", "claude-code").code == 0
    assert _settings(project).is_file()


def test_project_and_user_exclude_each_other(pasture, project: Path) -> None:
    run = pasture("install", "claude-code", "--project", str(project), "--user")
    assert run.code == 2 and "exclude each other" in run.output
    assert pasture("install", "claude-code", "--project", str(project / "missing")).code == 2


def test_symlinked_settings_stay_a_link(pasture, project: Path, tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "settings.json"
    real.parent.mkdir()
    real.write_text('{"env": {}}\n')
    (project / ".claude").mkdir()
    _settings(project).symlink_to(real)
    assert pasture("install", "claude-code", "--project", str(project), "--follow-symlinks").code == 0
    assert _settings(project).is_symlink()
    assert "hooks" in json.loads(real.read_text())
    assert (real.parent / "settings.json.pasture-backup").read_text() == '{"env": {}}\n'


def test_file_mode_is_kept(pasture, project: Path) -> None:
    _write_foreign(project)
    os.chmod(_settings(project), 0o600)
    assert pasture("install", "claude-code", "--project", str(project)).code == 0
    assert _settings(project).stat().st_mode & 0o777 == 0o600
    assert not [p for p in _settings(project).parent.iterdir() if "pasture-tmp" in p.name]


def test_unknown_contract_is_refused(pasture, project: Path) -> None:
    run = pasture("install", "claude-code", "--project", str(project), "--contract", "claude-code@9.9.9")
    assert run.code == 2 and "claude-code@2.1.261" in run.stderr
    assert not (project / ".claude").exists()
