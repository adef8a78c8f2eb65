"""Install the pinned real hosts from ``tests/npm/`` into a content-addressed cache.

``ensure_npm_tools(project_root)`` runs ``npm ci`` for the committed lockfile into
``<project_root>/.cache/npm/<sha256(package-lock.json)[:16]>/`` and returns that folder's
``node_modules/.bin``. The install is built in a private staging folder and renamed into place
only once it is complete and every host binary answers ``--version`` with its pinned version, so a
concurrent or interrupted install never leaves a half-installed folder at the final path. A file
lock serialises installers of the same lockfile.

Install scripts are *not* run blindly (``npm ci --ignore-scripts``): the only two the hosts need
are run explicitly (:data:`POSTINSTALL_STEPS`), which keeps native-addon builds of unrelated
dependencies (``msgpackr-extract``) and any future script out of the picture.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from pasture import PastureError
from pasture.hosts import HOSTS

__all__ = [
    "HOST_PACKAGES",
    "NpmInstallError",
    "NpmUnavailable",
    "POSTINSTALL_STEPS",
    "HostTool",
    "binary_version",
    "ensure_npm_tools",
    "host_binary",
    "host_version",
    "installed_hosts",
    "lockfile_digest",
    "npm_available",
    "pinned_versions",
]

#: Where the committed npm manifest and lockfile live, relative to the project root.
NPM_DIR = Path("tests") / "npm"
#: Where installs are cached, relative to the project root.
CACHE_DIR = Path(".cache") / "npm"
#: Written (atomically) inside a finished install; its content is the lockfile digest.
MARKER = ".pasture-npm-installed"

#: host name -> (npm package, binary name in node_modules/.bin): each host's first ``npm_packages`` and ``binary``
HOST_PACKAGES: dict[str, tuple[str, str]] = {name: (h.npm_packages[0], h.binary) for name, h in HOSTS.items()}

#: Install scripts that must run for the hosts to work (each copies the platform's native binary
#: over a placeholder ``bin/*.exe``): (package folder under node_modules, argv run there); each host's
#: ``npm_postinstall``.
POSTINSTALL_STEPS: tuple[tuple[str, tuple[str, ...]], ...] = tuple(
    step for h in HOSTS.values() for step in h.npm_postinstall
)

_VERSION_RE = re.compile(r"(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)")


class NpmUnavailable(PastureError, RuntimeError):
    """npm (or node) is not on PATH: the real-host tests cannot run here."""


class NpmInstallError(PastureError, RuntimeError):
    """npm is present but installing the pinned tools failed."""


@dataclass(frozen=True)
class HostTool:
    """One installed host binary."""

    host: str
    package: str
    path: Path
    pinned: str


def npm_available() -> bool:
    """True if both ``npm`` and ``node`` are on PATH."""
    return shutil.which("npm") is not None and shutil.which("node") is not None


def _npm_dir(project_root: Path) -> Path:
    return Path(project_root) / NPM_DIR


def lockfile_digest(project_root: str | os.PathLike[str]) -> str:
    """First 16 hex digits of the sha256 of ``tests/npm/package-lock.json``."""
    data = (_npm_dir(Path(project_root)) / "package-lock.json").read_bytes()
    return hashlib.sha256(data).hexdigest()[:16]


def pinned_versions(project_root: str | os.PathLike[str]) -> dict[str, str]:
    """The exact versions ``tests/npm/package.json`` pins, by npm package name."""
    manifest = json.loads((_npm_dir(Path(project_root)) / "package.json").read_text())
    return dict(manifest.get("dependencies", {}))


def _run(argv: list[str], cwd: Path, log: Path, timeout: float) -> None:
    with log.open("ab") as out:
        out.write(f"\n$ {' '.join(argv)}  (in {cwd})\n".encode())
        out.flush()
        try:
            proc = subprocess.run(
                argv,
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise NpmInstallError(f"{argv[:2]} timed out after {timeout:.0f}s; log: {log}") from exc
    if proc.returncode != 0:
        tail = log.read_text(errors="replace")[-4000:]
        raise NpmInstallError(f"{' '.join(argv)} failed (exit {proc.returncode}) in {cwd}:\n{tail}")


def _check_install(node_modules: Path, pins: dict[str, str]) -> None:
    for host, (package, binary) in HOST_PACKAGES.items():
        path = node_modules / ".bin" / binary
        found = host_version(host, path.parent)
        want = pins.get(package)
        if want is not None and found != want:
            raise NpmInstallError(f"{path} reports version {found!r}, lockfile pins {want!r}")


def ensure_npm_tools(
    project_root: str | os.PathLike[str],
    *,
    timeout: float = 900.0,
    prune: bool = True,
) -> Path:
    """Install (once) the pinned npm tools and return the ``node_modules/.bin`` folder.

    Raises :class:`NpmUnavailable` when npm/node are missing (callers in tests turn that into a
    skip) and :class:`NpmInstallError` when the install itself fails.
    """
    root = Path(project_root).resolve()
    src = _npm_dir(root)
    if not (src / "package-lock.json").is_file():
        raise NpmInstallError(f"no lockfile at {src / 'package-lock.json'}")
    if not npm_available():
        raise NpmUnavailable("npm and node must be on PATH to install the real hosts")

    digest = lockfile_digest(root)
    cache = root / CACHE_DIR
    final = cache / digest
    bin_dir = final / "node_modules" / ".bin"
    if _is_complete(final, digest):
        _touch(final)
        return bin_dir

    cache.mkdir(parents=True, exist_ok=True)
    with (cache / f"{digest}.lock").open("a+") as lock_fh:
        fcntl.flock(lock_fh, fcntl.LOCK_EX)  # blocks while another process installs this lockfile
        try:
            if _is_complete(final, digest):
                return bin_dir
            stage = Path(tempfile.mkdtemp(prefix=f"{digest}.staging-", dir=cache))
            try:
                _install_into(stage, src, digest, timeout)
                if final.exists():  # leftover of an older, unfinished scheme: replace it
                    shutil.rmtree(final)
                os.rename(stage, final)
            except BaseException:
                shutil.rmtree(stage, ignore_errors=True)
                raise
        finally:
            fcntl.flock(lock_fh, fcntl.LOCK_UN)
    if prune:
        _prune_stale(cache, keep=digest)
    return bin_dir


#: An install of another lockfile is pruned only when unused for this long: several checkouts (git
#: worktrees, branches with other pins) share one cache, and an install in use must never vanish.
STALE_AFTER = 7 * 24 * 3600


def _touch(folder: Path) -> None:
    """Record that the install is in use (the marker's mtime)."""
    try:
        os.utime(folder / MARKER)
    except OSError:
        pass


def _is_complete(folder: Path, digest: str) -> bool:
    try:
        return (folder / MARKER).read_text().strip() == digest
    except OSError:
        return False


def _install_into(stage: Path, src: Path, digest: str, timeout: float) -> None:
    for name in ("package.json", "package-lock.json"):
        shutil.copy2(src / name, stage / name)
    log = stage / "install.log"
    started = time.monotonic()
    _run(
        ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=warn"],
        stage,
        log,
        timeout,
    )
    for package, argv in POSTINSTALL_STEPS:
        remaining = max(30.0, timeout - (time.monotonic() - started))
        _run(list(argv), stage / "node_modules" / package, log, remaining)
    pins = json.loads((stage / "package.json").read_text()).get("dependencies", {})
    _check_install(stage / "node_modules", pins)
    tmp_marker = stage / f"{MARKER}.tmp"
    tmp_marker.write_text(digest + "\n")
    os.replace(tmp_marker, stage / MARKER)


def _prune_stale(cache: Path, keep: str) -> None:
    """Remove installs of other lockfiles unused for :data:`STALE_AFTER`, and staging folders of dead processes."""
    for entry in cache.iterdir():
        if entry.name.startswith(keep) or not entry.is_dir():
            continue
        if ".staging-" in entry.name:
            if time.time() - entry.stat().st_mtime < 3600:
                continue  # may still be in use by a concurrent installer
        elif not (entry / MARKER).exists():
            continue
        elif time.time() - (entry / MARKER).stat().st_mtime < STALE_AFTER:
            continue  # used recently, perhaps by another checkout sharing this cache
        lock = cache / f"{entry.name.split('.')[0]}.lock"
        try:
            with lock.open("a+") as fh:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                shutil.rmtree(entry, ignore_errors=True)
        except OSError:
            continue


def host_binary(host: str, bin_dir: str | os.PathLike[str]) -> Path:
    """Path of a host's binary (``claude-code``, ``codex``, ``opencode``, ``gemini-cli``, ``copilot-cli``, ``pi``)
    in ``bin_dir``."""
    try:
        _, binary = HOST_PACKAGES[host]
    except KeyError:
        raise ValueError(f"unknown host {host!r}; expected one of {sorted(HOST_PACKAGES)}") from None
    path = Path(bin_dir) / binary
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist (was ensure_npm_tools run?)")
    return path


def host_version(host: str, bin_dir: str | os.PathLike[str], *, timeout: float = 60.0) -> str:
    """Run ``<binary> --version`` in a throwaway HOME and return the ``X.Y.Z`` it prints."""
    return binary_version(host_binary(host, bin_dir), timeout=timeout)


def binary_version(path: str | os.PathLike[str], *, timeout: float = 60.0, wrapper: tuple[str, ...] = ()) -> str:
    """Run ``<path> --version`` (any host binary, wherever it lives) in a throwaway HOME.

    ``wrapper`` is prepended to the command line (e.g. ``isolation_support().wrapper``, so not even
    a version check can reach the network). Returns the ``X.Y.Z`` it prints; raises
    :class:`NpmInstallError` when it fails or prints none (and ``subprocess.TimeoutExpired`` /
    ``OSError`` when it hangs or cannot be started).
    """
    path = Path(path)
    with tempfile.TemporaryDirectory(prefix="pasture-version-") as home:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": home,
            "TMPDIR": home,
            "XDG_CONFIG_HOME": f"{home}/.config",
            "XDG_DATA_HOME": f"{home}/.local/share",
            "XDG_CACHE_HOME": f"{home}/.cache",
            "XDG_STATE_HOME": f"{home}/.local/state",
        }
        for host in HOSTS.values():  # any host's binary may be asked: every host's offline switches
            env.update(host.version_env(home))
        proc = subprocess.run(
            [*wrapper, str(path), "--version"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            cwd=home,
            check=False,
        )
    match = _VERSION_RE.search(proc.stdout) or _VERSION_RE.search(proc.stderr)
    if proc.returncode != 0 or match is None:
        raise NpmInstallError(f"{path} --version failed (exit {proc.returncode}): {proc.stdout!r} {proc.stderr!r}")
    return match.group(1)


def installed_hosts(project_root: str | os.PathLike[str], bin_dir: str | os.PathLike[str]) -> dict[str, HostTool]:
    """Every host binary in ``bin_dir`` with the version the lockfile pins for it."""
    pins = pinned_versions(project_root)
    return {
        host: HostTool(host, package, host_binary(host, bin_dir), pins.get(package, ""))
        for host, (package, _binary) in HOST_PACKAGES.items()
    }
