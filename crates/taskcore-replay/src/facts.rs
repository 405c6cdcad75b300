//! What the recording shows later than the event it is about: facts the
//! planner (`plan.rs`) derives from the lookahead window and attaches to an
//! event before the engine applies it. The engine reads these, never the
//! window: it is a function of its state and the events (with their facts)
//! it is given, in the order it is given them.
//!
//! Every field is a plain reading of later lines of the trace; what the
//! engine makes of it (which of several candidates its state allows) stays
//! in the engine.

use std::sync::{Arc, OnceLock};

use crate::event::RecSigInfo;

/// A later `--- SIGx {si_pid=C, ...} ---` line naming child (or sender) `C`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Named {
    /// The thread whose line it is (recorded tid).
    pub(crate) thread: i32,
    /// The signal.
    pub(crate) sig: i32,
    /// Its `si_code`.
    pub(crate) code: i32,
    /// Its `si_pid`, a recorded pid (`None`: not printed).
    pub(crate) pid: Option<i32>,
}

/// A later line that may have caused a signal taken at an event: a call
/// sending it whose window contains the event's line, or a `--- stopped
/// by` line of a thread (the group stop completes with its last thread and
/// notifies the parent then).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Cause {
    /// Its place in the default order ([`Event::key`](crate::event::Event::key)).
    pub(crate) key: usize,
    pub(crate) seq: u64,
    /// Its recorded thread.
    pub(crate) thread: i32,
    /// A `--- stopped by` line (else a sending call).
    pub(crate) stop: bool,
}

/// What the lines after a mask-changing call of a thread show of the
/// signals it unblocked (`engine/consumed.rs`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Unblocked {
    /// Whether the thread has a later line that is neither a `---` line
    /// nor an `rt_sigreturn` (its next call): the lookahead decides.
    pub(crate) decided: bool,
    /// Signals of the thread's `---` lines before that call.
    pub(crate) taken: u64,
    /// The later `---` lines with a siginfo, of any thread, in file
    /// order, distinct, at most 32 per signal.
    pub(crate) later: Vec<Named>,
}

/// The facts the planner attached to one event (all empty for most).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Facts {
    /// Happens-before constraints: later lines (`(key, seq)`, see
    /// [`Event::key`](crate::event::Event::key)) that the kernel applied
    /// before this event, which the scheduler (`replayer.rs`) moves before
    /// it. A wait reporting a child's death or stop: the child's death and
    /// `+++` line, or its `--- stopped by` line, that strace printed after
    /// the wait. A `+++` line: the parent's `---` SIGCHLD line strace
    /// printed after it, whose dequeue came before the reap sent the
    /// child's SIGCHLD (a later `---` line names the child, so the two
    /// were not coalesced).
    pub(crate) preceded_by: Vec<(usize, u64)>,
    /// A `---` line with a siginfo, or an `rt_sigtimedwait` that returned
    /// one: the later lines that may have caused it (the engine, which
    /// knows whether the signal is pending already and which threads make
    /// up the sender's process, asks the scheduler for the ones that did,
    /// [`crate::engine::Engine::take_wants`]).
    pub(crate) causes: Vec<Cause>,
    /// An interrupted call: the signal and siginfo of the thread's next
    /// line when it is a `---` line.
    pub(crate) next_signal: Option<(i32, Option<RecSigInfo>)>,
    /// A `---` line: whether the thread has a later `rt_sigreturn` line.
    pub(crate) sigreturn_later: bool,
    /// A mask-changing call in a trace that opened a signalfd.
    pub(crate) unblocked: Option<Unblocked>,
    /// A clone in a trace with `--decode-pids=pidns` comments: the tasks
    /// with a later clone line carrying such a comment.
    pub(crate) ns_annotated: Vec<i32>,
    /// A clone whose child strace may not have numbered (its caller died
    /// in it, or a pid namespace was entered in the trace): the tasks with
    /// lines after its entry line that no clone of the lookahead created,
    /// in order of their first such line.
    pub(crate) uncreated: Vec<i32>,
}

impl Facts {
    /// Shared empty facts.
    pub(crate) fn none() -> &'static Arc<Facts> {
        static NONE: OnceLock<Arc<Facts>> = OnceLock::new();
        NONE.get_or_init(|| Arc::new(Facts::default()))
    }

    /// Whether nothing was derived.
    pub(crate) fn is_empty(&self) -> bool {
        *self == Facts::default()
    }
}
