//! The signal waits a thread sleeps in (rt_sigsuspend, pause,
//! rt_sigtimedwait): the calls that express them, what ends a sleep, and
//! what ends a sleep (the engine applies one through [`taskcore::sys::dispatch`],
//! [`sigcalls`](super::sigcalls)). The
//! recorded calls ([`sigcalls`](super::sigcalls)) put a thread to sleep;
//! its `---` line ([`signals`](super::signals)) wakes it.

use taskcore::sys::{Syscall, Timespec};

/// A signal wait a thread sleeps in.
#[derive(Clone, Copy, Debug)]
pub(super) enum Sleep {
    /// rt_sigsuspend(mask), or pause (`None`).
    Suspend(Option<u64>),
    /// rt_sigtimedwait(set).
    Timedwait(u64),
}

/// What woke a thread from a signal wait.
pub(super) enum Waker {
    /// A signal from outside the replay.
    Outside,
    /// Nothing that the emulation would not hold.
    Nothing,
}

impl Sleep {
    /// The call a signal that ends the sleep retries: the same wait, a
    /// rt_sigtimedwait() told that its timeout expired.
    pub(super) fn retried(self) -> Syscall {
        match self {
            Sleep::Suspend(mask) => suspend(mask),
            Sleep::Timedwait(set) => timedwait(set, true),
        }
    }
}

/// rt_sigtimedwait on `set`, told that its timeout expired (`expired`:
/// a zero timeout) or not (none: it waits).
pub(super) fn timedwait(set: u64, expired: bool) -> Syscall {
    Syscall::RtSigtimedwait {
        set,
        timeout: expired.then_some(Timespec::ZERO),
    }
}

/// rt_sigsuspend(`mask`), or pause (`None`).
pub(super) fn suspend(mask: Option<u64>) -> Syscall {
    match mask {
        Some(mask) => Syscall::RtSigsuspend { mask },
        None => Syscall::Pause,
    }
}
