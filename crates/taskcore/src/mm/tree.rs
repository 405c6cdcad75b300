//! A copy-on-write range B-tree with per-child gap tracking.
//!
//! [`RangeTree<T>`] holds non-overlapping half-open ranges `[start, end)`
//! (VMAs, in `mm`) sorted by address, in wide nodes in the spirit of Linux's
//! maple tree (`lib/maple_tree.c`, `maple_arange_64` nodes).
//!
//! # Layout
//!
//! ```text
//!                      Internal (<= 10 children)
//!  +-----------+-----------+-----------+-----+
//!  | Child 0   | Child 1   | Child 2   | ... |   Child = { Summary, Arc<Node> }
//!  | min  max  | min  max  | min  max  |     |   Summary = { min, max, gap, tag }
//!  | gap  tag  | gap  tag  | gap  tag  |     |
//!  +-----+-----+-----+-----+-----+-----+-----+
//!        |           |           |
//!        v           v           v
//!   Leaf (<= 16 entries, sorted by start, non-overlapping)
//!   [s0,e0) [s1,e1) ... [s15,e15)
//! ```
//!
//! Vocabulary:
//! - *entry*: one stored range (a VMA).
//! - *summary* of a subtree: `min` = start of its first entry, `max` = end of
//!   its last entry, `gap` = the largest free interval strictly between two
//!   of its entries, `tag` = the OR of its entries' [`RangeEntry::tag`] bits.
//!   The maple tree keeps `pivots` (a child's last index) and `gaps` per
//!   child; `min`/`max` play the role of pivots here.
//! - *free interval*: a maximal range covered by no entry; those between two
//!   children of a node are computed from the neighbours' `max`/`min`.
//!
//! # Invariants
//! 1. Entries are sorted by start and do not overlap; each has start < end.
//! 2. Every leaf is at the same depth (`height` levels of internal nodes
//!    above it).
//! 3. Every non-root leaf holds at least [`LEAF_MIN`] entries, every
//!    non-root internal node at least [`INTERNAL_MIN`] children; no node is
//!    empty; the root internal node has at least 2 children.
//! 4. Every child summary equals the summary recomputed from its node.
//! 5. `len` is the number of entries.
//!
//! # Copy-on-write
//! Nodes are shared through `Arc`. [`Clone`] on the tree is O(1); every
//! mutation walks down with `Arc::make_mut`, which copies a node only when
//! it is shared, so the first write after a clone copies just the
//! root-to-leaf path (O(log n) nodes) and later writes to the same path copy
//! nothing.
//!
//! # Complexity (n entries)
//! - [`RangeTree::find`], [`RangeTree::prev`], insert, remove: O(log n)
//!   node visits, O(fanout) work per node.
//! - [`RangeTree::gap_topdown`] / [`RangeTree::gap_bottomup`]: O(log n):
//!   the search descends only into children whose `gap` is large enough,
//!   and only children straddling the `low`/`high` limits can fail after
//!   descending.
//! - [`RangeTree::from_sorted`] and [`RangeTree::dup_bulk`]: O(n).
//! - cloning the tree ([`Clone`]): O(1).
//!
//! # Linux
//! Mirrors the roles of `mas_walk`/`mt_find` (lookup), `mas_store`
//! (insert/erase with rebalancing), `mas_empty_area`/`mas_empty_area_rev`
//! (gap search) and `__mt_dup` (bulk depth-first duplication). Divergences:
//! no RCU (readers borrow the tree), gaps are tracked in every node rather
//! than only in allocation-range trees, and nodes are shared copy-on-write,
//! which the maple tree does not do.

use std::sync::Arc;

use super::slots::Slots;
use crate::errno::{Errno, Result};

/// Entries per leaf (as a maple tree `maple_range_64` node).
pub const LEAF_SLOTS: usize = 16;
/// Children per internal node (as a maple tree `maple_arange_64` node).
pub const INTERNAL_SLOTS: usize = 10;
/// Minimum entries in a non-root leaf.
pub const LEAF_MIN: usize = LEAF_SLOTS / 2;
/// Minimum children of a non-root internal node.
pub const INTERNAL_MIN: usize = INTERNAL_SLOTS / 2;

/// A value stored in a [`RangeTree`]: a half-open address range plus data.
pub trait RangeEntry: Clone {
    /// First address of the range.
    fn start(&self) -> u64;
    /// One past the last address of the range (`start() < end()`).
    fn end(&self) -> u64;
    /// Bits aggregated by OR in every subtree summary, so that entries with
    /// given bits can be found without a full scan ([`RangeTree::tagged`]).
    fn tag(&self) -> u64 {
        0
    }
}

/// What a parent knows about one child subtree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Summary {
    /// Start of the subtree's first entry.
    min: u64,
    /// End of the subtree's last entry.
    max: u64,
    /// Largest free interval between two entries of the subtree.
    gap: u64,
    /// OR of the entries' tags.
    tag: u64,
}

/// A child pointer with its summary.
#[derive(Clone, Debug)]
struct Child<T> {
    /// Summary of `node`.
    sum: Summary,
    /// The child node, shared copy-on-write.
    node: Arc<Node<T>>,
}

/// A tree node.
///
/// Leaves are much larger than internal nodes (16 entries against 10
/// child pointers); boxing the leaf array would cost a second allocation
/// per node, which is what the fixed-size layout avoids.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
enum Node<T> {
    /// Entries sorted by start.
    Leaf(Slots<T, LEAF_SLOTS>),
    /// Children sorted by address.
    Internal(Slots<Child<T>, INTERNAL_SLOTS>),
}

impl<T: RangeEntry> Node<T> {
    fn len(&self) -> usize {
        match self {
            Node::Leaf(s) => s.len(),
            Node::Internal(s) => s.len(),
        }
    }

    fn is_full(&self) -> bool {
        match self {
            Node::Leaf(s) => s.is_full(),
            Node::Internal(s) => s.is_full(),
        }
    }

    fn min_len(&self) -> usize {
        match self {
            Node::Leaf(_) => LEAF_MIN,
            Node::Internal(_) => INTERNAL_MIN,
        }
    }

    /// Recomputes this node's summary from its slots: O(fanout).
    fn summary(&self) -> Summary {
        match self {
            Node::Leaf(s) => {
                let mut sum = Summary {
                    min: s.first().map_or(0, T::start),
                    max: s.last().map_or(0, T::end),
                    gap: 0,
                    tag: 0,
                };
                let mut prev_end: Option<u64> = None;
                for e in s.iter() {
                    if let Some(pe) = prev_end {
                        sum.gap = sum.gap.max(e.start().saturating_sub(pe));
                    }
                    prev_end = Some(e.end());
                    sum.tag |= e.tag();
                }
                sum
            }
            Node::Internal(s) => {
                let mut sum = Summary {
                    min: s.first().map_or(0, |c| c.sum.min),
                    max: s.last().map_or(0, |c| c.sum.max),
                    gap: 0,
                    tag: 0,
                };
                let mut prev_max: Option<u64> = None;
                for c in s.iter() {
                    if let Some(pm) = prev_max {
                        sum.gap = sum.gap.max(c.sum.min.saturating_sub(pm));
                    }
                    prev_max = Some(c.sum.max);
                    sum.gap = sum.gap.max(c.sum.gap);
                    sum.tag |= c.sum.tag;
                }
                sum
            }
        }
    }

    /// Splits a full node in two halves, returning the right half.
    fn split(&mut self) -> Node<T> {
        match self {
            Node::Leaf(s) => {
                let at = s.len() / 2;
                Node::Leaf(s.split_off(at))
            }
            Node::Internal(s) => {
                let at = s.len() / 2;
                Node::Internal(s.split_off(at))
            }
        }
    }
}

fn child<T: RangeEntry>(node: Node<T>) -> Child<T> {
    Child {
        sum: node.summary(),
        node: Arc::new(node),
    }
}

/// A copy-on-write B-tree of non-overlapping ranges with gap tracking.
///
/// See the [module documentation](self) for the layout and invariants.
///
/// # Linux
/// Plays the role of `mm->mm_mt`, the maple tree of VMAs
/// (`lib/maple_tree.c`), with `MT_FLAGS_ALLOC_RANGE` gap tracking.
#[derive(Clone, Debug)]
pub struct RangeTree<T> {
    /// Root node; `None` when empty.
    root: Option<Arc<Node<T>>>,
    /// Number of entries.
    len: usize,
    /// Internal levels above the leaves (0: the root is a leaf).
    height: usize,
}

impl<T> Default for RangeTree<T> {
    fn default() -> Self {
        Self {
            root: None,
            len: 0,
            height: 0,
        }
    }
}

/// Free interval fit, highest address first: the highest `a` with
/// `[a, a + len) ⊆ [free_lo, free_hi) ∩ [low, high)`.
fn fit_top(free_lo: u64, free_hi: u64, low: u64, high: u64, len: u64) -> Option<u64> {
    let lo = free_lo.max(low);
    let hi = free_hi.min(high);
    (hi > lo && hi - lo >= len).then(|| hi - len)
}

/// Free interval fit, lowest address first.
fn fit_bottom(free_lo: u64, free_hi: u64, low: u64, high: u64, len: u64) -> Option<u64> {
    let lo = free_lo.max(low);
    let hi = free_hi.min(high);
    (hi > lo && hi - lo >= len).then_some(lo)
}

impl<T: RangeEntry> RangeTree<T> {
    /// An empty tree.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the tree holds no entry.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Internal levels above the leaves (0 when the root is a leaf).
    pub fn height(&self) -> usize {
        self.height
    }

    /// Builds a tree from entries sorted by start, in O(n), packing nodes
    /// evenly (as a bulk load, without per-entry inserts).
    ///
    /// # Errors
    /// `EINVAL` if the entries are unsorted, overlap, or one is empty
    /// (start >= end).
    ///
    /// # Linux
    /// No direct analogue (Linux's closest is `mas_expected_entries` bulk
    /// mode used by the pre-6.8 `dup_mmap`).
    pub fn from_sorted(entries: Vec<T>) -> Result<Self> {
        let mut prev_end = 0u64;
        for (i, e) in entries.iter().enumerate() {
            if e.start() >= e.end() || (i > 0 && e.start() < prev_end) {
                return Err(Errno::EINVAL);
            }
            prev_end = e.end();
        }
        let len = entries.len();
        if len == 0 {
            return Ok(Self::new());
        }
        // Leaves, evenly filled so that each holds >= LEAF_MIN (when > 1).
        let mut level: Vec<Child<T>> = Vec::new();
        let nleaves = len.div_ceil(LEAF_SLOTS);
        let mut it = entries.into_iter();
        for i in 0..nleaves {
            let take = len / nleaves + usize::from(i < len % nleaves);
            let slots: Slots<T, LEAF_SLOTS> = it.by_ref().take(take).collect();
            level.push(child(Node::Leaf(slots)));
        }
        let mut height = 0;
        while level.len() > 1 {
            let n = level.len();
            let nparents = n.div_ceil(INTERNAL_SLOTS);
            let mut it = level.into_iter();
            let mut next = Vec::with_capacity(nparents);
            for i in 0..nparents {
                let take = n / nparents + usize::from(i < n % nparents);
                let slots: Slots<Child<T>, INTERNAL_SLOTS> = it.by_ref().take(take).collect();
                next.push(child(Node::Internal(slots)));
            }
            level = next;
            height += 1;
        }
        let root = level.pop().map(|c| c.node);
        Ok(Self { root, len, height })
    }

    /// The first entry with `end > addr`: the entry containing `addr`, or
    /// else the next one above it.
    ///
    /// # Linux
    /// Mirrors `find_vma()` (`mt_find(&mm->mm_mt, &addr, ULONG_MAX)`).
    pub fn find(&self, addr: u64) -> Option<&T> {
        let mut node = self.root.as_deref()?;
        loop {
            match node {
                Node::Internal(kids) => {
                    let c = kids.iter().find(|c| c.sum.max > addr)?;
                    node = &c.node;
                }
                Node::Leaf(es) => return es.iter().find(|e| e.end() > addr),
            }
        }
    }

    /// The entry containing `addr`, if any.
    ///
    /// # Linux
    /// Mirrors `vma_lookup()`.
    pub fn lookup(&self, addr: u64) -> Option<&T> {
        self.find(addr).filter(|e| e.start() <= addr)
    }

    /// The last entry with `start < addr`.
    ///
    /// # Linux
    /// Mirrors the `prev` half of `find_vma_prev()` / `vma_prev()`.
    pub fn prev(&self, addr: u64) -> Option<&T> {
        let mut node = self.root.as_deref()?;
        loop {
            match node {
                Node::Internal(kids) => {
                    let c = kids.iter().rev().find(|c| c.sum.min < addr)?;
                    node = &c.node;
                }
                Node::Leaf(es) => return es.iter().rev().find(|e| e.start() < addr),
            }
        }
    }

    /// The first entry overlapping `[start, end)`.
    ///
    /// # Linux
    /// Mirrors `find_vma_intersection()`.
    pub fn find_intersection(&self, start: u64, end: u64) -> Option<&T> {
        self.find(start).filter(|e| e.start() < end)
    }

    /// Iterates over all entries in address order.
    pub fn iter(&self) -> Iter<'_, T> {
        self.iter_from(0)
    }

    /// Iterates in address order over the entries with `end > addr`.
    ///
    /// # Linux
    /// Mirrors `VMA_ITERATOR(vmi, mm, addr)` + `for_each_vma`.
    pub fn iter_from(&self, addr: u64) -> Iter<'_, T> {
        let mut it = Iter {
            stack: Vec::with_capacity(self.height),
            leaf: None,
        };
        let Some(mut node) = self.root.as_deref() else {
            return it;
        };
        loop {
            match node {
                Node::Internal(kids) => {
                    let Some(i) = kids.iter().position(|c| c.sum.max > addr) else {
                        it.stack.clear();
                        return it;
                    };
                    it.stack.push((kids, i));
                    node = &kids.at(i).node;
                }
                Node::Leaf(es) => {
                    let i = es.iter().position(|e| e.end() > addr).unwrap_or(es.len());
                    it.leaf = Some((es, i));
                    return it;
                }
            }
        }
    }

    /// Inserts `entry`.
    ///
    /// # Errors
    /// Gives `entry` back if it is empty (start >= end) or overlaps a
    /// stored entry; the tree is then unchanged.
    ///
    /// # Linux
    /// Mirrors `mas_store()` of a range into a NULL area (`vma_iter_store`).
    pub fn insert(&mut self, entry: T) -> core::result::Result<(), T> {
        if entry.start() >= entry.end()
            || self.find_intersection(entry.start(), entry.end()).is_some()
        {
            return Err(entry);
        }
        match self.root.as_mut() {
            None => {
                let mut s = Slots::new();
                s.push(entry);
                self.root = Some(Arc::new(Node::Leaf(s)));
            }
            Some(root) => {
                if root.is_full() {
                    // Grow a level: the old root becomes child 0 and is split.
                    let old = Arc::clone(root);
                    let sum = old.summary();
                    let mut kids = Slots::new();
                    kids.push(Child { sum, node: old });
                    *root = Arc::new(Node::Internal(kids));
                    if let Node::Internal(kids) = Arc::make_mut(root) {
                        split_child(kids, 0);
                    }
                    self.height += 1;
                }
                insert_nonfull(root, entry);
            }
        }
        self.len += 1;
        Ok(())
    }

    /// Removes and returns the entry starting exactly at `start`.
    ///
    /// Returns `None`, leaving the tree untouched (and unshared nodes
    /// uncopied), when no entry starts there.
    ///
    /// # Linux
    /// Mirrors `mas_store(NULL)` over one VMA (`vma_iter_clear`).
    pub fn remove(&mut self, start: u64) -> Option<T> {
        if self.lookup(start).is_none_or(|e| e.start() != start) {
            return None;
        }
        let root = self.root.as_mut()?;
        let removed = remove_rec(root, start);
        debug_assert!(removed.is_some());
        removed.as_ref()?;
        self.len -= 1;
        // Shrink the root.
        while let Some(root) = self.root.as_ref() {
            match &**root {
                Node::Internal(kids) if kids.len() == 1 => {
                    let only = Arc::clone(&kids.at(0).node);
                    self.root = Some(only);
                    self.height -= 1;
                }
                Node::Leaf(es) if es.len() == 0 => {
                    self.root = None;
                    self.height = 0;
                }
                _ => break,
            }
        }
        removed
    }

    /// Replaces the entry starting at `start` by `entry`, which must cover
    /// a range that overlaps no other entry. O(log n).
    ///
    /// # Errors
    /// Gives `entry` back (tree unchanged) if no entry starts at `start` or
    /// the new range overlaps a neighbour or is empty.
    pub fn replace(&mut self, start: u64, entry: T) -> core::result::Result<T, T> {
        let Some(old) = self.lookup(start).filter(|e| e.start() == start) else {
            return Err(entry);
        };
        let (os, oe) = (old.start(), old.end());
        if entry.start() >= entry.end() {
            return Err(entry);
        }
        // Overlap with anything but the old entry?
        let clash = self
            .iter_from(entry.start())
            .take_while(|e| e.start() < entry.end())
            .any(|e| e.start() != os || e.end() != oe);
        if clash {
            return Err(entry);
        }
        let old = self.remove(start);
        match (old, self.insert(entry)) {
            (Some(old), Ok(())) => Ok(old),
            // Unreachable given the checks above; restore and report.
            (Some(old), Err(entry)) => {
                let restored = self.insert(old);
                debug_assert!(restored.is_ok());
                Err(entry)
            }
            (None, Ok(())) | (None, Err(_)) => unreachable!("lookup found the entry"),
        }
    }

    /// The highest address `a` such that `[a, a + len)` lies in
    /// `[low, high)` and overlaps no entry.
    ///
    /// Returns `None` when `len == 0` or no such range exists.
    ///
    /// # Examples
    /// ```
    /// use taskcore::mm::{flags::PROT_READ, RangeTree, Vma};
    /// let mut t = RangeTree::new();
    /// t.insert(Vma::anon(0x1000, 0x2000, PROT_READ)).unwrap();
    /// t.insert(Vma::anon(0x5000, 0x6000, PROT_READ)).unwrap();
    /// // Highest 0x2000-byte hole below 0x8000: [0x6000, 0x8000).
    /// assert_eq!(t.gap_topdown(0x2000, 0, 0x8000), Some(0x6000));
    /// // Below 0x5000: [0x3000, 0x5000).
    /// assert_eq!(t.gap_topdown(0x2000, 0, 0x5000), Some(0x3000));
    /// assert_eq!(t.gap_bottomup(0x2000, 0x1000, 0x8000), Some(0x2000));
    /// ```
    ///
    /// # Linux
    /// Mirrors `mas_empty_area_rev(mas, low, high - 1, len)` as used by
    /// `unmapped_area_topdown()` (`vma_iter_area_highest`); the result is
    /// `min(gap_end, high) - len`.
    pub fn gap_topdown(&self, len: u64, low: u64, high: u64) -> Option<u64> {
        if len == 0 || high <= low || high - low < len {
            return None;
        }
        let Some(root) = self.root.as_deref() else {
            return Some(high - len);
        };
        let s = root.summary();
        fit_top(s.max, u64::MAX, low, high, len)
            .or_else(|| search_top(root, low, high, len))
            .or_else(|| fit_top(0, s.min, low, high, len))
    }

    /// The lowest address `a` such that `[a, a + len)` lies in
    /// `[low, high)` and overlaps no entry.
    ///
    /// # Linux
    /// Mirrors `mas_empty_area(mas, low, high - 1, len)` as used by
    /// `unmapped_area()` (`vma_iter_area_lowest`).
    pub fn gap_bottomup(&self, len: u64, low: u64, high: u64) -> Option<u64> {
        if len == 0 || high <= low || high - low < len {
            return None;
        }
        let Some(root) = self.root.as_deref() else {
            return Some(low);
        };
        let s = root.summary();
        fit_bottom(0, s.min, low, high, len)
            .or_else(|| search_bottom(root, low, high, len))
            .or_else(|| fit_bottom(s.max, u64::MAX, low, high, len))
    }

    /// Starts of the entries whose tag has a bit of `mask`, in address
    /// order. O(k log n) for k matches, thanks to the per-child tag OR.
    pub fn tagged(&self, mask: u64) -> Vec<u64> {
        let mut out = Vec::new();
        if let Some(root) = self.root.as_deref() {
            collect_tagged(root, mask, &mut out);
        }
        out
    }

    /// Whether some entry's tag has a bit of `mask`. O(1).
    pub fn any_tagged(&self, mask: u64) -> bool {
        self.root
            .as_deref()
            .is_some_and(|r| r.summary().tag & mask != 0)
    }

    /// Duplicates the tree by copying every node, depth first, pre-order,
    /// applying `f` to each entry: O(n), no search, no rebalancing.
    ///
    /// `budget`, when `Some(k)`, lets at most `k` nodes be allocated; the
    /// copy then fails with `ENOMEM` and everything allocated so far is
    /// freed (test-only failure injection, as `mt_set_non_kernel()` in the
    /// maple tree test suite).
    ///
    /// # Errors
    /// `ENOMEM` when the budget runs out. `self` is never modified.
    ///
    /// # Linux
    /// Mirrors `__mt_dup()` (`mas_dup_build()`: copy each node, allocate all
    /// children of a non-leaf at once) followed by `dup_mmap()`'s per-entry
    /// replacement, fused here into the leaf copy. On failure Linux marks
    /// the rest of the new tree with `XA_ZERO_ENTRY` and frees it at exit;
    /// here the partial copy is dropped at once.
    pub fn dup_bulk(&self, budget: Option<usize>, f: &mut dyn FnMut(&T) -> T) -> Result<Self> {
        let mut budget = budget;
        let root = match self.root.as_deref() {
            None => None,
            Some(r) => Some(Arc::new(deep_copy(r, &mut budget, f)?)),
        };
        Ok(Self {
            root,
            len: self.len,
            height: self.height,
        })
    }

    /// Number of nodes (O(n) walk; diagnostics and tests).
    pub fn node_count(&self) -> usize {
        let mut n = 0;
        self.for_each_node(&mut |_| n += 1);
        n
    }

    /// Number of this tree's nodes that are the very same allocation as a
    /// node of `other` (copy-on-write sharing; diagnostics and tests).
    #[doc(hidden)]
    pub fn shared_nodes(&self, other: &Self) -> usize {
        let mut mine = std::collections::HashSet::new();
        self.for_each_node(&mut |p| {
            mine.insert(p);
        });
        let mut n = 0;
        other.for_each_node(&mut |p| n += usize::from(mine.contains(&p)));
        n
    }

    /// Largest `Arc` strong count over the nodes (1 means nothing shared).
    #[doc(hidden)]
    pub fn max_node_refcount(&self) -> usize {
        let mut m = 0;
        if let Some(r) = &self.root {
            m = Arc::strong_count(r);
            max_refcount(r, &mut m);
        }
        m
    }

    fn for_each_node(&self, f: &mut dyn FnMut(*const ())) {
        fn walk<T>(n: &Arc<Node<T>>, f: &mut dyn FnMut(*const ())) {
            f(Arc::as_ptr(n).cast());
            if let Node::Internal(kids) = &**n {
                for c in kids.iter() {
                    walk(&c.node, f);
                }
            }
        }
        if let Some(r) = &self.root {
            walk(r, f);
        }
    }

    /// Asserts invariants 1-5 of the [module documentation](self).
    ///
    /// # Panics
    /// On a broken invariant (a bug in this module); tests call it after
    /// every operation.
    pub fn check_invariants(&self) {
        let Some(root) = self.root.as_deref() else {
            assert_eq!(self.len, 0, "empty tree with len");
            assert_eq!(self.height, 0);
            return;
        };
        if let Node::Internal(kids) = root {
            assert!(
                kids.len() >= 2,
                "internal root with {} children",
                kids.len()
            );
        }
        let mut count = 0;
        let mut last_end: Option<u64> = None;
        check_node(root, true, self.height, &mut count, &mut last_end);
        assert_eq!(count, self.len, "len mismatch");
    }
}

fn max_refcount<T>(n: &Node<T>, m: &mut usize) {
    if let Node::Internal(kids) = n {
        for c in kids.iter() {
            *m = (*m).max(Arc::strong_count(&c.node));
            max_refcount(&c.node, m);
        }
    }
}

fn check_node<T: RangeEntry>(
    n: &Node<T>,
    is_root: bool,
    depth: usize,
    count: &mut usize,
    last_end: &mut Option<u64>,
) {
    assert!(n.len() > 0, "empty node");
    if !is_root {
        assert!(
            n.len() >= n.min_len(),
            "underfull node: {} < {}",
            n.len(),
            n.min_len()
        );
    }
    match n {
        Node::Leaf(es) => {
            assert_eq!(depth, 0, "leaf at wrong depth");
            for e in es.iter() {
                assert!(e.start() < e.end(), "empty entry");
                if let Some(le) = *last_end {
                    assert!(e.start() >= le, "overlap or disorder at {:#x}", e.start());
                }
                *last_end = Some(e.end());
                *count += 1;
            }
        }
        Node::Internal(kids) => {
            assert!(depth > 0, "internal node at leaf depth");
            for c in kids.iter() {
                assert_eq!(c.sum, c.node.summary(), "stale summary");
                check_node(&c.node, false, depth - 1, count, last_end);
            }
        }
    }
}

/// Splits the full child `i` of `kids` into children `i` and `i + 1`.
fn split_child<T: RangeEntry>(kids: &mut Slots<Child<T>, INTERNAL_SLOTS>, i: usize) {
    let c = kids.at_mut(i);
    let left = Arc::make_mut(&mut c.node);
    let right = left.split();
    c.sum = left.summary();
    kids.insert(i + 1, child(right));
}

/// Index of the child whose range should receive an entry starting at
/// `start`: the last child with `min <= start`, or the first.
fn child_for<T>(kids: &Slots<Child<T>, INTERNAL_SLOTS>, start: u64) -> usize {
    kids.iter().rposition(|c| c.sum.min <= start).unwrap_or(0)
}

fn insert_nonfull<T: RangeEntry>(node: &mut Arc<Node<T>>, entry: T) {
    match Arc::make_mut(node) {
        Node::Leaf(es) => {
            let pos = es
                .iter()
                .position(|e| e.start() > entry.start())
                .unwrap_or(es.len());
            es.insert(pos, entry);
        }
        Node::Internal(kids) => {
            let mut i = child_for(kids, entry.start());
            if kids.at(i).node.is_full() {
                split_child(kids, i);
                if entry.start() >= kids.at(i + 1).sum.min {
                    i += 1;
                }
            }
            let c = kids.at_mut(i);
            insert_nonfull(&mut c.node, entry);
            c.sum = c.node.summary();
        }
    }
}

fn remove_rec<T: RangeEntry>(node: &mut Arc<Node<T>>, start: u64) -> Option<T> {
    match Arc::make_mut(node) {
        Node::Leaf(es) => {
            let pos = es.iter().position(|e| e.start() == start)?;
            Some(es.remove(pos))
        }
        Node::Internal(kids) => {
            let i = child_for(kids, start);
            let removed = remove_rec(&mut kids.at_mut(i).node, start)?;
            let c = kids.at_mut(i);
            c.sum = c.node.summary();
            if c.node.len() < c.node.min_len() {
                rebalance(kids, i);
            }
            Some(removed)
        }
    }
}

/// Restores the minimum occupancy of child `i` by borrowing one slot from a
/// sibling or merging with it (B-tree rebalancing, as `mas_rebalance`).
fn rebalance<T: RangeEntry>(kids: &mut Slots<Child<T>, INTERNAL_SLOTS>, i: usize) {
    let has_left = i > 0;
    let has_right = i + 1 < kids.len();
    if has_left && kids.at(i - 1).node.len() > kids.at(i - 1).node.min_len() {
        move_slot(kids, i - 1, i, true);
    } else if has_right && kids.at(i + 1).node.len() > kids.at(i + 1).node.min_len() {
        move_slot(kids, i + 1, i, false);
    } else if has_left {
        merge_children(kids, i - 1);
    } else if has_right {
        merge_children(kids, i);
    }
}

/// Moves one slot from child `from` to its neighbour `to`: the last slot
/// of a left sibling (`from_left`) or the first slot of a right sibling.
fn move_slot<T: RangeEntry>(
    kids: &mut Slots<Child<T>, INTERNAL_SLOTS>,
    from: usize,
    to: usize,
    from_left: bool,
) {
    let src = Arc::make_mut(&mut kids.at_mut(from).node);
    enum Moved<T> {
        Entry(T),
        Kid(Child<T>),
    }
    let moved = match src {
        Node::Leaf(es) => Moved::Entry(if from_left {
            es.remove(es.len() - 1)
        } else {
            es.remove(0)
        }),
        Node::Internal(ks) => Moved::Kid(if from_left {
            ks.remove(ks.len() - 1)
        } else {
            ks.remove(0)
        }),
    };
    let sum = src.summary();
    kids.at_mut(from).sum = sum;
    let dst = Arc::make_mut(&mut kids.at_mut(to).node);
    match (dst, moved) {
        (Node::Leaf(es), Moved::Entry(e)) => {
            if from_left {
                es.insert(0, e)
            } else {
                es.push(e)
            }
        }
        (Node::Internal(ks), Moved::Kid(k)) => {
            if from_left {
                ks.insert(0, k)
            } else {
                ks.push(k)
            }
        }
        _ => unreachable!("siblings at different depths"),
    }
    let c = kids.at_mut(to);
    c.sum = c.node.summary();
}

/// Merges child `i + 1` into child `i`.
fn merge_children<T: RangeEntry>(kids: &mut Slots<Child<T>, INTERNAL_SLOTS>, i: usize) {
    let right = kids.remove(i + 1);
    let mut right = Arc::unwrap_or_clone(right.node);
    let left = Arc::make_mut(&mut kids.at_mut(i).node);
    match (left, &mut right) {
        (Node::Leaf(a), Node::Leaf(b)) => a.append(b),
        (Node::Internal(a), Node::Internal(b)) => a.append(b),
        _ => unreachable!("siblings at different depths"),
    }
    let c = kids.at_mut(i);
    c.sum = c.node.summary();
}

fn search_top<T: RangeEntry>(node: &Node<T>, low: u64, high: u64, len: u64) -> Option<u64> {
    match node {
        Node::Leaf(es) => {
            for j in (1..es.len()).rev() {
                let (a, b) = (es.at(j - 1).end(), es.at(j).start());
                if b <= low {
                    return None;
                }
                if let Some(x) = fit_top(a, b, low, high, len) {
                    return Some(x);
                }
            }
            None
        }
        Node::Internal(kids) => {
            for i in (0..kids.len()).rev() {
                let c = kids.at(i);
                if c.sum.max <= low {
                    return None;
                }
                if c.sum.gap >= len && c.sum.min < high {
                    if let Some(x) = search_top(&c.node, low, high, len) {
                        return Some(x);
                    }
                }
                if i > 0 {
                    let b = c.sum.min;
                    if b <= low {
                        return None;
                    }
                    if let Some(x) = fit_top(kids.at(i - 1).sum.max, b, low, high, len) {
                        return Some(x);
                    }
                }
            }
            None
        }
    }
}

fn search_bottom<T: RangeEntry>(node: &Node<T>, low: u64, high: u64, len: u64) -> Option<u64> {
    match node {
        Node::Leaf(es) => {
            for j in 1..es.len() {
                let (a, b) = (es.at(j - 1).end(), es.at(j).start());
                if a >= high {
                    return None;
                }
                if let Some(x) = fit_bottom(a, b, low, high, len) {
                    return Some(x);
                }
            }
            None
        }
        Node::Internal(kids) => {
            for i in 0..kids.len() {
                let c = kids.at(i);
                if i > 0 {
                    let a = kids.at(i - 1).sum.max;
                    if a >= high {
                        return None;
                    }
                    if let Some(x) = fit_bottom(a, c.sum.min, low, high, len) {
                        return Some(x);
                    }
                }
                if c.sum.min >= high {
                    return None;
                }
                if c.sum.gap >= len && c.sum.max > low {
                    if let Some(x) = search_bottom(&c.node, low, high, len) {
                        return Some(x);
                    }
                }
            }
            None
        }
    }
}

fn collect_tagged<T: RangeEntry>(node: &Node<T>, mask: u64, out: &mut Vec<u64>) {
    match node {
        Node::Leaf(es) => out.extend(es.iter().filter(|e| e.tag() & mask != 0).map(T::start)),
        Node::Internal(kids) => {
            for c in kids.iter().filter(|c| c.sum.tag & mask != 0) {
                collect_tagged(&c.node, mask, out);
            }
        }
    }
}

fn take_budget(budget: &mut Option<usize>) -> Result<()> {
    match budget {
        Some(0) => Err(Errno::ENOMEM),
        Some(b) => {
            *b -= 1;
            Ok(())
        }
        None => Ok(()),
    }
}

/// Copies `node` and, recursively, its children, pre-order: the node's own
/// allocation is charged before its children's, as `mas_dup_build()` does.
fn deep_copy<T: RangeEntry>(
    node: &Node<T>,
    budget: &mut Option<usize>,
    f: &mut dyn FnMut(&T) -> T,
) -> Result<Node<T>> {
    take_budget(budget)?;
    Ok(match node {
        Node::Leaf(es) => Node::Leaf(es.iter().map(&mut *f).collect()),
        Node::Internal(kids) => {
            let mut new = Slots::new();
            for c in kids.iter() {
                let n = deep_copy(&c.node, budget, f)?;
                // Recomputed: `f` may change tags (e.g. clear VM_LOCKED).
                new.push(child(n));
            }
            Node::Internal(new)
        }
    })
}

/// In-order iterator over a [`RangeTree`].
#[derive(Debug)]
pub struct Iter<'a, T> {
    /// Internal nodes on the path to the current leaf, with the index of
    /// the child being visited.
    stack: Vec<(&'a Slots<Child<T>, INTERNAL_SLOTS>, usize)>,
    /// Current leaf and the index of the next entry to yield.
    leaf: Option<(&'a Slots<T, LEAF_SLOTS>, usize)>,
}

impl<'a, T: RangeEntry> Iterator for Iter<'a, T> {
    type Item = &'a T;

    fn next(&mut self) -> Option<&'a T> {
        loop {
            let (es, i) = self.leaf.as_mut()?;
            if let Some(e) = es.get(*i) {
                *i += 1;
                return Some(e);
            }
            // Leaf exhausted: climb to the next unvisited child.
            self.leaf = None;
            loop {
                let (kids, i) = self.stack.last_mut()?;
                *i += 1;
                if *i < kids.len() {
                    break;
                }
                self.stack.pop();
            }
            // Descend leftmost.
            let (kids, i) = *self.stack.last()?;
            let mut node: &'a Node<T> = &kids.at(i).node;
            loop {
                match node {
                    Node::Internal(ks) => {
                        self.stack.push((ks, 0));
                        node = &ks.at(0).node;
                    }
                    Node::Leaf(es) => {
                        self.leaf = Some((es, 0));
                        break;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Debug, PartialEq, Eq)]
    struct R(u64, u64);

    impl RangeEntry for R {
        fn start(&self) -> u64 {
            self.0
        }
        fn end(&self) -> u64 {
            self.1
        }
        fn tag(&self) -> u64 {
            u64::from(self.0.is_multiple_of(7))
        }
    }

    /// Deterministic xorshift for reproducible random workloads.
    fn rng(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    fn model_gap_top(m: &[R], len: u64, low: u64, high: u64) -> Option<u64> {
        let mut bounds = vec![(0u64, 0u64)];
        bounds.extend(m.iter().map(|r| (r.0, r.1)));
        bounds.push((u64::MAX, u64::MAX));
        (0..bounds.len() - 1)
            .rev()
            .find_map(|j| fit_top(bounds[j].1, bounds[j + 1].0, low, high, len))
    }

    fn model_gap_bottom(m: &[R], len: u64, low: u64, high: u64) -> Option<u64> {
        let mut bounds = vec![(0u64, 0u64)];
        bounds.extend(m.iter().map(|r| (r.0, r.1)));
        bounds.push((u64::MAX, u64::MAX));
        (0..bounds.len() - 1).find_map(|j| fit_bottom(bounds[j].1, bounds[j + 1].0, low, high, len))
    }

    #[test]
    fn random_ops_match_model() {
        let mut seed = 0x9e37_79b9_7f4a_7c15;
        let mut t: RangeTree<R> = RangeTree::new();
        let mut m: Vec<R> = Vec::new();
        for step in 0..6000 {
            let op = rng(&mut seed) % 10;
            let s = rng(&mut seed) % 4000;
            let l = 1 + rng(&mut seed) % 8;
            if op < 6 {
                let r = R(s, s + l);
                let overlaps = m.iter().any(|x| x.0 < r.1 && r.0 < x.1);
                assert_eq!(t.insert(r.clone()).is_ok(), !overlaps, "step {step}");
                if !overlaps {
                    let pos = m.partition_point(|x| x.0 < r.0);
                    m.insert(pos, r);
                }
            } else if let Some(idx) = (!m.is_empty()).then(|| (s as usize) % m.len()) {
                let start = if op == 9 { s } else { m[idx].0 };
                let want = m.iter().position(|x| x.0 == start).map(|p| m.remove(p));
                assert_eq!(t.remove(start), want, "step {step}");
            }
            t.check_invariants();
            assert_eq!(t.len(), m.len());
            let addr = rng(&mut seed) % 4100;
            assert_eq!(t.find(addr), m.iter().find(|x| x.1 > addr));
            assert_eq!(t.prev(addr), m.iter().rev().find(|x| x.0 < addr));
            let (lo, hi) = (rng(&mut seed) % 4100, rng(&mut seed) % 4100);
            let gl = 1 + rng(&mut seed) % 12;
            assert_eq!(
                t.gap_topdown(gl, lo, hi),
                model_gap_top(&m, gl, lo, hi),
                "step {step}"
            );
            assert_eq!(
                t.gap_bottomup(gl, lo, hi),
                model_gap_bottom(&m, gl, lo, hi),
                "step {step}"
            );
            if step % 97 == 0 {
                assert!(t.iter().eq(m.iter()));
                assert!(t.iter_from(addr).eq(m.iter().filter(|x| x.1 > addr)));
                let tags: Vec<u64> = m.iter().filter(|x| x.0 % 7 == 0).map(|x| x.0).collect();
                assert_eq!(t.tagged(1), tags);
            }
        }
        assert!(
            t.height() >= 2,
            "workload too small to exercise internal nodes"
        );
    }

    #[test]
    fn from_sorted_builds_valid_trees() {
        for n in [0usize, 1, 15, 16, 17, 100, 161, 1000, 16 * 10 * 10 + 1] {
            let v: Vec<R> = (0..n as u64).map(|i| R(i * 10, i * 10 + 5)).collect();
            let t = RangeTree::from_sorted(v.clone()).unwrap();
            t.check_invariants();
            assert!(t.iter().eq(v.iter()));
        }
        assert_eq!(
            RangeTree::from_sorted(vec![R(0, 10), R(5, 20)]).unwrap_err(),
            Errno::EINVAL
        );
        assert_eq!(
            RangeTree::from_sorted(vec![R(3, 3)]).unwrap_err(),
            Errno::EINVAL
        );
    }

    #[test]
    fn clone_is_copy_on_write() {
        let v: Vec<R> = (0..5000u64).map(|i| R(i * 10, i * 10 + 5)).collect();
        let mut a = RangeTree::from_sorted(v).unwrap();
        let b = a.clone();
        let nodes = a.node_count();
        assert_eq!(a.shared_nodes(&b), nodes);
        assert!(a.insert(R(7, 9)).is_ok());
        a.check_invariants();
        // Only the root-to-leaf path was copied.
        assert_eq!(a.shared_nodes(&b), nodes - (a.height() + 1));
        assert!(b.find(7).is_some_and(|r| r.0 == 10));
        assert_eq!(a.find(7), Some(&R(7, 9)));
    }

    #[test]
    fn dup_bulk_copies_or_fails_cleanly() {
        let v: Vec<R> = (0..3000u64).map(|i| R(i * 10, i * 10 + 5)).collect();
        let t = RangeTree::from_sorted(v).unwrap();
        let d = t.dup_bulk(None, &mut |e| e.clone()).unwrap();
        d.check_invariants();
        assert!(d.iter().eq(t.iter()));
        assert_eq!(d.shared_nodes(&t), 0);
        let n = t.node_count();
        for budget in [0, 1, n / 2, n - 1] {
            assert_eq!(
                t.dup_bulk(Some(budget), &mut |e| e.clone()).unwrap_err(),
                Errno::ENOMEM
            );
            assert_eq!(t.max_node_refcount(), 1);
        }
        assert!(t.dup_bulk(Some(n), &mut |e| e.clone()).is_ok());
    }
}
