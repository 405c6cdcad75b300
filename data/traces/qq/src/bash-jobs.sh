trap 'echo got USR1' USR1
trap 'echo chld' CHLD
set -m
sleep 5 & p=$!
(sleep 0.1; kill -USR1 $$) &
sleep 0.3
kill -STOP $p; sleep 0.1; kill -CONT $p; kill -TERM $p
wait $p; echo "st=$?"
for i in 1 2 3 4; do (exit $i) & done
while wait -n; [ $? -ne 127 ]; do :; done
nohup sh -c 'kill -INT $$; echo alive' > /dev/null 2>&1 &
wait
timeout -s KILL 0.2 sleep 3; echo "to=$?"
echo end
