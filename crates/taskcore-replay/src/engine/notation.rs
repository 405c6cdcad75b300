//! Results written as strace prints them, for mismatch messages: a wait's
//! `= 1234 [{WIFEXITED(s) && WEXITSTATUS(s) == 0}]`, `= 0`, `= -1 ECHILD`.
//! Emulated pids are written as the trace's numbers when the replay knows
//! them.

use taskcore::uapi::RLIM_INFINITY;
use taskcore::{Rlimit, SigWait, SignalAction, WaitOutcome};

use super::Engine;

/// strace's name of a signal (`SIGCHLD`, `SIGRT_2`).
pub(crate) fn signame(sig: i32) -> String {
    taskcore::uapi::signal_name(sig).into_owned()
}

/// A siginfo's `si_code` as strace names it (`SI_USER`, `CLD_EXITED`, ...;
/// a number it has no name for).
pub(crate) fn fmt_si_code(signo: i32, code: i32) -> String {
    const CLD: [&str; 6] = [
        "CLD_EXITED",
        "CLD_KILLED",
        "CLD_DUMPED",
        "CLD_TRAPPED",
        "CLD_STOPPED",
        "CLD_CONTINUED",
    ];
    let name = match code {
        0 => "SI_USER",
        0x80 => "SI_KERNEL",
        -1 => "SI_QUEUE",
        -2 => "SI_TIMER",
        -3 => "SI_MESGQ",
        -4 => "SI_ASYNCIO",
        -5 => "SI_SIGIO",
        -6 => "SI_TKILL",
        1..=6 if signo == 17 => CLD[code as usize - 1],
        _ => return code.to_string(),
    };
    name.into()
}

/// A SIGCHLD's `si_status` as strace prints it: the exit code for
/// `CLD_EXITED`, a signal name otherwise.
pub(crate) fn fmt_si_status(code: i32, status: i32) -> String {
    if code == 1 {
        status.to_string()
    } else {
        signame(status)
    }
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

/// A call's result as strace prints it: `= VALUE` (`val` writes a
/// success's value) or `= -1 ENAME`.
pub(crate) fn fmt_result<T>(r: &taskcore::Result<T>, val: impl FnOnce(&T) -> String) -> String {
    match r {
        Ok(v) => format!("= {}", val(v)),
        Err(e) => format!("= -1 {}", e.name()),
    }
}

/// A call's result that is 0 on success (`= 0`, `= -1 ENAME`).
pub(crate) fn fmt_unit(r: &taskcore::Result<()>) -> String {
    fmt_result(r, |_| "0".into())
}

/// A signal wait's result as strace prints rt_sigtimedwait's (`= 10
/// (SIGUSR1)`), or that the thread would sleep.
pub(crate) fn fmt_sigwait(r: &taskcore::Result<SigWait>) -> String {
    match r {
        Ok(SigWait::Signal(i)) => format!("= {} ({})", i.signo, signame(i.signo)),
        Ok(SigWait::WouldBlock) => "no signal (would sleep)".into(),
        // Any kind a later core adds.
        Ok(_) => "another outcome".into(),
        Err(e) => format!("= -1 {}", e.name()),
    }
}

/// What `get_signal()` did, in words.
pub(crate) fn fmt_action(a: &SignalAction) -> String {
    match a {
        SignalAction::None => "nothing delivered".into(),
        SignalAction::Handler { sig, .. } => format!("{}'s handler run", signame(*sig)),
        SignalAction::Stopped => "stopped".into(),
        SignalAction::Exit => "killed".into(),
        // Any kind a later core adds.
        _ => "another action".into(),
    }
}

/// Limits as strace prints them (`{rlim_cur=8388608,
/// rlim_max=RLIM64_INFINITY}`).
pub(crate) fn fmt_rlimit(r: &Rlimit) -> String {
    let n = |v: u64| {
        if v == RLIM_INFINITY {
            "RLIM64_INFINITY".to_string()
        } else {
            v.to_string()
        }
    };
    format!("{{rlim_cur={}, rlim_max={}}}", n(r.cur), n(r.max))
}

/// A list of ids as strace prints a group list (`[0, 1000]`).
pub(crate) fn fmt_ids(ids: &[u32]) -> String {
    let v: Vec<String> = ids.iter().map(u32::to_string).collect();
    format!("[{}]", v.join(", "))
}

/// getresuid's three ids as strace prints them (`[0], [0], [0]`).
pub(crate) fn fmt_resids(ids: &[u32; 3]) -> String {
    format!("[{}], [{}], [{}]", ids[0], ids[1], ids[2])
}

/// A string as strace quotes it (`"bash"`; a quote and a backslash
/// escaped, `\n`, `\t`, other non-printable bytes in octal).
pub(crate) fn fmt_str(s: &str) -> String {
    let mut out = String::from("\"");
    for b in s.bytes() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\{b:o}")),
        }
    }
    out.push('"');
    out
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
