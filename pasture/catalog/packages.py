"""Where a host version's own files are: an npm install of its packages, found or made.

* :func:`node_modules_of` walks up from a host binary (``node_modules/.bin/claude``) to the
  ``node_modules`` folder it was installed into.
* :func:`install_host` installs exactly one host version (its CLI package, and for OpenCode the
  plugin typings of the same version) into ``<root>/.cache/npm/hosts/<harness>@<version>/`` with
  the project's ordinary ``npm`` client, the registry being the only network it touches. Install
  scripts are not run blindly: only the host's own (see :data:`~pasture.hostenv.npm_tools.POSTINSTALL_STEPS`).
* :func:`host_files` names the files a catalog is read from inside such a folder, and
  :func:`provenance` records package, version, file and sha256 for each.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib
import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Callable

from pasture.hosts import HOSTS
from pasture.profile.catalog import CatalogError

#: harness -> the npm packages of one host version (all pinned to that version): each host's npm_packages.
HOST_NPM: dict[str, tuple[str, ...]] = {h.name: h.npm_packages for h in HOSTS.values()}
HOSTS_CACHE = Path(".cache") / "npm" / "hosts"
MARKER = ".pasture-host-installed"


@dataclass(frozen=True)
class HostFile:
    package: str  # npm package name as published
    version: str
    rel: str  # path inside the package
    path: Path
    read: str  # what the catalog takes from it
    installed_as: str = ""  # the node_modules folder, where npm installed it under an alias


def node_modules_of(binary: Path) -> Path | None:
    real = Path(os.path.realpath(binary))
    for parent in real.parents:
        if parent.name == "node_modules":
            return parent
    return None


def _package_json(folder: Path) -> dict:
    try:
        return json.loads((folder / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def package_version(node_modules: Path, package: str) -> str | None:
    version = _package_json(Path(node_modules) / package).get("version")
    return version if isinstance(version, str) else None


def _published(folder: Path) -> tuple[str, str, str]:
    """(name, version, folder name) of a package folder: npm installs a platform build of a package
    under an alias (``@openai/codex-linux-x64`` holds ``@openai/codex`` ``0.171.0-linux-x64``)."""
    doc = _package_json(folder)
    here = folder.relative_to(folder.parent.parent).as_posix() if folder.parent.name.startswith("@") else folder.name
    name = str(doc.get("name") or here)
    version = str(doc.get("version", "?"))
    return name, version, here


def host_files(harness: str, node_modules: Path) -> list[HostFile]:
    """The files of one installed host version that hold its catalog, in reading order."""
    nm = Path(node_modules)
    out: list[HostFile] = []

    def add(folder: Path, rel: str, read: str) -> None:
        name, version, here = _published(folder)
        out.append(HostFile(name, version, rel, folder / rel, read, "" if here == name else here))

    if harness not in HOSTS:
        raise CatalogError(f"unknown harness {harness!r}")
    reader(harness).files(nm, add)
    return out


def bundled_binary(
    harness: str, version: str, files: list[HostFile], node_modules: Path | None, binary: Path | None
) -> tuple[Path, list[HostFile]]:
    """The CLI a command host's catalog is read from: the npm install's, else a bare binary (Claude Code
    and Codex embed their hook schemas in it)."""
    if files:
        return files[0].path, files
    if binary is not None:
        target = Path(os.path.realpath(binary))
        return target, [
            HostFile(
                "",
                version,
                target.name,
                target,
                "the hook schemas embedded in the binary (not from an npm package: no node_modules holds it)",
            )
        ]
    raise CatalogError(f"no {harness} binary found under {node_modules}")


def reader(harness: str) -> ModuleType:
    """The module of pasture.catalog that reads ``harness``'s catalog (its host's ``catalog_reader``)."""
    return importlib.import_module(f"pasture.catalog.{HOSTS[harness].catalog_reader}")


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def provenance(files: list[HostFile]) -> list[dict[str, str]]:
    return [
        {
            "package": f.package,
            "version": f.version,
            "file": f.rel,
            "sha256": sha256(f.path),
            "read": f.read,
            **({"installed_as": f.installed_as} if f.installed_as else {}),
        }
        for f in files
    ]


def npm_latest(package: str, timeout: float = 60.0) -> str:
    """The registry's ``latest`` version of ``package`` (``npm view <package> version``)."""
    if shutil.which("npm") is None:
        raise CatalogError("npm is not on PATH: cannot ask the registry for the newest version")
    try:
        proc = subprocess.run(
            ["npm", "view", package, "version"],
            capture_output=True,
            text=True,
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise CatalogError(f"npm view {package} version did not answer within {timeout:g}s") from None
    version = proc.stdout.strip().splitlines()[-1].strip() if proc.stdout.strip() else ""
    if proc.returncode != 0 or not version:
        raise CatalogError(f"npm view {package} version failed (exit {proc.returncode}): {proc.stderr.strip()[-400:]}")
    return version


def install_host(
    root: Path, harness: str, version: str, *, timeout: float = 900.0, say: Callable[[str], object] = lambda _m: None
) -> Path:
    """Install ``harness`` ``version`` into the project's host cache (once); return its node_modules."""
    from pasture.hostenv.npm_tools import POSTINSTALL_STEPS

    if harness not in HOST_NPM:
        raise CatalogError(f"unknown harness {harness!r}")
    if shutil.which("npm") is None or shutil.which("node") is None:
        raise CatalogError("npm and node must be on PATH to install a host version")
    cache = Path(root) / HOSTS_CACHE
    final = cache / f"{harness}@{version}"
    if (final / MARKER).is_file():
        return final / "node_modules"
    cache.mkdir(parents=True, exist_ok=True)
    with (cache / f"{harness}@{version}.lock").open("a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if (final / MARKER).is_file():
                return final / "node_modules"
            stage = Path(tempfile.mkdtemp(prefix=f".{harness}@{version}.staging-", dir=cache))
            try:
                deps = {p: version for p in HOST_NPM[harness]}
                (stage / "package.json").write_text(
                    json.dumps(
                        {"name": "pasture-host", "version": "0.0.0", "private": True, "dependencies": deps}, indent=2
                    )
                )
                say(f"  npm install {' '.join(f'{p}@{v}' for p, v in deps.items())} (into {final})")
                argv = ["npm", "install", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"]
                try:
                    proc = subprocess.run(
                        argv,
                        cwd=stage,
                        capture_output=True,
                        text=True,
                        timeout=timeout,
                        stdin=subprocess.DEVNULL,
                        check=False,
                    )
                except subprocess.TimeoutExpired:
                    raise CatalogError(f"npm install timed out after {timeout:g}s") from None
                if proc.returncode != 0:
                    raise CatalogError(
                        f"npm install of {harness} {version} failed (exit {proc.returncode}):\n"
                        f"{(proc.stdout + proc.stderr).strip()[-1500:]}"
                    )
                for package, step in POSTINSTALL_STEPS:
                    folder = stage / "node_modules" / package
                    if package in HOST_NPM[harness] and folder.is_dir():
                        run = subprocess.run(
                            list(step),
                            cwd=folder,
                            capture_output=True,
                            text=True,
                            timeout=300,
                            stdin=subprocess.DEVNULL,
                            check=False,
                        )
                        if run.returncode != 0:
                            raise CatalogError(
                                f"{' '.join(step)} in {package} failed (exit {run.returncode}): "
                                f"{(run.stdout + run.stderr).strip()[-800:]}"
                            )
                found = package_version(stage / "node_modules", HOST_NPM[harness][0])
                if found != version:
                    raise CatalogError(f"npm installed {HOST_NPM[harness][0]} {found}, not {version}")
                (stage / MARKER).write_text(version + "\n")
                if final.exists():
                    shutil.rmtree(final)
                os.rename(stage, final)
            except BaseException:
                shutil.rmtree(stage, ignore_errors=True)
                raise
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return final / "node_modules"


def host_binary(harness: str, node_modules: Path) -> Path:
    """The runnable host binary of an install (node_modules/.bin/<name>)."""
    path = Path(node_modules) / ".bin" / HOSTS[harness].binary
    if not path.exists():
        raise CatalogError(f"{path} does not exist: the install of {harness} is incomplete")
    return path
