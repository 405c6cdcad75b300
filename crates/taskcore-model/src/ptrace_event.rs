//! ptrace options and event stops: `PTRACE_SETOPTIONS` (and the options
//! of `PTRACE_SEIZE`), the stops of `PTRACE_O_TRACEFORK`, `TRACEVFORK`,
//! `TRACECLONE`, `TRACEEXEC`, `TRACEVFORKDONE` and `TRACEEXIT` with their
//! messages (`PTRACE_GETEVENTMSG`), the auto-attach of new children and
//! `PTRACE_O_EXITKILL`; the group-stop traps a seized tracee is put in
//! (`PTRACE_INTERRUPT`) or made to wait in for its group's next change
//! (`PTRACE_LISTEN`).
//!
//! An event stop reports `SIGTRAP | event << 8` (wait status
//! `(SIGTRAP | event << 8) << 8 | 0x7f`); the restart's signal is ignored
//! there.
//!
//! # Linux
//! kernel/ptrace.c `ptrace_setoptions()`, `ptrace_attach()` (SEIZE
//! flags), `ptrace_request()` (PTRACE_GETEVENTMSG), `exit_ptrace()`;
//! include/linux/ptrace.h `ptrace_event()`, `ptrace_event_pid()`,
//! `ptrace_init_task()`; kernel/fork.c `kernel_clone()` (the event of a
//! clone: vfork, a non-SIGCHLD exit signal, else fork); fs/exec.c
//! `exec_binprm()`; kernel/exit.c `do_exit()`.

use taskcore::uapi::{CLONE_PTRACE, CLONE_UNTRACED, CLONE_VFORK, SIGCHLD, SIGTRAP};

use crate::{Errno, ExitState, Model, Result, Tid};

/// `PTRACE_O_TRACESYSGOOD`.
pub const PTRACE_O_TRACESYSGOOD: u32 = 0x01;
/// `PTRACE_O_TRACEFORK`.
pub const PTRACE_O_TRACEFORK: u32 = 0x02;
/// `PTRACE_O_TRACEVFORK`.
pub const PTRACE_O_TRACEVFORK: u32 = 0x04;
/// `PTRACE_O_TRACECLONE`.
pub const PTRACE_O_TRACECLONE: u32 = 0x08;
/// `PTRACE_O_TRACEEXEC`.
pub const PTRACE_O_TRACEEXEC: u32 = 0x10;
/// `PTRACE_O_TRACEVFORKDONE`.
pub const PTRACE_O_TRACEVFORKDONE: u32 = 0x20;
/// `PTRACE_O_TRACEEXIT`.
pub const PTRACE_O_TRACEEXIT: u32 = 0x40;
/// `PTRACE_O_TRACESECCOMP` (accepted, no effect here).
pub const PTRACE_O_TRACESECCOMP: u32 = 0x80;
/// `PTRACE_O_EXITKILL`.
pub const PTRACE_O_EXITKILL: u32 = 0x10_0000;
/// `PTRACE_O_SUSPEND_SECCOMP` (accepted, no effect here).
pub const PTRACE_O_SUSPEND_SECCOMP: u32 = 0x20_0000;
/// `PTRACE_O_MASK`: every valid option bit.
pub const PTRACE_O_MASK: u32 = 0xff | PTRACE_O_EXITKILL | PTRACE_O_SUSPEND_SECCOMP;

/// `PTRACE_EVENT_FORK`.
pub const PTRACE_EVENT_FORK: i32 = 1;
/// `PTRACE_EVENT_VFORK`.
pub const PTRACE_EVENT_VFORK: i32 = 2;
/// `PTRACE_EVENT_CLONE`.
pub const PTRACE_EVENT_CLONE: i32 = 3;
/// `PTRACE_EVENT_EXEC`.
pub const PTRACE_EVENT_EXEC: i32 = 4;
/// `PTRACE_EVENT_VFORK_DONE`.
pub const PTRACE_EVENT_VFORK_DONE: i32 = 5;
/// `PTRACE_EVENT_EXIT`.
pub const PTRACE_EVENT_EXIT: i32 = 6;

impl Model {
    /// `PTRACE_SETOPTIONS`: tracee `pid`'s options become `options`.
    ///
    /// # Errors
    /// `ESRCH`: stale caller; `pid` is not traced by the calling thread or
    /// not in a ptrace stop. `EINVAL`: a bit outside [`PTRACE_O_MASK`]
    /// (nothing changes).
    ///
    /// # Linux
    /// `ptrace_check_attach()` then `ptrace_setoptions()`.
    pub fn ptrace_setoptions(&mut self, current: Tid, pid: i32, options: u32) -> Result<()> {
        let t = self.stopped_tracee(current, pid)?;
        self.task_mut(t).ptrace_opts = taskcore::rules::ptrace_options(options, false)?;
        Ok(())
    }

    /// `PTRACE_SEIZE` with `options`.
    ///
    /// # Errors
    /// `EIO`: a bit outside [`PTRACE_O_MASK`] (after the caller check:
    /// `ESRCH` for a stale caller). Otherwise as [`Model::ptrace_attach`].
    ///
    /// # Linux
    /// `ptrace_attach()`: the flags are checked before anything else, then
    /// become part of `ptrace` with `PT_SEIZED`.
    pub fn ptrace_seize(&mut self, current: Tid, pid: i32, options: u32) -> Result<()> {
        let cur = self.current(current)?;
        taskcore::rules::ptrace_options(options, true)?;
        let t = self.find_task(self.ns_of(cur), pid);
        self.ptrace_attach(current, pid, true)?;
        let t = t.expect("attached to a task that exists");
        self.task_mut(t).ptrace_opts = options;
        Ok(())
    }

    /// `PTRACE_GETEVENTMSG`: the message of tracee `pid`'s last event stop
    /// (0 if none): a new child's pid as the tracer sees it, the former
    /// thread id at exec, the exit status word at exit.
    ///
    /// # Errors
    /// `ESRCH`: as [`Model::ptrace_setoptions`].
    ///
    /// # Linux
    /// `ptrace_request()` PTRACE_GETEVENTMSG (`child->ptrace_message`).
    pub fn ptrace_geteventmsg(&self, current: Tid, pid: i32) -> Result<u64> {
        let t = self.stopped_tracee(current, pid)?;
        Ok(self.task(t).ptrace_message)
    }

    /// `PTRACE_INTERRUPT`: seized tracee `pid` enters a group-stop trap
    /// (`PTRACE_EVENT_STOP`; SIGTRAP unless its group is stopped): at once
    /// if it is running, when resumed if it is in a ptrace stop.
    ///
    /// # Errors
    /// `ESRCH`: stale caller; `pid` is not traced by the calling thread or
    /// has exited. `EIO`: it was attached with `PTRACE_ATTACH`.
    ///
    /// # Linux
    /// `ptrace_request()` PTRACE_INTERRUPT: `JOBCTL_TRAP_STOP` and
    /// `ptrace_signal_wake_up()`; the trap is `do_jobctl_trap()`.
    pub fn ptrace_interrupt(&mut self, current: Tid, pid: i32) -> Result<()> {
        let cur = self.current(current)?;
        let t = self.find_task(self.ns_of(cur), pid).ok_or(Errno::ESRCH)?;
        let task = self.task(t);
        if task.ptrace == 0 || task.parent != Some(cur) || task.exit_state != ExitState::Running {
            return Err(Errno::ESRCH);
        }
        if task.ptrace & crate::PT_SEIZED == 0 {
            return Err(Errno::EIO);
        }
        if !task.exiting {
            // In a stop (not listening), or asleep in vfork: it traps
            // once it runs again.
            if (task.traced_stop && !task.listening) || self.in_vfork_wait(Tid(t)) {
                self.task_mut(t).trap_stop = true;
                // ptrace_signal_wake_up(): a vfork sleeper keeps
                // TIF_SIGPENDING (tests/oracle/vfork_sleeper_signal).
                self.note_vfork_sigpending(t);
            } else {
                // Running, or listening: ptrace_signal_wake_up(child,
                // listening) takes a listener out of its stop at once.
                self.group_stop_trap(t);
            }
        }
        self.run_deferred();
        Ok(())
    }

    /// `PTRACE_LISTEN`: seized tracee `pid`, in a `PTRACE_EVENT_STOP` stop
    /// (a group-stop trap, a `PTRACE_INTERRUPT` trap or a re-trap after
    /// SIGCONT), stays stopped but "listens": until it traps again it is
    /// not in a ptrace stop for `wait` (nothing to report) or for the
    /// tracer's requests (`ESRCH`). It re-traps (a new `PTRACE_EVENT_STOP`,
    /// reported to the tracer) at once when its group's stop state changes
    /// (SIGCONT, a new group stop), when [`Model::ptrace_interrupt`]
    /// interrupts it, or now if such a change came since its trap; other
    /// signals stay pending, SIGKILL kills it.
    ///
    /// # Errors
    /// `ESRCH`: stale caller; `pid` is not traced by the calling thread or
    /// not in a ptrace stop (running, or already listening). `EIO`: it was
    /// attached with `PTRACE_ATTACH`, or its stop is not a
    /// `PTRACE_EVENT_STOP` (a signal-delivery, event or syscall stop).
    ///
    /// # Linux
    /// `ptrace_check_attach()` (`ptrace_freeze_traced()` refuses a
    /// listener), then `ptrace_request()` PTRACE_LISTEN: `last_siginfo`'s
    /// `si_code >> 8` must be `PTRACE_EVENT_STOP`; `JOBCTL_LISTENING`, and
    /// `ptrace_signal_wake_up(child, true)` if `JOBCTL_TRAP_NOTIFY` is set.
    /// A listener is woken by `ptrace_trap_notify()` (kernel/signal.c,
    /// from `prepare_signal()`'s SIGCONT and `do_signal_stop()`); wait skips
    /// it (`task_stopped_code()`); tests/oracle/ptrace_tracer.out, `listen`.
    pub fn ptrace_listen(&mut self, current: Tid, pid: i32) -> Result<()> {
        let t = self.stopped_tracee(current, pid)?;
        let task = self.task(t);
        if task.ptrace & crate::PT_SEIZED == 0 || !task.trap_group {
            return Err(Errno::EIO);
        }
        self.task_mut(t).listening = true;
        self.wake_listener(t);
        self.run_deferred();
        Ok(())
    }

    /// `ptrace_trap_notify()` on a listener: listening tracee `t` owing its
    /// tracer a re-trap (`JOBCTL_TRAP_NOTIFY`: SIGCONT came, or a group
    /// stop to take part in) leaves its stop and traps again now. Returns
    /// whether it did.
    pub(crate) fn wake_listener(&mut self, t: usize) -> bool {
        let task = self.task(t);
        if !task.listening || !task.traced_stop || task.exiting {
            return false;
        }
        if task.trap_notify {
            self.group_stop_trap(t);
            return true;
        }
        false
    }

    /// `PTRACE_SYSCALL`: as [`Model::ptrace_cont`], and the tracee stops at
    /// its next syscall entry or exit ([`Model::ptrace_syscall_enter`],
    /// [`Model::ptrace_syscall_exit`]).
    ///
    /// # Errors
    /// As [`Model::ptrace_cont`].
    ///
    /// # Linux
    /// `ptrace_resume()` with PTRACE_SYSCALL (`TIF_SYSCALL_TRACE`).
    pub fn ptrace_syscall(&mut self, current: Tid, pid: i32, sig: i32) -> Result<()> {
        self.ptrace_resume(current, pid, sig, true)
    }

    /// Thread `current` enters a system call: if its tracer resumed it with
    /// [`Model::ptrace_syscall`], it stops in a syscall-entry-stop
    /// (`SIGTRAP`, `| 0x80` under `PTRACE_O_TRACESYSGOOD`; message 1) and
    /// this returns true.
    ///
    /// # Errors
    /// `ESRCH`: stale or exiting caller.
    ///
    /// # Linux
    /// `ptrace_report_syscall_entry()`.
    pub fn ptrace_syscall_enter(&mut self, current: Tid) -> Result<bool> {
        self.report_syscall(current, 1)
    }

    /// As [`Model::ptrace_syscall_enter`], for the syscall-exit-stop
    /// (message 2).
    ///
    /// # Errors
    /// As [`Model::ptrace_syscall_enter`].
    ///
    /// # Linux
    /// `ptrace_report_syscall_exit()`.
    pub fn ptrace_syscall_exit(&mut self, current: Tid) -> Result<bool> {
        self.report_syscall(current, 2)
    }

    fn report_syscall(&mut self, current: Tid, message: u64) -> Result<bool> {
        let t = self.current(current)?;
        let task = self.task(t);
        if task.ptrace == 0 || !task.syscall_trace || task.traced_stop {
            return Ok(false);
        }
        let good = if task.ptrace_opts & PTRACE_O_TRACESYSGOOD != 0 {
            0x80
        } else {
            0
        };
        self.task_mut(t).ptrace_message = message;
        self.event_trap(t, SIGTRAP | good);
        let task = self.task_mut(t);
        task.trap_event = false;
        task.trap_syscall = true;
        self.run_deferred();
        Ok(true)
    }

    /// `ptrace_event_enabled()`: `t` is traced with the option of `event`.
    pub(crate) fn ptrace_event_enabled(&self, t: usize, event: i32) -> bool {
        let task = self.task(t);
        task.ptrace != 0 && task.ptrace_opts & (1 << event) != 0
    }

    /// `ptrace_event(event, message)`: `t` stops for `event` if its tracer
    /// asked. Returns whether it stopped.
    pub(crate) fn ptrace_event(&mut self, t: usize, event: i32, message: u64) -> bool {
        if !self.ptrace_event_enabled(t, event) {
            return false;
        }
        self.task_mut(t).ptrace_message = message;
        self.event_trap(t, SIGTRAP | (event << 8));
        true
    }

    /// `ptrace_stop()` for an event: a group stop in progress counts `t`
    /// in (telling the real parent if it was the last); the restart's
    /// signal will be ignored.
    fn event_trap(&mut self, t: usize, code: i32) {
        let done = self.task(t).stop_pending && self.task_participate_group_stop(t);
        self.ptrace_trap(t, code);
        self.task_mut(t).trap_event = true;
        if done {
            let tracer = self.task(t).parent.expect("a traced task has a tracer");
            let reparented = self
                .task(t)
                .real_parent
                .is_none_or(|rp| !self.same_thread_group(rp, tracer));
            self.group_stop_done(t, reparented);
        }
    }

    /// `ptrace_event_pid()`'s message: `child`'s pid in the namespace of
    /// `of`'s tracer (0 if it has none there).
    pub(crate) fn pid_for_tracer(&self, of: usize, child: usize) -> u64 {
        let viewer = self.task(of).parent.unwrap_or(of);
        let ns = self.ns_of(viewer);
        let pid = self.task(child).pid;
        self.pids[pid]
            .as_ref()
            .expect("live pid")
            .numbers
            .iter()
            .find(|&&(level_ns, _)| level_ns == ns)
            .map_or(0, |&(_, nr)| u64::from(nr))
    }

    /// `ptrace_init_task()` and the choice of event in `kernel_clone()`:
    /// the event traced `cur` stops for after creating `child` (0: none),
    /// and whether `child` is traced too (`CLONE_PTRACE`, or the event's
    /// option; never with `CLONE_UNTRACED`), by the same tracer with the
    /// same options.
    pub(crate) fn clone_trace(
        &mut self,
        cur: usize,
        child: usize,
        flags: u64,
        exit_sig: i32,
    ) -> i32 {
        if flags & CLONE_UNTRACED != 0 || self.task(cur).ptrace == 0 {
            return 0;
        }
        let event = if flags & CLONE_VFORK != 0 {
            PTRACE_EVENT_VFORK
        } else if exit_sig != SIGCHLD {
            PTRACE_EVENT_CLONE
        } else {
            PTRACE_EVENT_FORK
        };
        let event = if self.ptrace_event_enabled(cur, event) {
            event
        } else {
            0
        };
        if flags & CLONE_PTRACE == 0 && event == 0 {
            return 0;
        }
        let tracer = self.task(cur).parent.expect("a traced task has a tracer");
        let (mode, opts) = (self.task(cur).ptrace, self.task(cur).ptrace_opts);
        let c = self.task_mut(child);
        c.ptrace = mode;
        c.ptrace_opts = opts;
        c.parent = Some(tracer);
        self.task_mut(tracer).ptraced.insert(0, child);
        event
    }

    /// Traced `cur` created `child` with `event` (0: none): it stops for
    /// it, the child's pid (as the tracer sees it) as message.
    pub(crate) fn clone_event(&mut self, cur: usize, child: usize, event: i32) {
        if event != 0 && self.exists(cur) && !self.task(cur).exiting {
            let msg = self.pid_for_tracer(cur, child);
            self.ptrace_event(cur, event, msg);
        }
    }

    /// The vfork child `child` released `parent` (exec or exit): traced
    /// with `PTRACE_O_TRACEVFORKDONE`, the parent stops for it, at once, or
    /// once resumed if it is in a ptrace stop. A parent already exiting
    /// was no longer waiting (`wait_for_vfork_done()` is killable).
    pub(crate) fn vfork_done(&mut self, parent: usize, child: usize) {
        if !self.exists(parent) {
            return;
        }
        let p = self.task(parent);
        if p.exit_state != ExitState::Running
            || p.exiting
            || p.exit_pending.is_some()
            || !self.ptrace_event_enabled(parent, PTRACE_EVENT_VFORK_DONE)
        {
            return;
        }
        let msg = self.pid_for_tracer(parent, child);
        if self.task(parent).traced_stop {
            let p = self.task_mut(parent);
            p.ptrace_message = msg;
            p.vfork_done_pending = true;
        } else {
            self.ptrace_event(parent, PTRACE_EVENT_VFORK_DONE, msg);
        }
    }

    /// `do_exit()`'s `ptrace_event(PTRACE_EVENT_EXIT, code)`: a live thread
    /// traced with `PTRACE_O_TRACEEXIT` stops before exiting with status
    /// word `code` (its message), and exits when resumed. Returns whether
    /// it stopped; if not, the caller makes it exit.
    pub(crate) fn exit_event(&mut self, t: usize, code: i32) -> bool {
        if self.task(t).exiting || !self.ptrace_event_enabled(t, PTRACE_EVENT_EXIT) {
            return false;
        }
        // synchronize_group_exit(): the group's last thread to enter
        // do_exit() marks the group exiting, so signals sent while it
        // waits in its exit stop are dropped (prepare_signal();
        // tests/oracle/ptrace_edges.out, exit_stop_killed*).
        let last = self
            .sig(t)
            .threads
            .iter()
            .all(|&u| u == t || self.task(u).exiting || self.task(u).exit_pending.is_some());
        if last && self.sig(t).flags & crate::SIGNAL_GROUP_EXIT == 0 {
            let s = self.sig_mut(t);
            s.flags = crate::SIGNAL_GROUP_EXIT;
            s.group_exit_code = code;
            s.group_stop_count = 0;
        }
        self.task_mut(t).exit_pending = Some(code);
        self.ptrace_event(t, PTRACE_EVENT_EXIT, code as u32 as u64);
        true
    }

    /// What tracee `t`, out of its ptrace stop, has left to do before its
    /// signals: exit (from its `PTRACE_EVENT_EXIT` stop: true) or take a
    /// `PTRACE_EVENT_VFORK_DONE` stop that came meanwhile (true if it
    /// stopped).
    pub(crate) fn resume_pending_event(&mut self, t: usize) -> bool {
        if let Some(code) = self.task_mut(t).exit_pending.take() {
            if !self.task(t).exiting {
                self.do_exit(t, code);
            }
            return true;
        }
        if std::mem::take(&mut self.task_mut(t).vfork_done_pending) {
            let msg = self.task(t).ptrace_message;
            return self.ptrace_event(t, PTRACE_EVENT_VFORK_DONE, msg);
        }
        false
    }

    /// `exit_ptrace()`'s `PT_EXITKILL`: tracee `p` of an exiting tracer is
    /// sent SIGKILL (privileged) when this operation ends.
    pub(crate) fn exitkill(&mut self, p: usize) {
        if self.task(p).ptrace_opts & PTRACE_O_EXITKILL != 0
            && self.task(p).exit_state == ExitState::Running
        {
            self.deferred.push_back(crate::Deferred::Signal {
                task: p,
                sig: taskcore::uapi::SIGKILL,
                force: true,
            });
        }
    }
}
