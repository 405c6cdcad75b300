//! Tests of the signal calls' decoding (`decode/signal.rs`), from parsed
//! lines and from the recordings: a module of the crate root, since they
//! read traces through the crate's own entry points.

use crate::call::{Call, Recorded};
use crate::event::{EventKind, Ret};
use crate::siginfo::SigInfo;
use taskcore::sys::{Syscall, Timespec};
use taskcore::Errno;

/// The calls this module decodes.
const SIGNAL_CALLS: [&str; 9] = [
    "rt_sigprocmask",
    "rt_sigpending",
    "rt_sigsuspend",
    "rt_sigtimedwait",
    "rt_sigqueueinfo",
    "rt_tgsigqueueinfo",
    "rt_sigreturn",
    "restart_syscall",
    "pause",
];

/// Decodes one recorded line (taken from data/traces/signal) and returns
/// its call and result.
fn line(text: &str) -> (Call, Ret) {
    let t = crate::parse_str("t.strace", &format!("{text}\n"));
    assert!(t.errors.is_empty(), "{:?}", t.errors);
    match &t.events[0].kind {
        EventKind::Syscall(s) => (s.call.clone(), s.ret.clone()),
        other => panic!("{other:?}"),
    }
}

fn sys(call: Syscall, out: Recorded) -> Call {
    Call::Sys { call, out }
}

fn mask(how: i32, set: Option<u64>, read: bool, old: Option<u64>) -> Call {
    sys(
        Syscall::RtSigprocmask { how, set },
        Recorded::Mask { read, old },
    )
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
        mask(0, Some((1 << 1) | (1 << 14) | (1 << 16)), true, Some(0))
    );
    let (c, _) =
        line("1590  1795597516.739364 rt_sigprocmask(SIG_SETMASK, ~[], [USR2 RT_2 RT_32], 8) = 0");
    assert_eq!(
        c,
        mask(2, Some(u64::MAX), true, Some(USR2 | (1 << 33) | (1 << 63)))
    );
    let (c, _) =
        line("1590  1795597516.739374 rt_sigprocmask(SIG_BLOCK, NULL, ~[KILL STOP], 8) = 0");
    assert_eq!(c, mask(0, None, true, Some(!KILL_STOP)));
    let (c, _) =
        line("1590  1795597516.739470 rt_sigprocmask(SIG_UNBLOCK, [HUP USR1], NULL, 8) = 0");
    assert_eq!(c, mask(1, Some(1 | USR1), true, None));
}

#[test]
fn rt_sigprocmask_bad_how_and_size() {
    let (c, r) = line("1590  1795597516.739414 rt_sigprocmask(0x3 /* SIG_??? */, [USR1], 0x7ffe240e0ee0, 8) = -1 EINVAL (Invalid argument)");
    assert!(matches!(r, Ret::Err(ref e) if &*e.name == "EINVAL"));
    assert_eq!(c, mask(3, Some(USR1), true, None));
    let (c, _) = line("1590  1795597516.739449 rt_sigprocmask(0xffffffff /* SIG_??? */, [USR1], 0x7ffe240e0ee0, 8) = -1 EINVAL (Invalid argument)");
    assert_eq!(c, mask(-1, Some(USR1), true, None));
    // An unread set is `None` as for NULL, with `read` false.
    let (c, _) = line("1590  1795597516.739523 rt_sigprocmask(SIG_BLOCK, 0x7ffe240e0ed8, 0x7ffe240e0ee0, 8) = -1 EFAULT (Bad address)");
    assert_eq!(c, mask(0, None, false, None));
    // A sigsetsize the kernel refuses before the call.
    let (c, _) = line("1590  1795597516.739523 rt_sigprocmask(SIG_BLOCK, 0x7ffe240e0ed8, 0x7ffe240e0ee0, 4) = -1 EINVAL (Invalid argument)");
    assert_eq!(
        c,
        Call::Refused {
            name: "rt_sigprocmask",
            err: Errno::EINVAL
        }
    );
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
    assert_eq!(s.call, mask(0, Some(1 << 16), true, Some(1 << 16)));
}

#[test]
fn pending_suspend_and_return() {
    let (c, _) = line("1142  1795597514.809354 rt_sigpending([USR1 RT_2 RT_3], 8) = 0");
    assert_eq!(
        c,
        sys(
            Syscall::RtSigpending,
            Recorded::Sigset(Some(USR1 | (1 << 33) | (1 << 34)))
        )
    );
    let (c, r) = line(
        "1590  1795597516.739601 rt_sigpending(0x7ffe240e0f00, 16) = -1 EINVAL (Invalid argument)",
    );
    assert_eq!(
        c,
        Call::Refused {
            name: "rt_sigpending",
            err: Errno::EINVAL
        }
    );
    assert!(matches!(r, Ret::Err(_)));
    let (c, _) =
        line("1590  1795597516.739601 rt_sigpending(0x7ffe240e0f00, 4) = -1 EFAULT (Bad address)");
    assert_eq!(c, sys(Syscall::RtSigpending, Recorded::Sigset(None)));
    let (c, r) = line("1605  1795597517.576158 rt_sigsuspend([HUP WINCH], 8) = ? ERESTARTNOHAND (To be restarted if no handler)");
    assert_eq!(
        c,
        sys(
            Syscall::RtSigsuspend {
                mask: 1 | (1 << 27)
            },
            Recorded::Ret
        )
    );
    assert!(matches!(r, Ret::Err(ref e) if &*e.name == "ERESTARTNOHAND"));
    let (c, r) = line("31308 1795597490.307803 rt_sigreturn({mask=[]}) = 61");
    assert_eq!(
        c,
        sys(Syscall::RtSigreturn { mask: 0 }, Recorded::Frame(Some(0)))
    );
    assert_eq!(r, Ret::Val(61));
    let (c, r) = line("31308 1795597489.652917 rt_sigreturn({mask=[HUP USR1]}) = -1 EINTR (Interrupted system call)");
    assert_eq!(
        c,
        sys(
            Syscall::RtSigreturn { mask: 1 | USR1 },
            Recorded::Frame(Some(1 | USR1))
        )
    );
    assert!(matches!(r, Ret::Err(ref e) if &*e.name == "EINTR"));
}

#[test]
fn timedwait_with_siginfo() {
    let (c, r) = line("1956  1795597519.866980 rt_sigtimedwait([CHLD], {si_signo=SIGCHLD, si_code=CLD_CONTINUED, si_pid=1957, si_uid=54322, si_status=SIGCONT, si_utime=0, si_stime=0}, {tv_sec=1, tv_nsec=0}, 8) = 17 (SIGCHLD)");
    assert_eq!(r, Ret::Val(17));
    assert_eq!(
        c,
        sys(
            Syscall::RtSigtimedwait {
                set: 1 << 16,
                timeout: Some(Timespec { sec: 1, nsec: 0 }),
            },
            Recorded::Siginfo {
                read: true,
                info: Some(Box::new(SigInfo {
                    signo: 17,
                    code: 6,
                    pid: Some(1957),
                    uid: Some(54322),
                    status: Some(18),
                    ..SigInfo::default()
                })),
            }
        )
    );
    let (c, r) = line("1956  1795597519.365487 rt_sigtimedwait([CHLD], NULL, {tv_sec=0, tv_nsec=200000000}, 8) = -1 EAGAIN (Resource temporarily unavailable)");
    assert!(matches!(r, Ret::Err(ref e) if &*e.name == "EAGAIN"));
    assert_eq!(
        c,
        sys(
            Syscall::RtSigtimedwait {
                set: 1 << 16,
                timeout: Some(Timespec {
                    sec: 0,
                    nsec: 200_000_000
                }),
            },
            Recorded::Siginfo {
                read: true,
                info: None
            }
        )
    );
    let (c, _) = line("1590  1795597516.739985 rt_sigtimedwait([RT_2 RT_3 RT_4], {si_signo=SIGRT_3, si_code=SI_USER, si_pid=1590, si_uid=0}, {tv_sec=0, tv_nsec=0}, 8) = 35 (SIGRT_3)");
    let Call::Sys {
        out: Recorded::Siginfo { info: Some(i), .. },
        ..
    } = c
    else {
        panic!()
    };
    assert_eq!((i.signo, i.code, i.int), (35, 0, None));
}

#[test]
fn queueinfo_with_values() {
    let (c, r) = line("1142  1795597514.809254 rt_sigqueueinfo(1142, SIGRT_3, {si_signo=SIGRT_3, si_code=SI_QUEUE, si_pid=1142, si_uid=0, si_int=1, si_ptr=0x1}) = 0");
    assert_eq!(r, Ret::Val(0));
    let printed = SigInfo {
        signo: 35,
        code: -1,
        pid: Some(1142),
        uid: Some(0),
        int: Some(1),
        ptr: Some(1),
        ..SigInfo::default()
    };
    assert_eq!(
        c,
        sys(
            Syscall::RtSigqueueinfo {
                tgid: 1142,
                sig: 35,
                info: taskcore::SigInfo {
                    signo: 35,
                    code: -1,
                    pid: 1142,
                    uid: 0,
                    status: 0,
                    value: 1,
                },
            },
            Recorded::Siginfo {
                read: true,
                info: Some(Box::new(printed))
            }
        )
    );
    let (c, r) = line("1590  1795597516.751733 rt_tgsigqueueinfo(1592, 1592, SIGUSR1, {si_signo=SIGUSR1, si_code=SI_TKILL, si_pid=1590, si_uid=0}) = -1 EPERM (Operation not permitted)");
    assert!(matches!(r, Ret::Err(ref e) if &*e.name == "EPERM"));
    let Call::Sys {
        call:
            Syscall::RtTgsigqueueinfo {
                tgid: 1592,
                tid: 1592,
                sig: 10,
                info,
            },
        out: Recorded::Siginfo { info: Some(i), .. },
    } = c
    else {
        panic!("{c:?}")
    };
    assert_eq!((i.code, i.int), (-6, None));
    assert_eq!((info.code, info.pid, info.value), (-6, 1590, 0));
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
            EventKind::Signal { info: Some(i), .. } => (i.signo, i.code, i.int),
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
            Call::RestartSyscall {
                resuming: Some("clock_nanosleep".into())
            },
            sys(Syscall::Pause, Recorded::Ret)
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
                if SIGNAL_CALLS.contains(&&*s.name) {
                    seen += 1;
                }
            }
        }
    }
    assert!(seen > 500, "{seen}");
}
