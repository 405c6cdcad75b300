//! The signal system calls of a thread about its own signals: the mask
//! (`rt_sigprocmask`, `rt_sigreturn`), what is pending (`rt_sigpending`),
//! waiting for signals (`rt_sigtimedwait`, `rt_sigsuspend`, `pause`), and
//! queueing a signal with a value (`rt_sigqueueinfo`,
//! `rt_tgsigqueueinfo`).
//!
//! # Sleeping
//! `rt_sigtimedwait`, `rt_sigsuspend` and `pause` may have to sleep: they
//! return [`SigWait::WouldBlock`] and the thread is marked as sleeping for
//! a signal. When it gains one it can take, [`Notification::SigPending`]
//! names it (whatever the [`crate::SignalDelivery`]); the embedder then
//! calls the same system call again, which completes it. A sleeping thread
//! takes no signal on its own meanwhile.
//!
//! # Linux
//! kernel/signal.c: `sigprocmask()`, `__set_current_blocked()`,
//! `retarget_shared_pending()`, `do_sigpending()`, `do_sigtimedwait()`,
//! `sigsuspend()`, `sys_pause()`, `do_rt_sigqueueinfo()`,
//! `do_rt_tgsigqueueinfo()`; arch/x86/kernel/signal_64.c `rt_sigreturn`.

use crate::errno::{Errno, Result};
use crate::ix::TaskIx;
use crate::task::kernel::{Kernel, Notification, SigInfo, TaskId};
use crate::task::signal::sigsend::PidType;
use crate::task::state::delivery::UNBLOCKABLE;
use crate::task::task_struct::{PF_EXITING, TS_RESTORE_SIGMASK, TS_SIGSLEEP};
use crate::uapi::{SIG_BLOCK, SIG_UNBLOCK, SI_TKILL};

/// The outcome of a system call that waits for a signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SigWait {
    /// `rt_sigtimedwait` took this signal from its set (the call returns
    /// `info.signo`).
    Signal(SigInfo),
    /// The thread must sleep. Call the same system call again (same
    /// arguments) after a [`Notification::SigPending`] for it, or, for
    /// `rt_sigtimedwait`, with `timed_out` once its timeout has expired.
    WouldBlock,
}

/// # Signals: masks, pending sets and the signal waits (`kernel/signal.c`).
impl Kernel {
    /// `rt_sigprocmask(how, set, oldset)`: returns the thread's mask before
    /// the call and, with `set`, changes it: `SIG_BLOCK` adds `set`,
    /// `SIG_UNBLOCK` removes it, `SIG_SETMASK` replaces the mask with it.
    /// SIGKILL and SIGSTOP are never blocked. Signals the thread now
    /// blocks that are pending for its process are passed to another
    /// thread that can take them; signals it unblocks are taken (see
    /// [`crate::SignalDelivery`]).
    ///
    /// Masks are bit `sig - 1` per signal (x86_64's 8-byte `sigset_t`;
    /// Linux's `EINVAL` for another `sigsetsize` is the caller's).
    ///
    /// # Errors
    /// - `ESRCH`: `current` is stale or exiting.
    /// - `EINVAL`: `set` given with `how` not one of `SIG_BLOCK`,
    ///   `SIG_UNBLOCK`, `SIG_SETMASK`.
    ///
    /// # Linux
    /// `sigprocmask()` → `__set_current_blocked()`.
    pub fn rt_sigprocmask(&mut self, current: TaskId, how: i32, set: Option<u64>) -> Result<u64> {
        self.probed(crate::probe::Op::RtSigprocmask, current, |k| {
            let t = k.current(current)?;
            let old = k.tasks[t].blocked;
            let Some(set) = set else {
                return Ok(old);
            };
            let set = set & !UNBLOCKABLE;
            let new = match crate::rules::sigprocmask_how(how)? {
                SIG_BLOCK => old | set,
                SIG_UNBLOCK => old & !set,
                _ => set,
            };
            k.set_current_blocked(t, new);
            k.run_deferred();
            Ok(old)
        })
    }

    /// `__set_current_blocked()`: the mask of `t` becomes `new`.
    pub(crate) fn set_current_blocked(&mut self, t: TaskIx, new: u64) {
        let new = new & !UNBLOCKABLE;
        let old = self.tasks[t].blocked;
        if self.groups[self.tasks[t].group].nr_threads > 1 {
            self.retarget_shared_pending(t, new & !old);
        }
        self.tasks[t].blocked = new;
        if old & !new != 0 {
            self.signal_wake_up(t);
        }
    }

    /// `retarget_shared_pending()`: signals pending for `t`'s process that
    /// `t` starts to block (`which`) wake other threads that can take them.
    fn retarget_shared_pending(&mut self, t: TaskIx, which: u64) {
        let g = self.tasks[t].group;
        let mut retarget = self.groups[g].shared_pending.signal() & which;
        if retarget == 0 {
            return;
        }
        for u in self.threads(g) {
            if u == t || self.tasks.get(u).is_none_or(|x| x.group != g) {
                continue;
            }
            let task = &self.tasks[u];
            if task.flags.contains(PF_EXITING) || retarget & !task.blocked == 0 {
                continue;
            }
            retarget &= task.blocked;
            self.sigpending_in_vfork(u);
            self.signal_wake_up(u);
            if retarget == 0 {
                break;
            }
        }
    }

    /// `rt_sigreturn()`'s mask part: a handler returned and the thread's
    /// mask becomes the one its frame saved (`old_mask` of
    /// [`crate::SignalAction::Handler`]); what it unblocks is taken.
    ///
    /// # Errors
    /// `ESRCH` if `current` is stale or exiting.
    ///
    /// # Linux
    /// `SYSCALL_DEFINE0(rt_sigreturn)` → `set_current_blocked()`
    /// (arch/x86/kernel/signal_64.c).
    pub fn rt_sigreturn(&mut self, current: TaskId, mask: u64) -> Result<()> {
        self.probed(crate::probe::Op::RtSigreturn, current, |k| {
            let t = k.current(current)?;
            k.set_current_blocked(t, mask);
            k.run_deferred();
            Ok(())
        })
    }

    /// `rt_sigpending(set)`: the signals pending for the thread or its
    /// process that it blocks.
    ///
    /// # Errors
    /// `ESRCH` if `current` is stale or exiting.
    ///
    /// # Linux
    /// `do_sigpending()`.
    pub fn rt_sigpending(&self, current: TaskId) -> Result<u64> {
        let t = self.current(current)?;
        let task = &self.tasks[t];
        let pending = task.pending.signal() | self.groups[task.group].shared_pending.signal();
        Ok(pending & task.blocked)
    }

    /// The signals pending for `task`, blocked or not: its own pending set
    /// and its process's shared one, as `(pending, shared_pending)` masks
    /// (bit `sig - 1`), the `SigPnd` and `ShdPnd` lines of
    /// `/proc/PID/status`. A debugger's or a replay's view: nothing is
    /// dequeued.
    ///
    /// # Errors
    /// `ESRCH` if `task` is stale.
    ///
    /// # Linux
    /// `task->pending.signal`, `task->signal->shared_pending.signal`
    /// (fs/proc/array.c `task_sig()`).
    pub fn pending_signals(&self, task: TaskId) -> Result<(u64, u64)> {
        let task = &self.tasks[self.task_idx(task)?];
        Ok((
            task.pending.signal(),
            self.groups[task.group].shared_pending.signal(),
        ))
    }

    /// The thread's signal mask (`blocked`), as `rt_sigprocmask` would
    /// report it.
    ///
    /// # Errors
    /// `ESRCH` if `task` is stale.
    pub fn sigmask(&self, task: TaskId) -> Result<u64> {
        Ok(self.tasks[self.task_idx(task)?].blocked)
    }

    /// `rt_sigqueueinfo(tgid, sig, info)`: sends `sig` with `info` (its
    /// `code`, `pid`, `uid` and `value` as the caller gives them) to the
    /// process `tgid`. `sig` 0 only checks.
    ///
    /// # Errors
    /// - `ESRCH`: `current` stale; no such process.
    /// - `EPERM`: `info.code` is `SI_USER`, another non-negative code or
    ///   `SI_TKILL` (those are the kernel's and `kill`'s) while `tgid` is
    ///   not the caller's own thread id; or the permission check of
    ///   [`Kernel::kill`] fails.
    /// - `EINVAL`: `sig` outside 0..=64.
    /// - `EAGAIN`: a real-time signal over the target user's
    ///   `RLIMIT_SIGPENDING`.
    ///
    /// # Linux
    /// `do_rt_sigqueueinfo()` → `kill_proc_info()`.
    pub fn rt_sigqueueinfo(
        &mut self,
        current: TaskId,
        tgid: i32,
        sig: i32,
        info: SigInfo,
    ) -> Result<()> {
        self.probed(crate::probe::Op::RtSigqueueinfo, current, |k| {
            let cur = k.current(current)?;
            let ns = k.ns_of(cur);
            if (info.code >= 0 || info.code == SI_TKILL)
                && k.pid_nr_ns(k.tasks[cur].pid, ns) != tgid
            {
                return Err(Errno::EPERM);
            }
            let p = if tgid > 0 {
                k.find_task(ns, tgid)
            } else {
                None
            };
            let p = p.ok_or(Errno::ESRCH)?;
            let r = k.queue_user_info(cur, p, sig, info, PidType::Tgid);
            k.run_deferred();
            r
        })
    }

    /// `rt_tgsigqueueinfo(tgid, tid, sig, info)`: as
    /// [`Kernel::rt_sigqueueinfo`], to thread `tid` of process `tgid`.
    ///
    /// # Errors
    /// - `EINVAL`: `tgid` or `tid` not positive (first); `sig` outside
    ///   0..=64.
    /// - `EPERM`: as [`Kernel::rt_sigqueueinfo`], with `tid` for the
    ///   caller's own thread id.
    /// - `ESRCH`: `current` stale; no thread `tid` in process `tgid`.
    /// - `EAGAIN`: as [`Kernel::rt_sigqueueinfo`].
    ///
    /// # Linux
    /// `do_rt_tgsigqueueinfo()` → `do_send_specific()`.
    pub fn rt_tgsigqueueinfo(
        &mut self,
        current: TaskId,
        tgid: i32,
        tid: i32,
        sig: i32,
        info: SigInfo,
    ) -> Result<()> {
        self.probed(crate::probe::Op::RtSigqueueinfo, current, |k| {
            let cur = k.current(current)?;
            crate::rules::tgkill_ids(tgid, tid)?;
            let ns = k.ns_of(cur);
            if (info.code >= 0 || info.code == SI_TKILL) && k.pid_nr_ns(k.tasks[cur].pid, ns) != tid
            {
                return Err(Errno::EPERM);
            }
            let p = k.find_task(ns, tid).ok_or(Errno::ESRCH)?;
            if k.pid_nr_ns(k.tasks[k.leader_of(p)].pid, ns) != tgid {
                return Err(Errno::ESRCH);
            }
            let r = k.queue_user_info(cur, p, sig, info, PidType::Pid);
            k.run_deferred();
            r
        })
    }

    /// The checks and send shared by the two `sigqueueinfo` calls.
    fn queue_user_info(
        &mut self,
        cur: TaskIx,
        p: TaskIx,
        sig: i32,
        info: SigInfo,
        ty: PidType,
    ) -> Result<()> {
        if !(0..=64).contains(&sig) {
            return Err(Errno::EINVAL);
        }
        let who = self.killer(cur);
        if !self.may_kill(&who, p, sig) {
            return Err(Errno::EPERM);
        }
        let info = SigInfo { signo: sig, ..info };
        self.send_user_signal(&who, p, sig, ty, Some(info))
    }

    /// `rt_sigtimedwait(set, info, timeout)`: takes a signal of `set`
    /// pending for the thread or its process (blocked or not), or sleeps
    /// until one comes. `timed_out` says that the caller's timeout has
    /// expired (pass it for a zero timeout, or on the retry after the
    /// timeout ran out).
    ///
    /// # Errors
    /// - `ESRCH`: `current` is stale or exiting.
    /// - `EAGAIN`: nothing of `set` pending and `timed_out`.
    /// - `EINTR`: woken by a signal outside `set`, which the thread now
    ///   takes ([`crate::SignalDelivery`]).
    ///
    /// # Linux
    /// `do_sigtimedwait()`: while it sleeps, the signals of `set` are
    /// unblocked (`real_blocked` keeps the mask) so that they wake it.
    pub fn rt_sigtimedwait(
        &mut self,
        current: TaskId,
        set: u64,
        timed_out: bool,
    ) -> Result<SigWait> {
        self.probed(crate::probe::Op::RtSigtimedwait, current, |k| {
            let t = k.current(current)?;
            let these = set & !UNBLOCKABLE;
            let sleeping = k.tasks[t].flags.contains(TS_SIGSLEEP);
            if sleeping {
                k.tasks[t].flags &= !TS_SIGSLEEP;
                k.tasks[t].blocked = k.take_real_blocked(t);
            }
            if let Some((_, info)) = k.dequeue_signal(t, these) {
                k.run_deferred();
                return Ok(SigWait::Signal(info));
            }
            if sleeping && k.has_deliverable(t) {
                k.signal_wake_up(t);
                k.run_deferred();
                return Err(Errno::EINTR);
            }
            if timed_out {
                return Err(Errno::EAGAIN);
            }
            let blocked = k.tasks[t].blocked;
            k.side.sigsave.entry(t).or_default().real_blocked = blocked;
            let task = &mut k.tasks[t];
            task.blocked &= !these;
            task.flags |= TS_SIGSLEEP;
            if k.has_deliverable(t) {
                // Something came in between: retry at once.
                k.wake_sleeper(t);
            }
            Ok(SigWait::WouldBlock)
        })
    }

    /// `rt_sigsuspend(mask)`: the thread's mask becomes `mask` until a
    /// signal it can take arrives; it then takes it with that mask and the
    /// old mask comes back after the handler (or at once if none runs).
    /// The call always ends with `EINTR`: at once if such a signal is
    /// already pending, else on the retry after
    /// [`Notification::SigPending`] (see the module docs).
    ///
    /// # Errors
    /// - `ESRCH`: `current` is stale or exiting.
    /// - `EINTR`: a signal came (the call's only outcome but sleeping).
    ///
    /// # Linux
    /// `sigsuspend()`: `saved_sigmask`, `set_restore_sigmask()`,
    /// `-ERESTARTNOHAND` (which user space sees as `EINTR` when a handler
    /// runs; a signal that runs none restarts it, which callers do by
    /// calling again).
    pub fn rt_sigsuspend(&mut self, current: TaskId, mask: u64) -> Result<SigWait> {
        self.probed(crate::probe::Op::RtSigsuspend, current, |k| {
            let t = k.current(current)?;
            k.suspend(t, Some(mask))
        })
    }

    /// `pause()`: sleeps until a signal the thread can take arrives, with
    /// its mask unchanged; ends with `EINTR` as [`Kernel::rt_sigsuspend`].
    ///
    /// # Errors
    /// As [`Kernel::rt_sigsuspend`].
    ///
    /// # Linux
    /// `sys_pause()`.
    pub fn pause(&mut self, current: TaskId) -> Result<SigWait> {
        self.probed(crate::probe::Op::RtSigsuspend, current, |k| {
            let t = k.current(current)?;
            k.suspend(t, None)
        })
    }

    fn suspend(&mut self, t: TaskIx, mask: Option<u64>) -> Result<SigWait> {
        if !self.tasks[t].flags.contains(TS_SIGSLEEP) {
            if let Some(mask) = mask {
                let blocked = self.tasks[t].blocked;
                self.side.sigsave.entry(t).or_default().saved_sigmask = blocked;
                let task = &mut self.tasks[t];
                task.blocked = mask & !UNBLOCKABLE;
                task.flags |= TS_RESTORE_SIGMASK;
            }
        }
        if self.has_deliverable(t) {
            self.tasks[t].flags &= !TS_SIGSLEEP;
            self.signal_wake_up(t);
            self.run_deferred();
            return Err(Errno::EINTR);
        }
        self.tasks[t].flags |= TS_SIGSLEEP;
        Ok(SigWait::WouldBlock)
    }

    /// `real_blocked`: the mask `rt_sigtimedwait` replaced while it sleeps,
    /// 0 otherwise.
    #[inline]
    pub(crate) fn real_blocked(&self, t: TaskIx) -> u64 {
        if !self.tasks[t].flags.contains(TS_SIGSLEEP) {
            return 0;
        }
        self.side.sigsave.get(&t).map_or(0, |s| s.real_blocked)
    }

    /// Takes `real_blocked` back (the sleep is over).
    fn take_real_blocked(&mut self, t: TaskIx) -> u64 {
        let Some(s) = self.side.sigsave.get_mut(&t) else {
            return self.tasks[t].blocked;
        };
        let r = core::mem::take(&mut s.real_blocked);
        if s.saved_sigmask == 0 && !self.tasks[t].flags.contains(TS_RESTORE_SIGMASK) {
            self.side.sigsave.remove(&t);
        }
        r
    }

    /// Takes `saved_sigmask` back (`TS_RESTORE_SIGMASK` was set).
    pub(crate) fn take_saved_sigmask(&mut self, t: TaskIx) -> u64 {
        let Some(s) = self.side.sigsave.get_mut(&t) else {
            return self.tasks[t].blocked;
        };
        let r = core::mem::take(&mut s.saved_sigmask);
        if !self.tasks[t].flags.contains(TS_SIGSLEEP) {
            self.side.sigsave.remove(&t);
        }
        r
    }

    /// A thread sleeping in `rt_sigtimedwait`/`rt_sigsuspend`/`pause` has
    /// a signal to take: the embedder retries its call.
    pub(crate) fn wake_sleeper(&mut self, t: TaskIx) {
        let task = self.handle_unchecked(t);
        self.notify(Notification::SigPending { task });
    }
}
