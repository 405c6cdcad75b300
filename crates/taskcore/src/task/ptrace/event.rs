//! The ptrace stops of `man 2 ptrace` beyond signal-delivery-stop: event
//! stops (`PTRACE_O_TRACE*`), group-stop traps with `PTRACE_INTERRUPT` and
//! `PTRACE_LISTEN`, syscall stops (`PTRACE_SYSCALL`), and what a tracer
//! reads of a stop (`PTRACE_GETEVENTMSG`, `PTRACE_GETSIGINFO`).
//!
//! Every stop goes through `ptrace_stop()`: the tracee's wait
//! status word is `(code << 8) | 0x7f`, with `code` = `SIGTRAP |
//! PTRACE_EVENT_x << 8` for an event stop, `SIGTRAP | 0x80` for a syscall
//! stop under `PTRACE_O_TRACESYSGOOD`, the signal for a signal-delivery-stop
//! and the stop signal (`| PTRACE_EVENT_STOP << 8` when seized) for a
//! group-stop trap.
//!
//! # Linux
//! kernel/ptrace.c `ptrace_setoptions()`, `ptrace_request()`
//! (PTRACE_GETEVENTMSG, PTRACE_GETSIGINFO, PTRACE_INTERRUPT,
//! PTRACE_LISTEN), `ptrace_resume()`; kernel/signal.c `ptrace_stop()`,
//! `ptrace_do_notify()`, `ptrace_notify()`, `ptrace_trap_notify()`;
//! include/linux/ptrace.h `ptrace_event()`, `ptrace_event_pid()`;
//! include/linux/ptrace.h `ptrace_report_syscall_entry/exit()`.

use crate::errno::{Errno, Result};
use crate::ix::TaskIx;
use crate::task::kernel::{Kernel, Notification, SigInfo, TaskId};
pub use crate::task::ptrace::attach::PTRACE_EVENT_STOP;
use crate::task::signal::sigsend::{PidType, SendInfo};
use crate::task::state::delivery::SignalDelivery;
use crate::task::state::jobctl_flags::{
    JOBCTL_EXIT_PENDING, JOBCTL_LISTENING, JOBCTL_PENDING_MASK, JOBCTL_STOPPED,
    JOBCTL_STOP_PENDING, JOBCTL_TRAP_NOTIFY, JOBCTL_TRAP_STOP, JOBCTL_VFORK_DONE_PENDING,
    TIF_SYSCALL_TRACE,
};
use crate::task::task_struct::{ExitState, PF_EXITING, PT_SEIZED, SIGNAL_CLD_CONTINUED};
use crate::uapi::{valid_signal, CLD_CONTINUED, CLD_TRAPPED, SIGCHLD, SIGTRAP};

pub use crate::uapi::{
    PTRACE_O_EXITKILL, PTRACE_O_MASK, PTRACE_O_SUSPEND_SECCOMP, PTRACE_O_TRACECLONE,
    PTRACE_O_TRACEEXEC, PTRACE_O_TRACEEXIT, PTRACE_O_TRACEFORK, PTRACE_O_TRACESECCOMP,
    PTRACE_O_TRACESYSGOOD, PTRACE_O_TRACEVFORK, PTRACE_O_TRACEVFORKDONE,
};

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

/// `PTRACE_EVENTMSG_SYSCALL_ENTRY`: the message of a syscall-entry stop.
pub const PTRACE_EVENTMSG_SYSCALL_ENTRY: u64 = 1;
/// `PTRACE_EVENTMSG_SYSCALL_EXIT`: the message of a syscall-exit stop.
pub const PTRACE_EVENTMSG_SYSCALL_EXIT: u64 = 2;

/// The kind of ptrace stop a tracee is in (`trap_kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum TrapKind {
    /// signal-delivery-stop: the restart's signal is delivered instead.
    Signal = 0,
    /// group-stop trap (`do_jobctl_trap()`): the restart's signal is
    /// ignored.
    Group = 1,
    /// `PTRACE_EVENT_*` stop: the restart's signal is ignored.
    Event = 2,
    /// syscall-entry or -exit stop: the restart's signal is sent.
    Syscall = 3,
}

/// `PTRACE_O_*` options (within [`PTRACE_O_MASK`]) packed into 16 bits
/// for [`Task`](crate::task::task_struct::Task): bits 0-7 as they are,
/// `PTRACE_O_EXITKILL` and `PTRACE_O_SUSPEND_SECCOMP` moved to bits 8-9.
pub(crate) fn pack_options(options: u32) -> u16 {
    ((options & 0xff) | ((options >> 12) & 0x300)) as u16
}

/// The `PTRACE_O_*` options that [`pack_options`] packed.
pub(crate) fn unpack_options(packed: u16) -> u32 {
    let packed = u32::from(packed);
    (packed & 0xff) | ((packed & 0x300) << 12)
}

/// # ptrace: options, event and syscall stops, the state requests.
impl Kernel {
    /// Thread `t`'s `PTRACE_O_*` options.
    pub(crate) fn ptrace_options(&self, t: TaskIx) -> u32 {
        unpack_options(self.tasks[t].ptrace_opts)
    }

    /// Thread `t`'s `ptrace_message` (0 when never set).
    pub(crate) fn ptrace_message(&self, t: TaskIx) -> u64 {
        self.side.ptrace_messages.get(&t).copied().unwrap_or(0)
    }

    /// Sets thread `t`'s `ptrace_message` (0 frees its entry).
    pub(crate) fn set_ptrace_message(&mut self, t: TaskIx, message: u64) {
        if message == 0 {
            self.side.ptrace_messages.remove(&t);
        } else {
            self.side.ptrace_messages.insert(t, message);
        }
    }

    /// `ptrace_stop()`: traced thread `t` stops with `code` for its tracer,
    /// which gets SIGCHLD with `si_code` `why`. A group stop in progress
    /// counts it in; if it was the last, the real parent is told too (when
    /// the tracer is elsewhere).
    pub(crate) fn ptrace_stop(&mut self, t: TaskIx, code: i32, why: i32, kind: TrapKind) {
        let g = self.tasks[t].group;
        let gstop_done =
            self.tasks[t].jobctl & JOBCTL_STOP_PENDING != 0 && self.task_participate_group_stop(t);
        let task = &mut self.tasks[t];
        // Any trap takes the place of a pending PTRACE_INTERRUPT's; only a
        // PTRACE_EVENT_STOP trap that of a SIGCONT's re-trap
        // (tests/oracle/ptrace_edges.out, sigcont_syscall).
        let mut clear = JOBCTL_TRAP_STOP | JOBCTL_LISTENING | JOBCTL_STOPPED;
        if code >> 8 == PTRACE_EVENT_STOP {
            clear |= JOBCTL_TRAP_NOTIFY;
        }
        task.jobctl &= !clear;
        task.trap_kind = kind as u8;
        let tracer = task.parent.expect("a traced task has a tracer");
        self.set_traced_stop(t, true, code);
        if kind == TrapKind::Group && self.tasks[t].ptrace & PT_SEIZED == 0 {
            // do_jobctl_trap() of a tracee that was not seized:
            // ptrace_stop() without a siginfo (PTRACE_GETSIGINFO: EINVAL,
            // tests/oracle/ptrace_gstop.out).
            self.side.trap_info.remove(&t);
        } else if kind != TrapKind::Signal {
            // ptrace_do_notify(): the siginfo PTRACE_GETSIGINFO reads.
            let info = SigInfo {
                signo: code & 0x7f,
                code,
                pid: self.pid_nr_ns(self.tasks[t].pid, self.ns_of(t)),
                uid: self.uid_seen_by(t, self.tasks[t].cred.uid),
                status: 0,
                value: 0,
            };
            self.side.trap_info.insert(t, info);
        }
        let info = SigInfo {
            signo: SIGCHLD,
            code: why,
            pid: self.pid_nr_ns(self.tasks[t].pid, self.ns_of(tracer)),
            uid: self.uid_seen_by(tracer, self.tasks[t].cred.uid),
            status: code & 0x7f,
            value: 0,
        };
        let psig = self.groups[self.tasks[tracer].group].sighand.get();
        if !psig.is_ignored(SIGCHLD) && !psig.nocldstop() {
            self.send_kernel_signal(tracer, SIGCHLD, info);
        }
        self.wake_parent(tracer);
        let task = self.handle_unchecked(t);
        self.notify(Notification::PtraceStopped { task, code });
        if gstop_done {
            let reparented = self.ptrace_reparented(t);
            self.group_stop_done(g, reparented);
        }
    }

    /// `ptrace_event(event, message)`: `t` stops for `event` if its tracer
    /// asked for it. Returns whether it stopped.
    pub(crate) fn ptrace_event(&mut self, t: TaskIx, event: i32, message: u64) -> bool {
        if !self.ptrace_event_enabled(t, event) {
            return false;
        }
        self.set_ptrace_message(t, message);
        self.ptrace_stop(t, SIGTRAP | (event << 8), CLD_TRAPPED, TrapKind::Event);
        true
    }

    /// `ptrace_event_enabled()`: `t` is traced with the option of `event`.
    pub(crate) fn ptrace_event_enabled(&self, t: TaskIx, event: i32) -> bool {
        let task = &self.tasks[t];
        task.ptrace != 0 && unpack_options(task.ptrace_opts) & (1 << event) != 0
    }

    /// The pid number of `t` in the namespace of the tracer of `of`
    /// (`ptrace_event_pid()`'s message).
    pub(crate) fn pid_for_tracer(&self, of: TaskIx, t: TaskIx) -> u64 {
        let ns = self.ns_of(self.tasks[of].parent.unwrap_or(of));
        self.pid_nr_ns(self.tasks[t].pid, ns).max(0) as u64
    }

    /// `ptrace_trap_notify()`: seized `t` must re-trap to report a change
    /// of its group's stop state: at once if it listens, else when it next
    /// takes its signals.
    pub(crate) fn ptrace_trap_notify(&mut self, t: TaskIx) {
        if self.tasks[t].flags.contains(PF_EXITING)
            || self.tasks[t].exit_state() != ExitState::Alive
        {
            return;
        }
        self.tasks[t].jobctl |= JOBCTL_TRAP_NOTIFY;
        self.ptrace_signal_wake_up(t);
    }

    /// `ptrace_signal_wake_up(t, listening)`: a listening tracee leaves its
    /// stop and re-traps at once; a running one takes its pending trap in
    /// its next `get_signal()`; one in any other stop keeps it for later.
    fn ptrace_signal_wake_up(&mut self, t: TaskIx) {
        self.sigpending_in_vfork(t);
        let task = &self.tasks[t];
        if task.traced_stop() {
            if task.jobctl & JOBCTL_LISTENING == 0 {
                return;
            }
            if self.delivery == SignalDelivery::OnGetSignal {
                // Woken out of its listening stop, the tracee runs on in
                // its next get_signal() (the embedder's), whose relock
                // tells the parent of a continued group first
                // (SIGNAL_CLD_CONTINUED), then takes the trap.
                self.tasks[t].jobctl &= !JOBCTL_LISTENING;
                self.set_traced_stop(t, false, 0);
                let handle = self.handle_unchecked(t);
                self.notify(Notification::PtraceResumed {
                    task: handle,
                    syscall: false,
                });
                self.signal_wake_up(t);
            } else {
                // Out of its listening stop, the tracee goes back through
                // get_signal()'s relock: the parent of a continued group
                // is told first (SIGNAL_CLD_CONTINUED), then it re-traps.
                let g = task.group;
                let flags = self.groups[g].flags.get();
                if flags.contains(SIGNAL_CLD_CONTINUED) {
                    self.set_group_flags(g, flags & !SIGNAL_CLD_CONTINUED);
                    self.notify_parent_cldstop(g, CLD_CONTINUED);
                }
                self.do_jobctl_trap(t);
            }
            return;
        }
        self.signal_wake_up(t);
    }

    /// The `get_signal()` step for job control: a pending group stop or
    /// trap is taken (`do_signal_stop(0)`, `do_jobctl_trap()`). Returns
    /// whether `t` stopped.
    pub(crate) fn jobctl_step(&mut self, t: TaskIx) -> bool {
        let task = &self.tasks[t];
        if task.traced_stop() || task.jobctl & JOBCTL_PENDING_MASK == 0 {
            return false;
        }
        if task.ptrace == 0 {
            if task.jobctl & JOBCTL_STOP_PENDING != 0 {
                self.participate(t);
                return true;
            }
            self.tasks[t].jobctl &= !JOBCTL_PENDING_MASK;
            return false;
        }
        self.do_jobctl_trap(t);
        true
    }

    /// Resumes tracee `t` from its stop (`ptrace_resume()`): `sig` (valid,
    /// or 0) is delivered for a signal-delivery-stop, sent for a syscall
    /// stop and ignored otherwise; `syscall` makes it stop at its next
    /// syscall entry or exit. A deferred vfork-done stop or exit is taken
    /// now.
    pub(crate) fn ptrace_resume(&mut self, t: TaskIx, sig: i32, syscall: bool) {
        let task = &mut self.tasks[t];
        let kind = task.trap_kind;
        let stopped_with = task.trap_code.get() & 0x7f;
        task.jobctl &= !JOBCTL_LISTENING;
        if syscall {
            task.jobctl |= TIF_SYSCALL_TRACE;
        } else {
            task.jobctl &= !TIF_SYSCALL_TRACE;
        }
        self.set_traced_stop(t, false, 0);
        let handle = self.handle_unchecked(t);
        self.notify(Notification::PtraceResumed {
            task: handle,
            syscall,
        });
        self.resume_with(t, sig, kind, stopped_with);
    }

    /// The rest of a resume (also after `PTRACE_DETACH`): the signal, then
    /// what `t` does next.
    pub(crate) fn resume_with(&mut self, t: TaskIx, sig: i32, kind: u8, stopped_with: i32) {
        if kind == TrapKind::Signal as u8 && valid_signal(sig) {
            let info = self
                .side
                .trap_info
                .remove(&t)
                .filter(|i| i.signo == stopped_with);
            self.ptrace_resume_signal(t, sig, info);
        } else {
            self.side.trap_info.remove(&t);
            if kind == TrapKind::Syscall as u8 && valid_signal(sig) {
                let _ = self.send_signal_locked(t, sig, SendInfo::Priv, PidType::Pid, false);
            }
        }
        if self.tasks.get(t).is_none_or(|x| x.traced_stop()) {
            // The signal sent from a syscall stop stopped it again (its
            // PTRACE_EVENT_EXIT stop: tests/oracle/ptrace_edges.out,
            // syscall_kill).
            return;
        }
        let jobctl = self.tasks[t].jobctl;
        if jobctl & JOBCTL_EXIT_PENDING != 0 {
            self.tasks[t].jobctl &= !JOBCTL_EXIT_PENDING;
            let code = self.ptrace_message(t) as i32;
            if !self.tasks[t].flags.contains(PF_EXITING) {
                self.do_exit(t, code);
            }
            return;
        }
        if jobctl & JOBCTL_VFORK_DONE_PENDING != 0 {
            self.tasks[t].jobctl &= !JOBCTL_VFORK_DONE_PENDING;
            let msg = self.ptrace_message(t);
            if self.ptrace_event(t, PTRACE_EVENT_VFORK_DONE, msg) {
                return;
            }
        }
        self.signal_wake_up(t);
    }

    /// The vfork child `child` of `parent` released it (exec or exit): a
    /// parent traced with `PTRACE_O_TRACEVFORKDONE` stops for it, at once or
    /// when its tracer resumes it.
    pub(crate) fn ptrace_vfork_done(&mut self, parent: TaskIx, child: TaskIx) {
        if self
            .tasks
            .get(parent)
            .is_none_or(|p| p.exit_state() != ExitState::Alive)
            || !self.ptrace_event_enabled(parent, PTRACE_EVENT_VFORK_DONE)
        {
            return;
        }
        let msg = self.pid_for_tracer(parent, child);
        if self.tasks[parent].traced_stop() {
            self.set_ptrace_message(parent, msg);
            self.tasks[parent].jobctl |= JOBCTL_VFORK_DONE_PENDING;
        } else {
            self.ptrace_event(parent, PTRACE_EVENT_VFORK_DONE, msg);
        }
    }

    /// A thread about to exit with status word `code`: traced with
    /// `PTRACE_O_TRACEEXIT`, it stops first and exits when resumed
    /// (returns true); else the caller goes on exiting.
    #[inline(always)]
    pub(crate) fn ptrace_exit_event(&mut self, t: TaskIx, code: i32) -> bool {
        // An untraced task has no exit stop: one test here.
        self.tasks[t].ptrace != 0 && self.ptrace_exit_event_slow(t, code)
    }

    /// [`Self::ptrace_exit_event`] of a traced task.
    #[inline(never)]
    fn ptrace_exit_event_slow(&mut self, t: TaskIx, code: i32) -> bool {
        if self.tasks[t].flags.contains(PF_EXITING)
            || !self.ptrace_event_enabled(t, PTRACE_EVENT_EXIT)
        {
            return false;
        }
        // synchronize_group_exit(): the group's last thread to enter
        // do_exit() marks the group exiting, so that signals sent while it
        // waits in this stop are dropped (tests/oracle/ptrace_edges.out,
        // exit_stop_killed_exit).
        let g = self.tasks[t].group;
        let last = self.threads(g).into_iter().all(|u| {
            u == t
                || self.tasks[u].flags.contains(PF_EXITING)
                || self.tasks[u].jobctl & JOBCTL_EXIT_PENDING != 0
        });
        if last
            && !self.groups[g]
                .flags
                .get()
                .contains(crate::task::task_struct::SIGNAL_GROUP_EXIT)
        {
            self.set_group_exit_code(g, code);
            self.groups[g].group_stop_count = 0;
            self.set_group_flags(g, crate::task::task_struct::SIGNAL_GROUP_EXIT);
        }
        self.tasks[t].jobctl |= JOBCTL_EXIT_PENDING;
        self.ptrace_event(t, PTRACE_EVENT_EXIT, code as u32 as u64);
        true
    }

    /// `PTRACE_SETOPTIONS`: sets the `PTRACE_O_*` options of tracee `pid`,
    /// which must be in a ptrace stop.
    ///
    /// # Errors
    /// - `ESRCH`: `current` stale; `pid` is not a tracee of the calling
    ///   thread in a ptrace stop.
    /// - `EINVAL`: a bit outside [`PTRACE_O_MASK`].
    ///
    /// # Linux
    /// `ptrace_setoptions()` (kernel/ptrace.c).
    pub fn ptrace_setoptions(&mut self, current: TaskId, pid: i32, options: u32) -> Result<()> {
        self.probed(crate::probe::Op::Ptrace, current, |k| {
            let t = k.stopped_tracee(current, pid)?;
            let options = crate::rules::ptrace_options(options, false)?;
            k.tasks[t].ptrace_opts = pack_options(options);
            Ok(())
        })
    }

    /// `PTRACE_SEIZE` with `options`: as [`Kernel::ptrace_attach`] with
    /// `seize`, and the options set at once.
    ///
    /// # Errors
    /// - `EIO`: a bit outside [`PTRACE_O_MASK`] (checked first).
    /// - otherwise as [`Kernel::ptrace_attach`].
    ///
    /// # Linux
    /// `ptrace_attach()` with `PTRACE_SEIZE` (kernel/ptrace.c).
    pub fn ptrace_seize(&mut self, current: TaskId, pid: i32, options: u32) -> Result<()> {
        self.probed(crate::probe::Op::PtraceAttach, current, |k| {
            if let Err(e) = crate::rules::ptrace_options(options, true) {
                k.current(current)?;
                return Err(e);
            }
            k.do_sys_ptrace_attach(current, pid, true)?;
            // Attached: `pid` names the tracee.
            let cur = k.current(current)?;
            if let Some(t) = k.find_task(k.ns_of(cur), pid) {
                k.tasks[t].ptrace_opts = pack_options(options);
            }
            Ok(())
        })
    }

    /// `PTRACE_GETEVENTMSG`: the message of tracee `pid`'s last event (a new
    /// child's pid in the tracer's namespace, the former thread id at exec,
    /// the exit status word at exit, the syscall stop kind).
    ///
    /// # Errors
    /// `ESRCH`: `current` stale; `pid` is not a tracee of the calling thread
    /// in a ptrace stop.
    ///
    /// # Linux
    /// `ptrace_request()` PTRACE_GETEVENTMSG (kernel/ptrace.c).
    pub fn ptrace_geteventmsg(&self, current: TaskId, pid: i32) -> Result<u64> {
        let t = self.stopped_tracee(current, pid)?;
        Ok(self.ptrace_message(t))
    }

    /// `PTRACE_GETSIGINFO`: the siginfo of tracee `pid`'s stop: the signal's
    /// for a signal-delivery-stop, else `si_signo` SIGTRAP (or the stop
    /// signal) with `si_code` the stop's code (`SIGTRAP | event << 8`).
    ///
    /// # Errors
    /// - `ESRCH`: as [`Kernel::ptrace_geteventmsg`].
    /// - `EINVAL`: the stop has no siginfo (the SIGSTOP of an attach, a
    ///   child's first stop under `CLONE_PTRACE`).
    ///
    /// # Linux
    /// `ptrace_getsiginfo()` (kernel/ptrace.c).
    pub fn ptrace_getsiginfo(&self, current: TaskId, pid: i32) -> Result<SigInfo> {
        let t = self.stopped_tracee(current, pid)?;
        self.side.trap_info.get(&t).copied().ok_or(Errno::EINVAL)
    }

    /// `PTRACE_INTERRUPT`: seized tracee `pid` enters a group-stop trap
    /// (`PTRACE_EVENT_STOP`, SIGTRAP when its group is not stopped): at
    /// once if running or listening ([`crate::SignalDelivery::Immediate`];
    /// with `OnGetSignal`, in its next [`Kernel::get_signal`]), after its
    /// current stop otherwise.
    ///
    /// # Errors
    /// - `ESRCH`: `current` stale; `pid` is not traced by the calling
    ///   thread.
    /// - `EIO`: the tracee was attached with `PTRACE_ATTACH`, not seized.
    ///
    /// # Linux
    /// `ptrace_request()` PTRACE_INTERRUPT (kernel/ptrace.c).
    pub fn ptrace_interrupt(&mut self, current: TaskId, pid: i32) -> Result<()> {
        self.probed(crate::probe::Op::Ptrace, current, |k| {
            let t = k.tracee(current, pid)?;
            if k.tasks[t].ptrace & PT_SEIZED == 0 {
                return Err(Errno::EIO);
            }
            if !k.tasks[t].flags.contains(PF_EXITING) {
                k.tasks[t].jobctl |= JOBCTL_TRAP_STOP;
                k.ptrace_signal_wake_up(t);
            }
            k.run_deferred();
            Ok(())
        })
    }

    /// `PTRACE_LISTEN`: seized tracee `pid`, in a `PTRACE_EVENT_STOP` stop,
    /// stays stopped but is no longer in a ptrace stop for `wait` (not even
    /// a stop not yet reported: `task_stopped_code()`) and the other
    /// requests (`ESRCH`) until a change of its group's stop state or
    /// [`Kernel::ptrace_interrupt`] makes it re-trap.
    ///
    /// # Errors
    /// - `ESRCH`: as [`Kernel::ptrace_geteventmsg`] (also while listening).
    /// - `EIO`: not seized, or its stop is not a `PTRACE_EVENT_STOP`.
    ///
    /// # Linux
    /// `ptrace_request()` PTRACE_LISTEN (kernel/ptrace.c).
    pub fn ptrace_listen(&mut self, current: TaskId, pid: i32) -> Result<()> {
        self.probed(crate::probe::Op::Ptrace, current, |k| {
            let t = k.stopped_tracee(current, pid)?;
            let event_stop = k
                .side
                .trap_info
                .get(&t)
                .is_some_and(|i| i.code >> 8 == PTRACE_EVENT_STOP);
            if k.tasks[t].ptrace & PT_SEIZED == 0 || !event_stop {
                return Err(Errno::EIO);
            }
            k.tasks[t].jobctl |= JOBCTL_LISTENING;
            // Its stop, reported or not, is no longer one for wait.
            k.mark_task(t);
            if k.tasks[t].jobctl & JOBCTL_TRAP_NOTIFY != 0 {
                k.do_jobctl_trap(t);
            }
            k.run_deferred();
            Ok(())
        })
    }

    /// `PTRACE_SYSCALL`: as [`Kernel::ptrace_cont`], and the tracee stops at
    /// its next syscall entry or exit: the embedder is told with
    /// [`Notification::PtraceResumed`] `{ syscall: true }` and calls
    /// [`Kernel::ptrace_syscall_enter`] / [`Kernel::ptrace_syscall_exit`].
    ///
    /// # Errors
    /// As [`Kernel::ptrace_cont`].
    ///
    /// # Linux
    /// `ptrace_resume()` with PTRACE_SYSCALL (kernel/ptrace.c).
    pub fn ptrace_syscall(&mut self, current: TaskId, pid: i32, sig: i32) -> Result<()> {
        self.probed(crate::probe::Op::PtraceCont, current, |k| {
            let t = k.stopped_tracee(current, pid)?;
            if !(0..=64).contains(&sig) {
                return Err(Errno::EIO);
            }
            k.ptrace_resume(t, sig, true);
            k.run_deferred();
            Ok(())
        })
    }

    /// The embedder reports that thread `current` enters system call `nr`:
    /// if its tracer asked with [`Kernel::ptrace_syscall`], it stops in a
    /// syscall-entry-stop (`SIGTRAP`, `| 0x80` under
    /// [`PTRACE_O_TRACESYSGOOD`]) and this returns true: it must not run the
    /// call until resumed.
    ///
    /// # Errors
    /// `ESRCH` if `current` is stale or exiting.
    ///
    /// # Linux
    /// `ptrace_report_syscall_entry()` (include/linux/ptrace.h).
    pub fn ptrace_syscall_enter(&mut self, current: TaskId, nr: u64) -> Result<bool> {
        let _ = nr;
        self.report_syscall(current, PTRACE_EVENTMSG_SYSCALL_ENTRY)
    }

    /// The embedder reports that thread `current` leaves its system call:
    /// as [`Kernel::ptrace_syscall_enter`], for the syscall-exit-stop.
    ///
    /// # Errors
    /// `ESRCH` if `current` is stale or exiting.
    ///
    /// # Linux
    /// `ptrace_report_syscall_exit()` (include/linux/ptrace.h).
    pub fn ptrace_syscall_exit(&mut self, current: TaskId) -> Result<bool> {
        self.report_syscall(current, PTRACE_EVENTMSG_SYSCALL_EXIT)
    }

    fn report_syscall(&mut self, current: TaskId, message: u64) -> Result<bool> {
        self.probed(crate::probe::Op::Ptrace, current, |k| {
            let t = k.current(current)?;
            let task = &k.tasks[t];
            if task.ptrace == 0 || task.jobctl & TIF_SYSCALL_TRACE == 0 || task.traced_stop() {
                return Ok(false);
            }
            let good = if unpack_options(task.ptrace_opts) & PTRACE_O_TRACESYSGOOD != 0 {
                0x80
            } else {
                0
            };
            k.set_ptrace_message(t, message);
            k.ptrace_stop(t, SIGTRAP | good, CLD_TRAPPED, TrapKind::Syscall);
            k.run_deferred();
            Ok(true)
        })
    }

    /// `current` traces `pid` (in any state).
    fn tracee(&self, current: TaskId, pid: i32) -> Result<TaskIx> {
        let cur = self.current(current)?;
        let t = self.find_task(self.ns_of(cur), pid).ok_or(Errno::ESRCH)?;
        let task = &self.tasks[t];
        if task.ptrace == 0 || task.parent != Some(cur) || task.exit_state() != ExitState::Alive {
            return Err(Errno::ESRCH);
        }
        Ok(t)
    }
}

impl Kernel {
    /// `ptrace_init_task()` at clone: the new task `child` of traced `cur`
    /// is traced too, by the same tracer with the same options, if the
    /// clone asked (`CLONE_PTRACE`) or the tracer did
    /// (`PTRACE_O_TRACEFORK`/`VFORK`/`CLONE` for this kind of clone), unless
    /// `CLONE_UNTRACED`. It starts stopped: on SIGSTOP, or seized in a
    /// `PTRACE_EVENT_STOP` trap. Returns the event `cur` must stop for
    /// (0: none).
    #[inline(always)]
    pub(crate) fn ptrace_init_task(
        &mut self,
        cur: TaskIx,
        child: TaskIx,
        flags: u64,
        exit_signal: i32,
    ) -> i32 {
        // An untraced caller's child starts untraced: one test here.
        if flags & crate::uapi::CLONE_UNTRACED != 0 || self.tasks[cur].ptrace == 0 {
            return 0;
        }
        self.ptrace_init_task_slow(cur, child, flags, exit_signal)
    }

    /// [`Self::ptrace_init_task`] for a traced caller.
    #[inline(never)]
    fn ptrace_init_task_slow(
        &mut self,
        cur: TaskIx,
        child: TaskIx,
        flags: u64,
        exit_signal: i32,
    ) -> i32 {
        use crate::uapi::{CLONE_PTRACE, CLONE_VFORK, SIGSTOP};
        let mut event = if flags & CLONE_VFORK != 0 {
            PTRACE_EVENT_VFORK
        } else if exit_signal != SIGCHLD {
            PTRACE_EVENT_CLONE
        } else {
            PTRACE_EVENT_FORK
        };
        if !self.ptrace_event_enabled(cur, event) {
            event = 0;
        }
        if flags & CLONE_PTRACE == 0 && event == 0 {
            return 0;
        }
        let tracer = self.tracer_of(cur);
        let mode = self.tasks[cur].ptrace;
        self.ptrace_link(child, tracer, mode);
        self.tasks[child].ptrace_opts = self.tasks[cur].ptrace_opts;
        if mode & PT_SEIZED != 0 {
            // do_jobctl_trap(): SIGTRAP, or the stop signal of a stopped
            // group it joins.
            let g = self.tasks[child].group;
            let sig = u32::from(self.groups[g].stop_sig)
                & crate::task::state::jobctl_flags::JOBCTL_STOP_SIGMASK;
            if self.groups[g]
                .flags
                .get()
                .contains(crate::task::task_struct::SIGNAL_STOP_STOPPED)
            {
                self.tasks[child].jobctl |= sig;
            }
            self.tasks[child].jobctl |= JOBCTL_TRAP_STOP;
            self.do_jobctl_trap(child);
        } else {
            // The child dequeues the SIGSTOP it starts with: ptrace_signal()
            // marks it JOBCTL_STOP_DEQUEUED, so that resumed with SIGSTOP
            // it stops again (tests/oracle/ptrace_edges.out,
            // clone_ptrace_stop).
            self.tasks[child].jobctl |= crate::task::state::jobctl_flags::JOBCTL_STOP_DEQUEUED;
            self.ptrace_trap(child, SIGSTOP);
        }
        event
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_options_keep_every_option() {
        for bit in 0..32 {
            let opt = 1u32 << bit;
            let back = unpack_options(pack_options(opt));
            assert_eq!(back, opt & PTRACE_O_MASK, "bit {bit}");
        }
        assert_eq!(unpack_options(pack_options(PTRACE_O_MASK)), PTRACE_O_MASK);
    }
}
