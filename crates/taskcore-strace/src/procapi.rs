//! Typed arguments of the pidfd, namespace, credential and resource-limit
//! calls (strace's `pidfd_open`, `pidfd_send_signal`, `unshare`, `setns`,
//! `%creds`, `prlimit64`/`setrlimit`/`getrlimit`), carried by
//! [`Call::ProcApi`](crate::Call::ProcApi).

use crate::siginfo::SigInfo;

/// A `struct rlimit`/`struct rlimit64` as strace printed it: soft and hard
/// limits, `RLIM64_INFINITY` (and `RLIM_INFINITY`) as `u64::MAX`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RlimitArg {
    /// `rlim_cur`.
    pub cur: u64,
    /// `rlim_max`.
    pub max: u64,
}

/// The three capability sets of capget/capset's data as strace printed
/// them (`{effective=1<<CAP_KILL|..., permitted=..., inheritable=0}`),
/// bit `n` for capability `n`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CapData {
    /// `effective`.
    pub effective: u64,
    /// `permitted`.
    pub permitted: u64,
    /// `inheritable`.
    pub inheritable: u64,
}

/// Which id a `get*id()` call returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdKind {
    /// getuid(): the real uid.
    Uid,
    /// geteuid(): the effective uid.
    Euid,
    /// getgid(): the real gid.
    Gid,
    /// getegid(): the effective gid.
    Egid,
}

/// One of the process-API calls beyond the lifecycle ones. Ids are Linux's
/// `u32` (strace's `-1` is `u32::MAX`, "leave unchanged").
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProcCall {
    /// pidfd_open(pid, flags): the result is the new fd.
    PidfdOpen {
        /// The process (or thread, with `PIDFD_THREAD`).
        pid: i32,
        /// `PIDFD_NONBLOCK` = 0o4000, `PIDFD_THREAD` = 0o200; unknown bits
        /// as printed (`0x3039 /* PIDFD_??? */` is 0x3039).
        flags: u32,
    },
    /// pidfd_send_signal(pidfd, sig, info, flags).
    PidfdSendSignal {
        /// The pidfd.
        pidfd: i32,
        /// The signal (0 checks only).
        sig: i32,
        /// The siginfo given; `None` for `NULL`.
        info: Option<SigInfo>,
        /// `PIDFD_SIGNAL_THREAD` = 1, `_THREAD_GROUP` = 2,
        /// `_PROCESS_GROUP` = 4.
        flags: u32,
    },
    /// unshare(flags): `CLONE_NEW*` bits and `CLONE_FILES`, ...
    Unshare {
        /// The `CLONE_*` bits.
        flags: u64,
    },
    /// setns(fd, nstype).
    Setns {
        /// A namespace file or a pidfd.
        fd: i32,
        /// `CLONE_NEW*` bits (0 for any).
        nstype: u64,
    },
    /// setuid(uid).
    Setuid {
        /// The uid.
        uid: u32,
    },
    /// setgid(gid).
    Setgid {
        /// The gid.
        gid: u32,
    },
    /// setreuid(ruid, euid).
    Setreuid {
        /// Real uid (`u32::MAX`: unchanged).
        ruid: u32,
        /// Effective uid.
        euid: u32,
    },
    /// setregid(rgid, egid).
    Setregid {
        /// Real gid.
        rgid: u32,
        /// Effective gid.
        egid: u32,
    },
    /// setresuid(ruid, euid, suid).
    Setresuid {
        /// Real, effective and saved uids.
        ids: [u32; 3],
    },
    /// setresgid(rgid, egid, sgid).
    Setresgid {
        /// Real, effective and saved gids.
        ids: [u32; 3],
    },
    /// setfsuid(uid): the result is the previous fsuid.
    Setfsuid {
        /// The uid.
        uid: u32,
    },
    /// setfsgid(gid): the result is the previous fsgid.
    Setfsgid {
        /// The gid.
        gid: u32,
    },
    /// setgroups(size, list).
    Setgroups {
        /// The size argument.
        size: i32,
        /// The groups strace read; `None` if it printed an address or
        /// elided elements.
        groups: Option<Vec<u32>>,
    },
    /// getuid(), geteuid(), getgid(), getegid(): the id is the result.
    GetId {
        /// Which id.
        which: IdKind,
    },
    /// getresuid(&r, &e, &s): the ids the kernel wrote, when printed.
    Getresuid {
        /// Real, effective, saved.
        ids: Option<[u32; 3]>,
    },
    /// getresgid(&r, &e, &s).
    Getresgid {
        /// Real, effective, saved.
        ids: Option<[u32; 3]>,
    },
    /// prlimit64(pid, resource, new, old).
    Prlimit64 {
        /// 0 for the caller.
        pid: i32,
        /// `RLIMIT_*` (`RLIMIT_NPROC` = 6, ...).
        resource: u32,
        /// The new limits; `None` for `NULL`.
        new: Option<RlimitArg>,
        /// The old limits the kernel wrote; `None` for `NULL` or unread.
        old: Option<RlimitArg>,
    },
    /// setrlimit(resource, rlim).
    Setrlimit {
        /// `RLIMIT_*`.
        resource: u32,
        /// The new limits (`None` if strace printed an address).
        new: Option<RlimitArg>,
    },
    /// getrlimit(resource, rlim).
    Getrlimit {
        /// `RLIMIT_*`.
        resource: u32,
        /// The limits the kernel wrote (`None` if unread).
        old: Option<RlimitArg>,
    },
    /// getgroups(size, list).
    Getgroups {
        /// The `size` argument (0: count only).
        size: i32,
        /// The groups the kernel wrote (`None`: `NULL`, not written or
        /// elided).
        groups: Option<Vec<u32>>,
    },
    /// capget(hdr, data).
    Capget {
        /// `hdr->version` (`_LINUX_CAPABILITY_VERSION_3` = 0x20080522).
        version: u32,
        /// `hdr->pid`.
        pid: i32,
        /// Whether `data` is not `NULL`.
        with_data: bool,
        /// The sets the kernel wrote (`None`: `NULL`, not written, or not
        /// readable as printed).
        data: Option<CapData>,
    },
    /// capset(hdr, data).
    Capset {
        /// `hdr->version`.
        version: u32,
        /// `hdr->pid`.
        pid: i32,
        /// The sets asked for (`None` if not printed as sets).
        data: Option<CapData>,
    },
    /// The capability prctl(2) options: `PR_CAPBSET_READ`/`DROP` (23,
    /// 24), `PR_GET`/`SET_KEEPCAPS` (7, 8), `PR_GET`/`SET_SECUREBITS` (27,
    /// 28), `PR_SET`/`GET_NO_NEW_PRIVS` (38, 39), `PR_CAP_AMBIENT` (47).
    CapPrctl {
        /// The option.
        option: u32,
        /// `arg2` to `arg5` (0 when not printed): capabilities, securebits
        /// and `PR_CAP_AMBIENT_*` by name or number.
        args: [u64; 4],
    },
    /// write(fd, buf, count) to a user-namespace file of `/proc`, known
    /// by strace's `-y` annotation of the fd
    /// (`3</proc/PID/uid_map>`): `uid_map`, `gid_map` or `setgroups`.
    ProcFileWrite {
        /// The fd.
        fd: i32,
        /// The process whose file it is (the number in the path, as the
        /// tracer's `/proc` names it).
        pid: i32,
        /// Which file.
        file: ProcFile,
        /// The bytes written, as printed.
        data: Vec<u8>,
        /// strace cut `data` short (its `-s` limit).
        truncated: bool,
        /// The `count` argument.
        count: u64,
    },
}

/// A user-namespace file of `/proc/PID`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProcFile {
    /// `uid_map`.
    UidMap,
    /// `gid_map`.
    GidMap,
    /// `setgroups`.
    Setgroups,
}

impl ProcFile {
    /// The file of `path` `/proc/PID/NAME` (or `/proc/PID/task/TID/NAME`):
    /// the pid and the file, `None` for another path.
    pub fn parse_path(path: &str) -> Option<(i32, ProcFile)> {
        let rest = path.strip_prefix("/proc/")?;
        let (pid, rest) = rest.split_once('/')?;
        let pid: i32 = pid.parse().ok()?;
        let name = match rest.strip_prefix("task/") {
            Some(t) => t.split_once('/')?.1,
            None => rest,
        };
        let file = match name {
            "uid_map" => ProcFile::UidMap,
            "gid_map" => ProcFile::GidMap,
            "setgroups" => ProcFile::Setgroups,
            _ => return None,
        };
        Some((pid, file))
    }
}
