//! Address spaces (only their dumpable flag, with `PR_SET_DUMPABLE` and
//! `PR_GET_DUMPABLE`) and `ptrace_may_access`.
//!
//! A task may trace another of its own thread group; otherwise its real
//! uid must be the target's real, effective and saved uid, and its real
//! gid the three gids, unless it has `CAP_SYS_PTRACE`; then the target
//! must be dumpable unless it has `CAP_SYS_PTRACE` (a target that has
//! given up its address space, exited, passes); then the target's
//! permitted capabilities must be within the caller's permitted set unless
//! it has `CAP_SYS_PTRACE` (`cap_ptrace_access_check()`).
//!
//! # Linux
//! kernel/ptrace.c `__ptrace_may_access()` with
//! `PTRACE_MODE_ATTACH_REALCREDS`; `set_dumpable()`/`get_dumpable()`.

use crate::{Model, Result, Tid};
use taskcore::task::capability::CAP_SYS_PTRACE;

impl Model {
    /// A new address space with dumpable flag `dumpable`; its index.
    pub(crate) fn new_mm(&mut self, dumpable: bool) -> usize {
        self.mms.push(dumpable);
        self.mms.len() - 1
    }

    /// `__ptrace_may_access(t, PTRACE_MODE_ATTACH_REALCREDS)` by `cur`.
    pub(crate) fn may_attach(&self, cur: usize, t: usize) -> bool {
        if self.same_thread_group(cur, t) {
            return true;
        }
        let c = &self.task(cur).cred;
        let tc = &self.task(t).cred;
        let root = c.cap_effective.has(CAP_SYS_PTRACE);
        let uids = c.uid == tc.uid && c.uid == tc.euid && c.uid == tc.suid;
        let gids = c.gid == tc.gid && c.gid == tc.egid && c.gid == tc.sgid;
        if !(root || uids && gids) {
            return false;
        }
        let dumpable = match self.task(t).mm {
            Some(m) => self.mms[m] || root,
            None => true,
        };
        dumpable && (root || tc.cap_permitted.is_subset(c.cap_permitted))
    }

    /// `prctl(PR_SET_DUMPABLE, arg)`: 0 or 1 sets the flag of the caller's
    /// address space.
    ///
    /// # Errors
    /// `ESRCH` stale caller; `EINVAL` for any other `arg`.
    pub fn pr_set_dumpable(&mut self, current: Tid, arg: u64) -> Result<()> {
        let cur = self.current(current)?;
        let dumpable = taskcore::rules::dumpable_arg(arg)?;
        if let Some(m) = self.task(cur).mm {
            self.mms[m] = dumpable;
        }
        Ok(())
    }

    /// `prctl(PR_GET_DUMPABLE)`: 1 if the caller's address space is
    /// dumpable, else 0.
    ///
    /// # Errors
    /// `ESRCH` if the handle is stale.
    pub fn pr_get_dumpable(&self, current: Tid) -> Result<i32> {
        let t = self.task_idx(current)?;
        Ok(self.task(t).mm.map_or(0, |m| i32::from(self.mms[m])))
    }
}
