//! The summary of a run: what `--report FILE` writes as JSON.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::check::Divergence;

/// What a run did and found.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Report {
    /// The command's exit status as a shell reports it: its exit code, or
    /// 128 + the signal that killed it.
    pub exit_status: i32,
    /// The virtual pid the command had.
    pub command_pid: i32,
    /// Trapped calls served (seccomp stops), by name.
    pub calls: BTreeMap<&'static str, u64>,
    /// Trapped calls served in all.
    pub calls_served: u64,
    /// The tracees' ptrace stops the supervisor handled, by kind
    /// (`seccomp`, `syscall-exit`, `clone-event`, `exec-event`,
    /// `event-stop` (group stops, listens' ends and a new
    /// task's first stop), `signal-delivery`), and the deaths it was told
    /// of (`death`: a wait status, not a stop). Each stop costs the
    /// tracee two context switches.
    pub stops: BTreeMap<&'static str, u64>,
    /// Trapped calls answered at their seccomp stop from the real
    /// kernel's state read another way (no syscall-exit stop; docs/run.md).
    pub answered_at_entry: u64,
    /// Answers of the core compared with the real kernel's (calls, and
    /// signals taken at delivery stops).
    pub checked: u64,
    /// Answers not comparable (an interrupted call, a call the core does
    /// not model), by reason.
    pub not_checked: BTreeMap<String, u64>,
    /// Every disagreement, in the order found.
    pub divergences: Vec<Divergence>,
    /// Tasks (processes and threads) the program created.
    pub tasks_created: u64,
    /// Signals that came from outside the namespace (the terminal, the
    /// kernel's faults and timers, the supervisor's forwarding).
    pub external_signals: u64,
    /// Calls refused (`ENOSYS` for an untranslated pid-bearing call,
    /// `EPERM` for ptrace), by name.
    pub refused: BTreeMap<&'static str, u64>,
    /// New processes found without their creator's clone event (the
    /// creator killed inside its clone, after the child was made; docs/run.md).
    pub lost_clone_events: u64,
    /// Seconds from start to the command's end.
    pub elapsed_s: f64,
    /// The processes over time ([`crate::options::Options::timeline`]); not in the
    /// JSON summary.
    #[serde(skip)]
    pub timeline: Option<crate::timeline::Timeline>,
}

impl Report {
    /// Counts one not-comparable answer.
    pub(crate) fn not_checked(&mut self, why: &str) {
        *self.not_checked.entry(why.to_string()).or_default() += 1;
    }

    /// Counts one stop (or death report) of kind `kind`.
    pub(crate) fn stop(&mut self, kind: &'static str) {
        *self.stops.entry(kind).or_default() += 1;
    }
}
