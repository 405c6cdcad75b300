//! [`Syscall::probe_op`]: which [`Op`]'s return probes a call fires.
//!
//! The probe points stay an [`Op`] set of their own rather than syscall
//! numbers: they include entry points that are no system call
//! ([`Op::GetSignal`], [`Op::SendSignal`], [`Op::ForceFatalSignal`]), and
//! an armed op must be one bit of the 32-bit mask that an unprobed call
//! tests with its single relaxed load (see [`crate::probe`]). The syscall
//! ops are tied to [`Syscall`] here, and a test checks that dispatching
//! each call fires exactly the op this names, under the same name.

use super::syscall::{Ptrace, Syscall};
use crate::probe::Op;

impl Syscall {
    /// The probe op whose return probes [`dispatch`](super::dispatch)
    /// fires for this call (once), or `None` for calls the
    /// [`Kernel`](crate::Kernel) does not probe (the read-only ones, the
    /// credential, limit, prctl, pidfd and namespace calls). clone3 fires
    /// [`Op::Clone`]; pause fires [`Op::RtSigsuspend`];
    /// rt_tgsigqueueinfo fires [`Op::RtSigqueueinfo`].
    ///
    /// # Examples
    /// ```
    /// use taskcore::probe::Op;
    /// use taskcore::sys::Syscall;
    /// assert_eq!(Syscall::Fork.probe_op(), Some(Op::Fork));
    /// assert_eq!(Syscall::Fork.probe_op().unwrap().name(), Syscall::Fork.name());
    /// assert_eq!(Syscall::Getpid.probe_op(), None);
    /// ```
    ///
    /// # Linux
    /// The kretprobe on the call's `__x64_sys_*` entry point.
    pub fn probe_op(&self) -> Option<Op> {
        Some(match self {
            Syscall::Clone(_) | Syscall::Clone3(_) => Op::Clone,
            Syscall::Fork => Op::Fork,
            Syscall::Vfork => Op::Vfork,
            Syscall::Execve { .. } => Op::Execve,
            Syscall::Exit { .. } => Op::Exit,
            Syscall::ExitGroup { .. } => Op::ExitGroup,
            Syscall::Wait4 { .. } => Op::Wait4,
            Syscall::Waitid { .. } => Op::Waitid,
            Syscall::Setpgid { .. } => Op::Setpgid,
            Syscall::Setsid => Op::Setsid,
            Syscall::Kill { .. } => Op::Kill,
            Syscall::Tgkill { .. } => Op::Tgkill,
            Syscall::Tkill { .. } => Op::Tkill,
            Syscall::RtSigaction { .. } => Op::RtSigaction,
            Syscall::Ptrace(p) => match p {
                Ptrace::Traceme => Op::PtraceTraceme,
                Ptrace::Attach { .. } => Op::PtraceAttach,
                Ptrace::Cont { .. } => Op::PtraceCont,
                Ptrace::Detach { .. } => Op::PtraceDetach,
                Ptrace::Seize { .. } => Op::PtraceAttach,
                Ptrace::Syscall { .. } => Op::PtraceCont,
                Ptrace::Setoptions { .. } | Ptrace::Interrupt { .. } | Ptrace::Listen { .. } => {
                    Op::Ptrace
                }
                Ptrace::Geteventmsg { .. } | Ptrace::Getsiginfo { .. } => return None,
            },
            Syscall::Mmap { .. } => Op::Mmap,
            Syscall::Munmap { .. } => Op::Munmap,
            Syscall::Mprotect { .. } => Op::Mprotect,
            Syscall::Mremap { .. } => Op::Mremap,
            Syscall::Brk { .. } => Op::Brk,
            Syscall::RtSigprocmask { .. } => Op::RtSigprocmask,
            Syscall::RtSigqueueinfo { .. } | Syscall::RtTgsigqueueinfo { .. } => Op::RtSigqueueinfo,
            Syscall::RtSigtimedwait { .. } => Op::RtSigtimedwait,
            Syscall::RtSigsuspend { .. } | Syscall::Pause => Op::RtSigsuspend,
            Syscall::RtSigreturn { .. } => Op::RtSigreturn,
            Syscall::Getpgid { .. }
            | Syscall::Getpgrp
            | Syscall::Getsid { .. }
            | Syscall::Getppid
            | Syscall::Getpid
            | Syscall::Gettid
            | Syscall::Prctl(_)
            | Syscall::Capget { .. }
            | Syscall::Capset { .. }
            | Syscall::Setuid { .. }
            | Syscall::Setgid { .. }
            | Syscall::Setreuid { .. }
            | Syscall::Setregid { .. }
            | Syscall::Setresuid { .. }
            | Syscall::Setresgid { .. }
            | Syscall::Setfsuid { .. }
            | Syscall::Setfsgid { .. }
            | Syscall::Getuid
            | Syscall::Geteuid
            | Syscall::Getgid
            | Syscall::Getegid
            | Syscall::Getresuid
            | Syscall::Getresgid
            | Syscall::Setgroups { .. }
            | Syscall::Getgroups { .. }
            | Syscall::Getrlimit { .. }
            | Syscall::Setrlimit { .. }
            | Syscall::Prlimit64 { .. }
            | Syscall::RtSigpending
            | Syscall::PidfdOpen { .. }
            | Syscall::PidfdSendSignal { .. }
            | Syscall::WaitidPidfd { .. }
            | Syscall::Unshare { .. }
            | Syscall::Setns { .. } => return None,
        })
    }
}
