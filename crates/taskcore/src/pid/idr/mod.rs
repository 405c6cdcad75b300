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

use crate::errno::{Errno, Result};

/// The level-3 node type held inline in [`Idr`].
type Root = Interior<Interior<Interior<Leaf>>>;

const _: () = assert!(<Root as Node>::SPAN_SHIFT == IDR_SHIFT);

mod geometry;
mod node;

use geometry::{EMPTY, IDR_SHIFT, MAP_MASK, MAP_SIZE};
pub use geometry::{IDR_MAX, IDR_TAGS};
use node::{CheckCounts, Counts, Interior, Leaf, Node, Pool, Search};

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
        self.root.insert(id, value, 0, &mut self.pool);
        self.len += 1;
        Ok(())
    }

    /// As [`Idr::insert`], with the tags of bit mask `tags` (bit `t`: tag
    /// `t`, below [`IDR_TAGS`]) set on `id` in the same walk down the tree:
    /// what `insert` followed by a [`Idr::set_tag`] per tag does, in one
    /// descent.
    ///
    /// # Errors
    /// As [`Idr::insert`]; `EINVAL` also for a tag bit at or above
    /// [`IDR_TAGS`].
    ///
    /// # Linux
    /// `idr_alloc()` then `radix_tree_tag_set()`, which Linux does in two
    /// walks (`alloc_pid()` tags nothing; the TGID tag is this crate's).
    ///
    /// # Examples
    /// ```
    /// use taskcore::pid::Idr;
    ///
    /// let mut idr = Idr::new();
    /// idr.insert_tagged(300, 7, 1 << 0)?;
    /// assert!(idr.get_tag(300, 0));
    /// assert_eq!(idr.next_tagged(0, 0), Some((300, 7)));
    /// # Ok::<(), taskcore::Errno>(())
    /// ```
    pub fn insert_tagged(&mut self, id: u32, value: u32, tags: u64) -> Result<()> {
        if id >= IDR_MAX || value == EMPTY || tags >> IDR_TAGS != 0 {
            return Err(Errno::EINVAL);
        }
        if self.root.lookup(id).is_some() {
            return Err(Errno::EEXIST);
        }
        self.root.insert(id, value, tags, &mut self.pool);
        self.len += 1;
        Ok(())
    }

    /// As [`Idr::insert_tagged`] when `id` is free, in one walk down the
    /// tree (the walk that finds the id free stores it); `Ok(false)`, with
    /// nothing changed, when `id` is used.
    ///
    /// # Errors
    /// `EINVAL` as [`Idr::insert_tagged`].
    ///
    /// # Linux
    /// The common case of `idr_alloc_cyclic()` (`lib/idr.c`): the id at
    /// the cursor is free and `idr_get_free()`'s descent creates the path
    /// to it as it goes.
    ///
    /// # Examples
    /// ```
    /// use taskcore::pid::Idr;
    ///
    /// let mut idr = Idr::new();
    /// assert_eq!(idr.try_insert_tagged(300, 7, 1 << 0), Ok(true));
    /// assert_eq!(idr.try_insert_tagged(300, 8, 0), Ok(false));
    /// assert_eq!((idr.get(300), idr.get_tag(300, 0), idr.len()), (Some(7), true, 1));
    /// # Ok::<(), taskcore::Errno>(())
    /// ```
    #[inline]
    pub fn try_insert_tagged(&mut self, id: u32, value: u32, tags: u64) -> Result<bool> {
        if id >= IDR_MAX || value == EMPTY || tags >> IDR_TAGS != 0 {
            return Err(Errno::EINVAL);
        }
        let done = self.root.try_insert(id, value, tags, &mut self.pool);
        self.len += usize::from(done);
        Ok(done)
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
    #[inline]
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
mod tests;
