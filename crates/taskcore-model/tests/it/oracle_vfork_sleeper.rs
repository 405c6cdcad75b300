//! The reference model against tests/oracle/vfork_sleeper_signal.out (a C
//! tracer run without strace; re-record with tests/oracle/record.sh): which
//! thread takes a process-directed signal while the leader sleeps in
//! vfork. `wants_signal()` refuses a thread not on a CPU that already has
//! `TIF_SIGPENDING`; a leader asleep in `wait_for_vfork_done()` has it
//! from the first signal it was chosen for, or from a SIGCONT's
//! `ptrace_trap_notify()` when seized, so the next signal goes to another
//! thread, which then takes what is pending for the group. Every line is
//! compared.

use taskcore::task::ptrace_event::{
    PTRACE_O_TRACEEXEC, PTRACE_O_TRACEVFORK, PTRACE_O_TRACEVFORKDONE,
};
use taskcore::uapi::*;
use taskcore_model::CloneArgs;

use crate::common::model_log;
use model_log::Run;

const OUT: &str = include_str!("../../../../tests/oracle/vfork_sleeper_signal.out");

/// The C program's `one_case()` (see the core's oracle_vfork_sleeper.rs).
fn one_case(case: &str, vfork: bool, first: i32, cont: bool, interrupt: bool) {
    let mut r = Run::new(OUT, case);
    let c = r.m.fork(r.tracer).unwrap();
    let cp = r.name(c, "tracee");
    let opts = PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEVFORKDONE;
    let s = r.m.ptrace_seize(r.tracer, cp, opts);
    r.req("PTRACE_SEIZE", cp, opts as i32, s);
    let t = r.m.clone(c, &CloneArgs::thread()).unwrap();
    r.m.ptrace_traceme(t).unwrap();
    let tp = r.name(t, "tracee.thread");
    if vfork {
        let v = r.m.vfork(c).unwrap();
        let vp = r.name(v, "tracee.vfork");
        r.wait_ev(cp, true); // the VFORK event stop
        r.wait(vp); // the child's first trap
        let s = r.m.ptrace_syscall(r.tracer, cp, 0);
        r.req("PTRACE_SYSCALL", cp, 0, s);
    }
    if interrupt {
        let i = r.m.ptrace_interrupt(r.tracer, cp);
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
}

#[test]
fn a_paused_leader_takes_sigstop_and_its_thread_the_sigcont_as_linux() {
    one_case("pause_leader", false, SIGSTOP, true, false);
}

#[test]
fn a_vfork_sleeper_keeps_sigstop_and_its_thread_takes_the_sigcont_as_linux() {
    one_case("vfork_sleeper", true, SIGSTOP, true, false);
}

#[test]
fn a_thread_woken_for_sigcont_takes_the_groups_pending_sigusr1_as_linux() {
    one_case("vfork_sleeper_usr1", true, SIGUSR1, true, false);
}

#[test]
fn a_seized_vfork_sleeper_refuses_sigcont_after_its_trap_notify_as_linux() {
    one_case("vfork_sleeper_cont_only", true, 0, true, false);
}

#[test]
fn a_vfork_sleeper_with_a_signal_kept_survives_sigterm_until_vfork_done_as_linux() {
    let mut r = Run::new(OUT, "term_after_stop");
    let c = r.m.fork(r.tracer).unwrap();
    let cp = r.name(c, "tracee");
    let v = r.m.vfork(c).unwrap();
    let vp = r.m.pid_vnr(r.tracer, v).unwrap();
    r.kill(cp, SIGSTOP, "SIGSTOP");
    r.kill(cp, SIGTERM, "SIGTERM");
    r.wait(cp);
    r.kill(cp, 0, "0");
    r.kill(vp, SIGKILL, "SIGKILL_to_the_vfork_child");
    r.wait(cp);
    r.done();
}

/// `PTRACE_INTERRUPT` of the leader asleep in vfork (its trap waits for
/// the vfork; `ptrace_signal_wake_up()` sets `TIF_SIGPENDING`): the
/// SIGUSR1 after it goes to the thread.
#[test]
fn a_vfork_sleeper_interrupted_by_its_tracer_refuses_the_next_signal_as_linux() {
    one_case("vfork_sleeper_interrupt", true, SIGUSR1, false, true);
}
