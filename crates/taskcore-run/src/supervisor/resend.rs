//! The SIGCONT re-send state: which SIGCONTs the core applied too early
//! (at their sender's entry) and must send again once the kernel shows the
//! order it really made (`supervisor/signals.rs` drives it).
//!
//! A kill-family call is applied to the core at its entry, but the kernel
//! sends its signal at some moment before its exit. A SIGCONT applied so
//! may discard in the core a stop signal the kernel had already dequeued
//! (the target's delivery stop then comes for a stop the core no longer
//! has pending), or may reach the core before a stop signal the kernel
//! sent first. Each process (by virtual tgid) goes through these states:
//!
//! 1. **Discarded**: a SIGCONT applied at its entry discarded stop
//!    signals (bits) from the process; that SIGCONT (its sender, and the
//!    call to send again: to this process only, never a whole group again)
//!    is kept, the last one for the process.
//! 2. **Due to be sent again**: the process's delivery stop took one of
//!    those stops again ([`ContResends::take_discarded`]), so the kernel
//!    dequeued it before the SIGCONT; or a stop signal was applied while
//!    another thread's SIGCONT to the process was still in flight
//!    ([`ContResends::note_in_flight`]). The SIGCONT is sent again in the
//!    core once the kernel shows it came after the stop (the process's
//!    notify trap; its group-stop trap after the sender's exit), at most
//!    once ([`ContResends::take_due`]).
//! 3. **Cancelled**: a later SIGCONT applied to the process ends the
//!    core's stop itself ([`ContResends::cancel`]); the earlier one is not
//!    sent again (it could come after stops sent since).
//!
//! "Unordered" marks a process whose SIGCONT due to be sent again was
//! applied while another kill was in flight: a stop that one sent may
//! have followed the SIGCONT for real, so a group stop proves nothing and
//! only the notify trap sends it again ([`ContResends::is_unordered`]).
//!
//! Invariants the methods keep (the maps are private, so no caller can
//! break them): a SIGCONT is due for a process only after a discard was
//! noted and that stop taken again, or after a stop was sent while it was
//! in flight; a discarded stop is taken again at most once; a due SIGCONT
//! is sent again at most once, and not after a later SIGCONT; the
//! unordered mark is set or cleared whenever a discarding SIGCONT is
//! noted; [`ContResends::forget`] drops everything of a process that is
//! gone (its number may be given out again).

use std::collections::{HashMap, HashSet};

use taskcore::sys::Syscall;
use taskcore::TaskId;

/// A SIGCONT to send again: its sender and the call.
pub(super) type Cont = (TaskId, Syscall);

/// The per-process SIGCONT re-send state (virtual tgids).
#[derive(Debug, Default)]
pub(super) struct ContResends {
    /// Stop signals (bits) a SIGCONT applied at its sender's entry
    /// discarded, which the kernel may have dequeued before it was sent.
    discarded: HashMap<i32, u64>,
    /// The SIGCONT that discarded them, the last one noted.
    discarding: HashMap<i32, Cont>,
    /// SIGCONTs due to be sent again when the kernel shows they came
    /// after the stop.
    due: HashMap<i32, Cont>,
    /// Processes whose due SIGCONT was applied while another kill was in
    /// flight.
    unordered: HashSet<i32>,
}

impl ContResends {
    /// SIGCONT `cont` applied at its entry discarded stop signals `bits`
    /// from process `v`; `unordered`: another thread's kill was in flight
    /// then. `cont` `None` (no call names the process alone): the stops
    /// are noted, and the SIGCONT and mark noted before are kept.
    pub(super) fn note_discard(&mut self, v: i32, bits: u64, cont: Option<Cont>, unordered: bool) {
        *self.discarded.entry(v).or_default() |= bits;
        let Some(cont) = cont else {
            return;
        };
        self.discarding.insert(v, cont);
        if unordered {
            self.unordered.insert(v);
        } else {
            self.unordered.remove(&v);
        }
    }

    /// A stop signal was applied to process `v` while SIGCONT `cont`,
    /// applied before it, was in flight: `cont` is due to be sent again at
    /// the process's notify trap only.
    pub(super) fn note_in_flight(&mut self, v: i32, cont: Cont) {
        self.due.insert(v, cont);
        self.unordered.insert(v);
    }

    /// A SIGCONT reached process `v` in the core: an earlier one due is
    /// not sent again.
    pub(super) fn cancel(&mut self, v: i32) {
        self.due.remove(&v);
    }

    /// Whether stop signal bit `bit` of process `v` was discarded by a
    /// SIGCONT (and not taken since): if so it is taken, and that SIGCONT
    /// becomes due to be sent again.
    pub(super) fn take_discarded(&mut self, v: i32, bit: u64) -> bool {
        match self.discarded.get_mut(&v) {
            Some(bits) if *bits & bit != 0 => {
                *bits &= !bit;
                if let Some(c) = self.discarding.remove(&v) {
                    self.due.insert(v, c);
                }
                true
            }
            _ => false,
        }
    }

    /// Whether any SIGCONT is due (a cheap test before a scan).
    pub(super) fn any_due(&self) -> bool {
        !self.due.is_empty()
    }

    /// The sender of the SIGCONT due for process `v`, if one is.
    pub(super) fn due_sender(&self, v: i32) -> Option<TaskId> {
        self.due.get(&v).map(|c| c.0)
    }

    /// Whether process `v`'s due SIGCONT may have come before a stop sent
    /// by another kill in flight.
    pub(super) fn is_unordered(&self, v: i32) -> bool {
        self.unordered.contains(&v)
    }

    /// The SIGCONT due for process `v`, taken out (sent again once).
    pub(super) fn take_due(&mut self, v: i32) -> Option<Cont> {
        self.due.remove(&v)
    }

    /// Process `v` is gone.
    pub(super) fn forget(&mut self, v: i32) {
        self.discarded.remove(&v);
        self.discarding.remove(&v);
        self.due.remove(&v);
        self.unordered.remove(&v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cont(sig: i32) -> Cont {
        let k = taskcore::Kernel::new(taskcore::Config::default()).unwrap();
        (k.init_task().unwrap(), Syscall::Kill { pid: 4, sig })
    }

    #[test]
    fn a_discarded_stop_taken_again_makes_its_sigcont_due_once() {
        let mut r = ContResends::default();
        let stop = 1u64 << (libc::SIGSTOP - 1);
        r.note_discard(4, stop, Some(cont(libc::SIGCONT)), false);
        assert!(!r.any_due());
        assert!(!r.take_discarded(4, 1 << (libc::SIGTSTP - 1)));
        assert!(r.take_discarded(4, stop));
        assert!(!r.take_discarded(4, stop), "taken once");
        assert!(r.any_due() && !r.is_unordered(4));
        assert!(r.take_due(4).is_some());
        assert!(r.take_due(4).is_none(), "sent again once");
    }

    #[test]
    fn a_later_sigcont_cancels_the_one_due() {
        let mut r = ContResends::default();
        let stop = 1u64 << (libc::SIGSTOP - 1);
        r.note_discard(4, stop, Some(cont(libc::SIGCONT)), true);
        assert!(r.take_discarded(4, stop));
        assert!(r.is_unordered(4));
        r.cancel(4);
        assert!(r.take_due(4).is_none());
        // A later discard with nothing in flight clears the mark.
        r.note_discard(4, stop, Some(cont(libc::SIGCONT)), false);
        assert!(!r.is_unordered(4));
        r.note_in_flight(5, cont(libc::SIGCONT));
        assert!(r.is_unordered(5) && r.due_sender(5).is_some());
        r.forget(5);
        assert!(!r.is_unordered(5) && r.due_sender(5).is_none());
    }
}
