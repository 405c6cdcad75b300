//! Signal dispositions: `rt_sigaction`, and the per-process table of
//! actions (`sighand->action[]`).
//!
//! A thread group keeps its handler kinds as bit masks ([`SigHand`], read
//! on every send and exit) and, only once some action has flags, a mask or
//! an address, a table of the 64 actions shared copy-on-write with the
//! processes it forked (Linux copies `sighand_struct` at fork; sharing it
//! until a write is the same to every observer).
//!
//! # Linux
//! kernel/signal.c `do_sigaction()`, `flush_signal_handlers()`.

use crate::ix::GroupIx;
use std::sync::Arc;

use crate::errno::Result;
use crate::task::kernel::{Kernel, TaskId};
use crate::task::state::sighand::{ActionDetail, SigAction, SigHand, SigHandler};
use crate::task::state::sigpending::sigmask;
use crate::uapi::{
    SA_NOCLDSTOP, SA_NOCLDWAIT, SA_RESETHAND, SIGCHLD, SIGKILL, SIGSTOP, UAPI_SA_FLAGS,
};

/// # Signals: actions (`rt_sigaction`, `kernel/signal.c`).
impl Kernel {
    /// `rt_sigaction(sig, act, oldact)`: returns the old action of `sig` in
    /// `current`'s thread group and, with `act`, installs a new one.
    /// Setting an action that ignores `sig` discards it from every pending
    /// set of the group.
    ///
    /// # Errors
    /// - `ESRCH`: `current` is stale or exiting.
    /// - `EINVAL`: `sig` outside 1..=64, or an action for SIGKILL or
    ///   SIGSTOP.
    ///
    /// # Linux
    /// `do_sigaction()` (kernel/signal.c). Dispositions are shared by the
    /// thread group and inherited by fork; see [`Kernel::execve`] for exec.
    pub fn rt_sigaction(
        &mut self,
        current: TaskId,
        sig: i32,
        act: Option<SigAction>,
    ) -> Result<SigAction> {
        self.probed(crate::probe::Op::RtSigaction, current, |k| {
            k.do_sys_rt_sigaction(current, sig, act)
        })
    }

    fn do_sys_rt_sigaction(
        &mut self,
        current: TaskId,
        sig: i32,
        act: Option<SigAction>,
    ) -> Result<SigAction> {
        let t = self.current(current)?;
        crate::rules::sigaction_sig(sig, act.is_some())?;
        let g = self.tasks[t].group;
        let old = self.sigaction_of(g, sig);
        if let Some(a) = act {
            self.set_sigaction(g, sig, a);
            if self.groups[g].sighand.get().handler_ignored(sig) {
                self.flush_group_pending(g, sigmask(sig));
            }
        }
        Ok(old)
    }

    /// The action of `sig` in group `g`, as `rt_sigaction` reports it.
    pub(crate) fn sigaction_of(&self, g: GroupIx, sig: i32) -> SigAction {
        let grp = &self.groups[g];
        let sh = grp.sighand.get();
        let handler = if sh.is_ignored(sig) {
            SigHandler::Ignore
        } else if sh.is_handled(sig) {
            SigHandler::Handler
        } else {
            SigHandler::Default
        };
        let d = grp
            .sighand
            .actions()
            .map(|a| a[(sig - 1) as usize])
            .unwrap_or_default();
        SigAction {
            handler,
            flags: d.flags,
            mask: d.mask,
            addr: d.addr,
            restorer: d.restorer,
        }
    }

    /// Installs action `a` for `sig` in group `g` (`*k = *act` of
    /// `do_sigaction()`), keeping the bit masks in step.
    pub(crate) fn set_sigaction(&mut self, g: GroupIx, sig: i32, a: SigAction) {
        let bit = sigmask(sig);
        let flags = a.flags & UAPI_SA_FLAGS;
        let grp = &mut self.groups[g];
        let sh = grp.sighand.make_mut();
        sh.ignored &= !bit;
        sh.handled &= !bit;
        sh.resethand &= !bit;
        match a.handler {
            SigHandler::Ignore => sh.ignored |= bit,
            SigHandler::Handler => {
                sh.handled |= bit;
                if flags & SA_RESETHAND != 0 {
                    sh.resethand |= bit;
                }
            }
            SigHandler::Default => {}
        }
        if sig == SIGCHLD {
            sh.chld_flags = flags & (SA_NOCLDSTOP | SA_NOCLDWAIT);
        }
        let d = ActionDetail {
            flags,
            mask: a.mask & !(sigmask(SIGKILL) | sigmask(SIGSTOP)),
            addr: if a.handler == SigHandler::Handler {
                a.addr
            } else {
                0
            },
            restorer: a.restorer,
        };
        if d != ActionDetail::default() || grp.sighand.actions().is_some() {
            let table = grp
                .sighand
                .actions_mut()
                .get_or_insert_with(|| Arc::new([ActionDetail::default(); 64]));
            Arc::make_mut(table)[(sig - 1) as usize] = d;
        }
        grp.sighand.shrink();
    }

    /// `SA_RESETHAND` at delivery: `sig`'s handler becomes `SIG_DFL`
    /// (`sa_flags` keep their value but for the one-shot bit, as Linux's
    /// `ka->sa.sa_handler = SIG_DFL` leaves them).
    pub(crate) fn reset_handler(&mut self, g: GroupIx, sig: i32) {
        let sh = self.groups[g].sighand.make_mut();
        sh.handled &= !sigmask(sig);
        sh.resethand &= !sigmask(sig);
        if let Some(table) = self.groups[g].sighand.actions_mut().as_mut() {
            Arc::make_mut(table)[(sig - 1) as usize].addr = 0;
        }
        self.groups[g].sighand.shrink();
    }

    /// `flush_signal_handlers(t, 0)`: handlers back to `SIG_DFL`, `SIG_IGN`
    /// kept, every flag, mask and restorer cleared (exec,
    /// `CLONE_CLEAR_SIGHAND`).
    pub(crate) fn flush_signal_handlers(&mut self, g: GroupIx) {
        let grp = &mut self.groups[g];
        if grp.sighand.get() != SigHand::default() || grp.sighand.actions().is_some() {
            let sh = grp.sighand.make_mut();
            sh.handled = 0;
            sh.resethand = 0;
            sh.chld_flags = 0;
            *grp.sighand.actions_mut() = None;
            grp.sighand.shrink();
        }
    }
}
