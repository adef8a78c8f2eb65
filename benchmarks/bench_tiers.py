#!/usr/bin/env python3
"""How long each test tier takes here: the figures CONTRIBUTING.md quotes (issue 21).

    python benchmarks/bench_tiers.py [--tiers fast,slow,real_host] [--out results.json]

Each tier is the exact command CONTRIBUTING.md documents, run once as a fresh process from the
repository root. Reported per tier: wall time, CPU time of the whole process tree (os.wait4), the
test count pytest printed, the load average before and after, and the machine (cores, Python,
date). Not a test: nothing here asserts a time; the fast-tier target (3 minutes on a 2-core
machine) is reported as PASS/FAIL, measured, never guessed.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TIERS = {
    "fast": [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
    "slow": [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "slow"],
    "real_host": [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "real_host"],
    "everything": [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", ""],
}
FAST_TARGET_S = 180.0


def run(argv: list[str]) -> dict:
    before = os.getloadavg()
    start = time.monotonic()
    proc = subprocess.Popen(argv, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = proc.stdout.read() if proc.stdout else b""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - start
    tail = out.decode(errors="replace").strip().splitlines()[-1:] or [""]
    counts = dict((k, int(v)) for v, k in re.findall(r"(\d+) (passed|failed|skipped|deselected|errors?)", tail[0]))
    return {
        "argv": argv[1:],
        "wall_s": round(wall, 1),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
        "exit": os.waitstatus_to_exitcode(status),
        "summary": tail[0],
        "counts": counts,
        "loadavg_before": [round(x, 2) for x in before],
        "loadavg_after": [round(x, 2) for x in os.getloadavg()],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tiers", default="fast", help="comma-separated: " + ", ".join(TIERS))
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    machine = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "commit": subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True
        ).stdout.strip(),
    }
    print(f"{machine['date']}  {machine['cores']} cores  Python {machine['python']}  commit {machine['commit']}")
    results = {}
    for tier in args.tiers.split(","):
        result = results[tier] = run(TIERS[tier])
        judged = ""
        if tier == "fast":
            judged = "  PASS" if result["wall_s"] <= FAST_TARGET_S else "  FAIL"
            judged += f" (target {FAST_TARGET_S:.0f} s wall)"
        print(
            f"{tier:<11} wall {result['wall_s']:>7.1f} s  cpu {result['cpu_s']:>7.1f} s  exit {result['exit']}  "
            f"load {result['loadavg_before'][0]:.1f}->{result['loadavg_after'][0]:.1f}  {result['summary']}{judged}"
        )
    if args.out:
        args.out.write_text(json.dumps({"machine": machine, "tiers": results}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
