//! System calls interrupted by a signal: Linux's `-ERESTART*` codes and
//! what they become once the thread has taken its signal.
//!
//! A blocking call that a signal interrupts ends with one of four
//! kernel-internal codes, never seen by the program. On the way back to
//! user space, after [`crate::Kernel::get_signal`], the code becomes
//! `EINTR` or a restart of the call, depending on whether a handler runs
//! and on its `SA_RESTART`: [`Restart::resolve`].
//!
//! Which calls end with which code:
//! - `wait4`, `waitid` (and reads, writes, most sleeps of an emulator):
//!   [`Restart::Sys`];
//! - `pause`, `rt_sigsuspend`: [`Restart::NoHand`];
//! - `nanosleep`, `clock_nanosleep`, `poll`: [`Restart::Block`];
//! - `rt_sigtimedwait` ends with `EINTR` itself, whatever the handler.
//!
//! # Linux
//! include/linux/errno.h (`ERESTARTSYS` 512, `ERESTARTNOINTR` 513,
//! `ERESTARTNOHAND` 514, `ERESTART_RESTARTBLOCK` 516);
//! arch/x86/kernel/signal.c `handle_signal()` and
//! `arch_do_signal_or_restart()`.

use crate::task::state::sighand::SigAction;
use crate::uapi::SA_RESTART;

/// How an interrupted system call ended (a `-ERESTART*` code).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Restart {
    /// `ERESTARTSYS` (512): restarted, unless a handler without
    /// `SA_RESTART` runs (then `EINTR`).
    Sys,
    /// `ERESTARTNOINTR` (513): always restarted.
    NoIntr,
    /// `ERESTARTNOHAND` (514): restarted if no handler runs, else `EINTR`.
    NoHand,
    /// `ERESTART_RESTARTBLOCK` (516): `EINTR` if a handler runs, else
    /// resumed through `restart_syscall`.
    Block,
}

/// What the program sees of an interrupted call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Restarted {
    /// The call returns `EINTR`.
    Eintr,
    /// The call is made again, with the same arguments, when the thread
    /// returns to user space (after the handler, if one runs).
    Restart,
    /// The thread resumes the call through `restart_syscall`.
    RestartSyscall,
}

impl Restart {
    /// The kernel's number for the code (512, 513, 514, 516), as strace
    /// prints it in `? ERESTARTSYS (To be restarted if SA_RESTART is set)`.
    pub const fn errno(self) -> i32 {
        match self {
            Restart::Sys => 512,
            Restart::NoIntr => 513,
            Restart::NoHand => 514,
            Restart::Block => 516,
        }
    }

    /// What the call becomes when the thread returns to user space:
    /// `handler` is the action of the handler
    /// [`crate::Kernel::get_signal`] set up
    /// ([`crate::SignalAction::Handler`]), or `None` when none runs (the
    /// signal was ignored, or stopped and continued the thread).
    ///
    /// # Linux
    /// `handle_signal()` (a handler runs) and the no-handler branch of
    /// `arch_do_signal_or_restart()`.
    pub fn resolve(self, handler: Option<&SigAction>) -> Restarted {
        match (self, handler) {
            (Restart::NoIntr, _) => Restarted::Restart,
            (Restart::Sys, Some(a)) if a.flags & SA_RESTART != 0 => Restarted::Restart,
            (Restart::Sys | Restart::NoHand | Restart::Block, Some(_)) => Restarted::Eintr,
            (Restart::Sys | Restart::NoHand, None) => Restarted::Restart,
            (Restart::Block, None) => Restarted::RestartSyscall,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::state::sighand::SigHandler;

    #[test]
    fn the_x86_restart_table() {
        let plain = SigAction::new(SigHandler::Handler, 0);
        let restart = SigAction::new(SigHandler::Handler, SA_RESTART);
        let cases = [
            (Restart::Sys, Some(&plain), Restarted::Eintr),
            (Restart::Sys, Some(&restart), Restarted::Restart),
            (Restart::Sys, None, Restarted::Restart),
            (Restart::NoHand, Some(&restart), Restarted::Eintr),
            (Restart::NoHand, None, Restarted::Restart),
            (Restart::Block, Some(&restart), Restarted::Eintr),
            (Restart::Block, None, Restarted::RestartSyscall),
            (Restart::NoIntr, Some(&plain), Restarted::Restart),
        ];
        for (code, h, want) in cases {
            assert_eq!(code.resolve(h), want, "{code:?} {h:?}");
        }
    }
}
