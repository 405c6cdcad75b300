//! The marks of wait edges whose readiness may have changed: set by the
//! readiness setters during an operation, flushed into the wait index once
//! at its end.

use crate::ix::{GroupIx, TaskIx};

/// A wait edge marked for re-registration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dirty {
    /// Both edges that lead to a task (as `Kernel::sync_task`).
    Task(TaskIx),
    /// Every edge that depends on a group's state (as `Kernel::sync_group`).
    Group(GroupIx),
}
