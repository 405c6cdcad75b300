//! Tests of the reference model (and of the core against it), in one test binary.
//!
//! Every file under a crate's `tests/` is its own test binary that links the
//! whole library, and linking dominated `cargo test`. So this crate has one:
//! each former `tests/NAME.rs` is the module `NAME` here, and its tests are
//! named `NAME::...` (`cargo test -p taskcore-model --test it NAME::`).
//!
//! Adding tests: put the file in `tests/it/` (not `tests/`) and add
//! `mod NAME;` below, in order. Shared helpers live in `common/`; a file that
//! had `#[path = "common/X.rs"] mod X;` says `use crate::common::X;`.
//! `model_vs_core/` is the property test of the model against the core.

mod common {
    // The core's scenarios and oracle cases, run here on the model.
    #[path = "../../../../taskcore/tests/it/common/clone_oracle.rs"]
    pub(crate) mod clone_oracle;
    #[path = "../../../../taskcore/tests/it/common/lifecycle_scenarios.rs"]
    pub(crate) mod lifecycle_scenarios;
    pub(crate) mod model_log;
}

mod lifecycle;
mod linux_only;
mod model_vs_core;
mod oracle_caps;
mod oracle_clone;
mod oracle_pdeath_listen;
mod oracle_ptrace_edges;
mod oracle_ptrace_thread_stops;
mod oracle_vfork_sleeper;
