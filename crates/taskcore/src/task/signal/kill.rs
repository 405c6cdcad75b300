//! Sending signals from user space: `kill`, `tgkill`, `tkill`, and the
//! embedder's own sends (`send_signal`, `force_fatal_signal`), with their
//! target lookup and permission checks. The signal then goes through
//! `send_signal_locked()` (`task/signal/sigsend.rs`) and is taken by a thread in
//! `get_signal()` (`task/signal/sigdeliver.rs`).
//!
//! # Linux
//! kernel/signal.c: `kill_something_info`, `__kill_pgrp_info`, `do_tkill`,
//! `do_send_specific`, `group_send_sig_info`, `check_kill_permission`,
//! `prepare_kill_siginfo`.

use crate::errno::{Errno, Result};
use crate::ix::GroupIx;
use crate::ix::TaskIx;
use crate::list;
use crate::pid::entry::PidIx;
use crate::pid::entry::{nr_at, Upid};
use crate::task::kernel::{Kernel, SigInfo, TaskId};
use crate::task::signal::sigsend::{PidType, SendInfo};
use crate::task::task_struct::{ExitState, PF_EXITING, SIGNAL_GROUP_EXIT};
use crate::uapi::{valid_signal, SIGCONT, SIGKILL, SI_TKILL, SI_USER};

/// Where a `kill` is aimed, resolved.
enum KillTarget {
    Group(TaskIx),
    Pgrp(PidIx),
    All,
}

/// The sender of a user signal, as `check_kill_permission()` sees it.
pub(crate) struct Killer {
    cred: std::sync::Arc<crate::task::state::cred_struct::Cred>,
    group: GroupIx,
    session: PidIx,
    /// The sender's tgid in its own namespace (`task_tgid_vnr(current)`),
    /// what `si_pid` says unless the target cannot see the sender.
    tgid_vnr: i32,
    /// The sender's pid numbers: whether the target's namespace sees it.
    /// Its deepest, and all of them (root first) when it has several.
    last: Upid,
    upper: Option<Box<[Upid]>>,
    /// The sender's uid as its user namespace shows it (what
    /// `prepare_kill_siginfo()` writes in `si_uid`), and that number taken
    /// back to a kernel uid through the same namespace (`None`: unmapped):
    /// what `userns_fixup_signal_uid()` shows in another namespace. Taken
    /// with the rest: the namespace may go with a sender reaped half-way.
    uid_vnr: u32,
    uid_back: Option<u32>,
}

/// # Signals: sending (kill, tgkill, tkill, sigqueue; `kernel/signal.c`).
impl Kernel {
    /// `kill(pid, sig)`: `pid > 0` the process (thread group) of that pid
    /// (a thread id names its group); `0` the caller's process group; `-1`
    /// every process but init and the caller's; `< -1` process group
    /// `-pid`. `sig` 0 only checks that a target exists.
    ///
    /// # Errors
    /// - `ESRCH`: `current` is stale or exiting; no such process or group
    ///   (checked before `sig`); `pid == i32::MIN`.
    /// - `EINVAL`: `sig` outside 0..=64 (for an existing target).
    ///
    /// - `EPERM`: the caller may not signal the target (for a process
    ///   group, none of its members): its real or effective uid is not
    ///   the target's real or saved uid and it lacks `CAP_KILL`; SIGCONT is
    ///   allowed within the caller's session. `kill(-1)` skips the processes
    ///   it may not signal.
    ///
    /// A signal sent by `kill` is never refused for want of a queue entry
    /// (`SI_USER`: a real-time one then loses its siginfo).
    ///
    /// # Linux
    /// `kill_something_info()` (kernel/signal.c).
    pub fn kill(&mut self, current: TaskId, pid: i32, sig: impl Into<i32>) -> Result<()> {
        let sig = sig.into();
        self.probed(crate::probe::Op::Kill, current, |k| {
            k.do_sys_kill(current, pid, sig)
        })
    }

    fn do_sys_kill(&mut self, current: TaskId, pid: i32, sig: i32) -> Result<()> {
        let cur = self.current(current)?;
        let ns = self.ns_of(cur);
        let target = match pid {
            i32::MIN => return Err(Errno::ESRCH),
            p if p > 0 => KillTarget::Group(self.find_task(ns, p).ok_or(Errno::ESRCH)?),
            0 => KillTarget::Pgrp(self.groups[self.tasks[cur].group].pgrp),
            -1 => KillTarget::All,
            p => KillTarget::Pgrp(self.find_pid(ns, -p).ok_or(Errno::ESRCH)?),
        };
        let check = |sig: i32| {
            if (0..=64).contains(&sig) {
                Ok(())
            } else {
                Err(Errno::EINVAL)
            }
        };
        let r = match target {
            KillTarget::Group(t) => {
                check(sig)?;
                if !self.may_kill_by(cur, t, sig) {
                    return Err(Errno::EPERM);
                }
                // One target: nothing runs between the check and the send,
                // so the sender's identity is taken only for a real signal.
                if sig != 0 {
                    let who = self.killer(cur);
                    self.send_user_signal(&who, t, sig, PidType::Tgid, None)?;
                }
                Ok(())
            }
            KillTarget::Pgrp(pgrp) => {
                let who = self.killer(cur);
                let members =
                    list::collect(self.pids[pgrp].pgrp_members, &self.groups, |g| &g.pgrp_node);
                if members.is_empty() {
                    return Err(Errno::ESRCH);
                }
                check(sig)?;
                // __kill_pgrp_info(): success if any member took it.
                let mut sent = false;
                for g in members {
                    // An earlier member's death may have reaped a later one
                    // (a zombie child reparented to a parent that ignores
                    // SIGCHLD); Linux would have signalled it as a zombie,
                    // to no effect. Nothing is created meanwhile, so the
                    // slot cannot have been reused.
                    let Some(grp) = self.groups.get(g) else {
                        // Counted as a success, as the reference model does
                        // (its credentials are gone with it).
                        sent = true;
                        continue;
                    };
                    let leader = grp.leader;
                    if self.may_kill(&who, leader, sig) {
                        sent = true;
                        self.send_user_signal(&who, leader, sig, PidType::Tgid, None)?;
                    }
                }
                if sent {
                    Ok(())
                } else {
                    Err(Errno::EPERM)
                }
            }
            KillTarget::All => {
                let who = self.killer(cur);
                let cur_group = self.tasks[cur].group;
                let mut targets = Vec::new();
                let mut nr = 2;
                while let Some((found, p)) = self.nss[ns].idr.next_tagged(nr, crate::pid::TAG_TGID)
                {
                    nr = found + 1;
                    let g = self.pids[PidIx::from_idr(p)].tgid_group;
                    if let Some(g) = g.filter(|&g| g != cur_group) {
                        targets.push(self.groups[g].leader);
                    }
                }
                if targets.is_empty() {
                    return Err(Errno::ESRCH);
                }
                check(sig)?;
                // kill(-1) ignores EPERM (it counts the process anyway).
                for t in targets {
                    if self.tasks.contains(t) && self.may_kill(&who, t, sig) {
                        self.send_user_signal(&who, t, sig, PidType::Tgid, None)?;
                    }
                }
                Ok(())
            }
        };
        self.run_deferred();
        r
    }

    /// `tgkill(tgid, tid, sig)`: signal thread `tid` if it belongs to thread
    /// group `tgid`.
    ///
    /// # Errors
    /// - `EINVAL`: `tgid <= 0` or `tid <= 0`; `sig` outside 0..=64.
    /// - `ESRCH`: `current` stale; no such thread in that group.
    /// - `EPERM`: the caller may not signal that thread (as [`Kernel::kill`]).
    ///
    /// # Linux
    /// `do_tkill()` (kernel/signal.c).
    pub fn tgkill(
        &mut self,
        current: TaskId,
        tgid: i32,
        tid: i32,
        sig: impl Into<i32>,
    ) -> Result<()> {
        let sig = sig.into();
        self.probed(crate::probe::Op::Tgkill, current, |k| {
            k.do_sys_tgkill(current, tgid, tid, sig)
        })
    }

    fn do_sys_tgkill(&mut self, current: TaskId, tgid: i32, tid: i32, sig: i32) -> Result<()> {
        crate::rules::tgkill_ids(tgid, tid)?;
        self.do_tkill(current, tgid, tid, sig)
    }

    /// `tkill(tid, sig)`: signal thread `tid`.
    ///
    /// # Errors
    /// - `EINVAL`: `tid <= 0`; `sig` outside 0..=64.
    /// - `ESRCH`: `current` stale; no such thread.
    /// - `EPERM`: the caller may not signal that thread (as [`Kernel::kill`]).
    ///
    /// # Linux
    /// `do_tkill()` with `tgid = 0` (kernel/signal.c).
    pub fn tkill(&mut self, current: TaskId, tid: i32, sig: impl Into<i32>) -> Result<()> {
        let sig = sig.into();
        self.probed(crate::probe::Op::Tkill, current, |k| {
            k.do_sys_tkill(current, tid, sig)
        })
    }

    fn do_sys_tkill(&mut self, current: TaskId, tid: i32, sig: i32) -> Result<()> {
        crate::rules::tkill_tid(tid)?;
        self.do_tkill(current, 0, tid, sig)
    }

    fn do_tkill(&mut self, current: TaskId, tgid: i32, tid: i32, sig: i32) -> Result<()> {
        let cur = self.current(current)?;
        let ns = self.ns_of(cur);
        let t = self.find_task(ns, tid).ok_or(Errno::ESRCH)?;
        if tgid > 0 && self.pid_nr_ns(self.tasks[self.leader_of(t)].pid, ns) != tgid {
            return Err(Errno::ESRCH);
        }
        if !(0..=64).contains(&sig) {
            return Err(Errno::EINVAL);
        }
        if !self.may_kill_by(cur, t, sig) {
            return Err(Errno::EPERM);
        }
        // do_send_specific(): queued on the thread itself (PIDTYPE_PID). An
        // exiting thread never takes it (wants_signal()), SIGKILL included;
        // only prepare_signal()'s group-wide effect of SIGCONT remains. A
        // zombie thread (a leader that exited while other threads run)
        // takes nothing at all, SIGCONT's effect included
        // (tests/oracle/pidfd_leader.out, tgkill_sigcont_zombie_leader).
        let r = if sig == 0 || self.tasks[t].exit_state() != ExitState::Alive {
            Ok(())
        } else {
            let who = self.killer(cur);
            self.send_user_signal(&who, t, sig, PidType::Pid, None)
        };
        self.run_deferred();
        r
    }

    /// Kills task `t`'s group as if `t` took the fatal signal `sig` (a fault
    /// such as SIGSEGV), whatever its disposition; `core_dumped` sets the
    /// 0x80 bit of the status.
    ///
    /// # Errors
    /// `ESRCH` if `t` is stale or exiting; `EINVAL` if `sig` is not 1..=64.
    ///
    /// # Linux
    /// `force_sig_fault()` of an unhandled fault, then `do_group_exit()`.
    pub fn force_fatal_signal(&mut self, t: TaskId, sig: i32, core_dumped: bool) -> Result<()> {
        self.probed(crate::probe::Op::ForceFatalSignal, t, |k| {
            k.do_sys_force_fatal_signal(t, sig, core_dumped)
        })
    }

    fn do_sys_force_fatal_signal(&mut self, t: TaskId, sig: i32, core_dumped: bool) -> Result<()> {
        let t = self.current(t)?;
        if !valid_signal(sig) {
            return Err(Errno::EINVAL);
        }
        let g = self.tasks[t].group;
        if !self.groups[g].flags.get().contains(SIGNAL_GROUP_EXIT) {
            self.set_group_exit_code(g, sig | if core_dumped { 0x80 } else { 0 });
            self.set_group_flags(g, SIGNAL_GROUP_EXIT);
        }
        let code = self.groups[g].group_exit_code.get();
        let others = self.threads(g);
        if !self.ptrace_exit_event(t, code) {
            self.do_exit(t, code);
        }
        self.exit_threads(&others, g, code);
        self.run_deferred();
        Ok(())
    }

    /// A SIGKILL that overtook the exit of `t`'s group: the group's status
    /// becomes SIGKILL's (status word 9, `CLD_KILLED`), for its waiters
    /// and its parent's SIGCHLD, where the group already exited (every
    /// thread exiting or a zombie, not reaped) with another status. For a
    /// caller that applied an exit ahead of the real kernel (a tracer that
    /// ends a group at its `exit_group` entry or at a fatal signal's
    /// delivery stop) and learns from the real death that a SIGKILL came
    /// first. Nothing else changes: no signal is queued, no thread wakes.
    /// Returns whether the status changed (`false`: it was SIGKILL's).
    ///
    /// # Errors
    /// `ESRCH` if `t` is stale (reaped); `EBUSY` if a thread of its group
    /// is not exiting (the SIGKILL kills it: send it instead).
    ///
    /// # Linux
    /// `complete_signal()` of a SIGKILL sent before the group's
    /// `do_group_exit()`: `signal->flags = SIGNAL_GROUP_EXIT`,
    /// `signal->group_exit_code = SIGKILL`, which `do_group_exit()` then
    /// passes to every thread's `do_exit()` (its `exit_code`), and which
    /// `wait_task_zombie()` reports.
    pub fn sigkill_overtook_exit(&mut self, t: TaskId) -> Result<bool> {
        let t = self.task_idx(t)?;
        let g = self.tasks[t].group;
        let threads = self.threads(g);
        if threads
            .iter()
            .any(|&u| !self.tasks[u].flags.contains(PF_EXITING))
        {
            return Err(Errno::EBUSY);
        }
        let changed = !self.groups[g].flags.get().contains(SIGNAL_GROUP_EXIT)
            || self.groups[g].group_exit_code.get() != SIGKILL
            || threads.iter().any(|&u| self.tasks[u].exit_code != SIGKILL);
        if !changed {
            return Ok(false);
        }
        self.set_group_exit_code(g, SIGKILL);
        self.set_group_flags(g, SIGNAL_GROUP_EXIT);
        for u in threads {
            self.tasks[u].exit_code = SIGKILL;
        }
        self.run_deferred();
        Ok(true)
    }

    /// Sends `sig` to the thread group of `target` from outside the emulated
    /// system (the kernel, a terminal, an untraced process): Linux's
    /// `SEND_SIG_PRIV`. 0 only checks that `target` exists.
    ///
    /// # Errors
    /// `ESRCH` if `target` is stale or has exited; `EINVAL` if `sig` is
    /// outside 0..=64.
    ///
    /// # Linux
    /// `group_send_sig_info(sig, SEND_SIG_PRIV, target, PIDTYPE_TGID)`.
    pub fn send_signal(&mut self, target: TaskId, sig: impl Into<i32>) -> Result<()> {
        let sig = sig.into();
        self.probed(crate::probe::Op::SendSignal, target, |k| {
            k.do_sys_send_signal(target, sig)
        })
    }

    fn do_sys_send_signal(&mut self, target: TaskId, sig: i32) -> Result<()> {
        let t = self.task_idx(target)?;
        if self.tasks[t].exit_state() != ExitState::Alive {
            return Err(Errno::ESRCH);
        }
        if !(0..=64).contains(&sig) {
            return Err(Errno::EINVAL);
        }
        let r = self.send_signal_locked(t, sig, SendInfo::Priv, PidType::Tgid, true);
        self.run_deferred();
        r
    }

    /// What `check_kill_permission()` needs of the sender, taken before the
    /// first delivery (the sender may die half-way through a group).
    pub(crate) fn killer(&self, cur: TaskIx) -> Killer {
        let g = self.tasks[cur].group;
        let c = &self.tasks[cur].cred;
        let uid_vnr = self.kuid_munged(c.user_ns.0, c.uid);
        Killer {
            cred: self.tasks[cur].cred.clone(),
            group: g,
            session: self.groups[g].session,
            tgid_vnr: self.pid_nr_ns(self.tasks[self.groups[g].leader].pid, self.ns_of(cur)),
            last: self.pids[self.tasks[cur].pid].numbers.last(),
            // A copy: the sender may be reaped before the signal is sent.
            upper: self.pid_upper(self.tasks[cur].pid).map(Box::from),
            uid_vnr,
            uid_back: self.make_kuid(c.user_ns.0, uid_vnr),
        }
    }

    /// `check_kill_permission()` for a valid `sig` from a user: the same
    /// thread group, `kill_ok_by_cred()`, or SIGCONT within the sender's
    /// session.
    pub(crate) fn may_kill(&self, who: &Killer, t: TaskIx, sig: i32) -> bool {
        self.may_kill_as(who.group, who.session, &who.cred, t, sig)
    }

    /// [`Self::may_kill`] for live sender thread `cur`, read in place (no
    /// [`Killer`] taken: for a single target, checked just before the send).
    pub(crate) fn may_kill_by(&self, cur: TaskIx, t: TaskIx, sig: i32) -> bool {
        let g = self.tasks[cur].group;
        self.may_kill_as(g, self.groups[g].session, &self.tasks[cur].cred, t, sig)
    }

    fn may_kill_as(
        &self,
        group: GroupIx,
        session: PidIx,
        cred: &crate::task::state::cred_struct::Cred,
        t: TaskIx,
        sig: i32,
    ) -> bool {
        let g = self.tasks[t].group;
        // kill_ok_by_cred(): the same user, or CAP_KILL over the target's
        // user namespace. A sender reaped half-way through a group may
        // have taken its namespace with it: then no target left is in it
        // or below it, where its capabilities were.
        let tcred = &self.tasks[t].cred;
        let caps = self.userns.contains(cred.user_ns.0)
            && self.ns_capable_cred(
                cred,
                tcred.user_ns.0,
                crate::task::state::capability::CAP_KILL,
            );
        g == group
            || cred.same_user_as(tcred)
            || caps
            || (sig == SIGCONT && self.groups[g].session == session)
    }

    /// Sends `sig` from the user task `who` to task `t`, queued on the
    /// thread (`PidType::Pid`, `tkill`) or its process (`kill`), with the
    /// caller's own siginfo (`sigqueue`-style, `pidfd_send_signal`) or the
    /// one `prepare_kill_siginfo()` builds.
    ///
    /// `who` is taken before the first delivery: a `kill(0, ...)` may kill
    /// and reap the sender itself half-way through its process group, and
    /// Linux goes on signalling the rest.
    ///
    /// # Errors
    /// `EAGAIN` as [`Kernel::send_signal_locked`].
    pub(crate) fn send_user_signal(
        &mut self,
        who: &Killer,
        t: TaskIx,
        sig: i32,
        ty: PidType,
        own: Option<SigInfo>,
    ) -> Result<()> {
        if sig == 0 {
            return Ok(());
        }
        // send_signal_locked(): a sender with no number in the target's
        // namespace (an ancestor namespace) is shown as pid 0, and its
        // SIGKILL/SIGSTOP reach a namespace init.
        let ns = self.ns_of(t);
        let force = !(who.last.ns == ns
            || who
                .upper
                .as_deref()
                .is_some_and(|v| nr_at(v, self.nss[ns].level, ns).is_some()));
        let mut info = own.unwrap_or(SigInfo {
            signo: sig,
            code: if ty == PidType::Pid {
                SI_TKILL
            } else {
                SI_USER
            },
            pid: who.tgid_vnr,
            uid: who.cred.uid,
            status: 0,
            value: 0,
        });
        if force {
            info.pid = 0;
        }
        // prepare_kill_siginfo() writes the sender's uid as its namespace
        // sees it; userns_fixup_signal_uid() shows that one (or a
        // siginfo's own) in the target's namespace. A sender reaped
        // half-way through a group may have taken its namespace with it:
        // its kernel uid is shown then.
        let sender_ns = who.cred.user_ns.0;
        let t_ns = self.tasks[t].cred.user_ns.0;
        if sender_ns != t_ns && info.code <= 0 {
            let kuid = match own {
                None => who.uid_back,
                // A caller's own siginfo: its si_uid read in the sender's
                // namespace (alive: the sender is running this call).
                Some(_) => self
                    .userns
                    .get(sender_ns)
                    .and_then(|_| self.make_kuid(sender_ns, info.uid)),
            };
            info.uid = self.kuid_munged(t_ns, kuid.unwrap_or(u32::MAX));
        } else if own.is_none() {
            info.uid = who.uid_vnr;
        }
        self.send_signal_locked(t, sig, SendInfo::Info(info), ty, force)
    }
}

#[cfg(test)]
mod tests {
    use crate::errno::Errno;
    use crate::task::kernel::{Config, Kernel};
    use crate::uapi::{__WALL, SIGKILL, SIGTERM, WNOHANG};
    use crate::WaitOutcome;

    /// A traced child of a child of init exits (its tracer, init, holds
    /// its zombie); a SIGKILL overtook that exit: its parent's wait, once
    /// the tracer reaped it, reports SIGKILL, not the exit code.
    #[test]
    fn a_sigkill_that_overtook_an_exit_decides_the_status() {
        for sig_first in [false, true] {
            let mut k = Kernel::new(Config::default()).unwrap();
            let init = k.init_task().unwrap();
            let p = k.fork(init).unwrap();
            let c = k.fork(p).unwrap();
            let vc = k.getpid(c).unwrap();
            // A live group: the SIGKILL would kill it, not overtake.
            assert_eq!(k.sigkill_overtook_exit(c), Err(Errno::EBUSY));
            k.ptrace_attach(init, vc, true).unwrap();
            if sig_first {
                // A fatal signal's death, as at its delivery stop.
                k.force_fatal_signal(c, SIGTERM, false).unwrap();
            } else {
                k.exit_group(c, 3).unwrap();
            }
            assert_eq!(k.sigkill_overtook_exit(c), Ok(true));
            assert_eq!(k.sigkill_overtook_exit(c), Ok(false));
            // The tracer's reap hands the zombie to its parent.
            let r = k.wait4(init, vc, WNOHANG | __WALL).unwrap();
            assert!(matches!(r, WaitOutcome::Reported(w) if w.status == SIGKILL));
            match k.wait4(p, vc, 0).unwrap() {
                WaitOutcome::Reported(w) => {
                    assert_eq!(w.status, SIGKILL);
                    assert_eq!(w.info.status, SIGKILL);
                }
                o => panic!("{o:?}"),
            }
            assert_eq!(k.sigkill_overtook_exit(c), Err(Errno::ESRCH));
        }
    }
}
