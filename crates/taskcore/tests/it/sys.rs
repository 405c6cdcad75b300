//! `taskcore::sys`: decoding raw x86_64 calls and dispatching them onto a
//! Kernel, with the same results as the Kernel's own methods.

use std::collections::HashMap;

use taskcore::sys::{dispatch, nr, FdTable, Prctl, Ptrace, SysRet, Syscall, Timespec, UserMemory};
use taskcore::uapi::*;
use taskcore::{
    Config, Errno, Kernel, PidFd, Result, SetnsFd, SigAction, SigHandler, SigInfo, SigWait,
    WaitOutcome,
};

/// Memory made of a few byte ranges; the rest is unreadable.
struct Mem(HashMap<u64, Vec<u8>>);

impl UserMemory for Mem {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<()> {
        for (base, bytes) in &self.0 {
            if addr >= *base && addr - base + buf.len() as u64 <= bytes.len() as u64 {
                let off = (addr - base) as usize;
                buf.copy_from_slice(&bytes[off..off + buf.len()]);
                return Ok(());
            }
        }
        Err(Errno::EFAULT)
    }
}

/// The numbers agree with this machine's `<asm/unistd_64.h>` (Linux's own
/// table), where the header is installed.
#[test]
fn numbers_are_linuxs() {
    let Ok(h) = std::fs::read_to_string("/usr/include/x86_64-linux-gnu/asm/unistd_64.h") else {
        eprintln!("SKIPPED numbers_are_linuxs: no /usr/include/x86_64-linux-gnu/asm/unistd_64.h");
        return;
    };
    let table: HashMap<&str, u64> = h
        .lines()
        .filter_map(|l| {
            let mut w = l.strip_prefix("#define __NR_")?.split_whitespace();
            Some((w.next()?, w.next()?.parse().ok()?))
        })
        .collect();
    let calls = [
        Syscall::Fork,
        Syscall::Vfork,
        Syscall::Setsid,
        Syscall::Getpgrp,
        Syscall::Getppid,
        Syscall::Getpid,
        Syscall::Gettid,
        Syscall::Getuid,
        Syscall::Geteuid,
        Syscall::Getgid,
        Syscall::Getegid,
        Syscall::Getresuid,
        Syscall::Getresgid,
        Syscall::Exit { code: 0 },
        Syscall::ExitGroup { code: 0 },
        Syscall::Wait4 { pid: 0, options: 0 },
        Syscall::Kill { pid: 0, sig: 0 },
        Syscall::Brk { addr: 0 },
        Syscall::Prctl(Prctl::GetName),
        Syscall::Ptrace(Ptrace::Traceme),
        Syscall::RtSigpending,
        Syscall::Pause,
        Syscall::RtSigreturn { mask: 0 },
        Syscall::RtSigsuspend { mask: 0 },
        Syscall::RtSigprocmask { how: 0, set: None },
        Syscall::RtSigtimedwait {
            set: 0,
            timeout: None,
        },
        Syscall::RtSigqueueinfo {
            tgid: 0,
            sig: 0,
            info: SigInfo::default(),
        },
        Syscall::RtTgsigqueueinfo {
            tgid: 0,
            tid: 0,
            sig: 0,
            info: SigInfo::default(),
        },
        Syscall::PidfdOpen { pid: 0, flags: 0 },
        Syscall::Unshare { flags: 0 },
    ];
    for c in &calls {
        assert_eq!(table[c.name()], c.nr(), "{}", c.name());
    }
    for name in [
        "clone",
        "clone3",
        "execve",
        "waitid",
        "setpgid",
        "getpgid",
        "getsid",
        "tgkill",
        "tkill",
        "rt_sigaction",
        "setuid",
        "setgid",
        "setreuid",
        "setregid",
        "setresuid",
        "setresgid",
        "setfsuid",
        "setfsgid",
        "setgroups",
        "getgroups",
        "getrlimit",
        "setrlimit",
        "prlimit64",
        "mmap",
        "munmap",
        "mprotect",
        "mremap",
        "rt_sigprocmask",
        "rt_sigpending",
        "rt_sigqueueinfo",
        "rt_tgsigqueueinfo",
        "rt_sigtimedwait",
        "rt_sigsuspend",
        "pause",
        "pidfd_open",
        "pidfd_send_signal",
        "unshare",
        "setns",
    ] {
        // Every named call decodes from its number (or fails only on its
        // arguments, never ENOSYS).
        let r = Syscall::from_raw(table[name], [0; 6]);
        assert!(
            r.as_ref()
                .map_or_else(|e| *e != Errno::ENOSYS, |c| c.name() == name),
            "{name}: {r:?}"
        );
    }
}

#[test]
fn unknown_numbers_and_options_get_linuxs_errors() {
    assert_eq!(Syscall::from_raw(0, [0; 6]), Err(Errno::ENOSYS)); // read
    assert_eq!(Syscall::from_raw(u64::MAX, [0; 6]), Err(Errno::ENOSYS));
    // prctl: an unknown option is EINVAL; ptrace: an unknown request EIO.
    assert_eq!(
        Syscall::from_raw(nr::PRCTL, [9999, 0, 0, 0, 0, 0]),
        Err(Errno::EINVAL)
    );
    assert_eq!(
        Syscall::from_raw(nr::PRCTL, [nr::PR_SET_PDEATHSIG, 65, 0, 0, 0, 0]),
        Err(Errno::EINVAL)
    );
    assert_eq!(
        Syscall::from_raw(nr::PTRACE, [0x4242, 1, 0, 0, 0, 0]),
        Err(Errno::EIO)
    );
    // rt_sigaction with a sigset size other than 8.
    assert_eq!(
        Syscall::from_raw(nr::RT_SIGACTION, [10, 0, 0, 16, 0, 0]),
        Err(Errno::EINVAL)
    );
    // clone3 sizes; pointers without memory.
    assert_eq!(
        Syscall::from_raw(nr::CLONE3, [0x1000, 8, 0, 0, 0, 0]),
        Err(Errno::EINVAL)
    );
    assert_eq!(
        Syscall::from_raw(nr::CLONE3, [0x1000, 8192, 0, 0, 0, 0]),
        Err(Errno::E2BIG)
    );
    assert_eq!(
        Syscall::from_raw(nr::CLONE3, [0x1000, 64, 0, 0, 0, 0]),
        Err(Errno::EFAULT)
    );
    assert_eq!(
        Syscall::from_raw(nr::EXECVE, [0x1000, 0, 0, 0, 0, 0]),
        Err(Errno::EFAULT)
    );
    // mmap: unaligned offset first, then a file fd the core cannot resolve.
    assert_eq!(
        Syscall::from_raw(nr::MMAP, [0, 4096, 3, 2, 3, 1]),
        Err(Errno::EINVAL)
    );
    assert_eq!(
        Syscall::from_raw(nr::MMAP, [0, 4096, 3, 2, 3, 0]),
        Err(Errno::EBADF)
    );
}

#[test]
fn int_arguments_are_truncated_to_32_bits() {
    assert_eq!(
        Syscall::from_raw(nr::KILL, [0xffff_ffff_ffff_ffff, 0x1_0000_0009, 0, 0, 0, 0]),
        Ok(Syscall::Kill { pid: -1, sig: 9 })
    );
    assert_eq!(
        Syscall::from_raw(nr::WAIT4, [0x1_0000_0002, 0xdead, 1, 0, 0, 0]),
        Ok(Syscall::Wait4 {
            pid: 2,
            options: WNOHANG
        })
    );
}

#[test]
fn pointer_arguments_are_read_from_user_memory() {
    let mut m = HashMap::new();
    m.insert(0x1000, b"/bin/sh\0".to_vec());
    m.insert(0x2000, b"sh\0".to_vec());
    m.insert(0x2100, b"-c\0".to_vec());
    let argv: Vec<u8> = [0x2000u64, 0x2100, 0]
        .iter()
        .flat_map(|p| p.to_le_bytes())
        .collect();
    m.insert(0x3000, argv);
    // struct kernel_sigaction: handler SIG_IGN, flags SA_RESTART.
    let act: Vec<u8> = [1u64, 0x1000_0000, 0, 0]
        .iter()
        .flat_map(|p| p.to_le_bytes())
        .collect();
    m.insert(0x4000, act);
    m.insert(0x5000, b"worker-name-that-is-long\0".to_vec());
    let mem = Mem(m);
    assert_eq!(
        Syscall::from_raw_with(nr::EXECVE, [0x1000, 0x3000, 0, 0, 0, 0], &mem),
        Ok(Syscall::Execve {
            filename: "/bin/sh".into(),
            argv: Some(vec![b"sh".to_vec(), b"-c".to_vec()])
        })
    );
    assert_eq!(
        Syscall::from_raw_with(nr::RT_SIGACTION, [SIGCHLD as u64, 0x4000, 0, 8, 0, 0], &mem),
        Ok(Syscall::RtSigaction {
            sig: SIGCHLD,
            act: Some(SigAction::new(SigHandler::Ignore, 0x1000_0000))
        })
    );
    // PR_SET_NAME copies at most 15 bytes.
    assert_eq!(
        Syscall::from_raw_with(nr::PRCTL, [nr::PR_SET_NAME, 0x5000, 0, 0, 0, 0], &mem),
        Ok(Syscall::Prctl(Prctl::SetName(b"worker-name-tha".to_vec())))
    );
}

#[test]
fn dispatch_gives_the_kernels_results() {
    let mut k = Kernel::new(Config::default()).unwrap();
    let mut twin = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    let call = |k: &mut Kernel, c, nr, a| dispatch(k, c, &Syscall::from_raw(nr, a).unwrap());
    let Ok(SysRet::Child { task: a, pid, .. }) = call(&mut k, init, nr::FORK, [0; 6]) else {
        panic!()
    };
    let ta = twin.fork(init).unwrap();
    assert_eq!(pid, twin.pid_vnr(init, ta).unwrap());
    assert_eq!(call(&mut k, a, nr::GETPPID, [0; 6]), Ok(SysRet::Value(1)));
    assert_eq!(
        call(&mut k, a, nr::SETSID, [0; 6]).map(|r| r.raw()),
        Ok(pid.into())
    );
    twin.setsid(ta).unwrap();
    // Errors are the Kernel's, state unchanged.
    assert_eq!(call(&mut k, a, nr::SETSID, [0; 6]), Err(Errno::EPERM));
    assert_eq!(
        call(&mut k, a, nr::KILL, [99, 9, 0, 0, 0, 0]),
        Err(Errno::ESRCH)
    );
    assert_eq!(
        call(
            &mut k,
            a,
            nr::PRCTL,
            [nr::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0, 0]
        ),
        Ok(SysRet::Value(0))
    );
    assert_eq!(
        call(
            &mut k,
            a,
            nr::PRCTL,
            [nr::PR_GET_CHILD_SUBREAPER, 0x1000, 0, 0, 0, 0]
        ),
        Ok(SysRet::Written(1))
    );
    twin.set_child_subreaper(ta, true).unwrap();
    assert_eq!(
        call(&mut k, a, nr::EXIT_GROUP, [7, 0, 0, 0, 0, 0]),
        Ok(SysRet::Value(0))
    );
    twin.exit_group(ta, 7).unwrap();
    let r = call(&mut k, init, nr::WAIT4, [u64::MAX, 0, 0, 0, 0, 0]).unwrap();
    assert_eq!(r, SysRet::Wait(twin.wait4(init, -1, 0).unwrap()));
    assert!(matches!(r, SysRet::Wait(WaitOutcome::Reported(ref w)) if w.status == 7 << 8));
    assert_eq!(r.raw(), pid.into());
    assert_eq!(
        call(&mut k, init, nr::WAIT4, [u64::MAX, 0, 0, 0, 0, 0]),
        Err(Errno::ECHILD)
    );
}

/// getuid, geteuid, getgid, getegid read the real and effective ids that
/// setresuid/setresgid set (kernel/sys.c: `current_uid()`,
/// `current_euid()`, ...), decoded from their numbers.
#[test]
fn getuid_and_friends_read_the_real_and_effective_ids() {
    let mut k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    let call = |k: &mut Kernel, nr, a| dispatch(k, init, &Syscall::from_raw(nr, a).unwrap());
    let ok = Ok(SysRet::Value(0));
    assert_eq!(call(&mut k, nr::SETRESGID, [4, 5, 6, 0, 0, 0]), ok);
    assert_eq!(call(&mut k, nr::SETRESUID, [1000, 2000, 3000, 0, 0, 0]), ok);
    assert_eq!(call(&mut k, nr::GETUID, [0; 6]), Ok(SysRet::Value(1000)));
    assert_eq!(call(&mut k, nr::GETEUID, [0; 6]), Ok(SysRet::Value(2000)));
    assert_eq!(call(&mut k, nr::GETGID, [0; 6]), Ok(SysRet::Value(4)));
    assert_eq!(call(&mut k, nr::GETEGID, [0; 6]), Ok(SysRet::Value(5)));
}

/// The recording program's fds (tests/oracle/sys_decode_rules.c): 3 is
/// /dev/null, 4 a pidfd on itself, the rest closed.
struct Fds {
    self_pidfd: PidFd,
}

impl FdTable for Fds {
    fn pidfd(&self, fd: i32) -> Result<PidFd> {
        match fd {
            4 => Ok(self.self_pidfd),
            _ => Err(Errno::EBADF),
        }
    }
    fn setns_fd(&self, fd: i32) -> Result<SetnsFd> {
        match fd {
            3 => Err(Errno::EINVAL),
            4 => Ok(SetnsFd::PidFd(self.self_pidfd)),
            _ => Err(Errno::EBADF),
        }
    }
}

/// Decoding and dispatch give the answers Linux gave to
/// tests/oracle/sys_decode_rules.c: sigset sizes, unreadable pointers,
/// the timeout checks, and the order of the flag, fd and siginfo checks.
#[test]
fn signal_and_pidfd_decoding_follows_linux() {
    let oracle: HashMap<&str, &str> = include_str!("oracle/sys_decode_rules.out")
        .lines()
        .filter_map(|l| l.split_once(' '))
        .collect();
    let mut k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    let me = k.fork(init).unwrap();
    let pid = k.pid_vnr(me, me).unwrap() as u64;
    let fds = Fds {
        self_pidfd: k.pidfd_open(me, pid as i32, 0).unwrap(),
    };
    let usr1 = 1u64 << (SIGUSR1 - 1);
    let ts = |sec: i64, nsec: i64| [sec.to_le_bytes(), nsec.to_le_bytes()].concat();
    let mem = Mem(HashMap::from([
        (0x1000, usr1.to_le_bytes().to_vec()),
        (0x2000, ts(0, 0)),
        (0x2100, ts(0, 1_000_000_000)),
        (0x2200, ts(-1, 0)),
    ]));
    const BAD: u64 = 8;
    const DEVNULL: u64 = 3;
    const SELF: u64 = 4;
    const CLOSED: u64 = 1000;
    let m1 = u64::MAX; // -1 as a register
    let cases: [(&str, u64, [u64; 6]); 28] = [
        (
            "sigprocmask_size16",
            nr::RT_SIGPROCMASK,
            [0, 0x1000, 0x3000, 16, 0, 0],
        ),
        (
            "sigprocmask_set_efault",
            nr::RT_SIGPROCMASK,
            [0, BAD, 0x3000, 8, 0, 0],
        ),
        (
            "sigprocmask_null_set_bad_how",
            nr::RT_SIGPROCMASK,
            [99, 0, 0x3000, 8, 0, 0],
        ),
        (
            "sigpending_size4",
            nr::RT_SIGPENDING,
            [0x3000, 4, 0, 0, 0, 0],
        ),
        (
            "sigpending_size16",
            nr::RT_SIGPENDING,
            [0x3000, 16, 0, 0, 0, 0],
        ),
        (
            "sigsuspend_size16",
            nr::RT_SIGSUSPEND,
            [0x1000, 16, 0, 0, 0, 0],
        ),
        ("sigsuspend_efault", nr::RT_SIGSUSPEND, [BAD, 8, 0, 0, 0, 0]),
        (
            "sigtimedwait_size16",
            nr::RT_SIGTIMEDWAIT,
            [0x1000, 0x3000, 0x2000, 16, 0, 0],
        ),
        (
            "sigtimedwait_set_efault",
            nr::RT_SIGTIMEDWAIT,
            [BAD, 0x3000, 0x2000, 8, 0, 0],
        ),
        (
            "sigtimedwait_ts_efault",
            nr::RT_SIGTIMEDWAIT,
            [0x1000, 0x3000, BAD, 8, 0, 0],
        ),
        (
            "sigtimedwait_zero_nothing",
            nr::RT_SIGTIMEDWAIT,
            [0x1000, 0x3000, 0x2000, 8, 0, 0],
        ),
        (
            "sigtimedwait_nsec_1e9",
            nr::RT_SIGTIMEDWAIT,
            [0x1000, 0x3000, 0x2100, 8, 0, 0],
        ),
        (
            "sigtimedwait_sec_neg",
            nr::RT_SIGTIMEDWAIT,
            [0x1000, 0x3000, 0x2200, 8, 0, 0],
        ),
        (
            "sigqueueinfo_efault",
            nr::RT_SIGQUEUEINFO,
            [pid, 10, BAD, 0, 0, 0],
        ),
        (
            "tgsigqueueinfo_efault",
            nr::RT_TGSIGQUEUEINFO,
            [pid, pid, 10, BAD, 0, 0],
        ),
        (
            "pidfd_send_two_scopes_bad_fd",
            nr::PIDFD_SEND_SIGNAL,
            [m1, 0, 0, 3, 0, 0],
        ),
        (
            "pidfd_send_unknown_flag_bad_fd",
            nr::PIDFD_SEND_SIGNAL,
            [m1, 0, 0, 8, 0, 0],
        ),
        (
            "pidfd_send_bad_fd",
            nr::PIDFD_SEND_SIGNAL,
            [m1, 0, 0, 0, 0, 0],
        ),
        (
            "pidfd_send_closed_fd_bad_info",
            nr::PIDFD_SEND_SIGNAL,
            [CLOSED, 0, BAD, 0, 0, 0],
        ),
        (
            "pidfd_send_not_pidfd",
            nr::PIDFD_SEND_SIGNAL,
            [DEVNULL, 0, 0, 0, 0, 0],
        ),
        (
            "pidfd_send_info_efault",
            nr::PIDFD_SEND_SIGNAL,
            [SELF, 0, BAD, 0, 0, 0],
        ),
        (
            "waitid_pidfd_no_options_bad_fd",
            nr::WAITID,
            [3, m1, 0x3000, 0, 0, 0],
        ),
        (
            "waitid_pidfd_negative_fd",
            nr::WAITID,
            [3, m1, 0x3000, 4, 0, 0],
        ),
        (
            "waitid_pidfd_closed_fd",
            nr::WAITID,
            [3, CLOSED, 0x3000, 4, 0, 0],
        ),
        (
            "waitid_pidfd_not_pidfd",
            nr::WAITID,
            [3, DEVNULL, 0x3000, 4, 0, 0],
        ),
        ("setns_bad_fd", nr::SETNS, [m1, 0, 0, 0, 0, 0]),
        ("setns_not_ns", nr::SETNS, [DEVNULL, 0, 0, 0, 0, 0]),
        ("setns_pidfd_nstype_neg", nr::SETNS, [SELF, m1, 0, 0, 0, 0]),
    ];
    assert_eq!(cases.len(), oracle.len());
    for (name, nr, args) in cases {
        let r = Syscall::from_raw_in(nr, args, &mem, &fds).and_then(|c| dispatch(&mut k, me, &c));
        let got = r.map_or_else(|e| format!("{e:?}"), |_| "ok".into());
        assert_eq!(got, oracle[name], "{name}");
    }
}

#[test]
fn signal_and_namespace_calls_dispatch_to_the_kernel() {
    let mut k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    let a = k.fork(init).unwrap();
    let pid = k.pid_vnr(init, a).unwrap();
    let usr1 = 1u64 << (SIGUSR1 - 1);
    let d = |k: &mut Kernel, c: Syscall| dispatch(k, a, &c);
    // Block SIGUSR1, queue it with a value, see it pending, take it.
    let block = Syscall::RtSigprocmask {
        how: SIG_BLOCK,
        set: Some(usr1),
    };
    assert_eq!(d(&mut k, block), Ok(SysRet::Sigset(0)));
    let info = SigInfo {
        code: SI_QUEUE,
        pid,
        value: 42,
        ..SigInfo::default()
    };
    let queue = Syscall::RtSigqueueinfo {
        tgid: pid,
        sig: SIGUSR1,
        info,
    };
    assert_eq!(d(&mut k, queue), Ok(SysRet::Value(0)));
    assert_eq!(d(&mut k, Syscall::RtSigpending), Ok(SysRet::Sigset(usr1)));
    let wait = |timeout| Syscall::RtSigtimedwait { set: usr1, timeout };
    let r = d(&mut k, wait(None)).unwrap();
    let SysRet::SigWait(SigWait::Signal(got)) = r else {
        panic!("{r:?}")
    };
    assert_eq!((got.signo, got.code, got.value), (SIGUSR1, SI_QUEUE, 42));
    assert_eq!(r.raw(), SIGUSR1.into());
    // Nothing left: a zero timeout is EAGAIN, none blocks.
    assert_eq!(d(&mut k, wait(Some(Timespec::ZERO))), Err(Errno::EAGAIN));
    assert_eq!(
        d(&mut k, wait(Some(Timespec { sec: 1, nsec: 0 }))),
        Ok(SysRet::SigWait(SigWait::WouldBlock))
    );
    // pidfd_open, then a signal and a wait through it.
    let Ok(SysRet::PidFd(fd)) = dispatch(&mut k, init, &Syscall::PidfdOpen { pid, flags: 0 })
    else {
        panic!()
    };
    let send = Syscall::PidfdSendSignal {
        fd,
        sig: SIGKILL,
        info: None,
        flags: 0,
    };
    assert_eq!(dispatch(&mut k, init, &send), Ok(SysRet::Value(0)));
    let r = dispatch(
        &mut k,
        init,
        &Syscall::WaitidPidfd {
            fd,
            options: WEXITED,
        },
    );
    assert!(matches!(r, Ok(SysRet::Waitid(WaitOutcome::Reported(ref w))) if w.pid == pid));
    // waitid returns 0 (the pid is in the siginfo), wait4 the pid.
    assert_eq!(r.map(|r| r.raw()), Ok(0));
    // clone with CLONE_PIDFD returns the child's pidfd.
    let r = dispatch(
        &mut k,
        init,
        &Syscall::from_raw(nr::CLONE, [CLONE_PIDFD | SIGCHLD as u64, 0, 0, 0, 0, 0]).unwrap(),
    )
    .unwrap();
    let SysRet::Child {
        pidfd: Some(cfd), ..
    } = r
    else {
        panic!("{r:?}")
    };
    assert_eq!(k.pidfd_poll(cfd), Ok(0));
    // unshare(CLONE_NEWPID): the next child is pid 1 of a new namespace;
    // a second one is EINVAL (pid_for_children already differs).
    let unshare = Syscall::from_raw(nr::UNSHARE, [CLONE_NEWPID, 0, 0, 0, 0, 0]).unwrap();
    assert_eq!(dispatch(&mut k, init, &unshare), Ok(SysRet::Value(0)));
    assert_eq!(dispatch(&mut k, init, &unshare), Err(Errno::EINVAL));
    let c = k.fork(init).unwrap();
    assert_eq!(k.pid_vnr(c, c), Ok(1));
    // rt_sigreturn is not decoded from registers (its frame is on the
    // stack); built from the frame, it restores the mask.
    assert_eq!(
        Syscall::from_raw(nr::RT_SIGRETURN, [0; 6]),
        Err(Errno::ENOSYS)
    );
    assert_eq!(
        dispatch(&mut k, init, &Syscall::RtSigreturn { mask: usr1 }),
        Ok(SysRet::Value(0))
    );
    assert_eq!(k.sigmask(init), Ok(usr1));
}

/// `dispatch_api` on a Kernel gives `dispatch`'s results, call for call,
/// and ENOSYS (changing nothing) for calls outside `TaskApi`.
#[test]
fn dispatch_api_agrees_with_dispatch() {
    use taskcore::sys::{dispatch_api, ApiRet, KernelPidFds};
    let mut k1 = Kernel::new(Config::default()).unwrap();
    let mut k2 = Kernel::new(Config::default()).unwrap();
    let init = k1.init_task().unwrap();
    let fork = |k1: &mut Kernel, k2: &mut Kernel, c: Syscall| {
        let Ok(SysRet::Child { task, pid, .. }) = dispatch(k1, init, &c) else {
            panic!()
        };
        let Ok(ApiRet::Child {
            task: t2, pid: p2, ..
        }) = dispatch_api(k2, init, &c, &KernelPidFds)
        else {
            panic!()
        };
        assert_eq!((task, pid), (t2, p2));
        task
    };
    let a = fork(&mut k1, &mut k2, Syscall::Fork);
    let b = fork(&mut k1, &mut k2, Syscall::Vfork);
    // The pidfd calls: CLONE_PIDFD, pidfd_open, pidfd_send_signal and
    // waitid(P_PIDFD) give the same pidfds and results.
    let clone = Syscall::Clone(taskcore::CloneArgs {
        flags: CLONE_PIDFD,
        exit_signal: SIGCHLD,
        set_tid: vec![],
    });
    let Ok(SysRet::Child {
        pidfd: Some(fd1), ..
    }) = dispatch(&mut k1, init, &clone)
    else {
        panic!()
    };
    let Ok(ApiRet::Child {
        pidfd: Some(fd2), ..
    }) = dispatch_api(&mut k2, init, &clone, &KernelPidFds)
    else {
        panic!()
    };
    assert_eq!(fd1, fd2);
    let open = Syscall::PidfdOpen { pid: 2, flags: 0 };
    let Ok(SysRet::PidFd(o1)) = dispatch(&mut k1, init, &open) else {
        panic!()
    };
    assert_eq!(
        dispatch_api(&mut k2, init, &open, &KernelPidFds),
        Ok(ApiRet::PidFd(o1))
    );
    for call in [
        Syscall::PidfdSendSignal {
            fd: fd1,
            sig: SIGSTOP,
            info: None,
            flags: 0,
        },
        Syscall::WaitidPidfd {
            fd: fd1,
            options: WSTOPPED | WNOHANG,
        },
        Syscall::PidfdSendSignal {
            fd: o1,
            sig: 0,
            info: None,
            flags: PIDFD_SIGNAL_THREAD_GROUP,
        },
    ] {
        let want = dispatch(&mut k1, init, &call);
        let got = dispatch_api(&mut k2, init, &call, &KernelPidFds).map(|r| match r {
            ApiRet::Ret(r) => r,
            other => panic!("{other:?}"),
        });
        assert!(want.is_ok(), "{call:?}: {want:?}");
        assert_eq!(got, want, "{call:?}");
    }
    let act = SigAction::new(SigHandler::Ignore, 0);
    for (c, call) in [
        (a, Syscall::Getpid),
        (a, Syscall::Gettid),
        (a, Syscall::Getppid),
        (a, Syscall::Getpgrp),
        (a, Syscall::Setpgid { pid: 0, pgid: 0 }),
        (a, Syscall::Getpgid { pid: 0 }),
        (a, Syscall::Setsid),
        (a, Syscall::Setsid),
        (a, Syscall::Getsid { pid: 0 }),
        (
            a,
            Syscall::RtSigaction {
                sig: SIGUSR1,
                act: Some(act),
            },
        ),
        (
            a,
            Syscall::RtSigaction {
                sig: SIGUSR1,
                act: None,
            },
        ),
        (a, Syscall::Kill { pid: 3, sig: 0 }),
        (
            a,
            Syscall::Tgkill {
                tgid: 3,
                tid: 3,
                sig: 0,
            },
        ),
        (a, Syscall::Tkill { tid: 99, sig: 0 }),
        (a, Syscall::Prctl(Prctl::SetChildSubreaper(true))),
        (
            init,
            Syscall::Ptrace(Ptrace::Attach {
                pid: 2,
                seize: true,
            }),
        ),
        (init, Syscall::Ptrace(Ptrace::Cont { pid: 2, sig: 0 })),
        (init, Syscall::Ptrace(Ptrace::Detach { pid: 2, sig: 0 })),
        (b, Syscall::Ptrace(Ptrace::Traceme)),
        (
            b,
            Syscall::Execve {
                filename: "/bin/x".into(),
                argv: None,
            },
        ),
        (b, Syscall::Exit { code: 1 }),
        (a, Syscall::ExitGroup { code: 2 }),
        (
            init,
            Syscall::Waitid {
                idtype: P_ALL,
                id: 0,
                options: WEXITED | WNOWAIT,
            },
        ),
        (
            init,
            Syscall::Wait4 {
                pid: -1,
                options: 0,
            },
        ),
        (
            init,
            Syscall::Wait4 {
                pid: -1,
                options: 0,
            },
        ),
        (
            init,
            Syscall::Wait4 {
                pid: -1,
                options: 0,
            },
        ),
    ] {
        let want = dispatch(&mut k1, c, &call);
        let got = dispatch_api(&mut k2, c, &call, &KernelPidFds).map(|r| match r {
            ApiRet::Ret(r) => r,
            other => panic!("{other:?}"),
        });
        assert_eq!(got, want, "{call:?}");
    }
    // The credential, mask and process-prctl calls are the TaskApi's too.
    for call in [
        Syscall::Prctl(Prctl::SetName(b"x".to_vec())),
        Syscall::Prctl(Prctl::GetName),
        Syscall::Prctl(Prctl::SetPdeathsig(SIGUSR1)),
        Syscall::Prctl(Prctl::GetPdeathsig),
        Syscall::RtSigprocmask {
            how: SIG_BLOCK,
            set: Some(1 << 9),
        },
        Syscall::RtSigpending,
        Syscall::Setgroups { groups: vec![7] },
        Syscall::Setresuid {
            ruid: 5,
            euid: 5,
            suid: 5,
        },
        Syscall::Setuid { uid: 0 },
    ] {
        let want = dispatch(&mut k1, init, &call);
        let got = dispatch_api(&mut k2, init, &call, &KernelPidFds).map(|r| match r {
            ApiRet::Ret(r) => r,
            other => panic!("{other:?}"),
        });
        assert_eq!(got, want, "{call:?}");
    }
    assert_eq!(k2.cred(init).unwrap().uid, 5);
    // A call outside the TaskApi: ENOSYS, nothing changed.
    let limit = Syscall::Setrlimit {
        resource: RLIMIT_NOFILE,
        new: taskcore::Rlimit { cur: 1, max: 1 },
    };
    assert_eq!(
        dispatch_api(&mut k2, init, &limit, &KernelPidFds),
        Err(Errno::ENOSYS)
    );
    assert_eq!(
        dispatch(
            &mut k2,
            init,
            &Syscall::Getrlimit {
                resource: RLIMIT_NOFILE
            }
        )
        .map(|r| matches!(r, SysRet::Rlimit(l) if l.cur != 1)),
        Ok(true)
    );
}

/// The ptrace requests beyond attach/cont/detach: decoded from the raw
/// call as Linux reads them, dispatched with the Kernel methods' results.
#[test]
fn ptrace_requests_decode_and_dispatch_as_the_kernel() {
    let raw = |req: u64, pid: u64, addr: u64, data: u64| {
        Syscall::from_raw(nr::PTRACE, [req, pid, addr, data, 0, 0])
    };
    let seize = Ptrace::Seize {
        pid: 5,
        options: 0x11,
    };
    assert_eq!(raw(0x4206, 5, 0, 0x11), Ok(Syscall::Ptrace(seize)));
    // ptrace_attach(): PTRACE_SEIZE's addr must be 0.
    assert_eq!(raw(0x4206, 5, 8, 0), Err(Errno::EIO));
    let wide = Ptrace::Setoptions {
        pid: 5,
        options: u32::MAX,
    };
    assert_eq!(raw(0x4200, 5, 0, 1 << 40), Ok(Syscall::Ptrace(wide)));
    for (req, want) in [
        (0x4201, Ptrace::Geteventmsg { pid: 5 }),
        (0x4202, Ptrace::Getsiginfo { pid: 5 }),
        (0x4207, Ptrace::Interrupt { pid: 5 }),
        (0x4208, Ptrace::Listen { pid: 5 }),
        (24, Ptrace::Syscall { pid: 5, sig: 9 }),
    ] {
        assert_eq!(raw(req, 5, 0, 9), Ok(Syscall::Ptrace(want)), "{req:#x}");
    }

    let mut k = Kernel::new(Config::default()).unwrap();
    let mut twin = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    let Ok(SysRet::Child { pid, .. }) = dispatch(&mut k, init, &Syscall::Fork) else {
        panic!()
    };
    twin.fork(init).unwrap();
    let p = pid as u64;
    let call =
        |k: &mut Kernel, req, addr, data| dispatch(k, init, &raw(req, p, addr, data).unwrap());
    // Bad options: EIO for PTRACE_SEIZE, EINVAL for PTRACE_SETOPTIONS.
    assert_eq!(call(&mut k, 0x4206, 0, 1 << 31), Err(Errno::EIO));
    assert_eq!(twin.ptrace_seize(init, pid, 1 << 31), Err(Errno::EIO));
    use taskcore::task::ptrace_event::{PTRACE_O_TRACEFORK, PTRACE_O_TRACESYSGOOD};
    let opts = u64::from(PTRACE_O_TRACEFORK | PTRACE_O_TRACESYSGOOD);
    assert_eq!(call(&mut k, 0x4206, 0, opts), Ok(SysRet::Value(0)));
    twin.ptrace_seize(init, pid, opts as u32).unwrap();
    // SETOPTIONS wants a stopped tracee (ESRCH first), then valid
    // options (EINVAL).
    let steps: [(u64, u64); 9] = [
        (0x4200, opts),
        (0x4202, 0), // GETSIGINFO while running
        (0x4207, 0), // INTERRUPT
        (0x4200, 1 << 40),
        (0x4202, 0), // GETSIGINFO in the PTRACE_EVENT_STOP
        (0x4201, 0), // GETEVENTMSG
        (0x4200, opts),
        (0x4208, 0), // LISTEN
        (24, 0),     // SYSCALL while listening
    ];
    let mut outcomes = Vec::new();
    for (req, data) in steps {
        let got = call(&mut k, req, 0, data);
        outcomes.push(got.clone());
        let want = match req {
            0x4202 => twin.ptrace_getsiginfo(init, pid).map(SysRet::SigInfo),
            0x4201 => twin.ptrace_geteventmsg(init, pid).map(SysRet::EventMsg),
            0x4207 => twin.ptrace_interrupt(init, pid).map(|()| SysRet::Value(0)),
            0x4200 => twin
                .ptrace_setoptions(init, pid, u32::try_from(data).unwrap_or(u32::MAX))
                .map(|()| SysRet::Value(0)),
            0x4208 => twin.ptrace_listen(init, pid).map(|()| SysRet::Value(0)),
            _ => twin.ptrace_syscall(init, pid, 0).map(|()| SysRet::Value(0)),
        };
        assert_eq!(got, want, "request {req:#x}");
        if let Ok(r) = &got {
            assert_eq!(r.raw(), 0, "request {req:#x}");
        }
    }
    // Running: ESRCH (ptrace_check_attach()); stopped by the interrupt,
    // every request works; listening: ESRCH again.
    let kinds: Vec<&str> = outcomes
        .iter()
        .map(|r| match r {
            Err(Errno::ESRCH) => "esrch",
            Err(Errno::EINVAL) => "einval",
            Ok(SysRet::SigInfo(_)) => "siginfo",
            Ok(SysRet::EventMsg(_)) => "msg",
            Ok(SysRet::Value(0)) => "ok",
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        kinds,
        ["esrch", "esrch", "ok", "einval", "siginfo", "msg", "ok", "ok", "esrch"]
    );
}

#[test]
fn nr_all_is_exactly_what_from_raw_decodes() {
    // A number outside the list is ENOSYS whatever the registers; every
    // number in it decodes to a call of that number (prctl and ptrace
    // given an option and a request the core models).
    assert!(nr::ALL.windows(2).all(|w| w[0] < w[1]));
    for n in 0..=600u64 {
        let regs = match n {
            nr::PRCTL => [nr::PR_GET_DUMPABLE, 0, 0, 0, 0, 0],
            _ => [0; 6],
        };
        let r = Syscall::from_raw(n, regs);
        if n == nr::RT_SIGRETURN {
            // Its frame is the embedder's to read.
            assert_eq!(r, Err(Errno::ENOSYS));
        } else if nr::ALL.contains(&n) {
            match r {
                Ok(call) => assert_eq!(call.nr(), n, "{}", call.name()),
                Err(e) => assert_ne!(e, Errno::ENOSYS, "{n}"),
            }
        } else {
            assert_eq!(r, Err(Errno::ENOSYS), "{n}");
        }
    }
}
