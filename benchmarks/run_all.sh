#!/usr/bin/env bash
# Regenerate every figure of benchmarks/README.md: run each benchmark as it is today, keep what it
# prints, and write that between the README's result markers (benchmarks/write_results.py).
#
#   bash benchmarks/run_all.sh                      # all four, their default options
#   BENCH_SCRIPTS="bench_hook bench_journal" bash benchmarks/run_all.sh
#   BENCH_ARGS_bench_generate="--no-peer" bash benchmarks/run_all.sh
#
# A script whose target fails exits 1; its output is kept all the same (a FAIL is a figure too).
# A script that finds a wrong answer stops without timing it, and the README says so.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-$(dirname "$here")/.venv/bin/python}
[ -x "$python" ] || python=python3
scripts=${BENCH_SCRIPTS:-"bench_hook bench_generate bench_journal bench_session"}
out=$(mktemp -d "${TMPDIR:-/tmp}/pasture-run-all-XXXXXX")
echo "run_all: $python, results in $out"
for name in $scripts; do
    var="BENCH_ARGS_${name}"
    # shellcheck disable=SC2086  # the extra arguments are words on purpose
    read -r -a extra <<< "${!var:-}"
    echo "== $name ${extra[*]:-}"
    started=$(date +%s)
    "$python" "$here/$name.py" --out "$out/$name.json" "${extra[@]}" 2>&1 | tee "$out/$name.txt"
    status=${PIPESTATUS[0]}
    took=$(( $(date +%s) - started ))
    printf '%s %s %s\n' "$status" "$took" "${extra[*]:-}" > "$out/$name.status"
    echo "== $name: exit $status, $took s"
done
"$python" "$here/write_results.py" "$out" "$here/README.md" $scripts
