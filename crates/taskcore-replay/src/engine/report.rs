//! Counters, mismatches and the checks of a recorded result against the
//! emulated one.

use std::collections::HashMap;
use std::fmt::Write as _;

use taskcore::TaskId;

use super::Engine;
use crate::event::{Event, Outcome};

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

impl Engine {
    pub(crate) fn mismatch(&mut self, e: &Event, what: &str, recorded: String, emulated: String) {
        self.stats.mismatches.push(Mismatch {
            pos: self.pos,
            event: e.seq,
            involved: Vec::new(),
            file: e.file.to_string(),
            line: e.line,
            what: format!("{} by {}: {}", e.kind.name(), e.pid, what),
            recorded,
            emulated,
        });
    }

    pub(crate) fn unchecked(&mut self, e: &Event) {
        let name = e.kind.name().to_string();
        *self.stats.unchecked.entry(name).or_default() += 1;
    }

    pub(crate) fn unchecked_because(&mut self, e: &Event, why: &str) {
        let name = format!("{} ({why})", e.kind.name());
        *self.stats.unchecked.entry(name).or_default() += 1;
    }

    pub(crate) fn check_unit(&mut self, e: &Event, r: taskcore::Result<()>) {
        match (&e.ret, r.err()) {
            (Outcome::Unknown | Outcome::Interrupted | Outcome::Died, _) => self.unchecked(e),
            (Outcome::Value(0), None) => self.stats.checked += 1,
            (Outcome::Errno(a), Some(b)) if *a == b => self.stats.checked += 1,
            (rec, got) => {
                self.stats.checked += 1;
                let emu = got.map_or("= 0".to_string(), |e| format!("= -1 {}", e.name()));
                self.mismatch(e, "result", fmt_outcome(rec), emu);
            }
        }
    }

    /// Checks a pid-valued result. A recorded number of the world outside
    /// the trace that the emulation's outside processes match is learned.
    /// A caller in a nested pid namespace gets its namespace's numbers,
    /// compared as they are (0 for a parent outside the namespace).
    pub(crate) fn check_id(&mut self, e: &Event, cur: TaskId, r: taskcore::Result<i32>) {
        let nested = self.nested(cur);
        match (&e.ret, &r) {
            (Outcome::Unknown | Outcome::Interrupted | Outcome::Died, _) => self.unchecked(e),
            (Outcome::Value(v), Ok(nr)) if nested && *v == i64::from(*nr) => {
                self.stats.checked += 1
            }
            (Outcome::Value(v), Ok(nr))
                if self.pids.same_id(*v as i32, *nr, &self.world.outside) =>
            {
                if self.pids.is_outside(*v as i32) && *v > 0 {
                    self.pids.learn_outside(*v as i32, *nr);
                }
                self.stats.checked += 1
            }
            (Outcome::Errno(a), Err(b)) if a == b => self.stats.checked += 1,
            (rec, got) => {
                self.stats.checked += 1;
                let emu = match got {
                    Ok(nr) => format!("= {}", self.rec_pid(*nr)),
                    Err(e) => format!("= -1 {}", e.name()),
                };
                self.mismatch(e, "result", fmt_outcome(rec), emu);
            }
        }
    }
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
