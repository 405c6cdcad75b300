//! Quick timing sanity check of `taskcore::probe` (not a benchmark
//! suite): ns per operation over fork + exit_group + wait4 cycles with
//! nothing registered, with a return probe on an unrelated op only (the
//! one-relaxed-load path), and with a minimal return probe on every op.
//! Modes are interleaved over rounds and the fastest round of each is
//! kept, which filters out other processes' load.
//!
//! Run: `cargo run --release -p taskcore --example probe_overhead [cycles]`
//! (`taskcore bench objpool` has the measured figures).

use std::hint::black_box;
use std::time::Instant;

use taskcore::probe::{KretprobeBuilder, Op, OpSet};
use taskcore::{Config, Kernel, WaitOutcome};

/// ns per operation (3 per cycle) of `n` cycles.
fn ns_per_op(k: &mut Kernel, n: u64) -> f64 {
    let init = k.init_task().unwrap();
    let t = Instant::now();
    for i in 0..n {
        let c = k.fork(init).unwrap();
        k.exit_group(c, 0).unwrap();
        match k.wait4(init, -1, 0) {
            Ok(WaitOutcome::Reported(_)) => {}
            other => panic!("{other:?}"),
        }
        if i % 256 == 0 {
            drop(k.take_notifications());
        }
    }
    t.elapsed().as_nanos() as f64 / (3 * n) as f64
}

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000);
    let mut k = Kernel::new(Config::default()).unwrap();
    let other = KretprobeBuilder::new(OpSet::of(Op::Mremap), 2)
        .build()
        .unwrap();
    let all = KretprobeBuilder::new(OpSet::ALL, 2)
        .entry_handler(|inst| {
            inst.data[0] = 1;
            true
        })
        .handler(|inst| {
            black_box(inst.data[0]);
        })
        .build()
        .unwrap();
    let mut best = [f64::INFINITY; 3];
    for round in 0..41 {
        // Alternate the order, so that no mode always runs first.
        let order: [usize; 3] = if round % 2 == 0 { [0, 1, 2] } else { [2, 1, 0] };
        for mode in order {
            let b = &mut best[mode];
            let p = [None, Some(&other), Some(&all)][mode];
            if let Some(p) = p {
                k.probes().register(p).unwrap();
            }
            *b = b.min(ns_per_op(&mut k, n));
            if let Some(p) = p {
                k.probes().unregister(p).unwrap();
            }
        }
    }
    let [none, unarmed, probed] = best;
    println!(
        "ns per op (fastest of 41 rounds): none {none:.1}, unrelated op probed {unarmed:.1}, \
         every op probed {probed:.1} (+{:.1}); nmissed {}",
        probed - none,
        all.nmissed()
    );
}
