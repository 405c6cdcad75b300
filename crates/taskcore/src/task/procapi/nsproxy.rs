//! Each task's namespaces for its children (`struct nsproxy`), and the
//! calls that change them: `unshare(CLONE_NEWPID)` and `setns(fd,
//! CLONE_NEWPID)`; the `/proc/PID/ns/pid` and `pid_for_children` links.
//!
//! A task's *active* pid namespace is its pid's (`task_active_pid_ns`); its
//! nsproxy's `pid_ns_for_children` is where its next children get their
//! pids. They differ after `unshare(CLONE_NEWPID)` or `setns`: the caller
//! stays where it is, and its next child is created in the new namespace
//! (the first one as its init, pid 1). Pid and user namespaces are
//! modelled (user namespaces in [`crate::task::userns`]): the other
//! `CLONE_NEW*` bits are accepted and change nothing.
//!
//! # Linux
//! kernel/nsproxy.c (`copy_namespaces`, `unshare_nsproxy_namespaces`,
//! `setns`, `validate_nsset`), kernel/fork.c (`ksys_unshare`,
//! `check_unshare_flags`), kernel/pid_namespace.c (`copy_pid_ns`,
//! `pidns_install`, `pidns_for_children_get`).

use crate::errno::{Errno, Result};
use crate::ix::TaskIx;
use crate::pid::ns::NsIx;
use crate::pid::refs::NsRef;
use crate::pid::NsId;
use crate::task::kernel::{Kernel, TaskId};
use crate::task::procapi::pidfd::PidFd;
use crate::task::state::capability::CAP_SYS_ADMIN;
use crate::task::state::cred_struct::Cred;
use crate::task::state::nsproxy_struct::{NsProxy, CLONE_NEW_ANY};
use crate::uapi::{CLONE_NEWPID, CLONE_NEWUSER, CLONE_THREAD};

/// Which pid namespace link of `/proc/PID/ns` to open or read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NsKind {
    /// `/proc/PID/ns/pid`: the task's active pid namespace.
    Pid,
    /// `/proc/PID/ns/pid_for_children`: where its children get their pids.
    PidForChildren,
}

/// What `setns` is given: an open namespace file or a pidfd.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SetnsFd {
    /// An open `/proc/PID/ns/pid` (or `pid_for_children`) file.
    Ns(NsRef),
    /// A pidfd: its task's namespaces.
    PidFd(PidFd),
}

/// # Process API: namespaces, unshare and setns (`kernel/nsproxy.c`).
impl Kernel {
    /// Gives task `t` (without an nsproxy) `ns` as `pid_ns_for_children`,
    /// taking a reference.
    #[inline(always)]
    pub(crate) fn set_nsproxy(&mut self, t: TaskIx, ns: NsIx) {
        debug_assert_eq!(self.tasks[t].nsproxy, NsProxy::NONE);
        self.get_ns(ns);
        self.tasks[t].nsproxy.pid_ns_for_children = Some(ns);
    }

    /// Drops task `t`'s nsproxy (`exit_task_namespaces`), at its exit.
    #[inline(always)]
    pub(crate) fn exit_task_namespaces(&mut self, t: TaskIx) {
        let ns = core::mem::replace(&mut self.tasks[t].nsproxy, NsProxy::NONE).pid_ns_for_children;
        if let Some(ns) = ns {
            self.put_ns(ns);
        }
    }

    /// Whether `ns` is `ancestor` or one of its descendants.
    pub(crate) fn ns_within(&self, ns: NsIx, ancestor: NsIx) -> bool {
        let want = self.nss[ancestor].level;
        let mut n = ns;
        while self.nss[n].level > want {
            match self.nss[n].parent {
                Some(p) => n = p,
                None => return false,
            }
        }
        n == ancestor
    }

    /// `unshare(flags)` for `current`. With `CLONE_NEWUSER`, the caller
    /// moves into a new user namespace, child of its own, owned by its
    /// effective uid, with every capability there (its ids unmapped until
    /// [`Kernel::proc_id_map_write`]). With `CLONE_NEWPID`, creates a pid
    /// namespace, child of the caller's, owned by the caller's (new) user
    /// namespace, as the caller's
    /// `pid_for_children`: the caller stays in its namespace, and its next
    /// child is the new namespace's init (pid 1).
    ///
    /// `CLONE_THREAD`, `CLONE_SIGHAND` and `CLONE_VM` succeed only in a
    /// single-threaded process (`CLONE_VM` implies `CLONE_SIGHAND`, which
    /// implies `CLONE_THREAD`); the other resources (`CLONE_FS`,
    /// `CLONE_FILES`, `CLONE_SYSVSEM`) and namespaces other than the pid
    /// namespace are not modelled: accepted, no effect.
    ///
    /// # Errors
    /// - `ESRCH`: `current` stale or exiting.
    /// - `EINVAL`: a bit outside the ones unshare takes; `CLONE_THREAD`,
    ///   `CLONE_SIGHAND` or `CLONE_VM` in a process with several threads;
    ///   `CLONE_NEWPID` when the caller's `pid_for_children` is already not
    ///   its own namespace (a second unshare, or after `setns`, before
    ///   going back).
    /// - `ENOSPC`: `CLONE_NEWUSER` below a user namespace of level 32.
    /// - `EPERM`: `CLONE_NEWUSER` when the caller's user namespace does not
    ///   map its effective uid or gid; a namespace bit other than
    ///   `CLONE_NEWUSER` and no `CAP_SYS_ADMIN` in the caller's (new, with
    ///   `CLONE_NEWUSER`) user namespace.
    /// - `ENOSPC`: the new namespace would be nested deeper than 32 levels.
    ///
    /// Nothing changes when an error is returned.
    ///
    /// # Linux
    /// `ksys_unshare()` (kernel/fork.c), `unshare_nsproxy_namespaces()`,
    /// `copy_pid_ns()`. Not modelled: `CLONE_VM`'s check that no other
    /// process shares the address space (a vfork child's).
    pub fn unshare(&mut self, current: TaskId, flags: u64) -> Result<()> {
        let cur = self.current(current)?;
        let flags = crate::rules::unshare_flags(flags)?;
        if flags & CLONE_THREAD != 0 && !self.group_empty(self.tasks[cur].group) {
            return Err(Errno::EINVAL);
        }
        if flags & CLONE_NEW_ANY == 0 {
            return Ok(());
        }
        // unshare_userns(): new credentials in a new user namespace.
        let mut new_cred = None;
        if flags & CLONE_NEWUSER != 0 {
            let mut c = Cred::clone(&self.tasks[cur].cred);
            let ns = self.create_user_ns(&mut c)?;
            new_cred = Some((c, ns));
        }
        let r = self.unshare_nsproxy(cur, flags, new_cred.as_ref().map(|(c, _)| c));
        if let Some((c, ns)) = new_cred {
            if r.is_ok() {
                self.commit_creds(cur, c);
            }
            // The credentials hold their own reference, if installed.
            self.put_user_ns(ns);
        }
        r
    }

    /// `unshare_nsproxy_namespaces()`: the namespaces other than the user
    /// namespace, with `CAP_SYS_ADMIN` asked in `new_cred`'s user namespace
    /// (the caller's without `CLONE_NEWUSER`).
    fn unshare_nsproxy(&mut self, cur: TaskIx, flags: u64, new_cred: Option<&Cred>) -> Result<()> {
        if flags & CLONE_NEW_ANY & !CLONE_NEWUSER == 0 {
            return Ok(());
        }
        let cred = new_cred.unwrap_or(&self.tasks[cur].cred);
        let user_ns = cred.user_ns.0;
        if !self.ns_capable_cred(cred, user_ns, CAP_SYS_ADMIN) {
            return Err(Errno::EPERM);
        }
        if flags & CLONE_NEWPID == 0 {
            return Ok(());
        }
        let active = self.ns_of(cur);
        let old = self.tasks[cur].nsproxy.pid_ns_for_children;
        if old != Some(active) {
            return Err(Errno::EINVAL);
        }
        let ns = self.create_pid_namespace(active, user_ns)?;
        // The creation reference becomes the nsproxy's.
        self.tasks[cur].nsproxy.pid_ns_for_children = Some(ns);
        self.put_ns(active);
        Ok(())
    }

    /// `setns(fd, nstype)` for the pid namespace: the caller's
    /// `pid_for_children` becomes the namespace of an open namespace file,
    /// or the active namespace of a pidfd's task. The caller stays in its
    /// namespace; its next child is created in the new one.
    ///
    /// With a namespace file, `nstype` is 0 or `CLONE_NEWPID`. With a
    /// pidfd, `nstype` is a non-empty set of `CLONE_NEW*` bits; bits other
    /// than `CLONE_NEWPID` are not modelled (accepted, no effect).
    ///
    /// # Errors
    /// - `ESRCH`: `current` stale or exiting; the pidfd's task has exited
    ///   (a zombie included: it has no namespaces left).
    /// - `EBADF`: the namespace file or pidfd was closed.
    /// - `EINVAL`: `nstype` not allowed (above); the target namespace is
    ///   neither the caller's active namespace nor one of its descendants.
    /// - `EPERM`: the caller lacks `CAP_SYS_ADMIN` in its user namespace
    ///   or over the target namespace's owner.
    ///
    /// Nothing changes when an error is returned.
    ///
    /// # Linux
    /// `setns()` (kernel/nsproxy.c), `check_setns_flags()`,
    /// `validate_nsset()`, `pidns_install()`. Not modelled: `ptrace_may_access`
    /// on the pidfd's task.
    pub fn setns(&mut self, current: TaskId, fd: SetnsFd, nstype: u64) -> Result<()> {
        let cur = self.current(current)?;
        let target = match fd {
            SetnsFd::Ns(f) => {
                let ns = self.ns_file(f)?;
                crate::rules::setns_nstype(false, nstype)?;
                ns
            }
            SetnsFd::PidFd(p) => {
                let pid = self.pidfd_pid(p)?;
                crate::rules::setns_nstype(true, nstype)?;
                let Some(t) = self.pids[pid].task else {
                    return Err(Errno::ESRCH);
                };
                if self.tasks[t].nsproxy == NsProxy::NONE {
                    return Err(Errno::ESRCH);
                }
                if !self.has_cap(cur, CAP_SYS_ADMIN) {
                    return Err(Errno::EPERM);
                }
                if nstype & CLONE_NEWPID == 0 {
                    return Ok(());
                }
                self.ns_of(t)
            }
        };
        // pidns_install(): capable over the target's owner and in the
        // caller's own user namespace.
        let c = &self.tasks[cur].cred;
        if !self.ns_capable_cred(c, self.nss[target].user_ns, CAP_SYS_ADMIN)
            || !c.capable(CAP_SYS_ADMIN)
        {
            return Err(Errno::EPERM);
        }
        if !self.ns_within(target, self.ns_of(cur)) {
            return Err(Errno::EINVAL);
        }
        self.get_ns(target);
        let old = self.tasks[cur].nsproxy.pid_ns_for_children.replace(target);
        if let Some(old) = old {
            self.put_ns(old);
        }
        Ok(())
    }

    /// The namespace a `/proc/PID/ns` link of `task` names.
    fn ns_link_target(&self, task: TaskId, kind: NsKind) -> Result<NsIx> {
        let t = self.task_idx(task)?;
        match kind {
            NsKind::Pid => Ok(self.ns_of(t)),
            NsKind::PidForChildren => {
                let ns = self.tasks[t].nsproxy.pid_ns_for_children;
                // pidns_for_children_get(): none after exit, and none until
                // the namespace has its init.
                match ns {
                    Some(ns) if self.nss[ns].child_reaper.is_some() => Ok(ns),
                    _ => Err(Errno::ENOENT),
                }
            }
        }
    }

    /// `task`'s active pid namespace (`task_active_pid_ns`) or its
    /// `pid_for_children`, as a handle (valid while something holds the
    /// namespace; see [`Kernel::ns_open`] to hold it).
    ///
    /// # Errors
    /// As [`Kernel::ns_readlink`].
    pub fn task_pid_ns(&self, task: TaskId, kind: NsKind) -> Result<NsId> {
        self.ns_link_target(task, kind).map(NsId)
    }

    /// `readlink("/proc/PID/ns/pid")` (or `pid_for_children`): `pid:[INODE]`
    /// with the namespace's stable inode number ([`Kernel::ns_inum`]).
    ///
    /// # Errors
    /// - `ESRCH`: `task` is stale (reaped: no `/proc/PID`).
    /// - `ENOENT`: `pid_for_children` of a task that has exited (a zombie),
    ///   or of one whose `pid_for_children` has no init yet (after
    ///   `unshare(CLONE_NEWPID)`, before the first fork).
    ///
    /// # Linux
    /// `proc_ns_readlink()` (fs/proc/namespaces.c), `ns_get_name()`,
    /// `pidns_get()`, `pidns_for_children_get()`. Without the reader's
    /// `ptrace_may_access` check: [`Kernel::ns_readlink_as`] makes it.
    pub fn ns_readlink(&self, task: TaskId, kind: NsKind) -> Result<String> {
        let ns = self.ns_link_target(task, kind)?;
        Ok(format!("pid:[{}]", self.ns_inum_of(ns)))
    }

    /// Opens `/proc/PID/ns/pid` (or `pid_for_children`) of `task`: an
    /// [`NsRef`] holding the namespace until [`Kernel::ns_close`], usable
    /// with [`Kernel::setns`].
    ///
    /// # Errors
    /// As [`Kernel::ns_readlink`]; `EMFILE` if no slot is left.
    pub fn ns_open(&mut self, task: TaskId, kind: NsKind) -> Result<NsRef> {
        let ns = self.ns_link_target(task, kind)?;
        self.ns_file_open(ns)
    }
}
