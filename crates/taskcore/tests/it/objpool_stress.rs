//! Stress tests of `taskcore::objpool`: many threads (more than the
//! machine's cores) pop, hold and return objects for a while, with a
//! per-object "held" flag that catches any object lent to two holders at
//! once. At the end every object must be back, once.
//!
//! Durations shrink to a fixed handful of iterations under miri. Not built
//! under `--cfg loom` (see `objpool_loom.rs` for the model checks).
#![cfg(not(loom))]

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use taskcore::objpool::{ObjPool, ObjRef, OwnedObjRef};

/// A pooled object: its own index, a use count written without atomics by
/// its holder (a data race if two threads held it), and drop bookkeeping.
struct Obj {
    idx: usize,
    uses: u64,
    book: Arc<Book>,
}

/// Shared bookkeeping: per-object held flags and drop counts, total uses
/// seen at drop time.
struct Book {
    held: Vec<AtomicBool>,
    drops: Vec<AtomicUsize>,
    uses_at_drop: AtomicU64,
}

impl Book {
    fn new(cap: usize) -> Arc<Self> {
        Arc::new(Self {
            held: (0..cap).map(|_| AtomicBool::new(false)).collect(),
            drops: (0..cap).map(|_| AtomicUsize::new(0)).collect(),
            uses_at_drop: AtomicU64::new(0),
        })
    }

    /// Marks `idx` held; panics if someone else holds it.
    fn acquire(&self, idx: usize) {
        // Relaxed on purpose: the flags must add no synchronisation of their
        // own, so that miri's race detector sees the pool's alone (an
        // AcqRel here would order the holders' accesses to `uses` even if
        // the pool failed to). The pool's push/pop ordering makes the
        // previous holder's `false` visible here (coherence).
        let was = self.held[idx].swap(true, Ordering::Relaxed);
        assert!(!was, "object {idx} held by two threads at once");
    }

    /// Marks `idx` free; called just before the handle is dropped.
    fn release(&self, idx: usize) {
        // Relaxed: see `acquire`.
        self.held[idx].store(false, Ordering::Relaxed);
    }
}

impl Drop for Obj {
    fn drop(&mut self) {
        self.book.drops[self.idx].fetch_add(1, Ordering::Relaxed);
        self.book
            .uses_at_drop
            .fetch_add(self.uses, Ordering::Relaxed);
    }
}

/// How long each worker runs: wall time normally, iterations under miri.
#[derive(Clone, Copy)]
enum Budget {
    Time(Duration),
    Iters(u64),
}

fn budget(time: Duration) -> Budget {
    if cfg!(miri) {
        Budget::Iters(150)
    } else {
        Budget::Time(time)
    }
}

fn nr_threads() -> usize {
    if cfg!(miri) {
        4
    } else {
        8
    }
}

/// A small xorshift generator, so workers vary their behaviour without a
/// dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Per-worker result.
#[derive(Default, Debug)]
struct Tally {
    pops: u64,
    misses: u64,
}

/// The worker loop shared by both handle kinds: `pop` lends an object,
/// `idx_of` and `obj_mut` inspect it.
fn worker<H>(
    seed: u64,
    budget: Budget,
    book: &Book,
    mut pop: impl FnMut() -> Option<H>,
    idx_of: impl Fn(&H) -> usize,
    obj_mut: impl Fn(&mut H) -> &mut Obj,
) -> Tally {
    let mut rng = Rng(seed | 1);
    let mut tally = Tally::default();
    let mut held: Vec<H> = Vec::new();
    let start = Instant::now();
    let mut iter = 0u64;
    loop {
        match budget {
            Budget::Iters(n) if iter >= n => break,
            Budget::Time(t) if iter.is_multiple_of(64) && start.elapsed() >= t => break,
            _ => {}
        }
        iter += 1;
        // Hold between 1 and 4 objects, then return them in random order.
        let want = 1 + (rng.next() % 4) as usize;
        while held.len() < want {
            let Some(mut h) = pop() else {
                tally.misses += 1;
                break;
            };
            let idx = idx_of(&h);
            book.acquire(idx);
            let obj = obj_mut(&mut h);
            assert_eq!(obj.idx, idx, "handle index and object disagree");
            obj.uses += 1;
            tally.pops += 1;
            held.push(h);
        }
        while !held.is_empty() {
            let h = held.swap_remove((rng.next() % held.len() as u64) as usize);
            book.release(idx_of(&h));
            drop(h);
            if rng.next().is_multiple_of(2) {
                break;
            }
        }
    }
    for h in held.drain(..) {
        book.release(idx_of(&h));
    }
    tally
}

/// Runs `threads` borrowing workers on a pool of `cap` objects over
/// `shards` rings, then checks every object is back exactly once.
fn stress_borrowed(cap: usize, shards: usize, threads: usize, time: Duration) {
    let book = Book::new(cap);
    #[cfg_attr(not(debug_assertions), allow(unused_mut))]
    let mut pool = ObjPool::with_shards(cap, shards, |idx| Obj {
        idx,
        uses: 0,
        book: Arc::clone(&book),
    })
    .unwrap();
    let budget = budget(time);
    let barrier = Barrier::new(threads);
    let tallies: Vec<Tally> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let (pool, book, barrier) = (&pool, &*book, &barrier);
                s.spawn(move || {
                    barrier.wait();
                    worker(
                        0x9e37_79b9_7f4a_7c15u64.wrapping_mul(t as u64 + 1),
                        budget,
                        book,
                        || pool.pop(),
                        |h: &ObjRef<'_, Obj>| ObjRef::index(h),
                        |h| &mut **h,
                    )
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let pops: u64 = tallies.iter().map(|t| t.pops).sum();
    // No fairness is promised (nor by Linux's objpool): on a loaded
    // machine one worker may starve for a whole run, so only the total is
    // checked here; the ownership and accounting checks below are the test.
    assert!(pops > 0, "no worker ever got an object: {tallies:?}");

    #[cfg(debug_assertions)]
    assert_eq!(pool.check_invariants(), cap);
    // All objects present and distinct; their use counts add up.
    let all: Vec<_> = std::iter::from_fn(|| pool.pop()).collect();
    let mut seen = vec![false; cap];
    for h in &all {
        let idx = ObjRef::index(h);
        assert!(
            !std::mem::replace(&mut seen[idx], true),
            "object {idx} twice"
        );
        assert!(
            !book.held[idx].load(Ordering::Relaxed),
            "object {idx} still held"
        );
    }
    assert_eq!(all.len(), cap, "objects missing after the run");
    assert_eq!(all.iter().map(|h| h.uses).sum::<u64>(), pops);
    drop(all);
    drop(pool);
    assert!(book.drops.iter().all(|d| d.load(Ordering::Relaxed) == 1));
}

#[test]
fn objpool_stress_held_flags_two_shards() {
    stress_borrowed(16, 2, nr_threads(), Duration::from_secs(2));
}

#[test]
fn objpool_stress_scarce_objects_many_shards() {
    // Fewer objects than threads and shards: rings run dry all the time,
    // so pops steal from other shards and miss.
    stress_borrowed(5, 4, nr_threads(), Duration::from_millis(600));
}

#[test]
fn objpool_stress_owned_handles_and_teardown_race() {
    let cap = 12;
    let book = Book::new(cap);
    let pool = Arc::new(
        ObjPool::with_shards(cap, 3, |idx| Obj {
            idx,
            uses: 0,
            book: Arc::clone(&book),
        })
        .unwrap(),
    );
    let threads = nr_threads();
    let budget = budget(Duration::from_millis(600));
    let barrier = Arc::new(Barrier::new(threads));
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let (pool, book, barrier) =
                (Arc::clone(&pool), Arc::clone(&book), Arc::clone(&barrier));
            std::thread::spawn(move || {
                barrier.wait();
                worker(
                    0xd1b5_4a32_d192_ed03u64.wrapping_mul(t as u64 + 1),
                    budget,
                    &book,
                    || ObjPool::pop_owned(&pool),
                    |h: &OwnedObjRef<Obj>| OwnedObjRef::index(h),
                    |h| &mut **h,
                )
                // `pool` drops here; the last thread out tears it down.
            })
        })
        .collect();
    // The main thread lets go first, so teardown happens in a worker.
    drop(pool);
    let pops: u64 = handles.into_iter().map(|h| h.join().unwrap().pops).sum();
    assert!(pops > 0);
    assert!(
        book.drops.iter().all(|d| d.load(Ordering::Relaxed) == 1),
        "each object must be dropped exactly once at teardown"
    );
    assert_eq!(book.uses_at_drop.load(Ordering::Relaxed), pops);
}
