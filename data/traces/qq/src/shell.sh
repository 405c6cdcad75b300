#!/bin/sh
# A shell at work: pipelines, subshells, command substitution, background
# jobs and wait, a trap, kill of a job, exit statuses.
trap 'echo got USR1' USR1
echo start | tr a-z A-Z | cat > /dev/null
x=$(sh -c 'exit 3'; echo $?)
( sleep 0.05; exit 7 ) &
a=$!
sleep 5 &
b=$!
kill -TERM $b
wait $b
wait $a
echo "a=$? x=$x"
for i in 1 2 3; do /bin/true & done
wait
sh -c 'kill -USR1 $PPID'
sh -c 'exit 4' || true
exit 0
