"""Where a host version's own files are: an npm install of its packages, found or made.

* :func:`node_modules_of` walks up from a host binary (``node_modules/.bin/claude``) to the
  ``node_modules`` folder it was installed into.
* :func:`install_host` installs exactly one host version (its CLI package, and for OpenCode the
  plugin typings of the same version) into ``<root>/.cache/npm/hosts/<harness>@<version>/`` with
  the project's ordinary ``npm`` client, the registry being the only network it touches. Install
  scripts are not run blindly: only the host's own (see :data:`~generator.hostenv.npm_tools.POSTINSTALL_STEPS`).
* :func:`host_files` names the files a catalog is read from inside such a folder, and
  :func:`provenance` records package, version, file and sha256 for each.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from generator.catalog.model import CatalogError

#: harness -> the npm packages of one host version (all pinned to that version).
HOST_NPM: dict[str, tuple[str, ...]] = {
    "claude-code": ("@anthropic-ai/claude-code",),
    "codex": ("@openai/codex",),
    "opencode": ("opencode-ai", "@opencode-ai/plugin"),
}
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

    if harness == "claude-code":
        folders = sorted(p for p in (nm / "@anthropic-ai").glob("claude-code-*") if (p / "claude").is_file())
        if folders:
            add(folders[0], "claude", "the hook input/output zod schemas and the valid-event list bundled into "
                "the CLI binary")
        elif (nm / "@anthropic-ai/claude-code/bin/claude.exe").is_file():
            add(nm / "@anthropic-ai/claude-code", "bin/claude.exe", "the hook input/output zod schemas and the "
                "valid-event list bundled into the CLI binary")
    elif harness == "codex":
        for folder in sorted((nm / "@openai").glob("codex-*")):
            hits = sorted(folder.glob("vendor/*/bin/codex")) or sorted(folder.glob("vendor/*/codex/codex"))
            if hits:
                add(folder, hits[0].relative_to(folder).as_posix(), "the *.command.input/output hook JSON Schemas "
                    "embedded in the CLI binary (codex-rs hooks/schema/generated)")
                break
    elif harness == "opencode":
        from generator.catalog.opencode import typing_files

        for module, path in sorted(typing_files(nm).items()):
            folder = nm / ("@opencode-ai/plugin" if module.endswith("plugin") else "@opencode-ai/sdk")
            what = ("the Hooks interface (named hooks, input and output types)" if module.endswith("plugin")
                    else f"the bus Event union ({module})")
            add(folder, path.relative_to(folder).as_posix(), what)
        binaries = sorted(p for p in nm.glob("opencode-*") if (p / "bin" / "opencode").is_file())
        if binaries:
            add(binaries[0], "bin/opencode", 'the call sites trigger("<hook>" of each named hook in the shipped binary')
    else:
        raise CatalogError(f"unknown harness {harness!r}")
    return out


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def provenance(files: list[HostFile]) -> list[dict[str, str]]:
    return [{"package": f.package, "version": f.version, "file": f.rel, "sha256": sha256(f.path), "read": f.read,
             **({"installed_as": f.installed_as} if f.installed_as else {})} for f in files]


def npm_latest(package: str, timeout: float = 60.0) -> str:
    """The registry's ``latest`` version of ``package`` (``npm view <package> version``)."""
    if shutil.which("npm") is None:
        raise CatalogError("npm is not on PATH: cannot ask the registry for the newest version")
    try:
        proc = subprocess.run(["npm", "view", package, "version"], capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired:
        raise CatalogError(f"npm view {package} version did not answer within {timeout:g}s") from None
    version = proc.stdout.strip().splitlines()[-1].strip() if proc.stdout.strip() else ""
    if proc.returncode != 0 or not version:
        raise CatalogError(f"npm view {package} version failed (exit {proc.returncode}): {proc.stderr.strip()[-400:]}")
    return version


def install_host(root: Path, harness: str, version: str, *, timeout: float = 900.0, say=lambda _m: None) -> Path:
    """Install ``harness`` ``version`` into the project's host cache (once); return its node_modules."""
    from generator.hostenv.npm_tools import POSTINSTALL_STEPS

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
                (stage / "package.json").write_text(json.dumps(
                    {"name": "pasture-host", "version": "0.0.0", "private": True, "dependencies": deps}, indent=2))
                say(f"  npm install {' '.join(f'{p}@{v}' for p, v in deps.items())} (into {final})")
                argv = ["npm", "install", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"]
                try:
                    proc = subprocess.run(argv, cwd=stage, capture_output=True, text=True, timeout=timeout,
                                          stdin=subprocess.DEVNULL, check=False)
                except subprocess.TimeoutExpired:
                    raise CatalogError(f"npm install timed out after {timeout:g}s") from None
                if proc.returncode != 0:
                    raise CatalogError(f"npm install of {harness} {version} failed (exit {proc.returncode}):\n"
                                       f"{(proc.stdout + proc.stderr).strip()[-1500:]}")
                for package, step in POSTINSTALL_STEPS:
                    folder = stage / "node_modules" / package
                    if package in HOST_NPM[harness] and folder.is_dir():
                        run = subprocess.run(list(step), cwd=folder, capture_output=True, text=True, timeout=300,
                                             stdin=subprocess.DEVNULL, check=False)
                        if run.returncode != 0:
                            raise CatalogError(f"{' '.join(step)} in {package} failed (exit {run.returncode}): "
                                               f"{(run.stdout + run.stderr).strip()[-800:]}")
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
    name = {"claude-code": "claude", "codex": "codex", "opencode": "opencode"}[harness]
    path = Path(node_modules) / ".bin" / name
    if not path.exists():
        raise CatalogError(f"{path} does not exist: the install of {harness} is incomplete")
    return path
