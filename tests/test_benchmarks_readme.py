"""benchmarks/README.md holds no figure a script did not print (issue 30 item 4): its measurements
live between the markers `bash benchmarks/run_all.sh` writes, and run_all.sh runs every benchmark."""

from __future__ import annotations

import re

from repo_paths import REPO

README = REPO / "benchmarks" / "README.md"
BEGIN = "<!-- results: written by benchmarks/run_all.sh; do not edit by hand -->"
END = "<!-- results: end -->"
#: Constants of the code, not measurements: the layer size cap, Popen.wait's polling step.
NOT_MEASURED = {"1 MiB", "50 ms"}


def test_every_benchmark_is_run_by_run_all() -> None:
    scripts = sorted(p.stem for p in (REPO / "benchmarks").glob("bench_*.py") if p.stem != "bench_tiers")
    run_all = (REPO / "benchmarks" / "run_all.sh").read_text(encoding="utf-8")
    listed = re.search(r'scripts=\$\{BENCH_SCRIPTS:-"([^"]+)"\}', run_all)
    assert listed is not None and sorted(listed.group(1).split()) == scripts


def test_no_figure_outside_what_run_all_writes() -> None:
    text = README.read_text(encoding="utf-8")
    assert text.count(BEGIN) == 1 and text.count(END) == 1
    head, rest = text.split(BEGIN)
    outside = head + rest.split(END)[1]
    figures = [
        m.group(0)
        for m in re.finditer(r"\d[\d,.]*\s?(?:ms|s|MiB|kB|KiB|x|%)(?!\w)", outside)
        if m.group(0) not in NOT_MEASURED
    ]
    assert figures == [], "a measurement belongs in the section run_all.sh writes"
