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

from pasture.hostenv import NpmUnavailable, ensure_npm_tools, host_binary

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
DRIVER = HERE / "opencode_driver.mjs"
V2_TYPES = HERE / "opencode_v2" / "opencode-plugin-2.0.20.d.ts"
PLUGIN = "pasture-lifecycle.ts"

# tsc flags for a plugin file: strict, ESM the way OpenCode loads it, Node types for child_process.
TSC_FLAGS = [
    "--strict",
    "--noEmit",
    "--module",
    "nodenext",
    "--moduleResolution",
    "nodenext",
    "--target",
    "es2022",
    "--types",
    "node",
]

STUB = HERE / "opencode_stub_server.py"


def npm_bin() -> Path:
    """``node_modules/.bin`` of the pinned npm tools (tests/npm), installed once; fails without npm."""
    try:
        return ensure_npm_tools(REPO)
    except NpmUnavailable as exc:
        pytest.fail(f"this test needs npm and node on PATH to install tests/npm: {exc}", pytrace=False)


def node_modules(bin_dir: Path) -> Path:
    return bin_dir.parent


def tsc(bin_dir: Path, folder: Path, files: list[str], *extra: str) -> subprocess.CompletedProcess[str]:
    """Run the pinned tsc on ``files`` inside ``folder`` (an ESM package that sees node_modules)."""
    _package(bin_dir, folder)
    tsc_js = node_modules(bin_dir) / "typescript" / "bin" / "tsc"
    return subprocess.run(
        ["node", str(tsc_js), *extra, *files], cwd=folder, capture_output=True, text=True, timeout=300, check=False
    )


def _package(bin_dir: Path, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "package.json").write_text('{"type": "module", "private": true}\n')
    link = folder / "node_modules"
    if not link.exists():
        link.symlink_to(node_modules(bin_dir), target_is_directory=True)


class TscBatch:
    """Every plugin the suite type-checks, compiled by one tsc run.

    A tsc start costs several seconds here (the compiler itself plus the Node and @opencode-ai
    typings), so the plugins go into one program: each case in its own folder as a module of its
    own, the v2 stand-in typings once (they declare "@opencode/plugin", the v1 plugins import the
    real "@opencode-ai/plugin", so both coexist). tsc reports diagnostics per file, so each case
    keeps its own verdict; the run also emits JavaScript for the Node behaviour tests.
    """

    def __init__(self, bin_dir: Path, folder: Path) -> None:
        self.bin_dir, self.folder = bin_dir, folder
        self.texts: dict[str, str] = {}
        self.lib_checked: dict[str, bool] = {}
        self._done: dict[bool, subprocess.CompletedProcess[str]] = {}

    def add(self, case: str, text: str, *, lib_check: bool = True) -> None:
        """``lib_check=False``: the case compiles in a second program with --skipLibCheck (Pi's typings pull
        in @anthropic-ai/sdk and @google/genai, whose own .d.ts files do not compile in this install); its
        own file is still checked --strict."""
        assert "/" not in case and case not in self.texts, case
        self.texts[case] = text
        self.lib_checked[case] = lib_check

    def _run(self, lib_check: bool) -> subprocess.CompletedProcess[str]:
        if lib_check not in self._done:
            folder = self.folder if lib_check else self.folder / "skip-lib-check"
            files = []
            for case, text in self.texts.items():
                if self.lib_checked[case] is not lib_check:
                    continue
                (folder / case).mkdir(parents=True, exist_ok=True)
                (folder / case / PLUGIN).write_text(text, encoding="utf-8")
                files.append(f"{case}/{PLUGIN}")
            flags = [f for f in TSC_FLAGS if f != "--noEmit"] + ["--outDir", "emitted"]
            if lib_check:
                shutil.copy(V2_TYPES, folder / V2_TYPES.name)
                files.append(V2_TYPES.name)
            else:
                flags.append("--skipLibCheck")
            self._done[lib_check] = tsc(self.bin_dir, folder, files, *flags)
        return self._done[lib_check]

    def result(self, case: str, text: str) -> subprocess.CompletedProcess[str]:
        """tsc's verdict on one case: its own diagnostics (and any not tied to a case's file)."""
        assert self.texts[case] == text, f"{case}: the batch compiled other text than the test holds"
        done = self._run(self.lib_checked[case])
        lines = done.stdout.splitlines()
        own = [line for line in lines if line.startswith(f"{case}/")]
        unowned = [
            line
            for line in lines
            if line and not line.startswith(" ") and not any(line.startswith(f"{c}/") for c in self.texts)
        ]
        diagnostics = own + unowned
        code = 0 if not diagnostics and done.returncode in (0, 2) else (done.returncode or 2)
        if not diagnostics and done.returncode not in (0, 2):
            diagnostics = [f"tsc failed (exit {done.returncode}): {done.stderr[-2000:]}"]
        return subprocess.CompletedProcess(done.args, code, "\n".join(diagnostics), done.stderr)

    def emitted(self, case: str, text: str) -> Path:
        """The JavaScript tsc emitted for a case that type-checks."""
        done = self.result(case, text)
        assert done.returncode == 0, done.stdout
        folder = self.folder if self.lib_checked[case] else self.folder / "skip-lib-check"
        return folder / "emitted" / case / "pasture-lifecycle.js"


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


def run_driver(
    runtime: str, bin_dir: Path, folder: Path, plugin: Path, spec: dict[str, Any], env: dict[str, str] | None = None
) -> dict[str, Any]:
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
    done = subprocess.run(
        [*argv, str(DRIVER), str(spec_path)],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
        env=full_env,
        check=False,
    )
    assert done.returncode == 0, f"driver failed ({runtime}):\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    return json.loads(result.read_text(encoding="utf-8"))
