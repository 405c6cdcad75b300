//! `clone3`: the argument checks of `struct clone_args`, shared with the
//! core (`taskcore::rules::clone3_args`), then `copy_process` as for `clone`.
//!
//! # Linux
//! kernel/fork.c `copy_clone_args_from_user`, `clone3_args_valid`,
//! `clone3_stack_valid`.

use crate::{Clone3Args, Model, Result, Tid};

impl Model {
    /// `clone3` by `current`; returns the new task.
    ///
    /// # Errors
    /// In Linux's order: `EINVAL` for a bad `set_tid`/`set_tid_size` pair,
    /// an exit signal that is not 0..=64, a `cgroup` above `INT_MAX` with
    /// `CLONE_INTO_CGROUP`; `EFAULT` for a `set_tid` shorter than its size;
    /// `EINVAL` for flags outside clone3's set, `CLONE_DETACHED` or signal
    /// byte bits other than `CLONE_NEWTIME`, `CLONE_SIGHAND` with
    /// `CLONE_CLEAR_SIGHAND`, an exit signal with `CLONE_THREAD` or
    /// `CLONE_PARENT`, a half-given stack; then `copy_process`'s errors,
    /// with `EBADF` for `CLONE_INTO_CGROUP` (no cgroups here) last, after
    /// `alloc_pid` (Linux's `cgroup_can_fork`).
    pub fn clone3(&mut self, current: Tid, args: &Clone3Args) -> Result<Tid> {
        self.current(current)?;
        let (flags, exit_signal, set_tid) = taskcore::rules::clone3_args(args)?;
        self.copy_process(current, flags, exit_signal, set_tid)
    }
}
