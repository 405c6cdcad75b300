//! One system call type: [`Syscall`], every call the [`Kernel`] implements,
//! decoded from raw x86_64 numbers and arguments ([`Syscall::from_raw`]),
//! and one [`dispatch`] onto a [`Kernel`]; [`TaskApi`], the lifecycle calls
//! shared by the [`Kernel`] and other process tables (the reference model
//! `taskcore-model`), so one scenario drives both.
//!
//! - `syscall`: the [`Syscall`] enum, with [`Prctl`] and [`Ptrace`] for the
//!   sub-operations of prctl(2) and ptrace(2);
//! - `decode`: [`Syscall::from_raw`] / [`Syscall::from_raw_with`] and the
//!   [`UserMemory`] they read pointer arguments through;
//! - `fds`: [`FdTable`], through which [`Syscall::from_raw_in`] resolves
//!   fd arguments (pidfds, namespace files);
//! - `dispatch`: [`dispatch`] and its result, [`SysRet`];
//! - `probe_op`: [`Syscall::probe_op`], the [`crate::probe::Op`] a call
//!   fires;
//! - `sighandler`: [`SigHandler::from_sa_handler`](crate::SigHandler::from_sa_handler)
//!   and [`SigAction::from_raw`](crate::SigAction::from_raw), the one
//!   conversion from raw `sa_handler` values;
//! - `api`: the [`TaskApi`] trait; `generic`: [`dispatch_api`], a
//!   [`Syscall`] applied to any [`TaskApi`] implementation, and the one
//!   mapping of those calls ([`dispatch`] hands them to it);
//! - [`names`]: the names Linux gives argument values (what strace
//!   prints), with their values;
//! - [`nr`]: the x86_64 numbers ([`nr::ALL`]: every one [`Syscall::from_raw`] decodes);
//! - [`uaccess`]: [`TaskMemory`], user memory through the task's VMAs
//!   (`EFAULT` outside them or against their protection).
//!
//! Adding a call is one variant in `syscall.rs` (plus its name and number
//! there), one arm in `decode.rs` and one in `dispatch.rs`.
//!
//! # Examples
//! ```
//! use taskcore::sys::{dispatch, nr, SysRet, Syscall};
//! use taskcore::{Config, Errno, Kernel};
//!
//! let mut k = Kernel::new(Config::default()).unwrap();
//! let init = k.init_task().unwrap();
//! let fork = Syscall::from_raw(nr::FORK, [0; 6]).unwrap();
//! let Ok(SysRet::Child { pid, .. }) = dispatch(&mut k, init, &fork) else { panic!() };
//! assert_eq!(pid, 2);
//! // exit_group(3) from the child, then wait4(-1, NULL, 0, NULL) in init.
//! let child = k.find_task_by_vpid(init, pid).unwrap();
//! dispatch(&mut k, child, &Syscall::from_raw(nr::EXIT_GROUP, [3, 0, 0, 0, 0, 0]).unwrap()).unwrap();
//! let r = dispatch(&mut k, init, &Syscall::Wait4 { pid: -1, options: 0 }).unwrap();
//! assert_eq!(r.raw(), pid.into());
//! assert_eq!(Syscall::from_raw(4242, [0; 6]), Err(Errno::ENOSYS));
//! ```
//!
//! # Linux
//! The syscall table (`arch/x86/entry/syscalls/syscall_64.tbl`) and the
//! `SYSCALL_DEFINEn` entry points in kernel/fork.c, exit.c, signal.c,
//! sys.c, ptrace.c, groups.c, pid.c, nsproxy.c, mm/mmap.c, mm/mprotect.c, mm/mremap.c.
//!
//! [`Kernel`]: crate::Kernel

mod api;
mod decode;
mod dispatch;
mod fds;
mod generic;
pub mod names;
pub mod nr;
mod probe_op;
mod sighandler;
mod syscall;
mod sysret;
pub mod uaccess;

pub use api::TaskApi;
pub use decode::{NoMemory, UserMemory};
pub use dispatch::dispatch;
pub use fds::{FdTable, NoFds};
pub use generic::{dispatch_api, ApiRet, KernelPidFds, PidFdMap};
pub use sighandler::{SIG_DFL, SIG_IGN};
pub use syscall::{Prctl, Ptrace, Syscall, Timespec};
pub use sysret::{SysResult, SysRet};
pub use uaccess::{AddressSpace, TaskMemory};
