#!/bin/bash
# Re-record the three bundled workloads of data/traces (hello-build,
# cargo-build, python-multiprocessing) with the wider strace command of
# ../README.md ("Recording command from now on"); see README.md here.
# usage: data/traces/wide/record.sh [NAME...]   (from the repository root)
#   NAME: hello-build-sig, cargo-build-sig, python-multiprocessing-sig;
#   none: all three.
# Needs strace, python3, cargo (crates.io reachable: the dependencies are
# fetched before the recording, into a fresh CARGO_HOME), gcc and make, and
# apt-get source (a deb-src line for the Debian suite in
# /etc/apt/sources.list.d) for GNU hello.
set -u
root=$(pwd)
out=$root/data/traces/wide
src=$out/src
work=$(mktemp -d /tmp/taskcore-rec.XXXXXX)
py=$(python3 -c 'import sys; print(sys.executable)')
exec 3>&2 # the recordings' status lines, whatever the workload's output goes to
status_fd=3
. "$root/data/traces/record-lib.sh"
trace() { # trace NAME COMMAND...: record with the wide command
    local name=$1; shift
    record "$name" 1800 "$TRACE_WIDE" -- "$@"
}

cp -r "$src/." "$work/"
cd "$work" || exit 1

# GNU hello from Debian's source package: configure and make in one trace
if want hello-build-sig; then
    apt-get source hello > "$work/apt-source.log" 2>&1 || { cat "$work/apt-source.log"; exit 1; }
    (cd hello-*/ && trace hello-build-sig sh -c './configure && make -j2' > "$work/hello.log" 2>&1)
fi

# a cold build of serde (derive) and serde_json: fresh CARGO_HOME and
# target; the crates are downloaded first so that the trace is the build
if want cargo-build-sig; then
    export CARGO_HOME="$work/cargo-home" CARGO_TARGET_DIR="$work/serdeapp/target"
    (cd serdeapp && cargo fetch -q && trace cargo-build-sig cargo build -j2 > "$work/cargo.log" 2>&1)
    unset CARGO_HOME CARGO_TARGET_DIR
fi

# multiprocessing Pool, subprocess.run from 8 threads, 32 forked Processes
if want python-multiprocessing-sig; then
    trace python-multiprocessing-sig "$py" multiproc.py
fi

cd "$root" && rm -rf "$work"
ls -l "$out"/*.strace.gz
