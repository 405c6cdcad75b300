//! The supervisor's debug lines: printed as they come with
//! `TASKCORE_RUN_DEBUG`, or kept in memory with `TASKCORE_RUN_RING` (the
//! last N lines, 400 by default) and printed only when a divergence is
//! recorded, so that the failing run itself shows the order of its stops
//! without the timing a line written per stop changes.

use std::collections::VecDeque;
use std::time::Instant;

/// Lines kept by default with `TASKCORE_RUN_RING` set to no number.
const RING_DEFAULT: usize = 400;

/// Where the debug lines go.
pub(super) struct DebugLog {
    /// `TASKCORE_RUN_DEBUG`: each line to stderr at once.
    print: bool,
    /// `TASKCORE_RUN_RING`: the latest lines (µs since the start, text),
    /// at most `cap`.
    ring: Option<VecDeque<(u64, String)>>,
    cap: usize,
    start: Instant,
}

impl DebugLog {
    /// The log the environment asks for (neither variable: off).
    pub(super) fn from_env() -> Self {
        let print = std::env::var_os("TASKCORE_RUN_DEBUG").is_some();
        let cap = std::env::var("TASKCORE_RUN_RING")
            .ok()
            .map(|v| v.parse().unwrap_or(RING_DEFAULT).max(1));
        DebugLog {
            print,
            ring: cap.filter(|_| !print).map(VecDeque::with_capacity),
            cap: cap.unwrap_or(0),
            start: Instant::now(),
        }
    }

    /// Whether lines are wanted (worth formatting).
    pub(super) fn on(&self) -> bool {
        self.print || self.ring.is_some()
    }

    /// Prints or keeps one line.
    pub(super) fn line(&mut self, s: String) {
        if self.print {
            eprintln!("{s}");
        } else if let Some(r) = &mut self.ring {
            if r.len() == self.cap {
                r.pop_front();
            }
            r.push_back((self.start.elapsed().as_micros() as u64, s));
        }
    }

    /// Prints the kept lines (the ones before a divergence), oldest
    /// first, and forgets them.
    pub(super) fn dump(&mut self) {
        if let Some(r) = &mut self.ring {
            eprintln!("taskcore run: the last {} debug lines:", r.len());
            for (us, s) in r.drain(..) {
                eprintln!("{us:>10} {s}");
            }
        }
    }
}

/// Formats and hands a debug line to `$s.log` (`$s`: the supervisor),
/// only when lines are wanted.
macro_rules! dline {
    ($s:expr, $($a:tt)*) => {
        if $s.log.on() {
            let l = format!($($a)*);
            $s.log.line(l);
        }
    };
}
