//! Benchmarks for `taskcore::pid::Idr`: the seed 001 worst case (last free
//! pid of a full table) against an empty table, seed 003's tagged listing
//! against a full walk, and memory per id at dense fill.
//!
//! Run with `cargo bench -p taskcore-bench --bench idr`. Plain `Instant` timing,
//! best of several rounds, no dependencies; figures are indicative only.

use std::hint::black_box;
use std::time::Instant;

use taskcore::pid::{Idr, IDR_MAX};

const _: () = assert!(IDR_MAX > PID_MAX_LIMIT);

/// `PID_MAX_LIMIT` on 64-bit Linux.
const PID_MAX_LIMIT: u32 = 4 * 1024 * 1024;
/// `RESERVED_PIDS`: where cyclic allocation restarts after a wrap.
const RESERVED_PIDS: u32 = 300;

/// Runs `f` `iters` times per round, returns the best ns per call.
fn bench(name: &str, iters: u32, mut f: impl FnMut(u32)) {
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let t = Instant::now();
        for i in 0..iters {
            f(i);
        }
        best = best.min(t.elapsed().as_nanos() as f64 / f64::from(iters));
    }
    println!("{name:<58} {best:>8.1} ns/op");
}

/// A small xorshift, so the benchmark needs no crate.
fn xorshift(x: &mut u64) -> u64 {
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    *x
}

fn full_table() -> Idr {
    let mut idr = Idr::new();
    for id in 0..PID_MAX_LIMIT {
        idr.insert(id, id).unwrap();
    }
    idr
}

fn main() {
    let empty = Idr::new();
    bench("find_free(300, 4M) on an empty table", 1 << 20, |i| {
        black_box(empty.find_free(black_box(RESERVED_PIDS + (i & 0xffff)), PID_MAX_LIMIT));
    });

    let t = Instant::now();
    let mut full = full_table();
    let fill = t.elapsed();
    println!(
        "{:<58} {:>8.1} ns/op",
        "insert 0..4M in order (fill)",
        fill.as_nanos() as f64 / f64::from(PID_MAX_LIMIT)
    );
    println!(
        "dense 4M fill: {} nodes, {} bytes of nodes, {:.2} bytes per id",
        full.node_count(),
        full.node_bytes(),
        full.node_bytes() as f64 / f64::from(PID_MAX_LIMIT)
    );

    // Seed 001: one free pid somewhere in a full 4M table, found from the
    // cursor just after it (so the search wraps to RESERVED_PIDS).
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let holes: Vec<u32> = (0..1024)
        .map(|_| {
            RESERVED_PIDS + (xorshift(&mut rng) % u64::from(PID_MAX_LIMIT - RESERVED_PIDS)) as u32
        })
        .collect();
    bench(
        "full 4M: remove + cyclic find_free of the hole + insert",
        1 << 18,
        |i| {
            let hole = holes[(i & 1023) as usize];
            let v = full.remove(hole).unwrap();
            let found = full
                .find_free(hole + 1, PID_MAX_LIMIT)
                .or_else(|| full.find_free(RESERVED_PIDS, hole + 1));
            assert_eq!(found, Some(hole));
            full.insert(hole, v).unwrap();
        },
    );
    let mut sparse = Idr::new();
    bench(
        "empty: insert + find_free + remove (same ops, no fill)",
        1 << 18,
        |i| {
            let hole = holes[(i & 1023) as usize];
            sparse.insert(hole, 1).unwrap();
            black_box(sparse.find_free(hole, PID_MAX_LIMIT));
            sparse.remove(hole).unwrap();
        },
    );
    bench("full 4M: find_free(300, 4M) -> None", 1 << 20, |i| {
        assert_eq!(
            full.find_free(black_box(RESERVED_PIDS + (i & 0xffff)), PID_MAX_LIMIT),
            None
        );
    });
    bench("full 4M: get(random)", 1 << 20, |i| {
        black_box(full.get(holes[(i & 1023) as usize]));
    });
    drop(full);

    // Seed 003: 100 processes of 1000 threads each; only leaders tagged.
    let mut procs = Idr::new();
    for id in RESERVED_PIDS..RESERVED_PIDS + 100_000 {
        procs.insert(id, id).unwrap();
        if (id - RESERVED_PIDS).is_multiple_of(1000) {
            procs.set_tag(id, 0).unwrap();
        }
    }
    bench(
        "100k pids, 100 leaders: list leaders with next_tagged",
        200,
        |_| {
            assert_eq!(black_box(&procs).iter_tagged(0).count(), 100);
        },
    );
    bench(
        "100k pids, 100 leaders: list leaders with a full walk",
        20,
        |_| {
            let n = black_box(&procs)
                .iter()
                .filter(|&(id, _)| procs.get_tag(id, 0))
                .count();
            assert_eq!(n, 100);
        },
    );
}
