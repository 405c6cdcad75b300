//! Job control: a group stop goes through every thread, and SIGCONT ends
//! it.
//!
//! ```text
//!   do_signal_stop(t, sig)    the first thread to take a stop signal:
//!     JOBCTL_STOP_PENDING       marks every thread that is not stopped yet,
//!     group_stop_count          and counts them; each thread then
//!   task_participate_group_stop takes part once (untraced: JOBCTL_STOPPED;
//!                               traced: a group-stop trap for its tracer),
//!                               the last one sets SIGNAL_STOP_STOPPED and
//!                               tells the parent (CLD_STOPPED)
//!   SIGCONT (prepare_signal)    clears the marks, wakes the stopped threads,
//!                               SIGNAL_STOP_CONTINUED, CLD_CONTINUED
//! ```
//!
//! With [`SignalDelivery::Immediate`] every thread takes part at once,
//! inside the operation that stopped the group; with
//! [`SignalDelivery::OnGetSignal`] the other threads are told
//! ([`Notification::SigPending`]) and each takes part in its own
//! [`Kernel::get_signal`], and the embedder hears of each thread's stop
//! ([`Notification::TaskStopped`]) and resumption
//! ([`Notification::TaskResumed`]).
//!
//! # Linux
//! kernel/signal.c: `do_signal_stop()`, `task_participate_group_stop()`,
//! `task_set_jobctl_pending()`, `task_clear_jobctl_pending()`,
//! `do_jobctl_trap()`, `prepare_signal()` (SIGCONT), kernel/fork.c
//! `task_join_group_stop()`.

use crate::ix::GroupIx;
use crate::ix::TaskIx;
use crate::task::kernel::{Kernel, Notification};
use crate::task::ptrace::attach::PTRACE_EVENT_STOP;
use crate::task::state::delivery::SignalDelivery;
use crate::task::state::jobctl_flags::*;
use crate::task::task_struct::{
    ExitState, SignalFlags, PF_EXITING, PT_SEIZED, SIGNAL_CLD_CONTINUED, SIGNAL_GROUP_EXIT,
    SIGNAL_STOP_CONTINUED, SIGNAL_STOP_STOPPED,
};
use crate::uapi::{CLD_CONTINUED, CLD_STOPPED, SIGTRAP};

impl Kernel {
    /// `task_set_jobctl_pending()`: false for a thread that is exiting.
    fn task_set_jobctl_pending(&mut self, t: TaskIx, mask: u32) -> bool {
        let task = &mut self.tasks[t];
        if task.flags.contains(PF_EXITING) || task.exit_state() != ExitState::Alive {
            return false;
        }
        if mask & JOBCTL_STOP_SIGMASK != 0 {
            task.jobctl &= !JOBCTL_STOP_SIGMASK;
        }
        task.jobctl |= mask;
        true
    }

    /// `task_clear_jobctl_pending()`.
    pub(crate) fn task_clear_jobctl_pending(&mut self, t: TaskIx, mut mask: u32) {
        if mask & JOBCTL_STOP_PENDING != 0 {
            mask |= JOBCTL_STOP_CONSUME | JOBCTL_STOP_DEQUEUED;
        }
        self.tasks[t].jobctl &= !mask;
    }

    /// `do_signal_stop()`: thread `t` took stop signal `sig` (0: it takes
    /// part in a group stop already in progress). Starts the group stop if
    /// none is in progress, then `t` takes part. Returns false if `t` does
    /// not stop (its group is exiting).
    pub(crate) fn do_signal_stop(&mut self, t: TaskIx, sig: i32) -> bool {
        let g = self.tasks[t].group;
        if self.tasks[t].jobctl & JOBCTL_STOP_PENDING == 0 {
            if sig == 0 || self.groups[g].flags.get().contains(SIGNAL_GROUP_EXIT) {
                return false;
            }
            // A tracee resumed while its group is stopped may start another
            // group stop; the group's code stays the first one's.
            if !self.groups[g].flags.get().contains(SIGNAL_STOP_STOPPED) {
                self.set_group_exit_code(g, sig);
            }
            self.groups[g].stop_sig = sig as u8;
            let gstop = sig as u32 | JOBCTL_STOP_PENDING | JOBCTL_STOP_CONSUME;
            let mut count = 0;
            if self.task_set_jobctl_pending(t, gstop) {
                count += 1;
            }
            let mut others = Vec::new();
            for u in self.threads(g) {
                if u != t
                    && self.tasks[u].jobctl & JOBCTL_STOPPED == 0
                    && self.task_set_jobctl_pending(u, gstop)
                {
                    count += 1;
                    others.push(u);
                }
            }
            self.groups[g].group_stop_count = count;
            self.participate(t);
            for u in others {
                self.join_stop_now_or_later(u);
            }
            return true;
        }
        self.participate(t);
        true
    }

    /// Thread `u` has a group stop to take part in: at once
    /// ([`SignalDelivery::Immediate`]), or in its next `get_signal()`.
    fn join_stop_now_or_later(&mut self, u: TaskIx) {
        if self
            .tasks
            .get(u)
            .is_none_or(|x| x.jobctl & JOBCTL_PENDING_MASK == 0)
        {
            return;
        }
        if self.tasks[u].ptrace & PT_SEIZED == 0 {
            // signal_wake_up(t, 0) of do_signal_stop() (a seized thread's
            // ptrace_trap_notify() does the same).
            self.sigpending_in_vfork(u);
        }
        match self.delivery {
            SignalDelivery::Immediate => {
                if !self.tasks[u].traced_stop() && !self.held_in_vfork(u) {
                    self.participate(u);
                } else if self.tasks[u].ptrace & PT_SEIZED != 0 {
                    // ptrace_trap_notify(): a seized thread in a ptrace stop
                    // re-traps at once if it listens (PTRACE_LISTEN), else
                    // when resumed or told to listen; one held in vfork
                    // once its vfork is done.
                    self.ptrace_trap_notify(u);
                }
            }
            _ => {
                if self.tasks[u].ptrace & PT_SEIZED != 0 {
                    self.ptrace_trap_notify(u);
                } else {
                    self.recalc_sigpending(u);
                }
            }
        }
    }

    /// Thread `t`, with `JOBCTL_STOP_PENDING` (or a trap pending), stops:
    /// untraced, in the group stop; traced, in a group-stop trap.
    pub(crate) fn participate(&mut self, t: TaskIx) {
        if self.tasks[t].ptrace != 0 {
            self.tasks[t].jobctl |= JOBCTL_TRAP_STOP;
            self.do_jobctl_trap(t);
            return;
        }
        let done = self.task_participate_group_stop(t);
        self.tasks[t].jobctl |= JOBCTL_STOPPED;
        self.notify_task_stop(t, true);
        if done {
            self.group_stop_done(self.tasks[t].group, true);
        }
    }

    /// `task_participate_group_stop()`: `t`'s part is done; true if it was
    /// the last one of a fresh group stop (the group is now stopped).
    pub(crate) fn task_participate_group_stop(&mut self, t: TaskIx) -> bool {
        let consume = self.tasks[t].jobctl & JOBCTL_STOP_CONSUME != 0;
        self.task_clear_jobctl_pending(t, JOBCTL_STOP_PENDING);
        if !consume {
            return false;
        }
        let g = self.tasks[t].group;
        let grp = &mut self.groups[g];
        grp.group_stop_count = grp.group_stop_count.saturating_sub(1);
        grp.group_stop_count == 0 && !grp.flags.get().contains(SIGNAL_STOP_STOPPED)
    }

    /// The last thread took part: group `g` is stopped; the embedder is
    /// told, and the real parent unless `notify_parent` is false (the last
    /// thread reported to a tracer in the parent's own process).
    pub(crate) fn group_stop_done(&mut self, g: GroupIx, notify_parent: bool) {
        self.set_group_flags(
            g,
            (self.groups[g].flags.get() & !SIGNAL_STOP_CONTINUED) | SIGNAL_STOP_STOPPED,
        );
        let group = self.handle_unchecked(self.groups[g].leader);
        let sig = i32::from(self.groups[g].stop_sig);
        self.notify(Notification::Stopped { group, sig });
        if notify_parent {
            self.notify_parent_cldstop(g, CLD_STOPPED);
        }
    }

    /// `do_jobctl_trap()`: traced thread `t` enters its group-stop trap (a
    /// seized one reports `PTRACE_EVENT_STOP`, with SIGTRAP when no group
    /// stop is in effect: `PTRACE_INTERRUPT`, a re-trap after SIGCONT).
    pub(crate) fn do_jobctl_trap(&mut self, t: TaskIx) {
        let g = self.tasks[t].group;
        let mut sig = (self.tasks[t].jobctl & JOBCTL_STOP_SIGMASK) as i32;
        let code = if self.tasks[t].ptrace & PT_SEIZED != 0 {
            if self.groups[g].group_stop_count == 0
                && !self.groups[g].flags.get().contains(SIGNAL_STOP_STOPPED)
            {
                sig = SIGTRAP;
            }
            if sig == 0 {
                sig = SIGTRAP;
            }
            sig | (PTRACE_EVENT_STOP << 8)
        } else {
            if sig == 0 {
                sig = i32::from(self.groups[g].stop_sig);
            }
            sig
        };
        self.ptrace_stop(
            t,
            code,
            CLD_STOPPED,
            crate::task::ptrace::event::TrapKind::Group,
        );
    }

    /// `task_join_group_stop()`: new thread `t` of a stopping or stopped
    /// group takes part in its stop (counted if the stop is in progress).
    #[inline(always)]
    pub(crate) fn task_join_group_stop(&mut self, t: TaskIx) {
        // No group stop in progress or in effect (the usual case): one
        // test here, the rest out of line.
        let grp = &self.groups[self.tasks[t].group];
        if grp.group_stop_count > 0 || grp.flags.get().contains(SIGNAL_STOP_STOPPED) {
            self.task_join_group_stop_slow(t);
        }
    }

    /// [`Self::task_join_group_stop`] while a group stop is in progress or
    /// in effect.
    #[inline(never)]
    fn task_join_group_stop_slow(&mut self, t: TaskIx) {
        let g = self.tasks[t].group;
        let mut mask = u32::from(self.groups[g].stop_sig) & JOBCTL_STOP_SIGMASK;
        if self.groups[g].group_stop_count > 0 {
            self.groups[g].group_stop_count += 1;
            mask |= JOBCTL_STOP_CONSUME;
        } else if !self.groups[g].flags.get().contains(SIGNAL_STOP_STOPPED) {
            return;
        }
        self.task_set_jobctl_pending(t, mask | JOBCTL_STOP_PENDING);
        if self.tasks[t].ptrace & PT_SEIZED != 0 && self.tasks[t].traced_stop() {
            // A seized new thread already in its first trap
            // (`ptrace_init_task()`): that trap is the one its first
            // `get_signal()` takes for the pending stop (`do_signal_stop()`
            // -> `do_jobctl_trap()`, the stop signal reported), so it takes
            // part now and has nothing left to re-trap for
            // (tests/oracle/ptrace_edges.out, `listen_new_thread`).
            if self.task_participate_group_stop(t) {
                self.group_stop_done(g, true);
            }
            return;
        }
        self.join_stop_now_or_later(t);
    }

    /// The SIGCONT half of `prepare_signal()` for group `g`: the group stop
    /// (done or in progress) ends, its stopped threads are woken and the
    /// parent is told; every seized thread is made to re-trap
    /// (`ptrace_trap_notify()`), whether a stop was in effect or not.
    /// Returns whether a stop ended (done or cut short):
    /// its threads are to be woken, to take what was kept pending
    /// (`prepare_signal()` wakes every stopped thread either way).
    pub(crate) fn sigcont_resume(&mut self, g: GroupIx) -> bool {
        let flags = self.groups[g].flags.get();
        let why = if flags.contains(SIGNAL_STOP_STOPPED) {
            CLD_CONTINUED
        } else if self.groups[g].group_stop_count > 0 {
            CLD_STOPPED
        } else {
            0
        };
        if why != 0 {
            self.groups[g].group_stop_count = 0;
            self.set_group_exit_code(g, 0);
            // A continued group's parent learns it from the group's first
            // thread to run get_signal() (SIGNAL_CLD_CONTINUED), not from
            // the sender.
            let cld = if why == CLD_CONTINUED {
                SIGNAL_CLD_CONTINUED
            } else {
                SignalFlags::empty()
            };
            self.set_group_flags(
                g,
                (flags & !SIGNAL_STOP_STOPPED) | SIGNAL_STOP_CONTINUED | cld,
            );
        }
        // The threads run once the group's state says so: every seized
        // one re-traps (PTRACE_EVENT_STOP with SIGTRAP), stop in effect or
        // not, before it takes the SIGCONT (tests/oracle/ptrace_edges.out,
        // cases sigcont*).
        for u in self.threads(g) {
            self.task_clear_jobctl_pending(u, JOBCTL_STOP_PENDING);
            if self.tasks[u].ptrace & PT_SEIZED == 0 {
                if self.tasks[u].jobctl & JOBCTL_STOPPED != 0 {
                    self.tasks[u].jobctl &= !JOBCTL_STOPPED;
                    self.notify_task_stop(u, false);
                }
            } else {
                self.ptrace_trap_notify(u);
            }
        }
        if why == 0 {
            return false;
        }
        if why == CLD_CONTINUED {
            let group = self.handle_unchecked(self.groups[g].leader);
            self.notify(Notification::Continued { group });
            return true;
        }
        self.notify_parent_cldstop(g, why);
        true
    }

    /// Tells the embedder that thread `t` entered (`stopped`) or left a
    /// stop ([`SignalDelivery::OnGetSignal`] only: with
    /// [`SignalDelivery::Immediate`], [`Notification::Stopped`] and
    /// [`Notification::Continued`] say it for the group).
    pub(crate) fn notify_task_stop(&mut self, t: TaskIx, stopped: bool) {
        if self.delivery == SignalDelivery::Immediate {
            return;
        }
        let task = self.handle_unchecked(t);
        self.notify(if stopped {
            Notification::TaskStopped { task }
        } else {
            Notification::TaskResumed { task }
        });
    }
}
