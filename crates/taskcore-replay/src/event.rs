//! What the replay engine consumes: one recorded event per value, already
//! joined (`<unfinished ...>` with its `<... resumed>`) and typed.

use std::sync::Arc;

use taskcore::sys::Syscall;

/// A recorded syscall result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// `= N` (N >= 0).
    Value(i64),
    /// `= -1 ENAME (...)` with a Linux errno this crate knows.
    Errno(taskcore::Errno),
    /// Interrupted by a signal (`EINTR`, `ERESTART*`): the call was
    /// sleeping, or will be restarted.
    Interrupted,
    /// `= ?`: the task died (or exec'd) inside the call.
    Died,
    /// An errno outside the model, or no result printed: nothing to check.
    Unknown,
}

/// How strace printed an interrupted call (`? ERESTARTSYS`, `-1 EINTR`,
/// ...): what a handler run makes of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Restart {
    /// `ERESTARTSYS`: restarted under `SA_RESTART`, else EINTR.
    Sys,
    /// `ERESTARTNOINTR`: always restarted.
    NoIntr,
    /// `ERESTARTNOHAND`, `ERESTART_RESTARTBLOCK`: EINTR when a handler
    /// runs, restarted otherwise.
    NoHand,
    /// `EINTR`: the call itself returned it.
    Eintr,
}

/// A recorded call in the strace decoder's vocabulary.
pub(crate) use taskcore_strace::Call;
/// What strace printed of a call beyond its return value (the outputs the
/// engine compares with the dispatched result): strace's
/// [`taskcore_strace::Recorded`].
pub(crate) use taskcore_strace::Recorded as Rec;
/// A recorded siginfo (`--- SIGx {...} ---`, rt_sigtimedwait,
/// rt_sigqueueinfo): the fields strace printed
/// ([`taskcore_strace::SigInfo`]).
pub(crate) use taskcore_strace::SigInfo as RecSigInfo;
/// A recorded `waitid` siginfo: strace's [`taskcore_strace::WaitidInfo`].
pub(crate) use taskcore_strace::WaitidInfo as RecInfo;
/// A pointer strace printed as an address, and how the kernel touches it
/// ([`taskcore_strace::UserPtr`], [`taskcore_strace::Access`]).
pub(crate) use taskcore_strace::{Access, UserPtr};

/// What one recorded event is: a system call in the strace decoder's
/// vocabulary ([`Kind::Call`]: a [`taskcore::sys::Syscall`] with what
/// strace printed of its outputs, or the few shapes the decoder keeps
/// apart), or a line of strace's own (`---`, `+++`) and the replay's
/// synthetic deaths. There is no call type of the replay's own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A recorded call as the strace crate decoded it ([`Call`]), with the
    /// numbers the trace printed (pids, groups, fds: the engine maps them
    /// to the emulation's before [`taskcore::sys::dispatch`]):
    /// - [`Call::Sys`]: a call the core implements, and its recorded
    ///   outputs;
    /// - [`Call::Raw`]: kept as registers, what an argument names resolved
    ///   when it is applied: the fd of pidfd_send_signal and setns
    ///   (through the caller's fd table, `engine/procapi.rs`), ptrace's
    ///   request (under `strace -f` the answer is strace's rule,
    ///   `engine/sigcalls.rs`);
    /// - [`Call::Refused`]: refused before the kernel acts (a
    ///   `sigsetsize` other than 8), checked against that errno;
    /// - [`Call::ProcWrite`]: a write to a user-namespace file of `/proc`
    ///   (`engine/userns.rs`);
    /// - [`Call::Unchecked`]: modelled, its arguments not printed in full:
    ///   counted as unchecked, with why;
    /// - [`Call::RestartSyscall`]: checked against the thread's last call
    ///   (it must have been interrupted).
    ///
    /// Never [`Call::Other`]: a call the replay does not model is
    /// [`Kind::Other`], which keeps only its name.
    Call(Call),
    /// `--- SIGx {...} ---`: a signal delivered to the task.
    Signal { sig: i32, info: Option<RecSigInfo> },
    /// `--- stopped by SIGx ---`.
    Stopped { sig: i32 },
    /// The death behind a `+++` line (synthetic): the task ran `do_exit`
    /// somewhere between its last printed activity and that line.
    Die {
        code: Option<i32>,
        sig: Option<(i32, bool)>,
    },
    /// strace's restart of a thread's signal-delivery-stop for a stop or
    /// core-dumping signal it takes with the default action (synthetic):
    /// the `---` line is the dequeue, and the thread runs on into
    /// `do_signal_stop()`, or `do_coredump()` and its exit, once strace
    /// resumes it, somewhere between that line and its next one (see
    /// `shape/`). `core`: what that next line says of a core dump, when it
    /// is the thread's `+++ killed by` the signal line.
    Resume { sig: i32, core: Option<bool> },
    /// `+++ exited with N +++`. `inferred`: the line is not the trace's
    /// but the replay's, from the task's `exit(N) = ?` or `exit_group(N)
    /// = ?` in a trace that drops these lines (`strace -qq`,
    /// `shape/exits.rs`).
    Exited { code: i32, inferred: bool },
    /// `+++ killed by SIGx [(core dumped)] +++`.
    Killed { sig: i32, core: bool },
    /// A modelled call whose arguments strace never printed (the caller
    /// died inside it): neither applied nor checked.
    Unrecorded { name: String },
    /// A line the replay does not model (counted per syscall name).
    Other { name: String },
}

/// One event of a trace file.
#[derive(Clone, Debug)]
pub(crate) struct Event {
    /// Position in file order (the order events were read), from 0.
    pub(crate) seq: u64,
    pub(crate) file: Arc<str>,
    /// Line that completed the event (1-based).
    pub(crate) line: usize,
    /// Line where it started (`<unfinished ...>`), else `line`.
    pub(crate) entry_line: usize,
    /// The recorded thread id.
    pub(crate) pid: i32,
    /// Seconds (strace `-ttt`) of the completing line; 0 without timestamps.
    pub(crate) ts: f64,
    /// What the event is.
    pub(crate) kind: Kind,
    pub(crate) ret: Outcome,
    /// For an interrupted call, how it was interrupted.
    pub(crate) restart: Option<Restart>,
    /// Where the event is placed by default when that is not its
    /// completing line (see [`Event::key`]): the `+++`
    /// line strace -qq did not print, soon after the exit call though its
    /// window runs to the line that reports the task.
    pub(crate) at: Option<usize>,
    /// The call's pointer arguments strace printed as addresses, in the
    /// order the kernel touches them (strace's `SyscallLine::user_ptrs`); checked
    /// against the emulated address space where the trace mapped it
    /// (`engine/uaccess.rs`).
    pub(crate) uptrs: Option<Arc<[UserPtr]>>,
}

impl Event {
    /// Where the event is placed by default: clones at their entry line
    /// (their result is known), an event with a point of its own
    /// ([`Event::at`]) there, everything else at the line that completed
    /// it. The default order sorts by `(key, seq)`.
    pub(crate) fn key(&self) -> usize {
        if let Some(at) = self.at {
            at
        } else if self.kind.is_clone() {
            self.entry_line
        } else {
            self.line
        }
    }
}

impl Kind {
    /// Whether `call` creates a task (clone, clone3, fork, vfork).
    pub(crate) fn creates(call: &Syscall) -> bool {
        matches!(
            call,
            Syscall::Clone(_) | Syscall::Clone3(_) | Syscall::Fork | Syscall::Vfork
        )
    }

    /// Whether this is a call that creates a task.
    pub(crate) fn is_clone(&self) -> bool {
        matches!(self, Kind::Call(Call::Sys { call, .. }) if Kind::creates(call))
    }

    /// The signal this event sends to another task (kill, tgkill, tkill,
    /// rt_sig(tg)queueinfo), if it is such a call.
    pub(crate) fn sent_signal(&self) -> Option<i32> {
        match self {
            Kind::Call(Call::Sys {
                call:
                    Syscall::Kill { sig, .. }
                    | Syscall::Tgkill { sig, .. }
                    | Syscall::Tkill { sig, .. }
                    | Syscall::RtSigqueueinfo { sig, .. }
                    | Syscall::RtTgsigqueueinfo { sig, .. },
                ..
            }) => Some(*sig),
            _ => None,
        }
    }

    /// Whether this is an rt_sigreturn.
    pub(crate) fn is_sigreturn(&self) -> bool {
        matches!(
            self,
            Kind::Call(Call::Sys {
                call: Syscall::RtSigreturn { .. },
                ..
            })
        )
    }

    /// The syscall or line kind, for counters and messages.
    pub(crate) fn name(&self) -> &str {
        match self {
            // fork and vfork count as clone, as the replay always counted
            // them.
            Kind::Call(Call::Sys { call, .. }) if Kind::creates(call) => "clone",
            Kind::Call(Call::Sys { call, .. }) => call.name(),
            Kind::Signal { .. } => "--- signal",
            Kind::Call(Call::RestartSyscall { .. }) => "restart_syscall",
            Kind::Stopped { .. } => "--- stopped",
            Kind::Die { .. } => "death",
            Kind::Resume { .. } => "--- signal resumed",
            Kind::Exited { .. } => "+++ exited",
            Kind::Killed { .. } => "+++ killed",
            Kind::Call(Call::Raw { nr, .. }) => raw_name(*nr),
            Kind::Call(Call::ProcWrite { .. }) => "write",
            Kind::Call(Call::Refused { name, .. } | Call::Unchecked { name, .. }) => name,
            Kind::Unrecorded { name } | Kind::Other { name } => name,
            // Not built (see [`Kind::Call`]).
            Kind::Call(Call::Other { .. }) => "other",
        }
    }
}

/// The name of a [`Call::Raw`] call.
fn raw_name(nr: u64) -> &'static str {
    match nr {
        taskcore::sys::nr::PIDFD_SEND_SIGNAL => "pidfd_send_signal",
        taskcore::sys::nr::SETNS => "setns",
        taskcore::sys::nr::PTRACE => "ptrace",
        _ => "raw call",
    }
}
