//! taskcore-model: a plain, obviously-correct reference model of the process
//! table, written from Linux's source independently of `taskcore`'s indexed
//! implementation, for property tests and as the "old algorithm" baseline of
//! benchmarks.
//!
//! [`Model`] has the same syscall-shaped API as [`taskcore::Kernel`] (same
//! method names, argument and return types, reusing `taskcore`'s [`Errno`],
//! [`WaitOutcome`], [`WaitReport`], [`SigInfo`], [`CloneArgs`], [`SigAction`]
//! and [`SigHandler`]), but its own task handle, [`Tid`]: the task's index in
//! creation order.
//!
//! # Layout
//! ```text
//! Model
//!  tasks:   Vec<Option<Task>>       index = Tid (creation order), None once released
//!            Task { pid, group_leader, signal, real_parent, parent,
//!                   children: Vec<Tid> (fork order), ptraced: Vec<Tid> (newest first),
//!                   exit_state, exit_code, exit_signal, ptrace, ... }
//!  signals: Vec<Option<Signal>>     one per thread group (signal_struct + sighand)
//!            Signal { threads: Vec<Tid> (thread list order), live, flags,
//!                     group_exit_code, pgrp, session, actions[64], pending }
//!  pids:    Vec<Option<PidStruct>>  struct pid: numbers per level + user count
//!  nss:     Vec<Ns>                 pid namespace: BTreeMap nr -> pid, cursor,
//!                                   pid_max, child_reaper, PIDNS_ADDING
//! ```
//! Everything is found by linear scans of these vectors, the way Linux walks
//! its lists: `do_wait` walks the caller's threads (starting at the caller,
//! wrapping, `while_each_thread`), each one's `children` then `ptraced`, and
//! calls a line-by-line port of `wait_consider_task` (pre-5.13 structure; a
//! wait for one pid uses the 5.13 `do_wait_pid` lookup unless
//! [`ModelOptions::wait_scan_only`] is set). Process-group members are found
//! by scanning all thread groups; pid numbers are allocated by scanning the
//! namespace's `BTreeMap` from the cursor (`idr_alloc_cyclic`).
//!
//! # Modelling choices shared with `taskcore`
//! These are not Linux facts but choices that make results comparable; they
//! are the ones `taskcore` documents:
//! - A signal's default action takes effect when it is sent (Linux: when
//!   the target next runs). Kernel-generated signals (SIGCHLD and the exit
//!   signal to a parent, SIGHUP/SIGCONT to an orphaned process group, the
//!   tracer's SIGCHLD for a ptrace stop, the parent-death signal of
//!   `PR_SET_PDEATHSIG`) are queued and delivered, in order, when the
//!   public operation ends. Signals carry no siginfo here.
//! - `exit_group`: the caller exits first, then the other threads in thread
//!   list order; a fatal signal makes the threads exit in thread order.
//!   Killed processes act in process-group order (pgrp) or pid order
//!   (`kill(-1)`); in Linux they die asynchronously, so no order is defined.
//! - ptrace stops come in Linux's kinds, each reported to the tracer as
//!   `CLD_TRAPPED`, status `code << 8 | 0x7f`: a traced task stops for any
//!   signal but SIGKILL it dequeues (signal-delivery-stop: `PTRACE_CONT`
//!   and `PTRACE_DETACH` deliver their signal by its disposition); traced
//!   threads take part in their group's stop in a group-stop trap
//!   (`do_jobctl_trap`: the restart's signal is ignored; a seized tracee
//!   reports `PTRACE_EVENT_STOP`, as do the attach to a stopped task, the
//!   first stop of a seized `CLONE_PTRACE` child, `PTRACE_INTERRUPT` and
//!   the re-trap a seized tracee owes after SIGCONT); event stops and
//!   syscall stops (below). A tracer's exit does not let a tracee's
//!   unreported stop signal through (Linux does, from `exit_code`).
//! - ptrace options and event stops (module `ptrace_event`): the stops of
//!   `PTRACE_O_TRACEFORK`/`VFORK`/`CLONE`/`EXEC`/`VFORKDONE`/`EXIT`
//!   (restart signal ignored), auto-attach of new children, `EXITKILL`.
//!   When a group dies, the threads traced with `TRACEEXIT` stop in thread
//!   order, the caller of `exit_group` last (Linux: concurrently).
//!   Syscall stops (`PTRACE_SYSCALL`; the caller reports its syscall entry
//!   and exit, [`Model::ptrace_syscall_enter`]; the restart's signal is
//!   sent), `PTRACE_INTERRUPT` and `PTRACE_LISTEN` (a listener is out of
//!   reach of `wait` and the tracer's requests until SIGCONT, a new group
//!   stop or an interrupt makes it re-trap, at once) are modelled;
//!   `PTRACE_O_SUSPEND_SECCOMP` is accepted without its `CAP_SYS_ADMIN`
//!   check. A pending `PTRACE_INTERRUPT` trap is taken over by any ptrace
//!   stop, a SIGCONT's owed re-trap (`JOBCTL_TRAP_NOTIFY`) only by a
//!   `PTRACE_EVENT_STOP` one, as Linux's `ptrace_stop()`.
//! - An exec completes at once even where Linux would wait for traced
//!   zombie threads to be reaped (`de_thread`). A namespace init's exit is
//!   put off until its namespace is empty, as Linux sleeps in
//!   `zap_pid_ns_processes`. No binary is set-id: an exec keeps the ids
//!   but for the saved and fs ones, which take the effective ones.
//! - Handlers do not run; a handled signal only resets an `SA_RESETHAND`
//!   handler. `rt_sigaction` reports only the flags that have an effect
//!   here (see [`Model::rt_sigaction`]). Signal masks are modelled
//!   (module `sigmask`: `rt_sigprocmask`, `rt_sigpending`, a zero-timeout
//!   `rt_sigtimedwait`): a blocked signal stays pending.
//!
//! Everything else is derived from Linux (kernel/exit.c, kernel/fork.c,
//! kernel/signal.c, kernel/sys.c, kernel/ptrace.c, kernel/pid.c,
//! fs/exec.c). Where `taskcore` deliberately or knowingly differs from
//! Linux, [`Compat`] selects `taskcore`'s behaviour; each flag documents the
//! Linux behaviour it replaces.
//!
//! # Complexity
//! O(n) per operation in the number of tasks (scans), O(children) per wait
//! walk step as in pre-5.13 Linux. Not for production use.

/// The repository's README and embedding guide (`docs/embedding.md`):
/// their Rust examples, which use only `taskcore`, compiled and run as
/// doctests. They live in this workspace-only crate because the files sit
/// outside `taskcore`'s package (`cargo package` ships its own copy of the
/// README, not the guide).
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
#[doc = include_str!("../../../docs/embedding.md")]
pub struct GuideExamples;

mod access;
mod clone3;
mod clone_pidfd;
mod cred;
mod exec;
mod exit;
mod fork;
mod nsproxy;
mod objects;
mod pid;
mod pidfd;
mod prctl;
mod ptrace;
pub mod ptrace_event;
mod rlimit;
mod sigmask;
mod signal;
mod sys;
mod wait;

use std::collections::VecDeque;

use taskcore::uapi::{NSIG, PID_MAX_LIMIT, PID_MAX_MIN, SIGCHLD};
pub use taskcore::{
    Clone3Args, CloneArgs, Config, Cred, Errno, Result, Rlimit, SigAction, SigHandler, SigInfo,
    WaitOutcome, WaitReport,
};

use objects::{Ns, PidFdFile, PidStruct};
pub use objects::{NsFile, PidFd};

// The lifecycle API shared with `taskcore::Kernel`: one scenario written
// against `taskcore::sys::TaskApi` drives both.
taskcore::impl_task_api!(Model, Tid, PidFd);

/// A task handle of the model: the task's index in creation order.
///
/// Handles are never reused: once the task is released, every operation
/// given its handle fails with `ESRCH`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Tid(pub usize);

/// Where `taskcore` knowingly differs from Linux: each flag set makes the
/// model follow `taskcore` instead of Linux. [`Compat::linux`] (all false) is
/// the reference behaviour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Compat {
    /// Leave every namespace's allocation cursor untouched when `alloc_pid`
    /// fails. Linux (kernel/pid.c `alloc_pid`) allocates from the deepest
    /// level up with `idr_alloc_cyclic`, which advances each level's cursor,
    /// and frees the numbers on a later failure without restoring cursors.
    /// `taskcore` documents this divergence.
    pub pid_cursor_untouched_on_failure: bool,
    /// Lose a signal no thread can take now (every candidate is in a ptrace
    /// stop or stopped), except a default-fatal one sent to a stopped group,
    /// which kills it when SIGCONT wakes it. Linux (kernel/signal.c
    /// `complete_signal`) leaves every such signal pending, and a thread
    /// dequeues it when it runs again (after SIGCONT, `PTRACE_CONT`,
    /// `PTRACE_DETACH` or its tracer's exit): a traced one then stops for
    /// it again. `taskcore` models no other pending signals.
    pub untakeable_signals_lost: bool,
}

impl Compat {
    /// Pure Linux behaviour.
    pub const fn linux() -> Compat {
        Compat {
            pid_cursor_untouched_on_failure: false,
            untakeable_signals_lost: false,
        }
    }

    /// The divergences `taskcore` documents as deliberate.
    pub const fn taskcore() -> Compat {
        Compat {
            pid_cursor_untouched_on_failure: true,
            untakeable_signals_lost: false,
        }
    }
}

/// Options of a [`Model`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ModelOptions {
    /// Wait for a specific pid by scanning every child and tracee, as Linux
    /// did before 5.13, instead of the 5.13 `do_wait_pid` direct lookup.
    /// Both give the same results.
    pub wait_scan_only: bool,
    /// Which `taskcore` divergences to reproduce.
    pub compat: Compat,
}

/// `exit_state` of a task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ExitState {
    /// Not exited (running, stopped or traced).
    Running,
    /// `EXIT_ZOMBIE`.
    Zombie,
    /// `EXIT_DEAD`: being released (on a `dead` list).
    Dead,
}

/// ptrace state bit: traced (`PT_PTRACED`).
pub(crate) const PT_PTRACED: u8 = 1;
/// ptrace state bit: attached with `PTRACE_SEIZE` (`PT_SEIZED`).
pub(crate) const PT_SEIZED: u8 = 2;

/// `signal->flags`: a job-control stop is in effect.
pub(crate) const SIGNAL_STOP_STOPPED: u32 = 0x01;
/// `signal->flags`: continued since the last `WCONTINUED` report.
pub(crate) const SIGNAL_STOP_CONTINUED: u32 = 0x02;
/// `signal->flags`: the group is exiting.
pub(crate) const SIGNAL_GROUP_EXIT: u32 = 0x04;
/// `signal->flags`: init of a pid namespace.
pub(crate) const SIGNAL_UNKILLABLE: u32 = 0x40;

/// One signal action (`struct k_sigaction`, lifecycle part).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Action {
    pub(crate) handler: SigHandler,
    pub(crate) flags: u64,
}

impl Action {
    const DFL: Action = Action {
        handler: SigHandler::Default,
        flags: 0,
    };
}

/// A task (`struct task_struct`, the fields the lifecycle needs).
#[derive(Clone, Debug)]
pub(crate) struct Task {
    /// Its `struct pid` (`thread_pid`).
    pub(crate) pid: usize,
    pub(crate) group_leader: usize,
    /// Its thread group (`signal`).
    pub(crate) signal: usize,
    /// `real_parent`; `None` only for the root namespace's init.
    pub(crate) real_parent: Option<usize>,
    /// `parent`: the tracer while traced, else `real_parent`.
    pub(crate) parent: Option<usize>,
    /// Group leaders whose `real_parent` is this task, in list order.
    pub(crate) children: Vec<usize>,
    /// Tasks this task traces, newest first (`list_add`).
    pub(crate) ptraced: Vec<usize>,
    pub(crate) ptrace: u8,
    pub(crate) exit_state: ExitState,
    /// Exit status word (`exit_code`).
    pub(crate) exit_code: i32,
    /// Signal for the parent at exit; -1 for a non-leader thread.
    pub(crate) exit_signal: i32,
    /// `PF_EXITING`.
    pub(crate) exiting: bool,
    /// `PF_FORKNOEXEC`.
    pub(crate) forknoexec: bool,
    pub(crate) self_exec_id: u64,
    pub(crate) parent_exec_id: u64,
    /// In a ptrace stop (`TASK_TRACED`).
    pub(crate) traced_stop: bool,
    /// The stop code the tracer has not consumed yet (Linux keeps it in
    /// `exit_code` while traced).
    pub(crate) trap_code: i32,
    /// The ptrace stop is a group-stop trap (`do_jobctl_trap()`): the
    /// restart's signal is ignored.
    pub(crate) trap_group: bool,
    /// Stopped by a group stop (`JOBCTL_STOPPED`, `TASK_STOPPED`).
    pub(crate) stopped: bool,
    /// Has yet to take part in a group stop (`JOBCTL_STOP_PENDING`).
    pub(crate) stop_pending: bool,
    /// Its part counts in `group_stop_count` (`JOBCTL_STOP_CONSUME`).
    pub(crate) stop_consume: bool,
    /// The stop signal of its group stop (`JOBCTL_STOP_SIGMASK`).
    pub(crate) jobctl_sig: i32,
    /// Seized and sent SIGCONT, or marked for a group stop another thread
    /// started: owes its tracer a `PTRACE_EVENT_STOP` re-trap
    /// (`JOBCTL_TRAP_NOTIFY`, set by `ptrace_trap_notify()`); a listener
    /// takes it at once.
    pub(crate) trap_notify: bool,
    /// Told `PTRACE_INTERRUPT` while in a ptrace stop: owes its tracer a
    /// group-stop trap once resumed (`JOBCTL_TRAP_STOP`). Unlike
    /// `trap_notify`, it does not wake a listener.
    pub(crate) trap_stop: bool,
    /// Stopped for a signal it dequeued, and no SIGCONT since
    /// (`JOBCTL_STOP_DEQUEUED`): a stop signal its tracer resumes it with
    /// still stops it.
    pub(crate) stop_dequeued: bool,
    /// `PTRACE_O_*` options (Linux keeps them in `ptrace`).
    pub(crate) ptrace_opts: u32,
    /// The message of its last event stop (`ptrace_message`).
    pub(crate) ptrace_message: u64,
    /// The ptrace stop is an event stop: the restart's signal is ignored.
    pub(crate) trap_event: bool,
    /// The ptrace stop is a syscall stop: the restart's signal is sent.
    pub(crate) trap_syscall: bool,
    /// Resumed with `PTRACE_SYSCALL`: stops at its next syscall entry or
    /// exit (`TIF_SYSCALL_TRACE`).
    pub(crate) syscall_trace: bool,
    /// Stopped in its `PTRACE_EVENT_EXIT` stop: it exits with this status
    /// word when it runs again (Linux goes on in `do_exit()`).
    pub(crate) exit_pending: Option<i32>,
    /// Its vfork child released it during a ptrace stop: it takes its
    /// `PTRACE_EVENT_VFORK_DONE` stop once resumed.
    pub(crate) vfork_done_pending: bool,
    /// The thread blocked in `vfork` until this task execs or exits
    /// (`vfork_done`).
    pub(crate) vfork_parent: Option<usize>,
    /// Asleep in vfork, it was woken for a signal or a trap it cannot take
    /// yet (`TIF_SIGPENDING` stays set until the vfork completes), so it
    /// wants no other signal (`wants_signal()`).
    pub(crate) vfork_sigpending: bool,
    /// The signal sent to its process when its parent thread exits
    /// (`pdeath_signal`, `PR_SET_PDEATHSIG`); 0 for none.
    pub(crate) pdeath_signal: i32,
    /// Told `PTRACE_LISTEN` in its group-stop trap (`JOBCTL_LISTENING`):
    /// still stopped, but no longer in a ptrace stop for `wait` and the
    /// tracer's requests.
    pub(crate) listening: bool,
    /// Per-thread pending signals (`pending`), bit `sig - 1`.
    /// Credentials (uids, gids, groups).
    pub(crate) cred: Cred,
    /// The thread's name (`comm`): at most 15 bytes, NUL-padded.
    pub(crate) comm: [u8; 16],
    /// Its address space, an index into [`Model::mms`]; `None` once it has
    /// exited (`exit_mm()`).
    pub(crate) mm: Option<usize>,
    pub(crate) pending: u64,
    /// Blocked signals (`blocked`), bit `sig - 1`; never SIGKILL/SIGSTOP.
    pub(crate) blocked: u64,
    /// Real-time signals queued more than once in `pending`: one entry per
    /// copy beyond the first.
    pub(crate) rt_queue: Vec<i32>,
}

impl Task {
    /// A task as `copy_process()` starts it, before the creator's state
    /// (credentials, name, mask, address space, exec ids) is copied in:
    /// running, untraced, in no stop, with nothing pending.
    pub(crate) fn fresh(
        pid: usize,
        group_leader: usize,
        signal: usize,
        real_parent: Option<usize>,
        exit_signal: i32,
    ) -> Task {
        Task {
            pid,
            group_leader,
            signal,
            real_parent,
            parent: real_parent,
            children: Vec::new(),
            ptraced: Vec::new(),
            ptrace: 0,
            exit_state: ExitState::Running,
            exit_code: 0,
            exit_signal,
            exiting: false,
            forknoexec: true,
            self_exec_id: 0,
            parent_exec_id: 0,
            traced_stop: false,
            trap_code: 0,
            trap_group: false,
            stopped: false,
            stop_pending: false,
            stop_consume: false,
            jobctl_sig: 0,
            trap_notify: false,
            trap_stop: false,
            stop_dequeued: false,
            ptrace_opts: 0,
            ptrace_message: 0,
            trap_event: false,
            trap_syscall: false,
            syscall_trace: false,
            exit_pending: None,
            vfork_done_pending: false,
            vfork_parent: None,
            vfork_sigpending: false,
            pdeath_signal: 0,
            listening: false,
            cred: Cred::default(),
            comm: [0; 16],
            mm: None,
            pending: 0,
            blocked: 0,
            rt_queue: Vec::new(),
        }
    }
}

/// A thread group (`struct signal_struct` and `struct sighand_struct`).
#[derive(Clone, Debug)]
pub(crate) struct Signal {
    /// Threads, in thread-list order (`thread_head`).
    pub(crate) threads: Vec<usize>,
    /// Threads that have not started exiting (`live`).
    pub(crate) live: usize,
    pub(crate) flags: u32,
    pub(crate) group_exit_code: i32,
    /// The signal of the last group stop (each thread's
    /// `jobctl & JOBCTL_STOP_SIGMASK`).
    pub(crate) stop_sig: i32,
    /// Threads that have yet to take part in the group stop in progress
    /// (`group_stop_count`).
    pub(crate) group_stop_count: u32,
    /// `struct pid` of the process group (`pids[PIDTYPE_PGID]`).
    pub(crate) pgrp: usize,
    /// `struct pid` of the session (`pids[PIDTYPE_SID]`).
    pub(crate) session: usize,
    /// When the group joined its process group: the order of the pid's
    /// PGID task list.
    pub(crate) pgrp_seq: u64,
    /// Session leader (`leader`).
    pub(crate) leader: bool,
    pub(crate) is_child_subreaper: bool,
    /// `sighand->action[sig - 1]`.
    pub(crate) actions: [Action; NSIG as usize],
    /// Shared pending signals (`shared_pending`), bit `sig - 1`.
    pub(crate) shared_pending: u64,
    /// The thread a process signal went to last (`curr_target`): the
    /// search for a taker starts there.
    pub(crate) curr_target: usize,
    /// Real-time signals queued more than once in `shared_pending`.
    pub(crate) rt_queue: Vec<i32>,
    /// Resource limits (`rlim`).
    pub(crate) rlim: [Rlimit; taskcore::uapi::RLIM_NLIMITS],
}

/// Work queued during an operation and done when it ends, in order.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Deferred {
    /// A kernel-generated signal: target task, signal, `force`.
    Signal { task: usize, sig: i32, force: bool },
    /// The namespace `task` was waiting to empty in
    /// `zap_pid_ns_processes()` is empty: its exit goes on.
    ResumeExit { task: usize, group_dead: bool },
    /// `task` runs again (its tracer went away) and dequeues its pending
    /// signals.
    Dequeue { task: usize },
}

/// The reference process table.
///
/// # Invariants
/// 1. `tasks[t].children` lists exactly the live group leaders whose
///    `real_parent` is `t`; `tasks[t].ptraced` exactly the tasks whose
///    `ptrace != 0 && parent == t`.
/// 2. An untraced task has `parent == real_parent`.
/// 3. Every thread of a group has the same `real_parent`.
/// 4. A `struct pid` is registered in its namespaces while its user count
///    (PID, TGID, PGID and SID attachments) is non-zero.
#[derive(Debug)]
pub struct Model {
    pub(crate) tasks: Vec<Option<Task>>,
    pub(crate) signals: Vec<Option<Signal>>,
    pub(crate) pids: Vec<Option<PidStruct>>,
    pub(crate) nss: Vec<Ns>,
    pub(crate) config: Config,
    pub(crate) opts: ModelOptions,
    pub(crate) seq: u64,
    pub(crate) deferred: VecDeque<Deferred>,
    /// The thread whose exec is killing the other threads of its group,
    /// while `de_thread()` runs (`signal->group_exec_task`).
    pub(crate) group_exec_task: Option<usize>,
    /// `nsproxy->pid_ns_for_children` of the tasks where it differs from
    /// their active namespace (after `unshare(CLONE_NEWPID)`).
    pub(crate) pid_for_children: std::collections::BTreeMap<usize, usize>,
    /// The dumpable flag of each address space ever created (`mm->flags`
    /// `SUID_DUMP_USER`), indexed by [`Task::mm`]; never shrinks.
    pub(crate) mms: Vec<bool>,
    /// Open pidfds by [`PidFd`] index; `None` once closed.
    pub(crate) pidfds: Vec<Option<PidFdFile>>,
    /// Open namespace files by [`NsFile`] index: the namespace; `None`
    /// once closed.
    pub(crate) ns_files: Vec<Option<usize>>,
}

impl Model {
    /// A table with the root pid namespace and its init (pid 1, leader of
    /// its own session and process group), Linux defaults otherwise.
    ///
    /// # Errors
    /// `EINVAL` if `config.pid_max` is outside `[301, 4194304]`.
    pub fn new(config: Config) -> Result<Model> {
        Model::with_options(config, ModelOptions::default())
    }

    /// As [`Model::new`], with options.
    ///
    /// # Errors
    /// As [`Model::new`].
    pub fn with_options(config: Config, opts: ModelOptions) -> Result<Model> {
        if !(PID_MAX_MIN..=PID_MAX_LIMIT).contains(&config.pid_max) {
            return Err(Errno::EINVAL);
        }
        let mut m = Model {
            tasks: Vec::new(),
            signals: Vec::new(),
            pids: Vec::new(),
            nss: vec![Ns::new(0, None, config.pid_max)],
            config,
            opts,
            seq: 0,
            deferred: VecDeque::new(),
            group_exec_task: None,
            pid_for_children: Default::default(),
            mms: vec![true],
            pidfds: Vec::new(),
            ns_files: Vec::new(),
        };
        let pid = m.alloc_pid(0, &[], true)?;
        let seq = m.next_seq();
        m.signals.push(Some(Signal {
            threads: vec![0],
            live: 1,
            flags: SIGNAL_UNKILLABLE,
            group_exit_code: 0,
            stop_sig: 0,
            group_stop_count: 0,
            pgrp: pid,
            session: pid,
            pgrp_seq: seq,
            leader: true,
            is_child_subreaper: false,
            actions: [Action::DFL; NSIG as usize],
            shared_pending: 0,
            curr_target: 0,
            rt_queue: Vec::new(),
            rlim: objects::init_rlimits(config.core_dumps),
        }));
        m.tasks.push(Some(Task {
            cred: Cred::default(),
            comm: *b"init\0\0\0\0\0\0\0\0\0\0\0\0",
            mm: Some(0),
            ..Task::fresh(pid, 0, 0, None, SIGCHLD)
        }));
        // PID, TGID, PGID and SID of init.
        m.get_pid(pid, 4);
        m.pids[pid].as_mut().expect("new pid").task = Some(0);
        m.nss[0].child_reaper = Some(0);
        Ok(m)
    }

    /// The root namespace's init task: the task holding pid 1 there (after
    /// an exec by one of init's threads, that thread: `de_thread`).
    ///
    /// # Errors
    /// `ESRCH` once it has been released.
    pub fn init_task(&self) -> Result<Tid> {
        self.find_task(0, 1).map(Tid).ok_or(Errno::ESRCH)
    }

    /// The configuration.
    pub fn config(&self) -> Config {
        self.config
    }

    /// The options.
    pub fn options(&self) -> ModelOptions {
        self.opts
    }

    /// Number of tasks not yet released (zombies included).
    pub fn nr_tasks(&self) -> usize {
        self.tasks.iter().flatten().count()
    }

    /// Number of thread groups not yet released (zombies included).
    pub fn nr_processes(&self) -> usize {
        self.signals.iter().flatten().count()
    }

    /// Handles of every task not yet released, in creation order.
    pub fn task_ids(&self) -> Vec<Tid> {
        (0..self.tasks.len())
            .filter(|&t| self.tasks[t].is_some())
            .map(Tid)
            .collect()
    }

    /// Whether `t` exists and has not started exiting (can make system
    /// calls, if it is not blocked).
    pub fn is_alive(&self, t: Tid) -> bool {
        self.tasks
            .get(t.0)
            .and_then(Option::as_ref)
            .is_some_and(|x| !x.exiting)
    }

    /// Whether `t` could be running user code and so make a system call:
    /// alive, not in a ptrace stop, not stopped by a job-control stop of its
    /// group (untraced), and not blocked in `vfork`. No Linux analogue: the
    /// scheduler's notion of a runnable task, for test drivers.
    pub fn is_runnable(&self, t: Tid) -> bool {
        if !self.is_alive(t) {
            return false;
        }
        let task = self.task(t.0);
        !task.traced_stop
            && !self.job_stopped(t.0)
            && !self
                .tasks
                .iter()
                .flatten()
                .any(|u| u.vfork_parent == Some(t.0))
    }

    /// Every task for which [`Model::is_runnable`] holds, in creation
    /// order, in one pass.
    pub fn runnable_tasks(&self) -> Vec<Tid> {
        let blocked: std::collections::BTreeSet<usize> = self
            .tasks
            .iter()
            .flatten()
            .filter_map(|u| u.vfork_parent)
            .collect();
        (0..self.tasks.len())
            .filter(|&t| {
                self.is_alive(Tid(t))
                    && !self.task(t).traced_stop
                    && !self.job_stopped(t)
                    && !blocked.contains(&t)
            })
            .map(Tid)
            .collect()
    }

    /// Whether `t` is a zombie (exited, not yet reaped).
    pub fn is_zombie(&self, t: Tid) -> bool {
        self.tasks
            .get(t.0)
            .and_then(Option::as_ref)
            .is_some_and(|x| x.exit_state != ExitState::Running)
    }

    // ------------------------------------------------------------ accessors

    pub(crate) fn task(&self, t: usize) -> &Task {
        self.tasks[t].as_ref().expect("live task")
    }

    pub(crate) fn task_mut(&mut self, t: usize) -> &mut Task {
        self.tasks[t].as_mut().expect("live task")
    }

    pub(crate) fn sig(&self, t: usize) -> &Signal {
        let s = self.task(t).signal;
        self.signals[s].as_ref().expect("live signal")
    }

    pub(crate) fn sig_mut(&mut self, t: usize) -> &mut Signal {
        let s = self.task(t).signal;
        self.signals[s].as_mut().expect("live signal")
    }

    pub(crate) fn exists(&self, t: usize) -> bool {
        self.tasks.get(t).is_some_and(Option::is_some)
    }

    /// The task a handle names (any state short of released).
    pub(crate) fn task_idx(&self, t: Tid) -> Result<usize> {
        if self.exists(t.0) {
            Ok(t.0)
        } else {
            Err(Errno::ESRCH)
        }
    }

    /// The task a handle names, which must be able to make system calls.
    pub(crate) fn current(&self, t: Tid) -> Result<usize> {
        if self.is_alive(t) {
            Ok(t.0)
        } else {
            Err(Errno::ESRCH)
        }
    }

    pub(crate) fn leader(&self, t: usize) -> usize {
        self.task(t).group_leader
    }

    pub(crate) fn is_leader(&self, t: usize) -> bool {
        self.leader(t) == t
    }

    pub(crate) fn same_thread_group(&self, a: usize, b: usize) -> bool {
        self.task(a).signal == self.task(b).signal
    }

    /// `thread_group_empty()`: `t` is a leader alone on its thread list.
    pub(crate) fn thread_group_empty(&self, t: usize) -> bool {
        self.is_leader(t) && self.sig(t).threads.len() == 1
    }

    /// `delay_group_leader()`.
    pub(crate) fn delay_group_leader(&self, t: usize) -> bool {
        self.is_leader(t) && !self.thread_group_empty(t)
    }

    /// `ptrace_reparented()`: traced by a task outside the real parent's
    /// thread group.
    pub(crate) fn ptrace_reparented(&self, t: usize) -> bool {
        let task = self.task(t);
        match (task.real_parent, task.parent) {
            (Some(rp), Some(p)) => !self.same_thread_group(rp, p),
            (a, b) => a != b,
        }
    }

    /// An untraced thread stopped by a job-control stop (`TASK_STOPPED`):
    /// it took part in its group's stop, which may still be in progress.
    pub(crate) fn job_stopped(&self, t: usize) -> bool {
        self.task(t).ptrace == 0 && self.task(t).stopped
    }

    pub(crate) fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// `find_alive_thread()`: the first thread of `t`'s group not exiting.
    pub(crate) fn find_alive_thread(&self, t: usize) -> Option<usize> {
        self.sig(t)
            .threads
            .iter()
            .copied()
            .find(|&u| !self.task(u).exiting)
    }

    /// The thread-group leaders (processes) whose process group is `pgrp`,
    /// in the order they joined it.
    pub(crate) fn pgrp_members(&self, pgrp: usize) -> Vec<usize> {
        let mut v: Vec<(u64, usize)> = self
            .signals
            .iter()
            .flatten()
            .filter(|s| s.pgrp == pgrp)
            .map(|s| {
                let leader = self.task(s.threads[0]).group_leader;
                (s.pgrp_seq, leader)
            })
            .collect();
        v.sort_unstable();
        v.into_iter().map(|(_, t)| t).collect()
    }

    /// `is_global_init()`: a thread of the root namespace's pid 1.
    pub(crate) fn is_global_init(&self, t: usize) -> bool {
        let tgid = self.task(self.leader(t)).pid;
        self.pids[tgid].as_ref().expect("live pid").numbers[0] == (0, 1)
    }
}

/// Bit of signal `sig` in a pending mask.
pub(crate) fn sigbit(sig: i32) -> u64 {
    debug_assert!((1..=NSIG).contains(&sig));
    1u64 << (sig - 1)
}
