//! The process-API calls: pidfds (`pidfd_open`, `CLONE_PIDFD`,
//! `pidfd_send_signal`, `waitid(P_PIDFD)`), `unshare`/`setns`, the
//! credential calls, resource limits, `prctl(PR_GET_NAME)` and
//! `prctl(PR_GET_DUMPABLE)` (its result is the return value).
//!
//! # pidfds and fd numbers
//! The trace shows fd numbers, the core hands out [`PidFd`] handles. Each
//! process's fd table is modelled only for its pidfds: a number recorded
//! as the result of `pidfd_open` (or in clone's `pidfd`) maps to the
//! handle. Tables are copied at fork (threads share their group's), and
//! emptied at a successful execve (pidfds are always `O_CLOEXEC`). `close`
//! is not traced: a number is rebound when a later pidfd gets it; a call on
//! a number the trace never bound to a pidfd is not checkable. A handle is
//! closed in the core once no table holds it (tables of reaped processes
//! are dropped in batches).
//!
//! # Resource limits
//! Limits come from outside the trace (strace's shell): the first read of
//! one the trace has not set is learned ([`learned`](super::learned)),
//! written into the emulated process with init's privilege, so that
//! later reads, forks and `RLIMIT_NPROC` checks see it.

use rustc_hash::FxHashMap as HashMap;

use taskcore::sys::{nr as sysnr, FdTable, NoMemory, Prctl, SysRet, Syscall};
use taskcore::uapi::CLONE_THREAD;
use taskcore::{Errno, PidFd, Rlimit, SetnsFd, TaskId};

use super::known::{Attr, Read};
use super::Engine;
use crate::event::{Event, Outcome, Rec, RecInfo};

/// Clones between two drops of the fd tables of reaped processes.
const PURGE_EVERY: u64 = 64;

/// A process's fd table as the decoder sees it: its pidfds by recorded
/// number (the replay models no other open file).
pub(super) struct PidFds<'a>(Option<&'a HashMap<i32, PidFd>>);

impl FdTable for PidFds<'_> {
    fn pidfd(&self, fd: i32) -> taskcore::Result<PidFd> {
        self.0.and_then(|t| t.get(&fd)).copied().ok_or(Errno::EBADF)
    }

    fn setns_fd(&self, fd: i32) -> taskcore::Result<SetnsFd> {
        self.pidfd(fd).map(SetnsFd::PidFd)
    }
}

impl Engine {
    /// Applies and checks the process-API call of `e` by `cur` (`call`
    /// with the numbers the trace printed, `rec` its recorded outputs).
    pub(super) fn apply_procapi(&mut self, e: &Event, cur: TaskId, call: &Syscall, rec: &Rec) {
        let before = self.stats.checked;
        match (call, rec) {
            (Syscall::Prctl(Prctl::GetName), Rec::Name(name)) => match self.sys(cur, call) {
                Ok(SysRet::Name(comm)) if e.ret == Outcome::Value(0) => {
                    self.stats.checked += 1;
                    let len = comm.iter().position(|&b| b == 0).unwrap_or(comm.len());
                    let got = String::from_utf8_lossy(&comm[..len]).into_owned();
                    if got != *name {
                        self.mismatch(
                            e,
                            "comm",
                            super::notation::fmt_str(name),
                            super::notation::fmt_str(&got),
                        );
                    }
                }
                _ => self.unchecked(e),
            },
            (&Syscall::PidfdOpen { pid, flags }, _) => self.do_pidfd_open(e, cur, pid, flags),
            (Syscall::Prctl(Prctl::GetDumpable), _) => {
                let r = self.sys(cur, call);
                self.check_value(e, r.map(|v| v.raw()));
            }
            (
                Syscall::Setfsuid { .. }
                | Syscall::Setfsgid { .. }
                | Syscall::Getuid
                | Syscall::Geteuid
                | Syscall::Getgid
                | Syscall::Getegid,
                _,
            ) => {
                let r = self.sys(cur, call);
                self.check_value(e, r.map(|v| v.raw()));
            }
            (Syscall::Getresuid | Syscall::Getresgid, Rec::Ids(ids)) => {
                match (ids, self.sys(cur, call)) {
                    (Some(rec), Ok(SysRet::Ids(r, ef, s))) if e.ret == Outcome::Value(0) => {
                        self.stats.checked += 1;
                        if *rec != [r, ef, s] {
                            self.mismatch(
                                e,
                                "ids",
                                super::notation::fmt_resids(rec),
                                super::notation::fmt_resids(&[r, ef, s]),
                            );
                        }
                    }
                    _ => self.unchecked(e),
                }
            }
            (
                &Syscall::Prlimit64 {
                    pid, resource, new, ..
                },
                Rec::Rlimit(old),
            ) => self.do_prlimit(e, cur, call, pid, resource, new, *old),
            (&Syscall::Setrlimit { resource, new }, Rec::Rlimit(old)) => {
                self.do_prlimit(e, cur, call, 0, resource, Some(new), *old)
            }
            (&Syscall::Getrlimit { resource }, Rec::Rlimit(old)) => {
                self.do_prlimit(e, cur, call, 0, resource, None, *old)
            }
            _ => {
                let r = self.sys(cur, call);
                self.check_unit(e, r.map(drop));
            }
        }
        self.count_procapi(e, before);
    }

    /// Counts `e` among the checked process-API calls if it was checked
    /// (`before`: the checked count before it).
    pub(super) fn count_procapi(&mut self, e: &Event, before: u64) {
        if self.stats.checked > before {
            *self
                .stats
                .checked_calls
                .entry(e.kind.name().to_string())
                .or_default() += 1;
        }
    }

    /// The fd table of `cur`'s process, as [`Syscall::from_raw_in`]
    /// resolves fd arguments through it.
    pub(super) fn fd_table(&self, cur: TaskId) -> PidFds<'_> {
        PidFds(self.leader_of(cur).ok().and_then(|g| self.proc.fds.get(&g)))
    }

    /// A call with an fd argument (pidfd_send_signal, setns; `nr` and
    /// `args` as the trace printed them): decoded through the caller's fd
    /// table, applied and checked. A number the trace never bound to a
    /// pidfd is not checkable.
    /// A pidfd_send_signal's siginfo (`info`, as the trace printed it) is
    /// given in place of the pointer, its `si_pid` mapped.
    pub(super) fn apply_fd_call(
        &mut self,
        e: &Event,
        cur: TaskId,
        nr: u64,
        mut args: [u64; 6],
        info: Option<taskcore::SigInfo>,
    ) {
        let before = self.stats.checked;
        let fds = self.fd_table(cur);
        if fds.pidfd(args[0] as i32).is_err() {
            if nr == sysnr::PIDFD_SEND_SIGNAL {
                // A pidfd from outside the trace's calls (a /proc/PID
                // directory opened with open()): the signal is queued at
                // its `---` line.
                self.note_skipped(e, "pidfd_send_signal");
            }
            return self.unchecked_because(
                e,
                if nr == sysnr::SETNS {
                    "a namespace fd the trace did not open"
                } else {
                    "an fd the trace did not open as a pidfd"
                },
            );
        }
        let given = args[2] != 0 && nr == sysnr::PIDFD_SEND_SIGNAL;
        if given {
            // Decoded as NULL, the recorded siginfo put in its place.
            args[2] = 0;
        }
        let mut call = Syscall::from_raw_in(nr, args, &NoMemory, &fds);
        if given {
            let (Some(i), Ok(Syscall::PidfdSendSignal { info, .. })) = (info, call.as_mut()) else {
                self.note_skipped(e, "pidfd_send_signal");
                return self.unchecked_because(e, "a siginfo strace did not read");
            };
            let pid = match i.pid {
                p if p > 0 && !self.pids.is_outside(p) => self.pids.map_nr(p),
                p => p,
            };
            *info = Some(taskcore::SigInfo { pid, ..i });
        }
        let r = call.and_then(|c| self.sys(cur, &c));
        self.check_unit(e, r.map(drop));
        self.count_procapi(e, before);
    }

    /// Checks a non-negative value result.
    pub(super) fn check_value(&mut self, e: &Event, r: taskcore::Result<i64>) {
        match (&e.ret, r) {
            (Outcome::Value(a), Ok(b)) => {
                self.stats.checked += 1;
                if *a != b {
                    self.mismatch(e, "result", a.to_string(), b.to_string());
                }
            }
            (Outcome::Errno(a), Err(b)) if *a == b => self.stats.checked += 1,
            (Outcome::Value(_) | Outcome::Errno(_), got) => {
                self.stats.checked += 1;
                let rec = super::report::fmt_outcome(&e.ret);
                self.mismatch(
                    e,
                    "result",
                    rec,
                    super::notation::fmt_result(&got, i64::to_string),
                );
            }
            _ => self.unchecked(e),
        }
    }

    fn do_pidfd_open(&mut self, e: &Event, cur: TaskId, pid: i32, flags: u32) {
        if pid > 0 && !self.nested(cur) && self.pids.is_outside(pid) {
            self.unchecked_because(e, "a process outside the trace");
            return;
        }
        let nr = if pid > 0 { self.nr_for(cur, pid) } else { pid };
        let r = match self.sys(cur, &Syscall::PidfdOpen { pid: nr, flags }) {
            Ok(SysRet::PidFd(fd)) => Ok(fd),
            Ok(_) => Err(Errno::ENOSYS),
            Err(err) => Err(err),
        };
        match (&e.ret, r) {
            (Outcome::Value(v), Ok(fd)) => {
                self.stats.checked += 1;
                self.bind_pidfd(cur, *v as i32, fd);
            }
            (Outcome::Errno(a), Err(b)) if *a == b => self.stats.checked += 1,
            (Outcome::Value(_) | Outcome::Errno(_), got) => {
                self.stats.checked += 1;
                if let Ok(fd) = got {
                    let _ = self.k.pidfd_close(fd);
                }
                let rec = super::report::fmt_outcome(&e.ret);
                let emu = super::notation::fmt_result(&got, |_| "a pidfd".into());
                self.mismatch(e, "result", rec, emu);
            }
            (_, got) => {
                if let Ok(fd) = got {
                    let _ = self.k.pidfd_close(fd);
                }
                self.unchecked(e);
            }
        }
    }

    /// `prlimit64(pid, resource, new, old)` (and setrlimit/getrlimit as
    /// `pid` 0 with one of `new`/`old`): the old limits of a limit the
    /// trace has not set or shown are a first read
    /// ([`learned`](super::learned)).
    #[allow(clippy::too_many_arguments)]
    fn do_prlimit(
        &mut self,
        e: &Event,
        cur: TaskId,
        call: &Syscall,
        pid: i32,
        resource: u32,
        new: Option<Rlimit>,
        old: Option<Rlimit>,
    ) {
        let target = if pid == 0 {
            Some(cur)
        } else if !self.nested(cur) && self.pids.is_outside(pid) {
            None
        } else {
            let nr = self.nr_for(cur, pid);
            self.k.find_task_by_vpid(cur, nr).ok()
        };
        let Some(target) = target else {
            self.unchecked_because(e, "a process outside the trace");
            return;
        };
        let attr = Attr::Limit(resource);
        let shown = old.is_some() && e.ret == Outcome::Value(0);
        let read = self.first_read(target, attr, shown, |en| {
            // Written with init's privilege: what the world outside the
            // trace gave.
            let (init, Some(o)) = (en.world.init, old) else {
                return false;
            };
            en.k.pid_vnr(init, target)
                .and_then(|nr| en.k.prlimit64(init, nr, resource, Some(o)))
                .is_ok_and(|prev| prev != o)
        });
        let known = read == Read::Known;
        let mapped = match call {
            Syscall::Prlimit64 { .. } if pid != 0 => Syscall::Prlimit64 {
                pid: self.nr_for(cur, pid),
                resource,
                new,
            },
            _ => call.clone(),
        };
        let r = self.sys(cur, &mapped).map(|r| match r {
            SysRet::Rlimit(got) => Some(got),
            _ => None,
        });
        match (&e.ret, r) {
            (Outcome::Value(0), Ok(got)) => {
                if new.is_some() {
                    self.set_known(target, attr, true);
                }
                match (old, got) {
                    (Some(o), Some(got)) if known => {
                        self.stats.checked += 1;
                        if o != got {
                            self.mismatch(
                                e,
                                "old limits",
                                super::notation::fmt_rlimit(&o),
                                super::notation::fmt_rlimit(&got),
                            );
                        }
                    }
                    (Some(_), _) if new.is_none() => self.unchecked_because(e, &attr.why()),
                    _ => self.stats.checked += 1,
                }
            }
            (Outcome::Errno(a), Err(b)) if *a == b => self.stats.checked += 1,
            (Outcome::Value(_) | Outcome::Errno(_), got) => {
                self.stats.checked += 1;
                let rec = super::report::fmt_outcome(&e.ret);
                self.mismatch(
                    e,
                    "result",
                    rec,
                    super::notation::fmt_result(&got, |_| "0".into()),
                );
            }
            _ => self.unchecked(e),
        }
    }

    /// The pidfd recorded fd `fd` of `cur`'s process stands for.
    pub(super) fn pidfd_of(&self, cur: TaskId, fd: i32) -> Option<PidFd> {
        self.fd_table(cur).pidfd(fd).ok()
    }

    /// Binds recorded fd `fd` of `cur`'s process to `pidfd`.
    fn bind_pidfd(&mut self, cur: TaskId, fd: i32, pidfd: PidFd) {
        let Ok(group) = self.leader_of(cur) else {
            let _ = self.k.pidfd_close(pidfd);
            return;
        };
        *self.proc.refs.entry(pidfd).or_default() += 1;
        let old = self.proc.fds.entry(group).or_default().insert(fd, pidfd);
        if let Some(old) = old {
            self.unref_pidfd(old);
        }
    }

    fn unref_pidfd(&mut self, fd: PidFd) {
        if let Some(n) = self.proc.refs.get_mut(&fd) {
            *n -= 1;
            if *n == 0 {
                self.proc.refs.remove(&fd);
                let _ = self.k.pidfd_close(fd);
            }
        }
    }

    fn drop_fd_table(&mut self, group: TaskId) {
        if let Some(t) = self.proc.fds.remove(&group) {
            for fd in t.into_values() {
                self.unref_pidfd(fd);
            }
        }
    }

    /// After a clone by `parent` created `child` (with `flags`): a new
    /// process inherits its parent's fd table; a pidfd
    /// from `CLONE_PIDFD` is bound in the parent's table.
    pub(super) fn procapi_after_clone(
        &mut self,
        parent: TaskId,
        child: TaskId,
        flags: u64,
        pidfd: Option<(i32, PidFd)>,
    ) {
        if flags & CLONE_THREAD == 0 {
            if let Ok(pg) = self.leader_of(parent) {
                if let Some(t) = self.proc.fds.get(&pg).cloned() {
                    for fd in t.values() {
                        *self.proc.refs.entry(*fd).or_default() += 1;
                    }
                    self.proc.fds.insert(child, t);
                }
            }
        }
        if let Some((num, fd)) = pidfd {
            self.bind_pidfd(parent, num, fd);
        }
        self.proc.clones += 1;
        if self.proc.clones.is_multiple_of(PURGE_EVERY) {
            let gone: Vec<TaskId> = self
                .proc
                .fds
                .keys()
                .copied()
                .filter(|&g| self.k.getpid(g).is_err())
                .collect();
            for g in gone {
                self.drop_fd_table(g);
            }
        }
    }

    /// After a successful execve by `cur`: its pidfds are closed
    /// (`O_CLOEXEC`).
    pub(super) fn procapi_after_exec(&mut self, cur: TaskId) {
        if let Ok(g) = self.leader_of(cur) {
            self.drop_fd_table(g);
        }
        self.caps_after_exec(cur);
    }

    /// `waitid(P_PIDFD, fd, ...)` on a pidfd the trace opened.
    pub(super) fn do_waitid_pidfd(
        &mut self,
        e: &Event,
        cur: TaskId,
        fd: PidFd,
        info: Option<RecInfo>,
        options: i32,
    ) {
        use taskcore::uapi::P_PID;
        let before = self.stats.checked;
        // The child's number for the candidate search; a reaped one has
        // none (the wait then fails in the core as in Linux).
        let nr = self
            .k
            .pidfd_task(fd)
            .ok()
            .flatten()
            .and_then(|t| self.k.pid_vnr(cur, t).ok())
            .unwrap_or(super::pidmap::UNUSED_NR);
        let call = move |_: i32, _: i32| taskcore::sys::Syscall::WaitidPidfd { fd, options };
        match &e.ret {
            Outcome::Interrupted | Outcome::Died => self.check_sleeping(e, cur, P_PID, nr, options),
            Outcome::Unknown => self.unchecked(e),
            Outcome::Errno(err) => {
                let err = *err;
                self.stats.checked += 1;
                match self.sys_wait(cur, &call(P_PID, nr)) {
                    Err(x) if x == err => {}
                    other => {
                        let emu = self.fmt_wait(&other);
                        self.mismatch(e, "waitid(P_PIDFD)", format!("= -1 {}", err.name()), emu)
                    }
                }
            }
            Outcome::Value(_) => {
                let rec = info
                    .filter(|f| f.pid != 0)
                    .map(|f| (f.pid, Some(super::waits::status_word(f))));
                let rec = rec.or(Some((0, None)));
                self.check_wait(e, cur, P_PID, nr, options, rec, None, &call);
            }
        }
        if self.stats.checked > before {
            *self
                .stats
                .checked_calls
                .entry("waitid(P_PIDFD)".into())
                .or_default() += 1;
        }
    }
}
