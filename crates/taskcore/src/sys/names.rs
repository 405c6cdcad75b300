//! The names Linux gives the values of syscall arguments, as `(name,
//! value)` tables: what a trace printer (strace) or a log shows for a
//! flag, option, request or code, mapped to its x86_64 value. A value the
//! core uses is its constant ([`crate::uapi`], [`crate::mm::flags`],
//! [`super::nr`], [`crate::task::ptrace::event`]); the others (options,
//! requests and codes the core does not model) are defined here, once.
//! Aliases (`SIGIOT`, `WUNTRACED`, `SA_NOMASK`, ...) are listed beside the
//! name they alias.
//!
//! # Linux
//! `include/uapi/asm-generic/signal.h`, `arch/x86/include/uapi/asm/signal.h`,
//! `include/uapi/linux/sched.h`, `include/uapi/linux/wait.h`,
//! `include/uapi/asm-generic/siginfo.h`, `include/uapi/linux/prctl.h`,
//! `include/uapi/linux/ptrace.h`, `include/uapi/asm-generic/mman*.h`,
//! `include/uapi/linux/mman.h`, `include/uapi/linux/fcntl.h`,
//! `include/uapi/linux/pidfd.h`, `include/uapi/asm-generic/resource.h`,
//! `include/uapi/linux/capability.h`, `include/uapi/linux/securebits.h`,
//! `include/linux/sched/coredump.h` (`SUID_DUMP_*`).

use super::nr;

/// The classic signals (with the `SIG` prefix) and their x86_64 numbers,
/// aliases included; the real-time ones are `SIGRTMIN` (32) + n.
pub const SIGNALS: &[(&str, u64)] = &[
    ("SIGHUP", crate::uapi::SIGHUP as u32 as u64),
    ("SIGINT", crate::uapi::SIGINT as u32 as u64),
    ("SIGQUIT", crate::uapi::SIGQUIT as u32 as u64),
    ("SIGILL", crate::uapi::SIGILL as u32 as u64),
    ("SIGTRAP", crate::uapi::SIGTRAP as u32 as u64),
    ("SIGABRT", crate::uapi::SIGABRT as u32 as u64),
    ("SIGIOT", 6),
    ("SIGBUS", crate::uapi::SIGBUS as u32 as u64),
    ("SIGFPE", crate::uapi::SIGFPE as u32 as u64),
    ("SIGKILL", crate::uapi::SIGKILL as u32 as u64),
    ("SIGUSR1", crate::uapi::SIGUSR1 as u32 as u64),
    ("SIGSEGV", crate::uapi::SIGSEGV as u32 as u64),
    ("SIGUSR2", crate::uapi::SIGUSR2 as u32 as u64),
    ("SIGPIPE", crate::uapi::SIGPIPE as u32 as u64),
    ("SIGALRM", crate::uapi::SIGALRM as u32 as u64),
    ("SIGTERM", crate::uapi::SIGTERM as u32 as u64),
    ("SIGSTKFLT", crate::uapi::SIGSTKFLT as u32 as u64),
    ("SIGCHLD", crate::uapi::SIGCHLD as u32 as u64),
    ("SIGCLD", 17),
    ("SIGCONT", crate::uapi::SIGCONT as u32 as u64),
    ("SIGSTOP", crate::uapi::SIGSTOP as u32 as u64),
    ("SIGTSTP", crate::uapi::SIGTSTP as u32 as u64),
    ("SIGTTIN", crate::uapi::SIGTTIN as u32 as u64),
    ("SIGTTOU", crate::uapi::SIGTTOU as u32 as u64),
    ("SIGURG", crate::uapi::SIGURG as u32 as u64),
    ("SIGXCPU", crate::uapi::SIGXCPU as u32 as u64),
    ("SIGXFSZ", crate::uapi::SIGXFSZ as u32 as u64),
    ("SIGVTALRM", crate::uapi::SIGVTALRM as u32 as u64),
    ("SIGPROF", crate::uapi::SIGPROF as u32 as u64),
    ("SIGWINCH", crate::uapi::SIGWINCH as u32 as u64),
    ("SIGIO", crate::uapi::SIGIO as u32 as u64),
    ("SIGPOLL", 29),
    ("SIGPWR", crate::uapi::SIGPWR as u32 as u64),
    ("SIGSYS", crate::uapi::SIGSYS as u32 as u64),
    ("SIGUNUSED", 31),
];

/// `CLONE_*` flag bits (`include/uapi/linux/sched.h`). `CLONE_NEWTIME`
/// (0x80) lives in the exit-signal byte and is only valid for clone3().
pub const CLONE_FLAGS: &[(&str, u64)] = &[
    ("CLONE_NEWTIME", crate::uapi::CLONE_NEWTIME),
    ("CLONE_VM", crate::uapi::CLONE_VM),
    ("CLONE_FS", crate::uapi::CLONE_FS),
    ("CLONE_FILES", crate::uapi::CLONE_FILES),
    ("CLONE_SIGHAND", crate::uapi::CLONE_SIGHAND),
    ("CLONE_PIDFD", crate::uapi::CLONE_PIDFD),
    ("CLONE_PTRACE", crate::uapi::CLONE_PTRACE),
    ("CLONE_VFORK", crate::uapi::CLONE_VFORK),
    ("CLONE_PARENT", crate::uapi::CLONE_PARENT),
    ("CLONE_THREAD", crate::uapi::CLONE_THREAD),
    ("CLONE_NEWNS", crate::uapi::CLONE_NEWNS),
    ("CLONE_SYSVSEM", crate::uapi::CLONE_SYSVSEM),
    ("CLONE_SETTLS", crate::uapi::CLONE_SETTLS),
    ("CLONE_PARENT_SETTID", crate::uapi::CLONE_PARENT_SETTID),
    ("CLONE_CHILD_CLEARTID", crate::uapi::CLONE_CHILD_CLEARTID),
    ("CLONE_DETACHED", crate::uapi::CLONE_DETACHED),
    ("CLONE_UNTRACED", crate::uapi::CLONE_UNTRACED),
    ("CLONE_CHILD_SETTID", crate::uapi::CLONE_CHILD_SETTID),
    ("CLONE_NEWCGROUP", crate::uapi::CLONE_NEWCGROUP),
    ("CLONE_NEWUTS", crate::uapi::CLONE_NEWUTS),
    ("CLONE_NEWIPC", crate::uapi::CLONE_NEWIPC),
    ("CLONE_NEWUSER", crate::uapi::CLONE_NEWUSER),
    ("CLONE_NEWPID", crate::uapi::CLONE_NEWPID),
    ("CLONE_NEWNET", crate::uapi::CLONE_NEWNET),
    ("CLONE_IO", crate::uapi::CLONE_IO),
    ("CLONE_CLEAR_SIGHAND", crate::uapi::CLONE_CLEAR_SIGHAND),
    ("CLONE_INTO_CGROUP", crate::uapi::CLONE_INTO_CGROUP),
];

/// wait4()/waitid() option bits (`include/uapi/linux/wait.h`).
pub const WAIT_OPTIONS: &[(&str, u64)] = &[
    ("WNOHANG", crate::uapi::WNOHANG as u32 as u64),
    ("WUNTRACED", crate::uapi::WUNTRACED as u32 as u64),
    ("WSTOPPED", crate::uapi::WSTOPPED as u32 as u64),
    ("WEXITED", crate::uapi::WEXITED as u32 as u64),
    ("WCONTINUED", crate::uapi::WCONTINUED as u32 as u64),
    ("WNOWAIT", crate::uapi::WNOWAIT as u32 as u64),
    ("__WNOTHREAD", crate::uapi::__WNOTHREAD as u32 as u64),
    ("__WALL", crate::uapi::__WALL as u32 as u64),
    ("__WCLONE", crate::uapi::__WCLONE as u32 as u64),
];

/// waitid() id types (`P_*`).
pub const ID_TYPES: &[(&str, u64)] = &[
    ("P_ALL", crate::uapi::P_ALL as u32 as u64),
    ("P_PID", crate::uapi::P_PID as u32 as u64),
    ("P_PGID", crate::uapi::P_PGID as u32 as u64),
    ("P_PIDFD", crate::uapi::P_PIDFD as u32 as u64),
];

/// `PTRACE_EVENT_*` codes, shown in a wait status as `EVENT << 16`.
pub const PTRACE_EVENTS: &[(&str, u64)] = &[
    (
        "PTRACE_EVENT_FORK",
        crate::task::ptrace::event::PTRACE_EVENT_FORK as u32 as u64,
    ),
    (
        "PTRACE_EVENT_VFORK",
        crate::task::ptrace::event::PTRACE_EVENT_VFORK as u32 as u64,
    ),
    (
        "PTRACE_EVENT_CLONE",
        crate::task::ptrace::event::PTRACE_EVENT_CLONE as u32 as u64,
    ),
    (
        "PTRACE_EVENT_EXEC",
        crate::task::ptrace::event::PTRACE_EVENT_EXEC as u32 as u64,
    ),
    (
        "PTRACE_EVENT_VFORK_DONE",
        crate::task::ptrace::event::PTRACE_EVENT_VFORK_DONE as u32 as u64,
    ),
    (
        "PTRACE_EVENT_EXIT",
        crate::task::ptrace::event::PTRACE_EVENT_EXIT as u32 as u64,
    ),
    ("PTRACE_EVENT_SECCOMP", 7),
    ("PTRACE_EVENT_STOP", 128),
];

/// `sa_flags` bits of rt_sigaction() on x86_64.
pub const SA_FLAGS: &[(&str, u64)] = &[
    ("SA_NOCLDSTOP", crate::uapi::SA_NOCLDSTOP),
    ("SA_NOCLDWAIT", crate::uapi::SA_NOCLDWAIT),
    ("SA_SIGINFO", crate::uapi::SA_SIGINFO),
    ("SA_UNSUPPORTED", 0x400),
    ("SA_EXPOSE_TAGBITS", crate::uapi::SA_EXPOSE_TAGBITS),
    ("SA_RESTORER", crate::uapi::SA_RESTORER),
    ("SA_ONSTACK", crate::uapi::SA_ONSTACK),
    ("SA_RESTART", crate::uapi::SA_RESTART),
    ("SA_NODEFER", crate::uapi::SA_NODEFER),
    ("SA_NOMASK", 0x4000_0000),
    ("SA_RESETHAND", crate::uapi::SA_RESETHAND),
    ("SA_ONESHOT", 0x8000_0000),
];

/// `si_code` names (`include/uapi/asm-generic/siginfo.h`). The per-signal
/// codes reuse small numbers; their names are unique, so one table serves.
pub const SI_CODES: &[(&str, i64)] = &[
    ("SI_USER", crate::uapi::SI_USER as i64),
    ("SI_KERNEL", crate::uapi::SI_KERNEL as i64),
    ("SI_QUEUE", crate::uapi::SI_QUEUE as i64),
    ("SI_TIMER", -2),
    ("SI_MESGQ", -3),
    ("SI_ASYNCIO", -4),
    ("SI_SIGIO", -5),
    ("SI_TKILL", crate::uapi::SI_TKILL as i64),
    ("SI_DETHREAD", -7),
    ("SI_ASYNCNL", -60),
    ("CLD_EXITED", crate::uapi::CLD_EXITED as i64),
    ("CLD_KILLED", crate::uapi::CLD_KILLED as i64),
    ("CLD_DUMPED", crate::uapi::CLD_DUMPED as i64),
    ("CLD_TRAPPED", crate::uapi::CLD_TRAPPED as i64),
    ("CLD_STOPPED", crate::uapi::CLD_STOPPED as i64),
    ("CLD_CONTINUED", crate::uapi::CLD_CONTINUED as i64),
    ("SEGV_MAPERR", 1),
    ("SEGV_ACCERR", 2),
    ("SEGV_BNDERR", 3),
    ("SEGV_PKUERR", 4),
    ("SEGV_ACCADI", 5),
    ("SEGV_ADIDERR", 6),
    ("SEGV_ADIPERR", 7),
    ("SEGV_MTEAERR", 8),
    ("SEGV_MTESERR", 9),
    ("SEGV_CPERR", 10),
    ("BUS_ADRALN", 1),
    ("BUS_ADRERR", 2),
    ("BUS_OBJERR", 3),
    ("BUS_MCEERR_AR", 4),
    ("BUS_MCEERR_AO", 5),
    ("ILL_ILLOPC", 1),
    ("ILL_ILLOPN", 2),
    ("ILL_ILLADR", 3),
    ("ILL_ILLTRP", 4),
    ("ILL_PRVOPC", 5),
    ("ILL_PRVREG", 6),
    ("ILL_COPROC", 7),
    ("ILL_BADSTK", 8),
    ("ILL_BADIADDR", 9),
    ("FPE_INTDIV", 1),
    ("FPE_INTOVF", 2),
    ("FPE_FLTDIV", 3),
    ("FPE_FLTOVF", 4),
    ("FPE_FLTUND", 5),
    ("FPE_FLTRES", 6),
    ("FPE_FLTINV", 7),
    ("FPE_FLTSUB", 8),
    ("FPE_FLTUNK", 14),
    ("FPE_CONDTRAP", 15),
    ("TRAP_BRKPT", 1),
    ("TRAP_TRACE", 2),
    ("TRAP_BRANCH", 3),
    ("TRAP_HWBKPT", 4),
    ("TRAP_UNK", 5),
    ("TRAP_PERF", 6),
    ("POLL_IN", 1),
    ("POLL_OUT", 2),
    ("POLL_MSG", 3),
    ("POLL_ERR", 4),
    ("POLL_PRI", 5),
    ("POLL_HUP", 6),
    ("SYS_SECCOMP", 1),
    ("SYS_USER_DISPATCH", 2),
];

/// `prctl(PR_SET_DUMPABLE)`'s argument by name
/// (include/linux/sched/coredump.h `SUID_DUMP_*`).
pub const SUID_DUMP: &[(&str, u64)] = &[
    ("SUID_DUMP_DISABLE", 0),
    ("SUID_DUMP_USER", 1),
    ("SUID_DUMP_ROOT", 2),
];

/// prctl(2) options (`include/uapi/linux/prctl.h`).
pub const PRCTL_OPTIONS: &[(&str, u64)] = &[
    ("PR_SET_PDEATHSIG", nr::PR_SET_PDEATHSIG),
    ("PR_GET_PDEATHSIG", nr::PR_GET_PDEATHSIG),
    ("PR_GET_DUMPABLE", nr::PR_GET_DUMPABLE),
    ("PR_SET_DUMPABLE", nr::PR_SET_DUMPABLE),
    ("PR_GET_UNALIGN", 5),
    ("PR_SET_UNALIGN", 6),
    ("PR_GET_KEEPCAPS", nr::PR_GET_KEEPCAPS),
    ("PR_SET_KEEPCAPS", nr::PR_SET_KEEPCAPS),
    ("PR_GET_FPEMU", 9),
    ("PR_SET_FPEMU", 10),
    ("PR_GET_FPEXC", 11),
    ("PR_SET_FPEXC", 12),
    ("PR_GET_TIMING", 13),
    ("PR_SET_TIMING", 14),
    ("PR_SET_NAME", nr::PR_SET_NAME),
    ("PR_GET_NAME", nr::PR_GET_NAME),
    ("PR_GET_ENDIAN", 19),
    ("PR_SET_ENDIAN", 20),
    ("PR_GET_SECCOMP", 21),
    ("PR_SET_SECCOMP", 22),
    ("PR_CAPBSET_READ", nr::PR_CAPBSET_READ),
    ("PR_CAPBSET_DROP", nr::PR_CAPBSET_DROP),
    ("PR_GET_TSC", 25),
    ("PR_SET_TSC", 26),
    ("PR_GET_SECUREBITS", nr::PR_GET_SECUREBITS),
    ("PR_SET_SECUREBITS", nr::PR_SET_SECUREBITS),
    ("PR_SET_TIMERSLACK", 29),
    ("PR_GET_TIMERSLACK", 30),
    ("PR_TASK_PERF_EVENTS_DISABLE", 31),
    ("PR_TASK_PERF_EVENTS_ENABLE", 32),
    ("PR_MCE_KILL", 33),
    ("PR_MCE_KILL_GET", 34),
    ("PR_SET_MM", 35),
    (
        "PR_SET_CHILD_SUBREAPER",
        crate::uapi::PR_SET_CHILD_SUBREAPER as u32 as u64,
    ),
    (
        "PR_GET_CHILD_SUBREAPER",
        crate::uapi::PR_GET_CHILD_SUBREAPER as u32 as u64,
    ),
    ("PR_SET_NO_NEW_PRIVS", nr::PR_SET_NO_NEW_PRIVS),
    ("PR_GET_NO_NEW_PRIVS", nr::PR_GET_NO_NEW_PRIVS),
    ("PR_GET_TID_ADDRESS", 40),
    ("PR_SET_THP_DISABLE", 41),
    ("PR_GET_THP_DISABLE", 42),
    ("PR_MPX_ENABLE_MANAGEMENT", 43),
    ("PR_MPX_DISABLE_MANAGEMENT", 44),
    ("PR_SET_FP_MODE", 45),
    ("PR_GET_FP_MODE", 46),
    ("PR_CAP_AMBIENT", nr::PR_CAP_AMBIENT),
    ("PR_SVE_SET_VL", 50),
    ("PR_SVE_GET_VL", 51),
    ("PR_GET_SPECULATION_CTRL", 52),
    ("PR_SET_SPECULATION_CTRL", 53),
    ("PR_PAC_RESET_KEYS", 54),
    ("PR_SET_TAGGED_ADDR_CTRL", 55),
    ("PR_GET_TAGGED_ADDR_CTRL", 56),
    ("PR_SET_IO_FLUSHER", 57),
    ("PR_GET_IO_FLUSHER", 58),
    ("PR_SET_SYSCALL_USER_DISPATCH", 59),
    ("PR_PAC_SET_ENABLED_KEYS", 60),
    ("PR_PAC_GET_ENABLED_KEYS", 61),
    ("PR_SCHED_CORE", 62),
    ("PR_SME_SET_VL", 63),
    ("PR_SME_GET_VL", 64),
    ("PR_SET_MDWE", 65),
    ("PR_GET_MDWE", 66),
    ("PR_SET_MEMORY_MERGE", 67),
    ("PR_GET_MEMORY_MERGE", 68),
    ("PR_RISCV_V_SET_CONTROL", 69),
    ("PR_RISCV_V_GET_CONTROL", 70),
    ("PR_RISCV_SET_ICACHE_FLUSH_CTX", 71),
    ("PR_PPC_GET_DEXCR", 72),
    ("PR_PPC_SET_DEXCR", 73),
    ("PR_GET_SHADOW_STACK_STATUS", 74),
    ("PR_SET_SHADOW_STACK_STATUS", 75),
    ("PR_LOCK_SHADOW_STACK_STATUS", 76),
    ("PR_TIMER_CREATE_RESTORE_IDS", 77),
    ("PR_FUTEX_HASH", 78),
    ("PR_SET_VMA", 0x53564d41),
    ("PR_SET_PTRACER", 0x59616d61),
    ("PR_GET_AUXV", 0x41555856),
];

/// ptrace() requests (`include/uapi/linux/ptrace.h`, x86_64 additions).
pub const PTRACE_REQUESTS: &[(&str, u64)] = &[
    ("PTRACE_TRACEME", nr::PTRACE_TRACEME),
    ("PTRACE_PEEKTEXT", 1),
    ("PTRACE_PEEKDATA", 2),
    ("PTRACE_PEEKUSER", 3),
    ("PTRACE_POKETEXT", 4),
    ("PTRACE_POKEDATA", 5),
    ("PTRACE_POKEUSER", 6),
    ("PTRACE_CONT", nr::PTRACE_CONT),
    ("PTRACE_KILL", 8),
    ("PTRACE_SINGLESTEP", 9),
    ("PTRACE_GETREGS", 12),
    ("PTRACE_SETREGS", 13),
    ("PTRACE_GETFPREGS", 14),
    ("PTRACE_SETFPREGS", 15),
    ("PTRACE_ATTACH", nr::PTRACE_ATTACH),
    ("PTRACE_DETACH", nr::PTRACE_DETACH),
    ("PTRACE_GETFPXREGS", 18),
    ("PTRACE_SETFPXREGS", 19),
    ("PTRACE_SYSCALL", nr::PTRACE_SYSCALL),
    ("PTRACE_GET_THREAD_AREA", 25),
    ("PTRACE_SET_THREAD_AREA", 26),
    ("PTRACE_ARCH_PRCTL", 30),
    ("PTRACE_SYSEMU", 31),
    ("PTRACE_SYSEMU_SINGLESTEP", 32),
    ("PTRACE_SINGLEBLOCK", 33),
    ("PTRACE_SETOPTIONS", nr::PTRACE_SETOPTIONS),
    ("PTRACE_GETEVENTMSG", nr::PTRACE_GETEVENTMSG),
    ("PTRACE_GETSIGINFO", nr::PTRACE_GETSIGINFO),
    ("PTRACE_SETSIGINFO", 0x4203),
    ("PTRACE_GETREGSET", 0x4204),
    ("PTRACE_SETREGSET", 0x4205),
    ("PTRACE_SEIZE", nr::PTRACE_SEIZE),
    ("PTRACE_INTERRUPT", nr::PTRACE_INTERRUPT),
    ("PTRACE_LISTEN", nr::PTRACE_LISTEN),
    ("PTRACE_PEEKSIGINFO", 0x4209),
    ("PTRACE_GETSIGMASK", 0x420a),
    ("PTRACE_SETSIGMASK", 0x420b),
    ("PTRACE_SECCOMP_GET_FILTER", 0x420c),
    ("PTRACE_SECCOMP_GET_METADATA", 0x420d),
    ("PTRACE_GET_SYSCALL_INFO", 0x420e),
    ("PTRACE_GET_RSEQ_CONFIGURATION", 0x420f),
    ("PTRACE_SET_SYSCALL_USER_DISPATCH_CONFIG", 0x4210),
    ("PTRACE_GET_SYSCALL_USER_DISPATCH_CONFIG", 0x4211),
    ("PTRACE_SET_SYSCALL_INFO", 0x4212),
];

/// `PROT_*` bits of mmap()/mprotect().
pub const PROT_FLAGS: &[(&str, u64)] = &[
    ("PROT_NONE", crate::mm::flags::PROT_NONE as u64),
    ("PROT_READ", crate::mm::flags::PROT_READ as u64),
    ("PROT_WRITE", crate::mm::flags::PROT_WRITE as u64),
    ("PROT_EXEC", crate::mm::flags::PROT_EXEC as u64),
    ("PROT_SEM", crate::mm::flags::PROT_SEM as u64),
    ("PROT_BTI", 0x10),
    ("PROT_MTE", 0x20),
    ("PROT_GROWSDOWN", crate::mm::flags::PROT_GROWSDOWN as u64),
    ("PROT_GROWSUP", crate::mm::flags::PROT_GROWSUP as u64),
];

/// `MAP_*` bits of mmap() on x86_64. strace prints huge-page sizes as
/// `21<<MAP_HUGE_SHIFT` (a shift of `MAP_HUGE_SHIFT`).
pub const MAP_FLAGS: &[(&str, u64)] = &[
    ("MAP_FILE", 0),
    ("MAP_SHARED", crate::mm::flags::MAP_SHARED as u64),
    ("MAP_PRIVATE", crate::mm::flags::MAP_PRIVATE as u64),
    (
        "MAP_SHARED_VALIDATE",
        crate::mm::flags::MAP_SHARED_VALIDATE as u64,
    ),
    ("MAP_DROPPABLE", 0x8),
    ("MAP_FIXED", crate::mm::flags::MAP_FIXED as u64),
    ("MAP_ANONYMOUS", crate::mm::flags::MAP_ANONYMOUS as u64),
    ("MAP_ANON", 0x20),
    ("MAP_32BIT", crate::mm::flags::MAP_32BIT as u64),
    ("MAP_GROWSDOWN", crate::mm::flags::MAP_GROWSDOWN as u64),
    ("MAP_DENYWRITE", crate::mm::flags::MAP_DENYWRITE as u64),
    ("MAP_EXECUTABLE", crate::mm::flags::MAP_EXECUTABLE as u64),
    ("MAP_LOCKED", crate::mm::flags::MAP_LOCKED as u64),
    ("MAP_NORESERVE", crate::mm::flags::MAP_NORESERVE as u64),
    ("MAP_POPULATE", crate::mm::flags::MAP_POPULATE as u64),
    ("MAP_NONBLOCK", crate::mm::flags::MAP_NONBLOCK as u64),
    ("MAP_STACK", crate::mm::flags::MAP_STACK as u64),
    ("MAP_HUGETLB", crate::mm::flags::MAP_HUGETLB as u64),
    ("MAP_SYNC", crate::mm::flags::MAP_SYNC as u64),
    (
        "MAP_FIXED_NOREPLACE",
        crate::mm::flags::MAP_FIXED_NOREPLACE as u64,
    ),
    (
        "MAP_UNINITIALIZED",
        crate::mm::flags::MAP_UNINITIALIZED as u64,
    ),
    ("MAP_HUGE_SHIFT", 26),
];

/// mremap() flags.
pub const MREMAP_FLAGS: &[(&str, u64)] = &[
    ("MREMAP_MAYMOVE", crate::mm::flags::MREMAP_MAYMOVE as u64),
    ("MREMAP_FIXED", crate::mm::flags::MREMAP_FIXED as u64),
    (
        "MREMAP_DONTUNMAP",
        crate::mm::flags::MREMAP_DONTUNMAP as u64,
    ),
];

/// `AT_*` constants seen in execveat().
pub const AT_CONSTS: &[(&str, u64)] = &[
    ("AT_SYMLINK_NOFOLLOW", 0x100),
    ("AT_EMPTY_PATH", 0x1000),
    ("AT_EXECVE_CHECK", 0x10000),
];

/// `pidfd_open` flags (include/uapi/linux/pidfd.h).
pub const PIDFD_FLAGS: &[(&str, u64)] = &[
    ("PIDFD_NONBLOCK", crate::uapi::PIDFD_NONBLOCK as u64),
    ("PIDFD_THREAD", crate::uapi::PIDFD_THREAD as u64),
];

/// `pidfd_send_signal` flags.
pub const PIDFD_SIGNAL_FLAGS: &[(&str, u64)] = &[
    (
        "PIDFD_SIGNAL_THREAD",
        crate::uapi::PIDFD_SIGNAL_THREAD as u64,
    ),
    (
        "PIDFD_SIGNAL_THREAD_GROUP",
        crate::uapi::PIDFD_SIGNAL_THREAD_GROUP as u64,
    ),
    (
        "PIDFD_SIGNAL_PROCESS_GROUP",
        crate::uapi::PIDFD_SIGNAL_PROCESS_GROUP as u64,
    ),
];

/// `RLIMIT_*` (include/uapi/asm-generic/resource.h).
pub const RLIMITS: &[(&str, u64)] = &[
    ("RLIMIT_CPU", crate::uapi::RLIMIT_CPU as u64),
    ("RLIMIT_FSIZE", crate::uapi::RLIMIT_FSIZE as u64),
    ("RLIMIT_DATA", crate::uapi::RLIMIT_DATA as u64),
    ("RLIMIT_STACK", crate::uapi::RLIMIT_STACK as u64),
    ("RLIMIT_CORE", crate::uapi::RLIMIT_CORE as u64),
    ("RLIMIT_RSS", crate::uapi::RLIMIT_RSS as u64),
    ("RLIMIT_NPROC", crate::uapi::RLIMIT_NPROC as u64),
    ("RLIMIT_NOFILE", crate::uapi::RLIMIT_NOFILE as u64),
    ("RLIMIT_MEMLOCK", crate::uapi::RLIMIT_MEMLOCK as u64),
    ("RLIMIT_AS", crate::uapi::RLIMIT_AS as u64),
    ("RLIMIT_LOCKS", crate::uapi::RLIMIT_LOCKS as u64),
    ("RLIMIT_SIGPENDING", crate::uapi::RLIMIT_SIGPENDING as u64),
    ("RLIMIT_MSGQUEUE", crate::uapi::RLIMIT_MSGQUEUE as u64),
    ("RLIMIT_NICE", crate::uapi::RLIMIT_NICE as u64),
    ("RLIMIT_RTPRIO", crate::uapi::RLIMIT_RTPRIO as u64),
    ("RLIMIT_RTTIME", crate::uapi::RLIMIT_RTTIME as u64),
];

/// The other names of capget/capset and the capability prctls: versions,
/// `SECBIT_*` (include/uapi/linux/securebits.h), `PR_CAP_AMBIENT_*`.
pub const CAP_SYMBOLS: &[(&str, u64)] = &[
    ("_LINUX_CAPABILITY_VERSION_1", 0x1998_0330),
    ("_LINUX_CAPABILITY_VERSION_2", 0x2007_1026),
    ("_LINUX_CAPABILITY_VERSION_3", 0x2008_0522),
    (
        "SECBIT_NOROOT",
        crate::task::state::capability::SECBIT_NOROOT as u64,
    ),
    (
        "SECBIT_NOROOT_LOCKED",
        crate::task::state::capability::SECBIT_NOROOT_LOCKED as u64,
    ),
    (
        "SECBIT_NO_SETUID_FIXUP",
        crate::task::state::capability::SECBIT_NO_SETUID_FIXUP as u64,
    ),
    (
        "SECBIT_NO_SETUID_FIXUP_LOCKED",
        crate::task::state::capability::SECBIT_NO_SETUID_FIXUP_LOCKED as u64,
    ),
    (
        "SECBIT_KEEP_CAPS",
        crate::task::state::capability::SECBIT_KEEP_CAPS as u64,
    ),
    (
        "SECBIT_KEEP_CAPS_LOCKED",
        crate::task::state::capability::SECBIT_KEEP_CAPS_LOCKED as u64,
    ),
    (
        "SECBIT_NO_CAP_AMBIENT_RAISE",
        crate::task::state::capability::SECBIT_NO_CAP_AMBIENT_RAISE as u64,
    ),
    (
        "SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED",
        crate::task::state::capability::SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED as u64,
    ),
    (
        "SECBIT_EXEC_RESTRICT_FILE",
        crate::task::state::capability::SECBIT_EXEC_RESTRICT_FILE as u64,
    ),
    (
        "SECBIT_EXEC_RESTRICT_FILE_LOCKED",
        crate::task::state::capability::SECBIT_EXEC_RESTRICT_FILE_LOCKED as u64,
    ),
    (
        "SECBIT_EXEC_DENY_INTERACTIVE",
        crate::task::state::capability::SECBIT_EXEC_DENY_INTERACTIVE as u64,
    ),
    (
        "SECBIT_EXEC_DENY_INTERACTIVE_LOCKED",
        crate::task::state::capability::SECBIT_EXEC_DENY_INTERACTIVE_LOCKED as u64,
    ),
    ("PR_CAP_AMBIENT_IS_SET", 1),
    ("PR_CAP_AMBIENT_RAISE", 2),
    ("PR_CAP_AMBIENT_LOWER", 3),
    ("PR_CAP_AMBIENT_CLEAR_ALL", 4),
];
