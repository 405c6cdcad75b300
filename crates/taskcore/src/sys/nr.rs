//! x86_64 system call numbers of the calls [`Syscall`](super::Syscall)
//! covers, as `arch/x86/entry/syscalls/syscall_64.tbl` assigns them (the
//! values of `<asm/unistd_64.h>` on this machine).

#![allow(missing_docs)] // Each constant is its syscall's `__NR_` name.

pub const MMAP: u64 = 9;
pub const MPROTECT: u64 = 10;
pub const MUNMAP: u64 = 11;
pub const BRK: u64 = 12;
pub const RT_SIGACTION: u64 = 13;
pub const RT_SIGPROCMASK: u64 = 14;
pub const RT_SIGRETURN: u64 = 15;
pub const MREMAP: u64 = 25;
pub const PAUSE: u64 = 34;
pub const GETPID: u64 = 39;
pub const CLONE: u64 = 56;
pub const FORK: u64 = 57;
pub const VFORK: u64 = 58;
pub const EXECVE: u64 = 59;
pub const EXIT: u64 = 60;
pub const WAIT4: u64 = 61;
pub const KILL: u64 = 62;
pub const GETRLIMIT: u64 = 97;
pub const PTRACE: u64 = 101;
pub const GETUID: u64 = 102;
pub const GETGID: u64 = 104;
pub const SETUID: u64 = 105;
pub const SETGID: u64 = 106;
pub const GETEUID: u64 = 107;
pub const GETEGID: u64 = 108;
pub const SETPGID: u64 = 109;
pub const GETPPID: u64 = 110;
pub const GETPGRP: u64 = 111;
pub const SETSID: u64 = 112;
pub const SETREUID: u64 = 113;
pub const SETREGID: u64 = 114;
pub const GETGROUPS: u64 = 115;
pub const SETGROUPS: u64 = 116;
pub const SETRESUID: u64 = 117;
pub const GETRESUID: u64 = 118;
pub const SETRESGID: u64 = 119;
pub const GETRESGID: u64 = 120;
pub const GETPGID: u64 = 121;
pub const SETFSUID: u64 = 122;
pub const SETFSGID: u64 = 123;
pub const GETSID: u64 = 124;
pub const CAPGET: u64 = 125;
pub const CAPSET: u64 = 126;
pub const RT_SIGPENDING: u64 = 127;
pub const RT_SIGTIMEDWAIT: u64 = 128;
pub const RT_SIGQUEUEINFO: u64 = 129;
pub const RT_SIGSUSPEND: u64 = 130;
pub const PRCTL: u64 = 157;
pub const SETRLIMIT: u64 = 160;
pub const GETTID: u64 = 186;
pub const TKILL: u64 = 200;
pub const EXIT_GROUP: u64 = 231;
pub const TGKILL: u64 = 234;
pub const WAITID: u64 = 247;
pub const UNSHARE: u64 = 272;
pub const RT_TGSIGQUEUEINFO: u64 = 297;
pub const PRLIMIT64: u64 = 302;
pub const SETNS: u64 = 308;
pub const PIDFD_SEND_SIGNAL: u64 = 424;
pub const PIDFD_OPEN: u64 = 434;
pub const CLONE3: u64 = 435;

/// Every syscall number of a [`Syscall`](super::Syscall) variant, in
/// ascending order: [`Syscall::from_raw`](super::Syscall::from_raw)
/// decodes each (but `RT_SIGRETURN`, whose mask is in a signal frame only
/// the embedder reads: built as [`Syscall::RtSigreturn`](super::Syscall::RtSigreturn)),
/// and any other number is `ENOSYS`.
///
/// # Linux
/// `arch/x86/entry/syscalls/syscall_64.tbl`.
pub const ALL: [u64; 61] = [
    MMAP,
    MPROTECT,
    MUNMAP,
    BRK,
    RT_SIGACTION,
    RT_SIGPROCMASK,
    RT_SIGRETURN,
    MREMAP,
    PAUSE,
    GETPID,
    CLONE,
    FORK,
    VFORK,
    EXECVE,
    EXIT,
    WAIT4,
    KILL,
    GETRLIMIT,
    PTRACE,
    GETUID,
    GETGID,
    SETUID,
    SETGID,
    GETEUID,
    GETEGID,
    SETPGID,
    GETPPID,
    GETPGRP,
    SETSID,
    SETREUID,
    SETREGID,
    GETGROUPS,
    SETGROUPS,
    SETRESUID,
    GETRESUID,
    SETRESGID,
    GETRESGID,
    GETPGID,
    SETFSUID,
    SETFSGID,
    GETSID,
    CAPGET,
    CAPSET,
    RT_SIGPENDING,
    RT_SIGTIMEDWAIT,
    RT_SIGQUEUEINFO,
    RT_SIGSUSPEND,
    PRCTL,
    SETRLIMIT,
    GETTID,
    TKILL,
    EXIT_GROUP,
    TGKILL,
    WAITID,
    UNSHARE,
    RT_TGSIGQUEUEINFO,
    PRLIMIT64,
    SETNS,
    PIDFD_SEND_SIGNAL,
    PIDFD_OPEN,
    CLONE3,
];

// prctl(2) options (<linux/prctl.h>).
pub const PR_SET_PDEATHSIG: u64 = 1;
pub const PR_GET_PDEATHSIG: u64 = 2;
pub const PR_GET_DUMPABLE: u64 = 3;
pub const PR_SET_DUMPABLE: u64 = 4;
pub const PR_SET_NAME: u64 = 15;
pub const PR_GET_NAME: u64 = 16;
pub const PR_GET_KEEPCAPS: u64 = 7;
pub const PR_SET_KEEPCAPS: u64 = 8;
pub const PR_CAPBSET_READ: u64 = 23;
pub const PR_CAPBSET_DROP: u64 = 24;
pub const PR_GET_SECUREBITS: u64 = 27;
pub const PR_SET_SECUREBITS: u64 = 28;
pub const PR_SET_CHILD_SUBREAPER: u64 = 36;
pub const PR_SET_NO_NEW_PRIVS: u64 = 38;
pub const PR_GET_NO_NEW_PRIVS: u64 = 39;
pub const PR_CAP_AMBIENT: u64 = 47;
pub const PR_GET_CHILD_SUBREAPER: u64 = 37;

// ptrace(2) requests (<linux/ptrace.h>).
pub const PTRACE_TRACEME: u64 = 0;
pub const PTRACE_CONT: u64 = 7;
pub const PTRACE_ATTACH: u64 = 16;
pub const PTRACE_DETACH: u64 = 17;
pub const PTRACE_SEIZE: u64 = 0x4206;
/// `PTRACE_SYSCALL`.
pub const PTRACE_SYSCALL: u64 = 24;
/// `PTRACE_SETOPTIONS`.
pub const PTRACE_SETOPTIONS: u64 = 0x4200;
/// `PTRACE_GETEVENTMSG`.
pub const PTRACE_GETEVENTMSG: u64 = 0x4201;
/// `PTRACE_GETSIGINFO`.
pub const PTRACE_GETSIGINFO: u64 = 0x4202;
/// `PTRACE_INTERRUPT`.
pub const PTRACE_INTERRUPT: u64 = 0x4207;
/// `PTRACE_LISTEN`.
pub const PTRACE_LISTEN: u64 = 0x4208;
