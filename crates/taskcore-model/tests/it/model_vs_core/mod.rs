//! Property test: the indexed process core against `taskcore-model`, a plain
//! reference model written independently from Linux's source.
//!
//! Random sequences of 50-200 system calls (clone in all its forms, exit,
//! exit_group, execve, setpgid/setsid and the id queries, kill/tgkill/tkill,
//! rt_sigaction, PR_SET_CHILD_SUBREAPER, unshare (CLONE_NEWPID and its
//! refusals), ptrace attach/seize/traceme/cont/
//! detach, PTRACE_SEIZE with options, PTRACE_SETOPTIONS (random subsets
//! of the options, sometimes an invalid bit), PTRACE_INTERRUPT,
//! PTRACE_LISTEN (also set up on purpose: a seized child stopped, waited
//! for and told to listen, for the later steps to meet),
//! PTRACE_SYSCALL with syscall entry/exit reports, and
//! PTRACE_GETEVENTMSG (so
//! clone, exec and exit raise event stops and auto-attach children), ptrace
//! requests and waits by tracers on their own tracees, wait4/waitid with random and invalid options, pidfds
//! (pidfd_open with its flags, pidfd_send_signal in each scope, waitid
//! with `P_PIDFD`, setns to a pidfd's pid namespace, close), namespace
//! files (`/proc/PID/ns/pid` and `pid_for_children` opened, setns, closed),
//! PR_SET_DUMPABLE/PR_GET_DUMPABLE (which ptrace attach checks),
//! PR_SET_PDEATHSIG/PR_GET_PDEATHSIG (valid and invalid signals) and
//! parent threads exiting with children (and grandchildren) that set one,
//! some blocking it, some parents dropping their ids first, clone and
//! clone3 with `CLONE_PIDFD` (its refused combinations too; the pidfds they
//! return join the pidfd ops, and their flags are compared), and "churn" runs
//! of fork+exit+wait that move the pid cursor around a small `pid_max`) are
//! applied to both implementations. The caller of each call is picked among
//! the tasks the model says could be running (alive, not stopped, not in a
//! ptrace stop, not asleep in vfork). Every result is compared exactly
//! (task handles by creation order, errnos, wait reports with siginfo), and
//! after every step a snapshot of every task ever created: pid, tid, ppid,
//! pgid, sid, root-namespace pid, whether exiting, parent-death signal; the
//! poll readiness of
//! every pidfd opened; the task and process counts; which pid numbers are
//! in use. `Kernel::check_invariants` runs
//! after every step.
//!
//! `PROPTEST_CASES` sets the number of cases (default 512, half in each of
//! the two tests `model_vs_core` and `model_vs_core_second_half`); with
//! `MODEL_TRACE` set, every compared step is printed (`--nocapture`).
//!
//! Where things are: `ops` (the random operations and their strategies),
//! `pair` (both implementations, argument mapping, compare-and-log; every
//! call goes to both as one `Syscall` through `dispatch_api`, the pidfds
//! paired, but for what `TaskApi` lacks: setns and the namespace files,
//! `rt_sigtimedwait`, `PTRACE_GETSIGINFO`, and the syscall-stop reports,
//! which are events, not calls),
//! `apply` (one step: caller, dispatch), `clone`, `ptrace`, `fds` and
//! `pdeath` (the steps of those families, the case kept out, and the
//! parent-death and listen set-ups), `snapshot` (the
//! after-step comparison of every task). Failing seeds are replayed from
//! `mod.proptest-regressions`.

use proptest::prelude::*;
use taskcore::sys::{dispatch_api, ApiRet, KernelPidFds, PidFdMap, Prctl, Ptrace, SysRet, Syscall};
use taskcore::task::pidfd::{
    PIDFD_NONBLOCK, PIDFD_SIGNAL_PROCESS_GROUP, PIDFD_SIGNAL_THREAD, PIDFD_SIGNAL_THREAD_GROUP,
    PIDFD_THREAD,
};
use taskcore::uapi::*;
use taskcore::{Clone3Args, CloneArgs, Config, Kernel, SigAction, SigHandler, TaskId};
use taskcore_model::{Compat, Model, ModelOptions, Tid};

mod apply;
mod clone;
mod fds;
mod ops;
mod pair;
mod pdeath;
mod ptrace;
mod snapshot;

use ops::*;
use pair::*;

fn run(pid_max: u32, core_dumps: bool, scan_only: bool, ops: &[Op]) -> Check {
    let config = Config {
        pid_max,
        core_dumps,
        ..Config::default()
    };
    // MODEL_COMPAT=linux runs against pure Linux behaviour, to list what
    // taskcore still does differently (it fails on those).
    let compat = match std::env::var("MODEL_COMPAT").as_deref() {
        Ok("linux") => Compat::linux(),
        _ => Compat::taskcore(),
    };
    let opts = ModelOptions {
        wait_scan_only: scan_only,
        compat,
    };
    let mut p = Pair::new(config, opts);
    for op in ops {
        let step = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            p.apply(op)?;
            p.k.check_invariants();
            p.snapshot()
        }));
        match step {
            Ok(r) => r?,
            Err(e) => {
                let msg = e
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| e.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                p.log.push(format!("{op:?} -> PANIC"));
                return Err(p.fail(format!("PANIC: {msg}")));
            }
        }
    }
    Ok(())
}

fn env_or(var: &str, default: u32) -> u32 {
    std::env::var(var)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// The search's configuration: `cases` random programs.
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        max_shrink_iters: env_or("PROPTEST_MAX_SHRINK_ITERS", 20000),
        // main.proptest-regressions, beside this file (the default would
        // look in tests/proptest-regressions/, as for a crate's main.rs).
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::WithSource("proptest-regressions"),
        )),
        ..ProptestConfig::default()
    }
}

/// One random program: `pid_max`, whether core dumps are on, whether
/// waits take the scanning path only, and the operations.
fn program() -> impl Strategy<Value = (u32, bool, bool, Vec<Op>)> {
    (
        prop_oneof![3 => Just(32768u32), 2 => 400u32..600],
        any::<bool>(),
        any::<bool>(),
        prop::collection::vec(op(), 50..200),
    )
}

// The cases are split between two tests of the same strategy, so that the
// test harness runs the halves on two threads at once; each replays every
// seed of the regression file first.
proptest! {
    #![proptest_config(config(env_or("PROPTEST_CASES", 512u32).div_ceil(2)))]

    #[test]
    fn model_vs_core((pid_max, core_dumps, scan_only, ops) in program()) {
        run(pid_max, core_dumps, scan_only, &ops).map_err(TestCaseError::fail)?;
    }

    #[test]
    fn model_vs_core_second_half((pid_max, core_dumps, scan_only, ops) in program()) {
        run(pid_max, core_dumps, scan_only, &ops).map_err(TestCaseError::fail)?;
    }
}
