#!/bin/bash
# Re-record the held-out traces of this directory (see README.md).
# usage: data/traces/extra/record.sh [NAME...]   (from the repository root; needs strace, gcc, go, perl, python3)
# With NAMEs (e.g. jobctl-sig procmix-sig), only those recordings are made;
# without, every one.
set -u
root=$(pwd)
out=$root/data/traces/extra
src=$out/src
work=$(mktemp -d /tmp/taskcore-rec.XXXXXX)
py=$(python3 -c 'import sys; print(sys.executable)')
. "$root/data/traces/record-lib.sh"
trace() { # trace NAME COMMAND...: the old command
    local name=$1; shift
    record "$name" 300 "$TRACE_OLD" -- "$@"
}
# The process-API recordings use the wider command of data/traces/README.md
# (%signal, %creds, pidfds, namespaces, limits); extra strace options first.
trace_api() { # trace_api NAME [STRACE-OPTION...] -- COMMAND...
    local name=$1; shift
    record "$name" 300 "$TRACE_WIDE" "$@"
}

for seed in 2 4 7 8 9 13 15 23; do
    trace "randscen-$seed" "$py" data/randscen.py "$seed" 40 > /dev/null
done
# the same seeds with the wider command (../README.md): masks, signal waits
for seed in 2 4 7 8 9 13 15 23; do
    trace_api "randscen-sig-$seed" -- "$py" data/randscen.py "$seed" 40 > /dev/null
done

# fresh seeds (issue 10), the same command
for seed in 307 308 309 310 311 312 313; do
    trace_api "randscen-sig-$seed" -- "$py" data/randscen.py "$seed" 40 > /dev/null
done

cp -r "$src/." "$work/"
cd "$work" || exit 1
gcc -O0 -o segv segv.c
gcc -O1 -Wall -pthread -o procmix procmix.c
trace jobctl ./jobctl.sh
trace procmix ./procmix
gcc -O1 -Wall -pthread -o vforksig vforksig.c
trace_api vforksig -- ./vforksig
trace oneliners ./oneliners.sh
(cd mk && trace make-j2 make -j2)
echo "// recorded $(date +%s)" >> goapp/main.go # force a compile of the main package
(cd goapp && GOTOOLCHAIN=local GOFLAGS=-mod=mod GOPROXY=off trace go-build-run sh -c 'go build -o spawner . && ./spawner')
# the same build with an empty build cache: the standard library compiles too
(cd goapp && GOCACHE="$work/gocache" GOTOOLCHAIN=local GOFLAGS=-mod=mod GOPROXY=off trace go-build-cold go build -o spawner-cold .)
# pidfds, namespaces, credentials and limits
trace_api python-pidfd -- "$py" pidfd.py
(cd goexec && GOTOOLCHAIN=local GOFLAGS=-mod=mod GOPROXY=off go build -o goexec .)
trace_api go-exec -- ./goexec/goexec
trace_api unshare-pidns --decode-pids=pidns -- unshare --pid --fork sh -c '/bin/true; /bin/true & wait'
# a shell as the namespace's init: setpgid of its jobs (set -m), kill and
# getppid with the namespace's numbers (getppid added to the wider command)
record unshare-pidns-shell 300 "${TRACE_WIDE/getsid,prctl/getsid,getppid,prctl}" --decode-pids=pidns -- \
    unshare --pid --fork bash -c \
    'set -m; /bin/sleep 5 & kill $!; wait; /bin/true & wait; bash -c "kill -0 \$PPID; /bin/true"; kill -0 $$; kill -CONT 1'
# gid and groups first, then uid (one setpriv doing both keeps CAP_SETGID
# through PR_SET_KEEPCAPS, which the core's "euid 0" privilege does not
# model); bash lowers RLIMIT_NPROC as uid 65534 and forks past it (EAGAIN,
# then its retry after the first children exit)
trace_api setpriv-ulimit -- setpriv --regid=65534 --clear-groups setpriv --reuid=65534 \
    bash -c 'ulimit -u 3; for i in 1 2 3 4; do /bin/sleep 0.2 & done; wait; ulimit -u'

# capabilities (issue 23): the wider command plus capget,capset. setpriv
# keeps CAP_SETGID through PR_SET_KEEPCAPS and capset around setresuid;
# capdrop.c drops capabilities and tries what they gate (unshare, clone
# with CLONE_NEWPID, kill, setresgid), and execs as uid 1000 with an
# ambient capability and as root with a smaller bounding set
TRACE_CAPS=$TRACE_WIDE,capget,capset
record setpriv-id 60 "$TRACE_CAPS" -- setpriv --reuid=1000 --regid=1000 --clear-groups id
gcc -O1 -Wall -o capdrop capdrop.c
record capdrop 60 "$TRACE_CAPS" -- ./capdrop
# a namespace's init signalling itself without a handler: traced (by
# strace) the signal is still queued and reported (--- lines), then dropped
record unshare-init-signal 60 "$TRACE_CAPS" --decode-pids=pidns -- \
    unshare --pid --fork sh -c 'kill -TERM 1; kill -USR1 1; /bin/true; echo alive'

# user namespaces (issue 23): `unshare --user --pid --fork --map-root-user`
# as uid 1000 (its child writes /proc/self/uid_map, setgroups "deny",
# gid_map, and runs a shell as pid 1 of the new pid namespace). `write`
# with -y: the fd's path names the /proc file each write goes to.
record unshare-userns 60 "$TRACE_CAPS,write" -y --decode-pids=pidns -- \
    setpriv --reuid=1000 --regid=1000 --clear-groups \
    unshare --user --pid --fork --map-root-user sh -c 'id; echo $$'

# The workloads above that were recorded with the old command, again with
# the wider one (issue 10): NAME-sig, masks and every `--- SIG` line
# checkable. Each starts from the same state as its old recording.
trace_api jobctl-sig -- ./jobctl.sh
trace_api procmix-sig -- ./procmix
trace_api oneliners-sig -- ./oneliners.sh
if want make-j2-sig; then
    (cd mk && make clean > /dev/null && trace_api make-j2-sig -- make -j2)
fi
if want go-build-run-sig; then
    echo "// recorded again $(date +%s)" >> goapp/main.go # recompile the main package
    (cd goapp && GOTOOLCHAIN=local GOFLAGS=-mod=mod GOPROXY=off trace_api go-build-run-sig -- sh -c 'go build -o spawner . && ./spawner')
fi
if want go-build-cold-sig; then
    rm -rf "$work/gocache-sig"
    (cd goapp && GOCACHE="$work/gocache-sig" GOTOOLCHAIN=local GOFLAGS=-mod=mod GOPROXY=off trace_api go-build-cold-sig -- go build -o spawner-cold .)
fi
rm -rf "$work"
ls -l "$out"/*.strace.gz
