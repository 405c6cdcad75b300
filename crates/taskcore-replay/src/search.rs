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
/// at index `to` of what remains.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Move {
    pub(crate) q: usize,
    pub(crate) to: usize,
}

impl Move {
    /// The first index whose event changes.
    pub(crate) fn from(self) -> usize {
        self.q.min(self.to)
    }

    /// The old index of the event at new index `i`.
    pub(crate) fn source(self, i: usize) -> usize {
        let Move { q, to } = self;
        if q < to && (q..to).contains(&i) {
            i + 1
        } else if to < q && i > to && i <= q {
            i - 1
        } else if i == to {
            q
        } else {
            i
        }
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
                out.push(Move { q, to: p });
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
                out.push(Move { q, to });
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
            if t == q || k <= x.entry_line || k > x.line {
                continue;
            }
            let to = if t > q { t - 1 } else { t };
            if to == q {
                continue;
            }
            out.push(Move { q, to });
            if out.len() >= MAX_TRIES {
                return out;
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
    fn source_inverts_remove_and_insert() {
        for n in 1..7 {
            for q in 0..n {
                for to in 0..n {
                    let m = Move { q, to };
                    let want = apply(n, m);
                    let got: Vec<usize> = (0..n).map(|i| m.source(i)).collect();
                    assert_eq!(got, want, "{m:?}");
                    assert!((0..m.from()).all(|i| want[i] == i));
                }
            }
        }
    }
}
