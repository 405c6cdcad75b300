//! The user pointers of a recorded call that strace printed as addresses
//! (it did not read them), with what the kernel does with each: the sizes
//! and order of `copy_from_user()` and `copy_to_user()` per call.
//!
//! # Linux
//! kernel/signal.c (`rt_sigaction`, `rt_sigprocmask`, `rt_sigpending`,
//! `rt_sigsuspend`, `rt_sigtimedwait`, `rt_sigqueueinfo`,
//! `rt_tgsigqueueinfo`), kernel/exit.c (`kernel_wait4()`, `sys_wait4()`,
//! `sys_waitid()`), kernel/fork.c (`copy_clone_args_from_user()`, the
//! pidfd's `put_user()` in `copy_process()`). x86_64 sizes: `struct
//! sigaction` 32 bytes, `sigset_t` 8, `struct timespec` 16, `siginfo_t`
//! 128, `struct rusage` 144.

use std::sync::Arc;

/// When the kernel touches a user pointer of a call, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// `copy_from_user()` before the call acts: a refusal is the call's
    /// `EFAULT`, nothing done.
    Read,
    /// `copy_to_user()` of a result after the call acted (an old action or
    /// mask, a pending set, a taken signal's siginfo, a reaped child's
    /// status or rusage): a refusal turns the result into `EFAULT`, what
    /// the call did stays done.
    Write,
    /// As [`Access::Write`], but written whatever the result, an error
    /// included (waitid's `infop`: `sys_waitid()` writes it after
    /// `kernel_waitid()` returns, unless the caller still sleeps).
    WriteAlways,
    /// clone3's `pidfd`, written inside `copy_process()` after
    /// `alloc_pid()`: a refusal undoes the clone (`Clone3Args::pidfd_fault`).
    ClonePidfd,
    /// clone3's `set_tid` array, read among `copy_clone_args_from_user()`'s
    /// checks (an unreadable array is an empty one for `Kernel::clone3`).
    CloneSetTid,
}

/// A pointer argument strace printed as an address (it did not read it),
/// with what the kernel does with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UserPtr {
    /// The address strace printed.
    pub addr: u64,
    /// Bytes the kernel reads or writes there.
    pub len: u64,
    /// Bytes `access_ok()` checks (at least `len`: waitid checks the whole
    /// siginfo, 128 bytes, then writes its first 28).
    pub reach: u64,
    /// When and how the kernel touches it.
    pub access: Access,
}

const SIGACTION: u64 = 32;
const SIGSET: u64 = 8;
const TIMESPEC: u64 = 16;
const SIGINFO: u64 = 128;
const RUSAGE: u64 = 144;
/// `sys_waitid()` writes `si_signo`, `si_errno`, `si_code`, `si_pid`,
/// `si_uid` and `si_status`: the first 28 bytes.
const WAITID_WRITTEN: u64 = 28;
/// clone3's `size` bounds (`CLONE_ARGS_SIZE_VER0`, a page).
const CLONE_ARGS_MIN: u64 = 64;
const CLONE_ARGS_MAX: u64 = 4096;

/// The pointers of a call strace did not read (`hex`: its top-level
/// arguments printed as bare addresses, by position), in the order the
/// kernel touches them; `None` when there are none. clone3's are found by
/// its decoder, from inside its structure.
pub(crate) fn user_ptrs(name: &str, hex: &[(u8, u64)]) -> Option<Arc<[UserPtr]>> {
    use Access::{Read, Write, WriteAlways};
    let spec: &[(u8, u64, u64, Access)] = match name {
        "rt_sigaction" => &[
            (1, SIGACTION, SIGACTION, Read),
            (2, SIGACTION, SIGACTION, Write),
        ],
        "rt_sigprocmask" => &[(1, SIGSET, SIGSET, Read), (2, SIGSET, SIGSET, Write)],
        "rt_sigpending" => &[(0, SIGSET, SIGSET, Write)],
        "rt_sigsuspend" => &[(0, SIGSET, SIGSET, Read)],
        "rt_sigtimedwait" => &[
            (0, SIGSET, SIGSET, Read),
            (2, TIMESPEC, TIMESPEC, Read),
            (1, SIGINFO, SIGINFO, Write),
        ],
        "rt_sigqueueinfo" => &[(2, SIGINFO, SIGINFO, Read)],
        "rt_tgsigqueueinfo" => &[(3, SIGINFO, SIGINFO, Read)],
        "wait4" => &[(1, 4, 4, Write), (3, RUSAGE, RUSAGE, Write)],
        "waitid" => &[
            (4, RUSAGE, RUSAGE, Write),
            (2, WAITID_WRITTEN, SIGINFO, WriteAlways),
        ],
        _ => return None,
    };
    let ptrs: Vec<UserPtr> = spec
        .iter()
        .filter_map(|&(pos, len, reach, access)| {
            let addr = hex.iter().find(|(p, _)| *p == pos)?.1;
            Some(UserPtr {
                addr,
                len,
                reach,
                access,
            })
        })
        .collect();
    (!ptrs.is_empty()).then(|| ptrs.into())
}

/// clone3's: its unread `set_tid` array (address, element count) and,
/// with `CLONE_PIDFD`, its unread `pidfd` pointer.
pub(crate) fn clone3_inner(
    set_tid: Option<(u64, u64)>,
    pidfd: Option<u64>,
) -> Option<Arc<[UserPtr]>> {
    let mut v = Vec::new();
    if let Some((addr, n)) = set_tid {
        let len = n.saturating_mul(4);
        v.push(UserPtr {
            addr,
            len,
            reach: len,
            access: Access::CloneSetTid,
        });
    }
    if let Some(addr) = pidfd {
        v.push(UserPtr {
            addr,
            len: 4,
            reach: 4,
            access: Access::ClonePidfd,
        });
    }
    (!v.is_empty()).then(|| v.into())
}

/// clone3's structure itself, when strace printed only its address and
/// its `size` lets the kernel read it (`copy_clone_args_from_user()`).
pub(crate) fn clone3_struct(addr: u64, size: u64) -> Option<Arc<[UserPtr]>> {
    if !(CLONE_ARGS_MIN..=CLONE_ARGS_MAX).contains(&size) {
        return None;
    }
    Some(
        vec![UserPtr {
            addr,
            len: size,
            reach: size,
            access: Access::Read,
        }]
        .into(),
    )
}
