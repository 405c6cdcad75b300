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
#[non_exhaustive]
pub enum Errno {
    /// Operation not permitted.
    EPERM = 1,
    /// No such file or directory.
    ENOENT = 2,
    /// No such process.
    ESRCH = 3,
    /// Interrupted system call.
    EINTR = 4,
    /// Input/output error.
    EIO = 5,
    /// No such device or address.
    ENXIO = 6,
    /// Argument list too long.
    E2BIG = 7,
    /// Exec format error.
    ENOEXEC = 8,
    /// Bad file descriptor.
    EBADF = 9,
    /// No child processes.
    ECHILD = 10,
    /// Resource temporarily unavailable.
    EAGAIN = 11,
    /// Cannot allocate memory.
    ENOMEM = 12,
    /// Permission denied.
    EACCES = 13,
    /// Bad address.
    EFAULT = 14,
    /// Block device required.
    ENOTBLK = 15,
    /// Device or resource busy.
    EBUSY = 16,
    /// File exists.
    EEXIST = 17,
    /// Invalid cross-device link.
    EXDEV = 18,
    /// No such device.
    ENODEV = 19,
    /// Not a directory.
    ENOTDIR = 20,
    /// Is a directory.
    EISDIR = 21,
    /// Invalid argument.
    EINVAL = 22,
    /// Too many open files in system.
    ENFILE = 23,
    /// Too many open files.
    EMFILE = 24,
    /// Inappropriate ioctl for device.
    ENOTTY = 25,
    /// Text file busy.
    ETXTBSY = 26,
    /// File too large.
    EFBIG = 27,
    /// No space left on device.
    ENOSPC = 28,
    /// Illegal seek.
    ESPIPE = 29,
    /// Read-only file system.
    EROFS = 30,
    /// Too many links.
    EMLINK = 31,
    /// Broken pipe.
    EPIPE = 32,
    /// Numerical argument out of domain.
    EDOM = 33,
    /// Numerical result out of range.
    ERANGE = 34,
    /// Resource deadlock avoided.
    EDEADLK = 35,
    /// File name too long.
    ENAMETOOLONG = 36,
    /// No locks available.
    ENOLCK = 37,
    /// Function not implemented.
    ENOSYS = 38,
    /// Directory not empty.
    ENOTEMPTY = 39,
    /// Too many levels of symbolic links.
    ELOOP = 40,
    /// No message of desired type.
    ENOMSG = 42,
    /// Identifier removed.
    EIDRM = 43,
    /// Channel number out of range.
    ECHRNG = 44,
    /// Level 2 not synchronized.
    EL2NSYNC = 45,
    /// Level 3 halted.
    EL3HLT = 46,
    /// Level 3 reset.
    EL3RST = 47,
    /// Link number out of range.
    ELNRNG = 48,
    /// Protocol driver not attached.
    EUNATCH = 49,
    /// No CSI structure available.
    ENOCSI = 50,
    /// Level 2 halted.
    EL2HLT = 51,
    /// Invalid exchange.
    EBADE = 52,
    /// Invalid request descriptor.
    EBADR = 53,
    /// Exchange full.
    EXFULL = 54,
    /// No anode.
    ENOANO = 55,
    /// Invalid request code.
    EBADRQC = 56,
    /// Invalid slot.
    EBADSLT = 57,
    /// Bad font file format.
    EBFONT = 59,
    /// Device not a stream.
    ENOSTR = 60,
    /// No data available.
    ENODATA = 61,
    /// Timer expired.
    ETIME = 62,
    /// Out of streams resources.
    ENOSR = 63,
    /// Machine is not on the network.
    ENONET = 64,
    /// Package not installed.
    ENOPKG = 65,
    /// Object is remote.
    EREMOTE = 66,
    /// Link has been severed.
    ENOLINK = 67,
    /// Advertise error.
    EADV = 68,
    /// Srmount error.
    ESRMNT = 69,
    /// Communication error on send.
    ECOMM = 70,
    /// Protocol error.
    EPROTO = 71,
    /// Multihop attempted.
    EMULTIHOP = 72,
    /// RFS specific error.
    EDOTDOT = 73,
    /// Bad message.
    EBADMSG = 74,
    /// Value too large for defined data type.
    EOVERFLOW = 75,
    /// Name not unique on network.
    ENOTUNIQ = 76,
    /// File descriptor in bad state.
    EBADFD = 77,
    /// Remote address changed.
    EREMCHG = 78,
    /// Can not access a needed shared library.
    ELIBACC = 79,
    /// Accessing a corrupted shared library.
    ELIBBAD = 80,
    /// .lib section in a.out corrupted.
    ELIBSCN = 81,
    /// Attempting to link in too many shared libraries.
    ELIBMAX = 82,
    /// Cannot exec a shared library directly.
    ELIBEXEC = 83,
    /// Invalid or incomplete multibyte or wide character.
    EILSEQ = 84,
    /// Interrupted system call should be restarted.
    ERESTART = 85,
    /// Streams pipe error.
    ESTRPIPE = 86,
    /// Too many users.
    EUSERS = 87,
    /// Socket operation on non-socket.
    ENOTSOCK = 88,
    /// Destination address required.
    EDESTADDRREQ = 89,
    /// Message too long.
    EMSGSIZE = 90,
    /// Protocol wrong type for socket.
    EPROTOTYPE = 91,
    /// Protocol not available.
    ENOPROTOOPT = 92,
    /// Protocol not supported.
    EPROTONOSUPPORT = 93,
    /// Socket type not supported.
    ESOCKTNOSUPPORT = 94,
    /// Operation not supported.
    EOPNOTSUPP = 95,
    /// Protocol family not supported.
    EPFNOSUPPORT = 96,
    /// Address family not supported by protocol.
    EAFNOSUPPORT = 97,
    /// Address already in use.
    EADDRINUSE = 98,
    /// Cannot assign requested address.
    EADDRNOTAVAIL = 99,
    /// Network is down.
    ENETDOWN = 100,
    /// Network is unreachable.
    ENETUNREACH = 101,
    /// Network dropped connection on reset.
    ENETRESET = 102,
    /// Software caused connection abort.
    ECONNABORTED = 103,
    /// Connection reset by peer.
    ECONNRESET = 104,
    /// No buffer space available.
    ENOBUFS = 105,
    /// Transport endpoint is already connected.
    EISCONN = 106,
    /// Transport endpoint is not connected.
    ENOTCONN = 107,
    /// Cannot send after transport endpoint shutdown.
    ESHUTDOWN = 108,
    /// Too many references: cannot splice.
    ETOOMANYREFS = 109,
    /// Connection timed out.
    ETIMEDOUT = 110,
    /// Connection refused.
    ECONNREFUSED = 111,
    /// Host is down.
    EHOSTDOWN = 112,
    /// No route to host.
    EHOSTUNREACH = 113,
    /// Operation already in progress.
    EALREADY = 114,
    /// Operation now in progress.
    EINPROGRESS = 115,
    /// Stale file handle.
    ESTALE = 116,
    /// Structure needs cleaning.
    EUCLEAN = 117,
    /// Not a XENIX named type file.
    ENOTNAM = 118,
    /// No XENIX semaphores available.
    ENAVAIL = 119,
    /// Is a named type file.
    EISNAM = 120,
    /// Remote I/O error.
    EREMOTEIO = 121,
    /// Disk quota exceeded.
    EDQUOT = 122,
    /// No medium found.
    ENOMEDIUM = 123,
    /// Wrong medium type.
    EMEDIUMTYPE = 124,
    /// Operation canceled.
    ECANCELED = 125,
    /// Required key not available.
    ENOKEY = 126,
    /// Key has expired.
    EKEYEXPIRED = 127,
    /// Key has been revoked.
    EKEYREVOKED = 128,
    /// Key was rejected by service.
    EKEYREJECTED = 129,
    /// Owner died.
    EOWNERDEAD = 130,
    /// State not recoverable.
    ENOTRECOVERABLE = 131,
    /// Operation not possible due to RF-kill.
    ERFKILL = 132,
    /// Memory page has hardware error.
    EHWPOISON = 133,
}

/// The crate's result type: `Ok(T)` or a Linux [`Errno`].
pub type Result<T> = core::result::Result<T, Errno>;

/// All variants, in numeric order (used by the name and number lookups).
const ALL: [Errno; 131] = [
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
    Errno::ENOTBLK,
    Errno::EBUSY,
    Errno::EEXIST,
    Errno::EXDEV,
    Errno::ENODEV,
    Errno::ENOTDIR,
    Errno::EISDIR,
    Errno::EINVAL,
    Errno::ENFILE,
    Errno::EMFILE,
    Errno::ENOTTY,
    Errno::ETXTBSY,
    Errno::EFBIG,
    Errno::ENOSPC,
    Errno::ESPIPE,
    Errno::EROFS,
    Errno::EMLINK,
    Errno::EPIPE,
    Errno::EDOM,
    Errno::ERANGE,
    Errno::EDEADLK,
    Errno::ENAMETOOLONG,
    Errno::ENOLCK,
    Errno::ENOSYS,
    Errno::ENOTEMPTY,
    Errno::ELOOP,
    Errno::ENOMSG,
    Errno::EIDRM,
    Errno::ECHRNG,
    Errno::EL2NSYNC,
    Errno::EL3HLT,
    Errno::EL3RST,
    Errno::ELNRNG,
    Errno::EUNATCH,
    Errno::ENOCSI,
    Errno::EL2HLT,
    Errno::EBADE,
    Errno::EBADR,
    Errno::EXFULL,
    Errno::ENOANO,
    Errno::EBADRQC,
    Errno::EBADSLT,
    Errno::EBFONT,
    Errno::ENOSTR,
    Errno::ENODATA,
    Errno::ETIME,
    Errno::ENOSR,
    Errno::ENONET,
    Errno::ENOPKG,
    Errno::EREMOTE,
    Errno::ENOLINK,
    Errno::EADV,
    Errno::ESRMNT,
    Errno::ECOMM,
    Errno::EPROTO,
    Errno::EMULTIHOP,
    Errno::EDOTDOT,
    Errno::EBADMSG,
    Errno::EOVERFLOW,
    Errno::ENOTUNIQ,
    Errno::EBADFD,
    Errno::EREMCHG,
    Errno::ELIBACC,
    Errno::ELIBBAD,
    Errno::ELIBSCN,
    Errno::ELIBMAX,
    Errno::ELIBEXEC,
    Errno::EILSEQ,
    Errno::ERESTART,
    Errno::ESTRPIPE,
    Errno::EUSERS,
    Errno::ENOTSOCK,
    Errno::EDESTADDRREQ,
    Errno::EMSGSIZE,
    Errno::EPROTOTYPE,
    Errno::ENOPROTOOPT,
    Errno::EPROTONOSUPPORT,
    Errno::ESOCKTNOSUPPORT,
    Errno::EOPNOTSUPP,
    Errno::EPFNOSUPPORT,
    Errno::EAFNOSUPPORT,
    Errno::EADDRINUSE,
    Errno::EADDRNOTAVAIL,
    Errno::ENETDOWN,
    Errno::ENETUNREACH,
    Errno::ENETRESET,
    Errno::ECONNABORTED,
    Errno::ECONNRESET,
    Errno::ENOBUFS,
    Errno::EISCONN,
    Errno::ENOTCONN,
    Errno::ESHUTDOWN,
    Errno::ETOOMANYREFS,
    Errno::ETIMEDOUT,
    Errno::ECONNREFUSED,
    Errno::EHOSTDOWN,
    Errno::EHOSTUNREACH,
    Errno::EALREADY,
    Errno::EINPROGRESS,
    Errno::ESTALE,
    Errno::EUCLEAN,
    Errno::ENOTNAM,
    Errno::ENAVAIL,
    Errno::EISNAM,
    Errno::EREMOTEIO,
    Errno::EDQUOT,
    Errno::ENOMEDIUM,
    Errno::EMEDIUMTYPE,
    Errno::ECANCELED,
    Errno::ENOKEY,
    Errno::EKEYEXPIRED,
    Errno::EKEYREVOKED,
    Errno::EKEYREJECTED,
    Errno::EOWNERDEAD,
    Errno::ENOTRECOVERABLE,
    Errno::ERFKILL,
    Errno::EHWPOISON,
];

impl Errno {
    /// The positive errno number, e.g. 10 for `ECHILD`.
    pub const fn as_i32(self) -> i32 {
        self as i32
    }

    /// The errno with number `n` (positive), or `None` for a number Linux
    /// gives no name (0, 41, 58, above 133).
    pub fn from_i32(n: i32) -> Option<Errno> {
        ALL.binary_search_by_key(&n, |e| e.as_i32())
            .ok()
            .map(|i| ALL[i])
    }

    /// The symbolic name as strace and `errno(3)` print it, e.g. `"ECHILD"`
    /// (glibc's `strerrorname_np`).
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
            Errno::ENOTBLK => "ENOTBLK",
            Errno::EBUSY => "EBUSY",
            Errno::EEXIST => "EEXIST",
            Errno::EXDEV => "EXDEV",
            Errno::ENODEV => "ENODEV",
            Errno::ENOTDIR => "ENOTDIR",
            Errno::EISDIR => "EISDIR",
            Errno::EINVAL => "EINVAL",
            Errno::ENFILE => "ENFILE",
            Errno::EMFILE => "EMFILE",
            Errno::ENOTTY => "ENOTTY",
            Errno::ETXTBSY => "ETXTBSY",
            Errno::EFBIG => "EFBIG",
            Errno::ENOSPC => "ENOSPC",
            Errno::ESPIPE => "ESPIPE",
            Errno::EROFS => "EROFS",
            Errno::EMLINK => "EMLINK",
            Errno::EPIPE => "EPIPE",
            Errno::EDOM => "EDOM",
            Errno::ERANGE => "ERANGE",
            Errno::EDEADLK => "EDEADLK",
            Errno::ENAMETOOLONG => "ENAMETOOLONG",
            Errno::ENOLCK => "ENOLCK",
            Errno::ENOSYS => "ENOSYS",
            Errno::ENOTEMPTY => "ENOTEMPTY",
            Errno::ELOOP => "ELOOP",
            Errno::ENOMSG => "ENOMSG",
            Errno::EIDRM => "EIDRM",
            Errno::ECHRNG => "ECHRNG",
            Errno::EL2NSYNC => "EL2NSYNC",
            Errno::EL3HLT => "EL3HLT",
            Errno::EL3RST => "EL3RST",
            Errno::ELNRNG => "ELNRNG",
            Errno::EUNATCH => "EUNATCH",
            Errno::ENOCSI => "ENOCSI",
            Errno::EL2HLT => "EL2HLT",
            Errno::EBADE => "EBADE",
            Errno::EBADR => "EBADR",
            Errno::EXFULL => "EXFULL",
            Errno::ENOANO => "ENOANO",
            Errno::EBADRQC => "EBADRQC",
            Errno::EBADSLT => "EBADSLT",
            Errno::EBFONT => "EBFONT",
            Errno::ENOSTR => "ENOSTR",
            Errno::ENODATA => "ENODATA",
            Errno::ETIME => "ETIME",
            Errno::ENOSR => "ENOSR",
            Errno::ENONET => "ENONET",
            Errno::ENOPKG => "ENOPKG",
            Errno::EREMOTE => "EREMOTE",
            Errno::ENOLINK => "ENOLINK",
            Errno::EADV => "EADV",
            Errno::ESRMNT => "ESRMNT",
            Errno::ECOMM => "ECOMM",
            Errno::EPROTO => "EPROTO",
            Errno::EMULTIHOP => "EMULTIHOP",
            Errno::EDOTDOT => "EDOTDOT",
            Errno::EBADMSG => "EBADMSG",
            Errno::EOVERFLOW => "EOVERFLOW",
            Errno::ENOTUNIQ => "ENOTUNIQ",
            Errno::EBADFD => "EBADFD",
            Errno::EREMCHG => "EREMCHG",
            Errno::ELIBACC => "ELIBACC",
            Errno::ELIBBAD => "ELIBBAD",
            Errno::ELIBSCN => "ELIBSCN",
            Errno::ELIBMAX => "ELIBMAX",
            Errno::ELIBEXEC => "ELIBEXEC",
            Errno::EILSEQ => "EILSEQ",
            Errno::ERESTART => "ERESTART",
            Errno::ESTRPIPE => "ESTRPIPE",
            Errno::EUSERS => "EUSERS",
            Errno::ENOTSOCK => "ENOTSOCK",
            Errno::EDESTADDRREQ => "EDESTADDRREQ",
            Errno::EMSGSIZE => "EMSGSIZE",
            Errno::EPROTOTYPE => "EPROTOTYPE",
            Errno::ENOPROTOOPT => "ENOPROTOOPT",
            Errno::EPROTONOSUPPORT => "EPROTONOSUPPORT",
            Errno::ESOCKTNOSUPPORT => "ESOCKTNOSUPPORT",
            Errno::EOPNOTSUPP => "EOPNOTSUPP",
            Errno::EPFNOSUPPORT => "EPFNOSUPPORT",
            Errno::EAFNOSUPPORT => "EAFNOSUPPORT",
            Errno::EADDRINUSE => "EADDRINUSE",
            Errno::EADDRNOTAVAIL => "EADDRNOTAVAIL",
            Errno::ENETDOWN => "ENETDOWN",
            Errno::ENETUNREACH => "ENETUNREACH",
            Errno::ENETRESET => "ENETRESET",
            Errno::ECONNABORTED => "ECONNABORTED",
            Errno::ECONNRESET => "ECONNRESET",
            Errno::ENOBUFS => "ENOBUFS",
            Errno::EISCONN => "EISCONN",
            Errno::ENOTCONN => "ENOTCONN",
            Errno::ESHUTDOWN => "ESHUTDOWN",
            Errno::ETOOMANYREFS => "ETOOMANYREFS",
            Errno::ETIMEDOUT => "ETIMEDOUT",
            Errno::ECONNREFUSED => "ECONNREFUSED",
            Errno::EHOSTDOWN => "EHOSTDOWN",
            Errno::EHOSTUNREACH => "EHOSTUNREACH",
            Errno::EALREADY => "EALREADY",
            Errno::EINPROGRESS => "EINPROGRESS",
            Errno::ESTALE => "ESTALE",
            Errno::EUCLEAN => "EUCLEAN",
            Errno::ENOTNAM => "ENOTNAM",
            Errno::ENAVAIL => "ENAVAIL",
            Errno::EISNAM => "EISNAM",
            Errno::EREMOTEIO => "EREMOTEIO",
            Errno::EDQUOT => "EDQUOT",
            Errno::ENOMEDIUM => "ENOMEDIUM",
            Errno::EMEDIUMTYPE => "EMEDIUMTYPE",
            Errno::ECANCELED => "ECANCELED",
            Errno::ENOKEY => "ENOKEY",
            Errno::EKEYEXPIRED => "EKEYEXPIRED",
            Errno::EKEYREVOKED => "EKEYREVOKED",
            Errno::EKEYREJECTED => "EKEYREJECTED",
            Errno::EOWNERDEAD => "EOWNERDEAD",
            Errno::ENOTRECOVERABLE => "ENOTRECOVERABLE",
            Errno::ERFKILL => "ERFKILL",
            Errno::EHWPOISON => "EHWPOISON",
        }
    }

    /// The message `strerror(3)` gives, e.g. `"No child processes"`.
    pub fn message(self) -> &'static str {
        match self {
            Errno::EPERM => "Operation not permitted",
            Errno::ENOENT => "No such file or directory",
            Errno::ESRCH => "No such process",
            Errno::EINTR => "Interrupted system call",
            Errno::EIO => "Input/output error",
            Errno::ENXIO => "No such device or address",
            Errno::E2BIG => "Argument list too long",
            Errno::ENOEXEC => "Exec format error",
            Errno::EBADF => "Bad file descriptor",
            Errno::ECHILD => "No child processes",
            Errno::EAGAIN => "Resource temporarily unavailable",
            Errno::ENOMEM => "Cannot allocate memory",
            Errno::EACCES => "Permission denied",
            Errno::EFAULT => "Bad address",
            Errno::ENOTBLK => "Block device required",
            Errno::EBUSY => "Device or resource busy",
            Errno::EEXIST => "File exists",
            Errno::EXDEV => "Invalid cross-device link",
            Errno::ENODEV => "No such device",
            Errno::ENOTDIR => "Not a directory",
            Errno::EISDIR => "Is a directory",
            Errno::EINVAL => "Invalid argument",
            Errno::ENFILE => "Too many open files in system",
            Errno::EMFILE => "Too many open files",
            Errno::ENOTTY => "Inappropriate ioctl for device",
            Errno::ETXTBSY => "Text file busy",
            Errno::EFBIG => "File too large",
            Errno::ENOSPC => "No space left on device",
            Errno::ESPIPE => "Illegal seek",
            Errno::EROFS => "Read-only file system",
            Errno::EMLINK => "Too many links",
            Errno::EPIPE => "Broken pipe",
            Errno::EDOM => "Numerical argument out of domain",
            Errno::ERANGE => "Numerical result out of range",
            Errno::EDEADLK => "Resource deadlock avoided",
            Errno::ENAMETOOLONG => "File name too long",
            Errno::ENOLCK => "No locks available",
            Errno::ENOSYS => "Function not implemented",
            Errno::ENOTEMPTY => "Directory not empty",
            Errno::ELOOP => "Too many levels of symbolic links",
            Errno::ENOMSG => "No message of desired type",
            Errno::EIDRM => "Identifier removed",
            Errno::ECHRNG => "Channel number out of range",
            Errno::EL2NSYNC => "Level 2 not synchronized",
            Errno::EL3HLT => "Level 3 halted",
            Errno::EL3RST => "Level 3 reset",
            Errno::ELNRNG => "Link number out of range",
            Errno::EUNATCH => "Protocol driver not attached",
            Errno::ENOCSI => "No CSI structure available",
            Errno::EL2HLT => "Level 2 halted",
            Errno::EBADE => "Invalid exchange",
            Errno::EBADR => "Invalid request descriptor",
            Errno::EXFULL => "Exchange full",
            Errno::ENOANO => "No anode",
            Errno::EBADRQC => "Invalid request code",
            Errno::EBADSLT => "Invalid slot",
            Errno::EBFONT => "Bad font file format",
            Errno::ENOSTR => "Device not a stream",
            Errno::ENODATA => "No data available",
            Errno::ETIME => "Timer expired",
            Errno::ENOSR => "Out of streams resources",
            Errno::ENONET => "Machine is not on the network",
            Errno::ENOPKG => "Package not installed",
            Errno::EREMOTE => "Object is remote",
            Errno::ENOLINK => "Link has been severed",
            Errno::EADV => "Advertise error",
            Errno::ESRMNT => "Srmount error",
            Errno::ECOMM => "Communication error on send",
            Errno::EPROTO => "Protocol error",
            Errno::EMULTIHOP => "Multihop attempted",
            Errno::EDOTDOT => "RFS specific error",
            Errno::EBADMSG => "Bad message",
            Errno::EOVERFLOW => "Value too large for defined data type",
            Errno::ENOTUNIQ => "Name not unique on network",
            Errno::EBADFD => "File descriptor in bad state",
            Errno::EREMCHG => "Remote address changed",
            Errno::ELIBACC => "Can not access a needed shared library",
            Errno::ELIBBAD => "Accessing a corrupted shared library",
            Errno::ELIBSCN => ".lib section in a.out corrupted",
            Errno::ELIBMAX => "Attempting to link in too many shared libraries",
            Errno::ELIBEXEC => "Cannot exec a shared library directly",
            Errno::EILSEQ => "Invalid or incomplete multibyte or wide character",
            Errno::ERESTART => "Interrupted system call should be restarted",
            Errno::ESTRPIPE => "Streams pipe error",
            Errno::EUSERS => "Too many users",
            Errno::ENOTSOCK => "Socket operation on non-socket",
            Errno::EDESTADDRREQ => "Destination address required",
            Errno::EMSGSIZE => "Message too long",
            Errno::EPROTOTYPE => "Protocol wrong type for socket",
            Errno::ENOPROTOOPT => "Protocol not available",
            Errno::EPROTONOSUPPORT => "Protocol not supported",
            Errno::ESOCKTNOSUPPORT => "Socket type not supported",
            Errno::EOPNOTSUPP => "Operation not supported",
            Errno::EPFNOSUPPORT => "Protocol family not supported",
            Errno::EAFNOSUPPORT => "Address family not supported by protocol",
            Errno::EADDRINUSE => "Address already in use",
            Errno::EADDRNOTAVAIL => "Cannot assign requested address",
            Errno::ENETDOWN => "Network is down",
            Errno::ENETUNREACH => "Network is unreachable",
            Errno::ENETRESET => "Network dropped connection on reset",
            Errno::ECONNABORTED => "Software caused connection abort",
            Errno::ECONNRESET => "Connection reset by peer",
            Errno::ENOBUFS => "No buffer space available",
            Errno::EISCONN => "Transport endpoint is already connected",
            Errno::ENOTCONN => "Transport endpoint is not connected",
            Errno::ESHUTDOWN => "Cannot send after transport endpoint shutdown",
            Errno::ETOOMANYREFS => "Too many references: cannot splice",
            Errno::ETIMEDOUT => "Connection timed out",
            Errno::ECONNREFUSED => "Connection refused",
            Errno::EHOSTDOWN => "Host is down",
            Errno::EHOSTUNREACH => "No route to host",
            Errno::EALREADY => "Operation already in progress",
            Errno::EINPROGRESS => "Operation now in progress",
            Errno::ESTALE => "Stale file handle",
            Errno::EUCLEAN => "Structure needs cleaning",
            Errno::ENOTNAM => "Not a XENIX named type file",
            Errno::ENAVAIL => "No XENIX semaphores available",
            Errno::EISNAM => "Is a named type file",
            Errno::EREMOTEIO => "Remote I/O error",
            Errno::EDQUOT => "Disk quota exceeded",
            Errno::ENOMEDIUM => "No medium found",
            Errno::EMEDIUMTYPE => "Wrong medium type",
            Errno::ECANCELED => "Operation canceled",
            Errno::ENOKEY => "Required key not available",
            Errno::EKEYEXPIRED => "Key has expired",
            Errno::EKEYREVOKED => "Key has been revoked",
            Errno::EKEYREJECTED => "Key was rejected by service",
            Errno::EOWNERDEAD => "Owner died",
            Errno::ENOTRECOVERABLE => "State not recoverable",
            Errno::ERFKILL => "Operation not possible due to RF-kill",
            Errno::EHWPOISON => "Memory page has hardware error",
        }
    }

    /// The errno named `name` (as strace prints it), or `None` if unknown.
    /// The aliases `EWOULDBLOCK` (`EAGAIN`), `EDEADLOCK` (`EDEADLK`) and
    /// `ENOTSUP` (`EOPNOTSUPP`) are accepted.
    pub fn from_name(name: &str) -> Option<Errno> {
        match name {
            "EWOULDBLOCK" => return Some(Errno::EAGAIN),
            "EDEADLOCK" => return Some(Errno::EDEADLK),
            "ENOTSUP" => return Some(Errno::EOPNOTSUPP),
            _ => {}
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
