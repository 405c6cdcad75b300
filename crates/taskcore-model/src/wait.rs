//! `wait4` and `waitid`: Linux's `do_wait` loop, unindexed.
//!
//! For each thread of the caller's group, starting at the caller and
//! wrapping around (`while_each_thread`), the thread's `children` in list
//! order, then its `ptraced` list, are each passed to a line-by-line port of
//! `wait_consider_task`, which reports the first child with something to
//! report and otherwise clears `notask_error` for children that might
//! report later. A wait for one pid uses `do_wait_pid` (Linux 5.13), or the
//! same scan with [`crate::ModelOptions::wait_scan_only`].
//!
//! # Linux
//! kernel/exit.c: `kernel_wait4`, `kernel_waitid`, `__do_wait`,
//! `do_wait_thread`, `ptrace_do_wait`, `do_wait_pid`,
//! `is_effectively_child`, `eligible_pid`, `eligible_child`,
//! `wait_consider_task`, `wait_task_zombie`, `wait_task_stopped`,
//! `wait_task_continued`.

use taskcore::uapi::{
    __WALL, __WCLONE, __WNOTHREAD, CLD_CONTINUED, CLD_DUMPED, CLD_EXITED, CLD_KILLED, CLD_STOPPED,
    CLD_TRAPPED, SIGCHLD, SIGCONT, WCONTINUED, WEXITED, WNOHANG, WNOWAIT, WUNTRACED,
};

use taskcore::rules::WaitTarget;

use crate::{
    Errno, ExitState, Model, Result, SigInfo, Tid, WaitOutcome, WaitReport, SIGNAL_GROUP_EXIT,
    SIGNAL_STOP_CONTINUED, SIGNAL_STOP_STOPPED,
};

/// `wo_type` and `wo_pid`: which children a wait accepts. `None` is a
/// number that names no `struct pid`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WaitType {
    /// `PIDTYPE_MAX`: any child.
    All,
    /// `PIDTYPE_PID`.
    Pid(Option<usize>),
    /// `PIDTYPE_PGID`.
    Pgid(Option<usize>),
}

/// `struct wait_opts`.
struct WaitOpts {
    /// The waiting thread.
    cur: usize,
    wtype: WaitType,
    flags: i32,
    /// `notask_error` is still `-ECHILD`.
    notask: bool,
}

fn report(pid: i32, uid: u32, status: i32, code: i32, si_status: i32) -> WaitOutcome {
    WaitOutcome::Reported(WaitReport {
        pid,
        status,
        info: SigInfo {
            signo: SIGCHLD,
            code,
            pid,
            uid,
            status: si_status,
            value: 0,
        },
    })
}

impl Model {
    /// `wait4(pid, &status, options, NULL)`.
    ///
    /// # Errors
    /// `EINVAL`: options outside `WNOHANG | WUNTRACED | WCONTINUED |
    /// __WNOTHREAD | __WCLONE | __WALL`. `ESRCH`: `pid == i32::MIN`; stale
    /// caller. `ECHILD`: no child could ever report.
    ///
    /// # Linux
    /// `kernel_wait4()`: `WEXITED` is implied.
    pub fn wait4(&mut self, current: Tid, pid: i32, options: i32) -> Result<WaitOutcome> {
        let (target, flags) = taskcore::rules::wait4_args(pid, options)?;
        let cur = self.current(current)?;
        let wtype = self.wait_type(cur, target);
        let r = self.do_wait(cur, wtype, flags);
        self.run_deferred();
        r
    }

    /// A wait's target, its numbers looked up in `cur`'s namespace.
    fn wait_type(&self, cur: usize, target: WaitTarget) -> WaitType {
        let ns = self.ns_of(cur);
        match target {
            WaitTarget::All => WaitType::All,
            WaitTarget::Pid(p) => WaitType::Pid(self.find_pid(ns, p)),
            WaitTarget::Pgid(p) => WaitType::Pgid(self.find_pid(ns, p)),
            WaitTarget::CallerPgid => WaitType::Pgid(Some(self.sig(cur).pgrp)),
        }
    }

    /// `waitid(idtype, id, &info, options, NULL)` for `P_ALL`, `P_PID`,
    /// `P_PGID` (0: the caller's group).
    ///
    /// # Errors
    /// `EINVAL`: unknown option bits; none of `WEXITED | WSTOPPED |
    /// WCONTINUED`; unknown idtype (and `P_PIDFD`); `P_PID` with `id <= 0`;
    /// `P_PGID` with `id < 0`. `ESRCH`: stale caller. `ECHILD`: as `wait4`.
    ///
    /// # Linux
    /// `kernel_waitid()`.
    pub fn waitid(
        &mut self,
        current: Tid,
        idtype: i32,
        id: i32,
        options: i32,
    ) -> Result<WaitOutcome> {
        let options = taskcore::rules::waitid_options(options)?;
        let cur = self.current(current)?;
        let target = taskcore::rules::waitid_target(idtype, id)?;
        let wtype = self.wait_type(cur, target);
        let r = self.do_wait(cur, wtype, options);
        self.run_deferred();
        r
    }

    /// `__do_wait()` for thread `cur`.
    pub(crate) fn do_wait(
        &mut self,
        cur: usize,
        wtype: WaitType,
        flags: i32,
    ) -> Result<WaitOutcome> {
        let mut wo = WaitOpts {
            cur,
            wtype,
            flags,
            notask: true,
        };
        let has_task = match wtype {
            WaitType::All => true,
            WaitType::Pid(p) => {
                p.is_some_and(|p| self.pids[p].as_ref().is_some_and(|x| x.task.is_some()))
            }
            WaitType::Pgid(p) => p.is_some_and(|p| self.pgrp_has_task(p)),
        };
        if has_task {
            if let (WaitType::Pid(Some(pid)), false) = (wtype, self.opts.wait_scan_only) {
                if let Some(r) = self.do_wait_pid(&mut wo, pid) {
                    return Ok(r);
                }
            } else {
                let threads = self.sig(cur).threads.clone();
                let start = threads
                    .iter()
                    .position(|&t| t == cur)
                    .expect("the waiter is on its thread list");
                for i in 0..threads.len() {
                    let tsk = threads[(start + i) % threads.len()];
                    for p in self.task(tsk).children.clone() {
                        if let Some(r) = self.wait_consider_task(&mut wo, false, p) {
                            return Ok(r);
                        }
                    }
                    for p in self.task(tsk).ptraced.clone() {
                        if let Some(r) = self.wait_consider_task(&mut wo, true, p) {
                            return Ok(r);
                        }
                    }
                    if flags & __WNOTHREAD != 0 {
                        break;
                    }
                }
            }
        }
        if wo.notask {
            Err(Errno::ECHILD)
        } else if flags & WNOHANG != 0 {
            Ok(WaitOutcome::NothingYet)
        } else {
            Ok(WaitOutcome::WouldBlock)
        }
    }

    /// `do_wait_pid()`: the process with tgid `pid` as a child, then the
    /// task with pid `pid` as a tracee.
    fn do_wait_pid(&mut self, wo: &mut WaitOpts, pid: usize) -> Option<WaitOutcome> {
        let task = self.pids[pid].as_ref().and_then(|p| p.task);
        // pid_task(pid, PIDTYPE_TGID): the leader whose tgid this is.
        if let Some(t) = task.filter(|&t| self.is_leader(t)) {
            if self.is_effectively_child(wo, false, t) {
                if let Some(r) = self.wait_consider_task(wo, false, t) {
                    return Some(r);
                }
            }
        }
        if let Some(t) = task {
            if self.task(t).ptrace != 0 && self.is_effectively_child(wo, true, t) {
                if let Some(r) = self.wait_consider_task(wo, true, t) {
                    return Some(r);
                }
            }
        }
        None
    }

    fn is_effectively_child(&self, wo: &WaitOpts, ptrace: bool, target: usize) -> bool {
        let t = self.task(target);
        let parent = if ptrace { t.parent } else { t.real_parent };
        parent.is_some_and(|parent| {
            wo.cur == parent
                || (wo.flags & __WNOTHREAD == 0 && self.same_thread_group(wo.cur, parent))
        })
    }

    fn eligible_pid(&self, wo: &WaitOpts, p: usize) -> bool {
        match wo.wtype {
            WaitType::All => true,
            WaitType::Pid(pid) => Some(self.task(p).pid) == pid,
            WaitType::Pgid(pgrp) => Some(self.sig(p).pgrp) == pgrp,
        }
    }

    fn eligible_child(&self, wo: &WaitOpts, ptrace: bool, p: usize) -> bool {
        if !self.eligible_pid(wo, p) {
            return false;
        }
        // Wait for all children (clone and not) if __WALL is set or if it
        // is traced by us.
        if ptrace || wo.flags & __WALL != 0 {
            return true;
        }
        // Otherwise clone children (exit signal other than SIGCHLD) only
        // with __WCLONE, and the others only without it.
        (self.task(p).exit_signal != SIGCHLD) == (wo.flags & __WCLONE != 0)
    }

    /// `wait_consider_task()`.
    fn wait_consider_task(
        &mut self,
        wo: &mut WaitOpts,
        ptrace: bool,
        p: usize,
    ) -> Option<WaitOutcome> {
        let exit_state = self.task(p).exit_state;
        if exit_state == ExitState::Dead {
            return None;
        }
        if !self.eligible_child(wo, ptrace, p) {
            return None;
        }
        let mut ptrace = ptrace;
        if !ptrace && self.task(p).ptrace != 0 {
            // Traced by its real parent's group: pretend the caller is
            // ptrace_do_wait(), hiding the group stop state from the
            // real parent.
            if !self.ptrace_reparented(p) {
                ptrace = true;
            }
        }
        if exit_state == ExitState::Zombie {
            // We don't reap group leaders with subthreads.
            if !self.delay_group_leader(p) {
                // A zombie ptracee is only visible to its ptracer.
                if ptrace || self.task(p).ptrace == 0 {
                    return self.wait_task_zombie(wo, p);
                }
            }
            if !ptrace || wo.flags & (WCONTINUED | WEXITED) != 0 {
                wo.notask = false;
            }
        } else {
            // Alive: it will stop, continue or exit.
            wo.notask = false;
        }
        if let Some(r) = self.wait_task_stopped(wo, ptrace, p) {
            return Some(r);
        }
        self.wait_task_continued(wo, p)
    }

    /// `wait_task_zombie()`.
    fn wait_task_zombie(&mut self, wo: &mut WaitOpts, p: usize) -> Option<WaitOutcome> {
        if wo.flags & WEXITED == 0 {
            return None;
        }
        let pid = self.pid_nr_ns(self.task(p).pid, self.ns_of(wo.cur));
        let uid = self.task(p).cred.uid;
        let status = if self.sig(p).flags & SIGNAL_GROUP_EXIT != 0 {
            self.sig(p).group_exit_code
        } else {
            self.task(p).exit_code
        };
        if wo.flags & WNOWAIT == 0 {
            if self.ptrace_reparented(p) && self.is_leader(p) {
                // EXIT_TRACE: the tracer is done; now the real parent's turn.
                self.ptrace_unlink(p);
                let sig = self.task(p).exit_signal;
                if self.do_notify_parent(p, sig) {
                    self.task_mut(p).exit_state = ExitState::Dead;
                    self.release_task(p);
                }
            } else {
                self.task_mut(p).exit_state = ExitState::Dead;
                self.release_task(p);
            }
        }
        Some(if status & 0x7f == 0 {
            report(pid, uid, status, CLD_EXITED, status >> 8)
        } else if status & 0x80 != 0 {
            report(pid, uid, status, CLD_DUMPED, status & 0x7f)
        } else {
            report(pid, uid, status, CLD_KILLED, status & 0x7f)
        })
    }

    /// `wait_task_stopped()`: a ptrace stop (`ptrace`) or a group stop
    /// (`WUNTRACED`), reported once.
    fn wait_task_stopped(
        &mut self,
        wo: &mut WaitOpts,
        ptrace: bool,
        p: usize,
    ) -> Option<WaitOutcome> {
        // Traditionally we see ptrace'd stopped tasks regardless of options.
        if !ptrace && wo.flags & WUNTRACED == 0 {
            return None;
        }
        let code = if ptrace {
            // task_stopped_code(): a listening tracee has nothing to report.
            if self.task(p).traced_stop && !self.task(p).listening {
                self.task(p).trap_code
            } else {
                0
            }
        } else if self.sig(p).flags & SIGNAL_STOP_STOPPED != 0 {
            self.sig(p).group_exit_code
        } else {
            0
        };
        if code == 0 {
            return None;
        }
        if wo.flags & WNOWAIT == 0 {
            if ptrace {
                self.task_mut(p).trap_code = 0;
            } else {
                self.sig_mut(p).group_exit_code = 0;
            }
        }
        let pid = self.pid_nr_ns(self.task(p).pid, self.ns_of(wo.cur));
        let uid = self.task(p).cred.uid;
        let why = if ptrace { CLD_TRAPPED } else { CLD_STOPPED };
        Some(report(pid, uid, (code << 8) | 0x7f, why, code))
    }

    /// `wait_task_continued()`.
    fn wait_task_continued(&mut self, wo: &mut WaitOpts, p: usize) -> Option<WaitOutcome> {
        if wo.flags & WCONTINUED == 0 || self.sig(p).flags & SIGNAL_STOP_CONTINUED == 0 {
            return None;
        }
        if wo.flags & WNOWAIT == 0 {
            self.sig_mut(p).flags &= !SIGNAL_STOP_CONTINUED;
        }
        let pid = self.pid_nr_ns(self.task(p).pid, self.ns_of(wo.cur));
        let uid = self.task(p).cred.uid;
        Some(report(pid, uid, 0xffff, CLD_CONTINUED, SIGCONT))
    }
}
