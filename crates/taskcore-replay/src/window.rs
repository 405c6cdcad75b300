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

use std::collections::VecDeque;

use rustc_hash::FxHashSet as HashSet;

use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

use crate::event::Call;
use crate::event::{Event, Kind, Outcome, Rec};
use crate::facts::Facts;

/// Whether `e`'s result carries a `--decode-pids=pidns` comment.
fn ns_comment(e: &Event) -> bool {
    matches!(
        e.kind,
        Kind::Call(Call::Sys {
            out: Rec::Clone { ns_nr: Some(_), .. },
            ..
        })
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
    /// The planner's facts of the events held that have some, by
    /// sequence number.
    facts: HashMap<u64, Arc<Facts>>,
    /// Events before this index were planned.
    planned: usize,
    /// Each task's deaths and `+++` and `--- stopped by` lines, in file
    /// order.
    ends: HashMap<i32, VecDeque<Arc<Event>>>,
    /// Calls held that send a signal and whose window spans lines (entered
    /// before the line that completed them), and `--- stopped by` lines,
    /// in file order.
    causes: VecDeque<Arc<Event>>,
    /// Per thread, the line of its last `rt_sigreturn` call held.
    last_sigreturn: HashMap<i32, usize>,
    /// Each signal's `---` lines whose siginfo has an `si_pid`, in file
    /// order.
    named_by_sig: HashMap<i32, VecDeque<Arc<Event>>>,
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
        self.note_trace_kind(&e);
        if is_cause(&e) {
            self.causes.push_back(Arc::clone(&e));
        }
        match e.kind {
            Kind::Signal { sig, info } if info.is_some_and(|i| i.pid.is_some()) => {
                self.named_by_sig
                    .entry(sig)
                    .or_default()
                    .push_back(Arc::clone(&e));
            }
            ref k if k.is_sigreturn() => {
                self.last_sigreturn.insert(e.pid, e.line);
            }
            Kind::Die { .. } | Kind::Exited { .. } | Kind::Killed { .. } | Kind::Stopped { .. } => {
                self.ends
                    .entry(e.pid)
                    .or_default()
                    .push_back(Arc::clone(&e));
            }
            _ => {}
        }
        self.events.push_back(e);
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
            Kind::Call(Call::Sys { call, .. }) => {
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
            Kind::Call(Call::Raw { nr, .. }) if *nr == taskcore::sys::nr::SETNS => {
                self.pidns_seen = true
            }
            _ => {}
        }
    }

    /// Whether an event held has a `--decode-pids=pidns` comment.
    pub(crate) fn has_ns_comments(&self) -> bool {
        self.ns_comments > 0
    }

    /// The children the clones held name.
    pub(crate) fn created(&self) -> HashSet<i32> {
        self.events.iter().filter_map(|e| created(e)).collect()
    }

    /// Whether thread `pid` has an `rt_sigreturn` line after line `after`
    /// (read so far).
    pub(crate) fn sigreturn_after(&self, pid: i32, after: usize) -> bool {
        self.last_sigreturn.get(&pid).is_some_and(|&l| l > after)
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
            if !self.facts.is_empty() {
                self.facts.remove(&e.seq);
            }
            self.planned = self.planned.saturating_sub(1);
            self.ns_comments -= usize::from(ns_comment(&e));
            if self.causes.front().is_some_and(|x| x.seq == e.seq) {
                self.causes.pop_front();
            }
            match e.kind {
                Kind::Signal { sig, .. } => {
                    pop_front_of(&mut self.named_by_sig, sig, e.seq);
                }
                Kind::Die { .. }
                | Kind::Exited { .. }
                | Kind::Killed { .. }
                | Kind::Stopped { .. } => pop_front_of(&mut self.ends, e.pid, e.seq),
                ref k if k.is_sigreturn() && self.last_sigreturn.get(&e.pid) == Some(&e.line) => {
                    self.last_sigreturn.remove(&e.pid);
                }
                _ => {}
            }
        }
    }

    /// The `--- sig` lines with an `si_pid` completed after line `after`,
    /// in file order.
    pub(crate) fn named_lines_after(
        &self,
        sig: i32,
        after: usize,
    ) -> impl Iterator<Item = &Arc<Event>> {
        index_after(self.named_by_sig.get(&sig), after)
    }

    /// Index of the first event completed after line `after`.
    fn first_after(&self, after: usize) -> usize {
        self.events.partition_point(|e| e.line <= after)
    }

    /// The events completed after line `after`, in file order.
    pub(crate) fn after(&self, after: usize) -> impl Iterator<Item = &Arc<Event>> {
        self.events.range(self.first_after(after)..)
    }

    /// Thread `pid`'s lines completed after line `after`, in file order
    /// (a scan of the window from there: the planner asks for a thread's
    /// next few lines); strace's restarts ([`Kind::Resume`]) are not its
    /// lines.
    pub(crate) fn thread_after(&self, pid: i32, after: usize) -> impl Iterator<Item = &Arc<Event>> {
        self.after(after)
            .filter(move |e| e.pid == pid && !matches!(e.kind, Kind::Resume { .. }))
    }

    /// The sending calls entered before line `line` and completed after it,
    /// and the `--- stopped by` lines whose window contains it, in file
    /// order.
    pub(crate) fn open_causes(&self, line: usize) -> impl Iterator<Item = &Arc<Event>> {
        let i = self.causes.partition_point(|e| e.line <= line);
        self.causes.range(i..).filter(move |e| e.entry_line < line)
    }

    /// Task `pid`'s deaths, `+++` and `--- stopped by` lines completed
    /// after line `after`, in file order.
    pub(crate) fn ends_after(&self, pid: i32, after: usize) -> impl Iterator<Item = &Arc<Event>> {
        index_after(self.ends.get(&pid), after)
    }

    /// The child recorded tid of the clone held by `caller` (or, failing
    /// that, by any task) whose `--decode-pids=pidns` comment numbers it
    /// `nr` in the caller's namespace.
    pub(crate) fn ns_child(&self, caller: i32, nr: i32) -> Option<i32> {
        let mut any = None;
        for e in self.events.iter().rev() {
            if let (
                Kind::Call(Call::Sys {
                    out: Rec::Clone { ns_nr: Some(n), .. },
                    ..
                }),
                Some(c),
            ) = (&e.kind, created(e))
            {
                if *n == nr {
                    if e.pid == caller {
                        return Some(c);
                    }
                    any = any.or(Some(c));
                }
            }
        }
        any
    }

    /// The events completed between lines `from` and `to` (both
    /// excluded).
    pub(crate) fn between(&self, from: usize, to: usize) -> impl Iterator<Item = &Arc<Event>> {
        self.after(from).take_while(move |e| e.line < to)
    }

    /// The facts of event `ev`, planning (with `plan`) every held event up
    /// to its line that was not planned yet, in file order. An event no
    /// longer held has none.
    pub(crate) fn facts_of(
        &mut self,
        ev: &Event,
        plan: impl Fn(&Window, &Event) -> Option<Facts>,
    ) -> Arc<Facts> {
        while self
            .events
            .get(self.planned)
            .is_some_and(|e| e.line <= ev.line)
        {
            let e = &self.events[self.planned];
            if let Some(f) = plan(self, e) {
                let seq = e.seq;
                self.facts.insert(seq, Arc::new(f));
            }
            self.planned += 1;
        }
        if self.facts.is_empty() {
            return Arc::clone(Facts::none());
        }
        match self.facts.get(&ev.seq) {
            Some(f) => Arc::clone(f),
            None => Arc::clone(Facts::none()),
        }
    }
}

/// Whether `e` goes in [`Window::open_causes`].
fn is_cause(e: &Event) -> bool {
    (e.entry_line < e.line && e.kind.sent_signal().is_some())
        || matches!(e.kind, Kind::Stopped { .. })
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
