//! The recorded signal calls: rt_sigaction, rt_sigprocmask,
//! rt_sigpending, rt_sig(tg)queueinfo, rt_sigtimedwait, rt_sigsuspend,
//! pause and rt_sigreturn, each handed to its check (here, or in
//! [`signals`](super::signals) where it depends on the `---` lines), and
//! the calls the decoder refuses.

use taskcore::sys::{SysRet, Syscall};
use taskcore::{Errno, SigHandler, SigWait, TaskId};

use super::signals::sigset;
use super::Engine;
use crate::event::{Event, Outcome, Rec};

impl Engine {
    /// A call returning a signal set (rt_sigprocmask's old mask,
    /// rt_sigpending's set) applied through [`taskcore::sys::dispatch`].
    pub(super) fn sys_sigset(&mut self, cur: TaskId, call: &Syscall) -> taskcore::Result<u64> {
        match self.sys(cur, call)? {
            SysRet::Sigset(s) => Ok(s),
            // Only those calls reach here.
            _ => Err(Errno::ENOSYS),
        }
    }

    /// A signal wait (rt_sigtimedwait, rt_sigsuspend, pause) applied
    /// through [`taskcore::sys::dispatch`].
    pub(super) fn sys_sigwait(&mut self, cur: TaskId, call: &Syscall) -> taskcore::Result<SigWait> {
        match self.sys(cur, call)? {
            SysRet::SigWait(w) => Ok(w),
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
                    Rec::Siginfo { info, .. } => *info,
                    _ => None,
                };
                self.sigqueueinfo(e, cur, call, info)
            }
            (&Syscall::RtSigtimedwait { set, .. }, &Rec::Siginfo { read, info }) => {
                self.sigtimedwait(e, cur, read.then_some(set), info)
            }
            (&Syscall::RtSigsuspend { mask }, _) => self.sigsuspend(e, cur, Some(mask)),
            (Syscall::Pause, _) => self.sigsuspend(e, cur, None),
            (Syscall::RtSigreturn { .. }, &Rec::Frame(mask)) => self.sigreturn(e, cur, mask),
            _ => self.unchecked(e),
        }
    }

    /// A call the decoder refuses with `err` (`Kind::Refused`): the
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
        let r = self.sys(cur, &Syscall::RtSigaction { sig, act });
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
                self.mismatch(
                    e,
                    "result",
                    super::report::fmt_outcome(rec),
                    format!("{got:?}"),
                );
            }
        }
    }
}
