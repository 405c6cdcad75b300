//! Address spaces: VMAs in a copy-on-write range B-tree.
//!
//! See [`tree`] for the data structure and [`MmStruct`] for the address
//! space and its system calls.

mod slots;
pub mod tree;

pub use tree::{RangeEntry, RangeTree};
