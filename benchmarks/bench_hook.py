#!/usr/bin/env python3
"""Benchmark the hook runtime round trip (issue 4, "Performance").

    python benchmarks/bench_hook.py [--runs 200] [--importtime-runs 5] [--out results.json]

One full round trip = spawn `pasture hook lifecycle --harness claude-code --event PreToolUse
--host-version <pinned>`, read + parse the payload on stdin, resolve the contract row from the
generated tables, consult the rules gate (a small TOML policy in the temp project), commit the
journal row (SQLite, WAL), write the native answer. Timed against a bare `python -c pass` of the same
interpreter, interleaved run by run so machine drift hits both alike; >= 200 runs each.

Spawned these ways, all interleaved with the bare interpreter (the first is the one judged):
  console script      the real console script (sysconfig scripts dir), allow path: what `pasture` is
                      on a plain pip/venv/pipx install, and what `${PASTURE_BIN:-pasture}` reaches there
  -m                  sys.executable -m generator.entry, allow path
  no bytecode cache   -m from a fresh export of generator/ + generated/python with
                      PYTHONDONTWRITEBYTECODE=1: every run compiles pasture's modules from source
  deny                the console script, a command the policy denies (native deny JSON on stdout)
  adapter, host PATH  exactly what the generated Claude adapter runs, `sh -c '${PASTURE_BIN:-pasture}
                      hook ...'`, with a host's PATH (on a pyenv machine: the bash shim + `pyenv exec`)
  adapter, PASTURE_BIN the same with PASTURE_BIN set to the console script's absolute path
Peak RSS comes from separate runs under GNU time (see _measure.spawn).

Targets: p50 and p95 ratio hook / bare <= 2.0; peak RSS within 1.5x of the bare interpreter's; the
hook path imports only the standard library and the generated tables (-X importtime is checked for
click, pydantic, jinja2, yaml, black and any other non-stdlib module).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _measure import (GNU_TIME, REPO, Series, console_script, environment, is_shell_shim, loadavg, ms, run_checked,  # noqa: E402
                      scratch, spawn, table, verdict, write_json)

RATIO_MAX = 2.0
RSS_RATIO_MAX = 1.5
FORBIDDEN = ("click", "pydantic", "pydantic_core", "jinja2", "markupsafe", "yaml", "black", "packaging")

POLICY = """\
# A small rules policy: four rules, first match wins; nothing matches `ls -la`, so the allow path
# evaluates every rule before the default.
[gate]
kind = "rules"
default = "proceed"

[[rules]]
name = "no-rm-rf"
decision = "deny"
reason = "rm -rf is not allowed in this project"
tool_kind = "shell"
command = "rm\\\\s+-(rf|fr)\\\\b"

[[rules]]
name = "confirm-push"
decision = "ask"
reason = "pushing needs a human"
tool_kind = "shell"
command = "^git\\\\s+push\\\\b"

[[rules]]
name = "no-env-writes"
decision = "deny"
reason = "secrets files are read-only"
tool_kind = ["write", "edit"]
file_path = "(^|/)\\\\.env(\\\\.|$)"

[[rules]]
name = "no-plain-http"
decision = "deny"
reason = "fetch over https only"
event = ["PreToolUse", "tool.execute.before"]
[rules.input]
url = "^http://"
"""


def claude_contract() -> tuple[str, str]:
    """(contract id, host version) of the committed Claude contract the adapters pin."""
    def key(folder: Path) -> tuple:
        return tuple(int(x) if x.isdigit() else 0 for x in folder.name.split("@", 1)[1].split("."))

    folders = sorted((REPO / "generated").glob("claude-code@*"), key=key)
    if not folders:
        raise SystemExit("no generated/claude-code@* contract")
    contract = folders[-1].name
    return contract, contract.split("@", 1)[1]


def host_path() -> str:
    """PATH as a host started from the user's shell sees it.

    Running this script through a pyenv shim (`python ...`) makes `pyenv exec` prepend the selected
    version's bin/ (and its own libexec/plugin dirs) to PATH, so children find the real console script
    first. A host launched from a shell has the shims dir there instead: drop what pyenv exec prepended.
    PASTURE_BENCH_HOST_PATH overrides.
    """
    if os.environ.get("PASTURE_BENCH_HOST_PATH"):
        return os.environ["PASTURE_BENCH_HOST_PATH"]
    entries = os.environ.get("PATH", "").split(os.pathsep)
    root = os.environ.get("PYENV_ROOT")
    if root:
        prepended = (os.path.join(root, "versions") + os.sep, os.path.join(root, "libexec"),
                     os.path.join(root, "plugins") + os.sep)
        while entries and entries[0].startswith(prepended) and not entries[0].endswith("shims"):
            entries.pop(0)
    return os.pathsep.join(entries)


def payload(project: Path, command: str, n: int) -> bytes:
    return json.dumps({
        "session_id": "bench-session-0001",
        "transcript_path": str(project / "transcript.jsonl"),
        "cwd": str(project),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "benchmark command"},
        "tool_use_id": f"toolu_bench_{n:06d}",
    }).encode()


def importtime(argv: list[str], stdin: bytes | None, env: dict, cwd: Path) -> dict[str, tuple[int, int, int]]:
    """module -> (self us, cumulative us, nesting level) from one `-X importtime` run."""
    out = subprocess.run(argv, input=stdin, capture_output=True, env=env, cwd=cwd)
    mods: dict[str, tuple[int, int, int]] = {}
    for line in out.stderr.decode("utf-8", "replace").splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, cum, raw = line.split(":", 1)[1].split("|")
        level = (len(raw) - len(raw.lstrip(" ")) - 1) // 2
        mods[raw.strip()] = (int(self_us), int(cum), level)
    return mods


_DUMP_MODULES = "import sys; sys.stderr.write('\\nMODULES ' + ' '.join(sorted(sys.modules)) + '\\n')"


def loaded_modules(argv: list[str], stdin: bytes | None, env: dict, cwd: Path) -> set[str]:
    """sys.modules at the end of a run (what really loaded; -X importtime also lists failed imports)."""
    out = subprocess.run(argv, input=stdin, capture_output=True, env=env, cwd=cwd)
    for line in out.stderr.decode("utf-8", "replace").splitlines():
        if line.startswith("MODULES "):
            return set(line.split()[1:])
    raise SystemExit(f"no module list from {argv}: {out.stderr[-500:]!r}")


def import_report(py: str, hook_args: list[str], body: bytes, env: dict, cwd: Path, runs: int) -> dict:
    # The console script's own code: `from generator.entry import main; sys.exit(main())`. Driven by
    # -c here so the interpreter can list sys.modules after main() returns (argv kept identical).
    driver = ("import sys; sys.argv[0] = 'pasture'; from generator.entry import main; rc = main(); "
              + _DUMP_MODULES)
    bare_loaded = loaded_modules([py, "-c", _DUMP_MODULES], None, env, cwd)
    hook_loaded = loaded_modules([py, "-c", driver] + hook_args, body, env, cwd)
    bare_runs = [importtime([py, "-X", "importtime", "-c", "pass"], None, env, cwd) for _ in range(runs)]
    hook_runs = [importtime([py, "-X", "importtime", "-c", driver] + hook_args, body, env, cwd)
                 for _ in range(runs)]
    bare_mods = set().union(*bare_runs)
    hook_mods = set().union(*hook_runs) & hook_loaded  # drop imports that failed (copy's org.python.core)
    extra = sorted(hook_mods - bare_mods)

    def med(name: str, idx: int) -> float:
        return statistics.median(r[name][idx] for r in hook_runs if name in r)

    stdlib = set(sys.stdlib_module_names)
    third_party = []
    for name in sorted(hook_loaded - bare_loaded):
        top = name.split(".", 1)[0]
        if top in stdlib or top in ("generator", "pasture_contracts"):
            continue
        third_party.append(name)
    forbidden = [m for m in hook_loaded if m.split(".", 1)[0] in FORBIDDEN]
    site_level = sorted(m for m in bare_loaded if m.split(".", 1)[0] not in stdlib and not m.startswith("_")
                        and m.split(".", 1)[0] not in ("encodings", "site", "sitecustomize"))
    # Top offenders among what the hook path adds: by cumulative time of imports made at the top of
    # the import tree (level 0, i.e. not counted inside another), and by self time overall.
    tops = sorted(((med(m, 1), m) for m in extra if min(r[m][2] for r in hook_runs if m in r) == 0), reverse=True)
    selfs = sorted(((med(m, 0), m) for m in extra), reverse=True)
    total_extra = sum(med(m, 0) for m in extra)
    return {
        "modules_loaded_beyond_bare": sorted(hook_loaded - bare_loaded),
        "modules_beyond_bare": len(extra),
        "self_us_beyond_bare": total_extra,
        "top_cumulative": [{"module": m, "cumulative_us": t} for t, m in tops[:15]],
        "top_self": [{"module": m, "self_us": t} for t, m in selfs[:15]],
        "third_party_on_hook_path": third_party,
        "forbidden_on_hook_path": sorted(forbidden),
        "non_stdlib_loaded_by_site_for_every_python": site_level,
        "all_beyond_bare": extra,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=200, help="runs per series (>= 200 for the report)")
    ap.add_argument("--importtime-runs", type=int, default=5)
    ap.add_argument("--rss-runs", type=int, default=30, help="separate runs for peak RSS (under GNU time)")
    ap.add_argument("--out", default=None, help="write the results as JSON here (default: stdout only)")
    args = ap.parse_args(argv)

    env_info = environment()
    py = sys.executable
    script, on_path = console_script()
    if script is None:
        raise SystemExit("the `pasture` console script is not installed for this interpreter (pip install -e .)")
    hpath = host_path()
    found = shutil.which("pasture", path=hpath)
    adapter_pasture = Path(found) if found else None
    shim = is_shell_shim(adapter_pasture)
    contract, host_version = claude_contract()
    hook_args = ["hook", "lifecycle", "--harness", "claude-code", "--event", "PreToolUse", "--host-version",
                 host_version]
    adapter_cmd = "${PASTURE_BIN:-pasture} " + shlex.join(hook_args)  # generator/render/commands.py's shape
    project = scratch("pasture-bench-hook-")
    (project / ".pasture").mkdir()
    (project / ".pasture" / "policy.toml").write_text(POLICY, encoding="utf-8")
    journal = project / ".pasture" / "journal.sqlite3"
    # Python's default bytecode behaviour (caches read, and written where missing or stale: the untimed
    # warm-up rounds write them), as on a normal install; the "no bytecode cache" series shows the cost
    # when they cannot be written (PYTHONDONTWRITEBYTECODE=1 and no __pycache__).
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PASTURE_", "CLAUDE_")) and k != "PYTHONDONTWRITEBYTECODE"}
    nocache = project / "fresh-checkout"  # generator/ + generated/python at HEAD, without __pycache__
    nocache.mkdir()
    archive = subprocess.run(["git", "-C", str(REPO), "archive", "--format=tar", "HEAD", "generator", "generated/python"],
                             capture_output=True)
    if archive.returncode != 0:
        raise SystemExit(f"git archive failed: {archive.stderr.decode(errors='replace')}")
    subprocess.run(["tar", "-x", "-C", str(nocache)], input=archive.stdout, check=True)
    nocache_env = dict(env, PYTHONDONTWRITEBYTECODE="1")
    allow, deny = "ls -la", "rm -rf build"
    adapter_env = dict(env, PATH=hpath)
    pinned_env = dict(adapter_env, PASTURE_BIN=str(script))

    print(f"pasture hook round-trip benchmark, {env_info['date']}, git {env_info['git']}, python "
          f"{env_info['python']}, {env_info['cpus']} CPUs, load {env_info['loadavg_start']}")
    print(f"interpreter: {py}\nconsole script: {script}\nthis process's PATH finds `pasture` at: {on_path}\n"
          f"a host's PATH (shell PATH, see host_path()) finds it at: {adapter_pasture}"
          + (" -- a shell shim: the adapters' `${PASTURE_BIN:-pasture}` reaches the console script through it"
             if shim else ""))
    print(f"contract {contract}, Claude PreToolUse, policy {project / '.pasture' / 'policy.toml'}\n")

    # -- correctness of the set-up: the answers the host would read ----------------------------------
    out = subprocess.run([str(script)] + hook_args, input=payload(project, allow, 0), capture_output=True,
                         env=env, cwd=project)
    if out.returncode != 0 or out.stdout.strip():
        raise SystemExit(f"allow path answered rc={out.returncode} stdout={out.stdout!r} stderr={out.stderr!r}")
    out = subprocess.run([str(script)] + hook_args, input=payload(project, deny, 0), capture_output=True,
                         env=env, cwd=project)
    answer = json.loads(out.stdout or b"{}").get("hookSpecificOutput", {})
    if out.returncode != 0 or answer.get("permissionDecision") != "deny":
        raise SystemExit(f"deny path answered rc={out.returncode} stdout={out.stdout!r} stderr={out.stderr!r}")
    print(f"answers: allow -> exit 0, empty stdout; deny -> exit 0, {out.stdout.decode().strip()}")
    rows_before = sqlite3.connect(journal).execute("SELECT count(*) FROM events").fetchone()[0]

    series = {
        "python -c pass": (lambda i: spawn([py, "-c", "pass"], env=env, cwd=project)),
        "hook: console script": (lambda i: spawn([str(script)] + hook_args, env=env, cwd=project,
                                                  stdin=payload(project, allow, i))),
        "hook: python -m generator.entry": (lambda i: spawn([py, "-m", "generator.entry"] + hook_args, env=env,
                                                             cwd=project, stdin=payload(project, allow, i))),
        "hook: no bytecode cache (-m, fresh checkout)": (lambda i: spawn(
            [py, "-m", "generator.entry"] + hook_args, env=nocache_env, cwd=nocache, stdin=payload(project, allow, i))),
        "hook: console script, deny": (lambda i: spawn([str(script)] + hook_args, env=env, cwd=project,
                                                        stdin=payload(project, deny, i))),
        "hook: as the adapter runs it (sh -c, host PATH)": (lambda i: spawn(["sh", "-c", adapter_cmd], env=adapter_env,
                                                                             cwd=project, stdin=payload(project, allow, i))),
        "hook: adapter with PASTURE_BIN=<console script>": (lambda i: spawn(["sh", "-c", adapter_cmd], env=pinned_env,
                                                                             cwd=project, stdin=payload(project, allow, i))),
    }
    timed = {name: Series(name) for name in series}
    for i in range(args.runs + 5):  # 5 untimed warm-up rounds
        for name, fn in series.items():
            run = fn(i)
            if i >= 5:
                timed[name].runs.append(run)
    # Peak RSS from separate interleaved runs under GNU time (see _measure.spawn: a direct child of this
    # driver inherits the driver's RSS in ru_maxrss; the ~1 ms GNU time adds stays out of the timings).
    mem = {name: Series(name) for name in ("python -c pass", "hook: console script", "hook: python -m generator.entry")}
    for i in range(args.rss_runs):
        for name in mem:
            if name == "python -c pass":
                mem[name].runs.append(spawn([py, "-c", "pass"], env=env, cwd=project, rss=True))
            elif name == "hook: console script":
                mem[name].runs.append(spawn([str(script)] + hook_args, env=env, cwd=project,
                                            stdin=payload(project, allow, i), rss=True))
            else:
                mem[name].runs.append(spawn([py, "-m", "generator.entry"] + hook_args, env=env, cwd=project,
                                            stdin=payload(project, allow, i), rss=True))

    def rss(name: str) -> float | None:
        got = mem[name].rss_mib() if name in mem else None
        return got[0] if got else None

    hook_runs = (sum(len(s.runs) for n, s in timed.items() if n.startswith("hook")) + 5 * (len(series) - 1)
                 + sum(len(s.runs) for n, s in mem.items() if n.startswith("hook")))
    rows_after = sqlite3.connect(journal).execute("SELECT count(*) FROM events").fetchone()[0]
    journaled = rows_after - rows_before

    bare = timed["python -c pass"]
    rows = []
    for name, s in timed.items():
        own, base = rss(name), rss("python -c pass")
        rows.append([name, ms(s.median()), ms(s.p95()), f"{s.median() / bare.median():.2f}x",
                     f"{s.p95() / bare.p95():.2f}x", ms(s.median("cpu")), f"{s.median('cpu') / bare.median('cpu'):.2f}x",
                     f"{own:.1f}" if own else "-", f"{own / base:.2f}x" if own and base else "-",
                     ",".join(map(str, s.summary()["exit_codes"]))])
    print(f"{args.runs} interleaved runs each")
    print(table(["command", "p50 ms", "p95 ms", "p50 ratio", "p95 ratio", "cpu p50 ms", "cpu ratio",
                 "peak RSS MiB", "RSS ratio", "exit"], rows))
    print(f"(peak RSS: median of {args.rss_runs} separate runs under GNU time)" if GNU_TIME else
          "(peak RSS not measured: GNU time is missing)")
    print(f"journal: {journaled} rows committed for {hook_runs} hook runs")

    imports = import_report(py, hook_args, payload(project, allow, 0), env, project, args.importtime_runs)
    print(f"\n-X importtime, hook path vs `python -c pass` (median of {args.importtime_runs} runs): "
          f"{imports['modules_beyond_bare']} modules beyond the bare interpreter's, "
          f"{imports['self_us_beyond_bare'] / 1000:.1f} ms of import self-time")
    print(table(["top imports (cumulative)", "ms"],
                [[t["module"], f"{t['cumulative_us'] / 1000:.1f}"] for t in imports["top_cumulative"][:12]]))
    print(table(["top imports (self)", "ms"],
                [[t["module"], f"{t['self_us'] / 1000:.1f}"] for t in imports["top_self"][:12]]))
    if imports["forbidden_on_hook_path"]:
        print(f"ASSERTION FAILED: third-party modules on the hook path: {imports['forbidden_on_hook_path']}")
    else:
        print(f"assert: none of {', '.join(FORBIDDEN)} is imported on the hook path: OK")
    if imports["third_party_on_hook_path"]:
        print(f"non-stdlib modules the hook path adds (other than generator.*, pasture_contracts.*): "
              f"{imports['third_party_on_hook_path']}")
    else:
        print("the hook path adds only standard-library modules, generator.* and pasture_contracts.*")
    if imports["non_stdlib_loaded_by_site_for_every_python"]:
        print(f"(loaded by site/.pth files for every interpreter start, bare included: "
              f"{', '.join(imports['non_stdlib_loaded_by_site_for_every_python'])})")

    primary = timed["hook: console script"]
    p50_ratio, p95_ratio = primary.median() / bare.median(), primary.p95() / bare.p95()
    rss_ratio = (rss("hook: console script") / rss("python -c pass")) if GNU_TIME and rss("python -c pass") else None
    cpu_ratio = primary.median("cpu") / bare.median("cpu")
    verdicts = {
        f"round trip p50 / bare <= {RATIO_MAX}": {"ok": p50_ratio <= RATIO_MAX, "measured": f"{p50_ratio:.2f}x "
            f"({primary.median() * 1000:.1f} ms vs {bare.median() * 1000:.1f} ms; CPU {cpu_ratio:.2f}x)"},
        f"round trip p95 / bare p95 <= {RATIO_MAX}": {"ok": p95_ratio <= RATIO_MAX, "measured": f"{p95_ratio:.2f}x "
            f"({primary.p95() * 1000:.1f} ms vs {bare.p95() * 1000:.1f} ms)"},
        f"peak RSS <= {RSS_RATIO_MAX}x bare": {"ok": rss_ratio is not None and rss_ratio <= RSS_RATIO_MAX,
                                              "measured": f"{rss_ratio:.2f}x ({rss('hook: console script'):.1f} MiB "
                                              f"vs {rss('python -c pass'):.1f} MiB)" if rss_ratio else "not measured"},
        "hook path imports no third-party module": {"ok": not imports["forbidden_on_hook_path"]
                                                    and not imports["third_party_on_hook_path"],
                                                    "measured": ", ".join(imports["forbidden_on_hook_path"]
                                                                          + imports["third_party_on_hook_path"]) or "none"},
        "every hook run committed a journal row": {"ok": journaled == hook_runs,
                                                   "measured": f"{journaled} of {hook_runs}"},
    }
    print("\ntargets (primary: the console script, allow path)")
    for name, v in verdicts.items():
        print(f"  {verdict(v['ok'])}  {name}: {v['measured']}")
    for name in ("hook: python -m generator.entry", "hook: no bytecode cache (-m, fresh checkout)",
                 "hook: as the adapter runs it (sh -c, host PATH)", "hook: adapter with PASTURE_BIN=<console script>"):
        other = timed[name]
        print(f"  info  {name}{' (pyenv shim)' if shim and 'host PATH' in name else ''}: "
              f"p50 {other.median() / bare.median():.2f}x, p95 {other.p95() / bare.p95():.2f}x of bare")
    missed = [n for n, v in verdicts.items() if not v["ok"]]
    if missed:
        print(f"\nMISSED: {', '.join(missed)}")
    end_load = loadavg()
    print(f"load average at the end: {end_load}")
    results = {
        "environment": env_info, "loadavg_end": end_load, "contract": contract, "hook_args": hook_args,
        "console_script": str(script), "path_pasture": str(on_path) if on_path else None,
        "host_path": hpath, "host_path_pasture": str(adapter_pasture) if adapter_pasture else None,
        "host_path_pasture_is_shell_shim": shim,
        "adapter_command": adapter_cmd, "policy": POLICY,
        "targets": {"ratio_max": RATIO_MAX, "rss_ratio_max": RSS_RATIO_MAX},
        "series": {n: s.summary() for n, s in timed.items()},
        "ratios": {n: {"p50": s.median() / bare.median(), "p95": s.p95() / bare.p95(),
                       "cpu_p50": s.median("cpu") / bare.median("cpu")} for n, s in timed.items()},
        "peak_rss": {n: {"median_mib": rss(n), "runs": len(m.runs)} for n, m in mem.items()},
        "rss_ratio": rss_ratio,
        "journal": {"rows": journaled, "hook_runs": hook_runs},
        "imports": imports, "verdicts": verdicts,
        "raw": {n: [r.__dict__ for r in s.runs] for n, s in timed.items()},
    }
    write_json(args.out, results)
    shutil.rmtree(project, ignore_errors=True)
    return 0


if __name__ == "__main__":
    t0 = time.perf_counter()
    code = main()
    print(f"(benchmark took {time.perf_counter() - t0:.0f} s)")
    sys.exit(code)
