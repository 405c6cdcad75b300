//! `CLONE_PIDFD`: clone and clone3 that also return a pidfd on the child.
//!
//! # Linux
//! kernel/fork.c `kernel_clone()` (`CLONE_PIDFD` with
//! `CLONE_PARENT_SETTID`), `copy_process()` (`CLONE_PIDFD` with
//! `CLONE_DETACHED`; `pidfd_prepare()` with `PIDFD_THREAD` for a
//! `CLONE_THREAD` child, Linux 6.9+); Linux 6.18's answers are in
//! tests/oracle/pidfd_rules.out (`clone_pidfd_*`, `clone3_pidfd_*`).

use taskcore::task::pidfd::PIDFD_THREAD;
use taskcore::uapi::{CLONE_PIDFD, CLONE_THREAD};

use crate::objects::{PidFd, PidFdFile};
use crate::{Clone3Args, CloneArgs, Model, Result, Tid};

impl Model {
    /// Legacy `clone(2)` by `current` with `CLONE_PIDFD` honoured: as
    /// [`Model::clone`], plus, when the low 32 flag bits hold
    /// `CLONE_PIDFD`, a pidfd on the child (`PIDFD_THREAD` for a
    /// `CLONE_THREAD` child, no `PIDFD_NONBLOCK`).
    ///
    /// # Errors
    /// - `ESRCH`: `current` is stale or exiting.
    /// - `EINVAL`: `CLONE_PIDFD` with `CLONE_PARENT_SETTID` (clone(2) has
    ///   one pointer for both) or with `CLONE_DETACHED`.
    /// - Otherwise as [`Model::clone`]. Nothing changes on an error.
    pub fn clone_with_pidfd(
        &mut self,
        current: Tid,
        args: &CloneArgs,
    ) -> Result<(Tid, Option<PidFd>)> {
        let flags = args.flags & 0xffff_ffff;
        if flags & CLONE_PIDFD != 0 {
            self.current(current)?;
            taskcore::rules::clone_pidfd_flags(flags)?;
        }
        let child = self.clone(current, args)?;
        Ok((child, self.child_pidfd(child, flags)))
    }

    /// `clone3(2)` by `current` with `CLONE_PIDFD` honoured: as
    /// [`Model::clone3`], plus a pidfd on the child (`PIDFD_THREAD` for a
    /// thread). `CLONE_PARENT_SETTID` may go with it (clone3 has its own
    /// `pidfd` field); `CLONE_DETACHED` is refused by clone3 itself.
    ///
    /// # Errors
    /// As [`Model::clone3`]. Nothing changes on an error.
    pub fn clone3_with_pidfd(
        &mut self,
        current: Tid,
        args: &Clone3Args,
    ) -> Result<(Tid, Option<PidFd>)> {
        let child = self.clone3(current, args)?;
        Ok((child, self.child_pidfd(child, args.flags)))
    }

    /// `pidfd_prepare()` on a new child's `struct pid`, with `CLONE_PIDFD`.
    fn child_pidfd(&mut self, child: Tid, flags: u64) -> Option<PidFd> {
        if flags & CLONE_PIDFD == 0 {
            return None;
        }
        let pid = self.tasks.get(child.0)?.as_ref()?.pid;
        let flags = if flags & CLONE_THREAD != 0 {
            PIDFD_THREAD
        } else {
            0
        };
        self.pidfds.push(Some(PidFdFile {
            pid,
            ns: self.ns_of_pid(pid),
            flags,
        }));
        Some(PidFd(self.pidfds.len() - 1))
    }

    /// The flags a pidfd was opened with (`PIDFD_NONBLOCK`,
    /// `PIDFD_THREAD`), as `fcntl(F_GETFL)` and `/proc/self/fdinfo` show
    /// them.
    ///
    /// # Errors
    /// `EBADF` if `fd` is closed.
    pub fn pidfd_flags(&self, fd: PidFd) -> Result<u32> {
        self.pidfd_file(fd).map(|f| f.flags)
    }
}
