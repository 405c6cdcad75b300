//! Resource limits: per thread group, inherited at fork; `RLIMIT_NPROC`
//! checked at fork.
//!
//! # Linux
//! kernel/sys.c `do_prlimit()`; kernel/fork.c `copy_process()`.

use taskcore::task::capability::{CAP_SYS_ADMIN, CAP_SYS_RESOURCE};
use taskcore::uapi::RLIMIT_NPROC;

use crate::{Errno, Model, Result, Rlimit, Tid};

impl Model {
    /// `prlimit64(pid, resource, new, old)` (pid 0: the caller).
    ///
    /// # Errors
    /// `ESRCH` stale caller or no such task; `EPERM` for another user's
    /// task unless privileged, a raised hard limit unless privileged,
    /// `RLIMIT_NOFILE` above `NR_OPEN`; `EINVAL` bad resource or
    /// `cur > max`.
    pub fn prlimit64(
        &mut self,
        current: Tid,
        pid: i32,
        resource: u32,
        new: Option<Rlimit>,
    ) -> Result<Rlimit> {
        let cur = self.current(current)?;
        let t = match pid {
            0 => cur,
            _ => {
                let ns = self.ns_of(cur);
                self.find_task(ns, pid).ok_or(Errno::ESRCH)?
            }
        };
        let me = self.task(cur).cred.clone();
        let tc = self.task(t).cred.clone();
        let same_user = tc.uid == me.uid && tc.euid == me.uid && tc.suid == me.uid;
        let same_group = tc.gid == me.gid && tc.egid == me.gid && tc.sgid == me.gid;
        let resource_cap = me.cap_effective.has(CAP_SYS_RESOURCE);
        if t != cur && !(same_user && same_group) && !resource_cap {
            return Err(Errno::EPERM);
        }
        let r = taskcore::rules::rlimit_args(resource, new.map(|n| (n.cur, n.max)))?;
        let old = self.sig(t).rlim[r];
        if let Some(n) = new {
            if n.max > old.max && !resource_cap {
                return Err(Errno::EPERM);
            }
            let s = self.task(t).signal;
            self.signals[s].as_mut().expect("live signal").rlim[r] = n;
        }
        Ok(old)
    }

    /// `copy_process()`'s `RLIMIT_NPROC` check for a fork by `cur`.
    pub(crate) fn nproc_allows(&self, cur: usize) -> bool {
        let c = &self.task(cur).cred;
        let limit = self.sig(cur).rlim[RLIMIT_NPROC as usize].cur;
        let caps = c.cap_effective;
        if c.uid == 0 || caps.has(CAP_SYS_RESOURCE) || caps.has(CAP_SYS_ADMIN) {
            return true;
        }
        let n = self
            .tasks
            .iter()
            .flatten()
            .filter(|t| t.cred.uid == c.uid)
            .count() as u64;
        n < limit
    }
}
