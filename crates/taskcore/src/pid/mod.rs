//! Process identifiers: pid namespaces, `struct pid`, and the radix tree
//! that allocates pid numbers.
//!
//! - [`idr`]: [`Idr`], Linux's IDR (`lib/idr.c` over `lib/radix-tree.c`)
//!   sized for `PID_MAX_LIMIT`: O(log64 N) lookup, free-id search for
//!   cyclic allocation, and tags marking thread-group leaders for `/proc`.
//! - `ns`: a pid namespace and cyclic allocation (`alloc_pid`).
//! - `entry`: `struct pid`: one number per namespace level and the tasks
//!   using it as PID, TGID, PGID or SID.

pub(crate) mod entry;
pub mod idr;
pub mod ns;
pub mod refs;

pub use idr::{Idr, IDR_MAX, IDR_TAGS};
pub use ns::next_cyclic;
pub use ns::NsId;
pub use refs::{NsRef, PidRef};

/// Idr tag marking numbers whose `struct pid` is a thread group's TGID (the
/// numbers `/proc`'s root lists).
pub const TAG_TGID: usize = 0;
