//! The argument rules of the process-attribute calls: `PR_SET_DUMPABLE`'s
//! value, `prlimit64`'s resource and new limit, and the ptrace options.
//!
//! # Linux
//! kernel/sys.c: `prctl()` PR_SET_DUMPABLE, `do_prlimit()`;
//! kernel/ptrace.c: `ptrace_attach()`, `ptrace_setoptions()`.

use crate::errno::{Errno, Result};
use crate::uapi::{NR_OPEN, PTRACE_O_MASK, RLIMIT_NOFILE, RLIM_NLIMITS};

/// `prctl(PR_SET_DUMPABLE, arg)`'s value: 0 (`SUID_DUMP_DISABLE`) or 1
/// (`SUID_DUMP_USER`); 2, `SUID_DUMP_ROOT`, is only for the
/// `suid_dumpable` sysctl. Returns whether the address space is dumpable.
///
/// # Errors
/// `EINVAL`: `arg > 1`.
///
/// # Linux
/// `prctl()` PR_SET_DUMPABLE.
pub fn dumpable_arg(arg: u64) -> Result<bool> {
    match arg {
        0 | 1 => Ok(arg == 1),
        _ => Err(Errno::EINVAL),
    }
}

/// `prlimit64(pid, resource, new, old)`'s resource and new limit
/// (`(rlim_cur, rlim_max)`, if given), once the target is found and may be
/// changed: returns the resource's index.
///
/// # Errors
/// - `EINVAL`: `resource >= RLIM_NLIMITS`; `rlim_cur > rlim_max`.
/// - `EPERM`: a `RLIMIT_NOFILE` maximum over `NR_OPEN` (`fs.nr_open`'s
///   default, 1,048,576).
///
/// # Linux
/// `do_prlimit()`, before its capability check.
pub fn rlimit_args(resource: u32, new: Option<(u64, u64)>) -> Result<usize> {
    let r = resource as usize;
    if r >= RLIM_NLIMITS {
        return Err(Errno::EINVAL);
    }
    if let Some((cur, max)) = new {
        if cur > max {
            return Err(Errno::EINVAL);
        }
        if resource == RLIMIT_NOFILE && max > NR_OPEN {
            return Err(Errno::EPERM);
        }
    }
    Ok(r)
}

/// The ptrace options of `PTRACE_SEIZE` (`seize`) or `PTRACE_SETOPTIONS`:
/// bits of [`PTRACE_O_MASK`] only.
///
/// # Errors
/// Another bit: `EIO` for `PTRACE_SEIZE` (checked before the target is
/// looked up), `EINVAL` for `PTRACE_SETOPTIONS` (once the tracee is found
/// in a stop).
///
/// # Linux
/// `ptrace_attach()` (`flags & ~PTRACE_O_MASK`), `ptrace_setoptions()`.
pub fn ptrace_options(options: u32, seize: bool) -> Result<u32> {
    if options & !PTRACE_O_MASK != 0 {
        return Err(if seize { Errno::EIO } else { Errno::EINVAL });
    }
    Ok(options)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ptrace_options_refused_with_eio_at_seize_einval_after() {
        use crate::uapi::{PTRACE_O_EXITKILL, PTRACE_O_TRACECLONE};
        let ok = PTRACE_O_EXITKILL | PTRACE_O_TRACECLONE;
        assert_eq!(ptrace_options(ok, true), Ok(ok));
        assert_eq!(ptrace_options(1 << 8, true), Err(Errno::EIO));
        assert_eq!(ptrace_options(1 << 8, false), Err(Errno::EINVAL));
    }

    #[test]
    fn dumpable_is_0_or_1() {
        assert_eq!(dumpable_arg(0), Ok(false));
        assert_eq!(dumpable_arg(1), Ok(true));
        assert_eq!(dumpable_arg(2), Err(Errno::EINVAL));
    }

    #[test]
    fn rlimit_resource_then_order_then_nr_open() {
        assert_eq!(rlimit_args(16, None), Err(Errno::EINVAL));
        assert_eq!(rlimit_args(RLIMIT_NOFILE, Some((2, 1))), Err(Errno::EINVAL));
        let over = NR_OPEN + 1;
        assert_eq!(
            rlimit_args(RLIMIT_NOFILE, Some((1, over))),
            Err(Errno::EPERM)
        );
        assert_eq!(rlimit_args(0, Some((1, over))), Ok(0));
        assert_eq!(rlimit_args(RLIMIT_NOFILE, None), Ok(RLIMIT_NOFILE as usize));
    }
}
