//! The [`Syscall`] enum: one variant per call the [`Kernel`](crate::Kernel)
//! implements, with its arguments decoded (pointers already read).

use super::nr;
use crate::mm::MmapFile;
use crate::task::lifecycle::clone::CloneArgs;
use crate::task::lifecycle::clone3::Clone3Args;
use crate::task::procapi::nsproxy::SetnsFd;
use crate::task::procapi::pidfd::PidFd;
use crate::task::state::rlimit::Rlimit;
use crate::task::state::sighand::SigAction;
use crate::types::SigInfo;

/// A system call with its arguments, as the process core takes them.
///
/// Integer arguments have Linux's C types (`pid_t`, `int`: the low 32 bits
/// of the register, as `SYSCALL_DEFINE` truncates them); what Linux reads
/// through a pointer (a path, `struct clone_args`, `struct sigaction`, a
/// group list, a `struct rlimit`) is held by value. Output pointers (the
/// wait status, `siginfo`, old actions, id triples) are not arguments:
/// [`dispatch`](super::dispatch) returns their contents in
/// [`SysRet`](super::SysRet).
///
/// # Linux
/// One variant per `SYSCALL_DEFINE` entry point; see [`Syscall::name`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Syscall {
    /// clone(2): flags (with the exit signal in the low byte) decoded by
    /// [`CloneArgs::from_clone_flags`]. [`Kernel::clone`](crate::Kernel::clone).
    Clone(CloneArgs),
    /// clone3(2). [`Kernel::clone3`](crate::Kernel::clone3).
    Clone3(Clone3Args),
    /// fork(2). [`Kernel::fork`](crate::Kernel::fork).
    Fork,
    /// vfork(2). [`Kernel::vfork`](crate::Kernel::vfork).
    Vfork,
    /// execve(2): `argv` `None` leaves `/proc/PID/cmdline` to the embedder
    /// ([`Kernel::execve`](crate::Kernel::execve)), `Some` sets it
    /// ([`Kernel::execve_argv`](crate::Kernel::execve_argv)).
    Execve {
        /// The path, as given.
        filename: String,
        /// The argument strings, without their NULs.
        argv: Option<Vec<Vec<u8>>>,
    },
    /// exit(2). [`Kernel::exit`](crate::Kernel::exit).
    Exit {
        /// The status (low 8 bits reported).
        code: i32,
    },
    /// exit_group(2). [`Kernel::exit_group`](crate::Kernel::exit_group).
    ExitGroup {
        /// The status (low 8 bits reported).
        code: i32,
    },
    /// wait4(2) (the status and rusage pointers are outputs).
    Wait4 {
        /// `pid`: >0 one child, 0 own group, -1 any, < -1 group `-pid`.
        pid: i32,
        /// `W*` options.
        options: i32,
    },
    /// waitid(2) (the siginfo and rusage pointers are outputs).
    Waitid {
        /// `P_ALL`, `P_PID`, `P_PGID`, `P_PIDFD`.
        idtype: i32,
        /// The id for `idtype`.
        id: i32,
        /// `W*` options.
        options: i32,
    },
    /// setpgid(2).
    Setpgid {
        /// The process (0: the caller).
        pid: i32,
        /// The group (0: `pid`).
        pgid: i32,
    },
    /// setsid(2).
    Setsid,
    /// getpgid(2).
    Getpgid {
        /// The process (0: the caller).
        pid: i32,
    },
    /// getpgrp(2): getpgid(0).
    Getpgrp,
    /// getsid(2).
    Getsid {
        /// The process (0: the caller).
        pid: i32,
    },
    /// getppid(2).
    Getppid,
    /// getpid(2).
    Getpid,
    /// gettid(2).
    Gettid,
    /// kill(2).
    Kill {
        /// Target: >0 process, 0 own group, -1 all, < -1 group `-pid`.
        pid: i32,
        /// Signal (0: permission check only).
        sig: i32,
    },
    /// tgkill(2).
    Tgkill {
        /// The thread group.
        tgid: i32,
        /// The thread.
        tid: i32,
        /// Signal.
        sig: i32,
    },
    /// tkill(2).
    Tkill {
        /// The thread.
        tid: i32,
        /// Signal.
        sig: i32,
    },
    /// rt_sigaction(2): `act` `None` for a NULL pointer (query only).
    RtSigaction {
        /// Signal number.
        sig: i32,
        /// The new action.
        act: Option<SigAction>,
    },
    /// prctl(2), the modelled options.
    Prctl(Prctl),
    /// capget(2): `hdr` read (`version`, and `pid` when the version is
    /// known); `data` false for a NULL data pointer.
    /// [`Kernel::capget`](crate::Kernel::capget).
    Capget {
        /// `hdr->version`.
        version: u32,
        /// `hdr->pid` (0 when the version is unknown: not read).
        pid: i32,
        /// Whether the data pointer is not NULL.
        data: bool,
    },
    /// capset(2): `hdr` and the data entries read (one for version 1, two
    /// otherwise). [`Kernel::capset`](crate::Kernel::capset).
    Capset {
        /// `hdr->version`.
        version: u32,
        /// `hdr->pid` (0 when the version is unknown: not read).
        pid: i32,
        /// The three sets; `None` when the data could not be read
        /// (`EFAULT`, after the version and pid checks).
        data: Option<crate::task::state::capability::CapUserData>,
    },
    /// ptrace(2), the modelled requests.
    Ptrace(Ptrace),
    /// setuid(2).
    Setuid {
        /// The uid.
        uid: u32,
    },
    /// setgid(2).
    Setgid {
        /// The gid.
        gid: u32,
    },
    /// setreuid(2) (`u32::MAX`: unchanged).
    Setreuid {
        /// Real uid.
        ruid: u32,
        /// Effective uid.
        euid: u32,
    },
    /// setregid(2) (`u32::MAX`: unchanged).
    Setregid {
        /// Real gid.
        rgid: u32,
        /// Effective gid.
        egid: u32,
    },
    /// setresuid(2) (`u32::MAX`: unchanged).
    Setresuid {
        /// Real uid.
        ruid: u32,
        /// Effective uid.
        euid: u32,
        /// Saved uid.
        suid: u32,
    },
    /// setresgid(2) (`u32::MAX`: unchanged).
    Setresgid {
        /// Real gid.
        rgid: u32,
        /// Effective gid.
        egid: u32,
        /// Saved gid.
        sgid: u32,
    },
    /// setfsuid(2).
    Setfsuid {
        /// The fs uid.
        uid: u32,
    },
    /// setfsgid(2).
    Setfsgid {
        /// The fs gid.
        gid: u32,
    },
    /// getuid(2): the real uid (as the caller's user namespace maps it).
    /// No errno of its own. [`Kernel::cred`](crate::Kernel::cred)`.uid`.
    /// Linux: kernel/sys.c `SYSCALL_DEFINE0(getuid)`.
    Getuid,
    /// geteuid(2): the effective uid; no errno of its own.
    /// [`Kernel::cred`](crate::Kernel::cred)`.euid`.
    /// Linux: kernel/sys.c `SYSCALL_DEFINE0(geteuid)`.
    Geteuid,
    /// getgid(2): the real gid; no errno of its own.
    /// [`Kernel::cred`](crate::Kernel::cred)`.gid`.
    /// Linux: kernel/sys.c `SYSCALL_DEFINE0(getgid)`.
    Getgid,
    /// getegid(2): the effective gid; no errno of its own.
    /// [`Kernel::cred`](crate::Kernel::cred)`.egid`.
    /// Linux: kernel/sys.c `SYSCALL_DEFINE0(getegid)`.
    Getegid,
    /// getresuid(2) (the three pointers are outputs).
    Getresuid,
    /// getresgid(2) (the three pointers are outputs).
    Getresgid,
    /// setgroups(2).
    Setgroups {
        /// The supplementary groups.
        groups: Vec<u32>,
    },
    /// getgroups(2) (the list pointer is an output).
    Getgroups {
        /// The list's capacity (0: count only).
        size: i32,
    },
    /// getrlimit(2).
    Getrlimit {
        /// `RLIMIT_*`.
        resource: u32,
    },
    /// setrlimit(2).
    Setrlimit {
        /// `RLIMIT_*`.
        resource: u32,
        /// The new limits.
        new: Rlimit,
    },
    /// prlimit64(2) (`new` `None` for a NULL pointer).
    Prlimit64 {
        /// The process (0: the caller).
        pid: i32,
        /// `RLIMIT_*`.
        resource: u32,
        /// The new limits.
        new: Option<Rlimit>,
    },
    /// mmap(2): `file` `None` for an anonymous mapping.
    Mmap {
        /// Hint or fixed address.
        addr: u64,
        /// Length in bytes.
        len: u64,
        /// `PROT_*`.
        prot: u32,
        /// `MAP_*`.
        flags: u32,
        /// The mapped file (the core has no fd table: the embedder
        /// resolves the fd).
        file: Option<MmapFile>,
        /// Offset in pages.
        pgoff: u64,
    },
    /// munmap(2).
    Munmap {
        /// Start.
        addr: u64,
        /// Length in bytes.
        len: u64,
    },
    /// mprotect(2).
    Mprotect {
        /// Start.
        addr: u64,
        /// Length in bytes.
        len: u64,
        /// `PROT_*`.
        prot: u32,
    },
    /// mremap(2).
    Mremap {
        /// Old start.
        old: u64,
        /// Old length.
        old_len: u64,
        /// New length.
        new_len: u64,
        /// `MREMAP_*`.
        flags: u32,
        /// New address (with `MREMAP_FIXED`).
        new: u64,
    },
    /// brk(2).
    Brk {
        /// The new break (0: query).
        addr: u64,
    },
    /// rt_sigprocmask(2) (`oldset` is an output).
    /// [`Kernel::rt_sigprocmask`](crate::Kernel::rt_sigprocmask).
    RtSigprocmask {
        /// `SIG_BLOCK`, `SIG_UNBLOCK` or `SIG_SETMASK` (ignored without
        /// `set`).
        how: i32,
        /// The set (bit `sig - 1` per signal); `None` for a NULL pointer.
        set: Option<u64>,
    },
    /// rt_sigpending(2) (the set pointer is an output).
    /// [`Kernel::rt_sigpending`](crate::Kernel::rt_sigpending).
    RtSigpending,
    /// rt_sigqueueinfo(2).
    /// [`Kernel::rt_sigqueueinfo`](crate::Kernel::rt_sigqueueinfo).
    RtSigqueueinfo {
        /// The process.
        tgid: i32,
        /// Signal.
        sig: i32,
        /// The siginfo given (`si_code`, `si_pid`, `si_uid`, `si_value`).
        info: SigInfo,
    },
    /// rt_tgsigqueueinfo(2).
    /// [`Kernel::rt_tgsigqueueinfo`](crate::Kernel::rt_tgsigqueueinfo).
    RtTgsigqueueinfo {
        /// The thread group.
        tgid: i32,
        /// The thread.
        tid: i32,
        /// Signal.
        sig: i32,
        /// The siginfo given.
        info: SigInfo,
    },
    /// rt_sigtimedwait(2) (the siginfo pointer is an output).
    /// [`Kernel::rt_sigtimedwait`](crate::Kernel::rt_sigtimedwait), told
    /// that the timeout expired when `timeout` is zero: an embedder whose
    /// timer for a non-zero timeout ran out calls again with a zero one.
    RtSigtimedwait {
        /// The signals waited for.
        set: u64,
        /// The timeout; `None` (NULL) waits for ever.
        timeout: Option<Timespec>,
    },
    /// rt_sigsuspend(2).
    /// [`Kernel::rt_sigsuspend`](crate::Kernel::rt_sigsuspend).
    RtSigsuspend {
        /// The mask while waiting.
        mask: u64,
    },
    /// pause(2). [`Kernel::pause`](crate::Kernel::pause).
    Pause,
    /// rt_sigreturn(2): the mask the signal frame saved (the embedder
    /// reads its frame; see [`Syscall::from_raw_with`]).
    /// [`Kernel::rt_sigreturn`](crate::Kernel::rt_sigreturn).
    RtSigreturn {
        /// `uc_sigmask` of the frame.
        mask: u64,
    },
    /// pidfd_open(2). [`Kernel::pidfd_open`](crate::Kernel::pidfd_open).
    PidfdOpen {
        /// The process (or thread, with `PIDFD_THREAD`).
        pid: i32,
        /// `PIDFD_NONBLOCK`, `PIDFD_THREAD`.
        flags: u32,
    },
    /// pidfd_send_signal(2).
    /// [`Kernel::pidfd_send_signal`](crate::Kernel::pidfd_send_signal).
    PidfdSendSignal {
        /// The pidfd ([`FdTable::pidfd`](super::FdTable::pidfd) resolves
        /// the number).
        fd: PidFd,
        /// Signal.
        sig: i32,
        /// The siginfo given; `None` for a NULL pointer.
        info: Option<SigInfo>,
        /// `PIDFD_SIGNAL_*` scope.
        flags: u32,
    },
    /// waitid(2) with `P_PIDFD` (the siginfo and rusage pointers are
    /// outputs). [`Kernel::waitid_pidfd`](crate::Kernel::waitid_pidfd).
    WaitidPidfd {
        /// The pidfd.
        fd: PidFd,
        /// `W*` options.
        options: i32,
    },
    /// unshare(2). [`Kernel::unshare`](crate::Kernel::unshare).
    Unshare {
        /// `CLONE_*` flags.
        flags: u64,
    },
    /// setns(2). [`Kernel::setns`](crate::Kernel::setns).
    Setns {
        /// The namespace file or pidfd
        /// ([`FdTable::setns_fd`](super::FdTable::setns_fd) resolves the
        /// number).
        fd: SetnsFd,
        /// 0 or `CLONE_NEW*` bits (an `int`, sign-extended as Linux does).
        nstype: u64,
    },
}

/// A `struct timespec` as rt_sigtimedwait(2) reads it; only valid ones
/// (seconds not negative, nanoseconds below 10^9) are decoded.
///
/// # Linux
/// `struct __kernel_timespec`, `timespec64_valid()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timespec {
    /// Seconds (`tv_sec`).
    pub sec: i64,
    /// Nanoseconds (`tv_nsec`), 0..10^9.
    pub nsec: i64,
}

impl Timespec {
    /// A zero timeout: poll.
    pub const ZERO: Timespec = Timespec { sec: 0, nsec: 0 };
}

/// The modelled prctl(2) options.
///
/// # Linux
/// kernel/sys.c `SYSCALL_DEFINE5(prctl)`.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Prctl {
    /// `PR_SET_PDEATHSIG`.
    SetPdeathsig(i32),
    /// `PR_GET_PDEATHSIG`.
    GetPdeathsig,
    /// `PR_SET_NAME`: up to 15 bytes, no NUL.
    SetName(Vec<u8>),
    /// `PR_GET_NAME`.
    GetName,
    /// `PR_SET_CHILD_SUBREAPER`.
    SetChildSubreaper(bool),
    /// `PR_GET_CHILD_SUBREAPER`.
    GetChildSubreaper,
    /// `PR_SET_DUMPABLE`: the argument as passed (0 and 1 valid).
    SetDumpable(u64),
    /// `PR_GET_DUMPABLE`: returns 0 or 1.
    GetDumpable,
    /// `PR_CAPBSET_READ`: the capability as passed; returns 0 or 1.
    CapbsetRead(u64),
    /// `PR_CAPBSET_DROP`: the capability as passed.
    CapbsetDrop(u64),
    /// `PR_CAP_AMBIENT`: `arg2` (`None`: unknown), `arg3`, `arg4`,
    /// `arg5`; returns 0, or 0 or 1 for `PR_CAP_AMBIENT_IS_SET`.
    CapAmbient(
        Option<crate::task::procapi::commoncap::AmbientOp>,
        u64,
        u64,
        u64,
    ),
    /// `PR_SET_SECUREBITS`: the bits as passed.
    SetSecurebits(u64),
    /// `PR_GET_SECUREBITS`: returns the bits.
    GetSecurebits,
    /// `PR_SET_KEEPCAPS`: the argument as passed (0 and 1 valid).
    SetKeepcaps(u64),
    /// `PR_GET_KEEPCAPS`: returns 0 or 1.
    GetKeepcaps,
    /// `PR_SET_NO_NEW_PRIVS`: `arg2` to `arg5` (`[1, 0, 0, 0]` valid).
    SetNoNewPrivs([u64; 4]),
    /// `PR_GET_NO_NEW_PRIVS`: `arg2` to `arg5` (all 0 valid); returns 0
    /// or 1.
    GetNoNewPrivs([u64; 4]),
}

/// The modelled ptrace(2) requests.
///
/// # Linux
/// kernel/ptrace.c `SYSCALL_DEFINE4(ptrace)`, `ptrace_request()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Ptrace {
    /// `PTRACE_TRACEME`.
    Traceme,
    /// `PTRACE_ATTACH` (`seize` false) or `PTRACE_SEIZE` (true).
    Attach {
        /// The tracee.
        pid: i32,
        /// `PTRACE_SEIZE`.
        seize: bool,
    },
    /// `PTRACE_CONT`.
    Cont {
        /// The tracee.
        pid: i32,
        /// Signal to deliver (0: none).
        sig: i32,
    },
    /// `PTRACE_DETACH`.
    Detach {
        /// The tracee.
        pid: i32,
        /// Signal to deliver (0: none).
        sig: i32,
    },
    /// `PTRACE_SEIZE` with its `PTRACE_O_*` options (`data`); decoded
    /// from the raw call (a `data` beyond 32 bits decodes to `u32::MAX`,
    /// invalid options either way).
    Seize {
        /// The tracee.
        pid: i32,
        /// `PTRACE_O_*` bits.
        options: u32,
    },
    /// `PTRACE_SETOPTIONS`.
    Setoptions {
        /// The tracee.
        pid: i32,
        /// `PTRACE_O_*` bits (as for [`Ptrace::Seize`]).
        options: u32,
    },
    /// `PTRACE_GETEVENTMSG`: the unsigned long the embedder writes at
    /// `data` ([`SysRet::EventMsg`](super::SysRet::EventMsg)).
    Geteventmsg {
        /// The tracee.
        pid: i32,
    },
    /// `PTRACE_GETSIGINFO`: the siginfo the embedder writes at `data`
    /// ([`SysRet::SigInfo`](super::SysRet::SigInfo)).
    Getsiginfo {
        /// The tracee.
        pid: i32,
    },
    /// `PTRACE_INTERRUPT`.
    Interrupt {
        /// The tracee.
        pid: i32,
    },
    /// `PTRACE_LISTEN`.
    Listen {
        /// The tracee.
        pid: i32,
    },
    /// `PTRACE_SYSCALL`: as [`Ptrace::Cont`], stopping at the next
    /// syscall entry or exit.
    Syscall {
        /// The tracee.
        pid: i32,
        /// Signal to deliver (0: none).
        sig: i32,
    },
}

impl Syscall {
    /// The syscall's name (`"clone"`, `"exit_group"`, `"prctl"`...).
    ///
    /// # Linux
    /// The name in the syscall table.
    pub fn name(&self) -> &'static str {
        match self {
            Syscall::Clone(_) => "clone",
            Syscall::Clone3(_) => "clone3",
            Syscall::Fork => "fork",
            Syscall::Vfork => "vfork",
            Syscall::Execve { .. } => "execve",
            Syscall::Exit { .. } => "exit",
            Syscall::ExitGroup { .. } => "exit_group",
            Syscall::Wait4 { .. } => "wait4",
            Syscall::Waitid { .. } => "waitid",
            Syscall::Setpgid { .. } => "setpgid",
            Syscall::Setsid => "setsid",
            Syscall::Getpgid { .. } => "getpgid",
            Syscall::Getpgrp => "getpgrp",
            Syscall::Getsid { .. } => "getsid",
            Syscall::Getppid => "getppid",
            Syscall::Getpid => "getpid",
            Syscall::Gettid => "gettid",
            Syscall::Kill { .. } => "kill",
            Syscall::Tgkill { .. } => "tgkill",
            Syscall::Tkill { .. } => "tkill",
            Syscall::RtSigaction { .. } => "rt_sigaction",
            Syscall::Prctl(_) => "prctl",
            Syscall::Capget { .. } => "capget",
            Syscall::Capset { .. } => "capset",
            Syscall::Ptrace(_) => "ptrace",
            Syscall::Setuid { .. } => "setuid",
            Syscall::Setgid { .. } => "setgid",
            Syscall::Setreuid { .. } => "setreuid",
            Syscall::Setregid { .. } => "setregid",
            Syscall::Setresuid { .. } => "setresuid",
            Syscall::Setresgid { .. } => "setresgid",
            Syscall::Setfsuid { .. } => "setfsuid",
            Syscall::Setfsgid { .. } => "setfsgid",
            Syscall::Getuid => "getuid",
            Syscall::Geteuid => "geteuid",
            Syscall::Getgid => "getgid",
            Syscall::Getegid => "getegid",
            Syscall::Getresuid => "getresuid",
            Syscall::Getresgid => "getresgid",
            Syscall::Setgroups { .. } => "setgroups",
            Syscall::Getgroups { .. } => "getgroups",
            Syscall::Getrlimit { .. } => "getrlimit",
            Syscall::Setrlimit { .. } => "setrlimit",
            Syscall::Prlimit64 { .. } => "prlimit64",
            Syscall::Mmap { .. } => "mmap",
            Syscall::Munmap { .. } => "munmap",
            Syscall::Mprotect { .. } => "mprotect",
            Syscall::Mremap { .. } => "mremap",
            Syscall::Brk { .. } => "brk",
            Syscall::RtSigprocmask { .. } => "rt_sigprocmask",
            Syscall::RtSigpending => "rt_sigpending",
            Syscall::RtSigqueueinfo { .. } => "rt_sigqueueinfo",
            Syscall::RtTgsigqueueinfo { .. } => "rt_tgsigqueueinfo",
            Syscall::RtSigtimedwait { .. } => "rt_sigtimedwait",
            Syscall::RtSigsuspend { .. } => "rt_sigsuspend",
            Syscall::Pause => "pause",
            Syscall::RtSigreturn { .. } => "rt_sigreturn",
            Syscall::PidfdOpen { .. } => "pidfd_open",
            Syscall::PidfdSendSignal { .. } => "pidfd_send_signal",
            Syscall::WaitidPidfd { .. } => "waitid",
            Syscall::Unshare { .. } => "unshare",
            Syscall::Setns { .. } => "setns",
        }
    }

    /// The x86_64 syscall number ([`nr`]).
    ///
    /// # Linux
    /// `arch/x86/entry/syscalls/syscall_64.tbl`.
    pub fn nr(&self) -> u64 {
        match self {
            Syscall::Clone(_) => nr::CLONE,
            Syscall::Clone3(_) => nr::CLONE3,
            Syscall::Fork => nr::FORK,
            Syscall::Vfork => nr::VFORK,
            Syscall::Execve { .. } => nr::EXECVE,
            Syscall::Exit { .. } => nr::EXIT,
            Syscall::ExitGroup { .. } => nr::EXIT_GROUP,
            Syscall::Wait4 { .. } => nr::WAIT4,
            Syscall::Waitid { .. } => nr::WAITID,
            Syscall::Setpgid { .. } => nr::SETPGID,
            Syscall::Setsid => nr::SETSID,
            Syscall::Getpgid { .. } => nr::GETPGID,
            Syscall::Getpgrp => nr::GETPGRP,
            Syscall::Getsid { .. } => nr::GETSID,
            Syscall::Getppid => nr::GETPPID,
            Syscall::Getpid => nr::GETPID,
            Syscall::Gettid => nr::GETTID,
            Syscall::Kill { .. } => nr::KILL,
            Syscall::Tgkill { .. } => nr::TGKILL,
            Syscall::Tkill { .. } => nr::TKILL,
            Syscall::RtSigaction { .. } => nr::RT_SIGACTION,
            Syscall::Prctl(_) => nr::PRCTL,
            Syscall::Capget { .. } => nr::CAPGET,
            Syscall::Capset { .. } => nr::CAPSET,
            Syscall::Ptrace(_) => nr::PTRACE,
            Syscall::Setuid { .. } => nr::SETUID,
            Syscall::Setgid { .. } => nr::SETGID,
            Syscall::Setreuid { .. } => nr::SETREUID,
            Syscall::Setregid { .. } => nr::SETREGID,
            Syscall::Setresuid { .. } => nr::SETRESUID,
            Syscall::Setresgid { .. } => nr::SETRESGID,
            Syscall::Setfsuid { .. } => nr::SETFSUID,
            Syscall::Setfsgid { .. } => nr::SETFSGID,
            Syscall::Getuid => nr::GETUID,
            Syscall::Geteuid => nr::GETEUID,
            Syscall::Getgid => nr::GETGID,
            Syscall::Getegid => nr::GETEGID,
            Syscall::Getresuid => nr::GETRESUID,
            Syscall::Getresgid => nr::GETRESGID,
            Syscall::Setgroups { .. } => nr::SETGROUPS,
            Syscall::Getgroups { .. } => nr::GETGROUPS,
            Syscall::Getrlimit { .. } => nr::GETRLIMIT,
            Syscall::Setrlimit { .. } => nr::SETRLIMIT,
            Syscall::Prlimit64 { .. } => nr::PRLIMIT64,
            Syscall::Mmap { .. } => nr::MMAP,
            Syscall::Munmap { .. } => nr::MUNMAP,
            Syscall::Mprotect { .. } => nr::MPROTECT,
            Syscall::Mremap { .. } => nr::MREMAP,
            Syscall::Brk { .. } => nr::BRK,
            Syscall::RtSigprocmask { .. } => nr::RT_SIGPROCMASK,
            Syscall::RtSigpending => nr::RT_SIGPENDING,
            Syscall::RtSigqueueinfo { .. } => nr::RT_SIGQUEUEINFO,
            Syscall::RtTgsigqueueinfo { .. } => nr::RT_TGSIGQUEUEINFO,
            Syscall::RtSigtimedwait { .. } => nr::RT_SIGTIMEDWAIT,
            Syscall::RtSigsuspend { .. } => nr::RT_SIGSUSPEND,
            Syscall::Pause => nr::PAUSE,
            Syscall::RtSigreturn { .. } => nr::RT_SIGRETURN,
            Syscall::PidfdOpen { .. } => nr::PIDFD_OPEN,
            Syscall::PidfdSendSignal { .. } => nr::PIDFD_SEND_SIGNAL,
            Syscall::WaitidPidfd { .. } => nr::WAITID,
            Syscall::Unshare { .. } => nr::UNSHARE,
            Syscall::Setns { .. } => nr::SETNS,
        }
    }
}
