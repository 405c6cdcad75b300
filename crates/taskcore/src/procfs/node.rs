//! The nodes of the tree, their inode numbers and attributes.
//!
//! ```text
//!  /proc                         Node::Root                ino 1
//!  |-- sys/kernel/pid_max        Node::Fixed(..)           ino 0xf000_0001..
//!  |-- stat uptime cpuinfo loadavg meminfo
//!  |-- self -> N                 Node::SelfLink            ino 0xf000_0080
//!  |-- thread-self -> N/task/T   Node::ThreadSelfLink      ino 0xf000_0081
//!  `-- N/                        Node::Pid { nr: N, entry: None }
//!      |-- status comm cmdline stat statm maps
//!      `-- task/                 Node::Pid { nr: N, entry: Some(Task) }
//!          `-- T/                Node::Tid { nr: T, entry: None }
//!              `-- status comm cmdline stat statm maps
//!
//!  ino of a pid node: 1 << 32 | nr << 8 | thread << 7 | entry code
//! ```
//!
//! A node names numbers, not tasks: it is resolved again on every access,
//! so a node whose task has been reaped fails with `ENOENT` (lookup,
//! attributes, listing) or `ESRCH` (reading a file).
//!
//! # Linux
//! fs/proc/root.c (`proc_root`), fs/proc/base.c (`tgid_base_stuff`,
//! `tid_base_stuff`, `proc_pid_make_inode`), fs/proc/generic.c
//! (`proc_alloc_inum`: fixed entries get inode numbers from
//! `PROC_DYNAMIC_FIRST` = 0xf0000000). Divergence: Linux pins a `struct
//! pid` in each inode, so an inode outliving its task never names a new
//! task that reuses the number; ours does.

use crate::procfs::dirent::DType;

/// The root directory's inode number (`PROC_ROOT_INO`).
pub const PROC_ROOT_INO: u64 = 1;

/// First inode number of fixed entries (`PROC_DYNAMIC_FIRST`).
const PROC_DYNAMIC_FIRST: u64 = 0xf000_0000;

/// Inode number of `self`.
const SELF_INO: u64 = PROC_DYNAMIC_FIRST + 0x80;

/// Inode number of `thread-self`.
const THREAD_SELF_INO: u64 = PROC_DYNAMIC_FIRST + 0x81;

/// Bit marking pid-directory inode numbers.
const PID_INO_BASE: u64 = 1 << 32;

/// Bit of a pid inode number marking a thread node (`task/TID`).
const THREAD_BIT: u64 = 0x80;

/// The fixed (not per-process) files and directories.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fixed {
    /// `/proc/sys`.
    Sys,
    /// `/proc/sys/kernel`.
    SysKernel,
    /// `/proc/sys/kernel/pid_max`.
    PidMax,
    /// `/proc/stat`.
    Stat,
    /// `/proc/uptime`.
    Uptime,
    /// `/proc/cpuinfo`.
    Cpuinfo,
    /// `/proc/loadavg`.
    Loadavg,
    /// `/proc/meminfo`.
    Meminfo,
}

impl Fixed {
    /// Every fixed node, in inode-number order.
    pub const ALL: [Fixed; 8] = [
        Fixed::Sys,
        Fixed::SysKernel,
        Fixed::PidMax,
        Fixed::Stat,
        Fixed::Uptime,
        Fixed::Cpuinfo,
        Fixed::Loadavg,
        Fixed::Meminfo,
    ];

    /// The entry's name in its directory.
    pub fn name(self) -> &'static str {
        match self {
            Fixed::Sys => "sys",
            Fixed::SysKernel => "kernel",
            Fixed::PidMax => "pid_max",
            Fixed::Stat => "stat",
            Fixed::Uptime => "uptime",
            Fixed::Cpuinfo => "cpuinfo",
            Fixed::Loadavg => "loadavg",
            Fixed::Meminfo => "meminfo",
        }
    }

    /// The directory holding the entry.
    pub fn parent(self) -> Node {
        match self {
            Fixed::SysKernel => Node::Fixed(Fixed::Sys),
            Fixed::PidMax => Node::Fixed(Fixed::SysKernel),
            _ => Node::Root,
        }
    }

    /// Whether the entry is a directory.
    pub fn is_dir(self) -> bool {
        matches!(self, Fixed::Sys | Fixed::SysKernel)
    }

    /// Permission bits (`0555` directories, `0444` read-only files, `0644`
    /// for the writable sysctl).
    pub fn perm(self) -> u32 {
        match self {
            Fixed::Sys | Fixed::SysKernel => 0o555,
            Fixed::PidMax => 0o644,
            _ => 0o444,
        }
    }

    fn index(self) -> u64 {
        Fixed::ALL.iter().position(|&f| f == self).unwrap_or(0) as u64
    }
}

/// An entry of a process directory (`/proc/PID/X`) or thread directory
/// (`/proc/PID/task/TID/X`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PidEntry {
    /// `task/`: the threads (process directories only).
    Task,
    /// `status`.
    Status,
    /// `comm`.
    Comm,
    /// `cmdline`.
    Cmdline,
    /// `stat`.
    Stat,
    /// `statm`.
    Statm,
    /// `maps`.
    Maps,
    /// `limits`.
    Limits,
    /// `children` (thread directories only).
    Children,
    /// `uid_map`: the user namespace's uid map.
    UidMap,
    /// `gid_map`.
    GidMap,
    /// `setgroups`: `allow` or `deny`.
    Setgroups,
}

/// Entries of `/proc/PID/`, in the order of Linux's `tgid_base_stuff`.
pub const TGID_ENTRIES: [PidEntry; 11] = [
    PidEntry::Task,
    PidEntry::Status,
    PidEntry::Limits,
    PidEntry::Comm,
    PidEntry::Cmdline,
    PidEntry::Stat,
    PidEntry::Statm,
    PidEntry::Maps,
    PidEntry::UidMap,
    PidEntry::GidMap,
    PidEntry::Setgroups,
];

/// Entries of `/proc/PID/task/TID/`, in the order of Linux's
/// `tid_base_stuff`.
pub const TID_ENTRIES: [PidEntry; 11] = [
    PidEntry::Status,
    PidEntry::Limits,
    PidEntry::Comm,
    PidEntry::Cmdline,
    PidEntry::Stat,
    PidEntry::Statm,
    PidEntry::Maps,
    PidEntry::Children,
    PidEntry::UidMap,
    PidEntry::GidMap,
    PidEntry::Setgroups,
];

impl PidEntry {
    /// The entry's name.
    pub fn name(self) -> &'static str {
        match self {
            PidEntry::Task => "task",
            PidEntry::Status => "status",
            PidEntry::Comm => "comm",
            PidEntry::Cmdline => "cmdline",
            PidEntry::Stat => "stat",
            PidEntry::Statm => "statm",
            PidEntry::Maps => "maps",
            PidEntry::Limits => "limits",
            PidEntry::Children => "children",
            PidEntry::UidMap => "uid_map",
            PidEntry::GidMap => "gid_map",
            PidEntry::Setgroups => "setgroups",
        }
    }

    /// Permission bits, as Linux's `pid_entry` tables give them.
    pub fn perm(self) -> u32 {
        match self {
            PidEntry::Task => 0o555,
            PidEntry::Comm | PidEntry::UidMap | PidEntry::GidMap | PidEntry::Setgroups => 0o644,
            _ => 0o444,
        }
    }

    /// The entry's type.
    pub fn d_type(self) -> DType {
        match self {
            PidEntry::Task => DType::Dir,
            _ => DType::Reg,
        }
    }

    fn code(self) -> u64 {
        match self {
            PidEntry::Task => 1,
            PidEntry::Status => 2,
            PidEntry::Comm => 3,
            PidEntry::Cmdline => 4,
            PidEntry::Stat => 5,
            PidEntry::Statm => 6,
            PidEntry::Maps => 7,
            PidEntry::Limits => 8,
            PidEntry::Children => 9,
            PidEntry::UidMap => 10,
            PidEntry::GidMap => 11,
            PidEntry::Setgroups => 12,
        }
    }

    fn from_code(c: u64) -> Option<PidEntry> {
        TGID_ENTRIES
            .iter()
            .chain(&TID_ENTRIES)
            .copied()
            .find(|e| e.code() == c)
    }

    /// The entry named `name` among `entries`.
    pub(crate) fn find(entries: &[PidEntry], name: &[u8]) -> Option<PidEntry> {
        entries
            .iter()
            .copied()
            .find(|e| e.name().as_bytes() == name)
    }
}

/// A node of the `/proc` tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Node {
    /// `/proc` itself.
    Root,
    /// A fixed file or directory.
    Fixed(Fixed),
    /// `/proc/self`: a link to the reader's process directory.
    SelfLink,
    /// `/proc/thread-self`: a link to the reader's thread directory.
    ThreadSelfLink,
    /// `/proc/NR` (`entry: None`) or one of its entries. `NR` is any task's
    /// number in the mount's namespace; only thread-group leaders are
    /// listed, but every thread can be looked up, as on Linux.
    Pid {
        /// The number in the mount's namespace.
        nr: u32,
        /// The entry, or `None` for the directory.
        entry: Option<PidEntry>,
    },
    /// `/proc/PID/task/NR` (`entry: None`) or one of its entries.
    Tid {
        /// The thread's number in the mount's namespace.
        nr: u32,
        /// The entry (never `Task`), or `None` for the directory.
        entry: Option<PidEntry>,
    },
}

impl Node {
    /// The node's inode number (see the module documentation).
    ///
    /// # Linux
    /// Linux allocates pid inode numbers dynamically (`get_next_ino`); ours
    /// are a pure function of the node so that a stateless server can map
    /// them back with [`Node::from_ino`].
    #[inline]
    pub fn ino(self) -> u64 {
        match self {
            Node::Root => PROC_ROOT_INO,
            Node::Fixed(f) => PROC_DYNAMIC_FIRST + 1 + f.index(),
            Node::SelfLink => SELF_INO,
            Node::ThreadSelfLink => THREAD_SELF_INO,
            Node::Pid { nr, entry } => {
                PID_INO_BASE | (nr as u64) << 8 | entry.map_or(0, PidEntry::code)
            }
            Node::Tid { nr, entry } => {
                PID_INO_BASE | (nr as u64) << 8 | THREAD_BIT | entry.map_or(0, PidEntry::code)
            }
        }
    }

    /// The node whose [`Node::ino`] is `ino`, if any. Says nothing about
    /// whether the task still exists.
    pub fn from_ino(ino: u64) -> Option<Node> {
        if ino == PROC_ROOT_INO {
            return Some(Node::Root);
        }
        if ino == SELF_INO {
            return Some(Node::SelfLink);
        }
        if ino == THREAD_SELF_INO {
            return Some(Node::ThreadSelfLink);
        }
        if (PROC_DYNAMIC_FIRST + 1..=PROC_DYNAMIC_FIRST + Fixed::ALL.len() as u64).contains(&ino) {
            return Some(Node::Fixed(
                Fixed::ALL[(ino - PROC_DYNAMIC_FIRST - 1) as usize],
            ));
        }
        if ino & !0xffff_ffff != PID_INO_BASE {
            return None;
        }
        let nr = ((ino >> 8) & 0xff_ffff) as u32;
        if nr == 0 {
            return None;
        }
        let code = ino & 0x7f;
        let entry = match code {
            0 => None,
            c => Some(PidEntry::from_code(c)?),
        };
        if ino & THREAD_BIT != 0 {
            if entry == Some(PidEntry::Task) {
                return None;
            }
            Some(Node::Tid { nr, entry })
        } else {
            Some(Node::Pid { nr, entry })
        }
    }

    /// Whether the node is a directory.
    pub fn is_dir(self) -> bool {
        self.d_type() == DType::Dir
    }

    /// The node's type.
    pub fn d_type(self) -> DType {
        match self {
            Node::Root => DType::Dir,
            Node::Fixed(f) if f.is_dir() => DType::Dir,
            Node::Fixed(_) => DType::Reg,
            Node::SelfLink | Node::ThreadSelfLink => DType::Lnk,
            Node::Pid { entry: None, .. } | Node::Tid { entry: None, .. } => DType::Dir,
            Node::Pid { entry: Some(e), .. } | Node::Tid { entry: Some(e), .. } => e.d_type(),
        }
    }

    /// Permission bits.
    pub fn perm(self) -> u32 {
        match self {
            Node::Root => 0o555,
            Node::Fixed(f) => f.perm(),
            Node::SelfLink | Node::ThreadSelfLink => 0o777,
            Node::Pid { entry: None, .. } | Node::Tid { entry: None, .. } => 0o555,
            Node::Pid { entry: Some(e), .. } | Node::Tid { entry: Some(e), .. } => e.perm(),
        }
    }
}

/// File type bits of `st_mode` (`S_IFDIR`, `S_IFREG`, `S_IFLNK`).
pub fn s_ifmt(d_type: DType) -> u32 {
    match d_type {
        DType::Dir => 0o040000,
        DType::Reg => 0o100000,
        DType::Lnk => 0o120000,
    }
}

/// What `stat(2)` shows of a node.
///
/// # Linux
/// `proc_pid_make_inode()`, `pid_getattr()`, `proc_task_getattr()`,
/// `proc_root_getattr()`: sizes are 0 (the content is generated on read),
/// owners are the task's effective ids (`task_dump_owner`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attr {
    /// Inode number.
    pub ino: u64,
    /// Full `st_mode`: type bits and permissions.
    pub mode: u32,
    /// `st_nlink`.
    pub nlink: u32,
    /// `st_uid`.
    pub uid: u32,
    /// `st_gid`.
    pub gid: u32,
    /// `st_size`: 0 for generated files and directories, the target's
    /// length for links.
    pub size: u64,
    /// The node's type.
    pub d_type: DType,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_nodes() -> Vec<Node> {
        let mut v = vec![Node::Root, Node::SelfLink, Node::ThreadSelfLink];
        v.extend(Fixed::ALL.iter().map(|&f| Node::Fixed(f)));
        for nr in [1, 2, 300, 4_194_303, 0xff_ffff] {
            v.push(Node::Pid { nr, entry: None });
            v.push(Node::Tid { nr, entry: None });
            for e in TGID_ENTRIES {
                v.push(Node::Pid { nr, entry: Some(e) });
            }
            for e in TID_ENTRIES {
                v.push(Node::Tid { nr, entry: Some(e) });
            }
        }
        v
    }

    #[test]
    fn ino_round_trips_and_is_unique() {
        let nodes = all_nodes();
        let mut seen = std::collections::HashSet::new();
        for n in &nodes {
            assert_eq!(Node::from_ino(n.ino()), Some(*n), "{n:?}");
            assert!(seen.insert(n.ino()), "duplicate ino for {n:?}");
        }
    }

    #[test]
    fn bad_inos_decode_to_nothing() {
        for ino in [
            0,
            2,
            PROC_DYNAMIC_FIRST,
            PROC_DYNAMIC_FIRST + 9,
            PID_INO_BASE,
            1 << 40,
        ] {
            assert_eq!(Node::from_ino(ino), None, "{ino:#x}");
        }
        // A thread node cannot have a task/ entry.
        let bogus = PID_INO_BASE | 5 << 8 | THREAD_BIT | PidEntry::Task.code();
        assert_eq!(Node::from_ino(bogus), None);
    }

    #[test]
    fn modes_follow_linux_tables() {
        assert_eq!(
            Node::Pid {
                nr: 1,
                entry: Some(PidEntry::Comm)
            }
            .perm(),
            0o644
        );
        assert_eq!(
            Node::Pid {
                nr: 1,
                entry: Some(PidEntry::Stat)
            }
            .perm(),
            0o444
        );
        assert_eq!(Node::Pid { nr: 1, entry: None }.perm(), 0o555);
        assert!(Node::Pid {
            nr: 1,
            entry: Some(PidEntry::Task)
        }
        .is_dir());
        assert_eq!(s_ifmt(DType::Lnk) | Node::SelfLink.perm(), 0o120777);
    }
}
