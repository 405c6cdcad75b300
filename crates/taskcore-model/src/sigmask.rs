//! Signal masks: `rt_sigprocmask`, `rt_sigpending`, and `rt_sigtimedwait`
//! with a zero timeout.
//!
//! # Linux
//! kernel/signal.c `sigprocmask()`, `do_sigpending()`,
//! `do_sigtimedwait()`.

use taskcore::uapi::{SIGKILL, SIGSTOP, SIG_BLOCK, SIG_UNBLOCK};

use crate::{sigbit, Errno, Model, Result, Tid};

impl Model {
    /// `rt_sigprocmask(how, set, oldset)`: the old mask, and with `set` the
    /// new one (SIGKILL and SIGSTOP never blocked). Unblocked signals that
    /// are pending are taken at once.
    ///
    /// # Errors
    /// `ESRCH` for a stale or exiting caller; `EINVAL` for a bad `how`
    /// with a `set`.
    pub fn rt_sigprocmask(&mut self, current: Tid, how: i32, set: Option<u64>) -> Result<u64> {
        let t = self.current(current)?;
        let old = self.task(t).blocked;
        let Some(set) = set else {
            return Ok(old);
        };
        let set = set & !(sigbit(SIGKILL) | sigbit(SIGSTOP));
        let new = match taskcore::rules::sigprocmask_how(how)? {
            SIG_BLOCK => old | set,
            SIG_UNBLOCK => old & !set,
            _ => set,
        };
        self.task_mut(t).blocked = new;
        if old & !new != 0 {
            self.dequeue_pending(t);
        }
        self.run_deferred();
        Ok(old)
    }

    /// `rt_sigpending()`: pending signals (the thread's and its process's)
    /// that the thread blocks.
    ///
    /// # Errors
    /// `ESRCH` for a stale or exiting caller.
    pub fn rt_sigpending(&self, current: Tid) -> Result<u64> {
        let t = self.current(current)?;
        let task = self.task(t);
        Ok((task.pending | self.sig(t).shared_pending) & task.blocked)
    }

    /// `rt_sigtimedwait(set, NULL, {0, 0})`: takes the next signal of `set`
    /// pending for the thread (first) or its process, and returns it.
    ///
    /// # Errors
    /// `ESRCH` for a stale or exiting caller; `EAGAIN` when none is
    /// pending.
    pub fn rt_sigtimedwait_now(&mut self, current: Tid, set: u64) -> Result<i32> {
        let t = self.current(current)?;
        let set = set & !(sigbit(SIGKILL) | sigbit(SIGSTOP));
        let own = self.task(t).pending & set;
        if let Some(sig) = crate::signal::next_signal(own) {
            self.unpend(t, sig, true);
            return Ok(sig);
        }
        let shared = self.sig(t).shared_pending & set;
        let sig = crate::signal::next_signal(shared).ok_or(Errno::EAGAIN)?;
        self.unpend(t, sig, false);
        Ok(sig)
    }

    /// Makes `sig` pending for thread `t` (`to_thread`) or its process: a
    /// standard signal once, a real-time one once per send.
    pub(crate) fn pend(&mut self, t: usize, sig: i32, to_thread: bool) {
        let rt = sig >= taskcore::uapi::SIGRTMIN;
        let (bits, queue) = if to_thread {
            let task = self.task_mut(t);
            (&mut task.pending, &mut task.rt_queue)
        } else {
            let s = self.sig_mut(t);
            (&mut s.shared_pending, &mut s.rt_queue)
        };
        if rt && *bits & sigbit(sig) != 0 {
            queue.push(sig);
        }
        *bits |= sigbit(sig);
    }

    /// Takes one copy of `sig` off thread `t`'s (`own`) or its process's
    /// pending set.
    pub(crate) fn unpend(&mut self, t: usize, sig: i32, own: bool) {
        let (bits, queue) = if own {
            let task = self.task_mut(t);
            (&mut task.pending, &mut task.rt_queue)
        } else {
            let s = self.sig_mut(t);
            (&mut s.shared_pending, &mut s.rt_queue)
        };
        if let Some(i) = queue.iter().position(|&s| s == sig) {
            queue.remove(i);
        } else {
            *bits &= !sigbit(sig);
        }
    }
}
