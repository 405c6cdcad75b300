//! The argument rules of the calls, once: what Linux checks of a call's
//! arguments before it looks at any task, as pure functions of the
//! arguments. The [`Kernel`](crate::Kernel) and the reference model
//! (`taskcore-model`) both call them, so a wrong rule cannot hide by being
//! copied into both (a comparison of the two would not see it; the oracle
//! tests against Linux do).
//!
//! Each function returns the decoded arguments or the errno Linux returns,
//! checked in Linux's order. What depends on the process table (the
//! caller, the target, the namespaces) stays with each implementation.
//!
//! # Linux
//! clone(2), clone3(2) and `copy_process()`'s flag checks: see
//! [`clone_flags`], [`clone3_args`], [`copy_process_flags`].
//! `kernel_wait4()`, `kernel_waitid_prepare()` (kernel/exit.c);
//! `ksys_setpgid()` (kernel/sys.c); `ksys_unshare()` and
//! `check_unshare_flags()` (kernel/fork.c); `sys_pidfd_open()`
//! (kernel/pid.c), `sys_pidfd_send_signal()` (kernel/signal.c);
//! `sigprocmask()`, `prctl()` and `do_prlimit()`: see [`sigprocmask_how`],
//! [`pdeathsig_sig`], [`dumpable_arg`], [`rlimit_args`].

mod clone;
mod procapi;
mod signal;

pub use clone::{clone3_args, clone_flags, clone_pidfd_flags, copy_process_flags, Clone3Args};
pub use procapi::{dumpable_arg, ptrace_options, rlimit_args};
pub use signal::{pdeathsig_sig, sigaction_sig, sigprocmask_how, tgkill_ids, tkill_tid};

use crate::errno::{Errno, Result};
use crate::uapi::{
    __WALL, __WCLONE, __WNOTHREAD, CLONE_FILES, CLONE_FS, CLONE_NEWUSER, CLONE_NEW_ANY,
    CLONE_SIGHAND, CLONE_SYSVSEM, CLONE_THREAD, CLONE_VM, PIDFD_NONBLOCK,
    PIDFD_SIGNAL_PROCESS_GROUP, PIDFD_SIGNAL_THREAD, PIDFD_SIGNAL_THREAD_GROUP, PIDFD_THREAD,
    P_ALL, P_PGID, P_PID, WCONTINUED, WEXITED, WNOHANG, WNOWAIT, WSTOPPED, WUNTRACED,
};

/// Whom a wait waits for, as its arguments say (numbers still to be looked
/// up in the caller's namespace).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitTarget {
    /// Any child (`wait4(-1)`, `P_ALL`).
    All,
    /// The child numbered so (`wait4(pid > 0)`, `P_PID`).
    Pid(i32),
    /// Any child in the process group numbered so (`wait4(pid < -1)`,
    /// `P_PGID` with an id > 0).
    Pgid(i32),
    /// Any child in the caller's process group (`wait4(0)`, `P_PGID` 0).
    CallerPgid,
}

/// `wait4(pid, .., options)`'s options, checked and with the implied
/// `WEXITED` added, and its target.
///
/// # Errors
/// - `EINVAL`: a bit outside `WNOHANG | WUNTRACED | WCONTINUED |
///   __WNOTHREAD | __WCLONE | __WALL`;
/// - `ESRCH`: `pid == i32::MIN` (`-INT_MIN` is not defined).
///
/// # Linux
/// `kernel_wait4()`, before it looks at the caller.
pub fn wait4_args(pid: i32, options: i32) -> Result<(WaitTarget, i32)> {
    if options & !(WNOHANG | WUNTRACED | WCONTINUED | __WNOTHREAD | __WCLONE | __WALL) != 0 {
        return Err(Errno::EINVAL);
    }
    let target = match pid {
        i32::MIN => return Err(Errno::ESRCH),
        -1 => WaitTarget::All,
        p if p < 0 => WaitTarget::Pgid(-p),
        0 => WaitTarget::CallerPgid,
        p => WaitTarget::Pid(p),
    };
    Ok((target, options | WEXITED))
}

/// `waitid`'s options, checked (before the caller is).
///
/// # Errors
/// `EINVAL`: a bit outside `WNOHANG | WNOWAIT | WEXITED | WSTOPPED |
/// WCONTINUED | __WNOTHREAD | __WCLONE | __WALL`, or none of `WEXITED |
/// WSTOPPED | WCONTINUED`.
///
/// # Linux
/// `kernel_waitid_prepare()`'s first checks.
pub fn waitid_options(options: i32) -> Result<i32> {
    let known =
        WNOHANG | WNOWAIT | WEXITED | WSTOPPED | WCONTINUED | __WNOTHREAD | __WCLONE | __WALL;
    if options & !known != 0 || options & (WEXITED | WSTOPPED | WCONTINUED) == 0 {
        return Err(Errno::EINVAL);
    }
    Ok(options)
}

/// `waitid`'s `(idtype, id)` (after the caller is checked). `P_PIDFD` is
/// not decoded here: its id is a file descriptor, which each table
/// resolves itself.
///
/// # Errors
/// `EINVAL`: an idtype other than `P_ALL`, `P_PID`, `P_PGID`; `P_PID` with
/// `id <= 0`; `P_PGID` with `id < 0`.
///
/// # Linux
/// `kernel_waitid_prepare()`'s switch on `which`.
pub fn waitid_target(idtype: i32, id: i32) -> Result<WaitTarget> {
    Ok(match idtype {
        P_ALL => WaitTarget::All,
        P_PID if id > 0 => WaitTarget::Pid(id),
        P_PGID if id == 0 => WaitTarget::CallerPgid,
        P_PGID if id > 0 => WaitTarget::Pgid(id),
        _ => return Err(Errno::EINVAL),
    })
}

/// `setpgid`'s process group: `pgid`, or `pid` (already resolved from 0 to
/// the caller's tgid) for 0.
///
/// # Errors
/// `EINVAL`: a negative result.
///
/// # Linux
/// `ksys_setpgid()`'s first lines.
pub fn setpgid_pgid(pid: i32, pgid: i32) -> Result<i32> {
    let pgid = if pgid == 0 { pid } else { pgid };
    if pgid < 0 {
        return Err(Errno::EINVAL);
    }
    Ok(pgid)
}

/// `unshare(flags)`'s flags, checked and with what they imply added:
/// `CLONE_NEWUSER` implies `CLONE_THREAD | CLONE_FS`, `CLONE_VM` implies
/// `CLONE_SIGHAND`, which implies `CLONE_THREAD`. (With `CLONE_THREAD` the
/// caller must be alone in its group: the caller's table checks that.)
///
/// # Errors
/// `EINVAL`: a bit other than `CLONE_THREAD | CLONE_FS | CLONE_SIGHAND |
/// CLONE_VM | CLONE_FILES | CLONE_SYSVSEM` and the `CLONE_NEW*` bits.
///
/// # Linux
/// `ksys_unshare()` before `check_unshare_flags()`'s group test.
pub fn unshare_flags(flags: u64) -> Result<u64> {
    let allowed = CLONE_THREAD
        | CLONE_FS
        | CLONE_SIGHAND
        | CLONE_VM
        | CLONE_FILES
        | CLONE_SYSVSEM
        | CLONE_NEW_ANY;
    if flags & !allowed != 0 {
        return Err(Errno::EINVAL);
    }
    let mut flags = flags;
    if flags & CLONE_NEWUSER != 0 {
        flags |= CLONE_THREAD | CLONE_FS;
    }
    if flags & CLONE_VM != 0 {
        flags |= CLONE_SIGHAND;
    }
    if flags & CLONE_SIGHAND != 0 {
        flags |= CLONE_THREAD;
    }
    Ok(flags)
}

/// `pidfd_open(pid, flags)`'s arguments.
///
/// # Errors
/// `EINVAL`: a flag other than `PIDFD_NONBLOCK | PIDFD_THREAD`; `pid <= 0`.
///
/// # Linux
/// `sys_pidfd_open()`.
pub fn pidfd_open_args(pid: i32, flags: u32) -> Result<()> {
    if flags & !(PIDFD_NONBLOCK | PIDFD_THREAD) != 0 || pid <= 0 {
        return Err(Errno::EINVAL);
    }
    Ok(())
}

/// `pidfd_send_signal(.., flags)`'s flags: at most one scope.
///
/// # Errors
/// `EINVAL`: a bit other than the three `PIDFD_SIGNAL_*` scopes, or more
/// than one of them.
///
/// # Linux
/// `sys_pidfd_send_signal()`'s first check.
pub fn pidfd_send_signal_flags(flags: u32) -> Result<u32> {
    let scopes = PIDFD_SIGNAL_THREAD | PIDFD_SIGNAL_THREAD_GROUP | PIDFD_SIGNAL_PROCESS_GROUP;
    if flags & !scopes != 0 || flags.count_ones() > 1 {
        return Err(Errno::EINVAL);
    }
    Ok(flags)
}

/// `pidfd_send_signal(fd, sig, info, ..)`'s siginfo, once the target's
/// namespace is checked: a siginfo given must name the signal sent, and
/// only a sender signalling its own thread's pid, at most thread-group
/// wide, may give a code that claims to come from the kernel or from
/// `kill`/`tkill` (`si_code >= 0` or `SI_TKILL`). `to_self`: the pidfd's
/// `struct pid` is the caller thread's own; `pgrp_scope`:
/// `PIDFD_SIGNAL_PROCESS_GROUP`. `None` (a NULL pointer) passes.
///
/// # Errors
/// - `EINVAL`: `info.signo != sig`.
/// - `EPERM`: a code `>= 0` or `SI_TKILL` sent to another pid or to a
///   process group.
///
/// # Linux
/// `sys_pidfd_send_signal()` after `copy_siginfo_from_user_any()`.
pub fn pidfd_send_signal_info(
    info: Option<&crate::types::SigInfo>,
    sig: i32,
    to_self: bool,
    pgrp_scope: bool,
) -> Result<()> {
    let Some(i) = info else {
        return Ok(());
    };
    if i.signo != sig {
        return Err(Errno::EINVAL);
    }
    if (!to_self || pgrp_scope) && (i.code >= 0 || i.code == crate::uapi::SI_TKILL) {
        return Err(Errno::EPERM);
    }
    Ok(())
}

/// setns(2)'s `nstype` for its kind of fd: a namespace file takes 0 or
/// `CLONE_NEWPID` (the only namespace file modelled), a pidfd one or more
/// `CLONE_NEW*` bits.
///
/// # Errors
/// `EINVAL`: for a namespace file, any other value; for a pidfd, 0 or a
/// bit that is not `CLONE_NEW*`.
///
/// # Linux
/// `sys_setns()`: `check_setns_flags()` for a pidfd, the namespace
/// file's type against `nstype` otherwise.
pub fn setns_nstype(by_pidfd: bool, nstype: u64) -> Result<()> {
    let ok = if by_pidfd {
        nstype != 0 && nstype & !CLONE_NEW_ANY == 0
    } else {
        nstype == 0 || nstype == crate::uapi::CLONE_NEWPID
    };
    if ok {
        Ok(())
    } else {
        Err(Errno::EINVAL)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wait4_decodes_pid_and_options_in_linux_order() {
        assert_eq!(wait4_args(-1, 0), Ok((WaitTarget::All, WEXITED)));
        assert_eq!(
            wait4_args(0, WNOHANG),
            Ok((WaitTarget::CallerPgid, WNOHANG | WEXITED))
        );
        assert_eq!(wait4_args(-7, 0).unwrap().0, WaitTarget::Pgid(7));
        assert_eq!(wait4_args(7, __WALL).unwrap().0, WaitTarget::Pid(7));
        // Options are checked before the pid.
        assert_eq!(wait4_args(i32::MIN, WEXITED), Err(Errno::EINVAL));
        assert_eq!(wait4_args(i32::MIN, 0), Err(Errno::ESRCH));
        assert_eq!(wait4_args(1, WNOWAIT), Err(Errno::EINVAL));
    }

    #[test]
    fn waitid_needs_a_state_and_a_known_idtype() {
        assert_eq!(waitid_options(WNOHANG), Err(Errno::EINVAL));
        assert_eq!(waitid_options(WSTOPPED | WNOWAIT), Ok(WSTOPPED | WNOWAIT));
        assert_eq!(waitid_options(WEXITED | 0x100), Err(Errno::EINVAL));
        assert_eq!(waitid_target(P_PID, 0), Err(Errno::EINVAL));
        assert_eq!(waitid_target(P_PGID, 0), Ok(WaitTarget::CallerPgid));
        assert_eq!(waitid_target(P_PGID, -1), Err(Errno::EINVAL));
        assert_eq!(waitid_target(3, 1), Err(Errno::EINVAL));
        assert_eq!(waitid_target(P_ALL, -5), Ok(WaitTarget::All));
    }

    #[test]
    fn setpgid_unshare_and_pidfd_flags() {
        assert_eq!(setpgid_pgid(5, 0), Ok(5));
        assert_eq!(setpgid_pgid(5, -1), Err(Errno::EINVAL));
        assert_eq!(
            unshare_flags(CLONE_VM),
            Ok(CLONE_VM | CLONE_SIGHAND | CLONE_THREAD)
        );
        assert_eq!(
            unshare_flags(CLONE_NEWUSER),
            Ok(CLONE_NEWUSER | CLONE_THREAD | CLONE_FS)
        );
        assert_eq!(unshare_flags(crate::uapi::CLONE_PARENT), Err(Errno::EINVAL));
        assert_eq!(pidfd_open_args(1, PIDFD_THREAD | PIDFD_NONBLOCK), Ok(()));
        assert_eq!(pidfd_open_args(0, 0), Err(Errno::EINVAL));
        assert_eq!(pidfd_open_args(1, 1), Err(Errno::EINVAL));
        assert_eq!(pidfd_send_signal_flags(0), Ok(0));
        assert_eq!(
            pidfd_send_signal_flags(PIDFD_SIGNAL_THREAD | PIDFD_SIGNAL_THREAD_GROUP),
            Err(Errno::EINVAL)
        );
        assert_eq!(pidfd_send_signal_flags(8), Err(Errno::EINVAL));
    }
}
