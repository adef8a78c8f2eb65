#!/usr/bin/env python3
"""Recall and false positives of the protection packs (issue 26, "Measured, not timed").

    python benchmarks/bench_packs.py [--out FILE]

Every command of the pack corpus (tests/packs/corpus/<pack>.toml: destructive commands listed under
`deny`/`ask`, safe ones under `proceed`) goes through the hook in this process, as a Claude Code
PreToolUse Bash call answered by pasture.runtime.lifecycle.run (what the installed launcher runs),
with a user policy of only `packs = ["recommended"]`. Counted per corpus (one per pack) and overall:

- recall: destructive commands refused (deny or ask) / destructive commands;
- false positives: safe commands refused / safe commands;
- exact: commands given exactly the corpus's decision (ask where the target is only known at run
  time, deny otherwise, no opinion for the safe ones).

A second table is the packs alone (the built-in guard, which refuses commands that touch pasture's
own files such as `rm -rf ~` by itself, switched off): what the packs catch on their own.
Targets (the issue's, for corpora it does not show us): recall >= 95 %, false positives <= 2 %.
The tests (tests/packs/test_corpus.py) hold every corpus decision; this counts them.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "packs"))
from packcases import PACKS_ALONE, POLICY, REFUSED, cases, decide, environment  # noqa: E402

RECALL_TARGET = 95.0
FP_TARGET = 2.0


def measure(policy: str) -> dict:
    rows: dict = {}
    with tempfile.TemporaryDirectory(prefix="bench-packs-") as tmp:
        folder = Path(tmp)
        env = environment(folder, policy)
        for case in cases():
            decision, _ = decide(case.command, env, folder)
            for key in (case.pack, "overall"):
                row = rows.setdefault(key, {"destructive": 0, "refused": 0, "safe": 0, "false_pos": 0, "exact": 0})
                row["exact"] += decision == case.expected
                if case.expected in REFUSED:
                    row["destructive"] += 1
                    row["refused"] += decision in REFUSED
                else:
                    row["safe"] += 1
                    row["false_pos"] += decision in REFUSED
                    if decision in REFUSED:
                        row.setdefault("refused_safe", []).append(case.command)
                if case.expected in REFUSED and decision not in REFUSED:
                    row.setdefault("missed", []).append(case.command)
    return rows


def pct(part: int, whole: int) -> float:
    return 100.0 * part / whole if whole else 0.0


def table(title: str, rows: dict) -> list:
    lines = [
        title,
        f"{'pack':<14}{'destructive':>12}{'refused':>9}{'recall':>9}"
        f"{'safe':>7}{'refused':>9}{'false pos':>11}{'exact':>9}",
    ]
    for name in [*sorted(k for k in rows if k != "overall"), "overall"]:
        r = rows[name]
        total = r["destructive"] + r["safe"]
        lines.append(
            f"{name:<14}{r['destructive']:>12}{r['refused']:>9}{pct(r['refused'], r['destructive']):>8.1f}%"
            f"{r['safe']:>7}{r['false_pos']:>9}{pct(r['false_pos'], r['safe']):>10.1f}%"
            f"{pct(r['exact'], total):>8.1f}%"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="also write the figures as JSON here")
    args = parser.parse_args()
    hook, alone = measure(POLICY), measure(PACKS_ALONE)
    lines = table('hook, packs = ["recommended"] (the built-in guard on, as installed)', hook)
    lines += ["", *table("packs alone (the built-in guard off)", alone), ""]
    verdicts = []
    for label, rows in (("hook", hook), ("packs alone", alone)):
        o = rows["overall"]
        recall, fp = pct(o["refused"], o["destructive"]), pct(o["false_pos"], o["safe"])
        verdicts.append(recall >= RECALL_TARGET and fp <= FP_TARGET)
        ok_recall, ok_fp = recall >= RECALL_TARGET, fp <= FP_TARGET
        lines.append(f"{'PASS' if ok_recall else 'FAIL'}  {label}: recall {recall:.1f} % >= {RECALL_TARGET:.0f} %")
        lines.append(f"{'PASS' if ok_fp else 'FAIL'}  {label}: false positives {fp:.1f} % <= {FP_TARGET:.0f} %")
    for label, rows in (("hook", hook), ("packs alone", alone)):
        for name, r in sorted(rows.items()):
            if name == "overall":
                continue
            for command in r.get("missed", []):
                lines.append(f"missed ({label}, {name}): {command!r}")
            for command in r.get("refused_safe", []):
                lines.append(f"refused safe ({label}, {name}): {command!r}")
    print("\n".join(lines))
    if args.out:
        Path(args.out).write_text(json.dumps({"hook": hook, "packs_alone": alone}, indent=2) + "\n", encoding="utf-8")
    return 0 if all(verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
