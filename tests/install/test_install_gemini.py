"""pasture install/uninstall gemini-cli: merge into .gemini/settings.json without disturbing anyone, and the
host's trust step (project hooks load only in a folder ~/.gemini/trustedFolders.json trusts)."""

from __future__ import annotations

import json
from pathlib import Path

from profiles_found import newest

from pasture.install.hooktable import is_our_group

CONTRACT = newest("gemini-cli")  # install picks the newest contract when gemini is not on PATH
FOREIGN = {
    "hooks": {
        "BeforeTool": [{"matcher": "write_file", "hooks": [{"type": "command", "command": "lint", "timeout": 5000}]}],
        "SessionEnd": [{"hooks": [{"type": "command", "command": "notify-done", "name": "notify"}]}],
    },
    "ui": {"theme": "GitHub"},
}
OTHER_TRUST = {"/somewhere/else": "TRUST_FOLDER", "/not/this": "DO_NOT_TRUST"}


def _settings(project: Path) -> Path:
    return project / ".gemini" / "settings.json"


def _trust(home: Path) -> Path:
    return home / ".gemini" / "trustedFolders.json"


def _write(path: Path, doc: dict, indent: int = 4) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = (json.dumps(doc, indent=indent) + "\n").encode()
    path.write_bytes(data)
    return data


def test_an_untrusted_project_is_refused_and_nothing_is_written(pasture, project: Path, private_home: Path) -> None:
    before = _write(_settings(project), FOREIGN)
    run = pasture("install", "gemini-cli", "--project", str(project))
    assert run.code == 2, run
    assert "only in a trusted folder" in run.stderr and "--trust-project" in run.stderr, run
    assert _settings(project).read_bytes() == before
    assert not _trust(private_home).exists()


def test_install_merges_and_trusts_then_uninstall_gives_every_byte_back(
    pasture, project: Path, private_home: Path, generated
) -> None:
    before = _write(_settings(project), FOREIGN)
    trust_before = _write(_trust(private_home), OTHER_TRUST, indent=2)
    run = pasture("install", "gemini-cli", "--project", str(project), "--trust-project", "--json")
    assert run.code == 0, run
    report = run.json()
    assert report["contract"] == CONTRACT and report["trust"]["added"] is True, report
    doc = json.loads(_settings(project).read_text())
    ours = json.loads(generated[f"{CONTRACT}/settings.json"])["hooks"]
    assert doc["ui"] == FOREIGN["ui"] and list(doc["hooks"])[:2] == list(FOREIGN["hooks"])
    assert doc["hooks"]["BeforeTool"][:1] == FOREIGN["hooks"]["BeforeTool"]  # foreign first, untouched
    for event, groups in ours.items():
        assert [g for g in doc["hooks"][event] if is_our_group(g)] == groups
    trusted = json.loads(_trust(private_home).read_text())
    assert trusted == {**OTHER_TRUST, str(project.resolve()): "TRUST_FOLDER"}

    run = pasture("uninstall", "gemini-cli", "--project", str(project))
    assert run.code == 0, run
    assert _settings(project).read_bytes() == before
    assert _trust(private_home).read_bytes() == trust_before


def test_trust_pasture_did_not_add_stays_on_uninstall(pasture, project: Path, private_home: Path) -> None:
    _write(_trust(private_home), {str(project.resolve()): "TRUST_FOLDER"})
    trust_before = _trust(private_home).read_bytes()
    run = pasture("install", "gemini-cli", "--project", str(project), "--json")
    assert run.code == 0 and run.json()["trust"]["added"] is False, run
    assert _trust(private_home).read_bytes() == trust_before
    assert pasture("uninstall", "gemini-cli", "--project", str(project)).code == 0
    assert _trust(private_home).read_bytes() == trust_before  # the user's own trust is theirs
    assert not _settings(project).exists()  # install created it; nothing else was left in it


def test_a_trust_file_created_by_install_is_removed_by_uninstall(pasture, project: Path, private_home: Path) -> None:
    assert pasture("install", "gemini-cli", "--project", str(project), "--trust-project").code == 0
    assert json.loads(_trust(private_home).read_text()) == {str(project.resolve()): "TRUST_FOLDER"}
    assert pasture("uninstall", "gemini-cli", "--project", str(project)).code == 0
    assert not _trust(private_home).exists()


def test_user_scope_needs_no_trust(pasture, private_home: Path, generated) -> None:
    run = pasture("install", "gemini-cli", "--user", "--json")
    assert run.code == 0, run
    settings = private_home / ".gemini" / "settings.json"
    assert settings.read_text() == generated[f"{CONTRACT}/settings.json"]
    assert not _trust(private_home).exists()
    assert pasture("uninstall", "gemini-cli", "--user").code == 0 and not settings.exists()


def test_a_trust_file_that_is_not_an_object_is_refused(pasture, project: Path, private_home: Path) -> None:
    _trust(private_home).parent.mkdir(parents=True)
    _trust(private_home).write_text("[not, json\n")
    run = pasture("install", "gemini-cli", "--project", str(project), "--trust-project")
    assert run.code == 2 and "not a JSON object of folder rules" in run.stderr, run
    assert _trust(private_home).read_text() == "[not, json\n"
    assert not _settings(project).exists()  # refused before anything was written
