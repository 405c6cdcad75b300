//! `/proc` for the emulated process table: Linux's files, byte for byte,
//! and a root listing that costs what it returns.
//!
//! The library renders; it does no I/O. A server (FUSE, a sandbox's
//! syscall handler, a snapshot writer) builds a [`ProcFs`] over a borrowed
//! [`Kernel`](crate::Kernel) for each request and calls
//! [`ProcFs::lookup`], [`ProcFs::getattr`], [`ProcFs::readdir`] /
//! [`ProcFs::getdents64`], [`ProcFs::read`] and [`ProcFs::readlink`] on
//! [`Node`]s, whose inode numbers map back with [`Node::from_ino`].
//!
//! # Layout
//! ```text
//!  ProcFs { kernel, ns (the mount's pid namespace), current (the reader),
//!           clock (now, boot), system (memory, CPUs) }
//!
//!  /proc
//!  |-- .  ..  sys/kernel/pid_max  stat  uptime  cpuinfo  loadavg  meminfo
//!  |-- self -> TGID              thread-self -> TGID/task/TID
//!  `-- TGID/  status limits comm cmdline stat statm maps uid_map gid_map setgroups
//!      `-- task/TID/  status limits comm cmdline stat statm maps children uid_map ...
//! ```
//!
//! # Vocabulary
//! - **mount namespace** (`ns`): the pid namespace a mount shows; a task
//!   is visible iff its `struct pid` has a number there, and appears under
//!   that number.
//! - **position**: where a directory entry sits in its listing (`f_pos`);
//!   root positions are Linux's (see [`root`]'s table).
//! - **whole**: `/proc/PID/stat` sums the thread group; `task/TID/stat`
//!   describes one thread (`do_task_stat(.., whole)`).
//!
//! # Complexity
//! - Root listing: O(entries returned) per call, O(processes) per full
//!   listing, independent of the number of threads: the walk follows the
//!   pid radix tree's `TAG_TGID` tag (seed 003), 8 node visits at most per
//!   entry. Linux mainline's walk over every pid is available as
//!   [`RootWalk::EveryPid`] for comparison.
//! - `task/` listing: O(entries returned) when resumed from the cursor's
//!   thread hint, as Linux.
//! - Lookup: O(log64 pid_max) (one radix-tree walk).
//! - `stat`, `status`, `statm`: O(VMAs) for the memory counters; others
//!   O(size of the output).
//!
//! # What is modelled
//! From the core: comm, cmdline (the argument area), state (`R`, `S`,
//! `T`, `t`, `Z`), ids in every namespace level (tgid, pid, ppid, pgid,
//! sid, tracer), credentials (the uid and gid sets and supplementary
//! groups as the reader's user namespace maps them, the capability sets;
//! the user namespace's `uid_map`, `gid_map` and `setgroups`), thread
//! counts, start times,
//! signal dispositions, pending, shared-pending and blocked signals and
//! the queued-siginfo count, resource limits, the address space (maps,
//! sizes), the owner of each task's files (`task_dump_owner()`). Not
//! modelled, given the values of a task on an idle Linux system:
//! terminals (none), CPU times and faults (0), resident memory (0). Each
//! renderer's documentation lists its fields. One file in one call:
//! [`Kernel::proc_read`](crate::Kernel::proc_read).
//!
//! # Linux
//! fs/proc/root.c, fs/proc/base.c, fs/proc/array.c, fs/proc/task_mmu.c,
//! fs/proc/{uptime,stat,loadavg,meminfo}.c, fs/proc/self.c,
//! fs/proc/thread_self.c; formats as of Linux 6.x (checked against this
//! machine's Linux 6.18 by the tests), described in proc(5).

mod children;
mod cmdline;
pub mod dirent;
mod fs;
mod limits;
mod mm;
pub mod node;
mod ops;
mod piddir;
mod read;
pub mod root;
mod seq;
mod stat;
mod state;
mod status;
mod sysinfo;
mod system;

pub use dirent::{
    dirent64_reclen, parse_dirents64, DType, DirContext, DirCursor, DirEntries, DirEntry, Dirent64,
    Getdents64,
};
pub use fs::{ProcClock, ProcFs, USER_HZ};
pub use mm::MmCounters;
pub use node::{Attr, Fixed, Node, PidEntry, PROC_ROOT_INO, TGID_ENTRIES, TID_ENTRIES};
pub use ops::name_to_int;
pub use root::{RootWalk, FIRST_PROCESS_ENTRY, ROOT_END_POS, TGID_OFFSET};
pub use seq::SeqBuf;
pub use state::{TaskState, LINUX_PF_EXITING, LINUX_PF_FORKNOEXEC, LINUX_PF_RANDOMIZE};
pub use sysinfo::SystemInfo;
