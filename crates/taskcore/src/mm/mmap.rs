//! mmap(2), munmap(2), brk(2) and address placement.
//!
//! # Linux
//! `mm/mmap.c` (`do_mmap`, `mmap_region`, `do_vmi_munmap`,
//! `do_vmi_align_munmap`, `brk`, `do_brk_flags`, `unmapped_area`,
//! `unmapped_area_topdown`, `__get_unmapped_area`) and
//! `arch/x86/kernel/sys_x86_64.c` (`arch_get_unmapped_area*`), Linux 6.8.
//! Not modelled: rlimits (`RLIMIT_AS`, `RLIMIT_DATA`, `RLIMIT_MEMLOCK`),
//! overcommit accounting (never fails), mseal, userfaultfd, hugetlb, and
//! transparent-huge-page alignment of large mappings
//! (`thp_get_unmapped_area`): placement is that of a kernel without
//! `CONFIG_TRANSPARENT_HUGEPAGE`.

use std::sync::Arc;

use super::flags::*;
use super::mm_struct::MmStruct;
use super::vma::{can_vma_merge_after, can_vma_merge_before, FileId, MergeAttrs, Vma, VmaName};
use crate::errno::{Errno, Result};

/// An open file passed to [`MmStruct::mmap`].
///
/// # Linux
/// The parts of `struct file` that mmap consults: the inode (device and
/// number), the path shown in maps, and `f_mode` (`FMODE_READ`,
/// `FMODE_WRITE`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MmapFile {
    /// Device and inode.
    pub id: FileId,
    /// Path as /proc/PID/maps shows it.
    pub path: Arc<str>,
    /// Opened for reading (`FMODE_READ`).
    pub readable: bool,
    /// Opened for writing (`FMODE_WRITE`).
    pub writable: bool,
}

/// `MAP_32BIT` placement window (`find_start_end()` without randomisation).
const MAP_32BIT_RANGE: (u64, u64) = (0x4000_0000, 0x8000_0000);

impl MmStruct {
    /// Finds where a mapping of `len` bytes goes.
    ///
    /// With `MAP_FIXED`, `addr` itself (validated); otherwise the hint
    /// `addr` if that range is free, else the highest free range below
    /// `mmap_base` (top-down layout; falls back to bottom-up when that
    /// fails) or the lowest above `mmap_legacy_base` (legacy layout).
    ///
    /// # Errors
    /// `ENOMEM` if `len > task_size` or no range fits, `EINVAL` for an
    /// unaligned fixed address, `EPERM` for an address below
    /// `mmap_min_addr` (no `CAP_SYS_RAWIO`).
    ///
    /// # Linux
    /// Mirrors `__get_unmapped_area()` with x86_64's
    /// `arch_get_unmapped_area_topdown()` / `arch_get_unmapped_area()`,
    /// `vm_unmapped_area()` and `security_mmap_addr()` (`cap_mmap_addr`).
    pub fn get_unmapped_area(&self, addr: u64, len: u64, flags: u32) -> Result<u64> {
        let task_size = self.layout.task_size;
        if len > task_size {
            return Err(Errno::ENOMEM);
        }
        let addr = if flags & MAP_FIXED != 0 {
            addr
        } else if self.layout.topdown && flags & MAP_32BIT == 0 {
            self.arch_get_unmapped_area_topdown(addr, len, flags)?
        } else {
            self.arch_get_unmapped_area(addr, len, flags)?
        };
        if addr > task_size - len {
            return Err(Errno::ENOMEM);
        }
        if !page_aligned(addr) {
            return Err(Errno::EINVAL);
        }
        if addr < self.layout.mmap_min_addr {
            // cap_mmap_addr(): below dac_mmap_min_addr needs CAP_SYS_RAWIO.
            return Err(Errno::EPERM);
        }
        Ok(addr)
    }

    /// Whether `[addr, addr + len)` is free, keeping the guard gap below
    /// a following stack.
    fn hint_fits(&self, addr: u64, len: u64) -> bool {
        match self.tree.find(addr) {
            None => true,
            Some(v) => addr
                .checked_add(len)
                .is_some_and(|e| e <= v.start_gap(self.layout.stack_guard_gap)),
        }
    }

    fn arch_get_unmapped_area_topdown(&self, addr0: u64, len: u64, flags: u32) -> Result<u64> {
        if addr0 != 0 {
            let addr = addr0 & !(PAGE_SIZE - 1);
            // mmap_address_hint_valid(): within TASK_SIZE (one map window).
            if addr <= self.layout.task_size - len && self.hint_fits(addr, len) {
                return Ok(addr);
            }
        }
        match self.unmapped_area_topdown(len, PAGE_SIZE, self.layout.mmap_base) {
            Some(a) => Ok(a),
            // A failed mmap() very likely causes application failure, so
            // Linux falls back to the bottom-up allocator.
            None => self.arch_get_unmapped_area(addr0, len, flags),
        }
    }

    fn arch_get_unmapped_area(&self, addr0: u64, len: u64, flags: u32) -> Result<u64> {
        let (begin, end) = if flags & MAP_32BIT != 0 {
            MAP_32BIT_RANGE
        } else {
            (self.layout.mmap_legacy_base, self.layout.task_size)
        };
        if len > end {
            return Err(Errno::ENOMEM);
        }
        if addr0 != 0 {
            let addr = page_align(addr0);
            if end - len >= addr && self.hint_fits(addr, len) {
                return Ok(addr);
            }
        }
        self.unmapped_area(len, begin, end).ok_or(Errno::ENOMEM)
    }

    /// Mirrors `unmapped_area_topdown()`: the highest free range, retried
    /// below the guard gap of a stack found right above it.
    fn unmapped_area_topdown(&self, len: u64, low: u64, high: u64) -> Option<u64> {
        let low = low.max(self.layout.mmap_min_addr);
        let mut high = high;
        loop {
            let gap = self.tree.gap_topdown(len, low, high)?;
            let gap_end = gap + len;
            if let Some(next) = self.tree.find(gap).filter(|v| v.flags & VM_GROWSDOWN != 0) {
                let sg = next.start_gap(self.layout.stack_guard_gap);
                if sg < gap_end {
                    high = sg;
                    if high <= low || high - low < len {
                        return None;
                    }
                    continue;
                }
            }
            return Some(gap);
        }
    }

    /// Mirrors `unmapped_area()`: the lowest free range, retried above a
    /// stack whose guard gap it would enter.
    fn unmapped_area(&self, len: u64, low: u64, high: u64) -> Option<u64> {
        let mut low = low.max(self.layout.mmap_min_addr);
        loop {
            let gap = self.tree.gap_bottomup(len, low, high)?;
            if let Some(next) = self.tree.find(gap).filter(|v| v.flags & VM_GROWSDOWN != 0) {
                if next.start_gap(self.layout.stack_guard_gap) < gap + len - 1 {
                    low = next.end;
                    continue;
                }
            }
            return Some(gap);
        }
    }

    /// Maps `len` bytes at `addr` (a hint, or exact with `MAP_FIXED`),
    /// returning the address.
    ///
    /// `file` is the open file for file mappings and is ignored with
    /// `MAP_ANONYMOUS`; `pgoff` is the file offset in pages (mmap2's
    /// argument; mmap's byte offset is `pgoff << PAGE_SHIFT`). The new
    /// range merges with compatible neighbours. Shared anonymous memory
    /// gets a fresh shmem inode (`00:01`, shown as `/dev/zero (deleted)`)
    /// and never merges.
    ///
    /// # Errors
    /// - `EBADF`: no `MAP_ANONYMOUS` and no file.
    /// - `EINVAL`: `len == 0`; unaligned `MAP_FIXED` address; no or bad
    ///   `MAP_TYPE`; `MAP_GROWSDOWN` with a file or `MAP_SHARED`;
    ///   `MAP_HUGETLB` with a regular file.
    /// - `ENOMEM`: `len` rounds past the address space; `map_count >
    ///   max_map_count`; no free range; `MAP_FIXED` would split a VMA while
    ///   `map_count >= max_map_count`; anonymous `MAP_HUGETLB` (no huge
    ///   pages reserved).
    /// - `EOVERFLOW`: `pgoff + pages` wraps.
    /// - `EEXIST`: `MAP_FIXED_NOREPLACE` over a mapped range.
    /// - `EACCES`: file not opened for reading; `MAP_SHARED` and
    ///   `PROT_WRITE` on a file not opened for writing.
    /// - `EOPNOTSUPP`: `MAP_SHARED_VALIDATE` with an unknown flag.
    /// - `EPERM`: `MAP_FIXED` below `mmap_min_addr`.
    ///
    /// # Examples
    /// ```
    /// use taskcore::mm::{flags::*, MmStruct};
    /// let mut mm = MmStruct::default();
    /// let rw = PROT_READ | PROT_WRITE;
    /// let a = mm.mmap(0, 8192, rw, MAP_PRIVATE | MAP_ANONYMOUS, None, 0)?;
    /// assert_eq!(a, mm.layout().mmap_base - 8192); // top-down
    /// let b = mm.mmap(0, 4096, rw, MAP_PRIVATE | MAP_ANONYMOUS, None, 0)?;
    /// assert_eq!(b, a - 4096);
    /// assert_eq!(mm.map_count(), 1); // merged with its neighbour
    /// let fixed = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE;
    /// assert_eq!(mm.mmap(a, 4096, rw, fixed, None, 0), Err(taskcore::Errno::EEXIST));
    /// # Ok::<(), taskcore::Errno>(())
    /// ```
    ///
    /// # Linux
    /// Mirrors `ksys_mmap_pgoff()` → `do_mmap()` → `mmap_region()`.
    pub fn mmap(
        &mut self,
        addr: u64,
        len: u64,
        prot: u32,
        flags: u32,
        file: Option<&MmapFile>,
        pgoff: u64,
    ) -> Result<u64> {
        let file = if flags & MAP_ANONYMOUS != 0 {
            if flags & MAP_HUGETLB != 0 {
                // hugetlb_file_setup() fails: no huge pages reserved.
                return Err(Errno::ENOMEM);
            }
            None
        } else {
            let f = file.ok_or(Errno::EBADF)?;
            if flags & MAP_HUGETLB != 0 {
                return Err(Errno::EINVAL);
            }
            Some(f)
        };
        // do_mmap()
        if len == 0 {
            return Err(Errno::EINVAL);
        }
        let mut flags = flags;
        if flags & MAP_FIXED_NOREPLACE != 0 {
            flags |= MAP_FIXED;
        }
        let mut addr = addr;
        if flags & MAP_FIXED == 0 {
            // round_hint_to_min()
            addr &= !(PAGE_SIZE - 1);
            if addr != 0 && addr < self.layout.mmap_min_addr {
                addr = page_align(self.layout.mmap_min_addr);
            }
        }
        let len = page_align(len);
        if len == 0 {
            return Err(Errno::ENOMEM);
        }
        let mut pgoff = pgoff;
        if pgoff.checked_add(len >> PAGE_SHIFT).is_none() {
            return Err(Errno::EOVERFLOW);
        }
        if self.map_count() > self.max_map_count {
            return Err(Errno::ENOMEM);
        }
        let vm_prot = prot & (PROT_READ | PROT_WRITE | PROT_EXEC);
        // calc_vm_flag_bits() (MAP_STACK -> VM_NOHUGEPAGE since 6.7).
        let mut vm_flags = VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC;
        if flags & MAP_GROWSDOWN != 0 {
            vm_flags |= VM_GROWSDOWN;
        }
        if flags & MAP_LOCKED != 0 {
            vm_flags |= VM_LOCKED;
        }
        if flags & MAP_STACK != 0 {
            vm_flags |= VM_NOHUGEPAGE;
        }
        let addr = self.get_unmapped_area(addr, len, flags)?;
        if flags & MAP_FIXED_NOREPLACE != 0
            && self.tree.find_intersection(addr, addr + len).is_some()
        {
            return Err(Errno::EEXIST);
        }
        match file {
            Some(f) => {
                match flags & MAP_TYPE {
                    t @ (MAP_SHARED | MAP_SHARED_VALIDATE) => {
                        let fl = if t == MAP_SHARED {
                            flags & LEGACY_MAP_MASK
                        } else {
                            flags
                        };
                        if fl & !LEGACY_MAP_MASK & !MAP_TYPE != 0 {
                            return Err(Errno::EOPNOTSUPP);
                        }
                        if prot & PROT_WRITE != 0 && !f.writable {
                            return Err(Errno::EACCES);
                        }
                        vm_flags |= VM_SHARED | VM_MAYSHARE;
                        if !f.writable {
                            vm_flags &= !(VM_MAYWRITE | VM_SHARED);
                        }
                    }
                    MAP_PRIVATE => {}
                    _ => return Err(Errno::EINVAL),
                }
                if !f.readable {
                    return Err(Errno::EACCES);
                }
                if vm_flags & VM_GROWSDOWN != 0 {
                    return Err(Errno::EINVAL);
                }
            }
            None => match flags & MAP_TYPE {
                MAP_SHARED => {
                    if vm_flags & VM_GROWSDOWN != 0 {
                        return Err(Errno::EINVAL);
                    }
                    pgoff = 0;
                    vm_flags |= VM_SHARED | VM_MAYSHARE;
                }
                MAP_PRIVATE => pgoff = addr >> PAGE_SHIFT,
                _ => return Err(Errno::EINVAL),
            },
        }
        if flags & MAP_NORESERVE != 0 {
            // Honoured unless vm.overcommit_memory == 2 (not modelled).
            vm_flags |= VM_NORESERVE;
        }
        self.mmap_region(file, addr, len, vm_prot, vm_flags, pgoff)
    }

    /// Mirrors `mmap_region()`: unmap the target, then expand a neighbour
    /// (next first, then prev, as `vma_expand()`) or insert a new VMA.
    fn mmap_region(
        &mut self,
        file: Option<&MmapFile>,
        addr: u64,
        len: u64,
        prot: u32,
        flags: u64,
        pgoff: u64,
    ) -> Result<u64> {
        let end = addr + len;
        // Unmap any existing mapping in the area; its errors become ENOMEM.
        self.do_munmap(addr, end).map_err(|_| Errno::ENOMEM)?;
        let mut flags = flags;
        // accountable_mapping(): private writable, not VM_NORESERVE.
        if prot & PROT_WRITE != 0 && flags & (VM_NORESERVE | VM_SHARED) == 0 {
            flags |= VM_ACCOUNT;
        }
        let attrs = MergeAttrs {
            prot,
            flags,
            file: file.map(|f| f.id),
            pgoff,
            name: file.map_or(VmaName::None, |f| VmaName::Path(f.path.clone())),
            anon_vma: None,
        };
        let shared_anon = file.is_none() && flags & VM_SHARED != 0;
        if !shared_anon {
            let pglen = len >> PAGE_SHIFT;
            let next = self.tree.lookup(end).filter(|n| n.start == end).cloned();
            let prev = self.tree.prev(addr).filter(|p| p.end == addr).cloned();
            let mut merged: Option<Vma> = None;
            if let Some(n) = next
                .as_ref()
                .filter(|n| can_vma_merge_before(n, &attrs, pglen))
            {
                let mut m = attrs.to_vma(addr, n.end);
                m.anon_vma = n.anon_vma;
                merged = Some(m);
            }
            let prev_ok = prev.as_ref().is_some_and(|p| {
                let a = MergeAttrs {
                    anon_vma: merged.as_ref().and_then(|m| m.anon_vma),
                    ..attrs.clone()
                };
                can_vma_merge_after(p, &a)
            });
            if let (true, Some(p)) = (prev_ok, prev.as_ref()) {
                let m_end = merged.as_ref().map_or(end, |m| m.end);
                let mut m = attrs.to_vma(p.start, m_end);
                m.pgoff = p.pgoff;
                m.anon_vma = p.anon_vma.or(merged.as_ref().and_then(|m| m.anon_vma));
                merged = Some(m);
            }
            if let Some(m) = merged {
                if let Some(p) = prev.filter(|p| p.start == m.start) {
                    self.tree.remove(p.start);
                }
                if let Some(n) = next.filter(|n| n.end == m.end) {
                    self.tree.remove(n.start);
                }
                self.insert_vma(m);
                return Ok(addr);
            }
        }
        let mut v = attrs.to_vma(addr, end);
        if shared_anon {
            // shmem_zero_setup(): a new shmem inode on the internal mount.
            v.file = Some(FileId {
                major: 0,
                minor: 1,
                inode: self.next_shmem_ino,
            });
            self.next_shmem_ino += 1;
            v.name = VmaName::Path("/dev/zero (deleted)".into());
        }
        self.insert_vma(v);
        Ok(addr)
    }

    /// Unmaps `[addr, addr + len)`, splitting VMAs at the edges.
    ///
    /// # Errors
    /// - `EINVAL`: `addr` unaligned, `addr > task_size`, `len > task_size -
    ///   addr`, or `len` rounds to 0.
    /// - `ENOMEM`: the range lies strictly inside one VMA (a split into
    ///   three) while `map_count >= max_map_count`.
    ///
    /// # Linux
    /// Mirrors `__vm_munmap()` → `do_vmi_munmap()` →
    /// `do_vmi_align_munmap()`.
    pub fn munmap(&mut self, addr: u64, len: u64) -> Result<()> {
        let task_size = self.layout.task_size;
        if !page_aligned(addr) || addr > task_size || len > task_size - addr {
            return Err(Errno::EINVAL);
        }
        let end = addr + page_align(len);
        if end == addr {
            return Err(Errno::EINVAL);
        }
        self.do_munmap(addr, end)
    }

    /// Mirrors `do_vmi_align_munmap()` for an aligned `[start, end)`.
    pub(super) fn do_munmap(&mut self, start: u64, end: u64) -> Result<()> {
        let Some(first) = self.tree.find_intersection(start, end).cloned() else {
            return Ok(());
        };
        if start > first.start {
            // Make sure map_count on return will not exceed its limit, but
            // let it go just above temporarily.
            if end < first.end && self.map_count() >= self.max_map_count {
                return Err(Errno::ENOMEM);
            }
            self.split_vma_nocheck(start);
        }
        self.split_vma_nocheck(end);
        let doomed: Vec<u64> = self
            .tree
            .iter_from(start)
            .take_while(|v| v.start < end)
            .map(|v| v.start)
            .collect();
        for s in doomed {
            self.tree.remove(s);
        }
        Ok(())
    }

    /// Sets the program break to `brk`, returning the new break, or the
    /// old one if the change is refused (brk(2) reports failure that way).
    ///
    /// Growing extends the last brk VMA when it merges, else maps a new
    /// anonymous VMA; shrinking unmaps. Refused when `brk < start_brk`,
    /// when the grown area would come within one page (plus the stack
    /// guard gap below a stack) of the next VMA, when no VMA is found to
    /// shrink, when the area passes `task_size`, or past `max_map_count`.
    ///
    /// # Linux
    /// Mirrors `SYSCALL_DEFINE1(brk)` and `do_brk_flags()` (without
    /// `CONFIG_COMPAT_BRK` and `RLIMIT_DATA`).
    pub fn brk(&mut self, brk: u64) -> u64 {
        let orig = self.layout.brk;
        match self.do_brk(brk) {
            Ok(()) => {
                self.layout.brk = brk;
                brk
            }
            Err(_) => orig,
        }
    }

    fn do_brk(&mut self, brk: u64) -> Result<()> {
        let l = self.layout;
        if brk < l.start_brk {
            return Err(Errno::EINVAL);
        }
        let newbrk = page_align(brk);
        let oldbrk = page_align(l.brk);
        if newbrk == oldbrk {
            return Ok(());
        }
        if brk <= l.brk {
            // Always allow shrinking brk, if something is mapped there.
            if self.tree.find_intersection(newbrk, oldbrk).is_none() {
                return Err(Errno::ENOMEM);
            }
            return self.do_munmap(newbrk, oldbrk);
        }
        if newbrk < oldbrk {
            // PAGE_ALIGN() wrapped.
            return Err(Errno::ENOMEM);
        }
        let len = newbrk - oldbrk;
        // check_brk_limits(): get_unmapped_area(MAP_FIXED) checks.
        self.get_unmapped_area(oldbrk, len, MAP_FIXED)?;
        // The next VMA must leave a page (and a stack guard gap) free.
        if let Some(next) = self.tree.find(oldbrk) {
            if newbrk.saturating_add(PAGE_SIZE) > next.start_gap(l.stack_guard_gap) {
                return Err(Errno::ENOMEM);
            }
        }
        // do_brk_flags()
        if self.map_count() > self.max_map_count {
            return Err(Errno::ENOMEM);
        }
        let attrs = MergeAttrs {
            prot: PROT_READ | PROT_WRITE,
            flags: (VM_DATA_DEFAULT_FLAGS & !VM_ACCESS_FLAGS) | VM_ACCOUNT,
            file: None,
            pgoff: oldbrk >> PAGE_SHIFT,
            name: VmaName::None,
            anon_vma: None,
        };
        // vma_prev_limit(&vmi, mm->start_brk): the VMA below oldbrk, if it
        // reaches above start_brk.
        let brkvma = self
            .tree
            .prev(oldbrk)
            .filter(|v| v.end > l.start_brk)
            .cloned();
        if let Some(v) = brkvma.filter(|v| v.end == oldbrk && can_vma_merge_after(v, &attrs)) {
            let grown = Vma { end: newbrk, ..v };
            let r = self.tree.replace(grown.start, grown);
            debug_assert!(r.is_ok());
            return Ok(());
        }
        self.insert_vma(attrs.to_vma(oldbrk, newbrk));
        Ok(())
    }
}
