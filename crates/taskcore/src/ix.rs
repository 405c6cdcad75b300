//! Indices and handles of tasks, thread groups and user namespaces, below
//! every subsystem that links to one: [`TaskIx`] and [`GroupIx`] index the
//! kernel's task and group slabs (a `struct pid` names its task, the wait
//! index its waiters); [`TaskId`] is the generation-checked handle the API
//! hands out; [`UserNsId`] is the handle on a user namespace that
//! credentials and pid namespaces hold, apart from the namespaces
//! themselves (`task::userns`), which read credentials.

use crate::slab::SlabIx;

crate::slab::slab_index!(
    /// Index of a thread group in the kernel's group slab.
    GroupIx
);

crate::slab::slab_index!(
    /// Index of a task (a thread) in the kernel's task slab.
    TaskIx
);

impl TaskIx {
    /// The 0-based ordinal a [`crate::TaskId`] carries (slot - 1, as
    /// `Display` shows it): handles and their raw form stay what they were
    /// when the task slab used slot 0.
    #[inline(always)]
    pub(crate) fn ordinal(self) -> u32 {
        self.key() - 1
    }

    /// The index of ordinal `n`; `None` for `u32::MAX`, which names no slot.
    #[inline(always)]
    pub(crate) fn from_ordinal(n: u32) -> Option<TaskIx> {
        core::num::NonZeroU32::new(n.wrapping_add(1)).map(TaskIx)
    }
}

/// A handle on a task (a thread).
///
/// Handles are generation-checked: once the task is reaped (released), its
/// handle is stale and every operation given it fails with `ESRCH`, even if
/// the slot is reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TaskId {
    /// The task's slot ordinal (`TaskIx::ordinal`).
    pub(crate) idx: u32,
    pub(crate) gen: u32,
}

impl TaskId {
    /// The handle as one integer, for FFI and tables keyed by integers:
    /// slot index in the low 32 bits, generation in the high 32.
    pub const fn into_raw(self) -> u64 {
        (self.gen as u64) << 32 | self.idx as u64
    }

    /// The handle [`TaskId::into_raw`] gave. Any value is accepted: one that
    /// names no live task makes every operation fail with `ESRCH`, as a
    /// stale handle does.
    pub const fn from_raw(raw: u64) -> TaskId {
        TaskId {
            idx: raw as u32,
            gen: (raw >> 32) as u32,
        }
    }
}

crate::slab::slab_index!(
    /// Index of a user namespace in the kernel's user-namespace slab.
    UserNsIx
);

/// A handle on a user namespace (`struct user_namespace *`): valid while
/// something holds the namespace (a task's credentials, a child
/// namespace, a pid namespace it owns). [`UserNsId::default`] is the
/// initial namespace, which is never freed.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct UserNsId(pub(crate) UserNsIx);

impl Default for UserNsId {
    fn default() -> UserNsId {
        UserNsId(UserNsIx::from_slot(UserNsIx::BASE))
    }
}

impl core::fmt::Debug for UserNsId {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "UserNsId({})", self.0)
    }
}
