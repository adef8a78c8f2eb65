"""A folder where a host's settings file goes: `pasture install`, `uninstall` and `doctor` say so in one
line and exit 2, for every host and both scopes (never a traceback, nothing written)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from pasture.cli import main as cli
from pasture.hosts import HOSTS

REPO = Path(__file__).resolve().parents[2]
#: the flags a host's install needs to reach its settings file in a fresh project
REACH = {"gemini-cli": ["--trust-project"], "codex": ["--trust-project"]}


def _run(*args: str) -> tuple[int, list[str], str]:
    result = CliRunner().invoke(cli, [*args], catch_exceptions=False)
    return result.exit_code, result.stderr.splitlines(), result.stdout


def _snapshot(folder: Path) -> list[tuple[str, bytes | None]]:
    return sorted((p.relative_to(folder).as_posix(), None if p.is_dir() else p.read_bytes()) for p in folder.rglob("*"))


@pytest.mark.parametrize("scope", ["project", "user"])
@pytest.mark.parametrize("command", ["install", "uninstall", "doctor"])
@pytest.mark.parametrize("harness", sorted(HOSTS))
def test_a_folder_at_the_settings_path_is_one_line_and_exit_2(
    harness: str, command: str, scope: str, project: Path, private_home: Path
) -> None:
    target = HOSTS[harness].target(project if scope == "project" else None, dict(os.environ))
    target.file.mkdir(parents=True)
    where = ["--project", str(project)] if scope == "project" else ["--user"]
    before = _snapshot(private_home), _snapshot(project)
    if command == "doctor":
        args = ["doctor", *where, "--host", harness, "--root", str(REPO)]
    elif command == "install":
        reach = REACH.get(harness, []) if scope == "project" else []
        args = ["install", harness, *where, "--root", str(REPO), *reach]
    else:
        args = ["uninstall", harness, *where]

    code, stderr, stdout = _run(*args)

    assert code == 2, (stdout, stderr)
    assert len(stderr) == 1, stderr
    assert f"{target.file} is a folder, not a file" in stderr[0]
    assert (_snapshot(private_home), _snapshot(project)) == before


def test_install_json_reports_the_folder(project: Path) -> None:
    target = HOSTS["claude-code"].target(project, dict(os.environ))
    target.file.mkdir(parents=True)
    code, stderr, stdout = _run("install", "claude-code", "--project", str(project), "--root", str(REPO), "--json")
    assert code == 2
    assert '"ok": false' in stdout and f"{target.file} is a folder, not a file" in stdout


def test_a_folder_where_the_codex_config_goes_is_one_line_and_exit_2(project: Path, private_home: Path) -> None:
    (private_home / ".codex" / "config.toml").mkdir(parents=True)
    code, stderr, stdout = _run("install", "codex", "--project", str(project), "--root", str(REPO), "--trust-project")
    assert code == 2, (stdout, stderr)
    assert len(stderr) == 1, stderr
    assert "config.toml is a folder, not a file" in stderr[0]


def test_any_other_read_of_a_folder_ends_in_one_line_and_exit_2(tmp_path: Path) -> None:
    """The CLI's one error handler covers a folder wherever a command opens a file it expects."""
    import click

    from pasture.cli import _Pasture

    folder = tmp_path / "settings.json"
    folder.mkdir()

    @click.group(cls=_Pasture)
    def group() -> None:
        pass

    @group.command()
    def reads() -> None:
        folder.read_text(encoding="utf-8")

    result = CliRunner().invoke(group, ["reads"], catch_exceptions=False)
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [f"pasture: {folder} is a folder, not a file: move it out of the way"]
