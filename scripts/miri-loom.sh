#!/usr/bin/env bash
# Deep checks of the unsafe/lock-free objpool module (not part of the main
# test command; CI may call it):
#   1. miri: undefined behaviour, data races and weak-memory effects in the
#      unit and stress tests (iteration counts shrink under cfg(miri)); the
#      stress tests run again under several scheduler seeds.
#   2. loom: exhaustive interleavings of small models (tests/it/objpool_loom.rs,
#      and the blocking-wait protocol of taskcore::sync, tests/it/sync_loom.rs).
# Usage: scripts/miri-loom.sh [miri|loom]   (default: both)
# Env: MIRI_SEEDS (default 4), LOOM_MAX_PREEMPTIONS (default: per model, 3).
set -euo pipefail
cd "$(dirname "$0")/.."

what="${1:-all}"

run_miri() {
    if ! cargo +nightly miri --version >/dev/null 2>&1; then
        echo "miri-loom.sh: installing the nightly miri component" >&2
        rustup +nightly component add miri rust-src
    fi
    echo "== miri: cargo +nightly miri test -p taskcore objpool"
    cargo +nightly miri test -p taskcore objpool
    local seeds="${MIRI_SEEDS:-4}"
    echo "== miri: stress tests under ${seeds} scheduler seeds"
    MIRIFLAGS="${MIRIFLAGS:-} -Zmiri-many-seeds=0..${seeds}" \
        cargo +nightly miri test -p taskcore --test it objpool_stress::
}

run_loom() {
    echo "== loom: RUSTFLAGS=\"--cfg loom\" cargo test -p taskcore --test it --release objpool_loom::"
    # A separate target dir keeps the --cfg loom build from invalidating the
    # normal one.
    RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}/loom" \
        cargo test -p taskcore --test it --release objpool_loom::
    echo "== loom: the blocking-wait protocol of taskcore::sync (tests/it/sync_loom.rs)"
    RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}/loom" \
        cargo test -p taskcore --test it --release sync_loom::
}

case "$what" in
    miri) run_miri ;;
    loom) run_loom ;;
    all) run_miri; run_loom ;;
    *) echo "usage: $0 [miri|loom]" >&2; exit 2 ;;
esac
