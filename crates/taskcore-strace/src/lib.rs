//! A streaming reader of `strace -f` recordings: text (plain or gzip) to
//! typed, joined process events, each with its file and line. A call is
//! the process core's [`taskcore::sys::Syscall`], with the numbers the
//! trace printed (its pids, process groups and fds), beside what strace
//! printed of its outputs ([`Recorded`]); numbers are Linux's x86_64
//! values, named in the core's [`taskcore::uapi`].
//!
//! # Example
//! ```
//! use taskcore::sys::Syscall;
//! use taskcore_strace::{Call, EventKind, Ret};
//!
//! let text = "\
//! 100 1.0 clone(child_stack=NULL, flags=SIGCHLD <unfinished ...>
//! 101 1.1 exit_group(3) = ?
//! 100 1.2 <... clone resumed>) = 101
//! 101 1.3 +++ exited with 3 +++
//! ";
//! // `open(path)` reads a file the same way, as an iterator.
//! let t = taskcore_strace::parse_str("example.strace", text);
//! let clone = &t.events[1]; // placed at the line that completed it
//! assert_eq!((clone.line, clone.entry_line, clone.pid), (3, 1, 100));
//! match &clone.kind {
//!     EventKind::Syscall(s) => {
//!         assert!(matches!(s.call, Call::Sys { call: Syscall::Clone(_), .. }));
//!         assert_eq!(s.ret, Ret::Val(101));
//!     }
//!     other => panic!("{other:?}"),
//! }
//! assert_eq!(t.events[2].kind, EventKind::Exited { code: 3 });
//! assert!(t.errors.is_empty());
//! ```
//!
//! # Design
//!
//! ```text
//!   file (.gz or plain) ── reader.rs ──> lines
//!     line.rs   lex one line:  [pid] [timestamp] body
//!                 body = Call | Unfinished | Resumed | Signal | Stopped
//!                        | Exited | Killed | Superseded | Noise
//!     join.rs   Parser: join <unfinished ...>/<... resumed> halves per pid,
//!               flush calls whose task died, count lines per syscall,
//!               collect ParseErrors (never fatal)
//!     args.rs   argument text -> Value tree (ints, strings, flags, arrays,
//!               structs, `a => b`), total: unknown text stays Raw;
//!               scan.rs the strings, comments and brackets it looks past
//!     decode.rs name + Values -> Call: a taskcore::sys::Syscall and what
//!               strace printed of its outputs (clone/fork/vfork/clone3,
//!               execve, exit, wait4, waitid, kill, rt_sigaction, prctl,
//!               mmap...), a raw call (ptrace, pidfd_send_signal, setns),
//!               or Call::Other with the reason; uptrs.rs the pointers
//!               strace did not read
//!     consts.rs the names strace prints, with the core's uapi values
//!   ──> Iterator<Item = Event>, in file order of the completing line
//! ```
//!
//! # Vocabulary
//!
//! - *entry line*: where a call began (`NAME(args <unfinished ...>`);
//!   *completing line*: where it returned (`<... NAME resumed>... = R`).
//!   A one-line call has both on the same line.
//! - *completed*: the call was resumed. A call whose task died first
//!   (exit_group(), a wait interrupted by SIGKILL, `???(` at a kill) is still
//!   emitted, with `completed == false` and [`Ret::Unknown`], just before
//!   the task's `+++` event.
//! - *superseded*: a non-leader thread called execve(); strace prints
//!   `+++ superseded by execve in pid T +++` for the leader's pid L and the
//!   execve resumes under L. The event's `entry_pid` keeps T.
//!
//! # Ordering contract
//!
//! Events come out sorted by [`Event::line`] (non-decreasing). A joined call
//! sits at its resumed line, so other tasks' events between its two halves
//! come first: a `clone` child may act before the parent's `<... clone
//! resumed>` line. `entry_line`/`entry_ts` say when the call began.
//!
//! # Complexity
//!
//! O(line length) per line, O(1) expected for the join (hash map by pid);
//! memory O(open calls + longest line) when streaming.
//!
//! # Accepted input
//!
//! `strace -f` with `-o FILE` (`PID TS ...`) or to stderr (`[pid N] ...`),
//! single-process traces without a pid (see [`Parser::with_default_pid`]),
//! timestamps `-ttt`, `-tt`, `-t` or none, `-T` durations, `-y` fd paths,
//! `-k` stack lines (ignored), `strace:` messages (ignored).
//!
//! No Linux analogue: this reads strace's output format (strace 6.x,
//! `src/strace.c`, `src/syscall.c`); the values it produces are Linux's.

mod args;
mod args_display;
mod call;
mod consts;
mod decode;
mod event;
mod join;
mod line;
pub mod pidns;
mod procfile;
mod reader;
mod scan;
mod siginfo;
mod uptrs;

#[cfg(test)]
mod prop_tests;
#[cfg(test)]
mod signal_tests;
#[cfg(test)]
mod trace_tests;

pub use call::{Call, Recorded, WaitidInfo};
pub use consts::signal_number;
pub use decode::wait_status;
pub use event::{Event, EventKind, Ret, SysErr, SyscallLine};
pub use join::{ParseError, Parser, Stats, SyscallCount, MAX_MSG, MAX_STORED_ERRORS};
pub use procfile::ProcFile;
pub use reader::{
    open, parse_str, read_from, read_line, read_trace, LineRead, Trace, TraceReader, MAX_LINE,
};
pub use siginfo::SigInfo;
pub use uptrs::{Access, UserPtr};
