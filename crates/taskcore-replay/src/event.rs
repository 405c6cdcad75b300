//! What the replay engine consumes: one recorded event per value, already
//! joined (`<unfinished ...>` with its `<... resumed>`) and typed.

use std::sync::Arc;

use taskcore::sys::Syscall;

/// A recorded syscall result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// `= N` (N >= 0).
    Value(i64),
    /// `= -1 ENAME (...)` with a Linux errno this crate knows.
    Errno(taskcore::Errno),
    /// Interrupted by a signal (`EINTR`, `ERESTART*`): the call was
    /// sleeping, or will be restarted.
    Interrupted,
    /// `= ?`: the task died (or exec'd) inside the call.
    Died,
    /// An errno outside the model, or no result printed: nothing to check.
    Unknown,
}

/// How strace printed an interrupted call (`? ERESTARTSYS`, `-1 EINTR`,
/// ...): what a handler run makes of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Restart {
    /// `ERESTARTSYS`: restarted under `SA_RESTART`, else EINTR.
    Sys,
    /// `ERESTARTNOINTR`: always restarted.
    NoIntr,
    /// `ERESTARTNOHAND`, `ERESTART_RESTARTBLOCK`: EINTR when a handler
    /// runs, restarted otherwise.
    NoHand,
    /// `EINTR`: the call itself returned it.
    Eintr,
}

/// A recorded `waitid` siginfo.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RecInfo {
    pub(crate) pid: i32,
    pub(crate) code: i32,
    pub(crate) status: i32,
}

/// A recorded siginfo (`--- SIGx {...} ---`, rt_sigtimedwait,
/// rt_sigqueueinfo): the fields strace printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RecSigInfo {
    pub(crate) signo: i32,
    pub(crate) code: i32,
    /// `si_pid`, a recorded pid.
    pub(crate) pid: Option<i32>,
    pub(crate) uid: Option<u32>,
    pub(crate) status: Option<i32>,
    /// `si_int`.
    pub(crate) int: Option<i32>,
    /// `si_ptr` (the whole `si_value`).
    pub(crate) ptr: Option<u64>,
}

/// What strace printed of a call beyond its return value (the outputs the
/// engine compares with the dispatched result), and what the recording
/// says of the call itself that the kernel does not see.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Rec {
    /// Nothing beyond the return value.
    Ret,
    /// clone, clone3, fork, vfork.
    Clone {
        /// With `CLONE_PIDFD`, the fd number the parent got.
        pidfd: Option<i32>,
        /// The child's number in the caller's pid namespace when strace
        /// printed it beside its own (`= 2 /* 30657 in strace's PID NS
        /// */`); the event's result is then strace's number.
        ns_nr: Option<i32>,
    },
    /// wait4: the status word strace printed (`None`: NULL, or not
    /// printed).
    Wait4 { status: Option<i32> },
    /// waitid: the siginfo strace printed (`None`: not printed).
    Waitid { info: Option<RecInfo> },
    /// getresuid, getresgid: the ids strace printed.
    Ids(Option<[u32; 3]>),
    /// getrlimit, prlimit64, setrlimit: the old limits strace printed.
    Rlimit(Option<taskcore::Rlimit>),
    /// `prctl(PR_GET_NAME)`: the name strace printed.
    Name(String),
    /// getgroups: the groups strace printed (`None`: NULL or not printed).
    Groups(Option<Vec<u32>>),
    /// capget: the sets strace printed (`None`: NULL or not printed).
    Caps(Option<taskcore::CapUserData>),
    /// `prctl(PR_GET_CHILD_SUBREAPER)`: the int strace printed.
    Written(Option<u64>),
    /// mmap: the fd argument as the trace printed it (the call's `file`
    /// is `None` until the engine resolves it).
    Mmap { fd: i32 },
    /// rt_sigaction: the old handler strace printed.
    OldHandler(Option<taskcore::SigHandler>),
    /// rt_sigprocmask: whether strace read the set (an unread pointer is
    /// the call's `set` `None`, like NULL), and the old mask it printed.
    Mask { read: bool, old: Option<u64> },
    /// rt_sigpending: the set strace printed.
    Sigset(Option<u64>),
    /// rt_sigtimedwait (`read`: whether strace read the set) and
    /// rt_sig(tg)queueinfo (`read` true): the siginfo strace printed.
    Siginfo {
        read: bool,
        info: Option<RecSigInfo>,
    },
    /// rt_sigreturn: the mask strace printed (`{mask=...}`; the call's
    /// `mask` is 0 without it).
    Frame(Option<u64>),
}

/// What one recorded event is: a system call as the kernel sees it
/// ([`Kind::Sys`], or [`Kind::Raw`] until its fd or request is resolved,
/// [`Kind::Refused`] when the decoder refuses it), or a line of strace's
/// own (`---`, `+++`) and the replay's synthetic deaths. There is no call
/// type of the replay's own: calls are [`taskcore::sys::Syscall`] values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A system call as the kernel sees it, with the numbers the trace
    /// printed (pids, groups, fds: the engine maps them to the emulation's
    /// before [`taskcore::sys::dispatch`]), and its recorded outputs.
    Sys { call: Syscall, rec: Rec },
    /// A call kept as the kernel sees it in registers (its number and
    /// arguments, pointers NULL, 1 for a pointer strace read), because
    /// what an argument names is resolved when it is applied: the fd of
    /// pidfd_send_signal and setns (decoded with
    /// [`Syscall::from_raw_in`] through the caller's fd table,
    /// `engine/procapi.rs`), and ptrace's request (any request: under
    /// `strace -f` the answer is strace's rule, `engine/signals.rs`).
    Raw {
        nr: u64,
        args: [u64; 6],
        /// The siginfo given (pidfd_send_signal), as strace printed it
        /// (`si_pid` the trace's number): applied in place of the pointer.
        info: Option<taskcore::SigInfo>,
    },
    /// A call the decoder refuses with `err` before the kernel sees it
    /// (a `sigsetsize` other than 8): its recorded result is checked
    /// against `err`.
    Refused {
        name: &'static str,
        err: taskcore::Errno,
    },
    /// write(2) of `data` to a user-namespace file of `/proc` (`uid_map`,
    /// `gid_map`, `setgroups`) of recorded process `pid`, known by
    /// strace's `-y` fd annotation (`engine/userns.rs`).
    ProcWrite {
        pid: i32,
        file: taskcore_strace::ProcFile,
        data: Vec<u8>,
    },
    /// A modelled call whose recorded arguments cannot be applied (a
    /// pointer strace did not read): counted as unchecked, with why.
    Unchecked {
        name: &'static str,
        why: &'static str,
    },
    /// `--- SIGx {...} ---`: a signal delivered to the task.
    Signal { sig: i32, info: Option<RecSigInfo> },
    /// restart_syscall(<... resuming interrupted NAME ...>): a call the
    /// core does not model; the engine checks that the thread's last call
    /// was interrupted.
    RestartSyscall,
    /// `--- stopped by SIGx ---`.
    Stopped { sig: i32 },
    /// The death behind a `+++` line (synthetic): the task ran `do_exit`
    /// somewhere between its last printed activity and that line.
    Die {
        code: Option<i32>,
        sig: Option<(i32, bool)>,
    },
    /// `+++ exited with N +++`.
    Exited { code: i32 },
    /// `+++ killed by SIGx [(core dumped)] +++`.
    Killed { sig: i32, core: bool },
    /// `+++ superseded by execve in pid N +++`: this thread exec'd and took
    /// pid N.
    Superseded { by: i32 },
    /// A modelled call whose arguments strace never printed (the caller
    /// died inside it): neither applied nor checked.
    Unrecorded { name: String },
    /// A line the replay does not model (counted per syscall name).
    Other { name: String },
}

/// When the kernel touches a user pointer of a call, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    /// `copy_from_user()` before the call acts: a refusal is the call's
    /// `EFAULT`, nothing done.
    Read,
    /// `copy_to_user()` of a result after the call acted (an old action or
    /// mask, a pending set, a taken signal's siginfo, a reaped child's
    /// status or rusage): a refusal turns the result into `EFAULT`, what
    /// the call did stays done.
    Write,
    /// As [`Access::Write`], but written whatever the result, an error
    /// included (waitid's `infop`: `sys_waitid()` writes it after
    /// `kernel_waitid()` returns, unless the caller still sleeps).
    WriteAlways,
    /// clone3's `pidfd`, written inside `copy_process()` after
    /// `alloc_pid()`: a refusal undoes the clone (`Clone3Args::pidfd_fault`).
    ClonePidfd,
    /// clone3's `set_tid` array, read among `copy_clone_args_from_user()`'s
    /// checks (an unreadable array is an empty one for `Kernel::clone3`).
    CloneSetTid,
}

/// A pointer argument strace printed as an address (it did not read it),
/// with what the kernel does with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct UserPtr {
    pub(crate) addr: u64,
    /// Bytes the kernel reads or writes there.
    pub(crate) len: u64,
    /// Bytes `access_ok()` checks (at least `len`: waitid checks the whole
    /// siginfo, 128 bytes, then writes its first 28).
    pub(crate) reach: u64,
    pub(crate) access: Access,
}

/// One event of a trace file.
#[derive(Clone, Debug)]
pub(crate) struct Event {
    /// Position in file order (the order events were read), from 0.
    pub(crate) seq: u64,
    pub(crate) file: Arc<str>,
    /// Line that completed the event (1-based).
    pub(crate) line: usize,
    /// Line where it started (`<unfinished ...>`), else `line`.
    pub(crate) entry_line: usize,
    /// The recorded thread id.
    pub(crate) pid: i32,
    /// Seconds (strace `-ttt`) of the completing line; 0 without timestamps.
    pub(crate) ts: f64,
    /// What the event is.
    pub(crate) kind: Kind,
    pub(crate) ret: Outcome,
    /// For an interrupted call, how it was interrupted.
    pub(crate) restart: Option<Restart>,
    /// Where the event is placed by default when that is not its
    /// completing line (see [`Event::key`]): the `+++`
    /// line strace -qq did not print, soon after the exit call though its
    /// window runs to the line that reports the task.
    pub(crate) at: Option<usize>,
    /// The call's pointer arguments strace printed as addresses, in the
    /// order the kernel touches them (`convert/uaccess.rs`); checked
    /// against the emulated address space where the trace mapped it
    /// (`engine/uaccess.rs`).
    pub(crate) uptrs: Option<Arc<[UserPtr]>>,
}

impl Event {
    /// Where the event is placed by default: clones at their entry line
    /// (their result is known), an event with a point of its own
    /// ([`Event::at`]) there, everything else at the line that completed
    /// it. The default order sorts by `(key, seq)`.
    pub(crate) fn key(&self) -> usize {
        if let Some(at) = self.at {
            at
        } else if self.kind.is_clone() {
            self.entry_line
        } else {
            self.line
        }
    }
}

impl Kind {
    /// Whether `call` creates a task (clone, clone3, fork, vfork).
    pub(crate) fn creates(call: &Syscall) -> bool {
        matches!(
            call,
            Syscall::Clone(_) | Syscall::Clone3(_) | Syscall::Fork | Syscall::Vfork
        )
    }

    /// Whether this is a call that creates a task.
    pub(crate) fn is_clone(&self) -> bool {
        matches!(self, Kind::Sys { call, .. } if Kind::creates(call))
    }

    /// The signal this event sends to another task (kill, tgkill, tkill,
    /// rt_sig(tg)queueinfo), if it is such a call.
    pub(crate) fn sent_signal(&self) -> Option<i32> {
        match self {
            Kind::Sys {
                call:
                    Syscall::Kill { sig, .. }
                    | Syscall::Tgkill { sig, .. }
                    | Syscall::Tkill { sig, .. }
                    | Syscall::RtSigqueueinfo { sig, .. }
                    | Syscall::RtTgsigqueueinfo { sig, .. },
                ..
            } => Some(*sig),
            _ => None,
        }
    }

    /// Whether this is an rt_sigreturn.
    pub(crate) fn is_sigreturn(&self) -> bool {
        matches!(
            self,
            Kind::Sys {
                call: Syscall::RtSigreturn { .. },
                ..
            }
        )
    }

    /// The syscall or line kind, for counters and messages.
    pub(crate) fn name(&self) -> &str {
        match self {
            // fork and vfork count as clone, as the replay always counted
            // them.
            Kind::Sys { call, .. } if Kind::creates(call) => "clone",
            Kind::Sys { call, .. } => call.name(),
            Kind::Signal { .. } => "--- signal",
            Kind::RestartSyscall => "restart_syscall",
            Kind::Stopped { .. } => "--- stopped",
            Kind::Die { .. } => "death",
            Kind::Exited { .. } => "+++ exited",
            Kind::Killed { .. } => "+++ killed",
            Kind::Superseded { .. } => "+++ superseded",
            Kind::Raw { nr, .. } => raw_name(*nr),
            Kind::ProcWrite { .. } => "write",
            Kind::Refused { name, .. } | Kind::Unchecked { name, .. } => name,
            Kind::Unrecorded { name } | Kind::Other { name } => name,
        }
    }
}

/// The name of a [`Kind::Raw`] call.
fn raw_name(nr: u64) -> &'static str {
    match nr {
        taskcore::sys::nr::PIDFD_SEND_SIGNAL => "pidfd_send_signal",
        taskcore::sys::nr::SETNS => "setns",
        taskcore::sys::nr::PTRACE => "ptrace",
        _ => "raw call",
    }
}
