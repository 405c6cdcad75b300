#!/usr/bin/env bash
# Re-measures docs/run.md's status table: each real workload runs natively
# and under `taskcore run --report`, and the script prints, per workload,
# whether stdout (sorted where the workload's order is concurrent) and the
# exit status are the same, and the run's divergences and checked answers.
#
#   scripts/run-workloads.sh [RUNS]     # RUNS runs under taskcore each (default 1)
#
# Needs a release build (cargo build --release -p taskcore-cli) and, for the
# workloads that use them, bash, make, gcc, python3, node, go, perl, cargo,
# timeout and xargs: a missing tool skips its workload, saying so. Not part
# of CI (the cargo and Go builds take tens of seconds).
set -uo pipefail
cd "$(dirname "$0")/.."
top=$(pwd)
tc=${TASKCORE:-$top/target/release/taskcore}
runs=${1:-1}
[ -x "$tc" ] || { echo "no $tc: cargo build --release -p taskcore-cli" >&2; exit 2; }
w=$(mktemp -d /tmp/taskcore-workloads.XXXXXX)
trap 'rm -rf "$w"' EXIT
have() { command -v "$1" >/dev/null 2>&1; }

# --- the programs -----------------------------------------------------------
mkdir -p "$w/proj"
for i in $(seq 0 29); do
    echo "int f$i(int x) { int s = 0; for (int k = 0; k < x; k++) s += k * $i; return s; }" >"$w/proj/f$i.c"
done
echo 'int main(void) { return 0; }' >"$w/proj/main.c"
printf 'OBJS = $(patsubst %%.c,%%.o,$(wildcard f*.c))\nprog: main.o $(OBJS)\n\tcc -o $@ $^\n%%.o: %%.c\n\tcc -O2 -c $< -o $@\nclean:\n\trm -f *.o prog\n' >"$w/proj/Makefile"

cat >"$w/mp.py" <<'EOF'
import multiprocessing as mp, os, signal, time
def sq(x): return x * x
def sleeper(): time.sleep(30)
if __name__ == "__main__":
    with mp.Pool(4) as p:
        print(sum(p.map(sq, range(100))))
    w = mp.Process(target=sleeper)
    w.start()
    time.sleep(0.1)
    w.terminate()
    w.join()
    print("worker exitcode", w.exitcode)
EOF

cat >"$w/fan.js" <<'EOF'
const { spawn } = require("child_process");
let left = 10, out = [];
for (let i = 0; i < 10; i++) {
  const c = spawn("sh", ["-c", `echo child ${i} $$`]);
  let s = "";
  c.stdout.on("data", (d) => (s += d));
  c.on("close", (code) => {
    out.push(`${s.split(" ").slice(0, 2).join(" ")} exit ${code}`);
    if (--left === 0) console.log(out.sort().join("\n"));
  });
}
EOF

mkdir -p "$w/goexec"
cat >"$w/goexec/main.go" <<'EOF'
package main

import (
	"fmt"
	"os/exec"
	"sort"
	"sync"
)

func main() {
	var mu sync.Mutex
	var wg sync.WaitGroup
	var out []string
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			b, err := exec.Command("sh", "-c", fmt.Sprintf("echo %02d", i)).Output()
			mu.Lock()
			out = append(out, fmt.Sprintf("%s err=%v", b[:len(b)-1], err))
			mu.Unlock()
		}(i)
	}
	wg.Wait()
	sort.Strings(out)
	for _, s := range out {
		fmt.Println(s)
	}
}
EOF
printf 'module goexec\n\ngo 1.20\n' >"$w/goexec/go.mod"

cat >"$w/forks.pl" <<'EOF'
my @kids;
for my $i (1..5) { my $p = fork(); if ($p == 0) { exit($i); } push @kids, $p; }
for my $p (@kids) { waitpid($p, 0); print "status ", $? >> 8, "\n"; }
EOF

cat >"$w/thr.c" <<'EOF'
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
static volatile sig_atomic_t got[4];
static int tids[4];
static pthread_barrier_t bar;
static __thread int me;
static void on_usr1(int s) { (void)s; got[me]++; }
static void *run(void *a) {
    me = (int)(long)a;
    tids[me] = (int)syscall(SYS_gettid);
    pthread_barrier_wait(&bar);
    while (got[me] < 2) usleep(1000);
    return 0;
}
int main(void) {
    pthread_t t[4];
    signal(SIGUSR1, on_usr1);
    pthread_barrier_init(&bar, 0, 5);
    for (long i = 0; i < 4; i++) pthread_create(&t[i], 0, run, (void *)i);
    pthread_barrier_wait(&bar);
    for (int i = 0; i < 4; i++) {
        pthread_kill(t[i], SIGUSR1);
        while (got[i] < 1) usleep(1000); /* not merged with the next */
        syscall(SYS_tgkill, getpid(), tids[i], SIGUSR1);
    }
    for (int i = 0; i < 4; i++) pthread_join(t[i], 0);
    for (int i = 0; i < 4; i++) printf("thread %d got %d\n", i, (int)got[i]);
    printf("tgkill of a gone thread: %ld\n", syscall(SYS_tgkill, getpid(), 999999, 0));
    return 0;
}
EOF

# --- the workloads: name, tools needed, command (run by bash in $w) ----------
names=() needs=() cmds=() sorts=()
add() { names+=("$1"); needs+=("$2"); cmds+=("$3"); sorts+=("${4:-no}"); }
add "bash: pipelines, subshells, background jobs, wait -n" "bash" \
    'echo abc | tr a-c x-z; (exit 3); echo "subshell $?"; sleep 0.1 & sleep 0.3 & wait -n; echo "wait -n $?"; wait; echo done'
add "make -j4 of a generated 30-file C project" "make gcc" \
    'make -s -C proj clean && make -s -C proj -j4 && ./proj/prog; echo "status $?"'
add "Python multiprocessing, a worker killed by SIGTERM" "python3" 'python3 mp.py'
add "Node child_process fan-out (10 children)" "node" 'node fan.js'
add "Go, 20 concurrent os/exec children" "go" './goexec/goexec'
add "Perl fork/waitpid" "perl" 'perl forks.pl'
add "timeout 0.2 sleep 5" "timeout" 'timeout 0.2 sleep 5; echo "status $?"'
add "xargs -P4" "xargs" 'seq 40 | xargs -P4 -n1 sh -c '\''echo $0'\''' yes
add "pthreads with pthread_kill and tgkill" "gcc" './thr'
add "cargo build of a new crate" "cargo" \
    'rm -rf newcrate && cargo new -q --vcs none newcrate && cd newcrate && CARGO_TARGET_DIR=target cargo build -q --offline && ./target/debug/newcrate'

# Untimed builds the workloads run.
have gcc && gcc -O1 -pthread -o "$w/thr" "$w/thr.c"
have go && (cd "$w/goexec" && GOFLAGS=-mod=mod go build -o goexec . 2>"$w/go.err" || cat "$w/go.err" >&2)

# Natively, as `taskcore run` starts its command: in a process group of its own.
own_group() { python3 -c 'import os, sys; os.setpgid(0, 0); os.execvp(sys.argv[1], sys.argv[1:])' "$@"; }

printf '| workload | output and status as native | status | divergences | checked (each run) |\n|---|---|---|---|---|\n'
fails=0
for i in "${!names[@]}"; do
    missing=""
    for t in ${needs[$i]}; do have "$t" || missing="$missing $t"; done
    if [ -n "$missing" ]; then
        printf '| %s | SKIPPED (not installed:%s) | | | |\n' "${names[$i]}" "$missing"
        continue
    fi
    norm() { if [ "${sorts[$i]}" = yes ]; then sort; else cat; fi; }
    (cd "$w" && own_group bash -c "${cmds[$i]}") 2>/dev/null | norm >"$w/native.out"
    nstat=${PIPESTATUS[0]}
    same=yes divs="" checked="" rstats=""
    for r in $(seq "$runs"); do
        (cd "$w" && "$tc" run --report "$w/r.json" -- bash -c "${cmds[$i]}") 2>"$w/run.err" | norm >"$w/run.out"
        rstat=${PIPESTATUS[0]}
        cmp -s "$w/native.out" "$w/run.out" && [ "$rstat" = "$nstat" ] || same=no
        read -r d c < <(python3 -c 'import json, sys
v = json.load(open(sys.argv[1]))
print(len(v["divergences"]), v["checked"])' "$w/r.json" 2>/dev/null || echo "? ?")
        divs="$divs${divs:+, }$d" checked="$checked${checked:+, }$c" rstats="$rstats${rstats:+, }$rstat"
        if [ "$d" != 0 ]; then grep DIVERGENCE "$w/run.err" | head -3 >&2; fi
    done
    [ "$same" = yes ] && ! [[ "$divs" =~ [1-9?] ]] || fails=$((fails + 1))
    printf '| %s | %s | %s native, %s | %s | %s |\n' "${names[$i]}" "$same" "$nstat" "$rstats" "$divs" "$checked"
done
exit $((fails > 0))
