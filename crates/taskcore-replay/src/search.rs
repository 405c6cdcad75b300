//! Finding an order of effects the recording allows.
//!
//! strace shows each call between the line where it entered (`<unfinished
//! ...>`) and the line where it returned; the kernel applied its effect at
//! some instant in that window. Two calls whose windows overlap may have
//! taken effect in either order (a parent's `setpgid` on a child while the
//! child runs `setpgid(0, 0)`; a `setpgid` on a process while it is inside
//! `clone`). The engine first places every event at a default point of its
//! window. When a result then disagrees with the recording, the search tries
//! moving one nearby event to another point of its own window; a move is
//! kept only if it removes mismatches without adding any over the verified
//! stretch after it. A mismatch no legal move removes is reported: no order
//! of effects the recording allows gives the recorded result.
//!
//! This module generates the candidate moves; [`crate::replayer`] runs them
//! from a checkpoint (so a search costs the events around the mismatch, and
//! nothing at all when there is none).

use std::sync::Arc;

use crate::engine::pidmap::PidMap;
use crate::engine::Engine;
use crate::event::{Event, Kind};

/// How far back from a mismatch to look for an event to move.
pub(crate) const LOOK_BACK: u64 = 64;
/// How far past a mismatch a candidate order is run before it is judged.
pub(crate) const HORIZON: u64 = 96;
/// How far past a mismatch a promising candidate is run, and compared with
/// the default order, before it is kept.
pub(crate) const VERIFY: u64 = 1024;
/// Verified runs tried per mismatch, at most.
pub(crate) const MAX_FULL_RUNS: usize = 16;
/// Candidate orders tried per mismatch, at most.
const MAX_TRIES: usize = 3000;

/// One candidate: the event at relative index `q` is removed and inserted
/// at index `to` of what remains; `with`: a later event (the task's reap,
/// when `q` is its death moved past it) that then moves to just after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Move {
    pub(crate) q: usize,
    pub(crate) to: usize,
    pub(crate) with: Option<usize>,
}

impl Move {
    /// Moves event `q` to index `to`, alone.
    pub(crate) fn one(q: usize, to: usize) -> Move {
        Move { q, to, with: None }
    }

    /// The first index whose event changes.
    pub(crate) fn from(self) -> usize {
        self.q.min(self.to)
    }

    /// The old index of the event at each new index of `n` events.
    pub(crate) fn order(self, n: usize) -> Vec<usize> {
        let mut v: Vec<usize> = (0..n).collect();
        if self.q >= n || self.to >= n {
            return v;
        }
        let x = v.remove(self.q);
        v.insert(self.to, x);
        if let Some(w) = self.with {
            let at = |v: &[usize], i: usize| v.iter().position(|&j| j == i);
            if let (Some(iw), Some(iq)) = (at(&v, w), at(&v, self.q)) {
                if iw < iq {
                    let y = v.remove(iw);
                    v.insert(iq, y);
                }
            }
        }
        v
    }
}

/// Moves of one event near relative index `p` of `slice` to another point
/// of its window, nearest first.
pub(crate) fn candidates(slice: &[Arc<Event>], p: usize) -> Vec<Move> {
    let mut out = Vec::new();
    let look = LOOK_BACK as usize;
    let lo_pos = p.saturating_sub(look);
    let hi_pos = (p + look).min(slice.len().saturating_sub(1));
    // A later event whose window contains the mismatching one's point may
    // have taken effect before it (a kill that completed after the
    // victim's `--- SIG` line): pulled to just before it.
    if let Some(k) = slice.get(p).map(|e| Engine::key(e)) {
        for (q, x) in slice.iter().enumerate().take(hi_pos + 1).skip(p + 1) {
            if x.entry_line < k && k <= x.line && !x.kind.is_clone() {
                out.push(Move::one(q, p));
            }
        }
    }
    for q in (lo_pos..=p).rev() {
        let x = &slice[q];
        let (lo, hi) = (x.entry_line, x.line);
        if lo == hi {
            continue;
        }
        for (t, y) in slice.iter().enumerate().take(hi_pos + 1).skip(lo_pos) {
            if t == q {
                continue;
            }
            let k = Engine::key(y);
            // Just before slice[t], or just after it: either point must lie
            // in x's window.
            for before in [true, false] {
                let legal = if before {
                    k > lo && k <= hi
                } else {
                    k >= lo && k < hi
                };
                if !legal {
                    continue;
                }
                let at = if t > q { t - 1 } else { t };
                let to = if before { at } else { at + 1 };
                if to == q {
                    continue;
                }
                out.push(Move::one(q, to));
                if out.len() >= MAX_TRIES {
                    return out;
                }
            }
        }
    }
    out
}

/// Moves of the death of a task involved in a mismatch at `p`, or of one of
/// its ancestors, to another point of its window: deaths reparent
/// children, and so decide a child's place among its new parent's
/// children, which `wait` reports in order.
pub(crate) fn targeted(
    slice: &[Arc<Event>],
    p: usize,
    involved: &[i32],
    pids: &PidMap,
) -> Vec<Move> {
    let mut chain = Vec::new();
    for &pid in involved {
        let mut cur = Some(pid);
        for _ in 0..8 {
            let Some(c) = cur else { break };
            chain.push(c);
            cur = pids.creator(c);
        }
    }
    let is_death = |q: usize| matches!(slice[q].kind, Kind::Die { .. });
    let movable: Vec<usize> = (0..p.min(slice.len()))
        .filter(|&q| {
            let e = &slice[q];
            is_death(q) && chain.contains(&e.pid) && e.entry_line < e.line
        })
        .collect();
    // Deaths reparent and clones append: either may decide an order.
    let anchors: Vec<usize> = (0..p.min(slice.len()))
        .filter(|&q| is_death(q) || slice[q].kind.is_clone())
        .collect();
    let mut out = Vec::new();
    for &q in movable.iter().rev() {
        let x = &slice[q];
        for &t in &anchors {
            let k = Engine::key(&slice[t]);
            // Just before slice[t], or just after it: either point must lie
            // in x's window.
            for before in [true, false] {
                let legal = if before {
                    k > x.entry_line && k <= x.line
                } else {
                    k >= x.entry_line && k < x.line
                };
                if t == q || !legal {
                    continue;
                }
                let pos = if before { t } else { t + 1 };
                let to = if pos > q { pos - 1 } else { pos };
                if to == q {
                    continue;
                }
                // A death moved past its own reap takes the reap along,
                // when the reap's window reaches the new point (under
                // -qq it runs to the first line that reports the task).
                let with = (q + 1..pos.min(slice.len())).find(|&w| {
                    let r = &slice[w];
                    r.pid == x.pid && matches!(r.kind, Kind::Exited { .. } | Kind::Killed { .. })
                });
                if with.is_some_and(|w| slice[w].line < k) {
                    continue;
                }
                out.push(Move { q, to, with });
                if out.len() >= MAX_TRIES {
                    return out;
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::Move;

    fn apply(n: usize, m: Move) -> Vec<usize> {
        let mut v: Vec<usize> = (0..n).collect();
        let x = v.remove(m.q);
        v.insert(m.to, x);
        v
    }

    #[test]
    fn order_removes_and_inserts() {
        for n in 1..7 {
            for q in 0..n {
                for to in 0..n {
                    let m = Move::one(q, to);
                    let want = apply(n, m);
                    assert_eq!(m.order(n), want, "{m:?}");
                    assert!((0..m.from()).all(|i| want[i] == i));
                }
            }
        }
    }

    #[test]
    fn a_pair_keeps_its_second_event_after_the_first() {
        // 1 moves to the end past 3, which follows it.
        let m = Move {
            q: 1,
            to: 4,
            with: Some(3),
        };
        assert_eq!(m.order(5), vec![0, 2, 4, 1, 3]);
        // The second already after it: nothing more moves.
        let m = Move {
            q: 1,
            to: 2,
            with: Some(4),
        };
        assert_eq!(m.order(5), vec![0, 2, 1, 3, 4]);
    }
}
