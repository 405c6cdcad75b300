//! Decoders of the signal-mask, pending-set and signal-wait calls:
//! rt_sigprocmask, rt_sigpending, rt_sigsuspend, rt_sigtimedwait,
//! rt_sigqueueinfo, rt_tgsigqueueinfo, rt_sigreturn, restart_syscall and
//! pause. A child module of `decode` so that it shares its argument
//! helpers; kept in its own file to ease merges.

use taskcore::sys::{Syscall, Timespec};
use taskcore::Errno;

use super::{addr_of, siginfo, sigset, Args, Res};
use crate::args::Value;
use crate::call::{Call, Recorded};
use crate::siginfo::SigInfo;

/// A `sigset_t *` argument as strace printed it.
#[derive(Clone, Copy)]
enum SetArg {
    /// `NULL`.
    Null,
    /// A set strace read.
    Set(u64),
    /// An address strace did not read.
    Addr,
}

impl SetArg {
    fn mask(self) -> Option<u64> {
        match self {
            SetArg::Set(m) => Some(m),
            _ => None,
        }
    }
}

/// Decodes `name` if it is one of this module's calls; `None` otherwise.
pub(super) fn decode(name: &str, a: &Args<'_>) -> Option<Res<Call>> {
    let sys = |call, out| Call::Sys { call, out };
    let call = match name {
        "rt_sigprocmask" => rt_sigprocmask(a),
        "rt_sigpending" => (|| {
            let set = set_arg(a, 0)?;
            Ok(if a.addr(1)? > 8 {
                refused("rt_sigpending")
            } else {
                sys(Syscall::RtSigpending, Recorded::Sigset(set.mask()))
            })
        })(),
        "rt_sigsuspend" => (|| {
            let mask = set_arg(a, 0)?;
            Ok(if a.addr(1)? != 8 {
                refused("rt_sigsuspend")
            } else {
                match mask.mask() {
                    Some(mask) => sys(Syscall::RtSigsuspend { mask }, Recorded::Ret),
                    None => Call::Unchecked {
                        name: "rt_sigsuspend",
                        why: "mask not read",
                    },
                }
            })
        })(),
        "rt_sigtimedwait" => rt_sigtimedwait(a),
        "rt_sigqueueinfo" => (|| {
            let (tgid, sig, info) = (a.int(0)?, a.sig(1)?, info_arg(a, 2)?);
            Ok(sys(
                Syscall::RtSigqueueinfo {
                    tgid,
                    sig,
                    info: given_info(sig, info.as_ref()),
                },
                Recorded::Siginfo {
                    read: true,
                    info: info.map(Box::new),
                },
            ))
        })(),
        "rt_tgsigqueueinfo" => (|| {
            let (tgid, tid, sig) = (a.int(0)?, a.int(1)?, a.sig(2)?);
            let info = info_arg(a, 3)?;
            Ok(sys(
                Syscall::RtTgsigqueueinfo {
                    tgid,
                    tid,
                    sig,
                    info: given_info(sig, info.as_ref()),
                },
                Recorded::Siginfo {
                    read: true,
                    info: info.map(Box::new),
                },
            ))
        })(),
        "rt_sigreturn" => rt_sigreturn(a),
        "restart_syscall" => Ok(Call::RestartSyscall {
            resuming: resuming(a),
        }),
        "pause" => Ok(sys(Syscall::Pause, Recorded::Ret)),
        _ => return None,
    };
    Some(call)
}

/// A call the kernel refuses before it acts: a `sigsetsize` other than
/// its own (8 bytes) is `EINVAL` (kernel/signal.c).
fn refused(name: &'static str) -> Call {
    Call::Refused {
        name,
        err: Errno::EINVAL,
    }
}

/// A siginfo a caller gives (rt_sig(tg)queueinfo, pidfd_send_signal): the
/// numbers the trace printed (`si_pid` the trace's), `si_signo` the call's
/// signal, `si_value` the printed `si_ptr` (or `si_int`).
pub(super) fn given_info(sig: i32, i: Option<&SigInfo>) -> taskcore::SigInfo {
    taskcore::SigInfo {
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

/// A `sigset_t *`: `NULL`, a printed set or an unread address.
fn set_arg(a: &Args<'_>, i: usize) -> Res<SetArg> {
    Ok(match a.get(i)? {
        None => SetArg::Null,
        Some(v) => set_of(v)?,
    })
}

fn set_of(v: &Value) -> Res<SetArg> {
    let v = v.unnamed();
    Ok(match v {
        Value::Array { .. } | Value::NotSet(_) => SetArg::Set(sigset(v)?),
        v if v.is_null() => SetArg::Null,
        other => {
            addr_of(other)?;
            SetArg::Addr
        }
    })
}

/// rt_sigprocmask(how, set, oldset, sigsetsize).
fn rt_sigprocmask(a: &Args<'_>) -> Res<Call> {
    let how = match a.get(0)? {
        None => 0,
        Some(Value::Sym(s)) => match &**s {
            "SIG_BLOCK" => taskcore::uapi::SIG_BLOCK,
            "SIG_UNBLOCK" => taskcore::uapi::SIG_UNBLOCK,
            "SIG_SETMASK" => taskcore::uapi::SIG_SETMASK,
            _ => return Err(format!("unknown rt_sigprocmask how {s}")),
        },
        Some(v) => how_number(v, a.raw.first().copied().unwrap_or(""))?,
    };
    let set = set_arg(a, 1)?;
    let oldset = set_arg(a, 2)?;
    if a.addr(3)? != 8 {
        return Ok(refused("rt_sigprocmask"));
    }
    Ok(Call::Sys {
        call: Syscall::RtSigprocmask {
            how,
            set: set.mask(),
        },
        out: Recorded::Mask {
            read: !matches!(set, SetArg::Addr),
            old: oldset.mask(),
        },
    })
}

/// A numeric `how` as strace prints it: `0x3 /* SIG_??? */`.
fn how_number(v: &Value, raw: &str) -> Res<i32> {
    if let Some(n) = v.as_u64() {
        return Ok(n as u32 as i32);
    }
    let digits = raw.split_whitespace().next().unwrap_or("");
    let n = match digits.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => digits.parse::<u64>().ok(),
    };
    n.map(|n| n as u32 as i32)
        .ok_or_else(|| format!("bad rt_sigprocmask how {raw}"))
}

/// A `siginfo_t *`: a printed structure, or `None` for NULL/an address.
fn info_arg(a: &Args<'_>, i: usize) -> Res<Option<SigInfo>> {
    match a.get(i)? {
        Some(v @ Value::Struct { .. }) => Ok(Some(siginfo(v)?)),
        _ => Ok(None),
    }
}

/// rt_sigtimedwait(set, info, timeout, sigsetsize).
fn rt_sigtimedwait(a: &Args<'_>) -> Res<Call> {
    let timeout = match a.get(2)? {
        Some(v @ Value::Struct { .. }) => Some(timespec(v)?),
        _ => None,
    };
    let set = set_arg(a, 0)?;
    let info = info_arg(a, 1)?;
    if a.addr(3)? != 8 {
        return Ok(refused("rt_sigtimedwait"));
    }
    Ok(Call::Sys {
        call: Syscall::RtSigtimedwait {
            set: set.mask().unwrap_or(0),
            timeout,
        },
        out: Recorded::Siginfo {
            read: set.mask().is_some(),
            info: info.map(Box::new),
        },
    })
}

fn timespec(v: &Value) -> Res<Timespec> {
    let field = |k: &str| -> Res<i64> {
        v.field(k)
            .and_then(|x| x.int())
            .and_then(|x| i64::try_from(x).ok())
            .ok_or_else(|| format!("timespec without {k}"))
    };
    Ok(Timespec {
        sec: field("tv_sec")?,
        nsec: field("tv_nsec")?,
    })
}

/// rt_sigreturn({mask=[...]}): the mask the frame restores (0 when strace
/// did not print it).
fn rt_sigreturn(a: &Args<'_>) -> Res<Call> {
    let mask = match a.get(0)? {
        Some(v @ Value::Struct { .. }) => v.field("mask").map(sigset).transpose()?,
        _ => None,
    };
    Ok(Call::Sys {
        call: Syscall::RtSigreturn {
            mask: mask.unwrap_or(0),
        },
        out: Recorded::Frame(mask),
    })
}

/// The name in `<... resuming interrupted NAME ...>`.
fn resuming(a: &Args<'_>) -> Option<String> {
    let raw = a.raw.first()?;
    let rest = raw.split("resuming interrupted ").nth(1)?;
    let name = rest.split_whitespace().next()?;
    Some(name.to_string())
}
