//! Typed wrappers for signal numbers and wait options, and the siginfo of a
//! wait report or SIGCHLD ([`SigInfo`]). Every operation
//! that takes one also takes the raw `i32` Linux uses (`impl Into<i32>`),
//! so both `k.kill(t, pid, Signal::TERM)` and `k.kill(t, pid, 15)` work.

use core::fmt;
use core::ops::{BitOr, BitOrAssign};

use crate::uapi;

/// A signal number (1..=64 on x86_64 Linux; 0 is the "does it exist"
/// probe of `kill`). Not validated: an out-of-range number is the callee's
/// `EINVAL`, as Linux's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Signal(pub i32);

impl Signal {
    /// `kill(pid, 0)`: checks that the target exists.
    pub const NONE: Signal = Signal(0);
    /// SIGHUP (1).
    pub const HUP: Signal = Signal(uapi::SIGHUP);
    /// SIGINT (2).
    pub const INT: Signal = Signal(uapi::SIGINT);
    /// SIGQUIT (3).
    pub const QUIT: Signal = Signal(uapi::SIGQUIT);
    /// SIGABRT (6).
    pub const ABRT: Signal = Signal(uapi::SIGABRT);
    /// SIGKILL (9).
    pub const KILL: Signal = Signal(uapi::SIGKILL);
    /// SIGUSR1 (10).
    pub const USR1: Signal = Signal(uapi::SIGUSR1);
    /// SIGSEGV (11).
    pub const SEGV: Signal = Signal(uapi::SIGSEGV);
    /// SIGUSR2 (12).
    pub const USR2: Signal = Signal(uapi::SIGUSR2);
    /// SIGPIPE (13).
    pub const PIPE: Signal = Signal(uapi::SIGPIPE);
    /// SIGALRM (14).
    pub const ALRM: Signal = Signal(uapi::SIGALRM);
    /// SIGTERM (15).
    pub const TERM: Signal = Signal(uapi::SIGTERM);
    /// SIGCHLD (17).
    pub const CHLD: Signal = Signal(uapi::SIGCHLD);
    /// SIGCONT (18).
    pub const CONT: Signal = Signal(uapi::SIGCONT);
    /// SIGSTOP (19).
    pub const STOP: Signal = Signal(uapi::SIGSTOP);
    /// SIGTSTP (20).
    pub const TSTP: Signal = Signal(uapi::SIGTSTP);
    /// SIGTTIN (21).
    pub const TTIN: Signal = Signal(uapi::SIGTTIN);
    /// SIGTTOU (22).
    pub const TTOU: Signal = Signal(uapi::SIGTTOU);

    /// `SIGRTMIN + n` (the kernel's SIGRTMIN, 32).
    pub const fn rt(n: i32) -> Signal {
        Signal(uapi::SIGRTMIN + n)
    }
}

impl From<Signal> for i32 {
    fn from(s: Signal) -> i32 {
        s.0
    }
}

impl fmt::Display for Signal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "signal {}", self.0)
    }
}

/// `wait4`/`waitid` options, combined with `|`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct WaitOptions(pub i32);

impl WaitOptions {
    /// No option (`wait4`: block for an exited child).
    pub const NONE: WaitOptions = WaitOptions(0);
    /// WNOHANG: return at once when nothing is ready.
    pub const NOHANG: WaitOptions = WaitOptions(uapi::WNOHANG);
    /// WUNTRACED / WSTOPPED: report stopped children.
    pub const STOPPED: WaitOptions = WaitOptions(uapi::WSTOPPED);
    /// WEXITED: report exited children (`waitid` needs it explicitly).
    pub const EXITED: WaitOptions = WaitOptions(uapi::WEXITED);
    /// WCONTINUED: report children continued by SIGCONT.
    pub const CONTINUED: WaitOptions = WaitOptions(uapi::WCONTINUED);
    /// WNOWAIT: leave the child waitable.
    pub const NOWAIT: WaitOptions = WaitOptions(uapi::WNOWAIT);
    /// __WNOTHREAD: only the calling thread's children.
    pub const NOTHREAD: WaitOptions = WaitOptions(uapi::__WNOTHREAD);
    /// __WALL: any child, whatever its exit signal.
    pub const ALL: WaitOptions = WaitOptions(uapi::__WALL);
    /// __WCLONE: only "clone" children (exit signal other than SIGCHLD).
    pub const CLONE: WaitOptions = WaitOptions(uapi::__WCLONE);
}

impl BitOr for WaitOptions {
    type Output = WaitOptions;
    fn bitor(self, o: WaitOptions) -> WaitOptions {
        WaitOptions(self.0 | o.0)
    }
}

impl BitOrAssign for WaitOptions {
    fn bitor_assign(&mut self, o: WaitOptions) {
        self.0 |= o.0;
    }
}

impl From<WaitOptions> for i32 {
    fn from(o: WaitOptions) -> i32 {
        o.0
    }
}

/// Signal information, as `waitid` and SIGCHLD deliver it (`siginfo_t`
/// fields of the `SIGCHLD` layout).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SigInfo {
    /// Signal number (`si_signo`): SIGCHLD for wait reports, 0 when nothing
    /// was reported.
    pub signo: i32,
    /// `si_code`: `CLD_EXITED`, `CLD_KILLED`, `CLD_DUMPED`, `CLD_TRAPPED`,
    /// `CLD_STOPPED` or `CLD_CONTINUED`.
    pub code: i32,
    /// The child's pid in the receiver's namespace (`si_pid`).
    pub pid: i32,
    /// The child's real uid (`si_uid`).
    pub uid: u32,
    /// Exit code or signal number (`si_status`).
    pub status: i32,
    /// The value sent with `rt_sigqueueinfo` (`si_value`, `si_int` in its
    /// low 32 bits); 0 for other signals.
    pub value: u64,
}
