//! Signals as far as the lifecycle needs them: dispositions, `kill`,
//! `tgkill`, `tkill`, generation (`prepare_signal`, `sig_ignored`,
//! `complete_signal`), dequeueing (`get_signal`), job-control stop and
//! continue, and the ptrace stop a traced task takes instead.
//!
//! A signal no thread can take now (every thread is stopped or in a ptrace
//! stop) stays pending, per thread (`tkill`) or shared, and is dequeued in
//! Linux's order (synchronous signals first, then lowest number) when a
//! thread runs again: after SIGCONT or `PTRACE_CONT`/`PTRACE_DETACH`.
//!
//! # Linux
//! kernel/signal.c: `do_sigaction`, `kill_something_info`,
//! `__kill_pgrp_info`, `do_tkill`, `do_send_specific`,
//! `group_send_sig_info`, `send_signal_locked`, `prepare_signal`,
//! `sig_ignored`, `sig_task_ignored`, `wants_signal`, `complete_signal`,
//! `next_signal`, `get_signal`, `do_signal_stop`,
//! `do_notify_parent_cldstop`, `ptrace_signal`.

use taskcore::uapi::{
    sig_kernel_coredump, sig_kernel_ignore, sig_kernel_only, sig_kernel_stop, CLD_CONTINUED,
    CLD_STOPPED, NSIG, SA_NOCLDSTOP, SA_RESETHAND, SIGBUS, SIGCHLD, SIGCONT, SIGFPE, SIGILL,
    SIGKILL, SIGSEGV, SIGSTOP, SIGSYS, SIGTRAP, SIGTSTP, SIGTTIN, SIGTTOU, UAPI_SA_FLAGS,
};

use crate::cred::Sender;
use crate::ptrace::PTRACE_EVENT_STOP;
use crate::{
    sigbit, Action, Deferred, Errno, ExitState, Model, Result, SigAction, SigHandler, Tid,
    PT_SEIZED, SIGNAL_GROUP_EXIT, SIGNAL_STOP_CONTINUED, SIGNAL_STOP_STOPPED, SIGNAL_UNKILLABLE,
};

/// `SYNCHRONOUS_MASK`: signals dequeued before the others.
fn synchronous_mask() -> u64 {
    [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGSYS]
        .into_iter()
        .map(sigbit)
        .fold(0, |a, b| a | b)
}

/// `SIG_KERNEL_STOP_MASK`.
fn stop_mask() -> u64 {
    [SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU]
        .into_iter()
        .map(sigbit)
        .fold(0, |a, b| a | b)
}

/// `next_signal()`: the pending signal dequeued first.
pub(crate) fn next_signal(pending: u64) -> Option<i32> {
    let mut x = pending;
    if x == 0 {
        return None;
    }
    if x & synchronous_mask() != 0 {
        x &= synchronous_mask();
    }
    Some(x.trailing_zeros() as i32 + 1)
}

/// `sig_handler_ignored()`.
fn sig_handler_ignored(handler: SigHandler, sig: i32) -> bool {
    handler == SigHandler::Ignore || (handler == SigHandler::Default && sig_kernel_ignore(sig))
}

/// What `rt_sigaction` reports of an action: the handler and its flags as
/// stored (`do_sigaction()` keeps only `UAPI_SA_FLAGS`). The model keeps no
/// masks or addresses.
fn reported(a: Action, _sig: i32) -> SigAction {
    SigAction::new(a.handler, a.flags & UAPI_SA_FLAGS)
}

impl Model {
    /// `rt_sigaction(sig, act, oldact)`: the old action of `sig` in the
    /// caller's thread group; installs `act` if given.
    ///
    /// # Errors
    /// `ESRCH` for a stale or exiting caller; `EINVAL` for `sig` outside
    /// 1..=64 or an action for SIGKILL/SIGSTOP.
    ///
    /// # Linux
    /// `do_sigaction()`: setting a disposition that ignores `sig` discards
    /// it from every pending set of the group.
    pub fn rt_sigaction(
        &mut self,
        current: Tid,
        sig: i32,
        act: Option<SigAction>,
    ) -> Result<SigAction> {
        let t = self.current(current)?;
        taskcore::rules::sigaction_sig(sig, act.is_some())?;
        let old = self.sig(t).actions[(sig - 1) as usize];
        if let Some(a) = act {
            self.sig_mut(t).actions[(sig - 1) as usize] = Action {
                handler: a.handler,
                flags: a.flags,
            };
            if sig_handler_ignored(a.handler, sig) {
                self.flush_pending(t, sigbit(sig));
            }
        }
        Ok(reported(old, sig))
    }

    /// `kill(pid, sig)`: `pid > 0` the process of that pid (a thread id
    /// names its process), 0 the caller's process group, -1 every process
    /// the caller can see but its own and its namespace's init, `< -1`
    /// process group `-pid`.
    ///
    /// # Errors
    /// `ESRCH`: stale caller; no such target; `pid == i32::MIN`.
    /// `EINVAL`: `sig` outside 0..=64 (checked per target, after lookup).
    ///
    /// # Linux
    /// `kill_something_info()`.
    pub fn kill(&mut self, current: Tid, pid: i32, sig: i32) -> Result<()> {
        let cur = self.current(current)?;
        let r = self.kill_something_info(cur, pid, sig);
        self.run_deferred();
        r
    }

    fn kill_something_info(&mut self, cur: usize, pid: i32, sig: i32) -> Result<()> {
        let ns = self.ns_of(cur);
        // The sender's numbers, kept: kill(0, ...) may kill and reap the
        // sender half-way through its process group; Linux goes on.
        let sender = self.pid_numbers(self.task(cur).pid);
        let who = self.sender(cur);
        if pid > 0 {
            let p = self.find_task(ns, pid).ok_or(Errno::ESRCH)?;
            return self.group_send_sig_info(&sender, &who, p, sig);
        }
        if pid == i32::MIN {
            return Err(Errno::ESRCH);
        }
        if pid != -1 {
            let pgrp = if pid == 0 {
                Some(self.sig(cur).pgrp)
            } else {
                self.find_pid(ns, -pid)
            };
            let members = pgrp.map(|p| self.pgrp_members(p)).unwrap_or_default();
            let mut ret = Err(Errno::ESRCH);
            for p in members {
                // Linux iterates under tasklist_lock: nothing is released
                // meanwhile. Here earlier deliveries may have reaped a
                // member, which would have ignored the signal.
                let err = if self.exists(p) {
                    self.group_send_sig_info(&sender, &who, p, sig)
                } else {
                    Ok(())
                };
                if ret.is_err() {
                    ret = err;
                }
            }
            return ret;
        }
        // pid == -1: every process with a number > 1 in the caller's
        // namespace but the caller's own (Linux walks for_each_process;
        // delivery order is not observable there; we go by pid).
        let mut targets: Vec<(i32, usize)> = self
            .signals
            .iter()
            .flatten()
            .map(|s| self.task(s.threads[0]).group_leader)
            .filter(|&p| !self.same_thread_group(p, cur))
            .map(|p| (self.pid_nr_ns(self.task(p).pid, ns), p))
            .filter(|&(nr, _)| nr > 1)
            .collect();
        targets.sort_unstable();
        let mut count = 0;
        let mut retval = Ok(());
        for (_, p) in targets {
            let err = if self.exists(p) {
                self.group_send_sig_info(&sender, &who, p, sig)
            } else {
                Ok(())
            };
            count += 1;
            if err != Err(Errno::EPERM) {
                retval = err;
            }
        }
        if count == 0 {
            Err(Errno::ESRCH)
        } else {
            retval
        }
    }

    /// `group_send_sig_info(sig, info, p, PIDTYPE_TGID)` from the task with
    /// pid numbers `sender`.
    fn group_send_sig_info(
        &mut self,
        sender: &[(usize, u32)],
        who: &Sender,
        p: usize,
        sig: i32,
    ) -> Result<()> {
        if !(0..=NSIG).contains(&sig) {
            return Err(Errno::EINVAL);
        }
        if !self.may_kill(who, p, sig) {
            return Err(Errno::EPERM);
        }
        if sig != 0 {
            let force = self.sent_from_ancestor_ns(sender, p);
            self.send_signal(p, sig, force, false);
        }
        Ok(())
    }

    /// `send_signal_locked()`'s `force` for a user signal: the sender has no
    /// number in the target's pid namespace.
    pub(crate) fn sent_from_ancestor_ns(&self, sender: &[(usize, u32)], p: usize) -> bool {
        let ns = self.ns_of(p);
        sender.get(self.nss[ns].level).is_none_or(|&(n, _)| n != ns)
    }

    /// `tgkill(tgid, tid, sig)`.
    ///
    /// # Errors
    /// `EINVAL`: `tgid <= 0`, `tid <= 0`, `sig` outside 0..=64.
    /// `ESRCH`: stale caller; no thread `tid` in group `tgid`.
    ///
    /// # Linux
    /// `do_tkill()` -> `do_send_specific()`: the signal is private to the
    /// thread (`PIDTYPE_PID`).
    pub fn tgkill(&mut self, current: Tid, tgid: i32, tid: i32, sig: i32) -> Result<()> {
        taskcore::rules::tgkill_ids(tgid, tid)?;
        self.do_tkill(current, tgid, tid, sig)
    }

    /// `tkill(tid, sig)`.
    ///
    /// # Errors
    /// `EINVAL`: `tid <= 0`, `sig` outside 0..=64. `ESRCH`: stale caller,
    /// no such thread.
    ///
    /// # Linux
    /// `do_tkill(0, tid, sig)`.
    pub fn tkill(&mut self, current: Tid, tid: i32, sig: i32) -> Result<()> {
        taskcore::rules::tkill_tid(tid)?;
        self.do_tkill(current, 0, tid, sig)
    }

    fn do_tkill(&mut self, current: Tid, tgid: i32, tid: i32, sig: i32) -> Result<()> {
        let cur = self.current(current)?;
        let ns = self.ns_of(cur);
        let p = self.find_task(ns, tid).ok_or(Errno::ESRCH)?;
        if tgid > 0 && self.tgid_nr_ns(p, ns) != tgid {
            return Err(Errno::ESRCH);
        }
        if !(0..=NSIG).contains(&sig) {
            return Err(Errno::EINVAL);
        }
        if !self.may_kill(&self.sender(cur), p, sig) {
            return Err(Errno::EPERM);
        }
        // A zombie thread (an exited leader whose threads run) takes
        // nothing, not even SIGCONT's group-wide continue
        // (tests/oracle/pidfd_leader.out, tgkill_sigcont_zombie_leader).
        if sig != 0 && !self.is_zombie(Tid(p)) {
            let sender = self.pid_numbers(self.task(cur).pid);
            let force = self.sent_from_ancestor_ns(&sender, p);
            self.send_signal(p, sig, force, true);
        }
        self.run_deferred();
        Ok(())
    }

    /// Clears the signals of `mask` from the shared and every thread's
    /// pending set of `t`'s group (`flush_sigqueue_mask`).
    pub(crate) fn flush_pending(&mut self, t: usize, mask: u64) {
        self.sig_mut(t).shared_pending &= !mask;
        self.sig_mut(t).rt_queue.retain(|&s| sigbit(s) & mask == 0);
        for th in self.sig(t).threads.clone() {
            self.task_mut(th).pending &= !mask;
            self.task_mut(th)
                .rt_queue
                .retain(|&s| sigbit(s) & mask == 0);
        }
    }

    /// `__send_signal_locked(sig, info, p, type, force)`: `to_thread` for
    /// `PIDTYPE_PID` (tkill), else the whole group with `p` preferred.
    pub(crate) fn send_signal(&mut self, p: usize, sig: i32, force: bool, to_thread: bool) {
        // prepare_signal()
        if self.sig(p).flags & SIGNAL_GROUP_EXIT != 0 {
            // The process is in the middle of dying: drop the signal.
            return;
        }
        let mut continued = false;
        let mut retrap = false;
        if sig_kernel_stop(sig) {
            self.flush_pending(p, sigbit(SIGCONT));
        } else if sig == SIGCONT {
            self.flush_pending(p, stop_mask());
            // A stop done (CLD_CONTINUED) or in progress (CLD_STOPPED) ends;
            // every thread's part in it is dropped and the stopped ones
            // run; every seized one re-traps, stop or not
            // (ptrace_trap_notify(): a PTRACE_EVENT_STOP at its next
            // get_signal(), before the SIGCONT;
            // tests/oracle/ptrace_edges.out, cases sigcont*).
            let why = if self.sig(p).flags & SIGNAL_STOP_STOPPED != 0 {
                CLD_CONTINUED
            } else if self.sig(p).group_stop_count > 0 {
                CLD_STOPPED
            } else {
                0
            };
            for th in self.sig(p).threads.clone() {
                let task = self.task_mut(th);
                task.stop_pending = false;
                task.stop_consume = false;
                task.stop_dequeued = false;
                if task.ptrace & PT_SEIZED == 0 {
                    task.stopped = false;
                } else if !task.exiting {
                    task.trap_notify = true;
                    retrap = true;
                    self.note_vfork_sigpending(th);
                }
            }
            if why != 0 {
                let s = self.sig_mut(p);
                s.flags = (s.flags & !(SIGNAL_STOP_STOPPED | SIGNAL_STOP_CONTINUED))
                    | SIGNAL_STOP_CONTINUED;
                s.group_stop_count = 0;
                s.group_exit_code = 0;
                continued = true;
                let leader = self.leader(p);
                self.do_notify_parent_cldstop(leader, why);
            }
        }
        // legacy_queue(): a standard signal is pending at most once.
        let pending = if to_thread {
            self.task(p).pending
        } else {
            self.sig(p).shared_pending
        };
        let queued = sig < taskcore::uapi::SIGRTMIN && pending & sigbit(sig) != 0;
        if !self.sig_ignored(p, sig, force) && !queued {
            self.complete_signal(p, sig, to_thread);
        }
        if (continued || retrap) && self.exists(p) {
            // The woken threads dequeue what was pending while stopped, or
            // take their re-trap.
            for th in self.sig(p).threads.clone() {
                self.dequeue_pending(th);
            }
        }
    }

    /// `sig_ignored()` and `sig_task_ignored()`.
    fn sig_ignored(&self, p: usize, sig: i32, force: bool) -> bool {
        // Blocked signals are never ignored: the action may change first.
        if self.task(p).blocked & sigbit(sig) != 0 {
            return false;
        }
        // Tracers may want to know about even ignored signals.
        if self.task(p).ptrace != 0 && sig != SIGKILL {
            return false;
        }
        let handler = self.sig(p).actions[(sig - 1) as usize].handler;
        if self.is_global_init(p) && sig_kernel_only(sig) {
            return true;
        }
        if self.sig(p).flags & SIGNAL_UNKILLABLE != 0
            && handler == SigHandler::Default
            && !(force && sig_kernel_only(sig))
        {
            return true;
        }
        sig_handler_ignored(handler, sig)
    }

    /// `wants_signal()`: thread `t` can take `sig` now.
    fn wants_signal(&self, sig: i32, t: usize) -> bool {
        let task = self.task(t);
        if task.exiting || (sig != 0 && task.blocked & sigbit(sig) != 0) {
            return false;
        }
        if sig == SIGKILL {
            return true;
        }
        // `task_curr(p) || !task_sigpending(p)`: a thread asleep in vfork
        // that was already woken for something keeps TIF_SIGPENDING
        // (tests/oracle/vfork_sleeper_signal).
        !(task.traced_stop
            || self.job_stopped(t)
            || (task.vfork_sigpending && self.in_vfork_wait(Tid(t))))
    }

    /// A wake-up (`signal_wake_up()`, `ptrace_trap_notify()`) reached `t`:
    /// asleep in vfork, it keeps `TIF_SIGPENDING` until the vfork completes.
    pub(crate) fn note_vfork_sigpending(&mut self, t: usize) {
        if self.exists(t) && self.in_vfork_wait(Tid(t)) {
            self.task_mut(t).vfork_sigpending = true;
        }
    }

    /// `sig_fatal()`: the default action of `sig` kills.
    fn sig_fatal(&self, p: usize, sig: i32) -> bool {
        !sig_kernel_ignore(sig)
            && !sig_kernel_stop(sig)
            && self.sig(p).actions[(sig - 1) as usize].handler == SigHandler::Default
    }

    fn fatal_code(&self, sig: i32) -> i32 {
        if sig_kernel_coredump(sig) && self.config.core_dumps {
            sig | 0x80
        } else {
            sig
        }
    }

    /// `complete_signal()`: find a thread to take `sig`; a fatal signal
    /// kills the group at once; with no taker the signal stays pending.
    fn complete_signal(&mut self, p: usize, sig: i32, to_thread: bool) {
        let t = if self.wants_signal(sig, p) {
            Some(p)
        } else if to_thread || self.thread_group_empty(p) {
            None
        } else {
            // From the thread chosen last, round the thread list.
            let threads = &self.sig(p).threads;
            let start = threads
                .iter()
                .position(|&u| u == self.sig(p).curr_target)
                .unwrap_or(0);
            let n = threads.len();
            let found = (0..n)
                .map(|i| threads[(start + i) % n])
                .find(|&t| self.wants_signal(sig, t));
            if let Some(t) = found {
                self.sig_mut(p).curr_target = t;
            }
            found
        };
        if let Some(t) = t {
            self.note_vfork_sigpending(t);
        }
        let Some(t) = t else {
            if self.opts.compat.untakeable_signals_lost
                && !(self.sig_fatal(p, sig) && self.sig(p).flags & SIGNAL_STOP_STOPPED != 0)
            {
                return;
            }
            self.pend(p, sig, to_thread);
            return;
        };
        // The fast path of a fatal signal aimed at an untraced task; a core
        // dumping one only once dequeued, which a traced taker reports, a
        // taker with a group stop to take part in first stops for, and a
        // taker asleep in vfork does only once the vfork completes.
        // Not for a namespace's init: its taker drops what it does not
        // handle (tests/oracle/init_blocked_thread).
        if self.sig_fatal(p, sig)
            && (sig == SIGKILL || self.sig(p).flags & SIGNAL_UNKILLABLE == 0)
            && (sig == SIGKILL || self.task(p).ptrace == 0)
            && (!sig_kernel_coredump(sig)
                || (self.task(t).ptrace == 0
                    && !self.task(t).stop_pending
                    && !self.in_vfork_wait(Tid(t))))
        {
            let code = self.fatal_code(sig);
            self.kill_group(p, code);
            return;
        }
        // Queued, then `t` dequeues what is pending in next_signal() order
        // (signals kept pending while nobody could take them come first if
        // lower).
        self.pend(p, sig, to_thread);
        self.dequeue_pending(t);
    }

    /// Thread `t` dequeues `sig` (`get_signal`): a traced thread stops for
    /// its tracer (`ptrace_signal`), else the disposition applies.
    fn dequeue_one(&mut self, t: usize, sig: i32) {
        if self.task(t).ptrace != 0 && sig != SIGKILL {
            self.task_mut(t).stop_dequeued = true;
            self.ptrace_trap(t, sig);
            return;
        }
        self.handle_signal(t, sig);
    }

    /// The part of `get_signal()` after `ptrace_signal()`: act on `sig`'s
    /// disposition in `t`'s group.
    pub(crate) fn handle_signal(&mut self, t: usize, sig: i32) {
        let a = self.sig(t).actions[(sig - 1) as usize];
        match a.handler {
            SigHandler::Ignore => return,
            SigHandler::Handler => {
                if a.flags & SA_RESETHAND != 0 {
                    self.sig_mut(t).actions[(sig - 1) as usize].handler = SigHandler::Default;
                }
                return;
            }
            // Default, and any handler kind the core may add.
            _ => {}
        }
        if sig_kernel_ignore(sig) {
            return;
        }
        // Init gets no signal it does not want, but SIGKILL/SIGSTOP that
        // came from an ancestor namespace or the kernel.
        if self.sig(t).flags & SIGNAL_UNKILLABLE != 0 && !sig_kernel_only(sig) {
            return;
        }
        if sig_kernel_stop(sig) {
            // Job-control stops do nothing in an orphaned process group.
            if sig != SIGSTOP && self.will_become_orphaned_pgrp(self.sig(t).pgrp, None) {
                return;
            }
            self.do_signal_stop(t, sig);
            return;
        }
        let code = self.fatal_code(sig);
        self.kill_group(t, code);
    }

    /// Thread `t`, running again, dequeues its own then the shared pending
    /// signals, in `next_signal()` order, until it stops or dies.
    pub(crate) fn dequeue_pending(&mut self, t: usize) {
        if self.exists(t) && self.wake_listener(t) {
            return;
        }
        loop {
            // A stop ends for a pending SIGKILL (TASK_WAKEKILL).
            let kill = self.exists(t)
                && (self.task(t).pending | self.sig(t).shared_pending) & sigbit(SIGKILL) != 0
                && !self.task(t).exiting;
            if !self.exists(t) || !(self.wants_signal(0, t) || kill) {
                return;
            }
            // Asleep in wait_for_vfork_done() (TASK_KILLABLE): only SIGKILL
            // wakes it; the rest waits until the vfork completes.
            if !kill && self.in_vfork_wait(Tid(t)) {
                return;
            }
            if self.sig(t).flags & SIGNAL_GROUP_EXIT != 0 {
                return;
            }
            // get_signal(): a group stop to take part in comes first.
            if self.task(t).stop_pending {
                self.participate(t);
                return;
            }
            // do_jobctl_trap(): a re-trap owed to the tracer.
            if (self.task(t).trap_notify || self.task(t).trap_stop) && self.task(t).ptrace != 0 {
                self.group_stop_trap(t);
                return;
            }
            let mask = !self.task(t).blocked;
            let own = self.task(t).pending & mask;
            let sig = if let Some(sig) = next_signal(own) {
                self.unpend(t, sig, true);
                sig
            } else if let Some(sig) = next_signal(self.sig(t).shared_pending & mask) {
                self.unpend(t, sig, false);
                sig
            } else {
                return;
            };
            self.dequeue_one(t, sig);
        }
    }

    /// `do_signal_stop()` by thread `t`, which took stop signal `sig`: the
    /// first one marks every thread of its group not stopped yet
    /// (`JOBCTL_STOP_PENDING`, a thread in a ptrace stop included) and
    /// counts them (`group_stop_count`); each takes part once: at once, or
    /// a thread in a ptrace stop when it is resumed. The last one stops the
    /// group and tells the real parent.
    fn do_signal_stop(&mut self, t: usize, sig: i32) {
        if !self.task(t).stop_pending {
            if self.sig(t).flags & SIGNAL_GROUP_EXIT != 0 {
                return;
            }
            if self.sig(t).flags & SIGNAL_STOP_STOPPED == 0 {
                self.sig_mut(t).group_exit_code = sig;
            }
            self.sig_mut(t).stop_sig = sig;
            let mut count = 0;
            if self.set_stop_pending(t, sig, true) {
                count += 1;
            }
            let mut others = Vec::new();
            for th in self.sig(t).threads.clone() {
                if th != t && !self.task(th).stopped && self.set_stop_pending(th, sig, true) {
                    count += 1;
                    others.push(th);
                    self.note_vfork_sigpending(th);
                    if self.task(th).ptrace & PT_SEIZED != 0 {
                        // ptrace_trap_notify(): a seized thread owes its
                        // tracer a re-trap (a listener takes it at once).
                        self.task_mut(th).trap_notify = true;
                    }
                }
            }
            self.sig_mut(t).group_stop_count = count;
            self.participate(t);
            for th in others {
                // A listening tracee is woken to take part
                // (ptrace_trap_notify()); others in a ptrace stop do when
                // resumed, a vfork waiter once its vfork is done.
                if self.exists(th)
                    && self.task(th).stop_pending
                    && (!self.task(th).traced_stop || self.task(th).listening)
                    && !self.in_vfork_wait(Tid(th))
                {
                    self.participate(th);
                }
            }
            return;
        }
        self.participate(t);
    }

    /// `task_set_jobctl_pending(t, sig | JOBCTL_STOP_PENDING [|
    /// JOBCTL_STOP_CONSUME])`: false for an exiting thread.
    fn set_stop_pending(&mut self, t: usize, sig: i32, consume: bool) -> bool {
        let task = self.task_mut(t);
        if task.exiting || task.exit_state != ExitState::Running {
            return false;
        }
        if sig != 0 {
            task.jobctl_sig = sig;
        }
        task.stop_pending = true;
        task.stop_consume |= consume;
        true
    }

    /// Thread `t` takes part in its group's stop: untraced, it stops;
    /// traced, it enters a group-stop trap.
    pub(crate) fn participate(&mut self, t: usize) {
        if self.task(t).ptrace != 0 {
            self.group_stop_trap(t);
            return;
        }
        let done = self.task_participate_group_stop(t);
        self.task_mut(t).stopped = true;
        if done {
            self.group_stop_done(t, true);
        }
    }

    /// `task_participate_group_stop()`: true if `t` was the last thread of
    /// a group stop (the group is now stopped).
    pub(crate) fn task_participate_group_stop(&mut self, t: usize) -> bool {
        let task = self.task_mut(t);
        let consume = task.stop_consume;
        task.stop_pending = false;
        task.stop_consume = false;
        if !consume {
            return false;
        }
        let s = self.sig_mut(t);
        s.group_stop_count = s.group_stop_count.saturating_sub(1);
        s.group_stop_count == 0 && s.flags & SIGNAL_STOP_STOPPED == 0
    }

    /// The group of `t` is stopped (`SIGNAL_STOP_STOPPED`); the real
    /// parent is told if `notify_parent`.
    pub(crate) fn group_stop_done(&mut self, t: usize, notify_parent: bool) {
        let s = self.sig_mut(t);
        s.flags = (s.flags & !(SIGNAL_STOP_STOPPED | SIGNAL_STOP_CONTINUED)) | SIGNAL_STOP_STOPPED;
        if notify_parent {
            let leader = self.leader(t);
            self.do_notify_parent_cldstop(leader, CLD_STOPPED);
        }
    }

    /// `do_jobctl_trap()`: traced `t` enters a group-stop trap reporting
    /// its stop signal (seized: `| PTRACE_EVENT_STOP << 8`, SIGTRAP when no
    /// group stop is in effect), taking part in a stop it has pending; if
    /// it was the last, the real parent is told too unless it is the
    /// tracer's process.
    pub(crate) fn group_stop_trap(&mut self, t: usize) {
        let mut sig = self.task(t).jobctl_sig;
        let code = if self.task(t).ptrace & PT_SEIZED != 0 {
            if self.sig(t).group_stop_count == 0 && self.sig(t).flags & SIGNAL_STOP_STOPPED == 0 {
                sig = SIGTRAP;
            }
            if sig == 0 {
                sig = SIGTRAP;
            }
            sig | (PTRACE_EVENT_STOP << 8)
        } else {
            if sig == 0 {
                sig = self.sig(t).stop_sig;
            }
            sig
        };
        let done = self.task(t).stop_pending && self.task_participate_group_stop(t);
        self.ptrace_trap(t, code);
        self.task_mut(t).trap_group = true;
        if done {
            let tracer = self.task(t).parent.expect("a traced task has a tracer");
            let reparented = self
                .task(t)
                .real_parent
                .is_none_or(|rp| !self.same_thread_group(rp, tracer));
            self.group_stop_done(t, reparented);
        }
    }

    /// `task_join_group_stop()`: new thread `t` of a stopping or stopped
    /// group takes part in its stop (counted if it is in progress).
    pub(crate) fn task_join_group_stop(&mut self, t: usize) {
        let sig = self.sig(t).stop_sig;
        let consume = self.sig(t).group_stop_count > 0;
        if consume {
            self.sig_mut(t).group_stop_count += 1;
        } else if self.sig(t).flags & SIGNAL_STOP_STOPPED == 0 {
            return;
        }
        if self.set_stop_pending(t, sig, consume) && !self.task(t).traced_stop {
            self.participate(t);
        }
    }

    /// `do_notify_parent_cldstop(leader, false, why)`: SIGCHLD to the real
    /// parent unless it ignores SIGCHLD or set `SA_NOCLDSTOP`.
    pub(crate) fn do_notify_parent_cldstop(&mut self, leader: usize, _why: i32) {
        if let Some(parent) = self.task(leader).real_parent {
            self.chld_to(parent);
        }
    }

    /// SIGCHLD for a stop or continue, unless `parent` ignores SIGCHLD or
    /// set `SA_NOCLDSTOP`; delivered when the operation ends.
    fn chld_to(&mut self, parent: usize) {
        let a = self.sig(parent).actions[(SIGCHLD - 1) as usize];
        if a.handler != SigHandler::Ignore && a.flags & SA_NOCLDSTOP == 0 {
            self.deferred.push_back(Deferred::Signal {
                task: parent,
                sig: SIGCHLD,
                force: false,
            });
        }
    }

    /// `ptrace_stop()`: traced task `t` stops reporting `sig` to its tracer
    /// (`do_notify_parent_cldstop(t, true, CLD_TRAPPED)`).
    pub(crate) fn ptrace_trap(&mut self, t: usize, sig: i32) {
        let task = self.task_mut(t);
        task.traced_stop = true;
        task.trap_code = sig;
        task.trap_group = false;
        task.trap_event = false;
        task.trap_syscall = false;
        // Any ptrace stop takes the place of an owed PTRACE_INTERRUPT trap,
        // only a PTRACE_EVENT_STOP trap that of a SIGCONT's re-trap
        // (ptrace_stop(); tests/oracle/ptrace_edges.out, sigcont_syscall),
        // and any ends listening.
        if sig >> 8 == PTRACE_EVENT_STOP {
            task.trap_notify = false;
        }
        task.trap_stop = false;
        task.listening = false;
        let tracer = task.parent.expect("a traced task has a tracer");
        self.chld_to(tracer);
    }

    /// Does the queued work (kernel-generated signals, exits resumed by an
    /// emptied namespace), in order, until none is left.
    pub(crate) fn run_deferred(&mut self) {
        while let Some(d) = self.deferred.pop_front() {
            match d {
                Deferred::Signal { task, sig, force } => {
                    if self.exists(task) {
                        self.send_signal(task, sig, force, false);
                    }
                }
                Deferred::ResumeExit { task, group_dead } => {
                    self.exit_notify_tail(task, group_dead, Vec::new());
                }
                Deferred::Dequeue { task } => {
                    if self.exists(task) && !self.task(task).exiting {
                        // Out of a PTRACE_EVENT_EXIT stop, it goes on
                        // exiting.
                        if let Some(code) = self.task_mut(task).exit_pending.take() {
                            self.do_exit(task, code);
                            continue;
                        }
                    }
                    if self.exists(task) {
                        self.dequeue_pending(task);
                    }
                }
            }
        }
    }
}
