//! Intrusive doubly linked lists over slab indices.
//!
//! Linux links tasks into several lists at once (`children`/`sibling`,
//! `ptraced`/`ptrace_entry`, `thread_head`/`thread_node`, and the per-`struct
//! pid` task lists). We do the same with slab indices: a [`ListHead`]
//! lives in the owner, a [`Link`] in each member, and an accessor function
//! picks which link of the member a list uses. Every operation is O(1).
//!
//! A head and its members may live in the same slab (a parent's `children`
//! head and its children's `sibling` links): callers copy the head out,
//! operate, and store it back, so no two mutable borrows overlap.

use crate::slab::{Slab, SlabIx, SlotStates};

/// A slab index that can be a list link: `Opt` is "an index or none" in 4
/// bytes (`Option<Ix>` for a typed index declared with
/// [`crate::slab::slab_index!`]).
pub(crate) trait ListIx: SlabIx {
    type Opt: Copy + Eq + core::fmt::Debug;
    const NIL: Self::Opt;
    fn some(self) -> Self::Opt;
    fn get(o: Self::Opt) -> Option<Self>;
}

/// A member's link: the neighbours' indices, or none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Link<I: ListIx> {
    pub(crate) prev: I::Opt,
    pub(crate) next: I::Opt,
}

impl<I: ListIx> Link<I> {
    pub(crate) const UNLINKED: Link<I> = Link {
        prev: I::NIL,
        next: I::NIL,
    };
}

/// A list head: first and last member, or none when empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ListHead<I: ListIx> {
    pub(crate) first: I::Opt,
    pub(crate) last: I::Opt,
}

impl<I: ListIx> ListHead<I> {
    pub(crate) const EMPTY: ListHead<I> = ListHead {
        first: I::NIL,
        last: I::NIL,
    };

    pub(crate) fn is_empty(&self) -> bool {
        self.first == I::NIL
    }

    /// The first member.
    pub(crate) fn first(&self) -> Option<I> {
        I::get(self.first)
    }
}

/// Appends `idx` at the tail (`list_add_tail`).
#[inline(always)]
pub(crate) fn push_back<T, I: ListIx, S: SlotStates<T>>(
    head: &mut ListHead<I>,
    slab: &mut Slab<T, I, S>,
    idx: I,
    link: fn(&mut T) -> &mut Link<I>,
) {
    let old_last = head.last;
    *link(&mut slab[idx]) = Link {
        prev: old_last,
        next: I::NIL,
    };
    match I::get(old_last) {
        None => head.first = idx.some(),
        Some(l) => link(&mut slab[l]).next = idx.some(),
    }
    head.last = idx.some();
}

/// Inserts `idx` at the head (`list_add`).
#[inline]
pub(crate) fn push_front<T, I: ListIx, S: SlotStates<T>>(
    head: &mut ListHead<I>,
    slab: &mut Slab<T, I, S>,
    idx: I,
    link: fn(&mut T) -> &mut Link<I>,
) {
    let old_first = head.first;
    *link(&mut slab[idx]) = Link {
        prev: I::NIL,
        next: old_first,
    };
    match I::get(old_first) {
        None => head.last = idx.some(),
        Some(f) => link(&mut slab[f]).prev = idx.some(),
    }
    head.first = idx.some();
}

/// Unlinks `idx`, which must be a member of the list `head` (`list_del`).
#[inline(always)]
pub(crate) fn unlink<T, I: ListIx, S: SlotStates<T>>(
    head: &mut ListHead<I>,
    slab: &mut Slab<T, I, S>,
    idx: I,
    link: fn(&mut T) -> &mut Link<I>,
) {
    let Link { prev, next } = *link(&mut slab[idx]);
    match I::get(prev) {
        None => {
            debug_assert_eq!(head.first, idx.some());
            head.first = next;
        }
        Some(p) => link(&mut slab[p]).next = next,
    }
    match I::get(next) {
        None => {
            debug_assert_eq!(head.last, idx.some());
            head.last = prev;
        }
        Some(n) => link(&mut slab[n]).prev = prev,
    }
    *link(&mut slab[idx]) = Link::UNLINKED;
}

/// The members in list order, collected (for the few O(list) walks that
/// mutate the slab as they go, such as reparenting at exit).
pub(crate) fn collect<T, I: ListIx, S: SlotStates<T>>(
    head: ListHead<I>,
    slab: &Slab<T, I, S>,
    link: fn(&T) -> &Link<I>,
) -> Vec<I> {
    let mut out = Vec::new();
    let mut cur = I::get(head.first);
    while let Some(c) = cur {
        out.push(c);
        cur = I::get(link(&slab[c]).next);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    crate::slab::slab_index!(
        /// A test index.
        NodeIx
    );

    #[derive(Clone, Debug)]
    struct Node {
        l: Link<NodeIx>,
    }

    fn l(n: &mut Node) -> &mut Link<NodeIx> {
        &mut n.l
    }

    #[test]
    fn push_back_front_unlink() {
        let mut s: Slab<Node, NodeIx> = Slab::new();
        let ids: Vec<NodeIx> = (0..4)
            .map(|_| s.insert(Node { l: Link::UNLINKED }).unwrap())
            .collect();
        let order = |h: ListHead<NodeIx>, s: &Slab<Node, NodeIx>| -> Vec<usize> {
            let c = collect(h, s, |n| &n.l);
            c.iter()
                .map(|x| ids.iter().position(|i| i == x).unwrap())
                .collect()
        };
        let mut h = ListHead::EMPTY;
        for &i in &ids[..3] {
            push_back(&mut h, &mut s, i, l);
        }
        assert_eq!(order(h, &s), vec![0, 1, 2]);
        unlink(&mut h, &mut s, ids[1], l);
        assert_eq!(order(h, &s), vec![0, 2]);
        push_front(&mut h, &mut s, ids[3], l);
        assert_eq!(order(h, &s), vec![3, 0, 2]);
        for i in [2, 0, 3] {
            unlink(&mut h, &mut s, ids[i], l);
        }
        assert!(h.is_empty());
    }
}
