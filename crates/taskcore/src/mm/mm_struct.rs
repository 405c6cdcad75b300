//! The address space: a [`RangeTree`] of [`Vma`]s plus layout and limits.
//!
//! The system calls live in sibling files: [`mmap`](super::mmap)
//! (mmap, munmap, brk, placement), [`mprotect`](super::mprotect),
//! [`mremap`](super::mremap), [`maps`](super::maps) (/proc/PID/maps) and
//! [`dup`](super::dup) (fork).
//!
//! # Atomicity
//! Every operation either succeeds or returns an errno with the address
//! space exactly as before. Linux applies some failing calls partially
//! (an mprotect over a hole changes the VMAs before the hole, mremap with
//! `MREMAP_FIXED` unmaps the target before later checks); those calls are
//! run here on an O(1) copy-on-write clone that is committed only on
//! success, and the divergence is noted on each.
//!
//! # Linux
//! Mirrors `struct mm_struct` (`include/linux/mm_types.h`): `mm_mt`,
//! `map_count`, `mmap_base`, `mmap_legacy_base`, `task_size`, `start_brk`,
//! `brk`, `start_stack`, and the `vm.max_map_count` sysctl.

use std::num::NonZeroU64;

use super::flags::*;
use super::tree::RangeTree;
use super::vma::{AnonVmaId, Vma, VmaName};
use crate::errno::{Errno, Result};

/// Default `vm.max_map_count` (`DEFAULT_MAX_MAP_COUNT`, 65530).
pub const DEFAULT_MAX_MAP_COUNT: usize = 65530;

/// `TASK_SIZE` on x86_64 with 4-level page tables: `(1 << 47) - PAGE_SIZE`.
pub const TASK_SIZE_X86_64: u64 = (1 << 47) - PAGE_SIZE;

/// Where things go in an address space: the values Linux computes at exec
/// (`arch_pick_mmap_layout()`, `setup_arg_pages()`, `arch_randomize_brk()`).
///
/// Randomisation is the caller's business: pass randomised bases.
///
/// # Linux
/// Fields of `struct mm_struct` plus the `mmap_min_addr` and
/// `stack_guard_gap` globals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MmLayout {
    /// `TASK_SIZE`: end of the user address space.
    pub task_size: u64,
    /// `mm->mmap_base`: top-down placement searches below it.
    pub mmap_base: u64,
    /// `mm->mmap_legacy_base`: bottom-up placement searches above it.
    pub mmap_legacy_base: u64,
    /// `MMF_TOPDOWN`: place mappings top-down (the default layout).
    pub topdown: bool,
    /// `vm.mmap_min_addr`: lowest mappable address (65536 by default).
    pub mmap_min_addr: u64,
    /// `stack_guard_gap`: kept free below `VM_GROWSDOWN` VMAs (1 MiB).
    pub stack_guard_gap: u64,
    /// `mm->start_brk`: start of the brk area.
    pub start_brk: u64,
    /// `mm->brk`: current program break.
    pub brk: u64,
    /// `mm->start_stack`: an address in the initial stack.
    pub start_stack: u64,
}

impl Default for MmLayout {
    /// x86_64, 4-level paging, no randomisation, 8 MiB stack rlimit:
    /// `mmap_base = TASK_SIZE - 128 MiB` (`mmap_base()` clamps the stack
    /// gap to at least 128 MiB), `mmap_legacy_base = PAGE_ALIGN(TASK_SIZE
    /// / 3)` (`TASK_UNMAPPED_BASE`), no brk area and no stack yet.
    fn default() -> Self {
        MmLayout {
            task_size: TASK_SIZE_X86_64,
            mmap_base: TASK_SIZE_X86_64 - (128 << 20),
            mmap_legacy_base: page_align(TASK_SIZE_X86_64 / 3),
            topdown: true,
            mmap_min_addr: 65536,
            stack_guard_gap: 256 * PAGE_SIZE,
            start_brk: 0,
            brk: 0,
            start_stack: 0,
        }
    }
}

impl MmLayout {
    /// A layout fitting parsed VMAs: the brk area spans the `[heap]` VMAs,
    /// `start_stack` lies in the `[stack]` VMA, and `mmap_base` is the end
    /// of the highest VMA below the stack (the dynamic loader, mapped first
    /// top-down from `mmap_base`, usually ends there).
    pub fn infer(vmas: &[Vma]) -> MmLayout {
        let mut l = MmLayout::default();
        let heap: Vec<&Vma> = vmas.iter().filter(|v| v.name == VmaName::Heap).collect();
        if let (Some(first), Some(last)) = (heap.first(), heap.last()) {
            l.start_brk = first.start;
            l.brk = last.end;
        }
        if let Some(stack) = vmas.iter().find(|v| v.name == VmaName::Stack) {
            l.start_stack = stack.end - 8;
            if let Some(below) = vmas
                .iter()
                .rev()
                .find(|v| v.end <= stack.start && v.name != VmaName::Heap)
            {
                l.mmap_base = below.end;
            }
        }
        l
    }
}

/// An address space.
///
/// # Invariants
/// 1. The tree's invariants hold ([`RangeTree::check_invariants`]).
/// 2. Every VMA satisfies [`Vma`]'s invariants and ends at or below
///    `task_size`; the gate VMA, if any, starts at or above it.
/// 3. `start_brk <= brk`.
/// 4. Stored names are never `Heap` or `Stack`: those are computed from
///    the layout when rendering, as Linux does.
///
/// # Locking
/// None inside: callers serialise writers (Linux holds `mmap_lock` for
/// writing), and readers borrow.
///
/// # Linux
/// Mirrors `struct mm_struct`; `map_count` is the tree's length.
#[derive(Clone, Debug)]
pub struct MmStruct {
    /// The VMAs (`mm->mm_mt`).
    pub(super) tree: RangeTree<Vma>,
    /// Layout, brk and stack.
    pub(super) layout: MmLayout,
    /// `vm.max_map_count`.
    pub(super) max_map_count: usize,
    /// The gate VMA (`[vsyscall]`), listed last in maps, not in the tree.
    pub(super) gate: Option<Vma>,
    /// Next anon_vma identity to hand out.
    pub(super) next_anon_vma: u64,
    /// Next inode number for shared anonymous memory (`shmem_zero_setup`).
    pub(super) next_shmem_ino: u64,
}

impl Default for MmStruct {
    fn default() -> Self {
        MmStruct::new(MmLayout::default())
    }
}

impl MmStruct {
    /// An empty address space with the given layout and the default
    /// `max_map_count`.
    ///
    /// # Linux
    /// Mirrors `mm_alloc()` + `arch_pick_mmap_layout()`.
    pub fn new(layout: MmLayout) -> MmStruct {
        MmStruct {
            tree: RangeTree::new(),
            layout: MmLayout {
                brk: layout.brk.max(layout.start_brk),
                ..layout
            },
            max_map_count: DEFAULT_MAX_MAP_COUNT,
            gate: None,
            next_anon_vma: 1,
            next_shmem_ino: 1 << 20,
        }
    }

    /// Builds an address space holding exactly `vmas` (e.g. from
    /// [`parse_maps`](super::parse_maps)), without merging adjacent VMAs:
    /// Linux shows VMAs separately when hidden state (anon_vma, accounting)
    /// kept them apart.
    ///
    /// A `[vsyscall]` VMA (or any VMA above `task_size`) becomes the gate
    /// VMA. `[heap]` VMAs set `start_brk`/`brk` to their span and a
    /// `[stack]` VMA sets `start_stack` inside it, overriding `layout`;
    /// their stored names become `None` (the names are recomputed for
    /// maps). Every private VMA gets its own anon_vma, so that VMAs Linux
    /// kept apart stay apart under later mprotect/mremap.
    ///
    /// # Errors
    /// `EINVAL` if a VMA is empty, unaligned, overlaps or precedes the
    /// previous one, has access bits in `flags`, or if two gate VMAs are
    /// given.
    pub fn from_vmas(vmas: Vec<Vma>, layout: MmLayout) -> Result<MmStruct> {
        let inferred = MmLayout::infer(&vmas);
        let mut layout = layout;
        if vmas.iter().any(|v| v.name == VmaName::Heap) {
            layout.start_brk = inferred.start_brk;
            layout.brk = inferred.brk;
        }
        if vmas.iter().any(|v| v.name == VmaName::Stack) {
            layout.start_stack = inferred.start_stack;
        }
        let mut mm = MmStruct::new(layout);
        let mut kept = Vec::with_capacity(vmas.len());
        for mut v in vmas {
            if !page_aligned(v.start)
                || !page_aligned(v.end)
                || v.start >= v.end
                || v.flags & VM_ACCESS_FLAGS != 0
            {
                return Err(Errno::EINVAL);
            }
            if v.name == VmaName::Vsyscall || v.start >= layout.task_size {
                if mm.gate.is_some() {
                    return Err(Errno::EINVAL);
                }
                mm.gate = Some(v);
                continue;
            }
            if matches!(v.name, VmaName::Heap | VmaName::Stack) {
                v.name = VmaName::None;
            }
            if !v.is_shared() && !v.name.is_special() && v.anon_vma.is_none() {
                v.anon_vma = Some(mm.new_anon_vma());
            }
            kept.push(v);
        }
        mm.tree = RangeTree::from_sorted(kept)?;
        Ok(mm)
    }

    /// The layout, including the current `start_brk`, `brk` and
    /// `start_stack`.
    pub fn layout(&self) -> &MmLayout {
        &self.layout
    }

    /// Number of VMAs (the gate VMA excluded).
    ///
    /// # Linux
    /// Mirrors `mm->map_count`.
    pub fn map_count(&self) -> usize {
        self.tree.len()
    }

    /// `vm.max_map_count` in force for this address space.
    pub fn max_map_count(&self) -> usize {
        self.max_map_count
    }

    /// Sets `vm.max_map_count` (a sysctl in Linux, global there).
    ///
    /// Existing VMAs are kept even when more numerous; later calls that
    /// would add VMAs fail with `ENOMEM` as in Linux.
    pub fn set_max_map_count(&mut self, n: usize) {
        self.max_map_count = n;
    }

    /// The VMA tree (read-only).
    pub fn tree(&self) -> &RangeTree<Vma> {
        &self.tree
    }

    /// The gate VMA (`[vsyscall]`), if any.
    pub fn gate_vma(&self) -> Option<&Vma> {
        self.gate.as_ref()
    }

    /// The first VMA with `end > addr`.
    ///
    /// # Linux
    /// Mirrors `find_vma()`.
    pub fn find_vma(&self, addr: u64) -> Option<&Vma> {
        self.tree.find(addr)
    }

    /// The VMA containing `addr`.
    ///
    /// # Linux
    /// Mirrors `vma_lookup()`.
    pub fn vma_lookup(&self, addr: u64) -> Option<&Vma> {
        self.tree.lookup(addr)
    }

    /// The first VMA overlapping `[start, end)`.
    ///
    /// # Linux
    /// Mirrors `find_vma_intersection()`.
    pub fn find_vma_intersection(&self, start: u64, end: u64) -> Option<&Vma> {
        self.tree.find_intersection(start, end)
    }

    /// All VMAs in address order (the gate VMA excluded), stored names.
    pub fn iter(&self) -> super::tree::Iter<'_, Vma> {
        self.tree.iter()
    }

    /// The name /proc/PID/maps shows for `v`.
    ///
    /// # Linux
    /// Mirrors `get_vma_name()` (`fs/proc/task_mmu.c`): a file's path or a
    /// special mapping's name first; else `[heap]` if the VMA overlaps
    /// `[start_brk, brk)` (`vma_is_initial_heap()`, strict comparisons as
    /// in current Linux; 6.5-6.8 compared inclusively), `[stack]` if it
    /// contains `start_stack` (`vma_is_initial_stack()`), else the
    /// anonymous name.
    pub fn display_name(&self, v: &Vma) -> VmaName {
        if v.file.is_some() || v.name.is_special() {
            return v.name.clone();
        }
        let l = &self.layout;
        if v.start < l.brk && v.end > l.start_brk {
            return VmaName::Heap;
        }
        if v.start <= l.start_stack && v.end >= l.start_stack {
            return VmaName::Stack;
        }
        v.name.clone()
    }

    /// The VMAs as /proc/PID/maps lists them: tree order, display names,
    /// then the gate VMA.
    pub fn maps_vmas(&self) -> impl Iterator<Item = Vma> + '_ {
        self.tree
            .iter()
            .map(|v| Vma {
                name: self.display_name(v),
                ..v.clone()
            })
            .chain(self.gate.iter().cloned())
    }

    /// A fresh anon_vma identity.
    pub(super) fn new_anon_vma(&mut self) -> AnonVmaId {
        let id = self.next_anon_vma.max(1);
        self.next_anon_vma = id + 1;
        AnonVmaId(NonZeroU64::new(id).unwrap_or(NonZeroU64::MIN))
    }

    /// Gives the VMA containing `addr` an anon_vma, as the first write
    /// fault on private memory does.
    ///
    /// Reuses a neighbour's anon_vma when the neighbour is adjacent,
    /// compatible and has one, as Linux does; otherwise allocates a new one.
    /// No-op when the VMA already has one or is shared.
    ///
    /// # Errors
    /// `EFAULT` if no VMA contains `addr`.
    ///
    /// # Linux
    /// Mirrors `anon_vma_prepare()` / `__anon_vma_prepare()` with
    /// `find_mergeable_anon_vma()` (`mm/rmap.c`, `mm/mmap.c`).
    pub fn anon_vma_prepare(&mut self, addr: u64) -> Result<()> {
        let Some(v) = self.tree.lookup(addr).cloned() else {
            return Err(Errno::EFAULT);
        };
        if v.anon_vma.is_some() || v.is_shared() {
            return Ok(());
        }
        // anon_vma_compatible(a, b): adjacent, same file, same flags except
        // access bits, contiguous pgoff. reusable_anon_vma() then takes
        // old->anon_vma. Linux checks next first, then prev.
        let compatible = |a: &Vma, b: &Vma| {
            a.end == b.start
                && a.file == b.file
                && a.flags == b.flags
                && b.pgoff == a.pgoff_at(a.end)
        };
        let next = self
            .tree
            .lookup(v.end)
            .filter(|n| n.start == v.end)
            .cloned();
        let prev = self
            .tree
            .prev(v.start)
            .filter(|p| p.end == v.start)
            .cloned();
        let reused = next
            .filter(|n| compatible(&v, n))
            .and_then(|n| n.anon_vma)
            .or_else(|| prev.filter(|p| compatible(p, &v)).and_then(|p| p.anon_vma));
        let id = match reused {
            Some(id) => id,
            None => self.new_anon_vma(),
        };
        let start = v.start;
        let r = self.tree.replace(
            start,
            Vma {
                anon_vma: Some(id),
                ..v
            },
        );
        debug_assert!(r.is_ok());
        Ok(())
    }

    /// Maps a special mapping (vdso, vvar, ...) at a fixed address.
    ///
    /// The VMA gets `VM_DONTEXPAND` (so it never merges or grows) plus the
    /// `VM_MAY*` bits.
    ///
    /// # Errors
    /// `EINVAL` if the range is empty or unaligned or beyond `task_size`,
    /// `EEXIST` if it overlaps a VMA, `ENOMEM` past `max_map_count`.
    ///
    /// # Linux
    /// Mirrors `_install_special_mapping()` (`mm/mmap.c`), called by
    /// `arch_setup_additional_pages()` at exec.
    pub fn install_special_mapping(
        &mut self,
        start: u64,
        len: u64,
        prot: u32,
        name: VmaName,
    ) -> Result<()> {
        let end = start.checked_add(len).ok_or(Errno::EINVAL)?;
        if len == 0 || !page_aligned(start) || !page_aligned(len) || end > self.layout.task_size {
            return Err(Errno::EINVAL);
        }
        if self.map_count() > self.max_map_count {
            return Err(Errno::ENOMEM);
        }
        let v = Vma {
            start,
            end,
            prot: prot & (PROT_READ | PROT_WRITE | PROT_EXEC),
            flags: VM_DONTEXPAND | VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC,
            file: None,
            pgoff: 0,
            name,
            anon_vma: None,
        };
        self.tree.insert(v).map_err(|_| Errno::EEXIST)
    }

    /// Asserts the [invariants](MmStruct#invariants).
    ///
    /// # Panics
    /// On a broken invariant (a bug); tests call it after every operation.
    pub fn check_invariants(&self) {
        self.tree.check_invariants();
        for v in self.tree.iter() {
            assert!(
                page_aligned(v.start) && page_aligned(v.end),
                "unaligned {v:x?}"
            );
            assert!(
                v.start < v.end && v.end <= self.layout.task_size,
                "bad range {v:x?}"
            );
            assert_eq!(
                v.prot & !(PROT_READ | PROT_WRITE | PROT_EXEC),
                0,
                "bad prot {v:x?}"
            );
            assert_eq!(v.flags & VM_ACCESS_FLAGS, 0, "access bits in flags {v:x?}");
            assert!(
                !matches!(v.name, VmaName::Heap | VmaName::Stack),
                "stored heap/stack name"
            );
        }
        if let Some(g) = &self.gate {
            assert!(g.start >= self.layout.task_size || g.name == VmaName::Vsyscall);
        }
        assert!(
            self.layout.start_brk <= self.layout.brk,
            "brk below start_brk"
        );
    }
}
