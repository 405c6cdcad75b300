//! `wait4` and `waitid`.
//!
//! Linux's `do_wait` scans the children and tracees of every thread of the
//! caller's group (since 5.13 it looks a given pid up directly). We look a
//! given pid up too, and for "any child" or "a process group" we ask the
//! wait index (`wait/index.rs`) for the first edge, in Linux's walk order, that has something
//! the options accept: O(1 + log R) for R ready edges, however many children
//! have nothing to report.
//!
//! # Linux
//! kernel/exit.c: `kernel_wait4`, `kernel_waitid`, `do_wait`,
//! `__do_wait`, `do_wait_pid`, `wait_consider_task`, `wait_task_zombie`,
//! `wait_task_stopped`, `wait_task_continued`.

pub(crate) mod index;

use crate::errno::{Errno, Result};
use crate::slab::NONE;
use crate::task::kernel::{Kernel, SigInfo, TaskId};
use crate::task::task_struct::SIGNAL_GROUP_EXIT;
use crate::uapi::{
    __WALL, __WCLONE, __WNOTHREAD, CLD_CONTINUED, CLD_DUMPED, CLD_EXITED, CLD_KILLED, CLD_STOPPED,
    CLD_TRAPPED, P_ALL, P_PGID, P_PID, SIGCHLD, SIGCONT, WCONTINUED, WEXITED, WNOHANG, WNOWAIT,
    WSTOPPED, WUNTRACED,
};
use index::{Cat, Class, EdgeState, READY_CONT, READY_EXIT, READY_STOP, READY_TRAP};

/// What a child reported to `wait4`/`waitid`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WaitReport {
    /// The child's pid in the waiter's namespace (the syscall's return
    /// value).
    pub pid: i32,
    /// The `wait4` status word: `code << 8` for an exit, the signal (|
    /// 0x80 if it dumped core) for a kill, `sig << 8 | 0x7f` for a stop,
    /// `0xffff` for a continue.
    pub status: i32,
    /// The `waitid` siginfo: `si_signo` SIGCHLD, `si_code` one of
    /// `CLD_EXITED`, `CLD_KILLED`, `CLD_DUMPED`, `CLD_TRAPPED`,
    /// `CLD_STOPPED`, `CLD_CONTINUED`, and `si_status`.
    pub info: SigInfo,
}

/// The result of a wait that did not fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum WaitOutcome {
    /// A child's state change, reaped unless `WNOWAIT` was given.
    Reported(WaitReport),
    /// `WNOHANG` and nothing to report yet: `wait4` returns 0, `waitid`
    /// returns 0 with `si_pid` 0.
    NothingYet,
    /// Without `WNOHANG`, the caller must sleep. Retry the same call after a
    /// [`crate::Notification::WakeChldexit`] for the caller's group.
    WouldBlock,
    /// Without `WNOHANG`, nothing to report and the caller has a signal to
    /// take ([`crate::SignalDelivery::OnGetSignal`]): the call ends with
    /// `-ERESTARTSYS` ([`crate::Restart::Sys`]); what the program sees
    /// depends on the handler, if any ([`crate::Restart::resolve`]).
    Interrupted,
}

/// Which children a wait accepts (`wo_type` and `wo_pid`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WaitFilter {
    /// Any child (`PIDTYPE_MAX`).
    All,
    /// The child with this `struct pid` (`PIDTYPE_PID`); `NONE` for a
    /// number that names no pid.
    Pid(u32),
    /// Children in this process group (`PIDTYPE_PGID`); `NONE` as above.
    Pgid(u32),
}

/// The first thing `wait_consider_task` found on an edge.
enum Consider {
    Report(u8),
    Skip { clears: bool },
}

impl Kernel {
    /// `wait4(pid, &status, options, NULL)`: `pid > 0` that child, `0` any
    /// child in the caller's process group, `-1` any child, `< -1` any
    /// child in process group `-pid`.
    ///
    /// When several children are ready, reports the one Linux reports: the
    /// caller's thread first, then the other threads of its group in list
    /// order (wrapping around); for each thread its children in fork order,
    /// then its tracees newest first; and for one child an exit before a
    /// stop before a continue.
    ///
    /// # Errors
    /// - `EINVAL`: options outside `WNOHANG | WUNTRACED | WCONTINUED |
    ///   __WNOTHREAD | __WCLONE | __WALL`.
    /// - `ESRCH`: `pid == i32::MIN`; `current` stale or exiting.
    /// - `ECHILD`: no child matches, or none could ever report under these
    ///   options.
    ///
    /// # Linux
    /// `kernel_wait4()` (kernel/exit.c); `WEXITED` is implied.
    pub fn wait4(
        &mut self,
        current: TaskId,
        pid: i32,
        options: impl Into<i32>,
    ) -> Result<WaitOutcome> {
        let options = options.into();
        self.probed(crate::probe::Op::Wait4, current, |k| {
            k.do_sys_wait4(current, pid, options)
        })
    }

    fn do_sys_wait4(&mut self, current: TaskId, pid: i32, options: i32) -> Result<WaitOutcome> {
        if options & !(WNOHANG | WUNTRACED | WCONTINUED | __WNOTHREAD | __WCLONE | __WALL) != 0 {
            return Err(Errno::EINVAL);
        }
        // -INT_MIN is not defined.
        if pid == i32::MIN {
            return Err(Errno::ESRCH);
        }
        let cur = self.current(current)?;
        let ns = self.ns_of(cur);
        let filter = match pid {
            -1 => WaitFilter::All,
            p if p < 0 => WaitFilter::Pgid(self.find_pid(ns, -p).unwrap_or(NONE)),
            0 => WaitFilter::Pgid(self.groups[self.tasks[cur].group].pgrp),
            p => WaitFilter::Pid(self.find_pid(ns, p).unwrap_or(NONE)),
        };
        let r = self.do_wait(cur, filter, options | WEXITED);
        self.run_deferred();
        r
    }

    /// `waitid(idtype, id, &info, options, NULL)` with `idtype` `P_ALL`,
    /// `P_PID` or `P_PGID` (`id` 0 = the caller's process group).
    ///
    /// # Errors
    /// - `EINVAL`: unknown option bits; none of `WEXITED`, `WSTOPPED`,
    ///   `WCONTINUED`; an unknown idtype (and `P_PIDFD`: file descriptors
    ///   are not modelled); `P_PID` with `id <= 0`; `P_PGID` with `id < 0`.
    /// - `ESRCH`: `current` stale or exiting.
    /// - `ECHILD`: as [`Kernel::wait4`].
    ///
    /// # Linux
    /// `kernel_waitid()` (kernel/exit.c).
    pub fn waitid(
        &mut self,
        current: TaskId,
        idtype: i32,
        id: i32,
        options: impl Into<i32>,
    ) -> Result<WaitOutcome> {
        let options = options.into();
        self.probed(crate::probe::Op::Waitid, current, |k| {
            k.do_sys_waitid(current, idtype, id, options)
        })
    }

    fn do_sys_waitid(
        &mut self,
        current: TaskId,
        idtype: i32,
        id: i32,
        options: i32,
    ) -> Result<WaitOutcome> {
        if options
            & !(WNOHANG
                | WNOWAIT
                | WEXITED
                | WSTOPPED
                | WCONTINUED
                | __WNOTHREAD
                | __WCLONE
                | __WALL)
            != 0
        {
            return Err(Errno::EINVAL);
        }
        if options & (WEXITED | WSTOPPED | WCONTINUED) == 0 {
            return Err(Errno::EINVAL);
        }
        let cur = self.current(current)?;
        let ns = self.ns_of(cur);
        let filter = match idtype {
            P_ALL => WaitFilter::All,
            P_PID => {
                if id <= 0 {
                    return Err(Errno::EINVAL);
                }
                WaitFilter::Pid(self.find_pid(ns, id).unwrap_or(NONE))
            }
            P_PGID => {
                if id < 0 {
                    return Err(Errno::EINVAL);
                }
                if id == 0 {
                    WaitFilter::Pgid(self.groups[self.tasks[cur].group].pgrp)
                } else {
                    WaitFilter::Pgid(self.find_pid(ns, id).unwrap_or(NONE))
                }
            }
            _ => return Err(Errno::EINVAL),
        };
        let r = self.do_wait(cur, filter, options);
        self.run_deferred();
        r
    }

    /// `__do_wait()` for thread `cur` (which may be exiting: init reaps its
    /// namespace while it dies).
    pub(crate) fn do_wait(
        &mut self,
        cur: u32,
        filter: WaitFilter,
        flags: i32,
    ) -> Result<WaitOutcome> {
        let mut clears = false;
        match filter {
            WaitFilter::Pid(pid) => {
                let t = if pid == NONE {
                    NONE
                } else {
                    self.pids[pid].task
                };
                if t != NONE {
                    // do_wait_pid(): the real-parent edge, then the ptrace
                    // edge.
                    if self.is_leader(t)
                        && self.is_effectively_child(cur, self.real_parent(t), flags)
                    {
                        let g = self.tasks[t].group;
                        let class = self.child_class(g);
                        if Self::class_allowed(class, flags) {
                            match self.consider(t, false, class, flags) {
                                Consider::Report(kind) => {
                                    return Ok(self.report(cur, t, kind, flags))
                                }
                                Consider::Skip { clears: c } => clears |= c,
                            }
                        }
                    }
                    if self.tasks[t].ptrace != 0
                        && self.is_effectively_child(cur, self.tasks[t].parent, flags)
                    {
                        match self.consider(t, true, Class::Ptrace, flags) {
                            Consider::Report(kind) => return Ok(self.report(cur, t, kind, flags)),
                            Consider::Skip { clears: c } => clears |= c,
                        }
                    }
                }
            }
            WaitFilter::All | WaitFilter::Pgid(_) => {
                let pgrp = match filter {
                    WaitFilter::Pgid(p) => {
                        if p == NONE || self.pids[p].pgrp_members.is_empty() {
                            return Err(Errno::ECHILD);
                        }
                        p
                    }
                    _ => NONE,
                };
                let group = self.tasks[cur].group;
                // The per-group and per-thread parts of the index are built
                // at the first wait that needs them.
                if pgrp != NONE && !self.groups[group].wait_by_pgrp {
                    self.reindex_waiter(group, NONE, |k| k.groups[group].wait_by_pgrp = true);
                }
                if flags & __WNOTHREAD != 0 && !self.tasks[cur].wait_counted {
                    self.reindex_waiter(group, cur, |k| k.tasks[cur].wait_counted = true);
                }
                let ts = self.tasks[cur].thread_seq;
                let allowed = |kind: u8, class: Class| Self::kind_allowed(kind, class, flags);
                // Linux walks from the caller's thread, wrapping around.
                let found = if flags & __WNOTHREAD != 0 {
                    self.wait_index.first_ready(group, pgrp, ts, ts, allowed)
                } else {
                    self.wait_index
                        .first_ready(group, pgrp, ts, u32::MAX, allowed)
                        .or_else(|| {
                            (ts > 0)
                                .then(|| {
                                    self.wait_index.first_ready(group, pgrp, 0, ts - 1, allowed)
                                })
                                .flatten()
                        })
                };
                if let Some((key, t)) = found {
                    let ptrace_edge = key.list == 1;
                    let class = if ptrace_edge {
                        Class::Ptrace
                    } else {
                        self.child_class(self.tasks[t].group)
                    };
                    match self.consider(t, ptrace_edge, class, flags) {
                        Consider::Report(kind) => return Ok(self.report(cur, t, kind, flags)),
                        Consider::Skip { .. } => {
                            debug_assert!(false, "index names an edge with nothing to report")
                        }
                    }
                }
                clears = self.any_could_report(cur, pgrp, flags);
            }
        }
        if !clears {
            return Err(Errno::ECHILD);
        }
        // do_wait(): -ERESTARTSYS rather than sleep with a signal pending.
        Ok(if flags & WNOHANG != 0 {
            WaitOutcome::NothingYet
        } else if self.has_deliverable(cur) {
            WaitOutcome::Interrupted
        } else {
            WaitOutcome::WouldBlock
        })
    }

    /// `is_effectively_child()`: `parent` is the caller or, without
    /// `__WNOTHREAD`, a thread of the caller's group.
    fn is_effectively_child(&self, cur: u32, parent: u32, flags: i32) -> bool {
        cur == parent || (flags & __WNOTHREAD == 0 && self.same_group(cur, parent))
    }

    /// `eligible_child()`'s clone filter for a child edge of `class`.
    fn class_allowed(class: Class, flags: i32) -> bool {
        match class {
            Class::Ptrace => true,
            _ if flags & __WALL != 0 => true,
            Class::Clone => flags & __WCLONE != 0,
            Class::Normal => flags & __WCLONE == 0,
        }
    }

    /// Whether some eligible edge would clear `notask_error` (the wait must
    /// block rather than fail with ECHILD), from the index's counts.
    fn any_could_report(&self, cur: u32, pgrp: u32, flags: i32) -> bool {
        let (waiter, is_group) = if flags & __WNOTHREAD != 0 {
            (cur, false)
        } else {
            (self.tasks[cur].group, true)
        };
        [Class::Normal, Class::Clone, Class::Ptrace]
            .into_iter()
            .any(|class| {
                if !Self::class_allowed(class, flags) {
                    return false;
                }
                let c = self.wait_index.counts(waiter, is_group, pgrp, class);
                let mut n = c.n;
                if flags & WEXITED == 0 {
                    n -= c.zr;
                }
                if flags & (WEXITED | WCONTINUED) == 0 {
                    n -= c.zop;
                }
                n > 0
            })
    }

    /// `wait_consider_task()` on an eligible edge, without side effects.
    fn consider(&self, t: u32, ptrace_edge: bool, class: Class, flags: i32) -> Consider {
        let st: EdgeState = self.edge_state(t, ptrace_edge, class);
        if st.ready & READY_EXIT != 0 {
            return if flags & WEXITED != 0 {
                Consider::Report(READY_EXIT)
            } else {
                Consider::Skip { clears: false }
            };
        }
        if st.ready & READY_TRAP != 0 {
            return Consider::Report(READY_TRAP);
        }
        if st.ready & READY_STOP != 0 && flags & WUNTRACED != 0 {
            return Consider::Report(READY_STOP);
        }
        if st.ready & READY_CONT != 0 && flags & WCONTINUED != 0 {
            return Consider::Report(READY_CONT);
        }
        let clears = match st.cat {
            Cat::Alive | Cat::ZombieOther => true,
            Cat::ZombieReap => false,
            Cat::ZombieOtherPtrace => flags & (WEXITED | WCONTINUED) != 0,
        };
        Consider::Skip { clears }
    }

    /// What reporting state change `kind` of task `t` to `cur` returns.
    fn peek_report(&self, cur: u32, t: u32, kind: u8) -> WaitReport {
        let pid = self.pid_nr_ns(self.tasks[t].pid, self.ns_of(cur));
        let g = self.tasks[t].group;
        let (status, code, si_status) = match kind {
            READY_EXIT => {
                // wait_task_zombie(): the group's code for a group exit.
                let status = if self.groups[g].flags & SIGNAL_GROUP_EXIT != 0 {
                    self.groups[g].group_exit_code
                } else {
                    self.tasks[t].exit_code
                };
                if status & 0x7f == 0 {
                    (status, CLD_EXITED, status >> 8)
                } else if status & 0x80 != 0 {
                    (status, CLD_DUMPED, status & 0x7f)
                } else {
                    (status, CLD_KILLED, status & 0x7f)
                }
            }
            READY_TRAP => {
                let sig = self.tasks[t].trap_code;
                ((sig << 8) | 0x7f, CLD_TRAPPED, sig)
            }
            READY_STOP => {
                let sig = self.groups[g].group_exit_code;
                ((sig << 8) | 0x7f, CLD_STOPPED, sig)
            }
            _ => (0xffff, CLD_CONTINUED, SIGCONT),
        };
        WaitReport {
            pid,
            status,
            info: SigInfo {
                signo: SIGCHLD,
                code,
                pid,
                uid: self.tasks[t].cred.uid,
                status: si_status,
                value: 0,
            },
        }
    }

    /// Reports and, without `WNOWAIT`, consumes state change `kind` of `t`.
    fn report(&mut self, cur: u32, t: u32, kind: u8, flags: i32) -> WaitOutcome {
        let r = self.peek_report(cur, t, kind);
        if flags & WNOWAIT == 0 {
            let g = self.tasks[t].group;
            match kind {
                READY_EXIT => self.reap_zombie(t),
                READY_TRAP => {
                    self.tasks[t].trap_code = 0;
                    self.sync_task(t);
                }
                READY_STOP => {
                    self.groups[g].group_exit_code = 0;
                    self.sync_group(g);
                }
                _ => {
                    let f = self.groups[g].flags & !crate::task::task_struct::SIGNAL_STOP_CONTINUED;
                    self.set_group_flags(g, f);
                }
            }
        }
        WaitOutcome::Reported(r)
    }

    /// Every report `waitid(idtype, id, options)` could return now, in the
    /// order Linux's walk meets them: the first is what the call returns;
    /// each later one is what it would return if the earlier children were
    /// not ready yet. For replay checkers that must allow for timing they
    /// cannot see. O(R log R) for R ready children of the caller's group.
    ///
    /// # Errors
    /// As [`Kernel::waitid`], except that `ECHILD` is not reported (the list
    /// is empty).
    pub fn wait_candidates(
        &self,
        current: TaskId,
        idtype: i32,
        id: i32,
        options: i32,
    ) -> Result<Vec<WaitReport>> {
        let cur = self.current(current)?;
        let ns = self.ns_of(cur);
        let flags = options;
        let mut out = Vec::new();
        let filter = match idtype {
            P_ALL => WaitFilter::All,
            P_PID if id > 0 => WaitFilter::Pid(self.find_pid(ns, id).unwrap_or(NONE)),
            P_PGID if id == 0 => WaitFilter::Pgid(self.groups[self.tasks[cur].group].pgrp),
            P_PGID if id > 0 => WaitFilter::Pgid(self.find_pid(ns, id).unwrap_or(NONE)),
            _ => return Err(Errno::EINVAL),
        };
        match filter {
            WaitFilter::Pid(pid) => {
                let t = if pid == NONE {
                    NONE
                } else {
                    self.pids[pid].task
                };
                if t == NONE {
                    return Ok(out);
                }
                if self.is_leader(t) && self.is_effectively_child(cur, self.real_parent(t), flags) {
                    let class = self.child_class(self.tasks[t].group);
                    if Self::class_allowed(class, flags) {
                        if let Consider::Report(kind) = self.consider(t, false, class, flags) {
                            out.push(self.peek_report(cur, t, kind));
                        }
                    }
                }
                if self.tasks[t].ptrace != 0
                    && self.is_effectively_child(cur, self.tasks[t].parent, flags)
                {
                    if let Consider::Report(kind) = self.consider(t, true, Class::Ptrace, flags) {
                        out.push(self.peek_report(cur, t, kind));
                    }
                }
            }
            WaitFilter::All | WaitFilter::Pgid(_) => {
                let pgrp = match filter {
                    WaitFilter::Pgid(NONE) => return Ok(out),
                    WaitFilter::Pgid(p) => p,
                    _ => NONE,
                };
                let group = self.tasks[cur].group;
                let ts = self.tasks[cur].thread_seq;
                let allowed = |kind: u8, class: Class| Self::kind_allowed(kind, class, flags);
                // Without a per-group index yet, filter the group's entries.
                let (key, filter) = if self.groups[group].wait_by_pgrp {
                    (pgrp, NONE)
                } else {
                    (NONE, pgrp)
                };
                let mut edges = if flags & __WNOTHREAD != 0 {
                    self.wait_index.all_ready(group, key, ts, ts, allowed)
                } else {
                    let mut v = self.wait_index.all_ready(group, key, ts, u32::MAX, allowed);
                    if ts > 0 {
                        v.extend(self.wait_index.all_ready(group, key, 0, ts - 1, allowed));
                    }
                    v
                };
                if filter != NONE {
                    edges.retain(|&(_, t)| self.groups[self.tasks[t].group].pgrp == filter);
                }
                for (key, t) in edges.drain(..) {
                    let ptrace_edge = key.list == 1;
                    let class = if ptrace_edge {
                        Class::Ptrace
                    } else {
                        self.child_class(self.tasks[t].group)
                    };
                    if let Consider::Report(kind) = self.consider(t, ptrace_edge, class, flags) {
                        out.push(self.peek_report(cur, t, kind));
                    }
                }
            }
        }
        Ok(out)
    }

    fn kind_allowed(kind: u8, class: Class, flags: i32) -> bool {
        Self::class_allowed(class, flags)
            && match kind {
                READY_EXIT => flags & WEXITED != 0,
                READY_STOP => flags & WUNTRACED != 0,
                READY_TRAP => true,
                _ => flags & WCONTINUED != 0,
            }
    }
}
