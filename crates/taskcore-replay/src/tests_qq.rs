//! `strace -qq` recordings (issue 22): what the replay infers where the
//! `+++ exited` lines are missing, and where the recording leaves the
//! answer open.

use crate::test_support::{summary, summary_with};
use crate::Options;

const SIGCHLD_101: &str = "{si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=101, si_uid=0, si_status=3, si_utime=0, si_stime=0}";
const SIGCHLD_102: &str = "{si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=102, si_uid=0, si_status=4, si_utime=0, si_stime=0}";

#[test]
fn a_threads_exit_call_after_its_groups_exit_is_not_checkable() {
    // Thread 102 enters exit(0) after its group's exit_group(5) (strace
    // handled its syscall-entry stop later): the kernel skips a call
    // entered with SIGKILL pending, and under -qq no `+++` line says which
    // status the thread died with.
    let text = "\
100 1.0 clone(child_stack=NULL, flags=SIGCHLD) = 101
101 1.1 clone(child_stack=0x7f00, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID, parent_tid=[102], tls=0x7f00, child_tidptr=0x7f00) = 102
101 1.2 exit_group(5) = ?
102 1.3 exit(0) = ?
100 1.4 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 5}], 0, NULL) = 101
";
    let s = summary(text);
    assert!(s.mismatches.is_empty(), "{:?}", s.mismatches);
    assert_eq!(
        s.stats
            .unchecked
            .get("+++ exited (from exit(N), with its group's exit)"),
        Some(&1)
    );
    // A thread that exits on its own before its group keeps its check.
    let own = text.replace(
        "101 1.2 exit_group(5) = ?\n102 1.3 exit(0) = ?\n",
        "102 1.2 exit(0) = ?\n101 1.3 exit_group(5) = ?\n",
    );
    let s = summary(&own);
    assert!(s.mismatches.is_empty(), "{:?}", s.mismatches);
    assert_eq!(
        s.stats
            .unchecked
            .get("+++ exited (from exit(N), with its group's exit)"),
        None
    );
}

#[test]
fn a_qq_reap_follows_a_dequeue_that_comes_after_its_exit_call() {
    // 102's SIGCHLD was sent after 100 took 101's (it is delivered
    // apart), so its reap, from its exit call to the wait that reports
    // it, comes after that dequeue, which comes after 100 unblocked
    // SIGCHLD: the reap moves later, not the dequeue earlier.
    let text = format!(
        "\
100 1.0 rt_sigaction(SIGCHLD, {{sa_handler=0x55d0, sa_mask=[], sa_flags=SA_RESTORER, sa_restorer=0x7f00}}, NULL, 8) = 0
100 1.1 rt_sigprocmask(SIG_BLOCK, [CHLD], [], 8) = 0
100 1.2 clone(child_stack=NULL, flags=SIGCHLD) = 101
100 1.3 clone(child_stack=NULL, flags=SIGCHLD) = 102
101 1.4 exit_group(3) = ?
102 1.5 exit_group(4) = ?
100 1.6 rt_sigprocmask(SIG_SETMASK, [], NULL, 8) = 0
100 1.7 --- SIGCHLD {SIGCHLD_101} ---
100 1.8 wait4(-1, [{{WIFEXITED(s) && WEXITSTATUS(s) == 3}}], WNOHANG, NULL) = 101
100 1.9 wait4(-1, [{{WIFEXITED(s) && WEXITSTATUS(s) == 4}}], WNOHANG, NULL) = 102
100 2.0 rt_sigreturn({{mask=[]}}) = 0
100 2.1 --- SIGCHLD {SIGCHLD_102} ---
100 2.2 rt_sigreturn({{mask=[]}}) = 0
"
    );
    // The scheduler alone makes it hold, before any order search.
    let no_search = Options {
        search: false,
        ..Options::default()
    };
    for s in [summary(&text), summary_with(&text, no_search)] {
        assert!(s.mismatches.is_empty(), "{:?}", s.mismatches);
        assert_eq!(s.stats.signals_checked, 2);
    }
}

/// Two parents die (101 first by their exit calls) after their children,
/// whose deaths they were told of (so strace reaped them), and the
/// zombies go to the subreaper 100, which then reaps `first` and `second`
/// (status = pid - 100).
fn reparented(first: i32, second: i32) -> String {
    let wait = |t: f64, pid: i32| {
        format!(
            "100 {t} wait4(-1, [{{WIFEXITED(s) && WEXITSTATUS(s) == {}}}], WNOHANG, NULL) = {pid}\n",
            pid - 100
        )
    };
    format!(
        "\
100 1.0 prctl(PR_SET_CHILD_SUBREAPER, 1) = 0
100 1.1 clone(child_stack=NULL, flags=SIGCHLD) = 101
100 1.2 clone(child_stack=NULL, flags=SIGCHLD) = 102
101 1.3 clone(child_stack=NULL, flags=SIGCHLD) = 103
102 1.4 clone(child_stack=NULL, flags=SIGCHLD) = 104
103 1.5 exit_group(3) = ?
104 1.6 exit_group(4) = ?
101 1.65 --- SIGCHLD {{si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=103, si_uid=0, si_status=3, si_utime=0, si_stime=0}} ---
102 1.66 --- SIGCHLD {{si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=104, si_uid=0, si_status=4, si_utime=0, si_stime=0}} ---
101 1.7 exit_group(1) = ?
102 1.8 exit_group(2) = ?
100 1.9 wait4(101, [{{WIFEXITED(s) && WEXITSTATUS(s) == 1}}], 0, NULL) = 101
100 2.0 wait4(102, [{{WIFEXITED(s) && WEXITSTATUS(s) == 2}}], 0, NULL) = 102
{}{}",
        wait(2.1, first),
        wait(2.2, second)
    )
}

#[test]
fn a_qq_death_may_come_as_late_as_the_line_that_reports_it() {
    // The children, zombies, join 100's list in the order the deaths'
    // `do_exit()` ran (`forget_original_parent()`). Under -qq a death's
    // window runs to the first line that reports the task, so either
    // order of the two deaths is allowed: 104 first (102's death first)
    // as well as 103 first.
    for (a, b) in [(104, 103), (103, 104)] {
        let s = summary(&reparented(a, b));
        assert!(s.mismatches.is_empty(), "{a} {b}: {:?}", s.mismatches);
    }
    // A status no order gives is still a mismatch.
    let wrong = reparented(104, 103).replace("== 1}], 0, NULL) = 101", "== 7}], 0, NULL) = 101");
    assert_eq!(summary(&wrong).mismatches.len(), 1);
}
