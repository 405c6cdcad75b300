//! Results written as strace prints them, for mismatch messages: a wait's
//! `= 1234 [{WIFEXITED(s) && WEXITSTATUS(s) == 0}]`, `= 0`, `= -1 ECHILD`.
//! Emulated pids are written as the trace's numbers when the replay knows
//! them.

use taskcore::WaitOutcome;

use super::Engine;

/// strace's name of a signal (`SIGCHLD`, `SIGRT_2`).
pub(crate) fn signame(sig: i32) -> String {
    taskcore::uapi::signal_name(sig).into_owned()
}

/// A wait status word as strace prints it (`[{WIFEXITED(s) &&
/// WEXITSTATUS(s) == 3}]`, `[{WIFSIGNALED(s) && WTERMSIG(s) == SIGKILL}]`,
/// `[{WIFSTOPPED(s) && WSTOPSIG(s) == SIGTSTP}]`, `[{WIFCONTINUED(s)}]`).
pub(crate) fn wait_status(w: i32) -> String {
    let term = w & 0x7f;
    if w == 0xffff {
        "[{WIFCONTINUED(s)}]".into()
    } else if term == 0 {
        format!(
            "[{{WIFEXITED(s) && WEXITSTATUS(s) == {}}}]",
            (w >> 8) & 0xff
        )
    } else if term == 0x7f {
        format!(
            "[{{WIFSTOPPED(s) && WSTOPSIG(s) == {}}}]",
            signame((w >> 8) & 0xff)
        )
    } else {
        let core = if w & 0x80 != 0 {
            " && WCOREDUMP(s)"
        } else {
            ""
        };
        format!(
            "[{{WIFSIGNALED(s) && WTERMSIG(s) == {}{core}}}]",
            signame(term)
        )
    }
}

impl Engine {
    /// Emulated pid `nr` as the trace numbers it, when known.
    pub(crate) fn rec_pid(&self, nr: i32) -> String {
        match self.pids.rec_of(nr) {
            Some(r) => r.to_string(),
            None => format!("{nr} (emulated)"),
        }
    }

    /// A child `nr` (emulated) with status `status`, as a wait's result.
    pub(crate) fn fmt_reported(&self, nr: i32, status: i32) -> String {
        format!("= {} {}", self.rec_pid(nr), wait_status(status))
    }

    /// A recorded wait result: child `pid` (the trace's number) with
    /// `status` (`None`: not printed).
    pub(crate) fn fmt_recorded_wait(pid: i32, status: Option<i32>) -> String {
        match status {
            Some(s) => format!("= {pid} {}", wait_status(s)),
            None => format!("= {pid}"),
        }
    }

    /// An emulated wait's outcome as strace would print it.
    pub(crate) fn fmt_wait(&self, r: &taskcore::Result<WaitOutcome>) -> String {
        match r {
            Ok(WaitOutcome::Reported(rep)) => self.fmt_reported(rep.pid, rep.status),
            Ok(WaitOutcome::NothingYet) => "= 0".into(),
            Ok(WaitOutcome::WouldBlock) => "no child ready (would sleep)".into(),
            Ok(WaitOutcome::Interrupted) => "= ? ERESTARTSYS".into(),
            Ok(_) => "an outcome strace cannot print".into(),
            Err(e) => format!("= -1 {}", e.name()),
        }
    }
}
