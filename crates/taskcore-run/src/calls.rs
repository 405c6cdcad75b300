//! The system calls the supervisor traps, and how each one's pid
//! arguments are translated.
//!
//! Every call in [`TRAPPED`] stops at a seccomp stop
//! (`SECCOMP_RET_TRACE`); everything else runs natively. A call is trapped
//! for one of three reasons: it carries a pid the program sees (an
//! argument, the return value, or memory the kernel writes), the core must
//! follow it (clone, exec, exit, signal state, credentials, limits), or it
//! names a process by a pid the supervisor does not translate
//! ([`Translate::Refuse`]: refused with `ENOSYS` and one warning, never
//! passed through with a pid from the wrong namespace).
//!
//! `execve` and `execveat` are not trapped: the core follows each one at
//! its `PTRACE_EVENT_EXEC` stop, from the new image ([`EXECS`]); a
//! failed one (a `PATH` search) runs at native speed.

use libc::c_long;

/// How one pid argument is translated from the program's (virtual) numbers
/// to the real kernel's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    /// A process or thread id; 0 (the caller) and negative values are
    /// passed unchanged (getpgid, getsid, setpgid's pid, prlimit64,
    /// sched_*, process_vm_*, kcmp, pidfd_open, tgkill, tkill).
    Pid,
    /// kill(2)'s target: `> 0` a process, `0` the caller's group, `-1`
    /// every process, `< -1` the group `-pid`.
    KillTarget,
    /// A process group id; 0 means "the same as the pid" (setpgid).
    Pgid,
    /// wait4(2)'s selector: `> 0` a child, `0` the caller's group, `-1`
    /// any child, `< -1` the group `-pid`.
    WaitSelector,
    /// waitid(2)'s id, read with its idtype (argument 0): `P_PID` a pid,
    /// `P_PGID` a group (0: the caller's), others unchanged.
    WaitidId,
    /// getpriority/setpriority's `who`, read with `which` (argument 0):
    /// `PRIO_PROCESS` a pid, `PRIO_PGRP` a group, `PRIO_USER` a uid.
    PrioWho,
    /// ioprio_get/ioprio_set's `who`, read with `which` (argument 0):
    /// `IOPRIO_WHO_PROCESS` a pid, `IOPRIO_WHO_PGRP` a group.
    IoprioWho,
}

/// What the supervisor does with a trapped call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Translate {
    /// The pid arguments at these positions are translated.
    Args(&'static [(usize, Arg)]),
    /// No pid argument (the call is trapped for its result or its effect).
    None,
    /// A pid-bearing call whose pid the supervisor cannot translate in
    /// general: `ENOSYS` unless every pid argument at these positions is 0
    /// (the caller itself), with one warning per call name.
    Refuse(&'static [usize]),
    /// ptrace(2): `EPERM`, as for any program run under strace (a task has
    /// one tracer).
    Eperm,
}

/// One trapped call.
#[derive(Clone, Copy, Debug)]
pub struct Trapped {
    /// The x86_64 number.
    pub nr: c_long,
    /// Its name, as strace prints it.
    pub name: &'static str,
    /// How its pid arguments are translated.
    pub translate: Translate,
}

const fn t(nr: c_long, name: &'static str, translate: Translate) -> Trapped {
    Trapped {
        nr,
        name,
        translate,
    }
}

use Arg::*;
use Translate::{Args, Eperm, Refuse};

/// Every trapped call, in syscall-number order of their families.
pub const TRAPPED: &[Trapped] = &[
    // The lifecycle: the core follows each one.
    t(libc::SYS_clone, "clone", Translate::None),
    t(libc::SYS_clone3, "clone3", Translate::None),
    t(libc::SYS_fork, "fork", Translate::None),
    t(libc::SYS_vfork, "vfork", Translate::None),
    t(libc::SYS_exit, "exit", Translate::None),
    t(libc::SYS_exit_group, "exit_group", Translate::None),
    t(libc::SYS_wait4, "wait4", Args(&[(0, WaitSelector)])),
    t(libc::SYS_waitid, "waitid", Args(&[(1, WaitidId)])),
    // Ids the program reads.
    t(libc::SYS_getpid, "getpid", Translate::None),
    t(libc::SYS_gettid, "gettid", Translate::None),
    t(libc::SYS_getppid, "getppid", Translate::None),
    t(libc::SYS_getpgrp, "getpgrp", Translate::None),
    t(libc::SYS_getpgid, "getpgid", Args(&[(0, Pid)])),
    t(libc::SYS_getsid, "getsid", Args(&[(0, Pid)])),
    t(libc::SYS_setpgid, "setpgid", Args(&[(0, Pid), (1, Pgid)])),
    t(libc::SYS_setsid, "setsid", Translate::None),
    t(
        libc::SYS_set_tid_address,
        "set_tid_address",
        Translate::None,
    ),
    // Signals.
    t(libc::SYS_kill, "kill", Args(&[(0, KillTarget)])),
    t(libc::SYS_tgkill, "tgkill", Args(&[(0, Pid), (1, Pid)])),
    t(libc::SYS_tkill, "tkill", Args(&[(0, Pid)])),
    t(
        libc::SYS_rt_sigqueueinfo,
        "rt_sigqueueinfo",
        Args(&[(0, Pid)]),
    ),
    t(
        libc::SYS_rt_tgsigqueueinfo,
        "rt_tgsigqueueinfo",
        Args(&[(0, Pid), (1, Pid)]),
    ),
    t(libc::SYS_rt_sigaction, "rt_sigaction", Translate::None),
    t(libc::SYS_rt_sigprocmask, "rt_sigprocmask", Translate::None),
    t(libc::SYS_rt_sigreturn, "rt_sigreturn", Translate::None),
    t(libc::SYS_rt_sigsuspend, "rt_sigsuspend", Translate::None),
    t(
        libc::SYS_rt_sigtimedwait,
        "rt_sigtimedwait",
        Translate::None,
    ),
    t(libc::SYS_pidfd_open, "pidfd_open", Args(&[(0, Pid)])),
    // Its target is a pidfd (resolved through /proc/TID/fdinfo for the
    // core); the call itself runs unchanged.
    t(
        libc::SYS_pidfd_send_signal,
        "pidfd_send_signal",
        Translate::None,
    ),
    // Process attributes by pid.
    t(libc::SYS_prctl, "prctl", Translate::None),
    t(libc::SYS_prlimit64, "prlimit64", Args(&[(0, Pid)])),
    t(libc::SYS_getpriority, "getpriority", Args(&[(1, PrioWho)])),
    t(libc::SYS_setpriority, "setpriority", Args(&[(1, PrioWho)])),
    t(libc::SYS_ioprio_get, "ioprio_get", Args(&[(1, IoprioWho)])),
    t(libc::SYS_ioprio_set, "ioprio_set", Args(&[(1, IoprioWho)])),
    t(
        libc::SYS_sched_setparam,
        "sched_setparam",
        Args(&[(0, Pid)]),
    ),
    t(
        libc::SYS_sched_getparam,
        "sched_getparam",
        Args(&[(0, Pid)]),
    ),
    t(
        libc::SYS_sched_setscheduler,
        "sched_setscheduler",
        Args(&[(0, Pid)]),
    ),
    t(
        libc::SYS_sched_getscheduler,
        "sched_getscheduler",
        Args(&[(0, Pid)]),
    ),
    t(
        libc::SYS_sched_rr_get_interval,
        "sched_rr_get_interval",
        Args(&[(0, Pid)]),
    ),
    t(
        libc::SYS_sched_setaffinity,
        "sched_setaffinity",
        Args(&[(0, Pid)]),
    ),
    t(
        libc::SYS_sched_getaffinity,
        "sched_getaffinity",
        Args(&[(0, Pid)]),
    ),
    t(libc::SYS_sched_setattr, "sched_setattr", Args(&[(0, Pid)])),
    t(libc::SYS_sched_getattr, "sched_getattr", Args(&[(0, Pid)])),
    t(
        libc::SYS_process_vm_readv,
        "process_vm_readv",
        Args(&[(0, Pid)]),
    ),
    t(
        libc::SYS_process_vm_writev,
        "process_vm_writev",
        Args(&[(0, Pid)]),
    ),
    t(libc::SYS_kcmp, "kcmp", Args(&[(0, Pid), (1, Pid)])),
    // Its target is a pidfd: trapped only to refuse init's
    // ([`acts_on_target`]); the call itself runs unchanged.
    t(libc::SYS_pidfd_getfd, "pidfd_getfd", Translate::None),
    // Credentials and limits: the core follows them.
    t(libc::SYS_setuid, "setuid", Translate::None),
    t(libc::SYS_setgid, "setgid", Translate::None),
    t(libc::SYS_setreuid, "setreuid", Translate::None),
    t(libc::SYS_setregid, "setregid", Translate::None),
    t(libc::SYS_setresuid, "setresuid", Translate::None),
    t(libc::SYS_setresgid, "setresgid", Translate::None),
    t(libc::SYS_setgroups, "setgroups", Translate::None),
    // Capabilities: the core follows capset; both name a process by the
    // pid in their header (renumbered in memory, supervisor/entry.rs).
    t(libc::SYS_capget, "capget", Translate::None),
    t(libc::SYS_capset, "capset", Translate::None),
    t(libc::SYS_setrlimit, "setrlimit", Translate::None),
    // Namespaces: unshare(CLONE_NEWPID) makes the caller's next child the
    // init of a nested namespace, in the core as for real.
    t(libc::SYS_unshare, "unshare", Translate::None),
    // setns(fd, CLONE_NEWPID) likewise, with a namespace file or a pidfd
    // (resolved through /proc/TID/fd for the core, supervisor/entry.rs).
    t(libc::SYS_setns, "setns", Translate::None),
    // Pid-bearing calls not translated: only the caller itself (pid 0).
    t(libc::SYS_get_robust_list, "get_robust_list", Refuse(&[0])),
    t(libc::SYS_migrate_pages, "migrate_pages", Refuse(&[0])),
    t(libc::SYS_move_pages, "move_pages", Refuse(&[0])),
    t(libc::SYS_perf_event_open, "perf_event_open", Refuse(&[1])),
    t(libc::SYS_ptrace, "ptrace", Eperm),
];

/// The exec calls, followed at their exec event (not trapped): x86_64
/// number and name.
pub const EXECS: &[(c_long, &str)] = &[
    (libc::SYS_execve, "execve"),
    (libc::SYS_execveat, "execveat"),
];

/// Waits that take a signal mask for their duration (x86_64 number, name,
/// the argument holding the mask pointer): trapped only when that
/// argument is not NULL. Interrupted, they leave their mask in force until
/// the signal's handler returns, as rt_sigsuspend does
/// (`set_user_sigmask()`, `restore_saved_sigmask_unless()`).
pub const MASKED_WAITS: &[(c_long, &str, usize)] = &[
    (libc::SYS_pselect6, "pselect6", 5),
    (libc::SYS_ppoll, "ppoll", 3),
    (libc::SYS_epoll_pwait, "epoll_pwait", 4),
    (libc::SYS_epoll_pwait2, "epoll_pwait2", 4),
];

/// The entry of `nr` in [`TRAPPED`], if it is trapped.
pub(crate) fn lookup(nr: c_long) -> Option<&'static Trapped> {
    TRAPPED.iter().find(|c| c.nr == nr).or_else(|| {
        MASKED_WAITS
            .iter()
            .position(|w| w.0 == nr)
            .map(|i| &MASKED_TRAPPED[i])
    })
}

/// [`MASKED_WAITS`] as [`Trapped`] entries.
const MASKED_TRAPPED: [Trapped; 4] = [
    t(libc::SYS_pselect6, "pselect6", Translate::None),
    t(libc::SYS_ppoll, "ppoll", Translate::None),
    t(libc::SYS_epoll_pwait, "epoll_pwait", Translate::None),
    t(libc::SYS_epoll_pwait2, "epoll_pwait2", Translate::None),
];

// How the supervisor treats a call's result, by its number.

/// Calls that only read the process table (answered again after a
/// pull of calls in flight).
pub(crate) fn reads_only(nr: i64) -> bool {
    matches!(
        nr,
        libc::SYS_getpgrp | libc::SYS_getpgid | libc::SYS_getsid | libc::SYS_getppid
    )
}

/// Calls that change or reach into the process their pid argument (or
/// pidfd) names, with arguments `args`: limits set, scheduling and
/// priority set, memory read or written, a file descriptor taken. When
/// that process is the namespace's init, the supervisor itself, they get
/// `EPERM` without running (as for a target the caller has no permission
/// over: `check_prlimit_permission()`, `ptrace_may_access()`), so the
/// program cannot change or read the supervisor through them.
pub(crate) fn acts_on_target(nr: i64, args: &[u64; 6]) -> bool {
    match nr {
        // prlimit64 with new limits; reading them is harmless.
        libc::SYS_prlimit64 => args[2] != 0,
        libc::SYS_setpriority
        | libc::SYS_ioprio_set
        | libc::SYS_sched_setparam
        | libc::SYS_sched_setscheduler
        | libc::SYS_sched_setaffinity
        | libc::SYS_sched_setattr
        | libc::SYS_process_vm_readv
        | libc::SYS_process_vm_writev
        | libc::SYS_pidfd_getfd => true,
        _ => false,
    }
}

/// Calls whose return value is a process group or session id (0: its
/// leader has no number in the caller's pid namespace).
pub(crate) fn returns_group(nr: i64) -> bool {
    matches!(nr, libc::SYS_getpgrp | libc::SYS_getpgid | libc::SYS_getsid)
}

/// Calls whose non-negative return value is a pid.
pub(crate) fn returns_pid(nr: i64) -> bool {
    matches!(
        nr,
        libc::SYS_getpid
            | libc::SYS_gettid
            | libc::SYS_getppid
            | libc::SYS_getpgrp
            | libc::SYS_getpgid
            | libc::SYS_getsid
            | libc::SYS_setsid
            | libc::SYS_set_tid_address
            | libc::SYS_wait4
    )
}

/// The kill family: calls that send a signal.
pub(crate) fn sends_signal(nr: i64) -> bool {
    matches!(
        nr,
        libc::SYS_kill
            | libc::SYS_tgkill
            | libc::SYS_tkill
            | libc::SYS_rt_sigqueueinfo
            | libc::SYS_rt_tgsigqueueinfo
            | libc::SYS_pidfd_send_signal
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_unique_and_found() {
        for (i, c) in TRAPPED.iter().enumerate() {
            assert!(
                TRAPPED[..i].iter().all(|d| d.nr != c.nr),
                "{} twice",
                c.name
            );
            assert_eq!(lookup(c.nr).map(|d| d.name), Some(c.name));
        }
        assert!(lookup(libc::SYS_read).is_none());
    }
}
