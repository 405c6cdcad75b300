//! Counters, mismatches and the checks of a recorded result against the
//! emulated one.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::event::Outcome;

/// One difference between the recording and the emulation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// Position in the replay order of the step that found it.
    pub pos: u64,
    /// Sequence number (in file order) of the event it concerns.
    pub event: u64,
    /// Recorded pids whose history may explain it (a wait's recorded child
    /// and the one the core preferred).
    pub involved: Vec<i32>,
    /// The trace file.
    pub file: String,
    /// The line of the event (its completing line).
    pub line: usize,
    /// What was checked, e.g. `wait4 by 1234: wait`.
    pub what: String,
    /// The recorded value.
    pub recorded: String,
    /// The emulated value.
    pub emulated: String,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}: {}: recorded {}, emulated {}",
            self.file, self.line, self.what, self.recorded, self.emulated
        )
    }
}

/// Counters of one replay.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Stats {
    /// Trace events replayed (lines that carry an event; a joined
    /// `unfinished`/`resumed` pair counts once).
    pub events: u64,
    /// Recorded results compared with the emulation.
    pub checked: u64,
    /// Tasks (processes and threads) the trace created, the root included.
    pub tasks: u64,
    /// The most tasks alive in the emulation at once, counting the three
    /// processes standing for the world outside the trace.
    pub peak_live: u64,
    /// `--- SIGxxx {...} ---` lines checked: the signal delivered to that
    /// thread at that point, with that siginfo (also counted in
    /// `checked`).
    pub signals_checked: u64,
    /// Of `signals_checked`, lines of a signal the thread ignores that the
    /// emulation discarded when it was sent (strace's tracing kept it in
    /// Linux): the action and mask are checked, not the siginfo.
    pub signals_ignored: u64,
    /// Calls applied to the emulated kernel.
    pub applied: u64,
    /// Lines not modelled, by syscall name.
    pub skipped: HashMap<String, u64>,
    /// Modelled lines whose result cannot be checked, by syscall name and
    /// reason.
    pub unchecked: HashMap<String, u64>,
    /// Checked results of the process-API calls, by call (`pidfd_open`,
    /// `waitid(P_PIDFD)`, `clone3(CLONE_PIDFD)`, `clone in a pid
    /// namespace`, `setresuid`, `prlimit64`, ...); included in `checked`.
    pub checked_calls: HashMap<String, u64>,
    /// State from before the trace the recording showed and the emulation
    /// took instead of checking (a disposition at its first old action, a
    /// mask at its first old mask), by what showed it.
    pub learned: HashMap<String, u64>,
    /// Mismatches not yet handed out (the engine's tentative ones).
    pub(crate) mismatches: Vec<Mismatch>,
}

/// A recorded outcome as the trace printed it (`= 0`, `= -1 ESRCH`).
pub(crate) fn fmt_outcome(o: &Outcome) -> String {
    let mut s = String::new();
    match o {
        Outcome::Value(v) => write!(s, "= {v}").ok(),
        Outcome::Errno(e) => write!(s, "= -1 {}", e.name()).ok(),
        Outcome::Unknown => write!(s, "= ?").ok(),
        Outcome::Interrupted => write!(s, "= ? (interrupted)").ok(),
        Outcome::Died => write!(s, "= ? (died)").ok(),
    };
    s
}
