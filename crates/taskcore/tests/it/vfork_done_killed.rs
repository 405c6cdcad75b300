//! Regression (found by the model_vs_core property test): a traced vfork
//! parent killed while it waits (here by its thread's `exit_group`) stops
//! in its `PTRACE_EVENT_EXIT` stop, and its vfork child's later exit does
//! not overwrite that stop's message with a `PTRACE_EVENT_VFORK_DONE` one:
//! Linux's `wait_for_vfork_done()` returns -EINTR to a killed waiter, so
//! `kernel_clone()` reports no vfork-done event.

use taskcore::task::ptrace_event::*;
use taskcore::uapi::*;
use taskcore::{CloneArgs, Config, Kernel, WaitOutcome};

#[test]
fn a_killed_vfork_parent_keeps_its_exit_stop_message() {
    let mut k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    let p = k.fork(init).unwrap();
    let pp = k.pid_vnr(init, p).unwrap();
    k.ptrace_seize(init, pp, PTRACE_O_TRACEVFORKDONE | PTRACE_O_TRACEEXIT)
        .unwrap();
    let thread = k.clone(p, &CloneArgs::thread()).unwrap();
    let child = k.vfork(p).unwrap();
    // The group dies: the waiter stops in its exit stop (status word 3 << 8).
    k.exit_group(thread, 3).unwrap();
    let WaitOutcome::Reported(r) = k.wait4(init, pp, __WALL | WNOHANG).unwrap() else {
        panic!("no exit stop")
    };
    assert_eq!(r.status >> 8, SIGTRAP | PTRACE_EVENT_EXIT << 8);
    assert_eq!(k.ptrace_geteventmsg(init, pp), Ok(3 << 8));
    k.exit_group(child, 0).unwrap();
    assert_eq!(k.ptrace_geteventmsg(init, pp), Ok(3 << 8));
    k.ptrace_cont(init, pp, 0).unwrap();
    let WaitOutcome::Reported(r) = k.wait4(init, pp, __WALL | WNOHANG).unwrap() else {
        panic!("no exit")
    };
    assert_eq!(r.status, 3 << 8);
}
