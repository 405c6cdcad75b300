//! When a thread takes its signals ([`SignalDelivery`]), and what taking one
//! tells it to do next ([`SignalAction`]).
//!
//! # Linux
//! kernel/signal.c `get_signal()`, `struct ksignal`.

use crate::task::state::sighand::SigAction;
use crate::task::state::sigpending::sigmask;
use crate::types::SigInfo;
use crate::uapi::{SIGKILL, SIGSTOP};

/// Signals that can never be blocked.
pub(crate) const UNBLOCKABLE: u64 = sigmask(SIGKILL) | sigmask(SIGSTOP);

/// When a thread takes a signal that it can take.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum SignalDelivery {
    /// As soon as it is sent, inside the operation that sent it (or that
    /// unblocked it, resumed the thread, ...): every thread is taken to be
    /// on its way back to user space. A handler is reported with
    /// `Notification::Handler` as having run and returned (its mask
    /// effects are over); stops and deaths happen at once. For embedders
    /// that do not run the emulated code (replay, analysis).
    #[default]
    Immediate,
    /// When the embedder calls `Kernel::get_signal` for the thread, on
    /// its way back to user space. A thread that gains a deliverable
    /// signal is reported with `Notification::SigPending` (Linux's
    /// `TIF_SIGPENDING` and `signal_wake_up()`): a thread sleeping in a
    /// blocking call should be interrupted. Fatal signals still kill the
    /// whole group at once (Linux's `complete_signal()` fast path), and
    /// job-control stops still stop the whole group when one thread takes
    /// the stop signal.
    OnGetSignal,
}

/// What a thread must do next, as `Kernel::get_signal` decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SignalAction {
    /// Nothing to deliver: return to user space.
    None,
    /// Run the handler of `sig`: set up a signal frame with `info` and
    /// `old_mask`, and enter `action.addr` (with `SA_SIGINFO`, three
    /// arguments; `SA_ONSTACK`, on the alternate stack). The thread's mask
    /// already blocks `action.mask` and, unless `SA_NODEFER`, `sig`; the
    /// frame's `rt_sigreturn` gives `old_mask` back
    /// (`Kernel::rt_sigreturn`). A system call the signal interrupted
    /// returns `EINTR`, or is restarted if `action.flags` has `SA_RESTART`
    /// and it returned `ERESTARTSYS`.
    Handler {
        /// The signal.
        sig: i32,
        /// Its siginfo.
        info: SigInfo,
        /// The action (handler address, flags, mask, restorer).
        action: SigAction,
        /// The mask to restore when the handler returns.
        old_mask: u64,
    },
    /// The thread stopped (job control or a ptrace stop): it must not run
    /// until resumed (`Notification::Continued`, or its tracer's restart).
    Stopped,
    /// The thread is exiting: a signal killed its group.
    Exit,
}
