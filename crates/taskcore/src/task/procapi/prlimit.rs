//! The resource-limit calls: `getrlimit`, `setrlimit`, `prlimit64`, and
//! the `RLIMIT_NPROC` check of fork.
//!
//! # Linux
//! kernel/sys.c `do_prlimit()`, `check_prlimit_permission()`;
//! kernel/fork.c `copy_process()` (`RLIMIT_NPROC`).

use std::sync::Arc;

use crate::errno::{Errno, Result};
use crate::ix::{GroupIx, TaskId, TaskIx};
use crate::task::kernel::Kernel;
use crate::task::state::capability::{CAP_SYS_ADMIN, CAP_SYS_RESOURCE};
use crate::task::state::rlimit::Rlimit;
use crate::uapi::*;

/// # Process API: resource limits (`kernel/sys.c`).
impl Kernel {
    /// `getrlimit(resource)` (and `prlimit64(0, resource, NULL, old)`).
    ///
    /// # Errors
    /// `ESRCH` if `current` is stale; `EINVAL` if `resource` is not below
    /// [`RLIM_NLIMITS`].
    pub fn getrlimit(&self, current: TaskId, resource: u32) -> Result<Rlimit> {
        let cur = self.current(current)?;
        let r = *self.groups[self.tasks[cur].group]
            .rlim
            .get(resource as usize)
            .ok_or(Errno::EINVAL)?;
        Ok(r)
    }

    /// `setrlimit(resource, new)`: [`Kernel::prlimit64`] on the caller.
    ///
    /// # Errors
    /// As [`Kernel::prlimit64`].
    pub fn setrlimit(&mut self, current: TaskId, resource: u32, new: Rlimit) -> Result<()> {
        self.prlimit64(current, 0, resource, Some(new)).map(|_| ())
    }

    /// `prlimit64(pid, resource, new, old)`: returns the old limits of
    /// process `pid` (0 for the caller), after setting `new` if given.
    ///
    /// # Errors
    /// - `ESRCH`: `current` is stale, or no process `pid` in its namespace.
    /// - `EINVAL`: `resource` not below [`RLIM_NLIMITS`]; `new.cur >
    ///   new.max`.
    /// - `EPERM`: `pid` is another process whose real, effective and saved
    ///   uid and gid are not all the caller's real uid and gid, and the
    ///   caller lacks `CAP_SYS_RESOURCE`; `new.max` above the current hard
    ///   limit without `CAP_SYS_RESOURCE`; `RLIMIT_NOFILE` above
    ///   [`NR_OPEN`].
    ///
    /// # Linux
    /// `prlimit64()` and `do_prlimit()` (kernel/sys.c).
    pub fn prlimit64(
        &mut self,
        current: TaskId,
        pid: i32,
        resource: u32,
        new: Option<Rlimit>,
    ) -> Result<Rlimit> {
        let cur = self.current(current)?;
        let t = if pid == 0 {
            cur
        } else {
            let ns = self.ns_of(cur);
            self.find_task(ns, pid).ok_or(Errno::ESRCH)?
        };
        let me = &self.tasks[cur].cred;
        if t != cur {
            let tc = &self.tasks[t].cred;
            let same = [tc.uid, tc.euid, tc.suid].iter().all(|&u| u == me.uid)
                && [tc.gid, tc.egid, tc.sgid].iter().all(|&g| g == me.gid);
            // check_prlimit_permission(): CAP_SYS_RESOURCE over the
            // target's user namespace.
            if !same && !self.ns_capable_cred(me, tc.user_ns.0, CAP_SYS_RESOURCE) {
                return Err(Errno::EPERM);
            }
        }
        let r = crate::rules::rlimit_args(resource, new.map(|n| (n.cur, n.max)))?;
        let g = self.tasks[t].group;
        let old = self.groups[g].rlim[r];
        if let Some(n) = new {
            // capable(): in the initial user namespace.
            if n.max > old.max && !self.capable_cred(me, CAP_SYS_RESOURCE) {
                return Err(Errno::EPERM);
            }
            Arc::make_mut(&mut self.groups[g].rlim)[r] = n;
        }
        Ok(old)
    }

    /// Whether real user `uid` may have one more task, for a fork by task
    /// `cur` (`copy_process()`'s `RLIMIT_NPROC` check): the tasks whose
    /// real uid is `uid`, zombies included, plus the new one, within the
    /// caller's soft limit; real (kernel) uid 0 and callers with
    /// `CAP_SYS_RESOURCE` or `CAP_SYS_ADMIN` in the initial user namespace
    /// are exempt (the count is per kernel uid, not per namespace's
    /// `ucounts`).
    pub(crate) fn nproc_ok(&self, cur: TaskIx) -> bool {
        let task = &self.tasks[cur];
        let c = &task.cred;
        // Root first: no limit to read.
        if c.uid == 0 {
            return true;
        }
        let limit = self.groups[task.group].rlim[RLIMIT_NPROC as usize].cur;
        if self.capable_cred(c, CAP_SYS_RESOURCE)
            || self.capable_cred(c, CAP_SYS_ADMIN)
            || limit == RLIM_INFINITY
        {
            return true;
        }
        // Counted on demand: only unprivileged callers under a finite
        // limit pay for the scan.
        let n = self
            .tasks
            .iter()
            .filter(|(_, t)| t.cred.uid == c.uid)
            .count() as u64;
        n < limit
    }

    /// Whether thread group `g` dumps core on a core-dumping signal (its
    /// `RLIMIT_CORE` soft limit is not 0).
    pub(crate) fn dumps_core(&self, g: GroupIx) -> bool {
        self.groups[g].rlim[RLIMIT_CORE as usize].cur != 0
    }
}
