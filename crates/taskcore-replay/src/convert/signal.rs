//! The signal calls of a trace as the kernel sees them: rt_sigaction, the
//! mask, pending-set and signal-wait calls, rt_sig(tg)queueinfo,
//! rt_sigreturn and ptrace.

use taskcore::sys::{nr, Syscall, Timespec, SIG_DFL, SIG_IGN};
use taskcore::{Errno, SigAction, SigHandler, SigInfo};
use taskcore_strace::{self as strace, SigCall, SigSetArg};

use super::rec_siginfo;
use crate::event::{Kind, Rec};

/// The `sa_handler` value strace printed.
fn sa_handler(h: strace::SigHandler) -> u64 {
    match h {
        strace::SigHandler::Dfl => SIG_DFL,
        strace::SigHandler::Ign => SIG_IGN,
        strace::SigHandler::Handler(a) => a,
    }
}

/// rt_sigaction(sig, act, oldact): the new action as the kernel reads
/// it, the old handler strace printed.
pub(super) fn sigaction(
    sig: i32,
    act: Option<&strace::SigAct>,
    oldact: Option<&strace::SigAct>,
) -> Kind {
    Kind::Sys {
        call: Syscall::RtSigaction {
            sig,
            act: act.map(|a| {
                SigAction::from_raw(
                    sa_handler(a.handler),
                    a.flags,
                    a.mask,
                    a.restorer.unwrap_or(0),
                )
            }),
        },
        rec: Rec::OldHandler(oldact.map(|a| SigHandler::from_sa_handler(sa_handler(a.handler)))),
    }
}

/// ptrace(request, pid, ...): kept raw, as the engine answers any request
/// (see `engine/signals.rs`).
pub(super) fn ptrace(request: i32, pid: i32) -> Kind {
    Kind::Raw {
        nr: nr::PTRACE,
        args: [request as u64, pid as u64, 0, 0, 0, 0],
        info: None,
    }
}

/// A siginfo a caller gives (rt_sig(tg)queueinfo): the numbers the trace
/// printed (the engine maps `si_pid`), `si_signo` the call's signal.
pub(super) fn given_info(sig: i32, i: Option<&strace::SigInfo>) -> SigInfo {
    let i = i.map(rec_siginfo);
    SigInfo {
        signo: sig,
        code: i.map_or(0, |i| i.code),
        pid: i.and_then(|i| i.pid).unwrap_or(0),
        uid: i.and_then(|i| i.uid).unwrap_or(0),
        status: i.and_then(|i| i.status).unwrap_or(0),
        value: i.map_or(0, |i| {
            i.ptr
                .unwrap_or_else(|| u64::from(i.int.unwrap_or(0) as u32))
        }),
    }
}

/// A call the decoder refuses: a `sigsetsize` other than the kernel's
/// (8 bytes) is `EINVAL` (`kernel/signal.c`).
fn refused(name: &'static str) -> Kind {
    Kind::Refused {
        name,
        err: Errno::EINVAL,
    }
}

/// The signal-mask, pending-set and signal-wait calls.
pub(super) fn signal_op(c: &SigCall) -> Kind {
    let sys = |call, rec| Kind::Sys { call, rec };
    match c {
        SigCall::RtSigprocmask { sigsetsize, .. } if *sigsetsize != 8 => refused("rt_sigprocmask"),
        SigCall::RtSigprocmask {
            how, set, oldset, ..
        } => sys(
            Syscall::RtSigprocmask {
                how: *how,
                set: set.mask(),
            },
            Rec::Mask {
                read: !matches!(set, SigSetArg::Addr(_)),
                old: oldset.mask(),
            },
        ),
        SigCall::RtSigpending { sigsetsize, .. } if *sigsetsize > 8 => refused("rt_sigpending"),
        SigCall::RtSigpending { set, .. } => sys(Syscall::RtSigpending, Rec::Sigset(set.mask())),
        SigCall::RtSigsuspend { sigsetsize, .. } if *sigsetsize != 8 => refused("rt_sigsuspend"),
        SigCall::RtSigsuspend { mask, .. } => match mask.mask() {
            Some(mask) => sys(Syscall::RtSigsuspend { mask }, Rec::Ret),
            None => Kind::Unchecked {
                name: "rt_sigsuspend",
                why: "mask not read",
            },
        },
        SigCall::Pause => sys(Syscall::Pause, Rec::Ret),
        SigCall::RtSigtimedwait { sigsetsize, .. } if *sigsetsize != 8 => {
            refused("rt_sigtimedwait")
        }
        SigCall::RtSigtimedwait {
            set, info, timeout, ..
        } => sys(
            Syscall::RtSigtimedwait {
                set: set.mask().unwrap_or(0),
                timeout: timeout.map(|t| Timespec {
                    sec: t.sec,
                    nsec: t.nsec,
                }),
            },
            Rec::Siginfo {
                read: set.mask().is_some(),
                info: info.as_ref().map(rec_siginfo),
            },
        ),
        SigCall::RtSigqueueinfo { tgid, sig, info } => sys(
            Syscall::RtSigqueueinfo {
                tgid: *tgid,
                sig: *sig,
                info: given_info(*sig, info.as_ref()),
            },
            Rec::Siginfo {
                read: true,
                info: info.as_ref().map(rec_siginfo),
            },
        ),
        SigCall::RtTgsigqueueinfo {
            tgid,
            tid,
            sig,
            info,
        } => sys(
            Syscall::RtTgsigqueueinfo {
                tgid: *tgid,
                tid: *tid,
                sig: *sig,
                info: given_info(*sig, info.as_ref()),
            },
            Rec::Siginfo {
                read: true,
                info: info.as_ref().map(rec_siginfo),
            },
        ),
        SigCall::RtSigreturn { mask } => sys(
            Syscall::RtSigreturn {
                mask: mask.unwrap_or(0),
            },
            Rec::Frame(*mask),
        ),
        SigCall::RestartSyscall { .. } => Kind::RestartSyscall,
    }
}
