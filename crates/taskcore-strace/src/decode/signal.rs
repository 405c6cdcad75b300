//! Decoders of the signal-mask, pending-set and signal-wait calls (see
//! [`SigCall`]). A child module of `decode` so that it shares its argument
//! helpers; kept in its own file to ease merges.

use super::{addr_of, siginfo, sigset, Args, Res};
use crate::args::Value;
use crate::event::Call;
use crate::sigcall::{SigCall, SigSetArg, Timespec};

/// Decodes `name` if it is one of the calls of [`SigCall`]; `None` otherwise.
pub(super) fn decode(name: &str, a: &Args<'_>) -> Option<Res<Call>> {
    let call = match name {
        "rt_sigprocmask" => rt_sigprocmask(a),
        "rt_sigpending" => (|| {
            Ok(SigCall::RtSigpending {
                set: set_arg(a, 0)?,
                sigsetsize: a.addr(1)?,
            })
        })(),
        "rt_sigsuspend" => (|| {
            Ok(SigCall::RtSigsuspend {
                mask: set_arg(a, 0)?,
                sigsetsize: a.addr(1)?,
            })
        })(),
        "rt_sigtimedwait" => rt_sigtimedwait(a),
        "rt_sigqueueinfo" => (|| {
            Ok(SigCall::RtSigqueueinfo {
                tgid: a.int(0)?,
                sig: a.sig(1)?,
                info: info_arg(a, 2)?,
            })
        })(),
        "rt_tgsigqueueinfo" => (|| {
            Ok(SigCall::RtTgsigqueueinfo {
                tgid: a.int(0)?,
                tid: a.int(1)?,
                sig: a.sig(2)?,
                info: info_arg(a, 3)?,
            })
        })(),
        "rt_sigreturn" => rt_sigreturn(a),
        "restart_syscall" => Ok(SigCall::RestartSyscall {
            resuming: resuming(a),
        }),
        "pause" => Ok(SigCall::Pause),
        _ => return None,
    };
    Some(call.map(Call::Signal))
}

/// A `sigset_t *`: `NULL`, a printed set or an unread address.
fn set_arg(a: &Args<'_>, i: usize) -> Res<SigSetArg> {
    Ok(match a.get(i)? {
        None => SigSetArg::Null,
        Some(v) => set_of(v)?,
    })
}

fn set_of(v: &Value) -> Res<SigSetArg> {
    let v = v.unnamed();
    Ok(match v {
        Value::Array { .. } | Value::NotSet(_) => SigSetArg::Set(sigset(v)?),
        v if v.is_null() => SigSetArg::Null,
        other => SigSetArg::Addr(addr_of(other)?),
    })
}

/// rt_sigprocmask(how, set, oldset, sigsetsize).
fn rt_sigprocmask(a: &Args<'_>) -> Res<SigCall> {
    let how = match a.get(0)? {
        None => 0,
        Some(Value::Sym(s)) => match s.as_str() {
            "SIG_BLOCK" => 0,
            "SIG_UNBLOCK" => 1,
            "SIG_SETMASK" => 2,
            _ => return Err(format!("unknown rt_sigprocmask how {s}")),
        },
        Some(v) => how_number(v, a.raw.first().copied().unwrap_or(""))?,
    };
    Ok(SigCall::RtSigprocmask {
        how,
        set: set_arg(a, 1)?,
        oldset: set_arg(a, 2)?,
        sigsetsize: a.addr(3)?,
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
fn info_arg(a: &Args<'_>, i: usize) -> Res<Option<super::SigInfo>> {
    match a.get(i)? {
        Some(v @ Value::Struct { .. }) => Ok(Some(siginfo(v)?)),
        _ => Ok(None),
    }
}

/// rt_sigtimedwait(set, info, timeout, sigsetsize).
fn rt_sigtimedwait(a: &Args<'_>) -> Res<SigCall> {
    let timeout = match a.get(2)? {
        Some(v @ Value::Struct { .. }) => Some(timespec(v)?),
        _ => None,
    };
    Ok(SigCall::RtSigtimedwait {
        set: set_arg(a, 0)?,
        info: info_arg(a, 1)?,
        timeout,
        sigsetsize: a.addr(3)?,
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

/// rt_sigreturn({mask=[...]}).
fn rt_sigreturn(a: &Args<'_>) -> Res<SigCall> {
    let mask = match a.get(0)? {
        Some(v @ Value::Struct { .. }) => v.field("mask").map(sigset).transpose()?,
        _ => None,
    };
    Ok(SigCall::RtSigreturn { mask })
}

/// The name in `<... resuming interrupted NAME ...>`.
fn resuming(a: &Args<'_>) -> Option<String> {
    let raw = a.raw.first()?;
    let rest = raw.split("resuming interrupted ").nth(1)?;
    let name = rest.split_whitespace().next()?;
    Some(name.to_string())
}

#[cfg(test)]
mod tests {
    use crate::event::{Call, EventKind, Ret};
    use crate::sigcall::{SigCall, SigSetArg, Timespec};
    use crate::siginfo::SigInfo;

    /// Decodes one recorded line (taken from data/traces/signal) and returns
    /// its call and result.
    fn line(text: &str) -> (SigCall, Ret) {
        let t = crate::parse_str("t.strace", &format!("{text}\n"));
        assert!(t.errors.is_empty(), "{:?}", t.errors);
        match &t.events[0].kind {
            EventKind::Syscall(s) => match &s.call {
                Call::Signal(c) => (c.clone(), s.ret.clone()),
                other => panic!("not a signal call: {other:?}"),
            },
            other => panic!("{other:?}"),
        }
    }

    // strace's SIGRT_n is signal 32 + n (glibc's SIGRTMIN 34 is RT_2)
    const USR1: u64 = 1 << 9;
    const USR2: u64 = 1 << 11;
    const KILL_STOP: u64 = (1 << 8) | (1 << 18);

    #[test]
    fn rt_sigprocmask_forms() {
        let (c, r) =
            line("1068  1795597513.319077 rt_sigprocmask(SIG_BLOCK, [INT TERM CHLD], [], 8) = 0");
        assert_eq!(r, Ret::Val(0));
        assert_eq!(
            c,
            SigCall::RtSigprocmask {
                how: 0,
                set: SigSetArg::Set((1 << 1) | (1 << 14) | (1 << 16)),
                oldset: SigSetArg::Set(0),
                sigsetsize: 8
            }
        );
        let (c, _) = line(
            "1590  1795597516.739364 rt_sigprocmask(SIG_SETMASK, ~[], [USR2 RT_2 RT_32], 8) = 0",
        );
        assert_eq!(
            c,
            SigCall::RtSigprocmask {
                how: 2,
                set: SigSetArg::Set(u64::MAX),
                oldset: SigSetArg::Set(USR2 | (1 << 33) | (1 << 63)),
                sigsetsize: 8
            }
        );
        let (c, _) =
            line("1590  1795597516.739374 rt_sigprocmask(SIG_BLOCK, NULL, ~[KILL STOP], 8) = 0");
        assert_eq!(
            c,
            SigCall::RtSigprocmask {
                how: 0,
                set: SigSetArg::Null,
                oldset: SigSetArg::Set(!KILL_STOP),
                sigsetsize: 8
            }
        );
        let (c, _) =
            line("1590  1795597516.739470 rt_sigprocmask(SIG_UNBLOCK, [HUP USR1], NULL, 8) = 0");
        assert!(matches!(
            c,
            SigCall::RtSigprocmask {
                how: 1,
                oldset: SigSetArg::Null,
                ..
            }
        ));
    }

    #[test]
    fn rt_sigprocmask_bad_how_and_size() {
        let (c, r) = line("1590  1795597516.739414 rt_sigprocmask(0x3 /* SIG_??? */, [USR1], 0x7ffe240e0ee0, 8) = -1 EINVAL (Invalid argument)");
        assert!(matches!(r, Ret::Err(ref e) if &*e.name == "EINVAL"));
        assert_eq!(
            c,
            SigCall::RtSigprocmask {
                how: 3,
                set: SigSetArg::Set(USR1),
                oldset: SigSetArg::Addr(0x7ffe240e0ee0),
                sigsetsize: 8
            }
        );
        let (c, _) = line("1590  1795597516.739449 rt_sigprocmask(0xffffffff /* SIG_??? */, [USR1], 0x7ffe240e0ee0, 8) = -1 EINVAL (Invalid argument)");
        assert!(matches!(c, SigCall::RtSigprocmask { how: -1, .. }));
        let (c, _) = line("1590  1795597516.739523 rt_sigprocmask(SIG_BLOCK, 0x7ffe240e0ed8, 0x7ffe240e0ee0, 4) = -1 EINVAL (Invalid argument)");
        assert!(matches!(
            c,
            SigCall::RtSigprocmask {
                set: SigSetArg::Addr(0x7ffe240e0ed8),
                sigsetsize: 4,
                ..
            }
        ));
    }

    #[test]
    fn resumed_rt_sigprocmask_joins() {
        let t = crate::parse_str(
            "t.strace",
            "1068  1.0 rt_sigprocmask(SIG_BLOCK, [CHLD],  <unfinished ...>\n\
             1069  1.1 exit_group(0) = ?\n\
             1068  1.2 <... rt_sigprocmask resumed>[CHLD], 8) = 0\n",
        );
        assert!(t.errors.is_empty());
        let EventKind::Syscall(s) = &t.events[1].kind else {
            panic!()
        };
        assert_eq!(
            s.call,
            Call::Signal(SigCall::RtSigprocmask {
                how: 0,
                set: SigSetArg::Set(1 << 16),
                oldset: SigSetArg::Set(1 << 16),
                sigsetsize: 8
            })
        );
    }

    #[test]
    fn pending_suspend_and_return() {
        let (c, _) = line("1142  1795597514.809354 rt_sigpending([USR1 RT_2 RT_3], 8) = 0");
        assert_eq!(
            c,
            SigCall::RtSigpending {
                set: SigSetArg::Set(USR1 | (1 << 33) | (1 << 34)),
                sigsetsize: 8
            }
        );
        let (c, r) = line("1590  1795597516.739601 rt_sigpending(0x7ffe240e0f00, 16) = -1 EINVAL (Invalid argument)");
        assert_eq!(
            c,
            SigCall::RtSigpending {
                set: SigSetArg::Addr(0x7ffe240e0f00),
                sigsetsize: 16
            }
        );
        assert!(matches!(r, Ret::Err(_)));
        let (c, r) = line("1605  1795597517.576158 rt_sigsuspend([HUP WINCH], 8) = ? ERESTARTNOHAND (To be restarted if no handler)");
        assert_eq!(
            c,
            SigCall::RtSigsuspend {
                mask: SigSetArg::Set(1 | (1 << 27)),
                sigsetsize: 8
            }
        );
        assert!(matches!(r, Ret::Err(ref e) if &*e.name == "ERESTARTNOHAND"));
        let (c, r) = line("31308 1795597490.307803 rt_sigreturn({mask=[]}) = 61");
        assert_eq!(c, SigCall::RtSigreturn { mask: Some(0) });
        assert_eq!(r, Ret::Val(61));
        let (c, r) = line("31308 1795597489.652917 rt_sigreturn({mask=[HUP USR1]}) = -1 EINTR (Interrupted system call)");
        assert_eq!(
            c,
            SigCall::RtSigreturn {
                mask: Some(1 | USR1)
            }
        );
        assert!(matches!(r, Ret::Err(ref e) if &*e.name == "EINTR"));
    }

    #[test]
    fn timedwait_with_siginfo() {
        let (c, r) = line("1956  1795597519.866980 rt_sigtimedwait([CHLD], {si_signo=SIGCHLD, si_code=CLD_CONTINUED, si_pid=1957, si_uid=54322, si_status=SIGCONT, si_utime=0, si_stime=0}, {tv_sec=1, tv_nsec=0}, 8) = 17 (SIGCHLD)");
        assert_eq!(r, Ret::Val(17));
        assert_eq!(
            c,
            SigCall::RtSigtimedwait {
                set: SigSetArg::Set(1 << 16),
                info: Some(SigInfo {
                    si_signo: 17,
                    si_code: 6,
                    si_pid: Some(1957),
                    si_uid: Some(54322),
                    si_status: Some(18),
                    ..SigInfo::default()
                }),
                timeout: Some(Timespec { sec: 1, nsec: 0 }),
                sigsetsize: 8
            }
        );
        let (c, r) = line("1956  1795597519.365487 rt_sigtimedwait([CHLD], NULL, {tv_sec=0, tv_nsec=200000000}, 8) = -1 EAGAIN (Resource temporarily unavailable)");
        assert!(matches!(r, Ret::Err(ref e) if &*e.name == "EAGAIN"));
        assert!(matches!(
            c,
            SigCall::RtSigtimedwait {
                info: None,
                timeout: Some(Timespec {
                    sec: 0,
                    nsec: 200_000_000
                }),
                ..
            }
        ));
        let (c, _) = line("1590  1795597516.739985 rt_sigtimedwait([RT_2 RT_3 RT_4], {si_signo=SIGRT_3, si_code=SI_USER, si_pid=1590, si_uid=0}, {tv_sec=0, tv_nsec=0}, 8) = 35 (SIGRT_3)");
        let SigCall::RtSigtimedwait { info: Some(i), .. } = c else {
            panic!()
        };
        assert_eq!((i.si_signo, i.si_code, i.si_int), (35, 0, None));
    }

    #[test]
    fn queueinfo_with_values() {
        let (c, r) = line("1142  1795597514.809254 rt_sigqueueinfo(1142, SIGRT_3, {si_signo=SIGRT_3, si_code=SI_QUEUE, si_pid=1142, si_uid=0, si_int=1, si_ptr=0x1}) = 0");
        assert_eq!(r, Ret::Val(0));
        assert_eq!(
            c,
            SigCall::RtSigqueueinfo {
                tgid: 1142,
                sig: 35,
                info: Some(SigInfo {
                    si_signo: 35,
                    si_code: -1,
                    si_pid: Some(1142),
                    si_uid: Some(0),
                    si_int: Some(1),
                    si_ptr: Some(1),
                    ..SigInfo::default()
                })
            }
        );
        let (c, r) = line("1590  1795597516.751733 rt_tgsigqueueinfo(1592, 1592, SIGUSR1, {si_signo=SIGUSR1, si_code=SI_TKILL, si_pid=1590, si_uid=0}) = -1 EPERM (Operation not permitted)");
        assert!(matches!(r, Ret::Err(ref e) if &*e.name == "EPERM"));
        let SigCall::RtTgsigqueueinfo {
            tgid: 1592,
            tid: 1592,
            sig: 10,
            info: Some(i),
        } = c
        else {
            panic!("{c:?}")
        };
        assert_eq!((i.si_code, i.si_int), (-6, None));
    }

    #[test]
    fn signal_lines_carry_queue_values_and_codes() {
        let t = crate::parse_str(
            "t.strace",
            "1142  1.0 --- SIGRT_2 {si_signo=SIGRT_2, si_code=SI_QUEUE, si_pid=1142, si_uid=0, si_int=5, si_ptr=0x5} ---\n\
             1590  1.1 --- SIGUSR2 {si_signo=SIGUSR2, si_code=SI_TKILL, si_pid=1590, si_uid=0} ---\n\
             1590  1.2 --- SIGUSR1 {si_signo=SIGUSR1, si_code=SI_USER, si_pid=1590, si_uid=0} ---\n\
             7  1.3 --- SIGRTMIN {si_signo=SIGRTMIN, si_code=SI_QUEUE, si_pid=7, si_uid=0, si_value={int=9, ptr=0x9}} ---\n",
        );
        assert!(t.errors.is_empty(), "{:?}", t.errors);
        let infos: Vec<(i32, i32, Option<i32>)> = t
            .events
            .iter()
            .map(|e| match &e.kind {
                EventKind::Signal { info: Some(i), .. } => (i.si_signo, i.si_code, i.si_int),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            infos,
            [
                (34, -1, Some(5)),
                (12, -6, None),
                (10, 0, None),
                (32, -1, Some(9))
            ]
        );
    }

    #[test]
    fn restart_syscall_and_pause() {
        let t = crate::parse_str(
            "t.strace",
            "2777  1.0 restart_syscall(<... resuming interrupted clock_nanosleep ...> <unfinished ...>\n\
             2777  1.1 <... restart_syscall resumed>) = 0\n\
             1958  1.2 pause( <unfinished ...>\n\
             1958  1.3 <... pause resumed>) = ? ERESTARTNOHAND (To be restarted if no handler)\n",
        );
        assert!(t.errors.is_empty(), "{:?}", t.errors);
        let calls: Vec<Call> = t
            .events
            .iter()
            .map(|e| match &e.kind {
                EventKind::Syscall(s) => s.call.clone(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            calls,
            [
                Call::Signal(SigCall::RestartSyscall {
                    resuming: Some("clock_nanosleep".into())
                }),
                Call::Signal(SigCall::Pause)
            ]
        );
    }

    #[test]
    fn every_signal_call_of_the_recordings_decodes() {
        let Some(traces) =
            crate::trace_tests::traces_dir_for("every_signal_call_of_the_recordings_decodes")
        else {
            return;
        };
        let dir = traces.join("signal");
        let mut seen = 0;
        for f in std::fs::read_dir(&dir).unwrap() {
            let p = f.unwrap().path();
            if !p.to_string_lossy().ends_with(".strace.gz") {
                continue;
            }
            for ev in crate::open(&p).unwrap() {
                if let EventKind::Syscall(s) = &ev.kind {
                    assert!(
                        !s.call.is_undecoded(),
                        "{}:{} {:?}",
                        p.display(),
                        ev.line,
                        s.call
                    );
                    if matches!(s.call, Call::Signal(_)) {
                        seen += 1;
                    }
                }
            }
        }
        assert!(seen > 500, "{seen}");
    }
}
