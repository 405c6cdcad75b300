//! [`dispatch`]: one [`Syscall`] applied to a [`Kernel`].

use super::syscall::{Prctl, Ptrace, Syscall, Timespec};
use crate::errno::Result;
use crate::task::{Kernel, TaskId};
use crate::uapi::TASK_COMM_LEN;
use crate::{PidFd, Rlimit, SigAction, SigWait, WaitOutcome};

/// What a successful call returns: its return value, and what Linux would
/// have written through its output pointers.
///
/// # Linux
/// The return register plus the `copy_to_user()` of each call.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SysRet {
    /// A plain return value (0, a pid, a pgid, an old fs id...).
    Value(i64),
    /// clone, clone3, fork, vfork: the child, and its pid as the caller's
    /// namespace numbers it (the return value).
    Child {
        /// The child's handle.
        task: TaskId,
        /// Its pid in the caller's namespace.
        pid: i32,
        /// With `CLONE_PIDFD`, the pidfd on the child, for the embedder to
        /// number and write where clone(2)'s `parent_tid` or clone3's
        /// `pidfd` points.
        pidfd: Option<PidFd>,
    },
    /// pidfd_open: the new pidfd. The embedder numbers it; that number is
    /// the return value ([`SysRet::raw`] gives 0).
    PidFd(PidFd),
    /// rt_sigprocmask (the old mask, written to `oldset`), rt_sigpending
    /// (the set written); returns 0.
    Sigset(u64),
    /// rt_sigtimedwait (returns the signal taken, its siginfo written),
    /// rt_sigsuspend and pause (which only block: they end with `EINTR`).
    SigWait(SigWait),
    /// An address (mmap, mremap, brk).
    Addr(u64),
    /// wait4: the outcome (the return value, the child's pid or 0, and the
    /// status written).
    Wait(WaitOutcome),
    /// waitid (`P_PIDFD` included): the outcome (the siginfo written;
    /// returns 0).
    Waitid(WaitOutcome),
    /// rt_sigaction: the old action (written to `oact`); returns 0.
    SigAction(SigAction),
    /// getresuid, getresgid: (real, effective, saved); returns 0.
    Ids(u32, u32, u32),
    /// getgroups: the groups written (the return value is their count).
    Groups(Vec<u32>),
    /// getrlimit, prlimit64: the (old) limits written; returns 0.
    Rlimit(Rlimit),
    /// `PR_GET_NAME`: the 16 bytes written; returns 0.
    Name([u8; TASK_COMM_LEN]),
    /// `PR_GET_PDEATHSIG`, `PR_GET_CHILD_SUBREAPER`: the int written;
    /// returns 0.
    Written(i32),
    /// `PTRACE_GETEVENTMSG`: the unsigned long written; returns 0.
    EventMsg(u64),
    /// `PTRACE_GETSIGINFO`: the siginfo written; returns 0.
    SigInfo(crate::task::kernel::SigInfo),
    /// capget with a data pointer: the three sets written (the low 32
    /// bits only for version 1); returns 0.
    Caps(crate::CapUserData),
}

impl SysRet {
    /// The value of the return register (`rax`).
    ///
    /// A wait that reports nothing returns 0 (`WNOHANG`); one that would
    /// block has no return value yet (the embedder blocks the caller): 0
    /// here too.
    ///
    /// # Linux
    /// The syscall's return value on success.
    pub fn raw(&self) -> i64 {
        match self {
            SysRet::Value(v) => *v,
            SysRet::Child { pid, .. } => (*pid).into(),
            SysRet::Addr(a) => *a as i64,
            SysRet::Wait(WaitOutcome::Reported(r)) => r.pid.into(),
            SysRet::Wait(_) | SysRet::Waitid(_) => 0,
            SysRet::SigWait(SigWait::Signal(info)) => info.signo.into(),
            SysRet::Groups(g) => g.len() as i64,
            SysRet::SigAction(_)
            | SysRet::PidFd(_)
            | SysRet::Sigset(_)
            | SysRet::SigWait(_)
            | SysRet::Ids(..)
            | SysRet::Rlimit(_)
            | SysRet::Name(_)
            | SysRet::Written(_)
            | SysRet::EventMsg(_)
            | SysRet::SigInfo(_)
            | SysRet::Caps(_) => 0,
        }
    }
}

/// The result of [`dispatch`]: Linux's errno on failure.
pub type SysResult = Result<SysRet>;

/// Applies `call` to `k` on behalf of `current`, through the [`Kernel`]
/// method of the same name.
///
/// # Errors
/// Those of the [`Kernel`] method the call maps to (see each
/// [`Syscall`] variant); the state is unchanged on error, as there.
///
/// # Linux
/// The syscall table's dispatch (`x64_sys_call()`).
pub fn dispatch(k: &mut Kernel, current: TaskId, call: &Syscall) -> SysResult {
    let child = |k: &mut Kernel, t: Result<(TaskId, Option<PidFd>)>| -> SysResult {
        let (task, pidfd) = t?;
        let pid = k.pid_vnr(current, task)?;
        Ok(SysRet::Child { task, pid, pidfd })
    };
    let no_pidfd = |t: Result<TaskId>| t.map(|t| (t, None));
    let unit = |r: Result<()>| r.map(|()| SysRet::Value(0));
    let value = |r: Result<i32>| r.map(|v| SysRet::Value(v.into()));
    match call {
        Syscall::Clone(args) => {
            let t = k.clone_with_pidfd(current, args);
            child(k, t)
        }
        Syscall::Clone3(args) => {
            let t = k.clone3_with_pidfd(current, args);
            child(k, t)
        }
        Syscall::Fork => {
            let t = no_pidfd(k.fork(current));
            child(k, t)
        }
        Syscall::Vfork => {
            let t = no_pidfd(k.vfork(current));
            child(k, t)
        }
        Syscall::Execve { filename, argv } => unit(match argv {
            None => k.execve(current, filename),
            Some(argv) => {
                let argv: Vec<&[u8]> = argv.iter().map(Vec::as_slice).collect();
                k.execve_argv(current, filename, &argv)
            }
        }),
        // The calls of the lifecycle API: one implementation, shared with
        // the reference model's dispatch.
        Syscall::Exit { .. }
        | Syscall::ExitGroup { .. }
        | Syscall::Wait4 { .. }
        | Syscall::Waitid { .. }
        | Syscall::Setpgid { .. }
        | Syscall::Setsid
        | Syscall::Getpgid { .. }
        | Syscall::Getpgrp
        | Syscall::Getsid { .. }
        | Syscall::Getppid
        | Syscall::Getpid
        | Syscall::Gettid
        | Syscall::Kill { .. }
        | Syscall::Tgkill { .. }
        | Syscall::Tkill { .. }
        | Syscall::RtSigaction { .. } => match super::generic::dispatch_api(k, current, call)? {
            super::generic::ApiRet::Ret(r) => Ok(r),
            // None of these creates a task.
            _ => Err(crate::Errno::ENOSYS),
        },
        Syscall::Prctl(p) => match p {
            Prctl::SetPdeathsig(sig) => unit(k.set_pdeathsig(current, *sig)),
            Prctl::GetPdeathsig => k.pdeathsig(current).map(SysRet::Written),
            Prctl::SetName(name) => unit(k.pr_set_name(current, name)),
            Prctl::GetName => k.pr_get_name(current).map(SysRet::Name),
            Prctl::SetChildSubreaper(on) => unit(k.set_child_subreaper(current, *on)),
            Prctl::GetChildSubreaper => k
                .child_subreaper(current)
                .map(|on| SysRet::Written(on.into())),
            Prctl::SetDumpable(arg) => unit(k.pr_set_dumpable(current, *arg)),
            Prctl::GetDumpable => k.pr_get_dumpable(current).map(|d| SysRet::Value(d.into())),
            Prctl::CapbsetRead(cap) => value(k.pr_capbset_read(current, *cap)),
            Prctl::CapbsetDrop(cap) => unit(k.pr_capbset_drop(current, *cap)),
            Prctl::CapAmbient(op, a3, a4, a5) => {
                value(k.pr_cap_ambient(current, *op, *a3, *a4, *a5))
            }
            Prctl::SetSecurebits(bits) => unit(k.pr_set_securebits(current, *bits)),
            Prctl::GetSecurebits => value(k.pr_get_securebits(current)),
            Prctl::SetKeepcaps(arg) => unit(k.pr_set_keepcaps(current, *arg)),
            Prctl::GetKeepcaps => value(k.pr_get_keepcaps(current)),
            Prctl::SetNoNewPrivs(args) => unit(k.pr_set_no_new_privs(current, *args)),
            Prctl::GetNoNewPrivs(args) => value(k.pr_get_no_new_privs(current, *args)),
        },
        Syscall::Capget { version, pid, data } => {
            k.capget(current, *version, *pid, *data).map(|d| match d {
                Some(d) => SysRet::Caps(d),
                None => SysRet::Value(0),
            })
        }
        Syscall::Capset { version, pid, data } => unit(k.capset(current, *version, *pid, *data)),
        Syscall::Ptrace(p) => match *p {
            Ptrace::Traceme => unit(k.ptrace_traceme(current)),
            Ptrace::Attach { pid, seize } => unit(k.ptrace_attach(current, pid, seize)),
            Ptrace::Cont { pid, sig } => unit(k.ptrace_cont(current, pid, sig)),
            Ptrace::Detach { pid, sig } => unit(k.ptrace_detach(current, pid, sig)),
            Ptrace::Seize { pid, options } => unit(k.ptrace_seize(current, pid, options)),
            Ptrace::Setoptions { pid, options } => unit(k.ptrace_setoptions(current, pid, options)),
            Ptrace::Geteventmsg { pid } => k.ptrace_geteventmsg(current, pid).map(SysRet::EventMsg),
            Ptrace::Getsiginfo { pid } => k.ptrace_getsiginfo(current, pid).map(SysRet::SigInfo),
            Ptrace::Interrupt { pid } => unit(k.ptrace_interrupt(current, pid)),
            Ptrace::Listen { pid } => unit(k.ptrace_listen(current, pid)),
            Ptrace::Syscall { pid, sig } => unit(k.ptrace_syscall(current, pid, sig)),
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
        Syscall::Getuid => k
            .getresuid(current)
            .map(|(r, _, _)| SysRet::Value(r.into())),
        Syscall::Geteuid => k
            .getresuid(current)
            .map(|(_, e, _)| SysRet::Value(e.into())),
        Syscall::Getgid => k
            .getresgid(current)
            .map(|(r, _, _)| SysRet::Value(r.into())),
        Syscall::Getegid => k
            .getresgid(current)
            .map(|(_, e, _)| SysRet::Value(e.into())),
        Syscall::Getresuid => k.getresuid(current).map(|(r, e, s)| SysRet::Ids(r, e, s)),
        Syscall::Getresgid => k.getresgid(current).map(|(r, e, s)| SysRet::Ids(r, e, s)),
        Syscall::Setgroups { groups } => unit(k.setgroups(current, groups)),
        Syscall::Getgroups { size } => k.getgroups(current, *size).map(SysRet::Groups),
        Syscall::Getrlimit { resource } => k.getrlimit(current, *resource).map(SysRet::Rlimit),
        Syscall::Setrlimit { resource, new } => unit(k.setrlimit(current, *resource, *new)),
        Syscall::Prlimit64 { pid, resource, new } => k
            .prlimit64(current, *pid, *resource, *new)
            .map(SysRet::Rlimit),
        Syscall::Mmap {
            addr,
            len,
            prot,
            flags,
            file,
            pgoff,
        } => k
            .mmap(current, *addr, *len, *prot, *flags, file.as_ref(), *pgoff)
            .map(SysRet::Addr),
        Syscall::Munmap { addr, len } => unit(k.munmap(current, *addr, *len)),
        Syscall::Mprotect { addr, len, prot } => unit(k.mprotect(current, *addr, *len, *prot)),
        Syscall::Mremap {
            old,
            old_len,
            new_len,
            flags,
            new,
        } => k
            .mremap(current, *old, *old_len, *new_len, *flags, *new)
            .map(SysRet::Addr),
        Syscall::Brk { addr } => k.brk(current, *addr).map(SysRet::Addr),
        Syscall::RtSigprocmask { how, set } => {
            k.rt_sigprocmask(current, *how, *set).map(SysRet::Sigset)
        }
        Syscall::RtSigpending => k.rt_sigpending(current).map(SysRet::Sigset),
        Syscall::RtSigqueueinfo { tgid, sig, info } => {
            unit(k.rt_sigqueueinfo(current, *tgid, *sig, *info))
        }
        Syscall::RtTgsigqueueinfo {
            tgid,
            tid,
            sig,
            info,
        } => unit(k.rt_tgsigqueueinfo(current, *tgid, *tid, *sig, *info)),
        Syscall::RtSigtimedwait { set, timeout } => k
            .rt_sigtimedwait(current, *set, *timeout == Some(Timespec::ZERO))
            .map(SysRet::SigWait),
        Syscall::RtSigsuspend { mask } => k.rt_sigsuspend(current, *mask).map(SysRet::SigWait),
        Syscall::Pause => k.pause(current).map(SysRet::SigWait),
        Syscall::RtSigreturn { mask } => unit(k.rt_sigreturn(current, *mask)),
        Syscall::PidfdOpen { pid, flags } => k.pidfd_open(current, *pid, *flags).map(SysRet::PidFd),
        Syscall::PidfdSendSignal {
            fd,
            sig,
            info,
            flags,
        } => unit(k.pidfd_send_signal(current, *fd, *sig, *info, *flags)),
        Syscall::WaitidPidfd { fd, options } => {
            k.waitid_pidfd(current, *fd, *options).map(SysRet::Waitid)
        }
        Syscall::Unshare { flags } => unit(k.unshare(current, *flags)),
        Syscall::Setns { fd, nstype } => unit(k.setns(current, *fd, *nstype)),
    }
}
