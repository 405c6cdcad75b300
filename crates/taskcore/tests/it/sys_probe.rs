//! `Syscall::probe_op`: dispatching each call fires the return probes of
//! exactly the op it names (none for the calls the Kernel does not probe).
#![cfg(not(loom))]

use std::sync::{Arc, Mutex};

use taskcore::mm::flags::{MAP_ANONYMOUS, MAP_PRIVATE, PROT_READ};
use taskcore::probe::{KretprobeBuilder, Op, OpSet};
use taskcore::sys::{dispatch, Prctl, Ptrace, SysRet, Syscall, Timespec};
use taskcore::uapi::*;
use taskcore::{Clone3Args, CloneArgs, Config, Kernel, SetnsFd, SigInfo, TaskId};

#[test]
fn each_call_fires_its_probe_op() {
    let mut k = Kernel::new(Config::default()).unwrap();
    let log: Arc<Mutex<Vec<Op>>> = Arc::default();
    let l = Arc::clone(&log);
    let probe = KretprobeBuilder::new(OpSet::ALL, 1)
        .maxactive(4)
        .handler(move |inst| l.lock().unwrap().push(inst.op()))
        .build()
        .unwrap();
    k.probes().register(&probe).unwrap();
    let mut fired = Vec::new();
    let mut call = |k: &mut Kernel, cur: TaskId, c: Syscall| {
        log.lock().unwrap().clear();
        let r = dispatch(k, cur, &c);
        let got = log.lock().unwrap().clone();
        assert_eq!(
            got,
            c.probe_op().into_iter().collect::<Vec<_>>(),
            "{c:?}: {r:?}"
        );
        fired.extend(got);
        r
    };
    let init = k.init_task().unwrap();
    let child = |r| match r {
        Ok(SysRet::Child { task, pid, .. }) => (task, pid),
        other => panic!("{other:?}"),
    };
    let (a, pa) = child(call(&mut k, init, Syscall::Fork));
    let usr1 = 1u64 << (SIGUSR1 - 1);
    let info = SigInfo {
        code: SI_QUEUE,
        pid: pa,
        ..SigInfo::default()
    };
    for c in [
        Syscall::Getpid,
        Syscall::Gettid,
        Syscall::Getppid,
        Syscall::Getpgrp,
        Syscall::Getpgid { pid: 0 },
        Syscall::Getsid { pid: 0 },
        Syscall::Setpgid { pid: 0, pgid: 0 },
        Syscall::Kill { pid: pa, sig: 0 },
        Syscall::Tgkill {
            tgid: pa,
            tid: pa,
            sig: 0,
        },
        Syscall::Tkill { tid: pa, sig: 0 },
        Syscall::RtSigaction {
            sig: SIGUSR1,
            act: None,
        },
        Syscall::Prctl(Prctl::GetName),
        Syscall::Setuid { uid: 0 },
        Syscall::Setgid { gid: 0 },
        Syscall::Setreuid { ruid: 0, euid: 0 },
        Syscall::Setregid { rgid: 0, egid: 0 },
        Syscall::Setresuid {
            ruid: 0,
            euid: 0,
            suid: 0,
        },
        Syscall::Setresgid {
            rgid: 0,
            egid: 0,
            sgid: 0,
        },
        Syscall::Setfsuid { uid: 0 },
        Syscall::Setfsgid { gid: 0 },
        Syscall::Getuid,
        Syscall::Geteuid,
        Syscall::Getgid,
        Syscall::Getegid,
        Syscall::Getresuid,
        Syscall::Getresgid,
        Syscall::Setgroups { groups: vec![] },
        Syscall::Getgroups { size: 0 },
        Syscall::Getrlimit { resource: 0 },
        Syscall::Prlimit64 {
            pid: 0,
            resource: 0,
            new: None,
        },
        Syscall::Brk { addr: 0 },
        Syscall::Mmap {
            addr: 0x10_0000,
            len: 8192,
            prot: PROT_READ,
            flags: MAP_PRIVATE | MAP_ANONYMOUS,
            file: None,
            pgoff: 0,
        },
        Syscall::Mprotect {
            addr: 0x10_0000,
            len: 4096,
            prot: 0,
        },
        Syscall::Mremap {
            old: 0x10_0000,
            old_len: 4096,
            new_len: 4096,
            flags: 0,
            new: 0,
        },
        Syscall::Munmap {
            addr: 0x10_0000,
            len: 8192,
        },
        Syscall::RtSigprocmask {
            how: SIG_BLOCK,
            set: Some(usr1),
        },
        Syscall::RtSigqueueinfo {
            tgid: pa,
            sig: SIGUSR1,
            info,
        },
        Syscall::RtTgsigqueueinfo {
            tgid: pa,
            tid: pa,
            sig: SIGUSR1,
            info,
        },
        Syscall::RtSigpending,
        Syscall::RtSigtimedwait {
            set: usr1,
            timeout: Some(Timespec::ZERO),
        },
        Syscall::RtSigreturn { mask: usr1 },
        Syscall::Unshare { flags: 0 },
        Syscall::Execve {
            filename: "/bin/true".into(),
            argv: None,
        },
    ] {
        let name = c.name();
        call(&mut k, a, c).unwrap_or_else(|e| panic!("{name}: {e:?}"));
    }
    // Calls made by init on its children.
    let Ok(SysRet::PidFd(fd)) = call(&mut k, init, Syscall::PidfdOpen { pid: pa, flags: 0 }) else {
        panic!()
    };
    let setns = Syscall::Setns {
        fd: SetnsFd::PidFd(fd),
        nstype: CLONE_NEWPID,
    };
    call(&mut k, init, setns).unwrap();
    let send = Syscall::PidfdSendSignal {
        fd,
        sig: 0,
        info: None,
        flags: 0,
    };
    call(&mut k, init, send).unwrap();
    for p in [
        Ptrace::Attach {
            pid: pa,
            seize: true,
        },
        Ptrace::Setoptions {
            pid: pa,
            options: 1,
        },
        Ptrace::Geteventmsg { pid: pa },
        Ptrace::Getsiginfo { pid: pa },
        Ptrace::Interrupt { pid: pa },
        Ptrace::Listen { pid: pa },
        Ptrace::Syscall { pid: pa, sig: 0 },
        Ptrace::Cont { pid: pa, sig: 0 },
        Ptrace::Detach { pid: pa, sig: 0 },
        Ptrace::Seize {
            pid: pa,
            options: 1 << 31,
        },
        Ptrace::Seize {
            pid: pa,
            options: 1,
        },
        Ptrace::Detach { pid: pa, sig: 0 },
    ] {
        // Errors fire the op too.
        let _ = call(&mut k, init, Syscall::Ptrace(p));
    }
    let (b, _) = child(call(&mut k, init, Syscall::Clone(CloneArgs::fork())));
    call(&mut k, b, Syscall::Setsid).unwrap();
    call(&mut k, b, Syscall::Ptrace(Ptrace::Traceme)).unwrap();
    call(&mut k, b, Syscall::RtSigsuspend { mask: 0 }).unwrap();
    let (c3, _) = child(call(
        &mut k,
        init,
        Syscall::Clone3(Clone3Args {
            exit_signal: SIGCHLD as u64,
            ..Clone3Args::default()
        }),
    ));
    call(&mut k, c3, Syscall::Pause).unwrap();
    let (v, _) = child(call(&mut k, init, Syscall::Vfork));
    call(&mut k, v, Syscall::Exit { code: 0 }).unwrap();
    call(&mut k, a, Syscall::ExitGroup { code: 0 }).unwrap();
    let wait = Syscall::WaitidPidfd {
        fd,
        options: WEXITED,
    };
    call(&mut k, init, wait).unwrap();
    call(
        &mut k,
        init,
        Syscall::Waitid {
            idtype: P_ALL,
            id: 0,
            options: WEXITED | WNOHANG,
        },
    )
    .unwrap();
    call(
        &mut k,
        init,
        Syscall::Wait4 {
            pid: -1,
            options: WNOHANG,
        },
    )
    .unwrap();
    // Every op but the three entry points that are no syscall was fired.
    let seen: OpSet = fired.into_iter().collect();
    let non_syscall = OpSet::of(Op::GetSignal)
        .with(Op::SendSignal)
        .with(Op::ForceFatalSignal);
    assert_eq!(
        seen,
        OpSet::from_bits_truncate(OpSet::ALL.bits() & !non_syscall.bits())
    );
}
