#!/bin/bash
# Runs one fuzz target with libFuzzer (cargo-fuzz, nightly) for SECONDS,
# starting from and adding to its corpus in fuzz/corpus/TARGET; crashes go
# to fuzz/artifacts/TARGET. Then minimises the corpus.
#
# usage: scripts/fuzz.sh TARGET SECONDS
#   TARGET: strace | replay | core_api | procfs | mm | maps
# Needs: rustup's nightly toolchain and `cargo install cargo-fuzz`.
# A crash: copy the artifact into fuzz/regressions/TARGET/ (replayed by
# `cargo test -p taskcore-fuzz`), fix, and re-run.
set -eu
cd "$(dirname "$0")/.."
target=$1
secs=$2
mkdir -p "fuzz/corpus/$target"
cargo +nightly fuzz run "$target" "fuzz/corpus/$target" -- \
    -max_total_time="$secs" -max_len=4096 -timeout=10 -rss_limit_mb=4096 -print_final_stats=1
# Keep one input per covered edge (counters and value profiles off), so the
# corpus stays small enough to commit and to replay in `cargo test`.
cargo +nightly fuzz cmin "$target" "fuzz/corpus/$target" -- -max_len=4096 -use_counters=0 -use_value_profile=0 >/dev/null 2>&1 || true
