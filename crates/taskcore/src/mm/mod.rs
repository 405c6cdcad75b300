//! Address spaces: VMAs in a copy-on-write range B-tree.
//!
//! - [`tree`] holds [`RangeTree`], the B-tree of ranges (maple-tree-like
//!   wide nodes, per-child gap tracking, `Arc` copy-on-write nodes).
//! - [`vma`] holds [`Vma`], [`VmaName`], [`FileId`] and the merge rules.
//! - [`mm_struct`] holds [`MmStruct`], the address space, and [`MmLayout`].
//! - [`mmap`], [`mprotect`] and [`mremap`] hold the system calls.
//! - [`maps`] renders and parses `/proc/PID/maps`.
//! - [`dup`] duplicates address spaces for fork.
//! - [`flags`] holds `PROT_*`, `MAP_*`, `MREMAP_*` and `VM_*`.

pub mod dup;
pub mod flags;
pub mod madvise;
pub mod maps;
mod merge;
pub mod mm_struct;
pub mod mmap;
pub mod mprotect;
pub mod mremap;
mod slots;
pub mod tree;
pub mod vma;

pub use maps::{parse_maps, parse_vma, render_maps, render_vma, ParseError};
pub use mm_struct::{MmLayout, MmStruct, DEFAULT_MAX_MAP_COUNT, TASK_SIZE_X86_64};
pub use mmap::MmapFile;
pub use tree::{RangeEntry, RangeTree};
pub use vma::{AnonVmaId, FileId, Vma, VmaName};
