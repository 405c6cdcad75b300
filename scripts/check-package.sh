#!/usr/bin/env bash
# Packages each publishable crate (`cargo package`), unpacks the .crate
# files outside the repository and runs each crate's tests from its packaged
# sources only: what a user of the published crates would build. The
# intra-workspace dependencies (taskcore-replay -> taskcore, ...) resolve to
# the unpacked packages through `[patch.crates-io]`, since they are not on
# crates.io. Tests that need the repository's larger data (data/traces,
# data/mm-oracle) print "SKIPPED <test>: needs the repository's ..." there.
#
# Usage: scripts/check-package.sh [CRATE...]   (default: all publishable)
# Builds in target/check-package (kept between runs); needs the crates.io
# dependencies already fetched (`cargo fetch`), it runs with --offline.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

crates=("$@")
if [ ${#crates[@]} -eq 0 ]; then
    crates=(taskcore taskcore-strace taskcore-replay taskcore-cli)
fi
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)

pkgargs=()
for c in "${crates[@]}"; do pkgargs+=(-p "$c"); done
# --no-verify: the build below is the verification (with the tests).
# --allow-dirty: check the work tree as it is, committed or not.
cargo package "${pkgargs[@]}" --no-verify --allow-dirty --offline --quiet

tmp=$(mktemp -d /tmp/taskcore-package.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
for c in taskcore taskcore-strace taskcore-replay taskcore-cli; do
    f="target/package/$c-$version.crate"
    [ -f "$f" ] && tar -xzf "$f" -C "$tmp"
done
# The .crate files carry fixed timestamps: fresh ones make cargo rebuild
# the packaged crates instead of trusting an older build in the shared
# target directory.
find "$tmp" -type f -exec touch {} +

patches=()
for d in "$tmp"/*/; do
    name=$(basename "$d" | sed "s/-$version\$//")
    patches+=(--config "patch.crates-io.$name.path=\"$d\"")
done

export CARGO_TARGET_DIR="$repo/target/check-package"
for c in "${crates[@]}"; do
    echo "== $c: tests from the packaged sources ($tmp/$c-$version)"
    (cd "$tmp/$c-$version" && cargo test --offline --quiet "${patches[@]}" -- --show-output 2>&1 | grep -E "^SKIPPED|^test result|FAILED|panicked|^error: (could not|test failed)" ; exit "${PIPESTATUS[0]}")
done
echo "check-package: ${crates[*]} pass from their packaged sources"
