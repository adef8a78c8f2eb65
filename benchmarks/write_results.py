#!/usr/bin/env python3
"""Write what `run_all.sh` collected into benchmarks/README.md, between its result markers: each
script's output exactly as it printed it, with its exit code, its time and its options. The README's
figures are these and nothing else (issue 30): rerun `bash benchmarks/run_all.sh` to refresh them.

    python benchmarks/write_results.py OUT_DIR README.md SCRIPT...
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BEGIN = "<!-- results: written by benchmarks/run_all.sh; do not edit by hand -->"
END = "<!-- results: end -->"


def section(out: Path, names: list[str]) -> str:
    git = subprocess.run(["git", "describe", "--always", "--dirty"], capture_output=True, text=True)
    parts = [
        BEGIN,
        "",
        f"Printed by `bash benchmarks/run_all.sh` at git {git.stdout.strip() or '?'}: every block below is one "
        "script's output as it printed it (PASS / FAIL lines included), its exit code and its time.",
    ]
    for name in names:
        text_file, status_file = out / f"{name}.txt", out / f"{name}.status"
        parts += ["", f"### `{name}.py`", ""]
        if not status_file.is_file():
            parts.append("Not run in this pass.")
            continue
        status, took, *options = status_file.read_text().split(" ", 2)
        opts = options[0].strip() if options else ""
        info = ""
        doc = out / f"{name}.json"
        if doc.is_file():
            env = json.loads(doc.read_text()).get("environment", {})
            info = f", {env.get('date', '?')}, load at the start {env.get('loadavg_start', '?')}"
        parts.append(
            f"Exit {status.strip()}, {took.strip()} s"
            + (f", options `{opts}`" if opts else ", default options")
            + info
            + (" (not 0: a target failed, or a wrong answer stopped it; see the last lines)" if status != "0" else "")
            + "."
        )
        parts += ["", "```text", text_file.read_text().rstrip("\n"), "```"]
    parts.append(END)
    return "\n".join(parts) + "\n"


def main(argv: list[str]) -> int:
    out, readme, names = Path(argv[0]), Path(argv[1]), argv[2:]
    text = readme.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        print(f"{readme}: no result markers ({BEGIN} ... {END})", file=sys.stderr)
        return 2
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    readme.write_text(head + section(out, names) + tail.lstrip("\n"), encoding="utf-8")
    print(f"wrote the results of {', '.join(names)} into {readme}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
