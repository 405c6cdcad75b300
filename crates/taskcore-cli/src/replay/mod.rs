//! `taskcore replay`: drive the core with the process events of real
//! `strace -f` recordings and check every recorded result.
//!
//! - `op`: the engine's input, one typed event per recorded call or line;
//! - `convert`: from parsed strace lines to `op` events;
//! - `engine`: the replay itself and its checks;
//! - `waits`: checking wait results, allowing for timing strace cannot show;
//! - `memory`: the memory syscalls;
//! - `search`: an order of effects the recording allows, when overlapping
//!   calls make the default one disagree.

mod convert;
mod engine;
mod memory;
mod op;
pub(crate) mod probe;
mod search;
mod waits;

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use indicatif::{ProgressBar, ProgressStyle};

use engine::Stats;

/// Arguments of `taskcore replay`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Trace files (`strace -f -ttt` output, plain or .gz). Default: the
    /// bundled traces.
    pub(crate) files: Vec<PathBuf>,
    /// Print the summary as one JSON object on the last line of stdout.
    #[arg(long)]
    pub(crate) json: bool,
    /// Trace the core with return probes on every operation: `latency`
    /// prints per-operation latency (count, p50, p99, max) and nmissed.
    #[arg(long, value_enum)]
    pub(crate) probe: Option<probe::ProbeKind>,
}

/// The bundled traces: `data/traces/*.strace.gz` of the source tree.
fn bundled() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/traces");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.to_string_lossy().ends_with(".strace.gz"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

pub(crate) fn run(args: Args) -> ExitCode {
    let files = if args.files.is_empty() {
        bundled()
    } else {
        args.files.clone()
    };
    if files.is_empty() {
        eprintln!("taskcore replay: no trace files given and none bundled");
        return ExitCode::from(2);
    }
    let latency = match args.probe {
        Some(probe::ProbeKind::Latency) => {
            match probe::LatencyProbe::register(probe::probes(), probe::nr_cpus(), 0) {
                Ok(l) => Some(l),
                Err(e) => {
                    eprintln!("taskcore replay: cannot register the latency probe: {e:?}");
                    return ExitCode::from(2);
                }
            }
        }
        None => None,
    };
    let mut total = Stats::default();
    let mut per_file = Vec::new();
    for path in &files {
        let events = match convert::load(path) {
            Ok(ev) => ev,
            Err(e) => {
                eprintln!("taskcore replay: {e}");
                return ExitCode::from(2);
            }
        };
        let bar = if std::io::stderr().is_terminal() && !args.json {
            let b = ProgressBar::new(events.events.len() as u64);
            b.set_style(
                ProgressStyle::with_template("{msg} {bar:40} {pos}/{len} events")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            b.set_message(path.display().to_string());
            b
        } else {
            ProgressBar::hidden()
        };
        let mut s = search::replay(&events.events, || bar.inc(1));
        bar.finish_and_clear();
        for (name, n) in events.skipped {
            *s.skipped.entry(name).or_default() += n;
        }
        print_summary(&path.display().to_string(), &s, events.parse_errors);
        merge(&mut total, &s);
        per_file.push((path.display().to_string(), s, events.parse_errors));
    }
    if files.len() > 1 {
        print_summary("total", &total, per_file.iter().map(|f| f.2).sum());
    }
    if let Some(l) = &latency {
        print!("{}", l.table());
    }
    if args.json {
        let files: Vec<_> = per_file
            .iter()
            .map(|(f, s, pe)| {
                serde_json::json!({
                    "file": f, "events": s.events, "checked": s.checked,
                    "mismatches": s.mismatches.len(), "tasks": s.tasks,
                    "peak_live_tasks": s.peak_live, "parse_errors": pe,
                })
            })
            .collect();
        let skipped: BTreeMap<_, _> = total.skipped.iter().collect();
        let unchecked: BTreeMap<_, _> = total.unchecked.iter().collect();
        let mut j = serde_json::json!({
            "events": total.events,
            "checked": total.checked,
            "mismatches": total.mismatches.len(),
            "tasks": total.tasks,
            "peak_live_tasks": total.peak_live,
            "skipped": skipped,
            "unchecked": unchecked,
            "files": files,
        });
        if let Some(l) = &latency {
            j["latency"] = l.json();
        }
        println!("{j}");
    }
    if total.mismatches.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// The process table of `path`'s replay once every event completed by line
/// `at` (all of them without `at`) has been applied, in the default order
/// (no search). For `taskcore proc --from-trace`.
///
/// # Errors
/// A message naming the file when it cannot be read.
pub(crate) fn kernel_at(path: &Path, at: Option<usize>) -> Result<taskcore::Kernel, String> {
    let loaded = convert::load(path)?;
    let mut engine = engine::Engine::new(&loaded.events);
    engine.start();
    let order = engine::Engine::default_order(&loaded.events);
    for (pos, &i) in order.iter().enumerate() {
        if at.is_some_and(|l| engine::Engine::key(&loaded.events[i]) > l) {
            break;
        }
        engine.step(pos, i);
    }
    Ok(engine.kernel().snapshot())
}

fn merge(total: &mut Stats, s: &Stats) {
    total.events += s.events;
    total.checked += s.checked;
    total.tasks += s.tasks;
    total.applied += s.applied;
    total.peak_live = total.peak_live.max(s.peak_live);
    for (k, v) in &s.skipped {
        *total.skipped.entry(k.clone()).or_default() += v;
    }
    for (k, v) in &s.unchecked {
        *total.unchecked.entry(k.clone()).or_default() += v;
    }
    total.mismatches.extend(s.mismatches.iter().cloned());
}

fn print_summary(name: &str, s: &Stats, parse_errors: u64) {
    println!("== {name}");
    println!(
        "events {}  tasks {}  peak live tasks {}  checks {}  mismatches {}  parse errors {}",
        s.events,
        s.tasks,
        s.peak_live,
        s.checked,
        s.mismatches.len(),
        parse_errors
    );
    for m in &s.mismatches {
        println!(
            "MISMATCH {}:{}: {}: recorded {}, emulated {}",
            m.file, m.line, m.what, m.recorded, m.emulated
        );
    }
    if !s.skipped.is_empty() {
        let sk: BTreeMap<_, _> = s.skipped.iter().collect();
        let list: Vec<String> = sk.iter().map(|(k, v)| format!("{k} {v}")).collect();
        println!("skipped (not modelled): {}", list.join(", "));
    }
    if !s.unchecked.is_empty() {
        let un: BTreeMap<_, _> = s.unchecked.iter().collect();
        let list: Vec<String> = un.iter().map(|(k, v)| format!("{k} {v}")).collect();
        println!("applied, result not checkable: {}", list.join(", "));
    }
}

#[cfg(test)]
mod tests {
    use super::{convert, search};
    use crate::strace;

    /// Replays trace text; returns (checks, mismatch lines).
    fn replay(text: &str) -> (u64, Vec<usize>) {
        let loaded = convert::from_trace(strace::parse_str("t", text));
        let s = search::replay(&loaded.events, || {});
        (s.checked, s.mismatches.iter().map(|m| m.line).collect())
    }

    const OK: &str = "\
100 1.0 clone(child_stack=NULL, flags=SIGCHLD) = 101
100 1.1 clone(child_stack=NULL, flags=SIGCHLD) = 102
101 1.2 exit_group(3) = ?
101 1.3 +++ exited with 3 +++
102 1.4 exit_group(4) = ?
102 1.5 +++ exited with 4 +++
100 1.6 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 3}], 0, NULL) = 101
100 1.7 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 4}], 0, NULL) = 102
100 1.8 wait4(-1, 0x7ffc, WNOHANG, NULL) = -1 ECHILD (No child processes)
";

    #[test]
    fn a_consistent_trace_replays_clean() {
        let (checks, bad) = replay(OK);
        assert_eq!(checks, 7, "2 clones, 3 waits, 2 exits");
        assert!(bad.is_empty(), "{bad:?}");
    }

    #[test]
    fn a_wrong_wait_order_is_a_mismatch() {
        // Both deaths are confirmed before the wait: Linux reports 101 first.
        let text = OK
            .replace("== 3}], 0, NULL) = 101", "== 4}], 0, NULL) = 102")
            .replace(
                "== 4}], 0, NULL) = 102\n100 1.8",
                "== 3}], 0, NULL) = 101\n100 1.8",
            );
        let (_, bad) = replay(&text);
        assert!(bad.contains(&7), "{bad:?}");
    }

    #[test]
    fn a_wrong_status_or_errno_is_a_mismatch() {
        let (_, bad) = replay(&OK.replace("WEXITSTATUS(s) == 3", "WEXITSTATUS(s) == 5"));
        assert!(bad.contains(&7), "{bad:?}");
        let (_, bad) = replay(&OK.replace("= -1 ECHILD (No child processes)", "= 0"));
        assert!(bad.contains(&9), "{bad:?}");
        let text = format!("{OK}100 1.9 setpgid(0, 101) = 0\n");
        let (_, bad) = replay(&text);
        assert!(bad.contains(&10), "{bad:?}");
    }

    #[test]
    fn memory_calls_are_checked_against_the_address_space() {
        let text = "\
100 1.0 mmap(NULL, 8192, PROT_READ, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f0000000000
100 1.1 munmap(0x7f0000001000, 4096) = 0
100 1.2 mmap(NULL, 4096, PROT_READ, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f0000001000
100 1.3 mremap(0x7f0000000000, 4096, 16384, MREMAP_MAYMOVE) = 0x7f0000100000
100 1.4 mmap(NULL, 4096, PROT_READ, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f0000000000
";
        let (checks, bad) = replay(text);
        assert_eq!((checks, bad), (5, vec![]));
        // Overlapping a mapping the trace made and never removed.
        let (_, bad) = replay(&text.replace("munmap(0x7f0000001000", "munmap(0x7f0000005000"));
        assert_eq!(bad, vec![3]);
    }

    #[test]
    fn overlapping_calls_may_take_effect_in_either_order() {
        // 102 makes its own group while the parent moves 101 into it: the
        // parent's call took effect first (EPERM: group 102 did not exist).
        let text = "\
100 1.0 clone(child_stack=NULL, flags=SIGCHLD) = 101
100 1.1 clone(child_stack=NULL, flags=SIGCHLD) = 102
102 1.2 setpgid(0, 0 <unfinished ...>
100 1.3 setpgid(101, 102 <unfinished ...>
102 1.4 <... setpgid resumed>) = 0
100 1.5 <... setpgid resumed>) = -1 EPERM (Operation not permitted)
";
        let (_, bad) = replay(text);
        assert!(bad.is_empty(), "{bad:?}");
        // Without overlap the order is known, and EPERM is wrong.
        let text = "\
100 1.0 clone(child_stack=NULL, flags=SIGCHLD) = 101
100 1.1 clone(child_stack=NULL, flags=SIGCHLD) = 102
102 1.2 setpgid(0, 0) = 0
100 1.3 setpgid(101, 102) = -1 EPERM (Operation not permitted)
";
        let (_, bad) = replay(text);
        assert_eq!(bad, vec![4]);
    }
}
