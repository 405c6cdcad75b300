//! A process's address space as the process table holds it ([`MmEntry`]:
//! the VMA tree, its users, the argument area, dumpability), and how fork
//! duplicates one ([`ForkMm`]).

use crate::mm::MmStruct;

/// A task's `mm` when it has an address space of its own with no entry:
/// no mapping, no argument area, dumpable, one user (itself). Never a
/// slot number (a slab's slots stay below `u32::MAX - 1`).
pub(crate) const EMPTY_MM: u32 = crate::slab::NONE - 1;

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
