//! Virtual memory areas and the rules for merging them.
//!
//! A [`Vma`] is one line of `/proc/PID/maps`: a page-aligned range
//! `[start, end)` with protection, flags, an optional backing file and
//! offset, and a name. The merge predicates here decide when two adjacent
//! VMAs become one.
//!
//! # Merge rule
//! Two adjacent VMAs merge exactly when Linux's `vma_merge()` /
//! `vma_expand()` would merge them (`mm/mmap.c`, Linux 6.8):
//! - `is_mergeable_vma()`: same `vm_flags` (here `prot` and `flags`), same
//!   file, same anonymous name ([`VmaName`]); never for `VM_SPECIAL`.
//! - `can_vma_merge_before()` / `can_vma_merge_after()`: the page offsets
//!   are contiguous (`prev.pgoff + prev.pages() == next.pgoff`; anonymous
//!   private VMAs get `pgoff = start >> PAGE_SHIFT` at mmap, so they are
//!   contiguous unless mremap moved one after it was faulted).
//! - `is_mergeable_anon_vma()`: the anon_vmas are equal, or the incoming
//!   side has none while the existing VMA has one (or neither has one). A
//!   VMA that has an anon_vma never merges into a neighbour that has none,
//!   nor with one that has a different anon_vma. [`Vma::anon_vma`] stands
//!   for the kernel pointer: set by [`MmStruct::anon_vma_prepare`] (the
//!   first write fault) and by [`MmStruct::from_vmas`].
//!
//! Divergences, documented where they apply: the file is compared by
//! [`FileId`] (device and inode) and path, while Linux compares the
//! `struct file` pointer, so two separate open()s of one file merge here
//! but not in Linux; the anon_vma chain of a forked child is treated as
//! singular (Linux refuses some merges in children for scalability).
//!
//! [`MmStruct::anon_vma_prepare`]: super::MmStruct::anon_vma_prepare
//! [`MmStruct::from_vmas`]: super::MmStruct::from_vmas

use std::num::NonZeroU64;
use std::sync::Arc;

use super::flags::*;
use super::tree::RangeEntry;

/// A backing file: device number and inode, as `/proc/PID/maps` shows them.
///
/// # Linux
/// `inode->i_sb->s_dev` (split by `MAJOR()`/`MINOR()`) and `inode->i_ino`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FileId {
    /// Device major number (12 bits in Linux).
    pub major: u32,
    /// Device minor number (20 bits in Linux).
    pub minor: u32,
    /// Inode number.
    pub inode: u64,
}

/// Identity of an anon_vma (the reverse-map root of a VMA's anonymous
/// pages). Only equality matters.
///
/// # Linux
/// Stands for the `struct anon_vma *` of `vma->anon_vma`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AnonVmaId(pub NonZeroU64);

/// The name shown in the last column of `/proc/PID/maps`.
///
/// # Linux
/// Mirrors `get_vma_name()` in `fs/proc/task_mmu.c`: a file path, a
/// special mapping's name, `[heap]`/`[stack]` (computed from `mm->brk` and
/// `mm->start_stack`, see [`MmStruct::maps_vmas`]) or an anonymous name set
/// by `prctl(PR_SET_VMA_ANON_NAME)` shown as `[anon:NAME]`.
///
/// [`MmStruct::maps_vmas`]: super::MmStruct::maps_vmas
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum VmaName {
    /// No name (plain anonymous memory).
    #[default]
    None,
    /// `[heap]`: the brk area.
    Heap,
    /// `[stack]`: the initial stack.
    Stack,
    /// `[vdso]`.
    Vdso,
    /// `[vvar]`.
    Vvar,
    /// `[vsyscall]` (the gate VMA, above `TASK_SIZE`).
    Vsyscall,
    /// `[anon:NAME]`; holds `NAME`.
    Anon(Arc<str>),
    /// A file path, as shown (escaped by `seq_path`, maybe ending in
    /// ` (deleted)`); anything not in brackets parses as a path.
    Path(Arc<str>),
    /// Another bracketed name, e.g. `[vvar_vclock]` or `[uprobes]`; holds
    /// the whole text with its brackets.
    Special(Arc<str>),
}

impl VmaName {
    /// Parses the name column of a maps line ("" for none).
    pub fn parse(s: &str) -> VmaName {
        match s {
            "" => VmaName::None,
            "[heap]" => VmaName::Heap,
            "[stack]" => VmaName::Stack,
            "[vdso]" => VmaName::Vdso,
            "[vvar]" => VmaName::Vvar,
            "[vsyscall]" => VmaName::Vsyscall,
            _ => {
                if let Some(n) = s.strip_prefix("[anon:").and_then(|r| r.strip_suffix(']')) {
                    VmaName::Anon(n.into())
                } else if s.starts_with('[') {
                    VmaName::Special(s.into())
                } else {
                    VmaName::Path(s.into())
                }
            }
        }
    }

    /// Whether the name is a special mapping's (never merged, not
    /// anonymous memory in the `vma_is_anonymous()` sense).
    pub fn is_special(&self) -> bool {
        matches!(
            self,
            VmaName::Vdso | VmaName::Vvar | VmaName::Vsyscall | VmaName::Special(_)
        )
    }
}

impl core::fmt::Display for VmaName {
    /// Writes the name as the maps file shows it.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            VmaName::None => Ok(()),
            VmaName::Heap => f.write_str("[heap]"),
            VmaName::Stack => f.write_str("[stack]"),
            VmaName::Vdso => f.write_str("[vdso]"),
            VmaName::Vvar => f.write_str("[vvar]"),
            VmaName::Vsyscall => f.write_str("[vsyscall]"),
            VmaName::Anon(n) => write!(f, "[anon:{n}]"),
            VmaName::Path(p) | VmaName::Special(p) => f.write_str(p),
        }
    }
}

/// One virtual memory area: a page-aligned range and its attributes.
///
/// About 96 bytes; names are shared `Arc<str>`.
///
/// # Invariants
/// 1. `start < end`, both page-aligned.
/// 2. `prot` has only `PROT_READ | PROT_WRITE | PROT_EXEC` bits.
/// 3. `flags` has no `VM_READ | VM_WRITE | VM_EXEC` bit (those are `prot`).
/// 4. For anonymous private memory `pgoff` is in pages from address 0 at
///    creation (`start >> PAGE_SHIFT`); for files, pages into the file.
///
/// # Linux
/// Mirrors `struct vm_area_struct` (`include/linux/mm_types.h`):
/// `vm_start`, `vm_end`, `vm_flags` (split here into `prot` and `flags`),
/// `vm_file`, `vm_pgoff`, `anon_vma`, and the name `get_vma_name()` shows.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Vma {
    /// First address (page-aligned).
    pub start: u64,
    /// One past the last address (page-aligned).
    pub end: u64,
    /// `PROT_READ | PROT_WRITE | PROT_EXEC` bits.
    pub prot: u32,
    /// `VM_*` flags other than the access bits: `VM_SHARED`/`VM_MAYSHARE`
    /// for `MAP_SHARED`, `VM_MAY*`, `VM_GROWSDOWN`, `VM_ACCOUNT`, ...
    pub flags: u64,
    /// Backing file, `None` for anonymous memory.
    pub file: Option<FileId>,
    /// Offset in pages: into `file`, or `start >> PAGE_SHIFT` at creation
    /// for anonymous memory.
    pub pgoff: u64,
    /// Name shown in /proc/PID/maps.
    pub name: VmaName,
    /// The anon_vma, once anonymous pages exist (see the module docs).
    pub anon_vma: Option<AnonVmaId>,
}

impl RangeEntry for Vma {
    #[inline]
    fn start(&self) -> u64 {
        self.start
    }
    #[inline]
    fn end(&self) -> u64 {
        self.end
    }
    /// Flags that `fork` must act on per VMA, so that a copy-on-write fork
    /// can find them without a scan.
    #[inline]
    fn tag(&self) -> u64 {
        self.flags & (VM_DONTCOPY | VM_LOCKED_MASK | VM_WIPEONFORK)
    }
}

impl Vma {
    /// A private anonymous VMA with `VM_MAY*` flags, as `mmap(NULL, len,
    /// prot, MAP_PRIVATE | MAP_ANONYMOUS)` creates (plus `VM_ACCOUNT` when
    /// writable).
    pub fn anon(start: u64, end: u64, prot: u32) -> Vma {
        let mut flags = VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC;
        if prot & PROT_WRITE != 0 {
            flags |= VM_ACCOUNT;
        }
        Vma {
            start,
            end,
            prot: prot & (PROT_READ | PROT_WRITE | PROT_EXEC),
            flags,
            file: None,
            pgoff: start >> PAGE_SHIFT,
            name: VmaName::None,
            anon_vma: None,
        }
    }

    /// Length in pages.
    ///
    /// # Linux
    /// Mirrors `vma_pages()`.
    #[inline]
    pub fn pages(&self) -> u64 {
        (self.end - self.start) >> PAGE_SHIFT
    }

    /// Length in bytes.
    #[inline]
    pub fn len(&self) -> u64 {
        self.end - self.start
    }

    /// Always false: a VMA covers at least one page (kept for the
    /// `len`/`is_empty` convention).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.end <= self.start
    }

    /// The full `vm_flags` word (access bits included).
    #[inline]
    pub fn vm_flags(&self) -> u64 {
        self.flags | (u64::from(self.prot) & VM_ACCESS_FLAGS)
    }

    /// Whether the VMA was mapped `MAP_SHARED` (`VM_MAYSHARE`).
    #[inline]
    pub fn is_shared(&self) -> bool {
        self.flags & VM_MAYSHARE != 0
    }

    /// Whether this is anonymous memory without `vm_ops`.
    ///
    /// # Linux
    /// Mirrors `vma_is_anonymous()`; special mappings have `vm_ops`.
    #[inline]
    pub fn is_anonymous(&self) -> bool {
        self.file.is_none() && !self.name.is_special()
    }

    /// The page offset of address `addr` inside this VMA.
    #[inline]
    pub fn pgoff_at(&self, addr: u64) -> u64 {
        self.pgoff.wrapping_add((addr - self.start) >> PAGE_SHIFT)
    }

    /// The part of this VMA in `[start, end)` (clipped), with `pgoff`
    /// adjusted. Callers pass a range that intersects the VMA.
    pub(crate) fn slice(&self, start: u64, end: u64) -> Vma {
        let s = start.max(self.start);
        let e = end.min(self.end);
        debug_assert!(s < e);
        Vma {
            start: s,
            end: e,
            pgoff: self.pgoff_at(s),
            ..self.clone()
        }
    }

    /// The lowest address a new mapping may end at below this VMA: its
    /// start, lowered by `guard` for a stack that grows down.
    ///
    /// # Linux
    /// Mirrors `vm_start_gap()` (`stack_guard_gap` is `guard`).
    #[inline]
    pub fn start_gap(&self, guard: u64) -> u64 {
        if self.flags & VM_GROWSDOWN != 0 {
            self.start.saturating_sub(guard)
        } else {
            self.start
        }
    }
}

/// The attributes of a range about to be merged (what `vma_merge()`
/// receives besides the range).
#[derive(Clone, Debug)]
pub(crate) struct MergeAttrs {
    /// New protection.
    pub(crate) prot: u32,
    /// New flags (access bits excluded).
    pub(crate) flags: u64,
    /// File.
    pub(crate) file: Option<FileId>,
    /// Page offset of the range's first page.
    pub(crate) pgoff: u64,
    /// Name.
    pub(crate) name: VmaName,
    /// anon_vma of the incoming range.
    pub(crate) anon_vma: Option<AnonVmaId>,
}

impl MergeAttrs {
    /// The attributes of `v` for the part starting at `addr`.
    pub(crate) fn of(v: &Vma, addr: u64) -> MergeAttrs {
        MergeAttrs {
            prot: v.prot,
            flags: v.flags,
            file: v.file,
            pgoff: v.pgoff_at(addr),
            name: v.name.clone(),
            anon_vma: v.anon_vma,
        }
    }

    /// A VMA `[start, end)` with these attributes.
    pub(crate) fn to_vma(&self, start: u64, end: u64) -> Vma {
        Vma {
            start,
            end,
            prot: self.prot,
            flags: self.flags,
            file: self.file,
            pgoff: self.pgoff,
            name: self.name.clone(),
            anon_vma: self.anon_vma,
        }
    }
}

/// Mirrors `is_mergeable_vma()` (`mm/mmap.c`): flags, file and name match.
pub(crate) fn is_mergeable_vma(vma: &Vma, a: &MergeAttrs) -> bool {
    vma.flags == a.flags
        && vma.prot == a.prot
        && vma.file == a.file
        && vma.name == a.name
        && a.flags & VM_SPECIAL == 0
        && !vma.name.is_special()
}

/// Mirrors `is_mergeable_anon_vma(anon_vma1, anon_vma2, vma)`: `incoming`
/// is `anon_vma1`, `existing` is `vma->anon_vma` when `existing_vma`
/// (Linux's `vma` argument is non-NULL), else `anon_vma2`.
///
/// Linux's `list_is_singular(&vma->anon_vma_chain)` is true exactly when
/// the existing VMA has an anon_vma (chains of forked children are treated
/// as singular: see the module docs).
pub(crate) fn is_mergeable_anon_vma(
    incoming: Option<AnonVmaId>,
    existing: Option<AnonVmaId>,
    existing_vma: bool,
) -> bool {
    if (incoming.is_none() || existing.is_none()) && (!existing_vma || existing.is_some()) {
        return true;
    }
    incoming == existing
}

/// Mirrors `can_vma_merge_before(next, ...)`: a range of `pglen` pages with
/// attributes `a` may be merged in front of `next`.
pub(crate) fn can_vma_merge_before(next: &Vma, a: &MergeAttrs, pglen: u64) -> bool {
    is_mergeable_vma(next, a)
        && is_mergeable_anon_vma(a.anon_vma, next.anon_vma, true)
        && next.pgoff == a.pgoff.wrapping_add(pglen)
}

/// Mirrors `can_vma_merge_after(prev, ...)`: a range with attributes `a`
/// may be merged after `prev`.
pub(crate) fn can_vma_merge_after(prev: &Vma, a: &MergeAttrs) -> bool {
    is_mergeable_vma(prev, a)
        && is_mergeable_anon_vma(a.anon_vma, prev.anon_vma, true)
        && prev.pgoff.wrapping_add(prev.pages()) == a.pgoff
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: u64) -> Option<AnonVmaId> {
        NonZeroU64::new(n).map(AnonVmaId)
    }

    #[test]
    fn anon_vma_rule_is_asymmetric() {
        // existing has one, incoming none: merge.
        assert!(is_mergeable_anon_vma(None, id(1), true));
        // existing none, incoming has one: no merge.
        assert!(!is_mergeable_anon_vma(id(1), None, true));
        assert!(is_mergeable_anon_vma(None, None, true));
        assert!(is_mergeable_anon_vma(id(2), id(2), true));
        assert!(!is_mergeable_anon_vma(id(2), id(3), true));
        // Without a vma argument, either side may be empty.
        assert!(is_mergeable_anon_vma(id(1), None, false));
    }

    #[test]
    fn contiguity_and_attributes() {
        let a = Vma::anon(0x1000, 0x3000, PROT_READ | PROT_WRITE);
        let b = Vma::anon(0x3000, 0x4000, PROT_READ | PROT_WRITE);
        assert!(can_vma_merge_after(&a, &MergeAttrs::of(&b, b.start)));
        assert!(can_vma_merge_before(
            &b,
            &MergeAttrs::of(&a, a.start),
            a.pages()
        ));
        let c = Vma::anon(0x3000, 0x4000, PROT_READ);
        assert!(!can_vma_merge_after(&a, &MergeAttrs::of(&c, c.start)));
        let mut moved = b.clone();
        moved.pgoff = 77;
        assert!(!can_vma_merge_after(
            &a,
            &MergeAttrs::of(&moved, moved.start)
        ));
        let mut named = b.clone();
        named.name = VmaName::Anon("x".into());
        assert!(!can_vma_merge_after(
            &a,
            &MergeAttrs::of(&named, named.start)
        ));
    }

    #[test]
    fn names_round_trip() {
        for s in [
            "",
            "[heap]",
            "[stack]",
            "[vdso]",
            "[vvar]",
            "[vsyscall]",
            "[anon:foo bar]",
            "/usr/lib/libc.so.6",
            "/a (deleted)",
            "[vvar_vclock]",
            "anon_inode:[perf_event]",
        ] {
            assert_eq!(VmaName::parse(s).to_string(), s);
        }
        assert_eq!(VmaName::parse("[anon:x]"), VmaName::Anon("x".into()));
        assert!(matches!(
            VmaName::parse("anon_inode:[perf_event]"),
            VmaName::Path(_)
        ));
    }
}
