//! The signal path: the signal state (handler frames, sleeping waits) and
//! the `--- SIGxxx {...} ---` lines; the signal calls that act on it are
//! in [`sigcalls`](super::sigcalls).
//!
//! # Delivery happens at the `---` lines
//! The replay's kernel runs in [`SignalDelivery::OnGetSignal`]: a signal
//! sent by a replayed call stays pending until the thread that takes it
//! reaches its `--- SIGxxx` line, where the engine calls
//! [`Kernel::get_signal`] and compares what it delivers (signal, siginfo)
//! with the line. Under strace every task is a tracee, and every signal a
//! tracee dequeues but SIGKILL passes through a signal-delivery-stop that
//! strace prints: so a thread's `---` lines are exactly its dequeues, and
//! at its other lines it takes nothing.
//!
//! Every traced task is the emulated strace's tracee in the core
//! ([`strace`](super::strace)): `sig_ignored()` keeps its ignored signals
//! queued, `get_signal()` stops it at each dequeue (the `---` line, where
//! strace resumes it with the signal) and reads the action after the
//! stop, so a signal it ignores is dequeued and discarded there.
//!
//! A signal whose sender the replay does not model (a terminal, a timer, a
//! fault, `SIGPIPE`, a process outside the trace) is sent at its `---`
//! line with the recorded siginfo, then delivered; these are counted apart.
//!
//! # Handler frames
//! A delivered handler raises the mask; its `rt_sigreturn` line restores
//! the mask the frame saved, which is checked against strace's `{mask=}`,
//! and its result against the interrupted call's (`ERESTARTSYS` restarts
//! under `SA_RESTART`, else EINTR). A trace without `%signal` records no
//! `rt_sigreturn` and no mask: there the handler returns at once.

use std::sync::Arc;

use taskcore::uapi::{
    sig_kernel_ignore, sig_kernel_stop, CLD_STOPPED, SA_RESTART, SIGCHLD, SIGCONT, SIGKILL,
    SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU, SI_KERNEL, SI_USER,
};
use taskcore::{Errno, SigHandler, SigInfo, SignalAction, TaskId};

use super::notation::signame;
use super::sigwait::Waker;
use super::state::Frame;
use super::Engine;
use crate::event::Call;
use crate::event::{Event, Kind, Outcome, RecSigInfo, Restart};
use crate::sigbit::bit;

/// SIGKILL and SIGSTOP, never blocked.
const UNBLOCKABLE: u64 = (1 << (SIGKILL - 1)) | (1 << (SIGSTOP - 1));

impl Engine {
    /// Drops the signal state of threads that are gone.
    pub(super) fn sweep_signals(&mut self) {
        let k = &self.k;
        let pids = &self.pids;
        self.sig.frames.retain(|t, _| k.getpid(*t).is_ok());
        self.sig.sleeping.retain(|t, _| k.getpid(*t).is_ok());
        self.sig
            .unapplied_sends
            .retain(|rec, n| *n > 0 && pids.is_live(*rec));
        self.sig.last_restart.retain(|rec, _| pids.is_live(*rec));
        self.sig.ignored_takes.retain(|t, _| k.getpid(*t).is_ok());
        self.sig.sent_ignored.retain(|g, _| k.getpid(*g).is_ok());
    }

    /// Before a traced kill, tgkill or tkill of `sig` to `target`: notes
    /// the send if `target` ignores `sig` and does not block it.
    /// `sig_ignored()` would discard it at the send but for the tracee
    /// exception (every task is strace's tracee): the core keeps it
    /// queued, and `get_signal()` reads the action only after the
    /// signal-delivery-stop, so a handler set meanwhile runs (CPython's
    /// `test_stress_modifying_handlers`). Counted at the `---` line that
    /// takes it with a handler or the default action; nothing else reads
    /// it.
    pub(super) fn note_send(&mut self, target: TaskId, sig: i32) {
        if !(1..=64).contains(&sig) || sig == SIGKILL {
            return;
        }
        if self.k.sigmask(target).unwrap_or(0) & bit(sig) != 0 || !self.ignores(target, sig) {
            return;
        }
        if let Ok(leader) = self.leader_of(target) {
            *self.sig.sent_ignored.entry(leader).or_default() |= bit(sig);
        }
    }

    /// After thread `cur`'s `rt_sigaction` of `sig`: an action that
    /// ignores it flushed the pending ones (`do_sigaction()`), so the
    /// note of [`Engine::note_send`] goes.
    pub(super) fn flush_sent_ignored(&mut self, cur: TaskId, sig: i32) {
        if self.sig.sent_ignored.is_empty() || !self.ignores(cur, sig) {
            return;
        }
        if let Ok(leader) = self.leader_of(cur) {
            if let Some(m) = self.sig.sent_ignored.get_mut(&leader) {
                *m &= !bit(sig);
            }
        }
    }

    /// At thread `cur`'s `---` line of `sig`, which the core held: counts
    /// the line (checked like any other) if the signal was sent while
    /// ignored and is now taken with a handler or the default action.
    fn count_sent_ignored(&mut self, cur: TaskId, sig: i32, ignored: bool) {
        if self.sig.sent_ignored.is_empty() {
            return;
        }
        let Ok(leader) = self.leader_of(cur) else {
            return;
        };
        let Some(m) = self.sig.sent_ignored.get_mut(&leader) else {
            return;
        };
        if *m & bit(sig) == 0 {
            return;
        }
        *m &= !bit(sig);
        if !ignored {
            *self
                .stats
                .checked_calls
                .entry("--- signal sent while ignored, kept by tracing".into())
                .or_default() += 1;
        }
    }

    /// A call the replay skips: one that sends a signal is remembered, so
    /// that the `---` line it causes is not taken for a lost signal.
    pub(super) fn note_skipped(&mut self, e: &Event, name: &str) {
        if matches!(
            name,
            "pidfd_send_signal" | "rt_sigqueueinfo" | "rt_tgsigqueueinfo"
        ) && matches!(e.ret, Outcome::Value(0))
        {
            let tgid = self.tgid_of_rec(e.pid);
            *self.sig.unapplied_sends.entry(tgid).or_default() += 1;
        }
    }

    /// The recorded tgid of recorded thread `rec` (itself if unknown).
    fn tgid_of_rec(&self, rec: i32) -> i32 {
        self.pids
            .task(rec)
            .and_then(|t| self.k.getpid(t.task).ok())
            .and_then(|nr| self.pids.rec_of(nr))
            .unwrap_or(rec)
    }

    /// Notes the last call of a thread (before a `---` line, it tells how a
    /// handler ends it).
    pub(super) fn note_call(&mut self, e: &Event) {
        if !matches!(
            e.kind,
            Kind::Signal { .. } | Kind::Stopped { .. } | Kind::Die { .. }
        ) && !e.kind.is_sigreturn()
        {
            self.sig.last_restart.insert(e.pid, e.restart);
        }
    }

    /// Applies and checks a `---` line or a restart_syscall.
    pub(super) fn apply_signal(&mut self, e: &Arc<Event>, cur: TaskId) {
        match &e.kind {
            Kind::Signal { sig, info } => self.signal_line(e, cur, *sig, *info),
            Kind::Call(Call::RestartSyscall { .. }) => {
                // The kernel resumed a call a stop or an ignored signal
                // interrupted: only right if the thread's last call was
                // interrupted (and did not run a handler since).
                self.stats.checked += 1;
                let last = self.sig.last_restart.get(&e.pid).copied().flatten();
                if last.is_none() {
                    self.mismatch(
                        e,
                        "restart",
                        "an interrupted call".into(),
                        "last call not interrupted".into(),
                    );
                }
            }
            _ => {}
        }
    }

    /// The core's siginfo for a recorded one given by the caller.
    pub(super) fn given_info(&self, sig: i32, i: &RecSigInfo) -> SigInfo {
        let pid = match i.pid {
            Some(p) if p > 0 && !self.pids.is_outside(p) => self.pids.map_nr(p),
            Some(p) => p,
            None => 0,
        };
        SigInfo {
            signo: sig,
            code: i.code,
            pid,
            uid: i.uid.unwrap_or(0),
            status: i.status.unwrap_or(0),
            value: i
                .ptr
                .unwrap_or_else(|| u64::from(i.int.unwrap_or(0) as u32)),
        }
    }

    /// Whether `t` has something it would take now, with `blocked` as its
    /// mask.
    pub(super) fn deliverable(&self, t: TaskId, blocked: u64) -> bool {
        let (p, s) = self.k.pending_signals(t).unwrap_or((0, 0));
        (p | s) & !(blocked & !UNBLOCKABLE) != 0
    }

    /// What can have woken thread `cur` from the wait of `e` when the
    /// emulation holds nothing it would take: the signal of its next
    /// `---` line, sent from outside the replay (rule 7 of the crate
    /// docs). A signal the thread ignores needs nothing here: the core
    /// keeps it queued for a tracee (`sig_ignored()`) and it wakes the
    /// wait; so does a SIGCONT another thread takes, which under
    /// `PTRACE_SEIZE` wakes every thread of its process
    /// (`ptrace_trap_notify()`, the core's).
    pub(super) fn next_waker(&mut self, e: &Event) -> Waker {
        match self.facts.next_signal {
            Some((sig, info)) if self.unmodelled_sender(e.pid, sig, info.as_ref()) => {
                Waker::Outside
            }
            _ => Waker::Nothing,
        }
    }

    /// Whether `sig`'s action for `t` is to ignore it (`SIG_IGN`, or
    /// `SIG_DFL` of a signal ignored by default), or `t` is a pid
    /// namespace's init without a handler for it: Linux drops it at send
    /// (`sig_task_ignored()`), for a tracee in `get_signal()` after the
    /// signal-delivery-stop strace prints; SIGKILL and SIGSTOP aside.
    pub(super) fn ignores(&mut self, t: TaskId, sig: i32) -> bool {
        match self.k.rt_sigaction(t, sig, None) {
            Ok(a) => match a.handler {
                SigHandler::Ignore => true,
                SigHandler::Default => {
                    sig_kernel_ignore(sig)
                        || (sig != SIGKILL
                            && sig != SIGSTOP
                            && t != self.world.init
                            && self.k.getpid(t) == Ok(1))
                }
                _ => false,
            },
            Err(_) => false,
        }
    }

    /// Compares a recorded siginfo with the core's.
    ///
    /// As received by `cur`: in a nested pid namespace, `si_pid` is its
    /// namespace's number, compared as it is.
    pub(super) fn compare_info(
        &mut self,
        e: &Event,
        cur: TaskId,
        want: &RecSigInfo,
        got: &SigInfo,
    ) {
        let nested = self.nested(cur);
        // (field, recorded, emulated), in strace's notation.
        let mut diffs: Vec<(&str, String, String)> = Vec::new();
        if want.signo != got.signo {
            diffs.push(("si_signo", signame(want.signo), signame(got.signo)));
        }
        if want.code != got.code {
            diffs.push((
                "si_code",
                super::notation::fmt_si_code(want.signo, want.code),
                super::notation::fmt_si_code(got.signo, got.code),
            ));
        }
        if let Some(p) = want.pid {
            let released_same =
                || self.pids.nr_of(p).is_none() && self.pids.was(p) == Some(got.pid);
            let same = (nested && p == got.pid)
                || self.pids.same_id(p, got.pid, &self.world.outside)
                || released_same();
            if !same {
                let emu = if nested {
                    got.pid.to_string()
                } else {
                    self.rec_pid(got.pid)
                };
                diffs.push(("si_pid", p.to_string(), emu));
            }
        }
        if let Some(u) = want.uid.filter(|_| self.learned.ids_shown) {
            if u != got.uid {
                diffs.push(("si_uid", u.to_string(), got.uid.to_string()));
            }
        }
        if let (Some(s), true) = (want.status, want.signo == SIGCHLD) {
            if s != got.status {
                diffs.push((
                    "si_status",
                    super::notation::fmt_si_status(want.code, s),
                    super::notation::fmt_si_status(got.code, got.status),
                ));
            }
        }
        if want.code > 0 && got.value == 0 && want.signo != SIGCHLD {
            // A child's exit signal other than SIGCHLD: strace decodes the
            // siginfo as a queued one, so si_int is si_status (and si_ptr
            // mixes in si_utime).
            if let Some(v) = want.int {
                if v != got.status {
                    diffs.push(("si_int", v.to_string(), got.status.to_string()));
                }
            }
        } else if let Some(v) = want.ptr {
            if v != got.value {
                diffs.push(("si_ptr", format!("{v:#x}"), format!("{:#x}", got.value)));
            }
        } else if let Some(v) = want.int {
            if v != got.value as u32 as i32 {
                diffs.push((
                    "si_int",
                    v.to_string(),
                    (got.value as u32 as i32).to_string(),
                ));
            }
        }
        if !diffs.is_empty() {
            let rec: Vec<String> = diffs.iter().map(|d| format!("{}={}", d.0, d.1)).collect();
            let emu: Vec<String> = diffs.iter().map(|d| format!("{}={}", d.0, d.2)).collect();
            let (rec, emu) = (rec.join(", "), emu.join(", "));
            self.mismatch(e, "siginfo", rec, emu);
        }
    }

    /// Whether a signal the core does not hold came from a sender the
    /// replay does not model: the kernel for a terminal, timer, fault or
    /// I/O, `SIGPIPE`/`SIGXFSZ` a call raised, or a process outside the
    /// trace.
    pub(super) fn unmodelled_sender(&self, rec: i32, sig: i32, info: Option<&RecSigInfo>) -> bool {
        let Some(i) = info else {
            return true;
        };
        if i.pid
            .is_some_and(|p| self.sig.unapplied_sends.get(&p).is_some_and(|n| *n > 0))
        {
            return true;
        }
        let own = self.pids.task(rec).map(|_| rec);
        match i.code {
            SI_KERNEL => true,
            c if c > 0 => sig != SIGCHLD,
            // SI_TIMER, SI_MESGQ, SI_ASYNCIO, SI_SIGIO, SI_ASYNCNL.
            -2 | -3 | -4 | -5 | -60 => true,
            SI_USER if matches!(sig, 13 | 25 | 24) && i.pid.is_some() && own.is_some() => true,
            // A sender the trace never created (its number may have been
            // learned as the root's inherited group).
            _ => i.pid.is_some_and(|p| {
                p > 0 && self.pids.nr_of(p).is_none() && self.pids.was(p).is_none()
            }),
        }
    }

    /// Queues `sig` (siginfo `info`, SI_KERNEL without one) for thread
    /// `cur` now, for the line or call `e` that took it from a sender the
    /// replay does not model (`at`: where it is sent, "line" or "call");
    /// counted as applied, not checkable.
    ///
    /// Errors: the core's refusal of the queueing (`rt_tgsigqueueinfo`).
    pub(super) fn send_from_outside(
        &mut self,
        e: &Event,
        cur: TaskId,
        sig: i32,
        info: Option<RecSigInfo>,
        at: &str,
    ) -> taskcore::Result<()> {
        if let Some(n) = info
            .and_then(|i| i.pid)
            .and_then(|p| self.sig.unapplied_sends.get_mut(&p))
        {
            *n = n.saturating_sub(1);
        }
        let what = match e.kind {
            Kind::Signal { .. } => "--- signal".to_string(),
            _ => e.kind.name().to_string(),
        };
        *self
            .stats
            .unchecked
            .entry(format!(
                "{what} (sender outside the replay: sent at the {at})"
            ))
            .or_default() += 1;
        let si = info.map_or(
            SigInfo {
                signo: sig,
                code: SI_KERNEL,
                ..SigInfo::default()
            },
            |i| self.given_info(sig, &i),
        );
        let tgid = self.k.getpid(cur).unwrap_or(0);
        let tid = self.k.pid_vnr(cur, cur).unwrap_or(0);
        self.k.rt_tgsigqueueinfo(cur, tgid, tid, sig, si)
    }

    /// A `--- SIGxxx {...} ---` line: thread `cur` dequeues `sig`.
    fn signal_line(&mut self, e: &Event, cur: TaskId, sig: i32, info: Option<RecSigInfo>) {
        self.mark_signal(e, cur, sig, info.and_then(|i| i.pid).unwrap_or(0));
        self.undo_frame_blocking(cur, sig);
        let (p, s) = match self.k.pending_signals(cur) {
            Ok(x) => x,
            Err(_) => return self.unchecked(e),
        };
        let ignored = self.ignores(cur, sig);
        self.stats.checked += 1;
        self.stats.signals_checked += 1;
        if (p | s) & bit(sig) != 0 {
            self.count_sent_ignored(cur, sig, ignored);
        } else {
            self.want_cause(e, sig, info);
            if !self.unmodelled_sender(e.pid, sig, info.as_ref()) {
                return self.mismatch(
                    e,
                    "signal",
                    format!("{} pending", signame(sig)),
                    format!("not pending ({} held)", sigset(p | s)),
                );
            }
            // Sent from outside the replay: sent now, then delivered.
            self.stats.signals_checked -= 1;
            if let Err(err) = self.send_from_outside(e, cur, sig, info, "line") {
                return self.mismatch(e, "signal", "sent".into(), err.name().into());
            }
        }
        if let Some(w) = self.sig.sleeping.remove(&cur) {
            // The signal ends the wait: the call is retried and fails.
            let r = self.sys_sigwait(cur, &w.retried()).map(drop);
            if r != Err(Errno::EINTR) {
                self.mismatch(
                    e,
                    "interrupted wait",
                    "= -1 EINTR".into(),
                    super::notation::fmt_unit(&r),
                );
            }
        }
        if ignored {
            self.note_ignored_take(e, cur, sig);
            self.stats.signals_ignored += 1;
        }
        self.deliver(e, cur, sig, info);
    }

    /// What caused signal `sig` (siginfo `info`) that thread `e.pid` takes
    /// at `e`, which the core does not hold, may be printed later: a call
    /// of the sender (`si_pid`, a thread of that process) whose window
    /// contains the line (the signal is queued inside the sender's
    /// syscall, before its syscall-exit stop, and strace may handle the
    /// receiver's signal-delivery-stop first), or the `--- stopped by`
    /// lines of the threads of a child whose CLD_STOPPED SIGCHLD it is
    /// (the last thread to stop notifies the parent in `do_signal_stop()`
    /// before strace prints the stops). The engine applies nothing out of
    /// turn: it asks the scheduler to place those lines before `e`
    /// ([`Engine::take_wants`]), which replays `e` after them.
    pub(super) fn want_cause(&mut self, e: &Event, sig: i32, info: Option<RecSigInfo>) {
        let causes = std::sync::Arc::clone(&self.facts);
        let sender = info.and_then(|i| i.pid);
        let by_sender = causes.causes.iter().find(|c| {
            !c.stop && sender.is_some_and(|s| c.thread == s || self.tgid_of_rec(c.thread) == s)
        });
        let want: Vec<(usize, u64)> = match by_sender {
            Some(c) => vec![(c.key, c.seq)],
            None => {
                let Some(child) = info
                    .filter(|i| sig == SIGCHLD && i.code == CLD_STOPPED)
                    .and_then(|i| i.pid)
                else {
                    return;
                };
                causes
                    .causes
                    .iter()
                    .filter(|c| c.stop && self.tgid_of_rec(c.thread) == child)
                    .map(|c| (c.key, c.seq))
                    .collect()
            }
        };
        if !want.is_empty() {
            self.wants = Some((e.seq, want));
        }
    }

    /// A `--- stopped by SIGxxx ---` line: the thread is in its group's
    /// stop. It passes through `get_signal()` (where a thread joins a group
    /// stop in progress; one of a stopped group takes nothing) when it has
    /// no signal to take; a group the emulation has not stopped was
    /// stopped from outside the trace (a terminal, an untraced sender).
    pub(super) fn stopped_line(&mut self, cur: TaskId, sig: i32) {
        let Ok(leader) = self.leader_of(cur) else {
            return;
        };
        let blocked = self.k.sigmask(cur).unwrap_or(0);
        let stopped = if self.deliverable(cur, blocked) {
            self.deaths.unconfirmed_stop.contains(&leader)
        } else {
            let r = self.take_signal(cur);
            self.drain();
            r == Ok(SignalAction::Stopped)
        };
        if !stopped && !self.deaths.unconfirmed_stop.contains(&leader) {
            let _ = self.k.send_signal(cur, sig);
            let _ = self.take_signal(cur);
            self.drain();
        }
        self.deaths.unconfirmed_stop.remove(&leader);
    }

    /// `get_signal()` for the thread at its `---` line.
    fn deliver(&mut self, e: &Event, cur: TaskId, sig: i32, info: Option<RecSigInfo>) {
        // get_signal() goes on past a stop signal it discards (orphaned
        // process group); Linux prints each such dequeue. With the default
        // action (no handler, no frame mask), the others are kept out of
        // this dequeue by the mask.
        let alone = sig_kernel_stop(sig)
            && matches!(
                self.k.rt_sigaction(cur, sig, None).map(|a| a.handler),
                Ok(SigHandler::Default)
            );
        let saved = self.k.sigmask(cur).unwrap_or(0);
        // A signal the thread's recorded mask blocks was taken inside a
        // call that swaps in a temporary mask and is not in strace's
        // `%signal` class (pselect6, ppoll, epoll_pwait: GNU make waits
        // for SIGCHLD in pselect). set_user_sigmask() saved the mask, and
        // the handler frame saves that one (sigmask_to_save()), which
        // rt_sigreturn restores; without a handler the call's return
        // restores it. The temporary mask is not recorded: taken to be the
        // saved one less the signal.
        let swapped = self.sig.recorded && saved & bit(sig) & !UNBLOCKABLE != 0;
        if alone {
            let _ = self.k.rt_sigprocmask(cur, 2, Some(!bit(sig)));
        } else if swapped {
            let _ = self.k.rt_sigprocmask(cur, 2, Some(saved & !bit(sig)));
        }
        self.world.stopped_with = None;
        // A stop or core-dumping signal taken with the default action:
        // strace resumes the signal-delivery-stop at the thread's
        // `Kind::Resume`.
        let dumps = taskcore::uapi::sig_kernel_coredump(sig)
            && matches!(
                self.k.rt_sigaction(cur, sig, None).map(|a| a.handler),
                Ok(SigHandler::Default)
            );
        self.world.defer_stop = (alone || dumps).then_some(sig);
        let mut r = self.take_signal(cur);
        self.world.defer_stop = None;
        let deferred = self.world.held_stops.contains(&(cur, sig));
        if alone || swapped && !matches!(r, Ok(SignalAction::Handler { .. })) {
            let _ = self.k.rt_sigprocmask(cur, 2, Some(saved));
        }
        if swapped {
            *self
                .stats
                .checked_calls
                .entry("--- signal in a temporary mask".into())
                .or_default() += 1;
        }
        if r == Ok(SignalAction::Stopped) && !sig_kernel_stop(sig) && !deferred {
            // A stopped thread dequeues nothing: Linux shows it did, so
            // its group was continued, by nothing the replay applies (a
            // SIGCONT from outside, which it then ignored or took later:
            // timeout(1) sends its signal, then SIGCONT). The SIGCONT is
            // state the recording does not show (learned); the line is
            // checked as any other, and counted once, above.
            *self
                .stats
                .learned
                .entry(
                    "group continued from outside the replay (a SIGCONT not in the trace)".into(),
                )
                .or_default() += 1;
            let _ = self.k.send_signal(cur, SIGCONT);
            r = self.take_signal(cur);
        }
        self.drain();
        self.stats.applied += 1;
        match r {
            Ok(SignalAction::Handler {
                sig: got,
                info: gi,
                action,
                old_mask,
            }) => {
                let old_mask = if swapped { saved } else { old_mask };
                if got != sig {
                    self.mismatch(e, "signal", signame(sig), signame(got));
                } else if let Some(i) = info {
                    self.compare_info(e, cur, &i, &gi);
                }
                let eintr = match self.sig.last_restart.get(&e.pid).copied().flatten() {
                    Some(Restart::Sys) => Some(action.flags & SA_RESTART == 0),
                    Some(Restart::NoHand) => Some(true),
                    Some(Restart::NoIntr) => Some(false),
                    Some(Restart::Eintr) => Some(true),
                    None => None,
                };
                // A handler interrupts the call at most once.
                self.sig.last_restart.insert(e.pid, None);
                if self.frames_recorded() {
                    self.sig.frames.entry(cur).or_default().push(Frame {
                        old_mask,
                        eintr,
                        sig,
                        line: e.line,
                        maybe_not: false,
                        next_line: None,
                    });
                } else {
                    // No rt_sigreturn will be seen: the handler returns now.
                    let _ = self.k.rt_sigreturn(cur, old_mask);
                }
            }
            Ok(SignalAction::Stopped) if sig_kernel_stop(sig) || deferred => {}
            // A terminal stop signal dequeued and discarded: the process
            // group is orphaned (Linux prints the `---` line before it
            // looks).
            Ok(SignalAction::None)
                if matches!(sig, SIGTSTP | SIGTTIN | SIGTTOU)
                    && self
                        .k
                        .pending_signals(cur)
                        .is_ok_and(|(p, s)| (p | s) & bit(sig) == 0) => {}
            Ok(SignalAction::Exit) if !sig_kernel_stop(sig) => {}
            // Dequeued into its signal-delivery-stop (this line), then
            // discarded: its action, read after the stop, ignores it. Its
            // siginfo is not compared: which of several merged SIGCHLDs an
            // ignoring parent holds depends on orders the replay does not
            // pin down (a child linked at the end of copy_process(), a
            // continued tracee's notification when it next runs).
            Ok(SignalAction::None)
                if self
                    .world
                    .stopped_with
                    .is_some_and(|(t, i)| t == cur && i.signo == sig) => {}
            Ok(other) => self.mismatch(
                e,
                "signal",
                signame(sig),
                super::notation::fmt_action(&other),
            ),
            Err(err) => self.mismatch(e, "signal", signame(sig), err.name().into()),
        }
    }

    /// Whether the handler frame set up at `e` ends at an `rt_sigreturn`
    /// the trace records (the filter has signal calls, or the planner saw
    /// the thread's later one).
    fn frames_recorded(&self) -> bool {
        self.sig.recorded || self.facts.sigreturn_later
    }
}

/// A mask as strace prints it, e.g. `[USR1 CHLD]`.
pub(super) fn sigset(m: u64) -> String {
    let names: Vec<String> = (1..=64)
        .filter(|s| m & bit(*s) != 0)
        .map(|s| signame(s).trim_start_matches("SIG").to_string())
        .collect();
    format!("[{}]", names.join(" "))
}
