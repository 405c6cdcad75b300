#!/usr/bin/env bash
# Re-records efault.strace.gz (as root, from anywhere): efault.c compiled
# and run under the wide expression of ../README.md plus %memory, the work
# directory rewritten to /build, gzip -9n. (The other traces here were
# recorded by hand with the command in README.md.) strace warns "umoven:
# short read" for the pointers that run into the unmapped page: expected.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
out=$here
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=../record-lib.sh
source data/traces/record-lib.sh "$@"
gcc -O1 -Wall -Werror -o "$work/efault" "$here/efault.c"
(cd "$work" && record efault 60 "$TRACE_WIDE,%memory" -- ./efault)
