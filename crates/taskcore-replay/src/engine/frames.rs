//! Handler frames an order the recording allows never set up.
//!
//! Under strace, a thread dequeues a signal into its signal-delivery-stop
//! (the `---` line) and only after strace resumes it does `get_signal()`
//! read the action (`kernel/signal.c`: `ka = &sighand->action[signr-1]`
//! after `ptrace_signal()`): `SIG_IGN` discards the signal, a handler
//! gets a frame. Another thread's `rt_sigaction` on that signal whose
//! window (entry to return) overlaps the read's (from the `---` line to
//! the thread's next line: a `SIG_IGN` entered just after the `---` line
//! may be first) took effect before that read or after it; the recording
//! shows which only later, by the thread's next lines. The engine applies the
//! `rt_sigaction` at its return, so a frame is set up where Linux may
//! have discarded the signal.
//!
//! Such a frame is kept with a note that it may not exist. It is undone
//! (popped, its saved mask restored: the state had the signal been
//! discarded) at the first line of the thread that only the absence of the
//! frame explains:
//! - a `---` line of a signal the frame blocks, the mask it saved does
//!   not, with no `rt_sigreturn` between (a handler runs with its signal
//!   blocked, `SA_NODEFER` aside, until it returns);
//! - an `rt_sigprocmask` whose recorded old mask is the frame's saved one
//!   and not the frame's;
//! - an `rt_sigreturn` whose recorded mask is the one the frame below
//!   saved and not the frame's own.
//!
//!
//! The converse: a `---` line the emulation took as ignored, where
//! another thread's `rt_sigaction` setting a handler overlapped the read.
//! An `rt_sigreturn` of the thread as its next line, with no frame open,
//! is that handler's: its recorded mask is checked against the one the
//! thread had at the `---` line.
//!
//! Each undo, and each such handler, is counted under `learned`.

use taskcore::uapi::sig_kernel_ignore;
use taskcore::{SigAction, SigHandler, TaskId};

use super::state::IgnoredTake;
use super::Engine;
use crate::event::Event;
use crate::sigbit::bit;

/// What `learned` counts a handler found run after all as.
const RUN: &str = "handler run (another thread's rt_sigaction open at the --- line)";

/// What `learned` counts an undone frame as.
const UNDONE: &str = "handler not run (another thread's rt_sigaction open at the --- line)";

impl Engine {
    /// After `cur`'s `rt_sigaction` of `e` set `sig` to `act`: the frames
    /// of `sig` set up by the other threads of its process inside the
    /// call's window may not exist, if `act` discards the signal.
    pub(super) fn note_concurrent_action(
        &mut self,
        e: &Event,
        cur: TaskId,
        sig: i32,
        act: &SigAction,
    ) {
        let discards = match act.handler {
            SigHandler::Ignore => true,
            SigHandler::Default => sig_kernel_ignore(sig),
            _ => false,
        };
        let Ok(tgid) = self.k.getpid(cur) else {
            return;
        };
        let (lo, hi) = (e.entry_line, e.line);
        if act.handler == SigHandler::Handler && !self.sig.ignored_takes.is_empty() {
            for (t, x) in self.sig.ignored_takes.iter_mut() {
                if *t != cur
                    && x.sig == sig
                    && x.line < hi
                    && x.next_line.is_none_or(|n| lo < n)
                    && self.k.getpid(*t) == Ok(tgid)
                {
                    x.maybe_handled = true;
                }
            }
        }
        if !discards || self.sig.frames.is_empty() {
            return;
        }
        for (t, frames) in self.sig.frames.iter_mut() {
            if *t == cur || self.k.getpid(*t) != Ok(tgid) {
                continue;
            }
            if let Some(f) = frames.last_mut() {
                // The action is read between the `---` line and the
                // thread's next line: the call's window overlaps that.
                if f.sig == sig && f.line < hi && f.next_line.is_none_or(|n| lo < n) {
                    f.maybe_not = true;
                }
            }
        }
    }

    /// Before `cur`'s event `e`: the first line of the thread after its
    /// innermost frame was set up ends the frame's decision window.
    pub(super) fn note_thread_line(&mut self, cur: TaskId, e: &Event) {
        if !self.sig.ignored_takes.is_empty() {
            if let Some(x) = self.sig.ignored_takes.get_mut(&cur) {
                x.next_line.get_or_insert(e.entry_line);
            }
        }
        if self.sig.frames.is_empty() {
            return;
        }
        if let Some(f) = self.sig.frames.get_mut(&cur).and_then(|v| v.last_mut()) {
            f.next_line.get_or_insert(e.entry_line);
        }
    }

    /// Undoes `cur`'s innermost frame if it may not exist and `absent`
    /// (given the frame's saved mask, the mask below it if any, and the
    /// mask the frame set) says only its absence explains the line.
    /// Returns whether it did.
    pub(super) fn undo_frame_if(
        &mut self,
        cur: TaskId,
        absent: impl Fn(u64, Option<u64>, u64) -> bool,
    ) -> bool {
        let Some(frames) = self.sig.frames.get(&cur) else {
            return false;
        };
        let Some(f) = frames.last().copied() else {
            return false;
        };
        let below = frames.len().checked_sub(2).map(|i| frames[i].old_mask);
        let now = self.k.sigmask(cur).unwrap_or(0);
        if !f.maybe_not || !absent(f.old_mask, below, now) {
            return false;
        }
        if let Some(v) = self.sig.frames.get_mut(&cur) {
            v.pop();
        }
        let _ = self.k.rt_sigreturn(cur, f.old_mask);
        *self.stats.learned.entry(UNDONE.into()).or_default() += 1;
        true
    }

    /// At a `---` line of `sig`: a frame that blocks `sig` and whose saved
    /// mask does not is undone, if it may not exist.
    pub(super) fn undo_frame_blocking(&mut self, cur: TaskId, sig: i32) -> bool {
        let b = bit(sig);
        self.undo_frame_if(cur, |saved, _, now| now & b != 0 && saved & b == 0)
    }

    /// At thread `cur`'s `---` line `e` of `sig`, which it ignored.
    pub(super) fn note_ignored_take(&mut self, e: &Event, cur: TaskId, sig: i32) {
        let mask = self.k.sigmask(cur).unwrap_or(0);
        self.sig.ignored_takes.insert(
            cur,
            IgnoredTake {
                sig,
                line: e.line,
                mask,
                next_line: None,
                maybe_handled: false,
            },
        );
    }

    /// At thread `cur`'s `rt_sigreturn` `e` with no frame open: the handler
    /// of its last ignored `---` line ran after all, if an order allows it
    /// and this is the thread's next line. Returns the mask that handler's
    /// frame saved.
    pub(super) fn handled_after_all(&mut self, cur: TaskId, e: &Event) -> Option<u64> {
        let x = self.sig.ignored_takes.get(&cur).copied()?;
        if !x.maybe_handled || x.next_line != Some(e.entry_line) {
            return None;
        }
        self.sig.ignored_takes.remove(&cur);
        *self.stats.learned.entry(RUN.into()).or_default() += 1;
        Some(x.mask)
    }
}
