#!/usr/bin/env python3
"""Regenerate ``package-lock.json`` from ``package.json`` (run by hand after changing a pin).

    python3 tests/npm/relock.py

Steps: ``npm install --package-lock-only --ignore-scripts`` in a scratch folder that holds the current
lock too (npm keeps every resolution it already has, so a new pin adds its own tree and moves nothing
another host runs on), then two fixes
that ``npm ci`` needs or the project wants:

* The registry this project uses does not serve every per-platform optional package that
  ``opencode-ai`` lists (``opencode-darwin-arm64`` & co. answer 404), so npm leaves them out of the
  lock and a later ``npm ci`` then refuses the lock ("Missing: opencode-darwin-arm64@ from lock
  file"). Each missing optional dependency gets a stub entry carrying its version and the
  ``os``/``cpu``/``libc`` its name implies, so ``npm ci`` skips it on every other platform.
* ``funding`` fields are dropped: the lockfile carries no URL that is not the registry's.

``tests/hostenv/test_hostenv_npm_lockfile.py`` checks the result.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def platform_of(name: str) -> dict[str, list[str]]:
    tokens = set(re.split(r"[-/]", name))
    out: dict[str, list[str]] = {}
    for token, os_name in (("darwin", "darwin"), ("linux", "linux"), ("win32", "win32"), ("windows", "win32")):
        if token in tokens:
            out["os"] = [os_name]
    for token in ("arm64", "x64"):
        if token in tokens:
            out["cpu"] = [token]
    if out.get("os") == ["linux"]:
        out["libc"] = ["musl"] if "musl" in tokens else ["glibc"]
    if "os" not in out or "cpu" not in out:
        raise SystemExit(f"cannot infer the platform of missing optional package {name!r}")
    return out


def fix_lock(lock: dict) -> dict:
    packages: dict[str, dict] = lock["packages"]
    for entry in packages.values():
        entry.pop("funding", None)
    stubs: dict[str, dict] = {}
    for key, entry in packages.items():
        for dep, spec in entry.get("optionalDependencies", {}).items():
            # npm hoists these to the top level; a nested copy would sit under key + /node_modules/
            if f"node_modules/{dep}" in packages or f"{key}/node_modules/{dep}" in packages:
                continue
            if not re.fullmatch(r"\d+\.\d+\.\d+", spec):
                raise SystemExit(f"optional dependency {dep}@{spec} of {key} is not an exact version")
            plat = platform_of(dep)
            stubs[f"node_modules/{dep}"] = {
                "version": spec, "cpu": plat["cpu"], **({"libc": plat["libc"]} if "libc" in plat else {}),
                "optional": True, "os": plat["os"],
            }
    packages.update(stubs)
    lock["packages"] = {"": packages.pop("")} | dict(sorted(packages.items()))
    return lock


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="pasture-relock-") as tmp:
        shutil.copy2(HERE / "package.json", Path(tmp) / "package.json")
        if (HERE / "package-lock.json").is_file():
            shutil.copy2(HERE / "package-lock.json", Path(tmp) / "package-lock.json")
        subprocess.run(
            ["npm", "install", "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund"],
            cwd=tmp, check=True,
        )
        lock = json.loads((Path(tmp) / "package-lock.json").read_text())
    lock = fix_lock(lock)
    (HERE / "package-lock.json").write_text(json.dumps(lock, indent=2) + "\n")
    print(f"wrote {HERE / 'package-lock.json'} ({len(lock['packages']) - 1} packages)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
