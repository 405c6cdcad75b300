//! A typed arena with `u32` indices and a free list.
//!
//! The process core stores tasks, thread groups and `struct pid`s in slabs
//! and links them with `u32` indices instead of pointers: the structures stay
//! small (4-byte links), freed slots are reused in O(1), and no unsafe code or
//! reference counting is needed.
//!
//! # Invariants
//! 1. `free` lists exactly the vacant slots, each once.
//! 2. `len` equals the number of occupied slots.

/// The index value that means "no entry" in links and heads.
pub(crate) const NONE: u32 = u32::MAX;

/// One slot: an occupied value or a link in the free list.
#[derive(Clone, Debug)]
enum Slot<T> {
    Occupied(T),
    Vacant { next_free: u32 },
}

/// A growable arena of `T` addressed by `u32`.
#[derive(Clone, Debug)]
pub(crate) struct Slab<T> {
    slots: Vec<Slot<T>>,
    free_head: u32,
    len: usize,
}

impl<T> Slab<T> {
    pub(crate) const fn new() -> Self {
        Slab {
            slots: Vec::new(),
            free_head: NONE,
            len: 0,
        }
    }

    /// Stores `value` and returns its index; `None` when 2^32 - 1 slots are in
    /// use (the caller maps that to `EAGAIN` or `ENOMEM`).
    pub(crate) fn insert(&mut self, value: T) -> Option<u32> {
        let idx = self.vacant_key()?;
        if idx as usize == self.slots.len() {
            self.slots.push(Slot::Occupied(value));
        } else {
            let slot = &mut self.slots[idx as usize];
            match *slot {
                Slot::Vacant { next_free } => self.free_head = next_free,
                Slot::Occupied(_) => unreachable!("free list names an occupied slot"),
            }
            *slot = Slot::Occupied(value);
        }
        self.len += 1;
        Some(idx)
    }

    /// The index the next `insert` will use.
    pub(crate) fn vacant_key(&self) -> Option<u32> {
        if self.free_head != NONE {
            Some(self.free_head)
        } else if self.slots.len() < NONE as usize {
            Some(self.slots.len() as u32)
        } else {
            None
        }
    }

    /// Removes and returns the value at `idx`, if occupied.
    pub(crate) fn remove(&mut self, idx: u32) -> Option<T> {
        let slot = self.slots.get_mut(idx as usize)?;
        if matches!(slot, Slot::Vacant { .. }) {
            return None;
        }
        let old = core::mem::replace(
            slot,
            Slot::Vacant {
                next_free: self.free_head,
            },
        );
        self.free_head = idx;
        self.len -= 1;
        match old {
            Slot::Occupied(v) => Some(v),
            Slot::Vacant { .. } => None,
        }
    }

    pub(crate) fn get(&self, idx: u32) -> Option<&T> {
        match self.slots.get(idx as usize) {
            Some(Slot::Occupied(v)) => Some(v),
            _ => None,
        }
    }

    pub(crate) fn get_mut(&mut self, idx: u32) -> Option<&mut T> {
        match self.slots.get_mut(idx as usize) {
            Some(Slot::Occupied(v)) => Some(v),
            _ => None,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Occupied `(index, value)` pairs in index order (for
    /// `Kernel::check_invariants`).
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u32, &T)> {
        self.slots.iter().enumerate().filter_map(|(i, s)| match s {
            Slot::Occupied(v) => Some((i as u32, v)),
            Slot::Vacant { .. } => None,
        })
    }
}

impl<T> core::ops::Index<u32> for Slab<T> {
    type Output = T;
    fn index(&self, idx: u32) -> &T {
        self.get(idx).expect("slab index names a vacant slot")
    }
}

impl<T> core::ops::IndexMut<u32> for Slab<T> {
    fn index_mut(&mut self, idx: u32) -> &mut T {
        self.get_mut(idx).expect("slab index names a vacant slot")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reuses_freed_slots_lifo() {
        let mut s = Slab::new();
        let a = s.insert('a').unwrap();
        let b = s.insert('b').unwrap();
        let c = s.insert('c').unwrap();
        assert_eq!((a, b, c), (0, 1, 2));
        assert_eq!(s.remove(b), Some('b'));
        assert_eq!(s.remove(b), None);
        assert_eq!(s.len(), 2);
        assert_eq!(s.vacant_key(), Some(1));
        assert_eq!(s.insert('d'), Some(1));
        assert_eq!(s[1], 'd');
        assert_eq!((s[0], s[1], s[2]), ('a', 'd', 'c'));
        assert_eq!(s.get(7), None);
    }
}
