//! `unshare(2)` and `setns(2)` with a namespace file: the caller's
//! `pid_for_children`, in plain code.
//!
//! A task's children get their pids in its `pid_for_children`, which is
//! its active namespace until `unshare(CLONE_NEWPID)` makes a new child
//! namespace of it; the next child is then that namespace's init.

use taskcore::task::capability::CAP_SYS_ADMIN;
use taskcore::uapi::{CLONE_NEWPID, CLONE_THREAD, MAX_PID_NS_LEVEL};
use taskcore::{Errno, NsKind, Result};

use crate::objects::{Ns, NsFile};
use crate::{Model, Tid};

use taskcore::uapi::CLONE_NEW_ANY;

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
    /// - `EPERM`: a namespace bit without `CAP_SYS_ADMIN`.
    /// - `ENOSPC`: more than 32 levels.
    ///
    /// # Linux
    /// `ksys_unshare()` (kernel/fork.c), `copy_pid_ns()`.
    pub fn unshare(&mut self, current: Tid, flags: u64) -> Result<()> {
        let cur = self.current(current)?;
        let flags = taskcore::rules::unshare_flags(flags)?;
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
        if !self.task(cur).cred.cap_effective.has(CAP_SYS_ADMIN) {
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

impl Model {
    /// Opens `/proc/PID/ns/pid` (`kind` [`NsKind::Pid`]: the task's
    /// active namespace) or `pid_for_children` of `task`.
    ///
    /// # Errors
    /// - `ESRCH`: `task` released.
    /// - `ENOENT`: `pid_for_children` of a task that has exited, or whose
    ///   `pid_for_children` has no init yet.
    ///
    /// # Linux
    /// `proc_ns_get_link()`, `pidns_get()`, `pidns_for_children_get()`.
    pub fn ns_open(&mut self, task: Tid, kind: NsKind) -> Result<NsFile> {
        let t = self.task_idx(task)?;
        let ns = match kind {
            NsKind::Pid => self.ns_of(t),
            _ => {
                if self.task(t).exiting {
                    return Err(Errno::ENOENT);
                }
                let ns = self.pid_ns_for_children(t);
                if self.nss[ns].child_reaper.is_none() {
                    return Err(Errno::ENOENT);
                }
                ns
            }
        };
        self.ns_files.push(Some(ns));
        Ok(NsFile(self.ns_files.len() - 1))
    }

    /// Closes a namespace file.
    ///
    /// # Errors
    /// `EBADF` if it is closed already.
    pub fn ns_close(&mut self, f: NsFile) -> Result<()> {
        match self.ns_files.get_mut(f.0) {
            Some(slot @ Some(_)) => {
                *slot = None;
                Ok(())
            }
            _ => Err(Errno::EBADF),
        }
    }

    /// `setns(fd, nstype)` with a namespace file by `current`: its
    /// namespace becomes the caller's `pid_for_children`.
    ///
    /// # Errors
    /// - `ESRCH`: stale caller.
    /// - `EBADF`: `f` closed.
    /// - `EINVAL`: `nstype` neither 0 nor `CLONE_NEWPID`; the namespace is
    ///   neither the caller's active one nor below it.
    /// - `EPERM`: no `CAP_SYS_ADMIN`.
    ///
    /// # Linux
    /// `setns()`, `pidns_install()`.
    pub fn setns_file(&mut self, current: Tid, f: NsFile, nstype: u64) -> Result<()> {
        let cur = self.current(current)?;
        let target = self
            .ns_files
            .get(f.0)
            .copied()
            .flatten()
            .ok_or(Errno::EBADF)?;
        taskcore::rules::setns_nstype(false, nstype)?;
        if !self.task(cur).cred.cap_effective.has(CAP_SYS_ADMIN) {
            return Err(Errno::EPERM);
        }
        let active = self.ns_of(cur);
        let mut n = Some(target);
        while n.is_some_and(|x| x != active) {
            n = self.nss[n.expect("checked")].parent;
        }
        if n.is_none() {
            return Err(Errno::EINVAL);
        }
        if target == active {
            self.pid_for_children.remove(&cur);
        } else {
            self.pid_for_children.insert(cur, target);
        }
        Ok(())
    }
}
