//! Integration tests of `taskcore`, in one test binary.
//!
//! Every file under a crate's `tests/` is its own test binary that links the
//! whole library, and linking dominated `cargo test`. So this crate has one:
//! each former `tests/NAME.rs` is the module `NAME` here, and its tests are
//! named `NAME::...` (`cargo test -p taskcore --test it NAME::`).
//!
//! Adding tests: put the file in `tests/it/` (not `tests/`) and add
//! `mod NAME;` below, in order. Shared helpers live in `common/`; a file that
//! had `#[path = "common/X.rs"] mod X;` says `use crate::common::X;`.
//! Fixtures: `oracle/` and `maps/` here link to the repository's
//! `tests/oracle` and `data/maps`, so `include_str!("oracle/X.out")` works
//! unchanged. The loom models (`objpool_loom`, `sync_loom`) compile only under
//! `--cfg loom` (`scripts/miri-loom.sh`).

mod common {
    pub(crate) mod clone_oracle;
    pub(crate) mod lifecycle_scenarios;
    pub(crate) mod recorded;
    pub(crate) mod repo;
    pub(crate) mod tracer_log;
}

mod errno_table;
mod idr;
mod lifecycle;
mod listen_continued;
mod mm;
mod mm_oracle;
mod ns_refs;
mod objpool_loom;
mod objpool_stress;
mod oracle_caps;
mod oracle_children;
mod oracle_clone;
mod oracle_cred;
mod oracle_exit_gstop;
mod oracle_jobctl;
mod oracle_map_count;
mod oracle_pidfd;
mod oracle_pidfd_leader;
mod oracle_pidns;
mod oracle_prctl;
mod oracle_proc_owner;
mod oracle_ptrace;
mod oracle_ptrace_access;
mod oracle_ptrace_edges;
mod oracle_ptrace_gstop;
mod oracle_ptrace_thread_stops;
mod oracle_rlimit;
mod oracle_signals;
mod oracle_traced_init;
mod oracle_uaccess;
mod oracle_userns;
mod oracle_validation;
mod oracle_vfork_sleeper;
mod oracle_vfork_wait;
mod pdeath_listen;
mod probe;
mod procfs;
mod signals;
mod supervised_jobctl;
mod sync_loom;
mod sync_stress;
mod sys;
mod sys_probe;
mod vfork_done_killed;
