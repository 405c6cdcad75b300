//! Splitting and merging VMAs in the tree.
//!
//! # Linux
//! `split_vma()`, `__split_vma()` and `vma_merge()` of `mm/mmap.c`
//! (Linux 6.8; `mm/vma.c` from 6.12 on). See [`vma`](super::vma) for the
//! merge predicates.

use super::flags::*;
use super::mm_struct::MmStruct;
use super::vma::{
    can_vma_merge_after, can_vma_merge_before, is_mergeable_anon_vma, MergeAttrs, Vma,
};
use crate::errno::{Errno, Result};

impl MmStruct {
    /// Splits the VMA containing `addr` (strictly inside it) in two.
    ///
    /// # Errors
    /// `ENOMEM` when `map_count >= max_map_count` (checked before
    /// splitting, as `split_vma()` does).
    pub(super) fn split_vma(&mut self, addr: u64) -> Result<()> {
        if self.map_count() >= self.max_map_count {
            return Err(Errno::ENOMEM);
        }
        self.split_vma_nocheck(addr);
        Ok(())
    }

    /// Splits the VMA containing `addr` without the map-count check.
    ///
    /// # Linux
    /// Mirrors `__split_vma()`; a no-op when `addr` is not strictly inside
    /// a VMA.
    pub(super) fn split_vma_nocheck(&mut self, addr: u64) {
        let Some(v) = self.tree.lookup(addr).filter(|v| v.start < addr).cloned() else {
            return;
        };
        let (lo, hi) = (v.slice(v.start, addr), v.slice(addr, v.end));
        let r = self.tree.replace(v.start, lo);
        debug_assert!(r.is_ok());
        let r = self.tree.insert(hi);
        debug_assert!(r.is_ok());
    }

    /// Tries to merge the range `[s, e)`, given attributes `a`, with the
    /// VMA ending at `s` and the VMA starting at `e`.
    ///
    /// `curr` is the VMA being modified that contains `[s, e)` (mprotect),
    /// or `None` when `[s, e)` is unmapped (a new or moved mapping). When
    /// `curr` starts before `s`, only the successor may merge (case 4);
    /// when it ends after `e`, only the predecessor (case 5).
    ///
    /// Returns the start of the resulting VMA, or `None` (tree unchanged)
    /// when nothing merges. Never changes `map_count` upwards.
    ///
    /// # Linux
    /// Mirrors `vma_merge()` (cases 1-8 of its comment): the predecessor is
    /// preferred when both sides merge but their anon_vmas are not
    /// compatible with each other; the merged VMA keeps the first
    /// anon_vma present.
    pub(super) fn vma_merge(
        &mut self,
        s: u64,
        e: u64,
        a: &MergeAttrs,
        curr: Option<&Vma>,
    ) -> Option<u64> {
        if a.flags & VM_SPECIAL != 0 {
            return None;
        }
        let p = if curr.is_none_or(|c| c.start == s) {
            self.tree.prev(s).filter(|p| p.end == s).cloned()
        } else {
            None
        };
        let n = if curr.is_none_or(|c| c.end == e) {
            self.tree.lookup(e).filter(|n| n.start == e).cloned()
        } else {
            None
        };
        let pglen = (e - s) >> PAGE_SHIFT;
        let merge_prev = p.as_ref().is_some_and(|p| can_vma_merge_after(p, a));
        let merge_next = n
            .as_ref()
            .is_some_and(|n| can_vma_merge_before(n, a, pglen));
        let (p, n) = match (p, n) {
            (Some(p), Some(n))
                if merge_prev
                    && merge_next
                    && is_mergeable_anon_vma(p.anon_vma, n.anon_vma, false) =>
            {
                // Cases 1 and 6: prev, curr and next become one.
                let mut m = a.to_vma(p.start, n.end);
                m.pgoff = p.pgoff;
                m.anon_vma = p.anon_vma.or(n.anon_vma).or(a.anon_vma);
                self.remove_all(&[Some(&p), curr, Some(&n)]);
                self.insert_vma(m);
                return Some(p.start);
            }
            (p, n) => (p.filter(|_| merge_prev), n.filter(|_| merge_next)),
        };
        if let Some(p) = p {
            // Cases 2, 5 and 7: prev grows over [s, e).
            let mut m = a.to_vma(p.start, e);
            m.pgoff = p.pgoff;
            m.anon_vma = p.anon_vma.or(a.anon_vma);
            self.remove_all(&[Some(&p), curr]);
            if let Some(c) = curr.filter(|c| c.end > e) {
                self.insert_vma(c.slice(e, c.end));
            }
            self.insert_vma(m);
            return Some(p.start);
        }
        let n = n?;
        // Cases 3, 4 and 8: next grows down over [s, e).
        let mut m = a.to_vma(s, n.end);
        m.anon_vma = n.anon_vma.or(a.anon_vma);
        self.remove_all(&[Some(&n), curr]);
        if let Some(c) = curr.filter(|c| c.start < s) {
            self.insert_vma(c.slice(c.start, s));
        }
        self.insert_vma(m);
        Some(s)
    }

    fn remove_all(&mut self, vmas: &[Option<&Vma>]) {
        for v in vmas.iter().flatten() {
            let r = self.tree.remove(v.start);
            debug_assert!(r.is_some());
        }
    }

    /// Inserts a VMA into a free range (internal invariant: it is free).
    pub(super) fn insert_vma(&mut self, v: Vma) {
        let r = self.tree.insert(v);
        debug_assert!(r.is_ok(), "insert over a mapped range");
    }
}
