//! Seed 003: full `/proc` root listings with many threads.
//!
//! A pid namespace holds one process of `T` threads (0, 1k, 10k, 100k)
//! and `P` other processes (10, 100, 1000), half of them numbered before
//! the big process and half after (from 200,000, whatever `T`, so that
//! every configuration lists the same names), so a listing must cross the
//! thread ids.
//! One full listing is `getdents64` calls with a 32 KiB buffer (glibc's
//! `readdir` buffer) from position 0 until a call returns nothing; the
//! timed listings do not parse the records (an untimed one counts them).
//!
//! - `taskcore_ns`: [`ProcFs::readdir_root`] with [`RootWalk::Tagged`]:
//!   the pid radix tree's `TAG_TGID` tag leads from one process to the
//!   next.
//! - `baseline_ns`: the same listing with [`RootWalk::EveryPid`]: every pid
//!   is visited and kept if it is a thread-group id, as Linux's
//!   `next_tgid()` does.
//! - `linux_ns`: this machine's real `/proc` listed with `readdir(3)`,
//!   with this process holding `T` real threads (parked) and `P` real
//!   child processes (`sleep`) alive. Sizes that do not fit the machine's
//!   `pid_max` and `threads-max` are skipped with a note.
//!
//! Each figure is the fastest of several batches, a batch repeating the
//! listing for at least a few milliseconds (see [`best_ns`] for why not
//! the median).
//!
//! # Measured
//! Release build, shared 2-core machine (Linux 6.18), ns per full listing:
//!
//! | P | T | taskcore | every pid | real /proc |
//! |---|---|---|---|---|
//! | 10 | 0 | 249 | 318 | 46,301 |
//! | 10 | 10k | 241 | 128,084 | 267,124 |
//! | 10 | 100k | 244 | 1,300,766 | (15k threads: 307,548) |
//! | 100 | 0 | 1,113 | 2,119 | 46,847 |
//! | 100 | 100k | 1,103 | 1,984,650 | - |
//! | 1000 | 0 | 9,800-14,600 | 29,537 | 271,200 |
//! | 1000 | 10k | 9,861 | 139,580 | 742,651 |
//! | 1000 | 100k | 9,795 | 1,844,380 | - |
//!
//! 100k threads cost what 0 threads cost (0.7x to 1.07x over runs); the
//! every-pid walk is 188x (P = 1000) to 5,341x (P = 10) slower at 100k
//! threads; the real `/proc` at 10k threads 75x to 1,110x. 100k real
//! threads do not fit this machine (`pid_max` 32768; each Rust thread maps
//! 4 VMAs of `vm.max_map_count` 65530).
//!
//! # In the harness
//! [`Readdir`] is `taskcore bench readdir`: one table per `P` (`series`,
//! as a string), rows by `T` (`size`), with `taskcore_ns`, `baseline_ns`
//! and (where measured) `linux_ns` as the fastest batch, their medians as
//! `*_median_ns`, the ratios, and `entries`; one log-log plot per `P`
//! (`readdir_P.png`; `T = 0` is drawn at 1). `--quick` measures `P = 100`
//! at `T` = 0, 10k and 100k, without the real `/proc`.

use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use taskcore::procfs::{Getdents64, ProcClock, ProcFs, RootWalk};
use taskcore::{CloneArgs, Config, Kernel};

use super::harness::{Column, Experiment, Fmt, Opts, PlotSpec, Report, Row};

/// Options of the experiment.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReaddirOpts {
    /// Fewer sizes and repetitions.
    pub(crate) quick: bool,
    /// Measure this machine's real `/proc` too.
    pub(crate) linux: bool,
}

/// One measurement: nanoseconds per full root listing.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ReaddirRow {
    /// `P`, the number of other processes, as a string.
    pub(crate) series: String,
    /// `T`, the threads of the big process.
    pub(crate) size: u64,
    /// taskcore, tagged walk.
    pub(crate) taskcore_ns: Timing,
    /// Every-pid walk (Linux mainline's algorithm) on the same tree.
    pub(crate) baseline_ns: Timing,
    /// This machine's real `/proc`, where measured.
    pub(crate) linux_ns: Option<Timing>,
    /// Entries in one listing (taskcore), for checking.
    pub(crate) entries: u64,
}

impl ReaddirRow {
    /// The row as the harness's rows look: `taskcore_ns`, `baseline_ns`
    /// and `linux_ns` (fastest batch), their `*_median_ns`, the ratios and
    /// `entries`.
    fn to_row(&self) -> Row {
        let mut r = Row::new(&self.series, self.size);
        r.set("taskcore_ns", self.taskcore_ns.best)
            .set("baseline_ns", self.baseline_ns.best);
        if let Some(l) = self.linux_ns {
            r.set("linux_ns", l.best);
        }
        r.set("taskcore_median_ns", self.taskcore_ns.median)
            .set("baseline_median_ns", self.baseline_ns.median);
        if let Some(l) = self.linux_ns {
            r.set("linux_median_ns", l.median);
        }
        r.ratio("baseline_vs_taskcore", "baseline_ns", "taskcore_ns");
        r.ratio("linux_vs_taskcore", "linux_ns", "taskcore_ns");
        r.set("entries", self.entries);
        r
    }
}

/// Sizes (`T`) and series (`P`) measured.
fn grid(quick: bool) -> (Vec<u64>, Vec<u64>) {
    if quick {
        (vec![0, 10_000, 100_000], vec![100])
    } else {
        (vec![0, 1_000, 10_000, 100_000], vec![10, 100, 1000])
    }
}

/// First number of the processes created after the big one: above the
/// largest thread count, so that every configuration lists the same
/// numbers (the same name lengths) and differs only by the threads.
const AFTER_BASE: i32 = 200_000;

/// The emulated namespace: `p / 2` processes, the big process with `t`
/// extra threads, then the other processes numbered from [`AFTER_BASE`].
fn build(p: u64, t: u64) -> Result<Kernel, String> {
    let mut k = Kernel::new(Config {
        pid_max: 262_144,
        ..Config::default()
    })
    .map_err(|e| e.name().to_string())?;
    let init = k.init_task().map_err(|e| e.name().to_string())?;
    let e = |e: taskcore::Errno| e.name().to_string();
    for _ in 0..p / 2 {
        k.fork(init).map_err(e)?;
    }
    let big = k.fork(init).map_err(e)?;
    for _ in 0..t {
        k.clone(big, &CloneArgs::thread()).map_err(e)?;
    }
    for i in 0..p - p / 2 {
        let args = CloneArgs {
            set_tid: vec![AFTER_BASE + i as i32],
            ..CloneArgs::fork()
        };
        k.clone(init, &args).map_err(e)?;
    }
    Ok(k)
}

/// One full listing through the library: `getdents64` calls into `buf`
/// until one returns nothing. Returns the entries seen when `count` (the
/// timed listings skip the reader's parsing).
fn list_once(fs: &ProcFs<'_>, walk: RootWalk, buf: &mut [u8], count: bool) -> u64 {
    let mut cursor = taskcore::procfs::DirCursor::default();
    let mut entries = 0;
    loop {
        let mut g = Getdents64::new(buf);
        fs.readdir_root(&mut cursor, &mut g, walk);
        let n = g.len();
        if n == 0 {
            return entries;
        }
        if count {
            entries += count_records(&buf[..n]);
        }
        std::hint::black_box(&buf[..8]);
    }
}

/// Number of `linux_dirent64` records in `buf` (following `d_reclen`, as
/// `readdir(3)` does).
fn count_records(buf: &[u8]) -> u64 {
    let mut at = 0;
    let mut n = 0;
    while at + 19 <= buf.len() {
        let reclen = u16::from_ne_bytes([buf[at + 16], buf[at + 17]]) as usize;
        if reclen == 0 {
            break;
        }
        at += reclen;
        n += 1;
    }
    n
}

/// Nanoseconds per call of `f` over `batches` batches, each repeating `f`
/// for at least `min_batch`: the fastest batch, and the median batch.
///
/// The fastest batch is the headline figure rather than the median: on a
/// shared two-core machine the other tenants add long bursts of delay, and
/// the median of a few batches mostly measures them. The median is
/// reported beside it (`*_median_ns`), as the harness's other experiments
/// report medians.
fn best_ns(batches: usize, min_batch: Duration, mut f: impl FnMut()) -> Timing {
    f(); // warm-up
    let mut xs = Vec::with_capacity(batches);
    for _ in 0..batches {
        let start = Instant::now();
        let mut n = 0u64;
        while n == 0 || start.elapsed() < min_batch {
            f();
            n += 1;
        }
        xs.push(start.elapsed().as_nanos() as f64 / n as f64);
    }
    Timing {
        best: xs.iter().copied().fold(f64::INFINITY, f64::min),
        median: super::harness::median(&xs),
    }
}

/// What [`best_ns`] measured, ns per call.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Timing {
    /// The fastest batch.
    pub(crate) best: f64,
    /// The median batch.
    pub(crate) median: f64,
}

/// Lists this machine's real `/proc` once; returns the entries.
fn list_real_proc() -> u64 {
    match std::fs::read_dir("/proc") {
        Ok(d) => d.count() as u64,
        Err(_) => 0,
    }
}

fn read_number(path: &str) -> Option<u64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// Tasks alive on the machine (the `N/M` of `/proc/loadavg`).
fn machine_tasks() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/loadavg").ok()?;
    s.split_whitespace().nth(3)?.split('/').nth(1)?.parse().ok()
}

/// Real threads, parked until dropped.
struct RealThreads {
    /// Set to true, with a broadcast, to release the threads.
    release: Arc<(Mutex<bool>, Condvar)>,
    handles: Vec<std::thread::JoinHandle<()>>,
}

impl RealThreads {
    fn spawn(n: u64) -> Result<RealThreads, String> {
        let mut threads = RealThreads {
            release: Arc::new((Mutex::new(false), Condvar::new())),
            handles: Vec::with_capacity(n as usize),
        };
        for i in 0..n {
            let r = Arc::clone(&threads.release);
            let h = std::thread::Builder::new()
                .stack_size(64 * 1024)
                .spawn(move || {
                    let (lock, cv) = &*r;
                    let mut done = lock.lock().unwrap_or_else(|e| e.into_inner());
                    while !*done {
                        done = cv.wait(done).unwrap_or_else(|e| e.into_inner());
                    }
                })
                // Dropping `threads` releases those already started.
                .map_err(|e| format!("thread {i} of {n}: {e}"))?;
            threads.handles.push(h);
        }
        Ok(threads)
    }
}

impl Drop for RealThreads {
    fn drop(&mut self) {
        let (lock, cv) = &*self.release;
        *lock.lock().unwrap_or_else(|e| e.into_inner()) = true;
        cv.notify_all();
        for h in self.handles.drain(..) {
            let _ = h.join();
        }
    }
}

/// Real child processes, killed when dropped.
struct RealProcs(Vec<Child>);

impl RealProcs {
    fn spawn(n: u64) -> Result<RealProcs, String> {
        let mut v = Vec::with_capacity(n as usize);
        for _ in 0..n {
            let c = Command::new("sleep")
                .arg("600")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .map_err(|e| format!("spawn sleep: {e}"))?;
            v.push(c);
        }
        Ok(RealProcs(v))
    }
}

impl Drop for RealProcs {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
        }
        for c in &mut self.0 {
            let _ = c.wait();
        }
    }
}

/// Whether the real `/proc` was measured at the largest size the machine
/// allows during this run.
static MEASURED_MOST: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// What the real-kernel reference could not measure, filled by [`run`].
static NOTES: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Notes of the last [`run`]: skipped reference sizes and the goals.
pub(crate) fn notes() -> Vec<String> {
    NOTES.lock().map(|n| n.clone()).unwrap_or_default()
}

fn note(s: String) {
    if let Ok(mut n) = NOTES.lock() {
        n.push(s);
    }
}

/// Runs the experiment; one row per (`P`, `T`).
pub(crate) fn run(opts: &ReaddirOpts) -> Vec<ReaddirRow> {
    if let Ok(mut n) = NOTES.lock() {
        n.clear();
    }
    MEASURED_MOST.store(false, std::sync::atomic::Ordering::Relaxed);
    let (sizes, series) = grid(opts.quick);
    let (batches, min_batch) = if opts.quick {
        (9, Duration::from_millis(3))
    } else {
        (25, Duration::from_millis(10))
    };
    let mut buf = vec![0u8; 32 * 1024];
    let mut rows = Vec::new();
    // The library first, for every size: the real-kernel reference spawns
    // processes and threads, which would disturb the later measurements.
    for &p in &series {
        for &t in &sizes {
            let k = match build(p, t) {
                Ok(k) => k,
                Err(e) => {
                    note(format!("P={p} T={t}: setup failed: {e}"));
                    continue;
                }
            };
            let fs = match ProcFs::new(&k, k.root_ns(), ProcClock::default()) {
                Ok(fs) => fs,
                Err(e) => {
                    note(format!("P={p} T={t}: {}", e.name()));
                    continue;
                }
            };
            let entries = list_once(&fs, RootWalk::Tagged, &mut buf, true);
            let base_entries = list_once(&fs, RootWalk::EveryPid, &mut buf, true);
            debug_assert_eq!(entries, base_entries);
            let taskcore_ns = best_ns(batches, min_batch, || {
                std::hint::black_box(list_once(&fs, RootWalk::Tagged, &mut buf, false));
            });
            let baseline_ns = best_ns(batches, min_batch, || {
                std::hint::black_box(list_once(&fs, RootWalk::EveryPid, &mut buf, false));
            });
            rows.push(ReaddirRow {
                series: p.to_string(),
                size: t,
                taskcore_ns,
                baseline_ns,
                linux_ns: None,
                entries,
            });
        }
    }
    if opts.linux {
        for &p in &series {
            // Real processes, alive for the whole series.
            let real_procs = match RealProcs::spawn(p) {
                Ok(r) => r,
                Err(e) => {
                    note(format!("linux_ns for P={p} skipped: {e}"));
                    continue;
                }
            };
            for &t in &sizes {
                let l = linux_reference(p, t, batches, min_batch);
                let series = p.to_string();
                if let Some(row) = rows.iter_mut().find(|r| r.series == series && r.size == t) {
                    row.linux_ns = l;
                }
            }
            drop(real_procs);
        }
    }
    goal_notes(&rows);
    rows
}

/// This machine's `/proc` listed with `t` extra real threads in this
/// process, if the machine allows that many.
fn linux_reference(p: u64, t: u64, batches: usize, min_batch: Duration) -> Option<Timing> {
    let pid_max = read_number("/proc/sys/kernel/pid_max").unwrap_or(32_768);
    let threads_max = read_number("/proc/sys/kernel/threads-max").unwrap_or(u64::MAX);
    let live = machine_tasks().unwrap_or(0);
    // Each thread maps its stack, a guard page and a signal stack with its
    // own guard: four VMAs (measured) of this process's
    // `vm.max_map_count`, and running out aborts the process.
    let max_map_count = read_number("/proc/sys/vm/max_map_count").unwrap_or(65_530);
    let map_room = max_map_count.saturating_sub(4_000) / 4;
    // Keep a margin of pids for the other users of the machine.
    let room = pid_max
        .min(threads_max)
        .saturating_sub(live + 5_000)
        .min(map_room);
    if t > room {
        // Measure at the largest round size the machine allows instead,
        // and say so: the row keeps no linux_ns.
        // Once per run: tens of thousands of threads take most of the
        // machine's pids for a moment.
        let most = room / 1000 * 1000;
        let first = !MEASURED_MOST.swap(true, std::sync::atomic::Ordering::Relaxed);
        let at_most = if most > 0 && first {
            measure_real(most, batches, min_batch)
                .map(|ns| format!("; at {most} threads it took {:.0} ns per listing", ns.best))
                .unwrap_or_default()
        } else {
            String::new()
        };
        note(format!(
            "linux_ns for P={p} T={t} not measured: pid_max {pid_max}, threads-max \
             {threads_max}, {live} live tasks and vm.max_map_count {max_map_count} leave \
             room for about {room} threads{at_most}"
        ));
        return None;
    }
    match measure_real(t, batches, min_batch) {
        Ok(ns) => Some(ns),
        Err(e) => {
            note(format!("linux_ns for P={p} T={t} not measured: {e}"));
            None
        }
    }
}

/// Nanoseconds per listing of the real `/proc` with `t` extra threads in
/// this process.
fn measure_real(t: u64, batches: usize, min_batch: Duration) -> Result<Timing, String> {
    let threads = RealThreads::spawn(t)?;
    let ns = best_ns(batches, min_batch, || {
        std::hint::black_box(list_real_proc());
    });
    drop(threads);
    Ok(ns)
}

/// Notes checking the goals against the rows.
fn goal_notes(rows: &[ReaddirRow]) {
    let series: std::collections::BTreeSet<&str> = rows.iter().map(|r| r.series.as_str()).collect();
    for s in series {
        let at = |t: u64| rows.iter().find(|r| r.series == s && r.size == t);
        let (Some(r0), Some(rbig)) = (at(0), at(100_000)) else {
            continue;
        };
        note(format!(
            "P={s}: taskcore 100k threads / 0 threads = {:.2}x (goal <= 1.2x); \
             baseline / taskcore at 100k = {:.0}x (goal >= 100x)",
            rbig.taskcore_ns.best / r0.taskcore_ns.best,
            rbig.baseline_ns.best / rbig.taskcore_ns.best
        ));
        if let Some(l) = rows
            .iter()
            .filter(|r| r.series == s && r.linux_ns.is_some())
            .max_by_key(|r| r.size)
        {
            let lin = l.linux_ns.map_or(0.0, |t| t.best);
            note(format!(
                "P={s}: real /proc at {} threads / taskcore = {:.0}x",
                l.size,
                lin / l.taskcore_ns.best
            ));
        }
    }
}

/// `taskcore bench readdir`: [`run`] in the harness.
#[derive(Debug)]
pub(crate) struct Readdir;

impl Experiment for Readdir {
    fn name(&self) -> &'static str {
        "readdir"
    }

    fn about(&self) -> &'static str {
        "seed 003 (tagged pid radix tree): full /proc root listing with T threads + P processes vs every-pid walk"
    }

    fn run(&self, opts: &Opts) -> Result<Report, String> {
        let rows = run(&ReaddirOpts {
            quick: opts.quick,
            linux: opts.linux,
        });
        if rows.is_empty() {
            return Err(format!("no size could be set up: {}", notes().join("; ")));
        }
        let mut rep = Report::new("readdir", "T threads");
        rep.columns = vec![
            Column::new("taskcore", "taskcore_ns", Fmt::Ns),
            Column::new("every pid (Linux's walk)", "baseline_ns", Fmt::Ns),
            Column::new("every pid / taskcore", "baseline_vs_taskcore", Fmt::Ratio),
            Column::new("real /proc (this kernel)", "linux_ns", Fmt::Ns),
            Column::new("real / taskcore", "linux_vs_taskcore", Fmt::Ratio),
            Column::new("taskcore (median)", "taskcore_median_ns", Fmt::Ns),
            Column::new("every pid (median)", "baseline_median_ns", Fmt::Ns),
            Column::new("real /proc (median)", "linux_median_ns", Fmt::Ns),
            Column::new("entries", "entries", Fmt::Int),
        ];
        let mut series: Vec<String> = Vec::new();
        for r in &rows {
            if !series.contains(&r.series) {
                series.push(r.series.clone());
            }
            rep.rows.push(r.to_row());
        }
        for p in &series {
            rep.series.push((
                p.clone(),
                format!(
                    "full /proc root listing (32 KiB getdents64), one process of T threads \
                     + P = {p} other processes"
                ),
            ));
            let line = |legend: &str, key: &str| (legend.to_string(), p.clone(), key.to_string());
            rep.plots.push(PlotSpec {
                file: format!("readdir_{p}"),
                title: format!("readdir: /proc root listing, P = {p} processes"),
                x_label: "T threads in one process (0 drawn at 1)".into(),
                y_label: "ns per full listing".into(),
                lines: vec![
                    line("taskcore (tagged walk)", "taskcore_ns"),
                    line("every pid (Linux's walk)", "baseline_ns"),
                    line("real /proc (this kernel)", "linux_ns"),
                ],
            });
        }
        rep.notes.extend(notes());
        rep.notes.push(
            "ns per full listing: the fastest of the batches (each repeats the listing for \
             >= 10 ms, 3 ms with --quick; 25 batches, 9 with --quick); the medians are the \
             *_median columns."
                .into(),
        );
        Ok(rep)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_agree_and_skip_threads() {
        let k = build(10, 500).unwrap();
        let fs = ProcFs::new(&k, k.root_ns(), ProcClock::default()).unwrap();
        let mut buf = vec![0u8; 32 * 1024];
        let a = list_once(&fs, RootWalk::Tagged, &mut buf, true);
        let b = list_once(&fs, RootWalk::EveryPid, &mut buf, true);
        // . .. 6 fixed self thread-self, init + 10 + the big process.
        assert_eq!(a, 2 + 6 + 2 + 12);
        assert_eq!(a, b);
        // A small buffer gives the same count.
        let mut small = vec![0u8; 64];
        assert_eq!(list_once(&fs, RootWalk::Tagged, &mut small, true), a);
    }

    #[test]
    fn best_of_batches() {
        let mut calls = 0;
        let m = best_ns(3, Duration::from_micros(1), || calls += 1);
        assert!(m.best > 0.0 && calls >= 4);
        assert!(m.best <= m.median);
    }
}
