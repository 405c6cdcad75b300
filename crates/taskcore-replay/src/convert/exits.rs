//! Whether the trace prints `+++ exited with N +++` lines, and the deaths
//! taken from `exit_group(N) = ?` / `exit(N) = ?` when it does not.
//!
//! `strace -qq` drops every `+++ exited` line (it keeps `+++ killed by`
//! and `+++ superseded by`). The replay ends a task at its `+++` line, so
//! without them no task would die. The call line already says that the
//! task exits and with what code, so in such a trace each `exit_group(N)
//! = ?` and `exit(N) = ?` line is followed by a synthetic `+++ exited with
//! N +++` (and its [`Kind::Die`](crate::event::Kind::Die)) at the same line.
//!
//! A trace says which it is only by the absence of the lines. Under `-q`
//! strace prints a task's `+++ exited` line when it reaps the task, a few
//! lines after its `= ?` line (at most 124 lines in every recording of the
//! repository; a leader that exits while its threads run is reaped later,
//! but the threads' own `+++` lines then come). So from the first exit
//! call on, the converter holds its output until either a `+++ exited`
//! line comes (the trace prints them: everything is handed on as it is)
//! or [`DECIDE_AFTER`] lines pass without one, or the input ends (they are
//! dropped: the held exit calls get their synthetic lines). A `+++
//! exited` line later still switches back. Memory: the events of at most
//! [`DECIDE_AFTER`] lines, once per trace.

use crate::event::{Event, Kind, Outcome};
use taskcore::sys::Syscall;

/// Lines after the first exit call without any `+++ exited` line before
/// the trace is taken to drop them.
pub(crate) const DECIDE_AFTER: usize = 2048;

/// Whether a trace prints `+++ exited with N +++` lines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ExitLines {
    /// Not known yet (no task exited through exit/exit_group so far).
    #[default]
    Unknown,
    /// Printed (`strace -f` or `-f -q`).
    Printed,
    /// Dropped (`strace -qq`): deaths are taken from the exit calls.
    Dropped,
}

impl ExitLines {
    /// `unknown`, `printed` or `dropped`.
    pub fn name(self) -> &'static str {
        match self {
            ExitLines::Unknown => "unknown",
            ExitLines::Printed => "printed",
            ExitLines::Dropped => "dropped",
        }
    }
}

/// The exit code of an exit call that did not return (`= ?`).
pub(crate) fn exit_call(e: &Event) -> Option<i32> {
    match (&e.kind, &e.ret) {
        (
            Kind::Sys {
                call: Syscall::Exit { code } | Syscall::ExitGroup { code },
                ..
            },
            Outcome::Died,
        ) => Some(*code),
        _ => None,
    }
}

/// The mode and the events held while it is unknown.
#[derive(Debug, Default)]
pub(crate) struct Exits {
    pub(crate) mode: ExitLines,
    /// Events held since the first exit call (mode unknown).
    pub(crate) held: Vec<Event>,
    /// The line of the first held exit call.
    pub(crate) since: Option<usize>,
}

impl Exits {
    /// The lowest line a held event may be placed at, if any is held.
    pub(crate) fn floor(&self) -> Option<usize> {
        self.held.iter().map(|e| e.entry_line.min(e.line)).min()
    }
}
