//! Regressions for the parent-death signal and `PTRACE_LISTEN`, found by
//! the model_vs_core property test (crates/taskcore-model) and checked
//! against Linux 6.18 with small C programs (as root):
//! - a listening tracee's stop is not reported by `wait`, even if it was
//!   not reported before the `PTRACE_LISTEN` (`task_stopped_code()`);
//! - a seized thread in a ptrace stop is notified of a group stop another
//!   thread starts (`ptrace_trap_notify()`): at once if it listens, at its
//!   `PTRACE_LISTEN` otherwise;
//! - (the parent-death signal's permission and its reset at exec are
//!   `common/lifecycle_scenarios.rs`'s, run on the core and the model).

use taskcore::task::ptrace_event::PTRACE_EVENT_STOP;
use taskcore::uapi::*;
use taskcore::{CloneArgs, Config, Kernel, TaskId, WaitOutcome};

fn kernel() -> (Kernel, TaskId) {
    let k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    (k, init)
}

fn stop_status(sig: i32) -> i32 {
    ((sig | PTRACE_EVENT_STOP << 8) << 8) | 0x7f
}

fn waited(k: &mut Kernel, cur: TaskId, pid: i32) -> Option<i32> {
    match k.wait4(cur, pid, WNOHANG | __WALL).unwrap() {
        WaitOutcome::Reported(r) => Some(r.status),
        _ => None,
    }
}

/// Seize a stopped child (its attach trap is not reported yet), listen:
/// `wait` has nothing; `PTRACE_INTERRUPT` re-traps it.
#[test]
fn a_listening_tracee_has_nothing_for_wait() {
    let (mut k, init) = kernel();
    let c = k.fork(init).unwrap();
    let cp = k.pid_vnr(init, c).unwrap();
    k.kill(init, cp, SIGSTOP).unwrap();
    k.ptrace_seize(init, cp, 0).unwrap();
    k.ptrace_listen(init, cp).unwrap();
    assert_eq!(waited(&mut k, init, cp), None);
    k.ptrace_interrupt(init, cp).unwrap();
    assert_eq!(waited(&mut k, init, cp), Some(stop_status(SIGSTOP)));
}

/// A two-thread child whose leader alone is seized, in an interrupt trap;
/// SIGSTOP goes to the other thread, which starts a group stop.
fn seized_leader_and_sigstop(listen_first: bool) -> Vec<Option<i32>> {
    let (mut k, init) = kernel();
    let c = k.fork(init).unwrap();
    let cp = k.pid_vnr(init, c).unwrap();
    k.clone(c, &CloneArgs::thread()).unwrap();
    k.ptrace_seize(init, cp, 0).unwrap();
    k.ptrace_interrupt(init, cp).unwrap();
    let mut seen = vec![waited(&mut k, init, cp)];
    if listen_first {
        k.ptrace_listen(init, cp).unwrap();
    }
    k.kill(init, cp, SIGSTOP).unwrap();
    seen.push(waited(&mut k, init, cp));
    if !listen_first {
        k.ptrace_listen(init, cp).unwrap();
        seen.push(waited(&mut k, init, cp));
    }
    seen
}

#[test]
fn a_listener_rejoins_a_group_stop_another_thread_starts() {
    let trap = Some(stop_status(SIGTRAP));
    let stop = Some(stop_status(SIGSTOP));
    assert_eq!(seized_leader_and_sigstop(true), vec![trap, stop]);
    assert_eq!(seized_leader_and_sigstop(false), vec![trap, None, stop]);
}
