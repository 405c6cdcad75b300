//! Fuzz targets of taskcore. Each takes arbitrary bytes and must neither
//! panic (other than by a violated invariant, which is the bug it looks
//! for) nor leave the state inconsistent.
//!
//! - [`strace`]: the strace line parser and joiner;
//! - [`replay`]: the streaming replay, fed traces built from the bytes;
//! - [`core_api`]: a sequence of system calls, each a number of
//!   `taskcore::sys::nr::ALL` with registers from the input (stale and
//!   foreign `TaskId`s as callers, every pid encoding, options and flag
//!   bits, signals -1..=130, pointers into memory made of the input's
//!   bytes), decoded by `Syscall::from_raw_with` and applied by the one
//!   `taskcore::sys::dispatch`, and the embedder's operations no syscall
//!   reaches (nested namespaces and pid_max at its bounds come from them),
//!   with `check_invariants` after every call and, for a call that failed,
//!   the whole state compared with the state before it;
//! - [`procfs`]: path resolution, reads and listings of `/proc`;
//! - [`mm`]: the memory calls (through `dispatch` too) with addresses and
//!   lengths near `u64::MAX`;
//! - [`maps`]: the `/proc/PID/maps` parser (parse, render, parse again).
//!
//! `fuzz/` (cargo-fuzz, nightly) runs them with libFuzzer
//! (`scripts/fuzz.sh TARGET SECONDS`); `tests/it/corpus.rs` replays the
//! minimised corpora in `fuzz/corpus/TARGET/` as ordinary tests on stable.

mod bytes;
mod core_api;
mod text;

pub use core_api::{core_api, mm};
pub use text::{maps, procfs, replay, strace};

/// A fuzz target: arbitrary bytes in, a panic when it finds a bug.
pub type Target = fn(&[u8]);

/// Every target, by name (the directory names of `fuzz/corpus`).
pub const TARGETS: [(&str, Target); 6] = [
    ("strace", strace),
    ("replay", replay),
    ("core_api", core_api),
    ("procfs", procfs),
    ("mm", mm),
    ("maps", maps),
];
