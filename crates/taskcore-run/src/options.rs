//! What a run is given ([`Options`]) and why it may not start ([`RunError`]).

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
    /// Keep the run's processes over time in [`crate::Report::timeline`]
    /// (default `false`).
    pub timeline: bool,
    /// Publish views of the run here for readers on other threads (a FUSE
    /// `/proc`; default `None`).
    pub live_view: Option<std::sync::Arc<crate::live::LiveView>>,
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
/// [`crate::Report::exit_status`] (127 for a command not found, as shells say).
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
