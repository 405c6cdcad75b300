//! Scenario tests of the process core against Linux behaviour
//! (wait(2), clone(2), setpgid(2), setsid(2), kill(2), prctl(2)).

use taskcore::uapi::*;
use taskcore::{CloneArgs, Config, Errno, Kernel, SigAction, SigHandler, TaskId, WaitOutcome};

fn kernel() -> (Kernel, TaskId) {
    let k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    (k, init)
}

fn reported(o: WaitOutcome) -> (i32, i32) {
    match o {
        WaitOutcome::Reported(r) => (r.pid, r.status),
        other => panic!("expected a report, got {other:?}"),
    }
}

#[test]
fn fork_exit_wait_pid_and_any() {
    let (mut k, init) = kernel();
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

#[test]
fn waitid_nowait_keeps_zombie_and_siginfo() {
    let (mut k, init) = kernel();
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

#[test]
fn zombie_only_with_wstopped_is_echild() {
    // wait_task_zombie() returns 0 without clearing notask_error.
    let (mut k, init) = kernel();
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

#[test]
fn thread_group_leader_is_delayed_and_group_code_wins() {
    let (mut k, init) = kernel();
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

#[test]
fn orphans_go_to_subreaper_then_init_and_zombies_are_renotified() {
    let (mut k, init) = kernel();
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

#[test]
fn autoreap_when_sigchld_ignored_or_nocldwait() {
    let (mut k, init) = kernel();
    let p = k.fork(init).unwrap();
    k.rt_sigaction(
        p,
        SIGCHLD,
        Some(SigAction {
            handler: SigHandler::Ignore,
            flags: 0,
        }),
    )
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
        Some(SigAction {
            handler: SigHandler::Handler,
            flags: SA_NOCLDWAIT,
        }),
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

#[test]
fn stop_continue_kill_reports() {
    let (mut k, init) = kernel();
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

#[test]
fn setpgid_setsid_errnos() {
    let (mut k, init) = kernel();
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

#[test]
fn pid_max_fill_eagain_then_wrap_to_300() {
    let mut k = Kernel::new(Config {
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
    let pid_of = |k: &Kernel, t| k.pid_vnr(init, t).unwrap();
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

#[test]
fn exec_by_non_leader_takes_over_the_pid() {
    let (mut k, init) = kernel();
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

#[test]
fn pid_namespace_init_and_teardown() {
    let (mut k, init) = kernel();
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

#[test]
fn clone_errnos() {
    let (mut k, init) = kernel();
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
    let a = CloneArgs {
        flags: 0,
        exit_signal: 65,
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

#[test]
fn clone_children_need_wclone() {
    let (mut k, init) = kernel();
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

#[test]
fn ptrace_tracer_then_real_parent() {
    let (mut k, init) = kernel();
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

#[test]
fn address_spaces_follow_fork_vfork_threads_exec() {
    use taskcore::mm::flags::{MAP_ANONYMOUS, MAP_PRIVATE, PROT_READ, PROT_WRITE};
    let (mut k, init) = kernel();
    let p = k.fork(init).unwrap();
    let a = k
        .mmap(
            p,
            0,
            4096,
            PROT_READ | PROT_WRITE,
            MAP_PRIVATE | MAP_ANONYMOUS,
            None,
            0,
        )
        .unwrap();
    let c = k.fork(p).unwrap();
    assert!(!k.same_mm(p, c).unwrap());
    assert_eq!(k.mm(c).unwrap().unwrap().map_count(), 1);
    // The child's changes do not touch the parent's (copy-on-write).
    k.munmap(c, a, 4096).unwrap();
    assert_eq!(k.mm(c).unwrap().unwrap().map_count(), 0);
    assert_eq!(k.mm(p).unwrap().unwrap().map_count(), 1);
    let t = k.clone(p, &CloneArgs::thread()).unwrap();
    let v = k.vfork(p).unwrap();
    assert!(k.same_mm(p, t).unwrap() && k.same_mm(p, v).unwrap());
    k.execve(v, "/bin/true").unwrap();
    assert!(!k.same_mm(p, v).unwrap());
    assert!(k.mm(v).unwrap().is_none());
    k.exit(t, 0).unwrap();
    assert_eq!(k.mm(p).unwrap().unwrap().map_count(), 1);
}

#[test]
fn last_member_of_a_dead_leaders_group_and_session_frees_the_pid_once() {
    // Found by replaying a randscen trace: pgid == sid == a reaped leader.
    let (mut k, init) = kernel();
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

#[test]
fn process_group_and_per_thread_waits_built_lazily_see_earlier_children() {
    // The per-group and per-thread parts of the wait index are built at the
    // first wait that needs them: children from before must be seen.
    let (mut k, init) = kernel();
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
