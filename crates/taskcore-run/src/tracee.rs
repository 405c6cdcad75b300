//! One stopped tracee's registers and memory: `PTRACE_GETREGS`/`SETREGS`
//! and `process_vm_readv`/`process_vm_writev`, and the ptrace restarts
//! that carry a raw signal number.
//!
//! nix's `Signal` cannot name the real-time signals (34..=64), which a
//! tracer must be able to inject as it found them; the restarts here
//! therefore call `ptrace(2)` with the raw number.

use std::cell::RefCell;
use std::io::{IoSlice, IoSliceMut};

use libc::user_regs_struct;
use nix::sys::ptrace;
use nix::sys::uio::{process_vm_readv, process_vm_writev, RemoteIoVec};
use nix::unistd::Pid;
use taskcore::sys::UserMemory;
use taskcore::Errno;

/// The registers of a system call (x86_64 calling convention).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Regs(pub(crate) user_regs_struct);

impl Regs {
    /// Reads thread `tid`'s registers (`PTRACE_GETREGS`).
    pub(crate) fn get(tid: i32) -> nix::Result<Regs> {
        ptrace::getregs(Pid::from_raw(tid)).map(Regs)
    }

    /// Writes them back (`PTRACE_SETREGS`).
    pub(crate) fn set(&self, tid: i32) -> nix::Result<()> {
        ptrace::setregs(Pid::from_raw(tid), self.0)
    }

    /// The system call number (`orig_rax`).
    pub(crate) fn nr(&self) -> i64 {
        self.0.orig_rax as i64
    }

    /// Replaces the system call at a seccomp stop by call `nr` (`orig_rax`;
    /// the kernel runs the new one after the stop, its filter re-checked
    /// without a second stop, `__seccomp_filter()`'s recheck).
    pub(crate) fn set_nr(&mut self, nr: i64) {
        self.0.orig_rax = nr as u64;
    }

    /// The six argument registers: rdi, rsi, rdx, r10, r8, r9.
    pub(crate) fn args(&self) -> [u64; 6] {
        let r = &self.0;
        [r.rdi, r.rsi, r.rdx, r.r10, r.r8, r.r9]
    }

    /// Sets argument `i` (0..6).
    pub(crate) fn set_arg(&mut self, i: usize, v: u64) {
        let r = &mut self.0;
        match i {
            0 => r.rdi = v,
            1 => r.rsi = v,
            2 => r.rdx = v,
            3 => r.r10 = v,
            4 => r.r8 = v,
            _ => r.r9 = v,
        }
    }

    /// The return value (`rax`): a value, or `-errno`.
    pub(crate) fn ret(&self) -> i64 {
        self.0.rax as i64
    }

    /// Sets the return value.
    pub(crate) fn set_ret(&mut self, v: i64) {
        self.0.rax = v as u64;
    }

    /// Makes the kernel skip the call at a seccomp stop (`orig_rax = -1`),
    /// returning `ret` (Linux ≥ 4.8 keeps the tracer's `rax`).
    pub(crate) fn skip_with(&mut self, ret: i64) {
        self.0.orig_rax = u64::MAX;
        self.0.rax = ret as u64;
    }
}

/// The memory of thread `tid` (`process_vm_readv`/`writev`), read a page
/// at a time: the decoder reads strings byte by byte, and one system call
/// per byte made an execve's decoding cost more than the execve.
#[derive(Debug)]
pub(crate) struct Memory {
    tid: i32,
    /// The last bytes fetched and their address.
    cache: RefCell<(u64, Vec<u8>)>,
}

/// How much one fetch reads past the first byte asked for (to the end of
/// its page, and the next page).
const FETCH: u64 = 4096;

impl Memory {
    /// The memory of thread `tid`.
    pub(crate) fn new(tid: i32) -> Memory {
        Memory {
            tid,
            cache: RefCell::new((0, Vec::new())),
        }
    }

    /// Writes `bytes` at `addr`.
    ///
    /// # Errors
    /// `EFAULT` when the range is not writable in the tracee.
    pub(crate) fn write(&self, addr: u64, bytes: &[u8]) -> Result<(), Errno> {
        let local = [IoSlice::new(bytes)];
        let remote = [RemoteIoVec {
            base: addr as usize,
            len: bytes.len(),
        }];
        self.cache.borrow_mut().1.clear();
        match process_vm_writev(Pid::from_raw(self.tid), &local, &remote) {
            Ok(n) if n == bytes.len() => Ok(()),
            _ => Err(Errno::EFAULT),
        }
    }

    /// Reads a little-endian `i32` at `addr`.
    ///
    /// # Errors
    /// `EFAULT` when it is not readable.
    pub(crate) fn read_i32(&self, addr: u64) -> Result<i32, Errno> {
        let mut b = [0u8; 4];
        self.read(addr, &mut b)?;
        Ok(i32::from_le_bytes(b))
    }

    /// Reads a little-endian `u64` at `addr`.
    ///
    /// # Errors
    /// `EFAULT` when it is not readable.
    pub(crate) fn read_u64(&self, addr: u64) -> Result<u64, Errno> {
        let mut b = [0u8; 8];
        self.read(addr, &mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    /// Writes `v` at `addr` as a little-endian `i32`.
    ///
    /// # Errors
    /// `EFAULT` when it is not writable.
    pub(crate) fn write_i32(&self, addr: u64, v: i32) -> Result<(), Errno> {
        self.write(addr, &v.to_le_bytes())
    }
}

impl Memory {
    /// `process_vm_readv` of `buf.len()` bytes at `addr`: how many it read
    /// (it stops at the first page not mapped readable).
    fn fetch(&self, addr: u64, buf: &mut [u8]) -> usize {
        let len = buf.len();
        let mut local = [IoSliceMut::new(buf)];
        let remote = [RemoteIoVec {
            base: addr as usize,
            len,
        }];
        process_vm_readv(Pid::from_raw(self.tid), &mut local, &remote).unwrap_or(0)
    }
}

impl UserMemory for Memory {
    fn read(&self, addr: u64, buf: &mut [u8]) -> taskcore::Result<()> {
        if buf.is_empty() {
            return Ok(());
        }
        let len = buf.len() as u64;
        let end = addr.checked_add(len).ok_or(Errno::EFAULT)?;
        let mut cache = self.cache.borrow_mut();
        let (base, bytes) = &*cache;
        if addr >= *base && end <= *base + bytes.len() as u64 {
            let off = (addr - base) as usize;
            buf.copy_from_slice(&bytes[off..off + buf.len()]);
            return Ok(());
        }
        if len > FETCH {
            return if self.fetch(addr, buf) == buf.len() {
                Ok(())
            } else {
                Err(Errno::EFAULT)
            };
        }
        // To the end of this page and the whole next one.
        let want = ((addr | (FETCH - 1)) + 1 - addr + FETCH).max(len);
        let mut bytes = vec![0u8; want as usize];
        let n = self.fetch(addr, &mut bytes);
        bytes.truncate(n);
        *cache = (addr, bytes);
        if (n as u64) < len {
            return Err(Errno::EFAULT);
        }
        buf.copy_from_slice(&cache.1[..buf.len()]);
        Ok(())
    }
}

fn restart(req: libc::c_uint, tid: i32, sig: i32, data_is_sig: bool) -> nix::Result<()> {
    let data = if data_is_sig { sig as usize } else { 0 };
    // SAFETY: ptrace restart requests take no pointer: addr is unused and
    // data is the signal number.
    let r = unsafe {
        libc::ptrace(
            req,
            tid as libc::pid_t,
            std::ptr::null_mut::<libc::c_void>(),
            data as *mut libc::c_void,
        )
    };
    if r < 0 {
        Err(nix::Error::last())
    } else {
        Ok(())
    }
}

/// `PTRACE_CONT` with signal `sig` (0: none) injected.
///
/// # Errors
/// `ESRCH` when the tracee is gone (killed meanwhile) or not stopped.
pub(crate) fn cont(tid: i32, sig: i32) -> nix::Result<()> {
    restart(libc::PTRACE_CONT, tid, sig, true)
}

/// `PTRACE_SYSCALL` with signal `sig` injected: stop at the next syscall
/// exit (after a seccomp stop, the current call's exit).
///
/// # Errors
/// As [`cont`].
pub(crate) fn syscall(tid: i32, sig: i32) -> nix::Result<()> {
    restart(libc::PTRACE_SYSCALL, tid, sig, true)
}

/// `PTRACE_LISTEN`: a seized tracee in a group stop stays stopped but
/// reports the end of the stop (SIGCONT) with a new trap.
///
/// # Errors
/// As [`cont`]; `EIO` when the stop is not a group stop.
pub(crate) fn listen(tid: i32) -> nix::Result<()> {
    restart(libc::PTRACE_LISTEN, tid, 0, false)
}

/// `si_pid`'s offset in `siginfo_t` (x86_64): after si_signo, si_errno,
/// si_code and the padding of the union's alignment.
pub(crate) const SI_PID_OFFSET: u64 = 16;

/// Whether a siginfo with `si_code` `code` for `sig` carries a sender
/// pid: sent by a process (`SI_USER`, `SI_QUEUE`, `SI_TKILL`: codes ≤ 0)
/// or a child's state change (SIGCHLD's `CLD_*`).
pub(crate) fn has_pid(sig: i32, code: i32) -> bool {
    code <= 0 || (sig == libc::SIGCHLD && (1..=6).contains(&code))
}

/// `struct clone_args` offsets (include/uapi/linux/sched.h).
const CLONE3_CHILD_TID: u64 = 16;
const CLONE3_PARENT_TID: u64 = 24;

/// A clone-family call's flags and its `CLONE_PARENT_SETTID` and
/// `CLONE_CHILD_SETTID` addresses (0: none), from its arguments `args`
/// (clone3's from its `struct clone_args` in tracee memory `mem`); fork and vfork: 0.
pub(crate) fn clone_flags_and_tids(nr: i64, args: &[u64; 6], mem: &Memory) -> (u64, u64, u64) {
    match nr {
        libc::SYS_clone => (args[0], args[2], args[3]),
        libc::SYS_clone3 => (
            mem.read_u64(args[0]).unwrap_or(0),
            mem.read_u64(args[0] + CLONE3_PARENT_TID).unwrap_or(0),
            mem.read_u64(args[0] + CLONE3_CHILD_TID).unwrap_or(0),
        ),
        _ => (0, 0, 0),
    }
}
