//! What a wait reports ([`WaitReport`], [`WaitOutcome`]), and the index of
//! the children that have something to report (`index`), so that a wait
//! costs what it reports. The calls themselves, `wait4` and `waitid`, are
//! the kernel's (`task/lifecycle/wait.rs`).
//!
//! # Linux
//! kernel/exit.c: `struct wait_opts`, `do_wait`.

pub(crate) mod dirty;
pub(crate) mod index;
/// Readiness cells: the fields that wait readiness reads are [`Ready`]
/// values, written only through a setter that asks for the proof
/// ([`Marked`]) that their wait edges were marked dirty. The kernel's
/// setters (`task/readiness.rs`) mark and write; a write elsewhere does not
/// compile. The file imports nothing (and has no inner doc), so that its
/// doctests can include it.
///
/// [`Ready`]: ready::Ready
/// [`Marked`]: ready::Marked
pub(crate) mod ready;
pub(crate) mod ready_set;

use crate::types::SigInfo;

/// What a child reported to `wait4`/`waitid`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WaitReport {
    /// The child's pid in the waiter's namespace (the syscall's return
    /// value).
    pub pid: i32,
    /// The `wait4` status word: `code << 8` for an exit, the signal (|
    /// 0x80 if it dumped core) for a kill, `sig << 8 | 0x7f` for a stop,
    /// `0xffff` for a continue.
    pub status: i32,
    /// The `waitid` siginfo: `si_signo` SIGCHLD, `si_code` one of
    /// `CLD_EXITED`, `CLD_KILLED`, `CLD_DUMPED`, `CLD_TRAPPED`,
    /// `CLD_STOPPED`, `CLD_CONTINUED`, and `si_status`.
    pub info: SigInfo,
}

/// The result of a wait that did not fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum WaitOutcome {
    /// A child's state change, reaped unless `WNOWAIT` was given.
    Reported(WaitReport),
    /// `WNOHANG` and nothing to report yet: `wait4` returns 0, `waitid`
    /// returns 0 with `si_pid` 0.
    NothingYet,
    /// Without `WNOHANG`, the caller must sleep. Retry the same call after a
    /// `Notification::WakeChldexit` for the caller's group.
    WouldBlock,
    /// Without `WNOHANG`, nothing to report and the caller has a signal to
    /// take (`SignalDelivery::OnGetSignal`): the call ends with
    /// `-ERESTARTSYS` (`Restart::Sys`); what the program sees
    /// depends on the handler, if any (`Restart::resolve`).
    Interrupted,
}
