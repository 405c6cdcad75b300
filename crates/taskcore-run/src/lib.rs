//! Runs a real program in a private pid namespace served by the taskcore
//! process core, and checks the core's answers against the real kernel's
//! as the program runs.
//!
//! ```text
//!  supervisor (virtual pid 1, real subreaper, tracer of every task)
//!    │ PTRACE_SEIZE + seccomp filter (SECCOMP_RET_TRACE for the calls in
//!    │ calls::TRAPPED; everything else runs natively)
//!    ├─ seccomp stop   ─ pid arguments virtual → real; the core applies
//!    │                   kill/exit at entry; confinement (kill -1, init)
//!    ├─ clone event    ─ the core's clone numbers the child; its tid is
//!    │                   written where CLONE_*_SETTID point
//!    ├─ syscall exit   ─ the real result real → virtual; the core applies
//!    │                   the call and its answer is compared
//!    ├─ signal stop    ─ the core's get_signal takes the same signal;
//!    │                   si_pid becomes the virtual sender
//!    └─ exit / reap    ─ the core's exit and init's reaping of orphans
//! ```
//!
//! The program sees the real kernel's results, renumbered: every pid it
//! reads or passes is the core's number. A pid the core has not given out
//! names no process (`ESRCH`, or the call's own "no such" errno), as in a
//! real pid namespace; `kill(-1, sig)` and signals to pid 1 reach only
//! what they reach in a pid namespace. Nothing else is changed.
//!
//! # Example
//! ```no_run
//! use taskcore_run::{run, Options};
//!
//! let opts = Options::new(vec!["sh".into(), "-c".into(), "echo $$".into()]);
//! let report = run(&opts).expect("ptrace and seccomp are available");
//! assert_eq!(report.exit_status, 0);
//! assert!(report.divergences.is_empty(), "{}", report.divergences[0]);
//! ```
//!
//! See `docs/run.md` in the repository for the design, the calls served
//! and the limits.
//!
//! No Linux analogue as a whole: a user-space `CLONE_NEWPID` (kernel/pid_namespace.c)
//! whose numbering is the core's.

mod calls;
mod check;
mod creds;
mod filter;
mod live;
mod options;
mod pidmap;
mod report;
mod spawn;
mod supervisor;
mod timeline;
mod tracee;

pub use calls::{Arg, Translate, Trapped, EXECS, MASKED_WAITS, TRAPPED};
pub use check::Divergence;
pub use live::{view_signal, LiveView, View};
pub use options::{Options, RunError};
pub use report::Report;
pub use supervisor::run;
pub use timeline::Timeline;
