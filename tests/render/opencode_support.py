"""Helpers for the OpenCode plugin tests: the pinned npm tools, tsc, the stub runtime, the driver."""

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

STUB = r'''#!{python}
"""Stand-in for `pasture hook lifecycle`: records its call, then answers as STUB_MODE says."""
import fcntl, json, os, signal, sys, time

raw = sys.stdin.read()
started = time.time()
event = sys.argv[sys.argv.index("--event") + 1] if "--event" in sys.argv else ""
mode = json.loads(os.environ.get("STUB_MODES", "{{}}")).get(event, os.environ.get("STUB_MODE", "proceed"))
reason = os.environ.get("STUB_REASON", "")
if mode == "slow":
    time.sleep(0.15)
with open(os.environ["STUB_LOG"], "a", encoding="utf-8") as fh:
    fcntl.flock(fh, fcntl.LOCK_EX)
    fh.write(json.dumps({{"argv": sys.argv, "stdin": raw, "cwd": os.getcwd(), "start": started,
                         "end": time.time()}}) + "\n")
if mode in ("proceed", "slow"):
    print(json.dumps({{"decision": "proceed"}}))
elif mode in ("deny", "ask"):
    print(json.dumps({{"decision": mode, "reason": reason}}))
elif mode == "crash":
    sys.stderr.write("Traceback: stub crashed on purpose SECRET-STDERR\n")
    sys.exit(3)
elif mode == "garbage":
    print("this is not JSON")
elif mode == "two":
    print(json.dumps({{"decision": "proceed"}}))
    print(json.dumps({{"decision": "proceed"}}))
elif mode == "array":
    print(json.dumps([{{"decision": "proceed"}}]))
elif mode == "noreason":
    print(json.dumps({{"decision": "deny"}}))
elif mode == "unknown":
    print(json.dumps({{"decision": "allow"}}))
elif mode == "empty":
    pass
elif mode == "sleep":
    time.sleep(30)
elif mode == "flood":
    sys.stdout.write("x" * (2 * 1024 * 1024))
    sys.stdout.flush()
elif mode == "signal":
    os.kill(os.getpid(), signal.SIGTERM)
else:
    sys.exit(99)
'''


def npm_bin() -> Path:
    """``node_modules/.bin`` of the pinned npm tools (tests/npm), installed once; fails without npm."""
    try:
        return ensure_npm_tools(REPO)
    except NpmUnavailable as exc:
        pytest.fail(f"this test needs npm and node (>= 22) on PATH to install tests/npm: {exc}", pytrace=False)


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
        self._done: subprocess.CompletedProcess[str] | None = None

    def add(self, case: str, text: str) -> None:
        assert "/" not in case and case not in self.texts, case
        self.texts[case] = text

    def _run(self) -> subprocess.CompletedProcess[str]:
        if self._done is None:
            files = []
            for case, text in self.texts.items():
                (self.folder / case).mkdir(parents=True, exist_ok=True)
                (self.folder / case / PLUGIN).write_text(text, encoding="utf-8")
                files.append(f"{case}/{PLUGIN}")
            shutil.copy(V2_TYPES, self.folder / V2_TYPES.name)
            flags = [f for f in TSC_FLAGS if f != "--noEmit"] + ["--outDir", "emitted"]
            self._done = tsc(self.bin_dir, self.folder, [*files, V2_TYPES.name], *flags)
        return self._done

    def result(self, case: str, text: str) -> subprocess.CompletedProcess[str]:
        """tsc's verdict on one case: its own diagnostics (and any not tied to a case's file)."""
        assert self.texts[case] == text, f"{case}: the batch compiled other text than the test holds"
        done = self._run()
        lines = done.stdout.splitlines()
        own = [line for line in lines if line.startswith(f"{case}/")]
        unowned = [line for line in lines if line and not line.startswith(" ")
                   and not any(line.startswith(f"{c}/") for c in self.texts)]
        diagnostics = own + unowned
        code = 0 if not diagnostics and done.returncode in (0, 2) else (done.returncode or 2)
        if not diagnostics and done.returncode not in (0, 2):
            diagnostics = [f"tsc failed (exit {done.returncode}): {done.stderr[-2000:]}"]
        return subprocess.CompletedProcess(done.args, code, "\n".join(diagnostics), done.stderr)

    def emitted(self, case: str, text: str) -> Path:
        """The JavaScript tsc emitted for a case that type-checks."""
        done = self.result(case, text)
        assert done.returncode == 0, done.stdout
        return self.folder / "emitted" / case / "pasture-lifecycle.js"


def write_stub(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    stub = folder / "pasture-stub"
    stub.write_text(STUB.format(python=sys.executable))
    stub.chmod(0o755)
    return stub


def runtime_argv(runtime: str, bin_dir: Path) -> tuple[list[str], dict[str, str]]:
    """How to start a script under ``bun`` (the Bun inside the opencode binary) or ``node``."""
    if runtime == "bun":
        return [str(host_binary("opencode", bin_dir))], {"BUN_BE_BUN": "1"}
    return ["node"], {}


def run_driver(runtime: str, bin_dir: Path, folder: Path, plugin: Path, spec: dict[str, Any],
               env: dict[str, str] | None = None) -> dict[str, Any]:
    """Play ``spec['cases']`` against ``plugin`` under ``runtime``; the driver's JSON result."""
    logs = folder / "calls"
    logs.mkdir(parents=True, exist_ok=True)
    spec = {**spec, "plugin": str(plugin), "logs": str(logs)}
    spec_path = folder / "spec.json"
    spec_path.write_text(json.dumps(spec, indent=2))
    argv, runtime_env = runtime_argv(runtime, bin_dir)
    full_env = {**os.environ, **runtime_env, **(env or {})}
    full_env.pop("PASTURE_BIN", None)
    full_env.pop("PASTURE_HOOK_TIMEOUT_MS", None)
    done = subprocess.run([*argv, str(DRIVER), str(spec_path)], cwd=folder, capture_output=True, text=True,
                          timeout=300, env=full_env, check=False)
    assert done.returncode == 0, f"driver failed ({runtime}):\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    return json.loads(done.stdout.strip().split("\n")[-1])  # not splitlines(): U+2028 is data here
