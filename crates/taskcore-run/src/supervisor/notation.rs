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
        if ic.nr == libc::SYS_waitid && shown == 0 && ic.args[2] != 0 {
            // siginfo_t: si_signo at 0, si_code at 8, si_pid at 16,
            // si_status at 24 (include/uapi/asm-generic/siginfo.h).
            let m = Memory::new(tid);
            let at = |off: u64| m.read_i32(ic.args[2] + off).unwrap_or(0);
            return format!(
                "{} {}",
                show_ret(0),
                show_waitid_info(at(0), at(8), at(16), at(24))
            );
        }
        show_ret(shown)
    }
}

/// A waitid siginfo as strace prints it: `{}` when nothing was reported,
/// else `{si_signo=SIGCHLD, si_code=CLD_STOPPED, si_pid=44,
/// si_status=SIGSTOP}` (`si_status` a number for `CLD_EXITED`).
fn show_waitid_info(signo: i32, code: i32, pid: i32, status: i32) -> String {
    if signo == 0 && pid == 0 {
        return "{}".to_string();
    }
    let code_name = match code {
        1 => "CLD_EXITED".to_string(),
        2 => "CLD_KILLED".to_string(),
        3 => "CLD_DUMPED".to_string(),
        4 => "CLD_TRAPPED".to_string(),
        5 => "CLD_STOPPED".to_string(),
        6 => "CLD_CONTINUED".to_string(),
        c => c.to_string(),
    };
    let status = if code == 1 {
        status.to_string()
    } else {
        signame(status)
    };
    format!(
        "{{si_signo={}, si_code={code_name}, si_pid={pid}, si_status={status}}}",
        signame(signo)
    )
}

/// The core's answer in strace's notation, with the wait status.
pub(super) fn describe_core(r: &taskcore::sys::SysResult) -> String {
    match r {
        Ok(SysRet::Wait(WaitOutcome::Reported(w))) => {
            format!("= {} [{}]", w.pid, show_status(w.status))
        }
        Ok(SysRet::Waitid(WaitOutcome::Reported(w))) => format!(
            "= 0 {}",
            show_waitid_info(w.info.signo, w.info.code, w.pid, w.info.status)
        ),
        Ok(SysRet::Waitid(WaitOutcome::NothingYet)) => "= 0 {}".to_string(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use taskcore::{SigInfo, WaitReport};

    #[test]
    fn waitid_answers_show_their_siginfo_as_strace_does() {
        assert_eq!(show_waitid_info(0, 0, 0, 0), "{}");
        assert_eq!(
            show_waitid_info(libc::SIGCHLD, 5, 44, libc::SIGSTOP),
            "{si_signo=SIGCHLD, si_code=CLD_STOPPED, si_pid=44, si_status=SIGSTOP}"
        );
        assert_eq!(
            show_waitid_info(libc::SIGCHLD, 1, 7, 3),
            "{si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=7, si_status=3}"
        );
        let nothing = Ok(SysRet::Waitid(WaitOutcome::NothingYet));
        assert_eq!(describe_core(&nothing), "= 0 {}");
        let info = SigInfo {
            signo: libc::SIGCHLD,
            code: 6,
            pid: 9,
            status: libc::SIGCONT,
            ..SigInfo::default()
        };
        let reported = Ok(SysRet::Waitid(WaitOutcome::Reported(WaitReport {
            pid: 9,
            status: 0xffff,
            info,
        })));
        assert_eq!(
            describe_core(&reported),
            "= 0 {si_signo=SIGCHLD, si_code=CLD_CONTINUED, si_pid=9, si_status=SIGCONT}"
        );
    }
}
