#!/usr/bin/env bash
# The instruction-count regression check of the hot paths: each operation of
# crates/taskcore-hotpaths (src/main.rs) runs under callgrind at N and 2N
# iterations, and (Ir at 2N - Ir at N) / N, the cost of one operation with
# the setup cancelled out, is held against its budget in
# scripts/instructions.budget with a 5% tolerance. Instructions do not depend
# on the machine's load; they do depend on the compiler and valgrind, so the
# budgets name the versions they were measured with (a mismatch is reported,
# and the check still runs).
#
#   scripts/check-instructions.sh            check every budget
#   scripts/check-instructions.sh --print    only print the counts
#   N=5000 scripts/check-instructions.sh     more iterations (default 2000)
#
# Exit 0 when every operation is within its budget + 5% (or when valgrind is
# missing: skipped, saying why), 1 when one is over. An operation more than
# 5% under its budget passes, with a note to lower the budget.
set -euo pipefail
cd "$(dirname "$0")/.."

tolerance_pct=5
budgets=scripts/instructions.budget
n=${N:-2000}
print_only=false
[ "${1:-}" = "--print" ] && print_only=true

if ! command -v valgrind >/dev/null 2>&1; then
    echo "SKIPPED the instruction-count check: valgrind is not installed (apt-get install valgrind)"
    exit 0
fi
if ! valgrind --tool=callgrind --help >/dev/null 2>&1; then
    echo "SKIPPED the instruction-count check: this valgrind has no callgrind tool"
    exit 0
fi

target=${CARGO_TARGET_DIR:-$(pwd)/target}
cargo build --release -q -p taskcore-hotpaths
bin=$target/release/taskcore-hotpaths

have_rustc=$(rustc --version | cut -d' ' -f2)
have_valgrind=$(valgrind --version | sed 's/^valgrind-//')
want_rustc=$(sed -n 's/^# rustc \(.*\)/\1/p' "$budgets")
want_valgrind=$(sed -n 's/^# valgrind \(.*\)/\1/p' "$budgets")
if [ "$have_rustc" != "$want_rustc" ] || [ "$have_valgrind" != "$want_valgrind" ]; then
    echo "note: budgets measured with rustc $want_rustc and valgrind $want_valgrind; this is rustc $have_rustc and valgrind $have_valgrind (counts may differ by a few percent)"
fi

tmp=$(mktemp -d /tmp/taskcore-instr.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# Ir of one run: callgrind's "Collected" line.
collected() {
    valgrind --tool=callgrind --callgrind-out-file="$tmp/$1.$2.out" "$bin" "$1" "$2" 2>&1 |
        sed -n 's/^==[0-9]*== Collected : \([0-9]*\)$/\1/p'
}

ops=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$budgets" | awk '{print $1}')
# Both cores: each operation's two runs in the background, then collected.
for op in $ops; do
    (a=$(collected "$op" "$n"); b=$(collected "$op" $((2 * n))); echo $(((b - a) / n)) >"$tmp/$op.ir") &
done
wait

fail=0
printf '%-16s %10s %10s %8s\n' operation measured budget change
for op in $ops; do
    ir=$(cat "$tmp/$op.ir")
    budget=$(awk -v op="$op" '$1 == op {print $2}' "$budgets")
    pct=$(awk -v m="$ir" -v b="$budget" 'BEGIN { printf "%+.1f%%", (m - b) * 100 / b }')
    verdict=""
    if ! $print_only; then
        if [ "$ir" -gt $((budget + budget * tolerance_pct / 100)) ]; then
            verdict="  OVER BUDGET (tolerance ${tolerance_pct}%)"
            fail=1
        elif [ "$ir" -lt $((budget - budget * tolerance_pct / 100)) ]; then
            verdict="  under budget: lower it in $budgets"
        fi
    fi
    printf '%-16s %10d %10d %8s%s\n' "$op" "$ir" "$budget" "$pct" "$verdict"
done
exit $fail
