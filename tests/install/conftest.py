"""Fixtures for install tests: a private HOME (the real ~/.claude, ~/.codex, ~/.config are never
named), a `pasture` runner with install/uninstall registered, and the pinned real codex."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from pasture.cli.install import install, uninstall
from pasture.hosts import HOSTS
from pasture.install.adapter import load_adapter
from pasture.install.hooktable import render, with_binary
from pasture.install.launcher import launcher_path, shell_word

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def private_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """HOME in tmp; no CODEX_HOME/CLAUDE_CONFIG_DIR/XDG_CONFIG_HOME; a PATH without any host binary."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in (
        "CODEX_HOME",
        "CLAUDE_CONFIG_DIR",
        "XDG_CONFIG_HOME",
        "XDG_DATA_HOME",
        "XDG_STATE_HOME",
        "XDG_CACHE_HOME",
        "PASTURE_BIN",
        "PASTURE_POLICY",
        "PASTURE_TRUST_STORE",
        "PASTURE_JOURNAL",
        "PASTURE_CACHE_DIR",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PASTURE_MANAGED_POLICY", str(tmp_path / "no-managed-policy.toml"))  # never /etc/pasture
    monkeypatch.setenv("PATH", os.pathsep.join([str(Path(sys.executable).parent), "/usr/bin", "/bin"]))
    return home


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


_group = click.Group("pasture", commands={"install": install, "uninstall": uninstall})


class Run:
    def __init__(self, result: click.testing.Result) -> None:
        self.result = result
        self.code = result.exit_code
        self.stdout = result.stdout
        self.stderr = result.stderr
        self.output = result.output

    def json(self) -> dict[str, Any]:
        return json.loads(self.stdout)

    def __repr__(self) -> str:
        return f"<exit {self.code}\nstdout:\n{self.stdout}\nstderr:\n{self.stderr}>"


@pytest.fixture
def pasture():
    """pasture("install", "codex", ...) -> Run (exit code, stdout, stderr); --root is this checkout."""

    def run(*args: str, env: dict[str, str] | None = None) -> Run:
        argv = list(args)
        if argv and argv[0] == "install" and "--root" not in argv:
            argv += ["--root", str(REPO)]
        result = CliRunner().invoke(_group, argv, env=env, catch_exceptions=False)
        return Run(result)

    return run


_ADAPTERS: dict[str, str] = {}


def generated_text(contract: str) -> str:
    """The adapter text `pasture generate` writes for ``contract`` (rendered from the profile)."""
    if contract not in _ADAPTERS:
        _ADAPTERS[contract] = load_adapter(REPO, contract, HOSTS[contract.split("@")[0]]).artifact.text
    return _ADAPTERS[contract]


def installed_text(contract: str, env: dict[str, str] | None = None) -> str:
    """What `pasture install` writes into an empty target: the generated text with the launcher it
    records for this HOME/XDG_DATA_HOME in place of the default `pasture` (the plugin: unchanged)."""
    text = generated_text(contract)
    if contract.startswith("opencode@"):
        return text
    word = shell_word(launcher_path(dict(os.environ) if env is None else env))
    return render(with_binary(json.loads(text), word), None)


class _Installed(dict):
    """contract/file -> what `pasture install` writes for it into an empty target, for this HOME."""

    def __missing__(self, key: str) -> str:
        return installed_text(key.split("/", 1)[0])


@pytest.fixture
def generated(private_home: Path) -> dict[str, str]:
    return _Installed()
