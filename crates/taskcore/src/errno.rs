//! Linux error numbers.
//!
//! Every fallible operation of the crate returns [`Result<T>`], whose error is
//! an [`Errno`] carrying the number Linux's syscall would return (negated in
//! the kernel, positive here). Outcomes that are not errors, such as "a wait
//! would block", have their own types and are never encoded as an errno.
//!
//! # Linux
//! Numbers from `include/uapi/asm-generic/errno-base.h` and `errno.h`
//! (x86_64 and the generic table agree on every value here).

use core::fmt;

/// A Linux error number.
///
/// The discriminant is the positive errno value; [`Errno::as_i32`] returns it
/// and [`Errno::from_i32`] maps it back.
///
/// # Linux
/// Mirrors the `E*` constants of `include/uapi/asm-generic/errno*.h`.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Errno {
    /// Operation not permitted.
    EPERM = 1,
    /// No such file or directory.
    ENOENT = 2,
    /// No such process.
    ESRCH = 3,
    /// Interrupted system call.
    EINTR = 4,
    /// I/O error.
    EIO = 5,
    /// No such device or address.
    ENXIO = 6,
    /// Argument list too long.
    E2BIG = 7,
    /// Exec format error.
    ENOEXEC = 8,
    /// Bad file number.
    EBADF = 9,
    /// No child processes.
    ECHILD = 10,
    /// Try again (also `EWOULDBLOCK`).
    EAGAIN = 11,
    /// Out of memory.
    ENOMEM = 12,
    /// Permission denied.
    EACCES = 13,
    /// Bad address.
    EFAULT = 14,
    /// Device or resource busy.
    EBUSY = 16,
    /// File exists.
    EEXIST = 17,
    /// Not a directory.
    ENOTDIR = 20,
    /// Is a directory.
    EISDIR = 21,
    /// Invalid argument.
    EINVAL = 22,
    /// File table overflow.
    ENFILE = 23,
    /// Too many open files.
    EMFILE = 24,
    /// No space left on device.
    ENOSPC = 28,
    /// Math result not representable.
    ERANGE = 34,
    /// Function not implemented.
    ENOSYS = 38,
    /// Value too large for defined data type.
    EOVERFLOW = 75,
    /// Operation not supported.
    EOPNOTSUPP = 95,
}

/// The crate's result type: `Ok(T)` or a Linux [`Errno`].
pub type Result<T> = core::result::Result<T, Errno>;

/// All variants, in numeric order (used by the name and number lookups).
const ALL: [Errno; 26] = [
    Errno::EPERM,
    Errno::ENOENT,
    Errno::ESRCH,
    Errno::EINTR,
    Errno::EIO,
    Errno::ENXIO,
    Errno::E2BIG,
    Errno::ENOEXEC,
    Errno::EBADF,
    Errno::ECHILD,
    Errno::EAGAIN,
    Errno::ENOMEM,
    Errno::EACCES,
    Errno::EFAULT,
    Errno::EBUSY,
    Errno::EEXIST,
    Errno::ENOTDIR,
    Errno::EISDIR,
    Errno::EINVAL,
    Errno::ENFILE,
    Errno::EMFILE,
    Errno::ENOSPC,
    Errno::ERANGE,
    Errno::ENOSYS,
    Errno::EOVERFLOW,
    Errno::EOPNOTSUPP,
];

impl Errno {
    /// The positive errno number, e.g. 10 for `ECHILD`.
    pub const fn as_i32(self) -> i32 {
        self as i32
    }

    /// The errno with number `n` (positive), or `None` if this crate does not
    /// model it.
    pub fn from_i32(n: i32) -> Option<Errno> {
        ALL.iter().copied().find(|e| e.as_i32() == n)
    }

    /// The symbolic name as strace and `errno(3)` print it, e.g. `"ECHILD"`.
    pub fn name(self) -> &'static str {
        match self {
            Errno::EPERM => "EPERM",
            Errno::ENOENT => "ENOENT",
            Errno::ESRCH => "ESRCH",
            Errno::EINTR => "EINTR",
            Errno::EIO => "EIO",
            Errno::ENXIO => "ENXIO",
            Errno::E2BIG => "E2BIG",
            Errno::ENOEXEC => "ENOEXEC",
            Errno::EBADF => "EBADF",
            Errno::ECHILD => "ECHILD",
            Errno::EAGAIN => "EAGAIN",
            Errno::ENOMEM => "ENOMEM",
            Errno::EACCES => "EACCES",
            Errno::EFAULT => "EFAULT",
            Errno::EBUSY => "EBUSY",
            Errno::EEXIST => "EEXIST",
            Errno::ENOTDIR => "ENOTDIR",
            Errno::EISDIR => "EISDIR",
            Errno::EINVAL => "EINVAL",
            Errno::ENFILE => "ENFILE",
            Errno::EMFILE => "EMFILE",
            Errno::ENOSPC => "ENOSPC",
            Errno::ERANGE => "ERANGE",
            Errno::ENOSYS => "ENOSYS",
            Errno::EOVERFLOW => "EOVERFLOW",
            Errno::EOPNOTSUPP => "EOPNOTSUPP",
        }
    }

    /// The errno named `name` (as strace prints it), or `None` if unknown.
    /// `EWOULDBLOCK` is accepted as an alias of `EAGAIN`.
    pub fn from_name(name: &str) -> Option<Errno> {
        if name == "EWOULDBLOCK" {
            return Some(Errno::EAGAIN);
        }
        ALL.iter().copied().find(|e| e.name() == name)
    }
}

impl fmt::Display for Errno {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.name(), self.as_i32())
    }
}

impl std::error::Error for Errno {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_names_round_trip() {
        for e in ALL {
            assert_eq!(Errno::from_i32(e.as_i32()), Some(e));
            assert_eq!(Errno::from_name(e.name()), Some(e));
        }
        assert_eq!(Errno::ECHILD.as_i32(), 10);
        assert_eq!(Errno::EAGAIN.as_i32(), 11);
        assert_eq!(Errno::from_name("EWOULDBLOCK"), Some(Errno::EAGAIN));
        assert_eq!(Errno::from_name("ENOTANERRNO"), None);
        assert_eq!(Errno::from_i32(0), None);
    }

    #[test]
    fn all_is_sorted_and_unique() {
        assert!(ALL.windows(2).all(|w| w[0].as_i32() < w[1].as_i32()));
    }
}
