//! The streaming replay: events in, checks and mismatches out, in memory
//! bounded by the live tasks and the reorder window.
//!
//! ```text
//!  push(strace event) ─ Shaper ─> Window (file order, lookahead; the
//!                                 │   planner reads it: facts per event)
//!                                 └> pending (by default-order key) ── released below
//!                                    the watermark ──> order (positions)
//!  schedule: before any engine applies position p, the happens-before
//!        constraints of its event hold (later lines the planner says came
//!        first move before it; those the engine says caused it too, the
//!        event then replayed from a copy, `apply_at`);
//!  pump: step position p when LOOKAHEAD positions after it are released;
//!        every CHECKPOINT_EVERY positions (or the live task count, if
//!        larger: copying stays O(1) per event) keep a copy of the engine;
//!        a mismatch at p starts the order search from the checkpoint;
//!        mismatches older than the oldest checkpoint are final.
//! ```

use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};

use rustc_hash::FxHashSet as HashSet;
use std::sync::Arc;

use taskcore::Kernel;

use crate::engine::records::{Finished, Mark, ProcessRecord};
use crate::engine::{Engine, Mismatch, Stats};
use crate::event::{Event, Kind};
use crate::facts::Facts;
use crate::plan;
use crate::search::{self, HORIZON, LOOK_BACK, MAX_FULL_RUNS, VERIFY};
use crate::shape::exits::ExitLines;
use crate::shape::Shaper;
use crate::window::Window;

/// Positions between checkpoints. The window holds the events from the
/// older of the two checkpoints kept, so up to twice this many events
/// (about 250 B each) stay resident: at 4096 they were 2 MB of a 5k loop
/// replay's 9.7 MB peak. A search needs a checkpoint at least
/// [`LOOK_BACK`] positions before its mismatch, which the older one always
/// is; and a search replays from it, so a shorter spacing also shortens
/// each search. Copying the engine stays O(1) per event because the
/// spacing is at least the live task count ([`Replayer::checkpoint_due`]).
pub(crate) const CHECKPOINT_EVERY: u64 = 1024;
/// Engine steps (and copies, see [`SNAPSHOT_TASKS_PER_STEP`]) the order
/// search may spend: this much to start with, plus
/// [`SEARCH_STEPS_PER_EVENT`] per position applied. Real recordings need a
/// few searches (the deepest among the repository's recordings: 87,000
/// steps, for one mismatch); a trace with a mismatch on every line would
/// otherwise cost a search each, hundreds of steps per line. Past the
/// budget, mismatches are reported without a search, so a replay costs
/// O(its length) whatever its mismatch count.
const SEARCH_BUDGET: u64 = 150_000;
/// See [`SEARCH_BUDGET`].
const SEARCH_STEPS_PER_EVENT: u64 = 2;
/// A copy of the engine is charged one step per this many live tasks.
const SNAPSHOT_TASKS_PER_STEP: u64 = 16;

/// Positions released ahead of the one applied (room for the search's
/// verification and the engine's lookahead).
pub(crate) const LOOKAHEAD: u64 = VERIFY + 64;

/// How a [`Replayer`] runs.
#[derive(Clone, Debug)]
pub struct Options {
    /// Search for an order of effects the recording allows when the
    /// default one disagrees (default `true`). Without it every
    /// disagreement is reported.
    pub search: bool,
    /// Stop applying events placed after this line (for looking at the
    /// emulated kernel as of a line); `None` applies everything.
    pub stop_after_line: Option<usize>,
    /// The probe set the emulated kernel fires ([`crate::probe::probes`] by
    /// default).
    pub probes: Arc<taskcore::probe::ProbeSet>,
    /// Keep a [`ProcessRecord`] per process (default `false`).
    pub records: bool,
    /// The trace was merged from the per-task files of `strace -ff`
    /// ([`crate::Merge`], default `false`): there a call's completion is
    /// only bounded by its task's next line, so the `---` line after an
    /// interrupted call may be a dequeue from the call's entry on.
    pub merged: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            search: true,
            stop_after_line: None,
            probes: Arc::clone(crate::probe::probes()),
            records: false,
            merged: false,
        }
    }
}

/// A checkpoint: the engine before position `pos`.
struct Checkpoint {
    pos: u64,
    engine: Engine,
}

/// Replays one trace fed event by event.
///
/// Feed the events of one `strace -f` recording in file order with
/// [`Replayer::push`], telling it with [`Replayer::watermark`] how far the
/// reader is sure no call entered earlier can still complete (a clone is
/// placed at its entry line); call [`Replayer::finish`] at the end. The
/// emulated kernel can be queried at any point with [`Replayer::kernel`].
///
/// Memory: O(peak live tasks + the reorder window), whatever the trace's
/// length. `Send`: the engine shares nothing with the window (it is given
/// the planner's facts with each event).
pub struct Replayer {
    conv: Shaper,
    look: RefCell<Window>,
    /// Converted events not yet placed, by default-order key.
    pending: BTreeMap<(usize, u64), Arc<Event>>,
    /// No event pushed later has a key below this line.
    watermark: usize,
    /// Released events by position, from `order_base`.
    order: VecDeque<Arc<Event>>,
    order_base: u64,
    /// The next position to apply.
    next_pos: u64,
    /// Positions before this one are scheduled: the happens-before
    /// constraints the planner attached to their events hold.
    scheduled: u64,
    /// Events the scheduler moved later, to just after an event that
    /// had to precede them (each at most once, so scheduling ends), with
    /// the position they were moved from; dropped once it is pruned.
    moved_later: VecDeque<(u64, u64)>,
    engine: Engine,
    checkpoints: VecDeque<Checkpoint>,
    /// Position of the last checkpoint (or prune, without search).
    last_checkpoint: u64,
    /// Mismatches no move removed, by event.
    genuine: HashSet<u64>,
    /// Final mismatches not yet taken.
    out: VecDeque<Mismatch>,
    /// Final process records not yet taken.
    out_records: VecDeque<ProcessRecord>,
    /// Final timeline marks not yet taken.
    out_marks: VecDeque<Mark>,
    /// Mismatches at positions below this are final.
    final_below: u64,
    /// Final mismatches so far.
    nr_mismatches: u64,
    /// Search steps spent so far (see [`SEARCH_BUDGET`]).
    search_spent: u64,
    /// Tentative mismatches before this index were all searched.
    searched: usize,
    /// A copy of the engine trailing the main one, from which searches
    /// start (see [`Replayer::engine_at`]).
    trail: Option<Checkpoint>,
    opts: Options,
    done: bool,
}

impl std::fmt::Debug for Replayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Replayer")
            .field("next_pos", &self.next_pos)
            .field("window", &self.look.borrow().len())
            .field("pending", &self.pending.len())
            .field("order", &self.order.len())
            .finish()
    }
}

impl Replayer {
    /// A replayer with nothing fed yet.
    pub fn new(opts: Options) -> Replayer {
        let look = RefCell::new(Window::default());
        let engine = Engine::new(Arc::clone(&opts.probes), opts.records);
        Replayer {
            conv: Shaper::new(opts.merged),
            look,
            pending: BTreeMap::new(),
            watermark: 0,
            order: VecDeque::new(),
            order_base: 0,
            next_pos: 0,
            scheduled: 0,
            moved_later: VecDeque::new(),
            engine,
            checkpoints: VecDeque::new(),
            last_checkpoint: 0,
            genuine: HashSet::default(),
            out: VecDeque::new(),
            out_records: VecDeque::new(),
            out_marks: VecDeque::new(),
            final_below: 0,
            nr_mismatches: 0,
            search_spent: 0,
            searched: 0,
            trail: None,
            opts,
            done: false,
        }
    }

    /// Feeds the next event of the trace (file order).
    pub fn push(&mut self, e: &taskcore_strace::Event) {
        let look = &self.look;
        let pending = &mut self.pending;
        self.conv.push(e, |ev| {
            let ev = Arc::new(ev);
            look.borrow_mut().push(Arc::clone(&ev));
            pending.insert((Engine::key(&ev), ev.seq), ev);
        });
    }

    /// Hands the events the converter still holds to the window.
    fn flush_converter(&mut self) {
        let look = &self.look;
        let pending = &mut self.pending;
        self.conv.flush(|ev| {
            let ev = Arc::new(ev);
            look.borrow_mut().push(Arc::clone(&ev));
            pending.insert((Engine::key(&ev), ev.seq), ev);
        });
    }

    /// Promises that no event pushed from now on is placed before `line`:
    /// every call still open in the reader was entered at `line` or later
    /// (see [`taskcore_strace::Parser::open_clone_line`]). Applies what
    /// that releases.
    pub fn watermark(&mut self, line: usize) {
        // Events the converter still holds are pushed later.
        let line = self.conv.floor().map_or(line, |f| f.min(line));
        self.watermark = self.watermark.max(line);
        self.pump();
    }

    /// Ends the input: applies everything left and returns the summary.
    pub fn finish(mut self) -> Summary {
        self.flush_converter();
        self.done = true;
        self.watermark = usize::MAX;
        self.pump();
        self.engine.finish();
        self.finalize(u64::MAX);
        let stats = self.engine.stats.clone();
        Summary {
            stats,
            mismatches: self.out.into_iter().collect(),
            records: self.out_records.into_iter().collect(),
            marks: self.out_marks.into_iter().collect(),
            search_steps: self.search_spent,
            recording: Recording {
                exit_lines: self.conv.exit_lines(),
                mask_calls: self.conv.mask_calls,
            },
        }
    }

    /// Ends the input and returns the emulated kernel as it is after every
    /// applied event (with [`Options::stop_after_line`], as of that line).
    pub fn finish_kernel(mut self) -> Kernel {
        self.flush_converter();
        self.done = true;
        self.watermark = usize::MAX;
        self.pump();
        self.engine.k
    }

    /// The emulated kernel after the events applied so far.
    pub fn kernel(&self) -> &Kernel {
        self.engine.kernel()
    }

    /// The counters so far (tentative: a later order search may revise the
    /// last stretch).
    pub fn stats(&self) -> &Stats {
        &self.engine.stats
    }

    /// Takes the mismatches that are final so far (no later search can
    /// remove them), in the order found.
    pub fn take_mismatches(&mut self) -> Vec<Mismatch> {
        self.out.drain(..).collect()
    }

    /// Takes the process records that are final so far (with
    /// [`Options::records`]), in the order the processes ended.
    pub fn take_records(&mut self) -> Vec<ProcessRecord> {
        self.out_records.drain(..).collect()
    }

    /// Takes the timeline marks (signals taken, children reaped) that are
    /// final so far (with [`Options::records`]), in trace order.
    pub fn take_marks(&mut self) -> Vec<Mark> {
        self.out_marks.drain(..).collect()
    }

    /// Final mismatches found so far (taken or not).
    pub fn nr_mismatches(&self) -> u64 {
        self.nr_mismatches
    }

    /// Events of the trace held in memory now, each counted once: the
    /// window keeps every line from the earliest one a pending or placed
    /// event needs (its pruning), so it holds them all (the
    /// pending set and the order share its events).
    pub fn held_events(&self) -> usize {
        let look = self.look.borrow().len();
        debug_assert!(look >= self.pending.len().max(self.order.len()));
        look
    }

    /// Positions released so far.
    fn avail(&self) -> u64 {
        self.order_base + self.order.len() as u64
    }

    fn at(&self, pos: u64) -> &Arc<Event> {
        &self.order[(pos - self.order_base) as usize]
    }

    /// Releases what the watermark allows and applies what is ready.
    fn pump(&mut self) {
        while let Some(entry) = self.pending.first_entry() {
            if !self.done && entry.key().0 >= self.watermark {
                break;
            }
            let ev = entry.remove();
            self.order.push_back(ev);
        }
        loop {
            let avail = self.avail();
            if self.next_pos >= avail || (!self.done && avail - self.next_pos <= LOOKAHEAD) {
                break;
            }
            if let Some(stop) = self.opts.stop_after_line {
                if Engine::key(self.at(self.next_pos)) > stop {
                    // Nothing later is applied.
                    self.next_pos = avail;
                    self.prune();
                    break;
                }
            }
            if self.checkpoint_due() {
                if self.opts.search {
                    self.checkpoint();
                } else {
                    self.last_checkpoint = self.next_pos;
                    self.finalize(self.next_pos);
                    self.prune();
                }
            }
            self.step_main();
            if self.opts.search {
                self.search_all();
            }
        }
        if !self.opts.search {
            self.finalize(self.next_pos);
        }
    }

    /// Applies the next position (see [`apply_at`]); a later line an
    /// event needs before it may also come from the events not released
    /// yet.
    fn step_main(&mut self) {
        loop {
            self.schedule_through(self.next_pos);
            let i = (self.next_pos - self.order_base) as usize;
            let pending = &mut self.pending;
            let done = apply_at(
                &mut self.engine,
                &mut self.order,
                i,
                self.next_pos,
                &self.look,
                &mut |key, seq| pending.remove(&(key, seq)),
            );
            if done {
                self.next_pos += 1;
                return;
            }
            self.scheduled = self.next_pos;
        }
    }

    /// The scheduler: makes the happens-before constraints of the events
    /// at positions up to `end` hold, before any engine applies them. An
    /// event the planner says the kernel applied before the one at `p`
    /// ([`Facts::preceded_by`]) that is still later in the order (or not
    /// released yet) is moved to just before it. Only events placed later
    /// by default move earlier (their keys are larger), so this ends.
    ///
    /// When that earlier event's window begins after `p`'s point (it
    /// cannot be placed there), or `p`'s event is a reap with a window,
    /// `p`'s event moves instead, to just after it, if its own window
    /// reaches that far: under `-qq` a reap's window runs from the exit
    /// call to the first line that reports the task (`shape/exits.rs`),
    /// and a parent's dequeue it must follow may come after the thread's
    /// lines that begin inside it, or after that dequeue's own cause.
    /// Each event moves later at most once, so this ends too.
    fn schedule_through(&mut self, end: u64) {
        'positions: while self.scheduled <= end && self.scheduled < self.avail() {
            let p = self.scheduled;
            let ev = Arc::clone(self.at(p));
            let facts = self.facts_of(&ev);
            let mut at = (p - self.order_base) as usize;
            for &(key, seq) in &facts.preceded_by {
                if key <= ev.key() {
                    continue;
                }
                if at == (p - self.order_base) as usize && self.move_after(p, &ev, seq) {
                    continue 'positions;
                }
                if let Some(x) = self.take_later(at + 1, key, seq) {
                    self.order.insert(at, x);
                    at += 1;
                }
            }
            if at == (p - self.order_base) as usize {
                self.scheduled += 1;
            }
        }
    }

    /// Moves `ev`, at position `p`, to just after the released event
    /// `seq` when that one's window begins after `ev`'s point and ends
    /// within `ev`'s window (see [`Replayer::schedule_through`]); whether
    /// it moved.
    fn move_after(&mut self, p: u64, ev: &Event, seq: u64) -> bool {
        let i = (p - self.order_base) as usize;
        let Some(j) = self.order.range(i + 1..).position(|x| x.seq == seq) else {
            return false;
        };
        let j = i + 1 + j;
        let x = &self.order[j];
        // A reap with a window (under -qq the replay's, to the first line
        // that reports the task) moves rather than the line that must
        // precede it: that line's own cause (a death that reparented a
        // zombie, say) may lie between the two.
        let reap =
            matches!(ev.kind, Kind::Exited { .. } | Kind::Killed { .. }) && ev.entry_line < ev.line;
        if (x.entry_line <= ev.key() && !reap) || x.key() > ev.line {
            return false;
        }
        while self
            .moved_later
            .front()
            .is_some_and(|&(pos, _)| pos < self.order_base)
        {
            self.moved_later.pop_front();
        }
        if self.moved_later.iter().any(|&(_, s)| s == ev.seq) {
            return false;
        }
        self.moved_later.push_back((p, ev.seq));
        if let Some(e) = self.order.remove(i) {
            self.order.insert(j, e);
        }
        true
    }

    /// Removes the event `(key, seq)` from the order after index `from`,
    /// or from the events not released yet.
    fn take_later(&mut self, from: usize, key: usize, seq: u64) -> Option<Arc<Event>> {
        if let Some(i) = self.order.range(from..).position(|x| x.seq == seq) {
            return self.order.remove(from + i);
        }
        self.pending.remove(&(key, seq))
    }

    /// The planner's facts of `ev` (planned now if no engine needed it
    /// before).
    fn facts_of(&self, ev: &Event) -> Arc<Facts> {
        self.look.borrow_mut().facts_of(ev, plan::plan)
    }

    /// Applies positions up to (not including) `end` (during a search: no
    /// checkpoint is taken, so nothing the search needs is released).
    fn advance_main(&mut self, end: u64) {
        while self.next_pos < end {
            self.step_main();
        }
    }

    /// Whether the next checkpoint is due: every [`CHECKPOINT_EVERY`]
    /// positions, or every as many positions as there are live tasks when
    /// that is more, so that copying the engine costs O(1) per event.
    fn checkpoint_due(&self) -> bool {
        let every = CHECKPOINT_EVERY.max(self.engine.k.nr_tasks() as u64);
        self.next_pos == 0 || self.next_pos >= self.last_checkpoint + every
    }

    /// Keeps a copy of the engine before `next_pos`; the two newest are
    /// kept, and what only older ones needed is released.
    fn checkpoint(&mut self) {
        if self
            .checkpoints
            .back()
            .is_some_and(|c| c.pos == self.next_pos)
        {
            return;
        }
        self.checkpoints.push_back(Checkpoint {
            pos: self.next_pos,
            engine: self.engine.snapshot(),
        });
        self.last_checkpoint = self.next_pos;
        while self.checkpoints.len() > 2 {
            self.checkpoints.pop_front();
        }
        let oldest = self.checkpoints.front().map_or(0, |c| c.pos);
        self.finalize(oldest);
        self.prune();
    }

    /// Hands out the mismatches found before position `below` (no search
    /// can revisit them).
    fn finalize(&mut self, below: u64) {
        let below = below.max(self.final_below);
        let list = &mut self.engine.stats.mismatches;
        let keep = list.split_off(list.partition_point(|m| m.pos < below));
        let done = std::mem::replace(list, keep);
        self.nr_mismatches += done.len() as u64;
        self.searched = self.searched.saturating_sub(done.len());
        self.out.extend(done);
        let recs = &mut self.engine.rec.finished;
        let keep = recs.split_off(recs.partition_point(|r| r.0 < below));
        let done = std::mem::replace(recs, keep);
        for (_, f) in done {
            match f {
                Finished::Record(r) => self.out_records.push_back(r),
                Finished::Mark(m) => self.out_marks.push_back(m),
            }
        }
        self.final_below = below;
        let left: HashSet<u64> = self
            .engine
            .stats
            .mismatches
            .iter()
            .map(|m| m.event)
            .collect();
        self.genuine.retain(|seq| left.contains(seq));
    }

    /// Forgets positions and window events no checkpoint can need.
    fn prune(&mut self) {
        let oldest = self
            .checkpoints
            .front()
            .map_or(self.next_pos, |c| c.pos)
            .min(self.next_pos);
        while self.order_base < oldest && !self.order.is_empty() {
            self.order.pop_front();
            self.order_base += 1;
        }
        // The earliest line any retained position (or pending event) needs.
        let min_line = self
            .order
            .iter()
            .map(|e| e.entry_line.min(e.line))
            .chain(self.pending.values().map(|e| e.entry_line.min(e.line)))
            .min();
        if self.trail.as_ref().is_some_and(|t| t.pos < self.order_base) {
            self.trail = None;
        }
        let mut look = self.look.borrow_mut();
        let min_line = min_line.unwrap_or(look.last_line() + 1);
        look.prune_before(min_line);
    }

    /// Searches while the engine has a tentative mismatch not yet searched,
    /// oldest first. Mismatches are kept in position order, and those
    /// before `searched` were all searched, so this costs nothing when the
    /// last step found none.
    fn search_all(&mut self) {
        loop {
            let list = &self.engine.stats.mismatches;
            let from = self.searched.min(list.len());
            let Some(i) = list[from..]
                .iter()
                .position(|m| !self.genuine.contains(&m.event))
                .map(|i| from + i)
            else {
                self.searched = list.len();
                break;
            };
            let m = list[i].clone();
            if self.search_one(&m) {
                // `adopt` moved `searched` back to the changed stretch.
                continue;
            }
            self.genuine.insert(m.event);
            self.searched = i + 1;
        }
    }

    /// Mismatches of `e` at positions in `[lo, hi]` (the list is in
    /// position order).
    fn count(e: &Engine, lo: u64, hi: u64) -> usize {
        let l = &e.stats.mismatches;
        let a = l.partition_point(|m| m.pos < lo);
        let b = l.partition_point(|m| m.pos <= hi);
        b.saturating_sub(a)
    }

    /// The search steps allowed so far (see [`SEARCH_BUDGET`]).
    fn budget(&self) -> u64 {
        SEARCH_BUDGET + SEARCH_STEPS_PER_EVENT * self.next_pos
    }

    /// What copying the engine costs, in search steps.
    fn snapshot_cost(&self) -> u64 {
        1 + self.engine.k.nr_tasks() as u64 / SNAPSHOT_TASKS_PER_STEP
    }

    /// A copy of `e` for a candidate run from position `from`: what it
    /// found before `from` is left behind (the main engine has it), so the
    /// copy costs the live tasks, not the mismatches so far.
    fn fork_engine(e: &Engine, from: u64) -> Engine {
        let mut c = e.snapshot();
        strip_before(&mut c, from);
        c
    }

    /// The engine before position `lo` in the main order, from the trailing
    /// engine when it is at or before `lo` (advanced from there), else
    /// rebuilt from checkpoint `cp_pos`. The trailing engine only moves
    /// forward, so across a run of mismatches the copies cost each position
    /// once, not once per mismatch.
    fn engine_at(&mut self, lo: u64, cp_pos: u64) -> Engine {
        let usable = self
            .trail
            .as_ref()
            .is_some_and(|t| t.pos <= lo && t.pos >= self.order_base);
        if !usable {
            let cp = self
                .checkpoints
                .iter()
                .find(|c| c.pos == cp_pos)
                .expect("the search's checkpoint is kept");
            let engine = Self::fork_engine(&cp.engine, cp_pos);
            self.search_spent += self.snapshot_cost();
            self.trail = Some(Checkpoint {
                pos: cp_pos,
                engine,
            });
        }
        let mut t = self.trail.take().expect("trail set above");
        self.search_spent += lo - t.pos;
        while t.pos < lo {
            let ev = Arc::clone(self.at(t.pos));
            let facts = self.facts_of(&ev);
            t.engine.step(t.pos, &ev, &facts);
            t.pos += 1;
        }
        // Candidates from here count what they find from `lo` on (the
        // main engine has the rest): the copies carry no list.
        strip_before(&mut t.engine, lo);
        let copy = t.engine.snapshot();
        self.search_spent += self.snapshot_cost();
        self.trail = Some(t);
        copy
    }

    /// Tries the candidate moves for mismatch `m`; keeps the first that
    /// removes mismatches over the verified stretch. Returns whether one
    /// was kept. Every engine step and copy is charged to the search
    /// budget, which bounds the cost of a replay by its length, whatever
    /// its mismatch count.
    fn search_one(&mut self, m: &Mismatch) -> bool {
        let budget = self.budget();
        if self.search_spent >= budget {
            return false;
        }
        let p = m.pos;
        let lo = p.saturating_sub(LOOK_BACK);
        let Some(cp) = self.checkpoints.iter().rev().find(|c| c.pos <= lo) else {
            return false;
        };
        let cp_pos = cp.pos;
        let last = self.avail().saturating_sub(1);
        let limit = (p + HORIZON).min(last);
        let verify_end = (p + VERIFY).min(last);
        self.advance_main(limit + 1);
        self.schedule_through(verify_end);
        let slice: Vec<Arc<Event>> = (cp_pos..=verify_end)
            .map(|q| Arc::clone(self.at(q)))
            .collect();
        // Every event of the stretch planned now, with the window as it is.
        for e in &slice {
            self.facts_of(e);
        }
        let rel_p = (p - cp_pos) as usize;
        let mut moves = search::candidates(&slice, rel_p);
        moves.extend(search::targeted(
            &slice,
            rel_p,
            &m.involved,
            &self.engine.pids,
        ));
        let rel_lo = (lo - cp_pos) as usize;
        // The engine at position `lo`, from which most candidates start,
        // and (made when a move needs it) at the checkpoint.
        let at_lo = self.engine_at(lo, cp_pos);
        let mut at_cp: Option<Engine> = None;
        let mut verified = 0;
        for mv in moves {
            if self.search_spent >= budget {
                break;
            }
            let from = mv.from();
            // A candidate counts the mismatches it finds from where it
            // starts; the main order's count over the same stretch is the
            // baseline (before it, both orders are the same).
            let (mut e, start) = if from >= rel_lo {
                (at_lo.snapshot(), rel_lo)
            } else {
                let cp = at_cp.get_or_insert_with(|| {
                    let c = self
                        .checkpoints
                        .iter()
                        .find(|c| c.pos == cp_pos)
                        .expect("the search's checkpoint is kept");
                    Self::fork_engine(&c.engine, cp_pos)
                });
                (cp.snapshot(), 0)
            };
            self.search_spent += self.snapshot_cost();
            let mut cand: VecDeque<Arc<Event>> = mv
                .order(slice.len())
                .into_iter()
                .map(|i| Arc::clone(&slice[i]))
                .collect();
            let spent = &mut self.search_spent;
            let look = &self.look;
            let mut run = |e: &mut Engine, cand: &mut VecDeque<Arc<Event>>, a: usize, b: usize| {
                let mut i = a;
                while i <= b {
                    if apply_at(e, cand, i, cp_pos + i as u64, look, &mut |_, _| None) {
                        i += 1;
                    }
                    *spent += 1;
                }
            };
            let base = cp_pos + start as u64;
            run(&mut e, &mut cand, start, (limit - cp_pos) as usize);
            if Self::count(&e, base, limit) >= Self::count(&self.engine, base, limit) {
                continue;
            }
            run(
                &mut e,
                &mut cand,
                (limit - cp_pos) as usize + 1,
                (verify_end - cp_pos) as usize,
            );
            self.advance_main(verify_end + 1);
            if Self::count(&e, base, verify_end) < Self::count(&self.engine, base, verify_end) {
                let from = cp_pos + mv.from() as u64;
                self.adopt(e, cand, cp_pos, base, verify_end, from);
                return true;
            }
            verified += 1;
            if verified >= MAX_FULL_RUNS {
                break;
            }
        }
        false
    }

    /// Makes a kept candidate the replay: its order replaces positions
    /// `[cp_pos, end]`, its engine the main one (with what the main engine
    /// found before `base`, where the candidate's run started).
    ///
    /// The main order may have changed after `end` meanwhile (the
    /// scheduler moved a later line before an event it applied): the
    /// candidate's order replaces `[cp_pos, end]`, and the main order's
    /// other events follow in their order.
    fn adopt(
        &mut self,
        mut e: Engine,
        cand: VecDeque<Arc<Event>>,
        cp_pos: u64,
        base: u64,
        end: u64,
        from: u64,
    ) {
        let n = (end - cp_pos + 1) as usize;
        let head: HashSet<u64> = cand.iter().take(n).map(|x| x.seq).collect();
        let at = (cp_pos - self.order_base) as usize;
        let rest: Vec<Arc<Event>> = self
            .order
            .drain(at..)
            .filter(|x| !head.contains(&x.seq))
            .collect();
        self.order.extend(cand.into_iter().take(n));
        self.order.extend(rest);
        self.scheduled = self.scheduled.min(end + 1);
        let final_below = self.final_below;
        let mut list = std::mem::take(&mut self.engine.stats.mismatches);
        list.retain(|m| m.pos >= final_below && m.pos < base);
        strip_before(&mut e, base);
        self.searched = list.len();
        list.append(&mut e.stats.mismatches);
        e.stats.mismatches = list;
        let mut recs = std::mem::take(&mut self.engine.rec.finished);
        recs.retain(|r| r.0 >= final_below && r.0 < base);
        recs.append(&mut e.rec.finished);
        e.rec.finished = recs;
        self.engine = e;
        self.next_pos = end + 1;
        // Checkpoints (and the trailing engine) after the change are of the
        // old order.
        self.checkpoints.retain(|c| c.pos <= from);
        self.last_checkpoint = self.checkpoints.back().map_or(0, |c| c.pos);
        if self.trail.as_ref().is_some_and(|t| t.pos > from) {
            self.trail = None;
        }
    }
}

/// Applies `order[i]` on `engine` as position `pos`, with its facts. An
/// event whose cause may come later ([`Facts::causes`]) is applied on a
/// copy kept of the engine before it; when the engine says later lines
/// caused it ([`Engine::take_wants`]), those found later in `order` (or,
/// through `elsewhere`, not released yet) move before it, the copy is
/// restored, and `false` says to apply index `i` (now the first moved
/// line) again. Only lines placed later by default move earlier, so this
/// ends.
fn apply_at(
    engine: &mut Engine,
    order: &mut VecDeque<Arc<Event>>,
    i: usize,
    pos: u64,
    look: &RefCell<Window>,
    elsewhere: &mut dyn FnMut(usize, u64) -> Option<Arc<Event>>,
) -> bool {
    let ev = Arc::clone(&order[i]);
    let facts = look.borrow_mut().facts_of(&ev, plan::plan);
    // Boxed: an engine is large, and most events need no copy.
    let before = (!facts.causes.is_empty()).then(|| Box::new(engine.snapshot()));
    engine.step(pos, &ev, &facts);
    let Some(saved) = before else {
        return true;
    };
    let Some(wants) = engine.take_wants(ev.seq) else {
        return true;
    };
    let mut at = i;
    for (key, seq) in wants {
        if key <= ev.key() {
            continue;
        }
        let found = order.range(at + 1..).position(|x| x.seq == seq);
        let x = match found {
            Some(j) => order.remove(at + 1 + j),
            None => elsewhere(key, seq),
        };
        if let Some(x) = x {
            order.insert(at, x);
            at += 1;
        }
    }
    if at == i {
        return true;
    }
    *engine = *saved;
    false
}

/// Drops what `e` found before position `pos` (mismatches, closed
/// records).
fn strip_before(e: &mut Engine, pos: u64) {
    let l = &mut e.stats.mismatches;
    l.drain(..l.partition_point(|m| m.pos < pos));
    let r = &mut e.rec.finished;
    r.drain(..r.partition_point(|r| r.0 < pos));
}

/// What a trace shows of the options strace recorded it with.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Recording {
    /// Whether it prints `+++ exited with N +++` lines (`strace -qq` drops
    /// them; the replay then takes each exit from the `exit_group(N) = ?`
    /// or `exit(N) = ?` line).
    pub exit_lines: ExitLines,
    /// rt_sigprocmask calls: none when the trace filter left out
    /// `%signal` (masks are then not in the record).
    pub mask_calls: u64,
}

/// The result of one replay.
#[derive(Debug, Clone, Default)]
pub struct Summary {
    /// Counters.
    pub stats: Stats,
    /// Every mismatch not taken with [`Replayer::take_mismatches`].
    pub mismatches: Vec<Mismatch>,
    /// Every process record not taken with [`Replayer::take_records`]
    /// (with [`Options::records`]).
    pub records: Vec<ProcessRecord>,
    /// Every timeline mark not taken with [`Replayer::take_marks`] (with
    /// [`Options::records`]).
    pub marks: Vec<Mark>,
    /// What the trace shows of the strace options it was recorded with.
    pub recording: Recording,
    /// Engine steps (and engine copies, one step per 16 live tasks) the
    /// order search spent: at most about 150,000 plus 2 per event.
    pub search_steps: u64,
}
