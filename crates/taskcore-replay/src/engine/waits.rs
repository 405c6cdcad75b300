//! Checking waits: a recorded `wait4`/`waitid` result against what the core
//! may report, allowing for the timing strace cannot show (children whose
//! death or stop is not confirmed yet may be skipped, a blocking wait that
//! was interrupted was sleeping). A death the trace prints after the wait
//! that reports it comes before the wait in the order the engine is given
//! (the planner's happens-before constraint, `plan.rs`).

use taskcore::sys::{SysRet, Syscall};
use taskcore::uapi::{P_ALL, P_PGID, P_PID, WEXITED, WNOHANG, WNOWAIT};
use taskcore::{Errno, TaskId, WaitOutcome, WaitReport};

use super::Engine;
use crate::event::{Event, Outcome, RecInfo};

/// The wait call to apply for a candidate `(idtype, id)`: the recorded
/// call with its numbers mapped, or (`P_PID`) the one child it reaps.
pub(super) type WaitCall<'a> = &'a dyn Fn(i32, i32) -> Syscall;

impl Engine {
    /// A wait call (wait4, waitid, waitid with `P_PIDFD`) applied through
    /// [`taskcore::sys::dispatch`]: what it reported.
    pub(super) fn sys_wait(
        &mut self,
        cur: TaskId,
        call: &Syscall,
    ) -> taskcore::Result<WaitOutcome> {
        match self.sys(cur, call)? {
            SysRet::Wait(w) | SysRet::Waitid(w) => Ok(w),
            // Only wait calls reach here.
            _ => Err(Errno::ENOSYS),
        }
    }

    fn is_uncertain(&self, r: &WaitReport, cur: TaskId) -> bool {
        let Ok(t) = self.k.find_task_by_vpid(cur, r.pid) else {
            return false;
        };
        self.deaths.unconfirmed_dead.contains(&t) || self.deaths.unconfirmed_stop.contains(&t)
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn check_wait(
        &mut self,
        e: &Event,
        cur: TaskId,
        idtype: i32,
        id: i32,
        options: i32,
        recorded: Option<(i32, Option<i32>)>,
        rec_errno: Option<Errno>,
        do_call: WaitCall,
    ) {
        self.stats.checked += 1;
        if let Some((rpid, status)) = recorded.filter(|r| r.0 > 0) {
            // A death reported (not a stop or continue, not a peek).
            let death = status.is_none_or(|s| s & 0x7f != 0x7f && s != 0xffff);
            if death && options & WNOWAIT == 0 {
                self.mark_reap(e, cur, rpid);
            }
        }
        if let Some(err) = rec_errno {
            let r = self.sys_wait(cur, &do_call(idtype, id));
            match r {
                Err(e) if e == err => {}
                other => {
                    let got = self.fmt_wait(&other);
                    self.mismatch(e, "wait", format!("= -1 {}", err.name()), got)
                }
            }
            return;
        }
        // The common case in O(1): the child Linux reported first is the one
        // the core would report first (a WNOWAIT peek), with that status.
        if let Some((rpid, status)) = recorded.filter(|r| r.0 > 0) {
            let want = self.nr_for(cur, rpid);
            let peek = self.k.waitid(cur, idtype, id, options | WNOWAIT | WNOHANG);
            if let Ok(WaitOutcome::Reported(first)) = peek {
                if first.pid == want && status.is_none_or(|s| s == first.status) {
                    let r = self.sys_wait(cur, &do_call(P_PID, want));
                    if !matches!(r, Ok(WaitOutcome::Reported(rep)) if rep.pid == want) {
                        let got = self.fmt_wait(&r);
                        self.mismatch(e, "wait", format!("= {rpid}"), got);
                    }
                    return;
                }
            }
        }
        let cands = match self.k.wait_candidates(cur, idtype, id, options) {
            Ok(c) => c,
            Err(err) => {
                let rec = match recorded {
                    Some((p, s)) if p > 0 => Self::fmt_recorded_wait(p, s),
                    _ => "= 0".into(),
                };
                self.mismatch(e, "wait", rec, format!("= -1 {}", err.name()));
                return;
            }
        };
        match recorded {
            Some((rpid, status)) if rpid > 0 => {
                let want = self.nr_for(cur, rpid);
                // A death or stop strace printed after the wait was moved
                // before it by the scheduler (`plan.rs`).
                let pos = cands.iter().position(|c| c.pid == want);
                let ok = pos.is_some_and(|p| {
                    cands[..p].iter().all(|c| self.is_uncertain(c, cur))
                        && status.is_none_or(|s| s == cands[p].status)
                });
                if !ok {
                    let mut involved = vec![rpid];
                    involved.extend(cands.first().and_then(|c| self.pids.rec_of(c.pid)));
                    let first = cands.first().map(|c| self.fmt_reported(c.pid, c.status));
                    self.mismatch(
                        e,
                        "wait",
                        Self::fmt_recorded_wait(rpid, status),
                        first.unwrap_or_else(|| "no child ready".into()),
                    );
                    if let Some(m) = self.stats.mismatches.last_mut() {
                        m.involved = involved;
                    }
                    if pos.is_none() {
                        return;
                    }
                    // Follow the recording so that one difference does not
                    // cascade into every later wait.
                }
                // Reap (or consume) exactly that child.
                let r = self.sys_wait(cur, &do_call(P_PID, want));
                if !matches!(r, Ok(WaitOutcome::Reported(rep)) if rep.pid == want) {
                    let got = self.fmt_wait(&r);
                    self.mismatch(e, "wait", format!("= {rpid}"), got);
                }
            }
            _ => {
                // Nothing reported (WNOHANG): only unconfirmed children may
                // be ready, and there must be children to wait for.
                if !cands.iter().all(|c| self.is_uncertain(c, cur)) {
                    let got = self.fmt_reported(cands[0].pid, cands[0].status);
                    self.mismatch(e, "wait", "= 0".into(), got);
                    return;
                }
                let probe = self.k.waitid(cur, idtype, id, options | WNOWAIT | WNOHANG);
                if let Err(err) = probe {
                    if !self.has_unconfirmed_child(cur) {
                        self.mismatch(e, "wait", "= 0".into(), format!("= -1 {}", err.name()));
                    }
                }
            }
        }
    }

    /// A blocking wait interrupted by a signal or by its task's death was
    /// sleeping: it had children to wait for (no ECHILD). Without WNOHANG
    /// only; a WNOHANG wait never sleeps.
    pub(super) fn check_sleeping(
        &mut self,
        e: &Event,
        cur: TaskId,
        idtype: i32,
        id: i32,
        options: i32,
    ) {
        if options & WNOHANG != 0 || self.k.getpid(cur).is_err() {
            self.unchecked(e);
            return;
        }
        self.stats.checked += 1;
        let probe = self.k.waitid(cur, idtype, id, options | WNOWAIT | WNOHANG);
        if let Err(err) = probe {
            if !self.has_unconfirmed_child(cur) {
                self.mismatch(e, "interrupted wait", "sleeping".into(), err.name().into());
            }
        }
    }

    /// Whether a child of `cur`'s process died by a kill whose `+++` line
    /// has not come yet. Under strace such a child is still a traced zombie
    /// (or not dead yet): its parent counts it as a child that can still
    /// report, where the core, which saw the death at the kill, may not.
    pub(super) fn has_unconfirmed_child(&self, cur: TaskId) -> bool {
        let Ok(me) = self.k.getpid(cur) else {
            return false;
        };
        self.deaths
            .unconfirmed_dead
            .iter()
            .any(|&t| self.k.getppid(t).is_ok_and(|p| p == me))
    }

    pub(super) fn wait4_to_waitid(&mut self, e: &Event, cur: TaskId, pid: i32) -> (i32, i32) {
        match pid {
            -1 => (P_ALL, 0),
            0 => (P_PGID, 0),
            p if p < 0 => (P_PGID, self.group_arg(e, cur, -p)),
            p => (P_PID, self.nr_for(cur, p)),
        }
    }

    pub(super) fn do_wait4(
        &mut self,
        e: &Event,
        cur: TaskId,
        pid: i32,
        status: Option<i32>,
        options: i32,
    ) {
        let ret = &e.ret;
        let (idtype, id) = self.wait4_to_waitid(e, cur, pid);
        let recorded = match ret {
            Outcome::Interrupted | Outcome::Died => {
                self.check_sleeping(e, cur, idtype, id, options | WEXITED);
                return;
            }
            Outcome::Unknown => {
                self.unchecked(e);
                return;
            }
            Outcome::Errno(err) => {
                let err = *err;
                let call = move |_: i32, _: i32| Syscall::Wait4 {
                    pid: Self::wait4_pid(idtype, id, pid),
                    options,
                };
                self.check_wait(
                    e,
                    cur,
                    idtype,
                    id,
                    options | WEXITED,
                    None,
                    Some(err),
                    &call,
                );
                return;
            }
            Outcome::Value(v) => (*v as i32, status),
        };
        let call = move |idt: i32, idv: i32| Syscall::Wait4 {
            pid: if idt == P_PID {
                idv
            } else {
                Self::wait4_pid(idtype, id, pid)
            },
            options,
        };
        self.check_wait(
            e,
            cur,
            idtype,
            id,
            options | WEXITED,
            Some(recorded),
            None,
            &call,
        );
    }

    pub(super) fn wait4_pid(idtype: i32, id: i32, orig: i32) -> i32 {
        match idtype {
            P_ALL => -1,
            P_PGID if id == 0 => 0,
            P_PGID => -id,
            _ if orig > 0 => id,
            _ => id,
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn do_waitid(
        &mut self,
        e: &Event,
        cur: TaskId,
        idtype: i32,
        id: i32,
        info: Option<RecInfo>,
        options: i32,
    ) {
        if idtype == taskcore::uapi::P_PIDFD {
            if let Some(fd) = self.pidfd_of(cur, id) {
                self.do_waitid_pidfd(e, cur, fd, info, options);
                return;
            }
        }
        let ret = &e.ret;
        // A pidfd the trace did not open names one child: the recorded
        // report says which.
        let (idtype, id) = match (idtype, info) {
            (taskcore::uapi::P_PIDFD, Some(f)) if f.pid > 0 => (P_PID, f.pid),
            (taskcore::uapi::P_PIDFD, _) => {
                self.unchecked(e);
                return;
            }
            (idtype, _) => (idtype, id),
        };
        let mapped_id = match idtype {
            P_PID if id > 0 => self.nr_for(cur, id),
            P_PGID if id > 0 => self.group_arg(e, cur, id),
            _ => id,
        };
        let call = move |idt: i32, idv: i32| {
            let (idtype, id) = if idt == P_PID {
                (P_PID, idv)
            } else {
                (idtype, mapped_id)
            };
            Syscall::Waitid {
                idtype,
                id,
                options,
            }
        };
        match ret {
            Outcome::Interrupted | Outcome::Died => {
                self.check_sleeping(e, cur, idtype, mapped_id, options)
            }
            Outcome::Unknown => self.unchecked(e),
            Outcome::Errno(err) => {
                self.check_wait(e, cur, idtype, mapped_id, options, None, Some(*err), &call)
            }
            Outcome::Value(_) => {
                let rec = info
                    .filter(|f| f.pid != 0)
                    .map(|f| (f.pid, Some(status_word(f))));
                let rec = rec.or(Some((0, None)));
                self.check_wait(e, cur, idtype, mapped_id, options, rec, None, &call);
                let _ = WNOHANG;
            }
        }
    }
}

/// The wait4 status word a waitid siginfo stands for.
pub(super) fn status_word(f: RecInfo) -> i32 {
    use taskcore::uapi::{CLD_CONTINUED, CLD_DUMPED, CLD_EXITED, CLD_KILLED};
    match f.code {
        CLD_EXITED => (f.status & 0xff) << 8,
        CLD_KILLED => f.status & 0x7f,
        CLD_DUMPED => (f.status & 0x7f) | 0x80,
        CLD_CONTINUED => 0xffff,
        _ => ((f.status & 0xff) << 8) | 0x7f,
    }
}
