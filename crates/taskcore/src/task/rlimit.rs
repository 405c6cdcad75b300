//! Resource limits: `getrlimit`, `setrlimit`, `prlimit64`, and the
//! `RLIMIT_NPROC` check of fork.
//!
//! Limits belong to the thread group (`signal_struct->rlim`) and are
//! inherited at fork. Of the 16 resources, the process table enforces
//! `RLIMIT_NPROC` (at fork) and `RLIMIT_CORE` (a non-zero soft limit makes
//! core-dumping signals set the 0x80 bit of the exit status; `core_pattern`
//! is not modelled); the others are stored and reported only.
//!
//! # Linux
//! kernel/sys.c `do_prlimit()`, `check_prlimit_permission()`;
//! include/asm-generic/resource.h `INIT_RLIMITS`; kernel/fork.c
//! `copy_process()` (`RLIMIT_NPROC`).

use crate::task::task_struct::GroupIx;
use crate::task::task_struct::TaskIx;
use std::sync::Arc;

use crate::errno::{Errno, Result};
use crate::task::capability::{CAP_SYS_ADMIN, CAP_SYS_RESOURCE};
use crate::task::kernel::{Kernel, TaskId};
use crate::uapi::*;

/// One resource's limits (`struct rlimit64`); [`RLIM_INFINITY`] is none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rlimit {
    /// Soft limit (`rlim_cur`), what is enforced.
    pub cur: u64,
    /// Hard limit (`rlim_max`), the ceiling of the soft one.
    pub max: u64,
}

/// A thread group's limits, shared until one group changes them.
pub(crate) type Rlimits = Arc<[Rlimit; RLIM_NLIMITS]>;

/// Tasks and pending signals per user at boot: Linux sets both to
/// `max_threads / 2`, which depends on memory; this is the value of the
/// machine the fixtures were recorded on. Embedders set their own with
/// [`Kernel::prlimit64`] on init.
pub const INIT_NPROC: u64 = 96365;

/// The limits of init (`INIT_RLIMITS`), with `RLIMIT_CORE`'s soft limit
/// unlimited if `core_dumps`, else 0.
pub(crate) fn init_rlimits(core_dumps: bool) -> Rlimits {
    const INF: u64 = RLIM_INFINITY;
    let l = |cur, max| Rlimit { cur, max };
    Arc::new([
        l(INF, INF),                              // CPU
        l(INF, INF),                              // FSIZE
        l(INF, INF),                              // DATA
        l(8 << 20, INF),                          // STACK: _STK_LIM
        l(if core_dumps { INF } else { 0 }, INF), // CORE
        l(INF, INF),                              // RSS
        l(INIT_NPROC, INIT_NPROC),                // NPROC
        l(1024, 4096),                            // NOFILE: INR_OPEN_CUR/MAX
        l(8 << 20, 8 << 20),                      // MEMLOCK: MLOCK_LIMIT
        l(INF, INF),                              // AS
        l(INF, INF),                              // LOCKS
        l(INIT_NPROC, INIT_NPROC),                // SIGPENDING
        l(819_200, 819_200),                      // MSGQUEUE: MQ_BYTES_MAX
        l(0, 0),                                  // NICE
        l(0, 0),                                  // RTPRIO
        l(INF, INF),                              // RTTIME
    ])
}

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
        let r = resource as usize;
        if r >= RLIM_NLIMITS {
            return Err(Errno::EINVAL);
        }
        let g = self.tasks[t].group;
        let old = self.groups[g].rlim[r];
        if let Some(n) = new {
            if n.cur > n.max {
                return Err(Errno::EINVAL);
            }
            if resource == RLIMIT_NOFILE && n.max > NR_OPEN {
                return Err(Errno::EPERM);
            }
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
        let c = &self.tasks[cur].cred;
        let limit = self.groups[self.tasks[cur].group].rlim[RLIMIT_NPROC as usize].cur;
        if c.uid == 0
            || self.capable_cred(c, CAP_SYS_RESOURCE)
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
