//! Which thread takes a process-directed signal while the leader sleeps in
//! vfork, against tests/oracle/vfork_sleeper_signal.out (a C tracer run
//! without strace; re-record with tests/oracle/record.sh).
//!
//! `complete_signal()` offers the signal to the thread it was sent to
//! first, and `wants_signal()` refuses it for a thread that is not on a CPU
//! and already has `TIF_SIGPENDING` (`task_curr(p) || !task_sigpending(p)`).
//! A leader asleep in `wait_for_vfork_done()` (`TASK_KILLABLE`) gets
//! `TIF_SIGPENDING` from the first signal it is chosen for, or from the
//! `ptrace_trap_notify()` of a SIGCONT when it is seized, and cannot take
//! either until its vfork completes; from then on another thread takes
//! what the group is sent, and with it what is pending for the group.
//! Each case replays the C program's calls on the core and compares every
//! line.

use taskcore::task::ptrace_event::{
    PTRACE_O_TRACEEXEC, PTRACE_O_TRACEVFORK, PTRACE_O_TRACEVFORKDONE,
};
use taskcore::uapi::*;
use taskcore::{CloneArgs, SignalDelivery};

use crate::common::tracer_log;
use tracer_log::Run;

const OUT: &str = include_str!("oracle/vfork_sleeper_signal.out");

/// The C program's `one_case()`: a seized tracee with a thread that did
/// `PTRACE_TRACEME`; the leader vforks (if `vfork`) and is resumed into
/// its vfork sleep; `first` (0 for none) is sent, then SIGCONT.
fn one_case(case: &str, vfork: bool, first: i32, cont: bool, interrupt: bool) {
    let mut r = Run::new(OUT, case, SignalDelivery::Immediate);
    let c = r.k.fork(r.tracer).unwrap();
    let cp = r.name(c, "tracee");
    r.seize(
        cp,
        PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEVFORKDONE,
    );
    let t = r.k.clone(c, &CloneArgs::thread()).unwrap();
    r.k.ptrace_traceme(t).unwrap();
    let tp = r.name(t, "tracee.thread");
    if vfork {
        let v = r.k.vfork(c).unwrap();
        r.wait(cp); // the VFORK event stop; names the child
        let vp = r.pid(v);
        r.wait(vp); // the child's first trap
        r.syscall(cp);
    }
    if interrupt {
        let i = r.k.ptrace_interrupt(r.tracer, cp);
        r.req("PTRACE_INTERRUPT", cp, 0, i);
        r.wait(cp);
    }
    if first != 0 {
        r.kill(
            cp,
            first,
            if first == SIGSTOP {
                "SIGSTOP"
            } else {
                "SIGUSR1"
            },
        );
        r.wait(tp);
        r.cont(tp, 0);
        r.wait(cp);
    }
    if cont {
        r.kill(cp, SIGCONT, "SIGCONT");
        r.wait(tp);
        r.cont(tp, 0);
        r.wait(cp);
    }
    r.cont(cp, 0);
    r.done();
    r.k.check_invariants();
}

/// The control: a leader in `pause()` takes the SIGSTOP (its
/// signal-delivery-stop); the SIGCONT then goes to the thread, as the
/// leader is in a ptrace stop.
#[test]
fn a_paused_leader_takes_sigstop_and_its_thread_the_sigcont_as_linux() {
    one_case("pause_leader", false, SIGSTOP, true, false);
}

/// SIGSTOP stays with the leader asleep in vfork; the SIGCONT after it
/// goes to the thread (the leader has `TIF_SIGPENDING`).
#[test]
fn a_vfork_sleeper_keeps_sigstop_and_its_thread_takes_the_sigcont_as_linux() {
    one_case("vfork_sleeper", true, SIGSTOP, true, false);
}

/// SIGUSR1 stays with the leader asleep in vfork; the thread woken for the
/// SIGCONT dequeues the group's SIGUSR1 first (the lower number).
#[test]
fn a_thread_woken_for_sigcont_takes_the_groups_pending_sigusr1_as_linux() {
    one_case("vfork_sleeper_usr1", true, SIGUSR1, true, false);
}

/// SIGCONT alone: its `ptrace_trap_notify()` gives the seized leader
/// `TIF_SIGPENDING` before `complete_signal()` looks, so the thread takes
/// it.
#[test]
fn a_seized_vfork_sleeper_refuses_sigcont_after_its_trap_notify_as_linux() {
    one_case("vfork_sleeper_cont_only", true, 0, true, false);
}

/// An untraced process asleep in vfork keeps a SIGSTOP (`TIF_SIGPENDING`);
/// a SIGTERM after it finds it not wanting a signal, so
/// `complete_signal()` returns before its fatal fast path: it lives until
/// its vfork child is killed, then dies of the SIGTERM.
#[test]
fn a_vfork_sleeper_with_a_signal_kept_survives_sigterm_until_vfork_done_as_linux() {
    let mut r = Run::new(OUT, "term_after_stop", SignalDelivery::Immediate);
    let c = r.k.fork(r.tracer).unwrap();
    let cp = r.name(c, "tracee");
    let v = r.k.vfork(c).unwrap();
    let vp = r.pid(v);
    r.kill(cp, SIGSTOP, "SIGSTOP");
    r.kill(cp, SIGTERM, "SIGTERM");
    r.wait(cp);
    r.kill(cp, 0, "0");
    r.kill(vp, SIGKILL, "SIGKILL_to_the_vfork_child");
    r.wait(cp);
    r.done();
    r.k.check_invariants();
}

/// `PTRACE_INTERRUPT` of the leader asleep in vfork (its trap waits for
/// the vfork; `ptrace_signal_wake_up()` sets `TIF_SIGPENDING`): the
/// SIGUSR1 after it goes to the thread.
#[test]
fn a_vfork_sleeper_interrupted_by_its_tracer_refuses_the_next_signal_as_linux() {
    one_case("vfork_sleeper_interrupt", true, SIGUSR1, false, true);
}
