//! Process groups, sessions, identity queries, the child-subreaper flag.
//!
//! # Linux
//! kernel/sys.c: `ksys_setpgid`, `ksys_setsid`, `getpgid`, `getsid`,
//! `getppid`, `getpid`, `gettid`, `prctl(PR_SET_CHILD_SUBREAPER)`.

use crate::{Errno, Model, Result, Tid};

impl Model {
    /// `setpgid(pid, pgid)`.
    ///
    /// # Errors
    /// `EINVAL`: `pgid < 0`; `pid` is not a group leader. `ESRCH`: no task
    /// `pid`, or it is neither the caller's process nor a child of it.
    /// `EPERM`: child in another session; session leader; `pgid` names no
    /// process group of the caller's session. `EACCES`: the child exec'd.
    ///
    /// # Linux
    /// `ksys_setpgid()`, check for check.
    pub fn setpgid(&mut self, current: Tid, pid: i32, pgid: i32) -> Result<()> {
        let cur = self.current(current)?;
        let ns = self.ns_of(cur);
        let group_leader = self.leader(cur);
        let pid = if pid == 0 {
            self.pid_nr_ns(self.task(group_leader).pid, ns)
        } else {
            pid
        };
        let pgid = taskcore::rules::setpgid_pgid(pid, pgid)?;
        let p = self.find_task(ns, pid).ok_or(Errno::ESRCH)?;
        if !self.is_leader(p) {
            return Err(Errno::EINVAL);
        }
        if self
            .task(p)
            .real_parent
            .is_some_and(|rp| self.same_thread_group(rp, group_leader))
        {
            if self.sig(p).session != self.sig(group_leader).session {
                return Err(Errno::EPERM);
            }
            if !self.task(p).forknoexec {
                return Err(Errno::EACCES);
            }
        } else if p != group_leader {
            return Err(Errno::ESRCH);
        }
        if self.sig(p).leader {
            return Err(Errno::EPERM);
        }
        let mut pgrp = self.task(p).pid;
        if pgid != pid {
            pgrp = self.find_pid(ns, pgid).ok_or(Errno::EPERM)?;
            // g = pid_task(pgrp, PIDTYPE_PGID): some member of that group.
            let g = self.pgrp_members(pgrp).into_iter().next();
            if g.is_none_or(|g| self.sig(g).session != self.sig(group_leader).session) {
                return Err(Errno::EPERM);
            }
        }
        if self.sig(p).pgrp != pgrp {
            self.change_pgrp(p, pgrp);
        }
        Ok(())
    }

    /// `change_pid(p, PIDTYPE_PGID, pgrp)`.
    fn change_pgrp(&mut self, p: usize, pgrp: usize) {
        let old = self.sig(p).pgrp;
        let seq = self.next_seq();
        self.get_pid(pgrp, 1);
        let s = self.sig_mut(p);
        s.pgrp = pgrp;
        s.pgrp_seq = seq;
        self.put_pid(old);
    }

    /// `setsid()`: the caller's process leads a new session and process
    /// group numbered by its tgid; returns that number.
    ///
    /// # Errors
    /// `ESRCH`: stale caller. `EPERM`: already a session leader, or a
    /// process group with the caller's tgid exists.
    ///
    /// # Linux
    /// `ksys_setsid()`.
    pub fn setsid(&mut self, current: Tid) -> Result<i32> {
        let cur = self.current(current)?;
        let group_leader = self.leader(cur);
        let sid = self.task(group_leader).pid;
        let session = self.pid_nr_ns(sid, self.ns_of(cur));
        if self.sig(group_leader).leader || self.pgrp_has_task(sid) {
            return Err(Errno::EPERM);
        }
        self.sig_mut(group_leader).leader = true;
        // change_pid(PIDTYPE_SID) then change_pid(PIDTYPE_PGID).
        let old_session = self.sig(group_leader).session;
        self.get_pid(sid, 1);
        self.sig_mut(group_leader).session = sid;
        self.put_pid(old_session);
        self.change_pgrp(group_leader, sid);
        Ok(session)
    }

    /// `getpgid(pid)` (0: the caller), as the caller's namespace numbers it.
    ///
    /// # Errors
    /// `ESRCH`: stale caller or no task `pid`.
    pub fn getpgid(&self, current: Tid, pid: i32) -> Result<i32> {
        let cur = self.task_idx(current)?;
        let ns = self.ns_of(cur);
        let t = if pid == 0 {
            cur
        } else {
            self.find_task(ns, pid).ok_or(Errno::ESRCH)?
        };
        Ok(self.pid_nr_ns(self.sig(t).pgrp, ns))
    }

    /// `getsid(pid)` (0: the caller).
    ///
    /// # Errors
    /// `ESRCH`: stale caller or no task `pid`.
    pub fn getsid(&self, current: Tid, pid: i32) -> Result<i32> {
        let cur = self.task_idx(current)?;
        let ns = self.ns_of(cur);
        let t = if pid == 0 {
            cur
        } else {
            self.find_task(ns, pid).ok_or(Errno::ESRCH)?
        };
        Ok(self.pid_nr_ns(self.sig(t).session, ns))
    }

    /// `getppid()`: `task_tgid_vnr(current->real_parent)`; 0 when the real
    /// parent is invisible from the caller's namespace or absent.
    ///
    /// # Errors
    /// `ESRCH`: stale caller.
    pub fn getppid(&self, current: Tid) -> Result<i32> {
        let cur = self.task_idx(current)?;
        Ok(match self.task(cur).real_parent {
            Some(rp) => self.tgid_nr_ns(rp, self.ns_of(cur)),
            None => 0,
        })
    }

    /// `getpid()`: the caller's tgid in its namespace.
    ///
    /// # Errors
    /// `ESRCH`: stale caller.
    pub fn getpid(&self, current: Tid) -> Result<i32> {
        let cur = self.task_idx(current)?;
        Ok(self.tgid_nr_ns(cur, self.ns_of(cur)))
    }

    /// `gettid()`: the caller's thread id in its namespace.
    ///
    /// # Errors
    /// `ESRCH`: stale caller.
    pub fn gettid(&self, current: Tid) -> Result<i32> {
        let cur = self.task_idx(current)?;
        Ok(self.pid_nr_ns(self.task(cur).pid, self.ns_of(cur)))
    }

    /// `prctl(PR_SET_CHILD_SUBREAPER, on)`.
    ///
    /// # Errors
    /// `ESRCH`: stale or exiting caller.
    pub fn set_child_subreaper(&mut self, current: Tid, on: bool) -> Result<()> {
        let cur = self.current(current)?;
        self.sig_mut(cur).is_child_subreaper = on;
        Ok(())
    }

    /// `prctl(PR_GET_CHILD_SUBREAPER)`.
    ///
    /// # Errors
    /// `ESRCH`: stale caller.
    pub fn child_subreaper(&self, current: Tid) -> Result<bool> {
        let cur = self.task_idx(current)?;
        Ok(self.sig(cur).is_child_subreaper)
    }

    /// The number `task` has in `viewer`'s namespace (0 if none).
    ///
    /// # Errors
    /// `ESRCH` if either handle is stale.
    pub fn pid_vnr(&self, viewer: Tid, task: Tid) -> Result<i32> {
        let v = self.task_idx(viewer)?;
        let t = self.task_idx(task)?;
        Ok(self.pid_nr_ns(self.task(t).pid, self.ns_of(v)))
    }

    /// The tgid of `task` in `viewer`'s namespace, 0 if it has none there
    /// (`task_tgid_nr_ns`); a helper for test drivers.
    ///
    /// # Errors
    /// `ESRCH` if either handle is stale.
    pub fn tgid_vnr(&self, viewer: Tid, task: Tid) -> Result<i32> {
        let v = self.task_idx(viewer)?;
        let t = self.task_idx(task)?;
        Ok(self.tgid_nr_ns(t, self.ns_of(v)))
    }

    /// The processes (group leaders) whose real parent is a thread of
    /// `t`'s thread group, in the order the walk of `do_wait` meets them; a
    /// helper for test drivers.
    pub fn child_processes(&self, t: Tid) -> Vec<Tid> {
        if !self.exists(t.0) {
            return Vec::new();
        }
        self.sig(t.0)
            .threads
            .iter()
            .flat_map(|&th| self.task(th).children.iter().copied())
            .map(Tid)
            .collect()
    }

    /// The tasks thread `t` traces, newest first (its `ptraced` list); a
    /// helper for test drivers.
    pub fn tracees(&self, t: Tid) -> Vec<Tid> {
        if !self.exists(t.0) {
            return Vec::new();
        }
        self.task(t.0).ptraced.iter().copied().map(Tid).collect()
    }

    /// Whether `t` waits for a vfork child to exec or exit; a helper for
    /// test drivers.
    pub fn in_vfork_wait(&self, t: Tid) -> bool {
        self.tasks
            .iter()
            .flatten()
            .any(|u| u.vfork_parent == Some(t.0))
    }

    /// Whether `t` is traced; a helper for test drivers.
    pub fn is_traced(&self, t: Tid) -> bool {
        self.exists(t.0) && self.task(t.0).ptrace != 0
    }

    /// Whether `t` is stopped in its `PTRACE_EVENT_EXIT` stop (it exits
    /// when resumed); a helper for test drivers.
    pub fn in_exit_stop(&self, t: Tid) -> bool {
        self.exists(t.0) && self.task(t.0).exit_pending.is_some()
    }

    /// The task holding pid 1 of the root namespace (the global init, or
    /// the thread that took its pid by exec), if any; a helper for test
    /// drivers.
    pub fn root_init(&self) -> Option<Tid> {
        self.find_task(0, 1).map(Tid)
    }

    /// The task numbered `nr` in `viewer`'s namespace.
    ///
    /// # Errors
    /// `ESRCH` if `viewer` is stale or no task has that number.
    pub fn find_task_by_vpid(&self, viewer: Tid, nr: i32) -> Result<Tid> {
        let v = self.task_idx(viewer)?;
        self.find_task(self.ns_of(v), nr)
            .map(Tid)
            .ok_or(Errno::ESRCH)
    }

    /// Whether number `nr` is in use in `viewer`'s namespace (as a pid,
    /// tgid, pgid or sid).
    ///
    /// # Errors
    /// `ESRCH` if `viewer` is stale.
    pub fn pid_in_use(&self, viewer: Tid, nr: i32) -> Result<bool> {
        let v = self.task_idx(viewer)?;
        Ok(self.find_pid(self.ns_of(v), nr).is_some())
    }
}
