//! The `siginfo_t` that strace prints inside `{...}`: in a `--- SIGxxx ---`
//! line and as an argument or result of waitid(), rt_sigtimedwait(),
//! rt_sigqueueinfo(), rt_tgsigqueueinfo() and pidfd_send_signal(). Shared
//! by the event and call types; it imports nothing.

/// A decoded `siginfo_t` (the fields process management needs), each named
/// as in `siginfo_t` without its `si_` prefix.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SigInfo {
    /// `si_signo` (0 for waitid()'s "nothing to report", printed `{}`).
    pub signo: i32,
    /// `si_code`: `CLD_EXITED` = 1 ... `CLD_CONTINUED` = 6, `SI_USER` = 0,
    /// `SI_TKILL` = -6, `SI_KERNEL` = 0x80, `SEGV_MAPERR` = 1, ...
    pub code: i32,
    /// `si_pid`: the sender, or the child for `SIGCHLD`/waitid().
    pub pid: Option<i32>,
    /// `si_uid`.
    pub uid: Option<u32>,
    /// `si_status`: the exit code for `CLD_EXITED`, the signal number for
    /// the other `CLD_*` codes.
    pub status: Option<i32>,
    /// `si_addr` for faults (`SIGSEGV`, `SIGBUS`, ...); `NULL` is 0.
    pub addr: Option<u64>,
    /// `si_int` (`si_value.sival_int`) of a queued signal (`SI_QUEUE`,
    /// `SI_TIMER`, ...), when printed.
    pub int: Option<i32>,
    /// `si_ptr` (`si_value.sival_ptr`, the same union read as a pointer),
    /// when printed.
    pub ptr: Option<u64>,
}
