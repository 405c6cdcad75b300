//! `clone3`: the argument checks of `struct clone_args`, then
//! `copy_process` as for `clone`.
//!
//! # Linux
//! kernel/fork.c `copy_clone_args_from_user`, `clone3_args_valid`,
//! `clone3_stack_valid`.

use taskcore::uapi::{
    CLONE_CLEAR_SIGHAND, CLONE_DETACHED, CLONE_INTO_CGROUP, CLONE_NEWTIME, CLONE_PARENT,
    CLONE_SIGHAND, CLONE_THREAD, MAX_PID_NS_LEVEL, NSIG,
};

use crate::{Clone3Args, Errno, Model, Result, Tid};

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
        let size = args.set_tid_size;
        let null = args.set_tid.is_none();
        if size > MAX_PID_NS_LEVEL as u64 || (null && size > 0) || (!null && size == 0) {
            return Err(Errno::EINVAL);
        }
        if args.exit_signal > NSIG as u64 {
            return Err(Errno::EINVAL);
        }
        if args.flags & CLONE_INTO_CGROUP != 0 && args.cgroup > 0x7fff_ffff {
            return Err(Errno::EINVAL);
        }
        let wanted = args.set_tid.as_deref().unwrap_or(&[]);
        if (wanted.len() as u64) < size {
            return Err(Errno::EFAULT);
        }
        let set_tid = &wanted[..size as usize];
        let flags = args.flags;
        let allowed = 0xffff_ffff | CLONE_CLEAR_SIGHAND | CLONE_INTO_CGROUP;
        if flags & !allowed != 0 || flags & (CLONE_DETACHED | (0xff & !CLONE_NEWTIME)) != 0 {
            return Err(Errno::EINVAL);
        }
        if flags & CLONE_SIGHAND != 0 && flags & CLONE_CLEAR_SIGHAND != 0 {
            return Err(Errno::EINVAL);
        }
        if flags & (CLONE_THREAD | CLONE_PARENT) != 0 && args.exit_signal != 0 {
            return Err(Errno::EINVAL);
        }
        if (args.stack == 0) != (args.stack_size == 0) {
            return Err(Errno::EINVAL);
        }
        self.copy_process(current, flags, args.exit_signal as i32, set_tid)
    }
}
