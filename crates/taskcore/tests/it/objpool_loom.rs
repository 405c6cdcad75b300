//! Loom models of `taskcore::objpool`: every interleaving (up to the
//! preemption bound) of a few threads popping, writing and returning
//! objects, and of the teardown of a shared pool.
//!
//! Under `--cfg loom` the pool's atomics, `Arc` and object cells are loom's:
//! loom reports any two holders of one object whose accesses are not
//! ordered by happens-before, and any read that the memory model lets see a
//! stale entry. Rings are the capacity rounded up to a power of two (no
//! 16-entry minimum), so these models reuse ring slots.
//!
//! Run (about a minute in all):
//! `LOOM_MAX_PREEMPTIONS=3 RUSTFLAGS="--cfg loom" cargo test -p taskcore --test it --release objpool_loom::`
#![cfg(loom)]

use loom::cell::UnsafeCell;
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::Arc;
use loom::thread;

use taskcore::objpool::{ObjPool, ObjRef, OwnedObjRef};

/// Runs `f` under loom, with a preemption bound of 3 unless
/// `LOOM_MAX_PREEMPTIONS` says otherwise.
fn model(f: impl Fn() + Sync + Send + 'static) {
    model_bounded(3, f);
}

/// Runs `f` under loom with at most `bound` preemptions (or the smaller
/// `LOOM_MAX_PREEMPTIONS`, if set).
fn model_bounded(bound: usize, f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(builder.preemption_bound.map_or(bound, |b| b.min(bound)));
    builder.check(f);
}

/// Pops up to `cycles` times; each success adds one to the object (a plain
/// `u64`, whose cell loom tracks) and returns it. Returns the successes.
fn cycle(pool: &ObjPool<u64>, cycles: usize) -> u64 {
    let mut got = 0;
    for _ in 0..cycles {
        if let Some(mut obj) = pool.pop() {
            *obj += 1;
            got += 1;
        }
    }
    got
}

/// After the threads are joined: every object is free exactly once, and
/// the per-object counts add up to the successful pops.
fn check_all_back(pool: &mut ObjPool<u64>, pops: u64) {
    let cap = pool.capacity();
    assert_eq!(pool.check_invariants(), cap);
    let all: Vec<ObjRef<'_, u64>> = std::iter::from_fn(|| pool.pop()).collect();
    let mut idx: Vec<usize> = all.iter().map(ObjRef::index).collect();
    idx.sort_unstable();
    assert_eq!(idx, (0..cap).collect::<Vec<_>>());
    assert_eq!(all.iter().map(|o| **o).sum::<u64>(), pops);
}

/// Runs `threads` threads of `cycles` pop/write/push cycles each on a pool
/// of `cap` objects over `shards` rings, then checks the pool.
fn pop_push(cap: usize, shards: usize, threads: usize, cycles: usize) {
    pop_push_bounded(cap, shards, threads, cycles, 3);
}

/// [`pop_push`] with preemption bound `bound`.
fn pop_push_bounded(cap: usize, shards: usize, threads: usize, cycles: usize, bound: usize) {
    model_bounded(bound, move || {
        let pool = Arc::new(ObjPool::with_shards(cap, shards, |_| 0u64).unwrap());
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                let pool = Arc::clone(&pool);
                thread::spawn(move || cycle(&pool, cycles))
            })
            .collect();
        let pops = handles.into_iter().map(|h| h.join().unwrap()).sum();
        let mut pool = Arc::try_unwrap(pool).unwrap();
        check_all_back(&mut pool, pops);
    });
}

#[test]
fn loom_two_threads_one_shard_ring_reuse() {
    // Ring of 2 slots, 2 objects: each push reuses the slot a pop just
    // left, the case "No early overwrite" is about.
    pop_push(2, 1, 2, 2);
}

#[test]
fn loom_two_threads_two_shards() {
    // One object per shard: threads pop locally, and steal when their own
    // ring is empty.
    pop_push(2, 2, 2, 2);
}

#[test]
fn loom_steal_single_object() {
    // One object, two shards: one thread always has to steal it.
    pop_push(1, 2, 2, 2);
}

#[test]
fn loom_three_threads_one_shard() {
    pop_push(2, 1, 3, 1);
}

#[test]
fn loom_pop_misses_only_while_a_push_is_in_flight() {
    // One object, one ring. The holder returns it; the other thread pops
    // once. After both finish, the object must be back; and a thread that
    // pops after joining the returner must get it.
    model(|| {
        let pool = Arc::new(ObjPool::with_shards(1, 1, |_| 0u64).unwrap());
        let held = pool.pop().unwrap();
        let idx = ObjRef::index(&held);
        drop(held);
        let p2 = Arc::clone(&pool);
        let returner = thread::spawn(move || cycle(&p2, 1));
        let p3 = Arc::clone(&pool);
        let racer = thread::spawn(move || cycle(&p3, 1));
        let pops = returner.join().unwrap() + racer.join().unwrap();
        let obj = pool.pop().expect("no push in flight: the object is free");
        assert_eq!(ObjRef::index(&obj), idx);
        assert_eq!(*obj, pops);
    });
}

/// An object whose `Drop` reads what its holders wrote, through a
/// loom-tracked cell: loom fails the model unless every holder's write
/// happens-before the teardown.
struct Tracked {
    value: UnsafeCell<u64>,
    drops: Arc<AtomicUsize>,
    sum: Arc<AtomicUsize>,
}

impl Drop for Tracked {
    fn drop(&mut self) {
        let v = self.value.with(|p| {
            // SAFETY: the model checks this read is ordered after every
            // write by the object's holders.
            unsafe { *p }
        });
        self.sum.fetch_add(v as usize, Ordering::Relaxed);
        self.drops.fetch_add(1, Ordering::Relaxed);
    }
}

#[test]
fn loom_owned_handles_last_one_tears_down() {
    model(|| {
        let drops = Arc::new(AtomicUsize::new(0));
        let sum = Arc::new(AtomicUsize::new(0));
        let pool = Arc::new(
            ObjPool::with_shards(2, 2, |_| Tracked {
                value: UnsafeCell::new(0),
                drops: Arc::clone(&drops),
                sum: Arc::clone(&sum),
            })
            .unwrap(),
        );
        let handles: Vec<_> = (0..2)
            .map(|_| {
                let pool = Arc::clone(&pool);
                thread::spawn(move || {
                    let Some(obj) = ObjPool::pop_owned(&pool) else {
                        return 0;
                    };
                    assert!(OwnedObjRef::index(&obj) < 2);
                    // SAFETY: the handle gives exclusive access; loom
                    // checks it.
                    obj.value.with_mut(|p| unsafe { *p += 1 });
                    drop(pool);
                    // Dropping the handle may be the teardown.
                    drop(obj);
                    1
                })
            })
            .collect();
        drop(pool);
        let pops: usize = handles.into_iter().map(|h| h.join().unwrap()).sum();
        assert_eq!(drops.load(Ordering::Relaxed), 2);
        assert_eq!(sum.load(Ordering::Relaxed), pops);
    });
}

#[test]
fn loom_three_threads_two_shards() {
    // Three threads on two shards: two share a ring while the third steals.
    pop_push(2, 2, 3, 1);
}

#[test]
fn loom_two_threads_one_shard_three_laps() {
    // Ring of 2 slots cycled for several laps by both threads.
    pop_push(2, 1, 2, 3);
}

#[test]
fn loom_three_threads_two_shards_two_cycles() {
    // Longer runs per thread; preemption bound 2 keeps it near 30 s.
    pop_push_bounded(2, 2, 3, 2, 2);
}
