//! Signals consumed where the trace cannot see: a `read()` of a signalfd
//! (outside any `-e trace=` class that names process calls).
//!
//! Linux delivers a pending signal that a mask change unblocks before the
//! thread returns to user space (the thread's `get_signal()` runs on the
//! way out of the unblocking call, and under strace each dequeue is a
//! signal-delivery-stop, printed as a `--- SIGxxx` line; see
//! [`signals`](super::signals)). So after a thread's call that unblocks a
//! signal the core still holds for it, the thread's next lines show the
//! signal's `---` line before any other call of that thread but the
//! `rt_sigreturn` of a handler run there. When they do not, the signal was
//! no longer pending in Linux: something the trace does not show consumed
//! it. The engine then dequeues it in the core (counted under `learned`),
//! so a later send of the same signal is not lost to a stale pending one.
//! A thread whose next call the lookahead does not hold yet decides
//! nothing, and neither does a signal a later `---` line of the lookahead
//! delivers with the siginfo the core holds (the core queued it before
//! Linux did).
//!
//! Only a process that opened a signalfd (its `signalfd4` line, or its
//! parent's before a fork) is inferred so: elsewhere a signal the core
//! holds that Linux did not deliver is the emulation's early send (a death
//! applied at the kill that caused it), not a consumption. A sigwait the
//! filter hid (rt_sigtimedwait outside `-e trace=`) is therefore not
//! inferred.

use taskcore::{SigInfo, SigWait, TaskId};

use super::Engine;
use crate::sigbit::bit;

impl Engine {
    /// After thread `cur`'s call changed its mask from `before`:
    /// dequeues the signals it unblocked whose delivery its next lines do
    /// not show (see the module docs).
    pub(super) fn consumed_unseen(&mut self, cur: TaskId, before: u64) {
        if !self
            .leader_of(cur)
            .is_ok_and(|l| self.sig.signalfd.contains(&l))
        {
            return;
        }
        let Ok(after) = self.k.sigmask(cur) else {
            return;
        };
        let Ok((p, s)) = self.k.pending_signals(cur) else {
            return;
        };
        let Some(u) = self.facts.unblocked.as_ref() else {
            return;
        };
        let unseen = (p | s) & before & !after & !u.taken;
        if !u.decided || unseen == 0 {
            return;
        }
        for sig in 1..=64 {
            if unseen & bit(sig) == 0 {
                continue;
            }
            // A real-time signal may be queued more than once.
            loop {
                // What a dequeue would take, read on a copy: only when the
                // lookahead shows no later delivery of it (the core may
                // have queued it before Linux did, e.g. a SIGCHLD of a
                // death it applied at the kill) is it dequeued.
                let got = match self.k.snapshot().rt_sigtimedwait(cur, bit(sig), true) {
                    Ok(SigWait::Signal(got)) => got,
                    _ => break,
                };
                if self.delivered_later(cur, sig, &got) {
                    break;
                }
                let _ = self.k.rt_sigtimedwait(cur, bit(sig), true);
                *self
                    .stats
                    .learned
                    .entry("signal consumed outside the trace (no --- line once unblocked)".into())
                    .or_default() += 1;
            }
        }
    }

    /// Whether a later `--- SIGxxx` line of the lookahead (after `e`)
    /// delivers `sig` with the siginfo `got` the core holds for `cur`.
    fn delivered_later(&self, cur: TaskId, sig: i32, got: &SigInfo) -> bool {
        let nested = self.nested(cur);
        let Some(u) = self.facts.unblocked.as_ref() else {
            return false;
        };
        u.later.iter().any(|a| {
            a.sig == sig
                && a.code == got.code
                && a.pid.is_none_or(|p| {
                    (nested && p == got.pid) || self.pids.same_id(p, got.pid, &self.world.outside)
                })
        })
    }

    /// `cur`'s process opened a signalfd (a successful `signalfd` or
    /// `signalfd4` line, a call the replay does not model otherwise).
    pub(super) fn opened_signalfd(&mut self, cur: TaskId) {
        if let Ok(l) = self.leader_of(cur) {
            self.sig.signalfd.insert(l);
        }
    }

    /// A new process `child` forked by `parent` (not a thread: `thread`)
    /// shares its parent's open signalfds.
    pub(super) fn signalfd_after_clone(&mut self, parent: TaskId, child: TaskId, thread: bool) {
        if thread {
            return;
        }
        if let (Ok(pl), Ok(cl)) = (self.leader_of(parent), self.leader_of(child)) {
            if self.sig.signalfd.contains(&pl) {
                self.sig.signalfd.insert(cl);
            }
        }
    }

    /// Forgets processes that are gone.
    pub(super) fn sweep_signalfd(&mut self) {
        let k = &self.k;
        self.sig.signalfd.retain(|t| k.getpid(*t).is_ok());
    }
}
