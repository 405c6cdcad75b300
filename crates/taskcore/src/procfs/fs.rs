//! One mounted `/proc`: the reader's pid namespace, the reading task (for
//! `self`), the clock, and the machine description.
//!
//! # Linux
//! `struct proc_fs_info` (include/linux/proc_fs.h): a proc mount belongs to
//! one pid namespace, fixed at mount time (`proc_pid_ns(sb)`), and shows
//! that namespace's tasks under that namespace's numbers. `current` is the
//! task making the call.

use crate::errno::{Errno, Result};
use crate::ix::TaskIx;
use crate::pid::entry::PidIx;
use crate::pid::ns::NsIx;
use crate::pid::NsId;
use crate::procfs::sysinfo::SystemInfo;
use crate::task::kernel::{Kernel, TaskId};

/// Clock ticks per second as user space sees them (`USER_HZ`): start times
/// in `/proc/PID/stat` and the times of `/proc/stat` count in these.
pub const USER_HZ: u64 = 100;

/// Nanoseconds per clock tick.
const NSEC_PER_TICK: u64 = 1_000_000_000 / USER_HZ;

/// The times a `/proc` read needs, supplied by the reader: the library
/// reads no clock.
///
/// `now_ns` and `boot_ns` are on the clock given to
/// [`Kernel::set_time`] (task start times are recorded on it), so
/// uptime is `now_ns - boot_ns` and a task started `start - boot_ns` after
/// boot. `boot_wall_s` anchors that clock to the wall clock (`btime`).
///
/// # Linux
/// `ktime_get_boottime_ns()` for now, `task->start_boottime` for start
/// times, and `btime` of `/proc/stat` (`getboottime64()`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProcClock {
    /// Now, in nanoseconds on the kernel's clock.
    pub now_ns: u64,
    /// Boot, in nanoseconds on the kernel's clock (usually 0).
    pub boot_ns: u64,
    /// Boot time in seconds since the Unix epoch (`btime`).
    pub boot_wall_s: u64,
}

impl ProcClock {
    /// A clock reading `kernel`'s current time, with boot at 0 on that
    /// clock and at `boot_wall_s` on the wall clock.
    pub fn from_kernel(kernel: &Kernel, boot_wall_s: u64) -> ProcClock {
        ProcClock {
            now_ns: kernel.now_ns(),
            boot_ns: 0,
            boot_wall_s,
        }
    }

    /// Nanoseconds since boot (0 if `now_ns` is before boot).
    pub fn uptime_ns(&self) -> u64 {
        self.now_ns.saturating_sub(self.boot_ns)
    }

    /// Clock ticks since boot of the kernel-clock time `t_ns`
    /// (`nsec_to_clock_t(t - boot)`), 0 for a time before boot.
    pub fn ticks_since_boot(&self, t_ns: u64) -> u64 {
        t_ns.saturating_sub(self.boot_ns) / NSEC_PER_TICK
    }
}

/// A view of the process table as one `/proc` mount shows it.
///
/// Cheap to build (a few words): build one per request, holding the
/// kernel borrowed for as long as the request lasts.
///
/// # Locking
/// Borrows the [`Kernel`] shared: the caller's lock over the kernel (the
/// role of `tasklist_lock`/RCU) must be held while a `ProcFs` exists.
///
/// # Linux
/// `struct proc_fs_info` plus `current`.
#[derive(Clone, Debug)]
pub struct ProcFs<'k> {
    pub(crate) k: &'k Kernel,
    /// Slab index of the mount's pid namespace.
    pub(crate) ns: NsIx,
    /// Slab index of the reading task, `None` for a reader outside the
    /// emulated process table.
    pub(crate) current: Option<TaskIx>,
    pub(crate) clock: ProcClock,
    pub(crate) sys: SystemInfo,
}

impl<'k> ProcFs<'k> {
    /// `/proc` as mounted in pid namespace `ns`, read by no emulated task
    /// (`self` and `thread-self` do not resolve), with the default
    /// [`SystemInfo`].
    ///
    /// # Errors
    /// `EINVAL` if `ns` does not name a namespace of `kernel`.
    ///
    /// # Linux
    /// `proc_fill_super()`: the mount's namespace is the mounter's.
    pub fn new(kernel: &'k Kernel, ns: NsId, clock: ProcClock) -> Result<ProcFs<'k>> {
        if !kernel.nss.contains(ns.0) {
            return Err(Errno::EINVAL);
        }
        Ok(ProcFs {
            k: kernel,
            ns: ns.0,
            current: None,
            clock,
            sys: SystemInfo::default(),
        })
    }

    /// The same mount read by emulated task `current`: `self` names its
    /// process and `thread-self` its thread, when `current` is visible in
    /// the mount's namespace.
    ///
    /// # Errors
    /// `ESRCH` if `current` is stale.
    pub fn with_current(mut self, current: TaskId) -> Result<ProcFs<'k>> {
        self.current = Some(self.k.task_idx(current)?);
        Ok(self)
    }

    /// The same mount describing the machine with `sys`.
    pub fn with_system(mut self, sys: SystemInfo) -> ProcFs<'k> {
        self.sys = sys;
        self
    }

    /// The user namespace ids are shown in (`seq_user_ns()`, the
    /// opener's): the reader's, or without one the owner of the mount's
    /// pid namespace.
    pub(crate) fn reader_user_ns(&self) -> crate::ix::UserNsIx {
        match self.current {
            Some(c) => self.k.tasks[c].cred.user_ns.0,
            None => self.k.nss[self.ns].user_ns,
        }
    }

    /// The kernel this view reads.
    pub fn kernel(&self) -> &'k Kernel {
        self.k
    }

    /// The mount's pid namespace.
    pub fn ns(&self) -> NsId {
        NsId(self.ns)
    }

    /// The clock this view renders times with.
    pub fn clock(&self) -> ProcClock {
        self.clock
    }

    /// The machine description.
    pub fn system(&self) -> &SystemInfo {
        &self.sys
    }

    /// The number `pid` (a `struct pid` slab index) has in the mount's
    /// namespace, 0 if none (`pid_nr_ns`).
    pub(crate) fn nr(&self, pid: PidIx) -> u32 {
        self.k.pid_nr_ns(pid, self.ns).max(0) as u32
    }

    /// Task `t`'s thread id in the mount's namespace, 0 if invisible.
    pub(crate) fn tid_nr(&self, t: TaskIx) -> u32 {
        self.nr(self.k.tasks[t].pid)
    }

    /// Task `t`'s thread-group id in the mount's namespace, 0 if invisible.
    pub(crate) fn tgid_nr(&self, t: TaskIx) -> u32 {
        self.tid_nr(self.k.leader_of(t))
    }

    /// The task numbered `nr` in the mount's namespace
    /// (`find_task_by_pid_ns`).
    pub(crate) fn find_task(&self, nr: u32) -> Option<TaskIx> {
        if nr == 0 || nr > i32::MAX as u32 {
            return None;
        }
        self.k.find_task(self.ns, nr as i32)
    }

    /// The reading task if it is visible in the mount's namespace.
    pub(crate) fn current_visible(&self) -> Option<TaskIx> {
        self.current
            .filter(|&t| self.k.tasks.contains(t) && self.tid_nr(t) != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::kernel::Config;

    #[test]
    fn ticks_count_from_boot() {
        let c = ProcClock {
            now_ns: 5_000_000_000,
            boot_ns: 1_000_000_000,
            boot_wall_s: 1_700_000_000,
        };
        assert_eq!(c.uptime_ns(), 4_000_000_000);
        assert_eq!(c.ticks_since_boot(1_010_000_000), 1);
        assert_eq!(c.ticks_since_boot(999), 0);
    }

    #[test]
    fn unknown_namespace_is_einval() {
        let k = Kernel::new(Config::default()).unwrap();
        let bad = NsId(crate::slab::SlabIx::from_slot(77));
        assert_eq!(
            ProcFs::new(&k, bad, ProcClock::default()).err(),
            Some(Errno::EINVAL)
        );
        assert!(ProcFs::new(&k, k.root_ns(), ProcClock::default()).is_ok());
    }
}
