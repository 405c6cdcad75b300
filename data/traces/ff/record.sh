#!/bin/bash
# Re-record the traces of this directory (see README.md): each workload as
# users record it with `strace -ff` (one file per task, PREFIX.TID), with
# `-q` (NAME-q/t.TID.gz) and with `-qq` (NAME-qq/t.TID.gz), the wider
# expression of data/traces/README.md and -ttt, which the merge needs.
# usage: data/traces/ff/record.sh [NAME...]   (from the repository root;
# needs strace, python3, bash)
set -u
root=$(pwd)
out=$root/data/traces/ff
work=$(mktemp -d /tmp/taskcore-rec.XXXXXX)
py=$(python3 -c 'import sys; print(sys.executable)')
. "$root/data/traces/record-lib.sh"
# ff NAME -- COMMAND...: NAME-q and NAME-qq, each a directory of t.TID.gz
ff() {
    local name=$1 q
    shift 2
    for q in q qq; do
        want "$name-$q" || continue
        rm -rf "${work:?}/$name-$q" "${out:?}/$name-$q"
        mkdir -p "$work/$name-$q" "$out/$name-$q"
        (cd "$work" && timeout -k 5 300 strace -ff -"$q" -ttt -e trace="$TRACE_WIDE" \
            -o "$work/$name-$q/t" "$@")
        echo "$name-$q: exit $?" >&2
        local f
        for f in "$work/$name-$q"/t.*; do
            sed -e "s#$work#/build#g" -e "s#/root#/home/builder#g" "$f" |
                gzip -9n > "$out/$name-$q/$(basename "$f").gz"
        done
    done
}
cp -r "$root/data/traces/qq/src/." "$work/"
# A random process-lifecycle scenario (forks, threads that fork, every wait
# flavour, stop/continue/kill, subreapers and orphans).
ff randscen-402 -- "$py" "$root/data/randscen.py" 402 40 > /dev/null
ff randscen-406 -- "$py" "$root/data/randscen.py" 406 40 > /dev/null
# The shell workload of ../qq (pipelines, subshells, background jobs, traps).
ff shell -- sh ./shell.sh > /dev/null
# bash job control: a job stopped, continued and killed, `wait -n`.
ff bash-jobs -- bash ./bash-jobs.sh > /dev/null 2>&1
# Python: a multiprocessing Pool, and Processes terminated and killed.
ff py-mp -- "$py" -c 'import multiprocessing as m, time
def f(x): return x * x
if __name__ == "__main__":
    with m.Pool(4) as p: print(sum(p.map(f, range(100))))
    ps = [m.Process(target=time.sleep, args=(5,)) for _ in range(4)]
    [q.start() for q in ps]; ps[0].terminate(); [q.join(0.1) for q in ps[1:]]
    [q.kill() for q in ps[1:]]; [q.join() for q in ps]; print([q.exitcode for q in ps])' > /dev/null
rm -rf "$work"
