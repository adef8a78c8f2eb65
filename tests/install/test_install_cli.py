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


def test_the_host_options_come_from_the_hosts() -> None:
    """Each host that says what install / doctor run its binary for has its `binary_flag` there, with that use
    in the help; `--trust-project` names every host that takes it and what it records (issue 30)."""
    from pasture.cli.doctor import doctor
    from pasture.hosts import HOSTS

    for command, use in ((install, "install_binary_use"), (doctor, "doctor_binary_use")):
        options = {opt: p for p in command.params for opt in getattr(p, "opts", ())}
        said = [h for h in HOSTS.values() if getattr(h, use)]
        assert said  # not vacuous
        for h in HOSTS.values():
            if getattr(h, use):
                assert h.binary_flag in options and getattr(h, use) in (options[h.binary_flag].help or "")
            else:
                assert h.binary_flag not in options
    trust = next(p for p in install.params if "--trust-project" in getattr(p, "opts", ()))
    takers = [h for h in HOSTS.values() if "--trust-project" in h.install_flags]
    assert takers and all(
        h.name in (trust.help or "") and (h.trust_project_help or "?") in (trust.help or "") for h in takers
    )


def test_a_host_only_binary_flag_is_refused_for_another_host(project: Path) -> None:
    from pasture.hosts import HOSTS

    (flag, owner), *_ = [(f, h.name) for h in HOSTS.values() for f in h.install_flags if f == h.binary_flag]
    other = next(name for name in HOSTS if name != owner)
    result = CliRunner().invoke(_pasture(), ["install", other, "--project", str(project), flag, "/bin/true"])
    assert result.exit_code == 2 and f"{flag} applies to {owner} only" in result.output
