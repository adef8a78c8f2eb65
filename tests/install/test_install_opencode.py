"""pasture install/uninstall opencode: one plugin file in .opencode/plugins/, chosen by host major."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest
from profiles_found import admitting, contract_ids

NEWEST_1X = [c for c in contract_ids("opencode") if c.startswith("opencode@1.")][-1]

PLUGIN = Path(".opencode") / "plugins" / "pasture-lifecycle.ts"


def _fake_opencode(folder: Path, version_output: str, code: int = 0) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "opencode"
    path.write_text(f"#!{sys.executable}\nimport sys\nprint({version_output!r})\nsys.exit({code})\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_without_opencode_installs_the_newest_1x_plugin(pasture, project: Path, generated) -> None:
    run = pasture("install", "opencode", "--project", str(project), "--json")
    assert run.code == 0, run
    report = run.json()
    assert report["contract"] == NEWEST_1X
    assert "opencode is not on PATH" in report["contract_reason"] and "1.x" in report["contract_reason"]
    assert (project / PLUGIN).read_text() == generated[f"{NEWEST_1X}/pasture-lifecycle.ts"]
    assert report["files"] == [{"path": str(project / PLUGIN), "change": "created", "backup": None, "detail": ""}]


@pytest.mark.parametrize(
    "output, contract",
    [
        ("2.0.20", "opencode@2.0.20"),
        ("opencode 2.3.1", "opencode@2.0.20"),
        ("1.18.40", admitting("opencode", "1.18.40")),
    ],
)
def test_installed_opencode_major_picks_the_contract(
    pasture, project: Path, tmp_path: Path, generated, monkeypatch: pytest.MonkeyPatch, output: str, contract: str
) -> None:
    bin_dir = tmp_path / "bin"
    _fake_opencode(bin_dir, output)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    run = pasture("install", "opencode", "--project", str(project), "--json")
    assert run.code == 0, run
    assert run.json()["contract"] == contract
    assert "--version` says" in run.json()["contract_reason"]
    assert (project / PLUGIN).read_text() == generated[f"{contract}/pasture-lifecycle.ts"]


def test_unknown_major_is_refused_and_opencode_bin_option(pasture, project: Path, tmp_path: Path) -> None:
    fake = _fake_opencode(tmp_path / "bin", "3.0.0")
    run = pasture("install", "opencode", "--project", str(project), "--opencode-bin", str(fake))
    assert run.code == 2 and "no OpenCode 3.x contract" in run.stderr
    assert not (project / ".opencode").exists()
    broken = _fake_opencode(tmp_path / "bin2", "boom", code=1)
    run = pasture("install", "opencode", "--project", str(project), "--opencode-bin", str(broken), "--json")
    assert run.code == 0 and run.json()["contract"] == NEWEST_1X


def test_explicit_contract_and_switching_major_replaces_the_file(pasture, project: Path, generated) -> None:
    assert pasture("install", "opencode", "--project", str(project)).code == 0
    run = pasture("install", "opencode", "--project", str(project), "--contract", "opencode@2.0.20", "--json")
    assert run.code == 0 and run.json()["files"][0]["change"] == "updated"
    assert run.json()["contract_reason"] == "chosen with --contract"
    assert (project / PLUGIN).read_text() == generated["opencode@2.0.20/pasture-lifecycle.ts"]
    assert sorted(p.name for p in (project / PLUGIN).parent.iterdir()) == ["pasture-lifecycle.ts"]


def test_reinstall_leaves_the_file_alone(pasture, project: Path) -> None:
    assert pasture("install", "opencode", "--project", str(project)).code == 0
    before = (project / PLUGIN).stat()
    run = pasture("install", "opencode", "--project", str(project), "--json")
    assert run.code == 0 and run.json()["files"][0]["change"] == "unchanged"
    after = (project / PLUGIN).stat()
    assert after.st_ino == before.st_ino and after.st_mtime_ns == before.st_mtime_ns


def test_a_foreign_file_of_the_same_name_is_refused(pasture, project: Path) -> None:
    (project / PLUGIN).parent.mkdir(parents=True)
    (project / PLUGIN).write_text("export const Mine = async () => ({})\n")
    for action in ("install", "uninstall"):
        run = pasture(action, "opencode", "--project", str(project))
        assert run.code == 2 and "not written by pasture" in run.stderr
        assert (project / PLUGIN).read_text() == "export const Mine = async () => ({})\n"


def test_uninstall_removes_the_plugin_and_empty_folders_only(pasture, project: Path) -> None:
    (project / ".opencode").mkdir()
    (project / ".opencode" / "opencode.json").write_text("{}")
    assert pasture("install", "opencode", "--project", str(project)).code == 0
    run = pasture("uninstall", "opencode", "--project", str(project), "--json")
    assert run.code == 0, run
    assert [f["change"] for f in run.json()["files"]] == ["removed", "removed"]  # the file, then plugins/
    assert sorted(p.name for p in (project / ".opencode").iterdir()) == ["opencode.json"]
    again = pasture("uninstall", "opencode", "--project", str(project), "--json")
    assert again.code == 0 and again.json()["files"][0]["change"] == "absent"


def test_user_scope_follows_xdg_config_home(
    pasture, private_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = pasture("install", "opencode", "--user", "--json")
    assert run.code == 0, run
    plugin = private_home / ".config" / "opencode" / "plugins" / "pasture-lifecycle.ts"
    assert run.json()["files"][0]["path"] == str(plugin)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    run = pasture("install", "opencode", "--user", "--json")
    assert run.json()["files"][0]["path"] == str(tmp_path / "xdg" / "opencode" / "plugins" / "pasture-lifecycle.ts")
    assert pasture("uninstall", "opencode", "--user").code == 0
    assert not (tmp_path / "xdg" / "opencode").exists() and (tmp_path / "xdg").is_dir()


def test_codex_only_options_are_refused_for_other_hosts(pasture, project: Path) -> None:
    run = pasture("install", "opencode", "--project", str(project), "--trust-project")
    assert run.code == 2 and "--trust-project applies to codex, gemini-cli and copilot-cli only" in run.output
    assert not (project / ".opencode").exists()


def test_double_installs_are_reported(pasture, project: Path) -> None:
    assert pasture("install", "opencode", "--user").code == 0
    singular = project / ".opencode" / "plugin" / "pasture-lifecycle.js"
    singular.parent.mkdir(parents=True)
    singular.write_text("// an old hand-made copy\n")
    run = pasture("install", "opencode", "--project", str(project), "--json")
    assert run.code == 0, run
    warnings = "\n".join(run.json()["warnings"])
    assert "also installed for the user" in warnings and f"OpenCode also loads {singular}" in warnings


def test_a_flag_message_names_the_hosts_the_flag_applies_to(pasture, project: Path) -> None:
    run = pasture("install", "pi", "--project", str(project), "--trust-project")
    assert run.code == 2
    assert "--trust-project applies to codex, gemini-cli and copilot-cli only" in run.output
    assert "codex only" not in run.output
    run = pasture("install", "gemini-cli", "--project", str(project), "--trust-only")
    assert run.code == 2 and "--trust-only applies to codex only" in run.output
