//! Tasks and the process table: creation, exit, signals, process groups,
//! sessions, exec and ptrace.
//!
//! - `kernel`: [`Kernel`], the process table, with handles and pid lookups;
//! - `task_struct`: the task and thread-group structures;
//! - `clone`, `clone3`, `exit`, `signal`, `pgrp`, `exec`, `ptrace`: one file per
//!   syscall family;
//! - `cred`: credentials and the set*id family;
//! - `userns`: user namespaces, their id maps and `ns_capable`;
//! - `capability`, `commoncap`: capability sets and their rules;
//! - `rlimit`: resource limits;
//! - `procinfo`: state kept only for `/proc` (cmdline, run state, comm).

pub mod capability;
mod clone;
mod clone3;
pub mod commoncap;
pub mod cred;
mod exec;
mod exit;
mod invariants;
pub(crate) mod jobctl;
pub(crate) mod kernel;
mod mm;
pub(crate) mod nsproxy;
mod pgrp;
pub mod pidfd;
mod prctl;
mod procinfo;
mod ptrace;
pub mod ptrace_access;
pub mod ptrace_event;
pub(crate) mod readiness;
mod restart;
pub mod rlimit;
mod sigaction;
mod sigdeliver;
mod sigmask;
mod signal;
mod sigpending;
mod sigsend;
pub(crate) mod task_struct;
pub mod userns;

pub use capability::{Cap, CapUserData, KernelCap};
pub use clone::CloneArgs;
pub use clone3::Clone3Args;
pub use commoncap::AmbientOp;
pub use cred::Cred;
pub use kernel::{Config, Kernel, Notification, SigInfo, TaskId};
pub use mm::ForkMm;
pub use nsproxy::{NsKind, SetnsFd};
pub use pidfd::{PidFd, PidFdInfo};
pub use procinfo::ARG_MAX;
pub use ptrace_access::PtraceMode;
pub use restart::{Restart, Restarted};
pub use rlimit::Rlimit;
pub use sigaction::{SigAction, SigHandler};
pub use sigdeliver::{SignalAction, SignalDelivery};
pub use sigmask::SigWait;
pub use userns::{IdMapFile, UserNsId};
