//! The ordering mechanism: happens-before constraints the planner derives
//! from the trace, which the scheduler makes hold before the engine applies
//! an event (the engine never reads later lines itself).

use crate::{Options, Replayer, Summary};

/// Replays trace text with or without the order search.
fn summary(text: &str, search: bool) -> Summary {
    crate::test_support::summary_with(
        text,
        Options {
            search,
            ..Options::default()
        },
    )
}

/// Mismatch lines of a replay, with and without the search (the
/// constraints hold in both).
fn bad(text: &str) -> [Vec<usize>; 2] {
    [true, false].map(|s| summary(text, s).mismatches.iter().map(|m| m.line).collect())
}

/// strace printed the child's `+++` line after its parent's wait returned
/// (strace collects the tracee's exit later than the kernel woke the
/// parent).
const LATE_DEATH_LINE: &str = "\
100 1.0 clone(child_stack=NULL, flags=SIGCHLD) = 101
101 1.1 exit_group(3) = ?
100 1.2 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 3}], 0, NULL) = 101
101 1.3 +++ exited with 3 +++
100 1.4 wait4(-1, NULL, WNOHANG, NULL) = -1 ECHILD (No child processes)
";

#[test]
fn a_death_comes_before_the_wait_that_reports_it() {
    let s = summary(LATE_DEATH_LINE, false);
    assert!(s.mismatches.is_empty(), "{:?}", s.mismatches);
    // The clone, the wait's report, the exit status, the ECHILD.
    assert_eq!(s.stats.checked, 4);
    assert_eq!(bad(LATE_DEATH_LINE), [Vec::<usize>::new(), Vec::new()]);
}

#[test]
fn a_wrong_status_still_mismatches_after_the_move() {
    let text = LATE_DEATH_LINE.replace("WEXITSTATUS(s) == 3}], 0", "WEXITSTATUS(s) == 4}], 0");
    for lines in bad(&text) {
        assert!(lines.contains(&3), "{lines:?}");
    }
}

#[test]
fn a_reused_pid_s_later_death_is_not_moved() {
    // The wait reports 101, which has not exited; the later `+++` line is
    // of another task the clone at line 4 numbered 101 too.
    let text = "\
100 1.0 clone(child_stack=NULL, flags=SIGCHLD) = 101
100 1.2 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 3}], WNOHANG, NULL) = 101
101 1.3 exit_group(3) = ?
100 1.4 clone(child_stack=NULL, flags=SIGCHLD) = 101
101 1.5 +++ exited with 3 +++
";
    for lines in bad(text) {
        assert!(lines.contains(&2), "{lines:?}");
    }
}

/// The engine reads no shared window: it, its checkpoints (copies of it)
/// and the replayer can move to another thread.
#[test]
fn the_engine_its_checkpoints_and_the_replayer_are_send() {
    fn send<T: Send>() {}
    send::<crate::engine::Engine>();
    send::<crate::facts::Facts>();
    send::<Replayer>();
}

/// A `---` line whose sender's call strace printed as resumed after it:
/// the kill is moved before the line (the signal is queued inside the
/// sender's syscall, before its syscall-exit stop).
const LATE_SENDER: &str = "\
100 1.0 rt_sigaction(SIGUSR1, {sa_handler=0x1000, sa_mask=[], sa_flags=SA_RESTORER, sa_restorer=0x2000}, NULL, 8) = 0
100 1.1 clone(child_stack=NULL, flags=SIGCHLD) = 101
101 1.2 kill(100, SIGUSR1 <unfinished ...>
100 1.3 --- SIGUSR1 {si_signo=SIGUSR1, si_code=SI_USER, si_pid=101, si_uid=0} ---
101 1.4 <... kill resumed>) = 0
100 1.5 rt_sigreturn({mask=[]}) = 0
";

#[test]
fn a_sender_comes_before_the_line_of_the_signal_it_sent() {
    assert_eq!(bad(LATE_SENDER), [Vec::<usize>::new(), Vec::new()]);
    // Sent by another process than the one si_pid names: nothing to move.
    let text = LATE_SENDER.replace("si_pid=101", "si_pid=100");
    for lines in bad(&text) {
        assert!(lines.contains(&4), "{lines:?}");
    }
}
