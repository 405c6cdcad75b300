//! The typed events the parser produces for the replay engine.
//!
//! ```text
//!   Event { file, line, entry_line, pid, entry_pid, ts, entry_ts, kind }
//!     kind: EventKind
//!       Syscall(Syscall { name, call: Call, ret: Ret, completed, args_complete })
//!       Signal { sig, info }   Stopped { sig }   Exited { code }
//!       Killed { sig, core_dumped }   Superseded { by_pid }
//! ```
//!
//! Numbers are Linux's x86_64 values throughout: signals (SIGCHLD = 17),
//! `CLONE_*`, wait options, `SA_*`, `si_code`, errnos.

use std::fmt;
use std::sync::Arc;

use super::consts;
use crate::siginfo::SigInfo;

/// One thing that happened to one task, in trace order.
///
/// Events come out in file order of `line`: a syscall split across an
/// `<unfinished ...>` line and a `<... resumed>` line is one event placed at
/// the resumed line (the call completes there), remembering where and when
/// it was entered. A call that never resumed (its task died, or the trace
/// ends) is placed at the line that ended it (the task's `+++` line, or the
/// last line of the file) with [`Syscall::completed`] false.
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
    Syscall(Syscall),
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

/// A system call: what was called with which arguments, and its result.
#[derive(Clone, Debug, PartialEq)]
pub struct Syscall {
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
    /// The positive error number: user-visible errnos 1..=133 and the
    /// kernel-internal restart codes (512 `ERESTARTSYS`, 513
    /// `ERESTARTNOINTR`, ...). `None` for a name this parser does not know.
    pub num: Option<i32>,
}

impl SysErr {
    /// Builds an error from the printed name, resolving its number through
    /// this crate's table of x86_64 Linux errno names.
    pub fn from_name(name: &str) -> SysErr {
        let num = consts::lookup(consts::ERRNOS, name).map(|v| v as i32);
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

/// A signal disposition as rt_sigaction() reads or writes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SigAct {
    /// `sa_handler`.
    pub handler: SigHandler,
    /// `sa_mask`: bit `n - 1` set for signal `n` (Linux's `sigset_t`).
    pub mask: u64,
    /// `sa_flags`: `SA_NOCLDSTOP` = 1, `SA_NOCLDWAIT` = 2, `SA_SIGINFO` = 4,
    /// `SA_RESTORER` = 0x04000000, `SA_ONSTACK`, `SA_RESTART`,
    /// `SA_NODEFER`, `SA_RESETHAND`.
    pub flags: u64,
    /// `sa_restorer`, when printed.
    pub restorer: Option<u64>,
}

/// `sa_handler`: default, ignore, or a user function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SigHandler {
    /// `SIG_DFL`.
    Dfl,
    /// `SIG_IGN`.
    Ign,
    /// A handler function at this address.
    Handler(u64),
}

/// How a task was created.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CloneFlavor {
    /// clone(2).
    Clone,
    /// clone3(2).
    Clone3,
    /// fork(2): clone with `SIGCHLD` and no flags.
    Fork,
    /// vfork(2): clone with `CLONE_VM|CLONE_VFORK` and `SIGCHLD`.
    Vfork,
}

/// The arguments of clone(), clone3(), fork() or vfork(), normalised to
/// clone3's shape. The child's pid is the call's [`Ret::Val`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CloneArgs {
    /// Which syscall made the task.
    pub flavor: CloneFlavor,
    /// `CLONE_*` bits: for clone(), `flags` without its low (exit signal)
    /// byte; for clone3(), `clone_args.flags` verbatim (which may include
    /// `CLONE_NEWTIME` = 0x80).
    pub flags: u64,
    /// The signal sent to the parent when the child exits (0 for threads).
    pub exit_signal: i32,
    /// The child's stack, if one was given (`None` for `NULL`).
    pub stack: Option<u64>,
    /// The tid strace read back from `parent_tid` after the call (clone3's
    /// `=> {parent_tid=[N]}`, clone's `parent_tid=[N]` without
    /// `CLONE_PIDFD`).
    pub parent_tid: Option<i32>,
    /// The pidfd returned through `pidfd` (clone3) or `parent_tid` (clone
    /// with `CLONE_PIDFD`).
    pub pidfd: Option<i32>,
    /// clone3's `set_tid` array (pids requested per namespace level).
    pub set_tid: Vec<i32>,
    /// clone3's `cgroup` fd, with `CLONE_INTO_CGROUP`.
    pub cgroup: Option<u64>,
    /// clone3's `pidfd` pointer (where the kernel writes the pidfd with
    /// `CLONE_PIDFD`), as printed on entry; `None` for NULL or clone().
    pub pidfd_ptr: Option<u64>,
    /// clone3's `set_tid` and `set_tid_size` when strace printed an
    /// address instead of the array (it could not read it); `None`
    /// otherwise.
    pub set_tid_ptr: Option<(u64, u64)>,
}

/// The arguments of execve() or execveat().
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecArgs {
    /// execveat()'s dirfd (`AT_FDCWD` = -100); `None` for execve().
    pub dirfd: Option<i32>,
    /// The path, as far as strace printed it.
    pub path: String,
    /// The arguments strace printed; a string strace cut at its `-s` limit
    /// keeps its prefix.
    pub argv: Vec<String>,
    /// `false` if strace elided elements (`...`) or cut any string, or
    /// could not read argv.
    pub argv_complete: bool,
    /// execveat()'s flags (`AT_EMPTY_PATH` = 0x1000, ...); 0 for execve().
    pub flags: u64,
}

/// The decoded arguments of a syscall.
///
/// Values that are output arguments (wait status, siginfo, old action) are
/// what the kernel wrote, as strace read them after the call.
#[derive(Clone, Debug, PartialEq)]
pub enum Call {
    /// clone(), clone3(), fork(), vfork().
    Clone(CloneArgs),
    /// execve(), execveat().
    Execve(ExecArgs),
    /// exit(code): ends this thread only.
    Exit {
        /// The status (only its low byte is reported to waiters).
        code: i32,
    },
    /// exit_group(code): ends every thread of the group.
    ExitGroup {
        /// The status.
        code: i32,
    },
    /// wait4(pid, status, options, rusage).
    Wait4 {
        /// `> 0` a child, `-1` any, `0` own group, `< -1` group `-pid`.
        pid: i32,
        /// The status int the kernel wrote (`(code << 8)`, `sig | 0x80`,
        /// `(sig << 8) | 0x7f`, `0xffff`, ptrace events in bits 16..); `None`
        /// if nothing was written (`NULL`, or a bare pointer).
        status: Option<i32>,
        /// `WNOHANG` = 1, `WUNTRACED` = 2, `WCONTINUED` = 8, `__WNOTHREAD`,
        /// `__WALL`, `__WCLONE` (= `i32::MIN`), ...
        options: i32,
    },
    /// waitid(idtype, id, infop, options, rusage).
    Waitid {
        /// `P_ALL` = 0, `P_PID` = 1, `P_PGID` = 2, `P_PIDFD` = 3.
        idtype: i32,
        /// The pid, pgid or pidfd.
        id: i32,
        /// What the kernel wrote: `Some` with `si_signo == 0` for `{}`
        /// (WNOHANG, nothing to report: Linux zeroes the fields), `None`
        /// when nothing was written (error, or a bare pointer).
        info: Option<SigInfo>,
        /// `WEXITED` = 4, `WSTOPPED` = 2, `WCONTINUED` = 8, `WNOHANG`,
        /// `WNOWAIT` = 0x01000000, `__WALL`, ...
        options: i32,
    },
    /// setpgid(pid, pgid).
    Setpgid {
        /// 0 for the caller.
        pid: i32,
        /// 0 for "same as pid".
        pgid: i32,
    },
    /// setsid().
    Setsid,
    /// getpgid(pid).
    Getpgid {
        /// 0 for the caller.
        pid: i32,
    },
    /// getsid(pid).
    Getsid {
        /// 0 for the caller.
        pid: i32,
    },
    /// getppid().
    Getppid,
    /// getpid().
    Getpid,
    /// gettid().
    Gettid,
    /// getpgrp().
    Getpgrp,
    /// kill(pid, sig).
    Kill {
        /// `> 0` a process, `0` own group, `-1` all, `< -1` group `-pid`.
        pid: i32,
        /// The signal; 0 only checks permission and existence.
        sig: i32,
    },
    /// tgkill(tgid, tid, sig).
    Tgkill {
        /// The thread group.
        tgid: i32,
        /// The thread.
        tid: i32,
        /// The signal (0 allowed).
        sig: i32,
    },
    /// tkill(tid, sig).
    Tkill {
        /// The thread.
        tid: i32,
        /// The signal (0 allowed).
        sig: i32,
    },
    /// rt_sigaction(sig, act, oldact, sigsetsize).
    RtSigaction {
        /// The signal.
        sig: i32,
        /// The new action; `None` for `NULL` (query only).
        act: Option<SigAct>,
        /// The previous action the kernel wrote back; only meaningful when
        /// the call succeeded (`None` for `NULL` or when not written).
        oldact: Option<SigAct>,
    },
    /// prctl(option, arg2, ...).
    Prctl {
        /// `PR_SET_PDEATHSIG` = 1, `PR_SET_NAME` = 15,
        /// `PR_SET_CHILD_SUBREAPER` = 36, `PR_GET_CHILD_SUBREAPER` = 37, ...
        option: i32,
        /// The second argument as a number: a signal for
        /// `PR_SET_PDEATHSIG`, the flag for `PR_SET_CHILD_SUBREAPER`, the
        /// `SUID_DUMP_*` value for `PR_SET_DUMPABLE`, the
        /// value written back (`[1]`) for `PR_GET_*` calls that return
        /// through a pointer; `None` if it is a string or absent.
        arg2: Option<u64>,
        /// The string argument (`PR_SET_NAME`'s name, as printed).
        name: Option<String>,
    },
    /// ptrace(request, pid, addr, data).
    Ptrace {
        /// `PTRACE_TRACEME` = 0, `PTRACE_CONT` = 7, `PTRACE_ATTACH` = 16,
        /// `PTRACE_DETACH` = 17, `PTRACE_SEIZE` = 0x4206, ...
        request: i32,
        /// The tracee (0 when not printed, e.g. PTRACE_TRACEME).
        pid: i32,
        /// `addr` as a number, when it is one.
        addr: Option<u64>,
        /// `data` as a number: a signal for CONT/DETACH/SYSCALL, `PTRACE_O_*`
        /// bits for SEIZE/SETOPTIONS; `None` if it is a structure.
        data: Option<u64>,
    },
    /// mmap(addr, length, prot, flags, fd, offset).
    Mmap {
        /// Hint or fixed address (0 for `NULL`).
        addr: u64,
        /// Bytes.
        len: u64,
        /// `PROT_*` bits.
        prot: u64,
        /// `MAP_*` bits.
        flags: u64,
        /// The file, or -1.
        fd: i32,
        /// File offset in bytes.
        offset: u64,
    },
    /// munmap(addr, length).
    Munmap {
        /// Start address.
        addr: u64,
        /// Bytes.
        len: u64,
    },
    /// mprotect(addr, length, prot).
    Mprotect {
        /// Start address.
        addr: u64,
        /// Bytes.
        len: u64,
        /// `PROT_*` bits.
        prot: u64,
    },
    /// mremap(old_addr, old_len, new_len, flags, new_addr).
    Mremap {
        /// Old start.
        old_addr: u64,
        /// Old length.
        old_len: u64,
        /// New length.
        new_len: u64,
        /// `MREMAP_*` bits.
        flags: u64,
        /// The fifth argument, with `MREMAP_FIXED`.
        new_addr: Option<u64>,
    },
    /// brk(addr).
    Brk {
        /// Requested break (0 for `NULL`: query).
        addr: u64,
    },
    /// A signal-mask, pending-set or signal-wait call: rt_sigprocmask,
    /// rt_sigpending, rt_sigsuspend, rt_sigtimedwait, rt_sigqueueinfo,
    /// rt_tgsigqueueinfo, rt_sigreturn, restart_syscall, pause.
    Signal(crate::sigcall::SigCall),
    /// A pidfd, namespace, credential or resource-limit call: pidfd_open,
    /// pidfd_send_signal, unshare, setns, the set*id/get*id family,
    /// setgroups, prlimit64, setrlimit, getrlimit.
    ProcApi(crate::procapi::ProcCall),
    /// Any other syscall, or one whose arguments could not be decoded.
    Other {
        /// The top-level arguments, verbatim.
        args: Vec<String>,
        /// Why typed decoding failed, for a syscall this parser models.
        undecoded: Option<String>,
    },
}

impl Call {
    /// `true` for [`Call::Other`] with a decoding failure.
    pub fn is_undecoded(&self) -> bool {
        matches!(
            self,
            Call::Other {
                undecoded: Some(_),
                ..
            }
        )
    }
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
