//! Address spaces of tasks: every task has one; fork duplicates it,
//! `CLONE_VM` (threads, vfork) shares it, `execve` replaces it and exit drops
//! it. The memory syscalls act on the caller's.
//!
//! An address space with no mappings, no argument area and the dumpable
//! flag set, used by one task, costs no slab slot: the task's `mm` is
//! [`TaskMm::EMPTY`], and the entry is made ([`Kernel::mm_own`]) when the
//! space is shared (`CLONE_VM`), mapped into, given an argument area or
//! made undumpable. A fork of such a task gives the child one too, so a
//! million forks of an empty init allocate no entries and no trees.
//!
//! # Linux
//! kernel/fork.c `copy_mm()`/`dup_mm()`, kernel/exit.c `exit_mm()`,
//! fs/exec.c `exec_mmap()` (in `Kernel::execve`), mm/mmap.c syscalls.

use crate::errno::{Errno, Result};
use crate::ix::TaskIx;
use crate::mm::{MmStruct, MmapFile};
use crate::task::kernel::{Kernel, TaskId};
use crate::task::state::mm_entry::{ForkMm, MmEntry, MmState, TaskMm};
use crate::uapi::CLONE_VM;

/// # Memory: address spaces, the mmap family (`mm/`).
impl Kernel {
    /// Task `t`'s address space, its entry made first if it had none
    /// ([`TaskMm::EMPTY`]); [`TaskMm::GONE`] for a task that exited.
    ///
    /// The slab cannot be full: each task holds at most one address
    /// space, and tasks are bounded by `pid_max` (at most 2^22), far
    /// below the slab's 2^32 - 2 slots.
    #[inline(always)]
    pub(crate) fn mm_own(&mut self, t: TaskIx) -> TaskMm {
        let mm = self.tasks[t].mm;
        if mm != TaskMm::EMPTY {
            return mm;
        }
        TaskMm::slot(self.mm_make_own(t))
    }

    /// [`Self::mm_own`] of a task with no entry: makes it, and returns
    /// its slot.
    #[cold]
    #[inline(never)]
    fn mm_make_own(&mut self, t: TaskIx) -> u32 {
        let mm = self
            .mms
            .insert(MmEntry {
                mm: None,
                users: 1,
                cmdline: None,
                dumpable: true,
            })
            .expect("fewer address spaces than tasks");
        self.tasks[t].mm = TaskMm::slot(mm);
        mm
    }

    /// Whether address space `mm` (a task's `mm` field) may be dumped:
    /// false for [`TaskMm::GONE`] (no address space).
    #[inline]
    pub(crate) fn mm_dumpable(&self, mm: TaskMm) -> bool {
        match mm.state() {
            MmState::Gone => false,
            MmState::Empty => true,
            MmState::Entry(e) => self.mms[e].dumpable,
        }
    }

    /// The argument area of address space `mm` (a task's `mm` field),
    /// empty for none.
    #[inline]
    pub(crate) fn mm_cmdline(&self, mm: TaskMm) -> Option<&std::sync::Arc<[u8]>> {
        self.mms[mm.entry()?].cmdline.as_ref()
    }

    /// The VMA tree of address space `mm` (a task's `mm` field): `None`
    /// for no address space, `Some(None)` for one with no mapping yet.
    #[inline]
    pub(crate) fn mm_struct(&self, mm: TaskMm) -> Option<Option<&MmStruct>> {
        match mm.state() {
            MmState::Gone => None,
            MmState::Empty => Some(None),
            MmState::Entry(e) => Some(self.mms[e].mm.as_deref()),
        }
    }

    /// `copy_mm()`: the address space a child created with `flags` by
    /// the live task `cur`, whose address space is `mm` (its `mm` field),
    /// gets. Nothing observable changes on error (a
    /// `CLONE_VM` clone may have made `cur`'s entry, which reads the same).
    ///
    /// # Errors
    /// `ENOMEM` if the copy fails.
    #[inline]
    pub(crate) fn copy_mm(&mut self, cur: TaskIx, mm: TaskMm, flags: u64) -> Result<TaskMm> {
        debug_assert_eq!(mm, self.tasks[cur].mm);
        // `cur` is live: it has an address space.
        let mm = match mm.state() {
            MmState::Entry(e) => e,
            MmState::Empty if flags & CLONE_VM != 0 => self.mm_make_own(cur),
            MmState::Empty => return Ok(TaskMm::EMPTY),
            MmState::Gone => {
                debug_assert!(false, "copy_mm of a task that gave up its address space");
                return Ok(TaskMm::EMPTY);
            }
        };
        if flags & CLONE_VM != 0 {
            self.mms[mm].users += 1;
            return Ok(TaskMm::slot(mm));
        }
        let src = &self.mms[mm];
        if src.mm.is_none() && src.cmdline.is_none() && src.dumpable {
            // A copy of an empty space: the child's own, with no entry.
            return Ok(TaskMm::EMPTY);
        }
        let copy = match &self.mms[mm].mm {
            None => None,
            Some(src) => Some(Box::new(match self.config.fork_mm {
                ForkMm::Bulk => src.dup_bulk()?,
                ForkMm::Cow => src.dup_cow(),
            })),
        };
        // The child's copy of the argument area reads the same.
        let cmdline = self.mms[mm].cmdline.clone();
        let dumpable = self.mms[mm].dumpable;
        self.mms
            .insert(MmEntry {
                mm: copy,
                users: 1,
                cmdline,
                dumpable,
            })
            .map(TaskMm::slot)
            .ok_or(Errno::ENOMEM)
    }

    /// Drops one user of address space `mm` (`mmput`).
    #[inline(always)]
    pub(crate) fn mmput(&mut self, mm: TaskMm) {
        // None, or one without an entry: nothing to drop.
        let Some(mm) = mm.entry() else {
            return;
        };
        let e = &mut self.mms[mm];
        e.users -= 1;
        if e.users == 0 {
            // Dropped where it lies (no copy out).
            self.mms.delete(mm);
        }
    }

    /// `exit_mm()`: the exiting task gives up its address space.
    #[inline(always)]
    pub(crate) fn exit_mm(&mut self, t: TaskIx) {
        let mm = core::mem::replace(&mut self.tasks[t].mm, TaskMm::GONE);
        self.mmput(mm);
    }

    /// The address space of `task`, `None` if it has no mapping (or has
    /// exited).
    ///
    /// # Errors
    /// `ESRCH` if `task` is stale.
    pub fn mm(&self, task: TaskId) -> Result<Option<&MmStruct>> {
        let t = self.task_idx(task)?;
        Ok(self.mm_struct(self.tasks[t].mm).flatten())
    }

    /// Whether tasks `a` and `b` share one address space (threads, vfork).
    ///
    /// # Errors
    /// `ESRCH` if either handle is stale.
    pub fn same_mm(&self, a: TaskId, b: TaskId) -> Result<bool> {
        let (a, b) = (self.task_idx(a)?, self.task_idx(b)?);
        Ok(self.shares_mm(a, b))
    }

    /// Whether tasks `a` and `b` have one address space (`a->mm ==
    /// b->mm`, neither exited): an entry-less space is its one task's
    /// own, so two entry-less tasks share only if they are one.
    #[inline]
    pub(crate) fn shares_mm(&self, a: TaskIx, b: TaskIx) -> bool {
        let mm = self.tasks[a].mm;
        !mm.is_gone() && mm == self.tasks[b].mm && (mm != TaskMm::EMPTY || a == b)
    }

    /// Runs `f` on the caller's address space, creating it (empty) on
    /// first use. A call that fails leaves a space it created uncreated, so
    /// a failed call changes nothing.
    fn with_mm<T>(
        &mut self,
        current: TaskId,
        f: impl FnOnce(&mut MmStruct) -> Result<T>,
    ) -> Result<T> {
        let t = self.current(current)?;
        let max_map_count = self.config.max_map_count;
        let entryless = self.tasks[t].mm == TaskMm::EMPTY;
        // A live task (`current` checked it) has an address space.
        let Some(own) = self.mm_own(t).entry() else {
            return Err(Errno::ESRCH);
        };
        let slot = &mut self.mms[own].mm;
        let created = slot.is_none();
        let mm = slot.get_or_insert_with(Box::default);
        // The sysctl is global: the value in force applies.
        mm.set_max_map_count(max_map_count);
        let r = f(mm);
        if created && r.is_err() {
            *slot = None;
            if entryless {
                // Back to no entry, as before the call.
                self.mms.delete(own);
                self.tasks[t].mm = TaskMm::EMPTY;
            }
        }
        r
    }

    /// `mmap(addr, len, prot, flags, fd, pgoff << 12)` in the caller's
    /// address space; returns the mapping's address.
    ///
    /// # Errors
    /// `ESRCH` if `current` is stale or exiting; otherwise as
    /// [`MmStruct::mmap`] (`EINVAL`, `ENOMEM`, `EEXIST`, `EACCES`...).
    ///
    /// # Linux
    /// `ksys_mmap_pgoff()` -> `do_mmap()` (mm/mmap.c).
    #[allow(clippy::too_many_arguments)]
    pub fn mmap(
        &mut self,
        current: TaskId,
        addr: u64,
        len: u64,
        prot: u32,
        flags: u32,
        file: Option<&MmapFile>,
        pgoff: u64,
    ) -> Result<u64> {
        self.probed(crate::probe::Op::Mmap, current, |k| {
            k.do_sys_mmap(current, addr, len, prot, flags, file, pgoff)
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn do_sys_mmap(
        &mut self,
        current: TaskId,
        addr: u64,
        len: u64,
        prot: u32,
        flags: u32,
        file: Option<&MmapFile>,
        pgoff: u64,
    ) -> Result<u64> {
        self.with_mm(current, |mm| mm.mmap(addr, len, prot, flags, file, pgoff))
    }

    /// Sets the `vm.max_map_count` sysctl
    /// ([`Config::max_map_count`](crate::Config::max_map_count)) for every
    /// later call (writing `/proc/sys/vm/max_map_count`).
    ///
    /// # Errors
    /// `EINVAL` above `INT_MAX` (`proc_dointvec_minmax()` takes 0 to
    /// `INT_MAX`).
    pub fn set_max_map_count(&mut self, n: usize) -> Result<()> {
        if n > i32::MAX as usize {
            return Err(Errno::EINVAL);
        }
        self.config.max_map_count = n;
        Ok(())
    }

    /// `munmap(addr, len)` in the caller's address space.
    ///
    /// # Errors
    /// `ESRCH` for a stale caller; otherwise as [`MmStruct::munmap`].
    pub fn munmap(&mut self, current: TaskId, addr: u64, len: u64) -> Result<()> {
        self.probed(crate::probe::Op::Munmap, current, |k| {
            k.do_sys_munmap(current, addr, len)
        })
    }

    fn do_sys_munmap(&mut self, current: TaskId, addr: u64, len: u64) -> Result<()> {
        self.with_mm(current, |mm| mm.munmap(addr, len))
    }

    /// `mprotect(addr, len, prot)` in the caller's address space.
    ///
    /// # Errors
    /// `ESRCH` for a stale caller; otherwise as [`MmStruct::mprotect`].
    pub fn mprotect(&mut self, current: TaskId, addr: u64, len: u64, prot: u32) -> Result<()> {
        self.probed(crate::probe::Op::Mprotect, current, |k| {
            k.do_sys_mprotect(current, addr, len, prot)
        })
    }

    fn do_sys_mprotect(&mut self, current: TaskId, addr: u64, len: u64, prot: u32) -> Result<()> {
        self.with_mm(current, |mm| mm.mprotect(addr, len, prot))
    }

    /// `mremap(old, old_len, new_len, flags, new)` in the caller's address
    /// space; returns the new address.
    ///
    /// # Errors
    /// `ESRCH` for a stale caller; otherwise as [`MmStruct::mremap`].
    pub fn mremap(
        &mut self,
        current: TaskId,
        old: u64,
        old_len: u64,
        new_len: u64,
        flags: u32,
        new: u64,
    ) -> Result<u64> {
        self.probed(crate::probe::Op::Mremap, current, |k| {
            k.do_sys_mremap(current, old, old_len, new_len, flags, new)
        })
    }

    fn do_sys_mremap(
        &mut self,
        current: TaskId,
        old: u64,
        old_len: u64,
        new_len: u64,
        flags: u32,
        new: u64,
    ) -> Result<u64> {
        self.with_mm(current, |mm| mm.mremap(old, old_len, new_len, flags, new))
    }

    /// `brk(addr)`: returns the new break, or the old one if it cannot move.
    ///
    /// # Errors
    /// `ESRCH` for a stale caller.
    pub fn brk(&mut self, current: TaskId, addr: u64) -> Result<u64> {
        self.probed(crate::probe::Op::Brk, current, |k| {
            k.do_sys_brk(current, addr)
        })
    }

    fn do_sys_brk(&mut self, current: TaskId, addr: u64) -> Result<u64> {
        self.with_mm(current, |mm| Ok(mm.brk(addr)))
    }

    /// Installs `mm` as the caller's address space (for emulators that build
    /// the post-exec image themselves, or load a parsed `/proc/PID/maps`).
    /// Threads sharing the old one keep it. The argument area
    /// ([`Kernel::set_cmdline`]) carries over to the new one.
    ///
    /// # Errors
    /// `ESRCH` if `current` is stale or exiting.
    pub fn set_mm(&mut self, current: TaskId, mm: MmStruct) -> Result<()> {
        let t = self.current(current)?;
        // The argument area stays with the task's image.
        let cmdline = self.mm_cmdline(self.tasks[t].mm).cloned();
        let dumpable = self.mm_dumpable(self.tasks[t].mm);
        let new = self
            .mms
            .insert(MmEntry {
                mm: Some(Box::new(mm)),
                users: 1,
                cmdline,
                dumpable,
            })
            .ok_or(Errno::ENOMEM)?;
        let old = core::mem::replace(&mut self.tasks[t].mm, TaskMm::slot(new));
        self.mmput(old);
        Ok(())
    }
}
