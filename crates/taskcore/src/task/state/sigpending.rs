//! Pending signals: a set of signal numbers and, beside it, the queue of
//! their `siginfo` (`struct sigpending`: `signal` and `list`).
//!
//! Each thread has one (`task->pending`, signals sent to that thread by
//! `tkill`/`tgkill`/`rt_tgsigqueueinfo` or raised by a fault) and each
//! thread group has one (`signal->shared_pending`, signals sent to the
//! process). A standard signal (1..=31) is pending at most once: a second
//! one sent while the first is pending is dropped (`legacy_queue()`). A
//! real-time signal (32..=64) is queued once per send, each with its own
//! siginfo, in order.
//!
//! A queue entry is what `RLIMIT_SIGPENDING` counts. When no entry can be
//! had (over the limit), a standard signal, or a real-time one sent by
//! `kill`, is still made pending, without its siginfo; it is then dequeued
//! with an empty `SI_USER` siginfo (`collect_signal()`).
//!
//! # Memory
//! An empty set costs 8 bytes (a `None` box): the set and its queue are
//! allocated with the first pending signal and freed with the last.
//!
//! # Linux
//! include/linux/signal_types.h `struct sigpending`; kernel/signal.c
//! `__send_signal_locked()`, `legacy_queue()`, `next_signal()`,
//! `collect_signal()`, `flush_sigqueue_mask()`.

use std::collections::VecDeque;

use crate::types::SigInfo;
use crate::uapi::{SIGBUS, SIGFPE, SIGILL, SIGSEGV, SIGSYS, SIGTRAP, SI_USER};

/// Bit of signal `sig` (1..=64) in a signal set.
pub(crate) const fn sigmask(sig: i32) -> u64 {
    1u64 << (sig - 1)
}

/// Signals dequeued before the others (`SYNCHRONOUS_MASK`): SIGSEGV,
/// SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGSYS.
pub(crate) const SYNCHRONOUS_MASK: u64 = sigmask(SIGSEGV)
    | sigmask(SIGBUS)
    | sigmask(SIGILL)
    | sigmask(SIGTRAP)
    | sigmask(SIGFPE)
    | sigmask(SIGSYS);

/// `next_signal()`: of the signals in `set`, the one dequeued first: a
/// synchronous one if any, else the lowest number.
pub(crate) fn next_signal(set: u64) -> Option<i32> {
    if set == 0 {
        return None;
    }
    let x = if set & SYNCHRONOUS_MASK != 0 {
        set & SYNCHRONOUS_MASK
    } else {
        set
    };
    Some(x.trailing_zeros() as i32 + 1)
}

/// One queued siginfo (`struct sigqueue`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SigQueue {
    pub(crate) sig: i32,
    pub(crate) info: SigInfo,
    /// The real uid whose `RLIMIT_SIGPENDING` count this entry holds.
    pub(crate) uid: u32,
}

/// A pending set (`struct sigpending`).
///
/// Eight bytes: `None` while nothing is pending (almost every task and
/// thread group, always), else a box with the set and the queue. The box
/// goes when the set empties (then its queue is empty too: every entry's
/// signal is in the set).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct SigPending(Option<Box<Pending>>);

/// What a non-empty [`SigPending`] holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Pending {
    /// The pending signals, bit `sig - 1`; never 0 in a stored box.
    signal: u64,
    /// Their siginfo, in send order.
    list: VecDeque<SigQueue>,
}

impl SigPending {
    /// The pending signals (`signal`), bit `sig - 1`.
    #[inline(always)]
    pub(crate) fn signal(&self) -> u64 {
        match &self.0 {
            Some(p) => p.signal,
            None => 0,
        }
    }

    /// Whether `sig` is pending.
    pub(crate) fn has(&self, sig: i32) -> bool {
        self.signal() & sigmask(sig) != 0
    }

    /// Marks `sig` pending, with a queue entry if `entry` is given.
    pub(crate) fn add(&mut self, sig: i32, entry: Option<SigQueue>) {
        let p = self.0.get_or_insert_with(Default::default);
        p.signal |= sigmask(sig);
        if let Some(q) = entry {
            p.list.push_back(q);
        }
    }

    /// Drops the box once the set is empty.
    #[inline]
    fn tidy(&mut self) {
        if self.0.as_ref().is_some_and(|p| p.signal == 0) {
            debug_assert!(self.0.as_ref().is_some_and(|p| p.list.is_empty()));
            self.0 = None;
        }
    }

    /// `collect_signal()`: takes `sig` off the set, returning its first
    /// queued siginfo (or an empty `SI_USER` one if it had none) and the
    /// entry's accounting uid. `sig` stays pending if another entry of it
    /// is queued.
    pub(crate) fn collect(&mut self, sig: i32) -> (SigInfo, Option<u32>) {
        let info = || SigInfo {
            signo: sig,
            code: SI_USER,
            ..SigInfo::default()
        };
        let Some(p) = self.0.as_deref_mut() else {
            return (info(), None);
        };
        let mut first = None;
        let mut still = false;
        for (i, q) in p.list.iter().enumerate() {
            if q.sig == sig {
                if first.is_some() {
                    still = true;
                    break;
                }
                first = Some(i);
            }
        }
        let out = match first.and_then(|i| p.list.remove(i)) {
            Some(q) => (q.info, Some(q.uid)),
            None => (info(), None),
        };
        if !still {
            p.signal &= !sigmask(sig);
        }
        self.tidy();
        out
    }

    /// `flush_sigqueue_mask()`: removes the signals of `mask`, calling
    /// `uncharge` with each freed entry's accounting uid. The common case,
    /// nothing of `mask` pending (every exit flushes), is one test inlined
    /// at the caller.
    #[inline(always)]
    pub(crate) fn flush_mask(&mut self, mask: u64, uncharge: impl FnMut(u32)) {
        if self.signal() & mask != 0 {
            self.flush_mask_slow(mask, uncharge);
        }
    }

    #[inline(never)]
    fn flush_mask_slow(&mut self, mask: u64, mut uncharge: impl FnMut(u32)) {
        if let Some(p) = self.0.as_deref_mut() {
            p.signal &= !mask;
            p.list.retain(|q| {
                let gone = sigmask(q.sig) & mask != 0;
                if gone {
                    uncharge(q.uid);
                }
                !gone
            });
        }
        self.tidy();
    }

    /// The queued entries, oldest first.
    #[cfg(test)]
    pub(crate) fn entries(&self) -> impl Iterator<Item = &SigQueue> {
        self.0.iter().flat_map(|p| p.list.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(sig: i32, value: u64) -> Option<SigQueue> {
        Some(SigQueue {
            sig,
            info: SigInfo {
                signo: sig,
                value,
                ..SigInfo::default()
            },
            uid: 0,
        })
    }

    #[test]
    fn rt_entries_dequeue_in_order_and_the_bit_stays_until_the_last() {
        let mut p = SigPending::default();
        p.add(40, q(40, 1));
        p.add(40, q(40, 2));
        assert_eq!(p.collect(40).0.value, 1);
        assert!(p.has(40));
        assert_eq!(p.collect(40).0.value, 2);
        assert!(!p.has(40));
        assert_eq!(p, SigPending::default());
    }

    #[test]
    fn a_signal_without_entry_dequeues_as_si_user() {
        let mut p = SigPending::default();
        p.add(10, None);
        let (info, uid) = p.collect(10);
        assert_eq!(
            (info.signo, info.code, info.pid, uid),
            (10, SI_USER, 0, None)
        );
    }

    #[test]
    fn next_signal_prefers_synchronous_then_lowest() {
        assert_eq!(next_signal(sigmask(2) | sigmask(11)), Some(11));
        assert_eq!(next_signal(sigmask(2) | sigmask(40)), Some(2));
        assert_eq!(next_signal(0), None);
    }

    #[test]
    fn flush_mask_uncharges_each_entry() {
        let mut p = SigPending::default();
        p.add(40, q(40, 1));
        p.add(41, q(41, 1));
        p.add(40, q(40, 2));
        let mut freed = 0;
        p.flush_mask(sigmask(40), |_| freed += 1);
        assert_eq!(freed, 2);
        assert_eq!(p.signal(), sigmask(41));
        assert_eq!(p.entries().count(), 1);
    }
}
