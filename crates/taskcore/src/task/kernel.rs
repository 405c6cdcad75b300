//! The process table: [`Kernel`] owns every task, thread group, `struct pid`
//! and pid namespace, and the wait index.
//!
//! # Locking
//! None inside: every operation takes `&mut Kernel` (or `&Kernel` for
//! queries), so the caller serialises access, typically with one mutex
//! playing the role of Linux's `tasklist_lock`.
//!
//! # Deferred signals
//! Signals the kernel generates on its own (SIGCHLD to a parent, SIGHUP and
//! SIGCONT to a newly orphaned process group) are queued and delivered when
//! the public operation that raised them finishes, as Linux delivers them
//! when the target next runs. This keeps each exit step free of re-entrant
//! exits.

pub use crate::ix::TaskId;
use crate::ix::{GroupIx, TaskIx};
use crate::pid::entry::PidIx;
use crate::pid::ns::NsIx;
pub use crate::types::SigInfo;
use std::collections::VecDeque;

use crate::errno::{Errno, Result};
use crate::list::{self, Link, ListHead};
use crate::pid::entry::{nr_at, Numbers, Pid, Upid};
use crate::pid::ns::{NsId, PidNamespace};
use crate::pid::TAG_TGID;
use crate::slab::{BitStates, Slab, SlabIx};
use crate::task::state::sighand::SharedSigHand;
use crate::task::task_struct::{
    ExitState, Task, ThreadGroup, PF_FORKNOEXEC, SIGNAL_STOP_CONTINUED, SIGNAL_STOP_STOPPED,
};
use crate::uapi::{PID_MAX_DEFAULT, PID_MAX_LIMIT, PID_MAX_MIN, SIGCHLD, TASK_COMM_LEN};
use crate::wait::index::{
    Cat, Class, EdgePos, EdgeState, WaitIndex, READY_CONT, READY_EXIT, READY_STOP, READY_TRAP,
    UNREGISTERED,
};
use crate::wait::ready::Ready;

/// Settings of a [`Kernel`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// `pid_max` of the root pid namespace (default 32768).
    pub pid_max: u32,
    /// Init's soft `RLIMIT_CORE`: unlimited if true, else 0 (default false,
    /// as with `ulimit -c 0`). Core-dumping signals set the core-dump bit
    /// (0x80) of the exit status of a process whose soft `RLIMIT_CORE` is
    /// not 0.
    pub core_dumps: bool,
    /// How fork duplicates an address space (default copy-on-write).
    pub fork_mm: crate::task::state::mm_entry::ForkMm,
    /// The `vm.max_map_count` sysctl: the most VMAs an address space may
    /// have (default 65530, `DEFAULT_MAX_MAP_COUNT`). An mmap past it, and
    /// a munmap, mprotect or mremap that would split a VMA at it, fail
    /// with `ENOMEM`; every address space the kernel's calls touch uses
    /// the value in force ([`Kernel::set_max_map_count`]).
    pub max_map_count: usize,
    /// Whether the root namespace's init is the machine's init
    /// (`is_global_init()`, default true). False when the root namespace
    /// stands for a pid namespace nested in a real system, as under
    /// `taskcore run`, whose init is a real process with a parent and a
    /// session of its own: init then counts as a parent in another
    /// process group of the same session in `will_become_orphaned_pgrp()`,
    /// and SIGKILL/SIGSTOP sent to it are treated as a namespace init's
    /// (`SIGNAL_UNKILLABLE`), not dropped as the global init's.
    pub init_is_global: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            pid_max: PID_MAX_DEFAULT,
            core_dumps: false,
            fork_mm: crate::task::state::mm_entry::ForkMm::Cow,
            max_map_count: crate::mm::DEFAULT_MAX_MAP_COUNT,
            init_is_global: true,
        }
    }
}

/// Something the caller must act on after an operation.
///
/// The library does no scheduling: it reports these and the caller wakes
/// its blocked threads or runs signal handlers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Notification {
    /// Wake every thread of `group` (its leader's handle) blocked in
    /// `wait4`/`waitid`, so that it retries (`__wake_up_parent`).
    WakeChldexit {
        /// Leader of the thread group whose `wait_chldexit` queue is woken.
        group: TaskId,
    },
    /// A signal was sent to thread group `group` with a handler installed or
    /// to be observed (SIGCHLD with its siginfo, most often).
    Signal {
        /// Leader of the receiving thread group.
        group: TaskId,
        /// The signal.
        sig: i32,
        /// Its siginfo (`si_code`/`si_pid`/`si_status` for SIGCHLD).
        info: SigInfo,
    },
    /// Task `task` exited with status word `exit_code` (`code << 8`, or the
    /// signal | 0x80 if it dumped core); the handle stays valid until the
    /// task is reaped.
    Exited {
        /// The task that exited.
        task: TaskId,
        /// Its exit status word.
        exit_code: i32,
    },
    /// Thread group `group` (its leader) stopped on signal `sig` (job
    /// control): none of its threads may run until it is continued.
    Stopped {
        /// Leader of the stopped group.
        group: TaskId,
        /// The stop signal.
        sig: i32,
    },
    /// Thread group `group` was continued by SIGCONT.
    Continued {
        /// Leader of the continued group.
        group: TaskId,
    },
    /// The vfork child of `parent` exec'd or exited: `parent` may resume
    /// (`complete_vfork_done`).
    VforkDone {
        /// The thread that called vfork.
        parent: TaskId,
    },
    /// [`crate::SignalDelivery::OnGetSignal`]: `task` has a signal it can
    /// take (`TIF_SIGPENDING`, `signal_wake_up()`): interrupt its blocking
    /// call, if any, and call [`Kernel::get_signal`] before it next runs
    /// user code.
    SigPending {
        /// The thread to wake.
        task: TaskId,
    },
    /// [`crate::SignalDelivery::OnGetSignal`]: thread `task` stopped with
    /// its group's stop (job control); it must not run until
    /// [`Notification::TaskResumed`].
    TaskStopped {
        /// The stopped thread.
        task: TaskId,
    },
    /// [`crate::SignalDelivery::OnGetSignal`]: thread `task`, stopped by a
    /// group stop, was continued (SIGCONT): it calls
    /// [`Kernel::get_signal`] before it next runs user code.
    TaskResumed {
        /// The continued thread.
        task: TaskId,
    },
    /// Traced thread `task` entered a ptrace stop (any kind: signal
    /// delivery, group stop, event, syscall) with stop code `code` (its
    /// wait status is `code << 8 | 0x7f`): it must not run until
    /// [`Notification::PtraceResumed`].
    PtraceStopped {
        /// The stopped tracee.
        task: TaskId,
        /// The stop code (`SIGTRAP | PTRACE_EVENT_x << 8`, the signal, ...).
        code: i32,
    },
    /// Its tracer resumed `task` from a ptrace stop; with `syscall`
    /// (`PTRACE_SYSCALL`), the embedder must report its next syscall entry
    /// or exit with [`Kernel::ptrace_syscall_enter`] /
    /// [`Kernel::ptrace_syscall_exit`].
    PtraceResumed {
        /// The resumed tracee.
        task: TaskId,
        /// It stops at its next syscall entry or exit.
        syscall: bool,
    },
    /// [`crate::SignalDelivery::Immediate`]: `task` took `sig` and its
    /// handler ran (the embedder runs it now, if it runs code at all).
    Handler {
        /// The thread that took the signal.
        task: TaskId,
        /// The signal.
        sig: i32,
        /// Its siginfo.
        info: SigInfo,
    },
}

/// Work raised inside an operation and done when it ends, in order.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Deferred {
    pub(crate) task: TaskIx,
    pub(crate) gen: u32,
    pub(crate) what: Deferral,
}

/// What a [`Deferred`] does to its task.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Deferral {
    /// Send a kernel-generated signal to the task's group: with its
    /// siginfo, or `SEND_SIG_PRIV` (`None`); `force` as
    /// `send_signal_locked()`'s.
    Signal(i32, Option<SigInfo>, bool),
    /// The task, the last thread of a namespace's init, may finish exiting:
    /// the namespace is empty (`zap_pid_ns_processes()` wakes up).
    ResumeExit {
        /// The task's group is dead.
        group_dead: bool,
    },
    /// The task runs again (its tracer went away) and takes what was kept
    /// pending for its group.
    Dequeue,
}

/// The emulated process table.
///
/// Owns tasks, thread groups, `struct pid`s and pid namespaces, and keeps
/// the indices that make every operation O(1) or O(log n).
///
/// Its methods are grouped below by area, one heading per group: the
/// kernel itself; lifecycle (fork, clone, exec, exit); process groups and
/// sessions; wait; signals; ptrace; the process API (credentials, limits,
/// prctl, pidfds, namespaces); memory; procfs
/// ([`Kernel::proc_read`]); probes.
#[derive(Debug)]
pub struct Kernel {
    pub(crate) tasks: Slab<Task, TaskIx, BitStates>,
    /// Generation of each task slot, indexed by [`TaskIx::slot`] (slot 0
    /// unused): bumped whenever the slot's task goes
    /// ([`Self::free_task_slot`]), so that a handle
    /// whose generation matches names a live slot (`task_entry` tests
    /// nothing else).
    pub(crate) gens: Vec<u32>,
    pub(crate) groups: Slab<ThreadGroup, GroupIx, BitStates>,
    pub(crate) pids: Slab<Pid, PidIx, BitStates>,
    pub(crate) nss: Slab<PidNamespace, NsIx>,
    /// User namespaces (the initial one first).
    pub(crate) userns: Slab<crate::task::userns::UserNamespace, crate::ix::UserNsIx>,
    pub(crate) mms: Slab<crate::task::state::mm_entry::MmEntry>,
    pub(crate) root_ns: NsIx,
    pub(crate) init: TaskIx,
    pub(crate) wait_index: WaitIndex,
    pub(crate) notes: Vec<Notification>,
    pub(crate) deferred: VecDeque<Deferred>,
    /// The thread whose exec is killing the other threads of its group,
    /// while `de_thread()` runs (`signal->group_exec_task`).
    pub(crate) group_exec_task: Option<TaskIx>,
    /// Wait edges marked by the readiness setters, synced by
    /// `flush_wait_edges` at the end of the operation (task/readiness.rs).
    pub(crate) wait_dirty: Vec<crate::wait::dirty::Dirty>,
    /// Source of list position keys.
    pub(crate) seq: u64,
    /// The caller-supplied current time in nanoseconds.
    pub(crate) now: u64,
    pub(crate) config: Config,
    /// The probe set this kernel's operations fire, and its cached registry.
    pub(crate) probes: crate::probe::KernelProbes,
    /// Pending siginfo entries per real uid (`ucounts`'
    /// `UCOUNT_RLIMIT_SIGPENDING`).
    pub(crate) sigpending_users: rustc_hash::FxHashMap<u32, u32>,
    /// How many members of each process group are group-stopped, for the
    /// process groups that have one (`has_stopped_jobs` in O(1)): kept
    /// aside, not in every `struct pid`.
    pub(crate) pgrp_stopped: rustc_hash::FxHashMap<PidIx, u32>,
    /// The `struct pid`s whose numbers were released (`free_pid`) with
    /// external references left: no user, only those references keep
    /// the entry. Kept aside, not in every `struct pid`.
    pub(crate) freed_pids: rustc_hash::FxHashSet<PidIx>,
    /// Every number, root first, of each `struct pid` of a nested pid
    /// namespace (level > 0), whose entry holds only its deepest
    /// ([`Kernel::pid_numbers`]); empty while no nested namespace has a
    /// pid. Dropped with the entry (`free_pid_entry`).
    pub(crate) pid_levels: rustc_hash::FxHashMap<PidIx, Box<[Upid]>>,
    /// When threads take their signals.
    pub(crate) delivery: crate::task::state::delivery::SignalDelivery,
    /// The rare per-task state kept aside (resume signals, last siginfo,
    /// saved masks, ptrace messages, vfork bookkeeping): dropped in one
    /// place when a task is released.
    pub(crate) side: crate::task::side::SideState,
    /// External references: pid references, pidfds, namespace files.
    pub(crate) ext: crate::pid::refs::ExtRefs,
}

/// # The kernel: creation, configuration, time and notifications.
impl Kernel {
    /// Creates a process table with a root pid namespace and its init task
    /// (pid 1, comm `"init"`, leader of its own session and process group).
    ///
    /// # Errors
    /// `EINVAL` if `config.pid_max` is outside `[301, 4194304]`.
    ///
    /// # Linux
    /// The state after `start_kernel()` has forked pid 1.
    pub fn new(config: Config) -> Result<Kernel> {
        if !(PID_MAX_MIN..=PID_MAX_LIMIT).contains(&config.pid_max) {
            return Err(Errno::EINVAL);
        }
        let mut k = Kernel {
            tasks: Slab::new(),
            gens: Vec::new(),
            groups: Slab::new(),
            pids: Slab::new(),
            nss: Slab::new(),
            userns: Slab::new(),
            mms: Slab::new(),
            root_ns: SlabIx::from_slot(1),
            // Set once init exists, below.
            init: SlabIx::from_slot(1),
            wait_index: WaitIndex::default(),
            notes: Vec::new(),
            deferred: VecDeque::new(),
            group_exec_task: None,
            wait_dirty: Vec::new(),
            seq: 0,
            now: 0,
            config,
            probes: Default::default(),
            sigpending_users: Default::default(),
            pgrp_stopped: Default::default(),
            freed_pids: Default::default(),
            pid_levels: Default::default(),
            delivery: Default::default(),
            side: Default::default(),
            ext: Default::default(),
        };
        k.init_user_ns()?;
        let mut root_ns = PidNamespace::new(0, None, config.pid_max);
        // The initial namespace is never freed (`init_pid_ns` is static).
        root_ns.refs = 1;
        k.root_ns = k.nss.insert(root_ns).ok_or(Errno::ENOMEM)?;
        let pid = k.alloc_pid(k.root_ns, &[], false, true, None)?;
        let root = std::sync::Arc::new(crate::task::state::cred_struct::Cred::default());
        // The group is provisional: set by new_group below.
        let provisional = SlabIx::from_slot(1);
        let task = k.new_task(pid, provisional, *b"init\0\0\0\0\0\0\0\0\0\0\0\0", root)?;
        k.tasks[task].mm = crate::task::state::mm_entry::TaskMm::EMPTY;
        let rlim = crate::task::state::rlimit::init_rlimits(config.core_dumps);
        let g = k.new_group(task, pid, pid, SharedSigHand::default(), rlim, SIGCHLD, 0)?;
        k.attach_process_pids(g, pid, pid, pid);
        k.groups[g].session_leader = true;
        k.init = task;
        k.set_nsproxy(task, k.root_ns);
        k.nss[k.root_ns].child_reaper = Some(task);
        k.set_group_flags(
            g,
            k.groups[g].flags.get() | crate::task::task_struct::SIGNAL_UNKILLABLE,
        );
        // The end of the first operation: what init's setup marked is synced.
        k.flush_wait_edges();
        Ok(k)
    }

    /// A copy of the whole process table, for checkpointing (replay search,
    /// what-if analysis). O(n) in tasks. Handles stay valid in both copies.
    ///
    /// (Not `Clone::clone`: [`Kernel::clone`] is the syscall.)
    pub fn snapshot(&self) -> Kernel {
        Kernel {
            tasks: self.tasks.clone(),
            gens: self.gens.clone(),
            groups: self.groups.clone(),
            pids: self.pids.clone(),
            nss: self.nss.clone(),
            userns: self.userns.clone(),
            mms: self.mms.clone(),
            root_ns: self.root_ns,
            init: self.init,
            wait_index: self.wait_index.clone(),
            notes: self.notes.clone(),
            deferred: self.deferred.clone(),
            group_exec_task: self.group_exec_task,
            wait_dirty: self.wait_dirty.clone(),
            seq: self.seq,
            now: self.now,
            config: self.config,
            probes: self.probes.clone(),
            sigpending_users: self.sigpending_users.clone(),
            pgrp_stopped: self.pgrp_stopped.clone(),
            freed_pids: self.freed_pids.clone(),
            pid_levels: self.pid_levels.clone(),
            delivery: self.delivery,
            side: self.side.clone(),
            ext: self.ext.clone(),
        }
    }

    /// The root namespace's init task: the task holding pid 1 there (after
    /// an exec by one of init's threads, that thread).
    ///
    /// # Errors
    /// `ESRCH` once init has exited and been released.
    pub fn init_task(&self) -> Result<TaskId> {
        // By number: after an exec by one of its threads, that thread holds
        // pid 1 (de_thread).
        let t = self.find_task(self.root_ns, 1).ok_or(Errno::ESRCH)?;
        self.handle(t)
    }

    /// The root pid namespace.
    pub fn root_ns(&self) -> NsId {
        NsId(self.root_ns)
    }

    /// Sets the current time, in nanoseconds since an origin of the
    /// caller's choosing; new tasks record it as their start time.
    pub fn set_time(&mut self, now_ns: u64) {
        self.now = now_ns;
    }

    /// The configuration.
    pub fn config(&self) -> Config {
        self.config
    }

    /// Sets whether core-dumping signals dump core from now on, for every
    /// process: each thread group's soft `RLIMIT_CORE` becomes unlimited
    /// (its hard limit too) or 0. Kept for callers that only know whether
    /// a trace dumped core; [`Kernel::setrlimit`] sets one process's.
    pub fn set_core_dumps(&mut self, on: bool) {
        self.config.core_dumps = on;
        let core = crate::uapi::RLIMIT_CORE as usize;
        let want = if on { crate::uapi::RLIM_INFINITY } else { 0 };
        let groups: Vec<GroupIx> = self.groups.iter().map(|(g, _)| g).collect();
        for g in groups {
            let r = std::sync::Arc::make_mut(&mut self.groups[g].rlim);
            r[core].cur = want;
            r[core].max = r[core].max.max(want);
        }
    }

    /// Takes the notifications raised since the last call, oldest first.
    /// The queue left behind starts with the capacity the taken one had
    /// (one allocation, when it had any), so that a caller taking them
    /// every few thousand operations does not pay the queue's regrowth
    /// (a doubling and a copy of everything queued so far, about a dozen
    /// times per take) on each.
    pub fn take_notifications(&mut self) -> Vec<Notification> {
        let cap = self.notes.capacity();
        core::mem::replace(&mut self.notes, Vec::with_capacity(cap))
    }

    /// Hands the notifications raised since the last call to `sink`, oldest
    /// first, keeping the queue's memory: call it after each operation to
    /// route exactly that operation's effects.
    pub fn drain_notifications(&mut self, mut sink: impl FnMut(Notification)) {
        for n in self.notes.drain(..) {
            sink(n);
        }
    }

    /// The number of wake-ups of `current`'s thread group's child-event
    /// queue so far (wrapping `u32`). Read it in the same critical section
    /// as a wait that returned [`crate::WaitOutcome::WouldBlock`]: if it
    /// differs when the waiter is about to sleep, a
    /// [`Notification::WakeChldexit`] for the group came in between, and the
    /// wait must be retried rather than slept on.
    ///
    /// # Errors
    /// `ESRCH` if `current` is stale.
    ///
    /// # Linux
    /// What `add_wait_queue(&current->signal->wait_chldexit)` before the
    /// check gives `do_wait()`: no wake-up is lost between the check and the
    /// sleep.
    pub fn child_event_seq(&self, current: TaskId) -> Result<u32> {
        let t = self.task_idx(current)?;
        Ok(self.groups[self.tasks[t].group].chld_events)
    }

    /// Number of tasks (threads, zombies included).
    pub fn nr_tasks(&self) -> usize {
        self.tasks.len()
    }

    /// Number of thread groups (processes, zombies included).
    pub fn nr_processes(&self) -> usize {
        self.groups.len()
    }

    // ------------------------------------------------------------ handles

    pub(crate) fn handle(&self, idx: TaskIx) -> Result<TaskId> {
        if !self.tasks.contains(idx) {
            return Err(Errno::ESRCH);
        }
        Ok(self.handle_unchecked(idx))
    }

    pub(crate) fn handle_unchecked(&self, idx: TaskIx) -> TaskId {
        TaskId {
            idx: idx.ordinal(),
            gen: self.gens[idx.slot()],
        }
    }

    /// The task a handle names.
    ///
    /// # Errors
    /// `ESRCH` if the handle is stale (the task was released).
    #[inline]
    pub(crate) fn task_idx(&self, id: TaskId) -> Result<TaskIx> {
        self.task_entry(id).map(|(t, _)| t)
    }

    /// [`Self::task_idx`] with the task itself (one slab lookup for both).
    ///
    /// # Errors
    /// `ESRCH` if the handle is stale (the task was released).
    #[inline]
    pub(crate) fn task_entry(&self, id: TaskId) -> Result<(TaskIx, &Task)> {
        let t = TaskIx::from_ordinal(id.idx).ok_or(Errno::ESRCH)?;
        // The generation alone decides: a slot's is bumped whenever its
        // task goes (`free_task_slot`, the one delete of a task), so a
        // handle's generation matches only while the task it was made for
        // holds the slot; no occupancy test is needed.
        match self.gens.get(t.slot()) {
            Some(&g) if g == id.gen => {
                debug_assert!(self.tasks.contains(t), "a current generation names a task");
                Ok((t, &self.tasks[t]))
            }
            _ => Err(Errno::ESRCH),
        }
    }

    /// The task a handle names, which must be able to make system calls:
    /// alive and not exiting.
    ///
    /// # Errors
    /// `ESRCH` if stale, exited or exiting.
    #[inline]
    pub(crate) fn current(&self, id: TaskId) -> Result<TaskIx> {
        let (t, task) = self.task_entry(id)?;
        if task.flags.contains(crate::task::task_struct::PF_EXITING) {
            return Err(Errno::ESRCH);
        }
        Ok(t)
    }

    // ------------------------------------------------------------ pids

    /// The namespace a task's pid belongs to (`task_active_pid_ns`).
    pub(crate) fn ns_of(&self, t: TaskIx) -> NsIx {
        self.pids[self.tasks[t].pid].numbers.last().ns
    }

    /// The number of `struct pid` `pid` in namespace `ns`, or 0 if it has
    /// none there (`pid_nr_ns`).
    #[inline(always)]
    pub(crate) fn pid_nr_ns(&self, pid: PidIx, ns: NsIx) -> i32 {
        let last = self.pids[pid].numbers.last();
        // The deepest number is in `ns` exactly when its namespace is
        // `ns`; another level's only for a pid of a nested namespace.
        if last.ns == ns {
            return last.nr as i32;
        }
        if self.pid_levels.is_empty() {
            return 0;
        }
        self.pid_nr_upper(pid, ns)
    }

    /// [`Self::pid_nr_ns`] of a number above the deepest.
    #[inline(never)]
    fn pid_nr_upper(&self, pid: PidIx, ns: NsIx) -> i32 {
        self.pid_upper(pid)
            .and_then(|v| nr_at(v, self.nss[ns].level, ns))
            .map_or(0, |nr| nr as i32)
    }

    /// Every number, root first, of `struct pid` `pid` if it belongs to
    /// a nested namespace (the side table's list: `pid->numbers` of a
    /// pid with `level` > 0); `None` for a root-level pid, whose one
    /// number is its entry's. One length test while no nested namespace
    /// has a pid.
    #[inline]
    pub(crate) fn pid_upper(&self, pid: PidIx) -> Option<&[Upid]> {
        if self.pid_levels.is_empty() {
            return None;
        }
        self.pid_levels.get(&pid).map(|v| &v[..])
    }

    /// Every number of `struct pid` `pid`, root first (`pid->numbers`):
    /// the entry's one for a pid of a root-level namespace.
    pub(crate) fn pid_numbers(&self, pid: PidIx) -> &[Upid] {
        self.pid_upper(pid)
            .unwrap_or_else(|| core::slice::from_ref(self.pids[pid].numbers.last_ref()))
    }

    /// The level of `struct pid` `pid` (`pid->level`): its deepest
    /// namespace's.
    pub(crate) fn pid_level(&self, pid: PidIx) -> usize {
        self.nss[self.pids[pid].numbers.last().ns].level
    }

    /// The `struct pid` numbered `nr` in namespace `ns` (`find_pid_ns`).
    pub(crate) fn find_pid(&self, ns: NsIx, nr: i32) -> Option<PidIx> {
        if nr <= 0 {
            return None;
        }
        self.nss[ns].idr.get(nr as u32).map(PidIx::from_idr)
    }

    /// The task numbered `nr` in namespace `ns` (`find_task_by_pid_ns`).
    pub(crate) fn find_task(&self, ns: NsIx, nr: i32) -> Option<TaskIx> {
        self.pids[self.find_pid(ns, nr)?].task
    }

    pub(crate) fn leader_of(&self, t: TaskIx) -> TaskIx {
        self.groups[self.tasks[t].group].leader
    }

    pub(crate) fn is_leader(&self, t: TaskIx) -> bool {
        self.leader_of(t) == t
    }

    /// `thread_group_empty()`: the group has a single task left.
    pub(crate) fn group_empty(&self, g: GroupIx) -> bool {
        self.groups[g].nr_threads == 1
    }

    /// `delay_group_leader()`: a leader whose group still has other tasks.
    pub(crate) fn delay_group_leader(&self, t: TaskIx) -> bool {
        self.is_leader(t) && !self.group_empty(self.tasks[t].group)
    }

    /// The thread group's real parent thread (`real_parent` of the task),
    /// `None` when it has none (init).
    #[inline(always)]
    pub(crate) fn real_parent(&self, t: TaskIx) -> Option<TaskIx> {
        self.groups[self.tasks[t].group].real_parent
    }

    /// `parent`: the tracer if traced, else the real parent.
    #[inline(always)]
    pub(crate) fn ptrace_parent(&self, t: TaskIx) -> Option<TaskIx> {
        let task = &self.tasks[t];
        if task.ptrace != 0 {
            task.parent
        } else {
            self.real_parent(t)
        }
    }

    /// The tracer of traced task `t` (`parent` while `ptrace != 0`).
    pub(crate) fn tracer_of(&self, t: TaskIx) -> TaskIx {
        self.tasks[t].parent.expect("a traced task has a tracer")
    }

    /// Both tasks exist and are threads of one group.
    pub(crate) fn same_group(&self, a: Option<TaskIx>, b: Option<TaskIx>) -> bool {
        match (a, b) {
            (Some(a), Some(b)) => self.tasks[a].group == self.tasks[b].group,
            _ => false,
        }
    }

    /// `ptrace_reparented()`: traced by a thread outside the real parent's
    /// group.
    #[inline(always)]
    pub(crate) fn ptrace_reparented(&self, t: TaskIx) -> bool {
        self.tasks[t].ptrace != 0 && !self.same_group(self.real_parent(t), self.tasks[t].parent)
    }

    /// Allocates a `struct pid` with a number at every level from `ns` up to
    /// the root, and registers it. With `new_ns_init`, `ns` is a namespace
    /// being created and gets number 1. A `set_tid` number needs `caller`'s
    /// credentials to hold `CAP_SYS_ADMIN` or `CAP_CHECKPOINT_RESTORE` over
    /// the owner of that level's namespace (`None`: the core's own
    /// allocation, no `set_tid`). Nothing changes on error.
    ///
    /// # Errors
    /// `EAGAIN` when a level is full; `EINVAL`/`EEXIST` for bad `set_tid`
    /// (see [`PidNamespace::peek_nr`]); `EPERM` for a `set_tid` number the
    /// caller may not ask for (after that level's `EINVAL`, before its
    /// `EEXIST`); `ENOMEM` if `ns`'s init has exited.
    ///
    /// # Linux
    /// `alloc_pid()` (kernel/pid.c). Divergence: Linux advances the cursors
    /// of the levels it allocated before failing; we leave them untouched.
    pub(crate) fn alloc_pid(
        &mut self,
        ns: NsIx,
        set_tid: &[i32],
        new_ns_init: bool,
        tgid: bool,
        caller: Option<&crate::task::state::cred_struct::Cred>,
    ) -> Result<PidIx> {
        let n = &self.nss[ns];
        let (level, adding) = (n.level, n.adding);
        if level == 0 && set_tid.is_empty() && !new_ns_init && adding {
            // The common case: one number, found and stored in one walk
            // of the radix tree.
            return self.alloc_pid_cyclic(ns, tgid);
        }
        if set_tid.len() > level + 1 {
            return Err(Errno::EINVAL);
        }
        // On the stack: a fork must not pay two heap round trips for its
        // numbers (the common single-level pid is stored inline).
        let mut buf = [Upid { ns, nr: 0 }; crate::uapi::MAX_PID_NS_LEVEL + 1];
        let numbers = &mut buf[..=level];
        let mut cur = ns;
        for l in (0..=level).rev() {
            let tid = set_tid.get(level - l).copied();
            let nr = if new_ns_init && l == level {
                match tid {
                    Some(t) if t != 1 => Err(Errno::EINVAL),
                    _ => Ok(1),
                }
            } else {
                self.nss[cur].peek_nr(tid)
            };
            // checkpoint_restore_ns_capable(), after the number's EINVAL
            // checks and before idr_alloc()'s EEXIST.
            if tid.is_some() && nr != Err(Errno::EINVAL) && !self.may_set_tid(caller, cur) {
                return Err(Errno::EPERM);
            }
            let nr = nr?;
            numbers[l] = Upid { ns: cur, nr };
            if let Some(parent) = self.nss[cur].parent {
                cur = parent;
            }
        }
        self.register_pid(ns, numbers, set_tid, tgid)
    }

    /// `checkpoint_restore_ns_capable(ns->user_ns)` for credentials
    /// `caller`: `CAP_SYS_ADMIN` or `CAP_CHECKPOINT_RESTORE` over the
    /// owner of pid namespace `ns`.
    fn may_set_tid(
        &self,
        caller: Option<&crate::task::state::cred_struct::Cred>,
        ns: NsIx,
    ) -> bool {
        use crate::task::state::capability::{CAP_CHECKPOINT_RESTORE, CAP_SYS_ADMIN};
        let Some(c) = caller else { return true };
        let owner = self.nss[ns].user_ns;
        self.ns_capable_cred(c, owner, CAP_SYS_ADMIN)
            || self.ns_capable_cred(c, owner, CAP_CHECKPOINT_RESTORE)
    }

    /// [`Kernel::alloc_pid`] of one number by cyclic allocation in the
    /// root-level namespace `ns`, which takes new pids (`adding`): the
    /// slot of the `struct pid` is known before the number, so the number
    /// is looked for and stored in one radix-tree walk
    /// ([`PidNamespace::alloc_cyclic`]) and the entry is built after.
    ///
    /// # Errors
    /// `EAGAIN` when every number is taken (or the pid slab is full);
    /// nothing changes then.
    #[inline(always)]
    fn alloc_pid_cyclic(&mut self, ns: NsIx, tgid: bool) -> Result<PidIx> {
        let idx = self.pids.vacant_key().ok_or(Errno::EAGAIN)?;
        let tags = if tgid { 1 << TAG_TGID } else { 0 };
        let n = &mut self.nss[ns];
        let nr = n.alloc_cyclic(idx.idr_value(), tags).ok_or(Errno::EAGAIN)?;
        // A pid holds its namespace (alloc_pid's get_pid_ns), here with
        // the namespace at hand.
        n.refs += 1;
        let got = self
            .pids
            .insert_with(|| Pid::new(Numbers::one(Upid { ns, nr })));
        debug_assert_eq!(got, Some(idx), "the pid slab's vacant slot is used");
        Ok(idx)
    }

    /// `alloc_pid()`'s second half: stores a `struct pid` with `numbers`
    /// (found free by `peek_nr`, innermost level last) and registers each
    /// number in its namespace, tagged TGID with `tgid`.
    fn register_pid(
        &mut self,
        ns: NsIx,
        numbers: &[Upid],
        set_tid: &[i32],
        tgid: bool,
    ) -> Result<PidIx> {
        let level = numbers.len() - 1;
        if !self.nss[ns].adding {
            // A fork into a namespace whose init has exited (PIDNS_ADDING
            // cleared) fails with ENOMEM.
            return Err(Errno::ENOMEM);
        }
        let last = *numbers.last().expect("a pid has at least one number");
        let idx = self
            .pids
            .insert_with(|| Pid::new(Numbers::one(last)))
            .ok_or(Errno::EAGAIN)?;
        if level > 0 {
            self.pid_levels.insert(idx, numbers.into());
        }
        // A pid holds its namespace (alloc_pid's get_pid_ns).
        self.get_ns(ns);
        let tags = if tgid { 1 << TAG_TGID } else { 0 };
        for (l, u) in numbers.iter().enumerate() {
            let ns = &mut self.nss[u.ns];
            ns.idr
                .insert_tagged(u.nr, idx.idr_value(), tags)
                .expect("number found free by peek_nr");
            // Only idr_alloc_cyclic() moves the cursor: a set_tid number is
            // taken with idr_alloc(), which leaves it alone.
            if set_tid.get(level - l).is_none() {
                ns.cursor = u.nr + 1;
            }
        }
        Ok(idx)
    }

    /// Frees `pid`'s numbers if nothing uses it any more (`put_pid` +
    /// `free_pid`); true if it did (their tags went with them). Inline at
    /// each caller: a call here cost ~20 instructions per lifecycle.
    #[inline(always)]
    pub(crate) fn put_pid(&mut self, pid: PidIx) -> bool {
        if self.pid_freed(pid) {
            return false;
        }
        let p = &self.pids[pid];
        if !p.unused() {
            return false;
        }
        let (refs, owner) = (p.refs, p.numbers.last());
        if refs == 0 {
            // The common case: one number (a root-level namespace's), no
            // external reference, in a namespace that others hold too and
            // whose init is not waiting for it to empty: the number and
            // the namespace's reference dropped with the namespace looked
            // up once.
            let n = &mut self.nss[owner.ns];
            if n.level == 0 && n.zap_waiter.is_none() && n.refs > 1 {
                n.idr.remove(owner.nr);
                n.refs -= 1;
                self.pids.delete(pid);
                crate::pid::refs::bump_gen(&mut self.ext.pid_gens, pid.idr_value());
                return true;
            }
        }
        self.put_pid_slow(pid, refs, owner);
        true
    }

    /// [`Self::put_pid`] of an unused pid outside its common case (a
    /// nested namespace's, one with external references, the last pid of
    /// its namespace or of one whose init waits for it to empty), whose
    /// deepest number is `owner`: out of line.
    #[inline(never)]
    fn put_pid_slow(&mut self, pid: PidIx, refs: u32, owner: Upid) {
        if self.nss[owner.ns].level == 0 {
            // The common case: one number, no copy of the list.
            self.free_pid_nr(owner);
        } else {
            let numbers = self.pid_numbers(pid).to_vec();
            for u in numbers {
                self.free_pid_nr(u);
            }
        }
        // External references (pidfds) keep the entry, numberless.
        if refs > 0 {
            self.freed_pids.insert(pid);
        } else {
            self.free_pid_entry(pid, owner.ns);
        }
    }

    /// `free_pid()` of one number: out of its namespace's idr, and when
    /// all that is left in the namespace is its exiting init, that init is
    /// woken up (`zap_pid_ns_processes()` waits).
    #[inline(always)]
    fn free_pid_nr(&mut self, u: Upid) {
        let ns = &mut self.nss[u.ns];
        ns.idr.remove(u.nr);
        if let Some((w, group_dead)) = ns.zap_waiter {
            let init_pids = if self.is_leader(w) { 1 } else { 2 };
            if self.nss[u.ns].idr.len() <= init_pids {
                self.nss[u.ns].zap_waiter = None;
                self.deferred.push_back(Deferred {
                    task: w,
                    gen: self.gens[w.slot()],
                    what: Deferral::ResumeExit { group_dead },
                });
            }
        }
    }

    /// Sets or clears the TGID tag on every number of `pid`.
    #[inline(never)]
    pub(crate) fn set_tgid_tag(&mut self, pid: PidIx, on: bool) {
        let n = self.pid_numbers(pid).len();
        for level in 0..n {
            let u = self.pid_numbers(pid)[level];
            let idr = &mut self.nss[u.ns].idr;
            let r = if on {
                idr.set_tag(u.nr, TAG_TGID)
            } else {
                idr.clear_tag(u.nr, TAG_TGID)
            };
            debug_assert!(r.is_ok());
        }
    }

    // ------------------------------------------------------------ creation

    pub(crate) fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Stores a new task using `pid` (attached as its PIDTYPE_PID).
    /// Inline in `copy_process` (and the boot's init): the call cost ~35
    /// instructions per fork.
    #[inline(always)]
    pub(crate) fn new_task(
        &mut self,
        pid: PidIx,
        group: GroupIx,
        comm: [u8; TASK_COMM_LEN],
        cred: std::sync::Arc<crate::task::state::cred_struct::Cred>,
    ) -> Result<TaskIx> {
        let now = self.now;
        let t = self
            .tasks
            .insert_with(|| Task {
                pid,
                group,
                parent: None,
                children: ListHead::EMPTY,
                ptrace_entry: Link::UNLINKED,
                thread_node: Link::UNLINKED,
                thread_seq: 0,
                exit_code: 0,
                trap_code: Ready::initial(0),
                wait_state: Ready::initial(crate::task::task_struct::WaitState::ALIVE),
                ptrace: 0,
                flags: PF_FORKNOEXEC,
                ptrace_reg: UNREGISTERED,
                self_exec_id: 0,
                comm,
                cred,
                nsproxy: crate::task::state::nsproxy_struct::NsProxy::NONE,
                pdeath_signal: 0,
                start_time: now,
                pending: Default::default(),
                blocked: 0,
                mm: crate::task::state::mm_entry::TaskMm::GONE,
                jobctl: 0,
                ptrace_opts: 0,
                trap_kind: 0,
            })
            .ok_or(Errno::EAGAIN)?;
        self.get_user_ns(self.tasks[t].cred.user_ns.0);
        if self.gens.len() <= t.slot() {
            self.gens.resize(t.slot() + 1, 0);
        }
        self.pids[pid].task = Some(t);
        Ok(t)
    }

    /// Deletes task `t`'s slab entry and moves its slot's generation on,
    /// the one place a task slot is freed (`release_task`, and a clone
    /// that fails after making its task): [`Self::task_entry`] tests the
    /// generation alone, so every delete must bump it, or a stale handle
    /// would name the slot's next task.
    #[inline(always)]
    pub(crate) fn free_task_slot(&mut self, t: TaskIx) {
        let deleted = self.tasks.delete(t);
        debug_assert!(deleted, "a task slot is freed once");
        self.gens[t.slot()] = self.gens[t.slot()].wrapping_add(1);
    }

    /// Stores a new thread group whose one thread is `leader`, built
    /// whole where it is stored (see [`ThreadGroup::new`]); the leader's
    /// `group` is set to it.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn new_group(
        &mut self,
        leader: TaskIx,
        pgrp: PidIx,
        session: PidIx,
        sighand: SharedSigHand,
        rlim: crate::task::state::rlimit::Rlimits,
        exit_signal: i32,
        parent_exec_id: u32,
    ) -> Result<GroupIx> {
        debug_assert_eq!(self.tasks[leader].thread_seq, 0);
        debug_assert_eq!(self.tasks[leader].thread_node, Link::UNLINKED);
        let g = self
            .groups
            .insert_with(|| {
                ThreadGroup::new(
                    leader,
                    pgrp,
                    session,
                    sighand,
                    rlim,
                    exit_signal,
                    parent_exec_id,
                )
            })
            .ok_or(Errno::EAGAIN)?;
        let task = &mut self.tasks[leader];
        // The provisional group a new task is made with is the slot the
        // group takes: most often nothing to write.
        if task.group != g {
            task.group = g;
        }
        Ok(g)
    }

    /// Appends `t` to group `g`'s thread list (`list_add_tail_rcu` on
    /// `thread_head`).
    #[inline(always)]
    pub(crate) fn join_thread_list(&mut self, g: GroupIx, t: TaskIx) {
        let grp = &mut self.groups[g];
        let seq = grp.next_thread_seq;
        grp.next_thread_seq += 1;
        grp.nr_threads += 1;
        grp.live += 1;
        let mut head = grp.threads;
        self.tasks[t].thread_seq = seq;
        list::push_back(&mut head, &mut self.tasks, t, |t| &mut t.thread_node);
        self.groups[g].threads = head;
    }

    /// Attaches new process `g`'s TGID (its leader's pid `leader_pid`),
    /// PGID `pgrp` and SID `session`, those it was made with
    /// (`attach_pid` x 3). The leader's pid numbers carry the TGID tag
    /// already: `alloc_pid` with `tgid` set it as it inserted them. A new
    /// process is not group-stopped: no stopped member is counted.
    #[inline(always)]
    pub(crate) fn attach_process_pids(
        &mut self,
        g: GroupIx,
        leader_pid: PidIx,
        pgrp: PidIx,
        session: PidIx,
    ) {
        debug_assert_eq!(self.tasks[self.groups[g].leader].pid, leader_pid);
        debug_assert_eq!(
            (self.groups[g].pgrp, self.groups[g].session),
            (pgrp, session)
        );
        debug_assert!(!self.groups[g].flags.get().contains(SIGNAL_STOP_STOPPED));
        self.pids[leader_pid].tgid_group = Some(g);
        debug_assert!({
            let u = self.pids[leader_pid].numbers.last();
            self.nss[u.ns].idr.get_tag(u.nr, TAG_TGID)
        });
        let mut head = self.pids[pgrp].pgrp_members;
        list::push_back(&mut head, &mut self.groups, g, |g| &mut g.pgrp_node);
        self.pids[pgrp].pgrp_members = head;
        self.pids[session].session_members += 1;
    }

    #[inline(always)]
    pub(crate) fn attach_pgrp(&mut self, g: GroupIx, pgrp: PidIx) {
        self.groups[g].pgrp = pgrp;
        let mut head = self.pids[pgrp].pgrp_members;
        list::push_back(&mut head, &mut self.groups, g, |g| &mut g.pgrp_node);
        self.pids[pgrp].pgrp_members = head;
        if self.groups[g].flags.get().contains(SIGNAL_STOP_STOPPED) {
            self.pgrp_count_stopped(pgrp, true);
        }
    }

    /// How many members of process group `pgrp` are group-stopped: one
    /// length test while no process group has one.
    #[inline(always)]
    pub(crate) fn pgrp_nr_stopped(&self, pgrp: PidIx) -> u32 {
        if self.pgrp_stopped.is_empty() {
            return 0;
        }
        self.pgrp_stopped.get(&pgrp).copied().unwrap_or(0)
    }

    /// One more (`up`) or one fewer group-stopped member of `pgrp`.
    pub(crate) fn pgrp_count_stopped(&mut self, pgrp: PidIx, up: bool) {
        if up {
            *self.pgrp_stopped.entry(pgrp).or_insert(0) += 1;
        } else if let Some(n) = self.pgrp_stopped.get_mut(&pgrp) {
            *n -= 1;
            if *n == 0 {
                self.pgrp_stopped.remove(&pgrp);
            }
        }
    }

    /// Whether `struct pid` `pid` lost its numbers and is kept by external
    /// references alone: one length test while none is.
    #[inline(always)]
    pub(crate) fn pid_freed(&self, pid: PidIx) -> bool {
        !self.freed_pids.is_empty() && self.freed_pids.contains(&pid)
    }

    /// Unlinks group `g` from its process group; the caller puts the pid.
    #[inline(always)]
    pub(crate) fn detach_pgrp(&mut self, g: GroupIx) -> PidIx {
        let pgrp = self.groups[g].pgrp;
        let mut head = self.pids[pgrp].pgrp_members;
        list::unlink(&mut head, &mut self.groups, g, |g| &mut g.pgrp_node);
        self.pids[pgrp].pgrp_members = head;
        if self.groups[g].flags.get().contains(SIGNAL_STOP_STOPPED) {
            self.pgrp_count_stopped(pgrp, false);
        }
        pgrp
    }

    #[inline(always)]
    pub(crate) fn detach_session(&mut self, g: GroupIx) -> PidIx {
        let session = self.groups[g].session;
        self.pids[session].session_members -= 1;
        session
    }

    /// What the release of the leader of group `g` (whose pid is
    /// `leader_pid`), the last of its threads, unlinks, with the group
    /// read once, in this order: its child edge leaves the wait index (as
    /// [`Self::unindex_child`]), the group its parent's children (as
    /// [`Self::unlink_child`]), then its TGID, its process group and its
    /// session are detached and those no longer used freed (the leader's
    /// TGID tag is the caller's to clear: gone with the numbers when
    /// `put_pid` frees them, else by [`Kernel::set_tgid_tag`]).
    #[inline(always)]
    pub(crate) fn unlink_released_group(&mut self, g: GroupIx, leader_pid: PidIx) {
        debug_assert_eq!(self.tasks[self.groups[g].leader].pid, leader_pid);
        let grp = &self.groups[g];
        let (parent, seq, reg, pgrp, session, stopped) = (
            grp.real_parent,
            grp.sibling_seq,
            grp.child_reg,
            grp.pgrp,
            grp.session,
            grp.flags.get().contains(SIGNAL_STOP_STOPPED),
        );
        if let Some(parent) = parent {
            if let Some(o) = EdgeState::decode(reg) {
                let pos = self.edge_pos_in(parent, 0, seq, pgrp);
                debug_assert_eq!(Some(pos), self.child_edge_pos(g));
                self.wait_index.remove(&pos, o);
            }
            let mut head = self.tasks[parent].children;
            list::unlink(&mut head, &mut self.groups, g, |g| &mut g.sibling);
            self.tasks[parent].children = head;
            let grp = &mut self.groups[g];
            grp.real_parent = None;
            grp.child_reg = UNREGISTERED;
        } else {
            debug_assert_eq!(reg, UNREGISTERED, "a registered edge has a parent");
        }
        self.pids[leader_pid].tgid_group = None;
        let mut head = self.pids[pgrp].pgrp_members;
        list::unlink(&mut head, &mut self.groups, g, |g| &mut g.pgrp_node);
        self.pids[pgrp].pgrp_members = head;
        if stopped {
            self.pgrp_count_stopped(pgrp, false);
        }
        self.pids[session].session_members -= 1;
        // Most often both are still used (other members): tested here,
        // without a call to put_pid, which would find the same.
        let kept = |k: &Kernel, p: PidIx| !k.pids[p].unused() || k.pid_freed(p);
        if !kept(self, pgrp) {
            self.put_pid(pgrp);
        }
        // A process group numbered like its session is one struct pid:
        // the first put may already have freed it.
        if session != pgrp && !kept(self, session) {
            self.put_pid(session);
        }
    }

    /// Appends group `g` to thread `parent`'s children with a fresh position.
    #[inline(always)]
    pub(crate) fn link_child(&mut self, parent: TaskIx, g: GroupIx) {
        let seq = self.next_seq();
        let grp = &mut self.groups[g];
        grp.real_parent = Some(parent);
        grp.sibling_seq = seq;
        let mut head = self.tasks[parent].children;
        list::push_back(&mut head, &mut self.groups, g, |g| &mut g.sibling);
        self.tasks[parent].children = head;
    }

    #[inline(always)]
    pub(crate) fn unlink_child(&mut self, g: GroupIx) {
        let Some(parent) = self.groups[g].real_parent else {
            return;
        };
        let mut head = self.tasks[parent].children;
        list::unlink(&mut head, &mut self.groups, g, |g| &mut g.sibling);
        self.tasks[parent].children = head;
        self.groups[g].real_parent = None;
    }

    pub(crate) fn notify(&mut self, n: Notification) {
        self.notes.push(n);
    }

    /// `__wake_up_parent`: wake the waiters of `parent`'s thread group.
    pub(crate) fn wake_parent(&mut self, parent: TaskIx) {
        let g = self.tasks[parent].group;
        let group = self.handle_unchecked(self.groups[g].leader);
        self.wake_chldexit(g, group);
    }

    /// [`Self::wake_parent`] of a thread of group `g`, whose leader's
    /// handle is `group`.
    #[inline(always)]
    pub(crate) fn wake_chldexit(&mut self, g: GroupIx, group: TaskId) {
        let grp = &mut self.groups[g];
        grp.chld_events = grp.chld_events.wrapping_add(1);
        self.notify(Notification::WakeChldexit { group });
    }

    // ------------------------------------------------------------ wait index

    #[inline(always)]
    fn edge_pos(&self, waiter: TaskIx, list: u8, seq: u64, target_group: GroupIx) -> EdgePos {
        self.edge_pos_in(waiter, list, seq, self.groups[target_group].pgrp)
    }

    /// [`Self::edge_pos`] of a target in process group `pgrp`.
    #[inline(always)]
    fn edge_pos_in(&self, waiter: TaskIx, list: u8, seq: u64, pgrp: PidIx) -> EdgePos {
        let w = &self.tasks[waiter];
        EdgePos {
            waiter,
            group: w.group,
            thread_seq: w.thread_seq,
            list,
            seq,
            pgrp,
            by_pgrp: self.groups[w.group].wait_by_pgrp,
            by_thread: w
                .flags
                .contains(crate::task::task_struct::TaskFlags::WAIT_COUNTED),
        }
    }

    /// Re-registers every edge whose waiter is a thread of group `g` (or,
    /// with `only`, that one thread) after `change` alters what those edges
    /// are indexed under. O(children + tracees of the waiter), once.
    pub(crate) fn reindex_waiter(
        &mut self,
        g: GroupIx,
        only: Option<TaskIx>,
        change: impl FnOnce(&mut Kernel),
    ) {
        let waiters: Vec<TaskIx> = match only {
            Some(t) => vec![t],
            None => self.threads(g),
        };
        let mut kids = Vec::new();
        let mut tracees = Vec::new();
        for &w in &waiters {
            kids.extend(list::collect(self.tasks[w].children, &self.groups, |g| {
                &g.sibling
            }));
            tracees.extend(list::collect(self.side.ptraced(w), &self.tasks, |t| {
                &t.ptrace_entry
            }));
        }
        for &c in &kids {
            self.unindex_child(c);
        }
        for &t in &tracees {
            self.unindex_ptrace(t);
        }
        change(self);
        for &c in &kids {
            self.sync_child(c);
        }
        for &t in &tracees {
            self.sync_ptrace(t);
        }
    }

    #[inline(always)]
    pub(crate) fn child_edge_pos(&self, g: GroupIx) -> Option<EdgePos> {
        let grp = &self.groups[g];
        grp.real_parent
            .map(|p| self.edge_pos(p, 0, grp.sibling_seq, g))
    }

    pub(crate) fn ptrace_edge_pos(&self, t: TaskIx) -> Option<EdgePos> {
        let task = &self.tasks[t];
        (task.ptrace != 0).then(|| {
            let tracer = task.parent.expect("a traced task has a tracer");
            self.edge_pos(tracer, 1, self.side.ptrace_seq(t), task.group)
        })
    }

    /// What `wait_consider_task(wo, ptrace_edge, t)` would see, as an edge
    /// state of class `class`.
    #[inline(always)]
    pub(crate) fn edge_state(&self, t: TaskIx, ptrace_edge: bool, class: Class) -> EdgeState {
        let task = &self.tasks[t];
        let grp = &self.groups[task.group];
        // A child traced by its real parent's own group is seen with ptrace
        // semantics from the children list too.
        let ptrace = ptrace_edge || (task.ptrace != 0 && !self.ptrace_reparented(t));
        let cat = if task.exit_state() == ExitState::Zombie {
            // delay_group_leader(), on the group already at hand.
            let delay = grp.leader == t && grp.nr_threads != 1;
            debug_assert_eq!(delay, self.delay_group_leader(t));
            if !delay && (ptrace || task.ptrace == 0) {
                return EdgeState {
                    class,
                    cat: Cat::ZombieReap,
                    ready: READY_EXIT,
                };
            }
            if ptrace {
                Cat::ZombieOtherPtrace
            } else {
                Cat::ZombieOther
            }
        } else {
            Cat::Alive
        };
        let mut ready = 0;
        if ptrace {
            // task_stopped_code(): a listening tracee (PTRACE_LISTEN) has
            // nothing to report, even a stop not reported yet.
            if task.traced_stop()
                && task.trap_code.get() != 0
                && task.jobctl & crate::task::state::jobctl_flags::JOBCTL_LISTENING == 0
            {
                ready |= READY_TRAP;
            }
        } else if grp.flags.get().contains(SIGNAL_STOP_STOPPED) && grp.group_exit_code.get() != 0 {
            ready |= READY_STOP;
        }
        if grp.flags.get().contains(SIGNAL_STOP_CONTINUED) {
            ready |= READY_CONT;
        }
        EdgeState { class, cat, ready }
    }

    pub(crate) fn child_class(&self, g: GroupIx) -> Class {
        if self.groups[g].exit_signal.get() == SIGCHLD {
            Class::Normal
        } else {
            Class::Clone
        }
    }

    /// The state of the child edge of group `grp` (its leader's, as
    /// [`Self::edge_state`] of the leader with the class
    /// [`Self::child_class`] gives), the group at hand: an untraced
    /// leader's read from the group and the leader alone.
    #[inline(always)]
    fn child_edge_state(&self, grp: &ThreadGroup) -> EdgeState {
        let t = grp.leader;
        let task = &self.tasks[t];
        let class = if grp.exit_signal.get() == SIGCHLD {
            Class::Normal
        } else {
            Class::Clone
        };
        if task.ptrace != 0 {
            return self.edge_state(t, false, class);
        }
        // Untraced: seen without ptrace semantics; a zombie leader is
        // reapable unless other threads remain (delay_group_leader()).
        let cat = if task.exit_state() == ExitState::Zombie {
            if grp.nr_threads == 1 {
                return EdgeState {
                    class,
                    cat: Cat::ZombieReap,
                    ready: READY_EXIT,
                };
            }
            Cat::ZombieOther
        } else {
            Cat::Alive
        };
        let flags = grp.flags.get();
        let mut ready = 0;
        if flags.contains(SIGNAL_STOP_STOPPED) && grp.group_exit_code.get() != 0 {
            ready |= READY_STOP;
        }
        if flags.contains(SIGNAL_STOP_CONTINUED) {
            ready |= READY_CONT;
        }
        EdgeState { class, cat, ready }
    }

    /// Brings group `g`'s child edge up to date in the wait index. The
    /// edge's position must not have changed since it was registered (use
    /// [`Self::unindex_child`] before changing it). The state is computed
    /// first: an edge already registered in it costs no position.
    #[inline(always)]
    pub(crate) fn sync_child(&mut self, g: GroupIx) {
        let grp = &self.groups[g];
        let Some(parent) = grp.real_parent else {
            debug_assert_eq!(grp.child_reg, UNREGISTERED);
            return;
        };
        let new = self.child_edge_state(grp);
        debug_assert_eq!(new, self.edge_state(grp.leader, false, self.child_class(g)));
        self.register_child_state(g, parent, new);
    }

    /// Registers group `g`'s child edge (real parent `parent`) in state
    /// `new`, which must be what [`Self::child_edge_state`] computes now:
    /// the second half of [`Self::sync_child`], for a caller that knows
    /// the state without computing it. An edge already registered in it
    /// costs no position.
    #[inline(always)]
    pub(crate) fn register_child_state(&mut self, g: GroupIx, parent: TaskIx, new: EdgeState) {
        let grp = &self.groups[g];
        debug_assert_eq!(grp.real_parent, Some(parent));
        debug_assert_eq!(new, self.child_edge_state(grp));
        // Compared as registration bytes: one byte compare.
        let reg = new.encode();
        let old = grp.child_reg;
        if old == reg {
            return;
        }
        let (leader, seq, pgrp) = (grp.leader, grp.sibling_seq, grp.pgrp);
        let pos = self.edge_pos_in(parent, 0, seq, pgrp);
        debug_assert_eq!(Some(pos), self.child_edge_pos(g));
        match EdgeState::decode(old) {
            Some(o) => self.wait_index.update(&pos, o, new, leader),
            None => self.wait_index.add(&pos, new, leader),
        }
        self.groups[g].child_reg = reg;
    }

    /// Links new process `g` (leader `leader`, in process group `pgrp`,
    /// exit signal `exit_signal`) into thread `parent`'s children with a
    /// fresh position, as [`Self::link_child`], and registers its child
    /// edge in the state every new process starts in: alive, with nothing
    /// to report (not traced yet, no group stop, no continue), of the class
    /// its exit signal gives. What [`Self::link_child`] then
    /// [`Self::sync_child`] would do, with the edge's position built from
    /// what is at hand instead of read back, and without computing
    /// [`Self::edge_state`].
    #[inline(always)]
    pub(crate) fn link_new_child(
        &mut self,
        parent: TaskIx,
        g: GroupIx,
        leader: TaskIx,
        pgrp: PidIx,
        exit_signal: i32,
    ) {
        debug_assert_eq!(self.groups[g].child_reg, UNREGISTERED);
        let seq = self.next_seq();
        let p = &self.tasks[parent];
        let (waiter_group, thread_seq, by_thread, mut head) = (
            p.group,
            p.thread_seq,
            p.flags
                .contains(crate::task::task_struct::TaskFlags::WAIT_COUNTED),
            p.children,
        );
        let grp = &mut self.groups[g];
        grp.real_parent = Some(parent);
        grp.sibling_seq = seq;
        list::push_back(&mut head, &mut self.groups, g, |g| &mut g.sibling);
        self.tasks[parent].children = head;
        let new = EdgeState {
            class: if exit_signal == SIGCHLD {
                Class::Normal
            } else {
                Class::Clone
            },
            cat: Cat::Alive,
            ready: 0,
        };
        let pos = EdgePos {
            waiter: parent,
            group: waiter_group,
            thread_seq,
            list: 0,
            seq,
            pgrp,
            by_pgrp: self.groups[waiter_group].wait_by_pgrp,
            by_thread,
        };
        debug_assert_eq!(Some(pos), self.child_edge_pos(g));
        debug_assert_eq!(new.class, self.child_class(g));
        debug_assert_eq!(new, self.edge_state(leader, false, new.class));
        self.wait_index.add(&pos, new, leader);
        self.groups[g].child_reg = new.encode();
    }

    /// Removes group `g`'s child edge from the wait index.
    #[inline(always)]
    pub(crate) fn unindex_child(&mut self, g: GroupIx) {
        if let Some(o) = EdgeState::decode(self.groups[g].child_reg) {
            let pos = self
                .child_edge_pos(g)
                .expect("registered edge has a parent");
            self.wait_index.remove(&pos, o);
            self.groups[g].child_reg = UNREGISTERED;
        }
    }

    /// Brings task `t`'s ptrace edge up to date in the wait index.
    pub(crate) fn sync_ptrace(&mut self, t: TaskIx) {
        let Some(pos) = self.ptrace_edge_pos(t) else {
            debug_assert_eq!(self.tasks[t].ptrace_reg, UNREGISTERED);
            return;
        };
        let new = self.edge_state(t, true, Class::Ptrace);
        let reg = new.encode();
        if self.tasks[t].ptrace_reg == reg {
            return;
        }
        match EdgeState::decode(self.tasks[t].ptrace_reg) {
            Some(o) => self.wait_index.update(&pos, o, new, t),
            None => self.wait_index.add(&pos, new, t),
        }
        self.tasks[t].ptrace_reg = reg;
    }

    /// Removes task `t`'s ptrace edge from the wait index.
    pub(crate) fn unindex_ptrace(&mut self, t: TaskIx) {
        if let Some(o) = EdgeState::decode(self.tasks[t].ptrace_reg) {
            let pos = self.ptrace_edge_pos(t).expect("registered edge is traced");
            self.wait_index.remove(&pos, o);
            self.tasks[t].ptrace_reg = UNREGISTERED;
        }
    }

    /// Syncs both edges that lead to task `t`.
    #[inline(always)]
    pub(crate) fn sync_task(&mut self, t: TaskIx) {
        let task = &self.tasks[t];
        let (traced, g) = (task.ptrace != 0, task.group);
        if traced {
            self.sync_ptrace(t);
        }
        if self.groups[g].leader == t {
            self.sync_child(g);
        }
    }

    /// Syncs every edge whose state depends on group `g`'s state: its child
    /// edge and the ptrace edges of its traced threads.
    pub(crate) fn sync_group(&mut self, g: GroupIx) {
        self.sync_child(g);
        if self.groups[g].nr_traced > 0 {
            for t in self.threads(g) {
                if self.tasks[t].ptrace != 0 {
                    self.sync_ptrace(t);
                }
            }
        }
    }

    /// Removes every edge that depends on group `g`'s position keys (its
    /// child edge and the ptrace edges of its traced threads).
    pub(crate) fn unindex_group(&mut self, g: GroupIx) {
        self.unindex_child(g);
        if self.groups[g].nr_traced > 0 {
            for t in self.threads(g) {
                self.unindex_ptrace(t);
            }
        }
    }

    /// The threads of group `g` in list order.
    pub(crate) fn threads(&self, g: GroupIx) -> Vec<TaskIx> {
        list::collect(self.groups[g].threads, &self.tasks, |t| &t.thread_node)
    }
}
