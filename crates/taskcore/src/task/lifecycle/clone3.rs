//! clone3(2): its argument structure and `clone3_args_valid()` rules.
//!
//! # Linux
//! kernel/fork.c `copy_clone_args_from_user()`, `clone3_args_valid()`,
//! `clone3_stack_valid()`, then `kernel_clone()` as for clone(2).

use crate::errno::{Errno, Result};
use crate::task::kernel::{Kernel, TaskId};
use crate::uapi::{
    valid_signal, CLONE_CLEAR_SIGHAND, CLONE_DETACHED, CLONE_INTO_CGROUP, CLONE_LEGACY_FLAGS,
    CLONE_NEWTIME, CLONE_PARENT, CLONE_SIGHAND, CLONE_THREAD, CSIGNAL, MAX_PID_NS_LEVEL,
};

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

/// # Lifecycle: clone3 (`kernel/fork.c`).
impl Kernel {
    /// Creates a task as clone3(2) does, on behalf of `current`: the
    /// argument checks of clone3, then the same creation as
    /// [`Kernel::clone`] (see there for the modelled flags).
    ///
    /// `CLONE_CLEAR_SIGHAND` resets the child's handled signals to
    /// `SIG_DFL` (ignored ones stay ignored, all `sa_flags` are cleared).
    /// `CLONE_INTO_CGROUP` is refused: the library has no cgroups and no
    /// files, so the fd never names a cgroup (Linux's answer for a `cgroup`
    /// that is not an open cgroup directory, EBADF).
    ///
    /// # Errors
    /// - `EINVAL`: `set_tid_size` above 32; `set_tid_size` > 0 with a NULL
    ///   `set_tid`, or a `set_tid` with size 0; `exit_signal` not a signal
    ///   (above 64, or any of its upper 56 bits set); `CLONE_INTO_CGROUP`
    ///   with `cgroup` above `INT_MAX`; an unknown flag, `CLONE_DETACHED`,
    ///   or a bit of the low byte other than `CLONE_NEWTIME`;
    ///   `CLONE_SIGHAND` with `CLONE_CLEAR_SIGHAND`; a non-zero
    ///   `exit_signal` with `CLONE_THREAD` or `CLONE_PARENT`; `stack` and
    ///   `stack_size` not both zero or both non-zero, or a stack ending
    ///   above `TASK_SIZE` (0x7ffffffff000); and every `EINVAL` of
    ///   [`Kernel::clone`].
    /// - `EFAULT`: `set_tid` holds fewer than `set_tid_size` entries (Linux
    ///   would read past the array, or could not read it); with
    ///   `CLONE_PIDFD`, `pidfd_fault` (after `alloc_pid()`, before
    ///   `CLONE_INTO_CGROUP`'s `EBADF`).
    /// - `EBADF`: `CLONE_INTO_CGROUP`, after every other check, those of
    ///   [`Kernel::clone`] included (`EAGAIN`, `EPERM`, `EEXIST`...), as
    ///   Linux looks at the cgroup fd after `alloc_pid()`.
    /// - Otherwise as [`Kernel::clone`].
    ///
    /// Nothing changes when an error is returned.
    ///
    /// # Linux
    /// `sys_clone3()`: `copy_clone_args_from_user()`,
    /// `clone3_args_valid()`, `kernel_clone()`. The structure size checks
    /// (`E2BIG`, short structures) have no counterpart here.
    pub fn clone3(&mut self, current: TaskId, args: &Clone3Args) -> Result<TaskId> {
        self.probed(crate::probe::Op::Clone, current, |k| {
            k.do_sys_clone3(current, args)
        })
    }

    fn do_sys_clone3(&mut self, current: TaskId, args: &Clone3Args) -> Result<TaskId> {
        self.current(current)?;
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
                .is_none_or(|end| end > crate::mm::TASK_SIZE_X86_64)
        {
            return Err(Errno::EINVAL);
        }
        // copy_process() refuses CLONE_INTO_CGROUP (EBADF) once all its
        // other checks have passed.
        self.copy_process(current, flags, exit_signal, set_tid, args.pidfd_fault)
    }
}
