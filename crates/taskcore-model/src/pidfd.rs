//! pidfds and `setns` through one, in plain code.
//!
//! A pidfd names a `struct pid`, not a number: it keeps naming it after
//! the number is freed (here: the pid's slot, never reused, plus the
//! namespace it was allocated in). Open pidfds are kept in
//! `Model::pidfds` until closed.
//!
//! # Linux
//! kernel/pid.c `sys_pidfd_open()`, `pidfd_get_pid()`; kernel/signal.c
//! `sys_pidfd_send_signal()`, `kill_pid_info_type()`, `__kill_pgrp_info()`;
//! kernel/exit.c `kernel_waitid_prepare()` (`P_PIDFD`); fs/pidfs.c
//! `pidfd_poll()`; kernel/nsproxy.c `setns()`, kernel/pid_namespace.c
//! `pidns_install()`.

use taskcore::task::pidfd::{
    PIDFD_NONBLOCK, PIDFD_SIGNAL_PROCESS_GROUP, PIDFD_SIGNAL_THREAD, PIDFD_SIGNAL_THREAD_GROUP,
    PIDFD_THREAD, POLLHUP, POLLIN, POLLRDNORM,
};
use taskcore::uapi::{CLONE_NEWPID, NSIG, WNOHANG};
use taskcore::WaitOutcome;

use crate::cred::Sender;
use crate::objects::{PidFd, PidFdFile};
use crate::wait::WaitType;
use crate::{Errno, ExitState, Model, Result, Tid};

impl Model {
    pub(crate) fn pidfd_file(&self, fd: PidFd) -> Result<PidFdFile> {
        self.pidfds.get(fd.0).copied().flatten().ok_or(Errno::EBADF)
    }

    /// The task using `pid` as its PID, if the pid is still allocated.
    fn pid_task(&self, pid: usize) -> Option<usize> {
        self.pids[pid].as_ref().and_then(|p| p.task)
    }

    /// `pidfd_open(pid, flags)` by `current`.
    ///
    /// # Errors
    /// - `EINVAL`: a flag other than `PIDFD_NONBLOCK`/`PIDFD_THREAD`;
    ///   `pid <= 0`.
    /// - `ESRCH`: stale caller; no pid `pid` in the caller's namespace.
    /// - `ENOENT`: without `PIDFD_THREAD`, the pid is no process's (a
    ///   thread that does not lead its group, or only a process group's or
    ///   session's id); with it, no task uses the pid (Linux 6.18).
    pub fn pidfd_open(&mut self, current: Tid, pid: i32, flags: u32) -> Result<PidFd> {
        taskcore::rules::pidfd_open_args(pid, flags)?;
        let cur = self.current(current)?;
        let p = self.find_pid(self.ns_of(cur), pid).ok_or(Errno::ESRCH)?;
        let task = self.pid_task(p);
        let ok = if flags & PIDFD_THREAD != 0 {
            task.is_some()
        } else {
            // pid_has_task(pid, PIDTYPE_TGID): a group leader uses it.
            task.is_some_and(|t| self.is_leader(t))
        };
        if !ok {
            return Err(Errno::ENOENT);
        }
        self.pidfds.push(Some(PidFdFile {
            pid: p,
            ns: self.ns_of_pid(p),
            flags,
        }));
        Ok(PidFd(self.pidfds.len() - 1))
    }

    /// Closes `fd`.
    ///
    /// # Errors
    /// `EBADF` if it is closed already.
    pub fn pidfd_close(&mut self, fd: PidFd) -> Result<()> {
        self.pidfd_file(fd)?;
        self.pidfds[fd.0] = None;
        Ok(())
    }

    /// Whether namespace `ns` is `active` or below it.
    fn ns_below(&self, ns: usize, active: usize) -> bool {
        let mut n = Some(ns);
        while let Some(x) = n {
            if x == active {
                return true;
            }
            n = self.nss[x].parent;
        }
        false
    }

    /// `pidfd_send_signal(fd, sig, info, flags)` by `current`. A siginfo
    /// is checked (`taskcore::rules::pidfd_send_signal_info`) and then
    /// sent as a NULL one is: the model keeps no siginfo.
    ///
    /// # Errors
    /// - `EINVAL`: unknown flags or more than one scope; the pid's
    ///   namespace is not the caller's or below it; `info.signo != sig`;
    ///   `sig` outside 0..=64.
    /// - `EPERM`: `info` claims a kernel or `kill` code to another pid or
    ///   a process group.
    /// - `EBADF`: `fd` closed.
    /// - `ESRCH`: stale caller; no task uses the pid (for the process-group
    ///   scope: no process is in the group it names).
    /// - `EPERM`: `kill`'s permission check refuses (every member, for a
    ///   process group).
    pub fn pidfd_send_signal(
        &mut self,
        current: Tid,
        fd: PidFd,
        sig: i32,
        info: Option<taskcore::SigInfo>,
        flags: u32,
    ) -> Result<()> {
        taskcore::rules::pidfd_send_signal_flags(flags)?;
        let file = self.pidfd_file(fd)?;
        let cur = self.current(current)?;
        if !self.ns_below(file.ns, self.ns_of(cur)) {
            return Err(Errno::EINVAL);
        }
        let to_self = self.task(cur).pid == file.pid;
        let pgrp_scope = flags == PIDFD_SIGNAL_PROCESS_GROUP;
        taskcore::rules::pidfd_send_signal_info(info.as_ref(), sig, to_self, pgrp_scope)?;
        let thread = match flags {
            PIDFD_SIGNAL_THREAD => true,
            PIDFD_SIGNAL_THREAD_GROUP => false,
            PIDFD_SIGNAL_PROCESS_GROUP => {
                let r = self.pidfd_kill_pgrp(cur, file.pid, sig);
                self.run_deferred();
                return r;
            }
            _ => file.flags & PIDFD_THREAD != 0,
        };
        let t = self.pid_task(file.pid).ok_or(Errno::ESRCH)?;
        let (sender, who) = (self.pid_numbers(self.task(cur).pid), self.sender(cur));
        let r = self.pidfd_send_to(&sender, &who, t, sig, thread);
        self.run_deferred();
        r
    }

    /// `group_send_sig_info(sig, info, t, type)` from the sender `who`
    /// with pid numbers `sender` (both taken before any delivery: a
    /// process-group signal may kill and release its sender half-way):
    /// the checks, then the signal to the thread (`PIDTYPE_PID`) or its
    /// group. One aimed at a thread that has exited (a zombie leader whose
    /// other threads run) is dropped, SIGCONT's group-wide effect included
    /// (Linux 6.18: a stopped group stays stopped; as `taskcore`).
    fn pidfd_send_to(
        &mut self,
        sender: &[(usize, u32)],
        who: &Sender,
        t: usize,
        sig: i32,
        thread: bool,
    ) -> Result<()> {
        if !(0..=NSIG).contains(&sig) {
            return Err(Errno::EINVAL);
        }
        if !self.may_kill(who, t, sig) {
            return Err(Errno::EPERM);
        }
        if sig != 0 && !(thread && self.task(t).exiting) {
            let force = self.sent_from_ancestor_ns(sender, t);
            self.send_signal(t, sig, force, thread);
        }
        Ok(())
    }

    /// `__kill_pgrp_info()`: every process of the group `pgrp` names; 0 if
    /// one send succeeded, else the last error (`ESRCH` for none).
    fn pidfd_kill_pgrp(&mut self, cur: usize, pgrp: usize, sig: i32) -> Result<()> {
        let members = if self.pids[pgrp].is_some() {
            self.pgrp_members(pgrp)
        } else {
            Vec::new()
        };
        let (sender, who) = (self.pid_numbers(self.task(cur).pid), self.sender(cur));
        let mut ret = Err(Errno::ESRCH);
        let mut success = false;
        for p in members {
            let r = if self.exists(p) {
                self.pidfd_send_to(&sender, &who, p, sig, false)
            } else {
                Ok(())
            };
            success |= r.is_ok();
            ret = r;
        }
        if success {
            Ok(())
        } else {
            ret
        }
    }

    /// `waitid(P_PIDFD, fd, options)` by `current`: waits for the child the
    /// pidfd's `struct pid` names; with `PIDFD_NONBLOCK` it does not block
    /// (`EAGAIN` when nothing is ready and `WNOHANG` was not given).
    ///
    /// # Errors
    /// - `EINVAL`: unknown option bits; none of `WEXITED | WSTOPPED |
    ///   WCONTINUED`.
    /// - `EBADF`: `fd` closed.
    /// - `ESRCH`: stale caller.
    /// - `ECHILD`: the pid is no child or tracee of the caller's group (or
    ///   its numbers were freed).
    /// - `EAGAIN`: non-blocking pidfd, nothing to report.
    pub fn waitid_pidfd(&mut self, current: Tid, fd: PidFd, options: i32) -> Result<WaitOutcome> {
        let options = taskcore::rules::waitid_options(options)?;
        let file = self.pidfd_file(fd)?;
        let cur = self.current(current)?;
        let nonblock = file.flags & PIDFD_NONBLOCK != 0;
        let flags = options | if nonblock { WNOHANG } else { 0 };
        let pid = self.pids[file.pid].as_ref().map(|_| file.pid);
        let r = self.do_wait(cur, WaitType::Pid(pid), flags);
        self.run_deferred();
        match r {
            Ok(WaitOutcome::NothingYet) if nonblock && options & WNOHANG == 0 => Err(Errno::EAGAIN),
            r => r,
        }
    }

    /// `pidfd_poll()`: `POLLIN | POLLRDNORM | POLLHUP` once no task uses
    /// the pid; `POLLIN | POLLRDNORM` once its task has exited (a zombie)
    /// and is not a leader waiting for its other threads, with or without
    /// `PIDFD_THREAD` (Linux 6.15+; tests/oracle/pidfd_poll_leader.c);
    /// else 0.
    ///
    /// # Errors
    /// `EBADF` if `fd` is closed.
    pub fn pidfd_poll(&self, fd: PidFd) -> Result<u32> {
        let file = self.pidfd_file(fd)?;
        Ok(match self.pid_task(file.pid) {
            None => POLLIN | POLLRDNORM | POLLHUP,
            Some(t)
                if self.task(t).exit_state != ExitState::Running && !self.delay_group_leader(t) =>
            {
                POLLIN | POLLRDNORM
            }
            Some(_) => 0,
        })
    }

    /// `setns(fd, nstype)` with a pidfd, by `current`: with
    /// `CLONE_NEWPID`, the caller's `pid_for_children` becomes the active
    /// namespace of the pidfd's task; the other namespace bits change
    /// nothing here.
    ///
    /// # Errors
    /// - `ESRCH`: stale caller; no task uses the pid, or it has exited (its
    ///   namespaces are gone).
    /// - `EBADF`: `fd` closed.
    /// - `EINVAL`: `nstype` 0 or with a bit that is not `CLONE_NEW*`; the
    ///   namespace is neither the caller's active one nor below it.
    /// - `EPERM`: euid not 0.
    pub fn setns_pidfd(&mut self, current: Tid, fd: PidFd, nstype: u64) -> Result<()> {
        let cur = self.current(current)?;
        let file = self.pidfd_file(fd)?;
        taskcore::rules::setns_nstype(true, nstype)?;
        // pidfd_get_task(), then the task's nsproxy: none once exiting.
        let t = self
            .pid_task(file.pid)
            .filter(|&t| !self.task(t).exiting)
            .ok_or(Errno::ESRCH)?;
        if self.task(cur).cred.euid != 0 {
            return Err(Errno::EPERM);
        }
        if nstype & CLONE_NEWPID == 0 {
            return Ok(());
        }
        let target = self.ns_of(t);
        let active = self.ns_of(cur);
        if !self.ns_below(target, active) {
            return Err(Errno::EINVAL);
        }
        if target == active {
            self.pid_for_children.remove(&cur);
        } else {
            self.pid_for_children.insert(cur, target);
        }
        Ok(())
    }
}
