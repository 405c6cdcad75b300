//! The process core's scenario tests (crates/taskcore/tests/lifecycle.rs),
//! run against the reference model: both must agree with Linux.

use taskcore::uapi::*;
use taskcore_model::{
    Clone3Args, CloneArgs, Config, Errno, Model as Kernel, SigAction, SigHandler, Tid as TaskId,
    WaitOutcome,
};

include!("../../taskcore/tests/common/lifecycle_scenarios.rs");
