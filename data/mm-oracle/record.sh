#!/bin/bash
# Re-records fixtures.txt.gz: mmgen's output for seeds 1..200, 400
# operations each, on this machine's kernel. usage: record.sh [FIRST LAST NOPS OUT]
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
first=${1:-1}; last=${2:-200}; nops=${3:-400}; out=${4:-$here/fixtures.txt.gz}
tmp=$(mktemp -d)
cc -O1 -Wall -o "$tmp/mmgen" "$here/mmgen.c"
for s in $(seq "$first" "$last"); do
    echo "SEED $s"
    "$tmp/mmgen" "$s" "$nops" "$tmp/file"
    rm -f "$tmp/file"
done | gzip -9n > "$out.tmp" && mv "$out.tmp" "$out"
rm -rf "$tmp"
echo "wrote $out ($(zcat "$out" | grep -c '^SEED') sequences)"
