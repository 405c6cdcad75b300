//! The events read so far, in file order: the replay's lookahead.
//!
//! Only the planner (`plan.rs`) reads it, to attach to each event what the
//! recording shows later than it happened (a child's `+++` line after its
//! parent's wait reported it; whether the next death by a signal dumped
//! core; the child of a clone whose creator died inside it); the engine
//! never does. The window keeps the events from the oldest position the
//! order search may still revisit up to the last one read, so its size is
//! the reorder window, not the trace. It indexes them by thread and by
//! signal (`---` lines), so that the planner's questions about a thread's
//! next lines cost that thread's events, not the window's.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use crate::event::{Event, Kind, Outcome, Rec};
use crate::facts::Facts;

/// Whether `e`'s result carries a `--decode-pids=pidns` comment.
fn ns_comment(e: &Event) -> bool {
    matches!(
        e.kind,
        Kind::Sys {
            rec: Rec::Clone { ns_nr: Some(_), .. },
            ..
        }
    )
}

/// The child a clone event names (its recorded result).
fn created(e: &Event) -> Option<i32> {
    match (&e.kind, &e.ret) {
        (op, Outcome::Value(v)) if op.is_clone() => Some(*v as i32),
        _ => None,
    }
}

/// Events in file order (non-decreasing `line`).
#[derive(Debug, Default)]
pub(crate) struct Window {
    events: VecDeque<Arc<Event>>,
    /// The planner's facts of each event (parallel to `events`; `None`:
    /// none derived, or not planned yet).
    facts: VecDeque<Option<Arc<Facts>>>,
    /// Events before this index were planned.
    planned: usize,
    /// Each thread's events, in file order.
    by_thread: HashMap<i32, VecDeque<Arc<Event>>>,
    /// Each signal's `---` lines, in file order.
    by_sig: HashMap<i32, VecDeque<Arc<Event>>>,
    /// Children named by a clone's result held, with their count.
    created: HashMap<i32, u32>,
    /// Events held whose result strace annotated with the caller's pid
    /// namespace number (`--decode-pids=pidns`).
    ns_comments: usize,
    /// Whether a line read so far opened a signalfd.
    pub(crate) signalfd_seen: bool,
    /// Whether a line read so far entered or made a pid namespace
    /// (`CLONE_NEWPID`, setns), or carried a `--decode-pids=pidns`
    /// comment.
    pub(crate) pidns_seen: bool,
}

impl Window {
    /// Appends the next event read.
    pub(crate) fn push(&mut self, e: Arc<Event>) {
        self.ns_comments += usize::from(ns_comment(&e));
        if let Some(c) = created(&e) {
            *self.created.entry(c).or_default() += 1;
        }
        self.note_trace_kind(&e);
        self.by_thread
            .entry(e.pid)
            .or_default()
            .push_back(Arc::clone(&e));
        if let Kind::Signal { sig, .. } = e.kind {
            self.by_sig
                .entry(sig)
                .or_default()
                .push_back(Arc::clone(&e));
        }
        self.events.push_back(e);
        self.facts.push_back(None);
    }

    /// Notes what `e` shows of the kind of trace (sticky flags).
    fn note_trace_kind(&mut self, e: &Event) {
        use taskcore::sys::Syscall;
        use taskcore::uapi::CLONE_NEWPID;
        match &e.kind {
            Kind::Other { name }
                if name.starts_with("signalfd") && matches!(e.ret, Outcome::Value(_)) =>
            {
                self.signalfd_seen = true;
            }
            Kind::Sys { call, .. } => {
                let flags = match call {
                    Syscall::Clone(a) => a.flags,
                    Syscall::Clone3(a) => a.flags,
                    Syscall::Unshare { flags } => *flags,
                    _ => 0,
                };
                if flags & CLONE_NEWPID != 0 || ns_comment(e) {
                    self.pidns_seen = true;
                }
            }
            Kind::Raw { nr, .. } if *nr == taskcore::sys::nr::SETNS => self.pidns_seen = true,
            _ => {}
        }
    }

    /// Whether an event held has a `--decode-pids=pidns` comment.
    pub(crate) fn has_ns_comments(&self) -> bool {
        self.ns_comments > 0
    }

    /// Whether a clone held names `pid` as its child.
    pub(crate) fn is_created(&self, pid: i32) -> bool {
        self.created.contains_key(&pid)
    }

    /// Events held.
    pub(crate) fn len(&self) -> usize {
        self.events.len()
    }

    /// The line of the last event read.
    pub(crate) fn last_line(&self) -> usize {
        self.events.back().map_or(0, |e| e.line)
    }

    /// Forgets events completed before line `line`.
    pub(crate) fn prune_before(&mut self, line: usize) {
        while self.events.front().is_some_and(|e| e.line < line) {
            let Some(e) = self.events.pop_front() else {
                break;
            };
            self.facts.pop_front();
            self.planned = self.planned.saturating_sub(1);
            self.ns_comments -= usize::from(ns_comment(&e));
            if let Some(c) = created(&e) {
                if let Some(n) = self.created.get_mut(&c) {
                    *n -= 1;
                    if *n == 0 {
                        self.created.remove(&c);
                    }
                }
            }
            pop_front_of(&mut self.by_thread, e.pid, e.seq);
            if let Kind::Signal { sig, .. } = e.kind {
                pop_front_of(&mut self.by_sig, sig, e.seq);
            }
        }
    }

    /// Index of the first event completed after line `after`.
    fn first_after(&self, after: usize) -> usize {
        self.events.partition_point(|e| e.line <= after)
    }

    /// The events completed after line `after`, in file order.
    pub(crate) fn after(&self, after: usize) -> impl Iterator<Item = &Arc<Event>> {
        self.events.range(self.first_after(after)..)
    }

    /// Thread `pid`'s events completed after line `after`, in file order.
    pub(crate) fn thread_after(&self, pid: i32, after: usize) -> impl Iterator<Item = &Arc<Event>> {
        index_after(self.by_thread.get(&pid), after)
    }

    /// The `--- sig` lines completed after line `after`, in file order.
    pub(crate) fn signal_lines_after(
        &self,
        sig: i32,
        after: usize,
    ) -> impl Iterator<Item = &Arc<Event>> {
        index_after(self.by_sig.get(&sig), after)
    }

    /// The first event completed after line `after` that `pred` accepts.
    pub(crate) fn find_event_after(
        &self,
        after: usize,
        pred: impl Fn(&Event) -> bool,
    ) -> Option<Arc<Event>> {
        self.after(after).find(|e| pred(e)).cloned()
    }

    /// Index of event `ev`, if held. (By line: under `strace -qq` the
    /// converter numbers a held exit's `+++` line when it releases it, so
    /// sequence numbers are not in file order.)
    fn index_of(&self, ev: &Event) -> Option<usize> {
        let i = self.events.partition_point(|e| e.line < ev.line);
        self.events
            .range(i..)
            .take_while(|e| e.line == ev.line)
            .position(|e| e.seq == ev.seq)
            .map(|j| i + j)
    }

    /// The facts of event `ev`, planning (with `plan`) every held event up
    /// to it that was not planned yet, in file order. An event no longer
    /// held has none.
    pub(crate) fn facts_of(
        &mut self,
        ev: &Event,
        plan: impl Fn(&Window, &Event) -> Facts,
    ) -> Arc<Facts> {
        let Some(i) = self.index_of(ev) else {
            return Arc::clone(Facts::none());
        };
        while self.planned <= i {
            let j = self.planned;
            let f = plan(self, &self.events[j]);
            self.facts[j] = (!f.is_empty()).then(|| Arc::new(f));
            self.planned += 1;
        }
        self.facts[i]
            .clone()
            .unwrap_or_else(|| Arc::clone(Facts::none()))
    }
}

/// Removes `seq` from the front of `map[key]` (the oldest event held).
fn pop_front_of(map: &mut HashMap<i32, VecDeque<Arc<Event>>>, key: i32, seq: u64) {
    if let Some(v) = map.get_mut(&key) {
        if v.front().is_some_and(|x| x.seq == seq) {
            v.pop_front();
        }
        if v.is_empty() {
            map.remove(&key);
        }
    }
}

/// The events of an index completed after line `after`.
fn index_after(
    v: Option<&VecDeque<Arc<Event>>>,
    after: usize,
) -> impl Iterator<Item = &Arc<Event>> {
    v.into_iter().flat_map(move |v| {
        let i = v.partition_point(|e| e.line <= after);
        v.range(i..)
    })
}
