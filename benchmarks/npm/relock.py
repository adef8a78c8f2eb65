#!/usr/bin/env python3
"""Regenerate ``package-lock.json`` from ``package.json`` (run by hand after changing a pin).

    python3 benchmarks/npm/relock.py

``npm install --package-lock-only --ignore-scripts`` in a scratch folder, then every URL that is
not the registry's is dropped (``funding`` fields, and a ``license`` given as a URL), so the lock
names packages and integrity hashes only (the machine's npm config also sets
``omit-lockfile-registry-resolved``, so no ``resolved`` URL is written either).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def fix_lock(lock: dict) -> dict:
    for entry in lock["packages"].values():
        entry.pop("funding", None)
        entry.pop("resolved", None)
        if str(entry.get("license", "")).startswith(("http://", "https://")):
            entry.pop("license")
    return lock


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="pasture-bench-relock-") as tmp:
        shutil.copy2(HERE / "package.json", Path(tmp) / "package.json")
        subprocess.run(
            ["npm", "install", "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund"],
            cwd=tmp,
            check=True,
        )
        lock = json.loads((Path(tmp) / "package-lock.json").read_text())
    text = json.dumps(fix_lock(lock), indent=2) + "\n"
    if "http://" in text or "https://" in text:
        raise SystemExit("a URL is still in the lock; extend fix_lock")
    (HERE / "package-lock.json").write_text(text)
    print(f"wrote {HERE / 'package-lock.json'} ({len(lock['packages']) - 1} packages)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
