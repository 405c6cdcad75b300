//! What a dispatched call returns ([`SysRet`]): its return value, and what
//! Linux would have written through its output pointers.

use crate::errno::Result;
use crate::ix::TaskId;
use crate::task::procapi::pidfd::PidFd;
use crate::task::signal::sigmask::SigWait;
use crate::task::state::rlimit::Rlimit;
use crate::task::state::sighand::SigAction;
use crate::uapi::TASK_COMM_LEN;
use crate::wait::WaitOutcome;

/// What a successful call returns: its return value, and what Linux would
/// have written through its output pointers.
///
/// # Linux
/// The return register plus the `copy_to_user()` of each call.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SysRet {
    /// A plain return value (0, a pid, a pgid, an old fs id...).
    Value(i64),
    /// clone, clone3, fork, vfork: the child, and its pid as the caller's
    /// namespace numbers it (the return value).
    Child {
        /// The child's handle.
        task: TaskId,
        /// Its pid in the caller's namespace.
        pid: i32,
        /// With `CLONE_PIDFD`, the pidfd on the child, for the embedder to
        /// number and write where clone(2)'s `parent_tid` or clone3's
        /// `pidfd` points.
        pidfd: Option<PidFd>,
    },
    /// pidfd_open: the new pidfd. The embedder numbers it; that number is
    /// the return value ([`SysRet::raw`] gives 0).
    PidFd(PidFd),
    /// rt_sigprocmask (the old mask, written to `oldset`), rt_sigpending
    /// (the set written); returns 0.
    Sigset(u64),
    /// rt_sigtimedwait (returns the signal taken, its siginfo written),
    /// rt_sigsuspend and pause (which only block: they end with `EINTR`).
    SigWait(SigWait),
    /// An address (mmap, mremap, brk).
    Addr(u64),
    /// wait4: the outcome (the return value, the child's pid or 0, and the
    /// status written).
    Wait(WaitOutcome),
    /// waitid (`P_PIDFD` included): the outcome (the siginfo written;
    /// returns 0).
    Waitid(WaitOutcome),
    /// rt_sigaction: the old action (written to `oact`); returns 0.
    SigAction(SigAction),
    /// getresuid, getresgid: (real, effective, saved); returns 0.
    Ids(u32, u32, u32),
    /// getgroups: the groups written (the return value is their count).
    Groups(Vec<u32>),
    /// getrlimit, prlimit64: the (old) limits written; returns 0.
    Rlimit(Rlimit),
    /// `PR_GET_NAME`: the 16 bytes written; returns 0.
    Name([u8; TASK_COMM_LEN]),
    /// `PR_GET_PDEATHSIG`, `PR_GET_CHILD_SUBREAPER`: the int written;
    /// returns 0.
    Written(i32),
    /// `PTRACE_GETEVENTMSG`: the unsigned long written; returns 0.
    EventMsg(u64),
    /// `PTRACE_GETSIGINFO`: the siginfo written; returns 0.
    SigInfo(crate::types::SigInfo),
    /// capget with a data pointer: the three sets written (the low 32
    /// bits only for version 1); returns 0.
    Caps(crate::task::state::capability::CapUserData),
}

impl SysRet {
    /// The value of the return register (`rax`).
    ///
    /// A wait that reports nothing returns 0 (`WNOHANG`); one that would
    /// block has no return value yet (the embedder blocks the caller): 0
    /// here too.
    ///
    /// # Linux
    /// The syscall's return value on success.
    pub fn raw(&self) -> i64 {
        match self {
            SysRet::Value(v) => *v,
            SysRet::Child { pid, .. } => (*pid).into(),
            SysRet::Addr(a) => *a as i64,
            SysRet::Wait(WaitOutcome::Reported(r)) => r.pid.into(),
            SysRet::Wait(_) | SysRet::Waitid(_) => 0,
            SysRet::SigWait(SigWait::Signal(info)) => info.signo.into(),
            SysRet::Groups(g) => g.len() as i64,
            SysRet::SigAction(_)
            | SysRet::PidFd(_)
            | SysRet::Sigset(_)
            | SysRet::SigWait(_)
            | SysRet::Ids(..)
            | SysRet::Rlimit(_)
            | SysRet::Name(_)
            | SysRet::Written(_)
            | SysRet::EventMsg(_)
            | SysRet::SigInfo(_)
            | SysRet::Caps(_) => 0,
        }
    }
}

/// The result of `dispatch`: Linux's errno on failure.
pub type SysResult = Result<SysRet>;
