//! The recorded signal calls: rt_sigaction, rt_sigprocmask,
//! rt_sigpending, rt_sig(tg)queueinfo, rt_sigtimedwait, rt_sigsuspend,
//! pause and rt_sigreturn (applied through [`taskcore::sys::dispatch`],
//! checked against the recording and the state of
//! [`signals`](super::signals)), ptrace under strace, and the calls the
//! decoder refuses.

use taskcore::sys::{SysRet, Syscall};
use taskcore::{Errno, SigHandler, SigInfo, SigWait, TaskId};

use super::known::{Attr, Read};
use super::signals::sigset;
use super::sigwait::{suspend, timedwait, Sleep, Waker};
use super::state::Frame;
use super::Engine;
use crate::event::{Event, Outcome, Rec, RecSigInfo};
use crate::sigbit::bit;

impl Engine {
    /// A signal wait (rt_sigtimedwait, rt_sigsuspend, pause) applied
    /// through [`taskcore::sys::dispatch`].
    pub(super) fn sys_sigwait(&mut self, cur: TaskId, call: &Syscall) -> taskcore::Result<SigWait> {
        match self.sys(cur, call)? {
            SysRet::SigWait(w) => Ok(w),
            // Only those calls reach here.
            _ => Err(Errno::ENOSYS),
        }
    }

    /// A call returning a signal set (rt_sigprocmask's old mask,
    /// rt_sigpending's set) applied through [`taskcore::sys::dispatch`].
    pub(super) fn sys_sigset(&mut self, cur: TaskId, call: &Syscall) -> taskcore::Result<u64> {
        match self.sys(cur, call)? {
            SysRet::Sigset(s) => Ok(s),
            // Only those calls reach here.
            _ => Err(Errno::ENOSYS),
        }
    }

    /// Applies and checks the recorded signal call of `e` (`call` with
    /// the recorded numbers, `rec` its recorded outputs).
    pub(super) fn apply_sigcall(&mut self, e: &Event, cur: TaskId, call: &Syscall, rec: &Rec) {
        match (call, rec) {
            (&Syscall::RtSigaction { sig, act }, Rec::OldHandler(old)) => {
                self.do_sigaction(e, cur, sig, act, *old)
            }
            (&Syscall::RtSigprocmask { how, set }, &Rec::Mask { read, old }) => {
                self.sigprocmask(e, cur, how, read.then_some(set), old)
            }
            (Syscall::RtSigpending, &Rec::Sigset(set)) => {
                self.sig.recorded = true;
                let r = self.sys_sigset(cur, call);
                match (&e.ret, r, set) {
                    (Outcome::Value(0), Ok(got), Some(want)) => {
                        self.stats.checked += 1;
                        if got != want {
                            self.mismatch(e, "pending", sigset(want), sigset(got));
                        }
                    }
                    (_, r, _) => self.check_unit(e, r.map(drop)),
                }
            }
            (Syscall::RtSigqueueinfo { .. } | Syscall::RtTgsigqueueinfo { .. }, rec) => {
                let info = match rec {
                    Rec::Siginfo { info, .. } => info.as_deref().copied(),
                    _ => None,
                };
                self.sigqueueinfo(e, cur, call, info)
            }
            (&Syscall::RtSigtimedwait { set, .. }, Rec::Siginfo { read, info }) => {
                self.sigtimedwait(e, cur, read.then_some(set), info.as_deref().copied())
            }
            (&Syscall::RtSigsuspend { mask }, _) => self.sigsuspend(e, cur, Some(mask)),
            (Syscall::Pause, _) => self.sigsuspend(e, cur, None),
            (Syscall::RtSigreturn { .. }, &Rec::Frame(mask)) => self.sigreturn(e, cur, mask),
            _ => self.unchecked(e),
        }
    }

    /// A call the decoder refuses with `err` (`Call::Refused`): the
    /// recorded result must be that errno. The signal calls among them
    /// still show that the trace records the `%signal` class.
    pub(super) fn refused(&mut self, e: &Event, name: &str, err: Errno) {
        if name.starts_with("rt_sig") {
            self.sig.recorded = true;
        }
        self.check_unit(e, Err(err));
    }

    /// rt_sigaction: applied, and the old handler strace printed compared
    /// with the core's.
    fn do_sigaction(
        &mut self,
        e: &Event,
        cur: TaskId,
        sig: i32,
        act: Option<taskcore::SigAction>,
        old: Option<SigHandler>,
    ) {
        if !matches!(e.ret, Outcome::Value(0)) {
            // A failed call shows nothing.
        } else if old.is_some() {
            self.learn_action(cur, sig, old);
        }
        let r = self.sys(cur, &Syscall::RtSigaction { sig, act });
        if let (Ok(_), Some(a)) = (&r, &act) {
            self.set_known(cur, Attr::Action(sig), true);
            self.note_concurrent_action(e, cur, sig, a);
            self.flush_sent_ignored(cur, sig);
        }
        self.stats.applied += 1;
        match (&e.ret, &r) {
            (Outcome::Unknown | Outcome::Interrupted | Outcome::Died, _) => self.unchecked(e),
            (Outcome::Value(0), Ok(SysRet::SigAction(prev))) => {
                self.stats.checked += 1;
                if let Some(o) = old {
                    if prev.handler != o {
                        let kind = |h: SigHandler| match h {
                            SigHandler::Default => "Dfl",
                            SigHandler::Ignore => "Ign",
                            // A handler (and any kind a later core adds).
                            _ => "Handler",
                        };
                        self.mismatch(e, "old action", kind(o).into(), kind(prev.handler).into());
                    }
                }
            }
            (Outcome::Errno(a), Err(b)) if a == b => self.stats.checked += 1,
            (rec, got) => {
                self.stats.checked += 1;
                let emu = super::notation::fmt_result(got, |_| "0".into());
                self.mismatch(e, "result", super::report::fmt_outcome(rec), emu);
            }
        }
    }

    /// Before `cur`'s rt_sigaction of `sig` whose old action strace printed
    /// as `old`: a first read of the disposition ([`Engine::first_read`]).
    /// A handler is never inherited through exec, so only SIG_DFL and
    /// SIG_IGN are taken (a handler shown makes it known all the same).
    fn learn_action(&mut self, cur: TaskId, sig: i32, old: Option<SigHandler>) {
        self.first_read(cur, Attr::Action(sig), old.is_some(), |en| {
            let Some(o @ (SigHandler::Default | SigHandler::Ignore)) = old else {
                return false;
            };
            match en.sys(cur, &Syscall::RtSigaction { sig, act: None }) {
                Ok(SysRet::SigAction(prev)) if prev.handler != o => {
                    let act = taskcore::SigAction {
                        handler: o,
                        ..taskcore::SigAction::DEFAULT
                    };
                    let set = Syscall::RtSigaction {
                        sig,
                        act: Some(act),
                    };
                    en.sys(cur, &set).is_ok()
                }
                _ => false,
            }
        });
    }

    /// Before `cur`'s successful rt_sigprocmask (`how`, with a set given
    /// when `set`) whose old mask strace printed as `old`: a first read of
    /// the mask ([`Engine::first_read`]); without one, a SIG_SETMASK makes
    /// it known.
    fn learn_mask(&mut self, cur: TaskId, how: i32, set: bool, old: Option<u64>) {
        let read = self.first_read(cur, Attr::Mask, old.is_some(), |en| {
            let Some(o) = old else { return false };
            let now = en.sys_sigset(cur, &Syscall::RtSigprocmask { how, set: None });
            let set = Syscall::RtSigprocmask {
                how: taskcore::uapi::SIG_SETMASK,
                set: Some(o),
            };
            now.is_ok_and(|m| m != o) && en.sys_sigset(cur, &set).is_ok()
        });
        if read == Read::Unknown && set && how == taskcore::uapi::SIG_SETMASK {
            self.set_known(cur, Attr::Mask, true);
        }
    }

    pub(super) fn sigprocmask(
        &mut self,
        e: &Event,
        cur: TaskId,
        how: i32,
        set: Option<Option<u64>>,
        old: Option<u64>,
    ) {
        self.sig.recorded = true;
        if matches!(e.ret, Outcome::Unknown | Outcome::Died) {
            return self.unchecked(e);
        }
        let Some(set) = set else {
            return self.unchecked_because(e, "set not read");
        };
        if let (Outcome::Value(0), Some(o)) = (&e.ret, old) {
            // A frame that may not exist, whose saved mask is the one
            // recorded.
            self.undo_frame_if(cur, |saved, _, now| o == saved && o != now);
        }
        if matches!(e.ret, Outcome::Value(0)) {
            self.learn_mask(cur, how, set.is_some(), old);
        }
        let r = self.sys_sigset(cur, &Syscall::RtSigprocmask { how, set });
        self.stats.applied += u64::from(r.is_ok());
        if let Ok(prev) = r {
            self.consumed_unseen(cur, prev);
        }
        match (&e.ret, r) {
            (Outcome::Value(0), Ok(prev)) => {
                self.stats.checked += 1;
                if let Some(o) = old {
                    if o != prev {
                        self.mismatch(e, "old mask", sigset(o), sigset(prev));
                    }
                }
            }
            (_, r) => self.check_unit(e, r.map(|_| ())),
        }
    }

    /// rt_sigqueueinfo / rt_tgsigqueueinfo (`call`, with the recorded
    /// numbers; `info` the siginfo strace printed).
    pub(super) fn sigqueueinfo(
        &mut self,
        e: &Event,
        cur: TaskId,
        call: &Syscall,
        info: Option<RecSigInfo>,
    ) {
        let (tgid, tid, sig, given) = match *call {
            Syscall::RtSigqueueinfo { tgid, sig, info } => (tgid, None, sig, info),
            Syscall::RtTgsigqueueinfo {
                tgid,
                tid,
                sig,
                info,
            } => (tgid, Some(tid), sig, info),
            _ => return self.unchecked(e),
        };
        if self.outside_target(cur, tgid) || tid.is_some_and(|t| self.outside_target(cur, t)) {
            return self.unchecked_because(e, "a process outside the trace");
        }
        if info
            .filter(|i| i.signo != 0 || sig == 0 && i.code != 0)
            .is_none()
        {
            // Queued all the same: at its `---` line.
            self.note_skipped(e, e.kind.name());
            return self.unchecked_because(e, "siginfo not read");
        }
        // The sender's pid, as the emulation numbers it.
        let pid = match given.pid {
            p if p > 0 && !self.pids.is_outside(p) => self.pids.map_nr(p),
            p => p,
        };
        let info = SigInfo { pid, ..given };
        let nr = |x: i32| if x > 0 { self.arg_nr(cur, x) } else { x };
        let tgid = nr(tgid);
        let mapped = match tid.map(nr) {
            None => Syscall::RtSigqueueinfo { tgid, sig, info },
            Some(tid) => Syscall::RtTgsigqueueinfo {
                tgid,
                tid,
                sig,
                info,
            },
        };
        let r = self.sys(cur, &mapped);
        self.stats.applied += u64::from(r.is_ok());
        self.check_unit(e, r.map(drop));
    }

    /// rt_sigtimedwait that completed (a signal taken, `EAGAIN`, or the
    /// taken signal's siginfo refused): applied and compared.
    fn timedwait_done(&mut self, e: &Event, cur: TaskId, set: u64, info: Option<RecSigInfo>) {
        // The call completed: what it returns is pending now (a timeout,
        // if it expired, is over), its cause perhaps printed later.
        let mut outside = false;
        if let (Outcome::Value(n), Some(i)) = (&e.ret, info) {
            let sig = *n as i32;
            let held = |k: &taskcore::Kernel| {
                let (p, s) = k.pending_signals(cur).unwrap_or((0, 0));
                (p | s) & bit(sig) != 0
            };
            if !held(&self.k) {
                self.want_cause(e, sig, Some(i));
            }
            // A signal no traced call sent (a timer's SIGALRM, a
            // terminal's, a process outside the trace), taken here with
            // no `---` line: sent now, with the siginfo the call returned.
            if !held(&self.k) && self.unmodelled_sender(e.pid, sig, Some(&i)) {
                outside = self.send_from_outside(e, cur, sig, info, "call").is_ok();
            }
        }
        let r = self.sys_sigwait(cur, &timedwait(set, true));
        if outside {
            self.stats.applied += u64::from(r.is_ok());
            return;
        }
        self.stats.checked += 1;
        match (&e.ret, r) {
            (Outcome::Value(n), Ok(SigWait::Signal(got))) if *n == got.signo as i64 => {
                self.stats.applied += 1;
                if let Some(i) = info {
                    self.compare_info(e, cur, &i, &got);
                }
            }
            (Outcome::Errno(Errno::EAGAIN), Err(Errno::EAGAIN)) => {}
            (Outcome::Errno(Errno::EFAULT), Err(Errno::EFAULT)) => self.stats.applied += 1,
            (rec, got) => {
                let emu = super::notation::fmt_sigwait(&got);
                self.mismatch(e, "result", super::report::fmt_outcome(rec), emu);
            }
        }
    }

    /// rt_sigtimedwait: a completed, interrupted or sleeping wait on
    /// `set` (`None`: strace did not read it), checked against the core.
    pub(super) fn sigtimedwait(
        &mut self,
        e: &Event,
        cur: TaskId,
        set: Option<u64>,
        info: Option<RecSigInfo>,
    ) {
        self.sig.recorded = true;
        let Some(set) = set else {
            return self.unchecked_because(e, "set not read");
        };
        // EFAULT from its siginfo pointer (`uaccess.rs`): the signal was
        // taken, then its siginfo refused.
        let info_fault = e.ret == Outcome::Errno(Errno::EFAULT) && e.uptrs.is_some();
        match e.ret {
            Outcome::Value(_) | Outcome::Errno(Errno::EAGAIN) => {
                self.timedwait_done(e, cur, set, info)
            }
            Outcome::Errno(Errno::EFAULT) if info_fault => self.timedwait_done(e, cur, set, info),
            Outcome::Interrupted => {
                // Woken by a signal outside the set, which it then takes.
                self.stats.checked += 1;
                let blocked = self.k.sigmask(cur).unwrap_or(0) & !set;
                let (p, s) = self.k.pending_signals(cur).unwrap_or((0, 0));
                if (p | s) & set != 0 {
                    let pend = sigset((p | s) & set);
                    self.mismatch(e, "result", "interrupted".into(), format!("{pend} pending"));
                } else if !self.deliverable(cur, blocked | set) {
                    match self.next_waker(e) {
                        Waker::Outside => {
                            // It sleeps until the signal is sent at its line.
                            let r = self.sys_sigwait(cur, &timedwait(set, false));
                            if r == Ok(SigWait::WouldBlock) {
                                self.sig.sleeping.insert(cur, Sleep::Timedwait(set));
                            }
                        }
                        Waker::Nothing => {
                            self.mismatch(e, "result", "interrupted".into(), "would sleep".into())
                        }
                    }
                }
            }
            _ => self.unchecked(e),
        }
    }

    /// rt_sigsuspend (`mask`) and pause (`None`).
    pub(super) fn sigsuspend(&mut self, e: &Event, cur: TaskId, mask: Option<u64>) {
        self.sig.recorded |= mask.is_some();
        if e.ret != Outcome::Interrupted {
            return self.unchecked(e);
        }
        self.stats.checked += 1;
        // The core decides whether the thread was woken: a signal it can
        // take, or a group stop another thread began (`signal_wake_up()`
        // sets `TIF_SIGPENDING` for `JOBCTL_STOP_PENDING` too).
        let r = self.sys_sigwait(cur, &suspend(mask));
        self.stats.applied += 1;
        match r {
            Err(Errno::EINTR) => {}
            Ok(SigWait::WouldBlock) => match self.next_waker(e) {
                // It sleeps until the signal is sent at its line.
                Waker::Outside => {
                    self.sig.sleeping.insert(cur, Sleep::Suspend(mask));
                }
                Waker::Nothing => {
                    self.mismatch(e, "result", "interrupted".into(), "would sleep".into())
                }
            },
            r => self.mismatch(
                e,
                "result",
                "= ? ERESTARTNOHAND".into(),
                super::notation::fmt_sigwait(&r),
            ),
        }
    }

    pub(super) fn sigreturn(&mut self, e: &Event, cur: TaskId, mask: Option<u64>) {
        self.sig.recorded = true;
        if let Some(m) = mask {
            // The frame below saved the recorded mask: the innermost one
            // may not exist.
            self.undo_frame_if(cur, |saved, below, _| saved != m && below == Some(m));
        }
        let frame = self.sig.frames.get_mut(&cur).and_then(|f| f.pop());
        let frame = frame.or_else(|| {
            self.handled_after_all(cur, e).map(|old_mask| Frame {
                old_mask,
                eintr: None,
                sig: 0,
                line: e.line,
                maybe_not: false,
                next_line: None,
            })
        });
        let Some(frame) = frame else {
            // A frame the replay did not see set up (a signal injected
            // before this trace's start): the recorded mask is applied.
            if let Some(m) = mask {
                let _ = self.sys(cur, &Syscall::RtSigreturn { mask: m });
            }
            if self.pids.creator(e.pid).is_some() {
                // A thread the trace created: every handler it ran
                // started at a `---` line the replay saw.
                self.stats.checked += 1;
                return self.mismatch(
                    e,
                    "handler frame",
                    "a handler returns".into(),
                    "no handler ran".into(),
                );
            }
            return self.unchecked_because(e, "no handler frame");
        };
        self.stats.checked += 1;
        if let Some(m) = mask {
            if m != frame.old_mask {
                self.mismatch(e, "restored mask", sigset(m), sigset(frame.old_mask));
            }
        }
        let restore = mask.unwrap_or(frame.old_mask);
        let before = self.k.sigmask(cur);
        if self
            .sys(cur, &Syscall::RtSigreturn { mask: restore })
            .is_ok()
        {
            self.stats.applied += 1;
            if let Ok(before) = before {
                self.consumed_unseen(cur, before);
            }
        }
        let got_eintr = e.ret == Outcome::Interrupted;
        match frame.eintr {
            Some(want) if want != got_eintr => {
                let s = |b: bool| if b { "EINTR" } else { "restarted" };
                self.mismatch(e, "interrupted call", s(got_eintr).into(), s(want).into());
            }
            _ => {}
        }
    }

    /// A ptrace call of a traced program, applied in the core, where
    /// every traced task is already the emulated strace's tracee
    /// ([`strace`](super::strace)) and none is the program's: the core
    /// answers (`ptrace_traceme()`, `ptrace_attach()` and
    /// `ptrace_check_attach()` of kernel/ptrace.c).
    pub(super) fn ptrace_call(&mut self, e: &Event, cur: TaskId, args: [u64; 6]) {
        let pid = args[1] as i32;
        if pid > 0 && self.outside_target(cur, pid) {
            return self.unchecked_because(e, "a process outside the trace");
        }
        let mut a = args;
        if pid > 0 {
            a[1] = self.arg_nr(cur, pid) as u32 as u64;
        }
        let call = match taskcore::sys::Syscall::from_raw(taskcore::sys::nr::PTRACE, a) {
            Ok(c) => c,
            Err(_) => return self.unchecked_because(e, "a request the core does not model"),
        };
        let r = self.sys(cur, &call).map(drop);
        self.check_unit(e, r);
    }
}
