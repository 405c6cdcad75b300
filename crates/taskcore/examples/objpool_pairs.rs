//! Quick timing sanity check of `taskcore::objpool` (not a benchmark
//! suite): nanoseconds per pop+push pair on one thread, and the throughput
//! of 1 and 2 threads each popping and returning objects for a fixed time.
//!
//! Run: `cargo run --release -p taskcore --example objpool_pairs [secs]`
//!
//! Modelled on Linux's lib/test_objpool.c "sync" test: a pool of 8 objects
//! per shard, one worker per shard, pop then push, bulk 1.

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Barrier;
use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;
use taskcore::objpool::ObjPool;

/// An object the holder writes to.
trait Bump: Send {
    /// Builds the object.
    fn new() -> Self;
    /// Writes to it.
    fn bump(&mut self);
}

impl Bump for u64 {
    fn new() -> Self {
        0
    }
    #[inline(always)]
    fn bump(&mut self) {
        *self = black_box(*self).wrapping_add(1);
    }
}

impl Bump for CachePadded<u64> {
    fn new() -> Self {
        CachePadded::new(0)
    }
    #[inline(always)]
    fn bump(&mut self) {
        **self = black_box(**self).wrapping_add(1);
    }
}

/// One pop+push pair; the object is written so the access is not elided.
#[inline(always)]
fn pair<T: Bump>(pool: &ObjPool<T>) -> bool {
    match pool.pop() {
        Some(mut obj) => {
            obj.bump();
            true
        }
        None => false,
    }
}

/// Best of `rounds` runs of `n` pairs on the calling thread: ns per pair
/// by the wall clock, and by the thread's CPU time (`NaN` if unavailable;
/// immune to other processes taking the CPU away).
fn single_thread_ns<T: Bump>(pool: &ObjPool<T>, n: u64, rounds: usize) -> (f64, f64) {
    let (mut wall, mut cpu) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..rounds {
        let cpu0 = thread_cpu_ns();
        let start = Instant::now();
        for _ in 0..n {
            black_box(pair(black_box(pool)));
        }
        wall = wall.min(start.elapsed().as_nanos() as f64 / n as f64);
        if let (Some(a), Some(b)) = (cpu0, thread_cpu_ns()) {
            cpu = cpu.min((b - a) as f64 / n as f64);
        } else {
            cpu = f64::NAN;
        }
    }
    (wall, cpu)
}

/// CPU time the calling thread has used, in ns, from
/// `/proc/thread-self/schedstat` (first field); `None` if unavailable.
fn thread_cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// Result of one timed run.
struct Run {
    /// Pairs per wall-clock second, all threads together.
    per_sec: f64,
    /// Pairs per CPU-second actually used by the workers (`NaN` if the OS
    /// does not report it): immune to other processes taking CPU away.
    per_cpu_sec: f64,
    /// Pops that found the pool empty.
    misses: u64,
}

/// Pairs per second of `threads` threads hammering `pool` for `time`.
fn throughput<T: Bump>(pool: &ObjPool<T>, threads: usize, time: Duration) -> Run {
    let stop = AtomicBool::new(false);
    let barrier = Barrier::new(threads + 1);
    let (pairs, misses, secs) = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                let (stop, barrier) = (&stop, &barrier);
                s.spawn(move || {
                    let (mut pairs, mut misses) = (0u64, 0u64);
                    barrier.wait();
                    let cpu0 = thread_cpu_ns();
                    while !stop.load(Ordering::Relaxed) {
                        for _ in 0..256 {
                            if pair(pool) {
                                pairs += 1;
                            } else {
                                misses += 1;
                            }
                        }
                    }
                    let cpu = match (cpu0, thread_cpu_ns()) {
                        (Some(a), Some(b)) => (b - a) as f64,
                        _ => f64::NAN,
                    };
                    (pairs, misses, cpu)
                })
            })
            .collect();
        barrier.wait();
        let start = Instant::now();
        std::thread::sleep(time);
        stop.store(true, Ordering::Relaxed);
        let res: Vec<(u64, u64, f64)> = workers.into_iter().map(|w| w.join().unwrap()).collect();
        let secs = start.elapsed().as_secs_f64();
        (
            res.iter().map(|r| r.0).sum::<u64>(),
            res.iter().map(|r| r.1).sum::<u64>(),
            (secs, res.iter().map(|r| r.2).sum::<f64>() / 1e9),
        )
    });
    Run {
        per_sec: pairs as f64 / secs.0,
        per_cpu_sec: pairs as f64 / secs.1,
        misses,
    }
}

/// Compares 1 and 2 threads on fresh pools of `T`.
fn scaling<T: Bump>(label: &str, shards: usize, time: Duration) {
    // Fresh pools so each run starts with the objects spread evenly.
    let fresh = || ObjPool::with_shards(8 * shards, shards, |_| T::new()).expect("pool");
    let one = throughput(&fresh(), 1, time);
    let two = throughput(&fresh(), 2, time);
    println!("{label}:");
    for (n, r) in [(1, &one), (2, &two)] {
        println!(
            "  {n} thread(s): {:>6.1} M pairs/s wall, {:>6.1} M pairs per CPU-second ({} misses)",
            r.per_sec / 1e6,
            r.per_cpu_sec / 1e6,
            r.misses
        );
    }
    println!(
        "  2 threads vs 1: {:.2}x wall; {:.2}x if each thread had a core \
         (2 x per-CPU-second ratio)",
        two.per_sec / one.per_sec,
        2.0 * two.per_cpu_sec / one.per_cpu_sec,
    );
}

fn main() {
    let secs: f64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1.0);
    let time = Duration::from_secs_f64(secs);
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let shards = cpus.max(2);
    let pool = ObjPool::with_shards(8 * shards, shards, |_| 0u64).expect("pool");
    println!(
        "objpool: capacity {}, {} shards, {} CPUs",
        pool.capacity(),
        pool.nr_shards(),
        cpus
    );
    let (wall, cpu) = single_thread_ns(&pool, 20_000_000, 5);
    println!(
        "single thread: {wall:.2} ns per pop+push pair wall, {cpu:.2} ns CPU time \
         (best of 5 x 20M)"
    );

    scaling::<u64>("u64 objects (packed)", shards, time);
    scaling::<CachePadded<u64>>("CachePadded<u64> objects", shards, time);
}
