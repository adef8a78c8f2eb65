from __future__ import annotations

import shutil
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from pasture.cli.host import HOST_COMMANDS
from pasture.hostenv import isolation_support

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session", autouse=True)
def _isolation_probed_with_the_real_path() -> None:
    """isolation_support() caches its answer: probe it before any test narrows PATH."""
    isolation_support()


@pytest.fixture
def no_hosts_on_path() -> dict[str, str]:
    """An environment whose PATH finds no host CLI (and names none through PASTURE_*_BIN)."""
    import os
    import shutil as sh

    from pasture.hosts import HOSTS

    dirs = [
        d
        for d in os.environ.get("PATH", "").split(os.pathsep)
        if d and not any(sh.which(h.binary, path=d) for h in HOSTS.values())
    ]
    return {"PATH": os.pathsep.join(dirs), **{h.binary_env: "" for h in HOSTS.values()}}


@click.group()
@click.option("--root", default=None)
@click.pass_context
def _pasture(ctx: click.Context, root: str | None) -> None:
    """Stand-in for the `pasture` group, so the commands are tested exactly as they will be registered."""
    ctx.ensure_object(dict)
    ctx.obj["root"] = Path(root) if root else None


for _command in HOST_COMMANDS:
    _pasture.add_command(_command)


@pytest.fixture
def pasture():
    """Run `pasture ARGS...` with the new-host-version commands; returns the click Result."""

    def run(*args: str, env: dict[str, str] | None = None):
        return CliRunner().invoke(_pasture, [str(a) for a in args], catch_exceptions=False, env=env)

    return run


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A throwaway project holding a copy of the committed profiles and the captures they cite (no git)."""
    root = tmp_path / "project"
    root.mkdir()
    shutil.copytree(REPO / "profiles", root / "profiles")
    shutil.copytree(REPO / "captures", root / "captures")
    return root
