//! The process core's scenario tests (crates/taskcore/tests/lifecycle.rs),
//! run against the reference model through the `TaskApi` trait: both must
//! agree with Linux.

use crate::common::lifecycle_scenarios as scenarios;

scenarios::lifecycle_tests!(taskcore_model::Model);
