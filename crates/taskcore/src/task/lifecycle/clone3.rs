//! clone3(2): its entry; the argument structure and its rules are
//! [`crate::rules::clone3_args`]'s.
//!
//! # Linux
//! kernel/fork.c `copy_clone_args_from_user()`, `clone3_args_valid()`,
//! `clone3_stack_valid()`, then `kernel_clone()` as for clone(2).

use crate::errno::Result;
use crate::task::kernel::{Kernel, TaskId};

pub use crate::rules::Clone3Args;

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
        let (flags, exit_signal, set_tid) = crate::rules::clone3_args(args)?;
        // copy_process() refuses CLONE_INTO_CGROUP (EBADF) once all its
        // other checks have passed.
        self.copy_process(current, flags, exit_signal, set_tid, args.pidfd_fault)
    }
}
