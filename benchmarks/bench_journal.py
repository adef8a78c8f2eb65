#!/usr/bin/env python3
"""Journal and policy-compile benchmarks (issue 19): ingest, query, export, compile; not tests.

For each size (default 10,000 and 100,000 events; `--sizes 1000000` for the million) a synthetic
spool in the shape the hook writes (pasture.runtime.journal._record_line on a realistic envelope,
~1.2 kB a line) is ingested by a first `pasture journal --limit 10` (CPU, wall, peak RSS), then timed
against `python -c pass` in the same run, interleaved: `pasture journal --limit 10`, a filtered
`--count` and a filtered `--limit 10`; then export throughput (`export --format jsonl` and `csv` to
/dev/null; `--otlp` to a loopback receiver on 127.0.0.1 that answers 200, at sizes up to 100,000).
Every timed run's answer is checked (the listing's line count, the count itself, exit 0), so a
failure is never timed as a fast answer. Compile, through the installed launcher: the first hook
event after a policy edit (a fresh cache) against a steady event, at 20 / 2,000 rules and at the
most rules one layer's size cap admits (checked to be the allow), that compile against the row's
deadline; a layer just over the cap is refused, and its refusal is checked and reported as one.

    python benchmarks/bench_journal.py [--sizes 10000,100000] [--runs 7] [--rules 20,2000,cap]
                                      [--skip-compile] [--skip-journal] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _measure import Series, environment, exit_0, scratch, spawn, table, verdict, write_json  # noqa: E402

from pasture.install import launcher  # noqa: E402
from pasture.runtime.effective import MAX_LAYER_BYTES  # noqa: E402
from pasture.runtime.journal import _record_line  # noqa: E402

QUERY_RATIO_MAX, COUNT_CPU_MAX, COMPILE_RATIO_MAX = 3.0, 1.0, 5.0
COUNT = "journal --count --decision deny --harness claude-code"
HARNESSES = ("claude-code", "codex", "opencode")
DECISIONS = ("proceed", "proceed", "proceed", "deny", "ask", "observe")


def synthetic_spool(path: Path, n: int) -> int:
    """n records as the hook writes them; returns the spool's size in bytes."""
    base = 1_796_000_000
    with open(path, "wb") as fh:
        chunk = []
        for i in range(n):
            harness = HARNESSES[i % 3]
            decision = DECISIONS[i % len(DECISIONS)]
            session = f"session-{i % 997:04d}"
            envelope = {
                "harness": harness,
                "contract": f"{harness}@1.0.0",
                "host_version": "1.0.0",
                "event": "PreToolUse",
                "semantic": "gate-consultation",
                "identities": {"session": session, "tool-call": f"toolu_{i:09d}"},
                "cwd": "/home/dev/projects/pasture-bench",
                "tool_name": "Bash",
                "tool_kind": "shell",
                "command": f"git status --short && ls -la src/module_{i % 50}/ | head -n 40",
                "tool_input": {
                    "command": f"git status --short && ls -la src/module_{i % 50}/ | head -n 40",
                    "description": "Show the working tree state and the files of one module "
                    "before editing it; a typical shell tool call",
                    "timeout": 120000,
                },
                "transcript_path": f"/home/dev/.claude/projects/pasture-bench/{session}.jsonl",
                "payload_keys": [
                    "session_id",
                    "transcript_path",
                    "cwd",
                    "permission_mode",
                    "hook_event_name",
                    "tool_name",
                    "tool_input",
                    "tool_use_id",
                ],
            }
            record = {
                "at": _at(base + i),
                "harness": harness,
                "contract": envelope["contract"],
                "host_version": "1.0.0",
                "event": "PreToolUse",
                "semantic": "gate-consultation",
                "session": session,
                "tool_name": "Bash",
                "decision": decision,
                "answer": "deny" if decision == "deny" else "proceed",
                "layer": "project" if decision in ("deny", "ask") else None,
                "rule": f"rule-{i % 20}" if decision in ("deny", "ask") else None,
                "gate": "rules:default",
                "reason": "no policy rule matched",
                "failure": None,
                "runtime_ms": 2.345,
                "cpu_ms": 21.5,
                "detail": None,
                "envelope": envelope,
                "uid": f"{base + i}000000000-4242-{i + 1}",
            }
            chunk.append(_record_line(record))
            if len(chunk) >= 5000:
                fh.write(b"".join(chunk))
                chunk = []
        fh.write(b"".join(chunk))
    return path.stat().st_size


def expected_count(n: int, decision: str, harness: str) -> int:
    """How many of synthetic_spool's n records carry this decision and harness."""
    return sum(1 for i in range(n) if DECISIONS[i % len(DECISIONS)] == decision and HARNESSES[i % 3] == harness)


def lines_expected(count: int):
    """A listing must print exactly ``count`` records (a listing that failed is not a fast one)."""

    def check(rc: int, out: bytes, err: bytes) -> str | None:
        got = len(out.splitlines())
        return None if rc == 0 and got == count else f"exit {rc}, {got} lines, not {count}"

    return check


def count_expected(count: int):
    def check(rc: int, out: bytes, err: bytes) -> str | None:
        return None if rc == 0 and out.strip() == str(count).encode() else f"exit {rc}, counted {out.strip()!r}"

    return check


def _at(seconds: int) -> str:
    import time

    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


class _Sink(threading.Thread):
    """An OTLP/HTTP receiver on 127.0.0.1 that counts bytes and answers 200 (no decoding: the client's cost)."""

    def __init__(self):
        super().__init__(daemon=True)
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        sink = self
        self.requests = 0

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                sink.requests += 1
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)

    def run(self):
        self.server.serve_forever()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1/logs"


def policy(n: int, edit: int = 0) -> str:
    kinds = ["shell", "shell", "shell", "write", "edit"]
    rules = []
    for i in range(n):
        kind = kinds[i % len(kinds)]
        matcher = (
            f'command = "forbidden-{i}\\\\s+--(now|force)"'
            if kind == "shell"
            else f'file_path = "(^|/)secret-{i}\\\\.(env|key)$"'
        )
        rules.append(
            f'[[rules]]\nname = "rule-{i}"\ndecision = "{"ask" if i % 4 == 3 else "deny"}"\n'
            f'reason = "rule {i} says no"\ntool_kind = "{kind}"\n{matcher}\n'
        )
    return "\n".join(rules) + f"\n# edit {edit}\n"


def bench_journal(sizes, runs, work: Path, env: dict, pasture: list[str], results: dict, lines: list):
    base = [sys.executable, "-c", "pass"]
    for n in sizes:
        folder = work / f"journal-{n}"
        folder.mkdir()
        journal = folder / "journal.sqlite3"
        spool = folder / "journal.sqlite3.spool"
        size = synthetic_spool(spool, n)
        first = Series(f"first read (ingest) {n}")
        first.runs.append(spawn(pasture + ["journal", "--journal", str(journal), "--limit", "10"], env=env, rss=True))
        if first.runs[-1].rc != 0:
            raise SystemExit(f"ingest of {n} failed rc={first.runs[-1].rc}")
        check = __import__("subprocess").run(
            pasture + ["journal", "--journal", str(journal), "--count"], env=env, capture_output=True, text=True
        )
        counted = int(check.stdout.strip() or 0)
        denies = expected_count(n, "deny", "claude-code")
        in_session = min(10, sum(1 for i in range(n) if i % 997 == 7))
        series = {
            "python -c pass": lambda: spawn(base, env=env, expect=exit_0),
            "journal --limit 10": lambda journal=journal: spawn(
                pasture + ["journal", "--journal", str(journal), "--limit", "10"], env=env, expect=lines_expected(10)
            ),
            COUNT: lambda journal=journal, denies=denies: spawn(
                pasture
                + ["journal", "--journal", str(journal), "--count", "--decision", "deny", "--harness", "claude-code"],
                env=env,
                expect=count_expected(denies),
            ),
            "journal --session S --limit 10": lambda journal=journal, k=in_session: spawn(
                pasture + ["journal", "--journal", str(journal), "--session", "session-0007", "--limit", "10"],
                env=env,
                expect=lines_expected(k),
            ),
        }
        timed = {name: Series(name) for name in series}
        for i in range(runs + 2):
            for name, fn in series.items():
                got = fn()
                if i >= 2:
                    timed[name].runs.append(got)
        rss = {
            name: spawn(argv, env=env, rss=True)
            for name, argv in (
                ("python -c pass", base),
                ("journal --limit 10", pasture + ["journal", "--journal", str(journal), "--limit", "10"]),
            )
        }
        exports = {}
        for fmt in ("jsonl", "csv"):
            exports[fmt] = spawn(
                pasture + ["journal", "export", "--journal", str(journal), "--format", fmt, "-o", "/dev/null"],
                env=env,
                rss=True,
                expect=exit_0,
            )
        if n <= 100_000:
            sink = _Sink()
            sink.start()
            exports["otlp"] = spawn(
                pasture + ["journal", "export", "--journal", str(journal), "--otlp", sink.url],
                env=env,
                rss=True,
                expect=exit_0,
            )
            sink.server.shutdown()
        pass_cpu = timed["python -c pass"].median("cpu")
        row = {
            "events": n,
            "counted": counted,
            "spool_mib": size / 2**20,
            "db_mib": journal.stat().st_size / 2**20,
            "ingest": {
                "cpu": first.runs[0].cpu,
                "wall": first.runs[0].wall,
                "maxrss_mib": first.runs[0].maxrss_kib / 1024,
            },
            "series": {k: v.summary() for k, v in timed.items()},
            "rss_mib": {k: v.maxrss_kib / 1024 for k, v in rss.items()},
            "export": {
                k: {
                    "cpu": v.cpu,
                    "wall": v.wall,
                    "rc": v.rc,
                    "maxrss_mib": v.maxrss_kib / 1024,
                    "records_per_s_wall": n / v.wall if v.wall else None,
                }
                for k, v in exports.items()
            },
        }
        results.setdefault("journal", []).append(row)
        mark = len(lines)
        q = timed["journal --limit 10"].median("cpu")
        c = timed[COUNT].median("cpu")
        s = timed["journal --session S --limit 10"].median("cpu")
        lines.append(
            f"\n{n:,} events: spool {size / 2**20:.0f} MiB -> database {row['db_mib']:.0f} MiB, {counted:,} journaled"
        )
        lines.append(
            table(
                ["measure", "CPU s", "wall s", "peak RSS MiB", "x python -c pass CPU"],
                [
                    [
                        "python -c pass",
                        f"{pass_cpu:.3f}",
                        f"{timed['python -c pass'].median():.3f}",
                        f"{rss['python -c pass'].maxrss_kib / 1024:.0f}",
                        "1.00",
                    ],
                    [
                        "first read (ingest)",
                        f"{first.runs[0].cpu:.2f}",
                        f"{first.runs[0].wall:.2f}",
                        f"{first.runs[0].maxrss_kib / 1024:.0f}",
                        f"{first.runs[0].cpu / pass_cpu:.1f}",
                    ],
                    [
                        "journal --limit 10",
                        f"{q:.3f}",
                        f"{timed['journal --limit 10'].median():.3f}",
                        f"{rss['journal --limit 10'].maxrss_kib / 1024:.0f}",
                        f"{q / pass_cpu:.2f}",
                    ],
                    [
                        "--count --decision deny --harness claude-code",
                        f"{c:.3f}",
                        f"{timed[COUNT].median():.3f}",
                        "-",
                        f"{c / pass_cpu:.2f}",
                    ],
                    [
                        "--session S --limit 10",
                        f"{s:.3f}",
                        f"{timed['journal --session S --limit 10'].median():.3f}",
                        "-",
                        f"{s / pass_cpu:.2f}",
                    ],
                    *[
                        [
                            f"export {k}",
                            f"{v.cpu:.2f}",
                            f"{v.wall:.2f}",
                            f"{v.maxrss_kib / 1024:.0f}",
                            f"{n / v.wall:,.0f} records/s",
                        ]
                        for k, v in exports.items()
                    ],
                ],
            )
        )
        lines.append(f"  {verdict(counted == n)}  every event journaled ({counted:,} of {n:,})")
        lines.append(
            f"  {verdict(q / pass_cpu <= QUERY_RATIO_MAX)}  --limit 10 <= {QUERY_RATIO_MAX:g}x python -c pass "
            f"CPU: {q / pass_cpu:.2f}x"
        )
        lines.append(f"  {verdict(c <= COUNT_CPU_MAX)}  filtered count <= {COUNT_CPU_MAX:g} s CPU: {c:.3f} s")
        lines.append(f"  {verdict(all(v.rc == 0 for v in exports.values()))}  exports exit 0")
        for line in lines[mark:]:
            print(line)
        shutil.rmtree(folder, ignore_errors=True)


def rules_under_cap() -> int:
    """The most rules of policy()'s shape one layer may hold (MAX_LAYER_BYTES; a larger layer is
    refused unread, fail closed)."""
    lo, hi = 1, 100_000
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if len(policy(mid, 10**6).encode()) <= MAX_LAYER_BYTES:
            lo = mid
        else:
            hi = mid - 1
    return lo


def allowed(rc: int, out: bytes, err: bytes) -> str | None:
    """The allow payload matches no rule: exit 0 and no output, as the host reads an allow."""
    return None if rc == 0 and not out.strip() else f"not the allow: exit {rc}"


def refused_over_cap(rc: int, out: bytes, err: bytes) -> str | None:
    ok = rc == 0 and b'"deny"' in out and b"cap of a policy layer" in err
    return None if ok else f"not the size cap's refusal: exit {rc}"


def bench_compile(counts, runs, work: Path, env: dict, lines: list, results: dict):
    from pasture.runtime.deadline import deadline_seconds_for

    project = work / "compile"
    (project / ".pasture").mkdir(parents=True)
    (project / ".git").mkdir()
    # The hook as installed: the launcher `pasture install` writes (absolute interpreter, -I -S).
    written = launcher.ensure(env, "claude-code")
    argv = [
        str(written.path),
        "hook",
        "lifecycle",
        "--harness",
        "claude-code",
        "--event",
        "PreToolUse",
        "--host-version",
        "2.1.328",
    ]
    body = json.dumps(
        {
            "session_id": "s",
            "cwd": str(project),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "ls -la"},
            "tool_use_id": "t",
        }
    ).encode()
    deadline = deadline_seconds_for(60)
    env = dict(env, PASTURE_CACHE_DIR=str(work / "policy-cache"))
    cap = rules_under_cap()
    counts = [cap if c == "cap" else int(c) for c in counts]
    rows = []
    mark = len(lines)
    policy_file = project / ".pasture" / "policy.toml"

    def hook(expect=allowed):
        return spawn(argv, env=env, cwd=project, stdin=body, expect=expect)

    for n in counts:
        edits = [0]
        policy_file.write_text(policy(n), encoding="utf-8")
        steady, first, fresh = Series(f"steady {n}"), Series(f"first {n}"), Series(f"fresh {n}")
        hook()  # warm the cache for the steady series
        repeats = runs if n <= 2000 else max(2, runs // 3)
        for i in range(repeats + 1):
            got = hook()
            if i:
                steady.runs.append(got)
            edits[0] += 1
            policy_file.write_text(policy(n, edits[0]), encoding="utf-8")
            got = hook()
            if i:
                first.runs.append(got)
            shutil.rmtree(env["PASTURE_CACHE_DIR"], ignore_errors=True)  # no earlier compile: every pattern new
            got = hook()
            if i:
                fresh.runs.append(got)
            hook()  # re-warm
        ratio = first.median("cpu") / steady.median("cpu")
        fresh_ratio = fresh.median("cpu") / steady.median("cpu")
        rows.append(
            [
                f"{n:,}",
                f"{steady.median('cpu'):.3f}",
                f"{first.median('cpu'):.3f}",
                f"{first.median():.3f}",
                f"{ratio:.2f}",
                f"{fresh.median('cpu'):.3f}",
                f"{fresh.median():.3f}",
                f"{fresh_ratio:.2f}",
            ]
        )
        results.setdefault("compile", []).append(
            {
                "rules": n,
                "bytes": policy_file.stat().st_size,
                "steady": steady.summary(),
                "first": first.summary(),
                "fresh": fresh.summary(),
                "ratio_cpu": ratio,
                "fresh_ratio_cpu": fresh_ratio,
            }
        )
    # Past the cap: a layer of this shape just over MAX_LAYER_BYTES is refused unread (the project layer
    # is unreadable: the fail-closed row denies). Checked as that refusal, and timed as one, never
    # reported as a compile.
    over = rules_under_cap() + 100
    policy_file.write_text(policy(over), encoding="utf-8")
    refusal = hook(expect=refused_over_cap)
    over_bytes = policy_file.stat().st_size
    results["over_cap"] = {"rules": over, "bytes": over_bytes, "wall": refusal.wall, "cpu": refusal.cpu}
    lines.append(
        f"\npolicy compile through the installed launcher ({written.path}): the first event after an edit"
        "\n(cache miss; the edit is a comment, so every pattern is reused) and the first event with no"
        "\nearlier compile (every pattern new), against a steady event; every run checked to be the allow"
    )
    lines.append(
        table(
            [
                "rules",
                "steady CPU s",
                "edit CPU s",
                "edit wall s",
                "edit/steady",
                "new CPU s",
                "new wall s",
                "new/steady",
            ],
            rows,
        )
    )
    by = {r["rules"]: r for r in results["compile"]}
    if 2000 in by:
        lines.append(
            f"  {verdict(by[2000]['ratio_cpu'] <= COMPILE_RATIO_MAX)}  2,000 rules: first event after an "
            f"edit <= {COMPILE_RATIO_MAX:g}x steady: {by[2000]['ratio_cpu']:.2f}x"
        )
        lines.append(
            f"  {verdict(by[2000]['fresh_ratio_cpu'] <= COMPILE_RATIO_MAX)}  2,000 rules, every pattern new: "
            f"<= {COMPILE_RATIO_MAX:g}x steady: {by[2000]['fresh_ratio_cpu']:.2f}x"
        )
    if cap in by:
        wall = max(by[cap]["first"]["wall"]["max"], by[cap]["fresh"]["wall"]["max"])
        lines.append(
            f"  {verdict(wall < deadline)}  {cap:,} rules ({by[cap]['bytes']:,} bytes, the most of this shape the "
            f"{MAX_LAYER_BYTES:,}-byte layer cap admits) compile within the deadline of a 60 s row ({deadline:g} s): "
            f"{wall:.2f} s wall at most"
        )
    lines.append(
        f"  info  {over:,} rules ({over_bytes:,} bytes) are over the layer cap: refused unread, fail closed "
        f"(checked: the deny, and the cap named on stderr) in {refusal.wall:.3f} s wall"
    )
    for line in lines[mark:]:
        print(line)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--rules", default="20,2000,cap", help="rule counts; cap: the most the layer size cap admits")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--skip-compile", action="store_true")
    ap.add_argument("--skip-journal", action="store_true")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    info = environment()
    work = scratch("pasture-bench-journal-")
    home = work / "home"
    env = {
        "HOME": str(home),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "XDG_CACHE_HOME": str(home / "cache"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_STATE_HOME": str(home / "state"),
        "XDG_DATA_HOME": str(home / "data"),
        "PASTURE_MANAGED_POLICY": str(work / "no-managed.toml"),
    }
    script = shutil.which("pasture", path=str(Path(sys.executable).parent))
    pasture = [script] if script else [sys.executable, "-m", "pasture"]
    print(
        f"pasture journal and compile, {info['date']}, git {info['git']}, python {info['python']}, "
        f"{info['cpus']} CPUs, load {info['loadavg_start']}; pasture = {' '.join(pasture)}"
    )
    results: dict = {"environment": info}
    lines: list[str] = []
    try:
        if not args.skip_journal:
            bench_journal([int(s) for s in args.sizes.split(",") if s], args.runs, work, env, pasture, results, lines)
        if not args.skip_compile:
            bench_compile([s for s in args.rules.split(",") if s], args.runs, work, env, lines, results)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    results["summary"] = lines
    write_json(args.out, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
