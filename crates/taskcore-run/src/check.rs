//! Comparing the core's answer with the real kernel's, and what a
//! disagreement is reported as: strace's notation, never Rust's.

use std::fmt;

use serde::Serialize;
use taskcore::sys::{SysResult, SysRet};
use taskcore::{Errno, SigWait, WaitOutcome};

/// One disagreement between the real kernel and the core.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Divergence {
    /// The calling thread's virtual tid.
    pub pid: i32,
    /// The call, as strace would print its entry (`wait4(-1, 0x7ffd…, WNOHANG, NULL)`
    /// shortened to the numbers).
    pub call: String,
    /// What the real kernel answered (`= 3`, `= -1 ECHILD`), renumbered.
    pub real: String,
    /// What the core answered.
    pub core: String,
}

impl fmt::Display for Divergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[pid {}] {} {} (real kernel) but {} (core)",
            self.pid, self.call, self.real, self.core
        )
    }
}

/// A return value in strace's notation: `= 5` or `= -1 ECHILD`.
pub(crate) fn show_ret(v: i64) -> String {
    if (-4095..0).contains(&v) {
        let e = Errno::from_i32((-v) as i32);
        match e {
            Some(e) => format!("= -1 {}", e.name()),
            None => format!("= -1 E{}", -v),
        }
    } else {
        format!("= {v}")
    }
}

/// The core's result in the same notation.
pub(crate) fn show_core(r: &SysResult) -> String {
    match r {
        Err(e) => format!("= -1 {}", e.name()),
        Ok(SysRet::Wait(WaitOutcome::WouldBlock | WaitOutcome::Interrupted))
        | Ok(SysRet::Waitid(WaitOutcome::WouldBlock | WaitOutcome::Interrupted)) => {
            "would block".to_string()
        }
        Ok(SysRet::SigWait(SigWait::WouldBlock)) => "would block".to_string(),
        Ok(r) => show_ret(r.raw()),
    }
}

/// Whether the core's result agrees with the real return value `real`
/// (already renumbered to virtual pids). `None`: not comparable (the
/// real call was interrupted or its value is the real kernel's own, such
/// as an fd number).
pub(crate) fn agrees(core: &SysResult, real: i64) -> Option<bool> {
    if is_restart(real) {
        return None;
    }
    Some(match core {
        Err(e) => real == -(e.as_i32() as i64),
        Ok(r) => match r {
            SysRet::Child { .. } => real > 0,
            SysRet::PidFd(_) => real >= 0,
            SysRet::Wait(WaitOutcome::Reported(w)) => real == i64::from(w.pid),
            SysRet::Waitid(WaitOutcome::Reported(_)) | SysRet::Waitid(WaitOutcome::NothingYet) => {
                real == 0
            }
            SysRet::Wait(WaitOutcome::NothingYet) => real == 0,
            SysRet::Wait(_) | SysRet::Waitid(_) => false,
            SysRet::SigWait(_) | SysRet::Addr(_) => return None,
            other => real == other.raw(),
        },
    })
}

/// `-ERESTARTSYS`, `-ERESTARTNOINTR`, `-ERESTARTNOHAND`,
/// `-ERESTART_RESTARTBLOCK` or `-EINTR`: the call was interrupted by a
/// signal at the syscall-exit stop (the kernel restarts it or the program
/// sees EINTR after the handler).
pub(crate) fn is_restart(real: i64) -> bool {
    matches!(real, -516..=-512) || real == -4
}
