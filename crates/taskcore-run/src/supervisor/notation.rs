//! What a divergence line shows, in strace's notation: results with their
//! wait status, call arguments, signal names.

use taskcore::sys::SysRet;
use taskcore::WaitOutcome;

use super::{InCall, Supervisor};
use crate::check::{show_core, show_ret};
use crate::tracee::Memory;

impl Supervisor {
    /// The real result in strace's notation, with the wait status.
    pub(super) fn describe_real(&self, tid: i32, ic: &InCall, shown: i64) -> String {
        if ic.nr == libc::SYS_wait4 && shown > 0 && ic.args[1] != 0 {
            if let Ok(st) = Memory::new(tid).read_i32(ic.args[1]) {
                return format!("{} [{}]", show_ret(shown), show_status(st));
            }
        }
        show_ret(shown)
    }
}

/// The core's answer in strace's notation, with the wait status.
pub(super) fn describe_core(r: &taskcore::sys::SysResult) -> String {
    match r {
        Ok(SysRet::Wait(WaitOutcome::Reported(w))) => {
            format!("= {} [{}]", w.pid, show_status(w.status))
        }
        Ok(SysRet::Waitid(WaitOutcome::Reported(w))) => format!("= 0 {{si_pid={}}}", w.pid),
        r => show_core(r),
    }
}

/// A wait status as strace prints it.
pub(super) fn show_status(st: i32) -> String {
    if libc::WIFEXITED(st) {
        format!(
            "{{WIFEXITED(s) && WEXITSTATUS(s) == {}}}",
            libc::WEXITSTATUS(st)
        )
    } else if libc::WIFSIGNALED(st) {
        format!(
            "{{WIFSIGNALED(s) && WTERMSIG(s) == {}{}}}",
            signame(libc::WTERMSIG(st)),
            if libc::WCOREDUMP(st) {
                " && WCOREDUMP(s)"
            } else {
                ""
            }
        )
    } else if libc::WIFSTOPPED(st) {
        format!(
            "{{WIFSTOPPED(s) && WSTOPSIG(s) == {}}}",
            signame(libc::WSTOPSIG(st))
        )
    } else if libc::WIFCONTINUED(st) {
        "{WIFCONTINUED(s)}".to_string()
    } else {
        format!("{st:#x}")
    }
}

/// A signal's name as strace prints it (`SIGCHLD`, `SIGRT_2`; `0` for
/// the null signal of `kill(pid, 0)`).
pub(super) fn signame(sig: i32) -> String {
    match sig {
        0 => "0".to_string(),
        _ => taskcore::uapi::signal_name(sig).into_owned(),
    }
}

/// The arguments that identify a call, in strace's style: pids and
/// options as signed numbers, pointers omitted.
pub(super) fn show_args(nr: i64, a: &[u64; 6]) -> String {
    let n = match nr {
        libc::SYS_wait4 => return format!("{}, {}", a[0] as i32, options(a[2] as i32)),
        libc::SYS_waitid => {
            return format!("{}, {}, {}", a[0] as i32, a[1] as i32, options(a[3] as i32))
        }
        libc::SYS_kill | libc::SYS_tkill => {
            return format!("{}, {}", a[0] as i32, signame(a[1] as i32))
        }
        libc::SYS_tgkill => {
            return format!("{}, {}, {}", a[0] as i32, a[1] as i32, signame(a[2] as i32))
        }
        libc::SYS_getpgid | libc::SYS_getsid | libc::SYS_prctl => 1,
        libc::SYS_setpgid => 2,
        libc::SYS_rt_sigaction | libc::SYS_rt_sigprocmask => 1,
        _ => 0,
    };
    a[..n]
        .iter()
        .map(|&x| (x as i32).to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Wait options as strace prints them.
pub(super) fn options(o: i32) -> String {
    const NAMES: [(i32, &str); 7] = [
        (libc::WNOHANG, "WNOHANG"),
        (libc::WUNTRACED, "WSTOPPED"),
        (libc::WEXITED, "WEXITED"),
        (libc::WCONTINUED, "WCONTINUED"),
        (libc::WNOWAIT, "WNOWAIT"),
        (libc::__WCLONE, "__WCLONE"),
        (libc::__WALL, "__WALL"),
    ];
    let names: Vec<&str> = NAMES
        .iter()
        .filter(|(b, _)| o & b != 0)
        .map(|&(_, n)| n)
        .collect();
    if names.is_empty() {
        "0".to_string()
    } else {
        names.join("|")
    }
}
