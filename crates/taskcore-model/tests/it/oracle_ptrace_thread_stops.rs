//! The reference model against tests/oracle/ptrace_thread_stops.out (a C
//! tracer run without strace; re-record with tests/oracle/record.sh): a
//! thread born into a stopped, seized group joins the group stop in its
//! first trap (`task_join_group_stop()`); resumed from that trap with
//! `PTRACE_SYSCALL` or `PTRACE_CONT`, it runs: nothing to wait for, and
//! `PTRACE_SETOPTIONS` fails with ESRCH. Every line is compared.

use taskcore::task::ptrace_event::{PTRACE_O_TRACECLONE, PTRACE_O_TRACEEXEC, PTRACE_O_TRACEEXIT};
use taskcore::uapi::*;
use taskcore_model::CloneArgs;

use crate::common::model_log;
use model_log::Run;

const OUT: &str = include_str!("../../../../tests/oracle/ptrace_thread_stops.out");

fn one_case(case: &str, syscall: bool) {
    let mut r = Run::new(OUT, case);
    let c = r.m.fork(r.tracer).unwrap();
    let cp = r.name(c, "tracee");
    r.m.kill(c, cp, SIGSTOP).unwrap();
    let opts = PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT;
    let s = r.m.ptrace_seize(r.tracer, cp, opts);
    r.req("PTRACE_SEIZE", cp, opts as i32, s);
    r.cont(cp, 0);
    let t = r.m.clone(c, &CloneArgs::thread()).unwrap();
    let tp = r.name(t, "tracee.clone");
    r.wait_ev(cp, true); // the clone event
    r.wait(tp); // the thread's first trap
    if syscall {
        let s = r.m.ptrace_syscall(r.tracer, tp, 0);
        r.req("PTRACE_SYSCALL", tp, 0, s);
    } else {
        r.cont(tp, 0);
    }
    r.wait(tp);
    let s = r.m.ptrace_setoptions(r.tracer, tp, 0);
    r.req("PTRACE_SETOPTIONS", tp, 0, s);
    r.done();
}

#[test]
fn a_new_thread_resumed_with_ptrace_syscall_from_its_first_trap_runs_as_linux() {
    one_case("syscall_from_first_trap", true);
}

#[test]
fn a_new_thread_resumed_with_ptrace_cont_from_its_first_trap_runs_as_linux() {
    one_case("cont_from_first_trap", false);
}
