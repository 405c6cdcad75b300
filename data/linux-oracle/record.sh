#!/bin/bash
# Re-records the Linux oracle fixtures of this directory on this machine.
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
cc -O1 -Wall -o "$tmp/errno_table" errno_table.c
"$tmp/errno_table" > errno.tsv
rm -rf "$tmp"
echo "wrote $(wc -l < errno.tsv) errnos to errno.tsv"
cc -O1 -Wall -pthread -o "${TMPDIR:-/tmp}/children" children.c
"${TMPDIR:-/tmp}/children" > children.txt
echo "wrote children.txt"
