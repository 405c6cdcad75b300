//! What a recording does not show, inferred (issue 22): a clone refused
//! by counts outside the trace, a pid namespace whose `unshare` the filter
//! left out, a signal a signalfd consumed.

use crate::Summary;

use crate::test_support::summary;

fn lines(s: &Summary) -> Vec<usize> {
    s.mismatches.iter().map(|m| m.line).collect()
}

const REFUSED: &str = "\
100 1.0 clone(child_stack=NULL, flags=SIGCHLD) = 101
100 1.1 clone(child_stack=NULL, flags=SIGCHLD) = -1 EAGAIN (Resource temporarily unavailable)
101 1.2 exit_group(7) = ?
101 1.3 +++ exited with 7 +++
100 1.4 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 7}], 0, NULL) = 101
100 1.5 wait4(-1, 0x7ffc, 0, NULL) = -1 ECHILD (No child processes)
";

#[test]
fn a_clone_refused_over_counts_outside_the_trace_leaves_no_child() {
    let s = summary(REFUSED);
    assert!(s.mismatches.is_empty(), "{:?}", s.mismatches);
    let why = s
        .stats
        .unchecked
        .keys()
        .find(|k| k.starts_with("clone (refused over"))
        .cloned();
    assert!(why.is_some(), "{:?}", s.stats.unchecked);
}

#[test]
fn a_refused_clone_the_core_accepts_otherwise_is_a_mismatch_without_a_child() {
    // EPERM does not depend on counts outside the trace: the core's child
    // is a mismatch, and it is undone all the same (the last wait's ECHILD
    // agrees).
    let s = summary(&REFUSED.replace("EAGAIN (Resource temporarily unavailable)", "EPERM (x)"));
    assert_eq!(lines(&s), vec![2]);
    let m = &s.mismatches[0];
    assert_eq!(
        (m.recorded.as_str(), m.emulated.as_str()),
        ("= -1 EPERM", "a child (emulated pid 6)")
    );
}

/// `unshare --pid --fork sh -c ...` recorded with `-e trace=%process
/// --decode-pids=pidns`: the unshare() is not in the trace.
const PIDNS: &str = "\
765 1.00 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f53) = 766
765 1.01 wait4(766,  <unfinished ...>
766 1.02 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f1e) = 2 /* 767 in strace's PID NS */
767 1.03 exit_group(3) = ?
767 1.04 +++ exited with 3 +++
766 1.05 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 3}], 0, NULL) = 2
766 1.06 wait4(-1, 0x7fff, WNOHANG, NULL) = -1 ECHILD (No child processes)
766 1.07 exit_group(0) = ?
766 1.08 +++ exited with 0 +++
765 1.09 <... wait4 resumed>[{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 766
";

#[test]
fn a_pid_namespace_is_inferred_from_strace_pidns_comments() {
    let s = summary(PIDNS);
    assert!(s.mismatches.is_empty(), "{:?}", s.mismatches);
    assert_eq!(
        s.stats
            .learned
            .get("pid namespace (--decode-pids=pidns comments)"),
        Some(&1)
    );
    // The namespace's numbers are still checked: its init's first child
    // is 2, not 3.
    let s = summary(&PIDNS.replace("= 2 /* 767", "= 3 /* 767"));
    assert_eq!(lines(&s), vec![3]);
}

/// A signalfd user (data/traces/qq/src/signalfd-late.c): SIGUSR1 and
/// SIGCHLD consumed by read() on the signalfd, then unblocked; later ones
/// are delivered with their own siginfo.
const SIGNALFD: &str = "\
100 1.00 rt_sigaction(SIGUSR1, {sa_handler=0x5209, sa_mask=[], sa_flags=SA_RESTORER, sa_restorer=0x7f50}, NULL, 8) = 0
100 1.01 rt_sigaction(SIGCHLD, {sa_handler=0x5209, sa_mask=[], sa_flags=SA_RESTORER, sa_restorer=0x7f50}, NULL, 8) = 0
100 1.02 rt_sigprocmask(SIG_BLOCK, [USR1 CHLD], NULL, 8) = 0
100 1.03 signalfd4(-1, [USR1 CHLD], 8, SFD_CLOEXEC) = 3
100 1.04 clone(child_stack=NULL, flags=SIGCHLD) = 101
101 1.05 kill(100, SIGUSR1) = 0
101 1.06 exit_group(5) = ?
101 1.07 +++ exited with 5 +++
100 1.08 wait4(101, [{WIFEXITED(s) && WEXITSTATUS(s) == 5}], 0, NULL) = 101
100 1.09 rt_sigprocmask(SIG_UNBLOCK, [USR1 CHLD], NULL, 8) = 0
100 1.10 kill(100, SIGUSR1) = 0
100 1.11 --- SIGUSR1 {si_signo=SIGUSR1, si_code=SI_USER, si_pid=100, si_uid=0} ---
100 1.12 rt_sigreturn({mask=[]}) = 0
100 1.13 clone(child_stack=NULL, flags=SIGCHLD) = 102
102 1.14 exit_group(6) = ?
102 1.15 +++ exited with 6 +++
100 1.16 wait4(102, [{WIFEXITED(s) && WEXITSTATUS(s) == 6}], 0, NULL) = 102
100 1.17 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=102, si_uid=0, si_status=6, si_utime=0, si_stime=0} ---
100 1.18 rt_sigreturn({mask=[]}) = 102
";

#[test]
fn a_signal_a_signalfd_consumed_is_inferred_once_unblocked() {
    let s = summary(SIGNALFD);
    assert!(s.mismatches.is_empty(), "{:?}", s.mismatches);
    assert_eq!(
        s.stats
            .learned
            .get("signal consumed outside the trace (no --- line once unblocked)"),
        Some(&2)
    );
    // Without a signalfd nothing consumed them: the stale ones take the
    // later sends' places (siginfo mismatches at both `---` lines).
    let s = summary(&SIGNALFD.replace(
        "signalfd4(-1, [USR1 CHLD], 8, SFD_CLOEXEC) = 3",
        "getpid() = 100",
    ));
    assert_eq!(lines(&s), vec![12, 18]);
}
