//! [`dispatch_api`]: a [`Syscall`] applied to any [`TaskApi`]
//! implementation (the [`Kernel`](crate::Kernel) or the reference model),
//! so that one call description drives both.

use super::api::TaskApi;
use super::syscall::{Prctl, Ptrace, Syscall};
use super::sysret::{SysResult, SysRet};
use crate::errno::{Errno, Result};
use crate::task::procapi::pidfd::PidFd;

/// What [`dispatch_api`] returns: a new task or pidfd (whose handle types
/// are the implementation's), or the result [`dispatch`](super::dispatch)
/// gives.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ApiRet<T, F = PidFd> {
    /// clone, clone3, fork, vfork: the child and its pid in the caller's
    /// namespace (the return value).
    Child {
        /// The child's handle.
        task: T,
        /// Its pid as the caller sees it.
        pid: i32,
        /// The pidfd `CLONE_PIDFD` made (clone and clone3 only).
        pidfd: Option<F>,
    },
    /// pidfd_open: the new pidfd.
    PidFd(F),
    /// Any other call: as [`dispatch`](super::dispatch) returns it.
    Ret(SysRet),
}

/// The implementation's own pidfd for each [`PidFd`] a [`Syscall`] names.
/// A [`Syscall`] holds the [`Kernel`](crate::Kernel)'s handles (its
/// decoder resolves fd numbers through [`FdTable`](super::FdTable)); an
/// implementation with handles of its own (the reference model) pairs
/// them with the Kernel's.
///
/// # Linux
/// `fdget()` + `pidfd_pid()`: an fd that is not an open pidfd is `EBADF`.
pub trait PidFdMap<F> {
    /// The implementation's pidfd for `fd`.
    ///
    /// # Errors
    /// `EBADF`: no pidfd of the implementation's is paired with `fd`.
    fn pidfd(&self, fd: PidFd) -> Result<F>;
}

/// The [`Kernel`](crate::Kernel)'s own handles: each [`PidFd`] is itself.
#[derive(Clone, Copy, Debug, Default)]
pub struct KernelPidFds;

impl PidFdMap<PidFd> for KernelPidFds {
    fn pidfd(&self, fd: PidFd) -> Result<PidFd> {
        Ok(fd)
    }
}

/// Applies `call` to `k` on behalf of `current` through the [`TaskApi`]
/// method of the same name, with [`dispatch`](super::dispatch)'s result
/// for the calls that create no task or pidfd. `fds` gives `k`'s pidfd
/// for each [`PidFd`] the call names ([`KernelPidFds`] for a
/// [`Kernel`](crate::Kernel)).
///
/// # Errors
/// - `ENOSYS`: a call outside [`TaskApi`] (getrlimit/setrlimit, memory,
///   setns, capabilities and the capability prctls, signal waits and
///   queues, `PTRACE_GETSIGINFO`, execve
///   with an argv); nothing is changed.
/// - `EBADF`: a pidfd `fds` does not pair (pidfd_send_signal, waitid
///   with `P_PIDFD`); nothing is changed.
/// - Otherwise the errors of the [`TaskApi`] method.
///
/// # Linux
/// As [`dispatch`](super::dispatch).
pub fn dispatch_api<K: TaskApi>(
    k: &mut K,
    current: K::Task,
    call: &Syscall,
    fds: &dyn PidFdMap<K::PidFd>,
) -> Result<ApiRet<K::Task, K::PidFd>> {
    type Made<K> = (<K as TaskApi>::Task, Option<<K as TaskApi>::PidFd>);
    let child = |k: &mut K, t: Result<Made<K>>| -> Result<ApiRet<K::Task, K::PidFd>> {
        let (task, pidfd) = t?;
        let pid = k.pid_vnr(current, task)?;
        Ok(ApiRet::Child { task, pid, pidfd })
    };
    let no_pidfd = |t: Result<K::Task>| t.map(|t| (t, None));
    let unit = |r: Result<()>| r.map(|()| SysRet::Value(0));
    let val = |r: Result<i32>| r.map(|v| SysRet::Value(v.into()));
    let r: SysResult = match call {
        Syscall::Clone(args) => {
            let t = k.clone_with_pidfd(current, args);
            return child(k, t);
        }
        Syscall::Clone3(args) => {
            let t = k.clone3_with_pidfd(current, args);
            return child(k, t);
        }
        Syscall::Fork => {
            let t = no_pidfd(k.fork(current));
            return child(k, t);
        }
        Syscall::Vfork => {
            let t = no_pidfd(k.vfork(current));
            return child(k, t);
        }
        Syscall::PidfdOpen { pid, flags } => {
            return k.pidfd_open(current, *pid, *flags).map(ApiRet::PidFd);
        }
        Syscall::PidfdSendSignal {
            fd,
            sig,
            info,
            flags,
        } => fds
            .pidfd(*fd)
            .and_then(|fd| unit(k.pidfd_send_signal(current, fd, *sig, *info, *flags))),
        Syscall::WaitidPidfd { fd, options } => fds
            .pidfd(*fd)
            .and_then(|fd| k.waitid_pidfd(current, fd, *options).map(SysRet::Waitid)),
        Syscall::Execve {
            filename,
            argv: None,
        } => unit(k.execve(current, filename)),
        Syscall::Exit { code } => unit(k.exit(current, *code)),
        Syscall::ExitGroup { code } => unit(k.exit_group(current, *code)),
        Syscall::Wait4 { pid, options } => k.wait4(current, *pid, *options).map(SysRet::Wait),
        Syscall::Waitid {
            idtype,
            id,
            options,
        } => k
            .waitid(current, *idtype, *id, *options)
            .map(SysRet::Waitid),
        Syscall::Setpgid { pid, pgid } => unit(k.setpgid(current, *pid, *pgid)),
        Syscall::Setsid => val(k.setsid(current)),
        Syscall::Getpgid { pid } => val(k.getpgid(current, *pid)),
        Syscall::Getpgrp => val(k.getpgid(current, 0)),
        Syscall::Getsid { pid } => val(k.getsid(current, *pid)),
        Syscall::Getppid => val(k.getppid(current)),
        Syscall::Getpid => val(k.getpid(current)),
        Syscall::Gettid => val(k.gettid(current)),
        Syscall::Kill { pid, sig } => unit(k.kill(current, *pid, *sig)),
        Syscall::Tgkill { tgid, tid, sig } => unit(k.tgkill(current, *tgid, *tid, *sig)),
        Syscall::Tkill { tid, sig } => unit(k.tkill(current, *tid, *sig)),
        Syscall::RtSigaction { sig, act } => {
            k.rt_sigaction(current, *sig, *act).map(SysRet::SigAction)
        }
        Syscall::Prctl(p) => match p {
            Prctl::SetChildSubreaper(on) => unit(k.set_child_subreaper(current, *on)),
            Prctl::SetPdeathsig(sig) => unit(k.set_pdeathsig(current, *sig)),
            Prctl::GetPdeathsig => k.pdeathsig(current).map(SysRet::Written),
            Prctl::SetName(name) => unit(k.pr_set_name(current, name)),
            Prctl::GetName => k.pr_get_name(current).map(SysRet::Name),
            Prctl::SetDumpable(arg) => unit(k.pr_set_dumpable(current, *arg)),
            Prctl::GetDumpable => k.pr_get_dumpable(current).map(|d| SysRet::Value(d.into())),
            // The capability options are the Kernel's only.
            _ => Err(Errno::ENOSYS),
        },
        Syscall::Setuid { uid } => unit(k.setuid(current, *uid)),
        Syscall::Setgid { gid } => unit(k.setgid(current, *gid)),
        Syscall::Setreuid { ruid, euid } => unit(k.setreuid(current, *ruid, *euid)),
        Syscall::Setregid { rgid, egid } => unit(k.setregid(current, *rgid, *egid)),
        Syscall::Setresuid { ruid, euid, suid } => unit(k.setresuid(current, *ruid, *euid, *suid)),
        Syscall::Setresgid { rgid, egid, sgid } => unit(k.setresgid(current, *rgid, *egid, *sgid)),
        Syscall::Setfsuid { uid } => k
            .setfsuid(current, *uid)
            .map(|old| SysRet::Value(old.into())),
        Syscall::Setfsgid { gid } => k
            .setfsgid(current, *gid)
            .map(|old| SysRet::Value(old.into())),
        Syscall::Setgroups { groups } => unit(k.setgroups(current, groups)),
        Syscall::Unshare { flags } => unit(k.unshare(current, *flags)),
        Syscall::RtSigprocmask { how, set } => {
            k.rt_sigprocmask(current, *how, *set).map(SysRet::Sigset)
        }
        Syscall::RtSigpending => k.rt_sigpending(current).map(SysRet::Sigset),
        Syscall::Prlimit64 { pid, resource, new } => k
            .prlimit64(current, *pid, *resource, *new)
            .map(SysRet::Rlimit),
        Syscall::Ptrace(p) => unit(match *p {
            Ptrace::Traceme => k.ptrace_traceme(current),
            Ptrace::Attach { pid, seize } => k.ptrace_attach(current, pid, seize),
            Ptrace::Cont { pid, sig } => k.ptrace_cont(current, pid, sig),
            Ptrace::Detach { pid, sig } => k.ptrace_detach(current, pid, sig),
            Ptrace::Seize { pid, options } => k.ptrace_seize(current, pid, options),
            Ptrace::Setoptions { pid, options } => k.ptrace_setoptions(current, pid, options),
            Ptrace::Interrupt { pid } => k.ptrace_interrupt(current, pid),
            Ptrace::Listen { pid } => k.ptrace_listen(current, pid),
            Ptrace::Syscall { pid, sig } => k.ptrace_syscall(current, pid, sig),
            Ptrace::Geteventmsg { pid } => {
                return k
                    .ptrace_geteventmsg(current, pid)
                    .map(|m| ApiRet::Ret(SysRet::EventMsg(m)));
            }
            // PTRACE_GETSIGINFO is the Kernel's only (the model keeps no
            // siginfo).
            _ => Err(Errno::ENOSYS),
        }),
        _ => Err(Errno::ENOSYS),
    };
    r.map(ApiRet::Ret)
}
