//! Fixed-capacity slot arrays for tree nodes.
//!
//! A [`Slots<T, N>`] is an inline array of at most `N` values, kept dense at
//! the front (`items[..len]` are `Some`, the rest `None`). It lets a node be a
//! single allocation, as a maple tree node is one 256-byte slab object,
//! without `unsafe` code.
//!
//! # Invariants
//! 1. `len <= N`.
//! 2. `items[i].is_some()` exactly when `i < len`.
//!
//! # Linux
//! No direct analogue: `struct maple_node` keeps raw slot arrays and a
//! metadata end marker instead.

/// Up to `N` values stored inline, dense at the front.
#[derive(Clone, Debug)]
pub(crate) struct Slots<T, const N: usize> {
    /// Number of occupied slots.
    len: u8,
    /// `items[..len]` are `Some`, the rest `None`.
    items: [Option<T>; N],
}

impl<T, const N: usize> Slots<T, N> {
    /// An empty array.
    pub(crate) fn new() -> Self {
        Self {
            len: 0,
            items: core::array::from_fn(|_| None),
        }
    }

    /// Number of values held.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether all `N` slots are taken.
    #[inline]
    pub(crate) fn is_full(&self) -> bool {
        self.len() == N
    }

    /// The value at `i`, if `i < len`.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> Option<&T> {
        self.items.get(i).and_then(Option::as_ref)
    }

    /// The value at `i`, mutably, if `i < len`.
    #[inline]
    pub(crate) fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        self.items.get_mut(i).and_then(Option::as_mut)
    }

    /// The value at `i`; `i` must be below `len` (internal invariant).
    #[inline]
    pub(crate) fn at(&self, i: usize) -> &T {
        match self.get(i) {
            Some(v) => v,
            None => unreachable!("slot {i} out of {} used", self.len),
        }
    }

    /// The value at `i`, mutably; `i` must be below `len`.
    #[inline]
    pub(crate) fn at_mut(&mut self, i: usize) -> &mut T {
        let len = self.len;
        match self.get_mut(i) {
            Some(v) => v,
            None => unreachable!("slot {i} out of {len} used"),
        }
    }

    /// The first value.
    #[inline]
    pub(crate) fn first(&self) -> Option<&T> {
        self.get(0)
    }

    /// The last value.
    #[inline]
    pub(crate) fn last(&self) -> Option<&T> {
        self.len().checked_sub(1).and_then(|i| self.get(i))
    }

    /// Iterates over the values in order.
    pub(crate) fn iter(&self) -> impl DoubleEndedIterator<Item = &T> + ExactSizeIterator {
        self.items[..self.len()].iter().map(|x| match x {
            Some(v) => v,
            None => unreachable!("hole in dense slots"),
        })
    }

    /// Inserts `value` at `i`, shifting later values right.
    ///
    /// The array must not be full and `i <= len` (internal invariants).
    pub(crate) fn insert(&mut self, i: usize, value: T) {
        let len = self.len();
        debug_assert!(len < N && i <= len);
        self.items[i..=len].rotate_right(1);
        self.items[i] = Some(value);
        self.len += 1;
    }

    /// Appends `value`; the array must not be full.
    pub(crate) fn push(&mut self, value: T) {
        let len = self.len();
        self.insert(len, value);
    }

    /// Removes and returns the value at `i`, shifting later values left.
    pub(crate) fn remove(&mut self, i: usize) -> T {
        let len = self.len();
        debug_assert!(i < len);
        let v = self.items[i].take();
        self.items[i..len].rotate_left(1);
        self.len -= 1;
        match v {
            Some(v) => v,
            None => unreachable!("remove of empty slot {i}"),
        }
    }

    /// Moves the values from `at` on into a new array.
    pub(crate) fn split_off(&mut self, at: usize) -> Self {
        let len = self.len();
        debug_assert!(at <= len);
        let mut right = Self::new();
        for (j, slot) in self.items[at..len].iter_mut().enumerate() {
            right.items[j] = slot.take();
        }
        right.len = (len - at) as u8;
        self.len = at as u8;
        right
    }

    /// Moves every value of `other` to the end of `self`.
    pub(crate) fn append(&mut self, other: &mut Self) {
        let len = self.len();
        let olen = other.len();
        debug_assert!(len + olen <= N);
        for j in 0..olen {
            self.items[len + j] = other.items[j].take();
        }
        self.len += olen as u8;
        other.len = 0;
    }
}

impl<T, const N: usize> FromIterator<T> for Slots<T, N> {
    /// Collects at most `N` values (extra values are a caller bug and are
    /// dropped after a debug assertion).
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut s = Self::new();
        for v in iter {
            debug_assert!(!s.is_full());
            if s.is_full() {
                break;
            }
            s.push(v);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check<const N: usize>(s: &Slots<u32, N>, want: &[u32]) {
        assert_eq!(s.len(), want.len());
        assert_eq!(s.iter().copied().collect::<Vec<_>>(), want);
        for i in 0..N {
            assert_eq!(s.items[i].is_some(), i < s.len());
        }
    }

    #[test]
    fn insert_remove_split_append() {
        let mut s: Slots<u32, 4> = Slots::new();
        s.push(1);
        s.push(3);
        s.insert(1, 2);
        s.insert(0, 0);
        check(&s, &[0, 1, 2, 3]);
        assert!(s.is_full());
        assert_eq!(s.remove(1), 1);
        check(&s, &[0, 2, 3]);
        let mut r = s.split_off(1);
        check(&s, &[0]);
        check(&r, &[2, 3]);
        s.append(&mut r);
        check(&s, &[0, 2, 3]);
        check(&r, &[]);
        assert_eq!(s.first(), Some(&0));
        assert_eq!(s.last(), Some(&3));
        assert_eq!(s.get(3), None);
    }
}
