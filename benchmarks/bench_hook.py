#!/usr/bin/env python3
"""Benchmark the hook round trip as the host runs it (issue 12, "Claude and Codex command hooks").

    python benchmarks/bench_hook.py [--runs 200] [--rss-runs 30] [--gate-runs 30] [--out results.json]

The command under test is exactly what `pasture install claude-code` records for PreToolUse (the
launcher `<data>/pasture/bin/pasture-hook`, absolute interpreter -I -S, plus the fail-closed tail),
run the way Claude Code and Codex run it: `sh -c '<command>' < payload`. The project holds a
20-rule policy; the allow payload (`ls -la`) matches none of them, so every rule is evaluated.
Baselines, interleaved run by run with every series: `python -I -S -c pass` of the launcher's own
interpreter, and `python -c pass` of this interpreter (a plain start with site-packages, what a
console script costs before it runs a line).

Series: the installed command (allow, warm policy cache: the case every tool call pays), the same
with a deny answer, the same with a policy whose bytes change before every run (cache miss:
tomllib, re, compile), and the console script (`pasture hook lifecycle`, what hooks ran before
the launcher). Peak RSS from separate runs under GNU time; fsync/fdatasync calls per event from
strace where it is installed; the modules the hook loads beyond the bare interpreter's.

Gate kinds (info, `--gate-runs` interleaved runs, 0 to skip): the installed command with a user-layer
gate that runs, once as kind "command" and once as kind "agent" (host claude-code), both calling the
same stand-in judge (a `python -IS` script that answers deny at once, in the format each expects).
The difference is what the agent kind itself costs on the hook path (its imports: asyncio and the
harness, no pydantic; the scratch folder; the seed's prompt); a real judge session adds its own
seconds on top.

Steering (issue 17): the same command answering an allow rule and a rewrite rule of the user layer
(whose [[after]] and [[until]] entries PreToolUse never runs), each judged on CPU p50 <= 2.0x the bare
interpreter's, as the issue states it.

Targets: installed command p50 <= 2.0x `python -I -S -c pass` (aim 1.5x) and <= 1.0x `python -c pass`;
peak RSS <= 1.5x the bare interpreter's; no fsync on the hook path; every run journaled.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _measure import (  # noqa: E402
    GNU_TIME,
    REPO,
    Series,
    console_script,
    environment,
    exit_0,
    loadavg,
    ms,
    scratch,
    spawn,
    table,
    verdict,
    write_json,
)

from pasture.hosts import HOSTS  # noqa: E402
from pasture.install import launcher  # noqa: E402
from pasture.install.adapter import load_adapter  # noqa: E402
from pasture.install.hooktable import with_binary  # noqa: E402
from pasture.journal.db import query  # noqa: E402

RATIO_BARE_MAX, RATIO_BARE_AIM, RATIO_SITE_MAX, RSS_RATIO_MAX = 2.0, 1.5, 1.0, 1.5


def _decision(out: bytes) -> object:
    try:
        return json.loads(out or b"{}").get("hookSpecificOutput", {}).get("permissionDecision")
    except (ValueError, AttributeError):
        return None


# What every timed run of a row must answer (checked run by run: a refusal is not a fast allow).
def allowed(rc: int, out: bytes, err: bytes) -> str | None:
    return None if rc == 0 and not out.strip() else f"not the allow (exit 0, no output): exit {rc}"


def denied(rc: int, out: bytes, err: bytes) -> str | None:
    return None if rc == 0 and _decision(out) == "deny" else f"not the JSON deny: exit {rc}"


def allowed_by_rule(rc: int, out: bytes, err: bytes) -> str | None:
    return None if rc == 0 and _decision(out) == "allow" else f"not the rule's allow: exit {rc}"


def rewritten(rc: int, out: bytes, err: bytes) -> str | None:
    return None if rc == 0 and b'"updatedInput"' in out else f"not the rewrite (updatedInput): exit {rc}"


def twenty_rules() -> str:
    kinds = ["shell", "shell", "shell", "write", "edit"]
    rules = []
    for i in range(20):
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
    rules.append(
        '[[rules]]\nname = "no-rm-rf"\ndecision = "deny"\nreason = "rm -rf is not allowed here"\n'
        'tool_kind = "shell"\ncommand = "rm\\\\s+-rf"\n'
    )
    return "\n".join(rules)


def payload(project: Path, command: str, n: int) -> bytes:
    return json.dumps(
        {
            "session_id": "bench-session-0001",
            "transcript_path": str(project / "transcript.jsonl"),
            "cwd": str(project),
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command, "description": "benchmark command"},
            "tool_use_id": f"toolu_{n:06d}",
        }
    ).encode()


_JUDGE = """import json, sys
sys.stdin.read()
answer = {"decision": "deny", "reason": "stand-in judge"}
print(json.dumps({"type": "result", "is_error": False, "result": json.dumps(answer)} if KIND == "agent" else answer))
"""


def gate_kinds(runs: int, command: str, env: dict, work: Path, python: str) -> tuple[list, dict]:
    """(table rows, summaries) for the installed command with a command gate and an agent gate."""
    project = work / "gated"
    (project / ".pasture").mkdir(parents=True)
    (project / ".git").mkdir()
    envs = {}
    for kind in ("command", "agent"):
        judge = work / f"judge-{kind}"
        judge.write_text(f"#!{python} -IS\nKIND = {kind!r}\n" + _JUDGE)
        judge.chmod(0o755)
        policy = work / f"policy-{kind}.toml"
        policy.write_text(
            f'[gate]\nkind = "command"\ncommand = [{json.dumps(str(judge))}]\n'
            if kind == "command"
            else f'[gate]\nkind = "agent"\nhost = "claude-code"\nbinary = {json.dumps(str(judge))}\n'
        )
        envs[kind] = {**env, "PASTURE_POLICY": str(policy)}
        out = subprocess.run(
            ["/bin/sh", "-c", command],
            input=payload(project, "ls -la", 0),
            capture_output=True,
            cwd=project,
            env=envs[kind],
        )
        if json.loads(out.stdout or b"{}").get("hookSpecificOutput", {}).get("permissionDecision") != "deny":
            raise SystemExit(f"{kind} gate answered rc={out.returncode} stdout={out.stdout!r} stderr={out.stderr!r}")
    timed = {f"hook: {kind} gate, stand-in judge": Series(f"hook: {kind} gate") for kind in envs}
    for i in range(runs + 3):  # 3 untimed warm-up rounds
        for kind, name in zip(envs, timed, strict=True):
            got = spawn(
                ["/bin/sh", "-c", command],
                env=envs[kind],
                cwd=project,
                stdin=payload(project, "ls -la", i),
                expect=denied,
            )
            if i >= 3:
                timed[name].runs.append(got)
    base = timed["hook: command gate, stand-in judge"].median()
    rows = [
        [
            name,
            ms(s.median()),
            ms(s.p95()),
            f"{s.median() / base:.2f}x",
            ms(s.median("cpu")),
            ",".join(map(str, s.summary()["exit_codes"])),
        ]
        for name, s in timed.items()
    ]
    return rows, {name: s.summary() for name, s in timed.items()}


def newest_claude_contract() -> str:
    folders = sorted(
        (REPO / "profiles").glob("claude-code@*"), key=lambda p: tuple(int(x) for x in p.name.split("@")[1].split("."))
    )
    if not folders:
        raise SystemExit("no profiles/claude-code@* contract")
    return folders[-1].name


def fsyncs_per_event(argv: list[str], body: bytes, env: dict, cwd: Path) -> int | None:
    strace = shutil.which("strace")
    if strace is None:
        return None
    out = subprocess.run(
        [strace, "-f", "-c", "-e", "trace=fsync,fdatasync,sync_file_range,msync"] + argv,
        input=body,
        capture_output=True,
        env=env,
        cwd=cwd,
    )
    calls = 0
    for line in out.stderr.decode("utf-8", "replace").splitlines():
        parts = line.split()
        if parts and parts[-1] in ("fsync", "fdatasync", "sync_file_range", "msync"):
            calls += int(parts[3]) if len(parts) >= 5 else int(parts[2])
    return calls


_PROBE = "import sys; sys.stderr.write('MODULES ' + ' '.join(sorted(sys.modules)) + '\\n')"


def modules_beyond_bare(
    python: str, launcher_file: Path, hook_args: list[str], body: bytes, env: dict, cwd: Path
) -> list[str]:
    """What the hook loads beyond `python -I -S -c pass`: the launcher's own code, with sys.modules
    listed when the runtime returns (the launcher itself leaves without teardown, so it cannot)."""
    bare = subprocess.run([python, "-I", "-S", "-c", _PROBE], capture_output=True, env=env, cwd=cwd)
    text = launcher_file.read_text().replace("main(argv, process=True)", "main(argv)")
    text = text.replace("    sys.exit(main(sys.argv[1:]))", "    main(sys.argv[1:])\n    " + _PROBE)
    if _PROBE not in text:
        raise SystemExit("the launcher's shape changed: update modules_beyond_bare()")
    driver = cwd / "launcher-probe.py"
    driver.write_text(text)
    hook = subprocess.run(
        [python, "-I", "-S", str(driver)] + hook_args, input=body, capture_output=True, env=env, cwd=cwd
    )

    def parse(out: bytes) -> set[str]:
        for line in out.decode("utf-8", "replace").splitlines():
            if line.startswith("MODULES "):
                return set(line.split()[1:])
        raise SystemExit(f"no module list: {out[-400:]!r}")

    return sorted(parse(hook.stderr) - parse(bare.stderr))


STEER_SERIES = ("hook: installed command, allow rule", "hook: installed command, rewrite rule")
# Packs (issue 26): a user policy of only `packs = ["recommended"]`, a safe command every pack rule reads
# and a destructive one a pack refuses; judged on CPU p50 <= 2.0x the bare interpreter's.
PACK_SERIES = ("hook: packs recommended, safe command", "hook: packs recommended, pack deny")
UPGRADE_SERIES = "hook: packs recommended, first event after an upgrade"
STEADY_SERIES = "hook: packs recommended, the event after it"
UPGRADE_MAX = 5.0  # issue 26: the first event after a new pack version, against a steady one
PACKS_ONLY = 'packs = ["recommended"]\n'

STEER_RULES = r"""
[[rules]]
name = "read-only"
tool_kind = "shell"
command = "^(ls|cat|git status)\\b"
decision = "allow"

[[rules]]
name = "lease"
tool_kind = "shell"
command = "git\\s+push\\b.*--force\\b(?!-)"
decision = "rewrite"
rewrite = { field = "command", pattern = "--force\\b(?!-)", replace = "--force-with-lease" }
except = ["git.push-force"]  # the git pack (on by default) refuses a force push: the rewrite is its exception

[[after]]
name = "ruff"
tool_kind = ["edit", "write"]
file_path = "\\.py$"
command = ["ruff", "check", "{file_path}"]

[[until]]
name = "tests"
command = ["pytest", "-q"]
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--rss-runs", type=int, default=30)
    ap.add_argument("--gate-runs", type=int, default=30)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)

    info = environment()
    work = scratch("pasture-bench-hook-")
    project = work / "project"
    (project / ".pasture").mkdir(parents=True)
    (project / ".git").mkdir()
    (project / ".pasture" / "policy.toml").write_text(twenty_rules(), encoding="utf-8")
    home = work / "home"
    env = {
        "HOME": str(home),
        "PATH": "/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "XDG_DATA_HOME": str(home / "data"),
        "XDG_CACHE_HOME": str(home / "cache"),
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_STATE_HOME": str(home / "state"),
        "PASTURE_MANAGED_POLICY": str(work / "no-managed.toml"),
    }
    written = launcher.ensure(env, "claude-code")
    contract = newest_claude_contract()
    generated = load_adapter(REPO, contract, HOSTS["claude-code"]).hooks_document()
    installed = with_binary(generated, launcher.shell_word(written.path))
    command = installed["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    host_version = contract.split("@", 1)[1]
    hook_args = [
        "hook",
        "lifecycle",
        "--harness",
        "claude-code",
        "--event",
        "PreToolUse",
        "--host-version",
        host_version,
    ]
    script, _ = console_script()
    python = written.python
    print(
        f"pasture hook round trip, {info['date']}, git {info['git']}, python {info['python']}, "
        f"{info['cpus']} CPUs, load {info['loadavg_start']}"
    )
    print(f"contract {contract}; launcher {written.path} (interpreter {python})\ninstalled command: {command}\n")

    allow, deny = "ls -la", "rm -rf build"

    def run_command(body: bytes, extra_env: dict | None = None) -> subprocess.CompletedProcess:
        return subprocess.run(
            ["/bin/sh", "-c", command], input=body, capture_output=True, cwd=project, env={**env, **(extra_env or {})}
        )

    out = run_command(payload(project, allow, 0))
    if out.returncode != 0 or out.stdout.strip():
        raise SystemExit(f"allow answered rc={out.returncode} stdout={out.stdout!r} stderr={out.stderr!r}")
    out = run_command(payload(project, deny, 0))
    decision = json.loads(out.stdout or b"{}").get("hookSpecificOutput", {}).get("permissionDecision")
    if out.returncode != 0 or decision != "deny":
        raise SystemExit(f"deny answered rc={out.returncode} stdout={out.stdout!r} stderr={out.stderr!r}")
    print(f"answers: allow -> exit 0, empty stdout; deny -> exit 0, {out.stdout.decode().strip()}")
    journal = project / ".pasture" / "journal.sqlite3"
    before = len(query(journal))

    changing = work / "changing"
    (changing / ".pasture").mkdir(parents=True)
    (changing / ".git").mkdir()
    counter = [0]

    def cold(i: int):
        counter[0] += 1  # new bytes every run: the cache cannot hit
        (changing / ".pasture" / "policy.toml").write_text(twenty_rules() + f"\n# edit {counter[0]}\n")
        return spawn(
            ["/bin/sh", "-c", command], env=env, cwd=changing, stdin=payload(changing, allow, i), expect=allowed
        )

    # Steering (issue 17): an allow rule and a rewrite rule of the user layer (a project layer's would
    # be ignored until trusted), beside the 20 rules, with [[after]]/[[until]] entries that PreToolUse
    # never runs (an event without entries of its own pays nothing for them).
    steering = work / "steering"
    (steering / ".pasture").mkdir(parents=True)
    (steering / ".git").mkdir()
    (steering / ".pasture" / "policy.toml").write_text(twenty_rules(), encoding="utf-8")
    steer_policy = work / "steer-user.toml"
    steer_policy.write_text(STEER_RULES, encoding="utf-8")
    steer_env = {**env, "PASTURE_POLICY": str(steer_policy)}
    allowed_command, rewritten_command = "git status", "git push --force origin main"
    for body, want in ((allowed_command, '"permissionDecision": "allow"'), (rewritten_command, '"updatedInput"')):
        out = subprocess.run(
            ["/bin/sh", "-c", command],
            input=payload(steering, body, 0),
            capture_output=True,
            cwd=steering,
            env=steer_env,
        )
        if out.returncode != 0 or want not in out.stdout.decode():
            raise SystemExit(f"{body!r} answered rc={out.returncode} stdout={out.stdout!r} stderr={out.stderr!r}")
    print("answers: allow rule -> permissionDecision allow; rewrite rule -> updatedInput + allow")
    packs_policy = work / "packs-user.toml"
    packs_policy.write_text(PACKS_ONLY, encoding="utf-8")
    packs_env = {**env, "PASTURE_POLICY": str(packs_policy)}
    safe, destructive = "git status && ls -la build | grep x", "git reset --hard HEAD~1"
    out = run_command(payload(project, destructive, 0), {"PASTURE_POLICY": str(packs_policy)})
    if out.returncode != 0 or "pasture pack rule" not in out.stdout.decode():
        raise SystemExit(f"{destructive!r} answered rc={out.returncode} stdout={out.stdout!r} stderr={out.stderr!r}")
    print(f"answers: packs -> {destructive!r} refused by a pack rule")
    # An upgrade of pasture or of a pack changes the compiler's stamp (the pack files' sizes and mtimes):
    # the first event after it recompiles every layer and every pack once. Simulated by moving one
    # shipped pack file's mtime forward before each run (its bytes stay as they are).
    pack_file = Path(
        subprocess.run(
            [python, "-I", "-c", "from pasture.runtime.packs import files; print(files()[0])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    upgrades = [pack_file.stat().st_mtime_ns]

    def upgraded(i: int):
        upgrades[0] += 1_000_000_000
        posix_time = upgrades[0]
        os.utime(pack_file, ns=(posix_time, posix_time))
        return spawn(
            ["/bin/sh", "-c", command], env=packs_env, cwd=project, stdin=payload(project, safe, i), expect=allowed
        )

    sh = ["/bin/sh", "-c", command]
    series = {
        "python -I -S -c pass": lambda i: spawn(
            [python, "-I", "-S", "-c", "pass"], env=env, cwd=project, expect=exit_0
        ),
        "python -c pass": lambda i: spawn([sys.executable, "-c", "pass"], env=env, cwd=project, expect=exit_0),
        "hook: installed command, allow": lambda i: spawn(
            sh, env=env, cwd=project, stdin=payload(project, allow, i), expect=allowed
        ),
        "hook: installed command, deny": lambda i: spawn(
            sh, env=env, cwd=project, stdin=payload(project, deny, i), expect=denied
        ),
        "hook: policy changed before each run": cold,
        "hook: installed command, allow rule": lambda i: spawn(
            sh, env=steer_env, cwd=steering, stdin=payload(steering, allowed_command, i), expect=allowed_by_rule
        ),
        "hook: installed command, rewrite rule": lambda i: spawn(
            sh, env=steer_env, cwd=steering, stdin=payload(steering, rewritten_command, i), expect=rewritten
        ),
        "hook: packs recommended, safe command": lambda i: spawn(
            ["/bin/sh", "-c", command], env=packs_env, cwd=project, stdin=payload(project, safe, i)
        ),
        "hook: packs recommended, pack deny": lambda i: spawn(
            ["/bin/sh", "-c", command], env=packs_env, cwd=project, stdin=payload(project, destructive, i)
        ),
    }
    if script is not None:
        series["hook: console script (before the launcher)"] = lambda i: spawn(
            [str(script)] + hook_args, env=env, cwd=project, stdin=payload(project, allow, i), expect=allowed
        )
    timed = {name: Series(name) for name in series}
    for i in range(args.runs + 5):  # 5 untimed warm-up rounds
        for name, fn in series.items():
            got = fn(i)
            if i >= 5:
                timed[name].runs.append(got)
    # The upgrade runs on their own, after the others: a new stamp makes every cached policy stale, so
    # interleaved with them it would slow whichever series came next. Each round: an upgrade, then the
    # steady event right after it.
    timed[UPGRADE_SERIES], timed[STEADY_SERIES] = Series(UPGRADE_SERIES), Series(STEADY_SERIES)
    upgrade_rounds = max(args.runs // 4, 5)
    original = pack_file.stat()
    try:
        for i in range(upgrade_rounds + 5):
            first = upgraded(i)
            steady = spawn(
                ["/bin/sh", "-c", command], env=packs_env, cwd=project, stdin=payload(project, safe, i), expect=allowed
            )
            if i >= 5:
                timed[UPGRADE_SERIES].runs.append(first)
                timed[STEADY_SERIES].runs.append(steady)
    finally:
        os.utime(pack_file, ns=(original.st_atime_ns, original.st_mtime_ns))
    hook_runs_project = (
        sum(
            len(s.runs)
            for n, s in timed.items()
            if (n.startswith("hook: installed") or n.startswith("hook: console"))
            and n not in STEER_SERIES
            or n in PACK_SERIES
            or n in (UPGRADE_SERIES, STEADY_SERIES)
        )
        + 5 * (len(PACK_SERIES) + 2 + (3 if script is not None else 2))
        + 1
    )  # + the packs answer check above
    journaled = len(query(journal)) - before

    mem = {name: Series(name) for name in ("python -I -S -c pass", "hook: installed command, allow")}
    for i in range(args.rss_runs):
        mem["python -I -S -c pass"].runs.append(
            spawn([python, "-I", "-S", "-c", "pass"], env=env, cwd=project, rss=True)
        )
        mem["hook: installed command, allow"].runs.append(
            spawn(sh, env=env, cwd=project, stdin=payload(project, allow, i), rss=True, expect=allowed)
        )

    def rss(name: str) -> float | None:
        got = mem[name].rss_mib() if name in mem else None
        return got[0] if got else None

    gate_rows, gate_series = gate_kinds(args.gate_runs, command, env, work, python) if args.gate_runs else ([], {})
    fsyncs = fsyncs_per_event(["/bin/sh", "-c", command], payload(project, allow, 1), env, project)
    extra = modules_beyond_bare(python, written.path, hook_args, payload(project, allow, 2), env, project)

    bare, site = timed["python -I -S -c pass"], timed["python -c pass"]
    rows = []
    for name, s in timed.items():
        own = rss(name)
        rows.append(
            [
                name,
                ms(s.median()),
                ms(s.p95()),
                f"{s.median() / bare.median():.2f}x",
                f"{s.median() / site.median():.2f}x",
                ms(s.median("cpu")),
                f"{own:.1f}" if own else "",
                ",".join(map(str, s.summary()["exit_codes"])),
            ]
        )
    print(f"\n{args.runs} interleaved runs each (medians; RSS: {args.rss_runs} separate runs under GNU time)")
    print(table(["command", "p50 ms", "p95 ms", "vs -I -S", "vs -c pass", "cpu p50 ms", "peak RSS MiB", "exit"], rows))
    primary = timed["hook: installed command, allow"]
    r_bare = primary.median() / bare.median()
    r_site = primary.median() / site.median()
    r_rss = (
        (rss("hook: installed command, allow") / rss("python -I -S -c pass"))
        if GNU_TIME and rss("python -I -S -c pass")
        else None
    )
    if gate_rows:
        print(f"\ngate kinds, {args.gate_runs} interleaved runs each (info: the same stand-in judge process for both)")
        print(table(["command", "p50 ms", "p95 ms", "vs command gate", "cpu p50 ms", "exit"], gate_rows))
    print(f"\nmodules the hook loads beyond a bare `python -I -S`: {len(extra)}: {', '.join(extra)}")
    verdicts = {
        f"installed command p50 <= {RATIO_BARE_MAX}x python -I -S -c pass (aim {RATIO_BARE_AIM}x)": (
            r_bare <= RATIO_BARE_MAX,
            f"{r_bare:.2f}x ({primary.median() * 1000:.1f} vs {bare.median() * 1000:.1f} ms)"
            + (" (the aim holds too)" if r_bare <= RATIO_BARE_AIM else ""),
        ),
        f"installed command p50 <= {RATIO_SITE_MAX}x python -c pass": (
            r_site <= RATIO_SITE_MAX,
            f"{r_site:.2f}x ({site.median() * 1000:.1f} ms)",
        ),
        f"peak RSS <= {RSS_RATIO_MAX}x the bare interpreter's": (
            r_rss is not None and r_rss <= RSS_RATIO_MAX,
            f"{r_rss:.2f}x ({rss('hook: installed command, allow'):.1f} vs {rss('python -I -S -c pass'):.1f} MiB)"
            if r_rss
            else "not measured (GNU time missing)",
        ),
        **{  # issue 17 states this target in CPU: the steering series are judged on CPU p50
            f"{name} CPU p50 <= {RATIO_BARE_MAX}x python -I -S -c pass": (
                timed[name].median("cpu") / bare.median("cpu") <= RATIO_BARE_MAX,
                f"{timed[name].median('cpu') / bare.median('cpu'):.2f}x CPU "
                f"(wall {timed[name].median() / bare.median():.2f}x)",
            )
            for name in STEER_SERIES + PACK_SERIES
        },
        f"{UPGRADE_SERIES} CPU p50 <= {UPGRADE_MAX}x the steady packs event": (
            timed[UPGRADE_SERIES].median("cpu") / timed[STEADY_SERIES].median("cpu") <= UPGRADE_MAX,
            f"{timed[UPGRADE_SERIES].median('cpu') / timed[STEADY_SERIES].median('cpu'):.2f}x CPU "
            f"(wall {timed[UPGRADE_SERIES].median() / timed[STEADY_SERIES].median():.2f}x)",
        ),
        "no fsync/fdatasync per event on the hook path": (
            fsyncs == 0,
            "not measured (strace missing)" if fsyncs is None else f"{fsyncs} call(s)",
        ),
        "every hook run in the project journaled": (
            journaled == hook_runs_project,
            f"{journaled} of {hook_runs_project}",
        ),
    }
    print("\ntargets")
    for name, (ok, measured) in verdicts.items():
        print(f"  {verdict(ok)}  {name}: {measured}")
    cold_ratio = timed["hook: policy changed before each run"].median() / bare.median()
    print(f"  info  a policy edit costs one slow event (tomllib, re, compile, cache write): {cold_ratio:.2f}x bare")
    end = loadavg()
    print(f"load average at the end: {end}")
    write_json(
        args.out,
        {
            "environment": info,
            "loadavg_end": end,
            "contract": contract,
            "command": command,
            "series": {n: s.summary() for n, s in timed.items()},
            "ratios": {
                n: {"vs_bare": s.median() / bare.median(), "vs_site": s.median() / site.median()}
                for n, s in timed.items()
            },
            "gate_kinds": gate_series,
            "peak_rss_mib": {n: rss(n) for n in mem},
            "fsyncs_per_event": fsyncs,
            "modules_beyond_bare": extra,
            "journal": {"rows": journaled, "runs": hook_runs_project},
            "verdicts": {n: {"ok": ok, "measured": m} for n, (ok, m) in verdicts.items()},
        },
    )
    shutil.rmtree(work, ignore_errors=True)
    return 0 if all(ok for ok, _ in verdicts.values()) else 1


if __name__ == "__main__":
    started = time.perf_counter()
    code = main()
    print(f"(benchmark took {time.perf_counter() - started:.0f} s)")
    sys.exit(code)
