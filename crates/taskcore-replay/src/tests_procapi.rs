//! Replays of the process-API calls (pidfds, pid namespaces, credentials,
//! limits), on lines taken from recordings made on this machine (Linux
//! 6.18, strace 6.1) with the command of data/traces/README.md, cut down
//! and renumbered (the whole recordings are in data/traces/extra).

use crate::{Options, Replayer, Summary};

fn summary(text: &str) -> Summary {
    let parsed = taskcore_strace::parse_str("t", text);
    assert!(parsed.errors.is_empty(), "{:?}", parsed.errors);
    let mut r = Replayer::new(Options::default());
    for e in &parsed.events {
        r.push(e);
    }
    r.finish()
}

fn checked(s: &Summary, call: &str) -> u64 {
    s.stats.checked_calls.get(call).copied().unwrap_or(0)
}

fn bad_lines(s: &Summary) -> Vec<usize> {
    s.mismatches.iter().map(|m| m.line).collect()
}

/// Python 3.11's os.pidfd_open, signal.pidfd_send_signal and
/// os.waitid(P_PIDFD) (data/traces/extra/python-pidfd).
const PIDFD: &str = "\
100 1.0 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f5aea00fe50) = 101
100 1.1 pidfd_open(101, 0) = 3
100 1.2 pidfd_open(101, 0x3039 /* PIDFD_??? */) = -1 EINVAL (Invalid argument)
100 1.3 pidfd_send_signal(3, 0, NULL, 0) = 0
100 1.4 waitid(P_PIDFD, 3,  <unfinished ...>
101 1.5 exit_group(7)   = ?
101 1.6 +++ exited with 7 +++
100 1.7 <... waitid resumed>{si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=101, si_uid=0, si_status=7, si_utime=0, si_stime=0}, WEXITED, NULL) = 0
100 1.8 pidfd_send_signal(3, 0, NULL, 0) = -1 ESRCH (No such process)
";

#[test]
fn pidfd_calls_are_applied_and_checked() {
    let s = summary(PIDFD);
    assert_eq!(bad_lines(&s), Vec::<usize>::new());
    assert_eq!(checked(&s, "pidfd_open"), 2);
    assert_eq!(checked(&s, "pidfd_send_signal"), 2);
    assert_eq!(checked(&s, "waitid(P_PIDFD)"), 1);
}

#[test]
fn a_pidfd_result_the_core_disagrees_with_is_a_mismatch() {
    // The reaped child's pidfd must say ESRCH: a recorded success is wrong.
    let s = summary(&PIDFD.replace(
        "pidfd_send_signal(3, 0, NULL, 0) = -1 ESRCH (No such process)",
        "pidfd_send_signal(3, 0, NULL, 0) = 0",
    ));
    assert_eq!(bad_lines(&s), vec![9]);
    // An fd the trace never bound to a pidfd is not checkable.
    let s = summary(&PIDFD.replace(
        "pidfd_send_signal(3, 0, NULL, 0) = 0",
        "pidfd_send_signal(4, 0, NULL, 0) = 0",
    ));
    assert_eq!(checked(&s, "pidfd_send_signal"), 1);
    assert!(s
        .stats
        .unchecked
        .keys()
        .any(|k| k.contains("did not open as a pidfd")));
}

/// Go's os/exec: clone3 with CLONE_PIDFD, then waitid on the pidfd
/// (data/traces/extra/go-exec).
const GO: &str = "\
200 1.0 clone3({flags=CLONE_VM|CLONE_PIDFD|CLONE_VFORK|CLONE_CLEAR_SIGHAND, pidfd=0xc000012345, exit_signal=SIGCHLD, stack=0xc000100000, stack_size=0x10000} => {pidfd=[5]}, 88) = 201
201 1.1 exit_group(0) = ?
201 1.2 +++ exited with 0 +++
200 1.3 waitid(P_PIDFD, 5, {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=201, si_uid=0, si_status=0, si_utime=0, si_stime=0}, WEXITED, NULL) = 0
200 1.4 waitid(P_PIDFD, 5, NULL, WEXITED, NULL) = -1 ECHILD (No child processes)
";

#[test]
fn clone3_pidfds_are_bound_and_waited_on() {
    let s = summary(GO);
    assert_eq!(bad_lines(&s), Vec::<usize>::new());
    assert_eq!(checked(&s, "clone3(CLONE_PIDFD)"), 1);
    assert_eq!(checked(&s, "waitid(P_PIDFD)"), 2);
}

/// `unshare --pid --fork sh -c '...'` recorded with --decode-pids=pidns
/// (data/traces/extra/unshare-pidns).
const PIDNS: &str = "\
300 1.0 unshare(CLONE_NEWPID) = 0
300 1.1 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f32ad882a10) = 301
300 1.2 wait4(301,  <unfinished ...>
301 1.3 vfork( <unfinished ...>
302 1.4 execve(\"/bin/true\", [\"/bin/true\"], 0x55906cd4cad8 /* 35 vars */ <unfinished ...>
301 1.5 <... vfork resumed>) = 2 /* 302 in strace's PID NS */
302 1.6 <... execve resumed>) = 0
301 1.7 wait4(-1,  <unfinished ...>
302 1.8 exit_group(0)   = ?
302 1.9 +++ exited with 0 +++
301 2.0 <... wait4 resumed>[{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 2
301 2.1 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f9d0b43aa10) = 3 /* 303 in strace's PID NS */
303 2.2 exit_group(0)   = ?
303 2.3 +++ exited with 0 +++
301 2.4 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], WNOHANG, NULL) = 3
301 2.5 wait4(-1, 0x7ffdf12862cc, WNOHANG, NULL) = -1 ECHILD (No child processes)
301 2.6 exit_group(0)   = ?
301 2.7 +++ exited with 0 +++
300 2.8 <... wait4 resumed>[{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 301
";

#[test]
fn clones_in_a_pid_namespace_are_linked_by_strace_s_numbers() {
    let s = summary(PIDNS);
    assert_eq!(bad_lines(&s), Vec::<usize>::new());
    assert_eq!(checked(&s, "unshare"), 1);
    assert_eq!(checked(&s, "clone in a pid namespace"), 2);
    assert!(s
        .stats
        .unchecked
        .keys()
        .all(|k| !k.contains("never created")));
    // The namespace's numbers are checked: a 3 where the core gives 2 is a
    // mismatch.
    let s = summary(&PIDNS.replace("= 2 /* 302", "= 3 /* 302"));
    assert_eq!(bad_lines(&s), vec![6], "{:?}", s.mismatches);
}

#[test]
fn without_decode_pids_the_child_is_inferred_from_the_lookahead() {
    // strace without --decode-pids=pidns prints only `= 2`: the replay
    // checks that number and takes the first task the lookahead shows
    // that no clone created.
    let plain = PIDNS
        .replace(" /* 302 in strace's PID NS */", "")
        .replace(" /* 303 in strace's PID NS */", "");
    let s = summary(&plain);
    assert_eq!(bad_lines(&s), Vec::<usize>::new());
    assert_eq!(checked(&s, "clone in a pid namespace"), 2);
    assert!(s
        .stats
        .unchecked
        .keys()
        .all(|k| !k.contains("never created")));
}

/// A shell as init of a new pid namespace, its jobs in their own process
/// groups (`set -m`), `kill` and `getppid` with the namespace's numbers
/// (data/traces/extra/unshare-pidns-shell, recorded with getppid added to
/// the wider command; cut down and renumbered).
const PIDNS_SHELL: &str = "\
500 1.0 unshare(CLONE_NEWPID) = 0
500 1.1 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f3c0b385a10) = 501
500 1.2 wait4(501,  <unfinished ...>
501 1.3 getppid()       = 0
501 1.4 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f87113dfa10) = 2 /* 502 in strace's PID NS */
501 1.5 setpgid(2 /* 502 in strace's PID NS */, 2) = 0
502 1.6 setpgid(2 /* 502 in strace's PID NS */, 2 /* 502 in strace's PID NS */) = 0
501 1.7 kill(2 /* 502 in strace's PID NS */, SIGTERM) = 0
501 1.8 wait4(-1,  <unfinished ...>
502 1.9 --- SIGTERM {si_signo=SIGTERM, si_code=SI_USER, si_pid=1 /* 501 in strace's PID NS */, si_uid=0} ---
502 2.0 +++ killed by SIGTERM +++
501 2.1 <... wait4 resumed>[{WIFSIGNALED(s) && WTERMSIG(s) == SIGTERM}], WSTOPPED|WCONTINUED, NULL) = 2
501 2.2 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_KILLED, si_pid=2, si_uid=0, si_status=SIGTERM, si_utime=0, si_stime=0} ---
501 2.3 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f87113dfa10) = 3 /* 503 in strace's PID NS */
501 2.4 setpgid(3 /* 503 in strace's PID NS */, 3) = 0
501 2.5 wait4(-1,  <unfinished ...>
503 2.6 setpgid(3 /* 503 in strace's PID NS */, 3 /* 503 in strace's PID NS */) = 0
503 2.7 getppid()       = 1 /* 501 in strace's PID NS */
503 2.8 kill(1 /* 501 in strace's PID NS */, 0) = 0
503 2.9 exit_group(0)   = ?
503 3.0 +++ exited with 0 +++
501 3.1 <... wait4 resumed>[{WIFEXITED(s) && WEXITSTATUS(s) == 0}], WSTOPPED|WCONTINUED, NULL) = 3
501 3.2 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=3, si_uid=0, si_status=0, si_utime=0, si_stime=0} ---
501 3.3 kill(1 /* 501 in strace's PID NS */, SIGCONT) = 0
501 3.4 --- SIGCONT {si_signo=SIGCONT, si_code=SI_USER, si_pid=1 /* 501 in strace's PID NS */, si_uid=0} ---
501 3.5 exit_group(0)   = ?
501 3.6 +++ exited with 0 +++
500 3.7 <... wait4 resumed>[{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 501
";

#[test]
fn kill_setpgid_and_getppid_in_a_pid_namespace_use_its_numbers() {
    let s = summary(PIDNS_SHELL);
    assert_eq!(bad_lines(&s), Vec::<usize>::new(), "{:?}", s.mismatches);
    assert_eq!(checked(&s, "kill in a pid namespace"), 3);
    assert_eq!(checked(&s, "setpgid in a pid namespace"), 4);
    assert_eq!(checked(&s, "getppid in a pid namespace"), 2);
    // The numbers are the namespace's: init's parent is 0 there, and a
    // child's parent is 1.
    let s = summary(&PIDNS_SHELL.replace(
        "503 2.7 getppid()       = 1 /* 501 in strace's PID NS */",
        "503 2.7 getppid()       = 501",
    ));
    assert_eq!(bad_lines(&s), vec![18]);
    // kill(1, 0) names the namespace's init, which exists.
    let s = summary(&PIDNS_SHELL.replace(
        "503 2.8 kill(1 /* 501 in strace's PID NS */, 0) = 0",
        "503 2.8 kill(1 /* 501 in strace's PID NS */, 0) = -1 ESRCH (No such process)",
    ));
    assert_eq!(bad_lines(&s), vec![19]);
}

/// The shapes of setpriv's calls and of a shell lowering `ulimit -u`
/// and forking past it (data/traces/extra/setpriv-ulimit), on one process
/// with a limit of 2: its own process and one child fit, a second child
/// does not (Linux counts the real uid's processes, `count > limit`).
const CREDS: &str = "\
400 1.0 getresgid([0], [0], [0]) = 0
400 1.1 setresgid(65534, 65534, 65534) = 0
400 1.2 setgroups(0, []) = 0
400 1.3 getresuid([0], [0], [0]) = 0
400 1.4 setresuid(65534, 65534, 65534) = 0
400 1.5 getuid()        = 65534
400 1.6 getegid()       = 65534
400 1.7 prlimit64(0, RLIMIT_NPROC, NULL, {rlim_cur=96365, rlim_max=96365}) = 0
400 1.8 prlimit64(0, RLIMIT_NPROC, {rlim_cur=2, rlim_max=2}, NULL) = 0
400 1.9 prlimit64(0, RLIMIT_NPROC, NULL, {rlim_cur=2, rlim_max=2}) = 0
400 2.0 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7ff5571b8a10) = 401
400 2.1 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7ff5571b8a10) = -1 EAGAIN (Resource temporarily unavailable)
400 2.2 setuid(0) = -1 EPERM (Operation not permitted)
401 2.3 exit_group(0) = ?
401 2.4 +++ exited with 0 +++
";

#[test]
fn credentials_and_limits_are_checked() {
    let s = summary(CREDS);
    assert_eq!(bad_lines(&s), Vec::<usize>::new());
    for call in [
        "setresgid",
        "setgroups",
        "getresuid",
        "getresgid",
        "setresuid",
        "getuid",
        "getegid",
        "setuid",
    ] {
        assert_eq!(checked(&s, call), 1, "{call}");
    }
    // The first read is learned (inherited from outside), the set and the
    // read after it are checked.
    assert_eq!(checked(&s, "prlimit64"), 2);
    // The fork past RLIMIT_NPROC is refused in the core too.
    let s = summary(&CREDS.replace("= -1 EAGAIN (Resource temporarily unavailable)", "= 402"));
    assert!(!bad_lines(&s).is_empty());
}

/// prctl(PR_SET_DUMPABLE/PR_GET_DUMPABLE) and a PTRACE_ATTACH refused by
/// a non-dumpable target, recorded here with the command of
/// data/traces/README.md (a C program: the parent clears and sets its flag
/// and tries 2; a child's id change clears its flag; a sibling with the
/// same ids tries to attach to it).
const DUMPABLE: &str = "\
1487  1795608467.770137 execve(\"./d\", [\"./d\"], 0x7ffe0bc26bf8 /* 35 vars */) = 0
1487  1795608467.771316 prctl(PR_GET_DUMPABLE) = 1 (SUID_DUMP_USER)
1487  1795608467.771330 prctl(PR_SET_DUMPABLE, SUID_DUMP_DISABLE) = 0
1487  1795608467.771339 prctl(PR_GET_DUMPABLE) = 0 (SUID_DUMP_DISABLE)
1487  1795608467.771347 prctl(PR_SET_DUMPABLE, SUID_DUMP_USER) = 0
1487  1795608467.771356 prctl(PR_SET_DUMPABLE, SUID_DUMP_ROOT) = -1 EINVAL (Invalid argument)
1487  1795608467.771393 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f92a2a12a10) = 1488
1488  1795608467.771675 prctl(PR_GET_DUMPABLE) = 1 (SUID_DUMP_USER)
1488  1795608467.771790 setresgid(2000, 2000, 2000) = 0
1488  1795608467.771877 setresuid(1000, 1000, 1000) = 0
1488  1795608467.771959 prctl(PR_GET_DUMPABLE) = 0 (SUID_DUMP_DISABLE)
1487  1795608467.772158 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD <unfinished ...>
1488  1795608467.772223 pause( <unfinished ...>
1489  1795608467.772295 setresgid(2000, 2000, 2000 <unfinished ...>
1487  1795608467.772302 <... clone resumed>, child_tidptr=0x7f92a2a12a10) = 1489
1487  1795608467.772313 wait4(1489,  <unfinished ...>
1489  1795608467.772323 <... setresgid resumed>) = 0
1489  1795608467.772331 setresuid(1000, 1000, 1000) = 0
1489  1795608467.772344 ptrace(PTRACE_ATTACH, 1488) = -1 EPERM (Operation not permitted)
1489  1795608467.772358 exit_group(0)   = ?
1489  1795608467.772407 +++ exited with 0 +++
1487  1795608467.772410 <... wait4 resumed>NULL, 0, NULL) = 1489
1487  1795608467.772416 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=1489, si_uid=1000, si_status=0, si_utime=0, si_stime=0} ---
1487  1795608467.772426 kill(1488, SIGKILL) = 0
1488  1795608467.772483 <... pause resumed>) = ?
1487  1795608467.772501 wait4(1488,  <unfinished ...>
1488  1795608467.772590 +++ killed by SIGKILL +++
1487  1795608467.772598 <... wait4 resumed>NULL, 0, NULL) = 1488
1487  1795608467.772603 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_KILLED, si_pid=1488, si_uid=1000, si_status=SIGKILL, si_utime=0, si_stime=0} ---
1487  1795608467.772618 exit_group(0)   = ?
1487  1795608467.772685 +++ exited with 0 +++
";

#[test]
fn dumpable_prctls_are_checked() {
    let s = summary(DUMPABLE);
    assert_eq!(bad_lines(&s), Vec::<usize>::new());
    // The 4 PR_GET_DUMPABLE and 3 PR_SET_DUMPABLE lines.
    assert_eq!(checked(&s, "prctl"), 7);
    // The child's id change clears its flag: a recorded 1 is wrong.
    let s = summary(&DUMPABLE.replace(
        "1488  1795608467.771959 prctl(PR_GET_DUMPABLE) = 0 (SUID_DUMP_DISABLE)",
        "1488  1795608467.771959 prctl(PR_GET_DUMPABLE) = 1 (SUID_DUMP_USER)",
    ));
    assert_eq!(bad_lines(&s), vec![11]);
    // SUID_DUMP_ROOT is refused.
    let s = summary(&DUMPABLE.replace(
        "prctl(PR_SET_DUMPABLE, SUID_DUMP_ROOT) = -1 EINVAL (Invalid argument)",
        "prctl(PR_SET_DUMPABLE, SUID_DUMP_ROOT) = 0",
    ));
    assert_eq!(bad_lines(&s), vec![6]);
}

/// State from before the trace is learned at its first read and compared
/// at every later one, whatever the attribute: a limit, the groups, a
/// disposition (one mechanism, `engine/learned.rs`). The child inherits
/// what its parent's process learned.
const FIRST_READS: &str = "\
400 1.0 prlimit64(0, RLIMIT_NOFILE, NULL, {rlim_cur=512, rlim_max=2048}) = 0
400 1.1 getgroups(0, NULL) = 2
400 1.2 getgroups(2, [10, 20]) = 2
400 1.3 rt_sigaction(SIGINT, NULL, {sa_handler=SIG_IGN, sa_mask=[], sa_flags=0}, 8) = 0
400 1.4 clone(child_stack=NULL, flags=SIGCHLD) = 401
401 1.5 prlimit64(0, RLIMIT_NOFILE, NULL, {rlim_cur=512, rlim_max=2048}) = 0
401 1.6 getgroups(2, [10, 20]) = 2
401 1.7 rt_sigaction(SIGINT, NULL, {sa_handler=SIG_IGN, sa_mask=[], sa_flags=0}, 8) = 0
400 1.8 prlimit64(0, RLIMIT_NOFILE, NULL, {rlim_cur=512, rlim_max=2048}) = 0
";

#[test]
fn state_from_before_the_trace_is_learned_once_then_checked() {
    let s = summary(FIRST_READS);
    assert_eq!(bad_lines(&s), Vec::<usize>::new());
    // Learned: the first limit read, the first getgroups that shows the
    // list (the count alone shows nothing), the first old action.
    for what in [
        "resource limits",
        "supplementary groups",
        "rt_sigaction old action",
    ] {
        assert_eq!(
            s.stats.learned.get(what),
            Some(&1),
            "{what}: {:?}",
            s.stats.learned
        );
    }
    // Checked: the child's and the parent's later limit reads and the
    // child's groups.
    assert_eq!(checked(&s, "prlimit64"), 2);
    assert_eq!(checked(&s, "getgroups"), 1);
    // A later read that disagrees with the first is a mismatch.
    let s = summary(&FIRST_READS.replace(
        "400 1.8 prlimit64(0, RLIMIT_NOFILE, NULL, {rlim_cur=512, rlim_max=2048}) = 0",
        "400 1.8 prlimit64(0, RLIMIT_NOFILE, NULL, {rlim_cur=256, rlim_max=2048}) = 0",
    ));
    assert_eq!(bad_lines(&s), vec![9]);
    let s = summary(&FIRST_READS.replace(
        "401 1.6 getgroups(2, [10, 20]) = 2",
        "401 1.6 getgroups(2, [10, 30]) = 2",
    ));
    assert_eq!(bad_lines(&s), vec![7]);
}
