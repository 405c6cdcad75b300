//! The argument rules of clone(2) and clone3(2), and clone3's argument
//! structure: what Linux checks of the flags and the structure before it
//! looks at the caller's state.
//!
//! # Linux
//! kernel/fork.c: `sys_clone()` and `kernel_clone()` for clone(2);
//! `copy_clone_args_from_user()`, `clone3_args_valid()` and
//! `clone3_stack_valid()` for clone3(2); the flag checks at the top of
//! `copy_process()` for both.

use crate::errno::{Errno, Result};
use crate::uapi::{
    valid_signal, CLONE_CLEAR_SIGHAND, CLONE_DETACHED, CLONE_FS, CLONE_INTO_CGROUP,
    CLONE_LEGACY_FLAGS, CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWTIME, CLONE_NEWUSER, CLONE_PARENT,
    CLONE_PARENT_SETTID, CLONE_PIDFD, CLONE_SIGHAND, CLONE_THREAD, CLONE_VM, CSIGNAL,
    MAX_PID_NS_LEVEL,
};

use crate::mm::TASK_SIZE_X86_64 as TASK_SIZE;

/// `struct clone_args` of clone3(2), the fields the process table uses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Clone3Args {
    /// `flags`: `CLONE_*` bits, 64 of them (`CLONE_CLEAR_SIGHAND`,
    /// `CLONE_INTO_CGROUP` and `CLONE_NEWTIME` are clone3's own).
    pub flags: u64,
    /// `exit_signal`: a 64-bit signal number, 0..=64; must be 0 with
    /// `CLONE_THREAD` or `CLONE_PARENT`.
    pub exit_signal: u64,
    /// `set_tid`: `None` for a NULL pointer, else the array it points to
    /// (the pid wanted at each level, own namespace first).
    pub set_tid: Option<Vec<i32>>,
    /// `set_tid_size`: how many entries of `set_tid` Linux reads.
    pub set_tid_size: u64,
    /// `cgroup`: a cgroup directory fd for `CLONE_INTO_CGROUP`.
    pub cgroup: u64,
    /// `stack`: lowest address of the child's stack, 0 for none.
    pub stack: u64,
    /// `stack_size`: its size in bytes; non-zero exactly when `stack` is.
    pub stack_size: u64,
    /// With `CLONE_PIDFD`: the `pidfd` pointer refuses the pidfd's
    /// `put_user()` (a kernel-half address, or, where the embedder models
    /// address spaces, one no writable VMA covers). The decoder sets it
    /// through [`UserMemory::check_write`](crate::sys::UserMemory::check_write);
    /// `false` (the default) when the write succeeds.
    pub pidfd_fault: bool,
}

/// clone(2)'s own checks of `flags` and `exit_signal`, before
/// `copy_process()`: returns the flags clone(2) passes on (its low 32
/// bits, as `sys_clone()` takes them).
///
/// # Errors
/// `EINVAL`: `exit_signal` outside 0..=255 (the low byte clone(2) has);
/// `CLONE_PIDFD` with `CLONE_PARENT_SETTID` (clone(2) writes both through
/// one pointer).
///
/// # Linux
/// `sys_clone()`, `kernel_clone()`.
pub fn clone_flags(flags: u64, exit_signal: i32) -> Result<u64> {
    let flags = flags & CLONE_LEGACY_FLAGS;
    if !(0..=CSIGNAL as i32).contains(&exit_signal) {
        return Err(Errno::EINVAL);
    }
    if flags & CLONE_PIDFD != 0 && flags & CLONE_PARENT_SETTID != 0 {
        return Err(Errno::EINVAL);
    }
    Ok(flags)
}

/// clone(2) with `CLONE_PIDFD`: the flags that cannot go with it, checked
/// before any other rule of the call (the caller's existence first).
///
/// # Errors
/// `EINVAL`: `CLONE_PIDFD` with `CLONE_PARENT_SETTID` or `CLONE_DETACHED`.
///
/// # Linux
/// `kernel_clone()`, and `copy_process()`'s `CLONE_PIDFD` part.
pub fn clone_pidfd_flags(flags: u64) -> Result<()> {
    if flags & CLONE_PIDFD != 0 && flags & (CLONE_PARENT_SETTID | CLONE_DETACHED) != 0 {
        return Err(Errno::EINVAL);
    }
    Ok(())
}

/// clone3(2)'s checks of its structure, in Linux's order: returns the
/// flags, the exit signal and the `set_tid` entries Linux reads.
///
/// # Errors
/// - `EINVAL`: `set_tid_size` above 32; `set_tid_size` > 0 with a NULL
///   `set_tid`, or a `set_tid` with size 0; `exit_signal` not a signal
///   (above 64, or any of its upper 56 bits set); `CLONE_INTO_CGROUP`
///   with `cgroup` above `INT_MAX`; an unknown flag, `CLONE_DETACHED`, or
///   a bit of the low byte other than `CLONE_NEWTIME`; `CLONE_SIGHAND`
///   with `CLONE_CLEAR_SIGHAND`; a non-zero `exit_signal` with
///   `CLONE_THREAD` or `CLONE_PARENT`; `stack` and `stack_size` not both
///   zero or both non-zero, or a stack ending above `TASK_SIZE`.
/// - `EFAULT`: `set_tid` holds fewer than `set_tid_size` entries.
///
/// # Linux
/// `copy_clone_args_from_user()`, `clone3_args_valid()`,
/// `clone3_stack_valid()`.
pub fn clone3_args(args: &Clone3Args) -> Result<(u64, i32, &[i32])> {
    // copy_clone_args_from_user().
    if args.set_tid_size > MAX_PID_NS_LEVEL as u64 {
        return Err(Errno::EINVAL);
    }
    let set_tid: &[i32] = match &args.set_tid {
        None if args.set_tid_size > 0 => return Err(Errno::EINVAL),
        None => &[],
        Some(_) if args.set_tid_size == 0 => return Err(Errno::EINVAL),
        Some(v) => v.get(..args.set_tid_size as usize).unwrap_or(&[]),
    };
    let exit_signal = match i32::try_from(args.exit_signal) {
        Ok(sig) if args.exit_signal & !CSIGNAL == 0 && (sig == 0 || valid_signal(sig)) => sig,
        _ => return Err(Errno::EINVAL),
    };
    if args.flags & CLONE_INTO_CGROUP != 0 && args.cgroup > i32::MAX as u64 {
        return Err(Errno::EINVAL);
    }
    if set_tid.len() as u64 != args.set_tid_size {
        return Err(Errno::EFAULT);
    }
    // clone3_args_valid().
    let flags = args.flags;
    if flags & !(CLONE_LEGACY_FLAGS | CLONE_CLEAR_SIGHAND | CLONE_INTO_CGROUP) != 0 {
        return Err(Errno::EINVAL);
    }
    if flags & (CLONE_DETACHED | (CSIGNAL & !CLONE_NEWTIME)) != 0 {
        return Err(Errno::EINVAL);
    }
    if flags & (CLONE_SIGHAND | CLONE_CLEAR_SIGHAND) == CLONE_SIGHAND | CLONE_CLEAR_SIGHAND {
        return Err(Errno::EINVAL);
    }
    if flags & (CLONE_THREAD | CLONE_PARENT) != 0 && exit_signal != 0 {
        return Err(Errno::EINVAL);
    }
    // clone3_stack_valid(): both or neither, and the stack below
    // TASK_SIZE (access_ok()).
    if (args.stack == 0) != (args.stack_size == 0) {
        return Err(Errno::EINVAL);
    }
    if args.stack != 0
        && args
            .stack
            .checked_add(args.stack_size)
            .is_none_or(|end| end > TASK_SIZE)
    {
        return Err(Errno::EINVAL);
    }
    Ok((flags, exit_signal, set_tid))
}

/// The flag combinations `copy_process()` refuses whatever the caller's
/// state: a new mount or user namespace sharing the `fs_struct`, a thread
/// without shared handlers, shared handlers without a shared address
/// space, a thread in a new pid or user namespace, `CLONE_PIDFD` with
/// `CLONE_DETACHED`. (The state-dependent ones, `CLONE_PARENT` from a
/// namespace init and a thread after `unshare(CLONE_NEWPID)`, are also
/// `EINVAL`, so the order between the two kinds does not show.)
///
/// # Errors
/// `EINVAL` for each combination above.
///
/// # Linux
/// The checks at the top of `copy_process()`.
pub fn copy_process_flags(flags: u64) -> Result<()> {
    for ns in [CLONE_NEWNS, CLONE_NEWUSER] {
        if flags & (ns | CLONE_FS) == ns | CLONE_FS {
            return Err(Errno::EINVAL);
        }
    }
    if flags & CLONE_THREAD != 0 && flags & CLONE_SIGHAND == 0 {
        return Err(Errno::EINVAL);
    }
    if flags & CLONE_SIGHAND != 0 && flags & CLONE_VM == 0 {
        return Err(Errno::EINVAL);
    }
    if flags & CLONE_THREAD != 0 && flags & (CLONE_NEWUSER | CLONE_NEWPID) != 0 {
        return Err(Errno::EINVAL);
    }
    // CLONE_DETACHED is kept for CLONE_PIDFD's future use.
    if flags & CLONE_PIDFD != 0 && flags & CLONE_DETACHED != 0 {
        return Err(Errno::EINVAL);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uapi::SIGCHLD;

    #[test]
    fn clone_keeps_the_low_word_and_refuses_bad_signals() {
        assert_eq!(clone_flags(1 << 40 | CLONE_VM, SIGCHLD), Ok(CLONE_VM));
        assert_eq!(clone_flags(0, 256), Err(Errno::EINVAL));
        assert_eq!(clone_flags(0, -1), Err(Errno::EINVAL));
        assert_eq!(
            clone_flags(CLONE_PIDFD | CLONE_PARENT_SETTID, SIGCHLD),
            Err(Errno::EINVAL)
        );
        assert_eq!(
            clone_pidfd_flags(CLONE_PIDFD | CLONE_DETACHED),
            Err(Errno::EINVAL)
        );
        assert_eq!(clone_pidfd_flags(CLONE_DETACHED), Ok(()));
    }

    #[test]
    fn copy_process_refuses_each_combination() {
        let bad = [
            CLONE_NEWNS | CLONE_FS,
            CLONE_NEWUSER | CLONE_FS,
            CLONE_THREAD | CLONE_VM,
            CLONE_SIGHAND,
            CLONE_THREAD | CLONE_SIGHAND | CLONE_VM | CLONE_NEWPID,
            CLONE_PIDFD | CLONE_DETACHED,
        ];
        for f in bad {
            assert_eq!(copy_process_flags(f), Err(Errno::EINVAL), "{f:#x}");
        }
        let thread = CLONE_THREAD | CLONE_SIGHAND | CLONE_VM | CLONE_FS;
        assert_eq!(copy_process_flags(thread), Ok(()));
        assert_eq!(copy_process_flags(CLONE_NEWNS), Ok(()));
    }

    #[test]
    fn clone3_checks_in_linux_order() {
        let ok = Clone3Args {
            exit_signal: SIGCHLD as u64,
            ..Clone3Args::default()
        };
        assert_eq!(clone3_args(&ok), Ok((0, SIGCHLD, &[][..])));
        // set_tid_size past the levels comes before a bad exit signal.
        let a = Clone3Args {
            set_tid_size: 33,
            exit_signal: 65,
            ..Clone3Args::default()
        };
        assert_eq!(clone3_args(&a), Err(Errno::EINVAL));
        // A short set_tid is EFAULT, after the exit-signal check.
        let a = Clone3Args {
            set_tid: Some(vec![5]),
            set_tid_size: 2,
            ..Clone3Args::default()
        };
        assert_eq!(clone3_args(&a), Err(Errno::EFAULT));
        let a = Clone3Args {
            set_tid: Some(vec![5]),
            set_tid_size: 2,
            exit_signal: 65,
            ..Clone3Args::default()
        };
        assert_eq!(clone3_args(&a), Err(Errno::EINVAL));
        let a = Clone3Args {
            stack: TASK_SIZE - 4096,
            stack_size: 8192,
            ..Clone3Args::default()
        };
        assert_eq!(clone3_args(&a), Err(Errno::EINVAL));
        let a = Clone3Args {
            flags: CLONE_THREAD | CLONE_SIGHAND | CLONE_VM,
            exit_signal: SIGCHLD as u64,
            ..Clone3Args::default()
        };
        assert_eq!(clone3_args(&a), Err(Errno::EINVAL));
    }
}
