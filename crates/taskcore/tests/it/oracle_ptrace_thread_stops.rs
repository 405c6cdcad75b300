//! A thread born into a stopped, seized group, against
//! tests/oracle/ptrace_thread_stops.out (a C tracer run without strace;
//! re-record with tests/oracle/record.sh): it joins the group stop in its
//! first trap (`task_join_group_stop()`, a `PTRACE_EVENT_STOP` with
//! SIGSTOP) and, resumed from that trap with `PTRACE_SYSCALL` or
//! `PTRACE_CONT`, runs: nothing to wait for, `PTRACE_SETOPTIONS` ESRCH.

use taskcore::task::ptrace_event::{PTRACE_O_TRACECLONE, PTRACE_O_TRACEEXEC, PTRACE_O_TRACEEXIT};
use taskcore::uapi::*;
use taskcore::{CloneArgs, SignalDelivery};

use crate::common::tracer_log;
use tracer_log::Run;

const OUT: &str = include_str!("oracle/ptrace_thread_stops.out");

fn one_case(case: &str, syscall: bool) {
    let mut r = Run::new(OUT, case, SignalDelivery::Immediate);
    let c = r.k.fork(r.tracer).unwrap();
    let cp = r.name(c, "tracee");
    r.k.kill(c, cp, SIGSTOP).unwrap();
    r.seize(
        cp,
        PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT,
    );
    r.cont(cp, 0);
    let t = r.k.clone(c, &CloneArgs::thread()).unwrap();
    r.wait(cp); // the clone event; names tracee.clone
    let tp = r.pid(t);
    r.wait(tp); // the thread's first trap
    if syscall {
        r.syscall(tp);
    } else {
        r.cont(tp, 0);
    }
    r.wait(tp);
    let s = r.k.ptrace_setoptions(r.tracer, tp, 0);
    r.req("PTRACE_SETOPTIONS", tp, 0, s);
    r.done();
    r.k.check_invariants();
}

#[test]
fn a_new_thread_resumed_with_ptrace_syscall_from_its_first_trap_runs_as_linux() {
    one_case("syscall_from_first_trap", true);
}

#[test]
fn a_new_thread_resumed_with_ptrace_cont_from_its_first_trap_runs_as_linux() {
    one_case("cont_from_first_trap", false);
}
