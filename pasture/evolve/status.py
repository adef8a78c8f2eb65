"""`pasture host status`: which host CLIs are installed, their versions, and the contract each resolves to.

Where a host binary is looked for, in this order (every distinct binary found is reported):

1. the command-line flag (``--claude-bin``, ``--codex-bin``, ``--opencode-bin``);
2. the environment (``PASTURE_CLAUDE_BIN``, ``PASTURE_CODEX_BIN``, ``PASTURE_OPENCODE_BIN``);
3. ``PATH`` (``claude``, ``codex``, ``opencode``);
4. the project's npm cache of the pinned test hosts (``.cache/npm/<lockfile digest>/node_modules/.bin``),
   when ``ensure_npm_tools`` has installed it (this command never installs anything).

Versions come from ``<binary> --version`` in a throwaway HOME, inside a network namespace where
available. Resolution is the hook runtime's rule (:func:`pasture.runtime.tables.resolve`): among the
contracts whose admission allows the version, the one with the highest minimum wins.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from pasture.hostenv import isolation_support
from pasture.hostenv.npm_tools import (
    CACHE_DIR,
    HOST_PACKAGES,
    MARKER,
    NpmInstallError,
    binary_version,
    lockfile_digest,
)
from pasture.hosts import HOSTS
from pasture.profile.contracts import Contract
from pasture.profile.versions import HostVersion, VersionError

#: harness -> (binary name, flag, environment variable)
HOST_BINARIES: dict[str, tuple[str, str, str]] = {
    h.name: (h.binary, h.binary_flag, h.binary_env) for h in HOSTS.values()
}


@dataclass
class FoundHost:
    harness: str
    path: Path
    source: str
    version: str | None = None
    error: str | None = None


@dataclass
class Resolution:
    winner: Contract | None
    others: list[Contract] = field(default_factory=list)  # also admitting, lower minimum


def npm_cache_bin(root: Path) -> Path | None:
    """The installed npm cache's .bin folder for the committed lockfile, if complete (never installs)."""
    try:
        digest = lockfile_digest(root)
    except OSError:
        return None
    folder = Path(root) / CACHE_DIR / digest
    try:
        if (folder / MARKER).read_text().strip() != digest:
            return None
    except OSError:
        return None
    return folder / "node_modules" / ".bin"


def candidates(
    harness: str, root: Path, explicit: Path | None = None, env: Mapping[str, str] | None = None
) -> list[tuple[Path, str]]:
    """Every place a binary for ``harness`` was found, (path, how), without duplicates."""
    env = os.environ if env is None else env
    name, flag, var = HOST_BINARIES[harness]
    found: list[tuple[Path, str]] = []
    if explicit is not None:
        found.append((Path(explicit), flag))
    if env.get(var):
        found.append((Path(env[var]), f"${var}"))
    on_path = shutil.which(name, path=env.get("PATH"))
    if on_path:
        found.append((Path(on_path), "PATH"))
    cache = npm_cache_bin(root)
    if cache is not None and (cache / name).exists():
        found.append((cache / name, "npm cache"))
    out: list[tuple[Path, str]] = []
    seen: set[str] = set()
    for path, how in found:
        key = os.path.realpath(path)
        if key not in seen:
            seen.add(key)
            out.append((path.absolute(), how))
    return out


def read_host(harness: str, path: Path, source: str, timeout: float = 60.0) -> FoundHost:
    host = FoundHost(harness, path, source)
    if not path.exists():
        host.error = f"{path} does not exist"
    elif not os.access(path, os.X_OK):
        host.error = f"{path} is not executable"
    else:
        try:
            host.version = binary_version(path, timeout=timeout, wrapper=isolation_support().wrapper)
        except subprocess.TimeoutExpired:
            host.error = f"{path} --version did not answer within {timeout:g}s"
        except (OSError, NpmInstallError) as exc:
            host.error = f"cannot read its version: {exc}"
    return host


def resolve(contracts: list[Contract], harness: str, version: str) -> Resolution:
    """The hook runtime's rule: the admitting contract with the highest minimum wins."""
    try:
        parsed = HostVersion.parse(version)
    except VersionError:
        return Resolution(None)
    admitting = [c for c in contracts if c.harness.value == harness and c.admission.allows(parsed)]
    winner = None
    for contract in admitting:  # load order, strict '>' for ties: as pasture/runtime/tables.py
        if winner is None or contract.admission.minimum > winner.admission.minimum:
            winner = contract
    return Resolution(winner, [c for c in admitting if c is not winner])


def closest_contract(contracts: list[Contract], harness: str, version: str) -> Contract | None:
    """The contract to start a new profile from: the newest one recorded below ``version``, else the oldest."""
    own = sorted((c for c in contracts if c.harness.value == harness), key=lambda c: c.version)
    if not own:
        return None
    try:
        parsed = HostVersion.parse(version)
    except VersionError:
        return own[-1]
    below = [c for c in own if c.version < parsed]
    return below[-1] if below else own[0]


def describe(host: FoundHost, contracts: list[Contract], root: Path, captures: Path) -> dict[str, Any]:
    """One host's status as a JSON-ready dict (the text output is rendered from it)."""
    entry: dict[str, Any] = {
        "harness": host.harness,
        "binary": str(host.path),
        "found_by": host.source,
        "version": host.version,
        "error": host.error,
        "contract": None,
        "admission": None,
        "recorded_on": None,
        "also_admitted_by": [],
        "capture": None,
        "advice": None,
    }
    if host.version is None:
        entry["advice"] = (
            f"point pasture at a working binary with {HOST_BINARIES[host.harness][1]} PATH or "
            f"${HOST_BINARIES[host.harness][2]}"
        )
        return entry
    capture_dir = captures / f"{host.harness}@{host.version}"
    if capture_dir.is_dir():
        entry["capture"] = _rel(capture_dir, root)
    resolution = resolve(contracts, host.harness, host.version)
    target = f"{host.harness}@{host.version}"
    base = closest_contract(contracts, host.harness, host.version)
    new_profile = (
        f"pasture profile new {host.harness} {host.version} --from {base.id if base else '<contract>'} "
        f"--capture {_rel(capture_dir, root)}"
    )
    capture_cmd = f"pasture capture {host.harness} --host-bin {host.path}"
    if resolution.winner is None:
        own = [c for c in contracts if c.harness.value == host.harness]
        table = "; ".join(f"{c.id} admits {c.admission.describe()}" for c in own) or "no contract for this harness"
        steps = [] if capture_dir.is_dir() else [capture_cmd]
        steps.append(new_profile)
        entry["advice"] = (
            f"no pinned contract admits {host.harness} {host.version} ({table}). To pin one: "
            + ", then ".join(f"`{s}`" for s in steps)
            + ", review it, then `pasture generate`."
        )
        return entry
    winner = resolution.winner
    entry.update(
        contract=winner.id,
        admission=winner.admission.describe(),
        recorded_on=str(winner.version),
        also_admitted_by=[{"contract": c.id, "admission": c.admission.describe()} for c in resolution.others],
    )
    if str(winner.version) != host.version and not (root / "profiles" / target).is_dir():
        if capture_dir.is_dir():
            entry["advice"] = (
                f"admitted through {winner.id}, recorded on {winner.version}; a capture of "
                f"{host.version} exists: `{new_profile}` pins this version on its evidence."
            )
        else:
            entry["advice"] = (
                f"admitted through {winner.id}, recorded on {winner.version}, not on "
                f"{host.version}: `{capture_cmd}` then `{new_profile}` pins it on evidence."
            )
    return entry


def latest(contracts: list[Contract], lookup: Callable[[str], str | None] | None = None) -> list[dict[str, Any]]:
    """Per harness: the registry's newest version, the newest profile, and whether a bump is due.

    ``lookup(package) -> version`` asks the registry (default: ``npm view <package> version``)."""
    from pasture.catalog.packages import HOST_NPM, npm_latest

    lookup = lookup or npm_latest
    out = []
    for harness, packages in HOST_NPM.items():
        own = sorted((c for c in contracts if c.harness.value == harness), key=lambda c: c.version)
        newest = own[-1] if own else None
        version = lookup(packages[0])
        try:
            newer = newest is None or HostVersion.parse(version) > newest.version
        except VersionError:
            newer = False
        out.append(
            {
                "harness": harness,
                "package": packages[0],
                "latest": version,
                "newest_profile": newest.id if newest else None,
                "newer": newer,
                "advice": f"pasture bump {harness}" if newer else None,
            }
        )
    return out


def render_latest(entries: list[dict[str, Any]]) -> str:
    lines = []
    for e in entries:
        state = (
            f"NEWER than every profile (newest: {e['newest_profile'] or 'none'}): run `{e['advice']}`"
            if e["newer"]
            else f"pinned (newest profile {e['newest_profile']})"
        )
        lines.append(f"{e['harness']}: npm {e['package']} latest {e['latest']}: {state}")
    return "\n".join(lines) + "\n"


def render_text(entries: list[dict[str, Any]], missing: list[str]) -> str:
    lines = []
    for e in entries:
        head = f"{e['harness']} {e['version'] or '?'}  {e['binary']}  (found by {e['found_by']})"
        lines.append(head)
        if e["error"]:
            lines.append(f"  error: {e['error']}")
        elif e["contract"]:
            lines.append(f"  contract: {e['contract']} (admits {e['admission']}; recorded on {e['recorded_on']})")
            for other in e["also_admitted_by"]:
                lines.append(f"  also admitted by {other['contract']} ({other['admission']}); the higher minimum wins")
        else:
            lines.append("  contract: none")
        if e["capture"]:
            lines.append(f"  capture: {e['capture']}")
        if e["advice"]:
            lines.append(f"  next: {e['advice']}")
    for harness in missing:
        name, flag, var = HOST_BINARIES[harness]
        lines.append(f"{harness}: not found (looked at {flag}, ${var}, PATH for '{name}', and the npm cache)")
    return "\n".join(lines) + "\n"


def _rel(path: Path, root: Path) -> str:
    try:
        return Path(path).resolve().relative_to(Path(root).resolve()).as_posix()
    except ValueError:
        return str(path)


__all__ = [
    "HOST_BINARIES",
    "HOST_PACKAGES",
    "FoundHost",
    "Resolution",
    "candidates",
    "closest_contract",
    "describe",
    "npm_cache_bin",
    "read_host",
    "render_text",
    "resolve",
]
