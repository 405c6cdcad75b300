//! Raw system calls for the bindings' `Kernel.syscall`: decoding with
//! [`Syscall::from_raw_in`], [`dispatch`], and the two tables the library
//! leaves to its embedder: the caller's memory (byte ranges given by the
//! Python caller) and the pidfds' numbers.

use std::collections::BTreeMap;

use taskcore::sys::{dispatch, FdTable, SysRet, Syscall, UserMemory};
use taskcore::{Errno, Kernel, PidFd, SetnsFd, SigWait, TaskId, WaitOutcome};

/// User memory made of byte ranges at given addresses; the rest is
/// unreadable (`EFAULT`).
#[derive(Debug, Default)]
pub struct RangeMemory(pub BTreeMap<u64, Vec<u8>>);

impl UserMemory for RangeMemory {
    fn read(&self, addr: u64, buf: &mut [u8]) -> taskcore::Result<()> {
        let (base, bytes) = self.0.range(..=addr).next_back().ok_or(Errno::EFAULT)?;
        let off = (addr - base) as usize;
        let src = bytes
            .get(off..off.checked_add(buf.len()).ok_or(Errno::EFAULT)?)
            .ok_or(Errno::EFAULT)?;
        buf.copy_from_slice(src);
        Ok(())
    }
}

/// The pidfds open in the emulated system, by fd number (one table for the
/// whole kernel: the bindings model no per-process file tables). Numbers
/// start at 3 and the lowest free one is used, as Linux allocates fds.
#[derive(Debug, Default)]
pub struct PidFds(BTreeMap<i32, PidFd>);

impl PidFds {
    /// Numbers `fd` with the lowest free number from 3.
    pub fn install(&mut self, fd: PidFd) -> i32 {
        let n = (3..).find(|n| !self.0.contains_key(n)).unwrap_or(i32::MAX);
        self.0.insert(n, fd);
        n
    }

    /// Closes `fd` (`close(2)`: the kernel's pidfd goes with its last fd).
    ///
    /// # Errors
    /// `EBADF` if `fd` is not open.
    pub fn close(&mut self, k: &mut Kernel, fd: i32) -> taskcore::Result<()> {
        let p = self.0.remove(&fd).ok_or(Errno::EBADF)?;
        k.pidfd_close(p)
    }
}

impl FdTable for PidFds {
    fn pidfd(&self, fd: i32) -> taskcore::Result<PidFd> {
        self.0.get(&fd).copied().ok_or(Errno::EBADF)
    }
    fn setns_fd(&self, fd: i32) -> taskcore::Result<SetnsFd> {
        self.pidfd(fd).map(SetnsFd::PidFd)
    }
}

/// What a raw call gave: its return value, or that the caller must sleep
/// (a wait or signal wait to retry after the kernel's notification).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Raw {
    /// The return register.
    Ret(i64),
    /// The caller sleeps; retry the same call later.
    WouldBlock,
}

/// x86_64 syscall `nr` with registers `args` by `current`: decoded with
/// pointers read from `mem` and fds from `fds`, dispatched on `k`. New
/// pidfds (pidfd_open, `CLONE_PIDFD`) are numbered in `fds`; pidfd_open
/// returns that number.
///
/// # Errors
/// The decoder's errno (`ENOSYS` for a call the core does not model,
/// `EFAULT` for unreadable memory...) or the kernel's.
pub fn raw_syscall(
    k: &mut Kernel,
    fds: &mut PidFds,
    current: TaskId,
    nr: u64,
    args: [u64; 6],
    mem: &RangeMemory,
) -> taskcore::Result<Raw> {
    let call = Syscall::from_raw_in(nr, args, mem, fds)?;
    Ok(match dispatch(k, current, &call)? {
        SysRet::PidFd(p) => Raw::Ret(fds.install(p).into()),
        SysRet::Child {
            pid,
            pidfd: Some(p),
            ..
        } => {
            fds.install(p);
            Raw::Ret(pid.into())
        }
        SysRet::Wait(WaitOutcome::WouldBlock)
        | SysRet::Waitid(WaitOutcome::WouldBlock)
        | SysRet::SigWait(SigWait::WouldBlock) => Raw::WouldBlock,
        r => Raw::Ret(r.raw()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use taskcore::sys::nr;
    use taskcore::uapi::{CLONE_PIDFD, SIGCHLD, WEXITED};
    use taskcore::Config;

    #[test]
    fn pidfds_are_numbered_and_resolved() {
        let mut k = Kernel::new(Config::default()).unwrap();
        let init = k.init_task().unwrap();
        let mut fds = PidFds::default();
        let mem = RangeMemory::default();
        let a = k.fork(init).unwrap();
        let pa = k.pid_vnr(init, a).unwrap() as u64;
        let open = [pa, 0, 0, 0, 0, 0];
        let call = |k: &mut Kernel, fds: &mut PidFds, nr, a| raw_syscall(k, fds, init, nr, a, &mem);
        assert_eq!(
            call(&mut k, &mut fds, nr::PIDFD_OPEN, open),
            Ok(Raw::Ret(3))
        );
        let clone = [CLONE_PIDFD | SIGCHLD as u64, 0, 0, 0, 0, 0];
        assert_eq!(call(&mut k, &mut fds, nr::CLONE, clone), Ok(Raw::Ret(3)));
        assert!(fds.pidfd(4).is_ok());
        fds.close(&mut k, 3).unwrap();
        assert_eq!(fds.close(&mut k, 3), Err(Errno::EBADF));
        assert_eq!(
            call(&mut k, &mut fds, nr::PIDFD_OPEN, open),
            Ok(Raw::Ret(3))
        );
        // waitid(P_PIDFD, 3, ..., WEXITED) sleeps until a exits.
        let w = [3, 3, 0, WEXITED as u64, 0, 0];
        assert_eq!(call(&mut k, &mut fds, nr::WAITID, w), Ok(Raw::WouldBlock));
        assert_eq!(
            call(
                &mut k,
                &mut fds,
                nr::WAITID,
                [3, 9, 0, WEXITED as u64, 0, 0]
            ),
            Err(Errno::EBADF)
        );
    }

    #[test]
    fn memory_ranges_are_read_or_efault() {
        let m = RangeMemory(BTreeMap::from([(0x1000, vec![1, 2, 3, 4])]));
        let mut b = [0u8; 2];
        assert_eq!(m.read(0x1002, &mut b), Ok(()));
        assert_eq!(b, [3, 4]);
        assert_eq!(m.read(0x1003, &mut b), Err(Errno::EFAULT));
        assert_eq!(m.read(0xfff, &mut b), Err(Errno::EFAULT));
    }
}
