//! One waiter group's ready edges under all process groups, ordered by
//! bucket and Linux's walk position: a few entries inline (the common case,
//! no allocation and a scan of at most [`SMALL`]), a B-tree beyond.
//!
//! # Complexity
//! Insert, remove and "first at or after" are O(1) while at most [`SMALL`]
//! edges are ready, O(log R) for R ready edges beyond.
//!
//! # Linux
//! No Linux analogue (`do_wait` walks the lists).

use core::ops::Bound;
use std::collections::BTreeMap;

use crate::ix::TaskIx;
use crate::slab::SlabIx;

/// How many ready edges a set keeps inline before it becomes a tree.
pub(crate) const SMALL: usize = 4;

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

/// The set: sorted inline entries (`len` of them; the task as its slot
/// number), or a tree once more than [`SMALL`] were ready at once.
#[derive(Clone, Debug)]
pub(crate) enum ReadySet {
    Small { len: u8, e: [(Pos, u32); SMALL] },
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
            ReadySet::Tree(t) => Box::new(t.iter().map(|(&p, &t)| (p, t))),
        }
    }

    /// Adds `p -> task`; `p` must not be in the set.
    #[inline]
    pub(crate) fn insert(&mut self, p: Pos, task: TaskIx) {
        match self {
            ReadySet::Small { len, e } => {
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
                } else {
                    let mut t: BTreeMap<Pos, TaskIx> =
                        e.iter().map(|&(p, t)| (p, TaskIx::from_slot(t))).collect();
                    let old = t.insert(p, task);
                    debug_assert!(old.is_none(), "ready entry added twice");
                    *self = ReadySet::Tree(t);
                }
            }
            ReadySet::Tree(t) => {
                let old = t.insert(p, task);
                debug_assert!(old.is_none(), "ready entry added twice");
            }
        }
    }

    /// Removes `p`, which must be in the set. A tree left empty becomes
    /// inline again.
    #[inline]
    pub(crate) fn remove(&mut self, p: Pos) {
        match self {
            ReadySet::Small { len, e } => {
                let n = *len as usize;
                let Some(i) = e[..n].iter().position(|x| x.0 == p) else {
                    debug_assert!(false, "ready entry missing");
                    return;
                };
                e.copy_within(i + 1..n, i);
                *len -= 1;
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

    /// The first entry after `start`.
    #[inline]
    pub(crate) fn first_from(&self, start: Bound<Pos>) -> Option<(Pos, TaskIx)> {
        let after = |p: Pos| match start {
            Bound::Included(s) => p >= s,
            Bound::Excluded(s) => p > s,
            Bound::Unbounded => true,
        };
        match self {
            ReadySet::Small { len, e } => e[..*len as usize]
                .iter()
                .find(|x| after(x.0))
                .map(|&(p, t)| (p, TaskIx::from_slot(t))),
            ReadySet::Tree(t) => t
                .range((start, Bound::Unbounded))
                .next()
                .map(|(&p, &t)| (p, t)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tk(slot: u32) -> TaskIx {
        TaskIx::from_slot(slot)
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
}
