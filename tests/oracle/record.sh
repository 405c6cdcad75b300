#!/usr/bin/env bash
# Re-records the Linux oracle fixtures: builds each tests/oracle/*.c and
# writes its output next to it as *.out. Run as root in the initial pid
# namespace on the machine whose kernel is the reference.
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for c in *.c; do
    name=${c%.c}
    gcc -O1 -Wall -Werror -pthread -o "$tmp/$name" "$c"
    "$tmp/$name" >"$name.out"
    echo "recorded $name.out ($(wc -l <"$name.out") lines, kernel $(uname -r))"
done
# ptrace_access.c needs root in the initial user namespace and no Yama
# ptrace_scope restriction (its callers attach to siblings).
# pidfd_rules.c and pidns_rules.c need root (setresuid, unshare, setns,
# mounting a procfs in a private mount namespace) and the initial pid
# namespace; pthreads come with glibc 2.34+.
# ptrace_edges.c (like ptrace_tracer.c, ptrace_gstop.c and vfork_wait.c) must run without
# strace: it is a tracer itself.
