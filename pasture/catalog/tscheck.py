"""Run ``tscheck.cjs``: the hosts' typings (OpenCode, Copilot CLI, Pi) read by the TypeScript checker.

The checker needs Node.js and the ``typescript`` package pinned in ``tests/npm`` (found, never
installed, in the install being read or in the project's npm cache of the pinned tools, the place
``pasture host status`` looks too). Everything crosses into Node as one JSON argv element and comes
back as JSON on stdout; whatever the checker cannot resolve comes back as a :class:`CatalogError`.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from importlib import resources
from pathlib import Path
from typing import Any

from pasture.profile.catalog import CatalogError

SCRIPT = "tscheck.cjs"
TIMEOUT = 180.0
INSTALL_HINT = (
    "install the pinned tools (`python -c 'from pasture.hostenv import ensure_npm_tools; "
    'ensure_npm_tools(".")\'` in the project, which runs `npm ci` for tests/npm)'
)


def _version(folder: Path) -> str | None:
    try:
        version = json.loads((folder / "package.json").read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError):
        return None
    return version if isinstance(version, str) and (folder / "lib" / "typescript.js").is_file() else None


def find_typescript(node_modules: Path, root: Path | None) -> Path:
    """The ``typescript`` package folder to run: the pinned version, from the install read or the
    project's cache of tests/npm; a :class:`CatalogError` saying what to install when there is none."""
    from pasture.hostenv.npm_tools import CACHE_DIR, MARKER, lockfile_digest, pinned_versions

    pin: str | None = None
    places = [Path(node_modules) / "typescript"]
    if root is not None:
        try:
            pin = pinned_versions(root).get("typescript")
        except (OSError, ValueError):
            pin = None
        try:  # the pinned tools' install, when complete (as `pasture host status` finds it; never installed here)
            digest = lockfile_digest(root)
            folder = Path(root) / CACHE_DIR / digest
            if (folder / MARKER).read_text().strip() == digest:
                places.append(folder / "node_modules" / "typescript")
        except OSError:
            pass
    seen: list[str] = []
    for folder in places:
        version = _version(folder)
        if version is None:
            continue
        if pin is None or version == pin:
            return folder
        seen.append(f"{folder} is {version}")
    want = f"typescript {pin}" if pin else "the typescript package"
    found = f" ({'; '.join(seen)})" if seen else ""
    raise CatalogError(
        f"reading the hosts' typings needs {want}, as pinned in tests/npm, and none was found in "
        f"{node_modules} or the project's npm cache{found}: {INSTALL_HINT}"
    )


def resolve(
    node_modules: Path, plugin: Path, buses: dict[str, Path], *, skip: list[str], depth: int, root: Path | None = None
) -> dict[str, Any]:
    """The checker's answer: ``{"hooks": [...], "buses": {module: [tree, ...]}}`` (see tscheck.cjs)."""
    typescript = _node_and_typescript(node_modules, root)
    request = {
        "typescript": str(typescript),
        "node_modules": str(node_modules),
        "plugin": str(plugin),
        "buses": {m: str(p) for m, p in buses.items()},
        "skip": skip,
        "depth": depth,
    }
    return _run(request, plugin, typescript)


def resolve_handlers(
    node_modules: Path, file: Path, interface: str, *, depth: int, root: Path | None = None
) -> list[dict[str, Any]]:
    """Every member of an interface of handler functions: ``[{"name", "input", "output"}]`` (see tscheck.cjs)."""
    typescript = _node_and_typescript(node_modules, root)
    request = {
        "typescript": str(typescript),
        "node_modules": str(Path(node_modules) / "node_modules"),
        "handlers": {"file": str(file), "interface": interface},
        "depth": depth,
    }
    answer = _run(request, file, typescript)
    if not isinstance(answer.get("handlers"), list):
        raise CatalogError(f"the TypeScript checker answered no handlers for {file}")
    return answer["handlers"]


def resolve_overloads(
    node_modules: Path, file: Path, interface: str, method: str, *, depth: int, root: Path | None = None
) -> list[dict[str, Any]]:
    """Every overload ``interface[method](event: "<name>", handler)``: ``[{"name", "input", "output"}]``
    (see tscheck.cjs; Pi's ``ExtensionAPI.on``)."""
    typescript = _node_and_typescript(node_modules, root)
    request = {
        "typescript": str(typescript),
        "node_modules": str(node_modules),
        "overloads": {"file": str(file), "interface": interface, "method": method},
        "depth": depth,
    }
    answer = _run(request, file, typescript)
    if not isinstance(answer.get("handlers"), list):
        raise CatalogError(f"the TypeScript checker answered no overloads of {interface}.{method} in {file}")
    return answer["handlers"]


def resolve_types(
    node_modules: Path, file: Path, names: list[str], *, depth: int, root: Path | None = None
) -> dict[str, Any]:
    """Exported types of one file by name: ``{name: tree}`` (see tscheck.cjs; Cline's hook payloads)."""
    typescript = _node_and_typescript(node_modules, root)
    request = {
        "typescript": str(typescript),
        "node_modules": str(node_modules),
        "types": {"file": str(file), "names": names},
        "bundler": True,
        "depth": depth,
    }
    answer = _run(request, file, typescript)
    found = answer.get("types")
    if not isinstance(found, dict) or set(found) != set(names):
        raise CatalogError(f"the TypeScript checker did not resolve {', '.join(names)} in {file}")
    return found


def _node_and_typescript(node_modules: Path, root: Path | None) -> Path:
    if shutil.which("node") is None:
        raise CatalogError("reading the hosts' typings needs Node.js: put `node` on PATH (Node 20 is tested)")
    return find_typescript(node_modules, root)


def _run(request: dict[str, Any], plugin: Path, typescript: Path) -> dict[str, Any]:
    node = shutil.which("node") or "node"
    with resources.as_file(resources.files("pasture.catalog") / SCRIPT) as script:
        try:
            proc = subprocess.run(
                [node, str(script), json.dumps(request)],
                capture_output=True,
                text=True,
                timeout=TIMEOUT,
                stdin=subprocess.DEVNULL,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise CatalogError(f"the TypeScript checker did not finish reading {plugin} within {TIMEOUT:g}s") from None
    try:
        answer = json.loads(proc.stdout)
    except ValueError:
        answer = None
    if isinstance(answer, dict) and isinstance(answer.get("error"), str):
        raise CatalogError(answer["error"])
    if proc.returncode != 0 or not isinstance(answer, dict):
        raise CatalogError(
            f"the TypeScript checker ({typescript}) failed on {plugin} (exit {proc.returncode}): "
            f"{(proc.stderr or proc.stdout).strip()[-800:]}"
        )
    return answer
