"""Profiles loaded as the command line loads them: with every registered host (``pasture.hosts.HOSTS``,
which the loader is handed: pasture.profile never imports the registry)."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from pasture.hosts import HOSTS
from pasture.profile import loader
from pasture.profile.contracts import Contract


def load_project(root: Path, only: Iterable[str] | None = None, cited: set[str] | None = None) -> list[Contract]:
    return loader.load_project(root, only, cited, hosts=HOSTS)
