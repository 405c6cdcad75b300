//! [`FdTable`]: the caller's file descriptors, as the decoder resolves the
//! fd arguments of pidfd_send_signal(2), waitid(2) with `P_PIDFD` and
//! setns(2).

use crate::errno::{Errno, Result};
use crate::task::procapi::nsproxy::SetnsFd;
use crate::task::procapi::pidfd::PidFd;

/// The caller's file descriptor table, as the embedder keeps it: the
/// library has no file tables, only the open files it models
/// ([`PidFd`]s from [`Kernel::pidfd_open`](crate::Kernel::pidfd_open) and
/// `CLONE_PIDFD`, namespace files from
/// [`Kernel::ns_open`](crate::Kernel::ns_open)), which the embedder
/// numbers.
///
/// Both methods default to `EBADF`: a table with no such files.
///
/// # Linux
/// `fdget()` plus the file type checks of each call (`pidfd_pid()`,
/// `proc_ns_file()`).
pub trait FdTable {
    /// The pidfd numbered `fd`.
    ///
    /// # Errors
    /// `EBADF`: `fd` is not open or is not a pidfd (Linux's answer for
    /// both in pidfd_send_signal(2) and waitid(2)).
    fn pidfd(&self, fd: i32) -> Result<PidFd> {
        let _ = fd;
        Err(Errno::EBADF)
    }

    /// The namespace file or pidfd numbered `fd`, for setns(2).
    ///
    /// # Errors
    /// `EBADF`: `fd` is not open. `EINVAL`: it is open but neither a
    /// namespace file nor a pidfd (Linux's answer).
    fn setns_fd(&self, fd: i32) -> Result<SetnsFd> {
        let _ = fd;
        Err(Errno::EBADF)
    }
}

/// No open files: every fd is `EBADF` (what [`Syscall::from_raw`] and
/// [`Syscall::from_raw_with`] use).
///
/// [`Syscall::from_raw`]: super::Syscall::from_raw
/// [`Syscall::from_raw_with`]: super::Syscall::from_raw_with
#[derive(Clone, Copy, Debug, Default)]
pub struct NoFds;

impl FdTable for NoFds {}
