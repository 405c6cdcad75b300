//! Scenario tests of the process core against Linux behaviour
//! (wait(2), clone(2), setpgid(2), setsid(2), kill(2), prctl(2)).

use taskcore::{CloneArgs, Config, Kernel, TaskId};

use crate::common::lifecycle_scenarios as scenarios;

scenarios::lifecycle_tests!(Kernel);

/// A fresh kernel and its init.
fn kernel() -> (Kernel, TaskId) {
    let k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    (k, init)
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
fn task_ids_round_trip_through_raw_integers() {
    use taskcore::{Config, Errno, Kernel, TaskId};
    let mut k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    let c = k.fork(init).unwrap();
    let raw = c.into_raw();
    assert_eq!(TaskId::from_raw(raw), c);
    assert_eq!(k.getpid(TaskId::from_raw(raw)), k.getpid(c));
    // Garbage and stale raw values are ESRCH, never a panic.
    assert_eq!(k.getpid(TaskId::from_raw(u64::MAX)), Err(Errno::ESRCH));
    k.exit_group(c, 0).unwrap();
    let pid = k.pid_vnr(init, c).unwrap();
    k.wait4(init, pid, 0).unwrap();
    assert_eq!(k.getpid(TaskId::from_raw(raw)), Err(Errno::ESRCH));
}

#[test]
fn typed_signals_and_options_mean_the_raw_numbers() {
    use taskcore::{Config, Kernel, Signal, WaitOptions, WaitOutcome};
    let mut k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    let a = k.fork(init).unwrap();
    let pid = k.pid_vnr(init, a).unwrap();
    assert_eq!(
        k.wait4(init, -1, WaitOptions::NOHANG),
        Ok(WaitOutcome::NothingYet)
    );
    k.kill(init, pid, Signal::TERM).unwrap();
    match k.wait4(init, pid, WaitOptions::NONE).unwrap() {
        WaitOutcome::Reported(r) => assert_eq!(r.status, 15),
        other => panic!("{other:?}"),
    }
    // The raw numbers still work, and combine the same way.
    let b = k.fork(init).unwrap();
    k.kill(init, k.pid_vnr(init, b).unwrap(), 9).unwrap();
    let o = WaitOptions::EXITED | WaitOptions::NOWAIT;
    assert_eq!(
        i32::from(o),
        taskcore::uapi::WEXITED | taskcore::uapi::WNOWAIT
    );
    assert!(matches!(k.waitid(init, 0, 0, o), Ok(WaitOutcome::Reported(r)) if r.status == 9));
    assert_eq!(i32::from(Signal::rt(1)), 33);
}

/// A vfork parent killed while waiting no longer waits (Linux clears the
/// child's `vfork_done`): once it is reaped and its slot holds another
/// task, the child's exit must not report that task as released from a
/// vfork (nor give a traced one a `PTRACE_EVENT_VFORK_DONE`).
#[test]
fn a_reaped_vfork_parent_is_not_confused_with_the_next_task() {
    use taskcore::uapi::{SIGKILL, WNOHANG};
    use taskcore::Notification;
    let (mut k, init) = kernel();
    let p = k.fork(init).unwrap();
    let child = k.vfork(p).unwrap();
    let pp = k.pid_vnr(init, p).unwrap();
    k.kill(init, pp, SIGKILL).unwrap();
    k.wait4(init, pp, WNOHANG).unwrap();
    let others: Vec<TaskId> = (0..4).map(|_| k.fork(init).unwrap()).collect();
    k.take_notifications();
    k.exit(child, 0).unwrap();
    let stale: Vec<_> = k
        .take_notifications()
        .into_iter()
        .filter(|n| matches!(n, Notification::VforkDone { .. }))
        .collect();
    assert!(stale.is_empty(), "{stale:?} (new tasks {others:?})");
}

/// `pgrp_members` lists a process group's processes (their leaders, not
/// their other threads), follows setpgid and exits, and names a group by
/// the viewer's number; `threads_of` lists a process's threads; a stale
/// handle is ESRCH.
#[test]
fn a_process_groups_members_and_a_processs_threads_are_listed() {
    let (mut k, init) = kernel();
    let p = k.fork(init).unwrap();
    k.setpgid(p, 0, 0).unwrap();
    let a = k.fork(p).unwrap();
    let b = k.fork(p).unwrap();
    let t = k.clone(a, &CloneArgs::thread()).unwrap();
    let other = k.fork(p).unwrap();
    k.setpgid(other, 0, 0).unwrap();
    let pg = k.getpgid(p, 0).unwrap();
    let members =
        |k: &Kernel, g: i32| -> Vec<TaskId> { k.pgrp_members(init, g).unwrap().collect() };
    assert_eq!(members(&k, pg), vec![p, a, b]);
    assert_eq!(members(&k, k.getpid(other).unwrap()), vec![other]);
    // A number that names no group, or no number at all: nothing.
    assert_eq!(members(&k, k.gettid(t).unwrap()), vec![]);
    assert_eq!(members(&k, 0), vec![]);
    assert_eq!(members(&k, -pg), vec![]);
    assert_eq!(k.threads_of(a).unwrap().collect::<Vec<_>>(), vec![a, t]);
    assert_eq!(k.threads_of(t).unwrap().collect::<Vec<_>>(), vec![a, t]);
    assert_eq!(k.threads_of(b).unwrap().collect::<Vec<_>>(), vec![b]);
    // A member that moves out, and one that is reaped, leave the list.
    k.setpgid(b, 0, 0).unwrap();
    assert_eq!(members(&k, pg), vec![p, a]);
    let va = k.getpid(a).unwrap();
    k.exit_group(a, 0).unwrap();
    // A zombie is a member until it is released (detach_pid() at
    // release_task()), as kill(-pgid) reaches it.
    assert_eq!(members(&k, pg), vec![p, a]);
    assert!(matches!(
        k.wait4(p, va, 0),
        Ok(taskcore::WaitOutcome::Reported(_))
    ));
    assert_eq!(members(&k, pg), vec![p]);
    assert_eq!(k.pgrp_members(a, pg).err(), Some(taskcore::Errno::ESRCH));
    assert_eq!(k.threads_of(a).err(), Some(taskcore::Errno::ESRCH));
}
