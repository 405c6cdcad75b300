//! The signal path: masks, pending sets and queues, sending, delivery
//! through `get_signal`, and the calls that wait for signals.

use taskcore::uapi::*;
use taskcore::{
    Config, Errno, Kernel, Notification, SigAction, SigHandler, SigInfo, SigWait, SignalAction,
    SignalDelivery, TaskId,
};

fn bit(sig: i32) -> u64 {
    1 << (sig - 1)
}

fn kernel() -> (Kernel, TaskId) {
    let k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    (k, init)
}

fn handler(k: &mut Kernel, t: TaskId, sig: i32, flags: u64, mask: u64) {
    let a = SigAction {
        mask,
        addr: 0x4000 + sig as u64,
        ..SigAction::new(SigHandler::Handler, flags)
    };
    k.rt_sigaction(t, sig, Some(a)).unwrap();
}

fn queue_info(value: u64, sender_pid: i32) -> SigInfo {
    SigInfo {
        code: SI_QUEUE,
        pid: sender_pid,
        value,
        ..SigInfo::default()
    }
}

fn status_line(k: &Kernel, viewer: TaskId, t: TaskId, key: &str) -> String {
    let pid = k.pid_vnr(viewer, t).unwrap();
    let clock = taskcore::procfs::ProcClock {
        now_ns: 0,
        boot_ns: 0,
        boot_wall_s: 0,
    };
    let fs = taskcore::procfs::ProcFs::new(k, k.root_ns(), clock).unwrap();
    let node = fs.resolve(format!("{pid}/status").as_bytes()).unwrap();
    let body = fs.read(node).unwrap();
    String::from_utf8(body)
        .unwrap()
        .lines()
        .find(|l| l.starts_with(key))
        .unwrap()
        .to_string()
}

#[test]
fn sigprocmask_how_and_unblockable_signals() {
    let (mut k, init) = kernel();
    let t = k.fork(init).unwrap();
    assert_eq!(
        k.rt_sigprocmask(t, SIG_BLOCK, Some(bit(SIGUSR1) | bit(SIGKILL))),
        Ok(0)
    );
    assert_eq!(k.rt_sigprocmask(t, SIG_BLOCK, None), Ok(bit(SIGUSR1)));
    assert_eq!(
        k.rt_sigprocmask(t, SIG_SETMASK, Some(u64::MAX)),
        Ok(bit(SIGUSR1))
    );
    let all = !(bit(SIGKILL) | bit(SIGSTOP));
    assert_eq!(k.sigmask(t), Ok(all));
    assert_eq!(
        k.rt_sigprocmask(t, SIG_UNBLOCK, Some(bit(SIGUSR2))),
        Ok(all)
    );
    assert_eq!(k.sigmask(t), Ok(all & !bit(SIGUSR2)));
    // A bad `how` is EINVAL with a set, and changes nothing.
    assert_eq!(k.rt_sigprocmask(t, 7, Some(0)), Err(Errno::EINVAL));
    assert_eq!(k.rt_sigprocmask(t, 7, None), Ok(all & !bit(SIGUSR2)));
}

#[test]
fn a_blocked_signal_stays_pending_until_unblocked() {
    let (mut k, init) = kernel();
    let t = k.fork(init).unwrap();
    let pid = k.pid_vnr(init, t).unwrap();
    k.rt_sigprocmask(t, SIG_BLOCK, Some(bit(SIGTERM))).unwrap();
    k.kill(init, pid, SIGTERM).unwrap();
    assert_eq!(k.rt_sigpending(t), Ok(bit(SIGTERM)));
    assert_eq!(
        status_line(&k, init, t, "ShdPnd:"),
        "ShdPnd:\t0000000000004000"
    );
    assert_eq!(
        status_line(&k, init, t, "SigBlk:"),
        "SigBlk:\t0000000000004000"
    );
    k.take_notifications();
    // Unblocking it: the default action kills the process now.
    k.rt_sigprocmask(t, SIG_UNBLOCK, Some(bit(SIGTERM)))
        .unwrap();
    assert!(k.take_notifications().contains(&Notification::Exited {
        task: t,
        exit_code: SIGTERM
    }));
}

#[test]
fn a_blocked_ignored_signal_is_queued_and_an_unblocked_one_is_not() {
    let (mut k, init) = kernel();
    let t = k.fork(init).unwrap();
    let pid = k.pid_vnr(init, t).unwrap();
    k.kill(init, pid, SIGCHLD).unwrap();
    assert_eq!(k.rt_sigprocmask(t, SIG_BLOCK, Some(bit(SIGCHLD))), Ok(0));
    assert_eq!(k.rt_sigpending(t), Ok(0));
    k.kill(init, pid, SIGCHLD).unwrap();
    assert_eq!(k.rt_sigpending(t), Ok(bit(SIGCHLD)));
    // Setting SIG_IGN discards it from the pending sets.
    k.rt_sigaction(t, SIGCHLD, Some(SigAction::new(SigHandler::Ignore, 0)))
        .unwrap();
    assert_eq!(k.rt_sigpending(t), Ok(0));
}

#[test]
fn a_childs_sigchld_is_discarded_when_ignored_and_kept_when_blocked_or_handled() {
    let (mut k, init) = kernel();
    let p = k.fork(init).unwrap();
    // Default action (ignore), unblocked: discarded, nothing pending even
    // once blocked afterwards; the notification and the zombie stay.
    let c = k.fork(p).unwrap();
    k.take_notifications();
    k.exit_group(c, 3).unwrap();
    assert!(k
        .take_notifications()
        .iter()
        .any(|n| matches!(n, Notification::Signal { sig: SIGCHLD, .. })));
    k.rt_sigprocmask(p, SIG_BLOCK, Some(bit(SIGCHLD))).unwrap();
    assert_eq!(k.rt_sigpending(p), Ok(0));
    let cpid = k.pid_vnr(p, c).unwrap();
    assert!(matches!(
        k.wait4(p, cpid, 0),
        Ok(taskcore::WaitOutcome::Reported(r)) if r.status == 3 << 8
    ));
    // Blocked: pending.
    let c = k.fork(p).unwrap();
    k.exit_group(c, 0).unwrap();
    assert_eq!(k.rt_sigpending(p), Ok(bit(SIGCHLD)));
    // Unblocked with a handler: delivered, so it was queued.
    let p2 = k.fork(init).unwrap();
    handler(&mut k, p2, SIGCHLD, 0, 0);
    let c = k.fork(p2).unwrap();
    k.exit_group(c, 0).unwrap();
    k.rt_sigprocmask(p2, SIG_BLOCK, Some(bit(SIGCHLD))).unwrap();
    let got = k.rt_sigpending(p2).unwrap() != 0
        || k.take_notifications()
            .iter()
            .any(|n| matches!(n, Notification::Handler { sig: SIGCHLD, .. }));
    assert!(got, "a handled SIGCHLD is neither pending nor delivered");
}

#[test]
fn standard_signals_coalesce_and_realtime_ones_queue_in_order() {
    let (mut k, init) = kernel();
    let t = k.fork(init).unwrap();
    let pid = k.pid_vnr(init, t).unwrap();
    let rt = SIGRTMIN + 2;
    k.rt_sigprocmask(t, SIG_BLOCK, Some(bit(SIGUSR1) | bit(rt)))
        .unwrap();
    k.rt_sigqueueinfo(t, pid, SIGUSR1, queue_info(1, pid))
        .unwrap();
    k.rt_sigqueueinfo(t, pid, SIGUSR1, queue_info(2, pid))
        .unwrap();
    for v in [10, 11, 12] {
        k.rt_sigqueueinfo(t, pid, rt, queue_info(v, pid)).unwrap();
    }
    let mut got = Vec::new();
    while let Ok(SigWait::Signal(i)) = k.rt_sigtimedwait(t, bit(SIGUSR1) | bit(rt), true) {
        got.push((i.signo, i.code, i.value));
    }
    assert_eq!(
        got,
        [
            (SIGUSR1, SI_QUEUE, 1),
            (rt, SI_QUEUE, 10),
            (rt, SI_QUEUE, 11),
            (rt, SI_QUEUE, 12)
        ]
    );
    assert_eq!(k.rt_sigtimedwait(t, bit(rt), true), Err(Errno::EAGAIN));
}

#[test]
fn sigqueueinfo_may_not_pretend_to_be_kill_or_the_kernel() {
    let (mut k, init) = kernel();
    let t = k.fork(init).unwrap();
    let pid = k.pid_vnr(init, t).unwrap();
    let user = SigInfo {
        code: SI_USER,
        ..SigInfo::default()
    };
    assert_eq!(
        k.rt_sigqueueinfo(init, pid, SIGUSR1, user),
        Err(Errno::EPERM)
    );
    let tkill = SigInfo {
        code: SI_TKILL,
        ..SigInfo::default()
    };
    assert_eq!(
        k.rt_tgsigqueueinfo(init, pid, pid, SIGUSR1, tkill),
        Err(Errno::EPERM)
    );
    // To itself, any code is accepted.
    k.rt_sigprocmask(t, SIG_BLOCK, Some(bit(SIGUSR1))).unwrap();
    assert_eq!(k.rt_sigqueueinfo(t, pid, SIGUSR1, user), Ok(()));
    assert_eq!(
        k.rt_tgsigqueueinfo(init, 0, pid, 1, queue_info(0, 1)),
        Err(Errno::EINVAL)
    );
    assert_eq!(
        k.rt_sigqueueinfo(init, 9999, 1, queue_info(0, 1)),
        Err(Errno::ESRCH)
    );
    assert_eq!(
        k.rt_sigqueueinfo(init, pid, 65, queue_info(0, 1)),
        Err(Errno::EINVAL)
    );
}

#[test]
fn rlimit_sigpending_refuses_sigqueue_but_not_kill() {
    let (mut k, init) = kernel();
    let t = k.fork(init).unwrap();
    let pid = k.pid_vnr(init, t).unwrap();
    let (rt, rt2) = (SIGRTMIN + 1, SIGRTMIN + 2);
    k.rt_sigprocmask(t, SIG_BLOCK, Some(bit(rt) | bit(rt2) | bit(SIGUSR2)))
        .unwrap();
    let lim = taskcore::Rlimit { cur: 2, max: 2 };
    k.prlimit64(init, pid, RLIMIT_SIGPENDING, Some(lim))
        .unwrap();
    k.rt_sigqueueinfo(init, pid, rt, queue_info(1, 1)).unwrap();
    k.rt_sigqueueinfo(init, pid, rt, queue_info(2, 1)).unwrap();
    assert_eq!(
        k.rt_sigqueueinfo(init, pid, rt, queue_info(3, 1)),
        Err(Errno::EAGAIN)
    );
    assert_eq!(status_line(&k, init, t, "SigQ:"), "SigQ:\t2/2");
    // kill() of a real-time signal still makes it pending, without its
    // siginfo; a standard signal may go over the limit.
    k.kill(init, pid, rt2).unwrap();
    k.kill(init, pid, SIGUSR2).unwrap();
    assert_eq!(status_line(&k, init, t, "SigQ:"), "SigQ:\t3/2");
    let mut got = Vec::new();
    let set = bit(rt) | bit(rt2) | bit(SIGUSR2);
    while let Ok(SigWait::Signal(i)) = k.rt_sigtimedwait(t, set, true) {
        got.push((i.signo, i.code, i.pid, i.value));
    }
    assert_eq!(
        got,
        [
            (SIGUSR2, SI_USER, 1, 0),
            (rt, SI_QUEUE, 1, 1),
            (rt, SI_QUEUE, 1, 2),
            // collect_signal(): no entry, an empty SI_USER siginfo.
            (rt2, SI_USER, 0, 0),
        ]
    );
    assert_eq!(status_line(&k, init, t, "SigQ:"), "SigQ:\t0/2");
}

#[test]
fn fork_inherits_the_mask_but_no_pending_signal_and_exec_keeps_both() {
    let (mut k, init) = kernel();
    let t = k.fork(init).unwrap();
    let pid = k.pid_vnr(init, t).unwrap();
    k.rt_sigprocmask(t, SIG_BLOCK, Some(bit(SIGUSR1))).unwrap();
    k.kill(init, pid, SIGUSR1).unwrap();
    let c = k.fork(t).unwrap();
    assert_eq!(k.sigmask(c), Ok(bit(SIGUSR1)));
    assert_eq!(k.rt_sigpending(c), Ok(0));
    let th = k.clone(t, &taskcore::CloneArgs::thread()).unwrap();
    assert_eq!(k.sigmask(th), Ok(bit(SIGUSR1)));
    k.execve(t, "/bin/true").unwrap();
    assert_eq!(k.sigmask(t), Ok(bit(SIGUSR1)));
    assert_eq!(k.rt_sigpending(t), Ok(bit(SIGUSR1)));
}

#[test]
fn stop_signals_and_sigcont_flush_each_other() {
    let (mut k, init) = kernel();
    let t = k.fork(init).unwrap();
    let pid = k.pid_vnr(init, t).unwrap();
    k.rt_sigprocmask(
        t,
        SIG_BLOCK,
        Some(bit(SIGCONT) | bit(SIGTSTP) | bit(SIGTTIN)),
    )
    .unwrap();
    k.kill(init, pid, SIGCONT).unwrap();
    assert_eq!(k.rt_sigpending(t), Ok(bit(SIGCONT)));
    k.kill(init, pid, SIGTSTP).unwrap();
    k.kill(init, pid, SIGTTIN).unwrap();
    assert_eq!(k.rt_sigpending(t), Ok(bit(SIGTSTP) | bit(SIGTTIN)));
    k.kill(init, pid, SIGCONT).unwrap();
    assert_eq!(k.rt_sigpending(t), Ok(bit(SIGCONT)));
}

#[test]
fn get_signal_runs_handlers_with_their_mask_and_sigreturn_restores_it() {
    let (mut k, init) = kernel();
    k.set_signal_delivery(SignalDelivery::OnGetSignal);
    let t = k.fork(init).unwrap();
    let pid = k.pid_vnr(init, t).unwrap();
    handler(&mut k, t, SIGUSR1, SA_SIGINFO | SA_RESTART, bit(SIGUSR2));
    handler(&mut k, t, SIGUSR2, SA_NODEFER | SA_RESETHAND, 0);
    k.take_notifications();
    k.kill(init, pid, SIGUSR1).unwrap();
    assert_eq!(
        k.take_notifications(),
        [Notification::SigPending { task: t }]
    );
    let SignalAction::Handler {
        sig,
        info,
        action,
        old_mask,
    } = k.get_signal(t).unwrap()
    else {
        panic!("no handler")
    };
    assert_eq!(
        (sig, info.code, info.pid, old_mask),
        (SIGUSR1, SI_USER, 1, 0)
    );
    assert_eq!(
        (action.addr, action.flags),
        (0x4000 + 10, SA_SIGINFO | SA_RESTART)
    );
    assert_eq!(k.sigmask(t), Ok(bit(SIGUSR1) | bit(SIGUSR2)));
    // SIGUSR2 is blocked by the running handler's sa_mask.
    k.kill(init, pid, SIGUSR2).unwrap();
    assert_eq!(k.get_signal(t), Ok(SignalAction::None));
    k.take_notifications();
    k.rt_sigreturn(t, old_mask).unwrap();
    assert_eq!(
        k.take_notifications(),
        [Notification::SigPending { task: t }]
    );
    let SignalAction::Handler { sig, action, .. } = k.get_signal(t).unwrap() else {
        panic!("no handler")
    };
    // SA_NODEFER: not blocked in its own handler; SA_RESETHAND: reset now.
    assert_eq!((sig, k.sigmask(t)), (SIGUSR2, Ok(0)));
    assert_eq!(action.flags, SA_NODEFER | SA_RESETHAND);
    let now = k.rt_sigaction(t, SIGUSR2, None).unwrap();
    assert_eq!(
        (now.handler, now.flags),
        (SigHandler::Default, SA_NODEFER | SA_RESETHAND)
    );
}

#[test]
fn immediate_delivery_reports_handlers_and_keeps_the_mask() {
    let (mut k, init) = kernel();
    let t = k.fork(init).unwrap();
    let pid = k.pid_vnr(init, t).unwrap();
    handler(&mut k, t, SIGUSR1, 0, bit(SIGUSR2));
    k.take_notifications();
    k.kill(init, pid, SIGUSR1).unwrap();
    let notes = k.take_notifications();
    assert!(matches!(
        notes.as_slice(),
        [Notification::Handler { task, sig: SIGUSR1, .. }] if *task == t
    ));
    assert_eq!(k.sigmask(t), Ok(0));
}

#[test]
fn sigsuspend_takes_the_signal_with_the_temporary_mask_then_restores() {
    let (mut k, init) = kernel();
    k.set_signal_delivery(SignalDelivery::OnGetSignal);
    let t = k.fork(init).unwrap();
    let pid = k.pid_vnr(init, t).unwrap();
    handler(&mut k, t, SIGUSR1, 0, 0);
    k.rt_sigprocmask(t, SIG_BLOCK, Some(bit(SIGUSR1))).unwrap();
    assert_eq!(k.rt_sigsuspend(t, 0), Ok(SigWait::WouldBlock));
    assert_eq!(k.sigmask(t), Ok(0));
    k.take_notifications();
    k.kill(init, pid, SIGUSR1).unwrap();
    assert_eq!(
        k.take_notifications(),
        [Notification::SigPending { task: t }]
    );
    assert_eq!(k.rt_sigsuspend(t, 0), Err(Errno::EINTR));
    let SignalAction::Handler { old_mask, .. } = k.get_signal(t).unwrap() else {
        panic!("no handler")
    };
    // The frame saves the mask from before sigsuspend.
    assert_eq!(old_mask, bit(SIGUSR1));
    k.rt_sigreturn(t, old_mask).unwrap();
    assert_eq!(k.sigmask(t), Ok(bit(SIGUSR1)));
}

#[test]
fn sigtimedwait_sleeps_then_takes_the_signal() {
    let (mut k, init) = kernel();
    let t = k.fork(init).unwrap();
    let pid = k.pid_vnr(init, t).unwrap();
    k.rt_sigprocmask(t, SIG_BLOCK, Some(bit(SIGUSR1))).unwrap();
    assert_eq!(
        k.rt_sigtimedwait(t, bit(SIGUSR1), false),
        Ok(SigWait::WouldBlock)
    );
    k.take_notifications();
    k.kill(init, pid, SIGUSR1).unwrap();
    // It is not delivered (the default action would kill): the sleeper is
    // woken to take it.
    assert_eq!(
        k.take_notifications(),
        [Notification::SigPending { task: t }]
    );
    let Ok(SigWait::Signal(i)) = k.rt_sigtimedwait(t, bit(SIGUSR1), false) else {
        panic!("no signal")
    };
    assert_eq!((i.signo, i.code, i.pid), (SIGUSR1, SI_USER, 1));
    assert_eq!(k.sigmask(t), Ok(bit(SIGUSR1)));
    // A timeout that expires: EAGAIN, and the mask is back.
    assert_eq!(
        k.rt_sigtimedwait(t, bit(SIGUSR2), false),
        Ok(SigWait::WouldBlock)
    );
    assert_eq!(k.rt_sigtimedwait(t, bit(SIGUSR2), true), Err(Errno::EAGAIN));
    assert_eq!(k.sigmask(t), Ok(bit(SIGUSR1)));
}

#[test]
fn a_signal_sent_to_a_stopped_tracee_stays_pending() {
    let (mut k, init) = kernel();
    let t = k.fork(init).unwrap();
    let pid = k.pid_vnr(init, t).unwrap();
    k.ptrace_attach(init, pid, false).unwrap();
    // In its attach stop: SIGUSR1 waits.
    k.kill(init, pid, SIGUSR1).unwrap();
    assert_eq!(
        status_line(&k, init, t, "ShdPnd:"),
        "ShdPnd:\t0000000000000200"
    );
    k.take_notifications();
    // Resumed, it dequeues SIGUSR1 and stops again to report it.
    k.ptrace_cont(init, pid, 0).unwrap();
    let r = k.wait4(init, pid, __WALL | WNOHANG).unwrap();
    let taskcore::WaitOutcome::Reported(r) = r else {
        panic!("{r:?}")
    };
    assert_eq!(r.status, SIGUSR1 << 8 | 0x7f);
}

#[test]
fn process_signals_go_to_a_thread_that_does_not_block_them() {
    let (mut k, init) = kernel();
    k.set_signal_delivery(SignalDelivery::OnGetSignal);
    let t = k.fork(init).unwrap();
    let pid = k.pid_vnr(init, t).unwrap();
    let th = k.clone(t, &taskcore::CloneArgs::thread()).unwrap();
    handler(&mut k, t, SIGUSR1, 0, 0);
    k.rt_sigprocmask(t, SIG_BLOCK, Some(bit(SIGUSR1))).unwrap();
    k.take_notifications();
    k.kill(init, pid, SIGUSR1).unwrap();
    assert_eq!(
        k.take_notifications(),
        [Notification::SigPending { task: th }]
    );
    assert!(matches!(
        k.get_signal(th),
        Ok(SignalAction::Handler { sig: SIGUSR1, .. })
    ));
    assert_eq!(k.get_signal(t), Ok(SignalAction::None));
}
