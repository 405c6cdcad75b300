//! The engine's checks: a mismatch, a call not checkable (and why), and
//! the common result checks, counted in [`Stats`](super::Stats).

use taskcore::TaskId;

use super::report::{fmt_outcome, Mismatch};
use super::Engine;
use crate::event::{Event, Outcome};

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
