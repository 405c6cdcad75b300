//! `taskcore replay --probe latency`: the latency of every core operation
//! the replay makes, measured with a return probe ([`taskcore::probe`]).
//!
//! Every engine's kernel (and every snapshot the search makes) uses one
//! process-wide [`ProbeSet`], [`probes`]; nothing is registered on it
//! unless `--probe` asks, so a plain replay pays one relaxed atomic load
//! per operation. The latency probe covers every [`Op`]: its entry handler
//! stores a timestamp (ns since a process-wide origin, `Instant`) in the
//! instance, its return handler adds the elapsed time to the op's
//! [`Histogram`]. The times include the probe's own work (one clock read
//! on each side, about 20 ns each with the vDSO clock).

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use comfy_table::{presets::ASCII_MARKDOWN, Cell, CellAlignment, Table};
use taskcore::probe::{Kretprobe, KretprobeBuilder, Op, OpSet, ProbeSet, NR_OPS};

/// The probe set every replay kernel uses.
pub fn probes() -> &'static Arc<ProbeSet> {
    static SET: OnceLock<Arc<ProbeSet>> = OnceLock::new();
    SET.get_or_init(|| Arc::new(ProbeSet::new()))
}

/// The CPUs this process may run on (for the probe's default maxactive).
pub fn nr_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Nanoseconds since a process-wide origin.
fn now_ns() -> u64 {
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    ORIGIN.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

/// Sub-buckets per power of two: values are kept to 1/32 (3%) precision.
const SUB_BITS: u32 = 5;
const SUB: u64 = 1 << SUB_BITS;
/// Buckets: `SUB` exact ones for `0..SUB`, then `SUB` per octave up to
/// 2^64.
const NR_BUCKETS: usize = (SUB + (64 - SUB_BITS as u64) * SUB) as usize;

/// A log-linear histogram of nanosecond values, updated lock-free (Relaxed
/// atomics: statistics, read after the replay).
///
/// Values below 32 have a bucket each; above, each power of two is split
/// into 32 equal buckets, so a reported quantile is within 1/32 of the true
/// one (the bucket's midpoint is reported). `max` and `count` are exact.
#[derive(Debug)]
pub struct Histogram {
    buckets: Box<[AtomicU64]>,
    count: AtomicU64,
    max: AtomicU64,
}

impl Default for Histogram {
    fn default() -> Self {
        Self::new()
    }
}

impl Histogram {
    /// An empty histogram.
    pub fn new() -> Histogram {
        Histogram {
            buckets: (0..NR_BUCKETS).map(|_| AtomicU64::new(0)).collect(),
            count: AtomicU64::new(0),
            max: AtomicU64::new(0),
        }
    }

    /// The bucket of `v`.
    fn index(v: u64) -> usize {
        if v < SUB {
            return v as usize;
        }
        let e = 63 - v.leading_zeros(); // >= SUB_BITS
        let shift = e - SUB_BITS;
        let sub = (v >> shift) - SUB;
        (SUB + u64::from(shift) * SUB + sub) as usize
    }

    /// The smallest value of bucket `i`, and the bucket's width.
    fn bounds(i: usize) -> (u64, u64) {
        let i = i as u64;
        if i < SUB {
            return (i, 1);
        }
        let shift = (i - SUB) / SUB;
        let sub = (i - SUB) % SUB;
        ((SUB + sub) << shift, 1 << shift)
    }

    /// Adds one value (nanoseconds).
    pub fn record(&self, v: u64) {
        self.buckets[Self::index(v)].fetch_add(1, Relaxed);
        self.count.fetch_add(1, Relaxed);
        self.max.fetch_max(v, Relaxed);
    }

    /// Values recorded.
    pub fn count(&self) -> u64 {
        self.count.load(Relaxed)
    }

    /// The largest value recorded.
    pub fn max(&self) -> u64 {
        self.max.load(Relaxed)
    }

    /// The `q`-quantile (`0 < q <= 1`): the midpoint of the bucket holding
    /// the `ceil(q * count)`-th smallest value (never above `max`); 0 when
    /// empty.
    pub fn quantile(&self, q: f64) -> u64 {
        let n = self.count();
        if n == 0 {
            return 0;
        }
        let rank = ((q * n as f64).ceil() as u64).clamp(1, n);
        let mut seen = 0;
        for (i, b) in self.buckets.iter().enumerate() {
            seen += b.load(Relaxed);
            if seen >= rank {
                let (lo, width) = Self::bounds(i);
                return (lo + (width - 1) / 2).min(self.max());
            }
        }
        self.max()
    }
}

/// The latency probe: a return probe on every op, one histogram per op.
#[derive(Debug)]
pub struct LatencyProbe {
    probe: Arc<Kretprobe>,
    hists: Arc<[Histogram]>,
}

impl LatencyProbe {
    /// Builds the probe (`maxactive` 0: the default for `nr_cpus`) and
    /// registers it on `set`.
    pub fn register(
        set: &ProbeSet,
        nr_cpus: usize,
        maxactive: usize,
    ) -> Result<LatencyProbe, taskcore::Errno> {
        let hists: Arc<[Histogram]> = (0..NR_OPS).map(|_| Histogram::new()).collect();
        let h = Arc::clone(&hists);
        let probe = KretprobeBuilder::new(OpSet::ALL, nr_cpus)
            .maxactive(maxactive)
            .entry_handler(|inst| {
                inst.data[0] = now_ns();
                true
            })
            .handler(move |inst| {
                let dt = now_ns().saturating_sub(inst.data[0]);
                h[inst.op() as usize].record(dt);
            })
            .build()?;
        set.register(&probe)?;
        Ok(LatencyProbe { probe, hists })
    }

    /// The probe itself (for `nmissed`, unregistering).
    pub fn probe(&self) -> &Arc<Kretprobe> {
        &self.probe
    }

    /// The histogram of `op`.
    pub fn hist(&self, op: Op) -> &Histogram {
        &self.hists[op as usize]
    }

    /// The table `--probe latency` prints: one row per op that ran.
    pub fn table(&self) -> String {
        let mut t = Table::new();
        t.load_preset(ASCII_MARKDOWN);
        t.set_header(["op", "count", "p50", "p99", "max"]);
        for op in Op::ALL {
            let h = self.hist(op);
            if h.count() == 0 {
                continue;
            }
            let cells = [
                h.count().to_string(),
                fmt_ns(h.quantile(0.5)),
                fmt_ns(h.quantile(0.99)),
                fmt_ns(h.max()),
            ];
            let mut row = vec![Cell::new(op.name())];
            row.extend(
                cells
                    .into_iter()
                    .map(|c| Cell::new(c).set_alignment(CellAlignment::Right)),
            );
            t.add_row(row);
        }
        let mut out = String::from("\n== latency per core operation (return probes)\n");
        let _ = writeln!(out, "{t}");
        let _ = writeln!(
            out,
            "nmissed {} (maxactive {})",
            self.probe.nmissed(),
            self.probe.maxactive()
        );
        out
    }

    /// The same as JSON: `{ops: {name: {count, p50_ns, p99_ns, max_ns}},
    /// nmissed, maxactive}`.
    pub fn json(&self) -> serde_json::Value {
        let mut ops = serde_json::Map::new();
        for op in Op::ALL {
            let h = self.hist(op);
            if h.count() > 0 {
                ops.insert(
                    op.name().into(),
                    serde_json::json!({
                        "count": h.count(), "p50_ns": h.quantile(0.5),
                        "p99_ns": h.quantile(0.99), "max_ns": h.max(),
                    }),
                );
            }
        }
        serde_json::json!({
            "ops": ops, "nmissed": self.probe.nmissed(), "maxactive": self.probe.maxactive(),
        })
    }
}

/// Nanoseconds with a unit keeping 3-4 significant digits.
fn fmt_ns(ns: u64) -> String {
    let x = ns as f64;
    if x < 1e3 {
        format!("{ns} ns")
    } else if x < 1e6 {
        format!("{:.2} us", x / 1e3)
    } else if x < 1e9 {
        format!("{:.2} ms", x / 1e6)
    } else {
        format!("{:.2} s", x / 1e9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use taskcore::{Config, Kernel};

    #[test]
    fn buckets_tile_the_range_and_keep_1_in_32_precision() {
        let mut next = 0u64;
        for i in 0..NR_BUCKETS {
            let (lo, w) = Histogram::bounds(i);
            assert_eq!(lo, next, "bucket {i} starts where {} ended", i.max(1) - 1);
            assert_eq!(Histogram::index(lo), i);
            assert_eq!(Histogram::index(lo + (w - 1)), i);
            assert!(w == 1 || w * SUB <= lo, "width {w} at {lo}");
            next = lo.wrapping_add(w);
        }
        assert_eq!(next, 0, "the last bucket ends at 2^64");
        assert_eq!(Histogram::index(u64::MAX), NR_BUCKETS - 1);
    }

    proptest! {
        /// Quantiles against a sorted vector: within the bucket's width.
        #[test]
        fn quantiles_match_a_sorted_vector(
            mut xs in prop::collection::vec(prop_oneof![0..100u64, 0..10_000_000u64], 1..300),
            q in prop_oneof![Just(0.5), Just(0.99), Just(1.0), 0.01..1.0f64],
        ) {
            let h = Histogram::new();
            for &x in &xs {
                h.record(x);
            }
            xs.sort_unstable();
            let rank = ((q * xs.len() as f64).ceil() as usize).clamp(1, xs.len());
            let exact = xs[rank - 1];
            let got = h.quantile(q);
            let (lo, w) = Histogram::bounds(Histogram::index(exact));
            prop_assert!(got >= lo && got < lo + w, "q {} exact {} got {}", q, exact, got);
            prop_assert_eq!(h.count(), xs.len() as u64);
            prop_assert_eq!(h.max(), *xs.last().unwrap());
        }
    }

    #[test]
    fn the_latency_probe_counts_each_call_under_its_op() {
        let set = Arc::new(ProbeSet::new());
        let lat = LatencyProbe::register(&set, 2, 0).unwrap();
        let mut k = Kernel::new(Config::default()).unwrap();
        k.set_probes(Arc::clone(&set));
        let init = k.init_task().unwrap();
        for _ in 0..3 {
            let c = k.fork(init).unwrap();
            k.exit_group(c, 0).unwrap();
            k.wait4(init, -1, 0).unwrap();
        }
        let _ = k.kill(init, 12345, 0);
        for (op, n) in [
            (Op::Fork, 3),
            (Op::ExitGroup, 3),
            (Op::Wait4, 3),
            (Op::Kill, 1),
        ] {
            let h = lat.hist(op);
            assert_eq!(h.count(), n, "{op}");
            assert!(h.quantile(0.5) <= h.quantile(0.99) && h.quantile(0.99) <= h.max());
        }
        assert_eq!(lat.hist(Op::Clone).count(), 0);
        let table = lat.table();
        assert!(
            table.contains("| fork ") && table.contains("nmissed 0 (maxactive 10)"),
            "{table}"
        );
        assert!(!table.contains("| clone "), "{table}");
        assert_eq!(lat.json()["ops"]["wait4"]["count"], 3);
        set.unregister(lat.probe()).unwrap();
    }
}
