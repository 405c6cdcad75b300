//! A seized tracee listening in a group stop, continued by SIGCONT: woken
//! out of its listening stop, it goes back through `get_signal()`'s
//! relock, which tells the real parent `CLD_CONTINUED`
//! (`SIGNAL_CLD_CONTINUED`) before the tracee re-traps with
//! `PTRACE_EVENT_STOP` (kernel/signal.c `prepare_signal()` →
//! `ptrace_trap_notify()` → `ptrace_signal_wake_up()`; `get_signal()`
//! `relock:`). With `SignalDelivery::OnGetSignal` the tracee runs on in the
//! embedder's next `get_signal()`.

use taskcore::task::ptrace_event::PTRACE_EVENT_STOP;
use taskcore::uapi::*;
use taskcore::{Config, Kernel, SigWait, SignalAction, SignalDelivery, TaskId, WaitOutcome};

fn stop_status(sig: i32, event: i32) -> i32 {
    ((sig | event << 8) << 8) | 0x7f
}

fn waited(k: &mut Kernel, cur: TaskId, pid: i32, opts: i32) -> Option<i32> {
    match k.wait4(cur, pid, opts | WNOHANG | __WALL).unwrap() {
        WaitOutcome::Reported(r) => Some(r.status),
        _ => None,
    }
}

/// init -> parent -> child; a tracer (another child of init) seizes the
/// child, which stops for SIGSTOP and is left listening. Returns the
/// kernel, parent, tracer, child and the child's number.
fn listening(delivery: SignalDelivery) -> (Kernel, TaskId, TaskId, TaskId, i32) {
    let mut k = Kernel::new(Config::default()).unwrap();
    k.set_signal_delivery(delivery);
    let init = k.init_task().unwrap();
    let parent = k.fork(init).unwrap();
    // SIGCHLD is ignored by default: blocked, it stays pending to be read.
    k.rt_sigprocmask(parent, SIG_BLOCK, Some(1 << (SIGCHLD - 1)))
        .unwrap();
    let tracer = k.fork(init).unwrap();
    let child = k.fork(parent).unwrap();
    let cp = k.pid_vnr(tracer, child).unwrap();
    k.ptrace_seize(tracer, cp, 0).unwrap();
    k.kill(parent, cp, SIGSTOP).unwrap();
    if delivery == SignalDelivery::OnGetSignal {
        assert_eq!(k.get_signal(child), Ok(SignalAction::Stopped));
    }
    // The signal-delivery-stop, restarted with the signal: the group stop.
    assert_eq!(waited(&mut k, tracer, cp, 0), Some(stop_status(SIGSTOP, 0)));
    k.ptrace_cont(tracer, cp, SIGSTOP).unwrap();
    if delivery == SignalDelivery::OnGetSignal {
        assert_eq!(k.get_signal(child), Ok(SignalAction::Stopped));
    }
    let stopped = stop_status(SIGSTOP, PTRACE_EVENT_STOP);
    assert_eq!(waited(&mut k, tracer, cp, 0), Some(stopped));
    k.ptrace_listen(tracer, cp).unwrap();
    // The parent was told of the stop; it takes that SIGCHLD now.
    let pp = k.pid_vnr(parent, child).unwrap();
    assert_eq!(waited(&mut k, parent, pp, WUNTRACED), Some(0x137f));
    assert_eq!(parent_sigchld(&mut k, parent), Some(CLD_STOPPED));
    (k, parent, tracer, child, cp)
}

/// The parent's pending SIGCHLD's `si_code`, if one is pending.
fn parent_sigchld(k: &mut Kernel, parent: TaskId) -> Option<i32> {
    match k.rt_sigtimedwait(parent, 1 << (SIGCHLD - 1), true) {
        Ok(SigWait::Signal(i)) => Some(i.code),
        _ => None,
    }
}

#[test]
fn the_parent_hears_of_the_continue_before_the_re_trap_is_resumed() {
    let (mut k, parent, tracer, _child, cp) = listening(SignalDelivery::Immediate);
    k.kill(parent, cp, SIGCONT).unwrap();
    // Re-trapped at once, reporting SIGTRAP (the group is not stopped).
    let retrap = stop_status(SIGTRAP, PTRACE_EVENT_STOP);
    assert_eq!(waited(&mut k, tracer, cp, 0), Some(retrap));
    // The tracer has not resumed it: the parent was told already.
    assert_eq!(parent_sigchld(&mut k, parent), Some(CLD_CONTINUED));
    let pp = k.pid_vnr(parent, _child).unwrap();
    assert_eq!(waited(&mut k, parent, pp, WCONTINUED), Some(0xffff));
}

#[test]
fn on_get_signal_the_woken_listener_runs_on_in_get_signal() {
    let (mut k, parent, tracer, child, cp) = listening(SignalDelivery::OnGetSignal);
    k.kill(parent, cp, SIGCONT).unwrap();
    // Woken, not yet run: no trap for the tracer, nothing for the parent.
    assert_eq!(waited(&mut k, tracer, cp, 0), None);
    assert_eq!(parent_sigchld(&mut k, parent), None);
    // It runs: the parent is told, then it re-traps.
    assert_eq!(k.get_signal(child), Ok(SignalAction::Stopped));
    assert_eq!(parent_sigchld(&mut k, parent), Some(CLD_CONTINUED));
    let retrap = stop_status(SIGTRAP, PTRACE_EVENT_STOP);
    assert_eq!(waited(&mut k, tracer, cp, 0), Some(retrap));
}
