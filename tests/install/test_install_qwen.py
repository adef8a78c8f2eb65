"""pasture install/uninstall qwen-code: merge into .qwen/settings.json (project) or the user's settings.json
($QWEN_HOME, else ~/.qwen) without disturbing anyone, and give every byte back on uninstall. Qwen Code has no
trust step by default (folder trust is off in its settings schema); doctor warns when the user turned it on."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from profiles_found import newest

from pasture.install.hooktable import is_our_group

CONTRACT = newest("qwen-code")  # install picks the newest contract when qwen is not on PATH
FOREIGN = {
    "hooks": {
        "PreToolUse": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "lint", "timeout": 5}]}],
        "SessionEnd": [{"hooks": [{"type": "command", "command": "notify-done", "name": "notify"}]}],
    },
    "model": {"name": "qwen3-coder-plus"},
    "security": {"auth": {"selectedType": "openai"}},
}


@pytest.fixture(autouse=True)
def _no_qwen_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("QWEN_HOME", raising=False)


def _settings(project: Path) -> Path:
    return project / ".qwen" / "settings.json"


def _write(path: Path, doc: dict, indent: int = 4) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = (json.dumps(doc, indent=indent) + "\n").encode()
    path.write_bytes(data)
    return data


def test_install_merges_then_uninstall_gives_every_byte_back(pasture, project: Path, private_home: Path, generated):
    before = _write(_settings(project), FOREIGN)
    run = pasture("install", "qwen-code", "--project", str(project), "--json")
    assert run.code == 0, run
    report = run.json()
    assert report["contract"] == CONTRACT, report
    doc = json.loads(_settings(project).read_text())
    ours = json.loads(generated[f"{CONTRACT}/settings.json"])["hooks"]
    assert doc["model"] == FOREIGN["model"] and doc["security"] == FOREIGN["security"]
    assert list(doc["hooks"])[:2] == list(FOREIGN["hooks"])
    assert doc["hooks"]["PreToolUse"][:1] == FOREIGN["hooks"]["PreToolUse"]  # foreign first, untouched
    for event, groups in ours.items():
        assert [g for g in doc["hooks"][event] if is_our_group(g)] == groups
    assert not (private_home / ".qwen").exists()  # no trust step, nothing of the user's touched

    run = pasture("uninstall", "qwen-code", "--project", str(project))
    assert run.code == 0, run
    assert _settings(project).read_bytes() == before


def test_a_settings_file_install_created_is_removed_by_uninstall(pasture, project: Path, private_home: Path):
    assert pasture("install", "qwen-code", "--project", str(project)).code == 0
    assert pasture("uninstall", "qwen-code", "--project", str(project)).code == 0
    assert not _settings(project).exists()


def test_user_scope_goes_to_the_home_folder_and_back(pasture, private_home: Path, generated):
    settings = private_home / ".qwen" / "settings.json"
    before = _write(settings, {"security": {"auth": {"selectedType": "openai"}}}, indent=2)
    run = pasture("install", "qwen-code", "--user", "--json")
    assert run.code == 0, run
    doc = json.loads(settings.read_text())
    assert doc["hooks"] == json.loads(generated[f"{CONTRACT}/settings.json"])["hooks"]
    assert pasture("uninstall", "qwen-code", "--user").code == 0
    assert settings.read_bytes() == before


def test_user_scope_follows_qwen_home(pasture, private_home: Path, tmp_path: Path, monkeypatch, generated):
    elsewhere = tmp_path / "qwen-config"
    monkeypatch.setenv("QWEN_HOME", str(elsewhere))
    run = pasture("install", "qwen-code", "--user")
    assert run.code == 0, run
    assert (elsewhere / "settings.json").read_text() == generated[f"{CONTRACT}/settings.json"]
    assert not (private_home / ".qwen").exists()
    assert pasture("uninstall", "qwen-code", "--user").code == 0
    assert not (elsewhere / "settings.json").exists()


def test_the_adapter_registers_only_events_the_hosts_catalog_names_in_seconds(generated):
    """The host's own validation (HookRegistry.processHooksConfiguration in its bundle) skips an event name
    outside its HookEventName enum; command hook timeouts under 1000 are seconds (bundled hooks reference)."""
    catalog = json.loads((Path(__file__).resolve().parents[2] / "captures" / CONTRACT / "catalog.json").read_text())
    names = {e["name"] for e in catalog["events"]}
    hooks = json.loads(generated[f"{CONTRACT}/settings.json"])["hooks"]
    assert set(hooks) <= names and "PreToolUse" in hooks
    for groups in hooks.values():
        for group in groups:
            assert set(group) <= {"matcher", "hooks"}
            for hook in group["hooks"]:
                assert hook["type"] == "command" and isinstance(hook["command"], str)
                assert isinstance(hook["timeout"], int) and 0 < hook["timeout"] < 1000


def test_claude_codes_own_deny_rules_cover_qwens_files_too(project: Path, private_home: Path) -> None:
    """An agent in Claude Code must not switch Qwen Code's hooks off either (the guard's files of every host)."""
    from pasture.install.denyrules import rules_for

    rules, _ = rules_for(project.resolve(), os.environ)
    for path in (f"{project.resolve()}/.qwen/settings.json", f"{private_home}/.qwen/settings.json"):
        assert f"Edit(/{path})" in rules, path


def test_a_repository_env_block_is_named_by_install_and_doctor(pasture, project: Path, private_home: Path):
    """Qwen Code applies the top-level "env" of .qwen/settings.json to every hook (its wire's ENV_BLOCK_FILES):
    install warns, doctor says host-env off, naming the file and the variable; the hook drops the value
    (tests/runtime/test_offswitch_guard.py)."""
    import subprocess

    from click.testing import CliRunner

    from pasture.cli import main

    subprocess.run(["git", "init", "-q", str(project)], check=True)
    _write(_settings(project), {"env": {"PASTURE_POLICY": "/tmp/elsewhere.toml", "EDITOR_THEME": "dark"}})
    run = pasture("install", "qwen-code", "--project", str(project))
    assert run.code == 0, run
    assert f'{_settings(project)} sets PASTURE_POLICY in its "env" block' in " ".join(run.stdout.split()), run
    root = Path(__file__).resolve().parents[2]
    result = CliRunner().invoke(main, ["doctor", "--project", str(project), "--root", str(root), "--json"])
    found = [f for f in json.loads(result.stdout)["findings"] if f["check"] == "host-env" and f["host"] == "qwen-code"]
    assert [(f["status"], f["where"]) for f in found] == [("off", str(_settings(project)))], found
    assert "PASTURE_POLICY" in found[0]["message"] and "EDITOR_THEME" not in found[0]["message"]
