//! Finding an order of effects the recording allows.
//!
//! strace shows each call between the line where it entered (`<unfinished
//! ...>`) and the line where it returned; the kernel applied its effect at
//! some instant in that window. Two calls whose windows overlap may have
//! taken effect in either order (a parent's `setpgid` on a child while the
//! child runs `setpgid(0, 0)`; a `setpgid` on a process while it is inside
//! `clone`). The engine first places every event at a default point of its
//! window. When a result then disagrees with the recording, this module
//! tries moving one nearby event to another point of its own window; a move
//! is kept only if it removes mismatches without adding any. A mismatch no
//! legal move removes is reported: no order of effects the recording allows
//! gives the recorded result.
//!
//! Runs restart from snapshots of the engine (the `Kernel` is cloneable), so
//! a candidate costs the events near the move, not the whole trace.

use super::engine::{Engine, Stats};
use super::op::Event;

/// Positions between snapshots.
const SNAP_EVERY: usize = 128;
/// How far back from a mismatch to look for an event to move.
const LOOK_BACK: usize = 64;
/// How far past a mismatch a candidate order is run before it is judged.
const HORIZON: usize = 96;
/// Full re-runs tried per mismatch, at most.
const MAX_FULL_RUNS: usize = 16;
/// Candidate orders tried per mismatch, at most.
const MAX_TRIES: usize = 3000;

/// A full run: the final engine and its snapshots.
struct Run<'a> {
    end: Engine<'a>,
    /// `snaps[j]` is the engine before position `j * SNAP_EVERY`.
    snaps: Vec<Engine<'a>>,
}

fn full_run<'a>(events: &'a [Event], order: &[usize], tick: &mut dyn FnMut()) -> Run<'a> {
    let mut e = Engine::new(events);
    e.start();
    let mut snaps = Vec::with_capacity(order.len() / SNAP_EVERY + 1);
    for (pos, &i) in order.iter().enumerate() {
        if pos % SNAP_EVERY == 0 {
            snaps.push(e.snapshot());
        }
        e.step(pos, i);
        tick();
    }
    Run { end: e, snaps }
}

/// Mismatches found at positions up to `limit`.
fn count_upto(s: &Stats, limit: usize) -> usize {
    s.mismatches.iter().filter(|m| m.pos <= limit).count()
}

/// Runs `order` from the snapshot before `from` up to position `to`.
fn partial(run: &Run<'_>, order: &[usize], from: usize, to: usize) -> usize {
    let j = from / SNAP_EVERY;
    let mut e = run.snaps[j].snapshot();
    for (pos, &i) in order.iter().enumerate().take(to + 1).skip(j * SNAP_EVERY) {
        e.step(pos, i);
    }
    count_upto(&e.stats, to)
}

/// Orders that move the death of a task involved in a mismatch, or of one
/// of its ancestors, to another point of its window: deaths reparent
/// children, and so decide a child's place among its new parent's
/// children, which `wait` reports in order.
fn targeted(
    events: &[Event],
    order: &[usize],
    p: usize,
    involved: &[i32],
) -> Vec<(usize, Vec<usize>)> {
    use super::op::{Op, Outcome};
    let mut creator = std::collections::HashMap::new();
    for e in events {
        if let (Op::Clone { .. }, Outcome::Value(c)) = (&e.op, &e.ret) {
            creator.insert(*c as i32, e.pid);
        }
    }
    for (c, child) in super::engine::infer_lost_clones(events) {
        creator.insert(child, events[c].pid);
    }
    let mut pids = Vec::new();
    for &pid in involved {
        let mut cur = Some(pid);
        for _ in 0..8 {
            let Some(c) = cur else { break };
            pids.push(c);
            cur = creator.get(&c).copied();
        }
    }
    let is_death = |q: usize| matches!(events[order[q]].op, Op::Die { .. });
    let movable: Vec<usize> = (0..p)
        .filter(|&q| {
            let e = &events[order[q]];
            is_death(q) && pids.contains(&e.pid) && e.entry_line < e.line
        })
        .collect();
    // Deaths reparent and clones append: either may decide an order.
    let anchors: Vec<usize> = (0..p)
        .filter(|&q| is_death(q) || matches!(events[order[q]].op, Op::Clone { .. }))
        .collect();
    let mut out = Vec::new();
    for &q in movable.iter().rev() {
        let x = &events[order[q]];
        for &t in &anchors {
            let k = Engine::key(&events[order[t]]);
            if t == q || k <= x.entry_line || k > x.line {
                continue;
            }
            let mut o = order.to_vec();
            let moved = o.remove(q);
            o.insert(if t > q { t - 1 } else { t }, moved);
            out.push((q.min(t), o));
            if out.len() >= MAX_TRIES {
                return out;
            }
        }
    }
    out
}

/// Orders that move one event near position `p` to another point of its
/// window, nearest first. Yields `(first changed position, order)`.
fn candidates(events: &[Event], order: &[usize], p: usize) -> Vec<(usize, Vec<usize>)> {
    let mut out = Vec::new();
    let lo_pos = p.saturating_sub(LOOK_BACK);
    let hi_pos = (p + LOOK_BACK).min(order.len().saturating_sub(1));
    for q in (lo_pos..=p).rev() {
        let x = &events[order[q]];
        let (lo, hi) = (x.entry_line, x.line);
        if lo == hi {
            continue;
        }
        for t in lo_pos..=hi_pos {
            if t == q {
                continue;
            }
            let k = Engine::key(&events[order[t]]);
            // Just before order[t], or just after it: either point must lie
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
                let mut o = order.to_vec();
                let moved = o.remove(q);
                let at = if t > q { t - 1 } else { t };
                o.insert(if before { at } else { at + 1 }, moved);
                if o == order {
                    continue;
                }
                out.push((q.min(t), o));
                if out.len() >= MAX_TRIES {
                    return out;
                }
            }
        }
    }
    out
}

/// Replays `events`, searching for an order of effects without mismatches
/// where the default one has some. `tick` is called once per event of the
/// first run.
pub(crate) fn replay(events: &[Event], mut tick: impl FnMut()) -> Stats {
    let mut order = Engine::default_order(events);
    let mut run = full_run(events, &order, &mut tick);
    // Mismatches no move could remove, by event.
    let mut genuine = std::collections::HashSet::new();
    while let Some(first) = run
        .end
        .stats
        .mismatches
        .iter()
        .filter(|m| !genuine.contains(&m.event))
        .min_by_key(|m| m.pos)
        .cloned()
    {
        let p = first.pos;
        let limit = p + HORIZON;
        let baseline = count_upto(&run.end.stats, limit);
        let mut cands = candidates(events, &order, p);
        cands.extend(targeted(events, &order, p, &first.involved));
        let mut fixed = false;
        let mut full_tries = 0;
        for (from, cand) in cands {
            if partial(&run, &cand, from, limit) >= baseline {
                continue;
            }
            let new_run = full_run(events, &cand, &mut || {});
            if new_run.end.stats.mismatches.len() < run.end.stats.mismatches.len() {
                order = cand;
                run = new_run;
                fixed = true;
                break;
            }
            full_tries += 1;
            if full_tries >= MAX_FULL_RUNS {
                break;
            }
        }
        if !fixed {
            genuine.insert(first.event);
        }
    }
    let mut end = run.end;
    end.finish();
    end.stats
}
