//! The wait index: what each waiter could report, kept up to date as tasks
//! change state, so that `wait` never walks children with nothing to report.
//!
//! # Vocabulary
//! An *edge* joins a waiter thread to a task it may wait for. A process
//! (thread group) has a *child edge* from its real parent thread to its
//! leader; a traced task has a *ptrace edge* from its tracer. Linux's
//! `do_wait` visits, for each thread of the caller's group starting at the
//! caller, first its `children` list in fork order and then its `ptraced`
//! list: an edge's *position* `(thread_seq, list, seq)` is its place in that
//! walk.
//!
//! Each edge has a *class* (the `__WCLONE`/`__WALL` filter: normal child,
//! clone child, or ptrace edge, which passes every filter), a *category*
//! (what `wait_consider_task` does with it when nothing is reported: see
//! [`Cat`]) and a set of *ready* kinds (what it would report now).
//!
//! # Layout
//! ```text
//! ready:  BTreeMap< (waiter group, pgrp | ALL, bucket = kind*3+class,
//!                    thread_seq, list, seq) -> task >
//! counts: HashMap< (waiter thread | waiter group, pgrp | ALL, class)
//!                  -> { edges, zombie-reportable, zombie-other-ptrace } >
//! ```
//! A ready edge has two entries (under ALL and under its process group),
//! and an edge counts under four keys. `wait` asks each allowed bucket for
//! its first entry in the position range and keeps the smallest: the edge
//! Linux's walk would stop at. The counts answer "is there any child that
//! could still report?" (ECHILD versus would-block) in O(1).
//!
//! # Complexity
//! Registering or updating an edge: O(log R) for R ready edges, plus O(1)
//! hash updates. A wait: at most 12 range lookups, O(log R) each, whatever
//! the number of children.
//!
//! # Linux
//! No Linux analogue: Linux scans (`do_wait_thread`, `ptrace_do_wait`). The
//! semantics it reproduces are `wait_consider_task()` in kernel/exit.c.

use core::ops::{Bound, ControlFlow};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

use crate::ix::{GroupIx, TaskIx};
use crate::pid::entry::PidIx;
use crate::slab::{Slab, SlabIx};
use crate::wait::ready_set::{Pos, ReadySet};

/// Registration byte value for an edge not in the index.
pub(crate) const UNREGISTERED: u8 = 0xff;

/// Ready kind: a zombie to reap (`wait_task_zombie`, needs `WEXITED`).
pub(crate) const READY_EXIT: u8 = 1;
/// Ready kind: a group stop to report (`wait_task_stopped`, needs
/// `WUNTRACED`).
pub(crate) const READY_STOP: u8 = 2;
/// Ready kind: a ptrace stop to report (reported whatever the options).
pub(crate) const READY_TRAP: u8 = 4;
/// Ready kind: a continue to report (`wait_task_continued`, needs
/// `WCONTINUED`).
pub(crate) const READY_CONT: u8 = 8;

/// The `__WCLONE`/`__WALL` class of an edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Class {
    /// Child edge whose exit signal is SIGCHLD.
    Normal = 0,
    /// Child edge with another exit signal (`__WCLONE` children).
    Clone = 1,
    /// Ptrace edge: always eligible.
    Ptrace = 2,
}

/// What `wait_consider_task` does with an edge that reports nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cat {
    /// Alive: it will change state, so the waiter must wait (clears
    /// `notask_error`).
    Alive = 0,
    /// A reapable zombie: reported with `WEXITED`; without it the edge is
    /// skipped without clearing `notask_error`.
    ZombieReap = 1,
    /// A zombie that is not reapable here (a leader with live threads, or a
    /// child traced by another process), seen without ptrace semantics:
    /// always clears `notask_error`.
    ZombieOther = 2,
    /// As `ZombieOther` but seen with ptrace semantics: clears
    /// `notask_error` only with `WEXITED` or `WCONTINUED`.
    ZombieOtherPtrace = 3,
}

/// Whose counts [`WaitIndex::counts`] reads: one waiter thread's (a
/// `__WNOTHREAD` wait) or its whole group's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Waiter {
    Thread(TaskIx),
    Group(GroupIx),
}

/// An edge's state: its registration byte, decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct EdgeState {
    pub(crate) class: Class,
    pub(crate) cat: Cat,
    /// `READY_*` bits.
    pub(crate) ready: u8,
}

impl EdgeState {
    /// Packs into a registration byte: ready (4 bits), cat (2), class (2).
    #[inline(always)]
    pub(crate) fn encode(self) -> u8 {
        self.ready | ((self.cat as u8) << 4) | ((self.class as u8) << 6)
    }

    #[inline(always)]
    pub(crate) fn decode(reg: u8) -> Option<EdgeState> {
        const CLASSES: [Class; 4] = [Class::Normal, Class::Clone, Class::Ptrace, Class::Ptrace];
        const CATS: [Cat; 4] = [
            Cat::Alive,
            Cat::ZombieReap,
            Cat::ZombieOther,
            Cat::ZombieOtherPtrace,
        ];
        if reg == UNREGISTERED {
            return None;
        }
        let class = CLASSES[(reg >> 6) as usize];
        let cat = CATS[((reg >> 4) & 3) as usize];
        Some(EdgeState {
            class,
            cat,
            ready: reg & 0xf,
        })
    }
}

/// Where an edge sits in Linux's walk, and under which keys it is counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct EdgePos {
    /// The waiter thread (real parent or tracer).
    pub(crate) waiter: TaskIx,
    /// The waiter's thread group.
    pub(crate) group: GroupIx,
    pub(crate) thread_seq: u32,
    /// 0 = children list, 1 = ptraced list.
    pub(crate) list: u8,
    pub(crate) seq: u64,
    /// The target's process group.
    pub(crate) pgrp: PidIx,
    /// Whether the waiter group keeps per-process-group entries.
    pub(crate) by_pgrp: bool,
    /// Whether the waiter thread keeps its own counts.
    pub(crate) by_thread: bool,
}

/// Key of a ready entry; the derived order is Linux's walk order within a
/// bucket.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct ReadyKey {
    pub(crate) group: u32,
    /// A process group's [`pgrp_key`] ([`ALL_PGRPS`]: all).
    pub(crate) pgrp: u32,
    pub(crate) bucket: u8,
    pub(crate) thread_seq: u32,
    pub(crate) list: u8,
    pub(crate) seq: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct CountKey {
    /// Thread key ([`TaskIx::key`]), or group key with the top bit set.
    waiter: u32,
    /// A process group's [`pgrp_key`] ([`ALL_PGRPS`]: all).
    pgrp: u32,
    class: Class,
}

/// Edge counts under one key.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    /// Edges.
    pub(crate) n: u32,
    /// Edges in [`Cat::ZombieReap`].
    pub(crate) zr: u32,
    /// Edges in [`Cat::ZombieOtherPtrace`].
    pub(crate) zop: u32,
    /// Edges ready for each kind (bit `k` of `READY_*` -> index `k`): lets
    /// a wait skip empty buckets without a tree lookup.
    pub(crate) ready: [u32; 4],
    /// The `READY_*` kinds with a ready edge: bit `k` set iff `ready[k]`
    /// is not zero (a wait reads one byte per class, not four counts).
    pub(crate) kinds: u8,
}

impl Counts {
    /// Adds `d` (1 or -1) to the count of each kind in `ready` (most
    /// edges are ready for none or one kind: one step per kind set).
    #[inline(always)]
    fn add_ready(&mut self, ready: u8, d: i32) {
        let mut bits = ready;
        while bits != 0 {
            let k = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let v = self.ready[k].wrapping_add_signed(d);
            self.ready[k] = v;
            self.kinds = (self.kinds & !(1 << k)) | (u8::from(v != 0) << k);
        }
    }
}

const GROUP_BIT: u32 = 1 << 31;

/// The process-group part of a key meaning "all process groups" (never a
/// [`PidIx::key`], which is a slot + 1).
const ALL_PGRPS: u32 = 0;

/// The process-group part of a key: `pgrp`'s [`PidIx::key`], or
/// [`ALL_PGRPS`].
#[inline(always)]
fn pgrp_key(pgrp: Option<PidIx>) -> u32 {
    pgrp.map_or(ALL_PGRPS, PidIx::key)
}
const KINDS: [u8; 4] = [READY_EXIT, READY_STOP, READY_TRAP, READY_CONT];
const CLASSES: [Class; 3] = [Class::Normal, Class::Clone, Class::Ptrace];

#[inline]
fn bucket(kind: u8, class: Class) -> u8 {
    (kind.trailing_zeros() as u8) * 3 + class as u8
}

/// One waiter group's own part of the index: its counts and its ready
/// edges under all process groups (what a wait for any child, the common
/// case, reads), kept apart from every other group's.
#[derive(Clone, Debug, Default, PartialEq)]
struct GroupWait {
    /// By [`Class`].
    counts: [Counts; 3],
    ready: ReadySet,
}

impl GroupWait {
    fn is_empty(&self) -> bool {
        self.counts.iter().all(|c| c.n == 0)
    }
}

/// The index itself.
#[derive(Clone, Debug)]
pub(crate) struct WaitIndex {
    /// Per waiter group slot: its entry in `waiters` + 1 (0: none, the
    /// group waits for nobody).
    of_group: Vec<u32>,
    /// The per-waiter-group parts.
    waiters: Slab<GroupWait>,
    /// Ready entries under one process group, of the waiter groups that keep
    /// them (`by_pgrp`).
    pgrp_ready: BTreeMap<ReadyKey, TaskIx>,
    /// Counts under every key but (waiter group, all process groups).
    counts: FxHashMap<CountKey, Counts>,
}

impl Default for WaitIndex {
    fn default() -> Self {
        WaitIndex {
            of_group: Vec::new(),
            waiters: Slab::new(),
            pgrp_ready: BTreeMap::new(),
            counts: FxHashMap::default(),
        }
    }
}

impl PartialEq for WaitIndex {
    /// The same edges, wherever their per-group parts are stored.
    fn eq(&self, other: &Self) -> bool {
        let n = self.of_group.len().max(other.of_group.len());
        self.pgrp_ready == other.pgrp_ready
            && self.counts == other.counts
            && (0..n).all(|slot| self.group_part(slot) == other.group_part(slot))
    }
}

/// The keys an edge is counted under besides (waiter group, all process
/// groups): the first `len` of `keys`.
struct CountKeys {
    keys: [CountKey; 3],
    len: usize,
}

impl CountKeys {
    #[inline]
    fn as_slice(&self) -> &[CountKey] {
        &self.keys[..self.len]
    }
}

/// The allowed, non-empty buckets of one wait, in (kind, class) order.
struct Buckets {
    buckets: [u8; 12],
    len: usize,
}

impl WaitIndex {
    fn group_part(&self, slot: usize) -> Option<&GroupWait> {
        match self.of_group.get(slot) {
            Some(&i) if i != 0 => self.waiters.get(i - 1),
            _ => None,
        }
    }

    #[inline]
    fn group(&self, g: GroupIx) -> Option<&GroupWait> {
        self.group_part(g.slot())
    }

    /// Group `g`'s part, made if it has none.
    #[inline(always)]
    fn group_mut(&mut self, g: GroupIx) -> &mut GroupWait {
        let slot = g.slot();
        if self.of_group.len() <= slot {
            self.of_group.resize(slot + 1, 0);
        }
        let mut i = self.of_group[slot];
        if i == 0 {
            i = self
                .waiters
                .insert(GroupWait::default())
                .expect("fewer waiter groups than group slots")
                + 1;
            self.of_group[slot] = i;
        }
        &mut self.waiters[i - 1]
    }

    /// Group `g`'s part, which exists (an edge of its is registered).
    #[inline(always)]
    fn registered_mut(&mut self, g: GroupIx) -> &mut GroupWait {
        let i = self.of_group[g.slot()];
        debug_assert_ne!(i, 0, "a registered edge's group has a part");
        &mut self.waiters[i - 1]
    }

    /// With `by_pgrp` under the waiter group for the target's process
    /// group; with `by_thread` the same for the waiter thread (the waiter
    /// group's key for all process groups is its [`GroupWait`]'s).
    #[inline(always)]
    fn count_keys(pos: &EdgePos, class: Class) -> CountKeys {
        let k = |waiter, pgrp| CountKey {
            waiter,
            pgrp,
            class,
        };
        let g = pos.group.key() | GROUP_BIT;
        let mut keys = [k(g, ALL_PGRPS); 3];
        let mut len = 0;
        if pos.by_pgrp {
            keys[len] = k(g, pos.pgrp.key());
            len += 1;
        }
        if pos.by_thread {
            keys[len] = k(pos.waiter.key(), ALL_PGRPS);
            len += 1;
            if pos.by_pgrp {
                keys[len] = k(pos.waiter.key(), pos.pgrp.key());
                len += 1;
            }
        }
        CountKeys { keys, len }
    }

    /// Calls `f` with the place of every ready kind of the edge at `pos`
    /// in state `st`.
    #[inline(always)]
    fn for_ready_pos(pos: &EdgePos, st: EdgeState, mut f: impl FnMut(Pos)) {
        let mut bits = st.ready;
        while bits != 0 {
            let kind = bits & bits.wrapping_neg();
            bits &= bits - 1;
            f(Pos::new(
                bucket(kind, st.class),
                pos.thread_seq,
                pos.list,
                pos.seq,
            ));
        }
    }

    /// The ready key under the target's process group of place `p`.
    #[inline(always)]
    fn pgrp_key_of(pos: &EdgePos, p: Pos) -> ReadyKey {
        ReadyKey {
            group: pos.group.key(),
            pgrp: pos.pgrp.key(),
            bucket: p.bucket(),
            thread_seq: p.thread_seq(),
            list: p.list(),
            seq: p.seq(),
        }
    }

    #[inline(always)]
    fn count_add(c: &mut Counts, st: EdgeState) {
        c.n += 1;
        c.zr += (st.cat == Cat::ZombieReap) as u32;
        c.zop += (st.cat == Cat::ZombieOtherPtrace) as u32;
        c.add_ready(st.ready, 1);
    }

    #[inline(always)]
    fn count_remove(c: &mut Counts, st: EdgeState) {
        c.n -= 1;
        c.zr -= (st.cat == Cat::ZombieReap) as u32;
        c.zop -= (st.cat == Cat::ZombieOtherPtrace) as u32;
        c.add_ready(st.ready, -1);
    }

    #[inline(always)]
    fn count_update(c: &mut Counts, old: EdgeState, new: EdgeState) {
        let (dzr, dzop) = (
            (new.cat == Cat::ZombieReap) as i32 - (old.cat == Cat::ZombieReap) as i32,
            (new.cat == Cat::ZombieOtherPtrace) as i32 - (old.cat == Cat::ZombieOtherPtrace) as i32,
        );
        c.zr = c.zr.wrapping_add_signed(dzr);
        c.zop = c.zop.wrapping_add_signed(dzop);
        c.add_ready(old.ready, -1);
        c.add_ready(new.ready, 1);
    }

    /// Adds the edge `pos -> task` in state `st`.
    #[inline(always)]
    pub(crate) fn add(&mut self, pos: &EdgePos, st: EdgeState, task: TaskIx) {
        let gw = self.group_mut(pos.group);
        Self::count_add(&mut gw.counts[st.class as usize], st);
        Self::for_ready_pos(pos, st, |p| gw.ready.insert(p, task));
        if pos.by_pgrp || pos.by_thread {
            for &key in Self::count_keys(pos, st.class).as_slice() {
                Self::count_add(self.counts.entry(key).or_default(), st);
            }
        }
        if pos.by_pgrp {
            let ready = &mut self.pgrp_ready;
            Self::for_ready_pos(pos, st, |p| {
                let old = ready.insert(Self::pgrp_key_of(pos, p), task);
                debug_assert!(old.is_none(), "ready key registered twice");
            });
        }
    }

    /// Changes the edge at `pos` to `task` from state `old` to `new`,
    /// touching only the counters and ready entries that differ.
    #[inline(always)]
    pub(crate) fn update(&mut self, pos: &EdgePos, old: EdgeState, new: EdgeState, task: TaskIx) {
        if old.class != new.class {
            self.remove(pos, old);
            self.add(pos, new, task);
            return;
        }
        let counts_change = old.cat != new.cat || old.ready != new.ready;
        let gone = EdgeState {
            ready: old.ready & !new.ready,
            ..old
        };
        let came = EdgeState {
            ready: new.ready & !old.ready,
            ..new
        };
        let gw = self.registered_mut(pos.group);
        if counts_change {
            Self::count_update(&mut gw.counts[new.class as usize], old, new);
        }
        Self::for_ready_pos(pos, gone, |p| gw.ready.remove(p));
        Self::for_ready_pos(pos, came, |p| gw.ready.insert(p, task));
        if counts_change && (pos.by_pgrp || pos.by_thread) {
            for key in Self::count_keys(pos, new.class).as_slice() {
                let c = self.counts.get_mut(key).expect("edge counted");
                Self::count_update(c, old, new);
            }
        }
        if pos.by_pgrp {
            let ready = &mut self.pgrp_ready;
            Self::for_ready_pos(pos, gone, |p| {
                let r = ready.remove(&Self::pgrp_key_of(pos, p));
                debug_assert!(r.is_some(), "ready key missing");
            });
            Self::for_ready_pos(pos, came, |p| {
                let r = ready.insert(Self::pgrp_key_of(pos, p), task);
                debug_assert!(r.is_none(), "ready key registered twice");
            });
        }
    }

    /// Removes the edge at `pos`, registered in state `st`.
    #[inline(always)]
    pub(crate) fn remove(&mut self, pos: &EdgePos, st: EdgeState) {
        // A registered edge's group part exists: looked up once, and
        // dropped here once it counts no edge.
        let slot = pos.group.slot();
        let i = self.of_group[slot];
        debug_assert_ne!(i, 0, "a registered edge's group has a part");
        let gw = &mut self.waiters[i - 1];
        Self::count_remove(&mut gw.counts[st.class as usize], st);
        Self::for_ready_pos(pos, st, |p| gw.ready.remove(p));
        if gw.is_empty() {
            debug_assert_eq!(gw.ready.len(), 0);
            self.waiters.delete(i - 1);
            self.of_group[slot] = 0;
        }
        if pos.by_pgrp || pos.by_thread {
            for key in Self::count_keys(pos, st.class).as_slice() {
                let c = self.counts.get_mut(key).expect("edge counted");
                Self::count_remove(c, st);
                if c.n == 0 {
                    self.counts.remove(key);
                }
            }
        }
        if pos.by_pgrp {
            let ready = &mut self.pgrp_ready;
            Self::for_ready_pos(pos, st, |p| {
                let old = ready.remove(&Self::pgrp_key_of(pos, p));
                debug_assert!(old.is_some(), "ready key missing");
            });
        }
    }

    /// The counts of `waiter` for process group `pgrp` (`None` for all)
    /// and `class`.
    #[inline]
    pub(crate) fn counts(&self, waiter: Waiter, pgrp: Option<PidIx>, class: Class) -> Counts {
        let waiter = match (waiter, pgrp) {
            (Waiter::Group(g), None) => {
                return self
                    .group(g)
                    .map_or_else(Counts::default, |gw| gw.counts[class as usize]);
            }
            (Waiter::Thread(t), _) => t.key(),
            (Waiter::Group(g), _) => g.key() | GROUP_BIT,
        };
        self.counts
            .get(&CountKey {
                waiter,
                pgrp: pgrp_key(pgrp),
                class,
            })
            .copied()
            .unwrap_or_default()
    }

    /// The `(kind, class)` buckets of waiter group `group` for `pgrp` that
    /// `masks` accepts (`masks[class]`: the `READY_*` kinds allowed for
    /// that class) and whose ready count is not zero, kinds outer, classes
    /// inner: one counts lookup per class with an allowed kind (one for
    /// all three when `pgrp` is `None`: the group's own counts).
    #[inline]
    fn buckets(&self, group: GroupIx, pgrp: Option<PidIx>, masks: [u8; 3]) -> Buckets {
        let Some(_) = pgrp else {
            return match self.group(group) {
                Some(gw) => Self::buckets_of(&gw.counts, masks),
                None => Buckets {
                    buckets: [0; 12],
                    len: 0,
                },
            };
        };
        let mut counts = [Counts::default(); 3];
        for class in CLASSES {
            if masks[class as usize] != 0 {
                counts[class as usize] = self.counts(Waiter::Group(group), pgrp, class);
            }
        }
        Self::buckets_of(&counts, masks)
    }

    /// The buckets `masks` accepts whose count in `counts` (by class) is
    /// not zero, kinds outer, classes inner.
    #[inline(always)]
    fn buckets_of(counts: &[Counts; 3], masks: [u8; 3]) -> Buckets {
        Self::buckets_on(Self::kinds_on(counts, masks))
    }

    /// Per class, the kinds `masks` accepts that have a ready edge in
    /// `counts`.
    #[inline(always)]
    fn kinds_on(counts: &[Counts; 3], masks: [u8; 3]) -> [u8; 3] {
        let on = [
            masks[0] & counts[0].kinds,
            masks[1] & counts[1].kinds,
            masks[2] & counts[2].kinds,
        ];
        debug_assert!((0..3).all(|c| KINDS.iter().enumerate().all(|(k, &kind)| {
            (on[c] & kind != 0) == (masks[c] & kind != 0 && counts[c].ready[k] > 0)
        })));
        on
    }

    /// The buckets of the kinds `on` (per class), kinds outer, classes
    /// inner.
    #[inline(always)]
    fn buckets_on(on: [u8; 3]) -> Buckets {
        let mut out = Buckets {
            buckets: [0; 12],
            len: 0,
        };
        // Kinds outer, lowest first; classes inner.
        let mut kinds = on[0] | on[1] | on[2];
        while kinds != 0 {
            let kind = kinds & kinds.wrapping_neg();
            kinds &= kinds - 1;
            for class in CLASSES {
                if on[class as usize] & kind != 0 {
                    out.buckets[out.len] = bucket(kind, class);
                    out.len += 1;
                }
            }
        }
        out
    }

    /// The first ready entry of `bucket` of waiter group `group` for `pgrp`
    /// after `from` (exclusive; `None`: from `thread_seq` `lo` on) with
    /// `thread_seq` up to `hi`, as a key: one search for the lower bound.
    fn bucket_first(
        &self,
        group: GroupIx,
        pgrp: Option<PidIx>,
        bucket: u8,
        from: Option<(u32, u8, u64)>,
        lo: u32,
        hi: u32,
    ) -> Option<(ReadyKey, TaskIx)> {
        let Some(pg) = pgrp else {
            let gw = self.group(group)?;
            let start = match from {
                None => Bound::Included(Pos::new(bucket, lo, 0, 0)),
                Some((ts, list, seq)) => Bound::Excluded(Pos::new(bucket, ts, list, seq)),
            };
            let (p, t) = gw.ready.first_from(start)?;
            if p.bucket() != bucket || p.thread_seq() > hi {
                return None;
            }
            let key = ReadyKey {
                group: group.key(),
                pgrp: ALL_PGRPS,
                bucket,
                thread_seq: p.thread_seq(),
                list: p.list(),
                seq: p.seq(),
            };
            return Some((key, t));
        };
        let pgrp = pg.key();
        let group = group.key();
        let key = |thread_seq, list, seq| ReadyKey {
            group,
            pgrp,
            bucket,
            thread_seq,
            list,
            seq,
        };
        let start = match from {
            None => Bound::Included(key(lo, 0, 0)),
            Some((ts, list, seq)) => Bound::Excluded(key(ts, list, seq)),
        };
        self.pgrp_ready
            .range((start, Bound::Unbounded))
            .next()
            .filter(|(k, _)| {
                k.group == group && k.pgrp == pgrp && k.bucket == bucket && k.thread_seq <= hi
            })
            .map(|(k, &t)| (*k, t))
    }

    /// Calls `visit(key, task)` for each ready edge of waiter group `group`
    /// for `pgrp` (`None` for all) with `thread_seq` in `[lo, hi]`, among
    /// the `(kind, class)` buckets `masks` accepts (`masks[class]`: the
    /// `READY_*` kinds allowed for that class), in walk order (an edge
    /// ready for several kinds once), until `visit` breaks. Each step takes
    /// the smallest of each bucket's next entry: O(B log R) for B buckets
    /// (at most 12) and R ready edges of the group, so the first edge costs
    /// what the first costs, whatever comes after it.
    pub(crate) fn walk_ready(
        &self,
        group: GroupIx,
        pgrp: Option<PidIx>,
        lo: u32,
        hi: u32,
        masks: [u8; 3],
        mut visit: impl FnMut(ReadyKey, TaskIx) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        if pgrp.is_none() {
            // Any process group (the common case): the group's own part,
            // looked up once.
            let Some(gw) = self.group(group) else {
                return ControlFlow::Continue(());
            };
            let on = Self::kinds_on(&gw.counts, masks);
            // One kind of normal children only (most waits): its bucket
            // without building the list.
            let b = if on[1] | on[2] == 0 && on[0].is_power_of_two() {
                Buckets {
                    buckets: [bucket(on[0], Class::Normal); 12],
                    len: 1,
                }
            } else {
                Self::buckets_on(on)
            };
            if let [only] = b.buckets[..b.len] {
                // One bucket (most waits): its entries are already in walk
                // order.
                let mut start = Bound::Included(Pos::new(only, lo, 0, 0));
                while let Some((p, t)) = gw.ready.first_from(start) {
                    if p.bucket() != only || p.thread_seq() > hi {
                        break;
                    }
                    let key = ReadyKey {
                        group: group.key(),
                        pgrp: ALL_PGRPS,
                        bucket: only,
                        thread_seq: p.thread_seq(),
                        list: p.list(),
                        seq: p.seq(),
                    };
                    visit(key, t)?;
                    start = Bound::Excluded(p);
                }
                return ControlFlow::Continue(());
            }
            return self.walk_buckets(group, pgrp, &b.buckets[..b.len], lo, hi, visit);
        }
        let b = self.buckets(group, pgrp, masks);
        self.walk_buckets(group, pgrp, &b.buckets[..b.len], lo, hi, visit)
    }

    /// [`Self::walk_ready`] over several `buckets`: each step takes the
    /// smallest of each bucket's next entry.
    fn walk_buckets(
        &self,
        group: GroupIx,
        pgrp: Option<PidIx>,
        buckets: &[u8],
        lo: u32,
        hi: u32,
        mut visit: impl FnMut(ReadyKey, TaskIx) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let mut after = None;
        loop {
            let mut best: Option<(ReadyKey, TaskIx)> = None;
            for &bucket in buckets {
                if let Some((k, t)) = self.bucket_first(group, pgrp, bucket, after, lo, hi) {
                    if best.is_none_or(|(b, _)| walk_order(&k) < walk_order(&b)) {
                        best = Some((k, t));
                    }
                }
            }
            let Some((k, t)) = best else {
                return ControlFlow::Continue(());
            };
            visit(k, t)?;
            after = Some(walk_order(&k));
        }
    }

    /// The first edge [`Self::walk_ready`] visits.
    #[cfg(test)]
    pub(crate) fn first_ready(
        &self,
        group: GroupIx,
        pgrp: Option<PidIx>,
        lo: u32,
        hi: u32,
        masks: [u8; 3],
    ) -> Option<(ReadyKey, TaskIx)> {
        let mut first = None;
        let _ = self.walk_ready(group, pgrp, lo, hi, masks, |k, t| {
            first = Some((k, t));
            ControlFlow::Break(())
        });
        first
    }

    /// No edge is registered.
    #[cfg(test)]
    fn is_empty(&self) -> bool {
        self.waiters.len() == 0 && self.pgrp_ready.is_empty() && self.counts.is_empty()
    }
}

/// The position of a ready entry in Linux's walk: thread, list, place.
fn walk_order(k: &ReadyKey) -> (u32, u8, u64) {
    (k.thread_seq, k.list, k.seq)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gr(slot: u32) -> GroupIx {
        crate::slab::SlabIx::from_slot(slot)
    }

    fn pg(slot: u32) -> Option<PidIx> {
        Some(crate::slab::SlabIx::from_slot(slot))
    }

    fn tk(slot: u32) -> TaskIx {
        crate::slab::SlabIx::from_slot(slot)
    }

    fn pos(waiter: u32, seq: u64, pgrp: u32) -> EdgePos {
        EdgePos {
            waiter: tk(waiter),
            group: gr(7),
            thread_seq: waiter,
            list: 0,
            seq,
            pgrp: crate::slab::SlabIx::from_slot(pgrp),
            by_pgrp: true,
            by_thread: true,
        }
    }

    #[test]
    fn encode_decode_round_trip() {
        for class in [Class::Normal, Class::Clone, Class::Ptrace] {
            for cat in [
                Cat::Alive,
                Cat::ZombieReap,
                Cat::ZombieOther,
                Cat::ZombieOtherPtrace,
            ] {
                for ready in 0..16 {
                    let st = EdgeState { class, cat, ready };
                    assert_ne!(st.encode(), UNREGISTERED);
                    assert_eq!(EdgeState::decode(st.encode()), Some(st));
                }
            }
        }
        assert_eq!(EdgeState::decode(UNREGISTERED), None);
    }

    #[test]
    fn walk_ready_visits_each_edge_once_in_walk_order() {
        let mut ix = WaitIndex::default();
        let stop_cont = EdgeState {
            class: Class::Normal,
            cat: Cat::Alive,
            ready: READY_STOP | READY_CONT,
        };
        let cont = EdgeState {
            class: Class::Clone,
            cat: Cat::Alive,
            ready: READY_CONT,
        };
        ix.add(&pos(1, 30, 5), stop_cont, tk(100));
        ix.add(&pos(1, 10, 5), cont, tk(101));
        ix.add(&pos(2, 20, 5), stop_cont, tk(102));
        ix.add(&pos(3, 5, 5), cont, tk(103));
        let all = [READY_EXIT | READY_STOP | READY_TRAP | READY_CONT; 3];
        let walk = |lo, hi, limit: usize| {
            let mut seen = Vec::new();
            let _ = ix.walk_ready(gr(7), None, lo, hi, all, |_, t| {
                seen.push(t.key());
                if seen.len() == limit {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            });
            seen
        };
        assert_eq!(walk(0, u32::MAX, 0), vec![101, 100, 102, 103]);
        assert_eq!(walk(2, u32::MAX, 0), vec![102, 103]);
        assert_eq!(walk(0, 1, 0), vec![101, 100]);
        assert_eq!(walk(0, u32::MAX, 2), vec![101, 100]);
        let only_stop = [READY_STOP; 3];
        let mut seen = Vec::new();
        let _ = ix.walk_ready(gr(7), None, 0, u32::MAX, only_stop, |_, t| {
            seen.push(t.key());
            ControlFlow::Continue(())
        });
        assert_eq!(seen, vec![100, 102]);
    }

    #[test]
    fn first_ready_follows_walk_order_and_filters() {
        let mut ix = WaitIndex::default();
        let zombie = EdgeState {
            class: Class::Normal,
            cat: Cat::ZombieReap,
            ready: READY_EXIT,
        };
        let stopped = EdgeState {
            class: Class::Clone,
            cat: Cat::Alive,
            ready: READY_STOP,
        };
        ix.add(&pos(1, 20, 5), zombie, tk(100));
        ix.add(&pos(1, 10, 6), stopped, tk(101));
        ix.add(&pos(2, 5, 5), zombie, tk(102));
        let all = [READY_EXIT | READY_STOP | READY_TRAP | READY_CONT; 3];
        assert_eq!(
            ix.first_ready(gr(7), None, 0, u32::MAX, all).unwrap().1,
            tk(101)
        );
        let only_exit = [READY_EXIT; 3];
        assert_eq!(
            ix.first_ready(gr(7), None, 0, u32::MAX, only_exit)
                .unwrap()
                .1,
            tk(100)
        );
        assert_eq!(ix.first_ready(gr(7), pg(5), 2, 2, all).unwrap().1, tk(102));
        assert_eq!(ix.first_ready(gr(7), pg(6), 2, u32::MAX, all), None);
        assert_eq!(ix.first_ready(gr(8), None, 0, u32::MAX, all), None);
        let c = ix.counts(Waiter::Group(gr(7)), None, Class::Normal);
        assert_eq!((c.n, c.zr), (2, 2));
        assert_eq!(ix.counts(Waiter::Thread(tk(1)), pg(6), Class::Clone).n, 1);
        ix.remove(&pos(1, 20, 5), zombie);
        ix.remove(&pos(1, 10, 6), stopped);
        ix.remove(&pos(2, 5, 5), zombie);
        assert!(ix.is_empty());
    }
}
