//! Criterion micro-benchmarks of the process core's hot paths: fork, exit,
//! wait (for a pid and for any child) and pid lookup, each with a
//! population of N other children already present (N = 1 and 100,000) to
//! show that the cost does not depend on it.
//!
//! Run with `cargo bench -p taskcore-bench --features criterion --bench
//! core` (add `-- --quick` for a fast pass). Each timed operation is
//! isolated with `iter_custom`: the untimed part (e.g. the fork before an
//! exit, the reaping after it) runs outside the measured interval.

// criterion_group!/criterion_main! generate undocumented items.
#![allow(missing_docs)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use taskcore::{Config, Kernel, TaskId, WaitOutcome};

/// Sizes of the population already present.
const SIZES: [usize; 2] = [1, 100_000];

/// A table with init, a waiter process, and `n` live children of the waiter.
fn population(n: usize) -> (Kernel, TaskId) {
    let mut k = Kernel::new(Config {
        pid_max: 4 * 1024 * 1024,
        ..Config::default()
    })
    .unwrap();
    let init = k.init_task().unwrap();
    let w = k.fork(init).unwrap();
    for _ in 0..n {
        k.fork(w).unwrap();
    }
    drop(k.take_notifications());
    (k, w)
}

fn reaped(k: &mut Kernel, w: TaskId, pid: i32) {
    match k.wait4(w, pid, 0) {
        Ok(WaitOutcome::Reported(r)) => assert_eq!(r.pid, pid),
        other => panic!("wait4({pid}): {other:?}"),
    }
}

/// Forks `iters` children of `w`, returning them with their pids.
fn fork_many(k: &mut Kernel, w: TaskId, iters: u64) -> Vec<(TaskId, i32)> {
    (0..iters)
        .map(|_| {
            let c = k.fork(w).unwrap();
            (c, k.pid_vnr(w, c).unwrap())
        })
        .collect()
}

fn bench_fork(c: &mut Criterion) {
    let mut g = c.benchmark_group("fork");
    for n in SIZES {
        let (mut k, w) = population(n);
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter_custom(|iters| {
                let t = Instant::now();
                let kids: Vec<TaskId> = (0..iters).map(|_| k.fork(w).unwrap()).collect();
                let el = t.elapsed();
                for c in kids {
                    let pid = k.pid_vnr(w, c).unwrap();
                    k.exit_group(c, 0).unwrap();
                    reaped(&mut k, w, pid);
                }
                drop(k.take_notifications());
                el
            });
        });
    }
    g.finish();
}

fn bench_exit(c: &mut Criterion) {
    let mut g = c.benchmark_group("exit_group");
    for n in SIZES {
        let (mut k, w) = population(n);
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter_custom(|iters| {
                let kids = fork_many(&mut k, w, iters);
                let t = Instant::now();
                for &(c, _) in &kids {
                    k.exit_group(c, 0).unwrap();
                }
                let el = t.elapsed();
                for &(_, pid) in &kids {
                    reaped(&mut k, w, pid);
                }
                drop(k.take_notifications());
                el
            });
        });
    }
    g.finish();
}

fn bench_wait(c: &mut Criterion) {
    for (name, any) in [("wait4_pid", false), ("wait4_any", true)] {
        let mut g = c.benchmark_group(name);
        for n in SIZES {
            let (mut k, w) = population(n);
            g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
                b.iter_custom(|iters| {
                    let mut el = Duration::ZERO;
                    // One zombie at a time, so that wait4(-1) has exactly
                    // one child to report among the n live ones.
                    for _ in 0..iters {
                        let c = k.fork(w).unwrap();
                        let pid = k.pid_vnr(w, c).unwrap();
                        k.exit_group(c, 0).unwrap();
                        let t = Instant::now();
                        let r = k.wait4(w, if any { -1 } else { pid }, 0);
                        el += t.elapsed();
                        match r {
                            Ok(WaitOutcome::Reported(r)) => assert_eq!(r.pid, pid),
                            other => panic!("{other:?}"),
                        }
                    }
                    drop(k.take_notifications());
                    el
                });
            });
        }
        g.finish();
    }
}

fn bench_lookup(c: &mut Criterion) {
    let mut g = c.benchmark_group("find_task_by_vpid");
    for n in SIZES {
        let (k, w) = population(n);
        // Pids 1 (init), 2 (waiter), then the children.
        let hi = (n + 2) as u64;
        g.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            let mut x = 0x9e37_79b9_7f4a_7c15u64;
            b.iter(|| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let pid = (x % hi) as i32 + 1;
                black_box(k.find_task_by_vpid(w, pid).unwrap())
            });
        });
    }
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
}

criterion_group! {
    name = benches;
    config = config();
    targets = bench_fork, bench_exit, bench_wait, bench_lookup
}
criterion_main!(benches);
