//! Resource limits: one resource's [`Rlimit`], a thread group's table of
//! them, and the limits at boot. The calls (`getrlimit`, `setrlimit`,
//! `prlimit64`, and the `RLIMIT_NPROC` check of fork) are in `prlimit`.
//!
//! Limits belong to the thread group (`signal_struct->rlim`) and are
//! inherited at fork. Of the 16 resources, the process table enforces
//! `RLIMIT_NPROC` (at fork) and `RLIMIT_CORE` (a non-zero soft limit makes
//! core-dumping signals set the 0x80 bit of the exit status; `core_pattern`
//! is not modelled); the others are stored and reported only.
//!
//! # Linux
//! kernel/sys.c `do_prlimit()`, `check_prlimit_permission()`;
//! include/asm-generic/resource.h `INIT_RLIMITS`; kernel/fork.c
//! `copy_process()` (`RLIMIT_NPROC`).

use std::sync::Arc;

use crate::uapi::*;

/// One resource's limits (`struct rlimit64`); [`RLIM_INFINITY`] is none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rlimit {
    /// Soft limit (`rlim_cur`), what is enforced.
    pub cur: u64,
    /// Hard limit (`rlim_max`), the ceiling of the soft one.
    pub max: u64,
}

/// A thread group's limits, shared until one group changes them.
pub(crate) type Rlimits = Arc<[Rlimit; RLIM_NLIMITS]>;

/// Tasks and pending signals per user at boot: Linux sets both to
/// `max_threads / 2`, which depends on memory; this is the value of the
/// machine the fixtures were recorded on. Embedders set their own with
/// `Kernel::prlimit64` on init.
pub const INIT_NPROC: u64 = 96365;

/// The limits of init (`INIT_RLIMITS`), with `RLIMIT_CORE`'s soft limit
/// unlimited if `core_dumps`, else 0.
pub(crate) fn init_rlimits(core_dumps: bool) -> Rlimits {
    const INF: u64 = RLIM_INFINITY;
    let l = |cur, max| Rlimit { cur, max };
    Arc::new([
        l(INF, INF),                              // CPU
        l(INF, INF),                              // FSIZE
        l(INF, INF),                              // DATA
        l(8 << 20, INF),                          // STACK: _STK_LIM
        l(if core_dumps { INF } else { 0 }, INF), // CORE
        l(INF, INF),                              // RSS
        l(INIT_NPROC, INIT_NPROC),                // NPROC
        l(1024, 4096),                            // NOFILE: INR_OPEN_CUR/MAX
        l(8 << 20, 8 << 20),                      // MEMLOCK: MLOCK_LIMIT
        l(INF, INF),                              // AS
        l(INF, INF),                              // LOCKS
        l(INIT_NPROC, INIT_NPROC),                // SIGPENDING
        l(819_200, 819_200),                      // MSGQUEUE: MQ_BYTES_MAX
        l(0, 0),                                  // NICE
        l(0, 0),                                  // RTPRIO
        l(INF, INF),                              // RTTIME
    ])
}
