//! The events read so far, in file order: the replay's lookahead.
//!
//! The engine looks ahead for a few things the recording shows later than
//! they happened (a child's `+++` line after its parent's wait reported it;
//! whether the next death by a signal dumped core; the child of a clone
//! whose creator died inside it). The window keeps the events from the
//! oldest position the order search may still revisit up to the last one
//! read, so its size is the reorder window, not the trace.

use std::collections::{HashSet, VecDeque};
use std::sync::Arc;

use crate::event::{Event, Kind, Outcome, Rec};

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

/// Events in file order (non-decreasing `line`).
#[derive(Debug, Default)]
pub(crate) struct Window {
    events: VecDeque<Arc<Event>>,
    /// Events held whose result strace annotated with the caller's pid
    /// namespace number (`--decode-pids=pidns`).
    ns_comments: usize,
}

impl Window {
    /// Appends the next event read.
    pub(crate) fn push(&mut self, e: Arc<Event>) {
        self.ns_comments += usize::from(ns_comment(&e));
        self.events.push_back(e);
    }

    /// Whether an event held has a `--decode-pids=pidns` comment.
    pub(crate) fn has_ns_comments(&self) -> bool {
        self.ns_comments > 0
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
            if let Some(e) = self.events.pop_front() {
                self.ns_comments -= usize::from(ns_comment(&e));
            }
        }
    }

    /// Index of the first event completed after line `after`.
    fn first_after(&self, after: usize) -> usize {
        self.events.partition_point(|e| e.line <= after)
    }

    /// The first `f(event)` that is `Some`, over events completed after
    /// line `after`.
    pub(crate) fn find_after<T>(&self, after: usize, f: impl Fn(&Event) -> Option<T>) -> Option<T> {
        let i = self.first_after(after);
        self.events.range(i..).find_map(|e| f(e))
    }

    /// The first event completed after line `after` that `pred` accepts.
    pub(crate) fn find_event_after(
        &self,
        after: usize,
        pred: impl Fn(&Event) -> bool,
    ) -> Option<Arc<Event>> {
        let i = self.first_after(after);
        self.events.range(i..).find(|e| pred(e)).cloned()
    }

    /// The first task to appear after line `after` that no clone in the
    /// window created and that `known` does not claim: the child of a clone
    /// whose creator died before the call returned.
    pub(crate) fn first_uncreated_after(
        &self,
        after: usize,
        known: impl Fn(i32) -> bool,
    ) -> Option<i32> {
        let created: HashSet<i32> = self
            .events
            .iter()
            .filter_map(|e| match (&e.kind, &e.ret) {
                (op, Outcome::Value(v)) if op.is_clone() => Some(*v as i32),
                _ => None,
            })
            .collect();
        let i = self.first_after(after);
        self.events
            .range(i..)
            .map(|e| e.pid)
            .find(|&pid| !created.contains(&pid) && !known(pid))
    }
}
