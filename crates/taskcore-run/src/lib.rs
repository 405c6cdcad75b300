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
mod filter;
mod live;
mod pidmap;
mod report;
mod spawn;
mod supervisor;
mod timeline;
mod tracee;

pub use calls::{Arg, Translate, Trapped, MASKED_WAITS, TRAPPED};
pub use check::Divergence;
pub use live::{view_signal, LiveView, View};
pub use report::Report;
pub use supervisor::run;
pub use timeline::Timeline;

/// How a program is run.
#[derive(Clone, Debug)]
pub struct Options {
    /// The command and its arguments (`argv`; `argv[0]` is looked up in
    /// `PATH`).
    pub argv: Vec<String>,
    /// `pid_max` of the virtual namespace (default 32768; Linux's range
    /// 301..=4194304).
    pub pid_max: u32,
    /// The virtual pid the command gets (default 2: init is 1). Later
    /// tasks follow Linux's cyclic rule from there.
    pub first_pid: i32,
    /// Compare each answer of the core with the real kernel's (default
    /// `true`). Off, the core still numbers and confines.
    pub check: bool,
    /// Print each divergence on stderr as it happens (default `true`).
    pub print_divergences: bool,
    /// Keep the run's processes over time in [`Report::timeline`]
    /// (default `false`).
    pub timeline: bool,
    /// Publish views of the run here for readers on other threads (a FUSE
    /// `/proc`; default `None`).
    pub live_view: Option<std::sync::Arc<LiveView>>,
    /// Bind this directory over `/proc` for the command, in a private
    /// mount namespace of its own (`unshare(CLONE_NEWNS)`, needs
    /// `CAP_SYS_ADMIN`): where the emulated `/proc` is mounted. Default
    /// `None`.
    pub proc_dir: Option<std::path::PathBuf>,
}

impl Options {
    /// Defaults for running `argv`.
    pub fn new(argv: Vec<String>) -> Options {
        Options {
            argv,
            pid_max: 32768,
            first_pid: 2,
            check: true,
            print_divergences: true,
            timeline: false,
            live_view: None,
            proc_dir: None,
        }
    }
}

/// Why a program could not be run.
///
/// The program's own failures are not errors: they are its exit status in
/// [`Report::exit_status`] (127 for a command not found, as shells say).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// No command was given.
    #[error("no command given")]
    NoCommand,
    /// An option is out of range.
    #[error("{0}")]
    BadOption(String),
    /// `PTRACE_SEIZE` was refused (a restrictive container, Yama's
    /// `kernel.yama.ptrace_scope` = 3, or a seccomp policy that forbids
    /// ptrace).
    #[error("ptrace is not available here ({0}); taskcore run needs PTRACE_SEIZE of its own child (check kernel.yama.ptrace_scope and the container's seccomp policy)")]
    Ptrace(nix::Error),
    /// The seccomp filter could not be installed.
    #[error("seccomp-bpf is not available here ({0}); taskcore run needs SECCOMP_SET_MODE_FILTER with SECCOMP_RET_TRACE (Linux >= 4.8)")]
    Seccomp(String),
    /// A system call of the supervisor itself failed.
    #[error("{what}: {err}")]
    Os {
        /// What was being done.
        what: &'static str,
        /// The error.
        err: nix::Error,
    },
    /// The core refused to set up the namespace.
    #[error("the core refused: {0}")]
    Core(taskcore::Errno),
}
