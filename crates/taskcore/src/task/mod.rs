//! Tasks and the process table: creation, exit, signals, process groups,
//! sessions, exec and ptrace.
//!
//! [`Kernel`] is the facade: it owns every task, thread group, `struct pid`
//! and pid namespace, and each group of system calls adds its methods to it
//! from its own folder:
//!
//! - `kernel`: [`Kernel`], the process table, with handles and pid lookups;
//! - `task_struct`: the task and thread-group structures;
//! - `state/`: the state those structures and the table hold, below the
//!   calls that change it: actions (`sighand`), pending sets
//!   (`sigpending`), job-control bits (`jobctl_flags`), credentials
//!   (`cred_struct`, `capability`), namespaces (`nsproxy_struct`), limits
//!   (`rlimit`), address spaces (`mm_entry`), when signals are taken
//!   (`delivery`);
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
pub mod state;
pub(crate) mod task_struct;

// The module paths of before the split, kept for other crates.
pub use procapi::{commoncap, cred, pidfd, userns};
pub use ptrace::{access as ptrace_access, event as ptrace_event};
pub use state::{capability, rlimit};

pub use kernel::{Config, Kernel, Notification, SigInfo, TaskId};
pub use lifecycle::clone::CloneArgs;
pub use lifecycle::clone3::Clone3Args;
pub use procapi::commoncap::AmbientOp;
pub use procapi::cred::Cred;
pub use procapi::nsproxy::{NsKind, SetnsFd};
pub use procapi::pidfd::{PidFd, PidFdInfo};
pub use procapi::procinfo::ARG_MAX;
pub use procapi::userns::{IdMapFile, UserNsId};
pub use ptrace::access::PtraceMode;
pub use signal::restart::{Restart, Restarted};
pub use signal::sigmask::SigWait;
pub use state::capability::{Cap, CapUserData, KernelCap};
pub use state::delivery::{SignalAction, SignalDelivery};
pub use state::mm_entry::ForkMm;
pub use state::rlimit::Rlimit;
pub use state::sighand::{SigAction, SigHandler};
