#!/usr/bin/env bash
# Runs data/randscen.py SEED under `taskcore run` for each seed in FIRST..LAST
# (default 1..100) and prints the divergences found: the live counterpart of
# recording a random scenario with strace and replaying it.
# usage: scripts/run-randscen.sh [FIRST [LAST]]
# As root the runs use --proc: the scenario's final clean-up finds its
# stopped orphans in /proc, which must show the virtual pids it signals.
set -uo pipefail
cd "$(dirname "$0")/.."
first=${1:-1}; last=${2:-100}
bin=${TASKCORE:-target/release/taskcore}
[ -x "$bin" ] || cargo build --release -q -p taskcore-cli
opts=(); [ "$(id -u)" = 0 ] && [ -e /dev/fuse ] && opts=(--proc)
report=$(mktemp); trap 'rm -f "$report"' EXIT
total=0; bad=0
for seed in $(seq "$first" "$last"); do
    "$bin" run "${opts[@]}" --report "$report" -- python3 data/randscen.py "$seed" >/dev/null 2>&1
    n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["divergences"]))' "$report")
    total=$((total + 1))
    if [ "$n" != 0 ]; then
        bad=$((bad + 1))
        echo "seed $seed: $n divergences"
        python3 -c 'import json,sys; [print("  ", d["pid"], d["call"], d["real"], "(real) vs", d["core"], "(core)") for d in json.load(open(sys.argv[1]))["divergences"][:5]]' "$report"
    fi
done
echo "$bad of $total seeds diverged"
[ "$bad" = 0 ]
