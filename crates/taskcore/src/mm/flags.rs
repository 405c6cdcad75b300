//! Flag constants of mmap(2), mprotect(2), mremap(2) and `vm_flags`.
//!
//! Names and values are Linux's, for x86_64.
//!
//! # Linux
//! `include/uapi/asm-generic/mman-common.h`, `include/uapi/linux/mman.h`,
//! `arch/x86/include/uapi/asm/mman.h` (`MAP_32BIT`) and `include/linux/mm.h`
//! (`VM_*`).

/// Page size in bytes (x86_64 base pages).
pub const PAGE_SIZE: u64 = 4096;
/// log2 of [`PAGE_SIZE`].
pub const PAGE_SHIFT: u32 = 12;

/// Rounds `x` up to a page boundary, wrapping to 0 on overflow as the
/// kernel's `PAGE_ALIGN()` does.
#[inline]
pub const fn page_align(x: u64) -> u64 {
    x.wrapping_add(PAGE_SIZE - 1) & !(PAGE_SIZE - 1)
}

/// Whether `x` is a multiple of [`PAGE_SIZE`].
#[inline]
pub const fn page_aligned(x: u64) -> bool {
    x & (PAGE_SIZE - 1) == 0
}

/// Pages may not be accessed.
pub const PROT_NONE: u32 = 0x0;
/// Pages may be read.
pub const PROT_READ: u32 = 0x1;
/// Pages may be written.
pub const PROT_WRITE: u32 = 0x2;
/// Pages may be executed.
pub const PROT_EXEC: u32 = 0x4;
/// Pages may be used for atomic operations (accepted, no effect on x86).
pub const PROT_SEM: u32 = 0x8;
/// mprotect: extend the change down to the start of a growsdown mapping.
pub const PROT_GROWSDOWN: u32 = 0x0100_0000;
/// mprotect: extend the change up to the end of a growsup mapping.
pub const PROT_GROWSUP: u32 = 0x0200_0000;

/// Share changes.
pub const MAP_SHARED: u32 = 0x01;
/// Changes are private (copy-on-write).
pub const MAP_PRIVATE: u32 = 0x02;
/// Share changes and validate the flags.
pub const MAP_SHARED_VALIDATE: u32 = 0x03;
/// Mask of the mapping type.
pub const MAP_TYPE: u32 = 0x0f;
/// Interpret the address exactly, replacing what is there.
pub const MAP_FIXED: u32 = 0x10;
/// Not backed by a file.
pub const MAP_ANONYMOUS: u32 = 0x20;
/// Place in the first 2 GiB (x86_64 only).
pub const MAP_32BIT: u32 = 0x40;
/// Stack-like segment growing down.
pub const MAP_GROWSDOWN: u32 = 0x0100;
/// Ignored.
pub const MAP_DENYWRITE: u32 = 0x0800;
/// Ignored.
pub const MAP_EXECUTABLE: u32 = 0x1000;
/// Lock the pages (`VM_LOCKED`).
pub const MAP_LOCKED: u32 = 0x2000;
/// Do not reserve swap space (`VM_NORESERVE`).
pub const MAP_NORESERVE: u32 = 0x4000;
/// Prefault the pages.
pub const MAP_POPULATE: u32 = 0x8000;
/// Do not block on I/O (with `MAP_POPULATE`).
pub const MAP_NONBLOCK: u32 = 0x1_0000;
/// A thread stack (`VM_NOHUGEPAGE` since Linux 6.7).
pub const MAP_STACK: u32 = 0x2_0000;
/// Huge pages.
pub const MAP_HUGETLB: u32 = 0x4_0000;
/// Synchronous page faults for DAX files.
pub const MAP_SYNC: u32 = 0x8_0000;
/// Like `MAP_FIXED` but fail with `EEXIST` instead of replacing.
pub const MAP_FIXED_NOREPLACE: u32 = 0x10_0000;
/// Flags `MAP_SHARED` accepts silently (`LEGACY_MAP_MASK`).
pub const LEGACY_MAP_MASK: u32 = MAP_SHARED
    | MAP_PRIVATE
    | MAP_FIXED
    | MAP_ANONYMOUS
    | MAP_DENYWRITE
    | MAP_EXECUTABLE
    | MAP_UNINITIALIZED
    | MAP_GROWSDOWN
    | MAP_LOCKED
    | MAP_NORESERVE
    | MAP_POPULATE
    | MAP_NONBLOCK
    | MAP_STACK
    | MAP_HUGETLB
    | MAP_32BIT
    | MAP_HUGE_2MB
    | MAP_HUGE_1GB;
/// `MAP_HUGETLB` size selector for 2 MiB pages (`21 << MAP_HUGE_SHIFT`).
pub const MAP_HUGE_2MB: u32 = 21 << 26;
/// `MAP_HUGETLB` size selector for 1 GiB pages (`30 << MAP_HUGE_SHIFT`).
pub const MAP_HUGE_1GB: u32 = 30 << 26;
/// Anonymous pages need not be cleared (ignored without
/// `CONFIG_MMAP_ALLOW_UNINITIALIZED`).
pub const MAP_UNINITIALIZED: u32 = 0x400_0000;

/// mremap: the mapping may move.
pub const MREMAP_MAYMOVE: u32 = 1;
/// mremap: move to `new_address` exactly.
pub const MREMAP_FIXED: u32 = 2;
/// mremap: move, leaving the old range mapped (and empty).
pub const MREMAP_DONTUNMAP: u32 = 4;

/// `vm_flags`: readable (same bit as [`PROT_READ`]).
pub const VM_READ: u64 = 0x1;
/// `vm_flags`: writable.
pub const VM_WRITE: u64 = 0x2;
/// `vm_flags`: executable.
pub const VM_EXEC: u64 = 0x4;
/// `vm_flags`: shared mapping that may be written back.
pub const VM_SHARED: u64 = 0x8;
/// `vm_flags`: `VM_READ` may be set by mprotect.
pub const VM_MAYREAD: u64 = 0x10;
/// `vm_flags`: `VM_WRITE` may be set by mprotect.
pub const VM_MAYWRITE: u64 = 0x20;
/// `vm_flags`: `VM_EXEC` may be set by mprotect.
pub const VM_MAYEXEC: u64 = 0x40;
/// `vm_flags`: mapped `MAP_SHARED` (the `s` of /proc/PID/maps).
pub const VM_MAYSHARE: u64 = 0x80;
/// `vm_flags`: stack segment growing down.
pub const VM_GROWSDOWN: u64 = 0x100;
/// `vm_flags`: page ranges are raw PFNs.
pub const VM_PFNMAP: u64 = 0x400;
/// `vm_flags`: pages are locked in memory.
pub const VM_LOCKED: u64 = 0x2000;
/// `vm_flags`: memory-mapped I/O.
pub const VM_IO: u64 = 0x4000;
/// `vm_flags`: not copied on fork (`MADV_DONTFORK`).
pub const VM_DONTCOPY: u64 = 0x2_0000;
/// `vm_flags`: cannot be expanded by mremap.
pub const VM_DONTEXPAND: u64 = 0x4_0000;
/// `vm_flags`: lock pages as they are faulted in.
pub const VM_LOCKONFAULT: u64 = 0x8_0000;
/// `vm_flags`: memory is charged to the commit limit.
pub const VM_ACCOUNT: u64 = 0x10_0000;
/// `vm_flags`: no commit charge (`MAP_NORESERVE`).
pub const VM_NORESERVE: u64 = 0x20_0000;
/// `vm_flags`: hugetlb mapping.
pub const VM_HUGETLB: u64 = 0x40_0000;
/// `vm_flags`: synchronous page faults.
pub const VM_SYNC: u64 = 0x80_0000;
/// `vm_flags`: wiped (zero-filled) in the child on fork.
pub const VM_WIPEONFORK: u64 = 0x200_0000;
/// `vm_flags`: excluded from core dumps.
pub const VM_DONTDUMP: u64 = 0x400_0000;
/// `vm_flags`: mixed PFN and page mapping.
pub const VM_MIXEDMAP: u64 = 0x1000_0000;
/// `vm_flags`: transparent huge pages disabled (`MAP_STACK`).
pub const VM_NOHUGEPAGE: u64 = 0x4000_0000;
/// `vm_flags` never merged or expanded (`VM_SPECIAL`).
pub const VM_SPECIAL: u64 = VM_IO | VM_DONTEXPAND | VM_PFNMAP | VM_MIXEDMAP;
/// The access bits (`VM_ACCESS_FLAGS`), kept in [`Vma::prot`](super::Vma::prot).
pub const VM_ACCESS_FLAGS: u64 = VM_READ | VM_WRITE | VM_EXEC;
/// Flags cleared in the child on fork (`VM_LOCKED_MASK`).
pub const VM_LOCKED_MASK: u64 = VM_LOCKED | VM_LOCKONFAULT;
/// `VM_DATA_DEFAULT_FLAGS` on x86_64 (brk and data segments), without
/// `READ_IMPLIES_EXEC`.
pub const VM_DATA_DEFAULT_FLAGS: u64 = VM_READ | VM_WRITE | VM_MAYREAD | VM_MAYWRITE | VM_MAYEXEC;
