#!/usr/bin/env bash
# Packages each publishable crate (`cargo package`), unpacks the .crate
# files outside the workspace and runs each crate's tests from its packaged
# sources only: what a user of the published crates would build. The
# intra-workspace dependencies (taskcore-replay -> taskcore, ...) resolve to
# the unpacked packages through `[patch.crates-io]`, since they are not on
# crates.io. Tests that need the repository's larger data (data/traces,
# data/mm-oracle) print "SKIPPED <test>: needs the repository's ..." there.
#
# Usage: scripts/check-package.sh [--check] [CRATE...]   (default: all publishable)
#
# --check (what .ci/run uses): `cargo check --all-targets` of each packaged
# crate instead of `cargo test`: every library, binary, test, bench and
# example must compile from the packaged sources, so a source file or an
# include_str!/include_bytes! fixture missing from the package fails, but no
# test runs (the same tests ran in the workspace) and nothing is code-
# generated. Measured on 2 cores under load 7: the full run 9:32 from cold
# (307 s CPU: the four crates compile again, at opt-level 1) and 0:54 warm.
#
# Honours CARGO_TARGET_DIR (default: ./target). The packages are unpacked
# into TARGET/check-package/src, each as a workspace of its own that gets
# the repository's Cargo.lock and [profile.*] settings, and they build in
# TARGET itself: the crates.io dependencies compiled by `cargo test
# --workspace` are reused, and only the four packaged crates compile again.
# A file is rewritten there only when its content changed, so a second run
# rebuilds nothing that did not change. Needs the crates.io dependencies
# already fetched (`cargo fetch`); it runs with --offline.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
target=${CARGO_TARGET_DIR:-$repo/target}
case "$target" in /*) ;; *) target="$repo/$target" ;; esac

all=(taskcore taskcore-strace taskcore-replay taskcore-run taskcore-bench taskcore-cli)
mode=test
if [ "${1:-}" = "--check" ]; then
    mode=check
    shift
elif [ "${1:-}" = "--files" ]; then
    mode=files
    shift
fi
crates=("$@")
if [ ${#crates[@]} -eq 0 ]; then
    crates=("${all[@]}")
fi
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)

pkgargs=()
for c in "${all[@]}"; do pkgargs+=(-p "$c"); done
# All of them are packaged (a crate's tests need its packaged dependencies).
# --no-verify: the build below is the verification (with the tests).
# --allow-dirty: check the work tree as it is, committed or not.
cargo package "${pkgargs[@]}" --no-verify --allow-dirty --offline --quiet

# --files: every file a built target of a packaged crate read (its sources,
# include_str!/include_bytes! fixtures: the compiler's dep-info, *.d under
# TARGET/debug, written by the workspace's own build) must be in that
# crate's package. Nothing compiles again: seconds, after `cargo test
# --workspace` and `cargo clippy --all-targets` built every target.
if [ "$mode" = files ]; then
    missing=0
    checked=0
    for c in "${crates[@]}"; do
        listing=$(tar -tzf "$target/package/$c-$version.crate" | sed "s|^$c-$version/||")
        # Dep-info files whose target is this crate's (its first input
        # lies in its directory).
        while IFS= read -r d; do
            # The first line: "OUTPUT: INPUT INPUT ..." (spaces escaped).
            deps=$(head -1 "$d" | sed 's/^[^:]*: *//; s/\\ /\x01/g')
            first=${deps%% *}
            case "$first" in "crates/$c/"*) ;; *) continue ;; esac
            for f in $deps; do
                f=${f//$'\x01'/ }
                case "$f" in
                /*) continue ;;                         # outside the workspace
                Cargo.toml | clippy.toml) continue ;;   # clippy's configuration
                *..*) f=$(realpath -m -s --relative-to=. "$f") ;;
                esac
                [ -e "$f" ] || continue # a stale dep-info file
                checked=$((checked + 1))
                case "$f" in
                "crates/$c/"*)
                    rel=${f#"crates/$c/"}
                    if ! grep -qxF "$rel" <<<"$listing"; then
                        echo "check-package: $c: $f is read by a build but not packaged" >&2
                        missing=$((missing + 1))
                    fi
                    ;;
                *)
                    echo "check-package: $c: $f (outside the crate) is read by a build: the package cannot have it" >&2
                    missing=$((missing + 1))
                    ;;
                esac
            done
        done < <(grep -l -m1 " crates/$c/" "$target"/debug/deps/*.d "$target"/debug/examples/*.d 2>/dev/null || true)
    done
    if [ "$checked" -eq 0 ]; then
        echo "check-package --files: no dep-info under $target/debug: build first (cargo test --workspace)" >&2
        exit 1
    fi
    if [ "$missing" -ne 0 ]; then
        exit 1
    fi
    echo "check-package: every file the builds of ${crates[*]} read is packaged ($checked inputs checked)"
    exit 0
fi

# The repository's profiles (opt-level, debug info) apply to the packaged
# crates too, so that they share the dependencies' build with the workspace.
profiles=$(awk '/^\[/{p = ($0 ~ /^\[profile\./)} p' Cargo.toml)

stage=$(mktemp -d /tmp/taskcore-package.XXXXXX)
trap 'rm -rf "$stage"' EXIT
src="$target/check-package/src"
mkdir -p "$src"
for c in "${all[@]}"; do
    tar -xzf "$target/package/$c-$version.crate" -C "$stage"
    d="$stage/$c-$version"
    cp Cargo.lock "$d/Cargo.lock"
    # A workspace of its own (it may sit under the repository's target/).
    printf '\n[workspace]\n\n%s\n' "$profiles" >>"$d/Cargo.toml"
done
# Copy into the kept tree only what changed: the .crate files carry fixed
# timestamps, so an unchanged mtime must not hide a changed file from
# cargo, and an unchanged file must not be rebuilt.
(cd "$stage" && find . -type f) | while read -r f; do
    if ! cmp -s "$stage/$f" "$src/$f"; then
        mkdir -p "$(dirname "$src/$f")"
        cp "$stage/$f" "$src/$f"
    fi
done
(cd "$src" && find . -type f) | while read -r f; do
    [ -e "$stage/$f" ] || rm -f "$src/$f"
done

patches=()
for c in "${all[@]}"; do
    patches+=(--config "patch.crates-io.$c.path=\"$src/$c-$version\"")
done

export CARGO_TARGET_DIR="$target"
for c in "${crates[@]}"; do
    if [ "$mode" = check ]; then
        echo "== $c: every target compiles from the packaged sources ($src/$c-$version)"
        (cd "$src/$c-$version" && cargo check --all-targets --offline --quiet "${patches[@]}")
    else
        echo "== $c: tests from the packaged sources ($src/$c-$version)"
        (cd "$src/$c-$version" && cargo test --offline --quiet "${patches[@]}" -- --show-output 2>&1 | grep -E "^SKIPPED|^test result|FAILED|panicked|^error(\[E[0-9]+\])?: " ; exit "${PIPESTATUS[0]}")
    fi
done
if [ "$mode" = check ]; then
    echo "check-package: every target of ${crates[*]} compiles from its packaged sources"
else
    echo "check-package: ${crates[*]} pass from their packaged sources"
fi
