//! Ignored signals a tracee keeps.
//!
//! `sig_ignored()` (`kernel/signal.c`) does not discard a signal sent to a
//! traced task, though its action is to ignore it: it is queued, and
//! `get_signal()` reads the action only after the signal-delivery-stop
//! (strace's `---` line). Under `strace -f` every task is traced; the
//! emulation's are not, so the core discards such a signal at the send.
//! If the action changes to a handler before the thread dequeues it,
//! Linux runs the handler: another thread toggling a signal between a
//! handler and `SIG_IGN` while the signal is sent (CPython's
//! `test_stress_modifying_handlers`).
//!
//! So a kill, tgkill or tkill of one target that the core would discard
//! as ignored is noted here, as strace's tracing keeps it: at the target's
//! `---` line of that signal, once the action is a handler or the
//! default, the kept signal is queued and delivered. An `rt_sigaction`
//! that makes the signal ignored discards the kept ones, as Linux's
//! `do_sigaction()` flushes a pending signal whose action becomes
//! ignoring; a `---` line of the signal while it is ignored dequeues one.

use taskcore::uapi::{sig_kernel_ignore, SIGKILL};
use taskcore::{SigAction, SigHandler, TaskId};

use super::sigbit::bit;
use super::Engine;

/// Signals kept per process, at most (a standard signal is kept once).
const KEPT_MAX: usize = 64;

/// A signal the core discarded at its send that Linux kept queued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Kept {
    /// The signal.
    pub(super) sig: i32,
    /// The thread it was sent to, or `None` for the process.
    pub(super) thread: Option<TaskId>,
}

impl Engine {
    /// Before a send of `sig` to `target` (a thread if `thread`, else its
    /// process): notes it if the core will discard it as ignored.
    pub(super) fn note_kept_send(&mut self, target: TaskId, sig: i32, thread: bool) {
        if !(1..=64).contains(&sig) || sig == SIGKILL {
            return;
        }
        if self.k.sigmask(target).unwrap_or(0) & bit(sig) != 0 || !self.ignores(target, sig) {
            return;
        }
        let Ok(leader) = self.leader_of(target) else {
            return;
        };
        let k = Kept {
            sig,
            thread: thread.then_some(target),
        };
        let v = self.sig.kept.entry(leader).or_default();
        if (sig < 32 && v.contains(&k)) || v.len() >= KEPT_MAX {
            return; // legacy_queue(): a standard signal is pending once
        }
        v.push(k);
    }

    /// Takes a kept `sig` that thread `cur` can dequeue (sent to it or to
    /// its process); returns whether there was one.
    pub(super) fn take_kept(&mut self, cur: TaskId, sig: i32) -> bool {
        let Ok(leader) = self.leader_of(cur) else {
            return false;
        };
        let Some(v) = self.sig.kept.get_mut(&leader) else {
            return false;
        };
        let Some(i) = v
            .iter()
            .position(|k| k.sig == sig && k.thread.is_none_or(|t| t == cur))
        else {
            return false;
        };
        v.remove(i);
        if v.is_empty() {
            self.sig.kept.remove(&leader);
        }
        true
    }

    /// After `cur`'s `rt_sigaction` set `sig` to `act`: an ignoring action
    /// discards the kept ones of its process.
    pub(super) fn flush_kept(&mut self, cur: TaskId, sig: i32, act: &SigAction) {
        let discards = match act.handler {
            SigHandler::Ignore => true,
            SigHandler::Default => sig_kernel_ignore(sig),
            _ => false,
        };
        if !discards || self.sig.kept.is_empty() {
            return;
        }
        if let Ok(leader) = self.leader_of(cur) {
            if let Some(v) = self.sig.kept.get_mut(&leader) {
                v.retain(|k| k.sig != sig);
            }
        }
    }
}
