//! The recorded system calls of the lifecycle (clone, clone3, fork, vfork,
//! execve, exit, exit_group, wait4 and waitid (checked in `waits`), setpgid, setsid, getpgid, getsid, getppid,
//! kill, tgkill, tkill): each recorded call's numbers are mapped to the
//! emulation's, the call is applied through [`taskcore::sys::dispatch`],
//! and its result is compared with the recorded one.

use rustc_hash::FxHashSet as HashSet;
use std::sync::Arc;

use taskcore::sys::{SysResult, SysRet, Syscall};
use taskcore::uapi::{CLONE_THREAD, CLONE_VFORK, CLONE_VM};
use taskcore::{Errno, PidFd, TaskId};

use super::known::Attr;
use super::Engine;
use crate::event::{Event, Outcome, Rec};

impl Engine {
    /// Applies the recorded lifecycle call of `e` (`call`, with the
    /// numbers the trace printed; `rec`, its recorded outputs) and checks
    /// its result; any other call is a process-API call.
    pub(super) fn apply_lifecycle(
        &mut self,
        e: &Arc<Event>,
        cur: TaskId,
        call: &Syscall,
        rec: &Rec,
    ) {
        match (call, rec) {
            (_, Rec::Clone { pidfd, ns_nr }) => self.do_clone(e, cur, call, *pidfd, *ns_nr),
            (&Syscall::Wait4 { pid, options }, Rec::Wait4 { status }) => {
                self.do_wait4(e, cur, pid, *status, options)
            }
            (
                &Syscall::Waitid {
                    idtype,
                    id,
                    options,
                },
                Rec::Waitid { info },
            ) => self.do_waitid(e, cur, idtype, id, *info, options),
            (Syscall::Execve { .. }, _) => self.do_execve(e, cur, call),
            (Syscall::Exit { code }, _) => {
                self.deaths.pending_exit.insert(e.pid, *code);
            }
            (Syscall::ExitGroup { code }, _) => {
                if let Ok(leader) = self.leader_of(cur) {
                    self.deaths
                        .pending_group_exit
                        .entry(leader)
                        .or_insert((e.pid, *code));
                    self.deaths
                        .group_status
                        .entry(leader)
                        .or_insert((*code & 0xff) << 8);
                }
            }
            (&Syscall::Setpgid { pid, pgid }, _) => {
                let (before, nested) = (self.stats.checked, self.nested(cur));
                if self.outside_target(cur, pid) {
                    self.unchecked_because(e, "a process outside the trace");
                    return;
                }
                let pid = self.arg_nr(cur, pid);
                let pgid = if pgid > 0 {
                    self.group_arg(e, cur, pgid)
                } else {
                    pgid
                };
                let r = self.sys(cur, &Syscall::Setpgid { pid, pgid });
                self.check_unit(e, r.map(drop));
                self.count_nested(nested, before, "setpgid");
            }
            (Syscall::Setsid | Syscall::Getppid, _) => {
                let (before, nested) = (self.stats.checked, self.nested(cur));
                let r = self.sys(cur, call);
                self.check_id(e, cur, value(r));
                if matches!(call, Syscall::Getppid) {
                    self.count_nested(nested, before, "getppid");
                }
            }
            (&Syscall::Getpgid { pid }, _) | (&Syscall::Getsid { pid }, _) => {
                let (before, nested) = (self.stats.checked, self.nested(cur));
                if self.outside_target(cur, pid) {
                    self.unchecked_because(e, "a process outside the trace");
                    return;
                }
                let pid = self.arg_nr(cur, pid);
                let (mapped, name) = match call {
                    Syscall::Getpgid { .. } => (Syscall::Getpgid { pid }, "getpgid"),
                    _ => (Syscall::Getsid { pid }, "getsid"),
                };
                let r = self.sys(cur, &mapped);
                self.check_id(e, cur, value(r));
                self.count_nested(nested, before, name);
            }
            (&Syscall::Kill { pid, sig }, _) => {
                let (before, nested) = (self.stats.checked, self.nested(cur));
                if self.outside_target(cur, pid) {
                    self.unchecked_because(e, "a process outside the trace");
                    return;
                }
                let pid = self.arg_nr(cur, pid);
                if let (true, Ok(t)) = (pid > 0, self.k.find_task_by_vpid(cur, pid)) {
                    self.note_send(t, sig);
                }
                let r = self.sys(cur, &Syscall::Kill { pid, sig });
                self.check_unit(e, r.map(drop));
                self.count_nested(nested, before, "kill");
            }
            (&Syscall::Tgkill { tgid, tid, sig }, _) => {
                if self.outside_target(cur, tid) {
                    self.unchecked_because(e, "a process outside the trace");
                    return;
                }
                let (tgid, tid) = (self.arg_nr(cur, tgid), self.arg_nr(cur, tid));
                if let Ok(t) = self.k.find_task_by_vpid(cur, tid) {
                    self.note_send(t, sig);
                }
                let r = self.sys(cur, &Syscall::Tgkill { tgid, tid, sig });
                self.check_unit(e, r.map(drop));
            }
            (&Syscall::Tkill { tid, sig }, _) => {
                if self.outside_target(cur, tid) {
                    self.unchecked_because(e, "a process outside the trace");
                    return;
                }
                let tid = self.arg_nr(cur, tid);
                if let Ok(t) = self.k.find_task_by_vpid(cur, tid) {
                    self.note_send(t, sig);
                }
                let r = self.sys(cur, &Syscall::Tkill { tid, sig });
                self.check_unit(e, r.map(drop));
            }
            _ => self.apply_procapi(e, cur, call, rec),
        }
    }

    /// A recorded execve: applied when it succeeded. A thread other than
    /// its process's leader that execs takes the leader's pid
    /// (`de_thread()`): the recorded leader's number is the thread's from
    /// then on (its call was placed at strace's `+++ superseded` line,
    /// `shape/`).
    fn do_execve(&mut self, e: &Event, cur: TaskId, call: &Syscall) {
        if e.ret != Outcome::Value(0) {
            self.unchecked(e);
            return;
        }
        let leader = match (self.k.gettid(cur), self.k.getpid(cur)) {
            (Ok(tid), Ok(tgid)) if tid != tgid => self.pids.rec_of(tgid),
            _ => None,
        };
        self.set_known(cur, Attr::Brk, false);
        if let Ok(tgid) = self.k.getpid(cur) {
            self.mem.mm_touched.remove(&tgid);
        }
        match self.sys(cur, call) {
            Ok(_) => {
                self.stats.applied += 1;
                if let Some(l) = leader {
                    self.pids.supersede(e.pid, l);
                }
                self.procapi_after_exec(cur);
                if let Syscall::Execve {
                    filename,
                    argv: Some(argv),
                } = call
                {
                    self.record_exec(cur, e.ts, filename, argv);
                }
            }
            Err(err) => self.mismatch(e, "execve", "0".into(), err.name().into()),
        }
        self.stats.checked += 1;
    }

    /// A recorded clone, clone3, fork or vfork: applied at its entry line,
    /// the child adopted under its recorded tid and its held events
    /// replayed.
    fn do_clone(
        &mut self,
        e: &Arc<Event>,
        cur: TaskId,
        call: &Syscall,
        pidfd: Option<i32>,
        ns_nr: Option<i32>,
    ) {
        let (child, check) = match (&e.ret, self.lost_clone_child(e)) {
            (Outcome::Value(child), _) => (*child as i32, true),
            (_, Some(child)) => {
                // The child exists though its creator never saw the result.
                self.unchecked(e);
                (child, false)
            }
            (Outcome::Errno(err), _) => {
                let err = *err;
                self.refused_clone(e, cur, call, err);
                return;
            }
            _ => {
                self.unchecked(e);
                return;
            }
        };
        // In a nested pid namespace the result is the caller's number: it
        // is checked, and the child's lines are found by strace's number
        // (see [`pidns`]).
        let nested = check && self.nested(cur);
        let (child, ns_nr) = match ns_nr {
            None if nested => (self.unnamed_child(e).unwrap_or(child), Some(child)),
            n => (child, n),
        };
        // Linux never hands out a number still in use: the previous holder
        // of the recorded pid must be gone in the core too.
        if let Some(old_nr) = self.pids.nr_of(child) {
            if self.k.pid_in_use(self.world.init, old_nr).unwrap_or(false) {
                self.mismatch(
                    e,
                    "pid reuse",
                    format!("{child} reused"),
                    format!("emulated {old_nr} still in use"),
                );
            }
        }
        self.stats.checked += u64::from(check);
        let flags = clone_flags(call);
        if ns_nr.is_none() && !nested {
            self.infer_new_pid_ns(cur, flags, child);
        }
        match child_of(self.sys(cur, call)) {
            Ok((t, pid, fd)) => {
                self.stats.applied += 1;
                let thread = flags & CLONE_THREAD != 0;
                self.learned_after_clone(cur, t, thread);
                self.signalfd_after_clone(cur, t, thread);
                if flags & CLONE_THREAD == 0 {
                    let (p, c) = (self.k.getpid(cur), self.k.getpid(t));
                    if let (Ok(p), Ok(c)) = (p, c) {
                        match self.mem.mm_touched.get(&p).cloned() {
                            Some(v) => self.mem.mm_touched.insert(c, v),
                            None => self.mem.mm_touched.remove(&c),
                        };
                    }
                }
                if let (Some(nr), true) = (ns_nr, check) {
                    if pid != nr {
                        self.mismatch(
                            e,
                            "pid in the caller's namespace",
                            nr.to_string(),
                            pid.to_string(),
                        );
                    }
                }
                let bound = match (pidfd, fd) {
                    (Some(n), Some(fd)) => Some((n, fd)),
                    (None, Some(fd)) => {
                        let _ = self.k.pidfd_close(fd);
                        None
                    }
                    _ => None,
                };
                if check && (ns_nr.is_some() || bound.is_some()) {
                    let name = if bound.is_some() {
                        if matches!(call, Syscall::Clone3(_)) {
                            "clone3(CLONE_PIDFD)"
                        } else {
                            "clone(CLONE_PIDFD)"
                        }
                    } else {
                        "clone in a pid namespace"
                    };
                    *self.stats.checked_calls.entry(name.into()).or_default() += 1;
                }
                self.procapi_after_clone(cur, t, flags, bound);
                self.adopt(child, t, Some(e));
                self.drain();
                if let Some(held) = self.held.remove(&child) {
                    for (h, facts) in held {
                        self.dispatch(&h, &facts);
                    }
                }
            }
            Err(err) => self.mismatch(
                e,
                "clone",
                format!("= {child}"),
                format!("= -1 {}", err.name()),
            ),
        }
    }

    /// A clone the recording shows refused with `err`: the refusal is
    /// applied whatever the core answers (Linux's copy_process() changes
    /// nothing when it fails, so neither does the replay: a child the core
    /// would have made is undone by going back to a copy of the kernel
    /// taken before the call). EAGAIN (RLIMIT_NPROC counts the user's
    /// processes outside the trace; pid_max and threads-max count the whole
    /// system's) and ENOMEM (memory) depend on state outside the recording:
    /// when the core accepts such a clone it is counted not checkable, with
    /// that reason; any other disagreement is a mismatch.
    fn refused_clone(&mut self, e: &Event, cur: TaskId, call: &Syscall, err: Errno) {
        let before = self.k.snapshot();
        let got = child_of(self.sys(cur, call));
        if got.is_ok() {
            self.k = before;
        }
        match got {
            Err(x) if x == err => {
                self.stats.checked += 1;
                *self
                    .stats
                    .checked_calls
                    .entry("clone refused".into())
                    .or_default() += 1;
            }
            Ok(_) if matches!(err, Errno::EAGAIN | Errno::ENOMEM) => {
                let why = if err == Errno::EAGAIN {
                    "refused over a count outside the trace (RLIMIT_NPROC, pid_max, threads-max): the refusal applied"
                } else {
                    "refused for memory outside the trace: the refusal applied"
                };
                self.unchecked_because(e, why);
            }
            other => {
                self.stats.checked += 1;
                let got = match other {
                    Ok((_, pid, _)) => format!("a child (emulated pid {pid})"),
                    Err(x) => format!("= -1 {}", x.name()),
                };
                self.mismatch(e, "clone", format!("= -1 {}", err.name()), got);
            }
        }
    }

    /// The child of a clone whose creator died before it returned (`= ?`).
    fn lost_clone_child(&mut self, e: &Event) -> Option<i32> {
        if e.ret != Outcome::Died {
            return None;
        }
        self.unnamed_child(e)
    }

    /// The child of clone event `e` when strace did not number it for the
    /// trace (its creator died in the call; a caller in a nested pid
    /// namespace without `--decode-pids=pidns`, see [`pidns`](super::pidns)):
    /// the first task of the lookahead, after the clone began, that no
    /// clone created ([`Facts::uncreated`](crate::facts::Facts), the
    /// planner's) and no other such clone claimed. Kept per clone, so
    /// that a replay of the same stretch by the order search finds the
    /// same child.
    fn unnamed_child(&mut self, e: &Event) -> Option<i32> {
        if let Some(&c) = self.pids.inferred.get(&e.seq) {
            return Some(c);
        }
        let claimed: HashSet<i32> = self.pids.inferred.values().copied().collect();
        let child = self.facts.uncreated.iter().copied().find(|&pid| {
            !(self.pids.task(pid).is_some_and(|t| !t.dead) || claimed.contains(&pid))
        })?;
        self.pids.inferred.insert(e.seq, child);
        Some(child)
    }
}

/// The `CLONE_*` flags of a call that creates a task.
fn clone_flags(call: &Syscall) -> u64 {
    match call {
        Syscall::Clone(a) => a.flags,
        Syscall::Clone3(a) => a.flags,
        Syscall::Vfork => CLONE_VM | CLONE_VFORK,
        _ => 0,
    }
}

/// The child of a dispatched clone: its handle, its number as the caller
/// sees it, its pidfd (with `CLONE_PIDFD`).
fn child_of(r: SysResult) -> taskcore::Result<(TaskId, i32, Option<PidFd>)> {
    match r? {
        SysRet::Child { task, pid, pidfd } => Ok((task, pid, pidfd)),
        // Only clone calls reach here.
        _ => Err(Errno::ENOSYS),
    }
}

/// The value of a call that returns an id (setsid, getppid, getpgid,
/// getsid).
fn value(r: SysResult) -> taskcore::Result<i32> {
    r.map(|v| v.raw() as i32)
}
