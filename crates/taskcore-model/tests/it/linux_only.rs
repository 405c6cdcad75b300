//! Linux behaviour the model reproduces with [`Compat::linux`] and
//! `taskcore` does not (see each [`Compat`] flag), and the two `do_wait`
//! walks agreeing.

use taskcore::uapi::*;
use taskcore_model::{CloneArgs, Compat, Config, Errno, Model, ModelOptions, Tid, WaitOutcome};

fn model(compat: Compat) -> (Model, Tid) {
    let m = Model::with_options(
        Config::default(),
        ModelOptions {
            wait_scan_only: false,
            compat,
        },
    )
    .unwrap();
    let init = m.init_task().unwrap();
    (m, init)
}

fn status(o: WaitOutcome) -> (i32, i32) {
    match o {
        WaitOutcome::Reported(r) => (r.pid, r.status),
        other => panic!("expected a report, got {other:?}"),
    }
}

#[test]
fn a_signal_for_a_tracee_in_a_ptrace_stop_stays_pending() {
    // complete_signal(): nobody can take it; the tracee dequeues it after
    // PTRACE_CONT and stops for it again (ptrace_signal()). taskcore keeps
    // it pending too.
    for (compat, reported_again) in [(Compat::linux(), true), (Compat::taskcore(), true)] {
        let (mut m, init) = model(compat);
        let x = m.fork(init).unwrap();
        let c = m.fork(init).unwrap();
        let pc = m.pid_vnr(init, c).unwrap();
        m.ptrace_attach(x, pc, false).unwrap();
        assert_eq!(
            status(m.wait4(x, pc, __WALL).unwrap()),
            (pc, (SIGSTOP << 8) | 0x7f)
        );
        m.kill(init, pc, SIGUSR1).unwrap();
        m.ptrace_cont(x, pc, 0).unwrap();
        let again = m.wait4(x, pc, __WALL | WNOHANG).unwrap();
        if reported_again {
            assert_eq!(status(again), (pc, (SIGUSR1 << 8) | 0x7f));
        } else {
            assert_eq!(again, WaitOutcome::NothingYet);
        }
    }
}

#[test]
fn a_failed_alloc_pid_moves_the_cursors_of_the_levels_it_allocated() {
    // alloc_pid() allocates from the deepest level up with
    // idr_alloc_cyclic() and frees on failure without restoring idr_next.
    for (compat, next_inner) in [(Compat::linux(), 4), (Compat::taskcore(), 3)] {
        let mut m = Model::with_options(
            Config {
                pid_max: 400,
                ..Config::default()
            },
            ModelOptions {
                wait_scan_only: false,
                compat,
            },
        )
        .unwrap();
        let init = m.init_task().unwrap();
        let ns = CloneArgs {
            flags: CLONE_NEWPID,
            exit_signal: SIGCHLD,
            set_tid: vec![],
        };
        let n = m.clone(init, &ns).unwrap();
        m.fork(n).unwrap(); // pid 2 inside
        let mut kids = Vec::new();
        while let Ok(c) = m.fork(init) {
            kids.push(c);
        }
        // The root namespace is full: a fork inside fails at the root level
        // after taking number 3 inside.
        assert_eq!(m.fork(n), Err(Errno::EAGAIN));
        let last = kids.pop().unwrap();
        let pl = m.pid_vnr(init, last).unwrap();
        m.exit_group(last, 0).unwrap();
        status(m.wait4(init, pl, 0).unwrap());
        let c = m.fork(n).unwrap();
        assert_eq!(m.getpid(c), Ok(next_inner));
    }
}

#[test]
fn scan_and_direct_pid_lookup_agree() {
    // do_wait_pid() (5.13) and the pre-5.13 scan report the same child.
    let run = |scan: bool| {
        let mut m = Model::with_options(
            Config::default(),
            ModelOptions {
                wait_scan_only: scan,
                compat: Compat::linux(),
            },
        )
        .unwrap();
        let init = m.init_task().unwrap();
        let t = m.clone(init, &CloneArgs::thread()).unwrap();
        let a = m.fork(t).unwrap();
        let pa = m.pid_vnr(init, a).unwrap();
        m.ptrace_attach(init, pa, false).unwrap();
        let mut out = vec![m.wait4(init, pa, WNOHANG)];
        out.push(m.wait4(init, pa, WNOHANG | __WNOTHREAD));
        m.exit_group(a, 4).unwrap();
        out.push(m.wait4(init, pa, WNOHANG | __WNOTHREAD));
        out.push(m.wait4(t, pa, WNOHANG));
        out.push(m.wait4(t, pa, WNOHANG));
        out
    };
    let direct = run(false);
    assert_eq!(direct, run(true));
    assert_eq!(direct[4], Err(Errno::ECHILD));
}
