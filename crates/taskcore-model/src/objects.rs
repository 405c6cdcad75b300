//! The objects the model's tables hold besides tasks: `struct pid`s and
//! pid namespaces, open pidfd and namespace files (with the handles that
//! name them), and init's resource limits. What the model does with them
//! is the `impl Model` of `pid.rs`, `pidfd.rs`, `nsproxy.rs` and
//! `rlimit.rs`; these types import nothing of the model.
//!
//! # Linux
//! include/linux/pid.h `struct pid`, include/linux/pid_namespace.h
//! `struct pid_namespace`; fs/pidfs.c; include/asm-generic/resource.h
//! `INIT_RLIMITS`.

use std::collections::BTreeMap;

use taskcore::task::rlimit::INIT_NPROC;
use taskcore::uapi::{RESERVED_PIDS, RLIM_INFINITY, RLIM_NLIMITS};
use taskcore::Rlimit;

/// A pid namespace.
#[derive(Clone, Debug)]
pub(crate) struct Ns {
    pub(crate) level: usize,
    pub(crate) parent: Option<usize>,
    pub(crate) pid_max: u32,
    /// `idr_next`: where the next cyclic search starts.
    pub(crate) cursor: u32,
    /// Number -> `struct pid` index: the namespace's IDR.
    pub(crate) idr: BTreeMap<u32, usize>,
    pub(crate) child_reaper: Option<usize>,
    /// `PIDNS_ADDING`: cleared when the namespace's init has exited.
    pub(crate) adding: bool,
    /// The init thread whose exit waits in `zap_pid_ns_processes()` for
    /// the namespace to empty, and whether its group is dead.
    pub(crate) zap_waiter: Option<(usize, bool)>,
}

impl Ns {
    pub(crate) fn new(level: usize, parent: Option<usize>, pid_max: u32) -> Ns {
        Ns {
            level,
            parent,
            pid_max,
            cursor: 0,
            idr: BTreeMap::new(),
            child_reaper: None,
            adding: true,
            zap_waiter: None,
        }
    }

    /// `idr_alloc_cyclic(idr, start = pid_min, end = pid_max)` without the
    /// insertion: the first free number from the cursor, then from
    /// `pid_min` after a wrap; `pid_min` is 1 until the cursor has passed
    /// `RESERVED_PIDS`.
    pub(crate) fn cyclic_free(&self) -> Option<u32> {
        let pid_min = if self.cursor > RESERVED_PIDS {
            RESERVED_PIDS
        } else {
            1
        };
        let max = self.pid_max - 1;
        let id = self.cursor.max(pid_min);
        let free = |from: u32| (from..=max).find(|n| !self.idr.contains_key(n));
        free(id).or_else(|| if id > pid_min { free(pid_min) } else { None })
    }
}

/// A `struct pid`.
#[derive(Clone, Debug)]
pub(crate) struct PidStruct {
    /// `(namespace, number)` per level, root first.
    pub(crate) numbers: Vec<(usize, u32)>,
    /// Attachments: as some task's PID, a group's TGID, PGID or SID.
    pub(crate) count: usize,
    /// The task using it as PID (`pid_task(pid, PIDTYPE_PID)`).
    pub(crate) task: Option<usize>,
}

/// A model pidfd: the model's open pidfds numbered in opening order
/// (never reused; a closed one gives `EBADF`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PidFd(pub usize);

/// An open pidfd.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PidFdFile {
    /// The `struct pid` (an index of [`Model::pids`](crate::Model::pids); `None` there once its
    /// numbers were freed).
    pub(crate) pid: usize,
    /// The namespace the pid was allocated in (`ns_of_pid()`).
    pub(crate) ns: usize,
    /// `PIDFD_NONBLOCK` and `PIDFD_THREAD` as opened.
    pub(crate) flags: u32,
}

/// A model namespace file (an open `/proc/PID/ns/pid` or
/// `pid_for_children`): the model's open namespace files numbered in
/// opening order (never reused; a closed one gives `EBADF`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NsFile(pub usize);

/// Init's limits (`INIT_RLIMITS`), `RLIMIT_CORE` unlimited if `core`.
pub(crate) fn init_rlimits(core: bool) -> [Rlimit; RLIM_NLIMITS] {
    let inf = Rlimit {
        cur: RLIM_INFINITY,
        max: RLIM_INFINITY,
    };
    let mut r = [inf; RLIM_NLIMITS];
    let fixed = |cur, max| Rlimit { cur, max };
    r[3].cur = 8 << 20;
    r[4].cur = if core { RLIM_INFINITY } else { 0 };
    r[6] = fixed(INIT_NPROC, INIT_NPROC);
    r[7] = fixed(1024, 4096);
    r[8] = fixed(8 << 20, 8 << 20);
    r[11] = fixed(INIT_NPROC, INIT_NPROC);
    r[12] = fixed(819_200, 819_200);
    r[13] = fixed(0, 0);
    r[14] = fixed(0, 0);
    r
}
