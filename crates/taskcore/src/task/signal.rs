//! Signals as far as the process lifecycle needs them: dispositions,
//! `kill`/`tgkill`/`tkill`, job-control stop and continue, and death by
//! signal.
//!
//! Delivery is immediate: a signal's default action (stop, continue,
//! terminate) takes effect when it is sent, as it does on Linux once the
//! target runs. Handlers are not run here; a handled signal has no effect
//! on the process table. Signal masks and queues are not modelled.
//!
//! # Linux
//! kernel/signal.c: `prepare_signal`, `complete_signal`, `sig_ignored`,
//! `do_signal_stop`, `do_notify_parent_cldstop`, `kill_something_info`,
//! `do_tkill`, `do_sigaction`; include/linux/signal.h for default actions.

use crate::errno::{Errno, Result};
use crate::list;
use crate::pid::entry::Numbers;
use crate::slab::NONE;
use crate::task::kernel::{Kernel, Notification, SigInfo, TaskId};
use crate::task::task_struct::{
    ExitState, SigHand, PF_EXITING, PF_TRACED_STOP, SIGNAL_GROUP_EXIT, SIGNAL_STOP_CONTINUED,
    SIGNAL_STOP_STOPPED, SIGNAL_UNKILLABLE,
};
use crate::uapi::{
    sig_kernel_coredump, sig_kernel_ignore, sig_kernel_only, sig_kernel_stop, valid_signal,
    CLD_CONTINUED, CLD_STOPPED, CLD_TRAPPED, SA_NOCLDSTOP, SA_NOCLDWAIT, SA_RESETHAND, SIGCHLD,
    SIGCONT, SIGKILL, SIGSTOP,
};

/// A signal's handler as `rt_sigaction` sets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SigHandler {
    /// `SIG_DFL`: the default action.
    Default,
    /// `SIG_IGN`: discard the signal.
    Ignore,
    /// A user handler (its address is not kept).
    Handler,
}

/// A signal action (`struct sigaction`, lifecycle part).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SigAction {
    /// The handler.
    pub handler: SigHandler,
    /// `SA_*` flags. Only `SA_NOCLDSTOP`, `SA_NOCLDWAIT` (for SIGCHLD) and
    /// `SA_RESETHAND` have effects here, and only those are reported back.
    pub flags: u64,
}

impl SigAction {
    /// `SIG_DFL` with no flags.
    pub const DEFAULT: SigAction = SigAction {
        handler: SigHandler::Default,
        flags: 0,
    };
}

/// Signals dequeued before the others (`SYNCHRONOUS_MASK`, kernel/signal.c):
/// SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGSYS (bit `sig - 1`).
const SYNCHRONOUS_MASK: u64 = (1 << 10) | (1 << 6) | (1 << 3) | (1 << 4) | (1 << 7) | (1 << 30);

/// Where a `kill` is aimed, resolved.
enum KillTarget {
    Group(u32),
    Pgrp(u32),
    All,
}

/// The sender of a user signal, as `check_kill_permission()` sees it.
struct Killer {
    cred: crate::task::cred::Cred,
    group: u32,
    session: u32,
}

impl Kernel {
    /// `rt_sigaction(sig, act, oldact)`: returns the old action of `sig` in
    /// `current`'s thread group and, with `act`, installs a new one.
    ///
    /// # Errors
    /// - `ESRCH`: `current` is stale or exiting.
    /// - `EINVAL`: `sig` outside 1..=64, or an action for SIGKILL or
    ///   SIGSTOP.
    ///
    /// # Linux
    /// `do_sigaction()` (kernel/signal.c). Dispositions are shared by the
    /// thread group and inherited by fork; see [`Kernel::execve`] for exec.
    pub fn rt_sigaction(
        &mut self,
        current: TaskId,
        sig: i32,
        act: Option<SigAction>,
    ) -> Result<SigAction> {
        self.probed(crate::probe::Op::RtSigaction, current, |k| {
            k.do_sys_rt_sigaction(current, sig, act)
        })
    }

    fn do_sys_rt_sigaction(
        &mut self,
        current: TaskId,
        sig: i32,
        act: Option<SigAction>,
    ) -> Result<SigAction> {
        let t = self.current(current)?;
        if !valid_signal(sig) || (act.is_some() && sig_kernel_only(sig)) {
            return Err(Errno::EINVAL);
        }
        let g = self.tasks[t].group;
        let sh = &mut self.groups[g].sighand;
        let bit = SigHand::bit(sig);
        let handler = if sh.ignored & bit != 0 {
            SigHandler::Ignore
        } else if sh.handled & bit != 0 {
            SigHandler::Handler
        } else {
            SigHandler::Default
        };
        let mut flags = if sh.resethand & bit != 0 {
            SA_RESETHAND
        } else {
            0
        };
        if sig == SIGCHLD {
            flags |= sh.chld_flags;
        }
        let old = SigAction { handler, flags };
        if let Some(a) = act {
            sh.ignored &= !bit;
            sh.handled &= !bit;
            sh.resethand &= !bit;
            match a.handler {
                SigHandler::Ignore => sh.ignored |= bit,
                SigHandler::Handler => {
                    sh.handled |= bit;
                    if a.flags & SA_RESETHAND != 0 {
                        sh.resethand |= bit;
                    }
                }
                SigHandler::Default => {}
            }
            if sig == SIGCHLD {
                sh.chld_flags = a.flags & (SA_NOCLDSTOP | SA_NOCLDWAIT);
            }
        }
        Ok(old)
    }

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
    ///   group, none of its members): see [`crate::Cred`]; SIGCONT is
    ///   allowed within the caller's session. `kill(-1)` skips the processes
    ///   it may not signal.
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
        let sender = self.pids[self.tasks[cur].pid].numbers.clone();
        let who = self.killer(cur);
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
                if !self.may_kill(&who, t, sig) {
                    return Err(Errno::EPERM);
                }
                self.send_to_group(&sender, t, sig, false);
                Ok(())
            }
            KillTarget::Pgrp(pgrp) => {
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
                        self.send_to_group(&sender, leader, sig, false);
                    }
                }
                if sent {
                    Ok(())
                } else {
                    Err(Errno::EPERM)
                }
            }
            KillTarget::All => {
                let cur_group = self.tasks[cur].group;
                let mut targets = Vec::new();
                let mut nr = 2;
                while let Some((found, p)) = self.nss[ns].idr.next_tagged(nr, crate::pid::TAG_TGID)
                {
                    nr = found + 1;
                    let g = self.pids[p].tgid_group;
                    if g != NONE && g != cur_group {
                        targets.push(self.groups[g].leader);
                    }
                }
                if targets.is_empty() {
                    return Err(Errno::ESRCH);
                }
                check(sig)?;
                // kill(-1) ignores EPERM (it counts the process anyway).
                for t in targets {
                    if self.tasks.get(t).is_some() && self.may_kill(&who, t, sig) {
                        self.send_to_group(&sender, t, sig, false);
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
        if tgid <= 0 || tid <= 0 {
            return Err(Errno::EINVAL);
        }
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
        if tid <= 0 {
            return Err(Errno::EINVAL);
        }
        self.do_tkill(current, 0, tid, sig)
    }

    fn do_tkill(&mut self, current: TaskId, tgid: i32, tid: i32, sig: i32) -> Result<()> {
        let cur = self.current(current)?;
        let ns = self.ns_of(cur);
        let sender = self.pids[self.tasks[cur].pid].numbers.clone();
        let t = self.find_task(ns, tid).ok_or(Errno::ESRCH)?;
        if tgid > 0 && self.pid_nr_ns(self.tasks[self.leader_of(t)].pid, ns) != tgid {
            return Err(Errno::ESRCH);
        }
        if !(0..=64).contains(&sig) {
            return Err(Errno::EINVAL);
        }
        let who = self.killer(cur);
        if !self.may_kill(&who, t, sig) {
            return Err(Errno::EPERM);
        }
        if sig != 0 && self.tasks[t].flags & PF_EXITING != 0 {
            // do_send_specific() queues the signal on the thread itself
            // (PIDTYPE_PID) and complete_signal() finds that an exiting
            // thread does not want it (wants_signal()): nobody ever takes
            // it, SIGKILL included. Only prepare_signal()'s group-wide
            // effect of SIGCONT remains.
            let g = self.tasks[t].group;
            let grp = &self.groups[g];
            if sig == SIGCONT && grp.live != 0 && grp.flags & SIGNAL_GROUP_EXIT == 0 {
                self.prepare_sigcont(g);
            }
        } else {
            self.send_to_group(&sender, t, sig, true);
        }
        self.run_deferred();
        Ok(())
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
        if self.groups[g].flags & SIGNAL_GROUP_EXIT == 0 {
            self.groups[g].group_exit_code = sig | if core_dumped { 0x80 } else { 0 };
            self.set_group_flags(g, SIGNAL_GROUP_EXIT);
        }
        let code = self.groups[g].group_exit_code;
        let others = self.threads(g);
        self.do_exit(t, code);
        self.exit_threads(&others, g, code);
        self.run_deferred();
        Ok(())
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
        if self.tasks[t].exit_state != ExitState::Alive {
            return Err(Errno::ESRCH);
        }
        if !(0..=64).contains(&sig) {
            return Err(Errno::EINVAL);
        }
        if sig != 0 {
            self.deliver_group_signal(t, sig, true, false);
        }
        self.run_deferred();
        Ok(())
    }

    /// What `check_kill_permission()` needs of the sender, taken before the
    /// first delivery (the sender may die half-way through a group).
    fn killer(&self, cur: u32) -> Killer {
        let g = self.tasks[cur].group;
        Killer {
            cred: self.tasks[cur].cred.clone(),
            group: g,
            session: self.groups[g].session,
        }
    }

    /// `check_kill_permission()` for a valid `sig` from a user: the same
    /// thread group, `kill_ok_by_cred()`, or SIGCONT within the sender's
    /// session.
    fn may_kill(&self, who: &Killer, t: u32, sig: i32) -> bool {
        let g = self.tasks[t].group;
        g == who.group
            || who.cred.may_signal(&self.tasks[t].cred)
            || (sig == SIGCONT && {
                let sid = self.groups[g].session;
                sid == NONE || sid == who.session
            })
    }

    /// Sends `sig` from `sender` to the group of task `t`.
    ///
    /// `sender` is the sender's pid numbers, taken before the first
    /// delivery: a `kill(0, ...)` may kill and reap the sender itself
    /// half-way through its process group, and Linux goes on signalling the
    /// rest.
    fn send_to_group(&mut self, sender: &Numbers, t: u32, sig: i32, thread_directed: bool) {
        if sig == 0 {
            return;
        }
        // send_signal_locked(): forced (SIGKILL/SIGSTOP reach a namespace
        // init) when the sender has no number in the target's namespace,
        // i.e. it lives in an ancestor namespace.
        let ns = self.ns_of(t);
        let force = sender.nr_in(ns, self.nss[ns].level).is_none();
        self.deliver_group_signal(t, sig, force, thread_directed);
    }

    /// `group_send_sig_info()` with the default action applied at once.
    /// `t` is the task the signal was aimed at (it takes the signal if it
    /// can, else another thread does unless `thread_directed`, as `tkill`'s
    /// `PIDTYPE_PID`); `force` lets SIGKILL/SIGSTOP through to a namespace
    /// init.
    pub(crate) fn deliver_group_signal(
        &mut self,
        t: u32,
        sig: i32,
        force: bool,
        thread_directed: bool,
    ) {
        let g = self.tasks[t].group;
        let grp = &self.groups[g];
        if grp.live == 0 || grp.flags & SIGNAL_GROUP_EXIT != 0 {
            // The process is dead or in the middle of dying: drop it.
            return;
        }
        let sh = grp.sighand;
        let handler_dfl = !sh.is_ignored(sig) && !sh.is_handled(sig);
        // prepare_signal(): SIGCONT resumes a stopped group whatever its
        // disposition; stop signals flush pending SIGCONT (not modelled).
        if sig == SIGCONT && self.prepare_sigcont(g) {
            return;
        }
        // sig_ignored(): a tracer may want to know about any signal but
        // SIGKILL, so for a traced target none is ignored here. Otherwise
        // sig_task_ignored(): SIGKILL and SIGSTOP never reach the global
        // init, and a namespace init only gets signals it handles.
        if self.tasks[t].ptrace == 0 || sig == SIGKILL {
            if self.is_global_init(t) && sig_kernel_only(sig) {
                return;
            }
            if self.groups[g].flags & SIGNAL_UNKILLABLE != 0
                && handler_dfl
                && !(force && sig_kernel_only(sig))
            {
                return;
            }
            // sig_handler_ignored(): dropped, even if another thread of the
            // group is traced.
            if sh.is_ignored(sig) || (handler_dfl && sig_kernel_ignore(sig)) {
                return;
            }
        }
        if sig == SIGKILL {
            self.kill_group(g, SIGKILL);
            return;
        }
        // complete_signal(): the thread aimed at takes the signal if it can
        // (wants_signal()), else, for a group-directed signal, the first
        // thread of the group that can. A thread cannot while exiting, in a
        // ptrace stop, or stopped with its group (untraced).
        let stopped = self.groups[g].flags & SIGNAL_STOP_STOPPED != 0;
        let can_take = |k: &Kernel, x: u32| {
            let task = &k.tasks[x];
            task.flags & (PF_EXITING | PF_TRACED_STOP) == 0 && !(stopped && task.ptrace == 0)
        };
        let taker = if can_take(self, t) {
            t
        } else if thread_directed {
            NONE
        } else {
            self.threads(g)
                .into_iter()
                .find(|&x| can_take(self, x))
                .unwrap_or(NONE)
        };
        let sh = self.groups[g].sighand;
        let fatal = !sh.is_ignored(sig)
            && !sh.is_handled(sig)
            && !sig_kernel_ignore(sig)
            && !sig_kernel_stop(sig);
        if taker == NONE {
            // Nobody can take it now; Linux keeps it pending until a thread
            // can. We keep only a stopped group's fatal signals (SIGCONT
            // wakes the group and they kill it); other pending signals are
            // not modelled and are lost.
            if fatal && stopped {
                if thread_directed {
                    self.tasks[t].pending_fatal |= SigHand::bit(sig);
                } else {
                    self.groups[g].pending_fatal |= SigHand::bit(sig);
                }
            }
            return;
        }
        // A fatal signal aimed at an untraced thread takes the group down at
        // once (a core-dumping one only once dequeued, by the taker). Any
        // other signal is dequeued by the taker, which, if traced, stops and
        // reports it to its tracer instead (signal-delivery-stop).
        let fast = fatal
            && self.tasks[t].ptrace == 0
            && !(sig_kernel_coredump(sig) && self.tasks[taker].ptrace != 0);
        if !fast && self.tasks[taker].ptrace != 0 {
            self.ptrace_trap(taker, sig);
            return;
        }
        self.apply_disposition(g, sig);
    }

    /// `prepare_signal()` for SIGCONT: a stopped group `g` resumes and its
    /// parent is told; a fatal signal kept pending while it was stopped then
    /// kills it. Returns whether the group died.
    fn prepare_sigcont(&mut self, g: u32) -> bool {
        if self.groups[g].flags & SIGNAL_STOP_STOPPED == 0 {
            return false;
        }
        self.groups[g].group_exit_code = 0;
        self.set_group_flags(
            g,
            (self.groups[g].flags & !SIGNAL_STOP_STOPPED) | SIGNAL_STOP_CONTINUED,
        );
        let group = self.handle_unchecked(self.groups[g].leader);
        self.notify(Notification::Continued { group });
        self.notify_parent_cldstop(g, CLD_CONTINUED);
        // The woken threads dequeue what was kept pending.
        self.dequeue_pending_fatal(g, NONE)
    }

    /// Threads running again take the fatal signals kept pending for them
    /// (`Task::pending_fatal`, first) and for group `g`: synchronous ones
    /// first, then by number (`dequeue_signal()`, `next_signal()`).
    /// Untraced, a thread dies of the first (init ignores all but SIGKILL
    /// and SIGSTOP); traced, it stops for its tracer with it
    /// (signal-delivery-stop). `taker` is the thread that resumed, or `NONE`
    /// for every thread of the group that can run, in order (after
    /// SIGCONT); threads in a ptrace stop cannot. Returns whether the group
    /// died.
    pub(crate) fn dequeue_pending_fatal(&mut self, g: u32, taker: u32) -> bool {
        let candidates = if taker != NONE {
            vec![taker]
        } else {
            self.threads(g)
        };
        for x in candidates {
            if self.groups[g].flags & SIGNAL_GROUP_EXIT != 0 {
                return false;
            }
            let stopped = self.groups[g].flags & SIGNAL_STOP_STOPPED != 0;
            let task = &self.tasks[x];
            if task.flags & (PF_EXITING | PF_TRACED_STOP) != 0 || (stopped && task.ptrace == 0) {
                continue;
            }
            loop {
                let sh = self.groups[g].sighand;
                let live = !(sh.ignored | sh.handled);
                let own = self.tasks[x].pending_fatal & live;
                let shared = self.groups[g].pending_fatal & live;
                let mut next = if own != 0 { own } else { shared };
                if next == 0 {
                    break;
                }
                if next & SYNCHRONOUS_MASK != 0 {
                    next &= SYNCHRONOUS_MASK;
                }
                let sig = next.trailing_zeros() as i32 + 1;
                if own != 0 {
                    self.tasks[x].pending_fatal &= !SigHand::bit(sig);
                } else {
                    self.groups[g].pending_fatal &= !SigHand::bit(sig);
                }
                if self.tasks[x].ptrace != 0 {
                    self.ptrace_trap(x, sig);
                    break;
                }
                // get_signal(): init gets no signal it does not want.
                if self.groups[g].flags & SIGNAL_UNKILLABLE != 0 && !sig_kernel_only(sig) {
                    continue;
                }
                let core = sig_kernel_coredump(sig) && self.dumps_core(g);
                self.kill_group(g, sig | if core { 0x80 } else { 0 });
                return true;
            }
        }
        false
    }

    /// Acts on `sig` for group `g` by its disposition, bypassing ptrace.
    pub(crate) fn apply_disposition(&mut self, g: u32, sig: i32) {
        let sh = self.groups[g].sighand;
        if sig == SIGKILL {
            self.kill_group(g, SIGKILL);
            return;
        }
        if sh.is_ignored(sig) {
            return;
        }
        if sh.is_handled(sig) {
            if sh.resethand & SigHand::bit(sig) != 0 {
                let s = &mut self.groups[g].sighand;
                s.handled &= !SigHand::bit(sig);
                s.resethand &= !SigHand::bit(sig);
            }
            return;
        }
        if sig_kernel_ignore(sig) {
            return;
        }
        // get_signal(): init gets no signal it does not want, even one a
        // tracer passes on, but SIGKILL/SIGSTOP from an ancestor namespace.
        if self.groups[g].flags & SIGNAL_UNKILLABLE != 0 && !sig_kernel_only(sig) {
            return;
        }
        if sig_kernel_stop(sig) {
            // Terminal stops are discarded in an orphaned process group.
            if sig != SIGSTOP && self.will_become_orphaned_pgrp(self.groups[g].pgrp, NONE) {
                return;
            }
            self.do_signal_stop(g, sig);
            return;
        }
        let core = sig_kernel_coredump(sig) && self.dumps_core(g);
        self.kill_group(g, sig | if core { 0x80 } else { 0 });
    }

    /// `do_signal_stop()`: the group stops with `sig` and its parent is
    /// told; traced threads report the stop to their tracer.
    fn do_signal_stop(&mut self, g: u32, sig: i32) {
        if self.groups[g].flags & (SIGNAL_STOP_STOPPED | SIGNAL_GROUP_EXIT) != 0 {
            return;
        }
        self.groups[g].group_exit_code = sig;
        self.groups[g].stop_sig = sig;
        self.set_group_flags(
            g,
            (self.groups[g].flags & !SIGNAL_STOP_CONTINUED) | SIGNAL_STOP_STOPPED,
        );
        let group = self.handle_unchecked(self.groups[g].leader);
        self.notify(Notification::Stopped { group, sig });
        if self.groups[g].nr_traced > 0 {
            for t in self.threads(g) {
                let task = &self.tasks[t];
                if task.ptrace != 0
                    && task.exit_state == ExitState::Alive
                    && task.flags & PF_TRACED_STOP == 0
                {
                    self.ptrace_trap(t, sig);
                }
            }
        }
        self.notify_parent_cldstop(g, CLD_STOPPED);
    }

    /// `do_notify_parent_cldstop(tsk, false, why)`: SIGCHLD (unless
    /// `SA_NOCLDSTOP` or ignored) and a wake-up to the real parent.
    fn notify_parent_cldstop(&mut self, g: u32, why: i32) {
        let parent = self.groups[g].real_parent;
        if parent == NONE {
            return;
        }
        let leader = self.groups[g].leader;
        let status = if why == CLD_CONTINUED {
            SIGCONT
        } else {
            self.groups[g].group_exit_code & 0x7f
        };
        let info = SigInfo {
            signo: SIGCHLD,
            code: why,
            pid: self.pid_nr_ns(self.tasks[leader].pid, self.ns_of(parent)),
            uid: self.tasks[leader].cred.uid,
            status,
        };
        let psig = self.groups[self.tasks[parent].group].sighand;
        if !psig.is_ignored(SIGCHLD) && !psig.nocldstop() {
            self.send_kernel_signal(parent, SIGCHLD, info);
        }
        self.wake_parent(parent);
    }

    /// Puts traced task `t` in a ptrace stop reporting `sig` to its tracer
    /// (`ptrace_stop` + `do_notify_parent_cldstop(t, true, CLD_TRAPPED)`).
    pub(crate) fn ptrace_trap(&mut self, t: u32, sig: i32) {
        let task = &mut self.tasks[t];
        task.flags |= PF_TRACED_STOP;
        task.trap_code = sig;
        let tracer = task.parent;
        self.sync_task(t);
        let info = SigInfo {
            signo: SIGCHLD,
            code: CLD_TRAPPED,
            pid: self.pid_nr_ns(self.tasks[t].pid, self.ns_of(tracer)),
            uid: self.tasks[t].cred.uid,
            status: sig & 0x7f,
        };
        let psig = self.groups[self.tasks[tracer].group].sighand;
        if !psig.is_ignored(SIGCHLD) && !psig.nocldstop() {
            self.send_kernel_signal(tracer, SIGCHLD, info);
        }
        self.wake_parent(tracer);
    }
}
