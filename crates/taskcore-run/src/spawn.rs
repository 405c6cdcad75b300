//! Starting the command: a child that waits until it is seized, joins a
//! process group of its own (taking the terminal's foreground if the
//! supervisor had it), installs the seccomp filter and execs.

use std::ffi::CString;
use std::os::fd::{AsRawFd, OwnedFd};

use nix::sys::ptrace::{self, Options as PtraceOptions};
use nix::unistd::{fork, pipe, ForkResult, Pid};
use seccompiler::BpfProgram;

use crate::options::RunError;

/// The ptrace options every traced task has (inherited by the tasks it
/// creates): stops at clone/fork/vfork and exec, at seccomp's
/// `SECCOMP_RET_TRACE`, syscall stops marked with 0x80, and death of
/// every tracee with the supervisor. No `PTRACE_O_TRACEEXIT`: an exit is
/// seen at its seccomp stop, a fatal signal at its delivery stop, and a
/// SIGKILL (or any death no stop showed) at the death report, which is
/// still before the parent can see the zombie (it is traced); the exit
/// stop would cost every thread one more stop.
pub(crate) fn ptrace_options() -> PtraceOptions {
    PtraceOptions::PTRACE_O_TRACECLONE
        | PtraceOptions::PTRACE_O_TRACEFORK
        | PtraceOptions::PTRACE_O_TRACEVFORK
        | PtraceOptions::PTRACE_O_TRACEEXEC
        | PtraceOptions::PTRACE_O_TRACESECCOMP
        | PtraceOptions::PTRACE_O_TRACESYSGOOD
        | PtraceOptions::PTRACE_O_EXITKILL
}

/// The started command.
#[derive(Debug)]
pub(crate) struct Spawned {
    /// Its real pid.
    pub(crate) pid: i32,
    /// Whether it was given the terminal's foreground.
    pub(crate) took_terminal: bool,
    /// The signals it starts with ignored (bit `sig - 1`): the
    /// supervisor's, which a fork and an exec keep, but SIGPIPE, which it
    /// gets back at its default as from `std::process::Command` (Rust's
    /// runtime ignores it in the supervisor).
    pub(crate) ignored: u64,
    /// The signal mask it starts with (the supervisor's).
    pub(crate) blocked: u64,
}

/// The signals this process ignores (`SIG_IGN`), bit `sig - 1`, read with
/// the raw `rt_sigaction` (glibc's wrapper refuses its own signals 32 and
/// 33, which a fork passes on all the same).
fn ignored_signals() -> u64 {
    let mut set = 0;
    for sig in 1..=64u64 {
        // struct kernel_sigaction: handler, flags, restorer, mask.
        let mut old = [0u64; 4];
        // SAFETY: rt_sigaction with no new action writes the old one to a
        // local buffer of the kernel's size.
        let r = unsafe {
            libc::syscall(
                libc::SYS_rt_sigaction,
                sig,
                std::ptr::null::<u64>(),
                old.as_mut_ptr(),
                8usize,
            )
        };
        if r == 0 && old[0] == libc::SIG_IGN as u64 {
            set |= 1 << (sig - 1);
        }
    }
    set
}

/// This thread's signal mask, bit `sig - 1`.
fn blocked_signals() -> u64 {
    let mut old = 0u64;
    // SAFETY: rt_sigprocmask with no new mask writes the old one to a
    // local of the kernel's size.
    unsafe {
        libc::syscall(
            libc::SYS_rt_sigprocmask,
            libc::SIG_BLOCK,
            std::ptr::null::<u64>(),
            &mut old as *mut u64,
            8usize,
        )
    };
    old
}

fn os(what: &'static str) -> impl Fn(nix::Error) -> RunError {
    move |err| RunError::Os { what, err }
}

/// Installs `filter` without `PR_SET_NO_NEW_PRIVS`, as a process with
/// `CAP_SYS_ADMIN` may (`seccomp_prepare_filter()`): the program then
/// sees `NoNewPrivs: 0` and gains an exec's privileges as it would
/// natively (a set-uid program, root's full sets). Without that
/// capability the kernel refuses (`EACCES`) and the caller falls back to
/// [`seccompiler::apply_filter`], which sets the flag first. Only a
/// system call: safe between fork and exec.
fn install_filter_keeping_privs(filter: &BpfProgram) -> bool {
    let Ok(len) = u16::try_from(filter.len()) else {
        return false;
    };
    let prog = libc::sock_fprog {
        len,
        // seccompiler's `sock_filter` has the kernel's layout (code, jt,
        // jf, k), as libc's.
        filter: filter.as_ptr() as *mut libc::sock_filter,
    };
    // SAFETY: seccomp(SECCOMP_SET_MODE_FILTER) reads `prog` and the
    // filter it points to, both alive for the call.
    unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            0,
            &prog as *const libc::sock_fprog,
        ) == 0
    }
}

/// Forks, seizes and releases the command `argv` with `filter`; with
/// `proc_dir`, the command first enters a private mount namespace where
/// `proc_dir` is bound over `/proc`.
///
/// # Errors
/// [`RunError::Ptrace`] when the seize is refused; [`RunError::Os`] when
/// fork or pipe fail, or the mount namespace cannot be made (`EPERM`
/// without `CAP_SYS_ADMIN`). A command that cannot be executed is not an
/// error here: the child exits 127 (not found) or 126 (not executable).
pub(crate) fn spawn(
    argv: &[String],
    filter: &BpfProgram,
    keep_privs: bool,
    proc_dir: Option<&std::path::Path>,
) -> Result<Spawned, RunError> {
    let proc_src = proc_dir
        .map(|d| {
            use std::os::unix::ffi::OsStrExt;
            CString::new(d.as_os_str().as_bytes())
                .map_err(|_| RunError::BadOption(format!("{} holds a NUL byte", d.display())))
        })
        .transpose()?;
    // The child reports a failed mount setup through this pipe (its errno),
    // before it would exec.
    let (err_rd, err_wr): (OwnedFd, OwnedFd) = pipe().map_err(os("pipe"))?;
    let cargs: Vec<CString> = argv
        .iter()
        .map(|a| {
            CString::new(a.as_bytes())
                .map_err(|_| RunError::BadOption(format!("argument {a:?} holds a NUL byte")))
        })
        .collect::<Result<_, _>>()?;
    // SAFETY: isatty/tcgetpgrp/getpgrp only read the process's state.
    let fg = unsafe { libc::isatty(0) == 1 && libc::tcgetpgrp(0) == libc::getpgrp() };
    let mut ptrs: Vec<*const libc::c_char> = cargs.iter().map(|c| c.as_ptr()).collect();
    ptrs.push(std::ptr::null());
    let (rd, wr): (OwnedFd, OwnedFd) = pipe().map_err(os("pipe"))?;
    let ignored = ignored_signals() & !(1 << (libc::SIGPIPE - 1));
    let blocked = blocked_signals();
    // SAFETY: the child only makes async-signal-safe calls (read, setpgid,
    // tcsetpgrp, signal, prctl, seccomp, execvp, _exit) on memory
    // prepared before the fork.
    match unsafe { fork() }.map_err(os("fork"))? {
        ForkResult::Child => {
            drop(wr);
            let mut b = [0u8; 1];
            // SAFETY: reading one byte into a local buffer.
            let n = unsafe { libc::read(rd.as_raw_fd(), b.as_mut_ptr().cast(), 1) };
            if n != 1 {
                // The supervisor failed to seize: do not run untraced.
                // SAFETY: _exit is async-signal-safe.
                unsafe { libc::_exit(125) };
            }
            drop(rd);
            drop(err_rd);
            if let Some(src) = &proc_src {
                // SAFETY: unshare and mount with NUL-terminated strings
                // prepared before the fork; write and _exit.
                unsafe {
                    let none = c"none".as_ptr();
                    // The copied mounts stop propagating to the parent's
                    // namespace: every one, or (where "/" is no mount
                    // point: a chroot) the /proc mount the bind stacks on.
                    let private = |target: *const libc::c_char| {
                        libc::mount(
                            none,
                            target,
                            std::ptr::null(),
                            libc::MS_REC | libc::MS_PRIVATE,
                            std::ptr::null(),
                        ) == 0
                    };
                    let ok = libc::unshare(libc::CLONE_NEWNS) == 0
                        && (private(c"/".as_ptr()) || private(c"/proc".as_ptr()))
                        && libc::mount(
                            src.as_ptr(),
                            c"/proc".as_ptr(),
                            std::ptr::null(),
                            libc::MS_BIND | libc::MS_REC,
                            std::ptr::null(),
                        ) == 0;
                    if !ok {
                        let e = nix::errno::Errno::last_raw().to_ne_bytes();
                        libc::write(err_wr.as_raw_fd(), e.as_ptr().cast(), e.len());
                        libc::_exit(125);
                    }
                }
            }
            drop(err_wr);
            // SAFETY: process-group, terminal and signal calls on this
            // process.
            unsafe {
                libc::signal(libc::SIGPIPE, libc::SIG_DFL);
                libc::setpgid(0, 0);
                if fg {
                    libc::signal(libc::SIGTTOU, libc::SIG_IGN);
                    libc::tcsetpgrp(0, libc::getpid());
                    libc::signal(libc::SIGTTOU, libc::SIG_DFL);
                }
            }
            let installed = keep_privs && install_filter_keeping_privs(filter);
            if !installed && seccompiler::apply_filter(filter).is_err() {
                // SAFETY: _exit is async-signal-safe.
                unsafe { libc::_exit(125) };
            }
            // SAFETY: a NULL-terminated argv of live CStrings.
            unsafe { libc::execvp(ptrs[0], ptrs.as_ptr()) };
            let code = if nix::errno::Errno::last() == nix::errno::Errno::ENOENT {
                127
            } else {
                126
            };
            // SAFETY: _exit is async-signal-safe.
            unsafe { libc::_exit(code) };
        }
        ForkResult::Parent { child } => {
            drop(rd);
            if let Err(e) = ptrace::seize(child, ptrace_options()) {
                let _ = nix::sys::signal::kill(child, nix::sys::signal::Signal::SIGKILL);
                let _ = nix::sys::wait::waitpid(child, None);
                return Err(RunError::Ptrace(e));
            }
            // SAFETY: writing one byte from a local buffer.
            let n = unsafe { libc::write(wr.as_raw_fd(), b"g".as_ptr().cast(), 1) };
            if n != 1 {
                return Err(os("write to the command's start pipe")(nix::Error::last()));
            }
            drop(err_wr);
            if proc_src.is_some() {
                // The child closes its end once the mounts are made (or
                // writes its errno). It is traced: let it run to there.
                let mut e = [0u8; 4];
                // SAFETY: reading into a local buffer.
                let n = unsafe { libc::read(err_rd.as_raw_fd(), e.as_mut_ptr().cast(), 4) };
                if n == 4 {
                    let _ = nix::sys::wait::waitpid(child, None);
                    return Err(RunError::Os {
                        what: "a private mount namespace with the emulated /proc (unshare(CLONE_NEWNS), mount --bind; needs CAP_SYS_ADMIN)",
                        err: nix::errno::Errno::from_raw(i32::from_ne_bytes(e)),
                    });
                }
            }
            Ok(Spawned {
                pid: child.as_raw(),
                took_terminal: fg,
                ignored,
                blocked,
            })
        }
    }
}

/// Gives the terminal's foreground back to the supervisor's group.
pub(crate) fn restore_terminal() {
    // SAFETY: terminal calls on this process; SIGTTOU ignored around them.
    unsafe {
        let old = libc::signal(libc::SIGTTOU, libc::SIG_IGN);
        libc::tcsetpgrp(0, libc::getpgrp());
        libc::signal(libc::SIGTTOU, old);
    }
}

/// `Pid` of a raw number.
pub(crate) fn pid(p: i32) -> Pid {
    Pid::from_raw(p)
}
