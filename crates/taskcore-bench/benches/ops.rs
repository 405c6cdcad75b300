//! Criterion micro-benchmarks of single operations with budgets (issue 13):
//! the lookups (`getpid`, `getppid`, `find_task_by_vpid` of a live pid,
//! `kill(pid, 0)` of a live pid through the permission and target checks),
//! `setpgid`, the clone of a thread, and the probe check an unprobed
//! operation pays. Budgets and measured figures are in BENCHMARKS.md.
//!
//! Run with `cargo bench -p taskcore-bench --features criterion --bench
//! ops` (add `-- --quick` for a fast pass). The population is init, a
//! waiter process `w` and 100 live children of `w`: the operations do not
//! depend on it.

// criterion_group!/criterion_main! generate undocumented items.
#![allow(missing_docs)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use taskcore::probe::Op;
use taskcore::{CloneArgs, Config, Kernel, TaskId};

/// A table with init, a waiter process and 100 live children of it; returns
/// the kernel, the waiter and its last child with that child's pid.
fn population() -> (Kernel, TaskId, TaskId, i32) {
    let mut k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    let w = k.fork(init).unwrap();
    let mut last = w;
    for _ in 0..100 {
        last = k.fork(w).unwrap();
    }
    let pid = k.pid_vnr(w, last).unwrap();
    drop(k.take_notifications());
    (k, w, last, pid)
}

fn bench_lookups(c: &mut Criterion) {
    let (mut k, w, child, pid) = population();
    let mut g = c.benchmark_group("lookup");
    g.bench_function("getpid", |b| b.iter(|| k.getpid(black_box(child))));
    g.bench_function("getppid", |b| b.iter(|| k.getppid(black_box(child))));
    g.bench_function("find_task_by_vpid", |b| {
        b.iter(|| k.find_task_by_vpid(black_box(w), black_box(pid)))
    });
    g.bench_function("kill_sig0", |b| {
        b.iter(|| k.kill(black_box(w), black_box(pid), 0))
    });
    g.finish();
}

fn bench_setpgid(c: &mut Criterion) {
    let (mut k, w, _child, pid) = population();
    let wpgid = k.getpgid(w, 0).unwrap();
    let mut g = c.benchmark_group("setpgid");
    // Alternately a group of its own and back into the parent's: each call
    // moves the child between two process groups.
    let mut own = false;
    g.bench_function("move_child", |b| {
        b.iter(|| {
            own = !own;
            let r = k.setpgid(w, pid, if own { pid } else { wpgid });
            debug_assert!(r.is_ok());
            r
        })
    });
    g.finish();
}

fn bench_clone_thread(c: &mut Criterion) {
    let (mut k, w, _child, _pid) = population();
    let args = CloneArgs::thread();
    let mut g = c.benchmark_group("clone");
    g.bench_function("thread", |b| {
        b.iter_custom(|iters| {
            // In batches of at most 10,000 live threads (pid_max is 32,768).
            let mut el = Duration::ZERO;
            let mut left = iters;
            let mut threads = Vec::with_capacity(iters.min(10_000) as usize);
            while left > 0 {
                let n = left.min(10_000);
                left -= n;
                let t = Instant::now();
                for _ in 0..n {
                    threads.push(k.clone(w, &args).unwrap());
                }
                el += t.elapsed();
                for t in threads.drain(..) {
                    k.exit(t, 0).unwrap();
                }
                drop(k.take_notifications());
            }
            el
        })
    });
    g.finish();
}

fn bench_probe_check(c: &mut Criterion) {
    let (k, _w, _child, _pid) = population();
    let mut g = c.benchmark_group("probe_check");
    // What `Kernel::probed` tests before running an unprobed operation: one
    // relaxed load of the armed mask and a bit test.
    g.bench_function("unprobed_op", |b| {
        b.iter(|| k.probes().armed().contains(black_box(Op::Kill)))
    });
    // Criterion's own cost per iteration around the same black boxes: the
    // check costs the difference.
    g.bench_function("empty_iteration", |b| {
        b.iter(|| black_box(Op::Kill) == Op::Kill)
    });
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
}

criterion_group! {
    name = benches;
    config = config();
    targets = bench_lookups, bench_setpgid, bench_clone_thread, bench_probe_check
}
criterion_main!(benches);
