# Shared by the record.sh scripts of data/traces/*: sourced (from the
# repository root) with the NAMEs asked for as arguments, after setting
# `out` (the directory the .strace.gz files go to) and `work` (a scratch
# directory whose path is rewritten to /build). `status_fd` (default 2) is
# the descriptor the "NAME: exit N" lines go to. `record_wrap` (an array,
# default empty) is a command strace itself runs under, inside `timeout`
# (whose handlers would undo an ignored signal): `nohup`, or `sh -c '"$@" &
# wait' sh` for a background job; state from before the trace.

# The strace expressions of ../traces/README.md: the old command's, and the
# wider one of "Recording command from now on".
TRACE_OLD=%process,setpgid,setsid,getpgid,getsid,kill,tgkill,tkill,prctl,rt_sigaction,ptrace
TRACE_WIDE=%process,%signal,%creds,setpgid,setsid,getpgid,getsid,prctl,ptrace,pidfd_open,pidfd_send_signal,unshare,setns,prlimit64,setrlimit,getrlimit

only=("$@")
record_wrap=()
want() { # want NAME: was NAME asked for (or nothing named)?
    [ ${#only[@]} -eq 0 ] && return 0
    local n
    for n in "${only[@]}"; do [ "$n" = "$1" ] && return 0; done
    return 1
}

# record NAME SECONDS EXPR [STRACE-OPTION...] -- COMMAND...: records COMMAND
# with `strace -f -q -ttt -e trace=EXPR` (at most SECONDS), rewrites the
# work directory to /build and /root to /home/builder, and gzips it to
# $out/NAME.strace.gz; nothing if NAME was not asked for.
record() {
    local name=$1 secs=$2 expr=$3
    shift 3
    want "$name" || return 0
    local opts=()
    while [ "$1" != "--" ]; do opts+=("$1"); shift; done
    shift
    timeout -k 5 "$secs" "${record_wrap[@]}" strace -f -q -ttt "${opts[@]}" -e trace="$expr" \
        -o "$work/$name.strace" "$@"
    echo "$name: exit $?" >&"${status_fd:-2}"
    sed -e "s#$work#/build#g" -e "s#/root#/home/builder#g" "$work/$name.strace" | gzip -9n > "$out/$name.strace.gz"
}
