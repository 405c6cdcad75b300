//! mremap(2).
//!
//! # Linux
//! `mm/mremap.c`: `SYSCALL_DEFINE5(mremap)`, `mremap_to()`,
//! `vma_to_resize()`, `vma_expandable()`, `move_vma()`, with
//! `vma_merge_extend()` and `copy_vma()` from `mm/mmap.c`, Linux 6.8.
//! Page contents are not modelled: moving is a VMA operation here.

use super::flags::*;
use super::mm_struct::MmStruct;
use super::vma::{MergeAttrs, Vma};
use crate::errno::{Errno, Result};

impl MmStruct {
    /// Resizes and/or moves the mapping at `old_addr`, returning its new
    /// address.
    ///
    /// Shrinking unmaps the tail. Growing extends in place when the VMA
    /// ends at `old_addr + old_len` and the space above is free; otherwise,
    /// with `MREMAP_MAYMOVE`, the range moves to a new place (or to
    /// `new_addr` with `MREMAP_FIXED`, unmapping what is there).
    /// `MREMAP_DONTUNMAP` moves without unmapping the old range. An
    /// `old_len` of 0 on a shared mapping duplicates it.
    ///
    /// # Errors
    /// - `EINVAL`: unknown flags; `MREMAP_FIXED` or `MREMAP_DONTUNMAP`
    ///   without `MREMAP_MAYMOVE`; `MREMAP_DONTUNMAP` with `old_len !=
    ///   new_len` or on a `VM_DONTEXPAND`/`VM_PFNMAP` mapping; unaligned
    ///   `old_addr` or `new_addr`; `new_len` rounding to 0; overlapping old
    ///   and new ranges; `old_len == 0` on a private mapping; page offset
    ///   overflow; `new_addr + new_len` beyond `task_size`.
    /// - `EFAULT`: no VMA at `old_addr`; `[old_addr, old_addr + old_len)`
    ///   runs past that VMA (when growing or moving); growing a
    ///   `VM_DONTEXPAND`/`VM_PFNMAP` mapping.
    /// - `ENOMEM`: cannot grow in place without `MREMAP_MAYMOVE`; no free
    ///   range; too close to `max_map_count` (`map_count + 2 >=
    ///   max_map_count - 3` for a fixed move, `map_count >= max_map_count
    ///   - 3` for any move); a shrink would split a VMA at the limit.
    /// - `EPERM`: target below `mmap_min_addr`.
    ///
    /// A fixed move that keeps the size (`MREMAP_FIXED`, `old_len ==
    /// new_len`) may span several VMAs, gaps included but not at the start
    /// (`EFAULT`), each moved to keep its distance from the previous one.
    /// Like Linux, it is applied VMA by VMA: on a failure the VMAs already
    /// moved stay moved.
    ///
    /// # Linux
    /// Mirrors `SYSCALL_DEFINE5(mremap)` as of Linux 6.17
    /// (`check_mremap_params()`, `remap_move()`, `check_prep_vma()`).
    /// Divergence: Linux unmaps the target of `MREMAP_FIXED` (and a shrunk
    /// tail) of a single-VMA call before later checks that may fail; here
    /// such a failed call changes nothing.
    pub fn mremap(
        &mut self,
        old_addr: u64,
        old_len: u64,
        new_len: u64,
        flags: u32,
        new_addr: u64,
    ) -> Result<u64> {
        // check_mremap_params(), in Linux's order (the first failing check
        // decides the errno).
        if flags & !(MREMAP_FIXED | MREMAP_MAYMOVE | MREMAP_DONTUNMAP) != 0 {
            return Err(Errno::EINVAL);
        }
        if !page_aligned(old_addr) {
            return Err(Errno::EINVAL);
        }
        let old_len = page_align(old_len);
        let new_len = page_align(new_len);
        if new_len == 0 || new_len > self.layout.task_size {
            return Err(Errno::EINVAL);
        }
        if flags & (MREMAP_FIXED | MREMAP_DONTUNMAP) != 0 {
            if new_addr > self.layout.task_size - new_len || !page_aligned(new_addr) {
                return Err(Errno::EINVAL);
            }
            if flags & MREMAP_MAYMOVE == 0 {
                return Err(Errno::EINVAL);
            }
            if flags & MREMAP_DONTUNMAP != 0 && old_len != new_len {
                return Err(Errno::EINVAL);
            }
            // vrm_overlaps(): the target must not overlap the source.
            if old_addr.saturating_add(old_len) > new_addr && new_addr + new_len > old_addr {
                return Err(Errno::EINVAL);
            }
        }
        // A fixed move that keeps the size may span several VMAs (Linux
        // 6.17, remap_move()); like Linux, it is not atomic: the VMAs
        // moved before a failure stay moved.
        if flags & MREMAP_FIXED != 0 && old_len == new_len {
            return self.remap_move(old_addr, old_len, flags, new_addr);
        }
        if self.tree.lookup(old_addr).is_none() {
            return Err(Errno::EFAULT);
        }
        let mut mm = self.clone();
        let r = mm.do_mremap(old_addr, old_len, new_len, flags, new_addr)?;
        *self = mm;
        Ok(r)
    }

    /// `remap_move()`: moves every VMA of `[start, start + len)` (split at
    /// the ends) to `new_addr`, keeping the gaps between them; no gap is
    /// allowed at the start (`EFAULT`, as is a range with no VMA). Returns
    /// where the first one went.
    fn remap_move(&mut self, start: u64, len: u64, flags: u32, new_addr: u64) -> Result<u64> {
        let end = start + len;
        let mut target = new_addr;
        let mut first = None;
        let mut last_end = 0;
        let mut cursor = start;
        while cursor < end {
            let Some(vma) = self.tree.find_intersection(cursor, end).cloned() else {
                break;
            };
            if first.is_none() && start < vma.start {
                return Err(Errno::EFAULT);
            }
            let addr = vma.start.max(start);
            let piece = end.min(vma.end) - addr;
            let offset = if first.is_some() {
                vma.start - last_end
            } else {
                0
            };
            last_end = vma.end;
            // Each piece is a single-VMA fixed move of its own size
            // (check_prep_vma() + mremap_to()); a failure keeps what moved.
            let mut mm = self.clone();
            let got = mm.mremap_to(addr, piece, target + offset, piece, flags)?;
            *self = mm;
            first.get_or_insert(got);
            target = got + piece;
            cursor = vma.end;
        }
        first.ok_or(Errno::EFAULT)
    }

    fn do_mremap(
        &mut self,
        addr: u64,
        old_len: u64,
        new_len: u64,
        flags: u32,
        new_addr: u64,
    ) -> Result<u64> {
        if flags & (MREMAP_FIXED | MREMAP_DONTUNMAP) != 0 {
            return self.mremap_to(addr, old_len, new_addr, new_len, flags);
        }
        // Always allow a shrinking remap: that just unmaps the tail.
        if old_len >= new_len {
            if old_len > new_len {
                // An end past the address space is munmap's EINVAL.
                let tail = addr.checked_add(new_len).ok_or(Errno::EINVAL)?;
                self.munmap(tail, old_len - new_len)?;
            }
            return Ok(addr);
        }
        let vma = self.vma_to_resize(addr, old_len, new_len, flags)?;
        // old_len exactly to the end of the area: can we just expand?
        if old_len == vma.end - addr {
            let delta = new_len - old_len;
            if self.vma_expandable(&vma, delta) {
                let end = vma.end;
                let attrs = MergeAttrs::of(&vma, end.wrapping_sub(PAGE_SIZE));
                let attrs = MergeAttrs {
                    pgoff: vma.pgoff_at(end),
                    ..attrs
                };
                // vma_merge_extend(): the extension merges with the VMA
                // itself and perhaps with the next one.
                return match self.vma_merge(end, end + delta, &attrs, None) {
                    Some(_) => Ok(addr),
                    None => Err(Errno::ENOMEM),
                };
            }
        }
        if flags & MREMAP_MAYMOVE == 0 {
            return Err(Errno::ENOMEM);
        }
        let map_flags = if vma.is_shared() { MAP_SHARED } else { 0 };
        let new_addr = self.get_unmapped_area(0, new_len, map_flags)?;
        self.move_vma(&vma, addr, old_len, new_len, new_addr, flags)
    }

    fn mremap_to(
        &mut self,
        addr: u64,
        old_len: u64,
        new_addr: u64,
        new_len: u64,
        flags: u32,
    ) -> Result<u64> {
        let task_size = self.layout.task_size;
        if !page_aligned(new_addr) {
            return Err(Errno::EINVAL);
        }
        if new_len > task_size || new_addr > task_size - new_len {
            return Err(Errno::EINVAL);
        }
        // Ensure the old/new locations do not overlap.
        if addr.saturating_add(old_len) > new_addr && new_addr + new_len > addr {
            return Err(Errno::EINVAL);
        }
        // Worst case both VMAs split in three: stay 4 maps below the limit.
        if self.map_count() as i64 + 2 >= self.max_map_count as i64 - 3 {
            return Err(Errno::ENOMEM);
        }
        if flags & MREMAP_FIXED != 0 {
            self.munmap(new_addr, new_len)?;
        }
        let mut old_len = old_len;
        if old_len > new_len {
            self.munmap(addr + new_len, old_len - new_len)?;
            old_len = new_len;
        }
        let vma = self.vma_to_resize(addr, old_len, new_len, flags)?;
        let mut map_flags = 0;
        if flags & MREMAP_FIXED != 0 {
            map_flags |= MAP_FIXED;
        }
        if vma.is_shared() {
            map_flags |= MAP_SHARED;
        }
        let got = self.get_unmapped_area(new_addr, new_len, map_flags)?;
        let new_addr = if flags & MREMAP_FIXED != 0 {
            new_addr
        } else {
            got
        };
        self.move_vma(&vma, addr, old_len, new_len, new_addr, flags)
    }

    /// Mirrors `vma_to_resize()`.
    fn vma_to_resize(&self, addr: u64, old_len: u64, new_len: u64, flags: u32) -> Result<Vma> {
        let vma = self.tree.lookup(addr).cloned().ok_or(Errno::EFAULT)?;
        // Duplicating a private mapping makes no sense.
        if old_len == 0 && vma.flags & (VM_SHARED | VM_MAYSHARE) == 0 {
            return Err(Errno::EINVAL);
        }
        if flags & MREMAP_DONTUNMAP != 0 && vma.flags & (VM_DONTEXPAND | VM_PFNMAP) != 0 {
            return Err(Errno::EINVAL);
        }
        // We can't remap across vm area boundaries.
        if old_len > vma.end - addr {
            return Err(Errno::EFAULT);
        }
        if new_len == old_len {
            return Ok(vma);
        }
        if vma
            .pgoff_at(addr)
            .checked_add(new_len >> PAGE_SHIFT)
            .is_none()
        {
            return Err(Errno::EINVAL);
        }
        if vma.flags & (VM_DONTEXPAND | VM_PFNMAP) != 0 {
            return Err(Errno::EFAULT);
        }
        Ok(vma)
    }

    /// Mirrors `vma_expandable()`.
    fn vma_expandable(&self, vma: &Vma, delta: u64) -> bool {
        let Some(end) = vma.end.checked_add(delta) else {
            return false;
        };
        self.tree.find_intersection(vma.end, end).is_none()
            && self
                .get_unmapped_area(vma.start, end - vma.start, MAP_FIXED)
                .is_ok()
    }

    /// Mirrors `move_vma()` with `copy_vma()`.
    fn move_vma(
        &mut self,
        vma: &Vma,
        old_addr: u64,
        old_len: u64,
        new_len: u64,
        new_addr: u64,
        flags: u32,
    ) -> Result<u64> {
        // We'd prefer to avoid failure later on in do_munmap, which may
        // split one vma into three before unmapping.
        if self.map_count() as i64 >= self.max_map_count as i64 - 3 {
            return Err(Errno::ENOMEM);
        }
        // copy_vma(): unfaulted anonymous memory takes the new address as
        // its offset, so that it can merge at the destination.
        let mut attrs = MergeAttrs::of(vma, old_addr);
        if vma.is_anonymous() && vma.anon_vma.is_none() {
            attrs.pgoff = new_addr >> PAGE_SHIFT;
        }
        let new_end = new_addr + new_len;
        let merged = self.vma_merge(new_addr, new_end, &attrs, None);
        if merged.is_none() {
            self.insert_vma(attrs.to_vma(new_addr, new_end));
        }
        if flags & MREMAP_DONTUNMAP != 0 {
            if let Some(old) = self.tree.lookup(old_addr).cloned() {
                let mut o = old.clone();
                o.flags &= !VM_LOCKED_MASK;
                if merged.is_none() && old.start == old_addr && old.end == old_addr + old_len {
                    // unlink_anon_vmas(): the pages moved away.
                    o.anon_vma = None;
                }
                let r = self.tree.replace(old.start, o);
                debug_assert!(r.is_ok());
            }
            return Ok(new_addr);
        }
        // Linux ignores a failure here (the pages already moved).
        let _ = self.munmap(old_addr, old_len);
        Ok(new_addr)
    }
}
