//! Decoding raw x86_64 syscalls: [`Syscall::from_raw`] and
//! [`Syscall::from_raw_with`], reading pointer arguments through
//! [`UserMemory`].

use super::fds::{FdTable, NoFds};
use super::nr;
use super::syscall::{Prctl, Ptrace, Syscall, Timespec};
use crate::errno::{Errno, Result};
use crate::mm::flags::{MAP_ANONYMOUS, PAGE_SIZE};
use crate::task::lifecycle::clone::CloneArgs;
use crate::task::lifecycle::clone3::Clone3Args;
use crate::task::state::rlimit::Rlimit;
use crate::task::state::sighand::SigAction;
use crate::types::SigInfo;
use crate::uapi::{
    __WALL, __WCLONE, __WNOTHREAD, P_PIDFD, TASK_COMM_LEN, WCONTINUED, WEXITED, WNOHANG, WNOWAIT,
    WSTOPPED,
};

/// The caller's memory, as the decoder reads pointer arguments from it.
///
/// # Linux
/// `copy_from_user()`: a range that is not mapped readable is `EFAULT`.
pub trait UserMemory {
    /// Fills `buf` with the bytes at `addr..addr + buf.len()`.
    ///
    /// # Errors
    /// `EFAULT`: some byte of the range is not readable.
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<()>;

    /// Whether `len` bytes at `addr` could be written (`copy_to_user()`'s
    /// check, nothing written): asked for outputs the kernel writes in the
    /// middle of a call (clone3's `pidfd`). The default is `access_ok()`
    /// only: a range reaching above `TASK_SIZE` is refused.
    ///
    /// # Errors
    /// `EFAULT`: some byte of the range is not writable.
    fn check_write(&self, addr: u64, len: u64) -> Result<()> {
        match addr.checked_add(len) {
            Some(end) if end <= crate::mm::TASK_SIZE_X86_64 => Ok(()),
            _ => Err(Errno::EFAULT),
        }
    }
}

/// No readable memory: every read is `EFAULT` (what [`Syscall::from_raw`]
/// uses, so only calls whose pointers are NULL or unused decode).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoMemory;

impl UserMemory for NoMemory {
    fn read(&self, _addr: u64, _buf: &mut [u8]) -> Result<()> {
        Err(Errno::EFAULT)
    }
}

/// Linux's `PATH_MAX`: the longest path `getname()` copies, NUL included.
const PATH_MAX: usize = 4096;
/// Linux's `NGROUPS_MAX`.
const NGROUPS_MAX: u64 = 65536;
/// `sizeof(struct clone_args)` of its first version (`CLONE_ARGS_SIZE_VER0`).
const CLONE_ARGS_SIZE_VER0: u64 = 64;
/// The fields known here (up to `cgroup`, `CLONE_ARGS_SIZE_VER2`).
const CLONE_ARGS_SIZE_VER2: u64 = 88;
/// Linux's `MAX_ARG_STRINGS`.
const MAX_ARG_STRINGS: usize = 0x7FFF_FFFF;

/// `copy_from_user()`: `access_ok()` first (a range reaching above
/// `TASK_SIZE`, the kernel half, is `EFAULT` whatever `mem` holds), then
/// `mem`.
fn user_read(mem: &dyn UserMemory, addr: u64, buf: &mut [u8]) -> Result<()> {
    let end = addr.checked_add(buf.len() as u64).ok_or(Errno::EFAULT)?;
    if end > crate::mm::TASK_SIZE_X86_64 {
        return Err(Errno::EFAULT);
    }
    mem.read(addr, buf)
}

fn read_u64(mem: &dyn UserMemory, addr: u64) -> Result<u64> {
    let mut b = [0u8; 8];
    user_read(mem, addr, &mut b)?;
    Ok(u64::from_le_bytes(b))
}

fn read_u32s(mem: &dyn UserMemory, addr: u64, n: u64) -> Result<Vec<u32>> {
    let mut b = vec![0u8; (n as usize) * 4];
    user_read(mem, addr, &mut b)?;
    Ok(b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// A NUL-terminated string of at most `max` bytes with its NUL; longer is
/// `too_long`.
fn read_cstr(mem: &dyn UserMemory, addr: u64, max: usize, too_long: Errno) -> Result<Vec<u8>> {
    let mut s = Vec::new();
    loop {
        if s.len() >= max {
            return Err(too_long);
        }
        let mut b = [0u8; 1];
        user_read(mem, addr.wrapping_add(s.len() as u64), &mut b)?;
        if b[0] == 0 {
            return Ok(s);
        }
        s.push(b[0]);
    }
}

/// `struct rlimit` at `addr`.
fn read_rlimit(mem: &dyn UserMemory, addr: u64) -> Result<Rlimit> {
    Ok(Rlimit {
        cur: read_u64(mem, addr)?,
        max: read_u64(mem, addr.wrapping_add(8))?,
    })
}

/// x86_64's `sizeof(sigset_t)`.
const SIGSET_SIZE: u64 = 8;
/// `sizeof(siginfo_t)`.
const SIGINFO_SIZE: usize = 128;
/// The `PIDFD_SIGNAL_*` scope flags.
const PIDFD_SEND_SIGNAL_FLAGS: u32 = 7;

/// A `siginfo_t` at `addr` (`copy_siginfo_from_user()`): `si_signo`,
/// `si_code` and the `_rt` fields `si_pid`, `si_uid`, `si_value`.
fn read_siginfo(mem: &dyn UserMemory, addr: u64) -> Result<SigInfo> {
    let mut b = [0u8; SIGINFO_SIZE];
    user_read(mem, addr, &mut b)?;
    let i32_at = |o: usize| i32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
    let mut value = [0u8; 8];
    value.copy_from_slice(&b[24..32]);
    Ok(SigInfo {
        signo: i32_at(0),
        code: i32_at(8),
        pid: i32_at(16),
        uid: i32_at(20) as u32,
        status: 0,
        value: u64::from_le_bytes(value),
    })
}

/// A sigset argument with its `sigsetsize`: `EINVAL` unless 8.
fn read_sigset(mem: &dyn UserMemory, addr: u64, size: u64) -> Result<u64> {
    if size != SIGSET_SIZE {
        return Err(Errno::EINVAL);
    }
    read_u64(mem, addr)
}

/// `pid_t` / `int` arguments: the low 32 bits of the register.
fn int(a: u64) -> i32 {
    a as u32 as i32
}

impl Syscall {
    /// Decodes x86_64 syscall `nr` with argument registers `args` (rdi,
    /// rsi, rdx, r10, r8, r9), reading no memory: a call that must read a
    /// non-NULL pointer (execve's path, clone3's structure, an `act`, a
    /// group list, a new rlimit, a new name) is `EFAULT`; use
    /// [`Syscall::from_raw_with`] to give it the caller's memory.
    ///
    /// # Errors
    /// As [`Syscall::from_raw_with`], with every pointer read `EFAULT`.
    ///
    /// # Linux
    /// The argument decoding of each `SYSCALL_DEFINE`.
    pub fn from_raw(nr: u64, args: [u64; 6]) -> Result<Syscall> {
        Syscall::from_raw_with(nr, args, &NoMemory)
    }

    /// Decodes x86_64 syscall `nr` with argument registers `args`, reading
    /// pointer arguments from `mem`.
    ///
    /// Only the checks Linux makes while copying arguments happen here; the
    /// rest are the [`Kernel`](crate::Kernel)'s, at
    /// [`dispatch`](super::dispatch).
    ///
    /// # Errors
    /// - `ENOSYS`: a number that is not one of [`Syscall`]'s calls (Linux's
    ///   answer for an unknown number; calls Linux has but the core does
    ///   not model get it too).
    /// - `EINVAL`: a prctl(2) option that is not modelled (Linux's answer
    ///   for an unknown option); `PR_SET_PDEATHSIG` with an invalid signal;
    ///   clone3's `size` below 64; rt_sigaction's `sigsetsize` other than
    ///   8; setgroups with more than `NGROUPS_MAX` groups or a negative
    ///   count; an mmap offset that is not page aligned.
    /// - `EIO`: a ptrace(2) request that is not modelled (Linux's answer
    ///   for an unknown request).
    /// - `E2BIG`: clone3's `size` above a page, or non-zero bytes past the
    ///   fields known here; execve's argv with more than `MAX_ARG_STRINGS`.
    /// - `ENAMETOOLONG`: an execve path of `PATH_MAX` bytes or more.
    /// - `EFAULT`: a pointer `mem` cannot read, or one whose range reaches
    ///   above `TASK_SIZE` (`access_ok()`: the kernel half).
    /// - `EBADF`: mmap of a file: the core has no fd table (build
    ///   [`Syscall::Mmap`] with the file instead).
    ///
    /// # Linux
    /// The argument decoding of each `SYSCALL_DEFINE`:
    /// `copy_clone_args_from_user()`, `getname()`, `get_user_arg_ptr()`,
    /// `copy_from_user()` of `struct sigaction`/`rlimit`, `groups_from_user()`.
    pub fn from_raw_with(nr: u64, a: [u64; 6], mem: &dyn UserMemory) -> Result<Syscall> {
        Syscall::from_raw_in(nr, a, mem, &NoFds)
    }

    /// Decodes x86_64 syscall `nr` with argument registers `args`, reading
    /// pointer arguments from `mem` and resolving fd arguments (of
    /// pidfd_send_signal, waitid with `P_PIDFD`, setns) through `fds`.
    ///
    /// # Errors
    /// As [`Syscall::from_raw_with`], and:
    /// - `EBADF` (or `EINVAL` for setns of another file): an fd `fds`
    ///   does not resolve; checked after the flag checks Linux makes
    ///   before `fdget()` (pidfd_send_signal's flags, waitid's options and
    ///   negative id), before reading the siginfo.
    /// - `EINVAL`: a sigset size other than 8 (rt_sigprocmask,
    ///   rt_sigsuspend, rt_sigtimedwait) or above 8 (rt_sigpending);
    ///   rt_sigtimedwait's timeout with negative seconds or nanoseconds
    ///   outside 0..10^9 (`timespec64_valid()`, Linux's first check in
    ///   `do_sigtimedwait()`).
    /// - `ENOSYS`: rt_sigreturn, whose frame is at the stack pointer, not
    ///   in an argument register: build [`Syscall::RtSigreturn`] from the
    ///   frame's `uc_sigmask`.
    ///
    /// Not modelled: `E2BIG` for a siginfo with an unknown layout and
    /// non-zero bytes past the kernel's part.
    ///
    /// # Linux
    /// As [`Syscall::from_raw_with`], plus `fdget()`, `pidfd_get_pid()`,
    /// `copy_siginfo_from_user()`, `get_timespec64()`.
    pub fn from_raw_in(
        nr: u64,
        a: [u64; 6],
        mem: &dyn UserMemory,
        fds: &dyn FdTable,
    ) -> Result<Syscall> {
        Ok(match nr {
            nr::CLONE => Syscall::Clone(CloneArgs::from_clone_flags(a[0])),
            nr::CLONE3 => Syscall::Clone3(clone3_args(mem, a[0], a[1])?),
            nr::FORK => Syscall::Fork,
            nr::VFORK => Syscall::Vfork,
            nr::EXECVE => execve(mem, a[0], a[1])?,
            nr::EXIT => Syscall::Exit { code: int(a[0]) },
            nr::EXIT_GROUP => Syscall::ExitGroup { code: int(a[0]) },
            nr::WAIT4 => Syscall::Wait4 {
                pid: int(a[0]),
                options: int(a[2]),
            },
            nr::WAITID if int(a[0]) == P_PIDFD => {
                // kernel_waitid_prepare(): the options, then the fd.
                let options = int(a[3]);
                let all = WNOHANG
                    | WNOWAIT
                    | WEXITED
                    | WSTOPPED
                    | WCONTINUED
                    | __WNOTHREAD
                    | __WCLONE
                    | __WALL;
                if options & !all != 0
                    || options & (WEXITED | WSTOPPED | WCONTINUED) == 0
                    || int(a[1]) < 0
                {
                    return Err(Errno::EINVAL);
                }
                Syscall::WaitidPidfd {
                    fd: fds.pidfd(int(a[1]))?,
                    options,
                }
            }
            nr::WAITID => Syscall::Waitid {
                idtype: int(a[0]),
                id: int(a[1]),
                options: int(a[3]),
            },
            nr::SETPGID => Syscall::Setpgid {
                pid: int(a[0]),
                pgid: int(a[1]),
            },
            nr::SETSID => Syscall::Setsid,
            nr::GETPGID => Syscall::Getpgid { pid: int(a[0]) },
            nr::GETPGRP => Syscall::Getpgrp,
            nr::GETSID => Syscall::Getsid { pid: int(a[0]) },
            nr::GETPPID => Syscall::Getppid,
            nr::GETPID => Syscall::Getpid,
            nr::GETTID => Syscall::Gettid,
            nr::KILL => Syscall::Kill {
                pid: int(a[0]),
                sig: int(a[1]),
            },
            nr::TGKILL => Syscall::Tgkill {
                tgid: int(a[0]),
                tid: int(a[1]),
                sig: int(a[2]),
            },
            nr::TKILL => Syscall::Tkill {
                tid: int(a[0]),
                sig: int(a[1]),
            },
            nr::RT_SIGACTION => {
                if a[3] != 8 {
                    return Err(Errno::EINVAL);
                }
                let act = if a[1] == 0 {
                    None
                } else {
                    // struct kernel_sigaction (x86_64): sa_handler,
                    // sa_flags, sa_restorer, sa_mask.
                    Some(SigAction::from_raw(
                        read_u64(mem, a[1])?,
                        read_u64(mem, a[1].wrapping_add(8))?,
                        read_u64(mem, a[1].wrapping_add(24))?,
                        read_u64(mem, a[1].wrapping_add(16))?,
                    ))
                };
                Syscall::RtSigaction {
                    sig: int(a[0]),
                    act,
                }
            }
            nr::PRCTL => Syscall::Prctl(prctl(mem, a)?),
            nr::CAPGET | nr::CAPSET => capget_capset(mem, nr, a[0], a[1])?,
            nr::PTRACE => Syscall::Ptrace(match a[0] {
                nr::PTRACE_TRACEME => Ptrace::Traceme,
                nr::PTRACE_ATTACH => Ptrace::Attach {
                    pid: int(a[1]),
                    seize: false,
                },
                // ptrace_attach(): PTRACE_SEIZE's addr must be 0.
                nr::PTRACE_SEIZE if a[2] != 0 => return Err(Errno::EIO),
                nr::PTRACE_SEIZE => Ptrace::Seize {
                    pid: int(a[1]),
                    options: u32::try_from(a[3]).unwrap_or(u32::MAX),
                },
                nr::PTRACE_SETOPTIONS => Ptrace::Setoptions {
                    pid: int(a[1]),
                    options: u32::try_from(a[3]).unwrap_or(u32::MAX),
                },
                nr::PTRACE_GETEVENTMSG => Ptrace::Geteventmsg { pid: int(a[1]) },
                nr::PTRACE_GETSIGINFO => Ptrace::Getsiginfo { pid: int(a[1]) },
                nr::PTRACE_INTERRUPT => Ptrace::Interrupt { pid: int(a[1]) },
                nr::PTRACE_LISTEN => Ptrace::Listen { pid: int(a[1]) },
                nr::PTRACE_SYSCALL => Ptrace::Syscall {
                    pid: int(a[1]),
                    sig: int(a[3]),
                },
                nr::PTRACE_CONT => Ptrace::Cont {
                    pid: int(a[1]),
                    sig: int(a[3]),
                },
                nr::PTRACE_DETACH => Ptrace::Detach {
                    pid: int(a[1]),
                    sig: int(a[3]),
                },
                _ => return Err(Errno::EIO),
            }),
            nr::SETUID => Syscall::Setuid { uid: a[0] as u32 },
            nr::SETGID => Syscall::Setgid { gid: a[0] as u32 },
            nr::SETREUID => Syscall::Setreuid {
                ruid: a[0] as u32,
                euid: a[1] as u32,
            },
            nr::SETREGID => Syscall::Setregid {
                rgid: a[0] as u32,
                egid: a[1] as u32,
            },
            nr::SETRESUID => Syscall::Setresuid {
                ruid: a[0] as u32,
                euid: a[1] as u32,
                suid: a[2] as u32,
            },
            nr::SETRESGID => Syscall::Setresgid {
                rgid: a[0] as u32,
                egid: a[1] as u32,
                sgid: a[2] as u32,
            },
            nr::SETFSUID => Syscall::Setfsuid { uid: a[0] as u32 },
            nr::SETFSGID => Syscall::Setfsgid { gid: a[0] as u32 },
            nr::GETUID => Syscall::Getuid,
            nr::GETEUID => Syscall::Geteuid,
            nr::GETGID => Syscall::Getgid,
            nr::GETEGID => Syscall::Getegid,
            nr::GETRESUID => Syscall::Getresuid,
            nr::GETRESGID => Syscall::Getresgid,
            nr::SETGROUPS => {
                // gidsetsize is an int: negative or above NGROUPS_MAX.
                let n = int(a[0]);
                if n < 0 || n as u64 > NGROUPS_MAX {
                    return Err(Errno::EINVAL);
                }
                Syscall::Setgroups {
                    groups: read_u32s(mem, a[1], n as u64)?,
                }
            }
            nr::GETGROUPS => Syscall::Getgroups { size: int(a[0]) },
            nr::GETRLIMIT => Syscall::Getrlimit {
                resource: a[0] as u32,
            },
            nr::SETRLIMIT => Syscall::Setrlimit {
                resource: a[0] as u32,
                new: read_rlimit(mem, a[1])?,
            },
            nr::PRLIMIT64 => Syscall::Prlimit64 {
                pid: int(a[0]),
                resource: a[1] as u32,
                new: if a[2] == 0 {
                    None
                } else {
                    Some(read_rlimit(mem, a[2])?)
                },
            },
            nr::MMAP => {
                // arch/x86/kernel/sys_x86_64.c: the offset first.
                if a[5] & (PAGE_SIZE - 1) != 0 {
                    return Err(Errno::EINVAL);
                }
                if a[3] as u32 & MAP_ANONYMOUS == 0 {
                    return Err(Errno::EBADF);
                }
                Syscall::Mmap {
                    addr: a[0],
                    len: a[1],
                    prot: a[2] as u32,
                    flags: a[3] as u32,
                    file: None,
                    pgoff: a[5] / PAGE_SIZE,
                }
            }
            nr::MUNMAP => Syscall::Munmap {
                addr: a[0],
                len: a[1],
            },
            nr::MPROTECT => Syscall::Mprotect {
                addr: a[0],
                len: a[1],
                prot: a[2] as u32,
            },
            nr::MREMAP => Syscall::Mremap {
                old: a[0],
                old_len: a[1],
                new_len: a[2],
                flags: a[3] as u32,
                new: a[4],
            },
            nr::BRK => Syscall::Brk { addr: a[0] },
            nr::RT_SIGPROCMASK => {
                if a[3] != SIGSET_SIZE {
                    return Err(Errno::EINVAL);
                }
                Syscall::RtSigprocmask {
                    how: int(a[0]),
                    set: if a[1] == 0 {
                        None
                    } else {
                        Some(read_u64(mem, a[1])?)
                    },
                }
            }
            nr::RT_SIGPENDING => {
                if a[1] > SIGSET_SIZE {
                    return Err(Errno::EINVAL);
                }
                Syscall::RtSigpending
            }
            nr::RT_SIGQUEUEINFO => Syscall::RtSigqueueinfo {
                tgid: int(a[0]),
                sig: int(a[1]),
                info: read_siginfo(mem, a[2])?,
            },
            nr::RT_TGSIGQUEUEINFO => Syscall::RtTgsigqueueinfo {
                tgid: int(a[0]),
                tid: int(a[1]),
                sig: int(a[2]),
                info: read_siginfo(mem, a[3])?,
            },
            nr::RT_SIGTIMEDWAIT => {
                let set = read_sigset(mem, a[0], a[3])?;
                let timeout = if a[2] == 0 {
                    None
                } else {
                    let ts = Timespec {
                        sec: read_u64(mem, a[2])? as i64,
                        nsec: read_u64(mem, a[2].wrapping_add(8))? as i64,
                    };
                    if ts.sec < 0 || ts.nsec as u64 >= 1_000_000_000 {
                        return Err(Errno::EINVAL);
                    }
                    Some(ts)
                };
                Syscall::RtSigtimedwait { set, timeout }
            }
            nr::RT_SIGSUSPEND => Syscall::RtSigsuspend {
                mask: read_sigset(mem, a[0], a[1])?,
            },
            nr::PAUSE => Syscall::Pause,
            // The frame is at the stack pointer: see the docs.
            nr::RT_SIGRETURN => return Err(Errno::ENOSYS),
            nr::PIDFD_OPEN => Syscall::PidfdOpen {
                pid: int(a[0]),
                flags: a[1] as u32,
            },
            nr::PIDFD_SEND_SIGNAL => {
                let flags = a[3] as u32;
                if flags & !PIDFD_SEND_SIGNAL_FLAGS != 0 || flags.count_ones() > 1 {
                    return Err(Errno::EINVAL);
                }
                let fd = fds.pidfd(int(a[0]))?;
                Syscall::PidfdSendSignal {
                    fd,
                    sig: int(a[1]),
                    info: if a[2] == 0 {
                        None
                    } else {
                        Some(read_siginfo(mem, a[2])?)
                    },
                    flags,
                }
            }
            nr::UNSHARE => Syscall::Unshare { flags: a[0] },
            nr::SETNS => Syscall::Setns {
                fd: fds.setns_fd(int(a[0]))?,
                nstype: i64::from(int(a[1])) as u64,
            },
            _ => return Err(Errno::ENOSYS),
        })
    }
}

/// capget(hdr, data) / capset(hdr, data): `cap_validate_magic()` reads the
/// version, then the pid is read only for a known version; capset's data
/// entries are read last (`None` if unreadable: the Kernel answers
/// `EFAULT` after its pid check).
fn capget_capset(mem: &dyn UserMemory, nr: u64, hdr: u64, data: u64) -> Result<Syscall> {
    let version = read_u32s(mem, hdr, 1)?[0];
    let entries = crate::task::state::capability::cap_data_entries(version);
    // capget with a NULL data pointer reads nothing more.
    let pid = match entries {
        Some(_) if nr == nr::CAPSET || data != 0 => {
            read_u32s(mem, hdr.wrapping_add(4), 1)?[0] as i32
        }
        _ => 0,
    };
    if nr == nr::CAPGET {
        return Ok(Syscall::Capget {
            version,
            pid,
            data: data != 0,
        });
    }
    let data = entries.and_then(|n| {
        let raw = read_u32s(mem, data, 3 * n as u64).ok()?;
        let e: Vec<[u32; 3]> = raw.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect();
        Some(crate::task::state::capability::CapUserData::from_entries(
            &e,
        ))
    });
    Ok(Syscall::Capset { version, pid, data })
}

/// prctl(option, arg2, ...): the modelled options.
fn prctl(mem: &dyn UserMemory, a: [u64; 6]) -> Result<Prctl> {
    let (option, arg2) = (a[0], a[1]);
    let rest = [a[1], a[2], a[3], a[4]];
    // The option is an int.
    Ok(match option as u32 as u64 {
        nr::PR_SET_PDEATHSIG => {
            if arg2 > 64 {
                return Err(Errno::EINVAL);
            }
            Prctl::SetPdeathsig(arg2 as i32)
        }
        nr::PR_GET_PDEATHSIG => Prctl::GetPdeathsig,
        nr::PR_SET_NAME => {
            // strncpy_from_user(comm, arg2, sizeof(comm) - 1): at most 15
            // bytes, a longer name is cut.
            let mut name = Vec::new();
            while name.len() < TASK_COMM_LEN - 1 {
                let mut b = [0u8; 1];
                user_read(mem, arg2.wrapping_add(name.len() as u64), &mut b)?;
                if b[0] == 0 {
                    break;
                }
                name.push(b[0]);
            }
            Prctl::SetName(name)
        }
        nr::PR_GET_NAME => Prctl::GetName,
        nr::PR_SET_CHILD_SUBREAPER => Prctl::SetChildSubreaper(arg2 != 0),
        nr::PR_GET_CHILD_SUBREAPER => Prctl::GetChildSubreaper,
        // Checked by the Kernel (prctl() itself: EINVAL above 1).
        nr::PR_SET_DUMPABLE => Prctl::SetDumpable(arg2),
        nr::PR_GET_DUMPABLE => Prctl::GetDumpable,
        nr::PR_CAPBSET_READ => Prctl::CapbsetRead(arg2),
        nr::PR_CAPBSET_DROP => Prctl::CapbsetDrop(arg2),
        nr::PR_CAP_AMBIENT => Prctl::CapAmbient(
            crate::task::procapi::commoncap::AmbientOp::from_arg(arg2),
            a[2],
            a[3],
            a[4],
        ),
        nr::PR_SET_SECUREBITS => Prctl::SetSecurebits(arg2),
        nr::PR_GET_SECUREBITS => Prctl::GetSecurebits,
        nr::PR_SET_KEEPCAPS => Prctl::SetKeepcaps(arg2),
        nr::PR_GET_KEEPCAPS => Prctl::GetKeepcaps,
        nr::PR_SET_NO_NEW_PRIVS => Prctl::SetNoNewPrivs(rest),
        nr::PR_GET_NO_NEW_PRIVS => Prctl::GetNoNewPrivs(rest),
        _ => return Err(Errno::EINVAL),
    })
}

/// execve(filename, argv, envp): the path and the argument strings.
fn execve(mem: &dyn UserMemory, filename: u64, argv: u64) -> Result<Syscall> {
    let path = read_cstr(mem, filename, PATH_MAX, Errno::ENAMETOOLONG)?;
    let mut args = Vec::new();
    if argv != 0 {
        loop {
            if args.len() >= MAX_ARG_STRINGS {
                return Err(Errno::E2BIG);
            }
            let p = read_u64(mem, argv.wrapping_add(8 * args.len() as u64))?;
            if p == 0 {
                break;
            }
            args.push(read_cstr(mem, p, usize::MAX, Errno::E2BIG)?);
        }
    }
    Ok(Syscall::Execve {
        filename: String::from_utf8_lossy(&path).into_owned(),
        argv: Some(args),
    })
}

/// clone3(uargs, size): `copy_clone_args_from_user()`.
fn clone3_args(mem: &dyn UserMemory, uargs: u64, size: u64) -> Result<Clone3Args> {
    if size > PAGE_SIZE {
        return Err(Errno::E2BIG);
    }
    if size < CLONE_ARGS_SIZE_VER0 {
        return Err(Errno::EINVAL);
    }
    let mut raw = vec![0u8; size as usize];
    user_read(mem, uargs, &mut raw)?;
    // copy_struct_from_user(): unknown trailing bytes must be zero.
    if raw
        .iter()
        .skip(CLONE_ARGS_SIZE_VER2 as usize)
        .any(|b| *b != 0)
    {
        return Err(Errno::E2BIG);
    }
    raw.resize(CLONE_ARGS_SIZE_VER2 as usize, 0);
    let field = |i: usize| u64::from_le_bytes(raw[i * 8..i * 8 + 8].try_into().unwrap_or([0; 8]));
    let (set_tid_ptr, set_tid_size) = (field(8), field(9));
    // The size limit and the NULL/size pairing are Kernel::clone3's
    // checks; the array is read only when they can pass. An unreadable
    // array is an empty one: Kernel::clone3 answers EFAULT for it after
    // the exit_signal and cgroup checks, in Linux's order.
    let set_tid = if set_tid_ptr == 0 {
        None
    } else if set_tid_size == 0 || set_tid_size > 32 {
        Some(Vec::new())
    } else {
        Some(
            read_u32s(mem, set_tid_ptr, set_tid_size)
                .unwrap_or_default()
                .into_iter()
                .map(|v| v as i32)
                .collect(),
        )
    };
    let flags = field(0);
    let pidfd_fault =
        flags & crate::uapi::CLONE_PIDFD != 0 && mem.check_write(field(1), 4).is_err();
    Ok(Clone3Args {
        pidfd_fault,
        flags,
        exit_signal: field(4),
        set_tid,
        set_tid_size,
        cgroup: field(10),
        stack: field(5),
        stack_size: field(6),
    })
}
