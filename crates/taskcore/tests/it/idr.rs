//! Property tests for `taskcore::pid::Idr` against a `BTreeMap` reference
//! model: random operation sequences, every result compared, invariants
//! checked after every operation.

use std::collections::BTreeMap;

use proptest::prelude::*;
use taskcore::pid::{next_cyclic, Idr, IDR_MAX, IDR_TAGS};
use taskcore::uapi::RESERVED_PIDS;
use taskcore::Errno;

/// Slot boundaries of the 64-way tree (64^1, 64^2, 64^3, ...) and the top
/// of the id space, around which ids are drawn.
const BOUNDARIES: [u32; 7] = [64, 128, 4096, 1 << 18, 2 << 18, 1 << 23, IDR_MAX];

/// The reference model: id -> (value, tags), every query a plain scan.
#[derive(Debug, Default)]
struct Model {
    map: BTreeMap<u32, (u32, [bool; IDR_TAGS])>,
}

impl Model {
    fn insert(&mut self, id: u32, value: u32) -> Result<(), Errno> {
        if id >= IDR_MAX || value == u32::MAX {
            return Err(Errno::EINVAL);
        }
        if self.map.contains_key(&id) {
            return Err(Errno::EEXIST);
        }
        self.map.insert(id, (value, [false; IDR_TAGS]));
        Ok(())
    }

    fn replace(&mut self, id: u32, value: u32) -> Result<u32, Errno> {
        if value == u32::MAX {
            return Err(Errno::EINVAL);
        }
        let e = self.map.get_mut(&id).ok_or(Errno::ENOENT)?;
        Ok(std::mem::replace(&mut e.0, value))
    }

    fn change_tag(&mut self, id: u32, tag: usize, on: bool) -> Result<(), Errno> {
        if tag >= IDR_TAGS {
            return Err(Errno::EINVAL);
        }
        let e = self.map.get_mut(&id).ok_or(Errno::ENOENT)?;
        e.1[tag] = on;
        Ok(())
    }

    fn get_tag(&self, id: u32, tag: usize) -> bool {
        tag < IDR_TAGS && self.map.get(&id).is_some_and(|e| e.1[tag])
    }

    fn find_free(&self, start: u32, end: u32) -> Option<u32> {
        // Terminates within len + 1 steps: each step either hits a used id
        // or returns.
        (start..end.min(IDR_MAX)).find(|id| !self.map.contains_key(id))
    }

    fn next_used(&self, start: u32) -> Option<(u32, u32)> {
        self.map.range(start..).next().map(|(&id, e)| (id, e.0))
    }

    fn next_tagged(&self, start: u32, tag: usize) -> Option<(u32, u32)> {
        if tag >= IDR_TAGS {
            return None;
        }
        self.map
            .range(start..)
            .find(|(_, e)| e.1[tag])
            .map(|(&id, e)| (id, e.0))
    }
}

#[derive(Clone, Debug)]
enum Op {
    Insert(u32, u32),
    /// Insert every id of `start..start + n` (errors compared one by one),
    /// to build full leaves.
    Fill(u32, u32),
    Remove(u32),
    /// Remove every id of `start..start + n`.
    Drain(u32, u32),
    Replace(u32, u32),
    Get(u32),
    SetTag(u32, usize),
    ClearTag(u32, usize),
    GetTag(u32, usize),
    FindFree(u32, u32),
    NextUsed(u32),
    NextTagged(u32, usize),
}

/// Ids that collide: mostly small, else near a 64^k boundary (some of them
/// `>= IDR_MAX`), else far out of range.
fn id() -> impl Strategy<Value = u32> {
    prop_oneof![
        5 => 0u32..300,
        4 => (0..BOUNDARIES.len(), -70i64..=70).prop_map(|(i, d)| {
            (i64::from(BOUNDARIES[i]) + d).clamp(0, i64::from(u32::MAX)) as u32
        }),
        1 => prop_oneof![Just(IDR_MAX + 1), Just(u32::MAX), any::<u32>()],
    ]
}

fn value() -> impl Strategy<Value = u32> {
    prop_oneof![9 => 0u32..1000, 1 => Just(u32::MAX)]
}

fn tag() -> impl Strategy<Value = usize> {
    prop_oneof![10 => 0..IDR_TAGS, 1 => Just(IDR_TAGS)]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (id(), value()).prop_map(|(i, v)| Op::Insert(i, v)),
        1 => (id(), 1u32..140).prop_map(|(i, n)| Op::Fill(i, n)),
        4 => id().prop_map(Op::Remove),
        1 => (id(), 1u32..140).prop_map(|(i, n)| Op::Drain(i, n)),
        2 => (id(), value()).prop_map(|(i, v)| Op::Replace(i, v)),
        1 => id().prop_map(Op::Get),
        3 => (id(), tag()).prop_map(|(i, t)| Op::SetTag(i, t)),
        2 => (id(), tag()).prop_map(|(i, t)| Op::ClearTag(i, t)),
        1 => (id(), tag()).prop_map(|(i, t)| Op::GetTag(i, t)),
        3 => (id(), id()).prop_map(|(s, e)| Op::FindFree(s, e)),
        2 => id().prop_map(Op::NextUsed),
        2 => (id(), tag()).prop_map(|(i, t)| Op::NextTagged(i, t)),
    ]
}

/// Applies `op` to both and compares every result.
fn apply(idr: &mut Idr, model: &mut Model, op: &Op) {
    match *op {
        Op::Insert(id, v) => assert_eq!(idr.insert(id, v), model.insert(id, v), "{op:?}"),
        Op::Fill(start, n) => {
            for id in start..start.saturating_add(n) {
                assert_eq!(idr.insert(id, id), model.insert(id, id), "{op:?} at {id}");
            }
        }
        Op::Remove(id) => assert_eq!(idr.remove(id), model.map.remove(&id).map(|e| e.0), "{op:?}"),
        Op::Drain(start, n) => {
            for id in start..start.saturating_add(n) {
                let want = model.map.remove(&id).map(|e| e.0);
                assert_eq!(idr.remove(id), want, "{op:?} at {id}");
            }
        }
        Op::Replace(id, v) => assert_eq!(idr.replace(id, v), model.replace(id, v), "{op:?}"),
        Op::Get(id) => assert_eq!(idr.get(id), model.map.get(&id).map(|e| e.0), "{op:?}"),
        Op::SetTag(id, t) => {
            assert_eq!(idr.set_tag(id, t), model.change_tag(id, t, true), "{op:?}")
        }
        Op::ClearTag(id, t) => assert_eq!(
            idr.clear_tag(id, t),
            model.change_tag(id, t, false),
            "{op:?}"
        ),
        Op::GetTag(id, t) => assert_eq!(idr.get_tag(id, t), model.get_tag(id, t), "{op:?}"),
        Op::FindFree(s, e) => {
            assert_eq!(idr.find_free(s, e), model.find_free(s, e), "{op:?}");
            // The cyclic-allocation pattern: from the cursor, then wrapped.
            assert_eq!(
                idr.find_free(300, s),
                model.find_free(300, s),
                "{op:?} wrap"
            );
        }
        Op::NextUsed(s) => assert_eq!(idr.next_used(s), model.next_used(s), "{op:?}"),
        Op::NextTagged(s, t) => {
            assert_eq!(idr.next_tagged(s, t), model.next_tagged(s, t), "{op:?}")
        }
    }
}

/// Full-state comparison: contents, tags and length.
fn compare_all(idr: &Idr, model: &Model) {
    assert_eq!(idr.len(), model.map.len());
    assert_eq!(idr.is_empty(), model.map.is_empty());
    let got: Vec<(u32, u32)> = idr.iter().collect();
    let want: Vec<(u32, u32)> = model.map.iter().map(|(&id, e)| (id, e.0)).collect();
    assert_eq!(got, want);
    for t in 0..IDR_TAGS {
        let got: Vec<(u32, u32)> = idr.iter_tagged(t).collect();
        let want: Vec<(u32, u32)> = model
            .map
            .iter()
            .filter(|(_, e)| e.1[t])
            .map(|(&id, e)| (id, e.0))
            .collect();
        assert_eq!(got, want, "tag {t}");
    }
}

/// Searches from every used id and the id after it (quadratic in the model
/// over long runs, so once per case).
fn compare_searches(idr: &Idr, model: &Model) {
    for &id in model.map.keys() {
        let after = id.saturating_add(1);
        assert_eq!(idr.next_used(after), model.next_used(after));
        assert_eq!(idr.find_free(id, IDR_MAX), model.find_free(id, IDR_MAX));
        for t in 0..IDR_TAGS {
            assert_eq!(idr.next_tagged(after, t), model.next_tagged(after, t));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 384, ..ProptestConfig::default() })]

    #[test]
    fn idr_matches_btreemap(ops in prop::collection::vec(op(), 1..120)) {
        let mut idr = Idr::new();
        let mut model = Model::default();
        for op in &ops {
            apply(&mut idr, &mut model, op);
            idr.check_invariants();
            compare_all(&idr, &model);
        }
        compare_searches(&idr, &model);
        // Emptying the map frees every node.
        let ids: Vec<u32> = model.map.keys().copied().collect();
        for id in ids {
            prop_assert_eq!(idr.remove(id), model.map.remove(&id).map(|e| e.0));
        }
        idr.check_invariants();
        prop_assert!(idr.is_empty());
        prop_assert_eq!(idr.node_count(), 0);
    }

    /// Dense tables with a few holes: the cyclic-allocation search must find
    /// exactly the holes, in order, from any cursor.
    #[test]
    fn find_free_finds_holes_in_a_full_range(
        base in prop_oneof![Just(0u32), Just(4000u32), Just((1 << 18) - 100)],
        len in 1u32..9000,
        holes in prop::collection::vec(0u32..9000, 0..6),
        cursor in 0u32..9500,
    ) {
        let mut idr = Idr::new();
        let mut model = Model::default();
        for id in base..base + len {
            idr.insert(id, id).unwrap();
            model.insert(id, id).unwrap();
        }
        for h in holes {
            let id = base + h;
            prop_assert_eq!(idr.remove(id), model.map.remove(&id).map(|e| e.0));
        }
        idr.check_invariants();
        let (lo, hi) = (base, base + len);
        let c = base + cursor;
        prop_assert_eq!(idr.find_free(c, hi), model.find_free(c, hi));
        prop_assert_eq!(idr.find_free(lo, c), model.find_free(lo, c));
        prop_assert_eq!(idr.find_free(lo, hi), model.find_free(lo, hi));
    }

    /// Cyclic pid allocation (`alloc_pid()`'s choice): the lowest free
    /// number at or after the cursor below pid_max, else after a wrap the
    /// lowest from 1 (or from RESERVED_PIDS once the cursor passed it),
    /// compared with a plain scan, around a cursor that is free, taken, at
    /// pid_max or past it.
    #[test]
    fn next_cyclic_matches_a_scan(
        used in prop::collection::btree_set(1u32..700, 0..600),
        cursor in prop_oneof![0u32..720, 60u32..68, 296u32..306, 696u32..704],
        pid_max in prop_oneof![Just(64u32), Just(301u32), Just(700u32), Just(4096u32)],
    ) {
        let mut idr = Idr::new();
        for &id in &used {
            idr.insert(id, id).unwrap();
        }
        let min = if cursor > RESERVED_PIDS { RESERVED_PIDS } else { 1 };
        let start = cursor.max(min);
        let scan = |from: u32| (from..pid_max).find(|n| !used.contains(n));
        let want = scan(start).or_else(|| if start > min { scan(min) } else { None });
        prop_assert_eq!(next_cyclic(&idr, cursor, pid_max), want);
    }
}
