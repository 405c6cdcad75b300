//! Tasks and the process table: creation, exit, signals, process groups,
//! sessions, exec and ptrace.
//!
//! [`Kernel`] is the facade: it owns every task, thread group, `struct pid`
//! and pid namespace, and each group of system calls adds its methods to it
//! from its own folder:
//!
//! - `kernel`: [`Kernel`], the process table, with handles and pid lookups;
//! - `task_struct`: the task and thread-group structures;
//! - `readiness`: the setters of the fields a wait reads;
//! - `lifecycle/`: `clone`, `clone3`, `exec`, `exit`, `pgrp` (process
//!   groups, sessions, reparenting to a subreaper), `mm` (address spaces
//!   per process);
//! - `signal/`: sending, pending, delivering and waiting for signals,
//!   dispositions, job control, `-ERESTART*`;
//! - `ptrace/`: attach and resume, event and syscall stops,
//!   `ptrace_may_access`;
//! - `procapi/`: credentials and capabilities, resource limits, prctl,
//!   pidfds, namespaces (`nsproxy`), and what `/proc` shows (`procinfo`).

mod invariants;
pub(crate) mod kernel;
pub(crate) mod lifecycle;
mod probed;
pub mod procapi;
pub mod ptrace;
pub(crate) mod readiness;
pub(crate) mod refs;
pub(crate) mod side;
pub(crate) mod signal;
pub(crate) mod task_struct;

// The module paths of before the split, kept for other crates.
pub use procapi::{capability, commoncap, cred, pidfd, rlimit, userns};
pub use ptrace::{access as ptrace_access, event as ptrace_event};

pub use kernel::{Config, Kernel, Notification, SigInfo, TaskId};
pub use lifecycle::clone::CloneArgs;
pub use lifecycle::clone3::Clone3Args;
pub use lifecycle::mm_entry::ForkMm;
pub use procapi::capability::{Cap, CapUserData, KernelCap};
pub use procapi::commoncap::AmbientOp;
pub use procapi::cred::Cred;
pub use procapi::nsproxy::{NsKind, SetnsFd};
pub use procapi::pidfd::{PidFd, PidFdInfo};
pub use procapi::procinfo::ARG_MAX;
pub use procapi::rlimit::Rlimit;
pub use procapi::userns::{IdMapFile, UserNsId};
pub use ptrace::access::PtraceMode;
pub use signal::delivery::{SignalAction, SignalDelivery};
pub use signal::restart::{Restart, Restarted};
pub use signal::sighand::{SigAction, SigHandler};
pub use signal::sigmask::SigWait;
