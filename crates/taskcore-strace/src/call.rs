//! What a recorded system call is, in the process core's vocabulary: a
//! [`taskcore::sys::Syscall`] with the numbers the trace printed (pids,
//! process groups, fds are the recording's, not an emulation's), and what
//! strace printed of the call beyond its return value ([`Recorded`]).
//!
//! ```text
//!   Call
//!     Sys { call: taskcore::sys::Syscall, out: Recorded }   a call the core implements
//!     Raw { nr, args, info }        kept as registers: an fd or a request resolved later
//!     Refused { name, err }         refused before the kernel acts (a bad sigsetsize)
//!     ProcWrite { pid, file, data } a write to /proc/PID/{uid_map,gid_map,setgroups}
//!     Unchecked { name, why }       modelled, but its arguments were not printed
//!     RestartSyscall { resuming }   restart_syscall(<... resuming interrupted NAME ...>)
//!     Other { args, undecoded }     any other call, or one that could not be decoded
//! ```

use taskcore::sys::Syscall;
use taskcore::{CapUserData, Errno, Rlimit, SigHandler};

use crate::procfile::ProcFile;
use crate::siginfo::SigInfo;

/// The decoded call of one syscall line.
///
/// Output arguments (a wait status, an old action, an old mask) are not
/// part of the [`Syscall`], as for the kernel: they are what strace read
/// back after the call, in [`Recorded`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Call {
    /// A call the core implements, as the kernel takes it, with the trace's
    /// numbers (pids, pgids, signals, flags as printed), and what strace
    /// printed of its outputs.
    ///
    /// Some arguments strace prints but the replay does not apply are not
    /// carried: clone3's `set_tid`, `cgroup` and `stack` (the child's
    /// number is the call's result; unread `set_tid`/`pidfd` pointers are
    /// in [`crate::SyscallLine::user_ptrs`]); mmap's fd is in
    /// [`Recorded::Mmap`], its `file` is `None`.
    Sys {
        /// The call.
        call: Syscall,
        /// What strace printed beyond the return value.
        out: Recorded,
    },
    /// A call kept as the kernel sees it in registers (its x86_64 number
    /// and arguments; a pointer strace read is 1, NULL 0), because what an
    /// argument names is resolved where it is applied: the fd of
    /// pidfd_send_signal and setns (through the caller's fd table, see
    /// [`Syscall::from_raw_in`]) and ptrace's request (`args[0]`, with the
    /// tracee's pid in `args[1]`).
    Raw {
        /// The syscall number ([`taskcore::sys::nr`]).
        nr: u64,
        /// The six argument registers.
        args: [u64; 6],
        /// pidfd_send_signal's siginfo, as strace printed it (`si_pid` the
        /// trace's number, `si_signo` the call's signal).
        info: Option<taskcore::SigInfo>,
    },
    /// A call the kernel refuses before it acts: a `sigsetsize` other than
    /// 8 bytes is `EINVAL` for rt_sigprocmask, rt_sigsuspend and
    /// rt_sigtimedwait, one above 8 for rt_sigpending (kernel/signal.c).
    Refused {
        /// The syscall's name.
        name: &'static str,
        /// The errno the kernel returns.
        err: Errno,
    },
    /// write(2) of `data` to a user-namespace file of `/proc` of process
    /// `pid` (`uid_map`, `gid_map`, `setgroups`), known by strace's `-y`
    /// fd annotation, with the whole buffer printed.
    ProcWrite {
        /// The process whose file it is (the trace's number).
        pid: i32,
        /// Which file.
        file: ProcFile,
        /// The bytes written.
        data: Vec<u8>,
    },
    /// A call the core implements whose arguments strace did not print in
    /// full (an unread pointer, a cut string): it cannot be applied as
    /// recorded.
    Unchecked {
        /// The syscall's name.
        name: &'static str,
        /// What is missing, for the report.
        why: &'static str,
    },
    /// `restart_syscall(<... resuming interrupted NAME ...>)`: Linux's
    /// `-ERESTART_RESTARTBLOCK` continuation (kernel/signal.c
    /// `sys_restart_syscall()`).
    RestartSyscall {
        /// The interrupted call's name, when strace printed it.
        resuming: Option<String>,
    },
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

    /// The core call, for [`Call::Sys`].
    pub fn syscall(&self) -> Option<&Syscall> {
        match self {
            Call::Sys { call, .. } => Some(call),
            _ => None,
        }
    }

    /// Whether this call creates a task (clone, clone3, fork, vfork).
    pub fn creates_task(&self) -> bool {
        matches!(
            self.syscall(),
            Some(Syscall::Clone(_) | Syscall::Clone3(_) | Syscall::Fork | Syscall::Vfork)
        )
    }
}

/// What strace printed of a call beyond its return value: the outputs the
/// kernel wrote through the call's pointers, as strace read them after
/// the call, and what the line says of the call that the kernel's
/// arguments do not.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Recorded {
    /// Nothing beyond the return value.
    Ret,
    /// clone, clone3, fork, vfork.
    Clone {
        /// With `CLONE_PIDFD`, the fd number the parent got (clone's
        /// `parent_tid=[N]`, clone3's `=> {pidfd=[N]}`).
        pidfd: Option<i32>,
        /// The child's number in the caller's pid namespace when strace
        /// printed its own beside it (`= 2 /* 30657 in strace's PID NS
        /// */`, `--decode-pids=pidns`): the printed result; see
        /// [`crate::SyscallLine::ret_host_pid`] for strace's number.
        ns_nr: Option<i32>,
    },
    /// wait4: the status word strace printed (`(code << 8)`, `sig |
    /// 0x80`, `(sig << 8) | 0x7f`, `0xffff`, ptrace events in bits
    /// 16..); `None` for NULL or an unread pointer.
    Wait4 {
        /// The status int.
        status: Option<i32>,
    },
    /// waitid: the siginfo strace printed (`None`: not printed).
    Waitid {
        /// The fields a waitid siginfo reports.
        info: Option<WaitidInfo>,
    },
    /// getresuid, getresgid: the three ids strace printed.
    Ids(Option<[u32; 3]>),
    /// getrlimit, prlimit64 (the old limits), setrlimit (`None`).
    Rlimit(Option<Rlimit>),
    /// `prctl(PR_GET_NAME)`: the name strace printed.
    Name(String),
    /// getgroups: the groups strace printed (`None`: NULL or not printed).
    Groups(Option<Vec<u32>>),
    /// capget: the sets strace printed (`None`: NULL or not printed).
    Caps(Option<CapUserData>),
    /// `prctl(PR_GET_PDEATHSIG)`, `prctl(PR_GET_CHILD_SUBREAPER)`: the
    /// int strace printed (`[SIGUSR2]`, `[1]`).
    Written(Option<u64>),
    /// mmap: the fd argument as printed (the call's `file` is `None`: the
    /// core has no fd table).
    Mmap {
        /// The fd, or -1.
        fd: i32,
    },
    /// rt_sigaction: the old handler strace printed.
    OldHandler(Option<SigHandler>),
    /// rt_sigprocmask: whether strace read the set (an unread pointer is
    /// the call's `set` `None`, like NULL), and the old mask it printed.
    Mask {
        /// The set was printed (or NULL), not an address.
        read: bool,
        /// The old mask (bit `n - 1` for signal `n`).
        old: Option<u64>,
    },
    /// rt_sigpending: the set strace printed.
    Sigset(Option<u64>),
    /// rt_sigtimedwait (`read`: whether strace read the set) and
    /// rt_sig(tg)queueinfo (`read` true): the siginfo strace printed.
    Siginfo {
        /// The set was printed.
        read: bool,
        /// The siginfo (boxed: 72 bytes inline would make every
        /// [`Recorded`], and so every event, 48 bytes larger).
        info: Option<Box<SigInfo>>,
    },
    /// rt_sigreturn: the mask strace printed (`{mask=[...]}`; the call's
    /// `mask` is 0 without it).
    Frame(Option<u64>),
}

/// The fields of the siginfo a successful waitid(2) wrote (kernel/exit.c
/// `wait_task_*()` fill `si_pid`, `si_code` (`CLD_*`), `si_status`), as
/// strace printed them; all 0 for `{}` (WNOHANG, nothing to report).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WaitidInfo {
    /// `si_pid` (the trace's number), 0 for `{}`.
    pub pid: i32,
    /// `si_code`: `CLD_EXITED`, `CLD_KILLED`, ...
    pub code: i32,
    /// `si_status`: the exit code or signal.
    pub status: i32,
}
