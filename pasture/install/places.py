"""Where an adapter goes (:class:`Target`), the host folders the environment picks, and the version and
contract helpers every host shares. Host-neutral: it never imports the host registry, so a host module
(``pasture/hosts/<host>.py``) may use it."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping

from pasture import PastureError
from pasture.profile.versions import HostVersion, VersionError


class TargetError(PastureError, ValueError):
    """A usage or input problem: nothing was written."""


@dataclass(frozen=True)
class Target:
    harness: str
    scope: str  # "project" | "user"
    file: Path  # the file we merge into or write
    stop: Path  # empty folders are pruned on uninstall up to (not including) this one
    host_home: Path | None = None  # the host's user folder its trust step writes to (codex: $CODEX_HOME)
    project: Path | None = None  # project scope: the project folder


def home(env: Mapping[str, str]) -> Path:
    value = env.get("HOME")
    return Path(value) if value else Path.home()


def env_dir(env: Mapping[str, str], variable: str, default: Path) -> Path:
    """``$variable`` (``~`` expanded, resolved) when set, else ``default``."""
    value = env.get(variable)
    return Path(value).expanduser().resolve() if value else default


def xdg_config(env: Mapping[str, str]) -> Path:
    """An absolute ``$XDG_CONFIG_HOME``, else ``~/.config`` (a relative value is ignored, as the spec says)."""
    value = env.get("XDG_CONFIG_HOME")
    return Path(value).expanduser() if value and Path(value).is_absolute() else home(env) / ".config"


def project_folder(project: Path) -> Path:
    """``--project DIR`` resolved; refused when it is not a folder."""
    project = project.resolve()
    if not project.is_dir():
        raise TargetError(f"--project {project}: no such folder")
    return project


# --- contracts ------------------------------------------------------------------------------------

_ID = re.compile(r"(?P<harness>[a-z][a-z0-9-]*)@(?P<version>\S+)")


def contract_ids(root: Path, harness: str) -> list[tuple[HostVersion, str]]:
    """(version, id) of every profile folder of ``harness``, oldest first."""
    found = []
    profiles = root / "profiles"
    if not profiles.is_dir():
        raise TargetError(f"no profiles/ folder under {root}; pass --root DIR (the pasture project)")
    for folder in profiles.iterdir():
        match = _ID.fullmatch(folder.name)
        if not folder.is_dir() or match is None or match["harness"] != harness:
            continue
        try:
            found.append((HostVersion.parse(match["version"]), folder.name))
        except VersionError:
            continue
    return sorted(found)


def version_of(
    name: str,
    binary: str | None,
    env: Mapping[str, str],
    timeout: float = 20.0,
    quiet: Callable[[str], Mapping[str, str]] | None = None,
) -> tuple[HostVersion | None, str]:
    """(version, what was run/seen) of a host CLI (``binary``, else ``name`` on PATH); None when it cannot be told.

    ``quiet`` is the host's ``version_env``: what its ``--version`` needs to answer offline (no update check),
    its folders below a throwaway home that is removed afterwards, so asking the version writes nothing of
    the user's."""
    path = binary or shutil.which(name, path=env.get("PATH", os.defpath))
    if not path:
        return None, f"{name} is not on PATH"
    try:
        with tempfile.TemporaryDirectory(prefix="pasture-version-") as home:
            proc = subprocess.run(
                [path, "--version"],
                capture_output=True,
                text=True,
                timeout=timeout,
                env={**env, "NO_COLOR": "1", **(quiet(home) if quiet else {})},
                stdin=subprocess.DEVNULL,
                check=False,
            )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"`{path} --version` failed: {exc}"
    match = re.search(r"\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?", proc.stdout + " " + proc.stderr)
    if proc.returncode != 0 or match is None:
        return None, f"`{path} --version` gave no version (exit {proc.returncode})"
    try:
        return HostVersion.parse(match.group(0)), f"`{path} --version` says {match.group(0)}"
    except VersionError:
        return None, f"`{path} --version` gave no semantic version ({match.group(0)!r})"


def highest_floor(
    harness: str, available: list[tuple[HostVersion, str]], version: HostVersion | None, seen: str
) -> tuple[str, str]:
    """The contract the runtime itself would resolve for ``version``: the admitting floor with the highest
    minimum (every profile admission is a floor at its id's version); the newest when the version is unknown."""
    ids = [cid for _v, cid in available]
    if version is None:
        return available[-1][1], f"{seen}: the newest {harness} contract; choose another with --contract"
    admitting = [cid for v, cid in available if v <= version and not version.is_prerelease]
    if not admitting:
        raise TargetError(
            f"{seen}; no {harness} contract admits it (known: {', '.join(ids)}); run "
            f"`pasture capture {harness}` and `pasture profile new ...`, or pass --contract ID"
        )
    return admitting[-1], f"{seen}: the contract that admits it with the highest floor"


@dataclass
class Installation:
    """One installation of a host's adapter as found at a target (doctor reads it; install asks whether one
    is there): the file's text and, for a JSON hooks file, its document."""

    harness: str
    target: Target
    text: str
    document: dict[str, Any] | None  # a JSON hooks file: the parsed document
    contract: str | None = None  # the contract it was installed from (None: more than one, or unreadable)
