//! Generating a signal: it is queued on a thread or on its process, a
//! thread to take it is chosen, and that thread is woken.
//!
//! ```text
//!   send_signal_locked(t, sig, info, type, force)
//!     prepare_signal   group exiting: drop; stop sig: flush SIGCONT;
//!                      SIGCONT: flush stops, resume a stopped group;
//!                      sig_ignored: drop
//!     legacy_queue     a standard signal already pending: drop
//!     queue            siginfo entry, charged to RLIMIT_SIGPENDING
//!     complete_signal  the thread that takes it; a fatal one kills the
//!                      group at once; else signal_wake_up(t)
//! ```
//!
//! What the woken thread does is `get_signal()` (`task/signal/sigdeliver.rs`).
//!
//! # Linux
//! kernel/signal.c: `send_signal_locked()`, `__send_signal_locked()`,
//! `prepare_signal()`, `sig_ignored()`, `sig_task_ignored()`,
//! `wants_signal()`, `complete_signal()`, `__sigqueue_alloc()`.

use crate::errno::{Errno, Result};
use crate::ix::GroupIx;
use crate::ix::TaskIx;
use crate::task::kernel::{Kernel, SigInfo};
use crate::task::state::sigpending::{sigmask, SigQueue};
use crate::task::task_struct::{
    Task, ThreadGroup, PF_EXITING, SIGNAL_GROUP_EXIT, SIGNAL_UNKILLABLE, TS_SIGSLEEP,
};
use crate::uapi::{
    sig_kernel_coredump, sig_kernel_ignore, sig_kernel_only, sig_kernel_stop, RLIMIT_SIGPENDING,
    SIGCONT, SIGKILL, SIGRTMIN, SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU, SI_USER,
};

/// `SIG_KERNEL_STOP_MASK`.
pub(crate) const STOP_MASK: u64 =
    sigmask(SIGSTOP) | sigmask(SIGTSTP) | sigmask(SIGTTIN) | sigmask(SIGTTOU);

/// Where a signal is queued (`enum pid_type` of a send).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PidType {
    /// On the thread (`PIDTYPE_PID`: `tkill`, `tgkill`, a fault).
    Pid,
    /// On the process (`PIDTYPE_TGID`: `kill`, SIGCHLD).
    Tgid,
}

/// How a signal's siginfo came to be (`SEND_SIG_*` or a real siginfo).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SendInfo {
    /// A siginfo with its fields (`kill`, `tkill`, `sigqueue`, SIGCHLD).
    Info(SigInfo),
    /// `SEND_SIG_PRIV`: from the kernel, `SI_KERNEL`, never ignored for
    /// being SIGKILL/SIGSTOP to a namespace init.
    Priv,
}

impl Kernel {
    /// `send_signal_locked(sig, info, t, type)`: `force` lets SIGKILL and
    /// SIGSTOP reach a namespace init (sent from an ancestor namespace or
    /// by the kernel). Signal 0 does nothing.
    ///
    /// # Errors
    /// `EAGAIN`: a real-time signal with an `si_code` other than `SI_USER`
    /// (`sigqueue`, `tgkill`) found `t`'s user over its
    /// `RLIMIT_SIGPENDING`; nothing was sent.
    pub(crate) fn send_signal_locked(
        &mut self,
        t: TaskIx,
        sig: i32,
        info: SendInfo,
        ty: PidType,
        force: bool,
    ) -> Result<()> {
        if sig == 0 {
            return Ok(());
        }
        let force = force || info == SendInfo::Priv;
        let g = self.tasks[t].group;
        let (queue, continued) = self.prepare_signal(t, sig, force);
        let r = if queue {
            self.queue_signal(t, sig, info, ty)
        } else {
            Ok(())
        };
        // The woken threads take what was kept pending while stopped
        // (unless the queueing released the whole process: a traced
        // zombie reaped when its tracer was notified).
        if continued && self.groups.contains(g) {
            self.wake_group(g);
        }
        r
    }

    /// The queueing half of `__send_signal_locked()`, then
    /// `complete_signal()`.
    fn queue_signal(&mut self, t: TaskIx, sig: i32, info: SendInfo, ty: PidType) -> Result<()> {
        let g = self.tasks[t].group;
        let pending = match ty {
            PidType::Pid => &self.tasks[t].pending,
            PidType::Tgid => &self.groups[g].shared_pending,
        };
        // legacy_queue(): a standard signal is pending at most once.
        if sig < SIGRTMIN && pending.has(sig) {
            return Ok(());
        }
        let entry = if sig == SIGKILL {
            // Never queued with its siginfo.
            None
        } else {
            let (info, special) = match info {
                SendInfo::Info(i) => (i, false),
                SendInfo::Priv => (
                    SigInfo {
                        signo: sig,
                        code: crate::uapi::SI_KERNEL,
                        ..SigInfo::default()
                    },
                    true,
                ),
            };
            let override_rlimit = sig < SIGRTMIN && (special || info.code >= 0);
            match self.sigqueue_charge(t, override_rlimit) {
                Some(uid) => Some(SigQueue { sig, info, uid }),
                None if !special && sig >= SIGRTMIN && info.code != SI_USER => {
                    return Err(Errno::EAGAIN);
                }
                // A silent loss of the siginfo: the signal still goes.
                None => None,
            }
        };
        match ty {
            PidType::Pid => self.tasks[t].pending.add(sig, entry),
            PidType::Tgid => self.groups[g].shared_pending.add(sig, entry),
        }
        self.complete_signal(sig, t, ty);
        Ok(())
    }

    /// `__sigqueue_alloc()`'s accounting: one more pending entry for the
    /// real uid of `t`, refused over `t`'s soft `RLIMIT_SIGPENDING` unless
    /// `override_rlimit`. Returns the uid charged.
    fn sigqueue_charge(&mut self, t: TaskIx, override_rlimit: bool) -> Option<u32> {
        let uid = self.tasks[t].cred.uid;
        let limit = self.groups[self.tasks[t].group].rlim[RLIMIT_SIGPENDING as usize].cur;
        let count = self.sigpending_users.entry(uid).or_insert(0);
        if !override_rlimit && u64::from(*count) + 1 > limit {
            return None;
        }
        *count += 1;
        Some(uid)
    }

    /// Gives back one pending entry charged to `uid`.
    pub(crate) fn sigqueue_uncharge(&mut self, uid: u32) {
        if let Some(c) = self.sigpending_users.get_mut(&uid) {
            *c -= 1;
            if *c == 0 {
                self.sigpending_users.remove(&uid);
            }
        }
    }

    /// The number of siginfo entries pending for real uid `uid` (the
    /// numerator of `/proc/PID/status`'s `SigQ`).
    pub(crate) fn sigqueue_count(&self, uid: u32) -> u32 {
        self.sigpending_users.get(&uid).copied().unwrap_or(0)
    }

    /// Removes the signals of `mask` from task `t`'s own pending set.
    #[inline]
    pub(crate) fn flush_task_pending(&mut self, t: TaskIx, mask: u64) {
        if self.tasks[t].pending.signal() & mask != 0 {
            self.flush_task_pending_slow(t, mask);
        }
    }

    #[inline(never)]
    fn flush_task_pending_slow(&mut self, t: TaskIx, mask: u64) {
        let mut freed = Vec::new();
        self.tasks[t]
            .pending
            .flush_mask(mask, |uid| freed.push(uid));
        for uid in freed {
            self.sigqueue_uncharge(uid);
        }
    }

    /// `flush_sigqueue_mask()` on group `g`'s shared pending set and every
    /// thread's own.
    #[inline]
    pub(crate) fn flush_group_pending(&mut self, g: GroupIx, mask: u64) {
        self.flush_shared_pending(g, mask);
        let mut next = self.groups[g].threads.first;
        while let Some(cur) = next {
            if self.tasks[cur].pending.signal() & mask != 0 {
                self.flush_task_pending(cur, mask);
            }
            next = self.tasks[cur].thread_node.next;
        }
    }

    /// `flush_sigqueue_mask()` on group `g`'s shared pending set alone.
    #[inline(always)]
    pub(crate) fn flush_shared_pending(&mut self, g: GroupIx, mask: u64) {
        if self.groups[g].shared_pending.signal() & mask != 0 {
            self.flush_shared_pending_slow(g, mask);
        }
    }

    /// [`Self::flush_shared_pending`] once something is pending.
    #[inline(never)]
    fn flush_shared_pending_slow(&mut self, g: GroupIx, mask: u64) {
        {
            let mut freed = Vec::new();
            self.groups[g]
                .shared_pending
                .flush_mask(mask, |uid| freed.push(uid));
            for uid in freed {
                self.sigqueue_uncharge(uid);
            }
        }
    }

    /// `prepare_signal()`: the side effects of sending `sig` to `t` that
    /// come before queueing it. Returns whether it is queued at all, and
    /// whether it ended a group stop (done or in progress).
    fn prepare_signal(&mut self, t: TaskIx, sig: i32, force: bool) -> (bool, bool) {
        let g = self.tasks[t].group;
        if self.groups[g].flags.get().contains(SIGNAL_GROUP_EXIT) {
            // The process is in the middle of dying: drop the signal.
            return (false, false);
        }
        let mut continued = false;
        if sig_kernel_stop(sig) {
            self.flush_group_pending(g, sigmask(SIGCONT));
        } else if sig == SIGCONT {
            self.flush_group_pending(g, STOP_MASK);
            continued = self.sigcont_resume(g);
        }
        (!self.sig_ignored(t, sig, force), continued)
    }

    /// Whether [`Kernel::send_signal_locked`] of `sig` (neither a stop
    /// signal nor SIGCONT, so that `prepare_signal()` has no side effect),
    /// not forced, to `t` would discard it now and change nothing: its
    /// group is exiting, or `sig_ignored()`.
    #[inline(always)]
    pub(crate) fn would_discard(&self, t: TaskIx, sig: i32) -> bool {
        debug_assert!(!sig_kernel_stop(sig) && sig != SIGCONT);
        // The task and its group, looked up once for every test.
        let task = &self.tasks[t];
        let grp = &self.groups[task.group];
        grp.flags.get().contains(SIGNAL_GROUP_EXIT) || self.sig_ignored_in(t, task, grp, sig, false)
    }

    /// `sig_ignored()`: `sig` would be discarded by `t`. Blocked signals
    /// never are (the action may change before they are unblocked), nor
    /// are signals to a tracee (its tracer may want them), SIGKILL aside.
    #[inline(always)]
    fn sig_ignored(&self, t: TaskIx, sig: i32, force: bool) -> bool {
        let task = &self.tasks[t];
        self.sig_ignored_in(t, task, &self.groups[task.group], sig, force)
    }

    /// [`Self::sig_ignored`] of `t`, whose task and thread group are
    /// `task` and `grp`.
    #[inline(always)]
    fn sig_ignored_in(
        &self,
        t: TaskIx,
        task: &Task,
        grp: &ThreadGroup,
        sig: i32,
        force: bool,
    ) -> bool {
        // real_blocked(): only while asleep in rt_sigtimedwait.
        let real_blocked = if task.flags.contains(TS_SIGSLEEP) {
            self.real_blocked(t)
        } else {
            0
        };
        if (task.blocked | real_blocked) & sigmask(sig) != 0 {
            return false;
        }
        if task.ptrace != 0 && sig != SIGKILL {
            return false;
        }
        self.sig_task_ignored(t, grp, sig, force)
    }

    /// `sig_task_ignored()` of `t`, whose thread group is `grp`: init takes
    /// neither SIGKILL nor SIGSTOP; a namespace init only signals it
    /// handles (or SIGKILL/SIGSTOP from an ancestor namespace); then the
    /// action decides.
    #[inline(always)]
    fn sig_task_ignored(&self, t: TaskIx, grp: &ThreadGroup, sig: i32, force: bool) -> bool {
        let sh = grp.sighand.get();
        let dfl = !sh.is_ignored(sig) && !sh.is_handled(sig);
        if sig_kernel_only(sig) && self.is_global_init(t) {
            return true;
        }
        if grp.flags.get().contains(SIGNAL_UNKILLABLE) && dfl && !(force && sig_kernel_only(sig)) {
            return true;
        }
        sh.handler_ignored(sig)
    }

    /// `wants_signal()`: thread `t` can take `sig` now: it does not block
    /// it, is not exiting, and (but for SIGKILL) is not stopped.
    pub(crate) fn wants_signal(&self, sig: i32, t: TaskIx) -> bool {
        let task = &self.tasks[t];
        if task.blocked & sigmask(sig) != 0 || task.flags.contains(PF_EXITING) {
            return false;
        }
        if sig == SIGKILL {
            return true;
        }
        // `task_curr(p) || !task_sigpending(p)`: of the threads not on a
        // CPU, only one asleep in vfork can already have TIF_SIGPENDING
        // here (the others take what wakes them at once), and it is not
        // offered more (tests/oracle/vfork_sleeper_signal).
        !(self.task_is_stopped_or_traced(t)
            || (self.held_in_vfork(t) && self.side.vfork_claims.contains_key(&t)))
    }

    /// `task_is_stopped_or_traced()`: in a ptrace stop, or stopped by a
    /// group stop (`JOBCTL_STOPPED`).
    pub(crate) fn task_is_stopped_or_traced(&self, t: TaskIx) -> bool {
        let task = &self.tasks[t];
        task.traced_stop() || task.jobctl & crate::task::state::jobctl_flags::JOBCTL_STOPPED != 0
    }

    /// `sig_fatal()`: `sig`'s action in group `g` is the default one, and
    /// that kills.
    pub(crate) fn sig_fatal(&self, g: GroupIx, sig: i32) -> bool {
        let sh = self.groups[g].sighand.get();
        !sig_kernel_ignore(sig)
            && !sig_kernel_stop(sig)
            && !sh.is_ignored(sig)
            && !sh.is_handled(sig)
    }

    /// `complete_signal()`: finds the thread that takes `sig`, queued for
    /// `p` (or its process): `p` if it wants it, else (for a process) the
    /// first thread that does, from the last one chosen on. A fatal signal
    /// kills the whole group at once; any other wakes the taker.
    fn complete_signal(&mut self, sig: i32, p: TaskIx, ty: PidType) {
        let g = self.tasks[p].group;
        let t = if self.wants_signal(sig, p) {
            p
        } else if ty == PidType::Pid || self.groups[g].nr_threads == 1 {
            return;
        } else {
            let mut start = self.groups[g].curr_target;
            let first = self.groups[g].threads.first.expect("a group has threads");
            if self.tasks.get(start).is_none_or(|x| x.group != g) {
                start = first;
            }
            let mut t = start;
            loop {
                if self.wants_signal(sig, t) {
                    break;
                }
                t = self.tasks[t].thread_node.next.unwrap_or(first);
                if t == start {
                    return;
                }
            }
            self.groups[g].curr_target = t;
            t
        };
        // Not for a namespace's init (SIGNAL_UNKILLABLE) but SIGKILL from
        // an ancestor namespace: its taker drops what it does not handle
        // (tests/oracle/init_blocked_thread).
        if self.sig_fatal(g, sig)
            && (sig == SIGKILL || !self.groups[g].flags.get().contains(SIGNAL_UNKILLABLE))
            && self.real_blocked(t) & sigmask(sig) == 0
            && (sig == SIGKILL || self.tasks[p].ptrace == 0)
            && !sig_kernel_coredump(sig)
        {
            // The whole group dies at once (SIGNAL_GROUP_EXIT, SIGKILL to
            // every thread).
            self.kill_group(g, sig);
            return;
        }
        if self.held_in_vfork(t) {
            // TIF_SIGPENDING goes to t alone, which takes it only once its
            // vfork completes; the other threads go on without it.
            self.sigpending_in_vfork(t);
            if ty != PidType::Pid {
                *self.side.vfork_claims.entry(t).or_default() |= sigmask(sig);
            }
        } else if ty != PidType::Pid && !self.side.vfork_claims.is_empty() {
            // t has TIF_SIGPENDING now, and its get_signal() dequeues
            // every process-wide signal it does not block: none is only a
            // vfork waiter's to see any more
            // (tests/oracle/vfork_sleeper_signal, vfork_sleeper_usr1).
            for (&u, claim) in self.side.vfork_claims.iter_mut() {
                if self.tasks.get(u).is_some_and(|x| x.group == g) {
                    *claim &= self.tasks[t].blocked;
                }
            }
        }
        self.signal_wake_up(t);
    }
}
