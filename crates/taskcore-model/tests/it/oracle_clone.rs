//! The reference model's clone(2) and clone3(2) rules and `CLONE_PIDFD`
//! against answers recorded from real Linux (6.18) by
//! tests/oracle/clone_rules.c (every `c3_*` and `cl_*` case, and
//! `clear_sighand_child`: the core's own checks, `common/clone_oracle.rs`,
//! run here on the model) and tests/oracle/pidfd_rules.c (the
//! `clone_pidfd*`, `clone3_pidfd*`, `poll_exited_thread`,
//! `waitid_clone_pidfd*` and `send_info_*` cases). Re-record with
//! tests/oracle/record.sh.

use taskcore::task::pidfd::{PIDFD_NONBLOCK, PIDFD_THREAD, POLLHUP, POLLIN};
use taskcore::uapi::*;
use taskcore_model::{
    Clone3Args, CloneArgs, Config, Errno, Model, SigAction, SigHandler, Tid, WaitOutcome,
};

use crate::common::clone_oracle::c3;

// The recorded clone and clone3 cases, shared with the core.
crate::common::clone_oracle::clone_oracle_tests!(Model);

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
