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

/// A `struct pid`.
///
/// # Invariants
/// 1. `numbers[i]` is the number at level `i`; `numbers.len() == level + 1`.
/// 2. Each `numbers[i]` is registered in that namespace's idr with this pid's
///    slab index, and nowhere else.
/// 3. The pid is live while `task`, `leader`, `pgrp_members` or
///    `session_members` is not zero.
///
/// Kept aside, not in every entry: a process group's count of
/// group-stopped members (`Kernel::pgrp_nr_stopped`) and whether the
/// numbers were released with external references left
/// (`Kernel::pid_freed`).
#[derive(Clone, Debug)]
pub(crate) struct Pid {
    /// Numbers from the root namespace (index 0) down to the owner's.
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

    /// The deepest level (`pid->level`).
    pub(crate) fn level(&self) -> usize {
        self.numbers.len() - 1
    }
}

/// A pid's numbers, stored inline for the common single-level case.
///
/// The deepest number (what `task_active_pid_ns`, `pid_vnr` and most
/// lookups read) is kept inline whatever the depth, so that reading it is
/// one field load, not a match on the representation; the full list is
/// boxed only for a pid of a nested namespace.
#[derive(Clone, Debug)]
pub(crate) struct Numbers {
    /// The deepest number (the owner namespace's).
    last: Upid,
    /// Every number, root first, when there are several levels; `None`
    /// for a pid of the root namespace only (then `last` is its number).
    /// A thin pointer (a boxed `Vec`, not a boxed slice) keeps `Numbers`
    /// at 16 bytes, as small as the single number's case needs.
    #[allow(clippy::box_collection)]
    many: Option<Box<Vec<Upid>>>,
}

impl Numbers {
    /// The numbers `v` (root first, at least one), inline when there is
    /// one.
    pub(crate) fn from_slice(v: &[Upid]) -> Numbers {
        let last = *v.last().expect("a pid has at least one number");
        Numbers {
            last,
            many: (v.len() > 1).then(|| Box::new(v.to_vec())),
        }
    }

    /// The one number of a pid of a root-level namespace.
    #[inline(always)]
    pub(crate) fn one(u: Upid) -> Numbers {
        Numbers {
            last: u,
            many: None,
        }
    }

    /// The numbers, root first.
    #[inline]
    pub(crate) fn as_slice(&self) -> &[Upid] {
        match &self.many {
            None => core::slice::from_ref(&self.last),
            Some(b) => b,
        }
    }

    /// How many numbers (`level + 1`).
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.many.as_ref().map_or(1, |b| b.len())
    }

    /// The number at `level` if it belongs to namespace `ns`, else `None`
    /// (`pid_nr_ns`).
    #[inline]
    pub(crate) fn nr_in(&self, ns: crate::pid::ns::NsIx, level: usize) -> Option<u32> {
        match &self.many {
            None => (level == 0 && self.last.ns == ns).then_some(self.last.nr),
            Some(b) => b.get(level).filter(|u| u.ns == ns).map(|u| u.nr),
        }
    }

    /// As [`Self::nr_in`], with `ns`'s level asked of `level` only when
    /// the pid has several numbers: a root-only pid's one number is in
    /// `ns` exactly when its namespace is `ns` (then at level 0).
    #[inline]
    pub(crate) fn nr_in_ns(
        &self,
        ns: crate::pid::ns::NsIx,
        level: impl FnOnce() -> usize,
    ) -> Option<u32> {
        match &self.many {
            None => (self.last.ns == ns).then_some(self.last.nr),
            Some(b) => b.get(level()).filter(|u| u.ns == ns).map(|u| u.nr),
        }
    }

    /// The deepest number (the owner namespace's).
    #[inline(always)]
    pub(crate) fn last(&self) -> Upid {
        self.last
    }
}
