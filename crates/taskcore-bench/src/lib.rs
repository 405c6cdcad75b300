//! The taskcore benchmarks: each experiment runs taskcore beside the old
//! algorithm it replaces, in the same run, and reports ns per operation
//! (medians), ratios, instruction counts and peak RSS as tables, CSV, JSON
//! and PNG plots.
//!
//! The `taskcore bench EXPERIMENT` command parses [`Args`] and calls
//! [`run`]; nothing else is public. The experiments are the seeds' (the
//! five Linux patch threads the design follows); `BENCHMARKS.md` has the
//! tables and what to expect on another machine.
//!
//! # Layout
//! ```text
//! src/
//!   lib.rs        arguments, the experiment registry, the runner
//!   harness.rs    Experiment trait, timing (medians), Report -> table/CSV/JSON
//!   plot.rs       PNG plots, log-log (plotters, embedded font)
//!   insns.rs      instruction counts (perf_event, user space only)
//!   wait.rs       seed 000: fork + exit + waitpid with N children present
//!   old_wait.rs     baseline: Linux's pre-5.13 do_wait over a minimal table
//!   linux_wait.rs   reference: the same workload on this machine's kernel
//!   pidalloc.rs   seed 001: get_pid at a fill of TH live pids
//!   old_pid.rs      baselines: 2002 algo-0 (task-list scans), algo-1 (bitmap)
//!   scale.rs      1M processes, 1M threads: seconds per phase, peak RSS
//!   fork.rs       seed 004: fork of an address space of N VMAs (bulk, COW,
//!                   one-by-one baseline, first write, Kernel spawn, Linux)
//!   readdir.rs    seed 003: /proc root listing with T threads, P processes
//!   objpool.rs    seed 002: pop+push pairs vs threads; replay cost of probes
//!   freelist.rs     baseline: Linux's CAS LIFO freelist (kretprobes < 6.7)
//!   replay.rs     taskcore replay of loop traces, 5k..1M processes
//!   run.rs        taskcore run vs native vs strace -f (true loop, make -j2)
//! ```
//!
//! `scale`, `replay` and `run` start the running executable again
//! ([`std::env::current_exe`]) as `EXE bench scale --scale-child ...`,
//! `EXE replay ...` and `EXE run ...`: [`run`] is meant to be called from
//! the `taskcore` command.
//!
//! Adding an experiment (`readdir`, `fork`, `objpool`...): write
//! `src/NAME.rs` with a unit struct implementing `harness::Experiment`
//! that returns a `harness::Report` (rows `{series, size, taskcore_ns,
//! <baseline>_ns...}`), and add it to `registry`. The runner does the
//! printing, files and plots.

use std::path::PathBuf;
use std::process::ExitCode;

mod fork;
mod freelist;
mod harness;
mod insns;
mod linux_wait;
mod objpool;
mod old_pid;
mod old_wait;
mod output;
mod pidalloc;
mod plot;
mod readdir;
mod replay;
mod run;
mod scale;
mod wait;

use harness::{Experiment, Opts, Report};

/// Arguments of `taskcore bench`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Experiment name (`wait`, `pidalloc`, `scale`, `fork`, `readdir`,
    /// `objpool`, `replay`, `run`), or `all`.
    pub experiment: String,
    /// Fewer sizes and repetitions (each series keeps its largest size), no
    /// real-kernel reference: under 30 s per experiment on 2 cores, except
    /// `replay`, which first records its missing loop traces with strace
    /// (25,000 processes, about a minute; 80 s in all measured).
    #[arg(long)]
    pub quick: bool,
    /// Print the report as one JSON object on the last line of stdout.
    #[arg(long)]
    pub json: bool,
    /// Directory for NAME.csv, NAME.json and the PNG plots.
    #[arg(long, default_value = "target/taskcore-bench")]
    pub out: PathBuf,
    /// Skip the real-kernel reference columns (`linux_ns`).
    #[arg(long)]
    pub no_linux: bool,
    /// Internal: run one `scale` scenario (SCENARIO, N processes or
    /// threads) in this fresh process; `scale` starts the executable again
    /// with it, so that each scenario's peak RSS is its own.
    #[arg(long, hide = true, num_args = 2, value_names = ["SCENARIO", "N"])]
    pub scale_child: Option<Vec<String>>,
}

/// Every experiment, in the order `bench all` runs them. `wait` comes first
/// because its real-kernel reference forks this process, which is cheapest
/// while the heap is small.
fn registry(bundled_traces: fn() -> Vec<PathBuf>) -> Vec<Box<dyn Experiment>> {
    vec![
        Box::new(wait::Wait),
        Box::new(pidalloc::PidAlloc),
        Box::new(scale::Scale),
        Box::new(fork::Fork),
        Box::new(readdir::Readdir),
        Box::new(objpool::Objpool { bundled_traces }),
        Box::new(replay::Replay),
        Box::new(run::Run),
    ]
}

/// Runs `taskcore bench`: the experiment `args.experiment` names (or every
/// one for `all`), printing each report's tables to stdout and writing
/// `NAME.csv`, `NAME.json` and the PNG plots to `args.out`. Progress goes
/// to stderr. `bundled_traces` lists the bundled `strace -f` recordings
/// the `objpool` experiment replays (`taskcore replay`'s default list;
/// empty: that series has no rows); it is called only when that experiment
/// runs.
///
/// Returns [`ExitCode::SUCCESS`], 2 for an unknown experiment (the known
/// ones are listed on stderr), or [`ExitCode::FAILURE`] when an experiment
/// or writing its files fails (the message is on stderr).
pub fn run(args: Args, bundled_traces: fn() -> Vec<PathBuf>) -> ExitCode {
    if let Some(v) = &args.scale_child {
        return scale::child_main(&v[0], &v[1]);
    }
    let opts = Opts {
        quick: args.quick,
        linux: !args.no_linux && !args.quick,
    };
    let exps = registry(bundled_traces);
    let chosen: Vec<&dyn Experiment> = if args.experiment == "all" {
        exps.iter().map(|e| e.as_ref()).collect()
    } else {
        match exps.iter().find(|e| e.name() == args.experiment) {
            Some(e) => vec![e.as_ref()],
            None => {
                eprintln!(
                    "taskcore bench: unknown experiment '{}'; known:",
                    args.experiment
                );
                for e in &exps {
                    eprintln!("  {:<10} {}", e.name(), e.about());
                }
                eprintln!("  {:<10} every experiment above", "all");
                return ExitCode::from(2);
            }
        }
    };
    let mut reports: Vec<Report> = Vec::new();
    for e in chosen {
        harness::progress(format!("{}: {}", e.name(), e.about()));
        let t = std::time::Instant::now();
        let rep = match e.run(&opts) {
            Ok(r) => r,
            Err(msg) => {
                eprintln!("taskcore bench {}: {msg}", e.name());
                return ExitCode::FAILURE;
            }
        };
        harness::progress(format!(
            "{} done in {:.1} s",
            e.name(),
            t.elapsed().as_secs_f64()
        ));
        print!("{}", rep.tables());
        match output::write_files(&rep, &args.out) {
            Ok(files) => harness::progress(format!("wrote {}", files.join(", "))),
            Err(msg) => {
                eprintln!("taskcore bench {}: {msg}", e.name());
                return ExitCode::FAILURE;
            }
        }
        reports.push(rep);
    }
    if args.json {
        let line = if reports.len() == 1 {
            reports[0].to_json()
        } else {
            // `all`: one object of the same shape, each row naming its
            // experiment.
            let rows = reports
                .iter()
                .flat_map(|r| {
                    r.rows.iter().map(|row| {
                        let mut j = row.to_json();
                        j["experiment"] = serde_json::Value::from(r.experiment.clone());
                        j
                    })
                })
                .collect();
            serde_json::json!({"experiment": "all", "rows": serde_json::Value::Array(rows)})
        };
        println!("{line}");
    }
    ExitCode::SUCCESS
}
