//! Linux user-space ABI constants used by the process core.
//!
//! Values are those of x86_64 Linux (`include/uapi/linux/sched.h`,
//! `include/uapi/linux/wait.h`, `include/uapi/asm-generic/signal.h`,
//! `include/uapi/asm-generic/siginfo.h`, `include/uapi/linux/prctl.h`,
//! `include/uapi/linux/ptrace.h`). Names are Linux's.

// ---------------------------------------------------------------- pidfds

/// `pidfd_open` flag: waits on the pidfd do not block (`O_NONBLOCK`).
pub const PIDFD_NONBLOCK: u32 = 0o4000;
/// `pidfd_open` flag: the pidfd names a thread, not a process (`O_EXCL`).
pub const PIDFD_THREAD: u32 = 0o200;
/// `pidfd_send_signal` flag: signal the thread.
pub const PIDFD_SIGNAL_THREAD: u32 = 1;
/// `pidfd_send_signal` flag: signal the thread group.
pub const PIDFD_SIGNAL_THREAD_GROUP: u32 = 2;
/// `pidfd_send_signal` flag: signal the process group the pid leads.
pub const PIDFD_SIGNAL_PROCESS_GROUP: u32 = 4;

// ---------------------------------------------------------------- clone(2)

/// Share the address space (`CLONE_VM`).
pub const CLONE_VM: u64 = 0x0000_0100;
/// Share filesystem information.
pub const CLONE_FS: u64 = 0x0000_0200;
/// Share the file descriptor table.
pub const CLONE_FILES: u64 = 0x0000_0400;
/// Share signal handlers (required by `CLONE_THREAD`).
pub const CLONE_SIGHAND: u64 = 0x0000_0800;
/// Create a pidfd.
pub const CLONE_PIDFD: u64 = 0x0000_1000;
/// Let the tracer trace the child too.
pub const CLONE_PTRACE: u64 = 0x0000_2000;
/// The parent sleeps until the child execs or exits (`vfork`).
pub const CLONE_VFORK: u64 = 0x0000_4000;
/// The child's parent is the caller's parent.
pub const CLONE_PARENT: u64 = 0x0000_8000;
/// The child is a thread of the caller's thread group.
pub const CLONE_THREAD: u64 = 0x0001_0000;
/// New mount namespace.
pub const CLONE_NEWNS: u64 = 0x0002_0000;
/// Share System V semaphore undo lists.
pub const CLONE_SYSVSEM: u64 = 0x0004_0000;
/// Set the TLS.
pub const CLONE_SETTLS: u64 = 0x0008_0000;
/// Store the child tid in the parent.
pub const CLONE_PARENT_SETTID: u64 = 0x0010_0000;
/// Clear the child tid at exit.
pub const CLONE_CHILD_CLEARTID: u64 = 0x0020_0000;
/// Unused, ignored by Linux.
pub const CLONE_DETACHED: u64 = 0x0040_0000;
/// The tracer cannot force `CLONE_PTRACE`.
pub const CLONE_UNTRACED: u64 = 0x0080_0000;
/// Store the child tid in the child.
pub const CLONE_CHILD_SETTID: u64 = 0x0100_0000;
/// New cgroup namespace.
pub const CLONE_NEWCGROUP: u64 = 0x0200_0000;
/// New UTS namespace.
pub const CLONE_NEWUTS: u64 = 0x0400_0000;
/// New IPC namespace.
pub const CLONE_NEWIPC: u64 = 0x0800_0000;
/// New user namespace.
pub const CLONE_NEWUSER: u64 = 0x1000_0000;
/// New pid namespace: the child is its init (pid 1).
pub const CLONE_NEWPID: u64 = 0x2000_0000;
/// New network namespace.
pub const CLONE_NEWNET: u64 = 0x4000_0000;
/// Clone I/O context.
pub const CLONE_IO: u64 = 0x8000_0000;
/// clone3 only: clear signal handlers.
pub const CLONE_CLEAR_SIGHAND: u64 = 0x1_0000_0000;
/// clone3 only: place the child in a cgroup.
pub const CLONE_INTO_CGROUP: u64 = 0x2_0000_0000;
/// New time namespace; clone3 only (it lies in clone(2)'s signal byte).
pub const CLONE_NEWTIME: u64 = 0x0000_0080;
/// Every `CLONE_NEW*` namespace bit.
pub const CLONE_NEW_ANY: u64 = CLONE_NEWNS
    | CLONE_NEWUTS
    | CLONE_NEWIPC
    | CLONE_NEWNET
    | CLONE_NEWUSER
    | CLONE_NEWPID
    | CLONE_NEWCGROUP
    | CLONE_NEWTIME;
/// The flags clone(2) can pass (its 32-bit word, `CLONE_LEGACY_FLAGS`).
pub const CLONE_LEGACY_FLAGS: u64 = 0xffff_ffff;
/// Low byte of clone(2) flags: the exit signal (`CSIGNAL`).
pub const CSIGNAL: u64 = 0xff;

// ---------------------------------------------------------------- wait(2)

/// Do not block (`WNOHANG`).
pub const WNOHANG: i32 = 0x0000_0001;
/// Report stopped children (`WUNTRACED`, same value as `WSTOPPED`).
pub const WUNTRACED: i32 = 0x0000_0002;
/// Report stopped children (`waitid` name).
pub const WSTOPPED: i32 = WUNTRACED;
/// Report exited children (`waitid`).
pub const WEXITED: i32 = 0x0000_0004;
/// Report continued children.
pub const WCONTINUED: i32 = 0x0000_0008;
/// Leave the child waitable (`waitid` only).
pub const WNOWAIT: i32 = 0x0100_0000;
/// Only the calling thread's children, not its thread group's.
pub const __WNOTHREAD: i32 = 0x2000_0000;
/// Wait for all children, clone or not.
pub const __WALL: i32 = 0x4000_0000;
/// Wait only for clone children (exit signal other than `SIGCHLD`).
pub const __WCLONE: i32 = 0x8000_0000_u32 as i32;

/// `waitid` idtype: any child.
pub const P_ALL: i32 = 0;
/// `waitid` idtype: the child with this pid.
pub const P_PID: i32 = 1;
/// `waitid` idtype: any child in this process group (0 = the caller's).
pub const P_PGID: i32 = 2;
/// `waitid` idtype: the child a pidfd refers to.
pub const P_PIDFD: i32 = 3;

// ---------------------------------------------------------------- siginfo

/// `si_code`: child has exited.
pub const CLD_EXITED: i32 = 1;
/// `si_code`: child was killed.
pub const CLD_KILLED: i32 = 2;
/// `si_code`: child terminated abnormally (core dump).
pub const CLD_DUMPED: i32 = 3;
/// `si_code`: traced child has trapped.
pub const CLD_TRAPPED: i32 = 4;
/// `si_code`: child has stopped.
pub const CLD_STOPPED: i32 = 5;
/// `si_code`: stopped child has continued.
pub const CLD_CONTINUED: i32 = 6;

// ---------------------------------------------------------------- signals

/// Hangup.
pub const SIGHUP: i32 = 1;
/// Interrupt.
pub const SIGINT: i32 = 2;
/// Quit (core).
pub const SIGQUIT: i32 = 3;
/// Illegal instruction (core).
pub const SIGILL: i32 = 4;
/// Trace trap (core).
pub const SIGTRAP: i32 = 5;
/// Abort (core).
pub const SIGABRT: i32 = 6;
/// Bus error (core).
pub const SIGBUS: i32 = 7;
/// Floating-point exception (core).
pub const SIGFPE: i32 = 8;
/// Kill (cannot be caught or ignored).
pub const SIGKILL: i32 = 9;
/// User signal 1.
pub const SIGUSR1: i32 = 10;
/// Segmentation fault (core).
pub const SIGSEGV: i32 = 11;
/// User signal 2.
pub const SIGUSR2: i32 = 12;
/// Broken pipe.
pub const SIGPIPE: i32 = 13;
/// Alarm clock.
pub const SIGALRM: i32 = 14;
/// Termination.
pub const SIGTERM: i32 = 15;
/// Stack fault.
pub const SIGSTKFLT: i32 = 16;
/// Child status changed (ignored by default).
pub const SIGCHLD: i32 = 17;
/// Continue (ignored by default, but always continues a stopped group).
pub const SIGCONT: i32 = 18;
/// Stop (cannot be caught or ignored).
pub const SIGSTOP: i32 = 19;
/// Keyboard stop.
pub const SIGTSTP: i32 = 20;
/// Background read from tty.
pub const SIGTTIN: i32 = 21;
/// Background write to tty.
pub const SIGTTOU: i32 = 22;
/// Urgent data on socket (ignored by default).
pub const SIGURG: i32 = 23;
/// CPU limit exceeded (core).
pub const SIGXCPU: i32 = 24;
/// File size limit exceeded (core).
pub const SIGXFSZ: i32 = 25;
/// Virtual alarm clock.
pub const SIGVTALRM: i32 = 26;
/// Profiling alarm clock.
pub const SIGPROF: i32 = 27;
/// Window size change (ignored by default).
pub const SIGWINCH: i32 = 28;
/// I/O possible.
pub const SIGIO: i32 = 29;
/// Power failure.
pub const SIGPWR: i32 = 30;
/// Bad system call (core).
pub const SIGSYS: i32 = 31;
/// First real-time signal as the kernel numbers it.
pub const SIGRTMIN: i32 = 32;
/// Largest valid signal number (`_NSIG`).
pub const NSIG: i32 = 64;

/// The name of signal `sig` as strace prints it (x86_64 numbers):
/// `SIGCHLD`; 32 is `SIGRTMIN`, 33..=64 are `SIGRT_1`..`SIGRT_32`; a number
/// outside 1..=64 is written `signal N`. Never fails.
///
/// # Linux
/// The names of `arch/x86/include/uapi/asm/signal.h`; the real-time
/// notation of strace's `signame()`.
pub fn signal_name(sig: i32) -> std::borrow::Cow<'static, str> {
    const NAMES: [&str; 31] = [
        "SIGHUP",
        "SIGINT",
        "SIGQUIT",
        "SIGILL",
        "SIGTRAP",
        "SIGABRT",
        "SIGBUS",
        "SIGFPE",
        "SIGKILL",
        "SIGUSR1",
        "SIGSEGV",
        "SIGUSR2",
        "SIGPIPE",
        "SIGALRM",
        "SIGTERM",
        "SIGSTKFLT",
        "SIGCHLD",
        "SIGCONT",
        "SIGSTOP",
        "SIGTSTP",
        "SIGTTIN",
        "SIGTTOU",
        "SIGURG",
        "SIGXCPU",
        "SIGXFSZ",
        "SIGVTALRM",
        "SIGPROF",
        "SIGWINCH",
        "SIGIO",
        "SIGPWR",
        "SIGSYS",
    ];
    match sig {
        1..=31 => NAMES[sig as usize - 1].into(),
        SIGRTMIN => "SIGRTMIN".into(),
        33..=NSIG => format!("SIGRT_{}", sig - SIGRTMIN).into(),
        _ => format!("signal {sig}").into(),
    }
}

/// `sa_flags`: no SIGCHLD when children stop.
pub const SA_NOCLDSTOP: u64 = 0x0000_0001;
/// `sa_flags`: do not create zombies (autoreap).
pub const SA_NOCLDWAIT: u64 = 0x0000_0002;
/// `sa_flags`: three-argument handler.
pub const SA_SIGINFO: u64 = 0x0000_0004;
/// `sa_flags`: restore the default action after one delivery.
pub const SA_RESETHAND: u64 = 0x8000_0000;
/// `sa_flags`: run the handler on the alternate signal stack.
pub const SA_ONSTACK: u64 = 0x0800_0000;
/// `sa_flags`: restart a system call the handler interrupted.
pub const SA_RESTART: u64 = 0x1000_0000;
/// `sa_flags`: do not block the signal in its own handler.
pub const SA_NODEFER: u64 = 0x4000_0000;
/// `sa_flags` (x86): `sa_restorer` is set.
pub const SA_RESTORER: u64 = 0x0400_0000;
/// `sa_flags`: expose tag bits in `si_addr` (no effect on x86).
pub const SA_EXPOSE_TAGBITS: u64 = 0x0000_0800;
/// The `sa_flags` bits `rt_sigaction` keeps (`UAPI_SA_FLAGS` on x86); the
/// others are cleared, as Linux does.
pub const UAPI_SA_FLAGS: u64 = SA_NOCLDSTOP
    | SA_NOCLDWAIT
    | SA_SIGINFO
    | SA_ONSTACK
    | SA_RESTART
    | SA_NODEFER
    | SA_RESETHAND
    | SA_EXPOSE_TAGBITS
    | SA_RESTORER;

/// `rt_sigprocmask` `how`: add to the blocked set.
pub const SIG_BLOCK: i32 = 0;
/// `rt_sigprocmask` `how`: remove from the blocked set.
pub const SIG_UNBLOCK: i32 = 1;
/// `rt_sigprocmask` `how`: replace the blocked set.
pub const SIG_SETMASK: i32 = 2;

/// `si_code`: sent by `kill` (or `sigsend`, `raise`).
pub const SI_USER: i32 = 0;
/// `si_code`: sent by the kernel.
pub const SI_KERNEL: i32 = 0x80;
/// `si_code`: sent by `sigqueue` (`rt_sigqueueinfo`).
pub const SI_QUEUE: i32 = -1;
/// `si_code`: sent by `tkill`/`tgkill`.
pub const SI_TKILL: i32 = -6;

// ---------------------------------------------------------------- prctl, ptrace

/// `prctl` option: set or clear the child-subreaper attribute.
pub const PR_SET_CHILD_SUBREAPER: i32 = 36;
/// `prctl` option: read the child-subreaper attribute.
pub const PR_GET_CHILD_SUBREAPER: i32 = 37;

/// Size of a task's `comm` buffer including the NUL (`TASK_COMM_LEN`).
pub const TASK_COMM_LEN: usize = 16;

// ---------------------------------------------------------------- pids

/// Default `pid_max` (`PID_MAX_DEFAULT`).
pub const PID_MAX_DEFAULT: u32 = 32768;
/// Largest settable `pid_max` on 64-bit (`PID_MAX_LIMIT`).
pub const PID_MAX_LIMIT: u32 = 4 * 1024 * 1024;
/// Smallest settable `pid_max` (`RESERVED_PIDS + 1`).
pub const PID_MAX_MIN: u32 = 301;
/// Cyclic allocation restarts here after a wrap (`RESERVED_PIDS`).
pub const RESERVED_PIDS: u32 = 300;
/// Deepest pid namespace nesting (`MAX_PID_NS_LEVEL`).
pub const MAX_PID_NS_LEVEL: usize = 32;

/// Whether `sig` is a valid signal number (1..=64).
pub const fn valid_signal(sig: i32) -> bool {
    sig >= 1 && sig <= NSIG
}

/// Whether `sig`'s default action stops the thread group.
///
/// # Linux
/// `sig_kernel_stop()` (include/linux/signal.h).
pub const fn sig_kernel_stop(sig: i32) -> bool {
    matches!(sig, SIGSTOP | SIGTSTP | SIGTTIN | SIGTTOU)
}

/// Whether `sig`'s default action is to ignore it.
///
/// # Linux
/// `sig_kernel_ignore()` (include/linux/signal.h).
pub const fn sig_kernel_ignore(sig: i32) -> bool {
    matches!(sig, SIGCONT | SIGCHLD | SIGWINCH | SIGURG)
}

/// Whether `sig`'s default action terminates with a core dump.
///
/// # Linux
/// `sig_kernel_coredump()` (include/linux/signal.h).
pub const fn sig_kernel_coredump(sig: i32) -> bool {
    matches!(
        sig,
        SIGQUIT
            | SIGILL
            | SIGTRAP
            | SIGABRT
            | SIGFPE
            | SIGSEGV
            | SIGBUS
            | SIGSYS
            | SIGXCPU
            | SIGXFSZ
    )
}

/// Whether `sig` can be neither caught nor ignored (`SIGKILL`, `SIGSTOP`).
///
/// # Linux
/// `sig_kernel_only()` (include/linux/signal.h).
pub const fn sig_kernel_only(sig: i32) -> bool {
    sig == SIGKILL || sig == SIGSTOP
}

/// CPU time in seconds (`RLIMIT_CPU`).
pub const RLIMIT_CPU: u32 = 0;
/// Largest file size (`RLIMIT_FSIZE`).
pub const RLIMIT_FSIZE: u32 = 1;
/// Data segment size (`RLIMIT_DATA`).
pub const RLIMIT_DATA: u32 = 2;
/// Stack size (`RLIMIT_STACK`).
pub const RLIMIT_STACK: u32 = 3;
/// Core file size (`RLIMIT_CORE`).
pub const RLIMIT_CORE: u32 = 4;
/// Resident set size (`RLIMIT_RSS`).
pub const RLIMIT_RSS: u32 = 5;
/// Tasks per real user (`RLIMIT_NPROC`).
pub const RLIMIT_NPROC: u32 = 6;
/// Open files (`RLIMIT_NOFILE`).
pub const RLIMIT_NOFILE: u32 = 7;
/// Locked memory (`RLIMIT_MEMLOCK`).
pub const RLIMIT_MEMLOCK: u32 = 8;
/// Address space size (`RLIMIT_AS`).
pub const RLIMIT_AS: u32 = 9;
/// File locks (`RLIMIT_LOCKS`).
pub const RLIMIT_LOCKS: u32 = 10;
/// Pending signals per user (`RLIMIT_SIGPENDING`).
pub const RLIMIT_SIGPENDING: u32 = 11;
/// POSIX message queue bytes (`RLIMIT_MSGQUEUE`).
pub const RLIMIT_MSGQUEUE: u32 = 12;
/// Nice ceiling (`RLIMIT_NICE`).
pub const RLIMIT_NICE: u32 = 13;
/// Real-time priority ceiling (`RLIMIT_RTPRIO`).
pub const RLIMIT_RTPRIO: u32 = 14;
/// Real-time CPU time in microseconds (`RLIMIT_RTTIME`).
pub const RLIMIT_RTTIME: u32 = 15;
/// Number of resources (`RLIM_NLIMITS`).
pub const RLIM_NLIMITS: usize = 16;
/// No limit (`RLIM64_INFINITY`).
pub const RLIM_INFINITY: u64 = u64::MAX;
/// Most open files any process may have (`sysctl fs.nr_open` default).
pub const NR_OPEN: u64 = 1024 * 1024;

// ---------------------------------------------------------------- fcntl.h

/// The current directory as a dirfd (`AT_FDCWD`), for the `*at` calls
/// (execveat(2)).
///
/// # Linux
/// include/uapi/linux/fcntl.h.
pub const AT_FDCWD: i32 = -100;

// ------------------------------------------- kernel-internal error codes

/// The kernel-internal error codes (512 and up) with their names: never
/// returned to user space, but a tracer sees them in the return register
/// at a syscall-exit stop (strace prints `? ERESTARTSYS (To be restarted
/// if SA_RESTART is set)`). The four restart codes are also
/// [`crate::Restart`].
///
/// # Linux
/// include/linux/errno.h.
pub const KERNEL_ERRNOS: [(&str, i32); 19] = [
    ("ERESTARTSYS", 512),
    ("ERESTARTNOINTR", 513),
    ("ERESTARTNOHAND", 514),
    ("ENOIOCTLCMD", 515),
    ("ERESTART_RESTARTBLOCK", 516),
    ("EPROBE_DEFER", 517),
    ("EOPENSTALE", 518),
    ("ENOPARAM", 519),
    ("EBADHANDLE", 521),
    ("ENOTSYNC", 522),
    ("EBADCOOKIE", 523),
    ("ENOTSUPP", 524),
    ("ETOOSMALL", 525),
    ("ESERVERFAULT", 526),
    ("EBADTYPE", 527),
    ("EJUKEBOX", 528),
    ("EIOCBQUEUED", 529),
    ("ERECALLCONFLICT", 530),
    ("ENOGRACE", 531),
];

/// The number of kernel-internal error code `name` ([`KERNEL_ERRNOS`]),
/// e.g. 512 for `ERESTARTSYS`; `None` for any other name (user-visible
/// errnos are [`crate::Errno::from_name`]'s).
///
/// # Linux
/// include/linux/errno.h.
pub fn kernel_errno(name: &str) -> Option<i32> {
    KERNEL_ERRNOS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, v)| v)
}

#[cfg(test)]
mod kernel_errno_tests {
    use super::*;

    #[test]
    fn restart_codes_and_the_others_resolve() {
        assert_eq!(kernel_errno("ERESTARTSYS"), Some(512));
        assert_eq!(kernel_errno("ERESTART_RESTARTBLOCK"), Some(516));
        assert_eq!(kernel_errno("ENOGRACE"), Some(531));
        // A user-visible errno is not kernel-internal.
        assert_eq!(kernel_errno("ECHILD"), None);
        assert!(KERNEL_ERRNOS.windows(2).all(|w| w[0].1 < w[1].1));
    }
}

#[cfg(test)]
mod signal_name_tests {
    use super::*;

    #[test]
    fn names_as_strace_prints_them() {
        assert_eq!(signal_name(SIGHUP), "SIGHUP");
        assert_eq!(signal_name(SIGCHLD), "SIGCHLD");
        assert_eq!(signal_name(SIGSYS), "SIGSYS");
        assert_eq!(signal_name(SIGRTMIN), "SIGRTMIN");
        assert_eq!(signal_name(34), "SIGRT_2");
        assert_eq!(signal_name(NSIG), "SIGRT_32");
        assert_eq!(signal_name(0), "signal 0");
        assert_eq!(signal_name(65), "signal 65");
    }
}

// ptrace(2) options (include/uapi/linux/ptrace.h).

/// `PTRACE_O_TRACESYSGOOD`: syscall stops report `SIGTRAP | 0x80`.
pub const PTRACE_O_TRACESYSGOOD: u32 = 1;
/// `PTRACE_O_TRACEFORK`: stop at fork, trace the child.
pub const PTRACE_O_TRACEFORK: u32 = 1 << 1;
/// `PTRACE_O_TRACEVFORK`: stop at vfork, trace the child.
pub const PTRACE_O_TRACEVFORK: u32 = 1 << 2;
/// `PTRACE_O_TRACECLONE`: stop at clone (other than fork/vfork), trace the
/// child.
pub const PTRACE_O_TRACECLONE: u32 = 1 << 3;
/// `PTRACE_O_TRACEEXEC`: stop at a successful execve.
pub const PTRACE_O_TRACEEXEC: u32 = 1 << 4;
/// `PTRACE_O_TRACEVFORKDONE`: stop when a vfork child released the parent.
pub const PTRACE_O_TRACEVFORKDONE: u32 = 1 << 5;
/// `PTRACE_O_TRACEEXIT`: stop before exiting.
pub const PTRACE_O_TRACEEXIT: u32 = 1 << 6;
/// `PTRACE_O_TRACESECCOMP` (accepted; seccomp is not modelled).
pub const PTRACE_O_TRACESECCOMP: u32 = 1 << 7;
/// `PTRACE_O_EXITKILL`: SIGKILL the tracee when the tracer exits.
pub const PTRACE_O_EXITKILL: u32 = 1 << 20;
/// `PTRACE_O_SUSPEND_SECCOMP` (accepted; seccomp is not modelled).
pub const PTRACE_O_SUSPEND_SECCOMP: u32 = 1 << 21;
/// `PTRACE_O_MASK`: every option.
pub const PTRACE_O_MASK: u32 = 0xff | PTRACE_O_EXITKILL | PTRACE_O_SUSPEND_SECCOMP;
