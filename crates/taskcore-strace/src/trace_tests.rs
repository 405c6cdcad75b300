//! Whole-trace tests over the recorded traces in `data/traces/` (bundled)
//! and `data/traces/extra/` (held-out recordings, see its README.md), and
//! `data/traces/wide/` (the bundled workloads with the wide command).
//!
//! Every expectation is computed independently from the raw text with plain
//! string operations (no use of the parser's lexer), then compared with the
//! parser's events and counters.

use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};

use super::{read_trace, Call, Event, EventKind, Trace};

/// The repository's `data/traces` directory when this crate sits in the
/// taskcore workspace; `None`, after printing why `test` is skipped, when
/// it runs from a packaged copy (the traces are not shipped with it).
pub(crate) fn traces_dir_for(test: &str) -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    if root.join("crates/taskcore/Cargo.toml").is_file() {
        Some(root.join("data/traces"))
    } else {
        eprintln!("SKIPPED {test}: needs the repository's data/traces, which the packaged crate does not ship");
        None
    }
}

/// The bundled traces plus every held-out recording (`None`: skipped).
fn all_traces(test: &str) -> Option<Vec<PathBuf>> {
    let dir = traces_dir_for(test)?;
    let mut v: Vec<PathBuf> = ["hello-build", "cargo-build", "python-multiprocessing"]
        .iter()
        .map(|n| dir.join(format!("{n}.strace.gz")))
        .collect();
    let mut extra: Vec<PathBuf> = std::fs::read_dir(dir.join("extra"))
        .expect("data/traces/extra exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".strace.gz"))
        .collect();
    extra.sort();
    assert!(extra.len() >= 13, "held-out traces missing: {extra:?}");
    v.extend(extra);
    // The bundled workloads recorded again with the wide command.
    let mut wide: Vec<PathBuf> = std::fs::read_dir(dir.join("wide"))
        .expect("data/traces/wide exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".strace.gz"))
        .collect();
    wide.sort();
    v.extend(wide);
    Some(v)
}

/// The decompressed text of a trace, independently of the reader.
fn raw_text(path: &Path) -> String {
    let mut s = String::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut s)
        .unwrap();
    s
}

/// `(pid, body)` of a raw `PID TIMESTAMP BODY` line.
fn split_raw(line: &str) -> (i32, &str) {
    let t = line.trim_start();
    let a = t.find(' ').unwrap();
    let pid = t[..a].parse().unwrap();
    let rest = t[a..].trim_start();
    let b = rest.find(' ').unwrap();
    (pid, rest[b..].trim_start())
}

/// What the raw text says, counted with plain string matching.
#[derive(Default)]
struct RawCounts {
    /// Syscalls by name: lines whose body starts `NAME(` (whole calls and
    /// entry halves; resumed halves are not counted, so a pair counts once).
    calls: BTreeMap<String, u64>,
    /// Lines naming each syscall, halves included.
    lines: BTreeMap<String, u64>,
    /// `(line, pid, code)` of every `+++ exited with` line.
    exited: Vec<(usize, i32, i32)>,
    /// `(line, pid)` of every `+++ killed by` line.
    killed: Vec<(usize, i32)>,
    /// Number of `--- ` lines.
    signals: u64,
}

fn raw_counts(text: &str) -> RawCounts {
    let mut rc = RawCounts::default();
    for (i, line) in text.lines().enumerate() {
        let (pid, body) = split_raw(line);
        if let Some(code) = body
            .strip_prefix("+++ exited with ")
            .and_then(|r| r.strip_suffix(" +++"))
        {
            rc.exited.push((i + 1, pid, code.parse().unwrap()));
        } else if body.starts_with("+++ killed by ") {
            rc.killed.push((i + 1, pid));
        } else if body.starts_with("--- ") {
            rc.signals += 1;
        } else if let Some(r) = body.strip_prefix("<... ") {
            let name = r.split(' ').next().unwrap();
            *rc.lines.entry(name.to_string()).or_default() += 1;
        } else if let Some(open) = body.find('(') {
            let name = &body[..open];
            *rc.calls.entry(name.to_string()).or_default() += 1;
            *rc.lines.entry(name.to_string()).or_default() += 1;
        }
    }
    rc
}

/// The syscalls the replay models, with a predicate recognising their typed
/// variant.
fn typed(name: &str, call: &Call) -> bool {
    use taskcore::sys::{nr, Syscall as S};
    match (name, call) {
        // ptrace is kept as registers, its request resolved where applied.
        ("ptrace", Call::Raw { nr: n, .. }) => *n == nr::PTRACE,
        (_, Call::Sys { call, .. }) => matches!(
            (name, call),
            ("clone", S::Clone(_))
                | ("clone3", S::Clone3(_))
                | ("fork", S::Fork)
                | ("vfork", S::Vfork)
                | ("execve" | "execveat", S::Execve { .. })
                | ("exit", S::Exit { .. })
                | ("exit_group", S::ExitGroup { .. })
                | ("wait4", S::Wait4 { .. })
                | ("waitid", S::Waitid { .. })
                | ("kill", S::Kill { .. })
                | ("tgkill", S::Tgkill { .. })
                | ("tkill", S::Tkill { .. })
                | ("setpgid", S::Setpgid { .. })
                | ("setsid", S::Setsid)
                | ("getpgid", S::Getpgid { .. })
                | ("getsid", S::Getsid { .. })
                | ("rt_sigaction", S::RtSigaction { .. })
                | ("prctl", S::Prctl(_))
        ),
        // A prctl option the core does not model.
        (
            "prctl",
            Call::Other {
                undecoded: None, ..
            },
        ) => true,
        _ => false,
    }
}

/// Parses `path` and checks it against its raw counts; returns the trace.
fn check_trace(path: &Path) -> Trace {
    let t = read_trace(path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    assert!(
        t.errors.is_empty(),
        "{name}: {} errors, first: {:?}",
        t.stats.error_lines,
        t.errors.first()
    );
    assert_eq!(t.stats.error_lines, 0, "{name}");
    let rc = raw_counts(&raw_text(path));
    assert_eq!(
        t.stats.lines as usize,
        raw_text(path).lines().count(),
        "{name}"
    );

    // Events per syscall name equal the raw `NAME(` line counts, and every
    // modelled syscall decodes to its typed variant.
    let mut by_name: HashMap<&str, (u64, u64)> = HashMap::new();
    for e in &t.events {
        if let EventKind::Syscall(s) = &e.kind {
            let c = by_name.entry(&s.name).or_default();
            c.0 += 1;
            c.1 += u64::from(typed(&s.name, &s.call));
            assert!(!s.call.is_undecoded(), "{name}:{}: {:?}", e.line, s.call);
        }
    }
    for (sys, n) in &rc.calls {
        let (events, typed_events) = by_name.get(sys.as_str()).copied().unwrap_or_default();
        assert_eq!(events, *n, "{name}: {sys} events");
        let modelled = [
            "clone",
            "clone3",
            "fork",
            "vfork",
            "execve",
            "execveat",
            "exit",
            "exit_group",
            "wait4",
            "waitid",
            "kill",
            "tgkill",
            "tkill",
            "setpgid",
            "setsid",
            "getpgid",
            "getsid",
            "rt_sigaction",
            "prctl",
            "ptrace",
        ];
        if modelled.contains(&sys.as_str()) {
            assert_eq!(typed_events, *n, "{name}: {sys} typed events");
        }
        assert_eq!(t.stats.syscall(sys).calls, *n, "{name}: {sys} stats.calls");
        assert_eq!(t.stats.syscall(sys).undecoded, 0, "{name}: {sys} undecoded");
    }
    assert_eq!(by_name.len(), rc.calls.len(), "{name}: syscall names");
    for (sys, n) in &rc.lines {
        assert_eq!(t.stats.syscall(sys).lines, *n, "{name}: {sys} stats.lines");
    }

    // Every `+++ exited with N +++` / `+++ killed by` line is an event at
    // that line for that pid.
    let exited: Vec<(usize, i32, i32)> = t
        .events
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::Exited { code } => Some((e.line, e.pid, code)),
            _ => None,
        })
        .collect();
    assert_eq!(exited, rc.exited, "{name}: exited events");
    let killed: Vec<(usize, i32)> = t
        .events
        .iter()
        .filter_map(|e| matches!(e.kind, EventKind::Killed { .. }).then_some((e.line, e.pid)))
        .collect();
    assert_eq!(killed, rc.killed, "{name}: killed events");
    let signals = t
        .events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::Signal { .. } | EventKind::Stopped { .. }))
        .count();
    assert_eq!(signals as u64, rc.signals, "{name}: signal events");
    assert_eq!(t.stats.undecoded_siginfo, 0, "{name}");

    // Order and join invariants.
    assert!(
        t.events.windows(2).all(|w| w[0].line <= w[1].line),
        "{name}: order"
    );
    for e in &t.events {
        assert!(
            e.entry_line <= e.line && e.entry_ts <= e.ts + 1e-9,
            "{name}:{}",
            e.line
        );
        if let EventKind::Syscall(s) = &e.kind {
            if !s.completed {
                assert_eq!(s.ret, super::Ret::Unknown, "{name}:{}", e.line);
                assert!(
                    e.entry_line < e.line || e.line == t.stats.lines as usize,
                    "{name}:{}",
                    e.line
                );
            }
        }
    }
    t
}

/// Cross-checks decoded wait4() statuses with the exit events of the
/// reaped child: `WEXITSTATUS` equals the `+++ exited with` code and
/// `WTERMSIG` the `+++ killed by` signal.
fn check_wait_statuses(name: &str, events: &[Event]) -> usize {
    let mut ends: HashMap<i32, Vec<(usize, i32)>> = HashMap::new(); // pid -> (line, status)
    for e in events {
        let st = match e.kind {
            EventKind::Exited { code } => (code & 0xff) << 8,
            EventKind::Killed { sig, core_dumped } => sig | if core_dumped { 0x80 } else { 0 },
            _ => continue,
        };
        ends.entry(e.pid).or_default().push((e.line, st));
    }
    let mut checked = 0;
    for e in events {
        let EventKind::Syscall(s) = &e.kind else {
            continue;
        };
        let Call::Sys {
            out: crate::Recorded::Wait4 { status: Some(st) },
            ..
        } = s.call
        else {
            continue;
        };
        let Some(child) = s.ret.val() else { continue };
        if st & 0x7f == 0x7f || st == 0xffff {
            continue; // stopped / continued: no exit event
        }
        // A pid-namespace trace recorded without strace's pid translation
        // returns numbers of the inner namespace: use the host number when
        // strace gave it, and skip the numbers no task of the trace has.
        let child = s.ret_host_pid.map_or(child, i64::from);
        let Some(cands) = ends.get(&(child as i32)) else {
            continue;
        };
        // The child's last end before the wait returned, else its first after.
        let end = cands
            .iter()
            .rev()
            .find(|(l, _)| *l < e.line)
            .or_else(|| cands.first())
            .unwrap();
        assert_eq!(
            end.1, st,
            "{name}:{}: wait4 status {st:#x} for {child}",
            e.line
        );
        checked += 1;
    }
    checked
}

#[test]
fn bundled_hello_build() {
    let Some(dir) = traces_dir_for("bundled_hello_build") else {
        return;
    };
    let t = check_trace(&dir.join("hello-build.strace.gz"));
    assert!(check_wait_statuses("hello", &t.events) > 3000);
    // Shell-heavy: every kind of task creation appears.
    assert!(t.stats.syscall("vfork").calls > 0 && t.stats.syscall("clone3").calls > 0);
}

#[test]
fn bundled_cargo_build() {
    let Some(dir) = traces_dir_for("bundled_cargo_build") else {
        return;
    };
    let t = check_trace(&dir.join("cargo-build.strace.gz"));
    assert!(check_wait_statuses("cargo", &t.events) > 30);
    assert!(t.stats.syscall("tgkill").calls > 0);
}

#[test]
fn bundled_python_multiprocessing() {
    let Some(dir) = traces_dir_for("bundled_python_multiprocessing") else {
        return;
    };
    let t = check_trace(&dir.join("python-multiprocessing.strace.gz"));
    assert!(check_wait_statuses("python", &t.events) > 100);
    // ERESTARTSYS results survive with their kernel number.
    let restarts = t
        .events
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::Syscall(s) if matches!(&s.ret, super::Ret::Err(x) if x.num == Some(512))))
        .count();
    assert!(restarts > 0);
}

#[test]
fn held_out_traces() {
    let mut superseded = 0;
    let mut core = 0;
    let Some(all) = all_traces("held_out_traces") else {
        return;
    };
    for p in all.iter().skip(3) {
        let t = check_trace(p);
        check_wait_statuses(&p.display().to_string(), &t.events);
        superseded += t.stats.superseded_lines;
        core += t
            .events
            .iter()
            .filter(|e| {
                matches!(
                    e.kind,
                    EventKind::Killed {
                        core_dumped: true,
                        ..
                    }
                )
            })
            .count();
        // A superseded leader's execve resumes under its pid.
        for (i, e) in t.events.iter().enumerate() {
            if let EventKind::Superseded { by_pid } = e.kind {
                let next = t.events[i + 1..].iter().find(|n| n.pid == e.pid).unwrap();
                assert_eq!(next.entry_pid, by_pid);
                assert!(
                    matches!(&next.kind, EventKind::Syscall(s) if matches!(s.call.syscall(), Some(taskcore::sys::Syscall::Execve { .. })))
                );
            }
        }
    }
    assert!(superseded >= 2 && core >= 1, "{superseded} {core}");
}

/// Prints the per-syscall counts of the bundled traces (not a check: run
/// with `cargo test -p taskcore-cli report_counts -- --ignored --nocapture`;
/// the counts are asserted in the tests above).
#[test]
#[ignore]
fn report_counts() {
    let Some(all) = all_traces("report_counts") else {
        return;
    };
    for p in all.iter().take(3) {
        let t = read_trace(p).unwrap();
        println!(
            "{}: {} lines, {} events",
            p.display(),
            t.stats.lines,
            t.events.len()
        );
        for (name, c) in &t.stats.syscalls {
            println!(
                "  {name:<14} lines {:>6} calls {:>6} unfinished {:>3}",
                c.lines, c.calls, c.unfinished
            );
        }
        println!(
            "  signals {} exited {} killed {} superseded {}",
            t.stats.signal_lines,
            t.stats.exited_lines,
            t.stats.killed_lines,
            t.stats.superseded_lines
        );
    }
}
