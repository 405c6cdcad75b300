//! The conversion of strace's `Call` into `taskcore::sys::Syscall` values
//! (recorded numbers) and recorded outputs.

use taskcore::sys::{nr, Syscall};
use taskcore::uapi::{CLONE_THREAD, CLONE_VM, SIGCHLD};
use taskcore::{Errno, SigHandler};

use super::convert;
use crate::event::Call;
use crate::event::{Kind, Outcome, Rec};

/// The op and outcome of the one event of `line`.
fn one(line: &str) -> (Kind, Outcome) {
    let parsed = taskcore_strace::parse_str("t", &format!("{line}\n"));
    assert_eq!(parsed.events.len(), 1, "{line}");
    convert(&parsed.events[0])
}

fn call(line: &str) -> Syscall {
    match one(line).0 {
        Kind::Call(Call::Sys { call, .. }) => call,
        other => panic!("{line}: {other:?}"),
    }
}

#[test]
fn lifecycle_calls_become_syscalls_with_the_recorded_numbers() {
    assert_eq!(call("100 1.0 fork() = 101"), Syscall::Fork);
    assert_eq!(call("100 1.0 vfork() = 101"), Syscall::Vfork);
    let Syscall::Clone(a) = call(
        "100 1.0 clone(child_stack=0x7f00, flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM) = 101",
    ) else {
        panic!()
    };
    assert_eq!(
        (a.flags & (CLONE_VM | CLONE_THREAD), a.exit_signal),
        (CLONE_VM | CLONE_THREAD, 0)
    );
    let Syscall::Clone(a) = call("100 1.0 clone(child_stack=NULL, flags=SIGCHLD) = 101") else {
        panic!()
    };
    assert_eq!((a.flags, a.exit_signal), (0, SIGCHLD));
    assert_eq!(
        call("100 1.0 kill(-101, SIGTERM) = 0"),
        Syscall::Kill { pid: -101, sig: 15 }
    );
    assert_eq!(
        call("100 1.0 setpgid(0, 101) = 0"),
        Syscall::Setpgid { pid: 0, pgid: 101 }
    );
    let (op, ret) =
        one("100 1.0 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 3}], WNOHANG, NULL) = 101");
    assert_eq!(
        op,
        Kind::Call(Call::Sys {
            call: Syscall::Wait4 {
                pid: -1,
                options: 1
            },
            out: Rec::Wait4 {
                status: Some(3 << 8)
            },
        })
    );
    assert_eq!(ret, Outcome::Value(101));
}

#[test]
fn signal_calls_keep_what_strace_printed_beside_the_call() {
    let (op, _) = one("100 1.0 rt_sigaction(SIGUSR1, {sa_handler=0x1000, sa_mask=[USR2], sa_flags=SA_RESTORER, sa_restorer=0x2000}, {sa_handler=SIG_IGN, sa_mask=[], sa_flags=0}, 8) = 0");
    let Kind::Call(Call::Sys {
        call: Syscall::RtSigaction {
            sig: 10,
            act: Some(act),
        },
        out: Rec::OldHandler(old),
    }) = op
    else {
        panic!("{op:?}")
    };
    assert_eq!(
        (act.handler, act.addr, act.mask),
        (SigHandler::Handler, 0x1000, 1 << 11)
    );
    assert_eq!(old, Some(SigHandler::Ignore));
    assert_eq!(
        one("100 1.0 rt_sigprocmask(SIG_BLOCK, [RT_2], [HUP], 8) = 0").0,
        Kind::Call(Call::Sys {
            call: Syscall::RtSigprocmask {
                how: 0,
                set: Some(1 << 33)
            },
            out: Rec::Mask {
                read: true,
                old: Some(1)
            },
        })
    );
    // A sigsetsize the kernel refuses before the call: EINVAL.
    assert_eq!(
        one("100 1.0 rt_sigprocmask(SIG_BLOCK, [HUP], NULL, 4) = -1 EINVAL (Invalid argument)").0,
        Kind::Call(Call::Refused {
            name: "rt_sigprocmask",
            err: Errno::EINVAL
        })
    );
}

#[test]
fn fd_calls_stay_raw_for_the_callers_fd_table() {
    assert_eq!(
        one("100 1.0 pidfd_send_signal(3, SIGTERM, NULL, 0) = 0").0,
        Kind::Call(Call::Raw {
            nr: nr::PIDFD_SEND_SIGNAL,
            args: [3, 15, 0, 0, 0, 0],
            info: None,
        })
    );
    // A siginfo strace printed goes with the call, as given.
    let (k, _) = one(
        "100 1.0 pidfd_send_signal(3, SIGUSR1, {si_signo=SIGUSR1, si_code=SI_QUEUE, \
         si_pid=100, si_uid=0, si_int=42, si_ptr=0x2a}, 0) = 0",
    );
    let Kind::Call(Call::Raw { args, info, .. }) = k else {
        panic!("{k:?}");
    };
    assert_eq!(args[2], 1);
    let i = info.expect("the siginfo");
    assert_eq!((i.signo, i.code, i.pid, i.value), (10, -1, 100, 0x2a));
    assert_eq!(call("100 1.0 getuid() = 1000"), Syscall::Getuid);
    assert_eq!(
        call("100 1.0 pidfd_open(101, 0) = 3"),
        Syscall::PidfdOpen { pid: 101, flags: 0 }
    );
}
