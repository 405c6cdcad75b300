#!/bin/bash
# Records the loop trace of `taskcore bench replay` with strace:
#   bash -c 'for i in $(seq N); do /bin/true & if (( i % 50 == 0 )); then wait; fi; done; wait'
# At most ~50 processes live at once, N created in all.
#
# usage: scripts/record-loop.sh N OUT.strace.gz [START_PID]
#   START_PID: first pid to hand out (root only: writes
#   /proc/sys/kernel/ns_last_pid), so that a short trace wraps past pid_max.
# Needs strace and gzip. Takes about 2 ms per process here (N = 100,000:
# ~4 minutes, ~50 MB compressed, ~490 MB of text).
set -eu
n=$1
out=$2
if [ $# -ge 3 ]; then
    echo $(($3 - 1)) > /proc/sys/kernel/ns_last_pid
fi
strace -f -q -ttt \
    -e trace=%process,%signal,%creds,setpgid,setsid,getpgid,getsid,prctl,ptrace,pidfd_open,pidfd_send_signal,unshare,setns,prlimit64,setrlimit,getrlimit \
    -o "|gzip -1 > $out" \
    bash -c 'for i in $(seq '"$n"'); do /bin/true & if (( i % 50 == 0 )); then wait; fi; done; wait'
