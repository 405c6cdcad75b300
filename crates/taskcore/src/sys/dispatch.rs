//! [`dispatch`]: one [`Syscall`] applied to a [`Kernel`].

use super::generic::ApiRet;
use super::syscall::{Prctl, Ptrace, Syscall, Timespec};
use super::sysret::{SysResult, SysRet};
use crate::errno::Result;
use crate::ix::TaskId;
use crate::task::kernel::Kernel;

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
    let unit = |r: Result<()>| r.map(|()| SysRet::Value(0));
    let value = |r: Result<i32>| r.map(|v| SysRet::Value(v.into()));
    match call {
        Syscall::Execve { filename, argv } => unit(match argv {
            None => k.execve(current, filename),
            Some(argv) => {
                let argv: Vec<&[u8]> = argv.iter().map(Vec::as_slice).collect();
                k.execve_argv(current, filename, &argv)
            }
        }),
        Syscall::Prctl(p) => match p {
            Prctl::GetChildSubreaper => k
                .child_subreaper(current)
                .map(|on| SysRet::Written(on.into())),
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
            _ => api(k, current, call),
        },
        Syscall::Capget { version, pid, data } => {
            k.capget(current, *version, *pid, *data).map(|d| match d {
                Some(d) => SysRet::Caps(d),
                None => SysRet::Value(0),
            })
        }
        Syscall::Capset { version, pid, data } => unit(k.capset(current, *version, *pid, *data)),
        Syscall::Ptrace(Ptrace::Getsiginfo { pid }) => {
            k.ptrace_getsiginfo(current, *pid).map(SysRet::SigInfo)
        }
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
        Syscall::Getgroups { size } => k.getgroups(current, *size).map(SysRet::Groups),
        Syscall::Getrlimit { resource } => k.getrlimit(current, *resource).map(SysRet::Rlimit),
        Syscall::Setrlimit { resource, new } => unit(k.setrlimit(current, *resource, *new)),
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
        Syscall::Setns { fd, nstype } => unit(k.setns(current, *fd, *nstype)),
        // The calls of the TaskApi (lifecycle, credentials, masks, pidfds,
        // the process prctls, unshare): one mapping, shared with the
        // reference model's dispatch.
        _ => api(k, current, call),
    }
}

/// `call` through [`dispatch_api`](super::dispatch_api), the mapping the
/// reference model shares: the calls of the [`TaskApi`](super::TaskApi);
/// `ENOSYS` for a call it does not know.
fn api(k: &mut Kernel, current: TaskId, call: &Syscall) -> SysResult {
    Ok(
        match super::generic::dispatch_api(k, current, call, &super::generic::KernelPidFds)? {
            ApiRet::Ret(r) => r,
            ApiRet::Child { task, pid, pidfd } => SysRet::Child { task, pid, pidfd },
            ApiRet::PidFd(fd) => SysRet::PidFd(fd),
        },
    )
}
