//! Process groups, sessions, identity queries and the child-subreaper
//! attribute.
//!
//! # Linux
//! kernel/sys.c: `ksys_setpgid`, `ksys_setsid`, `do_getpgid`, `getsid`,
//! `getppid`, `prctl(PR_SET_CHILD_SUBREAPER)`.

use crate::errno::{Errno, Result};
use crate::ix::GroupIx;
use crate::pid::entry::PidIx;
use crate::task::kernel::{Kernel, TaskId};
use crate::task::task_struct::PF_FORKNOEXEC;

/// # Process groups and sessions: setpgid, setsid and the id lookups (`kernel/sys.c`).
impl Kernel {
    /// `setpgid(pid, pgid)`: moves process `pid` (0 = the caller) into
    /// process group `pgid` (0 = `pid`).
    ///
    /// # Errors
    /// - `EINVAL`: `pgid < 0`; `pid` names a thread that is not a group
    ///   leader.
    /// - `ESRCH`: `current` stale; no process `pid`; `pid` is neither the
    ///   caller nor a child of the caller's group.
    /// - `EPERM`: the child is in another session; `pid` is a session
    ///   leader; `pgid` names no process group of the caller's session.
    /// - `EACCES`: the child has already exec'd.
    ///
    /// # Linux
    /// `ksys_setpgid()` (kernel/sys.c), check for check.
    pub fn setpgid(&mut self, current: TaskId, pid: i32, pgid: i32) -> Result<()> {
        self.probed(crate::probe::Op::Setpgid, current, |k| {
            k.do_sys_setpgid(current, pid, pgid)
        })
    }

    fn do_sys_setpgid(&mut self, current: TaskId, pid: i32, pgid: i32) -> Result<()> {
        let cur = self.current(current)?;
        let ns = self.ns_of(cur);
        let my_group = self.tasks[cur].group;
        let my_leader = self.groups[my_group].leader;
        let pid = if pid == 0 {
            self.pid_nr_ns(self.tasks[my_leader].pid, ns)
        } else {
            pid
        };
        let pgid = crate::rules::setpgid_pgid(pid, pgid)?;
        let p = self.find_task(ns, pid).ok_or(Errno::ESRCH)?;
        if !self.is_leader(p) {
            return Err(Errno::EINVAL);
        }
        let g = self.tasks[p].group;
        if self.same_group(self.groups[g].real_parent, Some(my_leader)) {
            if self.groups[g].session != self.groups[my_group].session {
                return Err(Errno::EPERM);
            }
            if !self.tasks[p].flags.contains(PF_FORKNOEXEC) {
                return Err(Errno::EACCES);
            }
        } else if g != my_group {
            return Err(Errno::ESRCH);
        }
        if self.groups[g].session_leader {
            return Err(Errno::EPERM);
        }
        let new_pgrp = if pgid != pid {
            let pgrp = self.find_pid(ns, pgid).ok_or(Errno::EPERM)?;
            let first = self.pids[pgrp].pgrp_members.first();
            if first.is_none_or(|f| self.groups[f].session != self.groups[my_group].session) {
                return Err(Errno::EPERM);
            }
            pgrp
        } else {
            self.tasks[p].pid
        };
        if self.groups[g].pgrp != new_pgrp {
            self.change_pgrp(g, new_pgrp);
        }
        Ok(())
    }

    /// Moves group `g` to process group `pgrp` (`change_pid(PIDTYPE_PGID)`),
    /// keeping the wait index keyed by process group in step.
    fn change_pgrp(&mut self, g: GroupIx, pgrp: PidIx) {
        // The wait index keys an edge by its target's process group only
        // under a waiter that keeps per-process-group entries (a waiter
        // that made a P_PGID wait): only then must the edges move.
        let rekey = self.edges_keyed_by_pgrp(g);
        if rekey {
            self.unindex_group(g);
        }
        let old = self.detach_pgrp(g);
        self.attach_pgrp(g, pgrp);
        self.put_pid(old);
        if rekey {
            self.mark_group(g);
        }
    }

    /// Whether an edge to group `g` (its child edge, or a ptrace edge of
    /// one of its threads) is indexed under `g`'s process group.
    fn edges_keyed_by_pgrp(&self, g: GroupIx) -> bool {
        let parent = self.groups[g].real_parent;
        self.groups[g].nr_traced > 0
            || parent.is_some_and(|p| self.groups[self.tasks[p].group].wait_by_pgrp)
    }

    /// `setsid()`: the caller's process becomes leader of a new session and
    /// a new process group, both numbered by its tgid. Returns the new
    /// session id.
    ///
    /// # Errors
    /// - `ESRCH`: `current` stale.
    /// - `EPERM`: the caller already leads a session, or some process group
    ///   already has the caller's tgid as its id.
    ///
    /// # Linux
    /// `ksys_setsid()` (kernel/sys.c). Controlling terminals are not
    /// modelled (every process has none).
    pub fn setsid(&mut self, current: TaskId) -> Result<i32> {
        self.probed(crate::probe::Op::Setsid, current, |k| {
            k.do_sys_setsid(current)
        })
    }

    fn do_sys_setsid(&mut self, current: TaskId) -> Result<i32> {
        let cur = self.current(current)?;
        let g = self.tasks[cur].group;
        let leader = self.groups[g].leader;
        let sid = self.tasks[leader].pid;
        if self.groups[g].session_leader || !self.pids[sid].pgrp_members.is_empty() {
            return Err(Errno::EPERM);
        }
        self.groups[g].session_leader = true;
        self.unindex_group(g);
        let old_session = self.detach_session(g);
        self.groups[g].session = sid;
        self.pids[sid].session_members += 1;
        self.put_pid(old_session);
        let old_pgrp = self.detach_pgrp(g);
        self.attach_pgrp(g, sid);
        self.put_pid(old_pgrp);
        self.mark_group(g);
        Ok(self.pid_nr_ns(sid, self.ns_of(cur)))
    }

    /// `getpgid(pid)`: the process group id of `pid` (0 = the caller), as
    /// the caller's namespace numbers it (0 if it has no number there).
    ///
    /// # Errors
    /// `ESRCH`: `current` stale or no task `pid`.
    ///
    /// # Linux
    /// `do_getpgid()` (kernel/sys.c).
    pub fn getpgid(&self, current: TaskId, pid: i32) -> Result<i32> {
        let cur = self.task_idx(current)?;
        let ns = self.ns_of(cur);
        let t = if pid == 0 {
            cur
        } else {
            self.find_task(ns, pid).ok_or(Errno::ESRCH)?
        };
        Ok(self.pid_nr_ns(self.groups[self.tasks[t].group].pgrp, ns))
    }

    /// The processes of process group `pgid`, as `viewer`'s namespace
    /// numbers it: each member's leader, in the order the core's own
    /// `kill(-pgid)` reaches them (the order they joined the group; Linux's
    /// list has the newest first). Nothing when no process group has that
    /// number there (`pgid <= 0`, a number no group has, or one whose
    /// members are all gone). O(members), no allocation; the walk borrows
    /// the kernel, so nothing changes under it.
    ///
    /// # Errors
    /// `ESRCH`: `viewer` stale.
    ///
    /// # Linux
    /// `do_each_pid_task(find_vpid(pgid), PIDTYPE_PGID, p)` (include/linux/pid.h),
    /// the walk of `__kill_pgrp_info()`.
    pub fn pgrp_members(
        &self,
        viewer: TaskId,
        pgid: i32,
    ) -> Result<impl Iterator<Item = TaskId> + '_> {
        let v = self.task_idx(viewer)?;
        let first = self
            .find_pid(self.ns_of(v), pgid)
            .and_then(|p| self.pids[p].pgrp_members.first());
        Ok(
            std::iter::successors(first, |&g| self.groups[g].pgrp_node.next)
                .map(|g| self.handle_unchecked(self.groups[g].leader)),
        )
    }

    /// The threads of `task`'s process, in its thread list's order (the
    /// order they joined it), those that exited but are not released yet
    /// included (a zombie leader stays until its last thread goes).
    /// O(threads), no allocation.
    ///
    /// # Errors
    /// `ESRCH`: `task` stale.
    ///
    /// # Linux
    /// `for_each_thread(p, t)` (include/linux/sched/signal.h): the
    /// `signal->thread_head` list.
    pub fn threads_of(&self, task: TaskId) -> Result<impl Iterator<Item = TaskId> + '_> {
        let t = self.task_idx(task)?;
        let first = self.groups[self.tasks[t].group].threads.first();
        Ok(
            std::iter::successors(first, |&x| self.tasks[x].thread_node.next)
                .map(|x| self.handle_unchecked(x)),
        )
    }

    /// `getsid(pid)`: the session id of `pid` (0 = the caller).
    ///
    /// # Errors
    /// `ESRCH`: `current` stale or no task `pid`.
    ///
    /// # Linux
    /// `getsid()` (kernel/sys.c).
    pub fn getsid(&self, current: TaskId, pid: i32) -> Result<i32> {
        let cur = self.task_idx(current)?;
        let ns = self.ns_of(cur);
        let t = if pid == 0 {
            cur
        } else {
            self.find_task(ns, pid).ok_or(Errno::ESRCH)?
        };
        Ok(self.pid_nr_ns(self.groups[self.tasks[t].group].session, ns))
    }

    /// `getppid()`: the tgid of the caller's real parent in the caller's
    /// namespace; 0 for a namespace init or a parent outside the namespace.
    ///
    /// # Errors
    /// `ESRCH`: `current` stale.
    ///
    /// # Linux
    /// `getppid()` (kernel/sys.c): `task_tgid_vnr(current->real_parent)`.
    pub fn getppid(&self, current: TaskId) -> Result<i32> {
        let cur = self.task_idx(current)?;
        let Some(rp) = self.real_parent(cur) else {
            return Ok(0);
        };
        Ok(self.pid_nr_ns(self.tasks[self.leader_of(rp)].pid, self.ns_of(cur)))
    }

    /// `getpid()`: the caller's tgid in its own namespace.
    ///
    /// # Errors
    /// `ESRCH`: `current` stale.
    pub fn getpid(&self, current: TaskId) -> Result<i32> {
        let cur = self.task_idx(current)?;
        Ok(self.pid_nr_ns(self.tasks[self.leader_of(cur)].pid, self.ns_of(cur)))
    }

    /// `gettid()`: the caller's thread id in its own namespace.
    ///
    /// # Errors
    /// `ESRCH`: `current` stale.
    pub fn gettid(&self, current: TaskId) -> Result<i32> {
        let cur = self.task_idx(current)?;
        Ok(self.pid_nr_ns(self.tasks[cur].pid, self.ns_of(cur)))
    }

    /// `prctl(PR_SET_CHILD_SUBREAPER, on)`: mark or unmark the caller's
    /// process as a child subreaper: orphaned descendants are reparented to
    /// it rather than to the namespace's init.
    ///
    /// # Errors
    /// `ESRCH`: `current` stale or exiting.
    ///
    /// # Linux
    /// `prctl()` (kernel/sys.c). Linux also propagates a
    /// `has_child_subreaper` hint to descendants to skip the ancestor walk
    /// in `find_new_reaper()`; we always walk (O(depth)), with the same
    /// result.
    pub fn set_child_subreaper(&mut self, current: TaskId, on: bool) -> Result<()> {
        let cur = self.current(current)?;
        let g = self.tasks[cur].group;
        self.groups[g].is_child_subreaper = on;
        Ok(())
    }

    /// `prctl(PR_GET_CHILD_SUBREAPER)`.
    ///
    /// # Errors
    /// `ESRCH`: `current` stale.
    pub fn child_subreaper(&self, current: TaskId) -> Result<bool> {
        let cur = self.task_idx(current)?;
        Ok(self.groups[self.tasks[cur].group].is_child_subreaper)
    }

    /// The number `task` has in the namespace of `viewer` (0 if none):
    /// what `clone` returns to `viewer` for a new child (`pid_vnr`).
    ///
    /// # Errors
    /// `ESRCH` if either handle is stale.
    pub fn pid_vnr(&self, viewer: TaskId, task: TaskId) -> Result<i32> {
        let (_, v) = self.task_entry(viewer)?;
        let (_, t) = self.task_entry(task)?;
        Ok(self.pid_nr_ns(t.pid, self.pids[v.pid].numbers.last().ns))
    }

    /// Whether number `nr` is in use in `viewer`'s namespace, as a pid,
    /// tgid, pgid or sid (so that cyclic allocation will not hand it out).
    ///
    /// # Errors
    /// `ESRCH` if `viewer` is stale.
    pub fn pid_in_use(&self, viewer: TaskId, nr: i32) -> Result<bool> {
        let v = self.task_idx(viewer)?;
        Ok(self.find_pid(self.ns_of(v), nr).is_some())
    }

    /// The task numbered `nr` in the namespace of `viewer`
    /// (`find_task_by_vpid`).
    ///
    /// # Errors
    /// `ESRCH` if `viewer` is stale or no task has that number.
    pub fn find_task_by_vpid(&self, viewer: TaskId, nr: i32) -> Result<TaskId> {
        let v = self.task_idx(viewer)?;
        let t = self.find_task(self.ns_of(v), nr).ok_or(Errno::ESRCH)?;
        self.handle(t)
    }
}
