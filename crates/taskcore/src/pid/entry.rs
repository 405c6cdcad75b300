//! `struct pid`: a pid's numbers and the tasks that use it.
//!
//! # Linux
//! Mirrors `struct pid` and `struct upid` (include/linux/pid.h). Linux keeps
//! a reference count; we keep the users explicitly and free the numbers when
//! the last one detaches (`free_pid`): the task using it as PID, the thread
//! group leader using it as TGID, and the processes using it as PGID or SID.
//! External references (pidfds, [`crate::pid::refs::PidRef`]) are counted: they
//! keep the entry, without its numbers, until the last one is dropped.

use crate::list::ListHead;

crate::slab::slab_index!(
    /// Index of a `struct pid` in the kernel's pid slab.
    PidIx
);

impl PidIx {
    /// The pid an [`crate::pid::idr::Idr`] value names (the idr stores
    /// slot numbers).
    #[inline]
    pub(crate) fn from_idr(v: u32) -> PidIx {
        crate::slab::SlabIx::from_slot(v)
    }

    /// The value an idr stores for this pid.
    #[inline]
    pub(crate) fn idr_value(self) -> u32 {
        crate::slab::SlabIx::slot(self) as u32
    }
}

/// One number of a pid: the namespace and the number in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Upid {
    pub(crate) ns: crate::pid::ns::NsIx,
    pub(crate) nr: u32,
}

/// The number at `level` of a pid's numbers (root first), if that level's
/// namespace is `ns` (`level` being `ns`'s level): `pid_nr_ns()`'s test
/// `upid->ns == ns` of `pid->numbers[ns->level]`, `None` when the pid has
/// no number in `ns`.
#[inline]
pub(crate) fn nr_at(numbers: &[Upid], level: usize, ns: crate::pid::ns::NsIx) -> Option<u32> {
    numbers.get(level).filter(|u| u.ns == ns).map(|u| u.nr)
}

/// A `struct pid`.
///
/// # Invariants
/// 1. Its numbers (`Kernel::pid_numbers`: `numbers` alone at level 0,
///    else the side table's list) hold the number at level `i` at index
///    `i`, `level + 1` of them, `level` being its deepest namespace's.
/// 2. Each number is registered in that namespace's idr with this pid's
///    slab index, and nowhere else.
/// 3. The pid is live while `task`, `leader`, `pgrp_members` or
///    `session_members` is not zero.
///
/// Kept aside, not in every entry: a process group's count of
/// group-stopped members (`Kernel::pgrp_nr_stopped`), whether the
/// numbers were released with external references left
/// (`Kernel::pid_freed`), and the numbers above the deepest of a pid of
/// a nested namespace (`Kernel::pid_levels`).
#[derive(Clone, Debug)]
pub(crate) struct Pid {
    /// The deepest number (all of them, root first, in
    /// `Kernel::pid_levels` for a pid of a nested namespace).
    pub(crate) numbers: Numbers,
    /// The task whose PID this is (`PIDTYPE_PID`), or `None`.
    pub(crate) task: Option<crate::ix::TaskIx>,
    /// The thread group whose TGID this is (`PIDTYPE_TGID`), or `None`.
    pub(crate) tgid_group: Option<crate::ix::GroupIx>,
    /// Thread groups whose process group this is (`PIDTYPE_PGID`).
    pub(crate) pgrp_members: ListHead<crate::ix::GroupIx>,
    /// How many thread groups this is the session of (`PIDTYPE_SID`): a
    /// count, not a list, since nothing walks a session's members (only
    /// whether the session's `struct pid` is still used is asked).
    pub(crate) session_members: u32,
    /// External references ([`crate::pid::refs::PidRef`]s, pidfds): they keep the
    /// `struct pid` (not its numbers) past its last user (`get_pid`).
    pub(crate) refs: u32,
}

impl Pid {
    pub(crate) fn new(numbers: Numbers) -> Pid {
        Pid {
            numbers,
            task: None,
            tgid_group: None,
            pgrp_members: ListHead::EMPTY,
            session_members: 0,
            refs: 0,
        }
    }

    /// Whether nothing uses this pid any more.
    pub(crate) fn unused(&self) -> bool {
        self.task.is_none()
            && self.tgid_group.is_none()
            && self.pgrp_members.is_empty()
            && self.session_members == 0
    }
}

/// A freed `struct pid`'s slot holds its free-list link in
/// `session_members` (read only while the pid is live).
impl crate::slab::FreeLink for Pid {
    #[inline(always)]
    fn free_next(&self) -> u32 {
        self.session_members
    }
    #[inline(always)]
    fn set_free_next(&mut self, next: u32) {
        self.session_members = next;
    }
}

/// A pid's deepest number, inline: what `task_active_pid_ns`, `pid_vnr`
/// and most lookups read, one field load. A pid of a nested namespace
/// (`level` > 0: its namespace's level) has its whole list, root first,
/// in the kernel's side table (`Kernel::pid_levels`), so that the
/// common root-level pid costs 8 bytes here, not 16.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Numbers {
    /// The deepest number (the owner namespace's).
    last: Upid,
}

impl Numbers {
    /// The numbers whose deepest is `u` (the only one for a root-level
    /// pid).
    #[inline(always)]
    pub(crate) fn one(u: Upid) -> Numbers {
        Numbers { last: u }
    }

    /// The deepest number (the owner namespace's).
    #[inline(always)]
    pub(crate) fn last(&self) -> Upid {
        self.last
    }

    /// The deepest number, borrowed (a one-number list).
    #[inline(always)]
    pub(crate) fn last_ref(&self) -> &Upid {
        &self.last
    }
}
