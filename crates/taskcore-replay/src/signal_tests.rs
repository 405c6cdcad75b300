//! Replays of small hand-written traces of the signal path: masks, waits
//! for signals, handler frames and the `--- SIGxxx` lines.

use crate::Summary;

use crate::test_support::summary;

/// (checks, `---` lines checked, mismatch lines).
fn replay(text: &str) -> (u64, u64, Vec<usize>) {
    let s = summary(text);
    (
        s.stats.checked,
        s.stats.signals_checked,
        s.mismatches.iter().map(|m| m.line).collect(),
    )
}

/// A SIGUSR1 handler run with a mask, queued signals taken by
/// rt_sigtimedwait, a SIGCHLD ignored by default, ptrace refused.
const OK: &str = "\
100 1.00 rt_sigprocmask(SIG_SETMASK, [HUP], NULL, 8) = 0
100 1.01 rt_sigaction(SIGUSR1, {sa_handler=0x1000, sa_mask=[USR2], sa_flags=SA_RESTORER, sa_restorer=0x2000}, NULL, 8) = 0
100 1.02 kill(100, SIGUSR1) = 0
100 1.03 --- SIGUSR1 {si_signo=SIGUSR1, si_code=SI_USER, si_pid=100, si_uid=0} ---
100 1.04 rt_sigprocmask(SIG_BLOCK, NULL, [HUP USR1 USR2], 8) = 0
100 1.05 rt_sigreturn({mask=[HUP]}) = 0
100 1.06 rt_sigprocmask(SIG_BLOCK, [RT_2], [HUP], 8) = 0
100 1.07 rt_sigqueueinfo(100, SIGRT_2, {si_signo=SIGRT_2, si_code=SI_QUEUE, si_pid=100, si_uid=0, si_int=7, si_ptr=0x7}) = 0
100 1.08 rt_sigpending([RT_2], 8) = 0
100 1.09 rt_sigtimedwait([RT_2], {si_signo=SIGRT_2, si_code=SI_QUEUE, si_pid=100, si_uid=0, si_int=7, si_ptr=0x7}, NULL, 8) = 34 (SIGRT_2)
100 1.10 rt_sigtimedwait([RT_2], 0x7ffc, {tv_sec=0, tv_nsec=0}, 8) = -1 EAGAIN (Resource temporarily unavailable)
100 1.11 clone(child_stack=NULL, flags=SIGCHLD) = 101
101 1.12 ptrace(PTRACE_TRACEME) = -1 EPERM (Operation not permitted)
101 1.13 exit_group(3) = ?
101 1.14 +++ exited with 3 +++
100 1.15 wait4(101, [{WIFEXITED(s) && WEXITSTATUS(s) == 3}], 0, NULL) = 101
100 1.16 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=101, si_uid=0, si_status=3, si_utime=0, si_stime=0} ---
100 1.17 ptrace(PTRACE_ATTACH, 100) = -1 EPERM (Operation not permitted)
";

#[test]
fn a_consistent_signal_trace_replays_clean() {
    let (checks, signals, bad) = replay(OK);
    assert!(bad.is_empty(), "{bad:?}");
    assert_eq!(signals, 2, "the two `---` lines");
    assert!(checks >= 17, "{checks}");
}

#[test]
fn a_wrong_old_mask_or_pending_set_is_a_mismatch() {
    let (_, _, bad) = replay(&OK.replace("[RT_2], [HUP], 8)", "[RT_2], [], 8)"));
    assert_eq!(bad, vec![7]);
    let (_, _, bad) = replay(&OK.replace("rt_sigpending([RT_2]", "rt_sigpending([RT_3]"));
    assert_eq!(bad, vec![9]);
}

#[test]
fn a_wrong_handler_mask_or_siginfo_is_a_mismatch() {
    // The handler's frame saved [HUP]: strace printing another is wrong.
    let (_, _, bad) = replay(&OK.replace("rt_sigreturn({mask=[HUP]})", "rt_sigreturn({mask=[]})"));
    assert_eq!(bad.first(), Some(&6), "{bad:?}");
    // The mask inside the handler is the old one, sa_mask and the signal.
    let (_, _, bad) = replay(&OK.replace("NULL, [HUP USR1 USR2], 8)", "NULL, [HUP USR1], 8)"));
    assert_eq!(bad, vec![5]);
    let (_, _, bad) =
        replay(&OK.replace("si_int=7, si_ptr=0x7}, NULL", "si_int=8, si_ptr=0x8}, NULL"));
    assert_eq!(bad, vec![10]);
}

#[test]
fn a_signal_never_sent_is_a_mismatch() {
    // SIGUSR2 has a handler but nobody sent it.
    let text = "\
100 1.00 rt_sigaction(SIGUSR2, {sa_handler=0x1000, sa_mask=[], sa_flags=SA_RESTORER, sa_restorer=0x2000}, NULL, 8) = 0
100 1.01 getpid() = 100
100 1.02 --- SIGUSR2 {si_signo=SIGUSR2, si_code=SI_USER, si_pid=100, si_uid=0} ---
";
    let (_, _, bad) = replay(text);
    assert_eq!(bad, vec![3]);
}

#[test]
fn an_interrupted_wait_needs_a_signal_and_sa_restart_decides_the_restart() {
    let text = "\
100 1.00 rt_sigaction(SIGCHLD, {sa_handler=0x1000, sa_mask=[], sa_flags=SA_RESTORER, sa_restorer=0x2000}, NULL, 8) = 0
100 1.01 clone(child_stack=NULL, flags=SIGCHLD) = 101
100 1.02 clone(child_stack=NULL, flags=SIGCHLD) = 102
100 1.03 wait4(102,  <unfinished ...>
101 1.04 exit_group(1) = ?
101 1.05 +++ exited with 1 +++
100 1.06 <... wait4 resumed>0x7ffc, 0, NULL) = ? ERESTARTSYS (To be restarted if SA_RESTART is set)
100 1.07 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=101, si_uid=0, si_status=1, si_utime=0, si_stime=0} ---
100 1.08 rt_sigreturn({mask=[]}) = -1 EINTR (Interrupted system call)
";
    let (_, signals, bad) = replay(text);
    assert!(bad.is_empty(), "{bad:?}");
    assert_eq!(signals, 1);
    // Without SA_RESTART the call cannot have been restarted.
    let (_, _, bad) = replay(&text.replace("= -1 EINTR (Interrupted system call)", "= 61"));
    assert_eq!(bad, vec![9]);
    // The handled SIGCHLD's siginfo is the child's.
    let (_, _, bad) = replay(&text.replace("si_status=1,", "si_status=2,"));
    assert_eq!(bad, vec![8]);
    // With nothing to interrupt it, the wait would have slept on: the
    // signal of the `---` line was never sent.
    let no_child = text.replace(
        "101 1.04 exit_group(1) = ?\n101 1.05 +++ exited with 1 +++\n",
        "",
    );
    let (_, _, bad) = replay(&no_child);
    assert!(bad.contains(&6), "{bad:?}");
}

#[test]
fn ptrace_under_strace_is_refused() {
    // Under strace -f every task is traced: TRACEME and ATTACH give EPERM,
    // requests on a task the caller does not trace ESRCH.
    let (_, _, bad) = replay(&OK.replace(
        "ptrace(PTRACE_TRACEME) = -1 EPERM (Operation not permitted)",
        "ptrace(PTRACE_TRACEME) = 0",
    ));
    assert_eq!(bad, vec![13]);
    let text = "\
100 1.00 clone(child_stack=NULL, flags=SIGCHLD) = 101
100 1.01 ptrace(PTRACE_CONT, 101, NULL, 0) = -1 ESRCH (No such process)
100 1.02 ptrace(PTRACE_SEIZE, 101, NULL, 0) = -1 EPERM (Operation not permitted)
100 1.03 ptrace(PTRACE_ATTACH, 4242) = -1 ESRCH (No such process)
";
    let (checks, _, bad) = replay(text);
    assert!(bad.is_empty(), "{bad:?}");
    assert!(checks >= 3, "{checks}");
}

/// Thread 101 ends with `exit(0)`, its child's pdeath signal says it died
/// before its process's `exit_group(173)`; strace reaped it only after the
/// group exit began, so `wait_task_zombie()` gave the group's code
/// (tests/oracle/ptrace_edges.out, case zombie_status).
const THREAD_EXIT_THEN_GROUP_EXIT: &str = "\
100 1.00 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, child_tid=0x7f90, parent_tid=0x7f90, exit_signal=0, stack=0x7f00, stack_size=0x7fff80, tls=0x7f60} => {parent_tid=[101]}, 88) = 101
101 1.01 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f90) = 102
102 1.02 rt_sigaction(SIGUSR1, {sa_handler=0x1000, sa_mask=[], sa_flags=SA_RESTORER, sa_restorer=0x2000}, NULL, 8) = 0
102 1.03 prctl(PR_SET_PDEATHSIG, SIGUSR1) = 0
101 1.04 exit(0) = ?
102 1.05 --- SIGUSR1 {si_signo=SIGUSR1, si_code=SI_USER, si_pid=100, si_uid=0} ---
102 1.06 rt_sigreturn({mask=[]}) = 0
100 1.07 exit_group(173) = ?
101 1.08 +++ exited with 173 +++
100 1.09 +++ exited with 173 +++
102 1.10 exit_group(0) = ?
102 1.11 +++ exited with 0 +++
";

#[test]
fn a_thread_reaped_after_its_group_exit_began_shows_the_group_code() {
    let (_, signals, bad) = replay(THREAD_EXIT_THEN_GROUP_EXIT);
    assert!(bad.is_empty(), "{bad:?}");
    assert_eq!(signals, 1);
    // Its own code is what strace shows when it reaped it first.
    let own = THREAD_EXIT_THEN_GROUP_EXIT
        .replace("101 1.08 +++ exited with 173", "101 1.08 +++ exited with 0");
    let (_, _, bad) = replay(&own);
    assert!(bad.is_empty(), "{bad:?}");
    // Neither its code nor its group's.
    let wrong = THREAD_EXIT_THEN_GROUP_EXIT.replace(
        "101 1.08 +++ exited with 173",
        "101 1.08 +++ exited with 174",
    );
    let (_, _, bad) = replay(&wrong);
    assert!(!bad.is_empty());
}

/// SIGSTOP dequeued (strace's `--- SIGSTOP` line, the signal-delivery-stop)
/// and a SIGCONT sent before strace resumed the child: the stop is given up
/// (tests/oracle/ptrace_edges.out, case sigstop_cancelled), no `--- stopped`
/// line follows, the SIGCONT is delivered next and no WCONTINUED report
/// comes of it.
const SIGSTOP_CANCELLED: &str = "\
100 1.00 clone(child_stack=NULL, flags=SIGCHLD) = 101
100 1.01 kill(101, SIGSTOP) = 0
101 1.02 --- SIGSTOP {si_signo=SIGSTOP, si_code=SI_USER, si_pid=100, si_uid=0} ---
100 1.03 kill(101, SIGCONT) = 0
101 1.04 --- SIGCONT {si_signo=SIGCONT, si_code=SI_USER, si_pid=100, si_uid=0} ---
100 1.045 wait4(101, 0x7ffc, WNOHANG|WCONTINUED, NULL) = 0
101 1.05 exit_group(3) = ?
101 1.06 +++ exited with 3 +++
100 1.07 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=101, si_uid=0, si_status=3, si_utime=0, si_stime=0} ---
100 1.08 wait4(101, [{WIFEXITED(s) && WEXITSTATUS(s) == 3}], 0, NULL) = 101
";

#[test]
fn a_sigcont_during_a_sigstop_delivery_stop_cancels_the_stop() {
    let (_, signals, bad) = replay(SIGSTOP_CANCELLED);
    assert!(bad.is_empty(), "{bad:?}");
    assert_eq!(signals, 3);
}

/// GNU make waits for SIGCHLD in pselect6 with an empty mask while its
/// mask blocks SIGCHLD; pselect6 is not in strace's `%signal` class, so
/// the trace shows a blocked SIGCHLD taken, and the handler frame's mask
/// is the one pselect6 saved (data/traces/extra/make-j2-sig).
const TAKEN_IN_PSELECT: &str = "\
100 1.00 rt_sigaction(SIGCHLD, {sa_handler=0x1000, sa_mask=[], sa_flags=SA_RESTORER|SA_RESTART, sa_restorer=0x2000}, NULL, 8) = 0
100 1.01 rt_sigprocmask(SIG_BLOCK, [CHLD], [], 8) = 0
100 1.02 clone(child_stack=NULL, flags=SIGCHLD) = 101
101 1.03 exit_group(0) = ?
101 1.04 +++ exited with 0 +++
100 1.05 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=101, si_uid=0, si_status=0, si_utime=0, si_stime=0} ---
100 1.06 rt_sigreturn({mask=[CHLD]}) = -1 EINTR (Interrupted system call)
100 1.07 rt_sigprocmask(SIG_BLOCK, NULL, [CHLD], 8) = 0
100 1.08 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], WNOHANG, NULL) = 101
";

#[test]
fn a_blocked_signal_taken_in_an_unrecorded_temporary_mask_restores_the_saved_one() {
    let (_, signals, bad) = replay(TAKEN_IN_PSELECT);
    assert!(bad.is_empty(), "{bad:?}");
    assert_eq!(signals, 1);
    let s = summary(TAKEN_IN_PSELECT);
    assert_eq!(
        s.stats.checked_calls.get("--- signal in a temporary mask"),
        Some(&1)
    );
    // The frame saved the blocking mask: strace showing another is wrong.
    let (_, _, bad) = replay(&TAKEN_IN_PSELECT.replace("{mask=[CHLD]}", "{mask=[]}"));
    assert_eq!(bad.first(), Some(&7), "{bad:?}");
    // A signal nobody sent is still a mismatch, blocked or not.
    let (_, _, bad) = replay(&TAKEN_IN_PSELECT.replace("--- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=101, si_uid=0, si_status=0, si_utime=0, si_stime=0}", "--- SIGUSR1 {si_signo=SIGUSR1, si_code=SI_USER, si_pid=100, si_uid=0}"));
    assert!(bad.contains(&6), "{bad:?}");
}

/// Process 101's leader dies with its thread 102; strace reaps the leader
/// (and its parent is sent SIGCHLD) only at the leader's own `+++` line,
/// after the parent took the SIGCHLD of its other child 103: two SIGCHLDs,
/// not one coalesced (data/traces/extra/go-build-cold-sig).
const LEADER_REAPED_AT_ITS_LINE: &str = "\
100 1.00 rt_sigaction(SIGCHLD, {sa_handler=0x1000, sa_mask=[], sa_flags=SA_RESTORER|SA_RESTART, sa_restorer=0x2000}, NULL, 8) = 0
100 1.01 clone(child_stack=NULL, flags=SIGCHLD) = 101
100 1.02 clone(child_stack=NULL, flags=SIGCHLD) = 103
101 1.03 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, child_tid=0x7f90, parent_tid=0x7f90, exit_signal=0, stack=0x7f00, stack_size=0x7fff80, tls=0x7f60} => {parent_tid=[102]}, 88) = 102
103 1.04 exit_group(0) = ?
103 1.05 +++ exited with 0 +++
101 1.06 exit_group(0) = ?
102 1.07 +++ exited with 0 +++
100 1.08 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=103, si_uid=0, si_status=0, si_utime=0, si_stime=0} ---
101 1.09 +++ exited with 0 +++
100 1.10 rt_sigreturn({mask=[]}) = 0
FILLER
100 1.11 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=101, si_uid=0, si_status=0, si_utime=0, si_stime=0} ---
100 1.12 rt_sigreturn({mask=[]}) = 0
100 1.13 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 101
100 1.14 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 103
";

/// `n` lines of thread `pid` reading its mask `mask` between two lines:
/// more events than the order search looks back over, so that a mismatch
/// after them cannot be mended by moving an event before them.
fn filler(text: &str, pid: i32, mask: &str, n: usize) -> String {
    let lines: Vec<String> = (0..n)
        .map(|i| format!("{pid} 1.10{i:04} rt_sigprocmask(SIG_BLOCK, NULL, {mask}, 8) = 0"))
        .collect();
    text.replace("FILLER", &lines.join("\n"))
}

#[test]
fn a_dying_leader_is_reaped_by_strace_at_its_own_exit_line() {
    let text = filler(LEADER_REAPED_AT_ITS_LINE, 100, "[]", 100);
    let (_, signals, bad) = replay(&text);
    assert!(bad.is_empty(), "{bad:?}");
    assert_eq!(signals, 2);
}

/// Two children's SIGCHLDs while the parent blocks SIGCHLD: in the
/// emulation the second is lost to the first, still pending. strace
/// printed the second child's `+++` line (after the parent was sent its
/// SIGCHLD) before the parent's `---` line (after the dequeue), but a
/// later `---` line names that child: Linux sent it after the dequeue
/// (data/traces/wide/hello-build-sig, make).
const SENT_AFTER_THE_DEQUEUE: &str = "\
100 1.00 rt_sigaction(SIGCHLD, {sa_handler=0x1000, sa_mask=[], sa_flags=SA_RESTORER|SA_RESTART, sa_restorer=0x2000}, NULL, 8) = 0
100 1.01 rt_sigprocmask(SIG_BLOCK, [CHLD], [], 8) = 0
100 1.02 clone(child_stack=NULL, flags=SIGCHLD) = 101
100 1.03 clone(child_stack=NULL, flags=SIGCHLD) = 102
101 1.04 exit_group(0) = ?
101 1.05 +++ exited with 0 +++
102 1.06 exit_group(0) = ?
102 1.07 +++ exited with 0 +++
100 1.08 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=101, si_uid=0, si_status=0, si_utime=0, si_stime=0} ---
100 1.09 rt_sigreturn({mask=[CHLD]}) = -1 EINTR (Interrupted system call)
100 1.10 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], WNOHANG, NULL) = 101
100 1.11 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], WNOHANG, NULL) = 102
FILLER
100 1.12 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=102, si_uid=0, si_status=0, si_utime=0, si_stime=0} ---
100 1.13 rt_sigreturn({mask=[CHLD]}) = -1 EINTR (Interrupted system call)
";

#[test]
fn a_childs_signal_lost_only_in_the_emulations_order_is_sent_after_the_dequeue() {
    let text = filler(SENT_AFTER_THE_DEQUEUE, 100, "[CHLD]", 100);
    let (_, signals, bad) = replay(&text);
    assert!(bad.is_empty(), "{bad:?}");
    assert_eq!(signals, 2);
    // A line of the parent after the second child's `+++` line: the
    // SIGCHLD was sent before the dequeue and lost; a second one is wrong.
    let before = text.replace(
        "102 1.07 +++ exited with 0 +++\n",
        "102 1.07 +++ exited with 0 +++\n100 1.075 rt_sigprocmask(SIG_BLOCK, NULL, [CHLD], 8) = 0\n",
    );
    let (_, _, bad) = replay(&before);
    assert_eq!(bad, vec![114], "{bad:?}");
}

/// Thread 101 of process 100 sends itself SIGUSR1 while thread 100 toggles
/// its action between a handler and SIG_IGN (CPython's
/// test_stress_modifying_handlers): sent while ignored, kept by the core
/// for the emulated strace's tracee, and handled once the handler is back (line 7); then taken
/// while a SIG_IGN was open at its `---` line (line 11: no handler ran,
/// the next one at line 16 shows it).
const TOGGLE: &str = "\
100 1.00 rt_sigprocmask(SIG_SETMASK, [], NULL, 8) = 0
100 1.01 rt_sigaction(SIGUSR1, {sa_handler=SIG_IGN, sa_mask=[], sa_flags=SA_RESTORER, sa_restorer=0x2000}, {sa_handler=SIG_DFL, sa_mask=[], sa_flags=0}, 8) = 0
100 1.02 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM, exit_signal=0, stack=0x1000, stack_size=0x1000}, 88) = 101
101 1.03 rt_sigprocmask(SIG_SETMASK, [], NULL, 8) = 0
101 1.04 tgkill(100, 101, SIGUSR1) = 0
100 1.05 rt_sigaction(SIGUSR1, {sa_handler=0x1000, sa_mask=[], sa_flags=SA_RESTORER, sa_restorer=0x2000}, {sa_handler=SIG_IGN, sa_mask=[], sa_flags=SA_RESTORER, sa_restorer=0x2000}, 8) = 0
101 1.06 --- SIGUSR1 {si_signo=SIGUSR1, si_code=SI_TKILL, si_pid=100, si_uid=0} ---
101 1.07 rt_sigreturn({mask=[]}) = 0
101 1.08 tgkill(100, 101, SIGUSR1) = 0
100 1.09 rt_sigaction(SIGUSR1, {sa_handler=SIG_IGN, sa_mask=[], sa_flags=SA_RESTORER, sa_restorer=0x2000},  <unfinished ...>
101 1.10 --- SIGUSR1 {si_signo=SIGUSR1, si_code=SI_TKILL, si_pid=100, si_uid=0} ---
100 1.11 <... rt_sigaction resumed>{sa_handler=0x1000, sa_mask=[], sa_flags=SA_RESTORER, sa_restorer=0x2000}, 8) = 0
100 1.12 rt_sigaction(SIGUSR1, {sa_handler=0x1000, sa_mask=[], sa_flags=SA_RESTORER, sa_restorer=0x2000}, {sa_handler=SIG_IGN, sa_mask=[], sa_flags=SA_RESTORER, sa_restorer=0x2000}, 8) = 0
101 1.13 tgkill(100, 101, SIGUSR1) = 0
101 1.14 --- SIGUSR1 {si_signo=SIGUSR1, si_code=SI_TKILL, si_pid=100, si_uid=0} ---
101 1.15 rt_sigreturn({mask=[]}) = 0
101 1.16 exit(0) = ?
101 1.17 +++ exited with 0 +++
100 1.18 exit_group(0) = ?
100 1.19 +++ exited with 0 +++
";

#[test]
fn an_ignored_signal_a_tracee_kept_meets_its_handler() {
    let s = summary(TOGGLE);
    let bad: Vec<usize> = s.mismatches.iter().map(|m| m.line).collect();
    assert!(bad.is_empty(), "{:?}", s.mismatches);
    // Kept by the core: the emulated strace traces the thread, so
    // sig_ignored() does not discard the signal sent while ignored, and
    // line 7's `---` finds it pending (a discarded one would mismatch).
    let undone: u64 = s
        .stats
        .learned
        .iter()
        .filter(|(k, _)| k.starts_with("handler not run"))
        .map(|(_, n)| *n)
        .sum();
    assert_eq!(undone, 1, "{:?}", s.stats.learned);
}

#[test]
fn a_handler_return_with_no_handler_run_is_a_mismatch() {
    let lines: Vec<&str> = TOGGLE.lines().collect();
    // The handler set between the first `---` line and the thread's next
    // line (its rt_sigreturn): the action read after the delivery-stop
    // may have been the handler's.
    let mut v = lines.clone();
    v.swap(5, 6);
    let s = summary(&(v.join("\n") + "\n"));
    assert!(s.mismatches.is_empty(), "{:?}", s.mismatches);
    let run = s
        .stats
        .learned
        .iter()
        .filter(|(k, _)| k.starts_with("handler run"))
        .count();
    assert_eq!(run, 1, "{:?}", s.stats.learned);
    // Set only after the rt_sigreturn: no handler ran, so thread 101's
    // rt_sigreturn (now line 7) has no frame.
    let mut v = lines;
    let set = v.remove(5);
    v.insert(7, set);
    let (_, _, bad) = replay(&(v.join("\n") + "\n"));
    assert_eq!(bad, vec![7]);
}

#[test]
fn sigtimedwait_takes_a_timer_signal_sent_from_outside() {
    let text = "\
100 1.00 rt_sigprocmask(SIG_BLOCK, [ALRM], [], 8) = 0
100 1.01 rt_sigtimedwait([ALRM], {si_signo=SIGALRM, si_code=SI_KERNEL}, {tv_sec=10, tv_nsec=0}, 8) = 14 (SIGALRM)
100 1.02 rt_sigprocmask(SIG_UNBLOCK, [ALRM], [ALRM], 8) = 0
100 1.03 exit_group(0) = ?
100 1.04 +++ exited with 0 +++
";
    let s = summary(text);
    assert!(s.mismatches.is_empty(), "{:?}", s.mismatches);
    assert_eq!(
        s.stats
            .unchecked
            .get("rt_sigtimedwait (sender outside the replay: sent at the call)"),
        Some(&1)
    );
    // A SIGUSR1 from a process of the trace that sent none is a mismatch.
    let (_, _, bad) = replay(&text.replace(
        "{si_signo=SIGALRM, si_code=SI_KERNEL}",
        "{si_signo=SIGALRM, si_code=SI_USER, si_pid=100, si_uid=0}",
    ));
    assert_eq!(bad, vec![2]);
}

/// Each `--- SIG` line counted once: checked, or counted apart under an
/// `unchecked` key starting with `--- signal`.
fn lines_counted(s: &Summary) -> u64 {
    let apart: u64 = s
        .stats
        .unchecked
        .iter()
        .filter(|(k, _)| k.starts_with("--- signal"))
        .map(|(_, n)| *n)
        .sum();
    s.stats.signals_checked + apart
}

/// A parent-death signal kills its tracee: `get_signal()` stops it in its
/// `PTRACE_EVENT_EXIT` stop, which the emulated strace resumes; the thread
/// exits then, it is not in a group stop (no SIGCONT from outside is
/// made up for it).
#[test]
fn a_fatal_signal_through_the_exit_stop_is_no_group_stop() {
    let text = "\
100 1.0 clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD <unfinished ...>
101 1.1 prctl(PR_SET_PDEATHSIG, SIGTERM <unfinished ...>
100 1.2 <... clone resumed>, child_tidptr=0x7f293b20da10) = 101
101 1.3 <... prctl resumed>) = 0
101 1.4 pause( <unfinished ...>
100 1.5 exit_group(0)   = ?
100 1.6 +++ exited with 0 +++
101 1.7 <... pause resumed>) = ? ERESTARTNOHAND (To be restarted if no handler)
101 1.8 --- SIGTERM {si_signo=SIGTERM, si_code=SI_USER, si_pid=100, si_uid=0} ---
101 1.9 +++ killed by SIGTERM +++
";
    let s = summary(text);
    assert!(s.mismatches.is_empty(), "{:?}", s.mismatches);
    assert_eq!(s.stats.signals_checked, 1);
    assert_eq!(lines_counted(&s), 1, "{:?}", s.stats.unchecked);
    assert!(
        s.stats
            .learned
            .keys()
            .all(|k| !k.contains("group continued")),
        "{:?}",
        s.stats.learned
    );
}

/// A stopped child takes a SIGTERM from outside the trace (timeout(1)
/// sends its signal, then SIGCONT): the SIGCONT is learned, the line is
/// counted once (sent from outside, not checked as well): two `--- SIG`
/// lines, two counted.
#[test]
fn a_group_continued_from_outside_counts_its_line_once() {
    let text = "\
100 1.0 clone(child_stack=NULL, flags=SIGCHLD) = 101
100 1.1 kill(101, SIGSTOP) = 0
101 1.2 --- SIGSTOP {si_signo=SIGSTOP, si_code=SI_USER, si_pid=100, si_uid=0} ---
101 1.3 --- stopped by SIGSTOP ---
101 1.4 --- SIGTERM {si_signo=SIGTERM, si_code=SI_USER, si_pid=7, si_uid=0} ---
101 1.5 +++ killed by SIGTERM +++
100 1.6 exit_group(0) = ?
100 1.7 +++ exited with 0 +++
";
    let s = summary(text);
    assert!(s.mismatches.is_empty(), "{:?}", s.mismatches);
    assert_eq!(lines_counted(&s), 2, "{:?}", s.stats.unchecked);
    assert_eq!(
        s.stats
            .learned
            .get("group continued from outside the replay (a SIGCONT not in the trace)"),
        Some(&1),
        "{:?}",
        s.stats.learned
    );
}

/// Two children killed by SIGSEGV, the first dumping core, the second
/// not (`RLIMIT_CORE` or `core_pattern`, which the trace does not show;
/// data/traces/extra/jobctl): the thread's `+++ killed by` line, which
/// ends strace's restart of its signal-delivery-stop, says which, and the
/// parent's wait and SIGCHLD report it so.
const CORE_DUMPS: &str = "\
100 1.00 clone(child_stack=NULL, flags=SIGCHLD) = 101
101 1.01 --- SIGSEGV {si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=NULL} ---
101 1.02 +++ killed by SIGSEGV (core dumped) +++
100 1.03 wait4(-1, [{WIFSIGNALED(s) && WTERMSIG(s) == SIGSEGV && WCOREDUMP(s)}], 0, NULL) = 101
100 1.04 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_DUMPED, si_pid=101, si_uid=0, si_status=SIGSEGV, si_utime=0, si_stime=0} ---
100 1.05 clone(child_stack=NULL, flags=SIGCHLD) = 102
102 1.06 --- SIGSEGV {si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=NULL} ---
102 1.07 +++ killed by SIGSEGV +++
100 1.08 wait4(-1, [{WIFSIGNALED(s) && WTERMSIG(s) == SIGSEGV}], 0, NULL) = 102
100 1.09 --- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_KILLED, si_pid=102, si_uid=0, si_status=SIGSEGV, si_utime=0, si_stime=0} ---
";

#[test]
fn whether_a_core_was_dumped_is_learned_from_the_killed_line() {
    let (_, signals, bad) = replay(CORE_DUMPS);
    assert!(bad.is_empty(), "{bad:?}");
    // The faults are sent at their lines (not checked), the SIGCHLDs are.
    assert_eq!(signals, 2);
    let s = summary(CORE_DUMPS);
    assert_eq!(
        s.stats
            .learned
            .get("core dumps (RLIMIT_CORE, core_pattern), at a death"),
        Some(&1)
    );
    // A wait that shows a core dump the `+++` line denies is wrong.
    let wrong = CORE_DUMPS.replace(
        "[{WIFSIGNALED(s) && WTERMSIG(s) == SIGSEGV}], 0, NULL) = 102",
        "[{WIFSIGNALED(s) && WTERMSIG(s) == SIGSEGV && WCOREDUMP(s)}], 0, NULL) = 102",
    );
    let (_, _, bad) = replay(&wrong);
    assert_eq!(bad, vec![9], "{bad:?}");
}
