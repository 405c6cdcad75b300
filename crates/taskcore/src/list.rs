//! Intrusive doubly linked lists over slab indices.
//!
//! Linux links tasks into several lists at once (`children`/`sibling`,
//! `ptraced`/`ptrace_entry`, `thread_head`/`thread_node`, and the per-`struct
//! pid` task lists). We do the same with `u32` slab indices: a [`ListHead`]
//! lives in the owner, a [`Link`] in each member, and an accessor function
//! picks which link of the member a list uses. Every operation is O(1).
//!
//! A head and its members may live in the same slab (a parent's `children`
//! head and its children's `sibling` links): callers copy the head out,
//! operate, and store it back, so no two mutable borrows overlap.

use crate::slab::{Slab, NONE};

/// A member's link: the neighbours' indices, or [`NONE`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Link {
    pub(crate) prev: u32,
    pub(crate) next: u32,
}

impl Link {
    pub(crate) const UNLINKED: Link = Link {
        prev: NONE,
        next: NONE,
    };
}

/// A list head: first and last member, or [`NONE`] when empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ListHead {
    pub(crate) first: u32,
    pub(crate) last: u32,
}

impl ListHead {
    pub(crate) const EMPTY: ListHead = ListHead {
        first: NONE,
        last: NONE,
    };

    pub(crate) fn is_empty(&self) -> bool {
        self.first == NONE
    }
}

/// Appends `idx` at the tail (`list_add_tail`).
pub(crate) fn push_back<T>(
    head: &mut ListHead,
    slab: &mut Slab<T>,
    idx: u32,
    link: fn(&mut T) -> &mut Link,
) {
    let old_last = head.last;
    *link(&mut slab[idx]) = Link {
        prev: old_last,
        next: NONE,
    };
    if old_last == NONE {
        head.first = idx;
    } else {
        link(&mut slab[old_last]).next = idx;
    }
    head.last = idx;
}

/// Inserts `idx` at the head (`list_add`).
pub(crate) fn push_front<T>(
    head: &mut ListHead,
    slab: &mut Slab<T>,
    idx: u32,
    link: fn(&mut T) -> &mut Link,
) {
    let old_first = head.first;
    *link(&mut slab[idx]) = Link {
        prev: NONE,
        next: old_first,
    };
    if old_first == NONE {
        head.last = idx;
    } else {
        link(&mut slab[old_first]).prev = idx;
    }
    head.first = idx;
}

/// Unlinks `idx`, which must be a member of the list `head` (`list_del`).
pub(crate) fn unlink<T>(
    head: &mut ListHead,
    slab: &mut Slab<T>,
    idx: u32,
    link: fn(&mut T) -> &mut Link,
) {
    let Link { prev, next } = *link(&mut slab[idx]);
    if prev == NONE {
        debug_assert_eq!(head.first, idx);
        head.first = next;
    } else {
        link(&mut slab[prev]).next = next;
    }
    if next == NONE {
        debug_assert_eq!(head.last, idx);
        head.last = prev;
    } else {
        link(&mut slab[next]).prev = prev;
    }
    *link(&mut slab[idx]) = Link::UNLINKED;
}

/// The members in list order, collected (for the few O(list) walks that
/// mutate the slab as they go, such as reparenting at exit).
pub(crate) fn collect<T>(head: ListHead, slab: &Slab<T>, link: fn(&T) -> &Link) -> Vec<u32> {
    let mut out = Vec::new();
    let mut cur = head.first;
    while cur != NONE {
        out.push(cur);
        cur = link(&slab[cur]).next;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Node {
        l: Link,
    }

    fn l(n: &mut Node) -> &mut Link {
        &mut n.l
    }

    #[test]
    fn push_back_front_unlink() {
        let mut s = Slab::new();
        let ids: Vec<u32> = (0..4)
            .map(|_| s.insert(Node { l: Link::UNLINKED }).unwrap())
            .collect();
        let mut h = ListHead::EMPTY;
        for &i in &ids[..3] {
            push_back(&mut h, &mut s, i, l);
        }
        assert_eq!(collect(h, &s, |n| &n.l), vec![0, 1, 2]);
        unlink(&mut h, &mut s, 1, l);
        assert_eq!(collect(h, &s, |n| &n.l), vec![0, 2]);
        push_front(&mut h, &mut s, 3, l);
        assert_eq!(collect(h, &s, |n| &n.l), vec![3, 0, 2]);
        for i in [2, 0, 3] {
            unlink(&mut h, &mut s, i, l);
        }
        assert!(h.is_empty());
    }
}
