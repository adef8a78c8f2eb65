"""Side by side: the installed hook command with the launcher vs the console script vs bare Python.

A quick check for issue 9 / 12 (the lead folds the launcher into bench_hook.py). Each series runs a
Claude PreToolUse round trip the way the host runs it, ``sh -c '<command>' < payload``, in a temp
project without a policy; the baseline is ``python -I -S -c pass``. Runs are interleaved; ratios of
medians are what counts on this shared machine.

    python benchmarks/bench_launcher.py [--runs 60]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _measure import Series, ms, scratch, spawn, table  # noqa: E402

from generator.install import launcher  # noqa: E402
from generator.install.hooktable import with_binary  # noqa: E402
from generator.install.adapter import load_adapter  # noqa: E402

CONTRACT = "claude-code@2.1.328"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=60)
    args = parser.parse_args()
    work = scratch("bench-launcher-")
    data = work / "data"
    project = work / "project"
    project.mkdir()
    env = {"XDG_DATA_HOME": str(data), "HOME": str(work), "PATH": "/usr/bin:/bin"}
    written = launcher.ensure(env, "claude-code")
    generated = load_adapter(Path(__file__).resolve().parents[1], CONTRACT).hooks_document()
    installed = with_binary(generated, launcher.shell_word(written.path))
    command = installed["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    old = generated["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    script = shutil.which("pasture")
    payload = json.dumps({"session_id": "bench", "cwd": str(project), "hook_event_name": "PreToolUse",
                          "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": "t1"}).encode()
    series = {
        "python -I -S -c pass": (Series("bare"), [written.python, "-I", "-S", "-c", "pass"], {}),
        "launcher (installed command)": (Series("launcher"), ["/bin/sh", "-c", command], {}),
        "console script on PATH (old)": (Series("script"), ["/bin/sh", "-c", old],
                                         {"PATH": f"{Path(script).parent}:/usr/bin:/bin"} if script else None),
    }
    for _ in range(3):  # warm caches and bytecode
        for _, argv, extra in series.values():
            if extra is not None:
                spawn(argv, cwd=project, env={**env, **extra}, stdin=payload)
    for _ in range(args.runs):
        for s, argv, extra in series.values():
            if extra is None:
                continue
            run = spawn(argv, cwd=project, env={**env, **extra}, stdin=payload)
            if run.rc != 0:
                raise SystemExit(f"{s.name} exited {run.rc}")
            s.runs.append(run)
    base = series["python -I -S -c pass"][0].median()
    rows = [[name, ms(s.median()), ms(s.p95()), f"{s.median() / base:.2f}x"]
            for name, (s, _, _) in series.items() if s.runs]
    print(table(["series", "p50 wall", "p95 wall", "p50 / bare"], rows))
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
