//! Integration tests of the `taskcore` command, in one test binary.
//!
//! Every file under a crate's `tests/` is its own test binary that links the
//! whole library, and linking dominated `cargo test`. So this crate has one:
//! each former `tests/NAME.rs` is the module `NAME` here, and its tests are
//! named `NAME::...` (`cargo test -p taskcore-cli --test it NAME::`).
//!
//! Adding tests: put the file in `tests/it/` (not `tests/`) and add
//! `mod NAME;` below, in order. Shared helpers live in `common/`; a file that
//! had `#[path = "common/X.rs"] mod X;` says `use crate::common::X;`.
//!
//! One exception, `tests/replay_memory.rs`, stays a binary of its own: it
//! measures a child's peak RSS (`wait4`'s `ru_maxrss`), which Linux carries
//! over from the parent's memory at the child's exec (`exec_mmap()`), so it
//! needs a small parent, not a process running many tests at once.

mod common {
    pub(crate) mod repo;
}

mod mm_replay_oracle;
mod proc_from_trace;
mod proc_tools;
mod replay;
mod replay_caps;
mod replay_efault;
mod replay_input;
mod replay_probe;
mod replay_userns;
mod run_live;
mod run_races;
mod run_stops;
mod timeline;
