//! taskcore: a Linux-compatible process-management core for programs that
//! emulate Linux in user space: sandboxes, user-space kernels, simulators,
//! record/replay tools.
//!
//! [`Kernel`] is the process table: pid namespaces with Linux's cyclic pid
//! allocation on a 64-way radix tree, thread groups, process groups and
//! sessions, fork/clone/vfork, exec, exit and reparenting, signals as far as
//! the lifecycle needs them, ptrace as far as `wait` needs it, and
//! `wait4`/`waitid` with every option. Every operation is O(1) or O(log n)
//! in the number of tasks; `wait` for any child costs what it reports.
//!
//! The crate does no I/O, prints nothing and reads no clock: callers pass
//! time in ([`Kernel::set_time`]).
//!
//! # Example
//! ```
//! use taskcore::{Config, Kernel, WaitOutcome};
//!
//! let mut k = Kernel::new(Config::default()).unwrap();
//! let init = k.init_task().unwrap();
//! let child = k.fork(init).unwrap();
//! let pid = k.pid_vnr(init, child).unwrap();
//! k.exit_group(child, 3).unwrap();
//! match k.wait4(init, pid, 0).unwrap() {
//!     WaitOutcome::Reported(r) => assert_eq!((r.pid, r.status), (pid, 3 << 8)),
//!     other => panic!("{other:?}"),
//! }
//! ```
#![deny(unsafe_code)]

pub mod errno;
pub(crate) mod list;
pub mod mm;
pub mod objpool;
pub mod pid;
pub mod probe;
pub mod procfs;
pub(crate) mod slab;
pub mod task;
pub mod uapi;
pub mod wait;

pub use errno::{Errno, Result};
pub use task::{
    Clone3Args, CloneArgs, Config, Cred, ForkMm, Kernel, Notification, Rlimit, SigAction,
    SigHandler, SigInfo, TaskId,
};
pub use wait::{WaitOutcome, WaitReport};
