#!/bin/bash
# bash job control with set -m: each job in its own process group.
set -m
sleep 5 &
kill -TSTP %1
sleep 0.2
jobs -l >/dev/null
bg %1
sleep 0.2
kill -STOP %1
sleep 0.2
kill -CONT %1
kill -TERM %1
wait $!
echo "job1 status $?"
(sleep 0.3; exit 3) &
fg %%
echo "fg status $?"
sleep 5 &
p=$!
kill -STOP %%
sleep 0.2
kill -CONT $p
kill -STOP $p
kill -KILL $p
wait $p
echo "stopped job killed status $?"
sleep 0.2 | cat &
wait
echo done
