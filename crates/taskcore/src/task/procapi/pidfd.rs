//! pidfds: handles on a process (or a thread) that stay bound to it after it
//! is reaped, so that a later process given the same number is never
//! confused with it.
//!
//! A [`PidFd`] is an open pidfd (the open file description, not a number:
//! the library has no file tables; the embedder maps its fd numbers to
//! these handles, and closes one with [`Kernel::pidfd_close`] when the last
//! fd referring to it is closed). It holds an external reference on its
//! `struct pid`. Modelled: `pidfd_open`, `CLONE_PIDFD` in clone and clone3
//! ([`Kernel::clone_with_pidfd`], [`Kernel::clone3_with_pidfd`]),
//! `pidfd_send_signal`, `waitid(P_PIDFD)`, poll readiness and the `Pid`/
//! `NSpid` lines of fdinfo, and [`Kernel::setns`] with a pidfd.
//! `pidfd_getfd` is out of scope: the library has no files to duplicate.
//!
//! The answers follow Linux 6.18, recorded by `tests/oracle/pidfd_rules.c`.
//!
//! # Linux
//! kernel/pid.c (`pidfd_open`, `pidfd_create`), kernel/signal.c
//! (`pidfd_send_signal`), kernel/exit.c (`kernel_waitid_prepare`), fs/pidfs.c
//! (`pidfd_poll`, `pidfd_show_fdinfo`), kernel/fork.c (`CLONE_PIDFD`).

use crate::errno::{Errno, Result};
use crate::ix::TaskIx;
use crate::list;
use crate::pid::entry::PidIx;
use crate::pid::refs::{bump_gen, gen_of, PidFdFile};
use crate::task::kernel::{Kernel, SigInfo, TaskId};
use crate::task::lifecycle::clone::CloneArgs;
use crate::task::lifecycle::clone3::Clone3Args;
use crate::task::lifecycle::wait::WaitFilter;
use crate::task::signal::sigsend::PidType;
use crate::task::task_struct::{ExitState, PF_EXITING};
use crate::uapi::{CLONE_PIDFD, CLONE_THREAD, WNOHANG};
use crate::wait::WaitOutcome;

pub use crate::uapi::{
    PIDFD_NONBLOCK, PIDFD_SIGNAL_PROCESS_GROUP, PIDFD_SIGNAL_THREAD, PIDFD_SIGNAL_THREAD_GROUP,
    PIDFD_THREAD,
};
/// Poll bit: readable (`POLLIN`).
pub const POLLIN: u32 = 0x1;
/// Poll bit: normal data readable (`POLLRDNORM`).
pub const POLLRDNORM: u32 = 0x40;
/// Poll bit: hang-up (`POLLHUP`), reported whether asked for or not.
pub const POLLHUP: u32 = 0x10;

/// An open pidfd. Generation-checked: once closed with
/// [`Kernel::pidfd_close`], every operation given it fails with `EBADF`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PidFd {
    pub(crate) idx: u32,
    pub(crate) gen: u32,
}

/// The `Pid` and `NSpid` lines of a pidfd's `/proc/PID/fdinfo/FD`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PidFdInfo {
    /// `Pid`: the number in the procfs's namespace, 0 if none there, -1
    /// once the task was reaped.
    pub pid: i32,
    /// `NSpid`: `pid`, then the numbers in the deeper namespaces down to
    /// the pid's own (only `pid` when it is 0 or -1).
    pub nspid: Vec<i32>,
}

/// # Process API: pidfds (`kernel/pid.c`, `kernel/fork.c`).
impl Kernel {
    /// Opens a pidfd on `struct pid` `pid` with `flags`.
    fn pidfd_create(&mut self, pid: PidIx, flags: u32) -> Result<PidFd> {
        let idx = self
            .ext
            .pidfds
            .insert(PidFdFile { pid, flags })
            .ok_or(Errno::EMFILE)?;
        self.get_pid_idx(pid);
        Ok(PidFd {
            idx,
            gen: gen_of(&self.ext.pidfd_gens, idx),
        })
    }

    fn pidfd_file(&self, fd: PidFd) -> Result<PidFdFile> {
        match self.ext.pidfds.get(fd.idx) {
            Some(f) if gen_of(&self.ext.pidfd_gens, fd.idx) == fd.gen => Ok(*f),
            _ => Err(Errno::EBADF),
        }
    }

    /// The `struct pid` a pidfd holds (`pidfd_pid`).
    pub(crate) fn pidfd_pid(&self, fd: PidFd) -> Result<PidIx> {
        self.pidfd_file(fd).map(|f| f.pid)
    }

    /// `pidfd_open(pid, flags)` for `current`: a pidfd on the process
    /// numbered `pid` in the caller's namespace (with [`PIDFD_THREAD`], on
    /// the thread numbered `pid`).
    ///
    /// # Errors
    /// - `EINVAL`: `flags` outside [`PIDFD_NONBLOCK`] | [`PIDFD_THREAD`];
    ///   `pid <= 0`.
    /// - `ESRCH`: `current` stale or exiting; no pid numbered `pid`.
    /// - `ENOENT`: without [`PIDFD_THREAD`], `pid` is not a thread group's
    ///   id (a thread other than the leader, or only a process group's);
    ///   with it, no task uses `pid` (Linux 6.18's answer; earlier kernels
    ///   said `EINVAL`).
    /// - `EMFILE`: no slot left.
    ///
    /// # Linux
    /// `sys_pidfd_open()` (kernel/pid.c), `pidfd_prepare()`.
    pub fn pidfd_open(&mut self, current: TaskId, pid: i32, flags: u32) -> Result<PidFd> {
        crate::rules::pidfd_open_args(pid, flags)?;
        let cur = self.current(current)?;
        let p = self.find_pid(self.ns_of(cur), pid).ok_or(Errno::ESRCH)?;
        let has = if flags & PIDFD_THREAD != 0 {
            self.pids[p].task.is_some()
        } else {
            self.pids[p].tgid_group.is_some()
        };
        if !has {
            return Err(Errno::ENOENT);
        }
        self.pidfd_create(p, flags)
    }

    /// Closes a pidfd, dropping its reference on the `struct pid`.
    ///
    /// # Errors
    /// `EBADF` if already closed.
    ///
    /// # Linux
    /// The last `fput` of a pidfd: `pidfd_release` → `put_pid`.
    pub fn pidfd_close(&mut self, fd: PidFd) -> Result<()> {
        let f = self.pidfd_file(fd)?;
        self.ext.pidfds.delete(fd.idx);
        bump_gen(&mut self.ext.pidfd_gens, fd.idx);
        self.put_pid_idx(f.pid);
        Ok(())
    }

    /// A pidfd's flags ([`PIDFD_NONBLOCK`], [`PIDFD_THREAD`]), as
    /// `fcntl(F_GETFL)` shows them (without `O_RDWR`).
    ///
    /// # Errors
    /// `EBADF` if closed.
    pub fn pidfd_flags(&self, fd: PidFd) -> Result<u32> {
        self.pidfd_file(fd).map(|f| f.flags)
    }

    /// The task a pidfd names while it is not reaped (`pid_task(pid,
    /// PIDTYPE_PID)`).
    ///
    /// # Errors
    /// `EBADF` if closed.
    pub fn pidfd_task(&self, fd: PidFd) -> Result<Option<TaskId>> {
        let t = self.pids[self.pidfd_pid(fd)?].task;
        Ok(t.map(|t| self.handle_unchecked(t)))
    }

    /// `clone(2)` with `CLONE_PIDFD` support: as [`Kernel::clone`], and with
    /// `CLONE_PIDFD` in `args.flags` also a pidfd on the child (with
    /// [`PIDFD_THREAD`] when it is a thread, `CLONE_THREAD`).
    ///
    /// # Errors
    /// - `EINVAL`: `CLONE_PIDFD` with `CLONE_PARENT_SETTID` (one pointer
    ///   for both in clone(2)) or with `CLONE_DETACHED`.
    /// - `EMFILE`: no pidfd slot left (nothing created).
    /// - Otherwise as [`Kernel::clone`].
    ///
    /// # Linux
    /// `kernel_clone()` and `copy_process()`'s `CLONE_PIDFD` part.
    pub fn clone_with_pidfd(
        &mut self,
        current: TaskId,
        args: &CloneArgs,
    ) -> Result<(TaskId, Option<PidFd>)> {
        let flags = args.flags & u64::from(u32::MAX);
        if flags & CLONE_PIDFD != 0 {
            self.current(current)?;
            crate::rules::clone_pidfd_flags(flags)?;
            self.ext.pidfds.vacant_key().ok_or(Errno::EMFILE)?;
        }
        let child = self.clone(current, args)?;
        self.child_pidfd(child, flags)
    }

    /// `clone3(2)` with `CLONE_PIDFD` support: as [`Kernel::clone3`], and
    /// with `CLONE_PIDFD` also a pidfd on the child ([`PIDFD_THREAD`] for a
    /// thread). Unlike clone(2), `CLONE_PARENT_SETTID` may go with it.
    ///
    /// # Errors
    /// `EMFILE` if no pidfd slot is left; otherwise as [`Kernel::clone3`].
    pub fn clone3_with_pidfd(
        &mut self,
        current: TaskId,
        args: &Clone3Args,
    ) -> Result<(TaskId, Option<PidFd>)> {
        if args.flags & CLONE_PIDFD != 0 {
            self.current(current)?;
            self.ext.pidfds.vacant_key().ok_or(Errno::EMFILE)?;
        }
        let child = self.clone3(current, args)?;
        self.child_pidfd(child, args.flags)
    }

    fn child_pidfd(&mut self, child: TaskId, flags: u64) -> Result<(TaskId, Option<PidFd>)> {
        if flags & CLONE_PIDFD == 0 {
            return Ok((child, None));
        }
        let t = self.task_idx(child)?;
        let pidfd_flags = if flags & CLONE_THREAD != 0 {
            PIDFD_THREAD
        } else {
            0
        };
        let fd = self.pidfd_create(self.tasks[t].pid, pidfd_flags)?;
        Ok((child, Some(fd)))
    }

    /// `pidfd_send_signal(fd, sig, info, flags)` for `current`.
    ///
    /// The scope is the pidfd's own (the thread for a [`PIDFD_THREAD`]
    /// pidfd, else the thread group) unless `flags` names one:
    /// [`PIDFD_SIGNAL_THREAD`], [`PIDFD_SIGNAL_THREAD_GROUP`] (the group of
    /// the pidfd's thread, whichever thread it is), or
    /// [`PIDFD_SIGNAL_PROCESS_GROUP`] (the process group the pid leads). A
    /// zombie takes a signal and ignores it. Delivery is the one of
    /// [`Kernel::kill`] (and [`Kernel::tkill`] for a thread); the siginfo's
    /// contents are not kept. A process whose leader has exited while other
    /// threads run takes a group-scope signal as `kill` gives it.
    ///
    /// # Errors
    /// - `EINVAL`: unknown `flags` bits or more than one scope;
    ///   the pid's namespace is not the caller's or a descendant of it;
    ///   `info.signo != sig`; `sig` outside 0..=64 (once the target is
    ///   found).
    /// - `EBADF`: `fd` closed.
    /// - `ESRCH`: `current` stale or exiting; the task was reaped; for the
    ///   process-group scope, the pid leads no process group.
    /// - `EPERM`: `info` with `code >= 0` or [`SI_TKILL`](crate::uapi::SI_TKILL) aimed at another
    ///   process or at a scope wider than the thread group; the caller may
    ///   not signal the target (see [`Kernel::kill`]; for a process group,
    ///   none of its members).
    ///
    /// # Linux
    /// `sys_pidfd_send_signal()` (kernel/signal.c), `kill_pid_info_type()`,
    /// `kill_pgrp_info()`, `check_kill_permission()`. A signal aimed at an
    /// exiting thread (`PIDFD_SIGNAL_THREAD`) is dropped, SIGCONT's
    /// group-wide effect included.
    pub fn pidfd_send_signal(
        &mut self,
        current: TaskId,
        fd: PidFd,
        sig: i32,
        info: Option<SigInfo>,
        flags: u32,
    ) -> Result<()> {
        crate::rules::pidfd_send_signal_flags(flags)?;
        let file = self.pidfd_file(fd)?;
        let cur = self.current(current)?;
        let pid = file.pid;
        let active = self.ns_of(cur);
        if !self.ns_within(self.pids[pid].numbers.last().ns, active) {
            return Err(Errno::EINVAL);
        }
        #[derive(PartialEq)]
        enum Scope {
            Thread,
            Group,
            Pgrp,
        }
        let scope = match flags {
            PIDFD_SIGNAL_THREAD => Scope::Thread,
            PIDFD_SIGNAL_THREAD_GROUP => Scope::Group,
            PIDFD_SIGNAL_PROCESS_GROUP => Scope::Pgrp,
            _ if file.flags & PIDFD_THREAD != 0 => Scope::Thread,
            _ => Scope::Group,
        };
        let to_self = self.tasks[cur].pid == pid;
        crate::rules::pidfd_send_signal_info(info.as_ref(), sig, to_self, scope == Scope::Pgrp)?;
        let who = self.killer(cur);
        let may = |k: &Kernel, t: TaskIx| k.may_kill(&who, t, sig);
        if scope == Scope::Pgrp {
            let members =
                list::collect(self.pids[pid].pgrp_members, &self.groups, |g| &g.pgrp_node);
            if members.is_empty() {
                return Err(Errno::ESRCH);
            }
            if !(0..=64).contains(&sig) {
                return Err(Errno::EINVAL);
            }
            let leaders: Vec<TaskIx> = members.iter().map(|&g| self.groups[g].leader).collect();
            if !leaders.iter().any(|&t| may(self, t)) {
                return Err(Errno::EPERM);
            }
            for t in leaders {
                if sig != 0 && self.tasks.contains(t) && may(self, t) {
                    // SI_USER or a caller's own negative code to itself:
                    // a process group is never short of queue entries.
                    let _ = self.send_user_signal(&who, t, sig, PidType::Tgid, info);
                }
            }
            self.run_deferred();
            return Ok(());
        }
        let Some(t) = self.pids[pid].task else {
            return Err(Errno::ESRCH);
        };
        if !(0..=64).contains(&sig) {
            return Err(Errno::EINVAL);
        }
        if !may(self, t) {
            return Err(Errno::EPERM);
        }
        // A zombie leader whose other threads run still takes a signal for
        // its group, as kill(2) delivers it (tests/oracle/pidfd_leader.c);
        // one aimed at the zombie thread itself has no effect.
        let alive = self.tasks[t].exit_state() == ExitState::Alive;
        let mut r = Ok(());
        if sig != 0 && (alive || scope != Scope::Thread) {
            let ty = if scope == Scope::Thread {
                PidType::Pid
            } else {
                PidType::Tgid
            };
            if ty == PidType::Tgid || !self.tasks[t].flags.contains(PF_EXITING) {
                r = self.send_user_signal(&who, t, sig, ty, info);
            }
        }
        self.run_deferred();
        r
    }

    /// `waitid(P_PIDFD, fd, &info, options, NULL)` for `current`: waits for
    /// the child the pidfd names, as [`Kernel::waitid`] with `P_PID` does,
    /// whatever number it has now. With a [`PIDFD_NONBLOCK`] pidfd the wait
    /// does not block: `EAGAIN` when nothing is ready (and `WNOHANG` was not
    /// given).
    ///
    /// # Errors
    /// - `EINVAL`: options as [`Kernel::waitid`] (checked before the fd; a
    ///   negative fd number is also `EINVAL`, the embedder's check).
    /// - `EBADF`: `fd` closed.
    /// - `ESRCH`: `current` stale or exiting.
    /// - `ECHILD`: the pid is not a child of the caller (or its group), or
    ///   it was reaped.
    /// - `EAGAIN`: [`PIDFD_NONBLOCK`], no `WNOHANG`, nothing to report.
    ///
    /// # Linux
    /// `kernel_waitid_prepare()` and `kernel_waitid()` (kernel/exit.c).
    pub fn waitid_pidfd(
        &mut self,
        current: TaskId,
        fd: PidFd,
        options: impl Into<i32>,
    ) -> Result<WaitOutcome> {
        let options = crate::rules::waitid_options(options.into())?;
        let file = self.pidfd_file(fd)?;
        let cur = self.current(current)?;
        let nonblock = file.flags & PIDFD_NONBLOCK != 0;
        let flags = if nonblock { options | WNOHANG } else { options };
        let r = self.do_wait(cur, WaitFilter::Pid(Some(file.pid)), flags);
        self.run_deferred();
        match r {
            Ok(WaitOutcome::NothingYet) if nonblock && options & WNOHANG == 0 => Err(Errno::EAGAIN),
            r => r,
        }
    }

    /// A pidfd's poll readiness (`pidfd_poll`): [`POLLIN`] | [`POLLRDNORM`]
    /// once the task is a zombie and not a leader waiting for its other
    /// threads, [`POLLHUP`] added once it was reaped, 0 before. (A
    /// thread other than the leader is reaped as it exits.)
    ///
    /// # Errors
    /// `EBADF` if `fd` is closed.
    ///
    /// # Linux
    /// `pidfd_poll()` (fs/pidfs.c).
    pub fn pidfd_poll(&self, fd: PidFd) -> Result<u32> {
        let pid = self.pidfd_pid(fd)?;
        Ok(match self.pids[pid].task {
            None => POLLIN | POLLRDNORM | POLLHUP,
            Some(t)
                if self.tasks[t].exit_state() != ExitState::Alive
                    && !self.delay_group_leader(t) =>
            {
                POLLIN | POLLRDNORM
            }
            Some(_) => 0,
        })
    }

    /// The `Pid` and `NSpid` lines of a pidfd's fdinfo, as read through a
    /// procfs of namespace `ns` (the numbers are that namespace's, not the
    /// reader's).
    ///
    /// # Errors
    /// `EBADF` if `fd` is closed; `EINVAL` if `ns` names no namespace.
    ///
    /// # Linux
    /// `pidfd_show_fdinfo()` (fs/pidfs.c).
    pub fn pidfd_fdinfo(&self, fd: PidFd, ns: crate::pid::NsId) -> Result<PidFdInfo> {
        let pid = self.pidfd_pid(fd)?;
        let level = self.nss.get(ns.0).ok_or(Errno::EINVAL)?.level;
        if self.pids[pid].task.is_none() {
            return Ok(PidFdInfo {
                pid: -1,
                nspid: vec![-1],
            });
        }
        let nr = self.pid_nr_ns(pid, ns.0);
        let mut nspid = vec![nr];
        if nr > 0 {
            let numbers = self.pid_numbers(pid);
            nspid.extend(numbers[level + 1..].iter().map(|u| u.nr as i32));
        }
        Ok(PidFdInfo { pid: nr, nspid })
    }
}
