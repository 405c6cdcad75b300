//! `clone3()`: its own argument rules, beside legacy `clone()`'s.
//!
//! Legacy `clone()` ignores the exit signal with `CLONE_THREAD` or
//! `CLONE_PARENT` and ignores `CLONE_DETACHED`; `clone3()` refuses both
//! (`EINVAL`), takes a 64-bit exit signal that must be a valid signal, and
//! adds `CLONE_CLEAR_SIGHAND` and `CLONE_INTO_CGROUP`.

use crate::errno::{Errno, Result};
use crate::task::clone::CloneArgs;
use crate::task::kernel::{Kernel, TaskId};
use crate::uapi::{
    CLONE_CLEAR_SIGHAND, CLONE_DETACHED, CLONE_INTO_CGROUP, CLONE_PARENT, CLONE_SIGHAND,
    CLONE_THREAD, CSIGNAL, MAX_PID_NS_LEVEL, NSIG,
};

/// `CLONE_NEWTIME` (0x80): inside the low byte, but a valid clone3 flag.
const CLONE_NEWTIME: u64 = 0x0000_0080;
/// Every flag legacy `clone()` defines (`CLONE_LEGACY_FLAGS`, 32 bits).
const CLONE_LEGACY_FLAGS: u64 = 0xffff_ffff;

/// The arguments of `clone3()` (`struct clone_args`), without the
/// user-memory fields (stack, tls, child_tid, parent_tid, pidfd) that the
/// core does not model.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Clone3Args {
    /// `CLONE_*` flags (64-bit: `CLONE_CLEAR_SIGHAND`, `CLONE_INTO_CGROUP`
    /// are above bit 31).
    pub flags: u64,
    /// Signal sent to the parent when the child exits (`exit_signal`,
    /// 64-bit; 0..=64).
    pub exit_signal: u64,
    /// `set_tid`: the pid wanted at each level, own namespace first; at
    /// most `MAX_PID_NS_LEVEL` entries (`set_tid_size`).
    pub set_tid: Vec<i32>,
}

impl Kernel {
    /// `clone3(args, size)` by `current`: validates as Linux's
    /// `copy_clone_args_from_user()` and `clone3_args_valid()`, then clones
    /// as [`Kernel::clone`] (`kernel_clone`).
    ///
    /// # Errors
    /// - `EINVAL`: an unknown flag; `CLONE_DETACHED` or a flag in the
    ///   exit-signal byte (other than `CLONE_NEWTIME`); an exit signal
    ///   above 0xff or not a valid signal; a non-zero exit signal with
    ///   `CLONE_THREAD` or `CLONE_PARENT`; `CLONE_SIGHAND` with
    ///   `CLONE_CLEAR_SIGHAND`; more `set_tid` entries than
    ///   `MAX_PID_NS_LEVEL`; and `CLONE_INTO_CGROUP`, which needs cgroups
    ///   the core does not model (documented refusal);
    /// - otherwise as [`Kernel::clone`].
    ///
    /// With `CLONE_CLEAR_SIGHAND`, the child's handled signals are reset to
    /// `SIG_DFL` (ignored ones stay ignored) and every `sa_flags` cleared,
    /// as `flush_signal_handlers(p, 0)`.
    ///
    /// # Linux
    /// `SYSCALL_DEFINE2(clone3)` in kernel/fork.c.
    pub fn clone3(&mut self, current: TaskId, args: &Clone3Args) -> Result<TaskId> {
        // copy_clone_args_from_user()
        if args.set_tid.len() > MAX_PID_NS_LEVEL {
            return Err(Errno::EINVAL);
        }
        if args.exit_signal & !CSIGNAL != 0 || args.exit_signal > NSIG as u64 {
            return Err(Errno::EINVAL);
        }
        // clone3_args_valid()
        let f = args.flags;
        if f & !(CLONE_LEGACY_FLAGS | CLONE_CLEAR_SIGHAND | CLONE_INTO_CGROUP) != 0 {
            return Err(Errno::EINVAL);
        }
        if f & (CLONE_DETACHED | (CSIGNAL & !CLONE_NEWTIME)) != 0 {
            return Err(Errno::EINVAL);
        }
        if f & (CLONE_SIGHAND | CLONE_CLEAR_SIGHAND) == CLONE_SIGHAND | CLONE_CLEAR_SIGHAND {
            return Err(Errno::EINVAL);
        }
        if f & (CLONE_THREAD | CLONE_PARENT) != 0 && args.exit_signal != 0 {
            return Err(Errno::EINVAL);
        }
        if f & CLONE_INTO_CGROUP != 0 {
            return Err(Errno::EINVAL);
        }
        let legacy = CloneArgs {
            flags: f & !(CLONE_CLEAR_SIGHAND | CLONE_NEWTIME),
            exit_signal: args.exit_signal as i32,
            set_tid: args.set_tid.clone(),
        };
        let child = self.clone(current, &legacy)?;
        if f & CLONE_CLEAR_SIGHAND != 0 {
            let t = self.task_idx(child)?;
            let g = self.tasks[t].group;
            let sh = &mut self.groups[g].sighand;
            sh.handled = 0;
            sh.resethand = 0;
            sh.chld_flags = 0;
            self.sync_child(g);
        }
        Ok(child)
    }
}
