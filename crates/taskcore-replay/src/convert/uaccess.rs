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

use taskcore_strace::{self as strace, Call};

use crate::event::{Access, UserPtr};

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

/// The pointers of `s` strace did not read, in the order the kernel
/// touches them; `None` when there are none.
pub(super) fn user_ptrs(s: &strace::Syscall) -> Option<Arc<[UserPtr]>> {
    use Access::{Read, Write, WriteAlways};
    let spec: &[(u8, u64, u64, Access)] = match &*s.name {
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
        "clone3" => return clone3_ptrs(s),
        _ => return None,
    };
    let ptrs: Vec<UserPtr> = spec
        .iter()
        .filter_map(|&(pos, len, reach, access)| {
            let addr = s.hex_args.iter().find(|(p, _)| *p == pos)?.1;
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

/// clone3's: the structure itself when strace printed only its address
/// (and its `size` lets the kernel read it), else the pidfd and set_tid
/// pointers inside it.
fn clone3_ptrs(s: &strace::Syscall) -> Option<Arc<[UserPtr]>> {
    let ptrs = match &s.call {
        Call::Clone(c) => {
            let mut v = Vec::new();
            if let Some((addr, n)) = c.set_tid_ptr {
                let len = n.saturating_mul(4);
                v.push(UserPtr {
                    addr,
                    len,
                    reach: len,
                    access: Access::CloneSetTid,
                });
            }
            if let Some(addr) = c
                .pidfd_ptr
                .filter(|_| c.flags & taskcore::uapi::CLONE_PIDFD != 0)
            {
                v.push(UserPtr {
                    addr,
                    len: 4,
                    reach: 4,
                    access: Access::ClonePidfd,
                });
            }
            v
        }
        Call::Other { args, .. } => {
            let addr = s.hex_args.iter().find(|(p, _)| *p == 0)?.1;
            let size: u64 = args.get(1)?.parse().ok()?;
            if !(CLONE_ARGS_MIN..=CLONE_ARGS_MAX).contains(&size) {
                return None;
            }
            vec![UserPtr {
                addr,
                len: size,
                reach: size,
                access: Access::Read,
            }]
        }
        _ => return None,
    };
    (!ptrs.is_empty()).then(|| ptrs.into())
}
