//! The task (`struct task_struct`) and the thread group (`struct
//! signal_struct` with the process-level fields Linux keeps on the leader).
//!
//! Both live in slabs inside [`crate::Kernel`] and refer to each other by
//! typed slab index ([`TaskIx`], [`GroupIx`]; `Option` where a link may be
//! absent). Process-level state (parent, place among siblings, process
//! group, session, dispositions) is stored once per thread group rather
//! than on every thread: in Linux only the leader's copy of those fields
//! matters.

use crate::list::{Link, ListHead};
use crate::pid::entry::PidIx;
use crate::task::state::sighand::SharedSigHand;
use crate::task::state::sigpending::SigPending;
use crate::uapi::TASK_COMM_LEN;
use crate::wait::ready::Ready;

/// `exit_state` of a task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ExitState {
    /// Running, stopped or traced: not yet exited.
    Alive,
    /// Exited, waiting to be reaped (`EXIT_ZOMBIE`).
    Zombie,
}

/// A task's part of wait readiness, in one byte: its exit state and
/// whether it is in a ptrace stop (`TASK_TRACED`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct WaitState(u8);

impl WaitState {
    const ZOMBIE: u8 = 0x01;
    const TRACED_STOP: u8 = 0x02;

    /// A new task's: alive, not stopped.
    pub(crate) const ALIVE: WaitState = WaitState(0);

    /// The exit state.
    #[inline(always)]
    pub(crate) fn exit_state(self) -> ExitState {
        if self.0 & Self::ZOMBIE != 0 {
            ExitState::Zombie
        } else {
            ExitState::Alive
        }
    }

    /// Whether the task is in a ptrace stop.
    #[inline(always)]
    pub(crate) fn traced_stop(self) -> bool {
        self.0 & Self::TRACED_STOP != 0
    }

    /// This state with exit state `s`.
    #[inline(always)]
    pub(crate) fn with_exit_state(self, s: ExitState) -> WaitState {
        match s {
            ExitState::Zombie => WaitState(self.0 | Self::ZOMBIE),
            ExitState::Alive => WaitState(self.0 & !Self::ZOMBIE),
        }
    }

    /// This state with the ptrace stop set or cleared.
    #[inline(always)]
    pub(crate) fn with_traced_stop(self, stopped: bool) -> WaitState {
        if stopped {
            WaitState(self.0 | Self::TRACED_STOP)
        } else {
            WaitState(self.0 & !Self::TRACED_STOP)
        }
    }
}

bitflags::bitflags! {
    /// A task's flags: Linux's `PF_*` of `task->flags`, the thread's
    /// `TIF_*`-like states and `PFA_NO_NEW_PRIVS`, in one byte. The names
    /// below give each bit its Linux name.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(crate) struct TaskFlags: u8 {
        /// The task has started exiting (`PF_EXITING`).
        const EXITING = 0x01;
        /// Forked but has not exec'd (`PF_FORKNOEXEC`).
        const FORKNOEXEC = 0x02;
        /// No Linux analogue: as a waiter, edges to this thread's own
        /// children and tracees are also counted per thread (set at its
        /// first `__WNOTHREAD` wait; see `wait::index`).
        const WAIT_COUNTED = 0x04;
        /// No Linux `PF_*` analogue: runnable (`__state == TASK_RUNNING`,
        /// `R` in `/proc`) rather than sleeping (`TASK_INTERRUPTIBLE`,
        /// `S`), as the caller reports with `Kernel::set_running`.
        const RUNNING = 0x08;
        /// The `saved_sigmask` kept in `SigSave` is to be restored
        /// (`TIF_RESTORE_SIGMASK`).
        const RESTORE_SIGMASK = 0x10;
        /// Sleeping in `rt_sigtimedwait`, `rt_sigsuspend` or `pause` until
        /// a signal comes.
        const SIGSLEEP = 0x20;
        /// Waiting in vfork for the child to exec or exit
        /// (`wait_for_vfork_done()`, a `TASK_KILLABLE` sleep): signals,
        /// group stops and ptrace traps stay pending until the vfork
        /// completes; only a pending SIGKILL wakes it.
        const VFORK_WAIT = 0x40;
        /// `no_new_privs` (`PFA_NO_NEW_PRIVS` of `atomic_flags`), set by
        /// `PR_SET_NO_NEW_PRIVS`, inherited by children, never cleared.
        const NO_NEW_PRIVS = 0x80;
    }
}

/// `PF_EXITING`.
pub(crate) const PF_EXITING: TaskFlags = TaskFlags::EXITING;
/// `PF_FORKNOEXEC`.
pub(crate) const PF_FORKNOEXEC: TaskFlags = TaskFlags::FORKNOEXEC;
/// Runnable (no Linux `PF_*`: `TASK_RUNNING`).
pub(crate) const TS_RUNNING: TaskFlags = TaskFlags::RUNNING;
/// `TIF_RESTORE_SIGMASK`.
pub(crate) const TS_RESTORE_SIGMASK: TaskFlags = TaskFlags::RESTORE_SIGMASK;
/// Asleep until a signal comes.
pub(crate) const TS_SIGSLEEP: TaskFlags = TaskFlags::SIGSLEEP;
/// Waiting in vfork.
pub(crate) const TS_VFORK_WAIT: TaskFlags = TaskFlags::VFORK_WAIT;
/// `PFA_NO_NEW_PRIVS`.
pub(crate) const PFA_NO_NEW_PRIVS: TaskFlags = TaskFlags::NO_NEW_PRIVS;

bitflags::bitflags! {
    /// A thread group's `SIGNAL_*` flags (`signal->flags`).
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(crate) struct SignalFlags: u8 {
        /// Job control stop in effect (`SIGNAL_STOP_STOPPED`).
        const STOP_STOPPED = 0x01;
        /// SIGCONT since the last WCONTINUED report
        /// (`SIGNAL_STOP_CONTINUED`).
        const STOP_CONTINUED = 0x02;
        /// The group is exiting (`SIGNAL_GROUP_EXIT`).
        const GROUP_EXIT = 0x04;
        /// Continued, its parent not yet told: the first thread to pass
        /// through `get_signal()` sends CLD_CONTINUED
        /// (`SIGNAL_CLD_CONTINUED`).
        const CLD_CONTINUED = 0x20;
        /// The init of a pid namespace (`SIGNAL_UNKILLABLE`).
        const UNKILLABLE = 0x40;
    }
}

/// `SIGNAL_GROUP_EXIT`.
pub(crate) const SIGNAL_GROUP_EXIT: SignalFlags = SignalFlags::GROUP_EXIT;
/// `SIGNAL_STOP_STOPPED`.
pub(crate) const SIGNAL_STOP_STOPPED: SignalFlags = SignalFlags::STOP_STOPPED;
/// `SIGNAL_STOP_CONTINUED`.
pub(crate) const SIGNAL_STOP_CONTINUED: SignalFlags = SignalFlags::STOP_CONTINUED;
/// `SIGNAL_CLD_CONTINUED`.
pub(crate) const SIGNAL_CLD_CONTINUED: SignalFlags = SignalFlags::CLD_CONTINUED;
/// `SIGNAL_UNKILLABLE`.
pub(crate) const SIGNAL_UNKILLABLE: SignalFlags = SignalFlags::UNKILLABLE;

/// ptrace state: traced (`PT_PTRACED`).
pub(crate) const PT_PTRACED: u8 = 0x01;
/// ptrace state: attached with `PTRACE_SEIZE` (`PT_SEIZED`).
pub(crate) const PT_SEIZED: u8 = 0x02;

pub(crate) use crate::ix::{GroupIx, TaskIx};

/// A task: one thread.
///
/// # Invariants
/// 1. `pid` names a live `struct pid` whose `task` is this task.
/// 2. The task is on its group's thread list, in creation order
///    (`thread_seq` increasing).
/// 3. `parent` is `Some` iff `ptrace != 0`, and then the task is on
///    `parent`'s `ptraced` list.
#[derive(Clone, Debug)]
pub(crate) struct Task {
    /// Slab index of its `struct pid`.
    pub(crate) pid: PidIx,
    /// Slab index of its thread group.
    pub(crate) group: GroupIx,
    /// The tracer thread, or `None` when not traced (then the ptrace parent
    /// is the group's real parent).
    pub(crate) parent: Option<TaskIx>,
    /// Thread groups whose real parent is this thread, in fork order.
    pub(crate) children: ListHead<GroupIx>,
    /// Link in the tracer's `ptraced` list (whose head, and this task's
    /// order key in it, are kept in the side state: `SideState::ptraced`,
    /// `SideState::ptrace_seq`).
    pub(crate) ptrace_entry: Link<TaskIx>,
    /// Link in the group's thread list.
    pub(crate) thread_node: Link<TaskIx>,
    /// Order key in the group's thread list.
    pub(crate) thread_seq: u32,
    /// Exit status word (`exit_code`): `code << 8`, or the signal (| 0x80).
    pub(crate) exit_code: i32,
    /// ptrace stop code waiting to be reported (Linux keeps it in
    /// `exit_code` while `TASK_TRACED`); 0 when none.
    pub(crate) trap_code: Ready<i32>,
    /// Alive or a zombie, in a ptrace stop or not: read with
    /// [`Task::exit_state`] and [`Task::traced_stop`].
    pub(crate) wait_state: Ready<WaitState>,
    /// `PT_*` bits, 0 when not traced.
    pub(crate) ptrace: u8,
    /// `PF_*` and thread-state bits.
    pub(crate) flags: TaskFlags,
    /// The wait index registration of the ptrace edge (see `wait::index`).
    pub(crate) ptrace_reg: u8,
    /// Bumped at each exec (`self_exec_id`).
    pub(crate) self_exec_id: u32,
    /// Command name, NUL-padded (`comm`).
    pub(crate) comm: [u8; TASK_COMM_LEN],
    /// Credentials (`cred`; Linux also has `real_cred`, the same here).
    pub(crate) cred: std::sync::Arc<crate::task::state::cred_struct::Cred>,
    /// Namespaces for children (`nsproxy`); empty once the task exited.
    pub(crate) nsproxy: crate::task::state::nsproxy_struct::NsProxy,
    /// Signal asked for at the parent's death (`pdeath_signal`), 0 none
    /// (a signal number, 1-64, fits a byte).
    pub(crate) pdeath_signal: u8,
    /// Start time in caller-supplied nanoseconds.
    pub(crate) start_time: u64,
    /// Signals sent to this thread alone (`pending`): `tkill`, `tgkill`,
    /// `rt_tgsigqueueinfo`.
    pub(crate) pending: SigPending,
    /// Signals this thread blocks (`blocked`, bit `sig - 1`); never SIGKILL
    /// or SIGSTOP.
    pub(crate) blocked: u64,
    /// Its address space: an entry of `Kernel::mms`, one of its own
    /// without an entry, or none once exited.
    pub(crate) mm: crate::task::state::mm_entry::TaskMm,
    /// Job-control and ptrace-trap state (`jobctl`: the `JOBCTL_*` bits of
    /// `task/signal/jobctl_flags.rs`, the stop signal in the low 16 bits).
    pub(crate) jobctl: u32,
    /// `PTRACE_O_*` options set by `PTRACE_SEIZE`/`PTRACE_SETOPTIONS`
    /// (Linux keeps them in `ptrace` above `PT_OPT_FLAG_SHIFT`), packed
    /// by `ptrace::event::pack_options` into 16 bits.
    pub(crate) ptrace_opts: u16,
    /// Which kind of ptrace stop the task is in (`task/ptrace/event.rs`
    /// `TrapKind` as u8); meaningful with `traced_stop`.
    pub(crate) trap_kind: u8,
}

impl Task {
    /// `exit_state`.
    #[inline(always)]
    pub(crate) fn exit_state(&self) -> ExitState {
        self.wait_state.get().exit_state()
    }

    /// Whether the task is in a ptrace stop (`TASK_TRACED`).
    #[inline(always)]
    pub(crate) fn traced_stop(&self) -> bool {
        self.wait_state.get().traced_stop()
    }
}

/// A thread group: a process.
///
/// # Invariants
/// 1. `leader` is on `threads`; `nr_threads` counts `threads`.
/// 2. `live` counts threads without `PF_EXITING`.
/// 3. If `real_parent` is `Some`, the group is on `real_parent`'s `children`
///    list at key `sibling_seq`.
/// 4. The group is on the `pgrp_members` list of `pgrp` and counted in
///    the `session_members` of `session`.
#[derive(Clone, Debug)]
pub(crate) struct ThreadGroup {
    /// The group leader task (its pid is the tgid).
    pub(crate) leader: TaskIx,
    /// The thread that forked the process, or its adopter (`real_parent`);
    /// `None` when on no children list (init; a group being released).
    pub(crate) real_parent: Option<TaskIx>,
    /// Link in `real_parent`'s `children` list.
    pub(crate) sibling: Link<GroupIx>,
    /// Order key in `real_parent`'s `children` list (increasing = later).
    pub(crate) sibling_seq: u64,
    /// Signal sent to the parent at exit (`exit_signal` of the leader).
    pub(crate) exit_signal: Ready<i32>,
    /// The parent's `self_exec_id` at fork (`parent_exec_id`).
    pub(crate) parent_exec_id: u32,
    /// The threads, in creation order.
    pub(crate) threads: ListHead<TaskIx>,
    pub(crate) nr_threads: u32,
    pub(crate) live: u32,
    pub(crate) next_thread_seq: u32,
    /// `SIGNAL_*` bits.
    pub(crate) flags: Ready<SignalFlags>,
    /// Exit status of the group, or the stop signal while stopping.
    pub(crate) group_exit_code: Ready<i32>,
    /// The signal of the last group stop (`jobctl & JOBCTL_STOP_SIGMASK`):
    /// what a tracer attaching to the stopped group is told (a signal
    /// number, 1-64).
    pub(crate) stop_sig: u8,
    /// Wake-ups of this group's `wait_chldexit` queue so far (wrapping):
    /// a waiter that read it before sleeping knows whether it missed one.
    pub(crate) chld_events: u32,
    /// Signals sent to the process (`shared_pending`): `kill`,
    /// `rt_sigqueueinfo`, SIGCHLD from the kernel.
    pub(crate) shared_pending: SigPending,
    /// The thread a process-directed signal was last given to
    /// (`curr_target`): the search for a taker starts there.
    pub(crate) curr_target: TaskIx,
    /// Slab index of the process group's `struct pid`.
    pub(crate) pgrp: PidIx,
    /// Slab index of the session's `struct pid`.
    pub(crate) session: PidIx,
    pub(crate) pgrp_node: Link<GroupIx>,
    /// Signal dispositions and the actions' flags, masks and addresses
    /// (`sighand`), shared copy-on-write.
    pub(crate) sighand: SharedSigHand,
    /// Resource limits (`rlim`), shared copy-on-write between groups.
    pub(crate) rlim: crate::task::state::rlimit::Rlimits,
    /// `PR_SET_CHILD_SUBREAPER` (`is_child_subreaper`).
    pub(crate) is_child_subreaper: bool,
    /// The group leads its session (`signal->leader`).
    pub(crate) session_leader: bool,
    /// Threads of this group that are traced.
    pub(crate) nr_traced: u32,
    /// Threads that have yet to take part in the group stop in progress
    /// (`group_stop_count`); 0 when none is.
    pub(crate) group_stop_count: u32,
    /// The wait index registration of the child edge (see `wait::index`).
    pub(crate) child_reg: u8,
    /// As a waiter: edges to this group's children and tracees are also
    /// indexed by process group (built at its first `P_PGID` wait).
    pub(crate) wait_by_pgrp: bool,
}

impl ThreadGroup {
    /// A new process whose one thread is `leader` (its `thread_seq` 0, on
    /// no list yet): the thread list holds it, counted once, alive.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        leader: TaskIx,
        pgrp: PidIx,
        session: PidIx,
        sighand: SharedSigHand,
        rlim: crate::task::state::rlimit::Rlimits,
        exit_signal: i32,
        parent_exec_id: u32,
    ) -> ThreadGroup {
        ThreadGroup {
            leader,
            real_parent: None,
            sibling: Link::UNLINKED,
            sibling_seq: 0,
            exit_signal: Ready::initial(exit_signal),
            parent_exec_id,
            threads: ListHead {
                first: Some(leader),
                last: Some(leader),
            },
            nr_threads: 1,
            live: 1,
            next_thread_seq: 1,
            flags: Ready::initial(SignalFlags::empty()),
            group_exit_code: Ready::initial(0),
            stop_sig: 0,
            chld_events: 0,
            shared_pending: SigPending::default(),
            curr_target: leader,
            pgrp,
            session,
            pgrp_node: Link::UNLINKED,
            sighand,
            is_child_subreaper: false,
            session_leader: false,
            nr_traced: 0,
            group_stop_count: 0,
            child_reg: crate::wait::index::UNREGISTERED,
            wait_by_pgrp: false,
            rlim,
        }
    }
}

/// A released task's slot holds its free-list link in `thread_seq`
/// (read only while the task is in its group's thread list).
impl crate::slab::FreeLink for Task {
    #[inline(always)]
    fn free_next(&self) -> u32 {
        self.thread_seq
    }
    #[inline(always)]
    fn set_free_next(&mut self, next: u32) {
        self.thread_seq = next;
    }
}

/// A released group's slot holds its free-list link in `parent_exec_id`
/// (read only at a live group's exit).
impl crate::slab::FreeLink for ThreadGroup {
    #[inline(always)]
    fn free_next(&self) -> u32 {
        self.parent_exec_id
    }
    #[inline(always)]
    fn set_free_next(&mut self, next: u32) {
        self.parent_exec_id = next;
    }
}

/// The masks a thread sets aside while it waits for a signal, kept out of
/// [`Task`] (few threads ever have them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SigSave {
    /// The mask `rt_sigtimedwait` replaced while it sleeps
    /// (`real_blocked`).
    pub(crate) real_blocked: u64,
    /// The mask to restore after the next handler returns, or when no
    /// handler runs (`saved_sigmask`, with [`TS_RESTORE_SIGMASK`]):
    /// `rt_sigsuspend` sets it.
    pub(crate) saved_sigmask: u64,
}

#[cfg(test)]
mod size_tests {
    /// Memory per task is a goal (BENCHMARKS.md, `bench scale`): a field
    /// that grows these structures must be worth it. Budgets in bytes.
    #[test]
    fn tasks_and_groups_stay_small() {
        // 120: the pending set one boxed pointer, `None` while empty
        // (16 bytes before: 128); earlier the vfork parent, the tracer's
        // `ptraced` head and the tracee's order key kept aside,
        // pdeath_signal a byte and the per-thread wait counting a flag
        // (152).
        assert!(core::mem::size_of::<super::Task>() <= 120);
        // 120: the shared pending set one boxed pointer (128 before);
        // earlier the dispositions and the actions' details shared
        // copy-on-write behind one pointer (8 bytes, not 40) and the
        // SIGNAL_* flags a byte (168).
        assert!(core::mem::size_of::<super::ThreadGroup>() <= 120);
        assert_eq!(
            core::mem::size_of::<crate::task::state::sigpending::SigPending>(),
            8
        );
        // 32: a process group's stopped count and the freed flag kept
        // aside (48 before), and a nested pid's numbers above its deepest
        // (40 before). A power of two scales a slab index in one
        // instruction.
        assert!(core::mem::size_of::<crate::pid::entry::Pid>() <= 32);
    }
}
