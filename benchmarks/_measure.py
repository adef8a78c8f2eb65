"""Shared by the benchmark scripts: spawn a command and measure it, statistics, tables, JSON.

Each measured run is one child process reaped with os.wait4, which returns that child's own
resource usage: wall time (perf_counter around spawn-to-reap), CPU time (user + sys) and peak RSS
(ru_maxrss, KiB on Linux). CPU time is what the program itself costs; wall time also carries
whatever else the machine is doing, which is why every script interleaves the command under test
with a baseline in the same run and reports ratios.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Callable, Sequence

REPO = Path(__file__).resolve().parents[1]


@dataclass
class Run:
    wall: float  # seconds
    cpu: float  # seconds, user + sys of the child (and its own children, reaped by it)
    maxrss_kib: int  # peak RSS; negative: only an upper bound was available (see spawn)
    rc: int


#: What a timed run must have answered: (exit code, stdout, stderr) -> None, or what is wrong.
Expect = Callable[[int, bytes, bytes], "str | None"]


class WrongAnswer(SystemExit):
    """A timed run answered something else than the row claims: its time would measure the wrong
    thing (a refusal is not a fast allow), so the benchmark stops instead of printing it."""


def exit_0(rc: int, out: bytes, err: bytes) -> str | None:
    return None if rc == 0 else f"exit {rc}"


@dataclass
class Series:
    name: str
    runs: list[Run] = field(default_factory=list)

    def values(self, what: str) -> list[float]:
        return [getattr(r, what) for r in self.runs]

    def summary(self) -> dict:
        out: dict = {"n": len(self.runs)}
        for what in ("wall", "cpu"):
            vals = self.values(what)
            out[what] = (
                {"median": statistics.median(vals), "p95": percentile(vals, 95), "min": min(vals), "max": max(vals)}
                if vals
                else None
            )
        rss = [r.maxrss_kib / 1024 for r in self.runs if r.maxrss_kib > 0]
        out["maxrss_mib"] = {"median": statistics.median(rss), "max": max(rss)} if rss else None
        if any(r.maxrss_kib < 0 for r in self.runs):
            bound = [-r.maxrss_kib / 1024 for r in self.runs if r.maxrss_kib < 0]
            out["maxrss_upper_bound_mib"] = {"median": statistics.median(bound), "max": max(bound)}
        out["exit_codes"] = sorted({r.rc for r in self.runs})
        return out

    def rss_mib(self) -> tuple[float, float] | None:
        """(median, max) peak RSS in MiB over the runs that measured it."""
        rss = [r.maxrss_kib / 1024 for r in self.runs if r.maxrss_kib > 0]
        return (statistics.median(rss), max(rss)) if rss else None

    def rss_max_text(self) -> str:
        got = self.rss_mib()
        if got:
            return f"{got[1]:.0f}"
        bound = [-r.maxrss_kib / 1024 for r in self.runs if r.maxrss_kib < 0]
        return f"<={max(bound):.0f}" if bound else "-"

    def median(self, what: str = "wall") -> float:
        return statistics.median(self.values(what))

    def p95(self, what: str = "wall") -> float:
        return percentile(self.values(what), 95)


def percentile(values: Sequence[float], pct: float) -> float:
    """Linear interpolation between closest ranks (numpy's default), on a sorted copy."""
    data = sorted(values)
    if not data:
        raise ValueError("no values")
    if len(data) == 1:
        return data[0]
    pos = (len(data) - 1) * pct / 100
    lo = int(pos)
    hi = min(lo + 1, len(data) - 1)
    return data[lo] + (data[hi] - data[lo]) * (pos - lo)


def _gnu_time() -> str | None:
    path = shutil.which("time", path="/usr/bin:/bin")
    if path is None:
        return None
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return path if "GNU" in out.stdout + out.stderr else None


GNU_TIME = _gnu_time()


def spawn(
    argv: Sequence[str],
    *,
    cwd: Path | None = None,
    env: dict | None = None,
    stdin: bytes | None = None,
    stdout: IO | int = subprocess.DEVNULL,
    stderr: IO | int = subprocess.DEVNULL,
    rss: bool = False,
    expect: Expect | None = None,
) -> Run:
    """Run argv to completion as one child; its own rusage via os.wait4 (not the RUSAGE_CHILDREN sum).

    Peak RSS needs care: on Linux a child's ru_maxrss starts from its parent's RSS (the forked/vforked
    address space is counted before exec replaces it), so a child of this ~20 MiB driver never reports
    less than ~20 MiB. With rss=True the command runs under GNU time (`/usr/bin/time -f %M`), a small
    parent whose report is the command's own peak; that adds ~1 ms of wall and CPU to the run, so
    scripts that compare small timings take memory from separate runs. Without GNU time, ru_maxrss is
    kept and flagged as an upper bound (Run.maxrss_kib is negative).

    ``expect`` checks the run's answer (exit code, stdout, stderr, kept in temp files, so the pipes
    cost nothing while it runs); a wrong answer raises WrongAnswer naming the command and what it said.
    """
    argv = list(argv)
    captured = None
    if expect is not None:
        captured = (tempfile.TemporaryFile(), tempfile.TemporaryFile())
        stdout, stderr = captured
    report = None
    if rss and GNU_TIME:
        fd, report = tempfile.mkstemp(prefix="bench-rss-")
        os.close(fd)
        argv = [GNU_TIME, "-q", "-f", "%M", "-o", report] + argv
    started = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env=env,
        stdout=stdout,
        stderr=stderr,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
    )
    if stdin is not None:
        try:
            proc.stdin.write(stdin)
        except BrokenPipeError:
            pass
        finally:
            proc.stdin.close()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here: keep Popen from waiting again
    maxrss = -usage.ru_maxrss  # an upper bound (see above) unless GNU time measured it
    if report is not None:
        try:
            lines = Path(report).read_text().split()
            maxrss = int(lines[-1])
        except (OSError, ValueError, IndexError):
            pass
        finally:
            os.unlink(report)
    run = Run(wall=wall, cpu=usage.ru_utime + usage.ru_stime, maxrss_kib=maxrss, rc=proc.returncode)
    if captured is not None and expect is not None:
        texts = []
        for fh in captured:
            fh.seek(0)
            texts.append(fh.read())
            fh.close()
        problem = expect(run.rc, texts[0], texts[1])
        if problem is not None:
            raise WrongAnswer(
                f"wrong answer, not timed: {' '.join(map(str, argv))}: {problem}\n"
                f"stdout: {texts[0][:400]!r}\nstderr: {texts[1][:400]!r}"
            )
    return run


def run_checked(argv: Sequence[str], **kwargs) -> subprocess.CompletedProcess:
    """A set-up step (not timed): fail loudly with its output if it fails."""
    result = subprocess.run(list(argv), capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise SystemExit(
            f"set-up step failed ({result.returncode}): {' '.join(map(str, argv))}\n{result.stdout}\n{result.stderr}"
        )
    return result


def console_script(name: str = "pasture") -> tuple[Path | None, Path | None]:
    """(the real console script of this interpreter, what PATH finds) — PATH may hold a pyenv shim."""
    real = Path(sysconfig.get_path("scripts")) / name
    on_path = shutil.which(name)
    return (real if real.is_file() else None), (Path(on_path) if on_path else None)


def is_shell_shim(path: Path | None) -> bool:
    if path is None:
        return False
    try:
        first = path.read_bytes()[:200].split(b"\n", 1)[0]
    except OSError:
        return False
    return first.startswith(b"#!") and (b"bash" in first or first.endswith(b"/sh") or b"env sh" in first)


def offline_prefix() -> list[str]:
    """`unshare -n` (a fresh network namespace: no network at all) where this user may create one."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return []
    try:
        ok = subprocess.run([unshare, "-n", "true"], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        ok = False
    return [unshare, "-n"] if ok else []


def environment() -> dict:
    try:
        rev = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        rev = ""
    try:
        load = os.getloadavg()
    except OSError:
        load = None
    return {
        "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "python": sys.version.split()[0],
        "executable": sys.executable,
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "git": rev,
        "loadavg_start": load,
    }


def loadavg() -> list[float] | None:
    try:
        return list(os.getloadavg())
    except OSError:
        return None


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f}"


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    cells = [[str(c) for c in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(headers)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True))
    out = [line, "  ".join("-" * w for w in widths)]
    for r in cells:
        out.append("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))))
    return "\n".join(out)


def verdict(ok: bool | None) -> str:
    """PASS/FAIL for a target; ``None`` marks a figure that is reported, not judged."""
    return "info" if ok is None else "PASS" if ok else "FAIL"


def write_json(path: str | None, document: dict) -> None:
    if not path:
        return
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, target)
    print(f"\nwrote {target}")


def scratch(prefix: str) -> Path:
    return Path(tempfile.mkdtemp(prefix=prefix))
