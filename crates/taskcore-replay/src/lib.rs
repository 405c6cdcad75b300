//! Replays `strace -f` recordings of real programs against the taskcore
//! process core and checks every recorded result: clone/fork/vfork results,
//! wait4/waitid reports and errnos, setpgid/setsid/getpgid/getsid/getppid,
//! kill/tgkill/tkill, rt_sigaction's old handlers, prctl(subreaper), the
//! `+++ exited/killed` lines, every `--- SIGxxx {...} ---` line (delivered
//! there through `get_signal`, siginfo compared), the mask and signal-wait
//! calls (rt_sigprocmask, rt_sigpending, rt_sigtimedwait, rt_sigsuspend,
//! pause, rt_sigreturn, rt_sig(tg)queueinfo, restart_syscall), ptrace under
//! strace, and mmap/munmap/mprotect/mremap/brk when the trace has them.
//!
//! The replay streams: it reads, parses, applies, checks and forgets in
//! one pass, in memory bounded by the live tasks and a reorder window,
//! never by the trace's length. strace's line order is not the kernel's:
//! each call is placed within its `[entry, completion]` window, and when a
//! result disagrees, an order search moves nearby calls within their
//! windows from a checkpoint of the engine before it reports a mismatch
//! (see [`Replayer`]).
//!
//! # Example
//! ```
//! use taskcore_replay::{Options, Replayer};
//!
//! let trace = "\
//! 100 1.0 clone(child_stack=NULL, flags=SIGCHLD) = 101
//! 101 1.1 exit_group(3) = ?
//! 101 1.2 +++ exited with 3 +++
//! 100 1.3 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 3}], 0, NULL) = 101
//! ";
//! let parsed = taskcore_strace::parse_str("example", trace);
//! let mut r = Replayer::new(Options::default());
//! for e in &parsed.events {
//!     r.push(e);
//! }
//! // The emulated kernel can be queried at any point.
//! assert!(r.kernel().nr_tasks() >= 1);
//! let summary = r.finish();
//! assert_eq!(summary.stats.checked, 3); // the clone, the exit status, the wait
//! assert!(summary.mismatches.is_empty());
//! ```
//!
//! Files: [`replay_file`] reads (plain or gzip, `-` for stdin) and parses
//! on a thread of its own, overlapped with the replay, and says when the
//! input is not a usable trace ([`InputError`]).
//!
//! # Rules for what a recording does not show (issue 22)
//!
//! Each is a mechanism over every trace, with where it lives and what
//! forces it. Added in issue 22 (none removed):
//! - `strace -qq` drops `+++ exited` lines: a trace with none, 2,048 lines
//!   after its first exit call (or at its end), takes each exit from its
//!   `exit_group(N) = ?` / `exit(N) = ?` line, and places strace's reap
//!   (the missing line) one line after the call by default, its window
//!   running to the first line that reports the process (SIGCHLD's
//!   `si_pid`, a wait's result, the number reused; at most 512 lines)
//!   (`convert/exits.rs`). Without `+++ exited` lines an open call at the
//!   end does not make the trace truncated (`input.rs`).
//! - State from before the trace: the first `rt_sigaction` old action of a
//!   signal in a process and the first `rt_sigprocmask` old mask of a
//!   thread are learned (counted under `learned`, not checked) while
//!   nothing in the trace set or showed them; inherited at fork
//!   (`engine/inherited.rs`).
//! - A successful signal send whose effect cannot be applied at the call
//!   (pidfd_send_signal on an fd the trace did not open, e.g. a
//!   `/proc/PID` directory; a siginfo strace did not read) is queued at
//!   its `---` line, as skipped sends already were
//!   (`engine/procapi.rs`, `engine/sigcalls.rs`). pidfd_send_signal with a
//!   printed siginfo is applied with it (not a rule: the call itself).
//!
//! The order search's cost is bounded (not a rule about traces): every
//! engine step and copy is charged to a budget of 150,000 + 2 per event,
//! so a replay costs O(its length) whatever its mismatch count
//! (`replayer.rs`).
//!
//! No Linux analogue: this is a checker. What it checks is Linux's
//! behaviour as the recording shows it.

pub(crate) mod convert;
pub(crate) mod engine;
mod event;
mod input;
pub mod probe;
mod replayer;
mod search;
mod window;

pub use convert::exits::ExitLines;
pub use engine::records::{Mark, ProcessRecord};
pub use engine::report::{Mismatch, Stats};
pub use input::{
    kernel_at, open, replay_file, replay_file_with, replay_reader, verdict, FileReport, InputError,
    MAX_ERROR_RATIO, MAX_PARSE_ERRORS,
};
pub use replayer::{Options, Recording, Replayer, Summary};

#[cfg(test)]
mod signal_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_cost;
#[cfg(test)]
mod tests_procapi;
