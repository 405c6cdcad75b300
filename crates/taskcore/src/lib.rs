//! taskcore: a Linux-compatible process-management core for programs that
//! emulate Linux in user space: sandboxes, user-space kernels, simulators,
//! record/replay tools.
//!
//! [`Kernel`] is the process table: pid namespaces with Linux's cyclic pid
//! allocation on a 64-way radix tree, thread groups, process groups and
//! sessions, fork/clone/vfork, exec, exit and reparenting, Linux's signal
//! path (pending sets and queues, masks, delivery through
//! [`Kernel::get_signal`]), ptrace, and `wait4`/`waitid` with every option. Every operation is O(1) or O(log n)
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
//!
//! # Signals: a kernel loop
//! With [`SignalDelivery::OnGetSignal`] the embedder delivers signals
//! itself: a thread that gains a signal it can take is named by
//! [`Notification::SigPending`] (wake it if it sleeps), and on its way
//! back to user space [`Kernel::get_signal`] says what to do: run a handler
//! (its frame saves `old_mask`, given back by [`Kernel::rt_sigreturn`]),
//! stop, or exit. A blocking call the signal interrupted ends as
//! [`Restart::resolve`] says. `examples/signal_loop.rs` runs a whole loop.
//! ```
//! use taskcore::uapi::{SA_RESTART, SIGUSR1};
//! use taskcore::{Config, Kernel, Notification, Restart, Restarted, SigAction, SigHandler};
//! use taskcore::{SignalAction, SignalDelivery, WaitOutcome};
//!
//! let mut k = Kernel::new(Config::default())?;
//! k.set_signal_delivery(SignalDelivery::OnGetSignal);
//! let init = k.init_task()?;
//! let shell = k.fork(init)?;
//! let child = k.fork(shell)?;
//! // The shell handles SIGUSR1 at 0x401000, with SA_RESTART, and waits.
//! let act = SigAction { addr: 0x40_1000, ..SigAction::new(SigHandler::Handler, SA_RESTART) };
//! k.rt_sigaction(shell, SIGUSR1, Some(act))?;
//! assert_eq!(k.wait4(shell, -1, 0)?, WaitOutcome::WouldBlock);
//! // The child signals it: wake the shell.
//! let ppid = k.getppid(child)?;
//! k.kill(child, ppid, SIGUSR1)?;
//! assert_eq!(k.take_notifications(), [Notification::SigPending { task: shell }]);
//! // Woken, its wait has nothing to report and a signal to take.
//! assert_eq!(k.wait4(shell, -1, 0)?, WaitOutcome::Interrupted);
//! // Back to user space: run the handler, then restart the wait.
//! let SignalAction::Handler { sig, action, old_mask, .. } = k.get_signal(shell)? else {
//!     unreachable!()
//! };
//! assert_eq!((sig, action.addr), (SIGUSR1, 0x40_1000));
//! assert_eq!(Restart::Sys.resolve(Some(&action)), Restarted::Restart);
//! k.rt_sigreturn(shell, old_mask)?; // the handler's return
//! k.exit_group(child, 7)?;
//! match k.wait4(shell, -1, 0)? {
//!     WaitOutcome::Reported(r) => assert_eq!(r.status, 7 << 8),
//!     other => panic!("{other:?}"),
//! }
//! # Ok::<(), taskcore::Errno>(())
//! ```
//!
//! # Failure atomicity
//! A call that returns `Err` leaves the whole state as it was: tasks, pids,
//! namespaces, groups, the wait index, address spaces, signal state and the
//! notification queue (`taskcore-fuzz`'s `core_api` and `mm` targets check
//! it after every failed call against a dump of the whole kernel). The
//! exceptions are the calls Linux itself applies in part before it fails:
//! - `mprotect` over a range that runs into a hole changes the VMAs before
//!   the hole, then fails with `ENOMEM` (`mprotect_fixup` per VMA in
//!   `do_mprotect_pkey`);
//! - `mremap` with `MREMAP_FIXED` and an unchanged size moves the VMAs of
//!   its range one by one (Linux 6.17's `remap_move`): those moved before
//!   a failure stay moved.
//!
//! # Threads
//! [`Kernel`] is a plain value: the embedder serialises access.
//! [`sync::SharedKernel`] does it for tasks that are OS threads: one lock,
//! blocking waits that park the caller, per-call notifications.
#![deny(unsafe_code)]

pub mod errno;
mod ix;
pub(crate) mod list;
pub mod mm;
pub mod objpool;
pub mod pid;
pub mod probe;
pub mod procfs;
pub mod rules;
pub(crate) mod slab;
pub mod sync;
pub mod sys;
pub mod task;
mod types;
pub mod uapi;
pub mod wait;

pub use errno::{Errno, Result};

pub use pid::{NsRef, PidRef};
pub use task::{
    AmbientOp, Cap, CapUserData, Clone3Args, CloneArgs, Config, Cred, ForkMm, IdMapFile, Kernel,
    KernelCap, Notification, NsKind, PidFd, PidFdInfo, PtraceMode, Restart, Restarted, Rlimit,
    SetnsFd, SigAction, SigHandler, SigInfo, SigWait, SignalAction, SignalDelivery, TaskId,
    UserNsId,
};
pub use types::{Signal, WaitOptions};
pub use wait::{WaitOutcome, WaitReport};
