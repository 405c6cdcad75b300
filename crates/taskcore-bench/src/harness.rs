//! The shared benchmark harness: timing, reports, output files.
//!
//! # Conventions every experiment follows
//! - Time with [`Instant`] (`CLOCK_MONOTONIC`), in batches long enough that
//!   the clock's own cost is negligible, with that cost
//!   ([`timer_overhead_ns`]) subtracted; report the **median** over
//!   repetitions ([`per_op`]).
//! - Return a [`Report`]: rows keyed by `series` and `size`, each with
//!   `taskcore_ns` and one `<baseline>_ns` per baseline measured at that
//!   point (ns per operation), plus free-form extra fields (counts, flags,
//!   ratios). [`Report::columns`] says how the table shows them and
//!   [`Report::plots`] which lines each PNG draws.
//! - The runner ([`super::run`]) prints the tables (comfy-table), writes
//!   `NAME.csv`, `NAME.json` and the PNGs to `--out`, and with `--json`
//!   prints the report as one JSON object on the last line of stdout.

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::{Duration, Instant};

use comfy_table::{presets::ASCII_MARKDOWN, Cell, CellAlignment, Table};
use serde_json::{Map, Value};

/// Options shared by every experiment.
#[derive(Clone, Debug)]
pub(crate) struct Opts {
    /// `--quick`: fewer sizes (the largest of each series kept), fewer
    /// repetitions, no real-kernel reference; under 30 s per experiment but
    /// `replay` (which may first record its loop traces: about 80 s).
    pub(crate) quick: bool,
    /// Measure the real kernel's reference column where an experiment has
    /// one (`--no-linux` turns it off).
    pub(crate) linux: bool,
}

impl Opts {
    /// Repetitions whose median is reported.
    ///
    /// Many short batches rather than a few long ones: on a shared machine
    /// a batch that lost the CPU to another process is an outlier the
    /// median ignores.
    pub(crate) fn reps(&self) -> usize {
        if self.quick {
            7
        } else {
            21
        }
    }

    /// Minimum duration of one timed batch.
    pub(crate) fn batch(&self) -> Duration {
        if self.quick {
            Duration::from_micros(200)
        } else {
            Duration::from_micros(500)
        }
    }
}

/// One experiment of `taskcore bench`.
///
/// To add one: implement this in `src/NAME.rs` and list it in
/// [`super::registry`].
pub(crate) trait Experiment {
    /// The name used on the command line and in the JSON (`"wait"`).
    fn name(&self) -> &'static str;
    /// One line for `--help`-style listings.
    fn about(&self) -> &'static str;
    /// Runs the experiment. Progress goes to stderr.
    fn run(&self, opts: &Opts) -> Result<Report, String>;
}

/// How a column's values are shown in the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fmt {
    /// Nanoseconds, auto-scaled to ns/us/ms/s.
    Ns,
    /// A ratio, shown as `123x`.
    Ratio,
    /// An integer.
    Int,
    /// A float with 2 decimals.
    Float,
    /// Bytes, auto-scaled.
    Bytes,
    /// A float in seconds with 3 decimals.
    Secs,
    /// Text as is.
    Text,
}

/// One table column: a header and the row field it shows.
#[derive(Clone, Debug)]
pub(crate) struct Column {
    pub(crate) header: String,
    pub(crate) key: String,
    pub(crate) fmt: Fmt,
}

impl Column {
    pub(crate) fn new(header: &str, key: &str, fmt: Fmt) -> Column {
        Column {
            header: header.to_string(),
            key: key.to_string(),
            fmt,
        }
    }
}

/// One PNG: lines of `(series, key)` points against size, log-log.
#[derive(Clone, Debug)]
pub(crate) struct PlotSpec {
    /// File name without extension, e.g. `wait_pid`.
    pub(crate) file: String,
    pub(crate) title: String,
    pub(crate) x_label: String,
    pub(crate) y_label: String,
    /// `(legend, series, key)` for each line.
    pub(crate) lines: Vec<(String, String, String)>,
}

/// One measurement point.
#[derive(Clone, Debug)]
pub(crate) struct Row {
    pub(crate) series: String,
    pub(crate) size: u64,
    /// Every other field, in insertion order.
    pub(crate) fields: Vec<(String, Value)>,
}

impl Row {
    pub(crate) fn new(series: &str, size: u64) -> Row {
        Row {
            series: series.to_string(),
            size,
            fields: Vec::new(),
        }
    }

    /// Sets field `key` (replacing an earlier value).
    pub(crate) fn set(&mut self, key: &str, v: impl Into<Value>) -> &mut Row {
        let v = v.into();
        if let Some(slot) = self.fields.iter_mut().find(|(k, _)| k == key) {
            slot.1 = v;
        } else {
            self.fields.push((key.to_string(), v));
        }
        self
    }

    pub(crate) fn get(&self, key: &str) -> Option<&Value> {
        match key {
            "series" => None,
            _ => self.fields.iter().find(|(k, _)| k == key).map(|(_, v)| v),
        }
    }

    pub(crate) fn get_f64(&self, key: &str) -> Option<f64> {
        self.get(key).and_then(Value::as_f64)
    }

    /// Sets `ratio_key` to `num_key / den_key` when both are present.
    pub(crate) fn ratio(&mut self, ratio_key: &str, num_key: &str, den_key: &str) {
        if let (Some(n), Some(d)) = (self.get_f64(num_key), self.get_f64(den_key)) {
            if d > 0.0 {
                self.set(ratio_key, n / d);
            }
        }
    }

    /// The row as a JSON object: `series`, `size`, then the fields.
    pub(crate) fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("series".into(), Value::from(self.series.clone()));
        m.insert("size".into(), Value::from(self.size));
        for (k, v) in &self.fields {
            m.insert(k.clone(), v.clone());
        }
        Value::Object(m)
    }
}

/// What an experiment returns.
#[derive(Clone, Debug)]
pub(crate) struct Report {
    pub(crate) experiment: String,
    /// Table title per series, in display order.
    pub(crate) series: Vec<(String, String)>,
    /// Header of the size column (`N children`, `TH`).
    pub(crate) size_header: String,
    pub(crate) columns: Vec<Column>,
    pub(crate) rows: Vec<Row>,
    pub(crate) plots: Vec<PlotSpec>,
    /// Printed under the tables (caps, estimates, caveats).
    pub(crate) notes: Vec<String>,
}

impl Report {
    pub(crate) fn new(experiment: &str, size_header: &str) -> Report {
        Report {
            experiment: experiment.to_string(),
            series: Vec::new(),
            size_header: size_header.to_string(),
            columns: Vec::new(),
            rows: Vec::new(),
            plots: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// The report as the `--json` object.
    pub(crate) fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("experiment".into(), Value::from(self.experiment.clone()));
        m.insert(
            "rows".into(),
            Value::Array(self.rows.iter().map(Row::to_json).collect()),
        );
        Value::Object(m)
    }

    /// The tables, one per series, as text.
    pub(crate) fn tables(&self) -> String {
        let mut out = String::new();
        for (series, title) in &self.series {
            let rows: Vec<&Row> = self.rows.iter().filter(|r| &r.series == series).collect();
            if rows.is_empty() {
                continue;
            }
            let cols: Vec<&Column> = self
                .columns
                .iter()
                .filter(|c| rows.iter().any(|r| r.get(&c.key).is_some()))
                .collect();
            let mut t = Table::new();
            t.load_preset(ASCII_MARKDOWN);
            let mut header = vec![Cell::new(&self.size_header)];
            header.extend(cols.iter().map(|c| Cell::new(&c.header)));
            t.set_header(header);
            for r in rows {
                let mut cells = vec![Cell::new(r.size).set_alignment(CellAlignment::Right)];
                for c in &cols {
                    let s = r
                        .get(&c.key)
                        .map(|v| fmt_value(v, c.fmt))
                        .unwrap_or_default();
                    cells.push(Cell::new(s).set_alignment(CellAlignment::Right));
                }
                t.add_row(cells);
            }
            let _ = writeln!(out, "\n### {} — {}\n", self.experiment, title);
            let _ = writeln!(out, "{t}");
        }
        if !self.notes.is_empty() {
            out.push('\n');
            for n in &self.notes {
                let _ = writeln!(out, "- {n}");
            }
        }
        out
    }

    /// The rows as CSV: `series,size,` then every field key met, in order
    /// of first appearance.
    pub(crate) fn csv(&self) -> String {
        let mut keys: Vec<&str> = Vec::new();
        for r in &self.rows {
            for (k, _) in &r.fields {
                if !keys.contains(&k.as_str()) {
                    keys.push(k);
                }
            }
        }
        let mut out = String::from("series,size");
        for k in &keys {
            out.push(',');
            out.push_str(k);
        }
        out.push('\n');
        for r in &self.rows {
            let _ = write!(out, "{},{}", csv_field(&r.series), r.size);
            for k in &keys {
                out.push(',');
                match r.get(k) {
                    Some(Value::String(s)) => out.push_str(&csv_field(s)),
                    Some(Value::Null) | None => {}
                    Some(v) => out.push_str(&v.to_string()),
                }
            }
            out.push('\n');
        }
        out
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// Formats nanoseconds with a unit that keeps 3-4 significant digits.
pub(crate) fn fmt_ns(ns: f64) -> String {
    if ns < 1e3 {
        format!("{ns:.1} ns")
    } else if ns < 1e6 {
        format!("{:.2} us", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

fn fmt_value(v: &Value, fmt: Fmt) -> String {
    match (v, fmt) {
        (Value::String(s), _) => s.clone(),
        (Value::Bool(b), _) => if *b { "yes" } else { "" }.to_string(),
        (Value::Null, _) => String::new(),
        (v, Fmt::Ns) => v.as_f64().map(fmt_ns).unwrap_or_default(),
        (v, Fmt::Ratio) => v
            .as_f64()
            .map(|r| {
                if r >= 100.0 {
                    format!("{r:.0}x")
                } else {
                    format!("{r:.2}x")
                }
            })
            .unwrap_or_default(),
        (v, Fmt::Int) => v.as_f64().map(|x| format!("{x:.0}")).unwrap_or_default(),
        (v, Fmt::Float) => v.as_f64().map(|x| format!("{x:.2}")).unwrap_or_default(),
        (v, Fmt::Secs) => v.as_f64().map(|x| format!("{x:.3} s")).unwrap_or_default(),
        (v, Fmt::Bytes) => v
            .as_f64()
            .map(|x| {
                if x < 10_000.0 {
                    format!("{x:.0} B")
                } else if x < 1e7 {
                    format!("{:.1} KiB", x / 1024.0)
                } else {
                    format!("{:.1} MiB", x / 1048576.0)
                }
            })
            .unwrap_or_default(),
        (v, Fmt::Text) => v.to_string(),
    }
}

/// The median of `xs` (the mean of the middle two for an even count); NaN
/// for none.
pub(crate) fn median(xs: &[f64]) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// What an empty timed region measures, in ns: the mean of
/// `Instant::now()` ... `elapsed()` around nothing, exactly as the
/// experiments time their batches. Subtracted from every timed batch.
pub(crate) fn timer_overhead_ns() -> f64 {
    use std::sync::OnceLock;
    static OVERHEAD: OnceLock<f64> = OnceLock::new();
    *OVERHEAD.get_or_init(|| {
        let mut means = Vec::with_capacity(21);
        for _ in 0..21 {
            let mut sum = 0u128;
            for _ in 0..10_000 {
                let t = Instant::now();
                black_box(());
                sum += t.elapsed().as_nanos();
            }
            means.push(sum as f64 / 10_000.0);
        }
        median(&means)
    })
}

/// A timing result: ns per operation.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sample {
    /// Median over repetitions of the per-op cost of a batch.
    pub(crate) median_ns: f64,
    /// Fastest repetition.
    pub(crate) min_ns: f64,
}

/// Times `op`, which must leave the state as it found it (so that every
/// call costs the same): batches of `k` calls with `k` doubled until one
/// batch lasts at least `opts.batch()`, then `opts.reps()` batches; returns
/// the median per-op cost, timer overhead subtracted.
pub(crate) fn per_op(opts: &Opts, mut op: impl FnMut()) -> Sample {
    per_op_with(opts.batch(), opts.reps(), &mut op)
}

/// [`per_op`] with an explicit batch duration and repetition count.
pub(crate) fn per_op_with(batch: Duration, reps: usize, op: &mut dyn FnMut()) -> Sample {
    let overhead = timer_overhead_ns();
    let mut k: u64 = 1;
    loop {
        let t = Instant::now();
        for _ in 0..k {
            op();
        }
        let el = t.elapsed();
        if el >= batch || k >= 1 << 24 {
            break;
        }
        // Jump close to the target at once when the batch is far too short.
        let ratio = (batch.as_nanos() as f64 / el.as_nanos().max(1) as f64).ceil() as u64;
        k = (k * ratio.clamp(2, 64)).min(1 << 24);
    }
    let mut xs = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t = Instant::now();
        for _ in 0..k {
            op();
        }
        let ns = t.elapsed().as_nanos() as f64 - overhead;
        xs.push((ns / k as f64).max(0.0));
    }
    Sample {
        median_ns: median(&xs),
        min_ns: xs.iter().copied().fold(f64::INFINITY, f64::min),
    }
}

/// A small xorshift64 generator: reproducible workloads without a crate.
#[derive(Clone, Debug)]
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// Uniform in `0..n` (`n > 0`), by multiply-shift.
    pub(crate) fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}

/// Prints a progress line to stderr.
pub(crate) fn progress(msg: impl AsRef<str>) {
    eprintln!("[bench] {}", msg.as_ref());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn rows_render_to_json_csv_and_table() {
        let mut rep = Report::new("demo", "N");
        rep.series.push(("a".into(), "series a".into()));
        rep.columns
            .push(Column::new("taskcore", "taskcore_ns", Fmt::Ns));
        rep.columns.push(Column::new("old", "old_ns", Fmt::Ns));
        rep.columns
            .push(Column::new("old/taskcore", "ratio", Fmt::Ratio));
        let mut r = Row::new("a", 10);
        r.set("taskcore_ns", 12.5).set("old_ns", 2500.0);
        r.ratio("ratio", "old_ns", "taskcore_ns");
        rep.rows.push(r);
        let j = rep.to_json();
        assert_eq!(j["experiment"], "demo");
        assert_eq!(j["rows"][0]["size"], 10);
        assert_eq!(j["rows"][0]["ratio"], 200.0);
        let csv = rep.csv();
        assert_eq!(
            csv,
            "series,size,taskcore_ns,old_ns,ratio\na,10,12.5,2500.0,200.0\n"
        );
        let t = rep.tables();
        assert!(t.contains("12.5 ns"), "{t}");
        assert!(t.contains("2.50 us"), "{t}");
        assert!(t.contains("200x"), "{t}");
    }

    #[test]
    fn per_op_measures_a_known_cost() {
        // A spin of ~1 us per op must measure near 1 us, never near 0.
        let s = per_op_with(Duration::from_micros(200), 3, &mut || {
            let t = Instant::now();
            while t.elapsed() < Duration::from_micros(1) {}
        });
        assert!(s.median_ns >= 900.0, "{s:?}");
        assert!(s.min_ns <= s.median_ns, "{s:?}");
    }

    #[test]
    fn rng_below_stays_in_range() {
        let mut r = Rng::new(7);
        for n in [1usize, 2, 3, 1000] {
            for _ in 0..1000 {
                assert!(r.below(n) < n);
            }
        }
    }
}
