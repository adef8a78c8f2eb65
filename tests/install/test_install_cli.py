"""The commands behave the same once registered on the real `pasture` group (pasture.cli.main)."""

from __future__ import annotations

from pathlib import Path

import click
from click.testing import CliRunner

from pasture.cli import main
from pasture.cli.install import install, uninstall

REPO = Path(__file__).resolve().parents[2]


def _pasture() -> click.Group:
    commands = {**main.commands, "install": install, "uninstall": uninstall}
    return click.Group(
        main.name, commands=commands, params=main.params, callback=main.callback, context_settings=main.context_settings
    )


def test_group_root_option_reaches_install(project: Path, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # no profiles/ here: the group's --root must be used
    result = CliRunner().invoke(
        _pasture(),
        ["--root", str(REPO), "install", "claude-code", "--project", str(project), "--json"],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    assert (project / ".claude" / "settings.json").is_file()
    result = CliRunner().invoke(_pasture(), ["uninstall", "claude-code", "--project", str(project)])
    assert result.exit_code == 0 and not (project / ".claude").exists()
    empty = tmp_path / "empty-root"
    empty.mkdir()
    result = CliRunner().invoke(_pasture(), ["--root", str(empty), "install", "claude-code", "--project", str(project)])
    assert result.exit_code == 2 and f"no profiles/ folder under {empty}" in result.output


def test_help_lists_the_exit_codes() -> None:
    result = CliRunner().invoke(_pasture(), ["install", "--help"])
    assert result.exit_code == 0
    assert "--trust-project" in result.output and "3 written" in result.output
