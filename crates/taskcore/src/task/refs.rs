//! The kernel's side of references that outlive tasks: external
//! references to a `struct pid` ([`PidRef`]), open namespace files
//! ([`NsRef`]), open pidfds, and the reference counts of pid namespaces.
//!
//! A `struct pid` is kept while a task, thread group, process group or
//! session uses it; an external reference keeps the entry (not its numbers,
//! which are released to their namespaces when the last user detaches, as
//! `free_pid` does) until the reference is dropped. A pid namespace is kept
//! while a `struct pid` of its own, a child namespace, an nsproxy or an open
//! namespace file holds it, and is freed (with its idr) when the last one
//! goes: nested namespaces do not accumulate under churn.
//!
//! # Linux
//! `get_pid`/`put_pid` (kernel/pid.c), `get_pid_ns`/`put_pid_ns`
//! (kernel/pid_namespace.c), `ns_get_path` (fs/nsfs.c).

use crate::errno::{Errno, Result};
use crate::ix::TaskId;
use crate::pid::entry::PidIx;
use crate::pid::ns::NsIx;
use crate::pid::refs::{bump_gen, gen_of, NsRef, PidRef, PROC_DYNAMIC_FIRST, PROC_PID_INIT_INO};
use crate::slab::SlabIx;
use crate::task::kernel::Kernel;

/// # Process API: references held from outside (`get_pid`/`put_pid`, namespace files).
impl Kernel {
    // ------------------------------------------------------------ pids

    /// Takes an external reference on `struct pid` `pid` (`get_pid`).
    pub(crate) fn get_pid_idx(&mut self, pid: PidIx) -> PidRef {
        self.pids[pid].refs += 1;
        PidRef {
            idx: pid.idr_value(),
            gen: gen_of(&self.ext.pid_gens, pid.idr_value()),
        }
    }

    /// The `struct pid` slab index a reference names.
    ///
    /// # Errors
    /// `ESRCH` if the reference was dropped and its slot reused or freed.
    pub(crate) fn pid_ref_idx(&self, r: PidRef) -> Result<PidIx> {
        let idx = PidIx::from_idr(r.idx);
        match self.pids.get(idx) {
            Some(p) if p.refs > 0 && gen_of(&self.ext.pid_gens, r.idx) == r.gen => Ok(idx),
            _ => Err(Errno::ESRCH),
        }
    }

    /// Drops an external reference on `struct pid` `pid`, freeing the
    /// entry if it was the last thing keeping it.
    pub(crate) fn put_pid_idx(&mut self, pid: PidIx) {
        let p = &mut self.pids[pid];
        p.refs -= 1;
        if p.refs == 0 && self.freed_pids.remove(&pid) {
            let ns = self.pids[pid].numbers.last().ns;
            self.free_pid_entry(pid, ns);
        }
    }

    /// Removes `struct pid` `pid`, whose numbers are already released, and
    /// drops its namespace reference (`delayed_put_pid`).
    /// `ns` is the pid's deepest namespace (its `numbers.last().ns`).
    #[inline(always)]
    pub(crate) fn free_pid_entry(&mut self, pid: PidIx, ns: NsIx) {
        debug_assert_eq!(self.pids[pid].numbers.last().ns, ns);
        self.pids.delete(pid);
        if !self.pid_levels.is_empty() {
            self.pid_levels.remove(&pid);
        }
        bump_gen(&mut self.ext.pid_gens, pid.idr_value());
        self.put_ns(ns);
    }

    /// A reference to `task`'s `struct pid` (`get_task_pid(task,
    /// PIDTYPE_PID)`), kept until [`Kernel::put_pid_ref`].
    ///
    /// # Errors
    /// `ESRCH` if `task` is stale (reaped).
    ///
    /// # Linux
    /// `get_task_pid()` (kernel/pid.c).
    pub fn get_pid_ref(&mut self, task: TaskId) -> Result<PidRef> {
        let t = self.task_idx(task)?;
        let pid = self.tasks[t].pid;
        Ok(self.get_pid_idx(pid))
    }

    /// Drops a reference taken with [`Kernel::get_pid_ref`]; the `struct
    /// pid` is freed if nothing else uses it.
    ///
    /// # Errors
    /// `ESRCH` if `r` is stale.
    ///
    /// # Linux
    /// `put_pid()` (kernel/pid.c).
    pub fn put_pid_ref(&mut self, r: PidRef) -> Result<()> {
        let pid = self.pid_ref_idx(r)?;
        self.put_pid_idx(pid);
        Ok(())
    }

    /// The task using the referenced pid as its PID (`pid_task(pid,
    /// PIDTYPE_PID)`): `None` once it was reaped, even if the number has
    /// been given to a new task since.
    ///
    /// # Errors
    /// `ESRCH` if `r` is stale.
    pub fn pid_ref_task(&self, r: PidRef) -> Result<Option<TaskId>> {
        let pid = self.pid_ref_idx(r)?;
        Ok(self.pids[pid].task.map(|t| self.handle_unchecked(t)))
    }

    /// The referenced pid's number in namespace `ns` (`pid_nr_ns`): 0 if it
    /// has none there. The numbers stay readable after the pid was freed,
    /// as in Linux.
    ///
    /// # Errors
    /// `ESRCH` if `r` is stale; `EINVAL` if `ns` names no namespace.
    pub fn pid_ref_nr(&self, r: PidRef, ns: crate::pid::NsId) -> Result<i32> {
        let pid = self.pid_ref_idx(r)?;
        self.nss.get(ns.0).ok_or(Errno::EINVAL)?;
        Ok(self.pid_nr_ns(pid, ns.0))
    }

    // ------------------------------------------------------------ namespaces

    /// Takes a reference on namespace `ns` (`get_pid_ns`).
    #[inline(always)]
    pub(crate) fn get_ns(&mut self, ns: NsIx) {
        self.nss[ns].refs += 1;
    }

    /// Drops a reference on namespace `ns`, freeing it (and dropping its
    /// reference on its parent, and so on up) when it was the last
    /// (`put_pid_ns`). Iterative: no recursion however deep the nesting.
    /// The usual case, not the last reference, inline at every caller.
    #[inline(always)]
    pub(crate) fn put_ns(&mut self, ns: NsIx) {
        let n = &mut self.nss[ns];
        if n.refs > 1 {
            // Not the last reference (always so for the root namespace):
            // nothing to free.
            n.refs -= 1;
            return;
        }
        self.put_ns_last(ns);
    }

    /// [`Kernel::put_ns`] of what may be the last reference.
    #[inline(never)]
    fn put_ns_last(&mut self, ns: NsIx) {
        let mut next = Some(ns);
        while let Some(ns) = next {
            let n = &mut self.nss[ns];
            n.refs -= 1;
            if n.refs > 0 {
                return;
            }
            debug_assert_eq!(n.idr.len(), 0, "a freed namespace has no numbers");
            let parent = n.parent;
            let user_ns = n.user_ns;
            self.nss.delete(ns);
            self.put_user_ns(user_ns);
            next = parent;
        }
    }

    /// Creates a pid namespace, child of `parent`, owned by user namespace
    /// `user_ns` (`create_pid_namespace`), holding one reference for the
    /// caller (and one on `user_ns`).
    ///
    /// # Errors
    /// `EINVAL` if `user_ns` is not `parent`'s owner or below it; `ENOSPC`
    /// past [`crate::uapi::MAX_PID_NS_LEVEL`] levels; `ENOMEM` if no slot
    /// is left.
    pub(crate) fn create_pid_namespace(
        &mut self,
        parent: NsIx,
        user_ns: crate::ix::UserNsIx,
    ) -> Result<NsIx> {
        if !self.in_userns(self.nss[parent].user_ns, user_ns) {
            return Err(Errno::EINVAL);
        }
        let level = self.nss[parent].level + 1;
        if level > crate::uapi::MAX_PID_NS_LEVEL {
            return Err(Errno::ENOSPC);
        }
        // A nested namespace starts with its parent's pid_max.
        let mut ns =
            crate::pid::ns::PidNamespace::new(level, Some(parent), self.nss[parent].pid_max);
        ns.refs = 1;
        ns.user_ns = user_ns;
        let ns = self.nss.insert(ns).ok_or(Errno::ENOMEM)?;
        self.get_ns(parent);
        self.get_user_ns(user_ns);
        Ok(ns)
    }

    /// Namespace `ns`'s inode number (`ns.inum`): [`PROC_PID_INIT_INO`] for
    /// the root namespace, a number from [`PROC_DYNAMIC_FIRST`] up for the
    /// others, stable for the namespace's life (a freed namespace's number
    /// may be given to a later one, as Linux's IDA does).
    pub(crate) fn ns_inum_of(&self, ns: NsIx) -> u64 {
        if ns == self.root_ns {
            PROC_PID_INIT_INO
        } else {
            PROC_DYNAMIC_FIRST + (ns.slot() - NsIx::BASE as usize) as u64
        }
    }

    /// The inode number of namespace `ns`, as `/proc/PID/ns/pid` shows it
    /// (`pid:[INODE]`).
    ///
    /// # Errors
    /// `EINVAL` if `ns` names no namespace.
    pub fn ns_inum(&self, ns: crate::pid::NsId) -> Result<u64> {
        self.nss.get(ns.0).ok_or(Errno::EINVAL)?;
        Ok(self.ns_inum_of(ns.0))
    }

    /// Number of pid namespaces alive (the root included).
    pub fn nr_pid_namespaces(&self) -> usize {
        self.nss.len()
    }

    /// Opens a namespace file on namespace `ns` (a reference for it).
    pub(crate) fn ns_file_open(&mut self, ns: NsIx) -> Result<NsRef> {
        let idx = self.ext.ns_files.insert(ns).ok_or(Errno::EMFILE)?;
        self.get_ns(ns);
        self.nss[ns].file_refs += 1;
        Ok(NsRef {
            idx,
            gen: gen_of(&self.ext.ns_file_gens, idx),
        })
    }

    /// The namespace an open namespace file names.
    ///
    /// # Errors
    /// `EBADF` if `f` was closed.
    pub(crate) fn ns_file(&self, f: NsRef) -> Result<NsIx> {
        match self.ext.ns_files.get(f.idx) {
            Some(&ns) if gen_of(&self.ext.ns_file_gens, f.idx) == f.gen => Ok(ns),
            _ => Err(Errno::EBADF),
        }
    }

    /// The namespace an open namespace file holds.
    ///
    /// # Errors
    /// `EBADF` if `f` was closed.
    pub fn ns_ref_id(&self, f: NsRef) -> Result<crate::pid::NsId> {
        self.ns_file(f).map(crate::pid::NsId)
    }

    /// Closes a namespace file, dropping its reference on the namespace
    /// (freed if nothing else holds it).
    ///
    /// # Errors
    /// `EBADF` if `f` was already closed.
    ///
    /// # Linux
    /// The last `fput` of an nsfs file: `nsfs_evict` → `put_pid_ns`.
    pub fn ns_close(&mut self, f: NsRef) -> Result<()> {
        let ns = self.ns_file(f)?;
        self.ext.ns_files.delete(f.idx);
        bump_gen(&mut self.ext.ns_file_gens, f.idx);
        self.nss[ns].file_refs -= 1;
        self.put_ns(ns);
        Ok(())
    }
}
