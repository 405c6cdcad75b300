//! Typed arguments of the signal-mask, pending-set and signal-wait calls
//! (strace's `%signal` class beyond rt_sigaction/kill/tgkill/tkill), carried
//! by [`Call::Signal`](crate::Call::Signal).

use crate::siginfo::SigInfo;

/// A `sigset_t *` argument as strace printed it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SigSetArg {
    /// `NULL`.
    Null,
    /// A set strace read: `[USR1 RT_2]`, `~[KILL STOP]` (complement) or `[]`,
    /// as Linux's 64-bit mask (bit `n - 1` for signal `n`).
    Set(u64),
    /// A pointer strace did not read (the call failed, e.g. a bad
    /// `sigsetsize`), printed as an address.
    Addr(u64),
}

impl SigSetArg {
    /// The mask, if strace read one.
    pub fn mask(&self) -> Option<u64> {
        match self {
            SigSetArg::Set(m) => Some(*m),
            _ => None,
        }
    }
}

/// A `struct timespec` argument: seconds and nanoseconds as printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timespec {
    /// `tv_sec`.
    pub sec: i64,
    /// `tv_nsec` (Linux rejects values outside `0..1_000_000_000` with EINVAL).
    pub nsec: i64,
}

/// One of the signal calls decoded beyond the process calls.
#[derive(Clone, Debug, PartialEq)]
pub enum SigCall {
    /// rt_sigprocmask(how, set, oldset, sigsetsize).
    RtSigprocmask {
        /// `SIG_BLOCK` = 0, `SIG_UNBLOCK` = 1, `SIG_SETMASK` = 2; any other
        /// value as printed (`0x3 /* SIG_??? */` is 3).
        how: i32,
        /// The new set; [`SigSetArg::Null`] queries only.
        set: SigSetArg,
        /// The old mask the kernel wrote back (read after the call).
        oldset: SigSetArg,
        /// Bytes; Linux accepts only 8 (else EINVAL).
        sigsetsize: u64,
    },
    /// rt_sigpending(set, sigsetsize): thread-pending | shared-pending.
    RtSigpending {
        /// The pending set the kernel wrote.
        set: SigSetArg,
        /// Bytes; Linux accepts up to 8 (more is EINVAL).
        sigsetsize: u64,
    },
    /// rt_sigsuspend(mask, sigsetsize): waits with `mask` as the blocked
    /// set; returns `? ERESTARTNOHAND` (the program sees EINTR).
    RtSigsuspend {
        /// The temporary mask.
        mask: SigSetArg,
        /// Bytes; must be 8.
        sigsetsize: u64,
    },
    /// rt_sigtimedwait(set, info, timeout, sigsetsize); returns the signal
    /// number, or EAGAIN when the timeout expires.
    RtSigtimedwait {
        /// The signals waited for.
        set: SigSetArg,
        /// The dequeued siginfo; `None` for `NULL` or when not written.
        info: Option<SigInfo>,
        /// `None` for `NULL` (wait forever).
        timeout: Option<Timespec>,
        /// Bytes; must be 8.
        sigsetsize: u64,
    },
    /// rt_sigqueueinfo(tgid, sig, info).
    RtSigqueueinfo {
        /// The target thread group.
        tgid: i32,
        /// The signal (0 checks permission only).
        sig: i32,
        /// The siginfo given (`si_code` SI_QUEUE = -1, ...), if printed.
        info: Option<SigInfo>,
    },
    /// rt_tgsigqueueinfo(tgid, tid, sig, info).
    RtTgsigqueueinfo {
        /// The thread group of `tid`.
        tgid: i32,
        /// The target thread.
        tid: i32,
        /// The signal.
        sig: i32,
        /// The siginfo given, if printed.
        info: Option<SigInfo>,
    },
    /// rt_sigreturn(): strace prints the mask restored from the frame,
    /// `{mask=[...]}`; the result is the interrupted call's return value.
    RtSigreturn {
        /// The restored blocked mask, when printed.
        mask: Option<u64>,
    },
    /// restart_syscall(): the kernel resuming a call interrupted by a stop
    /// or an ignored signal (`<... resuming interrupted NAME ...>`).
    RestartSyscall {
        /// The resumed call's name, when printed.
        resuming: Option<String>,
    },
    /// pause(): returns `? ERESTARTNOHAND` when a handler ran.
    Pause,
}
