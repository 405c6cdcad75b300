//! One shard's ring of free object ids.
//!
//! A bounded MPMC ring in the style of Linux's `struct objpool_slot`
//! (lib/objpool.c), with two changes that user space forces: every entry
//! carries its own publication stamp instead of the slot's single `last`
//! counter, and `head`/`tail` are 64-bit. The reasons and the ordering
//! argument are in the [module docs](super).
//!
//! ```text
//!   positions (u64, never wrap)    head            tail
//!   ──────────────────────────────────┼───────────────┼──────────►
//!   consumed                          │ free objects  │ not yet reserved
//!                                     │ (or being     │
//!                                     │  published)   │
//!   entry of position p lives in slot p & mask:
//!   entries[p & mask] = (p as u32) << 32 | object id
//! ```

use crossbeam_utils::CachePadded;

use super::sync::{AtomicU64, Ordering};

/// Entries per cache-padded line (16 on x86_64, whose `CachePadded` is
/// 128 bytes: two 64-byte lines, as the adjacent-line prefetcher pulls them
/// in pairs). This is also the smallest ring size.
///
/// Under loom it is 1, so that a ring is exactly the capacity rounded up to
/// a power of two and the small models wrap around (reuse slots) within a
/// few operations.
pub(super) const ENTRIES_PER_LINE: usize = if cfg!(loom) {
    1
} else {
    core::mem::align_of::<CachePadded<u64>>() / core::mem::size_of::<u64>()
};

/// A run of [`ENTRIES_PER_LINE`] entries on its own cache-padded line(s),
/// so the entries of two rings never share a line.
type EntryLine = CachePadded<[AtomicU64; ENTRIES_PER_LINE]>;

/// Packs an entry: the low 32 bits of `pos` (the stamp) above the object
/// id.
#[inline]
fn pack(pos: u64, id: u32) -> u64 {
    (pos << 32) | u64::from(id)
}

/// The stamp of an entry: the low 32 bits of the position that wrote it.
#[inline]
fn stamp(entry: u64) -> u32 {
    (entry >> 32) as u32
}

/// The object id of an entry.
#[inline]
fn id(entry: u64) -> u32 {
    entry as u32
}

/// One shard's ring of free object ids.
///
/// # Invariants
/// 1. `size = lines.len() * ENTRIES_PER_LINE` is a power of two, at least
///    the pool's capacity, and `mask == size - 1`.
/// 2. `head <= tail` and `tail - head <= capacity`: every position in
///    `head..tail` was reserved by a push of a distinct object not yet
///    popped.
/// 3. When no push is in progress, each position `p` in `head..tail` has
///    its entry `(p as u32, id)` in slot `p & mask`.
///
/// # Linux
/// Mirrors `struct objpool_slot` (include/linux/objpool.h): `head`, `tail`,
/// `mask` and the `entries` array; the slot's `last` is replaced by
/// per-entry stamps.
#[derive(Debug)]
pub(super) struct Ring {
    /// The entries, `size` of them in lines of [`ENTRIES_PER_LINE`].
    ///
    /// Encoding of each `AtomicU64`: bits 63..32 are the stamp (low 32 bits
    /// of the position that last wrote the entry), bits 31..0 the object
    /// id. An entry is *published for position p* when its stamp is
    /// `p as u32`. At creation, slot `s` holds stamp `s - size` (lap -1),
    /// i.e. "nothing published yet".
    lines: Box<[EntryLine]>,
    /// `size - 1`; `size` is a power of two.
    mask: u64,
    /// Position of the oldest free object: consumers' counter, advanced by
    /// CAS in [`Ring::pop`]. A plain 64-bit count; it never wraps.
    head: CachePadded<AtomicU64>,
    /// Next position to reserve: producers' counter, advanced by
    /// `fetch_add` in [`Ring::push`]. A plain 64-bit count; it never wraps.
    tail: CachePadded<AtomicU64>,
}

impl Ring {
    /// Makes an empty ring of `size` entries.
    ///
    /// `size` must be a power of two and a multiple of
    /// [`ENTRIES_PER_LINE`] (the caller rounds up).
    ///
    /// # Errors
    /// `ENOMEM` if the entries cannot be allocated.
    ///
    /// # Linux
    /// Mirrors the slot set-up of `objpool_init_percpu_slot()`.
    #[cfg_attr(loom, allow(clippy::modulo_one))] // ENTRIES_PER_LINE is 1
    pub(super) fn try_new(size: usize) -> crate::errno::Result<Self> {
        debug_assert!(size.is_power_of_two() && size.is_multiple_of(ENTRIES_PER_LINE));
        let nr_lines = size / ENTRIES_PER_LINE;
        let mut lines = Vec::new();
        lines
            .try_reserve_exact(nr_lines)
            .map_err(|_| crate::errno::Errno::ENOMEM)?;
        let size64 = size as u64;
        for line in 0..nr_lines {
            let base = (line * ENTRIES_PER_LINE) as u64;
            lines.push(CachePadded::new(core::array::from_fn(|i| {
                // Lap -1: stamped as if position `slot - size` wrote it, so
                // no position `>= 0` finds it published.
                let slot = base + i as u64;
                AtomicU64::new(pack(slot.wrapping_sub(size64), 0))
            })));
        }
        Ok(Self {
            lines: lines.into_boxed_slice(),
            mask: size64 - 1,
            head: CachePadded::new(AtomicU64::new(0)),
            tail: CachePadded::new(AtomicU64::new(0)),
        })
    }

    /// Number of entries (a power of two).
    #[cfg(any(test, debug_assertions, loom))]
    pub(super) fn size(&self) -> usize {
        self.lines.len() * ENTRIES_PER_LINE
    }

    /// The entry of slot `pos & mask`.
    #[inline]
    #[cfg_attr(loom, allow(clippy::modulo_one))] // ENTRIES_PER_LINE is 1
    fn entry(&self, pos: u64) -> &AtomicU64 {
        let slot = (pos & self.mask) as usize;
        &self.lines[slot / ENTRIES_PER_LINE][slot % ENTRIES_PER_LINE]
    }

    /// Adds object `id` at the tail. Never fails and never waits: the ring
    /// can hold every object of the pool (invariant 2).
    ///
    /// The caller must own object `id` (it popped it, or it is filling the
    /// pool); ownership passes to the ring.
    ///
    /// # Linux
    /// Mirrors `objpool_try_add_slot()` (lib/objpool.c), with a
    /// `fetch_add` where Linux loops on `cmpxchg` (Linux re-reads `head`
    /// for a `WARN_ON_ONCE` sanity check; the reservation cannot fail).
    #[inline]
    pub(super) fn push(&self, id: u32) {
        // AcqRel: Acquire pairs with the Release of every earlier
        // `fetch_add` on this tail (one release sequence, as all writes to
        // `tail` are RMWs); Release pairs with the Acquire of later ones.
        // With the AcqRel head CAS in `pop()` this orders the write of
        // position p after the last read of position p - size (module docs,
        // "No early overwrite").
        let pos = self.tail.fetch_add(1, Ordering::AcqRel);
        // Release: pairs with the Acquire entry load in `pop()`; publishes
        // the entry and, through it, the object's contents as its last
        // holder left them.
        self.entry(pos).store(pack(pos, id), Ordering::Release);
    }

    /// Takes the object at the head, or returns `None` when the ring holds
    /// no *published* object at its head.
    ///
    /// Lock-free: the loop only repeats when another consumer advanced
    /// `head`. It never waits for a producer: if the entry at `head` is
    /// reserved but not yet published, it returns `None` at once (see
    /// "Spurious misses" in the module docs).
    ///
    /// # Linux
    /// Mirrors `objpool_try_get_slot()` (lib/objpool.c): read the entry,
    /// then move `head` with a release CAS.
    #[inline]
    pub(super) fn pop(&self) -> Option<u32> {
        // Relaxed: only a guess; the CAS below validates it.
        let mut head = self.head.load(Ordering::Relaxed);
        loop {
            // Acquire: pairs with the Release store in `push()`.
            let entry = self.entry(head).load(Ordering::Acquire);
            if stamp(entry) != head as u32 {
                // Not published for `head`: either `head` is stale (the
                // slot holds a later lap) or position `head` is empty or
                // still being published.
                // Relaxed: a fresher guess, validated as above.
                let now = self.head.load(Ordering::Relaxed);
                if now == head {
                    return None;
                }
                head = now;
                continue;
            }
            // The entry was read before the CAS, so a successful CAS owns
            // exactly this entry's object: position `head + size` cannot be
            // reserved while `head` has not moved (invariant 2).
            // AcqRel on success: Release pairs with the Acquire of later
            // CASes on this head (release sequence), Acquire with the
            // Release of earlier ones; "No early overwrite" in the module
            // docs needs both. Relaxed on failure: we only retry.
            match self.head.compare_exchange_weak(
                head,
                head + 1,
                Ordering::AcqRel,
                Ordering::Relaxed,
            ) {
                Ok(_) => return Some(id(entry)),
                Err(now) => head = now,
            }
        }
    }

    /// Calls `f` on the id of every free object, oldest first, checking
    /// invariants 1-3 on the way; `nr_objs` is the pool's capacity. The
    /// ids themselves are the pool's to check.
    ///
    /// The caller guarantees quiescence: no push or pop in progress, and
    /// every earlier one happens-before this call. (A racing operation
    /// cannot cause undefined behaviour, only a spurious assertion
    /// failure: everything read is atomic.)
    #[cfg(any(test, debug_assertions, loom))]
    pub(super) fn for_each_free(&self, nr_objs: usize, mut f: impl FnMut(u32)) {
        let size = self.size();
        assert!(size.is_power_of_two() && size >= nr_objs, "ring size");
        assert_eq!(self.mask, size as u64 - 1, "ring mask");
        // Relaxed: quiescent, every write happens-before this read.
        let head = self.head.load(Ordering::Relaxed);
        let tail = self.tail.load(Ordering::Relaxed);
        assert!(head <= tail, "head {head} passed tail {tail}");
        assert!(
            tail - head <= nr_objs as u64,
            "{} free entries for {nr_objs} objects",
            tail - head
        );
        for pos in head..tail {
            let entry = self.entry(pos).load(Ordering::Relaxed);
            assert_eq!(stamp(entry), pos as u32, "position {pos} unpublished");
            f(id(entry));
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    fn free(ring: &Ring, nr_objs: usize) -> Vec<u32> {
        let mut v = Vec::new();
        ring.for_each_free(nr_objs, |i| v.push(i));
        v
    }

    #[test]
    fn entry_encoding_round_trips() {
        for (pos, idx) in [(0u64, 0u32), (1, 7), (u32::MAX as u64, 3), (1 << 40 | 5, 9)] {
            let e = pack(pos, idx);
            assert_eq!(stamp(e), pos as u32);
            assert_eq!(id(e), idx);
        }
    }

    #[test]
    fn new_ring_is_empty_and_fifo() {
        let ring = Ring::try_new(ENTRIES_PER_LINE).unwrap();
        assert_eq!(ring.pop(), None);
        assert!(free(&ring, 4).is_empty());
        for i in 0..4 {
            ring.push(i);
            assert_eq!(free(&ring, 4), (0..=i).collect::<Vec<_>>());
        }
        for i in 0..4 {
            assert_eq!(ring.pop(), Some(i));
        }
        assert_eq!(ring.pop(), None);
    }

    #[test]
    fn wraps_around_many_laps() {
        // A full ring (size objects) cycled for many laps: every slot is
        // reused and every stamp comparison exercised.
        let size = 2 * ENTRIES_PER_LINE;
        let ring = Ring::try_new(size).unwrap();
        for i in 0..size as u32 {
            ring.push(i);
        }
        let mut expect = std::collections::VecDeque::from_iter(0..size as u32);
        for round in 0..10 * size {
            let got = ring.pop().unwrap();
            assert_eq!(Some(got), expect.pop_front());
            ring.push(got);
            expect.push_back(got);
            if round % 7 == 0 {
                assert_eq!(free(&ring, size), Vec::from_iter(expect.clone()));
            }
        }
    }

    #[test]
    fn unpublished_head_is_a_miss() {
        // Reserve position 0 without publishing it, as a producer stalled
        // between its fetch_add and its store would: pop must not read the
        // stale lap -1 entry, and must not get past it either.
        let ring = Ring::try_new(ENTRIES_PER_LINE).unwrap();
        let pos = ring.tail.fetch_add(1, Ordering::AcqRel);
        ring.push(5);
        assert_eq!(ring.pop(), None);
        ring.entry(pos).store(pack(pos, 4), Ordering::Release);
        assert_eq!(ring.pop(), Some(4));
        assert_eq!(ring.pop(), Some(5));
        assert_eq!(ring.pop(), None);
    }
}
