"""Codex's user folder: ``$CODEX_HOME``, else ``~/.codex`` (its install, doctor and sandbox code share it)."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

from pasture.install.places import env_dir, home


def codex_home(env: Mapping[str, str]) -> Path:
    return env_dir(env, "CODEX_HOME", home(env) / ".codex")
