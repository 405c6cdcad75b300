#!/bin/bash
# Re-record the traces of this directory (see README.md): CPython's own
# regression tests for processes, signals, credentials and a pid namespace,
# each twice, with `strace -f -q` (NAME-q) and `strace -f -qq` (NAME-qq),
# with the wide expression of data/traces/README.md.
# usage: data/traces/suite/record.sh [NAME...]   (from the repository root,
# as root; needs strace, unshare and a CPython whose `test` package is
# installed: PYTHON, default the python3 on PATH, resolved to its binary)
set -u
root=$(pwd)
out=$root/data/traces/suite
work=$(mktemp -d /tmp/taskcore-rec.XXXXXX)
py=$("${PYTHON:-python3}" -c 'import sys; print(sys.executable)')
. "$root/data/traces/record-lib.sh"
both() { # both NAME -- COMMAND...: NAME-q and NAME-qq
    local name=$1; shift
    record "$name-q" 600 "$TRACE_WIDE" "$@"
    record "$name-qq" 600 "$TRACE_WIDE" -q "$@"
}
exec 3>&2
status_fd=3
cd "$work" || exit 1
# -v prints each test case; no -j: every test runs in the recorded process.
both cpython-signal -- "$py" -m test -v test_signal test_threadsignals > /dev/null 2>&1
both cpython-process -- "$py" -m test -v test_wait3 test_wait4 test_fork1 test_subprocess > /dev/null 2>&1
both cpython-posix -- "$py" -m test -v test_posix test_os > /dev/null 2>&1
# A pid namespace created inside the trace (unshare(CLONE_NEWPID), then
# the interpreter as its init's child).
both cpython-pidns -- unshare --pid --fork "$py" -m test -v test_wait4 test_fork1 > /dev/null 2>&1
