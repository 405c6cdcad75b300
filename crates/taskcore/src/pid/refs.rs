//! References that outlive tasks: external references to a `struct pid`
//! ([`PidRef`]), open namespace files ([`NsRef`]) and open pidfds
//! (`PidFdFile`), in the tables of `ExtRefs` with the generations that
//! make them stale. Taking and dropping them is the kernel's
//! (`task/refs.rs`).
//!
//! # Linux
//! `get_pid`/`put_pid` (kernel/pid.c), `get_pid_ns`/`put_pid_ns`
//! (kernel/pid_namespace.c), `ns_get_path` (fs/nsfs.c), `pidfd_create`
//! (kernel/pid.c).

use crate::pid::entry::PidIx;
use crate::pid::ns::NsIx;
use crate::slab::Slab;

/// An external reference to a `struct pid` (Linux's `get_pid()`): keeps the
/// pid past its task's reaping, so that "the process this reference was
/// taken on" stays distinguishable from a later process given the same
/// number.
///
/// Generation-checked: once dropped with `Kernel::put_pid_ref` and its
/// slot reused, operations given it fail with `ESRCH`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PidRef {
    pub(crate) idx: u32,
    pub(crate) gen: u32,
}

/// An open pid namespace file (`/proc/PID/ns/pid` or `pid_for_children`
/// opened): holds its namespace. Generation-checked: once closed with
/// `Kernel::ns_close`, operations given it fail with `EBADF`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NsRef {
    pub(crate) idx: u32,
    pub(crate) gen: u32,
}

/// Inode number of the initial pid namespace (`PROC_PID_INIT_INO`).
pub const PROC_PID_INIT_INO: u64 = 0xEFFF_FFFC;
/// First inode number of other namespaces (`PROC_DYNAMIC_FIRST`).
pub const PROC_DYNAMIC_FIRST: u64 = 0xF000_0000;

/// An open pidfd's state: its `struct pid` (referenced) and flags.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PidFdFile {
    pub(crate) pid: PidIx,
    pub(crate) flags: u32,
}

/// The tables behind external references, kept in the kernel.
#[derive(Clone, Debug)]
pub(crate) struct ExtRefs {
    /// Generation of each `struct pid` slot, bumped when the entry is freed.
    pub(crate) pid_gens: Vec<u32>,
    /// Open namespace files: the namespace each holds.
    pub(crate) ns_files: Slab<NsIx>,
    pub(crate) ns_file_gens: Vec<u32>,
    /// Open pidfds.
    pub(crate) pidfds: Slab<PidFdFile>,
    pub(crate) pidfd_gens: Vec<u32>,
}

impl Default for ExtRefs {
    fn default() -> Self {
        ExtRefs {
            pid_gens: Vec::new(),
            ns_files: Slab::new(),
            ns_file_gens: Vec::new(),
            pidfds: Slab::new(),
            pidfd_gens: Vec::new(),
        }
    }
}

/// The generation of slot `idx` in `gens` (0 for a slot never freed).
pub(crate) fn gen_of(gens: &[u32], idx: u32) -> u32 {
    gens.get(idx as usize).copied().unwrap_or(0)
}

/// Bumps slot `idx`'s generation in `gens`.
#[inline(always)]
pub(crate) fn bump_gen(gens: &mut Vec<u32>, idx: u32) {
    if gens.len() <= idx as usize {
        gens.resize(idx as usize + 1, 0);
    }
    gens[idx as usize] = gens[idx as usize].wrapping_add(1);
}
