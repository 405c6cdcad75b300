//! The job-control entry points for an embedder that traces the real
//! threads (`taskcore run`): a namespace whose init is not the global init
//! (`Config::init_is_global`), the job-control head of `get_signal()`
//! alone (`get_signal_jobctl`), and one dequeue per signal-delivery stop
//! (`get_signal_once`).

use taskcore::uapi::*;
use taskcore::{Config, Kernel, SignalAction, SignalDelivery, TaskId, WaitOutcome};

/// Init and a child of init in a process group of its own (as `taskcore
/// run`'s command: init's session, another group).
fn setup(init_is_global: bool) -> (Kernel, TaskId, TaskId) {
    let mut k = Kernel::new(Config {
        init_is_global,
        ..Config::default()
    })
    .unwrap();
    k.set_signal_delivery(SignalDelivery::OnGetSignal);
    let init = k.init_task().unwrap();
    let c = k.fork(init).unwrap();
    k.setpgid(c, 0, 0).unwrap();
    (k, init, c)
}

#[test]
fn a_global_init_parent_orphans_the_group_a_nested_one_does_not() {
    // will_become_orphaned_pgrp() skips a parent that is the global init:
    // SIGTSTP is discarded. Under a namespace init in the same session
    // (Linux: is_global_init() is false) the group is not orphaned.
    for (global, want) in [(true, SignalAction::None), (false, SignalAction::Stopped)] {
        let (mut k, init, c) = setup(global);
        let v = k.getpid(c).unwrap();
        k.kill(init, v, SIGTSTP).unwrap();
        assert_eq!(k.get_signal(c), Ok(want), "init_is_global {global}");
        let r = k.wait4(init, v, WUNTRACED | WNOHANG).unwrap();
        assert_eq!(
            matches!(r, WaitOutcome::Reported(_)),
            !global,
            "init_is_global {global}: {r:?}"
        );
    }
}

#[test]
fn get_signal_once_takes_one_discarded_stop_per_call() {
    // An orphaned group (global init parent): SIGTTIN and SIGTTOU are both
    // discarded, but a traced thread reports each at its own stop.
    let (mut k, init, c) = setup(true);
    let v = k.getpid(c).unwrap();
    k.kill(init, v, SIGTTIN).unwrap();
    k.kill(init, v, SIGTTOU).unwrap();
    let bit = |s: i32| 1u64 << (s - 1);
    assert_eq!(k.get_signal_once(c), Ok(SignalAction::None));
    let (p, sh) = k.pending_signals(c).unwrap();
    assert_eq!((p | sh) & (bit(SIGTTIN) | bit(SIGTTOU)), bit(SIGTTOU));
    assert_eq!(k.get_signal_once(c), Ok(SignalAction::None));
    let (p, sh) = k.pending_signals(c).unwrap();
    assert_eq!(p | sh, 0);
    // get_signal() takes both in one call.
    k.kill(init, v, SIGTTIN).unwrap();
    k.kill(init, v, SIGTTOU).unwrap();
    assert_eq!(k.get_signal(c), Ok(SignalAction::None));
    assert_eq!(k.pending_signals(c).unwrap(), (0, 0));
}

#[test]
fn get_signal_jobctl_joins_a_group_stop_without_dequeuing() {
    let (mut k, init, c) = setup(false);
    let v = k.getpid(c).unwrap();
    let t2 = k.clone(c, &taskcore::CloneArgs::thread()).unwrap();
    // A handled signal waits for the second thread, after the stop.
    k.rt_sigaction(
        c,
        SIGUSR1,
        Some(taskcore::SigAction {
            handler: taskcore::SigHandler::Handler,
            addr: 0x1000,
            ..Default::default()
        }),
    )
    .unwrap();
    k.kill(init, v, SIGSTOP).unwrap();
    assert_eq!(k.get_signal(c), Ok(SignalAction::Stopped));
    // Not stopped until the second thread takes part.
    assert!(matches!(
        k.wait4(init, v, WUNTRACED | WNOHANG),
        Ok(WaitOutcome::NothingYet)
    ));
    let t2v = k.gettid(t2).unwrap();
    k.tgkill(init, v, t2v, SIGUSR1).unwrap();
    assert_eq!(k.get_signal_jobctl(t2), Ok(SignalAction::Stopped));
    assert!(matches!(
        k.wait4(init, v, WUNTRACED | WNOHANG),
        Ok(WaitOutcome::Reported(_))
    ));
    // SIGUSR1 stays pending; SIGCONT: the next thread to run tells init.
    assert_eq!(k.pending_signals(t2).unwrap().0, 1 << (SIGUSR1 - 1));
    k.kill(init, v, SIGCONT).unwrap();
    assert_eq!(k.get_signal_jobctl(t2), Ok(SignalAction::None));
    assert_eq!(k.pending_signals(t2).unwrap().0, 1 << (SIGUSR1 - 1));
    assert!(matches!(
        k.wait4(init, v, WCONTINUED | WNOHANG),
        Ok(WaitOutcome::Reported(_))
    ));
}

#[test]
fn get_signal_once_of_takes_the_named_signal_and_leaves_the_lower_one() {
    // SIGCHLD (17) and SIGSTOP (19) pending: get_signal_once takes SIGCHLD
    // first (lowest number); get_signal_once_of(SIGSTOP) takes SIGSTOP and
    // leaves SIGCHLD pending for the next dequeue.
    let (mut k, init, c) = setup(false);
    let v = k.getpid(c).unwrap();
    k.rt_sigaction(
        c,
        SIGCHLD,
        Some(taskcore::SigAction {
            handler: taskcore::SigHandler::Handler,
            addr: 0x1000,
            ..Default::default()
        }),
    )
    .unwrap();
    let bit = |s: i32| 1u64 << (s - 1);
    k.kill(init, v, SIGCHLD).unwrap();
    k.kill(init, v, SIGSTOP).unwrap();
    assert_eq!(k.get_signal_once_of(c, 0), Err(taskcore::Errno::EINVAL));
    assert_eq!(k.get_signal_once_of(c, 65), Err(taskcore::Errno::EINVAL));
    // Not pending: nothing dequeued, both stay.
    assert_eq!(k.get_signal_once_of(c, SIGUSR1), Ok(SignalAction::None));
    let (p, sh) = k.pending_signals(c).unwrap();
    assert_eq!(p | sh, bit(SIGCHLD) | bit(SIGSTOP));
    assert_eq!(k.get_signal_once_of(c, SIGSTOP), Ok(SignalAction::Stopped));
    let (p, sh) = k.pending_signals(c).unwrap();
    assert_eq!(p | sh, bit(SIGCHLD));
    let r = k.wait4(init, v, WUNTRACED | WNOHANG).unwrap();
    assert!(matches!(r, WaitOutcome::Reported(_)), "{r:?}");
    // The unrestricted dequeue would have taken SIGCHLD.
    let (mut k, init, c) = setup(false);
    let v = k.getpid(c).unwrap();
    k.rt_sigaction(
        c,
        SIGCHLD,
        Some(taskcore::SigAction {
            handler: taskcore::SigHandler::Handler,
            addr: 0x1000,
            ..Default::default()
        }),
    )
    .unwrap();
    k.kill(init, v, SIGCHLD).unwrap();
    k.kill(init, v, SIGSTOP).unwrap();
    assert!(matches!(
        k.get_signal_once(c),
        Ok(SignalAction::Handler { sig: SIGCHLD, .. })
    ));
}
