//! `TASKCORE_RUN_HOLD`: a test-only hook that makes a chosen order of
//! stops happen every run, where under load it happens only sometimes (a
//! starved thread). Read once at the start; with the variable unset the
//! supervisor checks one empty list per stop.
//!
//! The value is a comma-separated list of rules, each `RULE=MS`:
//! - `hold:NAME` or `hold:NAME:SIG`: a thread at the seccomp stop of call
//!   `NAME` (`kill`, `waitid`, ...; with `SIG`, only a kill-family call
//!   (`kill`, `tgkill`, `tkill`, `pidfd_send_signal`)
//!   sending that signal number) is handled at once (the core applies what
//!   it applies at an entry) and resumed `MS` milliseconds later: the
//!   kernel runs the call that much later than the supervisor saw it.
//! - `late:VTID:signal:SIG` and `late:VTID:trap`: the signal-delivery stop
//!   for `SIG`, or the `PTRACE_EVENT_STOP` that is no group stop (a
//!   SIGCONT's notify), of the thread with virtual tid `VTID` is handled
//!   `MS` milliseconds after the kernel reported it, as if reported that
//!   late (the thread stays in its stop meanwhile; a later report of the
//!   same thread, its death, is handled after it).
//!
//! A malformed rule is ignored with a warning line.

use std::time::{Duration, Instant};

/// What a rule applies to.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Rule {
    /// A seccomp stop of a call (by name), optionally of a kill-family
    /// call sending one signal: the resume is delayed.
    Entry { name: String, sig: Option<i32> },
    /// A signal-delivery stop of a thread (virtual tid) for a signal: the
    /// handling is delayed.
    Signal { vtid: i32, sig: i32 },
    /// A trap (`PTRACE_EVENT_STOP`, no group stop) of a thread (virtual
    /// tid): the handling is delayed.
    Trap { vtid: i32 },
}

/// The rules, and the threads held or the reports deferred by them.
#[derive(Debug, Default)]
pub(super) struct Holds {
    rules: Vec<(Rule, Duration)>,
    /// Threads (real tid) held at their seccomp stop, resumed at the
    /// instant.
    held: Vec<(Instant, i32)>,
    /// Stops (real tid, wait status) handled at the instant.
    late: Vec<(Instant, i32, i32)>,
}

/// What a due item is.
pub(super) enum Due {
    /// Resume this thread (real tid) from its seccomp stop.
    Resume(i32),
    /// Handle this stop (real tid, wait status).
    Stop(i32, i32),
}

impl Holds {
    /// The rules `TASKCORE_RUN_HOLD` gives (none when unset).
    pub(super) fn from_env() -> Holds {
        let Ok(v) = std::env::var("TASKCORE_RUN_HOLD") else {
            return Holds::default();
        };
        let mut rules = Vec::new();
        for r in v.split(',').filter(|r| !r.is_empty()) {
            match parse(r) {
                Some(rule) => rules.push(rule),
                None => eprintln!("taskcore run: warning: TASKCORE_RUN_HOLD rule {r:?} ignored"),
            }
        }
        Holds {
            rules,
            ..Holds::default()
        }
    }

    /// Whether any rule is set.
    pub(super) fn on(&self) -> bool {
        !self.rules.is_empty()
    }

    /// How long to hold a thread at the seccomp stop of `name` sending
    /// `sig` (a kill-family call), if a rule says so.
    pub(super) fn at_entry(&self, name: &str, sig: Option<i32>) -> Option<Duration> {
        self.rules.iter().find_map(|(r, d)| match r {
            Rule::Entry { name: n, sig: s } if n == name && (s.is_none() || *s == sig) => Some(*d),
            _ => None,
        })
    }

    /// Holds thread `tid` at its seccomp stop for `d`.
    pub(super) fn hold(&mut self, tid: i32, d: Duration) {
        self.held.push((Instant::now() + d, tid));
    }

    /// How long to defer wait status `st` of the thread with virtual tid
    /// `vtid`, if a rule says so.
    pub(super) fn late_for(&self, vtid: i32, st: i32) -> Option<Duration> {
        if !libc::WIFSTOPPED(st) {
            return None;
        }
        let sig = libc::WSTOPSIG(st);
        let event = (st >> 16) & 0xff;
        self.rules.iter().find_map(|(r, d)| match *r {
            Rule::Signal { vtid: v, sig: s } if v == vtid && event == 0 && s == sig => Some(*d),
            Rule::Trap { vtid: v }
                if v == vtid && event == libc::PTRACE_EVENT_STOP && sig == libc::SIGTRAP =>
            {
                Some(*d)
            }
            _ => None,
        })
    }

    /// Defers status `st` of real thread `tid` for `d`.
    pub(super) fn defer(&mut self, tid: i32, st: i32, d: Duration) {
        self.late.push((Instant::now() + d, tid, st));
    }

    /// A deferred stop of real thread `tid`, taken out (to be handled
    /// before another report of the same thread).
    pub(super) fn take_late_of(&mut self, tid: i32) -> Option<i32> {
        let i = self.late.iter().position(|l| l.1 == tid)?;
        Some(self.late.remove(i).2)
    }

    /// The earliest instant something is due, if anything is held.
    pub(super) fn next(&self) -> Option<Instant> {
        let a = self.held.iter().map(|h| h.0);
        let b = self.late.iter().map(|l| l.0);
        a.chain(b).min()
    }

    /// The items due by now, taken out, earliest first.
    pub(super) fn due(&mut self) -> Vec<Due> {
        let now = Instant::now();
        let mut out: Vec<(Instant, Due)> = Vec::new();
        self.held.retain(|&(at, tid)| {
            let due = at <= now;
            if due {
                out.push((at, Due::Resume(tid)));
            }
            !due
        });
        self.late.retain(|&(at, tid, st)| {
            let due = at <= now;
            if due {
                out.push((at, Due::Stop(tid, st)));
            }
            !due
        });
        out.sort_by_key(|o| o.0);
        out.into_iter().map(|o| o.1).collect()
    }
}

/// One `RULE=MS`.
fn parse(r: &str) -> Option<(Rule, Duration)> {
    let (rule, ms) = r.split_once('=')?;
    let d = Duration::from_millis(ms.trim().parse().ok()?);
    let parts: Vec<&str> = rule.trim().split(':').collect();
    let rule = match parts.as_slice() {
        ["hold", name] => Rule::Entry {
            name: (*name).to_string(),
            sig: None,
        },
        ["hold", name, sig] => Rule::Entry {
            name: (*name).to_string(),
            sig: Some(sig.parse().ok()?),
        },
        ["late", vtid, "signal", sig] => Rule::Signal {
            vtid: vtid.parse().ok()?,
            sig: sig.parse().ok()?,
        },
        ["late", vtid, "trap"] => Rule::Trap {
            vtid: vtid.parse().ok()?,
        },
        _ => return None,
    };
    Some((rule, d))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_parse_and_match() {
        let (r, d) = parse("hold:kill:18=600").unwrap();
        assert_eq!(
            r,
            Rule::Entry {
                name: "kill".into(),
                sig: Some(18)
            }
        );
        assert_eq!(d, Duration::from_millis(600));
        assert_eq!(parse("late:4:trap=30").unwrap().0, Rule::Trap { vtid: 4 });
        assert_eq!(
            parse("late:4:signal:19=30").unwrap().0,
            Rule::Signal { vtid: 4, sig: 19 }
        );
        assert!(parse("late:4=30").is_none());
        assert!(parse("hold:kill=x").is_none());
        let h = Holds {
            rules: vec![
                parse("hold:kill:18=5").unwrap(),
                parse("hold:waitid=7").unwrap(),
            ],
            ..Holds::default()
        };
        assert_eq!(h.at_entry("kill", Some(18)), Some(Duration::from_millis(5)));
        assert_eq!(h.at_entry("kill", Some(19)), None);
        assert_eq!(h.at_entry("waitid", None), Some(Duration::from_millis(7)));
    }
}
