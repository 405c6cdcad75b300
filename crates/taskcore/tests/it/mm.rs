//! Address-space tests: random mmap/munmap/mprotect/mremap/brk sequences
//! against a plain reference model, /proc/PID/maps round trips on real
//! files, and fork duplication.
//!
//! The model keeps a sorted `Vec<Vma>` and redoes each call with linear
//! scans. Instead of `vma_merge()`'s case analysis it records which VMAs an
//! operation created or changed ("touched") and merges each touched VMA
//! with the adjacent VMAs the call allows, which is what Linux's merge
//! cases amount to. The generated calls use anonymous memory (private and
//! shared), so anon_vma and file identity never block a merge; `VM_ACCOUNT`
//! does.

use proptest::prelude::*;
use taskcore::mm::flags::*;
use taskcore::mm::{parse_maps, render_maps, FileId, MmLayout, MmStruct, Vma, VmaName};
use taskcore::Errno;

const TASK: u64 = 0x2000_0000;

fn layout() -> MmLayout {
    MmLayout {
        task_size: TASK,
        mmap_base: 0x1000_0000,
        mmap_legacy_base: 0x0800_0000,
        topdown: true,
        mmap_min_addr: 0x1_0000,
        stack_guard_gap: 16 * PAGE_SIZE,
        start_brk: 0x0100_0000,
        brk: 0x0100_0000,
        start_stack: 0,
    }
}

#[derive(Clone, Debug)]
enum Op {
    Mmap {
        addr: u64,
        len: u64,
        prot: u32,
        flags: u32,
    },
    Munmap {
        addr: u64,
        len: u64,
    },
    Mprotect {
        addr: u64,
        len: u64,
        prot: u32,
    },
    Mremap {
        addr: u64,
        old: u64,
        new: u64,
        flags: u32,
        new_addr: u64,
    },
    Brk {
        brk: u64,
    },
}

/// Addresses: mostly page numbers in a crowded window, sometimes anywhere
/// (also unaligned or huge) to hit the error paths.
fn addr() -> impl Strategy<Value = u64> {
    prop_oneof![
        8 => (0u64..64).prop_map(|p| 0x0ffc_0000 + p * PAGE_SIZE),
        3 => (0u64..48).prop_map(|p| 0x0100_0000 + p * PAGE_SIZE),
        1 => Just(0u64),
        1 => 0u64..(TASK + 0x10_0000),
        1 => any::<u64>(),
    ]
}

fn len() -> impl Strategy<Value = u64> {
    prop_oneof![
        10 => (1u64..12).prop_map(|p| p * PAGE_SIZE),
        1 => Just(0u64),
        1 => 1u64..0x3000,
        1 => any::<u64>(),
    ]
}

fn prot() -> impl Strategy<Value = u32> {
    prop_oneof![
        10 => 0u32..8,
        1 => Just(PROT_READ | PROT_GROWSDOWN),
        1 => Just(0x10u32),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    let mflags = prop_oneof![
        6 => Just(MAP_PRIVATE | MAP_ANONYMOUS),
        2 => Just(MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED),
        1 => Just(MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE),
        1 => Just(MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE),
        1 => Just(MAP_PRIVATE | MAP_ANONYMOUS | MAP_GROWSDOWN),
        1 => Just(MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_FIXED),
        1 => Just(MAP_SHARED | MAP_ANONYMOUS),
        1 => Just(MAP_ANONYMOUS),
    ];
    let rflags = prop_oneof![
        2 => Just(0u32),
        3 => Just(MREMAP_MAYMOVE),
        2 => Just(MREMAP_MAYMOVE | MREMAP_FIXED),
        1 => Just(MREMAP_MAYMOVE | MREMAP_DONTUNMAP),
        1 => Just(MREMAP_FIXED),
    ];
    prop_oneof![
        5 => (addr(), len(), prot(), mflags).prop_map(|(addr, len, prot, flags)| Op::Mmap { addr, len, prot, flags }),
        2 => (addr(), len()).prop_map(|(addr, len)| Op::Munmap { addr, len }),
        4 => (addr(), len(), prot()).prop_map(|(addr, len, prot)| Op::Mprotect { addr, len, prot }),
        4 => (addr(), len(), len(), rflags, addr())
            .prop_map(|(addr, old, new, flags, new_addr)| Op::Mremap { addr, old, new, flags, new_addr }),
        1 => (0u64..0x60).prop_map(|p| Op::Brk { brk: 0x0100_0000 + p * 0x800 }),
    ]
}

/// The reference model.
#[derive(Clone, Debug)]
struct Model {
    vmas: Vec<Vma>,
    l: MmLayout,
    max: usize,
    next_ino: u64,
}

fn pages(v: &Vma) -> u64 {
    (v.end - v.start) / PAGE_SIZE
}

/// Adjacent `a` then `b` would be one VMA in Linux.
fn compatible(a: &Vma, b: &Vma) -> bool {
    a.end == b.start
        && a.prot == b.prot
        && a.flags == b.flags
        && a.file == b.file
        && a.name == b.name
        && a.anon_vma == b.anon_vma
        && b.pgoff == a.pgoff + pages(a)
}

fn piece(v: &Vma, s: u64, e: u64) -> Vma {
    Vma {
        start: s,
        end: e,
        pgoff: v.pgoff + (s - v.start) / PAGE_SIZE,
        ..v.clone()
    }
}

impl Model {
    fn idx_containing(&self, a: u64) -> Option<usize> {
        self.vmas.iter().position(|v| v.start <= a && a < v.end)
    }

    fn first_from(&self, a: u64) -> Option<&Vma> {
        self.vmas.iter().find(|v| v.end > a)
    }

    fn intersects(&self, s: u64, e: u64) -> bool {
        self.vmas.iter().any(|v| v.start < e && s < v.end)
    }

    fn split(&mut self, a: u64) {
        if let Some(i) = self.idx_containing(a) {
            let v = self.vmas[i].clone();
            if v.start < a {
                self.vmas[i] = piece(&v, v.start, a);
                self.vmas.insert(i + 1, piece(&v, a, v.end));
            }
        }
    }

    fn insert(&mut self, v: Vma) {
        let i = self.vmas.partition_point(|x| x.start < v.start);
        self.vmas.insert(i, v);
    }

    /// Merges the VMA containing `a` with its neighbours, as allowed.
    fn merge_at(&mut self, a: u64, with_prev: bool, with_next: bool) {
        let Some(mut i) = self.idx_containing(a) else {
            return;
        };
        if with_prev && i > 0 && compatible(&self.vmas[i - 1], &self.vmas[i]) {
            let v = self.vmas.remove(i);
            self.vmas[i - 1].end = v.end;
            i -= 1;
        }
        if with_next && i + 1 < self.vmas.len() && compatible(&self.vmas[i], &self.vmas[i + 1]) {
            let n = self.vmas.remove(i + 1);
            self.vmas[i].end = n.end;
        }
    }

    fn unmap_range(&mut self, s: u64, e: u64) -> Result<(), Errno> {
        let inside_one = self.vmas.iter().any(|v| v.start < s && e < v.end);
        if inside_one && self.vmas.len() >= self.max {
            return Err(Errno::ENOMEM);
        }
        self.split(s);
        self.split(e);
        self.vmas.retain(|v| !(v.start >= s && v.end <= e));
        Ok(())
    }

    fn munmap(&mut self, a: u64, len: u64) -> Result<(), Errno> {
        if !a.is_multiple_of(PAGE_SIZE) || a > TASK || len > TASK - a {
            return Err(Errno::EINVAL);
        }
        let e = a + page_align(len);
        if e == a {
            return Err(Errno::EINVAL);
        }
        self.unmap_range(a, e)
    }

    fn start_gap(&self, v: &Vma) -> u64 {
        if v.flags & VM_GROWSDOWN != 0 {
            v.start.saturating_sub(self.l.stack_guard_gap)
        } else {
            v.start
        }
    }

    fn hint_ok(&self, a: u64, len: u64) -> bool {
        self.first_from(a)
            .is_none_or(|v| a + len <= self.start_gap(v))
    }

    /// Free intervals `[lo, hi)` with the VMA after each.
    fn holes(&self) -> Vec<(u64, u64, Option<Vma>)> {
        let mut out = Vec::new();
        let mut lo = 0;
        for v in &self.vmas {
            if v.start > lo {
                out.push((lo, v.start, Some(v.clone())));
            }
            lo = v.end;
        }
        out.push((lo, u64::MAX, None));
        out
    }

    /// Linux's retry loop, literally: below a stack's guard gap, the
    /// search restarts with `high` lowered to the guard, which also skips
    /// the free space between the guard and the gap that was found.
    fn topdown(&self, len: u64) -> Option<u64> {
        let low = PAGE_SIZE.max(self.l.mmap_min_addr);
        let mut high = self.l.mmap_base;
        loop {
            let (gap, next) = self.holes().into_iter().rev().find_map(|(lo, hi, next)| {
                let (bot, top) = (lo.max(low), hi.min(high));
                (top > bot && top - bot >= len).then(|| (top - len, next))
            })?;
            if let Some(n) = next.filter(|n| n.flags & VM_GROWSDOWN != 0) {
                if self.start_gap(&n) < gap + len {
                    high = self.start_gap(&n);
                    if high <= low || high - low < len {
                        return None;
                    }
                    continue;
                }
            }
            return Some(gap);
        }
    }

    fn bottomup(&self, len: u64) -> Option<u64> {
        let low = self.l.mmap_legacy_base.max(self.l.mmap_min_addr);
        self.holes().into_iter().find_map(|(lo, hi, next)| {
            let bot = lo.max(low);
            let top = hi.min(TASK);
            let guard_ok = next
                .as_ref()
                .is_none_or(|n| n.flags & VM_GROWSDOWN == 0 || self.start_gap(n) >= bot + len);
            (top > bot && top - bot >= len && guard_ok).then_some(bot)
        })
    }

    fn get_area(&self, addr: u64, len: u64, fixed: bool) -> Result<u64, Errno> {
        if len > TASK {
            return Err(Errno::ENOMEM);
        }
        let a = if fixed {
            addr
        } else {
            let hint = addr & !(PAGE_SIZE - 1);
            if hint != 0 && hint <= TASK - len && self.hint_ok(hint, len) {
                hint
            } else if let Some(a) = self.topdown(len) {
                a
            } else {
                let h = page_align(addr);
                if addr != 0 && TASK - len >= h && self.hint_ok(h, len) {
                    h
                } else {
                    self.bottomup(len).ok_or(Errno::ENOMEM)?
                }
            }
        };
        if a > TASK - len {
            return Err(Errno::ENOMEM);
        }
        if a % PAGE_SIZE != 0 {
            return Err(Errno::EINVAL);
        }
        if a < self.l.mmap_min_addr {
            return Err(Errno::EPERM);
        }
        Ok(a)
    }

    fn mmap(&mut self, addr: u64, len: u64, prot: u32, flags: u32) -> Result<u64, Errno> {
        if len == 0 {
            return Err(Errno::EINVAL);
        }
        let fixed = flags & (MAP_FIXED | MAP_FIXED_NOREPLACE) != 0;
        let mut hint = addr;
        if !fixed {
            hint &= !(PAGE_SIZE - 1);
            if hint != 0 && hint < self.l.mmap_min_addr {
                hint = self.l.mmap_min_addr;
            }
        }
        let len = page_align(len);
        if len == 0 {
            return Err(Errno::ENOMEM);
        }
        if self.vmas.len() > self.max {
            return Err(Errno::ENOMEM);
        }
        let a = self.get_area(hint, len, fixed)?;
        if flags & MAP_FIXED_NOREPLACE != 0 && self.intersects(a, a + len) {
            return Err(Errno::EEXIST);
        }
        let mut vf = VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC;
        if flags & MAP_GROWSDOWN != 0 {
            vf |= VM_GROWSDOWN;
        }
        if flags & MAP_STACK != 0 {
            vf |= VM_NOHUGEPAGE;
        }
        let shared = match flags & MAP_TYPE {
            MAP_SHARED if vf & VM_GROWSDOWN != 0 => return Err(Errno::EINVAL),
            MAP_SHARED => true,
            MAP_PRIVATE => false,
            _ => return Err(Errno::EINVAL),
        };
        if shared {
            vf |= VM_SHARED | VM_MAYSHARE;
        }
        if flags & MAP_NORESERVE != 0 {
            vf |= VM_NORESERVE;
        }
        self.unmap_range(a, a + len).map_err(|_| Errno::ENOMEM)?;
        let prot = prot & 7;
        if prot & PROT_WRITE != 0 && vf & (VM_NORESERVE | VM_SHARED) == 0 {
            vf |= VM_ACCOUNT;
        }
        let mut v = Vma {
            start: a,
            end: a + len,
            prot,
            flags: vf,
            file: None,
            pgoff: a / PAGE_SIZE,
            name: VmaName::None,
            anon_vma: None,
        };
        if shared {
            v.file = Some(FileId {
                major: 0,
                minor: 1,
                inode: self.next_ino,
            });
            self.next_ino += 1;
            v.pgoff = 0;
            v.name = VmaName::Path("/dev/zero (deleted)".into());
        }
        self.insert(v);
        self.merge_at(a, true, true);
        Ok(a)
    }

    fn mprotect(&mut self, start: u64, len: u64, prot: u32) -> Result<(), Errno> {
        let grows = prot & (PROT_GROWSDOWN | PROT_GROWSUP);
        let prot = prot & !(PROT_GROWSDOWN | PROT_GROWSUP);
        if !start.is_multiple_of(PAGE_SIZE) {
            return Err(Errno::EINVAL);
        }
        if len == 0 {
            return Ok(());
        }
        let end = start.wrapping_add(page_align(len));
        if end <= start {
            return Err(Errno::ENOMEM);
        }
        if prot & !15 != 0 {
            return Err(Errno::EINVAL);
        }
        let prot = prot & 7;
        let mut w = self.clone();
        let first = w
            .first_from(start)
            .filter(|v| v.start < end)
            .cloned()
            .ok_or(Errno::ENOMEM)?;
        let mut start = start;
        if grows != 0 {
            if first.flags & VM_GROWSDOWN == 0 {
                return Err(Errno::EINVAL);
            }
            start = first.start;
        } else if first.start > start {
            return Err(Errno::ENOMEM);
        }
        let mut cur = start;
        let mut expect = first.start;
        // Linux's walk is not atomic: what changed before an error stays.
        while let Some(v) = w.first_from(cur).filter(|v| v.start < end).cloned() {
            if v.start != expect {
                *self = w;
                return Err(Errno::ENOMEM);
            }
            let (s, e) = (cur.max(v.start), end.min(v.end));
            if v.prot == prot {
                cur = v.end;
                expect = v.end;
                continue;
            }
            let mut flags = v.flags;
            if prot & PROT_WRITE != 0 {
                if v.prot & PROT_WRITE == 0 && flags & (VM_ACCOUNT | VM_SHARED | VM_NORESERVE) == 0
                {
                    flags |= VM_ACCOUNT;
                }
            } else if flags & VM_ACCOUNT != 0 && v.file.is_none() {
                flags &= !VM_ACCOUNT;
            }
            let new = Vma {
                prot,
                flags,
                ..piece(&v, s, e)
            };
            let i = w.idx_containing(v.start).unwrap();
            let prev_ok = s == v.start && i > 0 && compatible(&w.vmas[i - 1], &new);
            let next_ok = e == v.end && i + 1 < w.vmas.len() && compatible(&new, &w.vmas[i + 1]);
            // vma_modify(): split at the start, then at the end; each split
            // fails at max_map_count, and a first split stays done.
            let split_s = s > v.start && !next_ok;
            let split_e = e < v.end && !prev_ok;
            if split_s && w.vmas.len() >= w.max {
                *self = w;
                return Err(Errno::ENOMEM);
            }
            if split_e && w.vmas.len() + usize::from(split_s) >= w.max {
                if split_s {
                    w.split(s);
                }
                *self = w;
                return Err(Errno::ENOMEM);
            }
            w.split(s);
            w.split(e);
            let j = w.idx_containing(s).unwrap();
            w.vmas[j] = new;
            w.merge_at(s, true, true);
            let r = w.idx_containing(s).unwrap();
            cur = w.vmas[r].end;
            expect = cur;
        }
        let r = if expect < end {
            Err(Errno::ENOMEM)
        } else {
            Ok(())
        };
        *self = w;
        r
    }

    fn brk(&mut self, brk: u64) -> u64 {
        let old = self.l.brk;
        let ok = (|| -> Result<(), Errno> {
            if brk < self.l.start_brk {
                return Err(Errno::EINVAL);
            }
            let (nb, ob) = (page_align(brk), page_align(self.l.brk));
            if nb == ob {
                return Ok(());
            }
            if brk <= self.l.brk {
                if !self.intersects(nb, ob) {
                    return Err(Errno::ENOMEM);
                }
                return self.unmap_range(nb, ob);
            }
            if let Some(n) = self.first_from(ob) {
                if nb + PAGE_SIZE > self.start_gap(n) {
                    return Err(Errno::ENOMEM);
                }
            }
            if self.vmas.len() > self.max {
                return Err(Errno::ENOMEM);
            }
            let v = Vma {
                flags: VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC | VM_ACCOUNT,
                ..Vma::anon(ob, nb, PROT_READ | PROT_WRITE)
            };
            let brkvma_ok = self
                .vmas
                .iter()
                .rev()
                .find(|p| p.start < ob)
                .is_some_and(|p| p.end > self.l.start_brk);
            self.insert(v);
            self.merge_at(ob, brkvma_ok, false);
            Ok(())
        })();
        if ok.is_ok() {
            self.l.brk = brk;
            brk
        } else {
            old
        }
    }

    fn mremap(
        &mut self,
        addr: u64,
        old: u64,
        new: u64,
        flags: u32,
        new_addr: u64,
    ) -> Result<u64, Errno> {
        if flags & !7 != 0 || !addr.is_multiple_of(PAGE_SIZE) {
            return Err(Errno::EINVAL);
        }
        let (old, new) = (page_align(old), page_align(new));
        if new == 0 || new > TASK {
            return Err(Errno::EINVAL);
        }
        if flags & (MREMAP_FIXED | MREMAP_DONTUNMAP) != 0 {
            if new_addr > TASK - new || !new_addr.is_multiple_of(PAGE_SIZE) {
                return Err(Errno::EINVAL);
            }
            if flags & MREMAP_MAYMOVE == 0 || (flags & MREMAP_DONTUNMAP != 0 && old != new) {
                return Err(Errno::EINVAL);
            }
            if addr.saturating_add(old) > new_addr && new_addr + new > addr {
                return Err(Errno::EINVAL);
            }
        }
        if flags & MREMAP_FIXED != 0 && old == new {
            // Linux 6.17's remap_move(): every VMA of the range, gaps kept,
            // none at the start; what moved before a failure stays moved.
            let (start, end) = (addr, addr + old);
            let (mut target, mut first, mut last_end, mut cursor) = (new_addr, None, 0, start);
            while let Some(v) = self.first_from(cursor).filter(|v| v.start < end).cloned() {
                if first.is_none() && start < v.start {
                    return Err(Errno::EFAULT);
                }
                let a = v.start.max(start);
                let len = end.min(v.end) - a;
                let off = if first.is_some() {
                    v.start - last_end
                } else {
                    0
                };
                last_end = v.end;
                let mut w = self.clone();
                let got = w.mremap_inner(a, len, len, flags, target + off)?;
                *self = w;
                first.get_or_insert(got);
                target = got + len;
                cursor = v.end;
            }
            return first.ok_or(Errno::EFAULT);
        }
        if self.idx_containing(addr).is_none() {
            return Err(Errno::EFAULT);
        }
        let mut w = self.clone();
        let r = w.mremap_inner(addr, old, new, flags, new_addr)?;
        *self = w;
        Ok(r)
    }

    fn resize_checks(&self, addr: u64, old: u64, flags: u32) -> Result<Vma, Errno> {
        let v = self
            .idx_containing(addr)
            .map(|i| self.vmas[i].clone())
            .ok_or(Errno::EFAULT)?;
        if old == 0 && v.flags & VM_MAYSHARE == 0 {
            return Err(Errno::EINVAL);
        }
        let _ = flags;
        if old > v.end - addr {
            return Err(Errno::EFAULT);
        }
        Ok(v)
    }

    fn move_to(
        &mut self,
        v: &Vma,
        addr: u64,
        old: u64,
        new: u64,
        to: u64,
        dontunmap: bool,
    ) -> Result<u64, Errno> {
        if self.vmas.len() as i64 >= self.max as i64 - 3 {
            return Err(Errno::ENOMEM);
        }
        let mut c = piece(v, addr, addr + PAGE_SIZE.min(v.end - addr));
        c.start = to;
        c.end = to + new;
        if c.file.is_none() && c.anon_vma.is_none() {
            c.pgoff = to / PAGE_SIZE;
        }
        self.insert(c);
        self.merge_at(to, true, true);
        if !dontunmap {
            let _ = self.munmap(addr, old);
        }
        Ok(to)
    }

    fn mremap_inner(
        &mut self,
        addr: u64,
        old: u64,
        new: u64,
        flags: u32,
        new_addr: u64,
    ) -> Result<u64, Errno> {
        if flags & (MREMAP_FIXED | MREMAP_DONTUNMAP) != 0 {
            if !new_addr.is_multiple_of(PAGE_SIZE) || new > TASK || new_addr > TASK - new {
                return Err(Errno::EINVAL);
            }
            if addr.saturating_add(old) > new_addr && new_addr + new > addr {
                return Err(Errno::EINVAL);
            }
            if self.vmas.len() as i64 + 2 >= self.max as i64 - 3 {
                return Err(Errno::ENOMEM);
            }
            if flags & MREMAP_FIXED != 0 {
                self.munmap(new_addr, new)?;
            }
            let mut old = old;
            if old > new {
                self.munmap(addr + new, old - new)?;
                old = new;
            }
            let v = self.resize_checks(addr, old, flags)?;
            let fixed = flags & MREMAP_FIXED != 0;
            let got = self.get_area(new_addr, new, fixed)?;
            let to = if fixed { new_addr } else { got };
            return self.move_to(&v, addr, old, new, to, flags & MREMAP_DONTUNMAP != 0);
        }
        if old >= new {
            if old > new {
                self.munmap(addr + new, old - new)?;
            }
            return Ok(addr);
        }
        let v = self.resize_checks(addr, old, flags)?;
        if old == v.end - addr {
            let e = v.end;
            if e.checked_add(new - old).is_some_and(|ne| {
                !self.intersects(e, ne)
                    && ne - v.start <= TASK
                    && v.start <= TASK - (ne - v.start)
                    && v.start >= self.l.mmap_min_addr
            }) {
                let i = self.idx_containing(v.start).unwrap();
                self.vmas[i].end = e + (new - old);
                self.merge_at(v.start, false, true);
                return Ok(addr);
            }
        }
        if flags & MREMAP_MAYMOVE == 0 {
            return Err(Errno::ENOMEM);
        }
        let to = self.get_area(0, new, false)?;
        self.move_to(&v, addr, old, new, to, false)
    }
}

fn apply_both(mm: &mut MmStruct, m: &mut Model, op: &Op) {
    match *op {
        Op::Mmap {
            addr,
            len,
            prot,
            flags,
        } => {
            assert_eq!(
                mm.mmap(addr, len, prot, flags, None, 0),
                m.mmap(addr, len, prot, flags),
                "{op:x?}"
            )
        }
        Op::Munmap { addr, len } => {
            assert_eq!(mm.munmap(addr, len), m.munmap(addr, len), "{op:x?}")
        }
        Op::Mprotect { addr, len, prot } => assert_eq!(
            mm.mprotect(addr, len, prot),
            m.mprotect(addr, len, prot),
            "{op:x?}"
        ),
        Op::Mremap {
            addr,
            old,
            new,
            flags,
            new_addr,
        } => {
            assert_eq!(
                mm.mremap(addr, old, new, flags, new_addr),
                m.mremap(addr, old, new, flags, new_addr),
                "{op:x?}"
            )
        }
        Op::Brk { brk } => assert_eq!(mm.brk(brk), m.brk(brk), "{op:x?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, ..ProptestConfig::default() })]

    #[test]
    fn ops_match_model(ops in proptest::collection::vec(op(), 1..120), max in 6usize..40) {
        let mut mm = MmStruct::new(layout());
        mm.set_max_map_count(max);
        let mut m = Model { vmas: Vec::new(), l: layout(), max, next_ino: 1 << 20 };
        for op in &ops {
            apply_both(&mut mm, &mut m, op);
            mm.check_invariants();
            let got: Vec<Vma> = mm.iter().cloned().collect();
            prop_assert_eq!(&got, &m.vmas, "after {:x?}", op);
            prop_assert_eq!(mm.layout().brk, m.l.brk);
        }
        // fork: both duplications give the parent's VMAs.
        let want: Vec<Vma> = mm.iter().cloned().collect();
        for child in [mm.dup_bulk().unwrap(), mm.dup_cow()] {
            child.check_invariants();
            prop_assert_eq!(child.iter().cloned().collect::<Vec<_>>(), want.clone());
        }
    }

    #[test]
    fn failed_calls_change_nothing(ops in proptest::collection::vec(op(), 1..80)) {
        let mut mm = MmStruct::new(layout());
        mm.set_max_map_count(12);
        for op in &ops {
            let before: Vec<Vma> = mm.iter().cloned().collect();
            let brk = mm.layout().brk;
            // mprotect and mremap's multi-VMA move are Linux's partial
            // failures (checked against Linux by tests/mm_oracle.rs).
            let failed = match *op {
                Op::Mmap { addr, len, prot, flags } => mm.mmap(addr, len, prot, flags, None, 0).is_err(),
                Op::Munmap { addr, len } => mm.munmap(addr, len).is_err(),
                Op::Mprotect { addr, len, prot } => {
                    let _ = mm.mprotect(addr, len, prot);
                    false
                }
                Op::Mremap { addr, old, new, flags, new_addr } => {
                    let r = mm.mremap(addr, old, new, flags, new_addr).is_err();
                    r && !(flags & MREMAP_FIXED != 0 && page_align(old) == page_align(new))
                }
                Op::Brk { brk: b } => mm.brk(b) != b,
            };
            if failed {
                prop_assert_eq!(mm.iter().cloned().collect::<Vec<_>>(), before);
                prop_assert_eq!(mm.layout().brk, brk);
            }
        }
    }
}

const MAPS: [(&str, &str); 3] = [
    ("java-50threads", include_str!("maps/java-50threads.maps")),
    ("node", include_str!("maps/node.maps")),
    ("python3", include_str!("maps/python3.maps")),
];

/// proc(5) maps captured on Linux (Debian 12, x86_64) round-trip byte for
/// byte, directly and through an `MmStruct`.
#[test]
fn real_maps_round_trip() {
    for (name, text) in MAPS {
        let vmas = parse_maps(text).unwrap();
        let mut out = String::new();
        render_maps(&mut out, &vmas).unwrap();
        assert_eq!(out, text, "{name}: parse + render");

        let mm = MmStruct::from_vmas(vmas.clone(), MmLayout::default()).unwrap();
        mm.check_invariants();
        // Adjacent VMAs Linux kept apart stay apart.
        assert_eq!(mm.map_count() + 1, vmas.len(), "{name}: gate VMA apart");
        let mut out = String::new();
        mm.render_maps(&mut out).unwrap();
        assert_eq!(out, text, "{name}: through MmStruct");

        // A forked copy renders the same.
        let mut out = String::new();
        mm.dup_bulk().unwrap().render_maps(&mut out).unwrap();
        assert_eq!(out, text, "{name}: after dup_bulk");
    }
}

/// mmap next to a loaded VMA: anonymous memory merges into a neighbour
/// that has an anon_vma, not the other way around.
#[test]
fn loaded_maps_merge_rules() {
    let text = MAPS[1].1;
    let mut mm = MmStruct::from_vmas(
        parse_maps(text).unwrap(),
        MmLayout::infer(&parse_maps(text).unwrap()),
    )
    .unwrap();
    // 0565d000-05689000 rw-p (bss, anon, accounted): map rw just after it.
    let n = mm.map_count();
    assert_eq!(
        mm.mmap(
            0x0568_9000,
            0x1000,
            PROT_READ | PROT_WRITE,
            MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
            None,
            0
        ),
        Ok(0x0568_9000)
    );
    assert_eq!(
        mm.map_count(),
        n,
        "new anon merged after a faulted neighbour"
    );
    assert_eq!(mm.vma_lookup(0x0568_9000).unwrap().start, 0x0565_d000);
    // [heap] still computed from brk.
    let mut out = String::new();
    mm.render_maps(&mut out).unwrap();
    assert!(out.contains(
        "33bb6000-33e79000 rw-p 00000000 00:00 0                                  [heap]\n"
    ));
    // Protection change splits, restoring it merges back.
    mm.mprotect(0x0566_0000, 0x1000, PROT_READ).unwrap();
    assert_eq!(mm.map_count(), n + 2);
    mm.mprotect(0x0566_0000, 0x1000, PROT_READ | PROT_WRITE)
        .unwrap();
    assert_eq!(mm.map_count(), n);
    mm.check_invariants();
}

#[test]
fn max_map_count_and_noreplace() {
    let mut mm = MmStruct::new(layout());
    mm.set_max_map_count(3);
    let rw = PROT_READ | PROT_WRITE;
    let anon = MAP_PRIVATE | MAP_ANONYMOUS;
    // Alternate protections so nothing merges.
    let mut addrs = vec![];
    for i in 0..4 {
        addrs.push(
            mm.mmap(
                0,
                PAGE_SIZE,
                if i % 2 == 0 { rw } else { PROT_READ },
                anon,
                None,
                0,
            )
            .unwrap(),
        );
    }
    // map_count (4) > max (3): refused.
    assert_eq!(mm.mmap(0, PAGE_SIZE, rw, anon, None, 0), Err(Errno::ENOMEM));
    // Top-down placement: each below the previous, adjacent.
    assert!(addrs.windows(2).all(|w| w[1] + PAGE_SIZE == w[0]));
    assert_eq!(addrs[0], layout().mmap_base - PAGE_SIZE);
    // The map_count check comes before placement checks (do_mmap order).
    assert_eq!(
        mm.mmap(addrs[1], PAGE_SIZE, rw, anon | MAP_FIXED_NOREPLACE, None, 0),
        Err(Errno::ENOMEM)
    );
    mm.munmap(addrs[3], PAGE_SIZE).unwrap();
    assert_eq!(
        mm.mmap(addrs[1], PAGE_SIZE, rw, anon | MAP_FIXED_NOREPLACE, None, 0),
        Err(Errno::EEXIST)
    );
    assert_eq!(
        mm.mmap(addrs[1] + 1, PAGE_SIZE, rw, anon | MAP_FIXED, None, 0),
        Err(Errno::EINVAL)
    );
    assert_eq!(mm.mmap(0, 0, rw, anon, None, 0), Err(Errno::EINVAL));
    // Splitting a VMA in three at the limit fails.
    let big = mm
        .mmap(0x0100_0000, 8 * PAGE_SIZE, rw, anon | MAP_FIXED, None, 0)
        .unwrap();
    assert_eq!(mm.map_count(), 4);
    assert_eq!(mm.munmap(big + PAGE_SIZE, PAGE_SIZE), Err(Errno::ENOMEM));
    assert_eq!(
        mm.mprotect(big + PAGE_SIZE, PAGE_SIZE, PROT_READ),
        Err(Errno::ENOMEM)
    );
    // Trimming an edge does not split in three.
    assert_eq!(mm.munmap(big, PAGE_SIZE), Ok(()));
    mm.check_invariants();
}

#[test]
fn brk_grows_shrinks_and_reports_failure() {
    let mut mm = MmStruct::new(layout());
    let start = layout().start_brk;
    assert_eq!(mm.brk(start + 0x1800), start + 0x1800);
    assert_eq!(
        mm.vma_lookup(start).map(|v| (v.start, v.end)),
        Some((start, start + 0x2000))
    );
    assert_eq!(mm.brk(start + 0x5000), start + 0x5000);
    assert_eq!(mm.map_count(), 1, "brk extends its VMA");
    // Below start_brk: refused, current break returned.
    assert_eq!(mm.brk(start - 1), start + 0x5000);
    // A mapping one page above blocks growth into it.
    mm.mmap(
        start + 0x8000,
        PAGE_SIZE,
        PROT_READ,
        MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
        None,
        0,
    )
    .unwrap();
    assert_eq!(mm.brk(start + 0x7800), start + 0x5000);
    assert_eq!(mm.brk(start + 0x7000), start + 0x7000);
    assert_eq!(mm.brk(start + 0x1000), start + 0x1000);
    assert_eq!(mm.vma_lookup(start).map(|v| v.end), Some(start + 0x1000));
    let mut out = String::new();
    mm.render_maps(&mut out).unwrap();
    assert!(
        out.starts_with(
            "01000000-01001000 rw-p 00000000 00:00 0                                  [heap]\n"
        ),
        "{out}"
    );
    mm.check_invariants();
}

#[test]
fn mremap_grows_in_place_or_moves() {
    let mut mm = MmStruct::new(layout());
    let rw = PROT_READ | PROT_WRITE;
    let anon = MAP_PRIVATE | MAP_ANONYMOUS;
    let a = mm
        .mmap(0x0200_0000, 2 * PAGE_SIZE, rw, anon | MAP_FIXED, None, 0)
        .unwrap();
    assert_eq!(mm.mremap(a, 2 * PAGE_SIZE, 4 * PAGE_SIZE, 0, 0), Ok(a));
    assert_eq!(mm.vma_lookup(a).unwrap().end, a + 4 * PAGE_SIZE);
    mm.mmap(
        a + 5 * PAGE_SIZE,
        PAGE_SIZE,
        PROT_READ,
        anon | MAP_FIXED,
        None,
        0,
    )
    .unwrap();
    assert_eq!(
        mm.mremap(a, 4 * PAGE_SIZE, 8 * PAGE_SIZE, 0, 0),
        Err(Errno::ENOMEM)
    );
    let b = mm
        .mremap(a, 4 * PAGE_SIZE, 8 * PAGE_SIZE, MREMAP_MAYMOVE, 0)
        .unwrap();
    assert_ne!(b, a);
    assert!(mm.vma_lookup(a).is_none());
    assert_eq!(
        mm.vma_lookup(b).map(|v| v.end - v.start),
        Some(8 * PAGE_SIZE)
    );
    assert_eq!(
        mm.mremap(b + PAGE_SIZE, PAGE_SIZE, PAGE_SIZE, MREMAP_FIXED, 0),
        Err(Errno::EINVAL)
    );
    assert_eq!(
        mm.mremap(0x0300_0000, PAGE_SIZE, 2 * PAGE_SIZE, MREMAP_MAYMOVE, 0),
        Err(Errno::EFAULT)
    );
    mm.check_invariants();
}

/// Found by the `mm` fuzz target: a failed memory call on a process that
/// never mapped anything created its (empty) address space. A failed call
/// changes nothing.
#[test]
fn a_failed_first_memory_call_changes_nothing() {
    use taskcore::{Config, Kernel};
    let mut k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    let child = k.fork(init).unwrap();
    let before = format!("{k:?}");
    assert!(k.munmap(child, 1, 4096).is_err());
    assert!(k.mremap(child, 0x1000, 4096, 8192, 0, 0).is_err());
    assert_eq!(format!("{k:?}"), before);
}

/// Found by the `mm` fuzz target: shrinking a mapping with lengths near
/// `u64::MAX` overflowed computing the tail to unmap. Linux's munmap of an
/// end past the address space is EINVAL; nothing changes.
#[test]
fn mremap_shrink_with_huge_lengths_fails_without_overflow() {
    use taskcore::mm::flags::{MAP_ANONYMOUS, MAP_PRIVATE, PROT_READ};
    let mut mm = MmStruct::new(MmLayout::default());
    let a = mm
        .mmap(0, 8192, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, None, 0)
        .unwrap();
    let before: Vec<Vma> = mm.iter().cloned().collect();
    assert!(mm
        .mremap(a, u64::MAX - 8191, u64::MAX - 16383, 0, 0)
        .is_err());
    assert_eq!(mm.iter().cloned().collect::<Vec<_>>(), before);
}
