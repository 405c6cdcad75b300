//! The reference model's clone(2) and clone3(2) rules and `CLONE_PIDFD`
//! against answers recorded from real Linux (6.18) by
//! tests/oracle/clone_rules.c (every `c3_*` and `cl_*` case, and
//! `clear_sighand_child`) and tests/oracle/pidfd_rules.c (the
//! `clone_pidfd*`, `clone3_pidfd*`, `poll_exited_thread` and
//! `waitid_clone_pidfd*` cases). Re-record with tests/oracle/record.sh.

use taskcore::task::pidfd::{PIDFD_NONBLOCK, PIDFD_THREAD, POLLHUP, POLLIN};
use taskcore::uapi::*;
use taskcore_model::{
    Clone3Args, CloneArgs, Config, Errno, Model, SigAction, SigHandler, Tid, WaitOutcome,
};

const CLONE_RULES: &str = include_str!("../../../../tests/oracle/clone_rules.out");
const PIDFD_RULES: &str = include_str!("../../../../tests/oracle/pidfd_rules.out");

/// The answer recorded for `key` in `out`; panics when Linux was not asked.
fn want(out: &'static str, key: &str) -> &'static str {
    out.lines()
        .find_map(|l| l.strip_prefix(key).and_then(|r| r.strip_prefix(' ')))
        .unwrap_or_else(|| panic!("{key} not recorded"))
}

/// `ok` or the errno's name, as the oracle programs print a result.
fn ans<T>(r: &Result<T, Errno>) -> String {
    match r {
        Ok(_) => "ok".into(),
        Err(e) => format!("{e:?}"),
    }
}

/// A model with init and one ordinary process (the recording program).
fn runner() -> (Model, Tid) {
    let mut m = Model::new(Config::default()).unwrap();
    let init = m.init_task().unwrap();
    let p = m.fork(init).unwrap();
    (m, p)
}

/// [`runner`], whose process drops root (`setresuid(1000, 1000, 1000)`)
/// for the `*_unprivileged` cases, as clone_rules.c's child does.
fn runner_for(key: &str) -> (Model, Tid) {
    let (mut m, p) = runner();
    if key.ends_with("_unprivileged") {
        m.setresuid(p, 1000, 1000, 1000).unwrap();
    }
    (m, p)
}

fn c3(flags: u64, exit_signal: u64) -> Clone3Args {
    Clone3Args {
        flags,
        exit_signal,
        ..Clone3Args::default()
    }
}

fn with_tid(set_tid: Option<Vec<i32>>, size: u64) -> Clone3Args {
    Clone3Args {
        set_tid,
        set_tid_size: size,
        ..c3(0, SIGCHLD as u64)
    }
}

#[test]
fn clone3_args_valid_rules() {
    let sig = SIGCHLD as u64;
    let tvm = CLONE_THREAD | CLONE_SIGHAND | CLONE_VM;
    let cases = [
        ("c3_plain", c3(0, sig)),
        ("c3_parent_exitsig", c3(CLONE_PARENT, sig)),
        ("c3_parent_noexitsig", c3(CLONE_PARENT, 0)),
        ("c3_thread_exitsig", c3(tvm, sig)),
        ("c3_exitsig_65", c3(0, 65)),
        ("c3_exitsig_64", c3(0, 64)),
        ("c3_exitsig_high32", c3(0, (1 << 32) | sig)),
        ("c3_exitsig_256", c3(0, 256 | sig)),
        ("c3_settid_size_33", with_tid(Some(vec![0, 0]), 33)),
        ("c3_settid_null_size1", with_tid(None, 1)),
        ("c3_settid_ptr_size0", with_tid(Some(vec![0, 0]), 0)),
        ("c3_settid_size2_level0", with_tid(Some(vec![0, 0]), 2)),
        ("c3_settid_1_taken", with_tid(Some(vec![1]), 1)),
        ("c3_settid_0", with_tid(Some(vec![0]), 1)),
        ("c3_settid_over_pid_max", with_tid(Some(vec![1 << 30]), 1)),
        (
            "c3_sighand_clear_sighand",
            c3(CLONE_SIGHAND | CLONE_VM | CLONE_CLEAR_SIGHAND, sig),
        ),
        ("c3_detached", c3(CLONE_DETACHED, sig)),
        ("c3_csignal_bits", c3(0x11, sig)),
        ("c3_unknown_flag_40", c3(1 << 40, sig)),
        (
            "c3_cgroup_over_intmax",
            Clone3Args {
                cgroup: 1 << 32,
                ..c3(CLONE_INTO_CGROUP, sig)
            },
        ),
        (
            "c3_cgroup_bad_fd",
            Clone3Args {
                cgroup: 999,
                ..c3(CLONE_INTO_CGROUP, sig)
            },
        ),
        (
            "c3_cgroup_bad_fd_settid_taken",
            Clone3Args {
                flags: CLONE_INTO_CGROUP,
                cgroup: 999,
                ..with_tid(Some(vec![1]), 1)
            },
        ),
        (
            "c3_cgroup_bad_fd_thread_nosighand",
            Clone3Args {
                cgroup: 999,
                ..c3(CLONE_INTO_CGROUP | CLONE_THREAD | CLONE_VM, 0)
            },
        ),
        (
            "c3_cgroup_bad_fd_newpid_unprivileged",
            Clone3Args {
                cgroup: 999,
                ..c3(CLONE_INTO_CGROUP | CLONE_NEWPID, sig)
            },
        ),
        (
            "c3_stack0_size",
            Clone3Args {
                stack_size: 4096,
                ..c3(0, sig)
            },
        ),
        ("c3_thread_nosighand", c3(CLONE_THREAD | CLONE_VM, 0)),
        ("c3_sighand_novm", c3(CLONE_SIGHAND, sig)),
        ("c3_thread_newpid", c3(tvm | CLONE_NEWPID, 0)),
        // Asked by a process that dropped root.
        ("c3_newpid_unprivileged", c3(CLONE_NEWPID, sig)),
        (
            "c3_newpid_pidfd_unprivileged",
            c3(CLONE_NEWPID | CLONE_PIDFD, sig),
        ),
        (
            "c3_newpid_newuser_unprivileged",
            c3(CLONE_NEWPID | CLONE_NEWUSER, sig),
        ),
    ];
    for (key, args) in cases {
        let (mut m, p) = runner_for(key);
        let before = m.nr_tasks();
        let r = m.clone3(p, &args);
        assert_eq!(ans(&r), want(CLONE_RULES, key), "{key}");
        // The CLONE_PIDFD entry gives the same answer.
        let (mut m2, p2) = runner_for(key);
        let r2 = m2.clone3_with_pidfd(p2, &args);
        assert_eq!(
            ans(&r2),
            want(CLONE_RULES, key),
            "{key} (clone3_with_pidfd)"
        );
        if r.is_err() {
            assert_eq!(
                m.nr_tasks(),
                before,
                "{key}: a refused clone3 changes nothing"
            );
        }
    }
}

#[test]
fn legacy_clone_rules() {
    let cases = [
        ("cl_plain", SIGCHLD as u64),
        ("cl_parent_exitsig", CLONE_PARENT | SIGCHLD as u64),
        ("cl_exitsig_100", 100),
        ("cl_exitsig_65", 65),
        (
            "cl_pidfd_parent_settid",
            CLONE_PIDFD | CLONE_PARENT_SETTID | SIGCHLD as u64,
        ),
        ("cl_detached", CLONE_DETACHED | SIGCHLD as u64),
        ("cl_thread_nosighand", CLONE_THREAD | CLONE_VM),
        ("cl_sighand_novm", CLONE_SIGHAND | SIGCHLD as u64),
        ("cl_newpid_unprivileged", CLONE_NEWPID | SIGCHLD as u64),
        ("cl_newuts_unprivileged", CLONE_NEWUTS | SIGCHLD as u64),
    ];
    for (key, flags) in cases {
        let args = CloneArgs::from_clone_flags(flags);
        let (mut m, p) = runner_for(key);
        assert_eq!(ans(&m.clone(p, &args)), want(CLONE_RULES, key), "{key}");
        let (mut m, p) = runner_for(key);
        let r = m.clone_with_pidfd(p, &args);
        assert_eq!(ans(&r), want(CLONE_RULES, key), "{key} (clone_with_pidfd)");
    }
}

#[test]
fn clone_clear_sighand() {
    let (mut m, p) = runner();
    let ign = SigAction::new(SigHandler::Ignore, 0);
    let handled = SigAction::new(SigHandler::Handler, 0);
    m.rt_sigaction(p, SIGUSR2, Some(ign)).unwrap();
    m.rt_sigaction(p, SIGUSR1, Some(handled)).unwrap();
    let c = m
        .clone3(p, &c3(CLONE_CLEAR_SIGHAND, SIGCHLD as u64))
        .unwrap();
    let name = |h: SigHandler| match h {
        SigHandler::Default => "dfl",
        SigHandler::Ignore => "ign",
        _ => "handler",
    };
    let usr1 = m.rt_sigaction(c, SIGUSR1, None).unwrap().handler;
    let usr2 = m.rt_sigaction(c, SIGUSR2, None).unwrap().handler;
    assert_eq!(
        format!("usr1={} usr2={}", name(usr1), name(usr2)),
        want(CLONE_RULES, "clear_sighand_child")
    );
}

/// The poll answer as pidfd_rules.c prints it (it polls for POLLIN;
/// POLLHUP is always reported): "<ready count> 0x<revents>".
fn poll_line(bits: u32) -> String {
    let revents = bits & (POLLIN | POLLHUP);
    format!("{} {:#x}", u32::from(revents != 0), revents)
}

#[test]
fn clone_pidfd_rules() {
    let (mut m, main) = runner();
    let legacy = |flags| CloneArgs {
        flags,
        exit_signal: SIGCHLD,
        set_tid: vec![],
    };
    let before = m.nr_tasks();
    let r = m.clone_with_pidfd(main, &legacy(CLONE_PIDFD | CLONE_PARENT_SETTID));
    assert_eq!(ans(&r), want(PIDFD_RULES, "clone_pidfd_parent_settid"));
    let r = m.clone_with_pidfd(main, &legacy(CLONE_PIDFD | CLONE_DETACHED));
    assert_eq!(ans(&r), want(PIDFD_RULES, "clone_pidfd_detached"));
    // The plain entry refuses CLONE_PIDFD|CLONE_DETACHED too (copy_process).
    let r = m.clone(main, &legacy(CLONE_PIDFD | CLONE_DETACHED));
    assert_eq!(ans(&r), want(PIDFD_RULES, "clone_pidfd_detached"));
    assert_eq!(m.nr_tasks(), before, "refused clones change nothing");

    let mut thread = CloneArgs::thread();
    thread.flags |= CLONE_PIDFD;
    let r = m.clone_with_pidfd(main, &thread);
    assert_eq!(ans(&r), want(PIDFD_RULES, "clone_pidfd_thread"));
    let (t, fd) = r.unwrap();
    let fd = fd.expect("CLONE_PIDFD gives a pidfd");
    let is_thread = m.pidfd_flags(fd).unwrap() & PIDFD_THREAD != 0;
    assert_eq!(
        u8::from(is_thread).to_string(),
        want(PIDFD_RULES, "clone_pidfd_thread_fd_is_thread")
    );
    assert_eq!(m.pidfd_poll(fd).unwrap(), 0, "a running thread");
    m.exit(t, 0).unwrap();
    assert_eq!(
        poll_line(m.pidfd_poll(fd).unwrap()),
        want(PIDFD_RULES, "poll_exited_thread")
    );

    let r = m.clone_with_pidfd(main, &legacy(CLONE_PIDFD));
    assert_eq!(ans(&r), want(PIDFD_RULES, "clone_pidfd"));
    let (c, fd) = r.unwrap();
    let fd = fd.expect("CLONE_PIDFD gives a pidfd");
    let fl = m.pidfd_flags(fd).unwrap();
    assert_eq!(
        format!(
            "{} nonblock {}",
            u8::from(fl & PIDFD_THREAD != 0),
            u8::from(fl & PIDFD_NONBLOCK != 0)
        ),
        want(PIDFD_RULES, "clone_pidfd_flags_thread")
    );
    let cnr = m.pid_vnr(main, c).unwrap();
    m.exit_group(c, 3).unwrap();
    let r = m.waitid_pidfd(main, fd, WEXITED);
    assert_eq!(ans(&r), want(PIDFD_RULES, "waitid_clone_pidfd"));
    let Ok(WaitOutcome::Reported(rep)) = r else {
        panic!("a zombie child is reported: {r:?}")
    };
    assert_eq!(
        format!(
            "pid_is_child {} code {} status {}",
            u8::from(rep.info.pid == cnr),
            rep.info.code,
            rep.info.status
        ),
        want(PIDFD_RULES, "waitid_clone_pidfd_info")
    );
    // Without CLONE_PIDFD, no pidfd.
    let (_, none) = m.clone_with_pidfd(main, &legacy(0)).unwrap();
    assert!(none.is_none());
}

#[test]
fn clone3_pidfd_rules() {
    let (mut m, main) = runner();
    let a = c3(CLONE_PIDFD, SIGCHLD as u64);
    let r = m.clone3_with_pidfd(main, &a);
    assert_eq!(ans(&r), want(PIDFD_RULES, "clone3_pidfd"));
    let fd = r.unwrap().1.expect("a pidfd");
    assert_eq!(m.pidfd_flags(fd), Ok(0));
    let a = c3(CLONE_PIDFD | CLONE_PARENT_SETTID, SIGCHLD as u64);
    let r = m.clone3_with_pidfd(main, &a);
    assert_eq!(ans(&r), want(PIDFD_RULES, "clone3_pidfd_parent_settid"));
    let a = Clone3Args {
        stack: 0x1000,
        stack_size: 0x1000,
        ..c3(CLONE_PIDFD | CLONE_THREAD | CLONE_SIGHAND | CLONE_VM, 0)
    };
    let r = m.clone3_with_pidfd(main, &a);
    assert_eq!(ans(&r), want(PIDFD_RULES, "clone3_pidfd_thread"));
    let fd = r.unwrap().1.expect("a pidfd");
    assert_eq!(m.pidfd_flags(fd), Ok(PIDFD_THREAD));
}

#[test]
fn thread_with_new_pid_for_children_is_einval_before_nproc() {
    let (mut m, p) = runner();
    m.unshare(p, CLONE_NEWPID).unwrap();
    m.setresuid(p, 1000, 1000, 1000).unwrap();
    let one = taskcore::Rlimit { cur: 1, max: 1 };
    m.prlimit64(p, 0, RLIMIT_NPROC, Some(one)).unwrap();
    let thread = CloneArgs::from_clone_flags(CLONE_THREAD | CLONE_SIGHAND | CLONE_VM);
    assert_eq!(
        ans(&m.clone(p, &thread)),
        want(CLONE_RULES, "cl_thread_newpid_for_children_over_nproc")
    );
    let fork = CloneArgs::from_clone_flags(SIGCHLD as u64);
    assert_eq!(
        ans(&m.clone(p, &fork)),
        want(CLONE_RULES, "cl_fork_newpid_for_children_over_nproc")
    );
}

/// pidfd_send_signal(2)'s siginfo rules (the `send_info_*` cases of
/// tests/oracle/pidfd_rules.c, in its order; the program ignores SIGUSR1
/// from its start, so its sleeping child does too).
#[test]
fn pidfd_send_signal_siginfo_rules() {
    use taskcore::task::pidfd::{PIDFD_SIGNAL_PROCESS_GROUP, PIDFD_SIGNAL_THREAD};
    let (mut m, main) = runner();
    let ign = SigAction::new(SigHandler::Ignore, 0);
    m.rt_sigaction(main, SIGUSR1, Some(ign)).unwrap();
    let c = m.fork(main).unwrap();
    let cnr = m.pid_vnr(main, c).unwrap();
    let fd = m.pidfd_open(main, cnr, 0).unwrap();
    let info = |signo, code| {
        Some(taskcore::SigInfo {
            signo,
            code,
            ..taskcore::SigInfo::default()
        })
    };
    let send = |m: &mut Model, fd, sig, code, flags, key| {
        let r = m.pidfd_send_signal(main, fd, sig, info(sig, code), flags);
        assert_eq!(ans(&r), want(PIDFD_RULES, key), "{key}");
    };
    let r = m.pidfd_send_signal(main, fd, SIGUSR1, info(SIGUSR2, SI_QUEUE), 0);
    assert_eq!(ans(&r), want(PIDFD_RULES, "send_info_signo_mismatch"));
    send(&mut m, fd, SIGUSR1, SI_USER, 0, "send_info_si_user_other");
    send(&mut m, fd, SIGUSR1, SI_TKILL, 0, "send_info_si_tkill_other");
    send(&mut m, fd, SIGUSR1, SI_QUEUE, 0, "send_info_si_queue_other");
    let key = "send_info_si_queue_other_thread_scope";
    send(&mut m, fd, SIGUSR1, SI_QUEUE, PIDFD_SIGNAL_THREAD, key);
    let own = m.pid_vnr(main, main).unwrap();
    let me = m.pidfd_open(main, own, 0).unwrap();
    send(&mut m, me, SIGUSR1, SI_USER, 0, "send_info_si_user_self");
    let key = "send_info_si_user_self_thread_scope";
    send(&mut m, me, SIGUSR1, SI_USER, PIDFD_SIGNAL_THREAD, key);
    let key = "send_info_si_user_self_pgrp_scope";
    send(
        &mut m,
        me,
        SIGUSR1,
        SI_USER,
        PIDFD_SIGNAL_PROCESS_GROUP,
        key,
    );
}
