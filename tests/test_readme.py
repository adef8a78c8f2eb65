"""The README is for the people who use pasture (issue 30 item 3): short, and every policy it shows
is one pasture accepts, and the `pasture policy test` it shows is what the command prints."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from repo_paths import REPO

from pasture.cli import main

README = (REPO / "README.md").read_text(encoding="utf-8")
TOML_BLOCKS = re.findall(r"```toml\n(.*?)```", README, re.S)


def _env(tmp_path: Path, user: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    policy = tmp_path / "user.toml"
    policy.write_text(user, encoding="utf-8")
    for key, value in {
        "PASTURE_POLICY": policy,
        "PASTURE_MANAGED_POLICY": tmp_path / "managed.toml",
        "PASTURE_TRUST_STORE": tmp_path / "state" / "trust.json",
        "PASTURE_CACHE_DIR": tmp_path / "cache",
    }.items():
        monkeypatch.setenv(key, str(value))
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    return project


def test_the_readme_stays_short_and_starts_with_the_two_commands() -> None:
    assert len(README.splitlines()) <= 250
    commands = re.findall(r"```sh\n(.*?)\n```", README, re.S)[:2]
    assert commands == [
        "pip install -e . && pasture generate",
        "pip install -e '.[test]' && python -m pytest -q -m \"\"",
    ]


def test_the_readme_shows_policies() -> None:
    assert len(TOML_BLOCKS) >= 3 and any("packs = [" in block for block in TOML_BLOCKS)


@pytest.mark.parametrize("block", TOML_BLOCKS, ids=[f"toml-{i}" for i in range(len(TOML_BLOCKS))])
def test_every_policy_the_readme_shows_is_valid(block: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = _env(tmp_path, block, monkeypatch)
    result = CliRunner().invoke(main, ["policy", "check", "--project", str(project)])
    assert result.exit_code == 0, result.output


def test_the_policy_test_the_readme_shows_is_what_it_prints(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shown = re.search(r"```text\n\$ pasture policy test -- (.*?)\n(.*?)```", README, re.S)
    assert shown, "the README lost its `pasture policy test` example"
    commands = re.findall(r"'([^']*)'", shown.group(1))
    project = _env(tmp_path, 'packs = ["recommended"]\n', monkeypatch)
    monkeypatch.chdir(project)
    result = CliRunner().invoke(main, ["policy", "test", "--", *commands])
    assert result.output == shown.group(2)
