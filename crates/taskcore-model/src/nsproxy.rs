//! `unshare(2)`: the caller's `pid_for_children`, in plain code.
//!
//! A task's children get their pids in its `pid_for_children`, which is
//! its active namespace until `unshare(CLONE_NEWPID)` makes a new child
//! namespace of it; the next child is then that namespace's init.

use taskcore::uapi::{
    CLONE_FILES, CLONE_FS, CLONE_NEWCGROUP, CLONE_NEWIPC, CLONE_NEWNET, CLONE_NEWNS, CLONE_NEWPID,
    CLONE_NEWTIME, CLONE_NEWUSER, CLONE_NEWUTS, CLONE_SIGHAND, CLONE_SYSVSEM, CLONE_THREAD,
    CLONE_VM, MAX_PID_NS_LEVEL,
};
use taskcore::{Errno, Result};

use crate::pid::Ns;
use crate::{Model, Tid};

/// Every `CLONE_NEW*` namespace bit.
const CLONE_NEW_ANY: u64 = CLONE_NEWNS
    | CLONE_NEWUTS
    | CLONE_NEWIPC
    | CLONE_NEWNET
    | CLONE_NEWUSER
    | CLONE_NEWPID
    | CLONE_NEWCGROUP
    | CLONE_NEWTIME;

impl Model {
    /// `task`'s `pid_for_children`.
    pub(crate) fn pid_ns_for_children(&self, task: usize) -> usize {
        self.pid_for_children
            .get(&task)
            .copied()
            .unwrap_or_else(|| self.ns_of(task))
    }

    /// `unshare(flags)` by `current`: with `CLONE_NEWPID`, a new pid
    /// namespace below the caller's becomes its `pid_for_children`.
    ///
    /// # Errors
    /// - `ESRCH`: `current` is not a live task.
    /// - `EINVAL`: a bit unshare does not take; `CLONE_THREAD` (implied by
    ///   `CLONE_SIGHAND`, `CLONE_VM`, `CLONE_NEWUSER`) with other threads
    ///   in the group; `CLONE_NEWPID` when `pid_for_children` is already
    ///   another namespace than the active one.
    /// - `EPERM`: a namespace bit without euid 0.
    /// - `ENOSPC`: more than 32 levels.
    ///
    /// # Linux
    /// `ksys_unshare()` (kernel/fork.c), `copy_pid_ns()`.
    pub fn unshare(&mut self, current: Tid, flags: u64) -> Result<()> {
        let cur = self.current(current)?;
        let allowed = CLONE_THREAD
            | CLONE_FS
            | CLONE_SIGHAND
            | CLONE_VM
            | CLONE_FILES
            | CLONE_SYSVSEM
            | CLONE_NEW_ANY;
        if flags & !allowed != 0 {
            return Err(Errno::EINVAL);
        }
        let mut flags = flags;
        if flags & CLONE_NEWUSER != 0 {
            flags |= CLONE_THREAD | CLONE_FS;
        }
        if flags & CLONE_VM != 0 {
            flags |= CLONE_SIGHAND;
        }
        if flags & CLONE_SIGHAND != 0 {
            flags |= CLONE_THREAD;
        }
        if flags & CLONE_THREAD != 0 {
            // thread_group_empty(): the caller is the leader and alone.
            let t = self.task(cur);
            let alone = t.group_leader == cur && self.sig(cur).threads.len() == 1;
            if !alone {
                return Err(Errno::EINVAL);
            }
        }
        if flags & CLONE_NEW_ANY == 0 {
            return Ok(());
        }
        if self.task(cur).cred.euid != 0 {
            return Err(Errno::EPERM);
        }
        if flags & CLONE_NEWPID == 0 {
            return Ok(());
        }
        let active = self.ns_of(cur);
        if self.pid_ns_for_children(cur) != active {
            return Err(Errno::EINVAL);
        }
        let level = self.nss[active].level + 1;
        if level > MAX_PID_NS_LEVEL {
            return Err(Errno::ENOSPC);
        }
        let pid_max = self.nss[active].pid_max;
        self.nss.push(Ns::new(level, Some(active), pid_max));
        self.pid_for_children.insert(cur, self.nss.len() - 1);
        Ok(())
    }
}
