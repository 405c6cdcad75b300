//! Taking a signal: `get_signal()`, what a thread does on its way back to
//! user space when it has a deliverable signal, and the stops it may enter
//! (job-control stop, ptrace signal-delivery-stop).
//!
//! ```text
//!   get_signal(t)
//!     dequeue   t's own pending, then its process's, blocked ones left:
//!               synchronous signals first, then the lowest number
//!     traced?   ptrace_signal: stop for the tracer (CLD_TRAPPED), which
//!               may change or cancel the signal when it resumes t
//!     action    SIG_IGN / ignored by default: next
//!               handler: run it (SA_RESETHAND resets it now)
//!               stop: do_signal_stop (not in an orphaned pgrp, but SIGSTOP)
//!               else: the group dies (core bit by RLIMIT_CORE)
//! ```
//!
//! Who calls it depends on [`SignalDelivery`]: the kernel itself, at once,
//! or the embedder through [`Kernel::get_signal`].
//!
//! # Linux
//! kernel/signal.c: `get_signal()`, `dequeue_signal()`, `ptrace_signal()`,
//! `do_signal_stop()`, `do_notify_parent_cldstop()`, `signal_setup_done()`,
//! `restore_saved_sigmask()`; arch/x86/kernel/signal.c
//! `arch_do_signal_or_restart()`.

use crate::errno::Result;
use crate::ix::GroupIx;
use crate::ix::TaskIx;
use crate::task::kernel::{Kernel, Notification, SigInfo, TaskId};
use crate::task::signal::sigsend::{PidType, SendInfo};
use crate::task::state::delivery::{SignalAction, SignalDelivery, UNBLOCKABLE};
use crate::task::state::jobctl_flags::JOBCTL_STOP_DEQUEUED;
use crate::task::state::sighand::SigAction;
use crate::task::state::sigpending::{next_signal, sigmask};
use crate::task::task_struct::{
    ExitState, PF_EXITING, SIGNAL_CLD_CONTINUED, SIGNAL_GROUP_EXIT, SIGNAL_UNKILLABLE,
    TS_RESTORE_SIGMASK, TS_SIGSLEEP, TS_VFORK_WAIT,
};
use crate::uapi::{
    sig_kernel_coredump, sig_kernel_ignore, sig_kernel_only, sig_kernel_stop, CLD_CONTINUED,
    CLD_TRAPPED, SA_NODEFER, SIGCHLD, SIGCONT, SIGKILL, SIGSTOP, SI_USER,
};

/// One step of the `get_signal()` loop.
enum Step {
    /// Nothing deliverable.
    Nothing,
    /// A signal was discarded; look again.
    Again,
    /// The thread stopped.
    Stopped,
    /// The thread exits.
    Exit,
    /// A handler is to run.
    Handler(i32, SigInfo, SigAction),
}

/// # Signals: delivery (`get_signal()`) and return from handlers.
impl Kernel {
    /// How signals reach threads ([`SignalDelivery::Immediate`] until set).
    pub fn signal_delivery(&self) -> SignalDelivery {
        self.delivery
    }

    /// Sets how signals reach threads from now on. Switching to
    /// [`SignalDelivery::Immediate`] delivers at once whatever is
    /// deliverable.
    pub fn set_signal_delivery(&mut self, mode: SignalDelivery) {
        self.delivery = mode;
        if mode == SignalDelivery::Immediate {
            let all: Vec<TaskIx> = self.tasks.iter().map(|(t, _)| t).collect();
            for t in all {
                self.signal_wake_up(t);
            }
            self.run_deferred();
        }
    }

    /// `get_signal()`: thread `current`, on its way back to user space,
    /// takes its next deliverable signal: see [`SignalAction`]. Call it
    /// again after a handler frame is set up while it returns
    /// [`SignalAction::Handler`] if the embedder nests frames, or once per
    /// return to user space otherwise. With no signal to deliver, a mask
    /// saved by `rt_sigsuspend` is restored. A thread still waiting in
    /// vfork (no [`crate::Notification::VforkDone`] yet, no SIGKILL
    /// pending) is not on its way back: it takes nothing
    /// ([`SignalAction::None`]), and what it was sent waits for the
    /// vfork to complete, after which a `SigPending` says so.
    ///
    /// # Errors
    /// `ESRCH` if `current` is stale or exiting.
    ///
    /// # Linux
    /// `arch_do_signal_or_restart()` → `get_signal()` → `handle_signal()`
    /// → `signal_setup_done()`.
    pub fn get_signal(&mut self, current: TaskId) -> Result<SignalAction> {
        self.probed(crate::probe::Op::GetSignal, current, |k| {
            let t = k.current(current)?;
            let r = k.get_signal_one(t, false, u64::MAX);
            k.run_deferred();
            Ok(r)
        })
    }

    /// One dequeue of `get_signal()`: as [`Kernel::get_signal`], but a
    /// signal it dequeues and then discards (ignored by then, or a terminal
    /// stop in an orphaned process group) ends the call with
    /// [`SignalAction::None`] instead of the loop going on to the next
    /// one, which stays pending. For an embedder whose real thread is
    /// traced: its kernel stops it at each signal it dequeues, so each
    /// signal-delivery stop takes exactly one.
    ///
    /// # Errors
    /// `ESRCH` if `current` is stale or exiting.
    ///
    /// # Linux
    /// `get_signal()` of a ptraced task: `ptrace_signal()` reports each
    /// dequeued signal before the checks that may discard it.
    pub fn get_signal_once(&mut self, current: TaskId) -> Result<SignalAction> {
        self.probed(crate::probe::Op::GetSignal, current, |k| {
            let t = k.current(current)?;
            let r = k.get_signal_one(t, true, u64::MAX);
            k.run_deferred();
            Ok(r)
        })
    }

    /// One dequeue of `get_signal()` that takes signal `sig` only: as
    /// [`Kernel::get_signal_once`], but the other pending signals are
    /// left pending for this dequeue, as if blocked (the job-control
    /// steps before the dequeue, and a signal a tracer resumed the thread
    /// with, are as there). For an embedder whose real thread is traced
    /// and has reported which signal it dequeued (`PTRACE_GETSIGINFO` at
    /// its signal-delivery stop): a signal the embedder applied to the
    /// core before the real kernel generated it (so after that dequeue)
    /// would otherwise be taken first by the lowest-number rule. With
    /// `sig` not pending, or blocked, nothing is dequeued
    /// ([`SignalAction::None`]).
    ///
    /// # Errors
    /// `EINVAL` if `sig` is not a signal number (1..=64); `ESRCH` if
    /// `current` is stale or exiting.
    ///
    /// # Linux
    /// `dequeue_signal()` with a mask of the signals not to take, as
    /// `do_sigtimedwait()` and `signalfd_dequeue()` call it; here inside
    /// `get_signal()` of a ptraced task (`ptrace_signal()`).
    pub fn get_signal_once_of(&mut self, current: TaskId, sig: i32) -> Result<SignalAction> {
        if !(1..=64).contains(&sig) {
            return Err(crate::errno::Errno::EINVAL);
        }
        self.probed(crate::probe::Op::GetSignal, current, |k| {
            let t = k.current(current)?;
            let r = k.get_signal_one(t, true, sigmask(sig));
            k.run_deferred();
            Ok(r)
        })
    }

    /// The job-control part of `get_signal()` alone, for a thread that a
    /// tracer outside the kernel saw stop in a group stop, or resume from
    /// one, with signals still pending that it has not dequeued yet:
    /// thread `current` tells its parent of a continued group
    /// (`SIGNAL_CLD_CONTINUED`: `CLD_CONTINUED`), then takes part in the
    /// group stop in progress ([`SignalAction::Stopped`]), or stays stopped
    /// ([`SignalAction::Stopped`] too); [`SignalAction::None`] otherwise,
    /// [`SignalAction::Exit`] if its group is exiting. No signal is
    /// dequeued: those wait for the next [`Kernel::get_signal`].
    ///
    /// # Errors
    /// `ESRCH` if `current` is stale or exiting.
    ///
    /// # Linux
    /// The head of `get_signal()` before `dequeue_signal()`:
    /// `do_notify_parent_cldstop()` for `SIGNAL_CLD_MASK`, then
    /// `do_signal_stop()` / `do_jobctl_trap()` for `JOBCTL_STOP_PENDING`
    /// and `JOBCTL_TRAP_MASK`.
    pub fn get_signal_jobctl(&mut self, current: TaskId) -> Result<SignalAction> {
        self.probed(crate::probe::Op::GetSignal, current, |k| {
            let t = k.current(current)?;
            let r = loop {
                match k.get_signal_head(t) {
                    Some(Step::Again) => continue,
                    Some(_) => break SignalAction::Exit,
                    None => {}
                }
                // The signal its tracer resumed it with comes first.
                let resumed = !k.tasks[t].traced_stop() && k.side.resume_signals.contains_key(&t);
                break if !resumed && k.get_signal_stop(t) {
                    SignalAction::Stopped
                } else {
                    SignalAction::None
                };
            };
            k.run_deferred();
            Ok(r)
        })
    }

    /// The `get_signal()` loop until it delivers something or finds
    /// nothing (`once`: or discards the one signal it dequeued), its
    /// dequeues taking only signals in `allow`; a handler's mask is
    /// applied.
    fn get_signal_one(&mut self, t: TaskIx, once: bool, allow: u64) -> SignalAction {
        if self.held_in_vfork(t) {
            return SignalAction::None;
        }
        if once {
            // The head's notifications dequeue nothing: past them, an
            // `Again` is a discarded signal.
            loop {
                match self.get_signal_head(t) {
                    Some(Step::Again) => continue,
                    Some(_) => return SignalAction::Exit,
                    None => break,
                }
            }
        }
        loop {
            match self.get_signal_step(t, allow) {
                Step::Again if once => {
                    if !self.has_deliverable(t) {
                        self.restore_saved_sigmask(t);
                    }
                    return SignalAction::None;
                }
                Step::Again => continue,
                Step::Nothing => {
                    // Others left pending by `allow` are still to come.
                    if allow == u64::MAX || !self.has_deliverable(t) {
                        self.restore_saved_sigmask(t);
                    }
                    return SignalAction::None;
                }
                Step::Stopped => return SignalAction::Stopped,
                Step::Exit => return SignalAction::Exit,
                Step::Handler(sig, info, action) => {
                    let old_mask = if self.tasks[t].flags.contains(TS_RESTORE_SIGMASK) {
                        self.tasks[t].flags &= !TS_RESTORE_SIGMASK;
                        self.take_saved_sigmask(t)
                    } else {
                        self.tasks[t].blocked
                    };
                    let task = &mut self.tasks[t];
                    let mut blocked = task.blocked | action.mask;
                    if action.flags & SA_NODEFER == 0 {
                        blocked |= sigmask(sig);
                    }
                    task.blocked = blocked & !UNBLOCKABLE;
                    return SignalAction::Handler {
                        sig,
                        info,
                        action,
                        old_mask,
                    };
                }
            }
        }
    }

    /// `restore_saved_sigmask()`.
    fn restore_saved_sigmask(&mut self, t: TaskIx) {
        if self.tasks[t].flags.contains(TS_RESTORE_SIGMASK) {
            self.tasks[t].flags &= !TS_RESTORE_SIGMASK;
            self.tasks[t].blocked = self.take_saved_sigmask(t);
            self.recalc_sigpending(t);
        }
    }

    /// Thread `t` may have a deliverable signal: [`SignalDelivery`] says
    /// what happens (`signal_wake_up()`).
    pub(crate) fn signal_wake_up(&mut self, t: TaskIx) {
        if !self.tasks.contains(t) {
            return;
        }
        if self.held_in_vfork(t) {
            // It takes what is pending once its vfork completes
            // (mm_release()).
            return;
        }
        let task = &self.tasks[t];
        if task.flags.contains(TS_SIGSLEEP) {
            // It takes its signal when its call is retried.
            if self.has_deliverable(t) {
                self.wake_sleeper(t);
            }
            return;
        }
        match self.delivery {
            SignalDelivery::Immediate => self.get_signal_immediate(t),
            SignalDelivery::OnGetSignal => self.recalc_sigpending(t),
        }
    }

    /// `recalc_sigpending()` + `signal_wake_up()`: tells the embedder that
    /// `t` has a signal to take ([`SignalDelivery::OnGetSignal`]).
    pub(crate) fn recalc_sigpending(&mut self, t: TaskIx) {
        if self.delivery == SignalDelivery::OnGetSignal
            && self.has_deliverable(t)
            && !self.task_is_stopped_or_traced(t)
            && !self.held_in_vfork(t)
        {
            let task = self.handle_unchecked(t);
            self.notify(Notification::SigPending { task });
        }
    }

    /// Thread `t` sleeps in `wait_for_vfork_done()` and nothing wakes it:
    /// the sleep is `TASK_KILLABLE`, so only a pending SIGKILL ends it
    /// early. What it is sent meanwhile stays pending (signals, a group
    /// stop to take part in, ptrace traps).
    pub(crate) fn held_in_vfork(&self, t: TaskIx) -> bool {
        self.tasks[t].flags.contains(TS_VFORK_WAIT) && !self.sigkill_pending(t)
    }

    /// `signal_wake_up()` reached thread `t` asleep in vfork, which it
    /// does not wake: `t` has `TIF_SIGPENDING` until its vfork completes
    /// (an entry in the `vfork_claims` side table), so `wants_signal()`
    /// refuses it further signals.
    pub(crate) fn sigpending_in_vfork(&mut self, t: TaskIx) {
        if self.tasks.get(t).is_some() && self.held_in_vfork(t) {
            self.side.vfork_claims.entry(t).or_default();
        }
    }

    /// SIGKILL is pending for `t` or its process (`fatal_signal_pending()`).
    pub(crate) fn sigkill_pending(&self, t: TaskIx) -> bool {
        let task = &self.tasks[t];
        (task.pending.signal() | self.groups[task.group].shared_pending.signal()) & sigmask(SIGKILL)
            != 0
    }

    /// Some signal pending for `t`, on itself or its process, is not
    /// blocked.
    pub(crate) fn has_deliverable(&self, t: TaskIx) -> bool {
        let task = &self.tasks[t];
        let shared = self.groups[task.group].shared_pending.signal() & !self.claimed_by_others(t);
        (task.pending.signal() | shared) & !task.blocked != 0
            || self.side.resume_signals.contains_key(&t)
            || task.jobctl & crate::task::state::jobctl_flags::JOBCTL_PENDING_MASK != 0
            || self.groups[task.group]
                .flags
                .get()
                .contains(SIGNAL_CLD_CONTINUED)
    }

    /// The process-wide signals that `complete_signal()` gave to another
    /// thread of `t`'s group asleep in vfork: `t` has no `TIF_SIGPENDING`
    /// for them (the `vfork_claims` side table).
    fn claimed_by_others(&self, t: TaskIx) -> u64 {
        if self.side.vfork_claims.is_empty() {
            return 0;
        }
        let g = self.tasks[t].group;
        self.side
            .vfork_claims
            .iter()
            .filter(|&(&u, _)| u != t && self.tasks.get(u).is_some_and(|x| x.group == g))
            .fold(0, |m, (_, &s)| m | s)
    }

    /// Every thread of group `g` may have something to take (it was
    /// resumed).
    pub(crate) fn wake_group(&mut self, g: GroupIx) {
        for t in self.threads(g) {
            if self.tasks.get(t).is_some_and(|x| x.group == g) {
                self.signal_wake_up(t);
            }
        }
    }

    /// [`SignalDelivery::Immediate`]: `t` takes every signal it can now;
    /// handlers run and return at once.
    fn get_signal_immediate(&mut self, t: TaskIx) {
        while let SignalAction::Handler {
            sig,
            info,
            old_mask,
            ..
        } = self.get_signal_one(t, false, u64::MAX)
        {
            // The handler ran at once; its sigreturn gave back the mask
            // its frame saved.
            self.tasks[t].blocked = old_mask;
            let task = self.handle_unchecked(t);
            self.notify(Notification::Handler { task, sig, info });
        }
    }

    /// The head of one turn of `get_signal()`'s loop for thread `t`: the
    /// exit checks and the parent's `CLD_CONTINUED`; `None` to go on.
    fn get_signal_head(&mut self, t: TaskIx) -> Option<Step> {
        let Some(task) = self.tasks.get(t) else {
            return Some(Step::Exit);
        };
        if task.flags.contains(PF_EXITING) || task.exit_state() != ExitState::Alive {
            return Some(Step::Exit);
        }
        let g = task.group;
        if self.groups[g].flags.get().contains(SIGNAL_GROUP_EXIT) {
            return Some(Step::Exit);
        }
        if self.groups[g].flags.get().contains(SIGNAL_CLD_CONTINUED) {
            // The group was continued: this thread tells the parent.
            self.set_group_flags(g, self.groups[g].flags.get() & !SIGNAL_CLD_CONTINUED);
            self.notify_parent_cldstop(g, CLD_CONTINUED);
            return Some(Step::Again);
        }
        None
    }

    /// The stop step of `get_signal()` for thread `t`: it takes part in a
    /// group stop or trap pending for it, or is stopped already.
    fn get_signal_stop(&mut self, t: TaskIx) -> bool {
        // A stop sleeps TASK_WAKEKILL: a pending SIGKILL (one that did not
        // take the fast path: a namespace init's) ends it.
        !self.sigkill_pending(t) && (self.jobctl_step(t) || self.task_is_stopped_or_traced(t))
    }

    /// One turn of `get_signal()`'s loop for thread `t`, its dequeue
    /// taking only signals in `allow`.
    fn get_signal_step(&mut self, t: TaskIx, allow: u64) -> Step {
        if let Some(step) = self.get_signal_head(t) {
            return step;
        }
        let task = &self.tasks[t];
        // The signal its tracer resumed it with: taken on the way out of
        // the ptrace stop, before anything else (even in a stopped group).
        if !task.traced_stop() && !self.side.resume_signals.is_empty() {
            if let Some(info) = self.side.resume_signals.remove(&t) {
                // do_signal_stop() gives a stop signal up when a SIGCONT
                // came during the signal-delivery-stop
                // (tests/oracle/ptrace_edges.out, sigstop_cancelled*).
                let dequeued = self.tasks[t].jobctl & JOBCTL_STOP_DEQUEUED != 0;
                self.tasks[t].jobctl &= !JOBCTL_STOP_DEQUEUED;
                if sig_kernel_stop(info.signo) && !dequeued {
                    return Step::Again;
                }
                return self.act_on_signal(t, info.signo, info);
            }
        }
        if self.get_signal_stop(t) {
            return Step::Stopped;
        }
        let Some((sig, info)) = self.dequeue_signal(t, !self.tasks[t].blocked & allow) else {
            return Step::Nothing;
        };
        if self.tasks[t].ptrace != 0 && sig != SIGKILL {
            // ptrace_signal(): the tracer decides when it resumes us.
            self.tasks[t].jobctl |= JOBCTL_STOP_DEQUEUED;
            self.side.trap_info.insert(t, info);
            self.ptrace_trap(t, sig);
            return Step::Stopped;
        }
        self.act_on_signal(t, sig, info)
    }

    /// `dequeue_signal()`: the next signal of `t`'s own pending set, else
    /// of its process's, among those in `mask`, with its siginfo.
    pub(crate) fn dequeue_signal(&mut self, t: TaskIx, mask: u64) -> Option<(i32, SigInfo)> {
        let g = self.tasks[t].group;
        let (info, uid) = if let Some(sig) = next_signal(self.tasks[t].pending.signal() & mask) {
            self.tasks[t].pending.collect(sig)
        } else {
            let sig = next_signal(self.groups[g].shared_pending.signal() & mask)?;
            self.groups[g].shared_pending.collect(sig)
        };
        if let Some(uid) = uid {
            self.sigqueue_uncharge(uid);
        }
        Some((info.signo, info))
    }

    /// The part of `get_signal()` after `ptrace_signal()`: `t` acts on
    /// `sig` by its group's action.
    fn act_on_signal(&mut self, t: TaskIx, sig: i32, info: SigInfo) -> Step {
        let g = self.tasks[t].group;
        let sh = self.groups[g].sighand.get();
        if sh.is_ignored(sig) {
            return Step::Again;
        }
        if sh.is_handled(sig) {
            let action = self.sigaction_of(g, sig);
            if sh.resethand & sigmask(sig) != 0 {
                self.reset_handler(g, sig);
            }
            return Step::Handler(sig, info, action);
        }
        if sig_kernel_ignore(sig) {
            return Step::Again;
        }
        // Init gets no signal it does not want, but SIGKILL/SIGSTOP that
        // came from an ancestor namespace (sig_task_ignored() let them in).
        if self.groups[g].flags.get().contains(SIGNAL_UNKILLABLE) && !sig_kernel_only(sig) {
            return Step::Again;
        }
        if sig_kernel_stop(sig) {
            // Terminal stops are discarded in an orphaned process group.
            if sig != SIGSTOP && self.will_become_orphaned_pgrp(self.groups[g].pgrp, None) {
                return Step::Again;
            }
            if self.do_signal_stop(t, sig) {
                return Step::Stopped;
            }
            return Step::Again;
        }
        let core = sig_kernel_coredump(sig) && self.dumps_core(g);
        self.kill_group(g, sig | if core { 0x80 } else { 0 });
        // do_group_exit() -> do_exit(): traced with PTRACE_O_TRACEEXIT,
        // the thread is in its PTRACE_EVENT_EXIT stop first.
        if self.tasks.get(t).is_some_and(|x| x.traced_stop()) {
            return Step::Stopped;
        }
        Step::Exit
    }

    /// A tracer resumed `t` with signal `sig` (0: none): as `ptrace_signal()`
    /// goes on after `ptrace_stop()`. A signal other than the one `t`
    /// stopped with is sent "by the tracer" (`SI_USER`); one `t` blocks is
    /// queued on it again.
    pub(crate) fn ptrace_resume_signal(&mut self, t: TaskIx, sig: i32, info: Option<SigInfo>) {
        if sig == 0 {
            return;
        }
        let info = match info {
            Some(i) if i.signo == sig => i,
            _ => {
                let (pid, uid) = if let Some(tracer) = self.tasks[t].parent {
                    (
                        self.pid_nr_ns(self.tasks[tracer].pid, self.ns_of(t)),
                        self.uid_seen_by(t, self.tasks[tracer].cred.uid),
                    )
                } else {
                    (0, 0)
                };
                SigInfo {
                    signo: sig,
                    code: SI_USER,
                    pid,
                    uid,
                    ..SigInfo::default()
                }
            }
        };
        if self.tasks[t].blocked & sigmask(sig) != 0 {
            // Linux requeues it; that cannot fail for a signal the tracer
            // chose (SI_USER).
            let _ = self.send_signal_locked(t, sig, SendInfo::Info(info), PidType::Pid, false);
            return;
        }
        // Taken by t's next get_signal() before anything else, past
        // ptrace_signal().
        self.side.resume_signals.insert(t, info);
    }

    /// `do_notify_parent_cldstop(tsk, false, why)`: SIGCHLD (unless
    /// `SA_NOCLDSTOP` or ignored) and a wake-up to the real parent.
    pub(crate) fn notify_parent_cldstop(&mut self, g: GroupIx, why: i32) {
        let Some(parent) = self.groups[g].real_parent else {
            return;
        };
        let leader = self.groups[g].leader;
        let status = if why == CLD_CONTINUED {
            SIGCONT
        } else {
            self.groups[g].group_exit_code.get() & 0x7f
        };
        let info = SigInfo {
            signo: SIGCHLD,
            code: why,
            pid: self.pid_nr_ns(self.tasks[leader].pid, self.ns_of(parent)),
            uid: self.uid_seen_by(parent, self.tasks[leader].cred.uid),
            status,
            value: 0,
        };
        let psig = self.groups[self.tasks[parent].group].sighand.get();
        if !psig.is_ignored(SIGCHLD) && !psig.nocldstop() {
            self.send_kernel_signal(parent, SIGCHLD, info);
        }
        self.wake_parent(parent);
    }

    /// Puts traced task `t` in a signal-delivery-stop reporting `sig` to
    /// its tracer (`ptrace_stop(sig, CLD_TRAPPED)`, `task/ptrace/event.rs`).
    pub(crate) fn ptrace_trap(&mut self, t: TaskIx, sig: i32) {
        self.ptrace_stop(
            t,
            sig,
            CLD_TRAPPED,
            crate::task::ptrace::event::TrapKind::Signal,
        );
    }
}
