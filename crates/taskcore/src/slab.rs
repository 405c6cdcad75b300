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
//! 3. `states` describes exactly the slots of `vals`.

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

/// A slot's entry in [`NextStates`] while it is occupied (every other
/// value is the next vacant slot, [`NONE`] ending the free list).
const OCCUPIED: u32 = u32::MAX - 1;

/// How a [`Slab`] keeps its slots' states (occupied or vacant) and its
/// free list (the vacant slots above `BASE`, each naming the next).
pub(crate) trait SlotStates<T>: Clone {
    /// No slots.
    const EMPTY: Self;
    /// Whether slot `i` is occupied (false past the end).
    fn occupied(&self, i: usize) -> bool;
    /// The state of a new last slot `i` (`vals` already holds its value):
    /// occupied, or vacant on no free list.
    fn push(&mut self, i: usize, occupied: bool);
    /// Marks vacant slot `i`, the free list's head, occupied; returns the
    /// free list after it. `old` is the slot's value, still the removed
    /// one.
    fn occupy(&mut self, old: &T, i: usize) -> u32;
    /// Marks slot `i`, whose value is `val`, vacant, `next` following it
    /// on the free list, if it is occupied; false (and nothing changed)
    /// if it is not.
    fn vacate(&mut self, val: &mut T, i: usize, next: u32) -> bool;
}

/// Slot states for any value: a `u32` per slot, [`OCCUPIED`] or the next
/// vacant slot.
#[derive(Clone, Debug)]
pub(crate) struct NextStates(Vec<u32>);

impl<T> SlotStates<T> for NextStates {
    const EMPTY: Self = NextStates(Vec::new());

    #[inline(always)]
    fn occupied(&self, i: usize) -> bool {
        self.0.get(i) == Some(&OCCUPIED)
    }

    #[inline(always)]
    fn push(&mut self, _: usize, occupied: bool) {
        self.0.push(if occupied { OCCUPIED } else { NONE });
    }

    #[inline(always)]
    fn occupy(&mut self, _: &T, i: usize) -> u32 {
        core::mem::replace(&mut self.0[i], OCCUPIED)
    }

    #[inline(always)]
    fn vacate(&mut self, _: &mut T, i: usize, next: u32) -> bool {
        match self.0.get_mut(i) {
            Some(st) if *st == OCCUPIED => {
                *st = next;
                true
            }
            _ => false,
        }
    }
}

/// A value that can hold its vacant slot's free-list link in a field of
/// its own (a field that no one reads once the value is removed).
pub(crate) trait FreeLink {
    /// The link stored by [`Self::set_free_next`].
    fn free_next(&self) -> u32;
    /// Stores the next vacant slot in the removed value.
    fn set_free_next(&mut self, next: u32);
}

/// Slot states for a [`FreeLink`] value: one bit per slot (1 = occupied),
/// the free list threaded through the vacant values themselves. An
/// eighth of a byte per slot where [`NextStates`] costs four: the
/// per-process memory of the task, thread group and `struct pid` slabs.
#[derive(Clone, Debug)]
pub(crate) struct BitStates(Vec<u64>);

impl<T: FreeLink> SlotStates<T> for BitStates {
    const EMPTY: Self = BitStates(Vec::new());

    #[inline(always)]
    fn occupied(&self, i: usize) -> bool {
        self.0.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 != 0)
    }

    #[inline(always)]
    fn push(&mut self, i: usize, occupied: bool) {
        if i.is_multiple_of(64) {
            self.0.push(0);
        }
        if occupied {
            self.0[i / 64] |= 1 << (i % 64);
        }
    }

    #[inline(always)]
    fn occupy(&mut self, old: &T, i: usize) -> u32 {
        self.0[i / 64] |= 1 << (i % 64);
        old.free_next()
    }

    #[inline(always)]
    fn vacate(&mut self, val: &mut T, i: usize, next: u32) -> bool {
        let bit = 1 << (i % 64);
        match self.0.get_mut(i / 64) {
            Some(w) if *w & bit != 0 => {
                *w &= !bit;
                val.set_free_next(next);
                true
            }
            _ => false,
        }
    }
}

/// A growable arena of `T` addressed by index type `I`.
///
/// The values and the slots' states are kept apart: `vals[s]` is slot
/// `s`'s value and `states` says whether it is occupied and, for a
/// vacant one, which vacant slot follows it on the free list
/// ([`NextStates`]: a `u32` per slot; [`BitStates`]: a bit, the link kept
/// in the vacant value). Indexing (`slab[ix]`, for an index the caller
/// knows names an occupied slot) reads the value alone, one bounds check
/// and no occupancy test (debug builds assert it); [`Self::get`] tests
/// the state.
/// The slots below `BASE` (slot 0 of a typed slab) hold a copy of the
/// first value stored, never reachable (vacant, on no free list), so that
/// a slot number needs no offset.
/// A removed value stays where it lies, unreachable, until its slot is
/// used again: [`Self::insert_with`] drops it then, as it writes the new one.
#[derive(Clone)]
pub(crate) struct Slab<T, I = u32, S = NextStates> {
    vals: Vec<T>,
    states: S,
    free_head: u32,
    len: usize,
    _ix: core::marker::PhantomData<fn(I) -> I>,
}

impl<T: core::fmt::Debug, I: SlabIx, S: SlotStates<T>> core::fmt::Debug for Slab<T, I, S> {
    /// The occupied `(index, value)` pairs.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<T, I: SlabIx, S: SlotStates<T>> Slab<T, I, S> {
    pub(crate) const fn new() -> Self {
        Slab {
            vals: Vec::new(),
            states: S::EMPTY,
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
            self.states.push(i, true);
        } else {
            let slot = &mut self.vals[i];
            self.free_head = self.states.occupy(slot, i);
            *slot = make();
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
            self.states.push(self.vals.len() - 1, false);
        }
        self.vals.push(value);
    }

    /// The index the next `insert` will use.
    #[inline(always)]
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

    /// The position of slot `idx` in `vals` and `states`: its number.
    #[inline(always)]
    fn pos(idx: I) -> usize {
        idx.slot()
    }

    /// Whether `idx` names an occupied slot.
    #[inline(always)]
    pub(crate) fn contains(&self, idx: I) -> bool {
        self.states.occupied(Self::pos(idx))
    }

    /// Removes the value at `idx` (it is dropped when the slot is used
    /// again); false if the slot was vacant.
    #[inline(always)]
    pub(crate) fn delete(&mut self, idx: I) -> bool {
        let i = Self::pos(idx);
        let Some(val) = self.vals.get_mut(i) else {
            return false;
        };
        if !self.states.vacate(val, i, self.free_head) {
            return false;
        }
        self.free_head = i as u32;
        self.len -= 1;
        true
    }

    #[inline]
    pub(crate) fn get(&self, idx: I) -> Option<&T> {
        let i = Self::pos(idx);
        if self.states.occupied(i) {
            self.vals.get(i)
        } else {
            None
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
            .enumerate()
            .filter(|&(i, _)| self.states.occupied(i))
            .map(|(i, v)| (I::from_slot(i as u32), v))
    }
}

impl<T, I: SlabIx, S: SlotStates<T>> core::ops::Index<I> for Slab<T, I, S> {
    type Output = T;
    /// The value at `idx`, which must be occupied (asserted in debug
    /// builds; a vacant slot's index reads its old value in release).
    #[inline(always)]
    fn index(&self, idx: I) -> &T {
        debug_assert!(self.contains(idx), "slab index names a vacant slot");
        &self.vals[Self::pos(idx)]
    }
}

impl<T, I: SlabIx, S: SlotStates<T>> core::ops::IndexMut<I> for Slab<T, I, S> {
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

    /// A value holding its own free-list link while vacant.
    #[derive(Clone, Debug, PartialEq)]
    struct Linked(char, u32);

    impl FreeLink for Linked {
        fn free_next(&self) -> u32 {
            self.1
        }
        fn set_free_next(&mut self, next: u32) {
            self.1 = next;
        }
    }

    #[test]
    fn bit_states_reuse_slots_lifo_across_words() {
        let mut s: Slab<Linked, TestIx, BitStates> = Slab::new();
        let ix: Vec<TestIx> = (0..130)
            .map(|i| {
                s.insert(Linked(char::from(b'a' + (i % 26) as u8), 0))
                    .unwrap()
            })
            .collect();
        assert_eq!((ix[0].slot(), ix[129].slot()), (1, 130));
        assert_eq!(s.len(), 130);
        // Slot 0 is vacant and on no free list.
        assert!(!SlotStates::<Linked>::occupied(&s.states, 0));
        for &i in [ix[3], ix[70], ix[129]].iter() {
            assert!(s.delete(i));
            assert!(!s.delete(i));
            assert!(!s.contains(i));
            assert_eq!(s.get(i), None);
        }
        assert_eq!(s.len(), 127);
        assert_eq!(s.iter().count(), 127);
        assert!(s.iter().all(|(i, _)| i != ix[3] && i != ix[70]));
        assert_eq!(s.vacant_key(), Some(ix[129]));
        assert_eq!(s.insert(Linked('x', 0)), Some(ix[129]));
        assert_eq!(s.insert(Linked('y', 0)), Some(ix[70]));
        assert_eq!(s.insert(Linked('z', 0)), Some(ix[3]));
        assert_eq!(s.insert(Linked('w', 0)).map(|i| i.slot()), Some(131));
        assert_eq!((s[ix[3]].0, s[ix[70]].0, s[ix[129]].0), ('z', 'y', 'x'));
        assert_eq!(s.len(), 131);
        assert_eq!(s.get(TestIx::from_slot(500)), None);
    }
}
