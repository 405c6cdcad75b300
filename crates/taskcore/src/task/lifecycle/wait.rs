//! `wait4` and `waitid`.
//!
//! Linux's `do_wait` scans the children and tracees of every thread of the
//! caller's group (since 5.13 it looks a given pid up directly). We look a
//! given pid up too, and for "any child" or "a process group" we ask the
//! wait index (`crate::wait::index`) for the first edge, in Linux's walk order, that has something
//! the options accept: O(1 + log R) for R ready edges, however many children
//! have nothing to report.
//!
//! # Linux
//! kernel/exit.c: `kernel_wait4`, `kernel_waitid`, `do_wait`,
//! `__do_wait`, `do_wait_pid`, `wait_consider_task`, `wait_task_zombie`,
//! `wait_task_stopped`, `wait_task_continued`.

use crate::errno::{Errno, Result};
use crate::ix::TaskId;
use crate::ix::TaskIx;
use crate::pid::entry::PidIx;
use crate::task::kernel::Kernel;
use crate::task::task_struct::SIGNAL_GROUP_EXIT;
use crate::types::SigInfo;
use crate::uapi::{
    __WALL, __WCLONE, __WNOTHREAD, CLD_CONTINUED, CLD_DUMPED, CLD_EXITED, CLD_KILLED, CLD_STOPPED,
    CLD_TRAPPED, SIGCHLD, SIGCONT, WCONTINUED, WEXITED, WNOHANG, WNOWAIT, WUNTRACED,
};
use crate::wait::index::{
    Cat, Class, EdgeState, ReadyKey, Waiter, READY_CONT, READY_EXIT, READY_STOP, READY_TRAP,
};
use crate::wait::{WaitOutcome, WaitReport};
use core::ops::ControlFlow;

/// Which children a wait accepts (`wo_type` and `wo_pid`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WaitFilter {
    /// Any child (`PIDTYPE_MAX`).
    All,
    /// The child with this `struct pid` (`PIDTYPE_PID`); `None` for a
    /// number that names no pid.
    Pid(Option<PidIx>),
    /// Children in this process group (`PIDTYPE_PGID`); `None` as above.
    Pgid(Option<PidIx>),
}

/// A decoded wait: Linux's `struct wait_opts` as `kernel_waitid_prepare()`
/// leaves it, shared by `wait4`, `waitid` and [`Kernel::wait_candidates`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct WaitOpts {
    /// The waiting thread (`current`).
    cur: TaskIx,
    /// `wo_type` and `wo_pid`.
    filter: WaitFilter,
    /// `wo_flags`.
    flags: i32,
}

/// The first thing `wait_consider_task` found on an edge.
enum Consider {
    Report(u8),
    Skip { clears: bool },
}

/// # Wait: wait4 and waitid (`kernel/exit.c` `do_wait()`).
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
        let wo = self.wait4_prepare(current, pid, options)?;
        let r = self.do_wait(wo.cur, wo.filter, wo.flags);
        self.run_deferred();
        r
    }

    /// `kernel_wait4()`'s checks and decoding: the options, the pid, the
    /// caller; `WEXITED` is added.
    fn wait4_prepare(&self, current: TaskId, pid: i32, options: i32) -> Result<WaitOpts> {
        let (target, flags) = crate::rules::wait4_args(pid, options)?;
        let cur = self.current(current)?;
        Ok(WaitOpts {
            cur,
            filter: self.wait_filter(cur, target),
            flags,
        })
    }

    /// A wait's target as a filter, its numbers looked up in `cur`'s
    /// namespace.
    #[inline(always)]
    fn wait_filter(&self, cur: TaskIx, target: crate::rules::WaitTarget) -> WaitFilter {
        use crate::rules::WaitTarget;
        let ns = self.ns_of(cur);
        match target {
            WaitTarget::All => WaitFilter::All,
            WaitTarget::Pid(p) => WaitFilter::Pid(self.find_pid(ns, p)),
            WaitTarget::Pgid(p) => WaitFilter::Pgid(self.find_pid(ns, p)),
            WaitTarget::CallerPgid => {
                WaitFilter::Pgid(Some(self.groups[self.tasks[cur].group].pgrp))
            }
        }
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
        let wo = self.waitid_prepare(current, idtype, id, options)?;
        let r = self.do_wait(wo.cur, wo.filter, wo.flags);
        self.run_deferred();
        r
    }

    /// `kernel_waitid_prepare()`: checks the options, the caller and the
    /// target, and decodes them.
    fn waitid_prepare(
        &self,
        current: TaskId,
        idtype: i32,
        id: i32,
        options: i32,
    ) -> Result<WaitOpts> {
        let flags = crate::rules::waitid_options(options)?;
        let cur = self.current(current)?;
        let filter = self.waitid_target(cur, idtype, id)?;
        Ok(WaitOpts { cur, filter, flags })
    }

    /// `waitid`'s `(idtype, id)` as a filter, for caller `cur`.
    ///
    /// # Errors
    /// `EINVAL`: an unknown idtype (`P_PIDFD` included), `P_PID` with
    /// `id <= 0`, `P_PGID` with `id < 0`.
    fn waitid_target(&self, cur: TaskIx, idtype: i32, id: i32) -> Result<WaitFilter> {
        let target = crate::rules::waitid_target(idtype, id)?;
        Ok(self.wait_filter(cur, target))
    }

    /// `__do_wait()` for thread `cur` (which may be exiting: init reaps its
    /// namespace while it dies).
    pub(crate) fn do_wait(
        &mut self,
        cur: TaskIx,
        filter: WaitFilter,
        flags: i32,
    ) -> Result<WaitOutcome> {
        // Operations flush their marks when they end; this makes the
        // index's answer right even for a caller in the middle of one.
        self.flush_wait_edges();
        let wo = WaitOpts { cur, filter, flags };
        if let WaitFilter::Pgid(p) = filter {
            if p.is_none_or(|p| self.pids[p].pgrp_members.is_empty()) {
                return Err(Errno::ECHILD);
            }
        }
        if !matches!(filter, WaitFilter::Pid(_)) {
            // The per-group and per-thread parts of the index are built at
            // the first wait that needs them.
            let group = self.tasks[cur].group;
            if matches!(filter, WaitFilter::Pgid(_)) && !self.groups[group].wait_by_pgrp {
                self.reindex_waiter(group, None, |k| k.groups[group].wait_by_pgrp = true);
            }
            let counted = crate::task::task_struct::TaskFlags::WAIT_COUNTED;
            if flags & __WNOTHREAD != 0 && !self.tasks[cur].flags.contains(counted) {
                self.reindex_waiter(group, Some(cur), |k| k.tasks[cur].flags |= counted);
            }
        }
        let mut found = None;
        let walked = self.wait_walk(&wo, |t, kind| {
            found = Some((t, kind));
            ControlFlow::Break(())
        });
        if let Some((t, kind)) = found {
            return Ok(self.report(cur, t, kind, flags));
        }
        let clears = match (walked, filter) {
            (Some(clears), WaitFilter::Pid(_)) => clears,
            (_, WaitFilter::Pgid(p)) => self.any_could_report(cur, p, flags),
            _ => self.any_could_report(cur, None, flags),
        };
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

    /// `__do_wait()`'s walk, without side effects: calls `visit(task,
    /// kind)` for each edge that would report state change `kind` under
    /// `wo`, in the order Linux's walk meets them, until `visit` breaks.
    ///
    /// For a pid, the real-parent edge then the ptrace edge
    /// (`do_wait_pid()`); otherwise the wait index's ready edges from the
    /// caller's thread on, wrapping around (`do_wait_thread()` and
    /// `ptrace_do_wait()` for each thread). Returns `None` if `visit`
    /// broke; else, for a pid, whether an edge that reported nothing
    /// clears `notask_error` (the wait blocks rather than fails), and for
    /// the other filters `Some(false)` (the counts answer that: see
    /// [`Self::any_could_report`]).
    fn wait_walk(
        &self,
        wo: &WaitOpts,
        mut visit: impl FnMut(TaskIx, u8) -> ControlFlow<()>,
    ) -> Option<bool> {
        let (cur, flags) = (wo.cur, wo.flags);
        let pgrp = match wo.filter {
            WaitFilter::Pid(pid) => {
                let mut clears = false;
                let Some(t) = pid.and_then(|pid| self.pids[pid].task) else {
                    return Some(false);
                };
                if self.is_leader(t) && self.is_effectively_child(cur, self.real_parent(t), flags) {
                    let class = self.child_class(self.tasks[t].group);
                    if Self::class_allowed(class, flags) {
                        match self.consider(t, false, class, flags) {
                            Consider::Report(kind) => {
                                if visit(t, kind).is_break() {
                                    return None;
                                }
                            }
                            Consider::Skip { clears: c } => clears |= c,
                        }
                    }
                }
                if self.tasks[t].ptrace != 0
                    && self.is_effectively_child(cur, self.tasks[t].parent, flags)
                {
                    match self.consider(t, true, Class::Ptrace, flags) {
                        Consider::Report(kind) => {
                            if visit(t, kind).is_break() {
                                return None;
                            }
                        }
                        Consider::Skip { clears: c } => clears |= c,
                    }
                }
                return Some(clears);
            }
            WaitFilter::Pgid(None) => return Some(false),
            WaitFilter::Pgid(p) => p,
            WaitFilter::All => None,
        };
        let group = self.tasks[cur].group;
        let ts = self.tasks[cur].thread_seq;
        let allowed = Self::ready_masks(flags);
        // Without a per-process-group index yet, the group's entries,
        // filtered.
        let (key, only) = if self.groups[group].wait_by_pgrp {
            (pgrp, None)
        } else {
            (None, pgrp)
        };
        let mut edge = |k: ReadyKey, t: TaskIx| {
            if only.is_some_and(|p| self.groups[self.tasks[t].group].pgrp != p) {
                return ControlFlow::Continue(());
            }
            let ptrace_edge = k.list == 1;
            let class = if ptrace_edge {
                Class::Ptrace
            } else {
                self.child_class(self.tasks[t].group)
            };
            match self.consider(t, ptrace_edge, class, flags) {
                Consider::Report(kind) => visit(t, kind),
                Consider::Skip { .. } => {
                    debug_assert!(false, "index names an edge with nothing to report");
                    ControlFlow::Continue(())
                }
            }
        };
        // Linux walks from the caller's thread, wrapping around.
        let (hi, wrap) = if flags & __WNOTHREAD != 0 {
            (ts, false)
        } else {
            (u32::MAX, ts > 0)
        };
        let ix = &self.wait_index;
        if ix
            .walk_ready(group, key, ts, hi, allowed, &mut edge)
            .is_break()
        {
            return None;
        }
        if wrap
            && ix
                .walk_ready(group, key, 0, ts - 1, allowed, &mut edge)
                .is_break()
        {
            return None;
        }
        Some(false)
    }

    /// `is_effectively_child()`: `parent` is the caller or, without
    /// `__WNOTHREAD`, a thread of the caller's group.
    fn is_effectively_child(&self, cur: TaskIx, parent: Option<TaskIx>, flags: i32) -> bool {
        parent == Some(cur) || (flags & __WNOTHREAD == 0 && self.same_group(Some(cur), parent))
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
    fn any_could_report(&self, cur: TaskIx, pgrp: Option<PidIx>, flags: i32) -> bool {
        let waiter = if flags & __WNOTHREAD != 0 {
            Waiter::Thread(cur)
        } else {
            Waiter::Group(self.tasks[cur].group)
        };
        [Class::Normal, Class::Clone, Class::Ptrace]
            .into_iter()
            .any(|class| {
                if !Self::class_allowed(class, flags) {
                    return false;
                }
                let c = self.wait_index.counts(waiter, pgrp, class);
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
    ///
    /// The edge's state is the one registered in the wait index (the
    /// group's `child_reg`, the task's `ptrace_reg`), not recomputed: every
    /// operation flushes its marks when it ends and `do_wait` flushes
    /// before it walks, so the registration is what [`Kernel::edge_state`]
    /// would say (`check_invariants` compares the two).
    #[inline(always)]
    fn consider(&self, t: TaskIx, ptrace_edge: bool, class: Class, flags: i32) -> Consider {
        let reg = if ptrace_edge {
            self.tasks[t].ptrace_reg
        } else {
            self.groups[self.tasks[t].group].child_reg
        };
        debug_assert!(self.wait_dirty.is_empty(), "a wait reads flushed edges");
        let st = match EdgeState::decode(reg) {
            Some(st) => st,
            // An eligible edge is registered; recomputed should a caller
            // ever reach one that is not.
            None => self.edge_state(t, ptrace_edge, class),
        };
        debug_assert_eq!(st, self.edge_state(t, ptrace_edge, class));
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
    #[inline(always)]
    fn peek_report(&self, cur: TaskIx, t: TaskIx, kind: u8) -> WaitReport {
        let pid = self.pid_nr_ns(self.tasks[t].pid, self.ns_of(cur));
        let g = self.tasks[t].group;
        let (status, code, si_status) = match kind {
            READY_EXIT => {
                // wait_task_zombie(): the group's code for a group exit.
                let status = if self.groups[g].flags.get().contains(SIGNAL_GROUP_EXIT) {
                    self.groups[g].group_exit_code.get()
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
                let sig = self.tasks[t].trap_code.get();
                ((sig << 8) | 0x7f, CLD_TRAPPED, sig)
            }
            READY_STOP => {
                let sig = self.groups[g].group_exit_code.get();
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
                uid: self.uid_seen_by(cur, self.tasks[t].cred.uid),
                status: si_status,
                value: 0,
            },
        }
    }

    /// Reports and, without `WNOWAIT`, consumes state change `kind` of `t`.
    #[inline(always)]
    fn report(&mut self, cur: TaskIx, t: TaskIx, kind: u8, flags: i32) -> WaitOutcome {
        let r = self.peek_report(cur, t, kind);
        if flags & WNOWAIT == 0 {
            if kind == READY_EXIT {
                self.reap_zombie(t);
            } else {
                self.consume_report(t, kind);
            }
        }
        WaitOutcome::Reported(r)
    }

    /// What reporting a stop, trap or continue of `t` (`kind`, not
    /// `READY_EXIT`) consumes without `WNOWAIT`: the trap code, the
    /// group's stop code, or its continued flag. Out of line: the usual
    /// report is an exit.
    #[inline(never)]
    fn consume_report(&mut self, t: TaskIx, kind: u8) {
        let g = self.tasks[t].group;
        match kind {
            READY_TRAP => {
                self.set_trap_code(t, 0);
            }
            READY_STOP => {
                self.set_group_exit_code(g, 0);
            }
            _ => {
                let f =
                    self.groups[g].flags.get() & !crate::task::task_struct::SIGNAL_STOP_CONTINUED;
                self.set_group_flags(g, f);
            }
        }
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
        let filter = self.waitid_target(cur, idtype, id)?;
        let wo = WaitOpts {
            cur,
            filter,
            flags: options,
        };
        let mut out = Vec::new();
        self.wait_walk(&wo, |t, kind| {
            out.push(self.peek_report(cur, t, kind));
            ControlFlow::Continue(())
        });
        Ok(out)
    }

    /// The `READY_*` kinds a wait with `flags` accepts on an edge of each
    /// [`Class`] (indexed by class): `eligible_child()`'s clone filter,
    /// then `wait_consider_task()`'s option for each kind (`WEXITED`,
    /// `WUNTRACED`, `WCONTINUED`; a ptrace stop whatever the options).
    fn ready_masks(flags: i32) -> [u8; 3] {
        let mut kinds = READY_TRAP;
        if flags & WEXITED != 0 {
            kinds |= READY_EXIT;
        }
        if flags & WUNTRACED != 0 {
            kinds |= READY_STOP;
        }
        if flags & WCONTINUED != 0 {
            kinds |= READY_CONT;
        }
        let of = |class| {
            if Self::class_allowed(class, flags) {
                kinds
            } else {
                0
            }
        };
        [of(Class::Normal), of(Class::Clone), of(Class::Ptrace)]
    }
}
