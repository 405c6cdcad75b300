//! Baseline for `bench objpool`: the CAS-based LIFO free list that held
//! kretprobe instances before the objpool (Linux 5.11-6.6,
//! include/linux/freelist.h), with its reference-count ABA guard.
//!
//! # Algorithm
//! C. Desrochers, "Solving the ABA problem for lock-free free lists"
//! (moodycamel.com, 2014), as Linux adapted it. A Treiber stack whose
//! nodes carry a reference count:
//! ```text
//! node.refs = ON_FREELIST (bit 31) | references (bits 0..31)
//!
//! try_get:  head = list.head (Acquire)
//!           refs = head.refs; if refs & MASK == 0: the node is being
//!                 added or removed, reload head and retry
//!           CAS head.refs: refs -> refs + 1 (Acquire)   pin the node
//!           next = head.next                           stable while pinned
//!           CAS list.head: head -> next (Acquire)
//!             ok:   head.refs -= 2 (our pin, the list's reference); done
//!             fail: head.refs -= 1; if that left ON_FREELIST | 0, we are the
//!                   last to let go of a node someone wants re-added: add it
//! add:      if fetch_add(ON_FREELIST) on node.refs found 0, nobody pins
//!           it: push it (next = head, refs = 1, CAS list.head); a failed
//!           CAS hands the push to whoever drops the last pin
//! ```
//! The ABA guard: a node's `next` can only change while its count is 0,
//! and a `try_get` reads `next` only after pinning the node, so the CAS on
//! `list.head` cannot succeed with a stale `next`.
//!
//! Nodes are addressed by index (`u32`, `NIL` for none) instead of
//! pointers, so this is safe Rust; each node is cache-padded, as Linux's
//! separately allocated `kretprobe_instance`s sit on lines of their own.
//! Every operation of every thread hits the one `head` word: that is what
//! stops the free list from scaling.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use crossbeam_utils::CachePadded;

/// Set in `refs` while the node should be on the list.
const REFS_ON_FREELIST: u32 = 0x8000_0000;
/// The reference count in `refs`.
const REFS_MASK: u32 = 0x7FFF_FFFF;
/// No node (the end of the list).
const NIL: u32 = u32::MAX;

/// A list node and the object it carries.
#[derive(Debug)]
struct Node {
    /// `REFS_ON_FREELIST | count` (see the module docs).
    refs: AtomicU32,
    /// The next node's index, or `NIL`.
    next: AtomicU32,
    /// The object (the benchmark writes it while holding the node).
    obj: AtomicU64,
}

/// A lock-free LIFO free list of `n` nodes.
#[derive(Debug)]
pub(crate) struct FreeList {
    /// Index of the first free node, or `NIL`.
    head: CachePadded<AtomicU32>,
    nodes: Box<[CachePadded<Node>]>,
}

impl FreeList {
    /// A list holding nodes `0..n`, all free.
    pub(crate) fn new(n: usize) -> FreeList {
        assert!(n < NIL as usize);
        let list = FreeList {
            head: CachePadded::new(AtomicU32::new(NIL)),
            nodes: (0..n)
                .map(|_| {
                    CachePadded::new(Node {
                        refs: AtomicU32::new(0),
                        next: AtomicU32::new(NIL),
                        obj: AtomicU64::new(0),
                    })
                })
                .collect(),
        };
        for i in 0..n as u32 {
            list.add(i);
        }
        list
    }

    /// The object of node `i` (write it only while holding the node).
    pub(crate) fn obj(&self, i: u32) -> &AtomicU64 {
        &self.nodes[i as usize].obj
    }

    /// Returns node `i` (held by the caller) to the list.
    ///
    /// Linux: `freelist_add()`.
    pub(crate) fn add(&self, i: u32) {
        // The should-be-on-freelist bit is clear (we hold the node), so a
        // fetch_add sets it. Release: pairs with the Acquire of the pin in
        // `try_get`, publishing our writes to the object.
        if self.nodes[i as usize]
            .refs
            .fetch_add(REFS_ON_FREELIST, Ordering::Release)
            == 0
        {
            // Nobody pins it: ours to push.
            self.add_knowing_refcount_is_zero(i);
        }
    }

    /// Linux: `__freelist_add()`.
    fn add_knowing_refcount_is_zero(&self, i: u32) {
        let node = &self.nodes[i as usize];
        let mut head = self.head.load(Ordering::Relaxed);
        loop {
            // Count 0 and we run the only add of this node: `next` is ours.
            node.next.store(head, Ordering::Relaxed);
            node.refs.store(1, Ordering::Release);
            match self
                .head
                .compare_exchange(head, i, Ordering::Release, Ordering::Relaxed)
            {
                Ok(_) => return,
                Err(h) => {
                    head = h;
                    // The push failed while others may pin the node: set
                    // the bit and drop our reference; whoever brings the
                    // count to 0 retries the push (maybe us, right now).
                    if node.refs.fetch_add(REFS_ON_FREELIST - 1, Ordering::Release) == 1 {
                        continue;
                    }
                    return;
                }
            }
        }
    }

    /// Takes a free node, or `None` if the list is empty.
    ///
    /// Linux: `freelist_try_get()`.
    pub(crate) fn try_get(&self) -> Option<u32> {
        let mut head = self.head.load(Ordering::Acquire);
        while head != NIL {
            let prev = head;
            let node = &self.nodes[head as usize];
            let refs = node.refs.load(Ordering::Relaxed);
            if refs & REFS_MASK == 0
                || node
                    .refs
                    .compare_exchange(refs, refs + 1, Ordering::Acquire, Ordering::Relaxed)
                    .is_err()
            {
                head = self.head.load(Ordering::Acquire);
                continue;
            }
            // Pinned: `next` cannot change under us.
            let next = node.next.load(Ordering::Relaxed);
            match self
                .head
                .compare_exchange(head, next, Ordering::Acquire, Ordering::Acquire)
            {
                Ok(_) => {
                    // Ours: it was on the list, so nobody can have asked for
                    // it to be re-added.
                    debug_assert_eq!(node.refs.load(Ordering::Relaxed) & REFS_ON_FREELIST, 0);
                    // Our pin and the list's reference.
                    node.refs.fetch_sub(2, Ordering::Relaxed);
                    return Some(head);
                }
                Err(h) => {
                    head = h;
                    // Unpin; if the node was meanwhile taken and given back
                    // while we pinned it, the re-add is ours to finish.
                    let refs = self.nodes[prev as usize]
                        .refs
                        .fetch_sub(1, Ordering::AcqRel);
                    if refs == REFS_ON_FREELIST + 1 {
                        self.add_knowing_refcount_is_zero(prev);
                    }
                }
            }
        }
        None
    }

    /// Number of nodes.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.nodes.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;

    #[test]
    fn single_thread_is_lifo_and_drains() {
        let l = FreeList::new(3);
        // Added 0, 1, 2: LIFO gives 2 first.
        assert_eq!(l.try_get(), Some(2));
        assert_eq!(l.try_get(), Some(1));
        l.add(2);
        assert_eq!(l.try_get(), Some(2));
        assert_eq!(l.try_get(), Some(0));
        assert_eq!(l.try_get(), None);
        for i in 0..3 {
            l.add(i);
        }
        let mut got: Vec<_> = std::iter::from_fn(|| l.try_get()).collect();
        got.sort_unstable();
        assert_eq!(got, [0, 1, 2]);
    }

    #[test]
    fn threads_never_share_a_node_and_none_is_lost() {
        const THREADS: usize = 4;
        let l = FreeList::new(6);
        let held: Vec<AtomicBool> = (0..l.len()).map(|_| AtomicBool::new(false)).collect();
        std::thread::scope(|s| {
            for _ in 0..THREADS {
                s.spawn(|| {
                    for _ in 0..20_000 {
                        if let Some(i) = l.try_get() {
                            assert!(
                                !held[i as usize].swap(true, Ordering::Relaxed),
                                "node {i} twice"
                            );
                            l.obj(i).fetch_add(1, Ordering::Relaxed);
                            held[i as usize].store(false, Ordering::Relaxed);
                            l.add(i);
                        }
                    }
                });
            }
        });
        let mut got: Vec<_> = std::iter::from_fn(|| l.try_get()).collect();
        got.sort_unstable();
        assert_eq!(got, (0..6).collect::<Vec<u32>>());
        let uses: u64 = (0..6).map(|i| l.obj(i).load(Ordering::Relaxed)).sum();
        assert!(uses > 0);
    }
}
