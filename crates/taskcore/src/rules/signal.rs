//! The argument rules of the signal calls and of the calls that name a
//! thread: sigaction's signal, sigprocmask's `how`, the parent-death
//! signal, tgkill's and tkill's ids.
//!
//! # Linux
//! kernel/signal.c: `do_sigaction()`, `sigprocmask()`, `sys_tgkill()`,
//! `sys_tkill()`, `do_rt_tgsigqueueinfo()`; kernel/sys.c: `prctl()`
//! PR_SET_PDEATHSIG.

use crate::errno::{Errno, Result};
use crate::uapi::{sig_kernel_only, valid_signal, NSIG, SIG_BLOCK, SIG_SETMASK, SIG_UNBLOCK};

/// rt_sigaction's `sig`: a signal, and not SIGKILL or SIGSTOP when a new
/// action is given (`setting`; reading their action is allowed).
///
/// # Errors
/// `EINVAL`: `sig` outside 1..=64; SIGKILL or SIGSTOP with `setting`.
///
/// # Linux
/// `do_sigaction()`.
pub fn sigaction_sig(sig: i32, setting: bool) -> Result<()> {
    if !valid_signal(sig) || (setting && sig_kernel_only(sig)) {
        return Err(Errno::EINVAL);
    }
    Ok(())
}

/// tgkill's and rt_tgsigqueueinfo's `tgid` and `tid`: both positive.
///
/// # Errors
/// `EINVAL`: `tgid <= 0` or `tid <= 0`.
///
/// # Linux
/// `sys_tgkill()`, `do_rt_tgsigqueueinfo()`.
pub fn tgkill_ids(tgid: i32, tid: i32) -> Result<()> {
    if tgid <= 0 || tid <= 0 {
        return Err(Errno::EINVAL);
    }
    Ok(())
}

/// tkill's `tid`: positive.
///
/// # Errors
/// `EINVAL`: `tid <= 0`.
///
/// # Linux
/// `sys_tkill()`.
pub fn tkill_tid(tid: i32) -> Result<()> {
    if tid <= 0 {
        return Err(Errno::EINVAL);
    }
    Ok(())
}

/// rt_sigprocmask's `how`, when a set is given: `SIG_BLOCK`,
/// `SIG_UNBLOCK` or `SIG_SETMASK`.
///
/// # Errors
/// `EINVAL`: any other value.
///
/// # Linux
/// `sigprocmask()`.
pub fn sigprocmask_how(how: i32) -> Result<i32> {
    match how {
        SIG_BLOCK | SIG_UNBLOCK | SIG_SETMASK => Ok(how),
        _ => Err(Errno::EINVAL),
    }
}

/// `prctl(PR_SET_PDEATHSIG, sig)`'s signal: 0 (none) or a signal.
///
/// # Errors
/// `EINVAL`: `sig` outside 0..=64.
///
/// # Linux
/// `prctl()` PR_SET_PDEATHSIG (`valid_signal()`).
pub fn pdeathsig_sig(sig: i32) -> Result<i32> {
    if !(0..=NSIG).contains(&sig) {
        return Err(Errno::EINVAL);
    }
    Ok(sig)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uapi::{SIGKILL, SIGSTOP, SIGTERM};

    #[test]
    fn sigaction_reads_but_never_sets_kill_and_stop() {
        assert_eq!(sigaction_sig(SIGKILL, false), Ok(()));
        assert_eq!(sigaction_sig(SIGSTOP, true), Err(Errno::EINVAL));
        assert_eq!(sigaction_sig(SIGTERM, true), Ok(()));
        assert_eq!(sigaction_sig(0, false), Err(Errno::EINVAL));
        assert_eq!(sigaction_sig(65, false), Err(Errno::EINVAL));
    }

    #[test]
    fn sigprocmask_knows_three_hows_and_pdeathsig_takes_0_to_64() {
        assert_eq!(sigprocmask_how(SIG_SETMASK), Ok(SIG_SETMASK));
        assert_eq!(sigprocmask_how(3), Err(Errno::EINVAL));
        assert_eq!(sigprocmask_how(-1), Err(Errno::EINVAL));
        assert_eq!(pdeathsig_sig(0), Ok(0));
        assert_eq!(pdeathsig_sig(64), Ok(64));
        assert_eq!(pdeathsig_sig(65), Err(Errno::EINVAL));
        assert_eq!(pdeathsig_sig(-1), Err(Errno::EINVAL));
    }

    #[test]
    fn thread_ids_must_be_positive() {
        assert_eq!(tgkill_ids(1, 0), Err(Errno::EINVAL));
        assert_eq!(tgkill_ids(0, 1), Err(Errno::EINVAL));
        assert_eq!(tgkill_ids(1, 1), Ok(()));
        assert_eq!(tkill_tid(-1), Err(Errno::EINVAL));
        assert_eq!(tkill_tid(7), Ok(()));
    }
}
