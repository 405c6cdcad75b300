//! Signal-delivery stops: the real kernel is about to deliver a signal.
//! The core takes its next signal with `get_signal` and must name the
//! same one; the siginfo's `si_pid` becomes the sender's virtual pid.
//! A signal the core never saw sent (the terminal, a fault, a timer, an
//! outside process) is sent to the core from outside first.

use nix::sys::ptrace;
use taskcore::sys::Syscall;
use taskcore::uapi::{sig_kernel_ignore, sig_kernel_stop};
use taskcore::{SigHandler, SignalAction, TaskId};

use super::notation::signame;
use super::Supervisor;
use crate::pidmap::in_root;
use crate::spawn::pid;
use crate::tracee::{self, has_pid, SI_PID_OFFSET};

/// What a SIGCONT is about to reach ([`Supervisor::stops_pending_at_sigcont`]):
/// each target thread with its virtual tgid and its stop signals pending
/// in the core before the send, then the sender and the call.
pub(super) type SigcontTargets = (Vec<(TaskId, i32, u64)>, TaskId, Syscall);

/// The signal kill-family call `call` sends (`kill`, `tgkill`, `tkill`,
/// `pidfd_send_signal`, as the core decodes them); `None` for any other
/// call.
pub(super) fn kill_sig(call: &Syscall) -> Option<i32> {
    match *call {
        Syscall::Kill { sig, .. }
        | Syscall::Tgkill { sig, .. }
        | Syscall::Tkill { sig, .. }
        | Syscall::PidfdSendSignal { sig, .. } => Some(sig),
        _ => None,
    }
}

/// Kill-family call `call` to the same target, sending `sig` instead (a
/// `pidfd_send_signal` without its siginfo); `None` for any other call.
pub(super) fn with_sig(call: &Syscall, sig: i32) -> Option<Syscall> {
    Some(match *call {
        Syscall::Kill { pid, .. } => Syscall::Kill { pid, sig },
        Syscall::Tgkill { tgid, tid, .. } => Syscall::Tgkill { tgid, tid, sig },
        Syscall::Tkill { tid, .. } => Syscall::Tkill { tid, sig },
        Syscall::PidfdSendSignal { fd, flags, .. } => Syscall::PidfdSendSignal {
            fd,
            sig,
            info: None,
            flags,
        },
        _ => return None,
    })
}

impl Supervisor {
    /// A signal-delivery stop of thread `tid` for `sig`.
    pub(super) fn on_signal(&mut self, tid: i32, sig: i32) {
        let Ok(mut info) = ptrace::getsiginfo(pid(tid)) else {
            let _ = tracee::cont(tid, sig);
            return;
        };
        let Some(task) = self.map.task(tid) else {
            self.resume(tid, sig);
            return;
        };
        self.confirm_frame(tid, task, false);
        let code = info.si_code;
        // SAFETY: si_pid is read only for codes that carry a pid.
        let real_sender = has_pid(sig, code).then(|| unsafe { info.si_pid() });
        // The kernel wrote it in the receiver's namespace.
        let vsender = real_sender.map(|p| self.map.to_virtual_for(&self.k, task, p));
        if let Some(t) = &mut self.timeline {
            // In the root namespace's numbers.
            let k = &self.k;
            let vtid = self.map.to_virtual(tid);
            let vpid = k.getpid(task).map_or(vtid, |p| in_root(k, task, p));
            let from = vsender.map_or(0, |v| in_root(k, task, v));
            t.signal(vpid, vtid, sig, from);
        }
        if self.alive(task) && self.dropped_by_ns_init(task, sig, vsender) {
            // Natively dropped at the send; queued here only because the
            // supervisor traces the init (sig_ignored()'s ptrace
            // exception). Resumed with it, a traced init would even stop
            // on a SIGSTOP of its own (get_signal() keeps kernel-only
            // signals for an unkillable init): it is suppressed instead.
            self.report
                .not_checked("signal to a namespace init (dropped at the send natively)");
            self.resume(tid, 0);
            return;
        }
        if self.alive(task) && sig_kernel_stop(sig) {
            let dfl = self.k.rt_sigaction(task, sig, None).map(|a| a.handler);
            if let (Ok(SigHandler::Default), Some(t)) = (dfl, self.threads.get(&tid)) {
                // Its group stop completes after this resume
                // (do_signal_stop()), at a moment seen only at its trap.
                self.group_stops.insert(t.tgid, None);
            }
        }
        if self.alive(task) {
            // A signal that kills ends the group in the core now, before
            // the kernel's exit_notify() (supervisor/handon.rs).
            let fatal = self.is_fatal(task, sig);
            let (before, report) = if fatal {
                (
                    self.hand_on_before(tid, task),
                    self.report_before_death(task),
                )
            } else {
                (None, None)
            };
            let virtual_pid = self.take_signal(tid, task, sig, code, vsender);
            self.hand_on_after(before);
            if fatal {
                self.note_dying(tid, true, report);
            }
            if let (Some(want), Some(got)) = (virtual_pid, vsender) {
                if want != got {
                    // SAFETY: si_pid lies at offset 16 of the 128-byte
                    // siginfo_t, inside `info`.
                    unsafe {
                        let p = (&mut info as *mut libc::siginfo_t as *mut u8)
                            .add(SI_PID_OFFSET as usize)
                            as *mut i32;
                        p.write_unaligned(want);
                    }
                    let _ = ptrace::setsiginfo(pid(tid), &info);
                }
            }
        } else if let (Some(real), Some(v)) = (real_sender, vsender) {
            if real != v {
                // SAFETY: as above.
                unsafe {
                    let p = (&mut info as *mut libc::siginfo_t as *mut u8)
                        .add(SI_PID_OFFSET as usize) as *mut i32;
                    p.write_unaligned(v);
                }
                let _ = ptrace::setsiginfo(pid(tid), &info);
            }
        }
        self.resume(tid, sig);
    }

    /// Whether `task` ignores `sig` (`SIG_IGN`, or `SIG_DFL` of a signal
    /// whose default is to ignore).
    fn is_ignored(&mut self, task: TaskId, sig: i32) -> bool {
        let handler = self
            .k
            .rt_sigaction(task, sig, None)
            .map(|a| a.handler)
            .unwrap_or(SigHandler::Default);
        handler == SigHandler::Ignore || (handler == SigHandler::Default && sig_kernel_ignore(sig))
    }

    /// Whether `sig`, not pending for `task` in the core, is one an
    /// untraced init of a nested pid namespace does not even queue: its
    /// handler is `SIG_DFL`, and it is not SIGKILL or SIGSTOP from an
    /// ancestor namespace (`vsender`, in the init's numbers, 0 or none:
    /// sent from outside, `force`). Linux: `sig_task_ignored()` for a
    /// `SIGNAL_UNKILLABLE` task. The root namespace's init is the
    /// supervisor, not traced.
    fn dropped_by_ns_init(&mut self, task: TaskId, sig: i32, vsender: Option<i32>) -> bool {
        if !self.is_ns_init(task) || self.pending(task, sig) {
            return false;
        }
        let handler = self.k.rt_sigaction(task, sig, None).map(|a| a.handler);
        let kernel_only = sig == libc::SIGKILL || sig == libc::SIGSTOP;
        handler == Ok(SigHandler::Default) && (!kernel_only || vsender.is_some_and(|v| v > 0))
    }

    /// Whether `task` belongs to the init process of a nested pid
    /// namespace (`SIGNAL_UNKILLABLE`; the root namespace's init is the
    /// supervisor).
    fn is_ns_init(&self, task: TaskId) -> bool {
        self.k.task_active_pid_ns(task).ok() != Some(self.k.root_ns())
            && self.k.getpid(task) == Ok(1)
    }

    /// The signal the core's own `dequeue_signal()` would take next for
    /// `task`: its thread's pending set before its process's, the
    /// synchronous signals first in each, then the lowest number
    /// (`next_signal()`); `None` if nothing is deliverable.
    fn core_first(&self, task: TaskId) -> Option<i32> {
        const SYNCHRONOUS: u64 = (1 << (libc::SIGSEGV - 1))
            | (1 << (libc::SIGBUS - 1))
            | (1 << (libc::SIGILL - 1))
            | (1 << (libc::SIGTRAP - 1))
            | (1 << (libc::SIGFPE - 1))
            | (1 << (libc::SIGSYS - 1));
        let (private, shared) = self.k.pending_signals(task).ok()?;
        let open = !self.k.sigmask(task).ok()?;
        let first = |set: u64| {
            let set = set & open;
            let pick = if set & SYNCHRONOUS != 0 {
                set & SYNCHRONOUS
            } else {
                set
            };
            (pick != 0).then(|| pick.trailing_zeros() as i32 + 1)
        };
        first(private).or_else(|| first(shared))
    }

    /// Whether `sig` is pending for `task` or its process in the core.
    fn pending(&self, task: TaskId, sig: i32) -> bool {
        let (private, shared) = self.k.pending_signals(task).unwrap_or((0, 0));
        (private | shared) & (1u64 << (sig - 1)) != 0
    }

    /// Whether `sig` kills `task` by its default action (not blocked, no
    /// handler, not ignored, not a stop; and `task` is not the init of a
    /// nested pid namespace, which only SIGKILL from an ancestor kills:
    /// `SIGNAL_UNKILLABLE`, and SIGKILL's deaths come at death reports).
    pub(super) fn is_fatal(&mut self, task: TaskId, sig: i32) -> bool {
        if self.is_ns_init(task) {
            return false;
        }
        let blocked = self.k.sigmask(task).unwrap_or(0) & (1u64 << (sig - 1)) != 0;
        let handler = self.k.rt_sigaction(task, sig, None).map(|a| a.handler);
        !blocked
            && handler == Ok(SigHandler::Default)
            && !sig_kernel_ignore(sig)
            && !sig_kernel_stop(sig)
    }

    /// The core takes its next signal for `task`; returns the sender's
    /// virtual pid the core recorded, if it delivered a handler's signal.
    fn take_signal(
        &mut self,
        tid: i32,
        task: TaskId,
        sig: i32,
        code: i32,
        vsender: Option<i32>,
    ) -> Option<i32> {
        let bit = 1u64 << (sig - 1);
        let (private, shared) = self.k.pending_signals(task).unwrap_or((0, 0));
        if (private | shared) & bit == 0 {
            if self.is_ignored(task, sig) {
                // Linux queues an ignored signal for a traced task only
                // (sig_ignored()'s ptrace exception); it is dropped after
                // this stop, and the core dropped it at the send.
                self.report
                    .not_checked("ignored signal reported to the tracer");
                return None;
            }
            if self.take_discarded_stop(task, sig) {
                // Dequeued for real before the SIGCONT that discarded it
                // in the core was sent: its delivery stop proves it (else
                // the SIGCONT would have discarded it for real too).
                let _ = self.k.send_signal(task, sig);
                return self.take_signal(tid, task, sig, code, vsender);
            }
            // Pid 1 is the supervisor in the root namespace only.
            let nested = self.k.task_active_pid_ns(task).ok() != Some(self.k.root_ns());
            // A signal "from" the receiver's own process that it did not
            // send is the kernel's on its behalf: `send_sig(sig, current,
            // 0)` (SEND_SIG_NOINFO: SI_USER, si_pid the current tgid), as
            // pipe_write() sends SIGPIPE and a write past RLIMIT_FSIZE
            // SIGXFSZ. Every kill-family call is applied at its entry, so
            // a self-sent one would be pending.
            let own = self.k.getpid(task).ok();
            let from_inside = code <= 0
                && vsender.is_some_and(|v| (v > 1 || (nested && v == 1)) && Some(v) != own);
            if from_inside {
                self.diverge(
                    tid,
                    format!("--- {} ---", signame(sig)),
                    "delivered".into(),
                    "not pending".into(),
                );
                return None;
            }
            self.report.external_signals += 1;
            let _ = self.k.send_signal(task, sig);
        }
        self.report.checked += 1;
        if let Some(call) = self.threads.get_mut(&tid).and_then(|t| t.suspended.take()) {
            let _ = taskcore::sys::dispatch(&mut self.k, task, &call);
        }
        if self.log.on() {
            let (p, sh) = self.k.pending_signals(task).unwrap_or((0, 0));
            let m = self.k.sigmask(task).unwrap_or(0);
            let h = self.k.rt_sigaction(task, sig, None).map(|a| a.handler);
            dline!(
                self,
                "[debug]   signal {sig}: pending {p:#x}/{sh:#x} blocked {m:#x} handler {h:?}"
            );
        }
        // A signal that kills: the dying process is seized by the core's
        // init first (as it is traced for real), so that its parent sees the
        // zombie at the real death report, not now; the trap it takes is
        // resumed with the signal, as the supervisor resumes it.
        let fatal = self.is_fatal(task, sig);
        if fatal {
            self.seize_dying(task);
        }
        // The core takes the signal the kernel dequeued, not its own next
        // one: a signal applied to the core before the kernel generated it
        // (a child's stop at that child's delivery stop, a kill at its
        // sender's entry) came after this dequeue for real, and would
        // otherwise be taken first when its number is lower (SIGCHLD
        // before SIGSTOP). Which comes first is then not compared.
        if self.core_first(task) != Some(sig) {
            self.report.not_checked(
                "signal taken as the kernel dequeued it, the core having another first",
            );
        }
        let mut r = self.k.get_signal_once_of(task, sig);
        let mut later: Vec<(TaskId, taskcore::sys::Syscall)> = Vec::new();
        // A task the core's init traces takes a ptrace trap for each signal
        // (ptrace_signal()); the supervisor resumes it with the signal. A
        // trap of another kind first (the notify of a SIGCONT the core took
        // at its sender's entry, sent for real only after this dequeue) is
        // the core's own: it is resumed, and the signal taken next.
        for _ in 0..4 {
            if r != Ok(SignalAction::Stopped) {
                break;
            }
            let Ok(v) = self.k.pid_vnr(self.init, task) else {
                break;
            };
            let info = self.k.ptrace_getsiginfo(self.init, v);
            if self.log.on() {
                dline!(self, "[debug]   core trap of {v}: {info:?}");
            }
            // A stop signal's Stopped is its group stop when the task is
            // not traced, or traced and in its group-stop trap (si_code
            // `sig | PTRACE_EVENT_STOP << 8`, do_jobctl_trap()); a traced
            // task's signal-delivery trap of it is resumed with it, as the
            // supervisor resumes the real one, whose do_signal_stop()
            // then makes the group stop.
            let group_stop_trap = |i: &taskcore::SigInfo| i.code >> 8 == libc::PTRACE_EVENT_STOP;
            let ours = info.as_ref().is_ok_and(|i| {
                i.signo == sig && (sig != libc::SIGTRAP || i.code <= 0) && !group_stop_trap(i)
            });
            // Another signal's delivery trap: a signal the kernel did not
            // have to take yet, sent by a kill still in flight (the core
            // applied it at its sender's entry; the kernel sent it after
            // this dequeue). Dropped from this trap, it is sent again by
            // that call once this signal is taken.
            let mut resent = false;
            if let Ok(i) = &info {
                if !ours && !group_stop_trap(i) {
                    let since = self.threads.get(&tid).map_or(0, |t| t.prev_seen);
                    if let Some(k) = self.kill_in_flight(task, i.signo, since) {
                        later.push(k);
                        resent = true;
                    }
                }
            }
            // The core's own re-trap (a SIGCONT's notify, SIGTRAP) is
            // resumed, and the signal taken next; a stop signal's group
            // stop (its trap) or another signal's delivery trap ends it.
            let retrap = info
                .as_ref()
                .is_ok_and(|i| i.signo == libc::SIGTRAP && group_stop_trap(i));
            if sig_kernel_stop(sig) && !ours && !resent && !retrap {
                break;
            }
            if self
                .k
                .ptrace_cont(self.init, v, if ours { sig } else { 0 })
                .is_err()
            {
                break;
            }
            r = self.k.get_signal_once_of(task, sig);
            if ours {
                break;
            }
        }
        for (sender, call) in later {
            let again = taskcore::sys::dispatch(&mut self.k, sender, &call);
            if self.log.on() {
                dline!(
                    self,
                    "[debug]   {call:?} sent again after this delivery: {again:?}"
                );
            }
        }
        match r {
            Ok(SignalAction::Handler {
                sig: s,
                info,
                old_mask,
                ..
            }) => {
                if s != sig {
                    self.diverge(
                        tid,
                        "--- signal delivery ---".into(),
                        signame(sig),
                        signame(s),
                    );
                    return None;
                }
                self.frame_set_up(tid, task, old_mask);
                vsender.map(|_| info.pid)
            }
            Ok(SignalAction::Stopped) if sig_kernel_stop(sig) => None,
            Ok(SignalAction::None) if self.is_ignored(task, sig) => None,
            // A terminal stop the core dequeued and discarded (its process
            // group is orphaned): the real kernel reports it to the tracer
            // first (ptrace_signal() comes before that check in
            // get_signal()), then discards it too.
            Ok(SignalAction::None) if sig_kernel_stop(sig) && !self.pending(task, sig) => None,
            // A namespace init's SIG_DFL signal, queued (a thread blocked
            // it at the send): get_signal() drops it for an unkillable
            // init, after the tracer has seen it (ptrace_signal() comes
            // first), as the core dropped it.
            Ok(SignalAction::None) if self.is_ns_init(task) && !self.pending(task, sig) => None,
            Ok(SignalAction::Exit) | Err(_) => None,
            Ok(other) => {
                if self.log.on() {
                    let v = self.k.gettid(task).unwrap_or(0);
                    let st = self
                        .k
                        .proc_read(self.init, &format!("{v}/status"))
                        .unwrap_or_default();
                    let st = String::from_utf8_lossy(&st);
                    let lines: Vec<&str> = st
                        .lines()
                        .filter(|l| {
                            l.starts_with("State")
                                || l.starts_with("TracerPid")
                                || l.starts_with("Sig")
                        })
                        .collect();
                    dline!(self, "[debug]   core status of {v}: {lines:?}");
                }
                let core = match other {
                    SignalAction::None => "nothing to deliver".to_string(),
                    SignalAction::Stopped => "a stop".to_string(),
                    _ => "another action".to_string(),
                };
                self.diverge(tid, "--- signal delivery ---".into(), signame(sig), core);
                None
            }
        }
    }

    /// For a SIGCONT sent by `task` to one process (`kill(pid > 0)`),
    /// one thread (`tgkill`, `tkill`) or a process group (`kill(0)`,
    /// `kill(-pgid)`): each target thread, its process (virtual tgid, its
    /// own number) and its stop signals pending in the core before the
    /// send; with the sender and the call.
    pub(super) fn stops_pending_at_sigcont(
        &self,
        task: TaskId,
        call: &taskcore::sys::Syscall,
    ) -> Option<SigcontTargets> {
        if kill_sig(call) != Some(libc::SIGCONT) {
            return None;
        }
        let pending_stops = |t: TaskId| -> Option<(TaskId, i32, u64)> {
            let (private, shared) = self.k.pending_signals(t).ok()?;
            Some((t, self.k.getpid(t).ok()?, (private | shared) & STOP_BITS))
        };
        let targets: Vec<(TaskId, i32, u64)> = match *call {
            Syscall::Kill { pid, .. } if pid > 0 => {
                let t = self.map.task(self.map.to_real(&self.k, task, pid)?)?;
                vec![pending_stops(t)?]
            }
            Syscall::Tgkill { tid, .. } | Syscall::Tkill { tid, .. } if tid > 0 => {
                let t = self.map.task(self.map.to_real(&self.k, task, tid)?)?;
                vec![pending_stops(t)?]
            }
            // A group: every thread of its processes (prepare_signal()
            // flushes the stops of each one kill_pgrp_info() reaches),
            // from the core's member list: O(the group's threads).
            Syscall::Kill { pid, .. } if pid == 0 || pid < -1 => {
                let g = match pid {
                    0 => self.k.getpgid(task, 0).ok()?,
                    p => p.checked_neg()?,
                };
                if g <= 0 {
                    return None;
                }
                self.k
                    .pgrp_members(task, g)
                    .ok()?
                    .flat_map(|p| self.k.threads_of(p).into_iter().flatten())
                    .filter_map(pending_stops)
                    .collect()
            }
            _ => return None,
        };
        Some((targets, task, call.clone()))
    }

    /// A stop signal sent by thread `tid` (`call`, just applied at its
    /// entry) to processes that another thread's SIGCONT, applied before
    /// it and still in flight, reaches: the kernel may have sent the stop
    /// first, and the SIGCONT then ended the group stop the core keeps.
    /// That SIGCONT is noted to be sent again at such a process's next
    /// notify trap ([`Self::send_cont_after_stop`]: after a group stop it
    /// proves the SIGCONT came after it; before the delivery, sent again it
    /// changes nothing, the stop kept pending), not earlier (the order is
    /// not known).
    pub(super) fn note_cont_in_flight(&mut self, tid: i32, call: &taskcore::sys::Syscall) {
        if !kill_sig(call).is_some_and(sig_kernel_stop) {
            return;
        }
        let Some(as_cont) = with_sig(call, libc::SIGCONT) else {
            return;
        };
        let Some(task) = self.map.task(tid) else {
            return;
        };
        let Some((stopped, _, _)) = self.stops_pending_at_sigcont(task, &as_cont) else {
            return;
        };
        let conts: Vec<(TaskId, Syscall)> = self
            .sending
            .iter()
            .filter(|&&r| r != tid)
            .filter_map(|&r| {
                let c = self.threads.get(&r)?.in_call.as_ref()?.call.as_ref().ok()?;
                (kill_sig(c) == Some(libc::SIGCONT))
                    .then(|| Some((self.map.task(r)?, c.clone())))?
            })
            .collect();
        for (sender, c) in conts {
            let Some((reached, _, _)) = self.stops_pending_at_sigcont(sender, &c) else {
                continue;
            };
            for &(t, v, _) in &reached {
                if !stopped.iter().any(|s| s.1 == v) {
                    continue;
                }
                let Some(again) = self.cont_again(sender, t, &c) else {
                    continue;
                };
                dline!(
                    self,
                    "[debug]   stop to {v} sent while a SIGCONT is in flight"
                );
                self.resends.note_in_flight(v, (sender, again));
            }
        }
    }

    /// SIGCONT `call` of `sender` as it is sent again to the process of
    /// `t` only: a group's (`kill(0)`, `kill(-pgid)`) becomes `kill(pid)`
    /// by `t`'s number for the sender (`None`: it has none there), never
    /// the whole group again (that would discard the other members' later
    /// stops too); a call to one process or thread is itself.
    fn cont_again(&self, sender: TaskId, t: TaskId, call: &Syscall) -> Option<Syscall> {
        match *call {
            Syscall::Kill { pid, sig } if pid <= 0 => match self.k.pid_vnr(sender, t) {
                Ok(n) if n > 0 => Some(Syscall::Kill { pid: n, sig }),
                _ => None,
            },
            ref c => Some(c.clone()),
        }
    }

    /// After the send: the stop signals it discarded (prepare_signal()).
    pub(super) fn note_discarded_stops(&mut self, before: Option<SigcontTargets>) {
        let Some((targets, sender, call)) = before else {
            return;
        };
        for &(_, v, _) in &targets {
            // A stop the core took again after an earlier SIGCONT that had
            // discarded it is ended in the core by this one: that earlier
            // SIGCONT is not sent again at the process's next trap
            // (send_cont_after_stop()), which could come after this
            // SIGCONT, and after stop signals sent since.
            self.resends.cancel(v);
        }
        // Another thread's kill in flight (a stop signal's, say) may have
        // been sent for real after this SIGCONT though applied before it.
        // Asked only when a stop was discarded.
        let sender_tid = self.map.tid_of_task(sender);
        let mut others_sending = None;
        for (t, v, bits) in targets.into_iter().filter(|b| b.2 != 0) {
            let (private, shared) = self.k.pending_signals(t).unwrap_or((0, 0));
            let gone = bits & !(private | shared);
            if gone != 0 {
                // What is sent again if this process's stop proves to
                // have come first (send_cont_after_stop()); none: the
                // stops are noted alone.
                let cont = self.cont_again(sender, t, &call).map(|c| (sender, c));
                let unordered =
                    *others_sending.get_or_insert_with(|| self.others_sending(sender_tid));
                self.resends.note_discard(v, gone, cont, unordered);
            }
        }
    }

    /// Whether a thread other than `tid` has a call that sends a signal
    /// in flight (entered, its exit not seen).
    fn others_sending(&self, tid: Option<i32>) -> bool {
        self.sending.iter().any(|&r| Some(r) != tid)
    }

    /// A trap of `task` that is no group stop (the notify of a SIGCONT
    /// sent while it listened in one, `ptrace_trap_notify()`): if its
    /// process took a stop signal again after the SIGCONT that had
    /// discarded it in the core, the kernel's SIGCONT came after that
    /// stop (sent while the thread was still in its signal-delivery
    /// stop, it would find no stop to end, and that notify would be
    /// taken by the group-stop trap): it is sent again in the core now,
    /// by its sender if alive, as the same call. Whether one was due (and
    /// so sent again).
    pub(super) fn send_cont_after_stop(&mut self, task: TaskId) -> bool {
        let Ok(v) = self.k.getpid(task) else {
            return false;
        };
        let Some((sender, call)) = self.resends.take_due(v) else {
            return false;
        };
        // Stop signals pending now were sent in the core after the stop
        // taken again, and so after that SIGCONT (its exit stop had come,
        // or it was in flight: one of the orders): this trap may come long
        // after it, a starved thread's trap after its sender's next
        // kill(SIGSTOP). They stay pending (prepare_signal() flushed only
        // the stops sent before it).
        let stops = |k: &taskcore::Kernel| {
            let (private, shared) = k.pending_signals(task).unwrap_or((0, 0));
            (private | shared) & STOP_BITS
        };
        let before = stops(&self.k);
        let r = if self.alive(sender) {
            taskcore::sys::dispatch(&mut self.k, sender, &call).map(|_| ())
        } else {
            self.k.send_signal(task, libc::SIGCONT)
        };
        let flushed = before & !stops(&self.k);
        for sig in (1..=64).filter(|s| flushed & (1u64 << (s - 1)) != 0) {
            let _ = self.k.send_signal(task, sig);
        }
        dline!(
            self,
            "[debug]   SIGCONT to {v} again after its stop: {r:?}, stops kept {flushed:#x}"
        );
        true
    }

    /// The SIGCONTs noted to be sent again after a stop taken again
    /// ([`Self::send_cont_after_stop`]) that the kernel has shown to have
    /// run after that stop, sent again now rather than at the process's
    /// notify trap, which a starved thread may take long after: its
    /// group-stop trap has come since the stop was taken again (a SIGCONT
    /// sent between the dequeue and `do_signal_stop()` clears
    /// `JOBCTL_STOP_DEQUEUED`, and there is no group stop: so it came
    /// after the group stop), and its sender's call has returned (it was
    /// sent), and no other kill was in flight when the core applied it
    /// (a stop signal sent by one may have come after it for real, and
    /// the group stop then follows the SIGCONT). A wait of the parent
    /// after both would otherwise get the stop from the core where the
    /// kernel, which continued the process, reports nothing. Called at a group-stop trap of `tgid` (real) and
    /// at a kill-family call's syscall exit (`tgid` `None`: every
    /// process).
    pub(super) fn send_cont_proven_after_stop(&mut self, tgid: Option<i32>) {
        if !self.resends.any_due() {
            return;
        }
        // A process's threads may all be listed: its SIGCONT is taken
        // (sent again) once, at the first.
        let due: Vec<TaskId> = self
            .map
            .threads()
            .filter(|(r, t)| {
                let Some(th) = self.threads.get(r) else {
                    return false;
                };
                if tgid.is_some_and(|g| g != th.tgid)
                    || !matches!(self.group_stops.get(&th.tgid), Some(Some(_)))
                {
                    return false;
                }
                let Ok(v) = self.k.getpid(*t) else {
                    return false;
                };
                self.resends.due_sender(v).is_some_and(|sender| {
                    !self.resends.is_unordered(v)
                        && !self
                            .map
                            .tid_of_task(sender)
                            .is_some_and(|s| self.sending.contains(&s))
                })
            })
            .map(|(_, t)| t)
            .collect();
        for t in due {
            if self.send_cont_after_stop(t) {
                dline!(self, "[debug]   SIGCONT proven after the group stop");
            }
        }
    }

    /// Whether stop signal `sig` of `task`'s process was discarded in the
    /// core by a SIGCONT (forgotten once taken).
    fn take_discarded_stop(&mut self, task: TaskId, sig: i32) -> bool {
        let bit = 1u64 << (sig - 1);
        let Ok(v) = self.k.getpid(task) else {
            return false;
        };
        if !sig_kernel_stop(sig) || !self.resends.take_discarded(v, bit) {
            return false;
        }
        dline!(
            self,
            "[debug]   stop {sig} of {v} taken again after a SIGCONT"
        );
        true
    }

    /// A kill-family call that sent `sig` to `task`'s process
    /// (`kill(pid > 0)`) or thread (`tgkill`, `tkill`), applied to the
    /// core at its entry, whose send the kernel may have made after
    /// `task`'s thread resumed at the stop numbered `since`: still in
    /// flight, or its exit seen after that (the reports of two tasks come
    /// to the supervisor in its tracees' order, not in time order). Its
    /// sender and call (kept: a later delivery may need it again).
    fn kill_in_flight(&self, task: TaskId, sig: i32, since: u64) -> Option<(TaskId, Syscall)> {
        let k = &self.k;
        let tgid = in_root(k, task, k.getpid(task).ok()?);
        let tid = in_root(k, task, k.gettid(task).ok()?);
        let at = self
            .recent_kills
            .iter()
            .rposition(|(_, sender, call, exit)| {
                let hits = |v: i32, thread: bool| {
                    k.find_task_by_vpid(*sender, v).is_ok_and(|x| {
                        let n = if thread { k.gettid(x) } else { k.getpid(x) };
                        n.is_ok_and(|n| in_root(k, x, n) == if thread { tid } else { tgid })
                    })
                };
                let aimed = kill_sig(call) == Some(sig)
                    && match *call {
                        Syscall::Kill { pid, .. } => pid > 0 && hits(pid, false),
                        Syscall::Tgkill { tid, .. } | Syscall::Tkill { tid, .. } => {
                            tid > 0 && hits(tid, true)
                        }
                        _ => false,
                    };
                aimed && exit.is_none_or(|x| x > since) && k.getpid(*sender).is_ok()
            })?;
        let (_, sender, call, _) = self.recent_kills.get(at)?;
        Some((*sender, call.clone()))
    }
}

/// SIGSTOP, SIGTSTP, SIGTTIN and SIGTTOU as pending bits.
const STOP_BITS: u64 = (1 << (libc::SIGSTOP - 1))
    | (1 << (libc::SIGTSTP - 1))
    | (1 << (libc::SIGTTIN - 1))
    | (1 << (libc::SIGTTOU - 1));
