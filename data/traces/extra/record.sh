#!/bin/bash
# Re-record the held-out traces of this directory (see README.md).
# usage: data/traces/extra/record.sh   (from the repository root; needs strace, gcc, go, perl, python3)
set -u
root=$(pwd)
out=$root/data/traces/extra
src=$out/src
work=$(mktemp -d /tmp/taskcore-rec.XXXXXX)
py=$(python3 -c 'import sys; print(sys.executable)')
trace() { # trace NAME COMMAND...: record, rewrite paths, gzip
    local name=$1; shift
    timeout -k 5 300 strace -f -q -ttt -e trace=%process,setpgid,setsid,getpgid,getsid,kill,tgkill,tkill,prctl,rt_sigaction,ptrace \
        -o "$work/$name.strace" "$@"
    echo "$name: exit $?" >&2
    sed -e "s#$work#/build#g" -e "s#/root#/home/builder#g" "$work/$name.strace" | gzip -9n > "$out/$name.strace.gz"
}

for seed in 2 4 7 8 9 13 15 23; do
    trace "randscen-$seed" "$py" data/randscen.py "$seed" 40 > /dev/null
done
# the same seeds with the wider command (../README.md): masks, signal waits
for seed in 2 4 7 8 9 13 15 23; do
    timeout -k 5 300 strace -f -q -ttt -e trace=%process,%signal,%creds,setpgid,setsid,getpgid,getsid,prctl,ptrace,pidfd_open,pidfd_send_signal,unshare,setns,prlimit64,setrlimit,getrlimit \
        -o "$work/randscen-sig-$seed.strace" "$py" data/randscen.py "$seed" 40 > /dev/null
    sed -e "s#$work#/build#g" -e "s#/root#/home/builder#g" "$work/randscen-sig-$seed.strace" | gzip -9n > "$out/randscen-sig-$seed.strace.gz"
done

cp -r "$src/." "$work/"
cd "$work" || exit 1
gcc -O0 -o segv segv.c
gcc -O1 -Wall -pthread -o procmix procmix.c
trace jobctl ./jobctl.sh
trace procmix ./procmix
trace oneliners ./oneliners.sh
(cd mk && trace make-j2 make -j2)
echo "// recorded $(date +%s)" >> goapp/main.go # force a compile of the main package
(cd goapp && GOTOOLCHAIN=local GOFLAGS=-mod=mod GOPROXY=off trace go-build-run sh -c 'go build -o spawner . && ./spawner')
# the same build with an empty build cache: the standard library compiles too
(cd goapp && GOCACHE="$work/gocache" GOTOOLCHAIN=local GOFLAGS=-mod=mod GOPROXY=off trace go-build-cold go build -o spawner-cold .)
rm -rf "$work"
ls -l "$out"/*.strace.gz
