//! A typed arena with 4-byte indices and a free list.
//!
//! The process core stores tasks, thread groups, `struct pid`s and pid
//! namespaces in slabs and links them with indices instead of pointers: the
//! structures stay small (4-byte links), freed slots are reused in O(1), and
//! no unsafe code or reference counting is needed.
//!
//! Tasks, thread groups, `struct pid`s and pid namespaces each have their
//! own index type (`TaskIx`, `GroupIx`, `PidIx`, `NsIx`: a [`SlabIx`]
//! declared with [`slab_index!`]), so that an index into one slab cannot be
//! passed where an index into another is meant. A typed index holds its
//! slot number in a `NonZeroU32` (a typed slab never uses slot 0, which
//! stays a vacant placeholder holding an unreachable copy of the first
//! value stored): `Option<Ix>` is 4 bytes, `None` means "no
//! link" (there is no sentinel value), and an access costs no more than
//! with a plain `u32`. The small side slabs (address spaces, pidfds,
//! namespace files) still use plain `u32` indices, with [`NONE`] where a
//! link may be absent.
//!
//! # Invariants
//! 1. `free` lists exactly the vacant slots at or above `BASE`, each once.
//! 2. `len` equals the number of occupied slots.
//! 3. `vals` and `next` have the same length.

/// The plain `u32` index value that means "no entry" (a task's address
/// space once it exited; the slab's own free list).
pub(crate) const NONE: u32 = u32::MAX;

/// A slab index type: converts to and from a slot number (`< u32::MAX`).
pub(crate) trait SlabIx: Copy + Eq + core::fmt::Debug {
    /// The first slot the slab uses (slots below it stay vacant).
    const BASE: u32;
    /// The index of slot `slot` (`>= BASE`).
    fn from_slot(slot: u32) -> Self;
    /// The slot this index names.
    fn slot(self) -> usize;
}

impl SlabIx for u32 {
    const BASE: u32 = 0;
    #[inline(always)]
    fn from_slot(slot: u32) -> Self {
        slot
    }
    #[inline(always)]
    fn slot(self) -> usize {
        self as usize
    }
}

/// Declares a slab index type: a `NonZeroU32` holding the slot number (its
/// slab starts at slot 1), so that `Option<$name>` is 4 bytes. Its `Debug`
/// and `Display` show the ordinal (slot - 1).
macro_rules! slab_index {
    ($(#[$m:meta])* $name:ident) => {
        $(#[$m])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub(crate) struct $name(core::num::NonZeroU32);

        impl $crate::slab::SlabIx for $name {
            const BASE: u32 = 1;
            #[inline(always)]
            fn from_slot(slot: u32) -> Self {
                match core::num::NonZeroU32::new(slot) {
                    Some(n) => $name(n),
                    None => unreachable!("a typed slab never uses slot 0"),
                }
            }
            #[inline(always)]
            fn slot(self) -> usize {
                self.0.get() as usize
            }
        }

        impl $name {
            /// A plain nonzero key for this index (its slot): what hashed
            /// and ordered keys store, where an `Option`'s derived `Hash`
            /// and `Ord` would cost a discriminant.
            #[allow(dead_code)]
            #[inline(always)]
            pub(crate) fn key(self) -> u32 {
                self.0.get()
            }

            /// As [`Self::key`], with 0 for `None`.
            #[allow(dead_code)]
            #[inline(always)]
            pub(crate) fn opt_key(o: Option<$name>) -> u32 {
                match o {
                    Some(x) => x.0.get(),
                    None => 0,
                }
            }
        }

        impl $crate::list::ListIx for $name {
            type Opt = Option<$name>;
            const NIL: Option<$name> = None;
            #[inline(always)]
            fn some(self) -> Option<$name> {
                Some(self)
            }
            #[inline(always)]
            fn get(o: Option<$name>) -> Option<$name> {
                o
            }
        }

        impl core::fmt::Debug for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                write!(f, "{}({})", stringify!($name), self.0.get() - 1)
            }
        }

        impl core::fmt::Display for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                write!(f, "{}", self.0.get() - 1)
            }
        }
    };
}
pub(crate) use slab_index;

/// A slot's entry in [`Slab::next`] while it is occupied (every other
/// value is the next vacant slot, [`NONE`] ending the free list).
const OCCUPIED: u32 = u32::MAX - 1;

/// A growable arena of `T` addressed by index type `I`.
///
/// The values and the slots' states are kept apart: `vals[s]` is slot
/// `s`'s value and `next[s]` its state ([`OCCUPIED`], or the next vacant
/// slot). Indexing (`slab[ix]`, for an index the caller knows names an
/// occupied slot) reads the value alone, one bounds check and no
/// occupancy test (debug builds assert it); [`Self::get`] tests the state.
/// The slots below `BASE` (slot 0 of a typed slab) hold a copy of the
/// first value stored, never reachable (their state is [`NONE`], on no
/// free list), so that a slot number needs no offset.
/// A removed value stays where it lies, unreachable, until its slot is
/// used again: [`Self::insert_with`] drops it then, as it writes the new one.
#[derive(Clone)]
pub(crate) struct Slab<T, I = u32> {
    vals: Vec<T>,
    next: Vec<u32>,
    free_head: u32,
    len: usize,
    _ix: core::marker::PhantomData<fn(I) -> I>,
}

impl<T: core::fmt::Debug, I: SlabIx> core::fmt::Debug for Slab<T, I> {
    /// The occupied `(index, value)` pairs.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<T, I: SlabIx> Slab<T, I> {
    pub(crate) const fn new() -> Self {
        Slab {
            vals: Vec::new(),
            next: Vec::new(),
            free_head: NONE,
            len: 0,
            _ix: core::marker::PhantomData,
        }
    }

    /// Stores `value` and returns its index; `None` when 2^32 - 2 slots are in
    /// use (the caller maps that to `EAGAIN` or `ENOMEM`).
    #[inline]
    pub(crate) fn insert(&mut self, value: T) -> Option<I>
    where
        T: Clone,
    {
        self.insert_with(|| value)
    }

    /// As [`Self::insert`], with the value made by `make` once its slot is
    /// known (a reused slot's old value is dropped as the new one is
    /// written over it).
    #[inline(always)]
    pub(crate) fn insert_with(&mut self, make: impl FnOnce() -> T) -> Option<I>
    where
        T: Clone,
    {
        let idx = self.vacant_slot()?;
        let i = idx as usize;
        if i >= self.vals.len() {
            if i > self.vals.len() {
                self.fill_below_base(make());
            } else {
                self.vals.push(make());
            }
            self.next.push(OCCUPIED);
        } else {
            self.free_head = core::mem::replace(&mut self.next[i], OCCUPIED);
            self.vals[i] = make();
        }
        self.len += 1;
        Some(I::from_slot(idx))
    }

    /// The first value of a slab with slots below `BASE`: those slots get
    /// a copy of it (unreachable: vacant, on no free list), then it is
    /// stored at `BASE`.
    #[cold]
    #[inline(never)]
    fn fill_below_base(&mut self, value: T)
    where
        T: Clone,
    {
        while self.vals.len() < I::BASE as usize {
            self.vals.push(value.clone());
            self.next.push(NONE);
        }
        self.vals.push(value);
    }

    /// The index the next `insert` will use.
    pub(crate) fn vacant_key(&self) -> Option<I> {
        self.vacant_slot().map(I::from_slot)
    }

    #[inline(always)]
    fn vacant_slot(&self) -> Option<u32> {
        if self.free_head != NONE {
            Some(self.free_head)
        } else {
            let n = self.vals.len().max(I::BASE as usize);
            (n < OCCUPIED as usize).then_some(n as u32)
        }
    }

    /// The position of slot `idx` in `vals` and `next`: its number.
    #[inline(always)]
    fn pos(idx: I) -> usize {
        idx.slot()
    }

    /// Whether `idx` names an occupied slot.
    #[inline(always)]
    pub(crate) fn contains(&self, idx: I) -> bool {
        self.next.get(Self::pos(idx)) == Some(&OCCUPIED)
    }

    /// Removes the value at `idx` (it is dropped when the slot is used
    /// again); false if the slot was vacant.
    #[inline(always)]
    pub(crate) fn delete(&mut self, idx: I) -> bool {
        let free_head = self.free_head;
        let Some(st) = self.next.get_mut(Self::pos(idx)) else {
            return false;
        };
        if *st != OCCUPIED {
            return false;
        }
        *st = free_head;
        self.free_head = idx.slot() as u32;
        self.len -= 1;
        true
    }

    #[inline]
    pub(crate) fn get(&self, idx: I) -> Option<&T> {
        let i = Self::pos(idx);
        match self.next.get(i) {
            Some(&OCCUPIED) => self.vals.get(i),
            _ => None,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Occupied `(index, value)` pairs in index order (for
    /// `Kernel::check_invariants`).
    pub(crate) fn iter(&self) -> impl Iterator<Item = (I, &T)> {
        self.vals
            .iter()
            .zip(&self.next)
            .enumerate()
            .filter(|&(_, (_, &st))| st == OCCUPIED)
            .map(|(i, (v, _))| (I::from_slot(i as u32), v))
    }
}

impl<T, I: SlabIx> core::ops::Index<I> for Slab<T, I> {
    type Output = T;
    /// The value at `idx`, which must be occupied (asserted in debug
    /// builds; a vacant slot's index reads its old value in release).
    #[inline(always)]
    fn index(&self, idx: I) -> &T {
        debug_assert!(self.contains(idx), "slab index names a vacant slot");
        &self.vals[Self::pos(idx)]
    }
}

impl<T, I: SlabIx> core::ops::IndexMut<I> for Slab<T, I> {
    #[inline(always)]
    fn index_mut(&mut self, idx: I) -> &mut T {
        debug_assert!(self.contains(idx), "slab index names a vacant slot");
        &mut self.vals[Self::pos(idx)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reuses_freed_slots_lifo() {
        let mut s: Slab<char> = Slab::new();
        let a = s.insert('a').unwrap();
        let b = s.insert('b').unwrap();
        let c = s.insert('c').unwrap();
        assert_eq!((a, b, c), (0, 1, 2));
        assert!(s.delete(b));
        assert!(!s.delete(b));
        assert_eq!(s.len(), 2);
        assert_eq!(s.vacant_key(), Some(1));
        assert_eq!(s.insert('d'), Some(1));
        assert_eq!(s[1], 'd');
        assert_eq!((s[0], s[1], s[2]), ('a', 'd', 'c'));
        assert_eq!(s.get(7), None);
        assert!(s.delete(0));
        assert!(!s.delete(0));
        assert_eq!(s.len(), 2);
        assert_eq!(s.insert('e'), Some(0));
    }

    slab_index!(
        /// A test index.
        TestIx
    );

    #[test]
    fn typed_index_has_a_niche_and_names_its_slot() {
        assert_eq!(core::mem::size_of::<Option<TestIx>>(), 4);
        let mut s: Slab<char, TestIx> = Slab::new();
        let a = s.insert('a').unwrap();
        let b = s.insert('b').unwrap();
        assert_eq!((a.slot(), b.slot()), (1, 2));
        assert_eq!(s[b], 'b');
        assert_eq!(s.iter().map(|(i, _)| i).collect::<Vec<_>>(), vec![a, b]);
        assert!(s.delete(a));
        assert_eq!(s.len(), 1);
        assert_eq!(s.vacant_key(), Some(a));
        assert_eq!(s.insert('c'), Some(a));
        assert_eq!(s.insert('d').map(|i| i.slot()), Some(3));
        assert_eq!(format!("{b} {b:?}"), "1 TestIx(1)");
    }
}
