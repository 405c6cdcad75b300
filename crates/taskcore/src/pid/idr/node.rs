//! The nodes of the [`Idr`](super::Idr) radix tree: a generic interior
//! node over its child type, the leaf, the per-level spare pool, and the
//! searches along the free, used and tag bitmaps.

use core::mem;

use super::geometry::{EMPTY, IDR_TAGS, MAP_MASK, MAP_SHIFT, MAP_SIZE};

/// Sets `bit` in `tags[t]` for every bit `t` of the mask `which`.
#[inline(always)]
fn set_tag_bits(tags: &mut [u64; IDR_TAGS], which: u64, bit: u64) {
    let mut w = which;
    while w != 0 {
        tags[w.trailing_zeros() as usize] |= bit;
        w &= w - 1;
    }
}

/// The first set bit of `mask` at or after bit `from`, if any.
///
/// `from` may be 64 (past the end), which finds nothing.
#[inline]
pub(super) fn next_bit(mask: u64, from: u32) -> Option<u32> {
    if from >= u64::BITS {
        return None;
    }
    let m = mask & (!0u64 << from);
    if m == 0 {
        None
    } else {
        Some(m.trailing_zeros())
    }
}

/// Which bitmap a "next id at or after" search follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Search {
    /// Free ids (`IDR_FREE`).
    Free,
    /// Used ids (interior `present`, leaf `!free`).
    Used,
    /// Ids carrying the tag (index `< IDR_TAGS`).
    Tag(usize),
}

/// Heap node counts, kept up to date on every allocation and free.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Counts {
    /// Heap-allocated nodes of every level (the inline root excluded).
    pub(super) nodes: usize,
    /// Of which leaves.
    pub(super) leaves: usize,
}

/// The heap-node bookkeeping an insert or a remove updates: the counts of
/// nodes in the tree, and one spare node per heap level, kept when a node
/// empties and reused by the next allocation at that level (as Linux's
/// per-CPU `radix_tree_preload` pool keeps nodes between an insert and the
/// next). A pid that is alone in its leaf (cyclic allocation with few live
/// pids) would otherwise cost a `malloc` and a `free` of each empty node on
/// every fork and reap.
#[derive(Default)]
pub(super) struct Pool {
    pub(super) counts: Counts,
    pub(super) leaf: Option<Box<Leaf>>,
    pub(super) l1: Option<Box<Interior<Leaf>>>,
    pub(super) l2: Option<Box<Interior<Interior<Leaf>>>>,
}

impl Clone for Pool {
    /// Spares are a cache: a copy starts without them.
    fn clone(&self) -> Self {
        Pool {
            counts: self.counts,
            ..Pool::default()
        }
    }
}

impl Pool {
    /// Bytes held by the spare nodes.
    pub(super) fn spare_bytes(&self) -> usize {
        self.leaf.as_ref().map_or(0, |_| mem::size_of::<Leaf>())
            + self
                .l1
                .as_ref()
                .map_or(0, |_| mem::size_of::<Interior<Leaf>>())
            + self
                .l2
                .as_ref()
                .map_or(0, |_| mem::size_of::<Interior<Interior<Leaf>>>())
    }
}

/// The node types below the root, each with its spare slot in [`Pool`].
pub(super) trait Spare: Node + 'static {
    fn spare(pool: &mut Pool) -> &mut Option<Box<Self>>;
}

impl Spare for Leaf {
    #[inline]
    fn spare(pool: &mut Pool) -> &mut Option<Box<Self>> {
        &mut pool.leaf
    }
}

impl Spare for Interior<Leaf> {
    #[inline]
    fn spare(pool: &mut Pool) -> &mut Option<Box<Self>> {
        &mut pool.l1
    }
}

impl Spare for Interior<Interior<Leaf>> {
    #[inline]
    fn spare(pool: &mut Pool) -> &mut Option<Box<Self>> {
        &mut pool.l2
    }
}

/// What [`Node::check`] counts while walking the tree.
#[derive(Debug, Default)]
pub(super) struct CheckCounts {
    /// Heap nodes seen and leaves among them.
    pub(super) counts: Counts,
    /// Used ids seen.
    pub(super) ids: usize,
}

/// The operations every level implements; `off` is always an offset inside
/// the node's span (`off < 1 << SPAN_SHIFT`).
pub(super) trait Node: Default + Clone {
    /// log2 of the number of ids the node spans: 6 for a leaf, plus 6 per
    /// level above.
    const SPAN_SHIFT: u32;

    /// Whether this is the bottom level (for node accounting).
    const IS_LEAF: bool;

    /// The node's free bitmap; nonzero iff at least one id of the span is free.
    fn free_mask(&self) -> u64;

    /// Bit `s` set iff at least one used id lies below slot `s`; zero iff
    /// the node holds no id.
    fn used_mask(&self) -> u64;

    /// The node's bitmap for `tag` (`tag < IDR_TAGS`).
    fn tag_mask(&self, tag: usize) -> u64;

    /// The bitmap a search follows.
    #[inline]
    fn search_mask(&self, search: Search) -> u64 {
        match search {
            Search::Free => self.free_mask(),
            Search::Used => self.used_mask(),
            Search::Tag(t) => self.tag_mask(t),
        }
    }

    /// The value stored at `off`, if used.
    fn lookup(&self, off: u32) -> Option<u32>;

    /// The used value slot at `off`, for in-place replacement.
    fn slot_mut(&mut self, off: u32) -> Option<&mut u32>;

    /// Stores `value` at the free id `off`, allocating nodes on the way.
    /// Stores `value` at the free offset `off` with the tags of bit mask
    /// `tags` (bit `t`: tag `t`) set, in one walk down.
    fn insert(&mut self, off: u32, value: u32, tags: u64, pool: &mut Pool);

    /// As [`Node::insert`] if `off` is free, in the same single walk down;
    /// false, with nothing changed, if it is used: the walk that checks
    /// the id is the walk that stores it.
    fn try_insert(&mut self, off: u32, value: u32, tags: u64, pool: &mut Pool) -> bool;

    /// Empties `off` and its tags, freeing nodes left empty below this one.
    fn remove(&mut self, off: u32, pool: &mut Pool) -> Option<u32>;

    /// Sets (`on`) or clears `tag` on the used id `off`; false if `off` is free.
    fn set_tag(&mut self, off: u32, tag: usize, on: bool) -> bool;

    /// Whether the id `off` is used and carries `tag`.
    fn get_tag(&self, off: u32, tag: usize) -> bool;

    /// The lowest offset `>= off` whose bit is set in the `search` bitmaps,
    /// with its value (`EMPTY` for a free id).
    fn find_next(&self, off: u32, search: Search) -> Option<(u32, u32)>;

    /// The leaf holding offset `off`, if allocated.
    fn leaf_at(&self, off: u32) -> Option<&Leaf>;

    /// Asserts the invariants of this subtree, whose first id is `base`.
    fn check(&self, base: u32, out: &mut CheckCounts);
}

/// Level 0: 64 values and their bitmaps.
#[derive(Clone)]
pub(super) struct Leaf {
    /// The value of each id; `EMPTY` when free.
    pub(super) values: [u32; MAP_SIZE],
    /// Bit `s` set iff `values[s] == EMPTY` (`IDR_FREE`).
    pub(super) free: u64,
    /// Bit `s` of `tags[t]` set iff id `s` is used and tagged `t`.
    pub(super) tags: [u64; IDR_TAGS],
}

impl Default for Leaf {
    fn default() -> Self {
        Leaf {
            values: [EMPTY; MAP_SIZE],
            free: !0,
            tags: [0; IDR_TAGS],
        }
    }
}

impl Node for Leaf {
    const SPAN_SHIFT: u32 = MAP_SHIFT;
    const IS_LEAF: bool = true;

    #[inline]
    fn free_mask(&self) -> u64 {
        self.free
    }

    #[inline]
    fn used_mask(&self) -> u64 {
        !self.free
    }

    #[inline]
    fn tag_mask(&self, tag: usize) -> u64 {
        self.tags[tag]
    }

    #[inline]
    fn lookup(&self, off: u32) -> Option<u32> {
        let v = self.values[off as usize];
        (v != EMPTY).then_some(v)
    }

    #[inline]
    fn slot_mut(&mut self, off: u32) -> Option<&mut u32> {
        let v = &mut self.values[off as usize];
        (*v != EMPTY).then_some(v)
    }

    #[inline(always)]
    fn insert(&mut self, off: u32, value: u32, tags: u64, _pool: &mut Pool) {
        debug_assert!(self.free & (1 << off) != 0, "insert into a used slot");
        debug_assert_ne!(value, EMPTY);
        self.values[off as usize] = value;
        self.free &= !(1 << off);
        set_tag_bits(&mut self.tags, tags, 1 << off);
    }

    #[inline]
    fn try_insert(&mut self, off: u32, value: u32, tags: u64, pool: &mut Pool) -> bool {
        if self.free & (1 << off) == 0 {
            return false;
        }
        self.insert(off, value, tags, pool);
        true
    }

    #[inline(always)]
    fn remove(&mut self, off: u32, _pool: &mut Pool) -> Option<u32> {
        let bit = 1u64 << off;
        if self.free & bit != 0 {
            return None;
        }
        let v = mem::replace(&mut self.values[off as usize], EMPTY);
        self.free |= bit;
        for t in &mut self.tags {
            *t &= !bit;
        }
        Some(v)
    }

    fn set_tag(&mut self, off: u32, tag: usize, on: bool) -> bool {
        let bit = 1u64 << off;
        if self.free & bit != 0 {
            return false;
        }
        if on {
            self.tags[tag] |= bit;
        } else {
            self.tags[tag] &= !bit;
        }
        true
    }

    #[inline]
    fn get_tag(&self, off: u32, tag: usize) -> bool {
        self.tags[tag] & (1 << off) != 0
    }

    #[inline]
    fn find_next(&self, off: u32, search: Search) -> Option<(u32, u32)> {
        let s = next_bit(self.search_mask(search), off)?;
        Some((s, self.values[s as usize]))
    }

    #[inline]
    fn leaf_at(&self, _off: u32) -> Option<&Leaf> {
        Some(self)
    }

    fn check(&self, base: u32, out: &mut CheckCounts) {
        for s in 0..MAP_SIZE {
            let bit = 1u64 << s;
            let id = base + s as u32;
            assert_eq!(
                self.free & bit != 0,
                self.values[s] == EMPTY,
                "leaf free bit disagrees with value at id {id}"
            );
        }
        for (t, tags) in self.tags.iter().enumerate() {
            assert_eq!(
                tags & self.free,
                0,
                "tag {t} set on a free id in the leaf at {base}"
            );
        }
        out.ids += self.used_mask().count_ones() as usize;
    }
}

/// Levels 1 to 3: 64 optional children and their bitmaps.
#[derive(Clone)]
pub(super) struct Interior<C> {
    /// Child per 64th of the span; `None` when no id below it is used.
    pub(super) slots: [Option<Box<C>>; MAP_SIZE],
    /// Bit `s` set iff `slots[s]` is `None` or has a free id (`IDR_FREE`).
    pub(super) free: u64,
    /// Bit `s` set iff `slots[s]` is `Some`.
    pub(super) present: u64,
    /// Bit `s` of `tags[t]` set iff some id below slot `s` is tagged `t`.
    pub(super) tags: [u64; IDR_TAGS],
}

impl<C: Node> Interior<C> {
    /// Mask of the offset bits handed down to a child.
    const CHILD_MASK: u32 = (1 << C::SPAN_SHIFT) - 1;

    /// An interior node with no children: everything free, nothing tagged.
    pub(super) const fn new() -> Self {
        Interior {
            slots: [const { None }; MAP_SIZE],
            free: !0,
            present: 0,
            tags: [0; IDR_TAGS],
        }
    }

    /// The slot of this node that `off` falls in.
    #[inline]
    pub(super) fn slot_of(off: u32) -> usize {
        ((off >> C::SPAN_SHIFT) & MAP_MASK) as usize
    }
}

impl<C: Node> Default for Interior<C> {
    fn default() -> Self {
        Self::new()
    }
}

impl<C: Spare> Node for Interior<C> {
    const SPAN_SHIFT: u32 = C::SPAN_SHIFT + MAP_SHIFT;
    const IS_LEAF: bool = false;

    #[inline]
    fn free_mask(&self) -> u64 {
        self.free
    }

    #[inline]
    fn used_mask(&self) -> u64 {
        self.present
    }

    #[inline]
    fn tag_mask(&self, tag: usize) -> u64 {
        self.tags[tag]
    }

    #[inline]
    fn lookup(&self, off: u32) -> Option<u32> {
        self.slots[Self::slot_of(off)]
            .as_ref()?
            .lookup(off & Self::CHILD_MASK)
    }

    #[inline]
    fn slot_mut(&mut self, off: u32) -> Option<&mut u32> {
        self.slots[Self::slot_of(off)]
            .as_mut()?
            .slot_mut(off & Self::CHILD_MASK)
    }

    #[inline(always)]
    fn insert(&mut self, off: u32, value: u32, tags: u64, pool: &mut Pool) {
        let s = Self::slot_of(off);
        let bit = 1u64 << s;
        let child = self.slots[s].get_or_insert_with(|| {
            // Lazily allocated, like radix_tree_node_alloc() in
            // __radix_tree_create(): the spare first (it is empty).
            pool.counts.nodes += 1;
            pool.counts.leaves += usize::from(C::IS_LEAF);
            C::spare(pool).take().unwrap_or_default()
        });
        child.insert(off & Self::CHILD_MASK, value, tags, pool);
        self.present |= bit;
        set_tag_bits(&mut self.tags, tags, bit);
        // Inserting never frees anything, so the bit can only go down.
        if child.free_mask() == 0 {
            self.free &= !bit;
        }
    }

    #[inline(always)]
    fn try_insert(&mut self, off: u32, value: u32, tags: u64, pool: &mut Pool) -> bool {
        let s = Self::slot_of(off);
        let bit = 1u64 << s;
        let Some(child) = self.slots[s].as_mut() else {
            // No node below: every id of the slot is free.
            self.insert(off, value, tags, pool);
            return true;
        };
        // A full subtree has no free id to give; else the child decides,
        // and changes nothing when the id is used.
        if self.free & bit == 0 || !child.try_insert(off & Self::CHILD_MASK, value, tags, pool) {
            return false;
        }
        self.present |= bit;
        set_tag_bits(&mut self.tags, tags, bit);
        if child.free_mask() == 0 {
            self.free &= !bit;
        }
        true
    }

    #[inline(always)]
    fn remove(&mut self, off: u32, pool: &mut Pool) -> Option<u32> {
        let s = Self::slot_of(off);
        let bit = 1u64 << s;
        let child = self.slots[s].as_mut()?;
        let v = child.remove(off & Self::CHILD_MASK, pool)?;
        // The removed id is free now, whether or not the child survives.
        self.free |= bit;
        for (t, tags) in self.tags.iter_mut().enumerate() {
            if child.tag_mask(t) == 0 {
                *tags &= !bit;
            }
        }
        if child.used_mask() == 0 {
            // Like radix_tree_delete_item() -> delete_node(): an empty
            // node is freed, and the slot reads as wholly free again.
            debug_assert!((0..IDR_TAGS).all(|t| child.tag_mask(t) == 0));
            // The empty node equals a new one (every id free, no tag):
            // keep it as the level's spare.
            let empty = self.slots[s].take();
            let spare = C::spare(pool);
            if spare.is_none() {
                *spare = empty;
            }
            self.present &= !bit;
            pool.counts.nodes -= 1;
            pool.counts.leaves -= usize::from(C::IS_LEAF);
        }
        Some(v)
    }

    fn set_tag(&mut self, off: u32, tag: usize, on: bool) -> bool {
        let s = Self::slot_of(off);
        let bit = 1u64 << s;
        let Some(child) = self.slots[s].as_mut() else {
            return false;
        };
        if !child.set_tag(off & Self::CHILD_MASK, tag, on) {
            return false;
        }
        // Propagate upwards as radix_tree_tag_set()/node_tag_clear() do.
        if child.tag_mask(tag) != 0 {
            self.tags[tag] |= bit;
        } else {
            self.tags[tag] &= !bit;
        }
        true
    }

    #[inline]
    fn get_tag(&self, off: u32, tag: usize) -> bool {
        let s = Self::slot_of(off);
        if self.tags[tag] & (1 << s) == 0 {
            return false;
        }
        match &self.slots[s] {
            Some(child) => child.get_tag(off & Self::CHILD_MASK, tag),
            None => false,
        }
    }

    #[inline]
    fn leaf_at(&self, off: u32) -> Option<&Leaf> {
        self.slots[Self::slot_of(off)]
            .as_ref()?
            .leaf_at(off & Self::CHILD_MASK)
    }

    fn find_next(&self, off: u32, search: Search) -> Option<(u32, u32)> {
        let mask = self.search_mask(search);
        let mut slot = off >> C::SPAN_SHIFT;
        let mut sub = off & Self::CHILD_MASK;
        // At most two rounds: `start`'s own slot, whose match (if its bit is
        // set) may lie before `sub`, then the next set bit, whose subtree
        // holds a match at offset >= 0 by the bitmap invariant.
        loop {
            let s = next_bit(mask, slot)?;
            if s != slot {
                sub = 0;
            }
            match &self.slots[s as usize] {
                None => {
                    // Only the free bitmap has bits for missing children:
                    // the whole slot is free, `sub` included.
                    debug_assert_eq!(search, Search::Free);
                    return Some(((s << C::SPAN_SHIFT) | sub, EMPTY));
                }
                Some(child) => {
                    if let Some((o, v)) = child.find_next(sub, search) {
                        return Some(((s << C::SPAN_SHIFT) | o, v));
                    }
                }
            }
            debug_assert_ne!(sub, 0, "a set bit must lead to a match");
            slot = s + 1;
            sub = 0;
        }
    }

    fn check(&self, base: u32, out: &mut CheckCounts) {
        for s in 0..MAP_SIZE {
            let bit = 1u64 << s;
            let child_base = base + ((s as u32) << C::SPAN_SHIFT);
            let child = self.slots[s].as_deref();
            assert_eq!(
                self.present & bit != 0,
                child.is_some(),
                "present bit wrong for the slot at {child_base}, shift {}",
                C::SPAN_SHIFT
            );
            assert_eq!(
                self.free & bit != 0,
                child.is_none_or(|c| c.free_mask() != 0),
                "free bit wrong for the slot at {child_base}, shift {}",
                C::SPAN_SHIFT
            );
            for t in 0..IDR_TAGS {
                assert_eq!(
                    self.tags[t] & bit != 0,
                    child.is_some_and(|c| c.tag_mask(t) != 0),
                    "tag {t} bit wrong for the slot at {child_base}, shift {}",
                    C::SPAN_SHIFT
                );
            }
            if let Some(c) = child {
                assert_ne!(
                    c.used_mask(),
                    0,
                    "empty node left allocated at {child_base}, shift {}",
                    C::SPAN_SHIFT
                );
                out.counts.nodes += 1;
                out.counts.leaves += usize::from(C::IS_LEAF);
                c.check(child_base, out);
            }
        }
    }
}
