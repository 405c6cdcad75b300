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
# userns_rules.c again as an unprivileged user (uid and gid 1000, no
# groups, no capabilities): its unprivileged user namespaces.
chmod 755 "$tmp"
setpriv --reuid=1000 --regid=1000 --clear-groups "$tmp/userns_rules" >userns_rules_user.out
echo "recorded userns_rules_user.out ($(wc -l <userns_rules_user.out) lines, uid 1000)"
# ptrace_access.c needs root in the initial user namespace and no Yama
# ptrace_scope restriction (its callers attach to siblings).
# pidfd_rules.c and pidns_rules.c need root (setresuid, unshare, setns,
# mounting a procfs in a private mount namespace) and the initial pid
# namespace; pthreads come with glibc 2.34+.
# ptrace_edges.c (like ptrace_tracer.c, ptrace_gstop.c, ptrace_thread_stops.c,
# vfork_wait.c and vfork_sleeper_signal.c) must run without
# strace: it is a tracer itself.
# caps_rules.c needs root with CAP_SETPCAP and CAP_SETUID/SETGID (its
# "start" line records the machine's own sets, which the test starts from;
# it uses uids 1000, 1001 and 4242, the last with no process of its own),
# and re-executes itself through /proc/self/exe for its exec cases.
# validation_rules.c and traced_init.c need root (clone3 with CLONE_NEWNS,
# unshare(CLONE_NEWPID)) and, for traced_init.c, no tracer of its own.
# userns_rules.c needs root with CAP_SETFCAP and unprivileged user
# namespaces allowed (user.max_user_namespaces > 0, no AppArmor
# restriction); its second run needs setpriv (util-linux).
# map_count.c fills its address space up to vm.max_map_count (65530
# one-page mappings: about 256 MiB of address space, no memory touched).
# init_signals.c needs root (unshare(CLONE_NEWPID)): natively it makes a
# namespace whose init installs no handler; as pid 2 under an init (as
# under `taskcore run`) it tests that init at once.
# uaccess_rules.c needs nothing special (its capset calls all fault).
