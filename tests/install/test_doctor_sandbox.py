"""`pasture doctor` says whether the agent's OS sandbox keeps the guard's state out of reach, and how
to turn it on (pasture/doctor/sandbox.py): Claude Code's sandbox.enabled / denyWrite, Codex's
sandbox_mode."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from pasture.cli import main
from pasture.hosts.codex import sandbox as codex_sandbox

REPO = Path(__file__).resolve().parents[2]


def _doctor(project: Path) -> tuple[int, dict]:
    result = CliRunner().invoke(
        main, ["doctor", "--project", str(project), "--root", str(REPO), "--json"], catch_exceptions=False
    )
    return result.exit_code, json.loads(result.stdout)


def _sandbox_finding(body: dict, host: str = "claude-code") -> dict:
    (finding,) = [f for f in body["findings"] if f["check"] == "sandbox" and f["host"] == host]
    return finding


def _edit(path: Path, **keys) -> None:
    doc = json.loads(path.read_text()) if path.exists() else {}
    doc.update(keys)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc))


@pytest.fixture
def installed(pasture, project: Path) -> Path:
    assert pasture("install", "claude-code", "--project", str(project)).code == 0
    return project


def test_claude_without_a_sandbox_is_a_warning_naming_how_to_turn_it_on(installed: Path) -> None:
    code, body = _doctor(installed)
    finding = _sandbox_finding(body)
    assert finding["status"] == "warn" and "OS sandbox is not enabled in any settings file" in finding["message"]
    pasture_dir = installed.resolve() / ".pasture"
    assert finding["fix"].startswith(
        f'add "sandbox": {{"enabled": true, "filesystem": {{"denyWrite": '
        f'["/{pasture_dir}"]}}}} to {installed.resolve()}/.claude/settings.local.json'
    )
    assert code == 0  # the hooks still enforce: a warning, not "off"


def test_claude_sandbox_on_but_pasture_writable_then_denied(installed: Path, private_home: Path) -> None:
    _edit(private_home / ".claude" / "settings.json", sandbox={"enabled": True})
    finding = _sandbox_finding(_doctor(installed)[1])
    pasture_dir = installed.resolve() / ".pasture"
    assert finding["status"] == "warn"
    assert f"but {pasture_dir} is inside the folder they may write" in finding["message"]
    local = installed / ".claude" / "settings.local.json"
    _edit(local, sandbox={"filesystem": {"denyWrite": [f"/{pasture_dir}"]}})
    finding = _sandbox_finding(_doctor(installed)[1])
    assert finding["status"] == "ok" and f"{pasture_dir} is in sandbox.filesystem.denyWrite" in finding["message"]
    for spelling in ("./.pasture", ".pasture", "/.pasture"):  # relative to the session's folder / the project
        _edit(local, sandbox={"filesystem": {"denyWrite": [spelling]}})
        assert _sandbox_finding(_doctor(installed)[1])["status"] == "ok", spelling


def test_the_most_local_settings_file_decides_enabled(installed: Path, private_home: Path) -> None:
    _edit(private_home / ".claude" / "settings.json", sandbox={"enabled": True})
    _edit(installed / ".claude" / "settings.local.json", sandbox={"enabled": False})
    finding = _sandbox_finding(_doctor(installed)[1])
    assert finding["status"] == "warn" and "settings.local.json sets sandbox.enabled = false" in finding["message"]


def test_a_fifo_settings_file_does_not_hang_the_doctor(installed: Path) -> None:
    os.mkfifo(installed / ".claude" / "settings.local.json")
    assert _sandbox_finding(_doctor(installed)[1])["status"] == "warn"


def _codex(tmp_path: Path, text: str | None) -> dict:
    home = tmp_path / "codex-home"
    home.mkdir(exist_ok=True)
    if text is not None:
        (home / "config.toml").write_text(text)
    (finding,) = codex_sandbox.codex(tmp_path / "project", {"CODEX_HOME": str(home), "HOME": str(tmp_path)})
    return finding.as_json()


@pytest.mark.parametrize(
    "text, status, said",
    [
        ('sandbox_mode = "read-only"\n', "ok", "cannot change the guard's files"),
        ('sandbox_mode = "workspace-write"\n', "warn", "is inside the workspace they may write"),
        ('sandbox_mode = "danger-full-access"\n', "warn", "nothing keeps a program the agent writes"),
        (None, "warn", "sandbox_mode is not set"),
        (
            'sandbox_mode = "danger-full-access"\nprofile = "safe"\n[profiles.safe]\nsandbox_mode = "read-only"\n',
            "ok",
            "profiles.safe.sandbox_mode",
        ),
    ],
)
def test_codex_sandbox_mode(tmp_path: Path, text, status, said) -> None:
    finding = _codex(tmp_path, text)
    assert finding["status"] == status and said in finding["message"], finding
    if status != "ok":
        assert finding["fix"]
    if "workspace-write" in (text or ""):
        assert "cannot be written by the agent's commands" in finding["message"]
        assert "user layer" in finding["fix"]
    elif status == "warn":
        assert finding["fix"].startswith('set sandbox_mode = "workspace-write" in ')


def test_the_host_deny_rules_are_checked_and_a_missing_one_names_the_reinstall(installed: Path) -> None:
    (finding,) = [f for f in _doctor(installed)[1]["findings"] if f["check"] == "host-deny"]
    assert finding["status"] == "ok"
    settings = installed / ".claude" / "settings.json"
    doc = json.loads(settings.read_text())
    dropped = doc["permissions"]["deny"].pop(0)
    settings.write_text(json.dumps(doc))
    (finding,) = [f for f in _doctor(installed)[1]["findings"] if f["check"] == "host-deny"]
    assert finding["status"] == "warn" and f"(e.g. {dropped})" in finding["message"]
    assert finding["fix"] == f"pasture install claude-code --project {installed.resolve()}"
