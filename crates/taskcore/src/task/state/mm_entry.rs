//! A process's address space as the process table holds it ([`MmEntry`]:
//! the VMA tree, its users, the argument area, dumpability), and how fork
//! duplicates one ([`ForkMm`]).

use crate::mm::MmStruct;

/// A task's address space (its `mm` field), in four bytes: none (the
/// task exited), one of its own with no slab entry (no mapping, no
/// argument area, dumpable, one user: itself), or an entry of
/// `Kernel::mms`. Read it with [`TaskMm::state`] or [`TaskMm::entry`];
/// the two states without an entry are values no slot number takes (a
/// slab's slots stay below `u32::MAX - 1`), so no sentinel is compared
/// outside this type, and a test costs what the raw compare did.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct TaskMm(u32);

/// What a [`TaskMm`] holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MmState {
    /// No address space: the task exited (`exit_mm()` ran).
    Gone,
    /// Its own, with no entry: empty, dumpable, unshared.
    Empty,
    /// The entry at this slot of `Kernel::mms`.
    Entry(u32),
}

impl TaskMm {
    /// No address space (an exited task).
    pub(crate) const GONE: TaskMm = TaskMm(u32::MAX);
    /// An address space of its own with no entry.
    pub(crate) const EMPTY: TaskMm = TaskMm(u32::MAX - 1);

    /// The entry at slot `slot` of `Kernel::mms` (a slot number, below
    /// `u32::MAX - 1`).
    #[inline(always)]
    pub(crate) fn slot(slot: u32) -> TaskMm {
        debug_assert!(slot < Self::EMPTY.0, "a slab slot number");
        TaskMm(slot)
    }

    /// What it holds.
    #[inline(always)]
    pub(crate) fn state(self) -> MmState {
        match self {
            Self::GONE => MmState::Gone,
            Self::EMPTY => MmState::Empty,
            TaskMm(slot) => MmState::Entry(slot),
        }
    }

    /// The entry's slot, `None` for no address space or one without an
    /// entry.
    #[inline(always)]
    pub(crate) fn entry(self) -> Option<u32> {
        (self.0 < Self::EMPTY.0).then_some(self.0)
    }

    /// Whether the task has no address space (it exited).
    #[inline(always)]
    pub(crate) fn is_gone(self) -> bool {
        self == Self::GONE
    }
}

impl core::fmt::Debug for TaskMm {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.state().fmt(f)
    }
}

/// How fork duplicates an address space.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ForkMm {
    /// Depth-first bulk copy of the VMA tree, O(n) (Linux 6.8 `__mt_dup`).
    Bulk,
    /// Share the tree's nodes and copy a path on first write: O(1) fork.
    /// No Linux analogue.
    #[default]
    Cow,
}

/// A shared address space (`struct mm_struct` with `mm_users`).
#[derive(Clone, Debug)]
pub(crate) struct MmEntry {
    /// `None` until the first mapping: an empty address space.
    pub(crate) mm: Option<Box<MmStruct>>,
    /// Tasks using it (`mm_users`).
    pub(crate) users: u32,
    /// The argument area `arg_start..arg_end` as `/proc/PID/cmdline` shows
    /// it (NUL-terminated strings); `None` until an exec with argv or
    /// `Kernel::set_cmdline`. Fork copies it, `CLONE_VM` shares it.
    pub(crate) cmdline: Option<std::sync::Arc<[u8]>>,
    /// The address space may be dumped (`get_dumpable(mm) ==
    /// SUID_DUMP_USER`): cleared when its process changes its effective or
    /// fs ids, set by an exec that leaves real and effective ids equal,
    /// copied by fork. While clear, the process's `/proc` files belong to
    /// root.
    pub(crate) dumpable: bool,
}
