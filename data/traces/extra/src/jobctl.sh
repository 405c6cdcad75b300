#!/bin/bash
# Job-control and signal-heavy shell workload for strace recording.
set -m
cd "$(dirname "$0")"
trap 'echo "trap USR1"' USR1
trap 'echo "trap TERM ignored"' TERM
trap '' HUP

sleep 5 & p1=$!
kill -STOP "$p1"
sleep 0.05
kill -CONT "$p1"
kill -TERM "$p1"
wait "$p1"; echo "sleep TERM status $?"

sleep 5 & p2=$!
kill -KILL "$p2"
wait "$p2"; echo "sleep KILL status $?"

( exit 3 ); echo "subshell status $?"
( sleep 0.05; exit 4 ) & wait $!; echo "bg subshell status $?"
{ sleep 0.02; echo x; } | tr x y | cat > /dev/null
echo a | (read -r v; exit 7); echo "pipeline status $? ${PIPESTATUS[*]}"

timeout 0.1 sleep 5; echo "timeout status $?"
timeout -s KILL 0.1 sleep 5; echo "timeout KILL status $?"
timeout --preserve-status 0.1 sleep 5; echo "timeout preserve status $?"

kill -USR1 $$
kill -TERM $$
sleep 1 & s1=$!
sleep 0.1 & s2=$!
wait -n; echo "wait -n status $?"
kill -STOP "$s1"; kill -CONT "$s1"; kill "$s1"
wait; echo "wait all $?"

# process groups: a background pipeline is its own group under set -m
sleep 0.2 | sleep 0.3 &
kill -STOP -- -$!
sleep 0.05
kill -CONT -- -$!
wait

# segfault with a core dump
( ulimit -c unlimited; exec ./segv ); echo "segv status $?"
rm -f core core.*
# segfault without core
( ulimit -c 0; exec ./segv ); echo "segv nocore status $?"
# abort
bash -c 'kill -ABRT $$'; echo "abort status $?"

# command substitution, coprocess, exec in a subshell
v=$(echo "$(echo nested)"); echo "$v"
coproc CAT { cat; }
echo hello >&"${CAT[1]}"; exec {CAT[1]}>&-
read -r line <&"${CAT[0]}"; wait "$CAT_PID"; echo "coproc $line"
( exec true ); echo "exec status $?"
nohup sleep 0.01 >/dev/null 2>&1 &
disown
sh -c 'sleep 0.05 & exec sleep 0.02'
exit 5
