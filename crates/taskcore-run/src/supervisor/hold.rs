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
//! A malformed rule is ignored with a warning line. The hook has no loop
//! of its own: the supervisor's event loop (`supervisor/mod.rs`) takes
//! what is due ([`Holds::due`]) each turn, and waits without blocking
//! while anything is held ([`Holds::waiting`]).

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
    /// What is held or deferred, each due at its instant: threads held at
    /// their seccomp stop, and stops handled late.
    pending: Vec<(Instant, Due)>,
}

/// What a held or deferred item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
        self.pending.push((Instant::now() + d, Due::Resume(tid)));
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
        self.pending.push((Instant::now() + d, Due::Stop(tid, st)));
    }

    /// A deferred stop of real thread `tid`, taken out (to be handled
    /// before another report of the same thread).
    pub(super) fn take_late_of(&mut self, tid: i32) -> Option<i32> {
        let i = self
            .pending
            .iter()
            .position(|p| matches!(p.1, Due::Stop(t, _) if t == tid))?;
        match self.pending.remove(i).1 {
            Due::Stop(_, st) => Some(st),
            Due::Resume(_) => None,
        }
    }

    /// Whether anything is held or deferred (the event loop then waits
    /// without blocking).
    pub(super) fn waiting(&self) -> bool {
        !self.pending.is_empty()
    }

    /// The items due by now, taken out, earliest first.
    pub(super) fn due(&mut self) -> Vec<Due> {
        let now = Instant::now();
        let mut out: Vec<(Instant, Due)> = Vec::new();
        self.pending.retain(|&(at, d)| {
            let due = at <= now;
            if due {
                out.push((at, d));
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

    #[test]
    fn held_and_deferred_items_come_due_in_order_and_once() {
        let mut h = Holds::default();
        assert!(!h.waiting());
        h.defer(7, 0x137f, Duration::ZERO);
        h.hold(5, Duration::ZERO);
        h.hold(6, Duration::from_secs(60));
        h.defer(7, 0x57f, Duration::from_secs(60));
        assert!(h.waiting());
        assert_eq!(h.due(), vec![Due::Stop(7, 0x137f), Due::Resume(5)]);
        assert!(h.due().is_empty(), "taken once");
        // A thread's deferred stop is taken out before its next report.
        assert_eq!(h.take_late_of(6), None);
        assert_eq!(h.take_late_of(7), Some(0x57f));
        assert_eq!(h.take_late_of(7), None);
        assert!(h.waiting(), "thread 6 still held");
    }
}
