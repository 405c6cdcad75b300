//! What the replay engine consumes: one recorded event per value, already
//! joined (`<unfinished ...>` with its `<... resumed>`) and typed.

use std::sync::Arc;

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

/// A recorded `rt_sigaction` handler.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RecHandler {
    Dfl,
    Ign,
    Handler,
}

/// One recorded event, in the replay's terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    /// clone/clone3/fork/vfork: flags without the signal byte, and the exit
    /// signal.
    Clone {
        flags: u64,
        exit_signal: i32,
        /// `clone3` (its own argument rules) rather than clone/fork/vfork.
        clone3: bool,
        /// With `CLONE_PIDFD`, the fd number the parent got.
        pidfd: Option<i32>,
        /// The child's number in the caller's pid namespace when strace
        /// printed it beside its own (`= 2 /* 30657 in strace's PID NS
        /// */`); the event's result is then strace's number.
        ns_nr: Option<i32>,
    },
    Execve {
        path: String,
        argv: Vec<String>,
    },
    Exit {
        code: i32,
    },
    ExitGroup {
        code: i32,
    },
    Wait4 {
        pid: i32,
        status: Option<i32>,
        options: i32,
    },
    Waitid {
        idtype: i32,
        id: i32,
        info: Option<RecInfo>,
        options: i32,
    },
    Setpgid {
        pid: i32,
        pgid: i32,
    },
    Setsid,
    Getpgid {
        pid: i32,
    },
    Getsid {
        pid: i32,
    },
    Getppid,
    Kill {
        pid: i32,
        sig: i32,
    },
    Tgkill {
        tgid: i32,
        tid: i32,
        sig: i32,
    },
    Tkill {
        tid: i32,
        sig: i32,
    },
    RtSigaction {
        sig: i32,
        /// Handler, `sa_flags`, `sa_mask`.
        act: Option<(RecHandler, u64, u64)>,
        old: Option<RecHandler>,
    },
    SetChildSubreaper {
        on: bool,
    },
    /// `prctl(PR_SET_NAME, name)`.
    SetName {
        name: String,
    },
    /// `prctl(PR_SET_PDEATHSIG, sig)`.
    SetPdeathsig {
        sig: i32,
    },
    /// `prctl(PR_GET_CHILD_SUBREAPER, [v])`: the value written back.
    GetChildSubreaper {
        value: Option<u64>,
    },
    /// `prctl(PR_SET_DUMPABLE, arg)` (`SUID_DUMP_*` as a number).
    SetDumpable {
        arg: u64,
    },
    /// `prctl(PR_GET_DUMPABLE)`: the flag is the return value.
    GetDumpable,
    /// mmap(addr, len, prot, flags, fd, offset).
    Mmap {
        addr: u64,
        len: u64,
        prot: u32,
        flags: u32,
        fd: i32,
        offset: u64,
    },
    /// munmap(addr, len).
    Munmap {
        addr: u64,
        len: u64,
    },
    /// mprotect(addr, len, prot).
    Mprotect {
        addr: u64,
        len: u64,
        prot: u32,
    },
    /// mremap(old, old_len, new_len, flags, new).
    Mremap {
        old: u64,
        old_len: u64,
        new_len: u64,
        flags: u32,
        new: u64,
    },
    /// brk(addr).
    Brk {
        addr: u64,
    },
    /// `--- SIGx {...} ---`: a signal delivered to the task.
    Signal {
        sig: i32,
        info: Option<RecSigInfo>,
    },
    /// rt_sigprocmask(how, set, oldset, sigsetsize): `None` for a set
    /// strace did not read (`NULL`, or a pointer of a failed call).
    RtSigprocmask {
        how: i32,
        /// `Some(None)` is `NULL`; `None` an unread pointer.
        set: Option<Option<u64>>,
        old: Option<u64>,
        sigsetsize: u64,
    },
    /// rt_sigpending(set, sigsetsize).
    RtSigpending {
        set: Option<u64>,
        sigsetsize: u64,
    },
    /// rt_sigqueueinfo (`tid` None) / rt_tgsigqueueinfo.
    RtSigqueueinfo {
        tgid: i32,
        tid: Option<i32>,
        sig: i32,
        info: Option<RecSigInfo>,
    },
    /// rt_sigtimedwait(set, info, timeout, sigsetsize).
    RtSigtimedwait {
        set: Option<u64>,
        info: Option<RecSigInfo>,
        sigsetsize: u64,
    },
    /// rt_sigsuspend(mask, sigsetsize), or `pause` (`mask` None,
    /// `sigsetsize` 8). A mask strace did not read is None.
    SigSuspend {
        mask: Option<u64>,
        pause: bool,
        sigsetsize: u64,
    },
    /// rt_sigreturn({mask=...}).
    RtSigreturn {
        mask: Option<u64>,
    },
    /// restart_syscall(<... resuming interrupted NAME ...>).
    RestartSyscall,
    /// ptrace(request, pid, ...).
    Ptrace {
        request: i32,
        pid: i32,
    },
    /// `--- stopped by SIGx ---`.
    Stopped {
        sig: i32,
    },
    /// The death behind a `+++` line (synthetic): the task ran `do_exit`
    /// somewhere between its last printed activity and that line.
    Die {
        code: Option<i32>,
        sig: Option<(i32, bool)>,
    },
    /// `+++ exited with N +++`.
    Exited {
        code: i32,
    },
    /// `+++ killed by SIGx [(core dumped)] +++`.
    Killed {
        sig: i32,
        core: bool,
    },
    /// `+++ superseded by execve in pid N +++`: this thread exec'd and took
    /// pid N.
    Superseded {
        by: i32,
    },
    /// A modelled call whose arguments strace never printed (the caller
    /// died inside it): neither applied nor checked.
    Unrecorded {
        name: String,
    },
    /// A pidfd, namespace, credential, resource-limit call or
    /// prctl(PR_GET_NAME) (see `engine/procapi.rs`).
    ProcApi(crate::procop::ProcOp),
    /// A line the replay does not model (counted per syscall name).
    Other {
        name: String,
    },
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
    pub(crate) op: Op,
    pub(crate) ret: Outcome,
    /// For an interrupted call, how it was interrupted.
    pub(crate) restart: Option<Restart>,
}

impl Op {
    /// The syscall or line kind, for counters and messages.
    pub(crate) fn name(&self) -> &str {
        match self {
            Op::Clone { .. } => "clone",
            Op::Execve { .. } => "execve",
            Op::Exit { .. } => "exit",
            Op::ExitGroup { .. } => "exit_group",
            Op::Wait4 { .. } => "wait4",
            Op::Waitid { .. } => "waitid",
            Op::Setpgid { .. } => "setpgid",
            Op::Setsid => "setsid",
            Op::Getpgid { .. } => "getpgid",
            Op::Getsid { .. } => "getsid",
            Op::Getppid => "getppid",
            Op::Kill { .. } => "kill",
            Op::Tgkill { .. } => "tgkill",
            Op::Tkill { .. } => "tkill",
            Op::RtSigaction { .. } => "rt_sigaction",
            Op::SetChildSubreaper { .. }
            | Op::GetChildSubreaper { .. }
            | Op::SetName { .. }
            | Op::SetDumpable { .. }
            | Op::GetDumpable
            | Op::SetPdeathsig { .. } => "prctl",
            Op::Signal { .. } => "--- signal",
            Op::RtSigprocmask { .. } => "rt_sigprocmask",
            Op::RtSigpending { .. } => "rt_sigpending",
            Op::RtSigqueueinfo { tid: None, .. } => "rt_sigqueueinfo",
            Op::RtSigqueueinfo { .. } => "rt_tgsigqueueinfo",
            Op::RtSigtimedwait { .. } => "rt_sigtimedwait",
            Op::SigSuspend { pause: true, .. } => "pause",
            Op::SigSuspend { .. } => "rt_sigsuspend",
            Op::RtSigreturn { .. } => "rt_sigreturn",
            Op::RestartSyscall => "restart_syscall",
            Op::Ptrace { .. } => "ptrace",
            Op::Stopped { .. } => "--- stopped",
            Op::Die { .. } => "death",
            Op::Exited { .. } => "+++ exited",
            Op::Killed { .. } => "+++ killed",
            Op::Superseded { .. } => "+++ superseded",
            Op::Mmap { .. } => "mmap",
            Op::Munmap { .. } => "munmap",
            Op::Mprotect { .. } => "mprotect",
            Op::Mremap { .. } => "mremap",
            Op::Brk { .. } => "brk",
            Op::ProcApi(p) => p.name(),
            Op::Unrecorded { name } | Op::Other { name } => name,
        }
    }
}
