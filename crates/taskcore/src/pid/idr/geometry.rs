//! The shape of the [`Idr`](super::Idr) radix tree: how many id bits it
//! covers, how many each level takes, the tags an id carries, and the
//! value that marks an empty slot. Below both the tree and its nodes.

/// One past the largest id an [`Idr`](super::Idr) can hold: `1 << 24` = 16,777,216.
///
/// # Linux
/// Covers `PID_MAX_LIMIT` (4,194,304 on 64-bit, `include/linux/threads.h`);
/// Linux's IDR reaches `INT_MAX` by growing its height instead.
pub const IDR_MAX: u32 = 1 << IDR_SHIFT;

/// Number of tags each id can carry; valid tags are `0..IDR_TAGS`.
///
/// # Linux
/// Linux's radix tree has `RADIX_TREE_MAX_TAGS` = 3, and an IDR spends tag 0
/// on `IDR_FREE`; the other two are the ones seed 003 makes usable.
pub const IDR_TAGS: usize = 2;

/// Number of id bits the tree covers: 4 levels of [`MAP_SHIFT`] bits.
pub(super) const IDR_SHIFT: u32 = 4 * MAP_SHIFT;

/// Bits of the id consumed per level (`RADIX_TREE_MAP_SHIFT`).
pub(super) const MAP_SHIFT: u32 = 6;

/// Slots per node (`RADIX_TREE_MAP_SIZE`).
pub(super) const MAP_SIZE: usize = 1 << MAP_SHIFT;

/// Mask extracting a slot number from a shifted id (`RADIX_TREE_MAP_MASK`).
pub(super) const MAP_MASK: u32 = (1 << MAP_SHIFT) - 1;

/// The value of an empty leaf slot; callers may not store it.
pub(super) const EMPTY: u32 = u32::MAX;
