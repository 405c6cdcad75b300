//! Process ids: the radix tree that maps pid numbers to their owners.
//!
//! [`idr`] holds [`Idr`], Linux's IDR (`lib/idr.c` over `lib/radix-tree.c`)
//! sized for `PID_MAX_LIMIT`: O(log64 N) lookup, free-id search for cyclic
//! allocation, and tags marking thread-group leaders for `/proc` listing.

pub mod idr;

pub use idr::{Idr, IDR_MAX, IDR_TAGS};
