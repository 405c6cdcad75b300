//! A 64-way radix tree mapping ids to `u32` values, with a free bitmap and
//! two tag bitmaps per node: Linux's IDR, sized for pid numbers.
//!
//! # Design
//!
//! [`Idr`] maps an id in `0..IDR_MAX` (`IDR_MAX = 1 << 24`, four times
//! `PID_MAX_LIMIT` = 4,194,304) to a `u32` value, typically an index into the
//! caller's own slab. The tree has a **fixed height of 4**: 64^4 = 2^24, so
//! every id splits into four 6-bit slot numbers and every operation walks the
//! same four levels. A tree whose height grows with the largest id (as Linux's
//! does) would save two interior nodes (1 KiB) for tables whose ids stay under
//! 4096, and cost a root-extension and root-shrink path; the fixed height keeps
//! the code branch-free on height and lets each level be its own Rust type.
//!
//! ```text
//!  id (24 bits):  | 23..18 | 17..12 | 11..6 |  5..0 |
//!                 |  slot  |  slot  |  slot | slot  |
//!                 | level 3| level 2|level 1|level 0|
//!
//!  Idr
//!   root: Interior<L2>  (level 3, shift 18, inline in Idr, never freed)
//!    slots[s3] --> Box<Interior<L1>>  (level 2, shift 12)
//!                   slots[s2] --> Box<Interior<Leaf>>  (level 1, shift 6)
//!                                  slots[s1] --> Box<Leaf>  (level 0)
//!                                                 values[s0]: u32
//!
//!  Interior<C>, 544 bytes             Leaf, 280 bytes
//!  +------------------------------+   +-------------------+
//!  | slots: [Option<Box<C>>; 64]  |   | values: [u32; 64] |  u32::MAX = empty
//!  | free: u64                    |   | free: u64         |
//!  | present: u64                 |   | tags: [u64; 2]    |
//!  | tags: [u64; 2]               |   +-------------------+
//!  +------------------------------+
//! ```
//!
//! # Vocabulary
//!
//! - **slot**: one of the 64 entries of a node; slot `s` of a node at level
//!   `l` covers ids whose bits `6l+5..6l` equal `s`.
//! - **shift**: `6 * level`, the number of id bits below a node's slots
//!   (`RADIX_TREE_MAP_SHIFT` steps in Linux); `(id >> shift) & 63` is the slot.
//! - **span**: the ids one node covers, `64 << shift` of them.
//! - **free bitmap** (`free`): bit `s` set iff at least one id below slot `s`
//!   is free. A missing child counts as wholly free, so its bit is set. In a
//!   leaf, bit `s` set iff `values[s]` is empty. This is Linux's `IDR_FREE`
//!   tag.
//! - **present bitmap** (`present`, interior only): bit `s` set iff
//!   `slots[s]` is `Some`, which (nodes being freed when empty) means at least
//!   one used id lies below it. A leaf's used map is `!free`.
//! - **tag bitmap** (`tags[t]`, `t < IDR_TAGS`): bit `s` set iff at least one
//!   id tagged `t` lies below slot `s` (in a leaf: id `s` itself is tagged).
//!   Only used ids carry tags.
//!
//! # Complexity
//!
//! Every operation visits at most 4 nodes on the way down, i.e.
//! O(log64 IDR_MAX), whatever the fill level:
//!
//! - `get`, `insert`, `replace`, `remove`, `set_tag`, `clear_tag`, `get_tag`:
//!   one root-to-leaf walk; bitmaps are fixed on the way back up.
//! - `find_free`, `next_used`, `next_tagged`: at most two walks. The first
//!   follows `start`; at each level it takes the first set bit at or after
//!   `start`'s slot (one `trailing_zeros` on a masked word). If the subtree at
//!   `start`'s own slot holds no match at or after `start` (its bit says "a
//!   match somewhere below", which may lie before `start`), the search moves
//!   to the next set bit of that level, whose subtree is guaranteed to hold a
//!   match, and descends along lowest set bits: at most 4 more nodes. So
//!   allocating the last free pid of a full 4M table costs the same as in an
//!   empty one, and the next thread-group leader is found without visiting
//!   the untagged (thread) ids in between.
//! - Memory: nodes are allocated on first use and freed when their last id
//!   is removed, except that each level keeps one emptied node as a spare
//!   for its next allocation (like Linux's `radix_tree_preload` pool), so
//!   that a pid alone in its leaf does not cost a `malloc` and a `free` per
//!   fork and reap. At dense fill one 280-byte leaf holds 64 ids and one
//!   544-byte level-1 node covers 4096 ids: about 4.5 bytes per id (see
//!   [`Idr::node_bytes`] and the `dense_fill_bytes_per_id` test). A lone id
//!   costs 3 heap nodes (1,368 bytes).
//! - Measured by `benches/idr.rs` (release build, one core of the development
//!   machine): finding and refilling the one free pid of a full 4M table,
//!   cyclic search included, takes about 28 ns, less than the same ops on an
//!   empty table (about 86 ns, which allocate and free 3 nodes); listing 100
//!   tagged leaders among 100k pids takes about 1.5 us against 1.2 ms for a
//!   walk over every pid.
//!
//! # Linux
//!
//! Follows `lib/idr.c` (`idr_alloc_u32`, `idr_alloc_cyclic`, `idr_find`,
//! `idr_replace`, `idr_remove`, `idr_get_next`) on top of `lib/radix-tree.c`
//! (`idr_get_free`, which descends along the `IDR_FREE` tag with
//! `radix_tree_find_next_bit`; `radix_tree_tag_set`/`_clear`/`_get` and
//! `radix_tree_gang_lookup_tag` for tags). The two tags are those freed up in
//! an IDR tree by the "proc: improve root readdir latency with many threads"
//! series (seed 003: "radix-tree: propagate all tags in idr tree"), used to
//! mark thread-group-leader pids so the `/proc` root listing visits only them.
//!
//! Divergences:
//! - Fixed height 4 instead of a height grown by `radix_tree_extend` and
//!   shrunk by `radix_tree_shrink`; ids are limited to `0..2^24`.
//! - Values are `u32`, not pointers; `u32::MAX` is the internal empty marker
//!   and is refused (as Linux refuses internal-node pointers with `EINVAL`).
//! - Searching and allocating are split: [`Idr::find_free`] only finds, and the
//!   caller then calls [`Idr::insert`]; `idr_alloc_cyclic`'s cursor belongs to
//!   the caller (`find_free(cursor, pid_max)`, then on wrap
//!   `find_free(RESERVED_PIDS, cursor)`).
//! - Inserting a busy id is `EEXIST` (as `radix_tree_insert`), not the
//!   `ENOSPC` of `idr_alloc(id, id + 1)`.
//! - No RCU and no locking: the owner serialises access (`&mut self`).
//! - Interior nodes keep a `present` bitmap instead of a `count`, so the
//!   next used child is one `trailing_zeros` away.

use core::fmt;
use core::mem;

use crate::{Errno, Result};

/// One past the largest id an [`Idr`] can hold: `1 << 24` = 16,777,216.
///
/// # Linux
/// Covers `PID_MAX_LIMIT` (4,194,304 on 64-bit, `include/linux/threads.h`);
/// Linux's IDR reaches `INT_MAX` by growing its height instead.
pub const IDR_MAX: u32 = 1 << IDR_SHIFT;

/// Number of tags each id can carry; valid tags are `0..IDR_TAGS`.
///
/// # Linux
/// Linux's radix tree has `RADIX_TREE_MAX_TAGS` = 3, and an IDR spends tag 0
/// on `IDR_FREE`; the other two are the ones seed 003 makes usable.
pub const IDR_TAGS: usize = 2;

/// Number of id bits the tree covers: 4 levels of [`MAP_SHIFT`] bits.
const IDR_SHIFT: u32 = 4 * MAP_SHIFT;

/// Bits of the id consumed per level (`RADIX_TREE_MAP_SHIFT`).
const MAP_SHIFT: u32 = 6;

/// Slots per node (`RADIX_TREE_MAP_SIZE`).
const MAP_SIZE: usize = 1 << MAP_SHIFT;

/// Mask extracting a slot number from a shifted id (`RADIX_TREE_MAP_MASK`).
const MAP_MASK: u32 = (1 << MAP_SHIFT) - 1;

/// The value of an empty leaf slot; callers may not store it.
const EMPTY: u32 = u32::MAX;

/// The level-3 node type held inline in [`Idr`].
type Root = Interior<Interior<Interior<Leaf>>>;

const _: () = assert!(<Root as Node>::SPAN_SHIFT == IDR_SHIFT);

/// The first set bit of `mask` at or after bit `from`, if any.
///
/// `from` may be 64 (past the end), which finds nothing.
#[inline]
fn next_bit(mask: u64, from: u32) -> Option<u32> {
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
enum Search {
    /// Free ids (`IDR_FREE`).
    Free,
    /// Used ids (interior `present`, leaf `!free`).
    Used,
    /// Ids carrying the tag (index `< IDR_TAGS`).
    Tag(usize),
}

/// Heap node counts, kept up to date on every allocation and free.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counts {
    /// Heap-allocated nodes of every level (the inline root excluded).
    nodes: usize,
    /// Of which leaves.
    leaves: usize,
}

/// The heap-node bookkeeping an insert or a remove updates: the counts of
/// nodes in the tree, and one spare node per heap level, kept when a node
/// empties and reused by the next allocation at that level (as Linux's
/// per-CPU `radix_tree_preload` pool keeps nodes between an insert and the
/// next). A pid that is alone in its leaf (cyclic allocation with few live
/// pids) would otherwise cost a `malloc` and a `free` of each empty node on
/// every fork and reap.
#[derive(Default)]
struct Pool {
    counts: Counts,
    leaf: Option<Box<Leaf>>,
    l1: Option<Box<Interior<Leaf>>>,
    l2: Option<Box<Interior<Interior<Leaf>>>>,
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
    fn spare_bytes(&self) -> usize {
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
trait Spare: Node + 'static {
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
struct CheckCounts {
    /// Heap nodes seen and leaves among them.
    counts: Counts,
    /// Used ids seen.
    ids: usize,
}

/// The operations every level implements; `off` is always an offset inside
/// the node's span (`off < 1 << SPAN_SHIFT`).
trait Node: Default + Clone {
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
    fn insert(&mut self, off: u32, value: u32, pool: &mut Pool);

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
struct Leaf {
    /// The value of each id; `EMPTY` when free.
    values: [u32; MAP_SIZE],
    /// Bit `s` set iff `values[s] == EMPTY` (`IDR_FREE`).
    free: u64,
    /// Bit `s` of `tags[t]` set iff id `s` is used and tagged `t`.
    tags: [u64; IDR_TAGS],
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

    fn insert(&mut self, off: u32, value: u32, _pool: &mut Pool) {
        debug_assert!(self.free & (1 << off) != 0, "insert into a used slot");
        debug_assert_ne!(value, EMPTY);
        self.values[off as usize] = value;
        self.free &= !(1 << off);
    }

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
struct Interior<C> {
    /// Child per 64th of the span; `None` when no id below it is used.
    slots: [Option<Box<C>>; MAP_SIZE],
    /// Bit `s` set iff `slots[s]` is `None` or has a free id (`IDR_FREE`).
    free: u64,
    /// Bit `s` set iff `slots[s]` is `Some`.
    present: u64,
    /// Bit `s` of `tags[t]` set iff some id below slot `s` is tagged `t`.
    tags: [u64; IDR_TAGS],
}

impl<C: Node> Interior<C> {
    /// Mask of the offset bits handed down to a child.
    const CHILD_MASK: u32 = (1 << C::SPAN_SHIFT) - 1;

    /// An interior node with no children: everything free, nothing tagged.
    const fn new() -> Self {
        Interior {
            slots: [const { None }; MAP_SIZE],
            free: !0,
            present: 0,
            tags: [0; IDR_TAGS],
        }
    }

    /// The slot of this node that `off` falls in.
    #[inline]
    fn slot_of(off: u32) -> usize {
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

    fn insert(&mut self, off: u32, value: u32, pool: &mut Pool) {
        let s = Self::slot_of(off);
        let bit = 1u64 << s;
        let child = self.slots[s].get_or_insert_with(|| {
            // Lazily allocated, like radix_tree_node_alloc() in
            // __radix_tree_create(): the spare first (it is empty).
            pool.counts.nodes += 1;
            pool.counts.leaves += usize::from(C::IS_LEAF);
            C::spare(pool).take().unwrap_or_default()
        });
        child.insert(off & Self::CHILD_MASK, value, pool);
        self.present |= bit;
        // Inserting never frees anything, so the bit can only go down.
        if child.free_mask() == 0 {
            self.free &= !bit;
        }
    }

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

/// A map from ids in `0..IDR_MAX` to `u32` values, with per-id tags and
/// O(log64 N) search for the next free, used or tagged id.
///
/// Values are opaque to the tree (callers store an index into their own
/// slab); `u32::MAX` is reserved. See the [module docs](self) for the layout.
///
/// # Invariants
///
/// 1. In a leaf, `free` bit `s` is set iff `values[s] == u32::MAX`, and no tag
///    bit is set on a free id.
/// 2. In an interior node, `present` bit `s` is set iff `slots[s]` is `Some`;
///    `free` bit `s` is set iff the child is `None` or its `free` is nonzero;
///    `tags[t]` bit `s` is set iff the child is `Some` and its `tags[t]` is
///    nonzero.
/// 3. No heap node is empty: a node whose last id is removed is freed.
/// 4. The cached `len` and node counts equal what a full walk finds.
///
/// # Locking
/// None inside; `&mut self` serialises writers. Linux allows RCU readers
/// concurrent with one writer; this type does not.
///
/// # Linux
/// Mirrors `struct idr` (`include/linux/idr.h`) over the radix tree of
/// `lib/radix-tree.c`, with fixed height 4 and `u32` values; see the module
/// docs for every divergence.
///
/// # Examples
/// ```
/// use taskcore::pid::Idr;
///
/// let mut idr = Idr::new();
/// idr.insert(1, 10)?;
/// idr.insert(2, 20)?;
/// idr.set_tag(1, 0)?;
/// assert_eq!(idr.get(2), Some(20));
/// assert_eq!(idr.find_free(1, 100), Some(3));
/// assert_eq!(idr.next_tagged(0, 0), Some((1, 10)));
/// # Ok::<(), taskcore::Errno>(())
/// ```
#[derive(Clone, Default)]
pub struct Idr {
    /// Level 3, inline: never allocated nor freed, not counted in `counts`.
    root: Root,
    /// Number of used ids.
    len: usize,
    /// Heap nodes currently in the tree, and the spare nodes.
    pool: Pool,
}

impl fmt::Debug for Idr {
    /// Prints the sizes only: a full dump of 4M ids is never wanted.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Idr")
            .field("len", &self.len)
            .field("nodes", &self.pool.counts.nodes)
            .field("leaves", &self.pool.counts.leaves)
            .finish_non_exhaustive()
    }
}

impl Idr {
    /// An empty map: no ids, no heap nodes.
    ///
    /// # Linux
    /// Mirrors `idr_init()` / `DEFINE_IDR()` (`include/linux/idr.h`).
    ///
    /// # Examples
    /// ```
    /// let idr = taskcore::pid::Idr::new();
    /// assert!(idr.is_empty());
    /// assert_eq!(idr.node_count(), 0);
    /// ```
    pub const fn new() -> Idr {
        Idr {
            root: Interior::new(),
            len: 0,
            pool: Pool {
                counts: Counts {
                    nodes: 0,
                    leaves: 0,
                },
                leaf: None,
                l1: None,
                l2: None,
            },
        }
    }

    /// The value stored for `id`, or `None` if `id` is free or `>= IDR_MAX`.
    ///
    /// # Linux
    /// Mirrors `idr_find()` (`lib/idr.c`), without RCU.
    pub fn get(&self, id: u32) -> Option<u32> {
        if id >= IDR_MAX {
            return None;
        }
        self.root.lookup(id)
    }

    /// Whether `id` is used.
    ///
    /// # Linux
    /// `idr_find() != NULL`.
    pub fn contains(&self, id: u32) -> bool {
        self.get(id).is_some()
    }

    /// Stores `value` for the free id `id`, untagged.
    ///
    /// Allocates at most 3 nodes. On error nothing changes.
    ///
    /// # Errors
    /// - `EINVAL`: `id >= IDR_MAX`, or `value == u32::MAX` (the reserved
    ///   empty marker).
    /// - `EEXIST`: `id` is already used.
    ///
    /// # Linux
    /// Mirrors `radix_tree_insert()` (`lib/radix-tree.c`), which reports
    /// `EEXIST` for a busy index; `idr_alloc(id, id + 1)` would say `ENOSPC`.
    /// `EINVAL` for the reserved value matches `idr_alloc_u32()` refusing
    /// internal-node pointers.
    ///
    /// # Examples
    /// ```
    /// use taskcore::{pid::Idr, Errno};
    ///
    /// let mut idr = Idr::new();
    /// assert_eq!(idr.insert(300, 7), Ok(()));
    /// assert_eq!(idr.insert(300, 8), Err(Errno::EEXIST));
    /// assert_eq!(idr.insert(300, u32::MAX), Err(Errno::EINVAL));
    /// ```
    pub fn insert(&mut self, id: u32, value: u32) -> Result<()> {
        if id >= IDR_MAX || value == EMPTY {
            return Err(Errno::EINVAL);
        }
        // Check first so that a busy id leaves no freshly allocated node.
        if self.root.lookup(id).is_some() {
            return Err(Errno::EEXIST);
        }
        self.root.insert(id, value, &mut self.pool);
        self.len += 1;
        Ok(())
    }

    /// Replaces the value of the used id `id`, returning the old value; tags
    /// are kept.
    ///
    /// # Errors
    /// - `EINVAL`: `value == u32::MAX`.
    /// - `ENOENT`: `id` is free (or `>= IDR_MAX`).
    ///
    /// # Linux
    /// Mirrors `idr_replace()` (`lib/idr.c`): `EINVAL` for an internal-node
    /// pointer, checked first, then `ENOENT` for a free id.
    pub fn replace(&mut self, id: u32, value: u32) -> Result<u32> {
        if value == EMPTY {
            return Err(Errno::EINVAL);
        }
        if id >= IDR_MAX {
            return Err(Errno::ENOENT);
        }
        let slot = self.root.slot_mut(id).ok_or(Errno::ENOENT)?;
        Ok(mem::replace(slot, value))
    }

    /// Frees `id` and clears its tags, returning its value; `None` if it was
    /// free. Nodes left empty are freed.
    ///
    /// # Linux
    /// Mirrors `idr_remove()` (`lib/idr.c`) -> `radix_tree_delete_item()`,
    /// which also clears the entry's tags and sets `IDR_FREE` up the path.
    pub fn remove(&mut self, id: u32) -> Option<u32> {
        if id >= IDR_MAX {
            return None;
        }
        let v = self.root.remove(id, &mut self.pool)?;
        self.len -= 1;
        Some(v)
    }

    /// The lowest free id in `start..end`, or `None` if all are used.
    ///
    /// `end` is clamped to [`IDR_MAX`]; an empty range finds nothing.
    /// Cyclic pid allocation is `find_free(cursor, pid_max)`, then on wrap
    /// `find_free(RESERVED_PIDS, cursor)`. At most 8 node visits at any fill.
    ///
    /// # Linux
    /// Mirrors the search of `idr_get_free()` (`lib/radix-tree.c`) as used by
    /// `idr_alloc_u32()`/`idr_alloc_cyclic()` (`lib/idr.c`); allocation is
    /// left to [`Idr::insert`].
    ///
    /// # Examples
    /// ```
    /// use taskcore::pid::Idr;
    ///
    /// let mut idr = Idr::new();
    /// for id in 300..400 {
    ///     idr.insert(id, id)?;
    /// }
    /// assert_eq!(idr.find_free(300, 32768), Some(400));
    /// assert_eq!(idr.find_free(300, 400), None);
    /// # Ok::<(), taskcore::Errno>(())
    /// ```
    pub fn find_free(&self, start: u32, end: u32) -> Option<u32> {
        let end = end.min(IDR_MAX);
        if start >= end {
            return None;
        }
        let (id, _) = self.root.find_next(start, Search::Free)?;
        (id < end).then_some(id)
    }

    /// The lowest used id `>= start`, with its value.
    ///
    /// # Linux
    /// Mirrors `idr_get_next()` (`lib/idr.c`), which is also how
    /// `find_ge_pid()` (`kernel/pid.c`) walks pids.
    pub fn next_used(&self, start: u32) -> Option<(u32, u32)> {
        if start >= IDR_MAX {
            return None;
        }
        self.root.find_next(start, Search::Used)
    }

    /// Sets `tag` on the used id `id` (idempotent).
    ///
    /// # Errors
    /// - `EINVAL`: `tag >= IDR_TAGS`.
    /// - `ENOENT`: `id` is free (or `>= IDR_MAX`).
    ///
    /// # Linux
    /// Mirrors `radix_tree_tag_set()` (`lib/radix-tree.c`), with tags
    /// propagated in an IDR tree as in seed 003; Linux `BUG()`s on a missing
    /// entry where this returns `ENOENT`.
    ///
    /// # Examples
    /// ```
    /// use taskcore::{pid::Idr, Errno};
    ///
    /// let mut idr = Idr::new();
    /// idr.insert(5, 0)?;
    /// idr.set_tag(5, 1)?;
    /// assert!(idr.get_tag(5, 1));
    /// assert_eq!(idr.set_tag(6, 1), Err(Errno::ENOENT));
    /// assert_eq!(idr.set_tag(5, 2), Err(Errno::EINVAL));
    /// # Ok::<(), taskcore::Errno>(())
    /// ```
    pub fn set_tag(&mut self, id: u32, tag: usize) -> Result<()> {
        self.change_tag(id, tag, true)
    }

    /// Clears `tag` on the used id `id` (idempotent).
    ///
    /// # Errors
    /// - `EINVAL`: `tag >= IDR_TAGS`.
    /// - `ENOENT`: `id` is free (or `>= IDR_MAX`).
    ///
    /// # Linux
    /// Mirrors `radix_tree_tag_clear()` (`lib/radix-tree.c`), which clears
    /// the bit up the path while no sibling keeps it set.
    pub fn clear_tag(&mut self, id: u32, tag: usize) -> Result<()> {
        self.change_tag(id, tag, false)
    }

    /// Common body of [`Idr::set_tag`] and [`Idr::clear_tag`].
    fn change_tag(&mut self, id: u32, tag: usize, on: bool) -> Result<()> {
        if tag >= IDR_TAGS {
            return Err(Errno::EINVAL);
        }
        if id >= IDR_MAX || !self.root.set_tag(id, tag, on) {
            return Err(Errno::ENOENT);
        }
        Ok(())
    }

    /// Whether `id` is used and carries `tag`; false for a bad tag or id.
    ///
    /// # Linux
    /// Mirrors `radix_tree_tag_get()` (`lib/radix-tree.c`).
    pub fn get_tag(&self, id: u32, tag: usize) -> bool {
        tag < IDR_TAGS && id < IDR_MAX && self.root.get_tag(id, tag)
    }

    /// The lowest id `>= start` carrying `tag`, with its value; `None` if
    /// there is none or `tag >= IDR_TAGS`.
    ///
    /// Costs at most 8 node visits however many untagged ids lie between.
    ///
    /// # Linux
    /// Mirrors `radix_tree_gang_lookup_tag(.., 1, tag)` as used by seed 003's
    /// `next_tgid()` (`fs/proc/base.c`) to list thread-group leaders only.
    ///
    /// # Examples
    /// ```
    /// use taskcore::pid::Idr;
    ///
    /// let mut idr = Idr::new();
    /// for id in 1..=1000 {
    ///     idr.insert(id, id)?;
    /// }
    /// idr.set_tag(1, 0)?;
    /// idr.set_tag(1000, 0)?;
    /// assert_eq!(idr.next_tagged(2, 0), Some((1000, 1000)));
    /// # Ok::<(), taskcore::Errno>(())
    /// ```
    pub fn next_tagged(&self, start: u32, tag: usize) -> Option<(u32, u32)> {
        if tag >= IDR_TAGS || start >= IDR_MAX {
            return None;
        }
        self.root.find_next(start, Search::Tag(tag))
    }

    /// Number of used ids.
    ///
    /// # Linux
    /// No Linux analogue (the IDR keeps no count).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no id is used.
    ///
    /// # Linux
    /// Mirrors `idr_is_empty()` (`include/linux/idr.h`).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Frees every id and every heap node.
    ///
    /// # Linux
    /// Mirrors `idr_destroy()` (`lib/idr.c`), leaving the map reusable.
    pub fn clear(&mut self) {
        *self = Idr::new();
    }

    /// Number of heap-allocated nodes in the tree (interior and leaf; the
    /// root, held inline, is not counted, nor are the at most three spare
    /// nodes kept for reuse). Zero for an empty map.
    ///
    /// # Linux
    /// No Linux analogue; for memory accounting in benchmarks.
    pub fn node_count(&self) -> usize {
        self.pool.counts.nodes
    }

    /// Bytes held in heap nodes: leaves times 280 plus interior nodes times
    /// 544, spare nodes included (at most one per level, 1,368 bytes),
    /// allocator overhead excluded (`size_of::<Idr>()` covers the root).
    ///
    /// # Linux
    /// No Linux analogue; for memory accounting in benchmarks.
    pub fn node_bytes(&self) -> usize {
        let interior = self.pool.counts.nodes - self.pool.counts.leaves;
        self.pool.counts.leaves * mem::size_of::<Leaf>()
            + interior * mem::size_of::<Interior<Leaf>>()
            + self.pool.spare_bytes()
    }

    /// Iterates over `(id, value)` in increasing id order.
    ///
    /// Each step is one [`Idr::next_used`] call (at most 8 node visits).
    ///
    /// # Linux
    /// Mirrors `idr_for_each_entry()` (`include/linux/idr.h`).
    ///
    /// # Examples
    /// ```
    /// use taskcore::pid::Idr;
    ///
    /// let mut idr = Idr::new();
    /// idr.insert(4096, 1)?;
    /// idr.insert(3, 2)?;
    /// assert_eq!(idr.iter().collect::<Vec<_>>(), [(3, 2), (4096, 1)]);
    /// # Ok::<(), taskcore::Errno>(())
    /// ```
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            idr: self,
            next: 0,
            tag: None,
        }
    }

    /// Iterates over the `(id, value)` pairs carrying `tag`, in id order;
    /// empty for `tag >= IDR_TAGS`.
    ///
    /// # Linux
    /// A loop of `radix_tree_gang_lookup_tag()`, as seed 003's `next_tgid()`.
    pub fn iter_tagged(&self, tag: usize) -> Iter<'_> {
        Iter {
            idr: self,
            next: if tag < IDR_TAGS { 0 } else { IDR_MAX },
            tag: Some(tag),
        }
    }

    /// Iterates over the `(id, value)` pairs carrying `tag` with `id >=
    /// start`, in id order; empty for `tag >= IDR_TAGS`.
    ///
    /// Unlike repeated [`Idr::next_tagged`] calls, it keeps its place in the
    /// current leaf: each leaf holding a tagged id is reached by one
    /// [`Idr::next_tagged`] walk (at most 8 node visits), and the ids
    /// within it cost one bit scan each. Listing `k` tagged ids costs
    /// O(k) bit scans plus O(leaves holding them) walks, however many
    /// untagged ids lie between.
    ///
    /// # Linux
    /// `radix_tree_for_each_tagged()` (`include/linux/radix-tree.h`), whose
    /// iterator also walks a node's tag bitmap before descending again.
    ///
    /// # Examples
    /// ```
    /// use taskcore::pid::Idr;
    ///
    /// let mut idr = Idr::new();
    /// for id in [3, 5, 70, 9000] {
    ///     idr.insert(id, id * 10)?;
    ///     idr.set_tag(id, 1)?;
    /// }
    /// idr.insert(71, 0)?;
    /// let got: Vec<_> = idr.iter_tagged_from(4, 1).collect();
    /// assert_eq!(got, [(5, 50), (70, 700), (9000, 90000)]);
    /// # Ok::<(), taskcore::Errno>(())
    /// ```
    pub fn iter_tagged_from(&self, start: u32, tag: usize) -> IterTaggedFrom<'_> {
        IterTaggedFrom {
            idr: self,
            tag,
            next: if tag < IDR_TAGS { start } else { IDR_MAX },
            leaf: None,
            base: 0,
            mask: 0,
        }
    }

    /// Asserts every invariant listed on [`Idr`] with a full walk.
    ///
    /// Test hook for this crate's property tests; it panics only if the tree
    /// is corrupt, which is a bug here and never the caller's doing.
    ///
    /// # Linux
    /// No Linux analogue (compare `radix_tree_verify` in the kernel's
    /// user-space radix-tree test suite).
    #[doc(hidden)]
    pub fn check_invariants(&self) {
        let mut out = CheckCounts::default();
        self.root.check(0, &mut out);
        assert_eq!(out.ids, self.len, "cached len disagrees with the tree");
        assert_eq!(out.counts, self.pool.counts, "cached node counts disagree");
    }
}

/// Iterator over the used (or tagged) ids of an [`Idr`], in id order.
///
/// Yields `(id, value)`; created by [`Idr::iter`] and [`Idr::iter_tagged`].
///
/// # Linux
/// Mirrors `idr_for_each_entry()` / a `radix_tree_for_each_tagged()` loop.
#[derive(Clone, Debug)]
pub struct Iter<'a> {
    /// The map walked.
    idr: &'a Idr,
    /// The next id to look at; `IDR_MAX` once exhausted.
    next: u32,
    /// `Some(tag)` to yield only ids carrying `tag`.
    tag: Option<usize>,
}

impl Iterator for Iter<'_> {
    type Item = (u32, u32);

    fn next(&mut self) -> Option<(u32, u32)> {
        let found = match self.tag {
            None => self.idr.next_used(self.next),
            Some(tag) => self.idr.next_tagged(self.next, tag),
        };
        match found {
            Some((id, v)) => {
                // id < IDR_MAX, so this never overflows.
                self.next = id + 1;
                Some((id, v))
            }
            None => {
                self.next = IDR_MAX;
                None
            }
        }
    }
}

impl core::iter::FusedIterator for Iter<'_> {}

/// Iterator of [`Idr::iter_tagged_from`]: tagged ids in order, one leaf
/// at a time.
#[derive(Clone)]
pub struct IterTaggedFrom<'a> {
    /// The map walked.
    idr: &'a Idr,
    /// The tag followed (`< IDR_TAGS` unless exhausted from the start).
    tag: usize,
    /// The first id not yet covered by `mask`; `IDR_MAX` once exhausted.
    next: u32,
    /// The current leaf, whose tagged ids `mask` still lists.
    leaf: Option<&'a Leaf>,
    /// First id of the current leaf.
    base: u32,
    /// Bit `s` set iff id `base + s` is tagged and not yet returned.
    mask: u64,
}

impl fmt::Debug for IterTaggedFrom<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IterTaggedFrom")
            .field("tag", &self.tag)
            .field("next", &self.next)
            .field("base", &self.base)
            .field("mask", &self.mask)
            .finish()
    }
}

impl Iterator for IterTaggedFrom<'_> {
    type Item = (u32, u32);

    #[inline]
    fn next(&mut self) -> Option<(u32, u32)> {
        loop {
            if let Some(leaf) = self.leaf {
                if self.mask != 0 {
                    let s = self.mask.trailing_zeros();
                    self.mask &= self.mask - 1;
                    return Some((self.base + s, leaf.values[s as usize]));
                }
            }
            // The current leaf is done: one walk to the next tagged id.
            let Some((id, _)) = self.idr.next_tagged(self.next, self.tag) else {
                self.next = IDR_MAX;
                self.leaf = None;
                return None;
            };
            let base = id & !MAP_MASK;
            let leaf = self.idr.root.leaf_at(base);
            debug_assert!(leaf.is_some(), "a tagged id lies in an allocated leaf");
            self.leaf = leaf;
            self.base = base;
            self.mask = leaf.map_or(0, |l| l.tags[self.tag]) & (!0u64 << (id - base));
            // Ids below `base + 64` are covered by `mask` from now on.
            self.next = base.saturating_add(MAP_SIZE as u32);
        }
    }
}

impl core::iter::FusedIterator for IterTaggedFrom<'_> {}

impl<'a> IntoIterator for &'a Idr {
    type Item = (u32, u32);
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ids at and around every 64^k slot boundary.
    fn edge_ids() -> Vec<u32> {
        let mut ids = vec![0, 1, 62, 63, 64, 65, 4095, 4096, 4097];
        ids.extend([(1 << 18) - 1, 1 << 18, (1 << 18) + 1]);
        ids.extend([IDR_MAX - 65, IDR_MAX - 64, IDR_MAX - 2, IDR_MAX - 1]);
        ids
    }

    #[test]
    fn node_sizes_match_the_design_block() {
        assert_eq!(mem::size_of::<Leaf>(), 280);
        assert_eq!(mem::size_of::<Interior<Leaf>>(), 544);
        assert_eq!(mem::size_of::<Root>(), 544);
        assert_eq!(mem::size_of::<Option<Box<Leaf>>>(), 8);
    }

    #[test]
    fn next_bit_masks_below_from() {
        assert_eq!(next_bit(0b1010, 0), Some(1));
        assert_eq!(next_bit(0b1010, 2), Some(3));
        assert_eq!(next_bit(0b1010, 4), None);
        assert_eq!(next_bit(1 << 63, 63), Some(63));
        assert_eq!(next_bit(!0, 64), None);
    }

    #[test]
    fn edge_ids_insert_get_remove() {
        let mut idr = Idr::new();
        let ids = edge_ids();
        for (i, &id) in ids.iter().enumerate() {
            idr.insert(id, i as u32).unwrap();
            idr.check_invariants();
        }
        assert_eq!(idr.len(), ids.len());
        for (i, &id) in ids.iter().enumerate() {
            assert_eq!(idr.get(id), Some(i as u32), "id {id}");
            assert_eq!(idr.insert(id, 0), Err(Errno::EEXIST));
        }
        let listed: Vec<u32> = idr.iter().map(|(id, _)| id).collect();
        assert_eq!(listed, ids);
        for &id in &ids {
            assert!(idr.remove(id).is_some());
            assert_eq!(idr.get(id), None);
            assert_eq!(idr.remove(id), None);
            idr.check_invariants();
        }
        assert!(idr.is_empty());
        assert_eq!(idr.node_count(), 0);
    }

    #[test]
    fn bad_arguments_change_nothing() {
        let mut idr = Idr::new();
        idr.insert(7, 70).unwrap();
        idr.set_tag(7, 1).unwrap();
        let before: Vec<_> = idr.iter().collect();
        assert_eq!(idr.insert(IDR_MAX, 1), Err(Errno::EINVAL));
        assert_eq!(idr.insert(u32::MAX, 1), Err(Errno::EINVAL));
        assert_eq!(idr.insert(8, u32::MAX), Err(Errno::EINVAL));
        assert_eq!(idr.insert(7, 1), Err(Errno::EEXIST));
        assert_eq!(idr.replace(7, u32::MAX), Err(Errno::EINVAL));
        assert_eq!(idr.replace(8, 1), Err(Errno::ENOENT));
        assert_eq!(idr.replace(IDR_MAX, 1), Err(Errno::ENOENT));
        assert_eq!(idr.set_tag(7, IDR_TAGS), Err(Errno::EINVAL));
        assert_eq!(idr.set_tag(8, 0), Err(Errno::ENOENT));
        assert_eq!(idr.clear_tag(IDR_MAX, 0), Err(Errno::ENOENT));
        assert_eq!(idr.remove(IDR_MAX), None);
        assert!(!idr.get_tag(7, IDR_TAGS));
        assert_eq!(idr.next_tagged(0, IDR_TAGS), None);
        assert_eq!(idr.iter_tagged(IDR_TAGS).count(), 0);
        assert_eq!(idr.find_free(5, 5), None);
        assert_eq!(idr.find_free(IDR_MAX, u32::MAX), None);
        assert_eq!(idr.next_used(IDR_MAX), None);
        idr.check_invariants();
        assert_eq!(idr.iter().collect::<Vec<_>>(), before);
        assert!(idr.get_tag(7, 1));
        assert_eq!(idr.node_count(), 3);
    }

    #[test]
    fn replace_keeps_tags() {
        let mut idr = Idr::new();
        idr.insert(4096, 1).unwrap();
        idr.set_tag(4096, 0).unwrap();
        assert_eq!(idr.replace(4096, 2), Ok(1));
        assert_eq!(idr.get(4096), Some(2));
        assert!(idr.get_tag(4096, 0));
        idr.check_invariants();
    }

    #[test]
    fn full_leaf_and_its_neighbours() {
        let mut idr = Idr::new();
        for id in 64..128 {
            idr.insert(id, id).unwrap();
        }
        idr.check_invariants();
        assert_eq!(idr.find_free(64, IDR_MAX), Some(128));
        assert_eq!(idr.find_free(0, IDR_MAX), Some(0));
        assert_eq!(idr.find_free(64, 128), None);
        assert_eq!(idr.find_free(100, 129), Some(128));
        assert_eq!(idr.next_used(0), Some((64, 64)));
        assert_eq!(idr.next_used(127), Some((127, 127)));
        assert_eq!(idr.next_used(128), None);
        // One leaf plus its level-1 and level-2 parents.
        assert_eq!(idr.node_count(), 3);
        assert_eq!(idr.remove(90), Some(90));
        assert_eq!(idr.find_free(64, IDR_MAX), Some(90));
        idr.check_invariants();
    }

    #[test]
    fn full_default_pid_table_has_no_free_id() {
        let pid_max = 32768;
        let mut idr = Idr::new();
        for id in 0..pid_max {
            idr.insert(id, id).unwrap();
        }
        idr.check_invariants();
        assert_eq!(idr.find_free(300, pid_max), None);
        assert_eq!(idr.find_free(0, pid_max), None);
        assert_eq!(idr.find_free(0, IDR_MAX), Some(pid_max));
        assert_eq!(idr.remove(pid_max - 1), Some(pid_max - 1));
        assert_eq!(idr.find_free(300, pid_max), Some(pid_max - 1));
        idr.check_invariants();
    }

    /// Seed 001's worst case: the one free pid of a full PID_MAX_LIMIT table.
    #[test]
    fn last_free_pid_of_a_full_4m_table() {
        const PID_MAX_LIMIT: u32 = 4 * 1024 * 1024;
        let mut idr = Idr::new();
        for id in 0..PID_MAX_LIMIT {
            idr.insert(id, id).unwrap();
        }
        assert_eq!(idr.len(), PID_MAX_LIMIT as usize);
        assert_eq!(idr.find_free(300, PID_MAX_LIMIT), None);
        let hole = 2_718_281;
        assert_eq!(idr.remove(hole), Some(hole));
        assert_eq!(idr.find_free(300, PID_MAX_LIMIT), Some(hole));
        assert_eq!(idr.find_free(hole + 1, PID_MAX_LIMIT), None);
        // The cyclic wrap: nothing after the cursor, then from 300 up to it.
        assert_eq!(idr.find_free(300, hole + 1), Some(hole));
        idr.insert(hole, 0).unwrap();
        assert_eq!(idr.find_free(300, PID_MAX_LIMIT), None);
        idr.check_invariants();
    }

    /// Memory at dense fill, from node counts: the figure the module docs
    /// quote. The 4M table is `last_free_pid_of_a_full_4m_table`'s shape.
    #[test]
    fn dense_fill_bytes_per_id() {
        for n in [64u32, 4096, 32768, 100_000, 4 * 1024 * 1024] {
            let mut idr = Idr::new();
            for id in 0..n {
                idr.insert(id, id).unwrap();
            }
            let leaves = n.div_ceil(64) as usize;
            let level1 = n.div_ceil(4096) as usize;
            let level2 = n.div_ceil(1 << 18) as usize;
            assert_eq!(idr.node_count(), leaves + level1 + level2, "n = {n}");
            let bytes = idr.node_bytes();
            assert_eq!(bytes, leaves * 280 + (level1 + level2) * 544);
            let per_id = bytes as f64 / f64::from(n);
            // The brief's budget is 6 bytes per id once a level-1 node is
            // full; at 4M ids this comes to 18,915,840 bytes, 4.51 per id.
            if n >= 4096 {
                assert!(per_id < 6.0, "{per_id} bytes per id at n = {n}");
            }
            idr.check_invariants();
        }
    }

    #[test]
    fn nodes_are_freed_when_empty() {
        let mut idr = Idr::new();
        let ids: Vec<u32> = (0..5000).map(|i| (i * 3371) % IDR_MAX).collect();
        for &id in &ids {
            let _ = idr.insert(id, 1);
        }
        assert!(idr.node_count() > 0);
        for &id in &ids {
            idr.remove(id);
        }
        idr.check_invariants();
        assert_eq!(idr.node_count(), 0);
        // What is left are the spares, one node per level.
        assert_eq!(idr.node_bytes(), 1368);
        assert!(idr.is_empty());
    }

    #[test]
    fn spare_nodes_are_reused_and_empty() {
        let mut idr = Idr::new();
        idr.insert(1, 1).unwrap();
        // A lone id in its own leaf, L1 and L2 node, as cyclic allocation
        // walks past: each round empties and refills all three.
        for round in 0..200u32 {
            let id = (((round % 15) + 1) << 18) + round * 64;
            idr.insert(id, round).unwrap();
            idr.set_tag(id, 0).unwrap();
            assert_eq!(idr.node_count(), 6);
            assert_eq!(idr.next_tagged(2, 0), Some((id, round)));
            assert_eq!(idr.find_free(id, id + 2), Some(id + 1));
            idr.check_invariants();
            assert_eq!(idr.remove(id), Some(round));
            assert_eq!(idr.node_count(), 3);
            assert_eq!(idr.node_bytes(), 1368 + 1368);
            assert_eq!(idr.next_tagged(2, 0), None);
        }
        let copy = idr.clone();
        assert_eq!(copy.node_bytes(), 1368);
    }

    #[test]
    fn tags_survive_removal_of_neighbours() {
        let mut idr = Idr::new();
        for id in 0..10_000 {
            idr.insert(id, id).unwrap();
        }
        for id in [0, 63, 64, 4095, 4096, 9999] {
            idr.set_tag(id, 0).unwrap();
        }
        idr.set_tag(5000, 1).unwrap();
        for id in 0..10_000 {
            if ![0, 63, 64, 4095, 4096, 9999, 5000].contains(&id) {
                idr.remove(id);
            }
        }
        idr.check_invariants();
        let tagged: Vec<u32> = idr.iter_tagged(0).map(|(id, _)| id).collect();
        assert_eq!(tagged, [0, 63, 64, 4095, 4096, 9999]);
        assert_eq!(idr.next_tagged(1, 0), Some((63, 63)));
        assert_eq!(idr.next_tagged(4097, 0), Some((9999, 9999)));
        assert_eq!(idr.next_tagged(0, 1), Some((5000, 5000)));
        assert!(!idr.get_tag(5000, 0));
        // Removing a tagged id clears its tag; a re-inserted id starts clean.
        idr.remove(4095);
        idr.insert(4095, 1).unwrap();
        assert!(!idr.get_tag(4095, 0));
        assert_eq!(idr.next_tagged(65, 0), Some((4096, 4096)));
        idr.clear_tag(4096, 0).unwrap();
        assert_eq!(idr.next_tagged(65, 0), Some((9999, 9999)));
        idr.check_invariants();
    }

    /// Seed 003's case: one leader among many threads is found without
    /// visiting them (correctness here; the cost is structural).
    #[test]
    fn next_tagged_skips_untagged_ids() {
        let mut idr = Idr::new();
        for id in 300..100_300 {
            idr.insert(id, id).unwrap();
        }
        idr.set_tag(300, 0).unwrap();
        idr.set_tag(100_299, 0).unwrap();
        assert_eq!(idr.next_tagged(301, 0), Some((100_299, 100_299)));
        assert_eq!(idr.next_tagged(100_300, 0), None);
        assert_eq!(idr.iter_tagged(0).count(), 2);
    }

    #[test]
    fn find_free_respects_start_inside_a_partial_subtree() {
        let mut idr = Idr::new();
        // Slot 0 of the root has free ids only below `start`.
        for id in 10..(1 << 18) {
            idr.insert(id, 0).unwrap();
        }
        assert_eq!(idr.find_free(5, IDR_MAX), Some(5));
        assert_eq!(idr.find_free(10, IDR_MAX), Some(1 << 18));
        assert_eq!(idr.find_free(10, 1 << 18), None);
        idr.check_invariants();
    }

    #[test]
    fn clear_frees_everything() {
        let mut idr = Idr::new();
        for id in edge_ids() {
            idr.insert(id, 0).unwrap();
        }
        idr.clear();
        idr.check_invariants();
        assert!(idr.is_empty());
        assert_eq!(idr.node_count(), 0);
        assert_eq!(idr.next_used(0), None);
        assert_eq!(idr.find_free(0, IDR_MAX), Some(0));
    }

    proptest::proptest! {
        /// `iter_tagged_from` lists exactly the tagged ids at or after
        /// `start`, as the plain tagged walk filtered does.
        #[test]
        fn iter_tagged_from_matches_filtered_walk(
            ids in proptest::collection::btree_set(0u32..20_000, 0..300),
            tag_every in 1usize..5,
            starts in proptest::collection::vec(0u32..21_000, 1..8),
        ) {
            let mut idr = Idr::new();
            for (i, &id) in ids.iter().enumerate() {
                idr.insert(id, id ^ 0x55).unwrap();
                if i % tag_every == 0 {
                    idr.set_tag(id, 1).unwrap();
                }
            }
            for start in starts.into_iter().chain([0, IDR_MAX - 1, IDR_MAX]) {
                let want: Vec<(u32, u32)> =
                    idr.iter_tagged(1).filter(|&(id, _)| id >= start).collect();
                let got: Vec<(u32, u32)> = idr.iter_tagged_from(start, 1).collect();
                proptest::prop_assert_eq!(got, want, "start {}", start);
            }
            proptest::prop_assert_eq!(idr.iter_tagged_from(0, IDR_TAGS).count(), 0);
        }
    }
}
