//! pidfds against answers recorded from real Linux (6.18) by
//! tests/oracle/pidfd_rules.c (re-record with tests/oracle/record.sh):
//! pidfd_open, CLONE_PIDFD in clone and clone3, pidfd_send_signal,
//! waitid(P_PIDFD), poll readiness and fdinfo's Pid/NSpid.

use crate::common::recorded;

use taskcore::task::pidfd::{
    PIDFD_NONBLOCK, PIDFD_SIGNAL_PROCESS_GROUP, PIDFD_SIGNAL_THREAD, PIDFD_SIGNAL_THREAD_GROUP,
    PIDFD_THREAD, POLLHUP, POLLIN,
};
use taskcore::uapi::{
    CLONE_DETACHED, CLONE_NEWPID, CLONE_PARENT_SETTID, CLONE_PIDFD, SIGCHLD, SIGCONT, SIGKILL,
    SIGTERM, SIGUSR1, SIGUSR2, SI_TKILL, WEXITED, WNOHANG,
};
use taskcore::{
    Clone3Args, CloneArgs, Config, Errno, Kernel, SigAction, SigHandler, SigInfo, TaskId,
    WaitOutcome,
};

const OUT: &str = include_str!("oracle/pidfd_rules.out");

fn want(key: &str) -> &'static str {
    recorded::want(OUT, key)
}

fn check<T>(key: &str, r: Result<T, Errno>) {
    recorded::check(OUT, key, r)
}

fn ignore(k: &mut Kernel, t: TaskId, sig: i32) {
    let act = SigAction::new(SigHandler::Ignore, 0);
    k.rt_sigaction(t, sig, Some(act)).unwrap();
}

/// The poll answer as the recording prints it (`poll` asked for POLLIN;
/// POLLHUP is always reported): "<ready count> 0x<revents>".
fn poll_line(bits: u32) -> String {
    let revents = bits & (POLLIN | POLLHUP);
    format!("{} {:#x}", u32::from(revents != 0), revents)
}

fn setup() -> (Kernel, TaskId) {
    let mut k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    let main = k.fork(init).unwrap();
    ignore(&mut k, main, SIGUSR1);
    (k, main)
}

#[test]
fn pidfd_open_rules() {
    let (mut k, main) = setup();
    let me = k.pid_vnr(main, main).unwrap();
    check("open_bad_flags", k.pidfd_open(main, me, 1));
    check("open_pid_0", k.pidfd_open(main, 0, 0));
    check("open_pid_neg", k.pidfd_open(main, -1, 0));
    let gone = k.fork(main).unwrap();
    let gone_nr = k.pid_vnr(main, gone).unwrap();
    k.exit_group(gone, 0).unwrap();
    k.wait4(main, gone_nr, 0).unwrap();
    check("open_reaped", k.pidfd_open(main, gone_nr, 0));
    check("open_self", k.pidfd_open(main, me, 0));
    check(
        "open_self_thread_flag",
        k.pidfd_open(main, me, PIDFD_THREAD),
    );
    check("open_self_nonblock", k.pidfd_open(main, me, PIDFD_NONBLOCK));
    // A process with a second thread.
    let c = k.fork(main).unwrap();
    let th = k.clone(c, &CloneArgs::thread()).unwrap();
    let tid = k.pid_vnr(main, th).unwrap();
    check("open_thread_no_flag", k.pidfd_open(main, tid, 0));
    let tfd = k.pidfd_open(main, tid, PIDFD_THREAD);
    check("open_thread_with_flag", tfd);
    let tfd = tfd.unwrap();
    let scoped = |k: &mut Kernel, f| k.pidfd_send_signal(main, tfd, 0, None, f);
    check(
        "send_thread_fd_scope_group",
        scoped(&mut k, PIDFD_SIGNAL_THREAD_GROUP),
    );
    check("send_thread_fd_default", scoped(&mut k, 0));
    check(
        "send_thread_fd_scope_thread",
        scoped(&mut k, PIDFD_SIGNAL_THREAD),
    );
    k.check_invariants();
}

#[test]
fn clone_pidfd_rules() {
    let (mut k, main) = setup();
    let legacy = |flags| CloneArgs {
        flags,
        exit_signal: SIGCHLD,
        set_tid: vec![],
    };
    check(
        "clone_pidfd_parent_settid",
        k.clone_with_pidfd(main, &legacy(CLONE_PIDFD | CLONE_PARENT_SETTID)),
    );
    check(
        "clone_pidfd_detached",
        k.clone_with_pidfd(main, &legacy(CLONE_PIDFD | CLONE_DETACHED)),
    );
    let mut thread = CloneArgs::thread();
    thread.flags |= CLONE_PIDFD;
    let r = k.clone_with_pidfd(main, &thread);
    check("clone_pidfd_thread", r);
    let (t, fd) = r.unwrap();
    let fd = fd.unwrap();
    let is_thread = k.pidfd_flags(fd).unwrap() & PIDFD_THREAD != 0;
    assert_eq!(
        u8::from(is_thread).to_string(),
        want("clone_pidfd_thread_fd_is_thread")
    );
    k.exit(t, 0).unwrap();
    assert_eq!(
        poll_line(k.pidfd_poll(fd).unwrap()),
        want("poll_exited_thread")
    );
    let r = k.clone_with_pidfd(main, &legacy(CLONE_PIDFD));
    check("clone_pidfd", r);
    let (c, fd) = r.unwrap();
    let fd = fd.unwrap();
    let fl = k.pidfd_flags(fd).unwrap();
    assert_eq!(
        format!(
            "{} nonblock {}",
            u8::from(fl & PIDFD_THREAD != 0),
            u8::from(fl & PIDFD_NONBLOCK != 0)
        ),
        want("clone_pidfd_flags_thread")
    );
    let cnr = k.pid_vnr(main, c).unwrap();
    k.exit_group(c, 3).unwrap();
    let r = k.waitid_pidfd(main, fd, WEXITED);
    check("waitid_clone_pidfd", r);
    let WaitOutcome::Reported(rep) = r.unwrap() else {
        panic!()
    };
    assert_eq!(
        format!(
            "pid_is_child {} code {} status {}",
            u8::from(rep.info.pid == cnr),
            rep.info.code,
            rep.info.status
        ),
        want("waitid_clone_pidfd_info")
    );
    // clone3.
    let a = Clone3Args {
        flags: CLONE_PIDFD,
        exit_signal: SIGCHLD as u64,
        ..Default::default()
    };
    check("clone3_pidfd", k.clone3_with_pidfd(main, &a));
    let a = Clone3Args {
        flags: CLONE_PIDFD | CLONE_PARENT_SETTID,
        exit_signal: SIGCHLD as u64,
        ..Default::default()
    };
    check("clone3_pidfd_parent_settid", k.clone3_with_pidfd(main, &a));
    let a = Clone3Args {
        flags: CLONE_PIDFD | thread.flags,
        stack: 0x1000,
        stack_size: 0x1000,
        ..Default::default()
    };
    check("clone3_pidfd_thread", k.clone3_with_pidfd(main, &a));
    k.check_invariants();
}

#[test]
fn send_signal_wait_poll_fdinfo() {
    let (mut k, main) = setup();
    let root = k.root_ns();
    let c = k.fork(main).unwrap();
    let cnr = k.pid_vnr(main, c).unwrap();
    let fd = k.pidfd_open(main, cnr, 0).unwrap();
    check("send_bad_flags", k.pidfd_send_signal(main, fd, 0, None, 8));
    check(
        "send_two_scopes",
        k.pidfd_send_signal(
            main,
            fd,
            0,
            None,
            PIDFD_SIGNAL_THREAD | PIDFD_SIGNAL_THREAD_GROUP,
        ),
    );
    // A closed pidfd stands for both a bad fd and a file that is no pidfd.
    let closed = k.pidfd_open(main, cnr, 0).unwrap();
    k.pidfd_close(closed).unwrap();
    check("send_bad_fd", k.pidfd_send_signal(main, closed, 0, None, 0));
    check(
        "send_not_pidfd",
        k.pidfd_send_signal(main, closed, 0, None, 0),
    );
    check("send_sig0", k.pidfd_send_signal(main, fd, 0, None, 0));
    check("send_sig65", k.pidfd_send_signal(main, fd, 65, None, 0));
    check("send_sig_neg", k.pidfd_send_signal(main, fd, -1, None, 0));
    let info = |signo, code| {
        Some(SigInfo {
            signo,
            code,
            ..SigInfo::default()
        })
    };
    let (queue, user) = (-1, 0);
    check(
        "send_info_signo_mismatch",
        k.pidfd_send_signal(main, fd, SIGUSR1, info(SIGUSR2, queue), 0),
    );
    ignore(&mut k, c, SIGUSR1);
    check(
        "send_info_si_user_other",
        k.pidfd_send_signal(main, fd, SIGUSR1, info(SIGUSR1, user), 0),
    );
    check(
        "send_info_si_tkill_other",
        k.pidfd_send_signal(main, fd, SIGUSR1, info(SIGUSR1, SI_TKILL), 0),
    );
    check(
        "send_info_si_queue_other",
        k.pidfd_send_signal(main, fd, SIGUSR1, info(SIGUSR1, queue), 0),
    );
    check(
        "send_info_si_queue_other_thread_scope",
        k.pidfd_send_signal(main, fd, SIGUSR1, info(SIGUSR1, queue), PIDFD_SIGNAL_THREAD),
    );
    let me = k.pid_vnr(main, main).unwrap();
    let selffd = k.pidfd_open(main, me, 0).unwrap();
    for (key, scope) in [
        ("send_info_si_user_self", 0),
        ("send_info_si_user_self_thread_scope", PIDFD_SIGNAL_THREAD),
        (
            "send_info_si_user_self_pgrp_scope",
            PIDFD_SIGNAL_PROCESS_GROUP,
        ),
    ] {
        check(
            key,
            k.pidfd_send_signal(main, selffd, SIGUSR1, info(SIGUSR1, user), scope),
        );
    }
    k.pidfd_close(selffd).unwrap();
    for (key, scope) in [
        ("send_scope_thread", PIDFD_SIGNAL_THREAD),
        ("send_scope_group", PIDFD_SIGNAL_THREAD_GROUP),
        ("send_scope_pgrp_not_leader", PIDFD_SIGNAL_PROCESS_GROUP),
    ] {
        check(key, k.pidfd_send_signal(main, fd, 0, None, scope));
    }
    let l = k.fork(main).unwrap();
    ignore(&mut k, l, SIGUSR1);
    k.setpgid(l, 0, 0).unwrap();
    let lnr = k.pid_vnr(main, l).unwrap();
    let lfd = k.pidfd_open(main, lnr, 0).unwrap();
    check(
        "send_scope_pgrp_leader",
        k.pidfd_send_signal(main, lfd, SIGUSR1, None, PIDFD_SIGNAL_PROCESS_GROUP),
    );
    k.kill(main, lnr, SIGKILL).unwrap();
    for (key, scope) in [
        ("send_zombie_sig0", 0),
        ("send_zombie_scope_thread", PIDFD_SIGNAL_THREAD),
        ("send_zombie_scope_pgrp", PIDFD_SIGNAL_PROCESS_GROUP),
    ] {
        check(key, k.pidfd_send_signal(main, lfd, 0, None, scope));
    }
    assert_eq!(poll_line(k.pidfd_poll(lfd).unwrap()), want("poll_zombie"));
    let fdinfo = |k: &Kernel, fd, name: &str, nr: i32| {
        let i = k.pidfd_fdinfo(fd, root).unwrap();
        let show = |v: i32| {
            if v == nr {
                name.to_string()
            } else {
                v.to_string()
            }
        };
        let nspid: Vec<String> = i.nspid.iter().map(|&v| show(v)).collect();
        (
            format!("Pid: {}", show(i.pid)),
            format!("NSpid: {}", nspid.join(" ")),
        )
    };
    let lines = |key: &str| -> (String, String) {
        let mut it = OUT
            .lines()
            .filter_map(|l| l.strip_prefix(key)?.strip_prefix(' '));
        (it.next().unwrap().into(), it.next().unwrap().into())
    };
    assert_eq!(fdinfo(&k, lfd, "CHILD", lnr), lines("fdinfo_zombie"));
    k.wait4(main, lnr, 0).unwrap();
    check(
        "send_reaped_sig0",
        k.pidfd_send_signal(main, lfd, 0, None, 0),
    );
    check(
        "send_reaped_sig65",
        k.pidfd_send_signal(main, lfd, 65, None, 0),
    );
    assert_eq!(poll_line(k.pidfd_poll(lfd).unwrap()), want("poll_reaped"));
    assert_eq!(fdinfo(&k, lfd, "CHILD", lnr), lines("fdinfo_reaped"));
    k.pidfd_close(lfd).unwrap();
    assert_eq!(poll_line(k.pidfd_poll(fd).unwrap()), want("poll_running"));
    assert_eq!(fdinfo(&k, fd, "CHILD", cnr), lines("fdinfo_running"));
    // waitid(P_PIDFD): a negative fd number is the embedder's EINVAL.
    check("waitid_bad_fd", k.waitid_pidfd(main, closed, WEXITED));
    check("waitid_not_pidfd", k.waitid_pidfd(main, closed, WEXITED));
    let r = k.waitid_pidfd(main, fd, WEXITED | WNOHANG);
    check("waitid_running_wnohang", r);
    assert_eq!(r.unwrap(), WaitOutcome::NothingYet);
    assert_eq!("0", want("waitid_running_wnohang_si_pid"));
    let nb = k.pidfd_open(main, cnr, PIDFD_NONBLOCK).unwrap();
    check("waitid_running_nonblock", k.waitid_pidfd(main, nb, WEXITED));
    check(
        "waitid_running_nonblock_wnohang",
        k.waitid_pidfd(main, nb, WEXITED | WNOHANG),
    );
    let selfnb = k.pidfd_open(main, me, PIDFD_NONBLOCK).unwrap();
    check("waitid_self", k.waitid_pidfd(main, selfnb, WEXITED));
    k.kill(main, cnr, SIGTERM).unwrap();
    let r = k.waitid_pidfd(main, nb, WEXITED);
    check("waitid_nonblock_zombie", r);
    let WaitOutcome::Reported(rep) = r.unwrap() else {
        panic!()
    };
    assert_eq!(
        format!(
            "child {} code {} status {}",
            u8::from(rep.info.pid == cnr),
            rep.info.code,
            rep.info.status
        ),
        want("waitid_nonblock_zombie_info")
    );
    check("waitid_after_reap", k.waitid_pidfd(main, fd, WEXITED));
    k.check_invariants();
}

#[test]
fn leader_gone_before_its_threads_and_permissions() {
    let (mut k, main) = setup();
    let c = k.fork(main).unwrap();
    let _th = k.clone(c, &CloneArgs::thread()).unwrap();
    k.exit(c, 0).unwrap();
    let cnr = k.pid_vnr(main, c).unwrap();
    let fd = k.pidfd_open(main, cnr, 0);
    check("open_exited_leader_live_thread", fd);
    assert_eq!(
        poll_line(k.pidfd_poll(fd.unwrap()).unwrap()),
        want("poll_exited_leader_live_thread")
    );
    let tfd = k.pidfd_open(main, cnr, PIDFD_THREAD).unwrap();
    assert_eq!(
        poll_line(k.pidfd_poll(tfd).unwrap()),
        want("poll_exited_leader_thread_fd")
    );
    // An unprivileged child signals its root parent.
    let me = k.pid_vnr(main, main).unwrap();
    let u = k.fork(main).unwrap();
    let pfd = k.pidfd_open(u, me, 0).unwrap();
    k.setresgid(u, 100, 100, 100).unwrap();
    k.setresuid(u, 1000, 1000, 1000).unwrap();
    check(
        "send_unprivileged_to_root",
        k.pidfd_send_signal(u, pfd, 0, None, 0),
    );
    k.setsid(u).unwrap();
    check(
        "send_unprivileged_to_root_sigcont_other_session",
        k.pidfd_send_signal(u, pfd, SIGCONT, None, 0),
    );
    k.check_invariants();
}

#[test]
fn pidfds_across_namespaces() {
    let (mut k, main) = setup();
    let me = k.pid_vnr(main, main).unwrap();
    let outer = k.pidfd_open(main, me, 0).unwrap();
    let c = k.fork(main).unwrap();
    k.unshare(c, CLONE_NEWPID).unwrap();
    let inside = k.fork(c).unwrap();
    let ns = k.task_pid_ns(inside, taskcore::NsKind::Pid).unwrap();
    let host = k.pid_vnr(c, inside).unwrap();
    let lines = |key: &str| -> (String, String) {
        let mut it = OUT
            .lines()
            .filter_map(|l| l.strip_prefix(key)?.strip_prefix(' '));
        (it.next().unwrap().into(), it.next().unwrap().into())
    };
    let show = |i: taskcore::PidFdInfo, nr: i32, name: &str| {
        let s = |v: i32| {
            if v == nr {
                name.to_string()
            } else {
                v.to_string()
            }
        };
        let nspid: Vec<String> = i.nspid.iter().map(|&v| s(v)).collect();
        (
            format!("Pid: {}", s(i.pid)),
            format!("NSpid: {}", nspid.join(" ")),
        )
    };
    let cfd = k.pidfd_open(c, host, 0).unwrap();
    let root = k.root_ns();
    assert_eq!(
        show(k.pidfd_fdinfo(cfd, root).unwrap(), host, "HOSTPID"),
        lines("ns_fdinfo_from_parent")
    );
    check(
        "ns_send_to_outer",
        k.pidfd_send_signal(inside, outer, 0, None, 0),
    );
    let selffd = k.pidfd_open(inside, 1, 0).unwrap();
    assert_eq!(
        show(k.pidfd_fdinfo(selffd, ns).unwrap(), -12345, ""),
        lines("ns_fdinfo_self_inside")
    );
    assert_eq!(
        show(k.pidfd_fdinfo(outer, ns).unwrap(), -12345, ""),
        lines("ns_fdinfo_outer_inside")
    );
    let g = k.fork(inside).unwrap();
    let gnr = k.pid_vnr(inside, g).unwrap();
    let gfd = k.pidfd_open(inside, gnr, 0).unwrap();
    assert_eq!(
        show(k.pidfd_fdinfo(gfd, ns).unwrap(), gnr, "NSCHILD"),
        lines("ns_fdinfo_child_inside")
    );
    k.check_invariants();
}
