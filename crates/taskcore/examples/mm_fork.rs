//! A rough fork measurement for the address-space tree.
//!
//! Run with `cargo run --release -p taskcore --example mm_fork`. The full
//! experiment, with the harness's medians, JSON, plots and the process
//! core's fork, is `taskcore bench fork` (`crates/taskcore-bench/src/fork.rs`).
//!
//! Prints:
//! 1. bulk duplication (`dup_bulk`, Linux 6.8's `__mt_dup`) against
//!    one-by-one insertion (`onebyone` below, the pre-6.8 `dup_mmap`) at
//!    21 .. 51,221 VMAs (the VMA counts of the `__mt_dup` series' spawn
//!    benchmark);
//! 2. copy-on-write fork (`dup_cow`) at 21 VMAs and at 1,048,576 VMAs;
//! 3. the cost of the first write (a munmap of one VMA) after a
//!    copy-on-write fork, against n.
//!
//! Times are medians over repeated runs; the machine is shared, so expect
//! noise of a few percent.

use std::hint::black_box;
use std::time::{Duration, Instant};

use taskcore::mm::flags::*;
use taskcore::mm::{MmLayout, MmStruct, RangeTree, Vma};

/// An address space of `n` one-page VMAs separated by one-page holes.
fn mm_with(n: u64) -> MmStruct {
    let vmas: Vec<Vma> = (0..n)
        .map(|i| {
            Vma::anon(
                0x1_0000 + i * 0x2000,
                0x1_1000 + i * 0x2000,
                PROT_READ | PROT_WRITE,
            )
        })
        .collect();
    let mut mm = MmStruct::from_vmas(vmas, MmLayout::default()).expect("valid layout");
    mm.set_max_map_count(usize::MAX);
    mm
}

/// The pre-6.8 baseline: every VMA inserted one by one into an empty tree
/// (no VMA here has a fork rule to apply).
fn onebyone(mm: &MmStruct) -> RangeTree<Vma> {
    let mut t = RangeTree::new();
    for v in mm.iter() {
        t.insert(v.clone()).expect("parent VMAs do not overlap");
    }
    t
}

/// Median of `runs` timings of `f`.
fn median<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    let mut t: Vec<Duration> = (0..runs)
        .map(|_| {
            let s = Instant::now();
            let r = f();
            let d = s.elapsed();
            drop(black_box(r));
            d
        })
        .collect();
    t.sort();
    t[t.len() / 2]
}

fn main() {
    println!("# bulk (dup_bulk) vs one-by-one (RangeTree::insert) fork duplication");
    println!(
        "{:>8} {:>12} {:>12} {:>8}",
        "vmas", "bulk", "one-by-one", "speedup"
    );
    for n in [
        21u64, 121, 221, 421, 821, 1621, 3221, 6421, 12821, 25621, 51221,
    ] {
        let mm = mm_with(n);
        let runs = if n < 5000 { 200 } else { 31 };
        let bulk = median(runs, || mm.dup_bulk().expect("no budget"));
        let one = median(runs, || onebyone(&mm));
        println!(
            "{n:>8} {:>12.2?} {:>12.2?} {:>7.2}x",
            bulk,
            one,
            one.as_secs_f64() / bulk.as_secs_f64()
        );
    }

    println!();
    println!("# copy-on-write fork (dup_cow)");
    let small = mm_with(21);
    let big = mm_with(1 << 20);
    let t_small = median(10_001, || small.dup_cow());
    let t_big = median(10_001, || big.dup_cow());
    println!("{:>8} {:>12.2?}", 21, t_small);
    println!("{:>8} {:>12.2?}", 1u64 << 20, t_big);
    println!(
        "ratio 1M/21: {:.2}",
        t_big.as_secs_f64() / t_small.as_secs_f64()
    );

    println!();
    println!("# first write after dup_cow (munmap of one VMA), vs n");
    println!(
        "{:>8} {:>12} {:>12} {:>7}",
        "vmas", "first write", "2nd write", "height"
    );
    for n in [21u64, 1_000, 10_000, 100_000, 1 << 20] {
        let mm = if n == 1 << 20 {
            big.clone()
        } else {
            mm_with(n)
        };
        let mid = 0x1_0000 + (n / 2) * 0x2000;
        let mut children: Vec<MmStruct> = (0..2001).map(|_| mm.dup_cow()).collect();
        let mut it = children.iter_mut();
        let first = median(2001, || {
            let c = it.next().expect("enough children");
            c.munmap(mid, PAGE_SIZE).expect("valid")
        });
        let mut it = children.iter_mut();
        let second = median(2001, || {
            let c = it.next().expect("enough children");
            c.munmap(mid + 0x4000, PAGE_SIZE).expect("valid")
        });
        println!(
            "{n:>8} {:>12.2?} {:>12.2?} {:>7}",
            first,
            second,
            mm.tree().height()
        );
    }
}
