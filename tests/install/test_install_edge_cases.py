"""Issue 9 item 9: install edge cases end in a clear refusal with nothing half-written.

* a read-only target: refused (exit 2) before anything is written, no backup;
* a write that fails anyway (an immutable file): no traceback, the target and its backup as they were;
* a symlink leading out of the project (the file or `.claude/` itself): refused unless --follow-symlinks;
* CRLF files (config.toml, settings.json) keep CRLF.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pasture.install import files


def _settings(project: Path) -> Path:
    return project / ".claude" / "settings.json"


FOREIGN = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "lint"}]}]}}


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("action", ["install", "uninstall"])
def test_a_read_only_settings_file_is_refused_untouched(pasture, project: Path, action: str) -> None:
    path = _settings(project)
    path.parent.mkdir()
    path.write_text(json.dumps(FOREIGN))
    if action == "uninstall":
        path.chmod(0o644)
        assert pasture("install", "claude-code", "--project", str(project)).code == 0
    path.chmod(0o444)
    before = _tree(project)
    run = pasture(action, "claude-code", "--project", str(project))
    assert run.code == 2, run
    assert "is read-only" in run.stderr and "chmod u+w" in run.stderr and "nothing was written" in run.stderr
    assert "Traceback" not in run.output
    assert _tree(project) == before  # no backup, no temp file


def test_a_read_only_folder_is_refused(pasture, project: Path) -> None:
    (project / ".claude").mkdir()
    (project / ".claude").chmod(0o555)
    try:
        run = pasture("install", "claude-code", "--project", str(project))
        # root may write anyway; then the refusal must come from the permission bits we check
        assert run.code == 2 if os.geteuid() != 0 else run.code in (0, 2), run
        assert "Traceback" not in run.output
    finally:
        (project / ".claude").chmod(0o755)


def test_codex_read_only_config_toml_is_refused_before_hooks_json(pasture, project: Path, private_home: Path) -> None:
    config = private_home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(f'[projects."{project}"]\ntrust_level = "trusted"\n')
    config.chmod(0o444)
    run = pasture("install", "codex", "--project", str(project))
    assert run.code == 2 and "config.toml is read-only" in run.stderr, run
    assert not (project / ".codex").exists()


def test_a_failing_replace_leaves_target_and_backup_as_they_were(
    pasture, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What an immutable (chattr +i) file does: the rename over it fails after the backup was made."""
    path = _settings(project)
    path.parent.mkdir()
    path.write_text(json.dumps(FOREIGN))
    backup = files.backup_path(path)
    backup.write_text("an older backup\n")
    before = _tree(project)
    real_replace = os.replace

    def refuse(src, dst):
        if Path(dst) == path:
            raise PermissionError(1, "Operation not permitted")
        return real_replace(src, dst)

    monkeypatch.setattr(files.os, "replace", refuse)
    run = pasture("install", "claude-code", "--project", str(project))
    assert run.code == 2, run
    assert f"cannot write {path}: Operation not permitted; it was left as it was" in run.stderr
    assert _tree(project) == before


def test_codex_puts_hooks_json_back_when_config_toml_cannot_be_written(
    pasture, project: Path, private_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = private_home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('model = "gpt-5"\n')  # the project is not trusted yet: --trust-project writes it first
    hooks = project / ".codex" / "hooks.json"
    hooks.parent.mkdir()
    hooks.write_text(json.dumps(FOREIGN))
    before = {**_tree(project), **{"config": config.read_bytes()}}
    real_replace = os.replace

    def refuse(src, dst):
        if Path(dst) == config:
            raise OSError(28, "No space left on device")
        return real_replace(src, dst)

    monkeypatch.setattr(files.os, "replace", refuse)
    run = pasture("install", "codex", "--project", str(project), "--trust-project")
    monkeypatch.setattr(files.os, "replace", real_replace)
    assert run.code == 2, run
    assert "No space left on device" in run.stderr and "was put back as it was" in run.stderr
    assert hooks.read_bytes() == before[".codex/hooks.json"]
    assert config.read_bytes() == before["config"]


@pytest.mark.parametrize("link", ["file", "folder"])
@pytest.mark.parametrize("action", ["install", "uninstall"])
def test_a_symlink_out_of_the_project_is_refused_without_the_flag(
    pasture, project: Path, tmp_path: Path, link: str, action: str
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "settings.json").write_text(json.dumps(FOREIGN))
    if link == "file":
        (project / ".claude").mkdir()
        _settings(project).symlink_to(outside / "settings.json")
    else:
        (project / ".claude").symlink_to(outside)
    if action == "uninstall":
        assert pasture("install", "claude-code", "--project", str(project), "--follow-symlinks").code == 0
    before = _tree(outside)
    run = pasture(action, "claude-code", "--project", str(project))
    assert run.code == 2, run
    assert "leads out of the project" in run.stderr and str(outside / "settings.json") in run.stderr
    assert "--follow-symlinks" in run.stderr
    assert _tree(outside) == before
    followed = pasture(action, "claude-code", "--project", str(project), "--follow-symlinks")
    assert followed.code == 0, followed
    assert _tree(outside) != before


def test_symlinks_inside_the_project_need_no_flag(pasture, project: Path) -> None:
    (project / "config" / "claude").mkdir(parents=True)
    (project / ".claude").symlink_to(project / "config" / "claude")
    assert pasture("install", "claude-code", "--project", str(project)).code == 0
    assert (project / "config" / "claude" / "settings.json").is_file()


def test_codex_hooks_json_symlinked_out_is_refused(pasture, project: Path, private_home: Path, tmp_path: Path) -> None:
    config = private_home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(f'[projects."{project}"]\ntrust_level = "trusted"\n')
    (tmp_path / "elsewhere").mkdir()
    (project / ".codex").symlink_to(tmp_path / "elsewhere")
    run = pasture("install", "codex", "--project", str(project))
    assert run.code == 2 and "leads out of the project" in run.stderr, run
    assert list((tmp_path / "elsewhere").iterdir()) == []
    assert config.read_text() == f'[projects."{project}"]\ntrust_level = "trusted"\n'


def test_crlf_config_toml_stays_crlf_through_install_and_uninstall(pasture, project: Path, private_home: Path) -> None:
    config = private_home / ".codex" / "config.toml"
    config.parent.mkdir()
    text = (
        f'# mine\r\nmodel = "gpt-5"\r\n\r\n[projects."{project}"]\r\ntrust_level = "untrusted"\r\n\r\n'
        "[tui]\r\nx = 1\r\n"
    )
    config.write_bytes(text.encode())
    run = pasture("install", "codex", "--project", str(project), "--trust-project")
    assert run.code == 3, run  # no codex here: trust of the hooks not recorded, project trust written
    out = config.read_bytes().decode()
    assert 'trust_level = "trusted"' in out
    assert out.count("\n") == out.count("\r\n"), repr(out)
    assert pasture("uninstall", "codex", "--project", str(project)).code == 0
    out = config.read_bytes().decode()
    assert out.count("\n") == out.count("\r\n"), repr(out)


def test_crlf_settings_json_stays_crlf(pasture, project: Path) -> None:
    path = _settings(project)
    path.parent.mkdir()
    path.write_bytes(json.dumps(FOREIGN, indent=2).replace("\n", "\r\n").encode() + b"\r\n")
    assert pasture("install", "claude-code", "--project", str(project)).code == 0
    data = path.read_bytes()
    assert data.count(b"\n") == data.count(b"\r\n") > 10
    assert json.loads(data)["hooks"]["PreToolUse"][0] == FOREIGN["hooks"]["PreToolUse"][0]
    assert data.startswith(b'{\r\n  "hooks"')  # the indent was read through the CRs
