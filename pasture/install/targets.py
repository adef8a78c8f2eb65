"""Where each host reads its adapter, and which contract to install.

| harness     | --project DIR                            | --user                                              |
|-------------|------------------------------------------|-----------------------------------------------------|
| claude-code | DIR/.claude/settings.json (merged)       | $CLAUDE_CONFIG_DIR or ~/.claude, settings.json      |
| codex       | DIR/.codex/hooks.json (merged)           | $CODEX_HOME or ~/.codex, hooks.json                 |
| opencode    | DIR/.opencode/plugins/pasture-lifecycle.ts | $XDG_CONFIG_HOME or ~/.config, opencode/plugins/… |

Codex trust always lives in the user config: ``$CODEX_HOME/config.toml``.

Contract choice: ``--contract ID`` if given; otherwise, for Claude Code and Codex, the contract that admits
the installed version (``<bin> --version``) with the highest floor, or the newest when no binary answers. For
OpenCode, whose 1.x and 2.x plugin APIs are incompatible, the installed host decides: if
``opencode --version`` answers, the newest contract of that major version; if it does not, the
newest 1.x contract (said so in the report).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from pasture import PastureError
from pasture.hosts import NAMES as HARNESSES  # noqa: F401  (re-exported: the host registry)
from pasture.profile.versions import HostVersion, VersionError


class TargetError(PastureError, ValueError):
    """A usage or input problem: nothing was written."""


@dataclass(frozen=True)
class Target:
    harness: str
    scope: str  # "project" | "user"
    file: Path  # the file we merge into or write
    stop: Path  # empty folders are pruned on uninstall up to (not including) this one
    codex_home: Path | None = None  # codex: where config.toml (trust) lives
    project: Path | None = None  # project scope: the project folder


def home(env: Mapping[str, str]) -> Path:
    value = env.get("HOME")
    return Path(value) if value else Path.home()


def codex_home(env: Mapping[str, str]) -> Path:
    value = env.get("CODEX_HOME")
    return Path(value).expanduser().resolve() if value else home(env) / ".codex"


def claude_user_dir(env: Mapping[str, str]) -> Path:
    value = env.get("CLAUDE_CONFIG_DIR")
    return Path(value).expanduser().resolve() if value else home(env) / ".claude"


def opencode_user_dir(env: Mapping[str, str]) -> Path:
    value = env.get("XDG_CONFIG_HOME")
    base = Path(value).expanduser() if value and Path(value).is_absolute() else home(env) / ".config"
    return base / "opencode"


def target_for(harness: str, project: Path | None, env: Mapping[str, str]) -> Target:
    """The target for ``harness``: project scope when ``project`` is a folder, user scope when None."""
    from pasture.hosts.opencode import PLUGIN_FILE  # imported here: it brings in jinja2

    if project is not None:
        project = project.resolve()
        if not project.is_dir():
            raise TargetError(f"--project {project}: no such folder")
        if harness == "claude-code":
            return Target(harness, "project", project / ".claude" / "settings.json", project, project=project)
        if harness == "codex":
            return Target(
                harness,
                "project",
                project / ".codex" / "hooks.json",
                project,
                codex_home=codex_home(env),
                project=project,
            )
        return Target(harness, "project", project / ".opencode" / "plugins" / PLUGIN_FILE, project, project=project)
    if harness == "claude-code":
        folder = claude_user_dir(env)
        return Target(harness, "user", folder / "settings.json", folder.parent)
    if harness == "codex":
        folder = codex_home(env)
        return Target(harness, "user", folder / "hooks.json", folder.parent, codex_home=folder)
    folder = opencode_user_dir(env)
    return Target(harness, "user", folder / "plugins" / PLUGIN_FILE, folder.parent)


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


_BINARY = {"claude-code": "claude", "codex": "codex", "opencode": "opencode"}


def detect_host_version(
    harness: str, binary: str | None, env: Mapping[str, str], timeout: float = 20.0
) -> tuple[HostVersion | None, str]:
    """(version, what was run/seen) of the installed host CLI; None when it cannot be told."""
    name = _BINARY[harness]
    path = binary or shutil.which(name, path=env.get("PATH", os.defpath))
    if not path:
        return None, f"{name} is not on PATH"
    quiet = {**env, "OPENCODE_DISABLE_AUTOUPDATE": "1", "NO_COLOR": "1", "DISABLE_AUTOUPDATER": "1"}
    try:
        proc = subprocess.run(
            [path, "--version"],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=quiet,
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


def detect_opencode_major(binary: str | None, env: Mapping[str, str], timeout: float = 20.0) -> tuple[int | None, str]:
    """(major version, what was run/seen) of the installed OpenCode; None when it cannot be told."""
    version, seen = detect_host_version("opencode", binary, env, timeout)
    return (None if version is None else version.major), seen


def choose_contract(
    root: Path,
    harness: str,
    explicit: str | None,
    env: Mapping[str, str],
    opencode_bin: str | None = None,
    codex_bin: str | None = None,
) -> tuple[str, str]:
    """(contract id, why it was chosen).

    With the host's version known, the contract the runtime itself would resolve for it: the
    admitting floor with the highest minimum (every profile admission is a floor at its id's
    version). Without it, the newest contract (OpenCode: by detected major, else 1.x).
    """
    available = contract_ids(root, harness)
    ids = [cid for _v, cid in available]
    if explicit:
        if explicit not in ids:
            raise TargetError(f"no {harness} contract {explicit!r}; known: {', '.join(ids) or 'none'}")
        return explicit, "chosen with --contract"
    if not available:
        raise TargetError(f"profiles/ under {root} holds no {harness} contract")
    if harness != "opencode":
        version, seen = detect_host_version(harness, codex_bin if harness == "codex" else None, env)
        if version is None:
            return available[-1][1], f"{seen}: the newest {harness} contract; choose another with --contract"
        admitting = [cid for v, cid in available if v <= version and not version.is_prerelease]
        if not admitting:
            raise TargetError(
                f"{seen}; no {harness} contract admits it (known: {', '.join(ids)}); run "
                f"`pasture capture {harness}` and `pasture profile new ...`, or pass --contract ID"
            )
        return admitting[-1], f"{seen}: the contract that admits it with the highest floor"
    major, seen = detect_opencode_major(opencode_bin, env)
    wanted = major if major is not None else 1
    matching = [cid for v, cid in available if v.major == wanted]
    if not matching:
        raise TargetError(f"{seen}; no OpenCode {wanted}.x contract (known: {', '.join(ids)}); pass --contract ID")
    if major is None:
        return matching[-1], f"{seen}: assuming OpenCode 1.x, the newest 1.x contract; choose another with --contract"
    return matching[-1], f"{seen}: the newest OpenCode {major}.x contract"
