# Runs as the init of a new pid namespace (`unshare --pid --fork`, whose
# unshare() the trace filter leaves out; strace's --decode-pids=pidns
# comments give the namespace's numbers): jobs, a kill, exit statuses, a
# nested child, setsid, a signal to itself.
trap 'echo usr1' USR1
sleep 5 &
s=$!
(sh -c 'exit 3')
echo "sub $?"
sh -c 'sleep 0.05 & wait'
setsid sh -c 'exit 5'
echo "setsid $?"
kill -TERM $s
wait $s
echo "killed $?"
(kill -USR1 $$)
echo "pid $$"
