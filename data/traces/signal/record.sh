#!/usr/bin/env bash
# Re-records the signal traces of this directory (run from anywhere, as root).
# Every file is recorded with the wider command of /work/shared/traces/README.md
# (it has %signal), paths of the temporary work directory rewritten to /build,
# then compressed with gzip -9n.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
oracle=$here/../../../tests/oracle
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here"/src/* "$work"/
for c in rtqueue sigchld-wait ptrace-eperm; do
    gcc -O1 -Wall -Werror -pthread -o "$work/$c" "$here/src/$c.c"
done
for c in sig_mask_rules sig_delivery jobctl_rules; do
    gcc -O1 -Wall -Werror -pthread -o "$work/$c" "$oracle/$c.c"
done
cd "$work"
wide=%process,%signal,%creds,setpgid,setsid,getpgid,getsid,prctl,ptrace,pidfd_open,pidfd_send_signal,unshare,setns,prlimit64,setrlimit,getrlimit
record() {
    local name=$1
    shift
    strace -f -q -ttt -e trace="$wide" \
        -o "$work/$name.strace" "$@" >/dev/null
    sed -i -e "s#$work#/build#g" -e "s#/root#/home/builder#g" "$work/$name.strace"
    gzip -9n -c "$work/$name.strace" >"$here/$name.strace.gz"
    echo "recorded $name.strace.gz ($(wc -l <"$work/$name.strace") lines)"
}
record jobctl-m /bin/bash ./jobctl-m.sh
record rtqueue ./rtqueue
record sigchld-wait ./sigchld-wait
record ptrace-eperm ./ptrace-eperm
record sig-mask-rules ./sig_mask_rules
record sig-delivery ./sig_delivery
record jobctl-rules ./jobctl_rules
# restart_syscall is not in strace's %signal class: one recording adds it
# (and the sleeps it resumes) to the wide command.
wide=$wide,restart_syscall,clock_nanosleep,nanosleep
record sigchld-wait-restart ./sigchld-wait
