//! The typed events the parser produces for the replay engine.
//!
//! ```text
//!   Event { file, line, entry_line, pid, entry_pid, ts, entry_ts, kind }
//!     kind: EventKind
//!       Syscall(SyscallLine { name, call: Call, ret: Ret, completed, args_complete, .. })
//!       Signal { sig, info }   Stopped { sig }   Exited { code }
//!       Killed { sig, core_dumped }   Superseded { by_pid }
//! ```
//!
//! Numbers are Linux's x86_64 values throughout: signals (SIGCHLD = 17),
//! `CLONE_*`, wait options, `SA_*`, `si_code`, errnos; calls are the
//! process core's [`taskcore::sys::Syscall`] (see [`Call`]).

use std::fmt;
use std::sync::Arc;

use crate::call::Call;
use crate::siginfo::SigInfo;
use crate::uptrs::UserPtr;

/// One thing that happened to one task, in trace order.
///
/// Events come out in file order of `line`: a syscall split across an
/// `<unfinished ...>` line and a `<... resumed>` line is one event placed at
/// the resumed line (the call completes there), remembering where and when
/// it was entered. A call that never resumed (its task died, or the trace
/// ends) is placed at the line that ended it (the task's `+++` line, or the
/// last line of the file) with [`SyscallLine::completed`] false.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// The trace file's name, shared by all its events.
    pub file: Arc<str>,
    /// 1-based number of the line that completes the event.
    pub line: usize,
    /// 1-based number of the line where the event began (`<unfinished ...>`
    /// line of a split syscall); equals `line` for one-line events.
    pub entry_line: usize,
    /// The task (thread id) the event belongs to, as printed on the
    /// completing line; 0 when strace printed no pid (single-process trace,
    /// see [`super::Parser::with_default_pid`]).
    pub pid: i32,
    /// The task that entered the call; differs from `pid` only for an
    /// execve() by a non-leader thread, which resumes under the leader's pid
    /// after a [`EventKind::Superseded`] event.
    pub entry_pid: i32,
    /// Seconds (epoch with `-ttt`) of the completing line; for a call that
    /// never resumed, of its entry line.
    pub ts: f64,
    /// Seconds of the entry line; equals `ts` for one-line events.
    pub entry_ts: f64,
    /// What happened.
    pub kind: EventKind,
}

/// The kinds of event.
#[derive(Clone, Debug, PartialEq)]
pub enum EventKind {
    /// A system call (typed arguments, result).
    Syscall(SyscallLine),
    /// `--- SIGxxx {...} ---`: signal `sig` was dequeued for delivery to the
    /// task (it may then be ignored, handled, stop or kill the task).
    Signal {
        /// The signal number.
        sig: i32,
        /// The siginfo strace printed; `None` if none was printed or it
        /// could not be decoded (counted in [`super::Stats`]).
        info: Option<SigInfo>,
    },
    /// `--- stopped by SIGxxx ---`: the task entered a group stop.
    Stopped {
        /// The stop signal.
        sig: i32,
    },
    /// `+++ exited with N +++`: the task is gone; for a thread-group leader
    /// or a whole group, `code` is the group's exit status (0..=255).
    Exited {
        /// Exit status.
        code: i32,
    },
    /// `+++ killed by SIGx +++`: the task was killed by a signal.
    Killed {
        /// The fatal signal.
        sig: i32,
        /// `(core dumped)` was printed.
        core_dumped: bool,
    },
    /// `+++ superseded by execve in pid N +++`, printed for the leader's pid:
    /// thread `by_pid` called execve() and now runs under this event's pid;
    /// the old leader is gone (Linux's de_thread()).
    Superseded {
        /// The tid of the thread that called execve().
        by_pid: i32,
    },
}

/// A system call line (joined with its `<... resumed>` half): what was
/// called with which arguments, and its result.
#[derive(Clone, Debug, PartialEq)]
pub struct SyscallLine {
    /// The name as strace printed it (`clone3`, `wait4`, `???`).
    pub name: Box<str>,
    /// The decoded arguments.
    pub call: Call,
    /// The result.
    pub ret: Ret,
    /// `false` when the call was entered (`<unfinished ...>`) but never
    /// resumed: the task died first or the trace ended. `ret` is then
    /// [`Ret::Unknown`].
    pub completed: bool,
    /// `false` when strace printed only some arguments because the call did
    /// not return (`= ?` or never resumed): typed fields for the missing
    /// arguments hold defaults (0, `None`, empty).
    pub args_complete: bool,
    /// With `--decode-pids=pidns`, the number in strace's pid namespace of
    /// a pid result printed `N /* M in strace's PID NS */` (M), see
    /// [`crate::pidns`]; `None` without the comment.
    pub ret_host_pid: Option<i32>,
    /// The top-level arguments printed as a bare hexadecimal number
    /// (`0x7ffd5e8c`), by 0-based position. Where the call takes a
    /// pointer, one strace did not follow: it could not read it
    /// (`EFAULT`), or the kernel wrote nothing there (an error result).
    /// Pointers strace read are printed as what they point to and are not
    /// here.
    pub hex_args: Box<[(u8, u64)]>,
    /// The pointer arguments strace printed as addresses (it did not read
    /// them), with the sizes and the order in which the kernel touches
    /// them; `None` when there are none.
    pub user_ptrs: Option<Arc<[UserPtr]>>,
}

impl SyscallLine {
    /// Notes strace's number `host` of a pid result printed `N /* host in
    /// strace's PID NS */` ([`crate::pidns`]): kept in
    /// [`SyscallLine::ret_host_pid`], and for a clone the printed `N` (the
    /// child's number in the caller's namespace) in
    /// [`Recorded::Clone`](crate::call::Recorded::Clone)'s `ns_nr`.
    pub(crate) fn set_host_pid(&mut self, host: Option<i32>) {
        self.ret_host_pid = host;
        if let (
            Some(_),
            Ret::Val(v),
            Call::Sys {
                out: crate::call::Recorded::Clone { ns_nr, .. },
                ..
            },
        ) = (host, &self.ret, &mut self.call)
        {
            *ns_nr = Some(*v as i32);
        }
    }
}

/// The return value strace printed after `= `.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ret {
    /// A non-negative value (or an address: hex values above `i64::MAX`
    /// wrap as the kernel's `long` would).
    Val(i64),
    /// An error: `-1 ECHILD (No child processes)`, `? ERESTARTSYS (...)`.
    Err(SysErr),
    /// `?`: the call did not return (the task exited or execve()d in it,
    /// or it never resumed), or strace could not fetch the value.
    Unknown,
}

/// An error result: the name strace printed and its number if known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SysErr {
    /// The errno name, e.g. `ECHILD`, `ERESTARTSYS`; `E<n>` when strace
    /// printed only a number.
    pub name: Box<str>,
    /// The positive error number: a user-visible errno
    /// ([`taskcore::Errno`]) or a kernel-internal code strace shows
    /// ([`taskcore::Restart`]: 512 `ERESTARTSYS`, ...; and the others of
    /// [`taskcore::uapi::kernel_errno`]). `None` for a name neither knows.
    pub num: Option<i32>,
}

impl SysErr {
    /// Builds an error from the printed name, resolving its number through
    /// the core's errno names ([`taskcore::Errno::from_name`],
    /// [`taskcore::uapi::kernel_errno`]).
    pub fn from_name(name: &str) -> SysErr {
        let num = taskcore::Errno::from_name(name)
            .map(taskcore::Errno::as_i32)
            .or_else(|| taskcore::uapi::kernel_errno(name));
        SysErr {
            name: name.into(),
            num,
        }
    }
}

impl fmt::Display for SysErr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.num {
            Some(n) => write!(f, "{} ({n})", self.name),
            None => write!(f, "{}", self.name),
        }
    }
}

impl Ret {
    /// Parses the text after `= `: `0`, `32033`, `0x7f...`, `?`,
    /// `-1 ENOENT (No such file or directory)`, `-1 EINTR`,
    /// `? ERESTARTSYS (To be restarted if SA_RESTART is set)`,
    /// `? <unavailable>`, `-1 (errno 527)`. Trailing annotations after a
    /// value (`(Timeout)`, `(INJECTED)`, `</dev/null>`) are ignored.
    ///
    /// # Errors
    /// A message if the text starts with neither a number nor `?`.
    pub fn parse(s: &str) -> Result<Ret, String> {
        let s = s.trim();
        let (head, rest) = match s.find(char::is_whitespace) {
            Some(i) => (&s[..i], s[i..].trim_start()),
            None => (s, ""),
        };
        let err_name = rest.split(|c: char| c.is_whitespace()).next().filter(|w| {
            w.len() > 1
                && w.starts_with('E')
                && w.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
        });
        if head == "?" {
            return Ok(match err_name {
                Some(name) => Ret::Err(SysErr::from_name(name)),
                None => Ret::Unknown,
            });
        }
        // Strip an fd path annotation (`3</dev/null>`, with -y).
        let num_text = match head.find('<') {
            Some(i) if i > 0 => &head[..i],
            _ => head,
        };
        let v = parse_i64(num_text).ok_or_else(|| format!("bad result: `{s}`"))?;
        if v < 0 {
            if let Some(name) = err_name {
                return Ok(Ret::Err(SysErr::from_name(name)));
            }
            if let Some(n) = rest
                .strip_prefix("(errno ")
                .and_then(|r| r.strip_suffix(')'))
                .and_then(|n| n.trim().parse::<i32>().ok())
            {
                return Ok(Ret::Err(SysErr {
                    name: format!("E{n}").into(),
                    num: Some(n),
                }));
            }
        }
        Ok(Ret::Val(v))
    }

    /// The value of a successful call.
    #[cfg(test)]
    pub fn val(&self) -> Option<i64> {
        match self {
            Ret::Val(v) => Some(*v),
            _ => None,
        }
    }
}

/// Parses a decimal or `0x` hex integer; values beyond `i64::MAX` wrap as
/// the kernel's `long` would (`rt_sigreturn` returns the restored
/// register, which strace prints unsigned).
fn parse_i64(s: &str) -> Option<i64> {
    if let Some(h) = s.strip_prefix("0x") {
        return u64::from_str_radix(h, 16).ok().map(|v| v as i64);
    }
    s.parse()
        .ok()
        .or_else(|| s.parse::<u64>().ok().map(|v| v as i64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_of_every_form() {
        assert_eq!(Ret::parse("0"), Ok(Ret::Val(0)));
        assert_eq!(Ret::parse("32033"), Ok(Ret::Val(32033)));
        assert_eq!(Ret::parse("0x7f0239ed9000"), Ok(Ret::Val(0x7f0239ed9000)));
        assert_eq!(Ret::parse("0xffffffffffffffff"), Ok(Ret::Val(-1)));
        assert_eq!(Ret::parse("?"), Ok(Ret::Unknown));
        assert_eq!(Ret::parse("? <unavailable>"), Ok(Ret::Unknown));
        assert_eq!(
            Ret::parse("-1 ENOENT (No such file or directory)"),
            Ok(Ret::Err(SysErr {
                name: "ENOENT".into(),
                num: Some(2)
            }))
        );
        assert_eq!(
            Ret::parse("-1 EINTR"),
            Ok(Ret::Err(SysErr {
                name: "EINTR".into(),
                num: Some(4)
            }))
        );
        assert_eq!(
            Ret::parse("? ERESTARTSYS (To be restarted if SA_RESTART is set)"),
            Ok(Ret::Err(SysErr {
                name: "ERESTARTSYS".into(),
                num: Some(512)
            }))
        );
        assert_eq!(
            Ret::parse("? ERESTARTNOINTR (To be restarted)"),
            Ok(Ret::Err(SysErr {
                name: "ERESTARTNOINTR".into(),
                num: Some(513)
            }))
        );
        assert_eq!(
            Ret::parse("-1 (errno 527)"),
            Ok(Ret::Err(SysErr {
                name: "E527".into(),
                num: Some(527)
            }))
        );
        assert_eq!(
            Ret::parse("-1 EWEIRD (Made up)"),
            Ok(Ret::Err(SysErr {
                name: "EWEIRD".into(),
                num: None
            }))
        );
        assert_eq!(Ret::parse("0 (Timeout)"), Ok(Ret::Val(0)));
        assert_eq!(
            Ret::parse("16131858542891098079"),
            Ok(Ret::Val(16131858542891098079u64 as i64))
        );
        assert_eq!(Ret::parse("3</dev/null>"), Ok(Ret::Val(3)));
        assert!(Ret::parse("").is_err());
        assert!(Ret::parse("x").is_err());
    }

    #[test]
    fn errno_names_resolve_to_linux_numbers() {
        let e = SysErr::from_name("ECHILD");
        assert_eq!(e.num, Some(10));
        let e = SysErr::from_name("ERESTARTSYS");
        assert_eq!(e.num, Some(512));
        assert_eq!(SysErr::from_name("ENOTANERRNO").num, None);
        assert_eq!(e.to_string(), "ERESTARTSYS (512)");
    }
}
