//! Symbolic constants strace prints, mapped to their x86_64 Linux values.
//!
//! Every table is a sorted-by-nothing slice of `(name, value)` pairs searched
//! linearly: they are short (at most ~140 entries) and only consulted for the
//! few process-related syscalls, so a linear scan is cheaper than building a
//! map. Names are exactly as strace 6.x prints them.
//!
//! # Linux
//! Values from `include/uapi/asm-generic/errno*.h`, `include/linux/errno.h`
//! (kernel-internal restart codes), `arch/x86/include/uapi/asm/signal.h`,
//! `include/uapi/linux/sched.h`, `include/uapi/linux/wait.h`,
//! `include/uapi/asm-generic/siginfo.h`, `include/uapi/linux/prctl.h`,
//! `include/uapi/linux/ptrace.h`, `include/uapi/asm-generic/mman*.h` and
//! `include/uapi/linux/mman.h`.

/// Looks `name` up in `table`.
pub(crate) fn lookup(table: &[(&str, u64)], name: &str) -> Option<u64> {
    table.iter().find(|(n, _)| *n == name).map(|&(_, v)| v)
}

/// Classic signal names (with the `SIG` prefix) and their x86_64 numbers.
/// Real-time signals are handled by [`signal_number`]: strace names them
/// `SIGRTMIN` (32) and `SIGRT_n` (32 + n).
const SIGNALS: &[(&str, u64)] = &[
    ("SIGHUP", 1),
    ("SIGINT", 2),
    ("SIGQUIT", 3),
    ("SIGILL", 4),
    ("SIGTRAP", 5),
    ("SIGABRT", 6),
    ("SIGIOT", 6),
    ("SIGBUS", 7),
    ("SIGFPE", 8),
    ("SIGKILL", 9),
    ("SIGUSR1", 10),
    ("SIGSEGV", 11),
    ("SIGUSR2", 12),
    ("SIGPIPE", 13),
    ("SIGALRM", 14),
    ("SIGTERM", 15),
    ("SIGSTKFLT", 16),
    ("SIGCHLD", 17),
    ("SIGCLD", 17),
    ("SIGCONT", 18),
    ("SIGSTOP", 19),
    ("SIGTSTP", 20),
    ("SIGTTIN", 21),
    ("SIGTTOU", 22),
    ("SIGURG", 23),
    ("SIGXCPU", 24),
    ("SIGXFSZ", 25),
    ("SIGVTALRM", 26),
    ("SIGPROF", 27),
    ("SIGWINCH", 28),
    ("SIGIO", 29),
    ("SIGPOLL", 29),
    ("SIGPWR", 30),
    ("SIGSYS", 31),
    ("SIGUNUSED", 31),
];

/// `SIGRTMIN` as the kernel (and strace) numbers it on x86_64.
const SIGRTMIN: i32 = 32;
/// `SIGRTMAX` (`_NSIG`) on x86_64.
const SIGRTMAX: i32 = 64;

/// The number of signal `name` as strace prints it: `SIGCHLD`, `SIGRTMIN`,
/// `SIGRT_3`, `SIGRTMAX`, or (inside signal sets, where strace drops the
/// prefix) `CHLD`, `RTMIN`, `RT_3`. A bare decimal number is accepted too.
///
/// Returns `None` for anything else, including numbers outside `0..=64`.
pub fn signal_number(name: &str) -> Option<i32> {
    if let Ok(n) = name.parse::<i32>() {
        return (0..=SIGRTMAX).contains(&n).then_some(n);
    }
    let bare = name.strip_prefix("SIG").unwrap_or(name);
    match bare {
        "RTMIN" => return Some(SIGRTMIN),
        "RTMAX" => return Some(SIGRTMAX),
        _ => {}
    }
    if let Some(k) = bare.strip_prefix("RT_") {
        let k: i32 = k.parse().ok()?;
        let n = SIGRTMIN.checked_add(k)?;
        return (n <= SIGRTMAX).then_some(n);
    }
    SIGNALS
        .iter()
        .find(|(n, _)| &n[3..] == bare)
        .map(|&(_, v)| v as i32)
}

/// `CLONE_*` flag bits (`include/uapi/linux/sched.h`). `CLONE_NEWTIME`
/// (0x80) lives in the exit-signal byte and is only valid for clone3().
pub(crate) const CLONE_FLAGS: &[(&str, u64)] = &[
    ("CLONE_NEWTIME", 0x80),
    ("CLONE_VM", 0x100),
    ("CLONE_FS", 0x200),
    ("CLONE_FILES", 0x400),
    ("CLONE_SIGHAND", 0x800),
    ("CLONE_PIDFD", 0x1000),
    ("CLONE_PTRACE", 0x2000),
    ("CLONE_VFORK", 0x4000),
    ("CLONE_PARENT", 0x8000),
    ("CLONE_THREAD", 0x10000),
    ("CLONE_NEWNS", 0x20000),
    ("CLONE_SYSVSEM", 0x40000),
    ("CLONE_SETTLS", 0x80000),
    ("CLONE_PARENT_SETTID", 0x100000),
    ("CLONE_CHILD_CLEARTID", 0x200000),
    ("CLONE_DETACHED", 0x400000),
    ("CLONE_UNTRACED", 0x800000),
    ("CLONE_CHILD_SETTID", 0x1000000),
    ("CLONE_NEWCGROUP", 0x2000000),
    ("CLONE_NEWUTS", 0x4000000),
    ("CLONE_NEWIPC", 0x8000000),
    ("CLONE_NEWUSER", 0x10000000),
    ("CLONE_NEWPID", 0x20000000),
    ("CLONE_NEWNET", 0x40000000),
    ("CLONE_IO", 0x80000000),
    ("CLONE_CLEAR_SIGHAND", 0x100000000),
    ("CLONE_INTO_CGROUP", 0x200000000),
];

/// wait4()/waitid() option bits (`include/uapi/linux/wait.h`).
pub(crate) const WAIT_OPTIONS: &[(&str, u64)] = &[
    ("WNOHANG", 0x1),
    ("WUNTRACED", 0x2),
    ("WSTOPPED", 0x2),
    ("WEXITED", 0x4),
    ("WCONTINUED", 0x8),
    ("WNOWAIT", 0x0100_0000),
    ("__WNOTHREAD", 0x2000_0000),
    ("__WALL", 0x4000_0000),
    ("__WCLONE", 0x8000_0000),
];

/// waitid() id types (`P_*`).
pub(crate) const ID_TYPES: &[(&str, u64)] =
    &[("P_ALL", 0), ("P_PID", 1), ("P_PGID", 2), ("P_PIDFD", 3)];

/// `PTRACE_EVENT_*` codes, shown in a wait status as `EVENT << 16`.
pub(crate) const PTRACE_EVENTS: &[(&str, u64)] = &[
    ("PTRACE_EVENT_FORK", 1),
    ("PTRACE_EVENT_VFORK", 2),
    ("PTRACE_EVENT_CLONE", 3),
    ("PTRACE_EVENT_EXEC", 4),
    ("PTRACE_EVENT_VFORK_DONE", 5),
    ("PTRACE_EVENT_EXIT", 6),
    ("PTRACE_EVENT_SECCOMP", 7),
    ("PTRACE_EVENT_STOP", 128),
];

/// `sa_flags` bits of rt_sigaction() on x86_64.
pub(crate) const SA_FLAGS: &[(&str, u64)] = &[
    ("SA_NOCLDSTOP", 0x1),
    ("SA_NOCLDWAIT", 0x2),
    ("SA_SIGINFO", 0x4),
    ("SA_UNSUPPORTED", 0x400),
    ("SA_EXPOSE_TAGBITS", 0x800),
    ("SA_RESTORER", 0x0400_0000),
    ("SA_ONSTACK", 0x0800_0000),
    ("SA_RESTART", 0x1000_0000),
    ("SA_NODEFER", 0x4000_0000),
    ("SA_NOMASK", 0x4000_0000),
    ("SA_RESETHAND", 0x8000_0000),
    ("SA_ONESHOT", 0x8000_0000),
];

/// `si_code` names (`include/uapi/asm-generic/siginfo.h`). The per-signal
/// codes reuse small numbers; their names are unique, so one table serves.
pub(crate) const SI_CODES: &[(&str, i64)] = &[
    ("SI_USER", 0),
    ("SI_KERNEL", 0x80),
    ("SI_QUEUE", -1),
    ("SI_TIMER", -2),
    ("SI_MESGQ", -3),
    ("SI_ASYNCIO", -4),
    ("SI_SIGIO", -5),
    ("SI_TKILL", -6),
    ("SI_DETHREAD", -7),
    ("SI_ASYNCNL", -60),
    ("CLD_EXITED", 1),
    ("CLD_KILLED", 2),
    ("CLD_DUMPED", 3),
    ("CLD_TRAPPED", 4),
    ("CLD_STOPPED", 5),
    ("CLD_CONTINUED", 6),
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

/// The value of `si_code` name `name`.
pub(crate) fn si_code(name: &str) -> Option<i64> {
    SI_CODES.iter().find(|(n, _)| *n == name).map(|&(_, v)| v)
}

/// prctl() options (`include/uapi/linux/prctl.h`).
/// `prctl(PR_SET_DUMPABLE)`'s argument as strace names it
/// (include/linux/sched/coredump.h `SUID_DUMP_*`).
pub(crate) const SUID_DUMP: &[(&str, u64)] = &[
    ("SUID_DUMP_DISABLE", 0),
    ("SUID_DUMP_USER", 1),
    ("SUID_DUMP_ROOT", 2),
];

pub(crate) const PRCTL_OPTIONS: &[(&str, u64)] = &[
    ("PR_SET_PDEATHSIG", 1),
    ("PR_GET_PDEATHSIG", 2),
    ("PR_GET_DUMPABLE", 3),
    ("PR_SET_DUMPABLE", 4),
    ("PR_GET_UNALIGN", 5),
    ("PR_SET_UNALIGN", 6),
    ("PR_GET_KEEPCAPS", 7),
    ("PR_SET_KEEPCAPS", 8),
    ("PR_GET_FPEMU", 9),
    ("PR_SET_FPEMU", 10),
    ("PR_GET_FPEXC", 11),
    ("PR_SET_FPEXC", 12),
    ("PR_GET_TIMING", 13),
    ("PR_SET_TIMING", 14),
    ("PR_SET_NAME", 15),
    ("PR_GET_NAME", 16),
    ("PR_GET_ENDIAN", 19),
    ("PR_SET_ENDIAN", 20),
    ("PR_GET_SECCOMP", 21),
    ("PR_SET_SECCOMP", 22),
    ("PR_CAPBSET_READ", 23),
    ("PR_CAPBSET_DROP", 24),
    ("PR_GET_TSC", 25),
    ("PR_SET_TSC", 26),
    ("PR_GET_SECUREBITS", 27),
    ("PR_SET_SECUREBITS", 28),
    ("PR_SET_TIMERSLACK", 29),
    ("PR_GET_TIMERSLACK", 30),
    ("PR_TASK_PERF_EVENTS_DISABLE", 31),
    ("PR_TASK_PERF_EVENTS_ENABLE", 32),
    ("PR_MCE_KILL", 33),
    ("PR_MCE_KILL_GET", 34),
    ("PR_SET_MM", 35),
    ("PR_SET_CHILD_SUBREAPER", 36),
    ("PR_GET_CHILD_SUBREAPER", 37),
    ("PR_SET_NO_NEW_PRIVS", 38),
    ("PR_GET_NO_NEW_PRIVS", 39),
    ("PR_GET_TID_ADDRESS", 40),
    ("PR_SET_THP_DISABLE", 41),
    ("PR_GET_THP_DISABLE", 42),
    ("PR_MPX_ENABLE_MANAGEMENT", 43),
    ("PR_MPX_DISABLE_MANAGEMENT", 44),
    ("PR_SET_FP_MODE", 45),
    ("PR_GET_FP_MODE", 46),
    ("PR_CAP_AMBIENT", 47),
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
pub(crate) const PTRACE_REQUESTS: &[(&str, u64)] = &[
    ("PTRACE_TRACEME", 0),
    ("PTRACE_PEEKTEXT", 1),
    ("PTRACE_PEEKDATA", 2),
    ("PTRACE_PEEKUSER", 3),
    ("PTRACE_POKETEXT", 4),
    ("PTRACE_POKEDATA", 5),
    ("PTRACE_POKEUSER", 6),
    ("PTRACE_CONT", 7),
    ("PTRACE_KILL", 8),
    ("PTRACE_SINGLESTEP", 9),
    ("PTRACE_GETREGS", 12),
    ("PTRACE_SETREGS", 13),
    ("PTRACE_GETFPREGS", 14),
    ("PTRACE_SETFPREGS", 15),
    ("PTRACE_ATTACH", 16),
    ("PTRACE_DETACH", 17),
    ("PTRACE_GETFPXREGS", 18),
    ("PTRACE_SETFPXREGS", 19),
    ("PTRACE_SYSCALL", 24),
    ("PTRACE_GET_THREAD_AREA", 25),
    ("PTRACE_SET_THREAD_AREA", 26),
    ("PTRACE_ARCH_PRCTL", 30),
    ("PTRACE_SYSEMU", 31),
    ("PTRACE_SYSEMU_SINGLESTEP", 32),
    ("PTRACE_SINGLEBLOCK", 33),
    ("PTRACE_SETOPTIONS", 0x4200),
    ("PTRACE_GETEVENTMSG", 0x4201),
    ("PTRACE_GETSIGINFO", 0x4202),
    ("PTRACE_SETSIGINFO", 0x4203),
    ("PTRACE_GETREGSET", 0x4204),
    ("PTRACE_SETREGSET", 0x4205),
    ("PTRACE_SEIZE", 0x4206),
    ("PTRACE_INTERRUPT", 0x4207),
    ("PTRACE_LISTEN", 0x4208),
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
pub(crate) const PROT_FLAGS: &[(&str, u64)] = &[
    ("PROT_NONE", 0),
    ("PROT_READ", 0x1),
    ("PROT_WRITE", 0x2),
    ("PROT_EXEC", 0x4),
    ("PROT_SEM", 0x8),
    ("PROT_BTI", 0x10),
    ("PROT_MTE", 0x20),
    ("PROT_GROWSDOWN", 0x0100_0000),
    ("PROT_GROWSUP", 0x0200_0000),
];

/// `MAP_*` bits of mmap() on x86_64. strace prints huge-page sizes as
/// `21<<MAP_HUGE_SHIFT`, which [`super::args`] evaluates as a shift.
pub(crate) const MAP_FLAGS: &[(&str, u64)] = &[
    ("MAP_FILE", 0),
    ("MAP_SHARED", 0x1),
    ("MAP_PRIVATE", 0x2),
    ("MAP_SHARED_VALIDATE", 0x3),
    ("MAP_DROPPABLE", 0x8),
    ("MAP_FIXED", 0x10),
    ("MAP_ANONYMOUS", 0x20),
    ("MAP_ANON", 0x20),
    ("MAP_32BIT", 0x40),
    ("MAP_GROWSDOWN", 0x100),
    ("MAP_DENYWRITE", 0x800),
    ("MAP_EXECUTABLE", 0x1000),
    ("MAP_LOCKED", 0x2000),
    ("MAP_NORESERVE", 0x4000),
    ("MAP_POPULATE", 0x8000),
    ("MAP_NONBLOCK", 0x10000),
    ("MAP_STACK", 0x20000),
    ("MAP_HUGETLB", 0x40000),
    ("MAP_SYNC", 0x80000),
    ("MAP_FIXED_NOREPLACE", 0x100000),
    ("MAP_UNINITIALIZED", 0x4000000),
    ("MAP_HUGE_SHIFT", 26),
];

/// mremap() flags.
pub(crate) const MREMAP_FLAGS: &[(&str, u64)] = &[
    ("MREMAP_MAYMOVE", 1),
    ("MREMAP_FIXED", 2),
    ("MREMAP_DONTUNMAP", 4),
];

/// `AT_*` constants seen in execveat().
pub(crate) const AT_CONSTS: &[(&str, u64)] = &[
    ("AT_SYMLINK_NOFOLLOW", 0x100),
    ("AT_EMPTY_PATH", 0x1000),
    ("AT_EXECVE_CHECK", 0x10000),
];

/// `AT_FDCWD` as an int.
pub(crate) const AT_FDCWD: i32 = -100;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signal_names_map_to_x86_64_numbers() {
        assert_eq!(signal_number("SIGCHLD"), Some(17));
        assert_eq!(signal_number("CHLD"), Some(17));
        assert_eq!(signal_number("SIGKILL"), Some(9));
        assert_eq!(signal_number("SIGSTOP"), Some(19));
        assert_eq!(signal_number("SIGRTMIN"), Some(32));
        assert_eq!(signal_number("RTMIN"), Some(32));
        assert_eq!(signal_number("SIGRT_1"), Some(33));
        assert_eq!(signal_number("RT_1"), Some(33));
        assert_eq!(signal_number("SIGRT_32"), Some(64));
        assert_eq!(signal_number("SIGRT_33"), None);
        assert_eq!(signal_number("SIGRTMAX"), Some(64));
        assert_eq!(signal_number("0"), Some(0));
        assert_eq!(signal_number("65"), None);
        assert_eq!(signal_number("SIGFOO"), None);
        assert_eq!(signal_number(""), None);
    }

    #[test]
    fn every_signal_name_round_trips_to_a_distinct_number_except_aliases() {
        // Aliases share numbers; everything else is unique and in 1..=31.
        let aliases = ["SIGIOT", "SIGCLD", "SIGPOLL", "SIGUNUSED"];
        let mut seen = std::collections::BTreeSet::new();
        for (name, v) in SIGNALS {
            assert!((1..=31).contains(v), "{name}");
            if !aliases.contains(name) {
                assert!(seen.insert(*v), "duplicate number for {name}");
            }
            assert_eq!(signal_number(name), Some(*v as i32));
        }
        assert_eq!(seen.len(), 31);
    }

    #[test]
    fn flag_tables_have_single_bits_except_documented_composites() {
        for table in [CLONE_FLAGS, SA_FLAGS] {
            for (name, v) in table {
                assert_eq!(v.count_ones(), 1, "{name}");
            }
        }
        assert_eq!(lookup(WAIT_OPTIONS, "__WCLONE"), Some(0x8000_0000));
        assert_eq!(si_code("CLD_CONTINUED"), Some(6));
        assert_eq!(si_code("SI_TKILL"), Some(-6));
    }
}
