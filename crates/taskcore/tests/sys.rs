//! `taskcore::sys`: decoding raw x86_64 calls and dispatching them onto a
//! Kernel, with the same results as the Kernel's own methods.

use std::collections::HashMap;

use taskcore::sys::{dispatch, nr, Prctl, Ptrace, SysRet, Syscall, UserMemory};
use taskcore::uapi::*;
use taskcore::{Config, Errno, Kernel, Result, SigAction, SigHandler, WaitOutcome};

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
        Syscall::Getresuid,
        Syscall::Getresgid,
        Syscall::Exit { code: 0 },
        Syscall::ExitGroup { code: 0 },
        Syscall::Wait4 { pid: 0, options: 0 },
        Syscall::Kill { pid: 0, sig: 0 },
        Syscall::Brk { addr: 0 },
        Syscall::Prctl(Prctl::GetName),
        Syscall::Ptrace(Ptrace::Traceme),
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
    let Ok(SysRet::Child { task: a, pid }) = call(&mut k, init, nr::FORK, [0; 6]) else {
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
