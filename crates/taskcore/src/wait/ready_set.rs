//! One waiter group's ready edges under all process groups, ordered by
//! bucket and Linux's walk position: a few entries inline (the common case,
//! no allocation and a scan of at most [`SMALL`]); beyond, a sorted run
//! of edges that share one place before their fork order (one bucket, one
//! waiting thread, one list: the usual case) while edges come and go at
//! its ends (children that become ready in fork order, or in reverse, and
//! are reaped from the front: a million zombies reaped by `wait4(-1)`),
//! and a B-tree once an edge comes or goes in the middle of a run longer
//! than [`RUN_MIDDLE`], or an edge of another place joins a run.
//!
//! # Complexity
//! Insert, remove and "first at or after" are O(1) while at most [`SMALL`]
//! edges are ready; in a run, O(1) at its ends (O(log R) to find the first
//! entry at or after a bound that is not the first, O(`RUN_MIDDLE`) for a
//! change in the middle of a short run); O(log R) for R ready edges in a
//! tree. A run becomes a tree once (O(R)), at its first change in the
//! middle beyond `RUN_MIDDLE`, after at least `RUN_MIDDLE` cheap changes,
//! or at the first edge of another place (then O(R) once for R below any
//! bound: a set of more than [`SMALL`] edges of several places is a tree
//! from the start); a set that empties becomes inline again.
//!
//! # Linux
//! No Linux analogue (`do_wait` walks the lists).

use core::ops::Bound;
use std::collections::{BTreeMap, VecDeque};

use crate::ix::TaskIx;
use crate::slab::SlabIx;

/// How many ready edges a set keeps inline before it becomes a tree.
pub(crate) const SMALL: usize = 4;

/// The longest run in whose middle an edge may come or go (a shift of at
/// most this many entries); a change in the middle of a longer run makes
/// it a tree.
pub(crate) const RUN_MIDDLE: usize = 64;

/// A ready entry's place: `(bucket, thread_seq, list)` packed into `hi`
/// (bucket in bits 33.., thread_seq in 1..33, list in bit 0), then `seq`.
/// The derived order is the bucket's, then Linux's walk order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub(crate) struct Pos {
    hi: u64,
    seq: u64,
}

impl Pos {
    #[inline(always)]
    pub(crate) fn new(bucket: u8, thread_seq: u32, list: u8, seq: u64) -> Pos {
        Pos {
            hi: (bucket as u64) << 33 | (thread_seq as u64) << 1 | (list as u64 & 1),
            seq,
        }
    }

    #[inline(always)]
    pub(crate) fn bucket(self) -> u8 {
        (self.hi >> 33) as u8
    }

    #[inline(always)]
    pub(crate) fn thread_seq(self) -> u32 {
        (self.hi >> 1) as u32
    }

    #[inline(always)]
    pub(crate) fn list(self) -> u8 {
        (self.hi & 1) as u8
    }

    #[inline(always)]
    pub(crate) fn seq(self) -> u64 {
        self.seq
    }
}

/// A run's entry: the [`Pos`]'s fork-order key and the task, packed to
/// 4-byte alignment (12 bytes): the rest of the position, the same for
/// every entry of a run, is the run's own ([`Run::hi`]). A run holds one
/// per ready edge (a million reapable zombies: 12 MB, where a whole
/// `Pos` per entry took 20). Its fields are read by value only.
#[derive(Clone, Copy)]
#[repr(C, packed(4))]
pub(crate) struct RunEntry {
    seq: u64,
    task: TaskIx,
}

impl core::fmt::Debug for RunEntry {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let (seq, task) = (self.seq, self.task);
        (seq, task).fmt(f)
    }
}

/// A sorted run of ready edges that share `hi` (bucket, waiting thread,
/// list), never empty.
#[derive(Clone, Debug)]
pub(crate) struct Run {
    hi: u64,
    r: VecDeque<RunEntry>,
}

impl Run {
    /// Entry `e`'s whole position.
    #[inline(always)]
    fn pos(&self, e: RunEntry) -> Pos {
        Pos {
            hi: self.hi,
            seq: e.seq,
        }
    }

    /// Entry `e` as a `(position, task)` pair.
    #[inline(always)]
    fn pair(&self, e: RunEntry) -> (Pos, TaskIx) {
        (self.pos(e), e.task)
    }

    /// The entry of `p -> task` (`p` of this run's place).
    #[inline(always)]
    fn entry(p: Pos, task: TaskIx) -> RunEntry {
        RunEntry { seq: p.seq, task }
    }

    /// The entries as a tree.
    fn to_tree(&self) -> BTreeMap<Pos, TaskIx> {
        self.r.iter().map(|&e| self.pair(e)).collect()
    }
}

/// The set: sorted inline entries (`len` of them; the task as its slot
/// number) while at most [`SMALL`] are ready; then a sorted run changed at
/// its ends; a tree once a run longer than [`RUN_MIDDLE`] would change in
/// its middle.
#[derive(Clone, Debug)]
pub(crate) enum ReadySet {
    Small {
        len: u8,
        e: [(Pos, u32); SMALL],
    },
    /// Sorted by position, of one place, never empty.
    Run(Run),
    Tree(BTreeMap<Pos, TaskIx>),
}

impl Default for ReadySet {
    fn default() -> Self {
        ReadySet::Small {
            len: 0,
            e: [(Pos::default(), 0); SMALL],
        }
    }
}

impl PartialEq for ReadySet {
    /// The same entries, whichever representation holds them.
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl ReadySet {
    pub(crate) fn len(&self) -> usize {
        match self {
            ReadySet::Small { len, .. } => *len as usize,
            ReadySet::Run(r) => r.r.len(),
            ReadySet::Tree(t) => t.len(),
        }
    }

    /// The entries in order.
    pub(crate) fn iter(&self) -> Box<dyn Iterator<Item = (Pos, TaskIx)> + '_> {
        match self {
            ReadySet::Small { len, e } => Box::new(
                e[..*len as usize]
                    .iter()
                    .map(|&(p, t)| (p, TaskIx::from_slot(t))),
            ),
            ReadySet::Run(r) => Box::new(r.r.iter().map(|&e| r.pair(e))),
            ReadySet::Tree(t) => Box::new(t.iter().map(|(&p, &t)| (p, t))),
        }
    }

    /// Adds `p -> task`; `p` must not be in the set.
    #[inline(always)]
    pub(crate) fn insert(&mut self, p: Pos, task: TaskIx) {
        // The common case, inline: a few entries, room for one more.
        if let ReadySet::Small { len, e } = self {
            let n = *len as usize;
            if n < SMALL {
                // Edges mostly become ready in walk order: search from
                // the end.
                let mut i = n;
                while i > 0 && e[i - 1].0 > p {
                    e[i] = e[i - 1];
                    i -= 1;
                }
                debug_assert!(i == 0 || e[i - 1].0 != p, "ready entry added twice");
                e[i] = (p, task.slot() as u32);
                *len += 1;
                return;
            }
        }
        self.insert_slow(p, task);
    }

    /// [`Self::insert`] into a full inline set, a run or a tree.
    #[inline(never)]
    fn insert_slow(&mut self, p: Pos, task: TaskIx) {
        match self {
            ReadySet::Small { e, .. } => {
                // Full: it becomes a run if its edges and `p` share one
                // place, else a tree.
                let hi = p.hi;
                if e.iter().all(|x| x.0.hi == hi) {
                    let mut r: VecDeque<RunEntry> = VecDeque::with_capacity(2 * SMALL);
                    r.extend(e.iter().map(|&(p, t)| Run::entry(p, TaskIx::from_slot(t))));
                    *self = ReadySet::Run(Run { hi, r });
                } else {
                    let t = e.iter().map(|&(p, t)| (p, TaskIx::from_slot(t))).collect();
                    *self = ReadySet::Tree(t);
                }
                self.insert(p, task);
            }
            ReadySet::Run(run) => {
                let r = &mut run.r;
                // Never empty: it has a front and a back.
                if p.hi == run.hi {
                    if r.back().is_none_or(|b| b.seq < p.seq) {
                        r.push_back(Run::entry(p, task));
                        return;
                    }
                    if r.front().is_some_and(|f| p.seq < f.seq) {
                        r.push_front(Run::entry(p, task));
                        return;
                    }
                    if r.len() < RUN_MIDDLE {
                        let i = r.partition_point(|x| x.seq < p.seq);
                        debug_assert!(r[i].seq != p.seq, "ready entry added twice");
                        r.insert(i, Run::entry(p, task));
                        return;
                    }
                }
                // Another place, or the middle of a long run: a tree
                // holds them.
                let mut t = run.to_tree();
                let old = t.insert(p, task);
                debug_assert!(old.is_none(), "ready entry added twice");
                *self = ReadySet::Tree(t);
            }
            ReadySet::Tree(t) => {
                let old = t.insert(p, task);
                debug_assert!(old.is_none(), "ready entry added twice");
            }
        }
    }

    /// Removes `p`, which must be in the set. A run or tree left empty
    /// becomes inline again.
    #[inline(always)]
    pub(crate) fn remove(&mut self, p: Pos) {
        // The common case, inline: a few entries.
        if let ReadySet::Small { len, e } = self {
            let n = *len as usize;
            let Some(i) = e[..n].iter().position(|x| x.0 == p) else {
                debug_assert!(false, "ready entry missing");
                return;
            };
            // At most SMALL - 1 moves, inline (a `copy_within` of a few
            // entries is a call to memmove).
            for j in i..n - 1 {
                e[j] = e[j + 1];
            }
            *len -= 1;
            return;
        }
        self.remove_slow(p);
    }

    /// [`Self::remove`] from a run or a tree.
    #[inline(never)]
    fn remove_slow(&mut self, p: Pos) {
        match self {
            ReadySet::Small { .. } => unreachable!("inline sets are handled by remove"),
            ReadySet::Run(run) => {
                let r = &mut run.r;
                if p.hi != run.hi {
                    debug_assert!(false, "ready entry missing");
                    return;
                }
                if r.front().is_some_and(|f| f.seq == p.seq) {
                    r.pop_front();
                } else if r.back().is_some_and(|b| b.seq == p.seq) {
                    r.pop_back();
                } else if r.len() <= RUN_MIDDLE {
                    let i = r.partition_point(|x| x.seq < p.seq);
                    if r.get(i).is_none_or(|x| x.seq != p.seq) {
                        debug_assert!(false, "ready entry missing");
                        return;
                    }
                    r.remove(i);
                } else {
                    let mut t = run.to_tree();
                    let old = t.remove(&p);
                    debug_assert!(old.is_some(), "ready entry missing");
                    *self = ReadySet::Tree(t);
                    return;
                }
                if r.is_empty() {
                    *self = ReadySet::default();
                }
            }
            ReadySet::Tree(t) => {
                let old = t.remove(&p);
                debug_assert!(old.is_some(), "ready entry missing");
                if t.is_empty() {
                    *self = ReadySet::default();
                }
            }
        }
    }

    /// The first entry after `start`: an inline set's inline at the
    /// caller, a run's or a tree's lookup out of line.
    #[inline(always)]
    pub(crate) fn first_from(&self, start: Bound<Pos>) -> Option<(Pos, TaskIx)> {
        if let ReadySet::Small { len, e } = self {
            return e[..*len as usize]
                .iter()
                .find(|x| after(x.0, start))
                .map(|&(p, t)| (p, TaskIx::from_slot(t)));
        }
        self.first_from_slow(start)
    }

    /// [`Self::first_from`] in a run or a tree.
    #[inline(never)]
    fn first_from_slow(&self, start: Bound<Pos>) -> Option<(Pos, TaskIx)> {
        match self {
            // Answered inline by `first_from`.
            ReadySet::Small { .. } => None,
            ReadySet::Run(run) => {
                // Most often the first entry (a wait for any child reaps
                // from the front): one comparison, else a binary search.
                let r = &run.r;
                match r.front() {
                    Some(&f) if after(run.pos(f), start) => Some(run.pair(f)),
                    _ => r
                        .get(r.partition_point(|&x| !after(run.pos(x), start)))
                        .map(|&e| run.pair(e)),
                }
            }
            ReadySet::Tree(t) => t
                .range((start, Bound::Unbounded))
                .next()
                .map(|(&p, &t)| (p, t)),
        }
    }
}

/// Whether position `p` lies after `start`.
#[inline(always)]
fn after(p: Pos, start: Bound<Pos>) -> bool {
    match start {
        Bound::Included(s) => p >= s,
        Bound::Excluded(s) => p > s,
        Bound::Unbounded => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tk(slot: u32) -> TaskIx {
        TaskIx::from_slot(slot)
    }

    #[test]
    fn a_run_entry_is_12_bytes() {
        // Memory per process is a goal (BENCHMARKS.md, bench scale): a
        // run holds one entry per reapable zombie.
        assert_eq!(core::mem::size_of::<RunEntry>(), 12);
        let p = Pos::new(3, 7, 1, u64::MAX - 1);
        let run = Run {
            hi: p.hi,
            r: VecDeque::new(),
        };
        assert_eq!(run.pair(Run::entry(p, tk(9))), (p, tk(9)));
    }

    #[test]
    fn edges_of_several_places_make_a_tree_not_a_run() {
        // A full inline set of one place and an edge of another.
        let mut s = ReadySet::default();
        let mut model = BTreeMap::new();
        for i in 0..SMALL as u64 {
            s.insert(Pos::new(0, 0, 0, 2 * i), tk(i as u32 + 1));
            model.insert(Pos::new(0, 0, 0, 2 * i), tk(i as u32 + 1));
        }
        s.insert(Pos::new(0, 0, 1, 3), tk(50));
        model.insert(Pos::new(0, 0, 1, 3), tk(50));
        assert!(matches!(s, ReadySet::Tree(_)));
        agrees(&s, &model, &[Pos::new(0, 0, 0, 3), Pos::new(0, 0, 1, 0)]);
        // A run of one place, then an edge of another bucket.
        let mut s = ReadySet::default();
        let mut model = BTreeMap::new();
        for i in 0..20u64 {
            s.insert(Pos::new(1, 0, 0, i), tk(i as u32 + 1));
            model.insert(Pos::new(1, 0, 0, i), tk(i as u32 + 1));
        }
        assert!(matches!(s, ReadySet::Run(_)));
        s.insert(Pos::new(0, 0, 0, 100), tk(99));
        model.insert(Pos::new(0, 0, 0, 100), tk(99));
        assert!(matches!(s, ReadySet::Tree(_)));
        agrees(&s, &model, &[Pos::new(0, 0, 0, 0), Pos::new(1, 0, 0, 5)]);
        while let Some((&p, _)) = model.iter().next() {
            s.remove(p);
            model.remove(&p);
        }
        assert_eq!(s, ReadySet::default());
    }

    #[test]
    fn pos_orders_by_bucket_then_walk_position() {
        let a = Pos::new(0, 5, 1, 9);
        assert_eq!(
            (a.bucket(), a.thread_seq(), a.list(), a.seq()),
            (0, 5, 1, 9)
        );
        let big = Pos::new(11, u32::MAX, 1, u64::MAX);
        assert_eq!(
            (big.bucket(), big.thread_seq(), big.list(), big.seq()),
            (11, u32::MAX, 1, u64::MAX)
        );
        assert!(Pos::new(0, u32::MAX, 1, u64::MAX) < Pos::new(1, 0, 0, 0));
        assert!(Pos::new(1, 1, 0, u64::MAX) < Pos::new(1, 1, 1, 0));
        assert!(Pos::new(1, 1, 1, 0) < Pos::new(1, 2, 0, 0));
    }

    #[test]
    fn stays_sorted_across_the_inline_tree_boundary_and_back() {
        let mut s = ReadySet::default();
        let mut model: BTreeMap<Pos, TaskIx> = BTreeMap::new();
        // A fixed pseudo-random order of inserts and removes.
        let mut x = 12345u64;
        for step in 0..400u32 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let p = Pos::new((x >> 60) as u8 % 3, (x >> 40) as u32 % 4, 0, (x >> 20) % 16);
            if let Some(&t) = model.get(&p) {
                let _ = t;
                s.remove(p);
                model.remove(&p);
            } else if model.len() < 9 || step % 3 == 0 {
                s.insert(p, tk(step + 1));
                model.insert(p, tk(step + 1));
            }
            assert_eq!(s.len(), model.len());
            assert!(s.iter().eq(model.iter().map(|(&p, &t)| (p, t))));
            let probe = Pos::new(1, 2, 0, 8);
            for b in [
                Bound::Included(probe),
                Bound::Excluded(probe),
                Bound::Unbounded,
            ] {
                assert_eq!(
                    s.first_from(b),
                    model
                        .range((b, Bound::Unbounded))
                        .next()
                        .map(|(&p, &t)| (p, t))
                );
            }
        }
        while let Some((&p, _)) = model.iter().next() {
            s.remove(p);
            model.remove(&p);
        }
        assert!(matches!(s, ReadySet::Small { len: 0, .. }));
        assert_eq!(s, ReadySet::default());
    }

    /// The set holds what `model` holds, and answers `first_from` as
    /// `model.range` does at every bound around a few probes.
    fn agrees(s: &ReadySet, model: &BTreeMap<Pos, TaskIx>, probes: &[Pos]) {
        assert_eq!(s.len(), model.len());
        assert!(s.iter().eq(model.iter().map(|(&p, &t)| (p, t))));
        for &probe in probes {
            for b in [
                Bound::Included(probe),
                Bound::Excluded(probe),
                Bound::Unbounded,
            ] {
                let want = model
                    .range((b, Bound::Unbounded))
                    .next()
                    .map(|(&p, &t)| (p, t));
                assert_eq!(s.first_from(b), want, "first_from({b:?})");
            }
        }
    }

    #[test]
    fn a_run_grown_and_shrunk_at_its_ends_stays_a_run() {
        let mut s = ReadySet::default();
        let mut model = BTreeMap::new();
        let at = |i: u64| Pos::new(0, 0, 0, i);
        // Ready in fork order, reaped from the front (wait4(-1)).
        for i in 0..1000u64 {
            s.insert(at(i), tk(i as u32 + 1));
            model.insert(at(i), tk(i as u32 + 1));
        }
        assert!(matches!(s, ReadySet::Run(_)));
        agrees(&s, &model, &[at(0), at(500), at(999), at(1000)]);
        for i in 0..990u64 {
            s.remove(at(i));
            model.remove(&at(i));
            assert!(matches!(s, ReadySet::Run(_)));
        }
        agrees(&s, &model, &[at(0), at(995), at(999)]);
        // Reverse order grows at the front; the back goes too.
        for i in (800..990u64).rev() {
            s.insert(at(i), tk(i as u32 + 1));
            model.insert(at(i), tk(i as u32 + 1));
        }
        assert!(matches!(s, ReadySet::Run(_)));
        // Then the newest go first, from the back.
        let back: Vec<Pos> = model.keys().rev().take(50).copied().collect();
        for p in back {
            s.remove(p);
            model.remove(&p);
        }
        assert!(matches!(s, ReadySet::Run(_)));
        agrees(&s, &model, &[at(800), at(850), at(990)]);
        while let Some((&p, _)) = model.iter().next() {
            s.remove(p);
            model.remove(&p);
        }
        assert_eq!(s, ReadySet::default());
        assert!(matches!(s, ReadySet::Small { len: 0, .. }));
    }

    #[test]
    fn a_change_in_the_middle_of_a_long_run_makes_a_tree() {
        for insert in [true, false] {
            let mut s = ReadySet::default();
            let mut model = BTreeMap::new();
            let at = |i: u64| Pos::new(1, 2, 0, i);
            for i in 0..(RUN_MIDDLE as u64 + 10) {
                s.insert(at(2 * i), tk(i as u32 + 1));
                model.insert(at(2 * i), tk(i as u32 + 1));
            }
            // In the middle of a short run: shifted in place.
            assert!(matches!(s, ReadySet::Run(_)));
            if insert {
                s.insert(at(21), tk(999));
                model.insert(at(21), tk(999));
            } else {
                s.remove(at(20));
                model.remove(&at(20));
            }
            assert!(matches!(s, ReadySet::Tree(_)));
            agrees(&s, &model, &[at(0), at(20), at(21), at(22), at(1000)]);
        }
        // A short run changes in its middle and stays a run.
        let mut s = ReadySet::default();
        let mut model = BTreeMap::new();
        let at = |i: u64| Pos::new(2, 0, 1, i);
        for i in 0..10u64 {
            s.insert(at(2 * i), tk(i as u32 + 1));
            model.insert(at(2 * i), tk(i as u32 + 1));
        }
        s.insert(at(7), tk(77));
        model.insert(at(7), tk(77));
        s.remove(at(10));
        model.remove(&at(10));
        assert!(matches!(s, ReadySet::Run(_)));
        agrees(&s, &model, &[at(6), at(7), at(8), at(10), at(11)]);
    }

    #[test]
    fn agrees_with_a_tree_through_every_representation() {
        let mut s = ReadySet::default();
        let mut model: BTreeMap<Pos, TaskIx> = BTreeMap::new();
        let mut x = 987654321u64;
        let mut kinds = [false; 3];
        for step in 0..20_000u32 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            // Phases: grow in order, shrink from the front, then random.
            let phase = (step / 2500) % 4;
            let p = match phase {
                0 => Pos::new(0, 0, 0, u64::from(step)),
                1 => match model.keys().next() {
                    Some(&p) => p,
                    None => Pos::new(0, 0, 0, 0),
                },
                _ => Pos::new(
                    (x >> 60) as u8 % 3,
                    (x >> 40) as u32 % 3,
                    0,
                    (x >> 20) % 200,
                ),
            };
            if model.remove(&p).is_some() {
                s.remove(p);
            } else if phase != 1 {
                s.insert(p, tk(step + 1));
                model.insert(p, tk(step + 1));
            }
            kinds[match s {
                ReadySet::Small { .. } => 0,
                ReadySet::Run(_) => 1,
                ReadySet::Tree(_) => 2,
            }] = true;
            if step % 97 == 0 {
                let probes = [
                    Pos::new(1, 1, 0, 100),
                    Pos::new(0, 0, 0, u64::from(step)),
                    p,
                ];
                agrees(&s, &model, &probes);
            }
        }
        agrees(&s, &model, &[Pos::new(1, 1, 0, 100)]);
        assert_eq!(kinds, [true; 3], "every representation was used");
    }
}
