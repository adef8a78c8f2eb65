"""Helpers for the OpenCode plugin tests: the pinned npm tools, tsc, the stub runtime server, the driver."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from generator.hostenv import NpmUnavailable, ensure_npm_tools, host_binary

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
DRIVER = HERE / "opencode_driver.mjs"
V2_TYPES = HERE / "opencode_v2" / "opencode-plugin-2.0.20.d.ts"
PLUGIN = "pasture-lifecycle.ts"

# tsc flags for a plugin file: strict, ESM the way OpenCode loads it, Node types for child_process.
TSC_FLAGS = ["--strict", "--noEmit", "--module", "nodenext", "--moduleResolution", "nodenext",
             "--target", "es2022", "--types", "node"]

STUB = HERE / "opencode_stub_server.py"


def npm_bin() -> Path:
    """``node_modules/.bin`` of the pinned npm tools (tests/npm), installed once; skip without npm."""
    try:
        return ensure_npm_tools(REPO)
    except NpmUnavailable as exc:
        pytest.skip(f"needs npm and node on PATH: {exc}")


def node_modules(bin_dir: Path) -> Path:
    return bin_dir.parent


def tsc(bin_dir: Path, folder: Path, files: list[str], *extra: str) -> subprocess.CompletedProcess[str]:
    """Run the pinned tsc on ``files`` inside ``folder`` (an ESM package that sees node_modules)."""
    _package(bin_dir, folder)
    tsc_js = node_modules(bin_dir) / "typescript" / "bin" / "tsc"
    return subprocess.run(["node", str(tsc_js), *extra, *files], cwd=folder, capture_output=True, text=True,
                          timeout=300, check=False)


def _package(bin_dir: Path, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "package.json").write_text('{"type": "module", "private": true}\n')
    link = folder / "node_modules"
    if not link.exists():
        link.symlink_to(node_modules(bin_dir), target_is_directory=True)


def typecheck(bin_dir: Path, folder: Path, text: str, v2: bool) -> subprocess.CompletedProcess[str]:
    """tsc --strict --noEmit on one generated plugin (v2: plus the hand-written stand-in typings)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / PLUGIN).write_text(text, encoding="utf-8")
    files = [PLUGIN]
    if v2:
        shutil.copy(V2_TYPES, folder / V2_TYPES.name)
        files.append(V2_TYPES.name)
    return tsc(bin_dir, folder, files, *TSC_FLAGS)


def write_stub(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    stub = folder / "pasture-stub"
    stub.write_text(f"#!{sys.executable}\n" + STUB.read_text(encoding="utf-8"), encoding="utf-8")
    stub.chmod(0o755)
    return stub


def runtime_argv(runtime: str, bin_dir: Path) -> tuple[list[str], dict[str, str]]:
    """How to start a script under ``bun`` (the Bun inside the opencode binary) or ``node``."""
    if runtime == "bun":
        return [str(host_binary("opencode", bin_dir))], {"BUN_BE_BUN": "1"}
    return ["node"], {}


def load_plugin_source(runtime: str, bin_dir: Path, folder: Path, text: str, v2: bool) -> Path:
    """The file the runtime imports: the .ts itself under Bun, tsc's emitted .js under Node."""
    folder.mkdir(parents=True, exist_ok=True)
    source = folder / PLUGIN
    source.write_text(text, encoding="utf-8")
    if runtime == "bun":
        return source
    files = [PLUGIN]
    if v2:
        shutil.copy(V2_TYPES, folder / V2_TYPES.name)
        files.append(V2_TYPES.name)
    flags = [f for f in TSC_FLAGS if f != "--noEmit"] + ["--outDir", "emitted"]
    done = tsc(bin_dir, folder, files, *flags)
    assert done.returncode == 0, done.stdout + done.stderr
    return folder / "emitted" / "pasture-lifecycle.js"


def run_driver(runtime: str, bin_dir: Path, folder: Path, plugin: Path, spec: dict[str, Any],
               env: dict[str, str] | None = None) -> dict[str, Any]:
    """Play ``spec['cases']`` against ``plugin`` under ``runtime``; the driver's JSON result."""
    logs = folder / "calls"
    logs.mkdir(parents=True, exist_ok=True)
    result = folder / "driver-result.json"
    result.unlink(missing_ok=True)
    spec = {**spec, "plugin": str(plugin), "logs": str(logs), "result": str(result)}
    spec_path = folder / "spec.json"
    spec_path.write_text(json.dumps(spec, indent=2))
    argv, runtime_env = runtime_argv(runtime, bin_dir)
    full_env = {**os.environ, **runtime_env, **(env or {})}
    for key in ("PASTURE_BIN", "PASTURE_HOOK_TIMEOUT_MS", "XDG_DATA_HOME", "STUB_CONTROL"):
        full_env.pop(key, None)
    done = subprocess.run([*argv, str(DRIVER), str(spec_path)], cwd=folder, capture_output=True, text=True,
                          timeout=300, env=full_env, check=False)
    assert done.returncode == 0, f"driver failed ({runtime}):\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    return json.loads(result.read_text(encoding="utf-8"))
