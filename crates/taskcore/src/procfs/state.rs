//! What `/proc` derives from a task: its state letter, its `PF_*` flags,
//! and its ids as the mount's namespace numbers them.
//!
//! # State
//! | shown | when |
//! |---|---|
//! | `Z (zombie)` | exited, not yet reaped |
//! | `t (tracing stop)` | in a ptrace stop |
//! | `T (stopped)` | its thread group is stopped by job control |
//! | `D (disk sleep)` | waiting in vfork for its child to exec or exit (`TASK_KILLABLE`) |
//! | `R (running)` | the caller said it runs ([`Kernel::set_running`](crate::Kernel::set_running)) |
//! | `S (sleeping)` | otherwise |
//!
//! # Linux
//! fs/proc/array.c `task_state_array`, `get_task_state()`,
//! include/linux/sched.h `task_state_index()`, `PF_*`.

use crate::ix::TaskIx;
use crate::pid::ns::NsIx;
use crate::procfs::fs::ProcFs;
use crate::task::task_struct::{ExitState, PF_EXITING, PF_FORKNOEXEC, TS_RUNNING, TS_VFORK_WAIT};

/// `PF_EXITING` as Linux numbers it (`/proc/PID/stat` field 9).
pub const LINUX_PF_EXITING: u32 = 0x0000_0004;
/// `PF_FORKNOEXEC`: forked but has not exec'd.
pub const LINUX_PF_FORKNOEXEC: u32 = 0x0000_0040;
/// `PF_RANDOMIZE`: address-space layout randomisation on (every user task
/// of a default system has it).
pub const LINUX_PF_RANDOMIZE: u32 = 0x0040_0000;

/// A task's scheduling state as `/proc` reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TaskState {
    /// `R (running)`.
    Running,
    /// `S (sleeping)`.
    Sleeping,
    /// `D (disk sleep)`: an uninterruptible sleep; here only the wait of a
    /// vfork caller for its child (`wait_for_vfork_done()`, `TASK_KILLABLE`).
    DiskSleep,
    /// `T (stopped)`.
    Stopped,
    /// `t (tracing stop)`.
    TracingStop,
    /// `Z (zombie)`.
    Zombie,
}

impl TaskState {
    /// The one-letter form of `/proc/PID/stat`.
    pub fn letter(self) -> char {
        match self {
            TaskState::Running => 'R',
            TaskState::Sleeping => 'S',
            TaskState::DiskSleep => 'D',
            TaskState::Stopped => 'T',
            TaskState::TracingStop => 't',
            TaskState::Zombie => 'Z',
        }
    }

    /// The form of `/proc/PID/status` (`task_state_array`).
    pub fn describe(self) -> &'static str {
        match self {
            TaskState::Running => "R (running)",
            TaskState::Sleeping => "S (sleeping)",
            TaskState::DiskSleep => "D (disk sleep)",
            TaskState::Stopped => "T (stopped)",
            TaskState::TracingStop => "t (tracing stop)",
            TaskState::Zombie => "Z (zombie)",
        }
    }
}

impl ProcFs<'_> {
    /// `get_task_state()` for task `t`.
    pub(crate) fn task_state(&self, t: TaskIx) -> TaskState {
        let task = &self.k.tasks[t];
        if task.exit_state() == ExitState::Zombie {
            TaskState::Zombie
        } else if task.traced_stop() {
            TaskState::TracingStop
        } else if task.jobctl & crate::task::state::jobctl_flags::JOBCTL_STOPPED != 0 {
            TaskState::Stopped
        } else if task.flags.contains(TS_VFORK_WAIT) {
            TaskState::DiskSleep
        } else if task.flags.contains(TS_RUNNING) {
            TaskState::Running
        } else {
            TaskState::Sleeping
        }
    }

    /// `task->flags` in Linux's `PF_*` numbering.
    pub(crate) fn linux_task_flags(&self, t: TaskIx) -> u32 {
        let f = self.k.tasks[t].flags;
        let mut out = LINUX_PF_RANDOMIZE;
        if f.contains(PF_EXITING) || self.k.tasks[t].exit_state() == ExitState::Zombie {
            out |= LINUX_PF_EXITING;
        }
        if f.contains(PF_FORKNOEXEC) {
            out |= LINUX_PF_FORKNOEXEC;
        }
        out
    }

    /// The tgid of `t`'s real parent in the mount's namespace, 0 for none
    /// or invisible (`task_tgid_nr_ns(task->real_parent, ns)`).
    pub(crate) fn ppid_nr(&self, t: TaskIx) -> u32 {
        self.k.real_parent(t).map_or(0, |rp| self.tgid_nr(rp))
    }

    /// The thread id of `t`'s tracer in the mount's namespace, 0 if
    /// untraced (`task_pid_nr_ns(ptrace_parent(p), ns)`).
    pub(crate) fn tracer_nr(&self, t: TaskIx) -> u32 {
        let task = &self.k.tasks[t];
        match task.parent {
            Some(tracer) if task.ptrace != 0 => self.tid_nr(tracer),
            _ => 0,
        }
    }

    /// `t`'s process group id in namespace slab `ns`
    /// (`task_pgrp_nr_ns`).
    pub(crate) fn pgrp_nr_in(&self, t: TaskIx, ns: NsIx) -> u32 {
        let pgrp = self.k.groups[self.k.tasks[t].group].pgrp;
        self.k.pid_nr_ns(pgrp, ns).max(0) as u32
    }

    /// `t`'s session id in namespace slab `ns` (`task_session_nr_ns`).
    pub(crate) fn session_nr_in(&self, t: TaskIx, ns: NsIx) -> u32 {
        let sid = self.k.groups[self.k.tasks[t].group].session;
        self.k.pid_nr_ns(sid, ns).max(0) as u32
    }

    /// `t`'s tgid in namespace slab `ns` (`task_tgid_nr_ns`).
    pub(crate) fn tgid_nr_in(&self, t: TaskIx, ns: NsIx) -> u32 {
        let leader = self.k.leader_of(t);
        self.k.pid_nr_ns(self.k.tasks[leader].pid, ns).max(0) as u32
    }

    /// `t`'s exit signal as `/proc/PID/stat` shows it: the group's for
    /// the leader, -1 for other threads (`CLONE_THREAD` sets
    /// `exit_signal = -1`).
    pub(crate) fn exit_signal(&self, t: TaskIx) -> i32 {
        if self.k.is_leader(t) {
            self.k.groups[self.k.tasks[t].group].exit_signal.get()
        } else {
            -1
        }
    }
}
