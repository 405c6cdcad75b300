//! mprotect(2).
//!
//! # Linux
//! `mm/mprotect.c`: `do_mprotect_pkey()` and `mprotect_fixup()`, with
//! `vma_modify_flags()` (merge, else split) from `mm/mmap.c`, Linux 6.8.

use super::flags::*;
use super::mm_struct::MmStruct;
use super::vma::{MergeAttrs, Vma};
use crate::errno::{Errno, Result};

impl MmStruct {
    /// Changes the protection of `[start, start + len)` to `prot`.
    ///
    /// VMAs are split at the range edges and the changed parts merge with
    /// compatible neighbours. Making private memory writable charges it
    /// (`VM_ACCOUNT`, which then keeps it from merging with uncharged
    /// neighbours); making unfaulted anonymous memory read-only uncharges
    /// it. `PROT_GROWSDOWN` extends the range down to the start of a
    /// `VM_GROWSDOWN` VMA.
    ///
    /// # Errors
    /// - `EINVAL`: `start` unaligned; unknown `prot` bits; both
    ///   `PROT_GROWSDOWN` and `PROT_GROWSUP`; `PROT_GROWSDOWN` on a VMA
    ///   without `VM_GROWSDOWN`; `PROT_GROWSUP` (x86 has no `VM_GROWSUP`).
    /// - `ENOMEM`: the range wraps, or is not fully mapped; a needed split
    ///   finds `map_count >= max_map_count`.
    /// - `EACCES`: asking for a permission the mapping may not get (e.g.
    ///   `PROT_WRITE` on a shared mapping of a file opened read-only).
    ///
    /// `len == 0` succeeds without effect (after the alignment check).
    ///
    /// Not atomic, as Linux's: a hole in the middle or at the end of the
    /// range, an `EACCES` or a split at `max_map_count` is found while
    /// walking the VMAs, and those before it keep their new protection
    /// (a hole at the start changes nothing).
    ///
    /// # Linux
    /// Mirrors `do_mprotect_pkey()` (no pkeys, no `READ_IMPLIES_EXEC`).
    pub fn mprotect(&mut self, start: u64, len: u64, prot: u32) -> Result<()> {
        let grows = prot & (PROT_GROWSDOWN | PROT_GROWSUP);
        let prot = prot & !(PROT_GROWSDOWN | PROT_GROWSUP);
        if grows == PROT_GROWSDOWN | PROT_GROWSUP {
            return Err(Errno::EINVAL);
        }
        if !page_aligned(start) {
            return Err(Errno::EINVAL);
        }
        if len == 0 {
            return Ok(());
        }
        let end = start.wrapping_add(page_align(len));
        if end <= start {
            return Err(Errno::ENOMEM);
        }
        // arch_validate_prot() (generic): only R/W/X/SEM.
        if prot & !(PROT_READ | PROT_WRITE | PROT_EXEC | PROT_SEM) != 0 {
            return Err(Errno::EINVAL);
        }
        let prot = prot & (PROT_READ | PROT_WRITE | PROT_EXEC);
        // Like Linux, VMA by VMA: a hole, an EACCES or a failed split stops
        // the walk, and the VMAs already changed stay changed.
        self.do_mprotect(start, end, prot, grows)
    }

    fn do_mprotect(&mut self, start: u64, end: u64, prot: u32, grows: u32) -> Result<()> {
        let vma = self
            .tree
            .find_intersection(start, end)
            .cloned()
            .ok_or(Errno::ENOMEM)?;
        let mut start = start;
        if grows & PROT_GROWSDOWN != 0 {
            start = vma.start;
            if vma.flags & VM_GROWSDOWN == 0 {
                return Err(Errno::EINVAL);
            }
        } else {
            if vma.start > start {
                return Err(Errno::ENOMEM);
            }
            if grows & PROT_GROWSUP != 0 {
                // VM_GROWSUP is VM_NONE on x86.
                return Err(Errno::EINVAL);
            }
        }
        let mut nstart = start;
        let mut tmp = vma.start;
        while let Some(v) = self.tree.find_intersection(nstart, end).cloned() {
            if v.start != tmp {
                return Err(Errno::ENOMEM);
            }
            let newflags = u64::from(prot) | v.flags;
            // newflags >> 4 shifts VM_MAY% in place of VM_%.
            if (newflags & !(newflags >> 4)) & VM_ACCESS_FLAGS != 0 {
                return Err(Errno::EACCES);
            }
            tmp = v.end.min(end);
            tmp = self.mprotect_fixup(&v, nstart, tmp, prot)?;
            nstart = tmp;
        }
        if tmp < end {
            return Err(Errno::ENOMEM);
        }
        Ok(())
    }

    /// Mirrors `mprotect_fixup()`; returns the end of the VMA now covering
    /// `[s, e)` (`vma_iter_end()`).
    fn mprotect_fixup(&mut self, v: &Vma, s: u64, e: u64, prot: u32) -> Result<u64> {
        let mut flags = v.flags;
        if prot == v.prot {
            return Ok(v.end);
        }
        if prot & PROT_WRITE != 0 {
            // A private mapping made writable is charged.
            if v.prot & PROT_WRITE == 0
                && v.flags & (VM_ACCOUNT | VM_HUGETLB | VM_SHARED | VM_NORESERVE) == 0
            {
                flags |= VM_ACCOUNT;
            }
        } else if v.flags & VM_ACCOUNT != 0 && v.is_anonymous() && v.anon_vma.is_none() {
            // Unfaulted anonymous memory made read-only is uncharged.
            flags &= !VM_ACCOUNT;
        }
        let attrs = MergeAttrs {
            prot,
            flags,
            ..MergeAttrs::of(v, s)
        };
        // vma_modify(): merge first, else split and change in place.
        if let Some(ms) = self.vma_merge(s, e, &attrs, Some(v)) {
            return Ok(self.tree.lookup(ms).map_or(e, |m| m.end));
        }
        if v.start < s {
            self.split_vma(s)?;
        }
        if v.end > e {
            self.split_vma(e)?;
        }
        let r = self.tree.replace(s, attrs.to_vma(s, e));
        debug_assert!(r.is_ok());
        Ok(e)
    }
}
