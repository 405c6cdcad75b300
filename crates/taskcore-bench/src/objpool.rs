//! `objpool` (seed 002): pop+push pairs per second of four pools as
//! threads are added, and the cost of return probes on the replay.
//!
//! Pools (columns, wall-clock ns per pop+push pair over all threads; lower
//! is better, perfect scaling halves it from 1 to 2 threads):
//! - `objpool_ns`: [`taskcore::objpool::ObjPool`], one ring per shard
//!   (Linux's lib/objpool.c);
//! - `freelist_ns`: the CAS LIFO free list kretprobes used before it, with
//!   its reference-count ABA guard ([`super::freelist`]);
//! - `arrayqueue_ns`: crossbeam's `ArrayQueue` (Vyukov's bounded MPMC
//!   queue, one head and one tail for all threads);
//! - `mutex_ns`: a `Mutex<Vec<u64>>` (lock, pop, unlock; lock, push,
//!   unlock).
//!
//! Series `max=N`: a pool of N objects (10, 20, 40, and 8 per thread:
//! `max=threads*8`); size = threads, 1, 2, 4, 8, 16. Past the machine's
//! cores the threads are oversubscribed, like the seed's preemption case.
//! Each thread pops an object, writes it, and pushes it back, for a fixed
//! time; a failed pop (all objects held) is counted as a miss and retried.
//! Series `max=N,hold=1us` is the seed's emulation of a real kretprobe:
//! the thread busy-waits about 1 us while holding the object.
//!
//! Series `replay` (size = events): `taskcore replay` of each bundled
//! trace with nothing registered (`none_ns`), with a return probe on every
//! operation whose handlers only touch the instance (`probed_ns`), and with
//! the `--probe latency` probe (`latency_ns`), in ns per event. Series
//! `core` (size = 3 ops): fork + exit_group + wait4 on a kernel, the same
//! three ways, in ns per cycle.
//!
//! Repetitions are interleaved (each repetition runs every pool, or every
//! mode, once) so that load from other processes spreads over all columns;
//! medians are reported.

use std::hint::black_box;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

use crossbeam_queue::ArrayQueue;
use taskcore::objpool::ObjPool;
use taskcore::probe::{KretprobeBuilder, OpSet, ProbeSet};
use taskcore::{Config, Kernel, WaitOutcome};

use super::freelist::FreeList;
use super::harness::{median, progress, Column, Experiment, Fmt, Opts, PlotSpec, Report, Row};
use taskcore_replay::probe::{self as rprobe, LatencyProbe};
use taskcore_replay::BenchTrace;

/// The `objpool` experiment.
#[derive(Debug)]
pub(crate) struct Objpool {
    /// Lists the bundled traces the `replay` series replays (the caller
    /// finds them: `taskcore replay`'s default list).
    pub(crate) bundled_traces: fn() -> Vec<PathBuf>,
}

/// Thread counts.
const THREADS: [usize; 5] = [1, 2, 4, 8, 16];

/// Pops between two looks at the stop flag.
const BATCH: usize = 16;

/// The four pools' names, as column prefixes.
const POOLS: [&str; 4] = ["objpool", "freelist", "arrayqueue", "mutex"];

/// A pool of `u64` objects.
trait Pool: Sync {
    /// Pops an object, writes it, holds it for `hold` (busy), pushes it
    /// back; false if the pop found nothing.
    fn pair(&self, hold: Option<Duration>) -> bool;
}

/// Busy-waits for `hold`.
#[inline(always)]
fn spin(hold: Option<Duration>) {
    if let Some(d) = hold {
        let t = Instant::now();
        while t.elapsed() < d {
            std::hint::spin_loop();
        }
    }
}

impl Pool for ObjPool<u64> {
    #[inline(always)]
    fn pair(&self, hold: Option<Duration>) -> bool {
        match self.pop() {
            Some(mut o) => {
                *o = black_box(*o).wrapping_add(1);
                spin(hold);
                true
            }
            None => false,
        }
    }
}

impl Pool for FreeList {
    #[inline(always)]
    fn pair(&self, hold: Option<Duration>) -> bool {
        match self.try_get() {
            Some(i) => {
                let o = self.obj(i);
                o.store(black_box(o.load(Relaxed)).wrapping_add(1), Relaxed);
                spin(hold);
                self.add(i);
                true
            }
            None => false,
        }
    }
}

impl Pool for ArrayQueue<u64> {
    #[inline(always)]
    fn pair(&self, hold: Option<Duration>) -> bool {
        match self.pop() {
            Some(o) => {
                let o = black_box(o).wrapping_add(1);
                spin(hold);
                // Cannot be full: this object came out of it.
                let _ = self.push(o);
                true
            }
            None => false,
        }
    }
}

impl Pool for Mutex<Vec<u64>> {
    #[inline(always)]
    fn pair(&self, hold: Option<Duration>) -> bool {
        let Some(o) = self.lock().unwrap_or_else(|e| e.into_inner()).pop() else {
            return false;
        };
        let o = black_box(o).wrapping_add(1);
        spin(hold);
        self.lock().unwrap_or_else(|e| e.into_inner()).push(o);
        true
    }
}

/// One timed run: pairs done, failed pops, wall-clock ns, and the CPU time
/// the workers used.
#[derive(Clone, Copy, Debug)]
struct Run {
    pairs: u64,
    misses: u64,
    wall_ns: f64,
    cpu_ns: f64,
    /// The largest share of the run any worker spent runnable but not
    /// running (waiting for a CPU other processes held); 0 if unknown.
    max_wait: f64,
}

impl Run {
    /// Whether every worker had a CPU almost all the time (under 10% of
    /// the run spent waiting for one).
    fn undisturbed(&self) -> bool {
        self.max_wait < 0.10
    }
}

/// `(CPU time, run-queue wait)` of the calling thread so far, in ns, from
/// `/proc/thread-self/schedstat`; `None` where unavailable.
fn schedstat() -> Option<(f64, f64)> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let mut f = s.split_whitespace().map(|x| x.parse::<f64>().ok());
    Some((f.next()??, f.next()??))
}

/// Runs `threads` threads doing pairs on `pool` for `dur`.
///
/// The clock starts before the workers may start (they wait for `go`), and
/// stops when `stop` is raised; a worker finishes its batch of [`BATCH`]
/// pairs after that, which the run's length makes negligible.
fn run<P: Pool>(pool: &P, threads: usize, dur: Duration, hold: Option<Duration>) -> Run {
    let (go, stop) = (AtomicBool::new(false), AtomicBool::new(false));
    let start = Barrier::new(threads + 1);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                let (go, stop, start) = (&go, &stop, &start);
                s.spawn(move || {
                    let (mut n, mut miss) = (0u64, 0u64);
                    start.wait();
                    while !go.load(Relaxed) {
                        std::thread::yield_now();
                    }
                    let (cpu0, s0) = (thread_cpu_ns(), schedstat());
                    while !stop.load(Relaxed) {
                        for _ in 0..BATCH {
                            if pool.pair(hold) {
                                n += 1;
                            } else {
                                miss += 1;
                            }
                        }
                    }
                    let cpu = thread_cpu_ns() - cpu0;
                    let wait = match (s0, schedstat()) {
                        (Some(a), Some(b)) => b.1 - a.1,
                        _ => 0.0,
                    };
                    (n, miss, cpu, wait)
                })
            })
            .collect();
        start.wait();
        let t0 = Instant::now();
        go.store(true, Relaxed);
        std::thread::sleep(dur);
        stop.store(true, Relaxed);
        let wall_ns = t0.elapsed().as_nanos() as f64;
        let mut r = Run {
            pairs: 0,
            misses: 0,
            wall_ns,
            cpu_ns: 0.0,
            max_wait: 0.0,
        };
        for h in handles {
            let (n, m, c, w) = h.join().expect("bench thread");
            r.pairs += n;
            r.misses += m;
            r.cpu_ns += c;
            r.max_wait = r.max_wait.max(w / wall_ns);
        }
        r
    })
}

/// Builds pool `name` with `n` objects and runs it.
fn run_pool(name: &str, n: usize, threads: usize, dur: Duration, hold: Option<Duration>) -> Run {
    match name {
        "objpool" => run(
            &ObjPool::new(n, |_| 0u64).expect("objpool"),
            threads,
            dur,
            hold,
        ),
        "freelist" => run(&FreeList::new(n), threads, dur, hold),
        "arrayqueue" => {
            let q = ArrayQueue::new(n);
            for i in 0..n as u64 {
                let _ = q.push(i);
            }
            run(&q, threads, dur, hold)
        }
        _ => run(
            &Mutex::new((0..n as u64).collect::<Vec<_>>()),
            threads,
            dur,
            hold,
        ),
    }
}

/// A pool-size series.
#[derive(Clone, Copy, Debug)]
enum Size {
    Fixed(usize),
    PerThread(usize),
}

impl Size {
    fn objects(self, threads: usize) -> usize {
        match self {
            Size::Fixed(n) => n,
            Size::PerThread(k) => k * threads,
        }
    }

    fn name(self, hold: bool) -> String {
        let base = match self {
            Size::Fixed(n) => format!("max={n}"),
            Size::PerThread(k) => format!("max=threads*{k}"),
        };
        if hold {
            base + ",hold=1us"
        } else {
            base
        }
    }
}

/// The pool series: every size without and with the 1 us hold.
fn pool_series(rep: &mut Report, opts: &Opts) {
    let (dur, reps) = if opts.quick {
        (Duration::from_millis(8), 3)
    } else {
        (Duration::from_millis(30), 7)
    };
    let sizes = [
        Size::Fixed(10),
        Size::Fixed(20),
        Size::Fixed(40),
        Size::PerThread(8),
    ];
    for hold in [None, Some(Duration::from_micros(1))] {
        for size in sizes {
            let series = size.name(hold.is_some());
            let title = format!(
                "pop + push pairs, {} objects{}: wall-clock ns per pair over all threads \
                 (size = threads)",
                match size {
                    Size::Fixed(n) => n.to_string(),
                    Size::PerThread(k) => format!("{k} x threads"),
                },
                if hold.is_some() {
                    ", each held ~1 us (busy)"
                } else {
                    ""
                }
            );
            rep.series.push((series.clone(), title));
            for threads in THREADS {
                let n = size.objects(threads);
                // Up to the CPU count, the experiment is "each thread on a
                // core of its own": repetitions in which a worker waited for
                // a CPU held by another process do not measure it. Run
                // rounds until `reps` undisturbed repetitions of every pool
                // are in (at most 4 x reps rounds); past the CPU count,
                // waiting is the experiment and every repetition counts.
                let filter = threads <= rprobe::nr_cpus();
                let mut runs: Vec<Vec<Run>> = vec![Vec::new(); POOLS.len()];
                for round in 0..4 * reps {
                    let ok = |v: &Vec<Run>| v.iter().filter(|r| r.undisturbed()).count();
                    if round >= reps && (!filter || runs.iter().all(|v| ok(v) >= reps)) {
                        break;
                    }
                    for (i, name) in POOLS.iter().enumerate() {
                        runs[i].push(run_pool(name, n, threads, dur, hold));
                    }
                }
                let mut row = Row::new(&series, threads as u64);
                row.set("objects", n as u64);
                for (i, name) in POOLS.iter().enumerate() {
                    let all: Vec<f64> = runs[i]
                        .iter()
                        .map(|r| r.wall_ns / r.pairs.max(1) as f64)
                        .collect();
                    row.set(&format!("{name}_all_ns"), median(&all));
                    let kept: Vec<Run> = if filter {
                        runs[i].iter().copied().filter(Run::undisturbed).collect()
                    } else {
                        Vec::new()
                    };
                    if filter {
                        row.set(&format!("{name}_reps"), kept.len() as u64);
                    }
                    if !kept.is_empty() {
                        runs[i] = kept;
                    }
                    let ns: Vec<f64> = runs[i]
                        .iter()
                        .map(|r| r.wall_ns / r.pairs.max(1) as f64)
                        .collect();
                    let miss: Vec<f64> = runs[i]
                        .iter()
                        .map(|r| r.misses as f64 / (r.pairs + r.misses).max(1) as f64)
                        .collect();
                    row.set(&format!("{name}_ns"), median(&ns));
                    let best = ns.iter().copied().fold(f64::INFINITY, f64::min);
                    row.set(&format!("{name}_min_ns"), best);
                    // CPU ns per pair, and how many CPUs the workers got.
                    let cpu: Vec<f64> = runs[i]
                        .iter()
                        .map(|r| r.cpu_ns / r.pairs.max(1) as f64)
                        .collect();
                    row.set(&format!("{name}_cpu_ns"), median(&cpu));
                    let par: Vec<f64> = runs[i].iter().map(|r| r.cpu_ns / r.wall_ns).collect();
                    row.set(&format!("{name}_cpus"), median(&par));
                    row.set(&format!("{name}_miss"), median(&miss));
                }
                if let Some(ns) = row.get_f64("objpool_ns") {
                    row.set("objpool_mpairs", 1e3 / ns);
                }
                row.ratio("freelist_vs_objpool", "freelist_ns", "objpool_ns");
                row.ratio("arrayqueue_vs_objpool", "arrayqueue_ns", "objpool_ns");
                row.ratio("mutex_vs_objpool", "mutex_ns", "objpool_ns");
                progress(format!(
                    "objpool {series} threads={threads}: objpool {:.1} ns, freelist {:.1} ns, \
                     arrayqueue {:.1} ns, mutex {:.1} ns",
                    row.get_f64("objpool_ns").unwrap_or(f64::NAN),
                    row.get_f64("freelist_ns").unwrap_or(f64::NAN),
                    row.get_f64("arrayqueue_ns").unwrap_or(f64::NAN),
                    row.get_f64("mutex_ns").unwrap_or(f64::NAN),
                ));
                rep.rows.push(row);
            }
            // Throughput relative to the objpool's own single thread.
            let one = rep
                .rows
                .iter()
                .find(|r| r.series == series && r.size == 1)
                .and_then(|r| r.get_f64("objpool_ns"));
            let one_cpu = rep
                .rows
                .iter()
                .find(|r| r.series == series && r.size == 1)
                .and_then(|r| r.get_f64("objpool_cpu_ns"));
            for r in rep.rows.iter_mut().filter(|r| r.series == series) {
                if let (Some(one), Some(ns)) = (one, r.get_f64("objpool_ns")) {
                    r.set("objpool_scaling", one / ns);
                }
                // Throughput vs 1 thread had each thread a core of its own
                // (threads <= CPUs): threads x the per-CPU-second ratio.
                let t = r.size as f64;
                if let (Some(one), Some(ns)) = (one_cpu, r.get_f64("objpool_cpu_ns")) {
                    if r.size as usize <= rprobe::nr_cpus() {
                        r.set("objpool_scaling_cpu", t * one / ns);
                    }
                }
            }
        }
    }
    for (file, series, what) in [
        ("objpool_pairs", "max=threads*8", "8 objects per thread"),
        ("objpool_pairs_max10", "max=10", "10 objects"),
        (
            "objpool_hold",
            "max=threads*8,hold=1us",
            "8 objects per thread, held 1 us",
        ),
    ] {
        rep.plots.push(PlotSpec {
            file: file.into(),
            title: format!("objpool: pop + push pairs, {what}"),
            x_label: "threads (2 cores)".into(),
            y_label: "wall-clock ns per pair".into(),
            lines: POOLS
                .iter()
                .zip([
                    "objpool",
                    "freelist (CAS LIFO)",
                    "crossbeam ArrayQueue",
                    "Mutex<Vec>",
                ])
                .map(|(p, legend)| (legend.to_string(), series.to_string(), format!("{p}_ns")))
                .collect(),
        });
    }
}

/// A return probe on every op whose handlers only touch the instance:
/// the probe machinery's own cost.
fn null_probe() -> Arc<taskcore::probe::Kretprobe> {
    KretprobeBuilder::new(OpSet::ALL, rprobe::nr_cpus())
        .entry_handler(|inst| {
            inst.data[0] = 1;
            true
        })
        .handler(|inst| {
            black_box(inst.data[0]);
        })
        .build()
        .expect("probe")
}

/// Probe modes of the replay and core rows.
const MODES: [&str; 3] = ["none", "probed", "latency"];

/// Registers mode `m`'s probe on `set`; returns what to unregister.
fn arm(set: &ProbeSet, m: &str) -> Option<Arc<taskcore::probe::Kretprobe>> {
    match m {
        "probed" => {
            let p = null_probe();
            set.register(&p).expect("register");
            Some(p)
        }
        "latency" => {
            let l = LatencyProbe::register(set, rprobe::nr_cpus(), 0).expect("register");
            Some(Arc::clone(l.probe()))
        }
        _ => None,
    }
}

/// CPU time of this thread in ns (`CLOCK_THREAD_CPUTIME_ID`): unlike wall
/// time, it does not count time spent waiting for a shared CPU.
fn thread_cpu_ns() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid out pointer for clock_gettime.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 * 1e9 + ts.tv_nsec as f64
}

/// Times `work` (which does `units` units) `reps` times per probe mode,
/// modes interleaved and their order alternated, with mode `m`'s probe
/// registered on `set`; sets `{m}_ns` (median thread CPU time per unit),
/// `{m}_wall_ns` (median wall time) and `{m}_min_ns` (fastest CPU time)
/// on `row`, and the ratios to `none`.
fn time_modes(
    row: &mut Row,
    set: &ProbeSet,
    reps: usize,
    units: f64,
    work: &mut dyn FnMut(),
) -> Result<(), String> {
    let mut cpu: Vec<Vec<f64>> = vec![Vec::new(); MODES.len()];
    let mut wall: Vec<Vec<f64>> = vec![Vec::new(); MODES.len()];
    for r in 0..reps {
        for j in 0..MODES.len() {
            let i = if r % 2 == 0 { j } else { MODES.len() - 1 - j };
            let p = arm(set, MODES[i]);
            let (t, c) = (Instant::now(), thread_cpu_ns());
            work();
            cpu[i].push((thread_cpu_ns() - c) / units);
            wall[i].push(t.elapsed().as_nanos() as f64 / units);
            if let Some(p) = p {
                set.unregister(&p).map_err(|e| e.to_string())?;
            }
        }
    }
    for (i, m) in MODES.iter().enumerate() {
        row.set(&format!("{m}_ns"), median(&cpu[i]));
        row.set(&format!("{m}_wall_ns"), median(&wall[i]));
        let min = cpu[i].iter().copied().fold(f64::INFINITY, f64::min);
        row.set(&format!("{m}_min_ns"), min);
    }
    row.ratio("probed_vs_none", "probed_ns", "none_ns");
    row.ratio("latency_vs_none", "latency_ns", "none_ns");
    row.ratio("probed_vs_none_wall", "probed_wall_ns", "none_wall_ns");
    row.ratio("probed_vs_none_min", "probed_min_ns", "none_min_ns");
    Ok(())
}

/// The replay rows: each bundled trace replayed with each probe mode.
fn replay_series(
    rep: &mut Report,
    opts: &Opts,
    bundled_traces: fn() -> Vec<PathBuf>,
) -> Result<(), String> {
    rep.series.push((
        "replay".into(),
        "taskcore replay of the bundled traces: CPU ns per event, without and with return \
         probes on every core operation (size = events)"
            .into(),
    ));
    let reps = if opts.quick { 5 } else { 21 };
    let set = rprobe::probes();
    for path in bundled_traces() {
        let trace = BenchTrace::load(&path)?;
        // Core operations per replay, counted by the latency probe.
        let lat = LatencyProbe::register(set, rprobe::nr_cpus(), 0).map_err(|e| e.to_string())?;
        if trace.replay() != 0 {
            return Err(format!("{}: mismatches", path.display()));
        }
        set.unregister(lat.probe()).map_err(|e| e.to_string())?;
        let ops: u64 = taskcore::probe::Op::ALL
            .iter()
            .map(|op| lat.hist(*op).count())
            .sum();
        let mut row = Row::new("replay", trace.len() as u64);
        let name = path.file_name().map(|f| f.to_string_lossy().into_owned());
        row.set("trace", name.unwrap_or_default());
        row.set("core_ops", ops);
        time_modes(&mut row, set, reps, trace.len() as f64, &mut || {
            black_box(trace.replay());
        })?;
        if let (Some(a), Some(b)) = (row.get_f64("none_ns"), row.get_f64("probed_ns")) {
            row.set("events_per_s", 1e9 / a);
            row.set("probed_events_per_s", 1e9 / b);
            // The probes' cost per core operation.
            row.set(
                "probe_ns_per_op",
                (b - a) * trace.len() as f64 / ops.max(1) as f64,
            );
        }
        progress(format!(
            "objpool replay {}: {} events, {ops} core ops: CPU ns/event none {:.0}, probed {:.0}, \
             latency {:.0}",
            path.display(),
            trace.len(),
            row.get_f64("none_ns").unwrap_or(f64::NAN),
            row.get_f64("probed_ns").unwrap_or(f64::NAN),
            row.get_f64("latency_ns").unwrap_or(f64::NAN),
        ));
        rep.rows.push(row);
    }
    Ok(())
}

/// The core rows: fork + exit_group + wait4 on one kernel, per probe mode.
fn core_series(rep: &mut Report, opts: &Opts) -> Result<(), String> {
    rep.series.push((
        "core".into(),
        "fork + exit_group + wait4 on a kernel: CPU ns per cycle (size = 3 probed operations)"
            .into(),
    ));
    let mut k = Kernel::new(Config::default()).map_err(|e| format!("{e:?}"))?;
    let set = Arc::new(ProbeSet::new());
    k.set_probes(Arc::clone(&set));
    let init = k.init_task().map_err(|e| format!("{e:?}"))?;
    const CYCLES: u64 = 2000;
    let mut work = || {
        for i in 0..CYCLES {
            let c = k.fork(init).expect("fork");
            k.exit_group(c, 0).expect("exit_group");
            match k.wait4(init, -1, 0) {
                Ok(WaitOutcome::Reported(_)) => {}
                other => panic!("wait4: {other:?}"),
            }
            if i % 256 == 0 {
                drop(k.take_notifications());
            }
        }
    };
    let mut row = Row::new("core", 3);
    let reps = if opts.quick { 21 } else { 81 };
    time_modes(&mut row, &set, reps, CYCLES as f64, &mut work)?;
    if let (Some(a), Some(b)) = (row.get_f64("none_ns"), row.get_f64("probed_ns")) {
        row.set("probe_ns_per_op", (b - a) / 3.0);
    }
    progress(format!(
        "objpool core: CPU ns per fork+exit+wait none {:.0}, probed {:.0}, latency {:.0}",
        row.get_f64("none_ns").unwrap_or(f64::NAN),
        row.get_f64("probed_ns").unwrap_or(f64::NAN),
        row.get_f64("latency_ns").unwrap_or(f64::NAN),
    ));
    rep.rows.push(row);
    Ok(())
}

/// Adds the goal checks of issue 6 to the notes.
fn goals(rep: &mut Report) {
    let get = |s: &str, n: u64, k: &str| {
        rep.rows
            .iter()
            .find(|r| r.series == s && r.size == n)
            .and_then(|r| r.get_f64(k))
    };
    let verdict = |ok: bool| if ok { "met" } else { "MISSED" };
    let mut notes = Vec::new();
    let s = "max=threads*8";
    if let Some(one) = get(s, 1, "objpool_ns") {
        notes.push(format!(
            "goal objpool 1 thread: {one:.1} ns per pair (goal <= 15 ns: {})",
            verdict(one <= 15.0)
        ));
        if let Some(two) = get(s, 2, "objpool_ns") {
            let x = one / two;
            notes.push(format!(
                "goal objpool 2 threads: {x:.2}x its 1-thread throughput (goal >= 1.8x: {})",
                verdict(x >= 1.8)
            ));
        }
    }
    if let (Some(x), Some(cpus)) = (get(s, 2, "objpool_scaling_cpu"), get(s, 2, "objpool_cpus")) {
        notes.push(format!(
            "objpool 2 threads, had each a core: {x:.2}x the 1-thread throughput (2 x the ratio \
             of pairs per CPU-second; the workers got {cpus:.2} CPUs of wall time)"
        ));
    }
    if let (Some(one), Some(two)) = (get(s, 1, "objpool_min_ns"), get(s, 2, "objpool_min_ns")) {
        notes.push(format!(
            "objpool fastest repetitions: 1 thread {one:.1} ns, 2 threads {two:.1} ns per pair \
             ({:.2}x)",
            one / two
        ));
    }
    if let (Some(o), Some(a), Some(f)) = (
        get(s, 2, "objpool_ns"),
        get(s, 2, "arrayqueue_ns"),
        get(s, 2, "freelist_ns"),
    ) {
        notes.push(format!(
            "goal objpool 2 threads vs ArrayQueue: {:.2}x its throughput (goal >= 1x: {})",
            a / o,
            verdict(a / o >= 1.0)
        ));
        notes.push(format!(
            "goal objpool 2 threads vs freelist: {:.2}x its throughput (goal >= 5x: {})",
            f / o,
            verdict(f / o >= 5.0)
        ));
    }
    for r in rep.rows.iter().filter(|r| r.series == "replay") {
        if let Some(x) = r.get_f64("probed_vs_none") {
            notes.push(format!(
                "goal return probes on every op, replay of {} ({} events): {:+.1}% time per \
                 event (goal <= +10%: {})",
                r.get("trace").and_then(|v| v.as_str()).unwrap_or("?"),
                r.size,
                (x - 1.0) * 100.0,
                verdict(x <= 1.10)
            ));
        }
    }
    rep.notes.extend(notes);
}

impl Experiment for Objpool {
    fn name(&self) -> &'static str {
        "objpool"
    }

    fn about(&self) -> &'static str {
        "seed 002 (kretprobe objpool, Linux 6.7): pop+push pairs vs threads (objpool, CAS freelist, ArrayQueue, Mutex<Vec>); \
         replay cost of return probes"
    }

    fn run(&self, opts: &Opts) -> Result<Report, String> {
        let mut rep = Report::new("objpool", "size");
        rep.columns = vec![
            Column::new("objects", "objects", Fmt::Int),
            Column::new("objpool", "objpool_ns", Fmt::Ns),
            Column::new("freelist", "freelist_ns", Fmt::Ns),
            Column::new("ArrayQueue", "arrayqueue_ns", Fmt::Ns),
            Column::new("Mutex<Vec>", "mutex_ns", Fmt::Ns),
            Column::new("objpool (fastest)", "objpool_min_ns", Fmt::Ns),
            Column::new("objpool Mpairs/s", "objpool_mpairs", Fmt::Float),
            Column::new("vs 1 thread", "objpool_scaling", Fmt::Ratio),
            Column::new("objpool CPU/pair", "objpool_cpu_ns", Fmt::Ns),
            Column::new("CPUs used", "objpool_cpus", Fmt::Float),
            Column::new("undisturbed reps", "objpool_reps", Fmt::Int),
            Column::new(
                "vs 1 thread, a core each",
                "objpool_scaling_cpu",
                Fmt::Ratio,
            ),
            Column::new("freelist/objpool", "freelist_vs_objpool", Fmt::Ratio),
            Column::new("ArrayQueue/objpool", "arrayqueue_vs_objpool", Fmt::Ratio),
            Column::new("trace", "trace", Fmt::Text),
            Column::new("core ops", "core_ops", Fmt::Int),
            Column::new("no probe", "none_ns", Fmt::Ns),
            Column::new("probe on every op", "probed_ns", Fmt::Ns),
            Column::new("latency probe", "latency_ns", Fmt::Ns),
            Column::new("probed/none", "probed_vs_none", Fmt::Ratio),
            Column::new("probed/none (wall)", "probed_vs_none_wall", Fmt::Ratio),
            Column::new("probed/none (fastest)", "probed_vs_none_min", Fmt::Ratio),
            Column::new("latency/none", "latency_vs_none", Fmt::Ratio),
            Column::new("probe ns per op", "probe_ns_per_op", Fmt::Float),
        ];
        pool_series(&mut rep, opts);
        replay_series(&mut rep, opts, self.bundled_traces)?;
        core_series(&mut rep, opts)?;
        goals(&mut rep);
        rep.notes.push(format!(
            "wall-clock ns per pair = run time / pairs done by all threads (median of \
             interleaved repetitions); {} CPUs available; threads past that are \
             oversubscribed; failed pops (all objects held) are retried and not counted. \
             Up to {0} threads only repetitions in which no worker waited for a CPU more than \
             10% of the run count (schedstat run delay; `undisturbed reps`; `<pool>_all_ns` in \
             the JSON is the median over every repetition).",
            rprobe::nr_cpus()
        ));
        rep.notes.push(
            "replay and core: thread CPU time per event (per cycle), median of interleaved \
             repetitions (wall-time and fastest-repetition ratios beside it); replay = a whole \
             `taskcore replay` of the trace, parse excluded; probed = a return probe on every \
             op whose handlers only touch the instance; latency = the `--probe latency` probe \
             (two clock reads per call)."
                .into(),
        );
        Ok(rep)
    }
}
