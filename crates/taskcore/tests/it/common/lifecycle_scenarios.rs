//! Scenario tests shared by the core (crates/taskcore/tests/it/lifecycle.rs)
//! and the reference model (crates/taskcore-model/tests/it/lifecycle.rs):
//! each scenario is one function generic over [`TaskApi`], and
//! `lifecycle_tests!(Type)` makes a `#[test]` of each for `Type`, so both
//! implementations are held to the same Linux behaviour by one text.
//! A new scenario is a `pub(crate) fn NAME<K: TaskApi>()` here plus its
//! name in the macro's list at the end.

#![allow(dead_code)]

use taskcore::sys::TaskApi;
use taskcore::uapi::*;
use taskcore::{Clone3Args, CloneArgs, Config, Errno, SigAction, SigHandler, WaitOutcome};

fn kernel<K: TaskApi>() -> (K, K::Task) {
    let k = K::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    (k, init)
}

fn reported(o: WaitOutcome) -> (i32, i32) {
    match o {
        WaitOutcome::Reported(r) => (r.pid, r.status),
        other => panic!("expected a report, got {other:?}"),
    }
}

pub(crate) fn fork_exit_wait_pid_and_any<K: TaskApi>() {
    let (mut k, init) = kernel::<K>();
    let a = k.fork(init).unwrap();
    let b = k.fork(init).unwrap();
    let (pa, pb) = (k.pid_vnr(init, a).unwrap(), k.pid_vnr(init, b).unwrap());
    assert_eq!((pa, pb), (2, 3));
    assert_eq!(k.wait4(init, -1, WNOHANG), Ok(WaitOutcome::NothingYet));
    assert_eq!(k.wait4(init, -1, 0), Ok(WaitOutcome::WouldBlock));
    k.exit_group(b, 7).unwrap();
    k.exit_group(a, 1).unwrap();
    // Fork order, not exit order.
    assert_eq!(reported(k.wait4(init, -1, 0).unwrap()), (pa, 1 << 8));
    assert_eq!(reported(k.wait4(init, pb, 0).unwrap()), (pb, 7 << 8));
    assert_eq!(k.wait4(init, -1, WNOHANG), Err(Errno::ECHILD));
    assert_eq!(k.wait4(init, pb, 0), Err(Errno::ECHILD));
    // Reaped handles are stale.
    assert_eq!(k.fork(a), Err(Errno::ESRCH));
}

pub(crate) fn waitid_nowait_keeps_zombie_and_siginfo<K: TaskApi>() {
    let (mut k, init) = kernel::<K>();
    let a = k.fork(init).unwrap();
    let pa = k.pid_vnr(init, a).unwrap();
    k.exit_group(a, 42).unwrap();
    let r = match k.waitid(init, P_ALL, 0, WEXITED | WNOWAIT).unwrap() {
        WaitOutcome::Reported(r) => r,
        o => panic!("{o:?}"),
    };
    assert_eq!(
        (r.info.code, r.info.status, r.info.pid),
        (CLD_EXITED, 42, pa)
    );
    assert!(matches!(
        k.waitid(init, P_PID, pa, WEXITED).unwrap(),
        WaitOutcome::Reported(_)
    ));
    assert_eq!(
        k.waitid(init, P_ALL, 0, WEXITED | WNOHANG),
        Err(Errno::ECHILD)
    );
    assert_eq!(k.waitid(init, P_ALL, 0, WNOHANG), Err(Errno::EINVAL));
    assert_eq!(k.waitid(init, 9, 0, WEXITED), Err(Errno::EINVAL));
    assert_eq!(k.waitid(init, P_PID, 0, WEXITED), Err(Errno::EINVAL));
    assert_eq!(k.wait4(init, -1, WNOWAIT), Err(Errno::EINVAL));
}

pub(crate) fn zombie_only_with_wstopped_is_echild<K: TaskApi>() {
    // wait_task_zombie() returns 0 without clearing notask_error.
    let (mut k, init) = kernel::<K>();
    let a = k.fork(init).unwrap();
    k.exit_group(a, 0).unwrap();
    assert_eq!(
        k.waitid(init, P_ALL, 0, WSTOPPED | WNOHANG),
        Err(Errno::ECHILD)
    );
    assert!(matches!(
        k.waitid(init, P_ALL, 0, WEXITED | WNOHANG).unwrap(),
        WaitOutcome::Reported(_)
    ));
}

pub(crate) fn thread_group_leader_is_delayed_and_group_code_wins<K: TaskApi>() {
    let (mut k, init) = kernel::<K>();
    let p = k.fork(init).unwrap();
    let pid = k.pid_vnr(init, p).unwrap();
    let t = k.clone(p, &CloneArgs::thread()).unwrap();
    assert_eq!(k.gettid(t).unwrap(), pid + 1);
    assert_eq!(k.getpid(t).unwrap(), pid);
    k.exit(p, 5).unwrap();
    // Leader zombie with a live thread: not reportable yet.
    assert_eq!(k.wait4(init, -1, WNOHANG), Ok(WaitOutcome::NothingYet));
    // A thread's tid is not waitable by the parent.
    assert_eq!(k.wait4(init, pid + 1, WNOHANG), Err(Errno::ECHILD));
    k.exit(t, 9).unwrap();
    // Plain exits: the leader's own code is reported.
    assert_eq!(reported(k.wait4(init, -1, 0).unwrap()), (pid, 5 << 8));

    let p = k.fork(init).unwrap();
    let pid = k.pid_vnr(init, p).unwrap();
    let t = k.clone(p, &CloneArgs::thread()).unwrap();
    k.exit_group(t, 3).unwrap();
    assert_eq!(reported(k.wait4(init, pid, 0).unwrap()), (pid, 3 << 8));
}

pub(crate) fn orphans_go_to_subreaper_then_init_and_zombies_are_renotified<K: TaskApi>() {
    let (mut k, init) = kernel::<K>();
    let s = k.fork(init).unwrap();
    k.set_child_subreaper(s, true).unwrap();
    let p = k.fork(s).unwrap();
    let c1 = k.fork(p).unwrap();
    let c2 = k.fork(p).unwrap();
    let pc2 = k.pid_vnr(init, c2).unwrap();
    k.exit_group(c2, 4).unwrap();
    k.exit_group(p, 0).unwrap();
    assert_eq!(k.getppid(c1).unwrap(), k.getpid(s).unwrap());
    // s reaps p, then the adopted zombie c2.
    let (rp, _) = reported(k.wait4(s, -1, 0).unwrap());
    assert_eq!(rp, k.pid_vnr(s, p).unwrap_or(rp));
    assert_eq!(reported(k.wait4(s, -1, 0).unwrap()), (pc2, 4 << 8));
    k.exit_group(s, 0).unwrap();
    assert_eq!(k.getppid(c1).unwrap(), 1);
}

pub(crate) fn autoreap_when_sigchld_ignored_or_nocldwait<K: TaskApi>() {
    let (mut k, init) = kernel::<K>();
    let p = k.fork(init).unwrap();
    k.rt_sigaction(p, SIGCHLD, Some(SigAction::new(SigHandler::Ignore, 0)))
        .unwrap();
    let c = k.fork(p).unwrap();
    k.exit_group(c, 1).unwrap();
    assert_eq!(k.wait4(p, -1, WNOHANG), Err(Errno::ECHILD));
    // exec keeps SIG_IGN but drops SA_NOCLDWAIT.
    k.execve(p, "/bin/true").unwrap();
    assert_eq!(
        k.rt_sigaction(p, SIGCHLD, None).unwrap().handler,
        SigHandler::Ignore
    );
    k.rt_sigaction(
        p,
        SIGCHLD,
        Some(SigAction::new(SigHandler::Handler, SA_NOCLDWAIT)),
    )
    .unwrap();
    let c = k.fork(p).unwrap();
    k.exit_group(c, 1).unwrap();
    assert_eq!(k.wait4(p, -1, WNOHANG), Err(Errno::ECHILD));
    k.execve(p, "/bin/true").unwrap();
    let c = k.fork(p).unwrap();
    let pc = k.pid_vnr(p, c).unwrap();
    k.exit_group(c, 1).unwrap();
    assert_eq!(reported(k.wait4(p, -1, WNOHANG).unwrap()), (pc, 1 << 8));
}

pub(crate) fn stop_continue_kill_reports<K: TaskApi>() {
    let (mut k, init) = kernel::<K>();
    let c = k.fork(init).unwrap();
    let pc = k.pid_vnr(init, c).unwrap();
    k.kill(init, pc, SIGSTOP).unwrap();
    assert_eq!(k.wait4(init, -1, WNOHANG), Ok(WaitOutcome::NothingYet));
    assert_eq!(
        reported(k.wait4(init, -1, WUNTRACED).unwrap()),
        (pc, (SIGSTOP << 8) | 0x7f)
    );
    // Reported once.
    assert_eq!(
        k.wait4(init, -1, WUNTRACED | WNOHANG),
        Ok(WaitOutcome::NothingYet)
    );
    k.kill(init, pc, SIGCONT).unwrap();
    assert_eq!(
        reported(k.wait4(init, -1, WCONTINUED).unwrap()),
        (pc, 0xffff)
    );
    k.kill(init, pc, SIGTERM).unwrap();
    assert_eq!(reported(k.wait4(init, -1, 0).unwrap()), (pc, SIGTERM));
    assert_eq!(k.kill(init, pc, 0), Err(Errno::ESRCH));
    let c = k.fork(init).unwrap();
    let pc = k.pid_vnr(init, c).unwrap();
    assert_eq!(k.kill(init, pc, 65), Err(Errno::EINVAL));
    assert_eq!(k.kill(init, 9999, 65), Err(Errno::ESRCH));
    assert_eq!(k.tgkill(init, pc, pc, 0), Ok(()));
    assert_eq!(k.tgkill(init, 1, pc, 0), Err(Errno::ESRCH));
    assert_eq!(k.tgkill(init, 0, pc, 0), Err(Errno::EINVAL));
    // Init ignores default-fatal signals from inside its namespace.
    k.kill(c, 1, SIGKILL).unwrap();
    assert!(k.getpid(init).is_ok());
}

pub(crate) fn setpgid_setsid_errnos<K: TaskApi>() {
    let (mut k, init) = kernel::<K>();
    let sh = k.fork(init).unwrap();
    let psh = k.pid_vnr(init, sh).unwrap();
    assert_eq!(k.setsid(sh), Ok(psh));
    assert_eq!(k.setsid(sh), Err(Errno::EPERM));
    let job = k.fork(sh).unwrap();
    let pj = k.pid_vnr(sh, job).unwrap();
    assert_eq!(k.setpgid(sh, pj, 0), Ok(()));
    assert_eq!(k.getpgid(sh, pj), Ok(pj));
    assert_eq!(k.getsid(job, 0), Ok(psh));
    assert_eq!(k.setpgid(sh, pj, -1), Err(Errno::EINVAL));
    assert_eq!(k.setpgid(sh, 0, pj), Err(Errno::EPERM)); // session leader
    assert_eq!(k.setpgid(sh, pj, 12345), Err(Errno::EPERM));
    assert_eq!(k.setpgid(job, 1, 0), Err(Errno::ESRCH)); // not a child
    k.execve(job, "/bin/cat").unwrap();
    assert_eq!(k.setpgid(sh, pj, psh), Err(Errno::EACCES));
    let other = k.fork(init).unwrap();
    let po = k.pid_vnr(init, other).unwrap();
    let sib = k.fork(other).unwrap();
    k.setsid(sib).unwrap();
    let psib = k.pid_vnr(other, sib).unwrap();
    assert_eq!(k.setpgid(other, psib, po), Err(Errno::EPERM)); // other session
                                                               // A pgrp id stays busy after its leader is reaped while members remain.
    let g1 = k.fork(init).unwrap();
    let pg1 = k.pid_vnr(init, g1).unwrap();
    k.setpgid(g1, 0, 0).unwrap();
    let m = k.fork(g1).unwrap();
    k.exit_group(g1, 0).unwrap();
    reported(k.wait4(init, pg1, 0).unwrap());
    assert_eq!(k.getpgid(m, 0), Ok(pg1));
    assert!(k.find_task_by_vpid(init, pg1).is_err());
}

pub(crate) fn pid_max_fill_eagain_then_wrap_to_300<K: TaskApi>() {
    let mut k = K::new(Config {
        pid_max: 1000,
        ..Config::default()
    })
    .unwrap();
    let init = k.init_task().unwrap();
    let mut kids = Vec::new();
    loop {
        match k.fork(init) {
            Ok(c) => kids.push(c),
            Err(e) => {
                assert_eq!(e, Errno::EAGAIN);
                break;
            }
        }
    }
    assert_eq!(kids.len(), 998);
    let pid_of = |k: &K, t| k.pid_vnr(init, t).unwrap();
    // Free 5 (below RESERVED_PIDS) and 700: the next pid is 700, then none.
    for &t in [&kids[3], &kids[698]] {
        let p = pid_of(&k, t);
        k.exit_group(t, 0).unwrap();
        reported(k.wait4(init, p, 0).unwrap());
    }
    let c = k.fork(init).unwrap();
    assert_eq!(pid_of(&k, c), 700);
    assert_eq!(k.fork(init), Err(Errno::EAGAIN));
    let p = pid_of(&k, kids[400]);
    k.exit_group(kids[400], 0).unwrap();
    reported(k.wait4(init, p, 0).unwrap());
    let c = k.fork(init).unwrap();
    assert_eq!(pid_of(&k, c), 402);
}

pub(crate) fn exec_by_non_leader_takes_over_the_pid<K: TaskApi>() {
    let (mut k, init) = kernel::<K>();
    let p = k.fork(init).unwrap();
    let pid = k.pid_vnr(init, p).unwrap();
    let t1 = k.clone(p, &CloneArgs::thread()).unwrap();
    let t2 = k.clone(p, &CloneArgs::thread()).unwrap();
    let tid2 = k.pid_vnr(init, t2).unwrap();
    k.execve(t2, "/bin/ls").unwrap();
    assert_eq!(k.getpid(t2), Ok(pid));
    assert_eq!(k.gettid(t2), Ok(pid));
    assert_eq!(k.gettid(t1), Err(Errno::ESRCH));
    assert_eq!(k.gettid(p), Err(Errno::ESRCH));
    assert!(k.find_task_by_vpid(init, tid2).is_err());
    k.exit_group(t2, 2).unwrap();
    assert_eq!(reported(k.wait4(init, -1, 0).unwrap()), (pid, 2 << 8));
}

pub(crate) fn pid_namespace_init_and_teardown<K: TaskApi>() {
    let (mut k, init) = kernel::<K>();
    let nsinit = k
        .clone(
            init,
            &CloneArgs {
                flags: CLONE_NEWPID,
                exit_signal: SIGCHLD,
                set_tid: vec![],
            },
        )
        .unwrap();
    let outer = k.pid_vnr(init, nsinit).unwrap();
    assert_eq!(k.getpid(nsinit), Ok(1));
    assert_eq!(k.getppid(nsinit), Ok(0));
    let a = k.fork(nsinit).unwrap();
    assert_eq!(k.getpid(a), Ok(2));
    assert_eq!(k.getppid(a), Ok(1));
    assert_eq!(k.pid_vnr(init, a), Ok(outer + 1));
    let b = k.fork(a).unwrap();
    assert_eq!(
        k.clone(
            nsinit,
            &CloneArgs {
                flags: CLONE_PARENT,
                exit_signal: SIGCHLD,
                set_tid: vec![]
            }
        ),
        Err(Errno::EINVAL)
    );
    k.exit_group(nsinit, 0).unwrap();
    // Everything in the namespace died with it and was reaped by its init.
    assert_eq!(k.getpid(a), Err(Errno::ESRCH));
    assert_eq!(k.getpid(b), Err(Errno::ESRCH));
    assert_eq!(reported(k.wait4(init, -1, 0).unwrap()), (outer, 0));
    assert_eq!(k.nr_tasks(), 1);
}

pub(crate) fn clone_and_clone3_exit_signal_rules<K: TaskApi>() {
    let (mut k, init) = kernel::<K>();
    let p = k.fork(init).unwrap();
    // clone(2) ignores the exit signal with CLONE_PARENT, clone3 refuses it.
    let legacy = CloneArgs::from_clone_flags(CLONE_PARENT | SIGCHLD as u64);
    let sibling = k.clone(p, &legacy).unwrap();
    let new = Clone3Args {
        flags: CLONE_PARENT,
        exit_signal: SIGCHLD as u64,
        ..Clone3Args::default()
    };
    assert_eq!(k.clone3(p, &new), Err(Errno::EINVAL));
    // clone(2) takes 65 (no signal at exit); clone3 refuses it.
    let c = k.clone(p, &CloneArgs::from_clone_flags(65)).unwrap();
    let wide = Clone3Args {
        exit_signal: 65,
        ..Clone3Args::default()
    };
    assert_eq!(k.clone3(p, &wide), Err(Errno::EINVAL));
    let high = Clone3Args {
        exit_signal: (1 << 32) | SIGCHLD as u64,
        ..Clone3Args::default()
    };
    assert_eq!(k.clone3(p, &high), Err(Errno::EINVAL));
    // The 65 child's exit sends nothing; __WALL still reaps it.
    k.exit_group(c, 0).unwrap();
    assert_eq!(reported(k.wait4(p, -1, __WALL).unwrap()).1, 0);
    k.exit_group(sibling, 0).unwrap();
    // clone3 set_tid checks come before anything is allocated.
    let bad = Clone3Args {
        exit_signal: SIGCHLD as u64,
        set_tid: None,
        set_tid_size: 1,
        ..Clone3Args::default()
    };
    assert_eq!(k.clone3(p, &bad), Err(Errno::EINVAL));
    let short = Clone3Args {
        exit_signal: SIGCHLD as u64,
        set_tid: Some(vec![]),
        set_tid_size: 1,
        ..Clone3Args::default()
    };
    assert_eq!(k.clone3(p, &short), Err(Errno::EFAULT));
    let want = Clone3Args {
        exit_signal: SIGCHLD as u64,
        set_tid: Some(vec![500]),
        set_tid_size: 1,
        ..Clone3Args::default()
    };
    let t = k.clone3(p, &want).unwrap();
    assert_eq!(k.pid_vnr(p, t), Ok(500));
    let cg = Clone3Args {
        flags: CLONE_INTO_CGROUP,
        exit_signal: SIGCHLD as u64,
        cgroup: 3,
        ..Clone3Args::default()
    };
    assert_eq!(k.clone3(p, &cg), Err(Errno::EBADF));
}

pub(crate) fn clone_errnos<K: TaskApi>() {
    let (mut k, init) = kernel::<K>();
    let a = CloneArgs {
        flags: CLONE_THREAD,
        exit_signal: 0,
        set_tid: vec![],
    };
    assert_eq!(k.clone(init, &a), Err(Errno::EINVAL));
    let a = CloneArgs {
        flags: CLONE_SIGHAND,
        exit_signal: 0,
        set_tid: vec![],
    };
    assert_eq!(k.clone(init, &a), Err(Errno::EINVAL));
    // clone(2)'s exit signal is a byte: 256 cannot be passed.
    let a = CloneArgs {
        flags: 0,
        exit_signal: 256,
        set_tid: vec![],
    };
    assert_eq!(k.clone(init, &a), Err(Errno::EINVAL));
    let a = CloneArgs {
        flags: 0,
        exit_signal: SIGCHLD,
        set_tid: vec![1],
    };
    assert_eq!(k.clone(init, &a), Err(Errno::EEXIST));
    let a = CloneArgs {
        flags: 0,
        exit_signal: SIGCHLD,
        set_tid: vec![77],
    };
    let c = k.clone(init, &a).unwrap();
    assert_eq!(k.pid_vnr(init, c), Ok(77));
    let mut cur = init;
    for level in 1..=32 {
        cur = k
            .clone(
                cur,
                &CloneArgs {
                    flags: CLONE_NEWPID,
                    exit_signal: SIGCHLD,
                    set_tid: vec![],
                },
            )
            .unwrap();
        assert_eq!(k.getpid(cur), Ok(1), "level {level}");
    }
    assert_eq!(
        k.clone(
            cur,
            &CloneArgs {
                flags: CLONE_NEWPID,
                exit_signal: SIGCHLD,
                set_tid: vec![]
            }
        ),
        Err(Errno::ENOSPC)
    );
    assert_eq!(k.nr_tasks(), 34);
}

pub(crate) fn clone_children_need_wclone<K: TaskApi>() {
    let (mut k, init) = kernel::<K>();
    let c = k
        .clone(
            init,
            &CloneArgs {
                flags: 0,
                exit_signal: SIGUSR1,
                set_tid: vec![],
            },
        )
        .unwrap();
    let pc = k.pid_vnr(init, c).unwrap();
    k.exit_group(c, 0).unwrap();
    assert_eq!(k.wait4(init, -1, WNOHANG), Err(Errno::ECHILD));
    assert_eq!(k.wait4(init, pc, WNOHANG), Err(Errno::ECHILD));
    assert_eq!(reported(k.wait4(init, -1, __WCLONE).unwrap()), (pc, 0));
}

pub(crate) fn ptrace_tracer_then_real_parent<K: TaskApi>() {
    let (mut k, init) = kernel::<K>();
    let parent = k.fork(init).unwrap();
    let tracer = k.fork(init).unwrap();
    let c = k.fork(parent).unwrap();
    let pc = k.pid_vnr(init, c).unwrap();
    k.ptrace_attach(tracer, pc, false).unwrap();
    assert_eq!(k.ptrace_attach(tracer, pc, false), Err(Errno::EPERM));
    let (p, st) = reported(k.wait4(tracer, -1, 0).unwrap());
    assert_eq!((p, st), (pc, (SIGSTOP << 8) | 0x7f));
    k.ptrace_cont(tracer, pc, 0).unwrap();
    k.exit_group(c, 6).unwrap();
    // The real parent cannot reap it before the tracer has.
    assert_eq!(k.wait4(parent, -1, WNOHANG), Ok(WaitOutcome::NothingYet));
    assert_eq!(reported(k.wait4(tracer, pc, 0).unwrap()), (pc, 6 << 8));
    assert_eq!(reported(k.wait4(parent, -1, 0).unwrap()), (pc, 6 << 8));
}

pub(crate) fn last_member_of_a_dead_leaders_group_and_session_frees_the_pid_once<K: TaskApi>() {
    // Found by replaying a randscen trace: pgid == sid == a reaped leader.
    let (mut k, init) = kernel::<K>();
    let s = k.fork(init).unwrap();
    let ps = k.pid_vnr(init, s).unwrap();
    k.setsid(s).unwrap();
    let m = k.fork(s).unwrap();
    let pm = k.pid_vnr(init, m).unwrap();
    k.exit_group(s, 0).unwrap();
    reported(k.wait4(init, ps, 0).unwrap());
    assert_eq!((k.getpgid(m, 0), k.getsid(m, 0)), (Ok(ps), Ok(ps)));
    k.exit_group(m, 0).unwrap();
    assert_eq!(reported(k.wait4(init, -1, 0).unwrap()), (pm, 0));
    assert!(!k.pid_in_use(init, ps).unwrap());
    let c = k.fork(init).unwrap();
    assert!(k.getpid(c).is_ok());
}

pub(crate) fn process_group_and_per_thread_waits_built_lazily_see_earlier_children<K: TaskApi>() {
    // The per-group and per-thread parts of the wait index are built at the
    // first wait that needs them: children from before must be seen.
    let (mut k, init) = kernel::<K>();
    let p = k.fork(init).unwrap();
    let t = k.clone(p, &CloneArgs::thread()).unwrap();
    let a = k.fork(p).unwrap();
    let b = k.fork(t).unwrap();
    let c = k.fork(p).unwrap();
    let (pa, pb, pc) = (
        k.pid_vnr(p, a).unwrap(),
        k.pid_vnr(p, b).unwrap(),
        k.pid_vnr(p, c).unwrap(),
    );
    k.setpgid(p, pc, 0).unwrap();
    k.exit_group(c, 3).unwrap();
    k.exit_group(a, 1).unwrap();
    k.exit_group(b, 2).unwrap();
    // Group pc holds only c.
    assert_eq!(
        reported(k.waitid(p, P_PGID, pc, WEXITED | WNOHANG).unwrap()),
        (pc, 3 << 8)
    );
    assert_eq!(
        k.waitid(p, P_PGID, pc, WEXITED | WNOHANG),
        Err(Errno::ECHILD)
    );
    // Thread t's own children only: b.
    assert_eq!(reported(k.wait4(t, -1, __WNOTHREAD).unwrap()), (pb, 2 << 8));
    assert_eq!(k.wait4(t, -1, __WNOTHREAD | WNOHANG), Err(Errno::ECHILD));
    // Own group (0): a.
    assert_eq!(reported(k.wait4(p, 0, 0).unwrap()), (pa, 1 << 8));
    // Later children are indexed both ways from the start.
    let d = k.fork(t).unwrap();
    let pd = k.pid_vnr(p, d).unwrap();
    assert_eq!(
        k.wait4(t, -1, __WNOTHREAD | WNOHANG),
        Ok(WaitOutcome::NothingYet)
    );
    k.exit_group(d, 4).unwrap();
    assert_eq!(
        k.waitid(p, P_PGID, 0, WEXITED | __WNOTHREAD | WNOHANG),
        Err(Errno::ECHILD)
    );
    assert_eq!(
        reported(k.waitid(t, P_PGID, 0, WEXITED | __WNOTHREAD).unwrap()),
        (pd, 4 << 8)
    );
}

// ------------------------------------------------------------------------
// Regressions found by the model-vs-core property test (tests/model_vs_core/
// against crates/taskcore-model). Each names the Linux behaviour it checks.

/// Not exiting (can still make system calls): `rt_sigaction` as a probe.
fn alive<K: TaskApi>(k: &mut K, t: K::Task) -> bool {
    k.rt_sigaction(t, SIGKILL, None).is_ok()
}

fn clone_with<K: TaskApi>(k: &mut K, t: K::Task, flags: u64, exit_signal: i32) -> K::Task {
    k.clone(
        t,
        &CloneArgs {
            flags,
            exit_signal,
            set_tid: vec![],
        },
    )
    .unwrap()
}

pub(crate) fn set_tid_leaves_the_cyclic_cursor_alone<K: TaskApi>() {
    // alloc_pid(): a set_tid number is taken with idr_alloc(), which does
    // not move idr_next; only idr_alloc_cyclic() does.
    let (mut k, init) = kernel::<K>();
    for _ in 0..6 {
        k.fork(init).unwrap(); // pids 2..=7
    }
    let c = k
        .clone(
            init,
            &CloneArgs {
                flags: 0,
                exit_signal: SIGCHLD,
                set_tid: vec![9],
            },
        )
        .unwrap();
    assert_eq!(k.pid_vnr(init, c), Ok(9));
    let d = k.fork(init).unwrap();
    assert_eq!(k.pid_vnr(init, d), Ok(8));
    let e = k.fork(init).unwrap();
    assert_eq!(k.pid_vnr(init, e), Ok(10));
}

pub(crate) fn exec_makes_a_clone_child_an_ordinary_child<K: TaskApi>() {
    // de_thread(), for every exec: "we have changed execution domain",
    // exit_signal = SIGCHLD.
    let (mut k, init) = kernel::<K>();
    let c = clone_with(&mut k, init, 0, 0);
    let pc = k.pid_vnr(init, c).unwrap();
    k.execve(c, "/bin/true").unwrap();
    k.exit_group(c, 5).unwrap();
    assert_eq!(k.wait4(init, -1, __WCLONE | WNOHANG), Err(Errno::ECHILD));
    assert_eq!(reported(k.wait4(init, -1, 0).unwrap()), (pc, 5 << 8));
}

pub(crate) fn fatal_signals_wait_for_a_stopped_process_to_continue<K: TaskApi>() {
    // complete_signal(): no stopped thread wants a signal; it stays
    // pending and is dequeued after SIGCONT, thread-private ones first,
    // then the lowest number (dequeue_signal(), next_signal()). SIGKILL
    // acts at once.
    let (mut k, init) = kernel::<K>();
    let c = k.fork(init).unwrap();
    let pc = k.pid_vnr(init, c).unwrap();
    k.kill(init, pc, SIGSTOP).unwrap();
    k.kill(init, pc, SIGTERM).unwrap();
    k.kill(init, pc, SIGHUP).unwrap();
    assert!(alive(&mut k, c));
    assert_eq!(
        reported(k.wait4(init, pc, WUNTRACED).unwrap()),
        (pc, (SIGSTOP << 8) | 0x7f)
    );
    k.kill(init, pc, SIGCONT).unwrap();
    assert_eq!(reported(k.wait4(init, pc, 0).unwrap()), (pc, SIGHUP));

    let c = k.fork(init).unwrap();
    let pc = k.pid_vnr(init, c).unwrap();
    k.kill(init, pc, SIGSTOP).unwrap();
    k.kill(init, pc, SIGHUP).unwrap();
    k.tkill(init, pc, SIGTERM).unwrap();
    k.kill(init, pc, SIGCONT).unwrap();
    assert_eq!(reported(k.wait4(init, pc, 0).unwrap()), (pc, SIGTERM));

    let c = k.fork(init).unwrap();
    let pc = k.pid_vnr(init, c).unwrap();
    k.kill(init, pc, SIGSTOP).unwrap();
    k.kill(init, pc, SIGKILL).unwrap();
    assert_eq!(reported(k.wait4(init, pc, 0).unwrap()), (pc, SIGKILL));
}

pub(crate) fn an_exit_signal_of_sigkill_or_sigstop_does_not_reach_an_init<K: TaskApi>() {
    // do_notify_parent() sends with force = false: a namespace init ignores
    // what it has no handler for, and the global init never gets SIGKILL
    // or SIGSTOP.
    let (mut k, init) = kernel::<K>();
    let c = clone_with(&mut k, init, 0, SIGKILL);
    k.exit_group(c, 0).unwrap();
    assert!(alive(&mut k, init));
    let n = clone_with(&mut k, init, CLONE_NEWPID, SIGCHLD);
    let pn = k.pid_vnr(init, n).unwrap();
    let c = clone_with(&mut k, n, 0, SIGKILL);
    k.exit_group(c, 0).unwrap();
    assert!(alive(&mut k, n));
    let c = clone_with(&mut k, n, 0, SIGSTOP);
    k.exit_group(c, 0).unwrap();
    assert_eq!(
        k.wait4(init, pn, WUNTRACED | WNOHANG),
        Ok(WaitOutcome::NothingYet)
    );
}

pub(crate) fn init_is_pid_1_after_an_exec_by_one_of_its_threads<K: TaskApi>() {
    // de_thread() gives the exec'ing thread the leader's pid; is_global_init()
    // is tgid 1 in the root namespace. An orphaned stopped group adopted by
    // that init gets SIGHUP and SIGCONT (kill_orphaned_pgrp()).
    let (mut k, init) = kernel::<K>();
    let t = k.clone(init, &CloneArgs::thread()).unwrap();
    k.execve(t, "/sbin/init").unwrap();
    assert_eq!(k.init_task(), Ok(t));
    assert_eq!((k.getpid(t), k.gettid(t)), (Ok(1), Ok(1)));
    let a = k.fork(t).unwrap();
    let pa = k.pid_vnr(t, a).unwrap();
    let b = k.fork(a).unwrap();
    let pb = k.pid_vnr(t, b).unwrap();
    k.setpgid(b, 0, 0).unwrap();
    k.kill(a, pb, SIGSTOP).unwrap();
    k.exit_group(a, 0).unwrap();
    assert_eq!(reported(k.wait4(t, pa, 0).unwrap()), (pa, 0));
    assert_eq!(reported(k.wait4(t, pb, 0).unwrap()), (pb, SIGHUP));
}

pub(crate) fn killing_a_process_group_reaps_members_on_the_way<K: TaskApi>() {
    // __kill_pgrp_info() signals every member; an earlier member's death
    // may reap a later one (a zombie adopted by an init ignoring SIGCHLD)
    // or the sender itself.
    let (mut k, init) = kernel::<K>();
    let ign = SigAction::new(SigHandler::Ignore, 0);
    k.rt_sigaction(init, SIGCHLD, Some(ign)).unwrap();
    let a = k.fork(init).unwrap();
    let z = k.fork(a).unwrap();
    k.exit_group(z, 0).unwrap();
    assert_eq!(k.kill(init, 0, SIGKILL), Ok(()));
    assert_eq!(k.nr_tasks(), 1);
    let a = k.fork(init).unwrap();
    let b = k.fork(init).unwrap();
    assert_eq!(k.kill(a, 0, SIGTERM), Ok(()));
    assert_eq!(
        (k.getpid(a), k.getpid(b)),
        (Err(Errno::ESRCH), Err(Errno::ESRCH))
    );
}

pub(crate) fn sigkill_from_a_sibling_namespace_is_forced<K: TaskApi>() {
    // send_signal_locked(): forced when the sender has no number in the
    // target's pid namespace; a namespace init's own kill(0) does not reach
    // itself.
    let (mut k, init) = kernel::<K>();
    let p = k.fork(init).unwrap();
    let n1 = clone_with(&mut k, p, CLONE_NEWPID, SIGCHLD);
    let n2 = clone_with(&mut k, p, CLONE_NEWPID, SIGCHLD);
    k.kill(n1, 0, SIGKILL).unwrap();
    assert!(alive(&mut k, n1));
    assert!(!alive(&mut k, n2));
    assert!(!alive(&mut k, p));
}

pub(crate) fn a_traced_namespace_init_stops_for_its_tracer<K: TaskApi>() {
    // sig_ignored(): a traced task ignores nothing but SIGKILL; get_signal()
    // still drops what init does not want once the tracer passes it on.
    let (mut k, init) = kernel::<K>();
    let n = clone_with(&mut k, init, CLONE_NEWPID, SIGCHLD);
    let pn = k.pid_vnr(init, n).unwrap();
    k.ptrace_traceme(n).unwrap();
    let c = k.fork(n).unwrap();
    k.exit_group(c, 0).unwrap();
    assert_eq!(
        reported(k.wait4(init, pn, WNOHANG).unwrap()),
        (pn, (SIGCHLD << 8) | 0x7f)
    );
    k.ptrace_cont(init, pn, SIGTERM).unwrap();
    assert!(alive(&mut k, n));
}

pub(crate) fn the_exit_signal_check_uses_the_forking_threads_exec_id<K: TaskApi>() {
    // dup_task_struct() copies self_exec_id; do_notify_parent() sends
    // SIGCHLD instead of the exit signal only if the parent exec'd since.
    let (mut k, init) = kernel::<K>();
    let p = k.fork(init).unwrap();
    let pp = k.pid_vnr(init, p).unwrap();
    k.execve(p, "/bin/sh").unwrap();
    let t = k.clone(p, &CloneArgs::thread()).unwrap();
    let c = clone_with(&mut k, t, 0, SIGUSR1);
    k.exit(t, 0).unwrap(); // c goes to p's leader, exit signal kept
    k.exit_group(c, 0).unwrap(); // SIGUSR1 kills p
    assert_eq!(reported(k.wait4(init, pp, 0).unwrap()), (pp, SIGUSR1));

    // CLONE_PARENT inherits the caller's parent_exec_id.
    let g = k.fork(init).unwrap();
    let c = clone_with(&mut k, g, 0, SIGUSR1);
    k.execve(g, "/bin/sh").unwrap();
    let s = clone_with(&mut k, c, CLONE_PARENT, SIGCHLD);
    k.exit_group(s, 0).unwrap(); // g exec'd since: plain SIGCHLD
    assert!(alive(&mut k, g));
}

pub(crate) fn a_namespace_init_waits_for_tasks_traced_from_outside<K: TaskApi>() {
    // zap_pid_ns_processes(): SIGCHLD ignored, then sleep until the
    // namespace is empty; the tracer's wait releases the last task.
    let (mut k, init) = kernel::<K>();
    let n = clone_with(&mut k, init, CLONE_NEWPID, SIGCHLD);
    let pn = k.pid_vnr(init, n).unwrap();
    let c = k.fork(n).unwrap();
    let pc = k.pid_vnr(init, c).unwrap();
    let x = k.fork(init).unwrap();
    k.ptrace_attach(x, pc, true).unwrap();
    k.exit_group(n, 0).unwrap();
    assert!(!alive(&mut k, n));
    assert_eq!(k.wait4(init, pn, WNOHANG), Ok(WaitOutcome::NothingYet));
    assert_eq!(reported(k.wait4(x, pc, __WALL).unwrap()), (pc, SIGKILL));
    assert_eq!(reported(k.wait4(init, pn, WNOHANG).unwrap()), (pn, 0));
    assert!(!k.pid_in_use(init, pc).unwrap());
}

pub(crate) fn zapping_a_namespace_keeps_the_status_of_dead_processes<K: TaskApi>() {
    // complete_signal() finds no thread in a group whose threads have all
    // exited: SIGKILL does not change its zombie's status.
    let (mut k, init) = kernel::<K>();
    let n = clone_with(&mut k, init, CLONE_NEWPID, SIGCHLD);
    let p = k.fork(n).unwrap();
    let pp = k.pid_vnr(init, p).unwrap();
    let t = k.clone(p, &CloneArgs::thread()).unwrap();
    let x = k.fork(init).unwrap();
    k.ptrace_attach(x, pp, true).unwrap();
    k.exit(t, 0).unwrap();
    k.exit(p, 7).unwrap();
    k.exit_group(n, 0).unwrap();
    assert_eq!(reported(k.wait4(x, pp, __WALL).unwrap()), (pp, 7 << 8));
}

pub(crate) fn tkill_to_an_exiting_thread_does_nothing<K: TaskApi>() {
    // do_send_specific() queues on that thread (PIDTYPE_PID) and an exiting
    // thread never takes it (wants_signal()); kill() goes to the process.
    let (mut k, init) = kernel::<K>();
    let p = k.fork(init).unwrap();
    let pp = k.pid_vnr(init, p).unwrap();
    let t = k.clone(p, &CloneArgs::thread()).unwrap();
    k.exit(p, 3).unwrap();
    k.tkill(init, pp, SIGKILL).unwrap();
    k.tgkill(init, pp, pp, SIGTERM).unwrap();
    assert!(alive(&mut k, t));
    k.kill(init, pp, SIGTERM).unwrap();
    assert!(!alive(&mut k, t));
}

pub(crate) fn signals_go_to_a_thread_that_can_take_them<K: TaskApi>() {
    // complete_signal(): a tracee in a ptrace stop does not want a signal;
    // another thread takes it. sig_ignored() on the target drops an ignored
    // signal before any traced sibling could report it.
    let (mut k, init) = kernel::<K>();
    let x = k.fork(init).unwrap();
    let p = k.fork(init).unwrap();
    let pp = k.pid_vnr(init, p).unwrap();
    let t = k.clone(p, &CloneArgs::thread()).unwrap();
    k.ptrace_attach(x, pp, false).unwrap();
    k.kill(init, pp, SIGTERM).unwrap();
    assert!(!alive(&mut k, t));

    let q = k.fork(init).unwrap();
    let pq = k.pid_vnr(init, q).unwrap();
    let u = k.clone(q, &CloneArgs::thread()).unwrap();
    let pu = k.pid_vnr(init, u).unwrap();
    k.ptrace_attach(x, pu, false).unwrap();
    assert_eq!(
        reported(k.wait4(x, pu, __WALL).unwrap()),
        (pu, (SIGSTOP << 8) | 0x7f)
    );
    k.ptrace_cont(x, pu, 0).unwrap();
    k.kill(init, pq, SIGCONT).unwrap();
    assert_eq!(
        k.wait4(x, pu, __WALL | WNOHANG),
        Ok(WaitOutcome::NothingYet)
    );
}

pub(crate) fn pending_fatal_signals_wait_for_a_thread_out_of_its_ptrace_stop<K: TaskApi>() {
    // A stopped task being attached moves into a ptrace stop for the group
    // stop (ptrace_set_stopped()); SIGCONT does not end a ptrace stop; the
    // tracee takes what is pending when PTRACE_CONT or its tracer's exit
    // lets it run, and reports it first.
    let (mut k, init) = kernel::<K>();
    let x = k.fork(init).unwrap();
    let c = k.fork(init).unwrap();
    let pc = k.pid_vnr(init, c).unwrap();
    k.kill(init, pc, SIGSTOP).unwrap();
    k.kill(init, pc, SIGTERM).unwrap();
    k.ptrace_attach(x, pc, false).unwrap();
    assert_eq!(
        reported(k.wait4(x, pc, __WALL).unwrap()),
        (pc, (SIGSTOP << 8) | 0x7f)
    );
    k.kill(init, pc, SIGCONT).unwrap();
    assert!(alive(&mut k, c));
    k.ptrace_cont(x, pc, 0).unwrap();
    assert_eq!(
        reported(k.wait4(x, pc, __WALL).unwrap()),
        (pc, (SIGTERM << 8) | 0x7f)
    );
    k.ptrace_cont(x, pc, SIGTERM).unwrap();
    assert_eq!(reported(k.wait4(x, pc, __WALL).unwrap()), (pc, SIGTERM));

    // The tracer's exit resumes the tracee (its stop already reported).
    let c = k.fork(init).unwrap();
    let pc = k.pid_vnr(init, c).unwrap();
    k.kill(init, pc, SIGSTOP).unwrap();
    k.kill(init, pc, SIGTERM).unwrap();
    k.ptrace_attach(x, pc, false).unwrap();
    assert_eq!(
        reported(k.wait4(x, pc, __WALL).unwrap()),
        (pc, (SIGSTOP << 8) | 0x7f)
    );
    k.kill(init, pc, SIGCONT).unwrap();
    assert!(alive(&mut k, c));
    k.exit_group(x, 0).unwrap();
    assert_eq!(reported(k.wait4(init, pc, 0).unwrap()), (pc, SIGTERM));
}

pub(crate) fn attaching_to_a_stopped_group_reports_its_stop_signal<K: TaskApi>() {
    // ptrace_set_stopped(): JOBCTL_TRAP_STOP with the group stop's signal,
    // PTRACE_EVENT_STOP for a seize.
    let (mut k, init) = kernel::<K>();
    let p = k.fork(init).unwrap();
    let c = k.fork(p).unwrap();
    let pc = k.pid_vnr(init, c).unwrap();
    k.setpgid(p, pc, pc).unwrap();
    k.kill(p, pc, SIGTSTP).unwrap();
    let x = k.fork(init).unwrap();
    k.ptrace_attach(x, pc, true).unwrap();
    assert_eq!(
        reported(k.wait4(x, pc, __WALL).unwrap()),
        (pc, ((SIGTSTP | 0x8000) << 8) | 0x7f)
    );
}

pub(crate) fn clone_ptrace_child_of_a_seized_tracee_is_seized<K: TaskApi>() {
    // ptrace_init_task(): the child is traced the way its creator is, and a
    // seized one starts in a PTRACE_EVENT_STOP trap; seized tracees get no
    // exec SIGTRAP.
    let (mut k, init) = kernel::<K>();
    let x = k.fork(init).unwrap();
    let p = k.fork(init).unwrap();
    let pp = k.pid_vnr(init, p).unwrap();
    k.ptrace_attach(x, pp, true).unwrap();
    let c = clone_with(&mut k, p, CLONE_PTRACE, SIGCHLD);
    let pc = k.pid_vnr(init, c).unwrap();
    assert_eq!(
        reported(k.wait4(x, pc, __WALL).unwrap()),
        (pc, ((SIGTRAP | 0x8000) << 8) | 0x7f)
    );
    k.ptrace_cont(x, pc, 0).unwrap();
    k.execve(c, "/bin/true").unwrap();
    assert_eq!(
        k.wait4(x, pc, __WALL | WNOHANG),
        Ok(WaitOutcome::NothingYet)
    );
}

pub(crate) fn a_single_threaded_exit_group_keeps_the_group_stop_state<K: TaskApi>() {
    // do_group_exit(): with no other thread, plain do_exit() and no
    // SIGNAL_GROUP_EXIT: the real parent of a zombie traced by another
    // process still sees the group stop it has not collected.
    let (mut k, init) = kernel::<K>();
    let p = k.fork(init).unwrap();
    let pp = k.pid_vnr(init, p).unwrap();
    let x = k.fork(init).unwrap();
    k.ptrace_attach(x, pp, true).unwrap();
    k.kill(init, pp, SIGSTOP).unwrap(); // a signal-delivery-stop for x
    reported(k.wait4(x, pp, __WALL).unwrap());
    k.ptrace_cont(x, pp, SIGSTOP).unwrap(); // now the group stops
    reported(k.wait4(x, pp, __WALL).unwrap());
    k.ptrace_cont(x, pp, 0).unwrap();
    k.exit_group(p, 0).unwrap();
    assert_eq!(
        reported(k.waitid(init, P_PID, pp, WSTOPPED | WNOHANG).unwrap()),
        (pp, (SIGSTOP << 8) | 0x7f)
    );
}

/// The child blocks SIGUSR1, its parent-death signal; whether it is
/// pending after the parent drops its root ids (or not) and exits.
fn pdeath_after_parent_becomes<K: TaskApi>(uid: Option<u32>) -> u64 {
    let (mut k, init) = kernel::<K>();
    let p = k.fork(init).unwrap();
    let c = k.fork(p).unwrap();
    k.set_pdeathsig(c, SIGUSR1).unwrap();
    k.rt_sigprocmask(c, SIG_BLOCK, Some(1 << (SIGUSR1 - 1)))
        .unwrap();
    if let Some(u) = uid {
        k.setresuid(p, u, u, u).unwrap();
    }
    k.exit(p, 0).unwrap();
    k.rt_sigpending(c).unwrap()
}

/// The parent-death signal needs `kill()`'s permission
/// (`group_send_sig_info()`; Linux 6.18, a C program as root).
pub(crate) fn the_parent_death_signal_needs_kill_permission<K: TaskApi>() {
    assert_eq!(pdeath_after_parent_becomes::<K>(None), 1 << (SIGUSR1 - 1));
    assert_eq!(pdeath_after_parent_becomes::<K>(Some(1000)), 0);
}

/// The parent-death signal and dumpable flag after an exec by a child with
/// real, effective and fs uids `r`, `e`, `fs`.
fn after_exec<K: TaskApi>(r: u32, e: u32, fs: Option<u32>) -> (i32, i32) {
    let (mut k, init) = kernel::<K>();
    let c = k.fork(init).unwrap();
    k.setresuid(c, r, e, 0).unwrap();
    if let Some(fs) = fs {
        k.setfsuid(c, fs).unwrap();
    }
    k.set_pdeathsig(c, SIGUSR1).unwrap();
    k.execve(c, "/bin/get").unwrap();
    (k.pdeathsig(c).unwrap(), k.pr_get_dumpable(c).unwrap())
}

/// An exec with effective ids other than the real ones (`secureexec`), or
/// one that resets changed fs ids (`commit_creds()`), clears the
/// parent-death signal (and the second, the dumpable flag; Linux 6.18, a
/// C program as root).
pub(crate) fn exec_clears_the_parent_death_signal_as_linux<K: TaskApi>() {
    assert_eq!(after_exec::<K>(0, 0, None), (SIGUSR1, 1));
    assert_eq!(after_exec::<K>(1000, 1000, None), (SIGUSR1, 1));
    assert_eq!(after_exec::<K>(0, 1000, None), (0, 0));
    assert_eq!(after_exec::<K>(1000, 0, None), (0, 0));
    assert_eq!(after_exec::<K>(0, 0, Some(1000)), (0, 0));
    assert_eq!(after_exec::<K>(1000, 1000, Some(0)), (0, 0));
}

/// `lifecycle_tests!(Type)`: one `#[test]` per scenario above, run on a
/// fresh `Type` (an implementation of [`TaskApi`]).
macro_rules! lifecycle_tests {
    ($k:ty) => {
        $crate::common::lifecycle_scenarios::lifecycle_tests!(@each $k; fork_exit_wait_pid_and_any, waitid_nowait_keeps_zombie_and_siginfo, zombie_only_with_wstopped_is_echild, thread_group_leader_is_delayed_and_group_code_wins, orphans_go_to_subreaper_then_init_and_zombies_are_renotified, autoreap_when_sigchld_ignored_or_nocldwait, stop_continue_kill_reports, setpgid_setsid_errnos, pid_max_fill_eagain_then_wrap_to_300, exec_by_non_leader_takes_over_the_pid, pid_namespace_init_and_teardown, clone_and_clone3_exit_signal_rules, clone_errnos, clone_children_need_wclone, ptrace_tracer_then_real_parent, last_member_of_a_dead_leaders_group_and_session_frees_the_pid_once, process_group_and_per_thread_waits_built_lazily_see_earlier_children, set_tid_leaves_the_cyclic_cursor_alone, exec_makes_a_clone_child_an_ordinary_child, fatal_signals_wait_for_a_stopped_process_to_continue, an_exit_signal_of_sigkill_or_sigstop_does_not_reach_an_init, init_is_pid_1_after_an_exec_by_one_of_its_threads, killing_a_process_group_reaps_members_on_the_way, sigkill_from_a_sibling_namespace_is_forced, a_traced_namespace_init_stops_for_its_tracer, the_exit_signal_check_uses_the_forking_threads_exec_id, a_namespace_init_waits_for_tasks_traced_from_outside, zapping_a_namespace_keeps_the_status_of_dead_processes, tkill_to_an_exiting_thread_does_nothing, signals_go_to_a_thread_that_can_take_them, pending_fatal_signals_wait_for_a_thread_out_of_its_ptrace_stop, attaching_to_a_stopped_group_reports_its_stop_signal, clone_ptrace_child_of_a_seized_tracee_is_seized, a_single_threaded_exit_group_keeps_the_group_stop_state, the_parent_death_signal_needs_kill_permission, exec_clears_the_parent_death_signal_as_linux);
    };
    (@each $k:ty; $($name:ident),*) => {
        $(
            #[test]
            fn $name() {
                $crate::common::lifecycle_scenarios::$name::<$k>();
            }
        )*
    };
}
pub(crate) use lifecycle_tests;
