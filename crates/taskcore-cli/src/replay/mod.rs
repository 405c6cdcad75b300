//! `taskcore replay`: a thin layer over [`taskcore_replay`]: file
//! discovery, parallel files, progress, printing and exit statuses.
//!
//! Exit statuses: 0 every check passed; 1 mismatches; 2 unusable input
//! (unreadable, a directory, corrupt or truncated compression, no strace
//! events, or more than [`taskcore_replay::MAX_PARSE_ERRORS`] unparsable
//! lines or one in [`taskcore_replay::MAX_ERROR_RATIO`]), or a
//! `--timeline` file that cannot be written.

mod progress;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use progress::Progress;
use rayon::prelude::*;
use taskcore_replay::probe::{self as rprobe, LatencyProbe};
use taskcore_replay::{ExitLines, FileReport, Input, InputError, Options, Recording, Stats};

/// What `--probe` measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ProbeKind {
    /// Per-operation latency: count, p50, p99, max, and the probe's nmissed.
    Latency,
}

/// Arguments of `taskcore replay`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Exit status: 0 every check passed; 1 mismatches; 2 unusable input \
(unreadable file, a directory, corrupt or truncated compression, no strace events, or more \
than 10 unparsable lines or more than one in 1000), or a --timeline file that cannot be \
written. Errors name FILE:LINE."
)]
pub(crate) struct Args {
    /// Trace files (`strace -f -ttt -o FILE` output, plain or .gz; `-` for
    /// standard input). Default: the bundled traces. The per-task files of
    /// `strace -ff -ttt -o PREFIX` (`PREFIX.TID`) are merged into one
    /// trace, `PREFIX.*`; `PREFIX` alone names them all.
    pub(crate) files: Vec<PathBuf>,
    /// Write the merged `strace -f` text of the one `strace -ff` recording
    /// given to FILE (the lines its report's line numbers count), and
    /// replay nothing.
    #[arg(long, value_name = "FILE")]
    pub(crate) write_merged: Option<PathBuf>,
    /// Print the summary as one JSON object on the last line of stdout.
    #[arg(long)]
    pub(crate) json: bool,
    /// Trace the core with return probes on every operation: `latency`
    /// prints per-operation latency (count, p50, p99, max) and nmissed.
    #[arg(long, value_enum)]
    pub(crate) probe: Option<ProbeKind>,
    /// Files replayed at once (default: the CPUs available).
    #[arg(long)]
    pub(crate) jobs: Option<usize>,
    /// Write the processes over time to FILE (one trace file only): an
    /// HTML page with inline SVG, or with a `.json` name the Chrome
    /// trace-event format (Perfetto, chrome://tracing).
    #[arg(long, value_name = "FILE")]
    pub(crate) timeline: Option<PathBuf>,
}

/// The bundled traces: `data/traces/*.strace.gz` found from `$TASKCORE_DATA`,
/// the current directory, the installed binary's `../share/taskcore`, or
/// the source tree the binary was built from.
pub(crate) fn bundled() -> Vec<PathBuf> {
    let exe_share = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(|d| d.join("../share/taskcore/traces")));
    let dirs = [
        std::env::var_os("TASKCORE_DATA").map(|d| PathBuf::from(d).join("traces")),
        Some(PathBuf::from("data/traces")),
        exe_share,
        Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/traces")),
    ];
    for dir in dirs.into_iter().flatten() {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut v: Vec<PathBuf> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.to_string_lossy().ends_with(".strace.gz"))
            .map(|p| p.canonicalize().unwrap_or(p))
            .collect();
        if !v.is_empty() {
            v.sort();
            return v;
        }
    }
    Vec::new()
}

/// Shows `p` canonically when it exists (no `..` components).
fn display(p: &Path) -> PathBuf {
    if p.as_os_str() == "-" {
        return p.to_path_buf();
    }
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

/// Replays one file, counting its progress in `p`; with `records`, keeps
/// its process records (for `--timeline`).
fn replay_one(input: &Input, p: &Progress, records: bool) -> Result<FileReport, InputError> {
    let name = match input {
        Input::File(path) => display(path).display().to_string(),
        Input::PerTask(set) => set.name(),
    };
    let mut seen = 0;
    let opts = Options {
        records,
        ..Options::default()
    };
    let r = taskcore_replay::replay_input_with(input, &name, opts, |r, n| {
        let m = r.nr_mismatches();
        p.add(n as u64, m - seen);
        seen = m;
    });
    p.file_done();
    r
}

/// The merge of a `strace -ff` recording keeps a file open per task it is
/// inside, as many as tasks overlap in time, which may pass the soft limit
/// on open files (often 1,024): it is raised to the hard limit
/// (`setrlimit(RLIMIT_NOFILE)`), as servers raise it for their
/// connections. A failure leaves the limit, and a file that cannot be
/// opened is named in the error.
fn raise_nofile() {
    use nix::sys::resource::{getrlimit, setrlimit, Resource};
    if let Ok((soft, hard)) = getrlimit(Resource::RLIMIT_NOFILE) {
        if soft < hard {
            let _ = setrlimit(Resource::RLIMIT_NOFILE, hard, hard);
        }
    }
}

/// `--write-merged OUT`: the merged text of the one `-ff` recording in
/// `inputs`.
fn write_merged(inputs: &[Input], out: &Path) -> ExitCode {
    let [Input::PerTask(set)] = inputs else {
        eprintln!(
            "taskcore replay: --write-merged takes the files of one `strace -ff` recording \
             (PREFIX.TID, or PREFIX), and nothing else"
        );
        return ExitCode::from(2);
    };
    let written = taskcore_replay::open_merged(set)
        .map_err(|e| e.to_string())
        .and_then(|mut src| {
            let mut f =
                std::fs::File::create(out).map_err(|e| format!("{}: {e}", out.display()))?;
            std::io::copy(&mut src, &mut f).map_err(|e| format!("{}: {e}", set.name()))
        });
    match written {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("taskcore replay: {e}");
            ExitCode::from(2)
        }
    }
}

pub(crate) fn run(args: Args) -> ExitCode {
    let files = if args.files.is_empty() {
        bundled()
    } else {
        args.files.clone()
    };
    if files.is_empty() {
        eprintln!(
            "taskcore replay: no trace files given and no bundled traces found \
             (looked in $TASKCORE_DATA/traces, ./data/traces and next to the binary)"
        );
        return ExitCode::from(2);
    }
    let files = taskcore_replay::group_inputs(&files);
    if files.iter().any(|i| matches!(i, Input::PerTask(_))) {
        raise_nofile();
    }
    if let Some(out) = &args.write_merged {
        return write_merged(&files, out);
    }
    if args.timeline.is_some() && files.len() != 1 {
        eprintln!(
            "taskcore replay: --timeline draws one trace: give exactly one file or `strace -ff` recording ({} given)",
            files.len()
        );
        return ExitCode::from(2);
    }
    let records = args.timeline.is_some();
    let latency = match args.probe {
        Some(ProbeKind::Latency) => {
            match LatencyProbe::register(rprobe::probes(), rprobe::nr_cpus(), 0) {
                Ok(l) => Some(l),
                Err(e) => {
                    eprintln!("taskcore replay: cannot register the latency probe: {e}");
                    return ExitCode::from(2);
                }
            }
        }
        None => None,
    };
    let prog = Progress::new(files.len());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.jobs.unwrap_or(0))
        .build();
    let results: Vec<Result<FileReport, InputError>> = prog.around(!args.json, || match pool {
        Ok(pool) => pool.install(|| {
            files
                .par_iter()
                .map(|f| replay_one(f, &prog, records))
                .collect()
        }),
        Err(_) => files
            .iter()
            .map(|f| replay_one(f, &prog, records))
            .collect(),
    });
    let mut total = Stats::default();
    let mut total_mismatches = 0usize;
    let mut unusable = false;
    let mut per_file = Vec::new();
    for r in &results {
        match r {
            Ok(rep) => {
                print_summary(
                    &rep.file,
                    &rep.summary.stats,
                    rep.summary.mismatches.len(),
                    rep.parse.error_lines,
                );
                print_recording(&rep.summary.recording, rep.summary.stats.events);
                for m in &rep.summary.mismatches {
                    println!("MISMATCH {m}");
                }
                for e in rep.parse_errors.iter().take(10) {
                    eprintln!("{e}");
                }
                if let Some(e) = &rep.unusable {
                    unusable = true;
                    eprintln!("taskcore replay: {e}");
                    println!("UNUSABLE {e} (the counts above cover what was read)");
                }
                if let Some(out) = &args.timeline {
                    match crate::timeline::write(
                        out,
                        &rep.file,
                        &rep.summary.records,
                        &rep.summary.marks,
                    ) {
                        Ok(n) => println!("timeline: {n} processes written to {}", out.display()),
                        Err(e) => {
                            unusable = true;
                            eprintln!("taskcore replay: cannot write {}: {e}", out.display());
                        }
                    }
                }
                merge(&mut total, &rep.summary.stats);
                total_mismatches += rep.summary.mismatches.len();
                per_file.push(serde_json::json!({
                    "file": rep.file, "events": rep.summary.stats.events,
                    "checked": rep.summary.stats.checked,
                    "signals_checked": rep.summary.stats.signals_checked,
                    "signals_ignored": rep.summary.stats.signals_ignored,
                    "mismatches": rep.summary.mismatches.len(), "tasks": rep.summary.stats.tasks,
                    "peak_live_tasks": rep.summary.stats.peak_live,
                    "parse_errors": rep.parse.error_lines,
                    "exit_lines": rep.summary.recording.exit_lines.name(),
                    "mask_calls": rep.summary.recording.mask_calls,
                    "unusable": rep.unusable.as_ref().map(|e| e.to_string()),
                }));
            }
            Err(e) => {
                unusable = true;
                eprintln!("taskcore replay: {e}");
                per_file.push(serde_json::json!({ "error": e.to_string() }));
            }
        }
    }
    let ok_files = results
        .iter()
        .filter(|r| r.as_ref().is_ok_and(|r| r.unusable.is_none()))
        .count();
    if results.iter().filter(|r| r.is_ok()).count() > 1 {
        print_summary("total", &total, total_mismatches, 0);
    }
    if let Some(l) = &latency {
        print!("{}", l.table());
    }
    if args.json {
        let skipped: BTreeMap<_, _> = total.skipped.iter().collect();
        let unchecked: BTreeMap<_, _> = total.unchecked.iter().collect();
        let checked_calls: BTreeMap<_, _> = total.checked_calls.iter().collect();
        let learned: BTreeMap<_, _> = total.learned.iter().collect();
        let mut j = serde_json::json!({
            "events": total.events,
            "checked": total.checked,
            "signals_checked": total.signals_checked,
            "signals_ignored": total.signals_ignored,
            "mismatches": total_mismatches,
            "tasks": total.tasks,
            "peak_live_tasks": total.peak_live,
            "skipped": skipped,
            "unchecked": unchecked,
            "checked_calls": checked_calls,
            "learned": learned,
            "unusable_files": results.len() - ok_files,
            "files": per_file,
        });
        if let Some(l) = &latency {
            j["latency"] = l.json();
        }
        println!("{j}");
    }
    if unusable {
        ExitCode::from(2)
    } else if total_mismatches > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn merge(total: &mut Stats, s: &Stats) {
    total.events += s.events;
    total.checked += s.checked;
    total.signals_checked += s.signals_checked;
    total.signals_ignored += s.signals_ignored;
    total.tasks += s.tasks;
    total.applied += s.applied;
    total.peak_live = total.peak_live.max(s.peak_live);
    for (k, v) in &s.skipped {
        *total.skipped.entry(k.clone()).or_default() += v;
    }
    for (k, v) in &s.unchecked {
        *total.unchecked.entry(k.clone()).or_default() += v;
    }
    for (k, v) in &s.checked_calls {
        *total.checked_calls.entry(k.clone()).or_default() += v;
    }
    for (k, v) in &s.learned {
        *total.learned.entry(k.clone()).or_default() += v;
    }
}

/// What the trace shows of its strace options, when that changes what the
/// replay could check.
fn print_recording(r: &Recording, events: u64) {
    if r.exit_lines == ExitLines::Dropped {
        println!(
            "recorded with strace -qq (no `+++ exited with N +++` lines): each exit is taken \
             from its `exit_group(N) = ?` or `exit(N) = ?` line"
        );
    }
    if r.mask_calls == 0 && events > 0 {
        println!(
            "no rt_sigprocmask calls (recorded without %signal?): signal masks are unknown, \
             and what depends on them is not checked"
        );
    }
}

fn print_summary(name: &str, s: &Stats, mismatches: usize, parse_errors: u64) {
    println!("== {name}");
    println!(
        "events {}  checks {} (--- signal lines {}, {} of them ignored signals)  mismatches {}  parse errors {}  tasks created {}  most alive at once {} (with 3 outside the trace)",
        s.events, s.checked, s.signals_checked, s.signals_ignored, mismatches, parse_errors, s.tasks, s.peak_live,
    );
    if !s.skipped.is_empty() {
        let sk: BTreeMap<_, _> = s.skipped.iter().collect();
        let list: Vec<String> = sk.iter().map(|(k, v)| format!("{k} {v}")).collect();
        println!("skipped (not modelled): {}", list.join(", "));
    }
    if !s.checked_calls.is_empty() {
        let ch: BTreeMap<_, _> = s.checked_calls.iter().collect();
        let list: Vec<String> = ch.iter().map(|(k, v)| format!("{k} {v}")).collect();
        println!("process-API calls checked: {}", list.join(", "));
    }
    if !s.learned.is_empty() {
        let le: BTreeMap<_, _> = s.learned.iter().collect();
        let list: Vec<String> = le.iter().map(|(k, v)| format!("{k} {v}")).collect();
        println!(
            "learned (state the trace does not show, not checked): {}",
            list.join(", ")
        );
    }
    if !s.unchecked.is_empty() {
        let un: BTreeMap<_, _> = s.unchecked.iter().collect();
        let list: Vec<String> = un.iter().map(|(k, v)| format!("{k} {v}")).collect();
        println!("applied, result not checkable: {}", list.join(", "));
    }
}
