//! `taskcore bench run`: the cost of `taskcore run` against the same
//! workload run natively and under `strace -f -e trace=%process`, timed
//! in one run, interleaved (native, run, strace; repeated), medians.
//!
//! Workloads: a shell loop of `/bin/true` (fork + exec + wait, the worst
//! case: nearly every call is a process-management one) and `make -j2` of
//! a generated C project (the compiler's work runs natively). µs per
//! trapped call is the run's extra time over native divided by the calls
//! it served (from `--report`), and µs per stop the same over the ptrace
//! stops it handled (its `stops`, shown by kind in the notes: per
//! iteration for the loop).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use super::harness::{median, progress, Column, Experiment, Fmt, Opts, Report, Row};

/// The experiment.
pub(crate) struct Run;

/// A generated C project of `n` files and its Makefile, in `dir`.
fn generate_project(dir: &Path, n: usize) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let w = |name: &str, text: String| {
        std::fs::write(dir.join(name), text).map_err(|e| format!("{name}: {e}"))
    };
    for i in 0..n {
        w(
            &format!("f{i}.c"),
            format!("int f{i}(int x) {{ int s = 0; for (int k = 0; k < x; k++) s += k * {i}; return s; }}\n"),
        )?;
    }
    w("main.c", "int main(void) { return 0; }\n".into())?;
    w(
        "Makefile",
        "OBJS = $(patsubst %.c,%.o,$(wildcard f*.c))\nprog: main.o $(OBJS)\n\tcc -o $@ $^\n%.o: %.c\n\tcc -O2 -c $< -o $@\nclean:\n\trm -f *.o prog\n".into(),
    )
}

fn have(cmd: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {cmd}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Wall seconds of `argv` (in `dir`), after `prep` (untimed).
fn time(argv: &[String], dir: &Path, prep: Option<&[&str]>) -> Result<f64, String> {
    if let Some(p) = prep {
        Command::new(p[0])
            .args(&p[1..])
            .current_dir(dir)
            .stdout(Stdio::null())
            .status()
            .map_err(|e| format!("{}: {e}", p[0]))?;
    }
    let t = Instant::now();
    let st = Command::new(&argv[0])
        .args(&argv[1..])
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("{}: {e}", argv[0]))?;
    let s = t.elapsed().as_secs_f64();
    if !st.success() {
        return Err(format!("{} failed: {st}", argv.join(" ")));
    }
    Ok(s)
}

/// A workload: its name, its command, an untimed preparation, and a
/// prefix for each of the three timed commands (native, run, strace).
type Workload<'a> = (&'a str, Vec<String>, Option<&'a [&'a str]>, Vec<String>);

/// The 1-minute load average (`/proc/loadavg`), if readable.
fn load_average() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/loadavg").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// What the ratios depend on besides the tool: the machine's load during
/// the runs (a stop wakes the supervisor, and a busy or an idle CPU wakes
/// at very different costs), and, in a KVM guest, how long an idle vCPU
/// polls before it halts (`haltpoll.guest_halt_poll_ns`; a halted vCPU
/// takes tens of µs to wake).
fn machine_note(before: Option<f64>, after: Option<f64>) -> String {
    let fmt = |l: Option<f64>| l.map_or("?".to_string(), |l| format!("{l:.2}"));
    let mut note = format!(
        "machine: load average {} before, {} after",
        fmt(before),
        fmt(after)
    );
    if [before, after].iter().flatten().any(|&l| l > 1.5) {
        note.push_str(" (a loaded machine: the ratios are not reliable)");
    }
    if let Ok(p) = std::fs::read_to_string("/sys/module/haltpoll/parameters/guest_halt_poll_ns") {
        note.push_str(&format!("; guest halt polling {} ns", p.trim()));
    }
    note
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

impl Experiment for Run {
    fn name(&self) -> &'static str {
        "run"
    }

    fn about(&self) -> &'static str {
        "taskcore run vs native vs strace -f: a /bin/true loop (also on one CPU) and make -j2"
    }

    fn run(&self, opts: &Opts) -> Result<Report, String> {
        let me = std::env::current_exe().map_err(|e| e.to_string())?;
        let me = me.to_string_lossy().to_string();
        let dir = std::env::temp_dir().join(format!("taskcore-bench-run-{}", std::process::id()));
        generate_project(&dir, if opts.quick { 16 } else { 48 })?;
        let loops = if opts.quick { 300 } else { 1000 };
        let reps = if opts.quick { 3 } else { 5 };
        let strace = have("strace");
        let loop_cmd = format!("i=0; while [ $i -lt {loops} ]; do /bin/true; i=$((i+1)); done");
        let mut workloads: Vec<Workload> = vec![
            ("true-loop", strings(&["sh", "-c", &loop_cmd]), None, vec![]),
            (
                "make-j2",
                strings(&["make", "-s", "-j2"]),
                Some(&["make", "-s", "clean"][..]),
                vec![],
            ),
        ];
        // The loop again with every process (the supervisor too) on one
        // CPU: each stop's wake-up is then a local switch, with no
        // cross-CPU wake of an idle vCPU, which is most of a stop's cost
        // in a KVM guest without halt polling (`machine_note`).
        if have("taskset") {
            workloads.insert(
                1,
                (
                    "true-loop-1cpu",
                    strings(&["sh", "-c", &loop_cmd]),
                    None,
                    strings(&["taskset", "-c", "0"]),
                ),
            );
        }
        let mut rep = Report::new("run", "#");
        rep.columns = vec![
            Column::new("workload", "workload", Fmt::Text),
            Column::new("native", "native_s", Fmt::Secs),
            Column::new("taskcore run", "run_s", Fmt::Secs),
            Column::new("strace -f", "strace_s", Fmt::Secs),
            Column::new("run/native", "run_ratio", Fmt::Float),
            Column::new("strace/native", "strace_ratio", Fmt::Float),
            Column::new("trapped calls", "calls", Fmt::Int),
            Column::new("µs/trapped call", "us_per_call", Fmt::Float),
            Column::new("ptrace stops", "stops", Fmt::Int),
            Column::new("µs/stop", "us_per_stop", Fmt::Float),
            Column::new("divergences", "divergences", Fmt::Int),
        ];
        rep.series = vec![(
            "run".into(),
            "taskcore run, native and strace -f, medians of interleaved runs".into(),
        )];
        let load_before = load_average();
        for (i, (name, argv, prep, prefix)) in workloads.iter().enumerate() {
            progress(format!("run: {name}, {reps} interleaved repetitions"));
            let report_file: PathBuf = dir.join(format!("{name}.json"));
            let mut run_argv = prefix.clone();
            run_argv.extend([me.clone(), "run".into(), "--report".into()]);
            run_argv.push(report_file.to_string_lossy().into());
            run_argv.push("--".into());
            run_argv.extend(argv.iter().cloned());
            let mut strace_argv = prefix.clone();
            strace_argv.extend(strings(&[
                "strace",
                "-f",
                "-q",
                "-e",
                "trace=%process",
                "-o",
                "/dev/null",
            ]));
            strace_argv.extend(argv.iter().cloned());
            let native_argv: Vec<String> = prefix.iter().chain(argv).cloned().collect();
            let (mut nat, mut run, mut st) = (Vec::new(), Vec::new(), Vec::new());
            for _ in 0..reps {
                nat.push(time(&native_argv, &dir, *prep)?);
                run.push(time(&run_argv, &dir, *prep)?);
                if strace {
                    st.push(time(&strace_argv, &dir, *prep)?);
                }
            }
            let json = std::fs::read_to_string(&report_file).map_err(|e| e.to_string())?;
            let v: serde_json::Value = serde_json::from_str(&json).map_err(|e| e.to_string())?;
            let calls = v["calls_served"].as_u64().unwrap_or(0);
            let divergences = v["divergences"].as_array().map_or(0, Vec::len);
            // The stops by kind (deaths are wait reports, not stops).
            let kinds: Vec<(String, u64)> = v["stops"]
                .as_object()
                .map(|m| {
                    m.iter()
                        .map(|(k, n)| (k.clone(), n.as_u64().unwrap_or(0)))
                        .collect()
                })
                .unwrap_or_default();
            let stops: u64 = kinds
                .iter()
                .filter(|(k, _)| k != "death")
                .map(|(_, n)| n)
                .sum();
            let per = if name.starts_with("true-loop") {
                loops as f64
            } else {
                1.0
            };
            rep.notes.push(format!(
                "{name}: ptrace stops{}: {}",
                if per > 1.0 { " per iteration" } else { "" },
                kinds
                    .iter()
                    .map(|(k, n)| format!("{k} {:.2}", *n as f64 / per))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            let (n, r) = (median(&nat), median(&run));
            let mut row = Row::new("run", i as u64);
            row.set("workload", name.to_string())
                .set("native_s", n)
                .set("run_s", r)
                .set("run_ratio", r / n)
                .set("calls", calls)
                .set(
                    "us_per_call",
                    if calls > 0 {
                        (r - n) * 1e6 / calls as f64
                    } else {
                        f64::NAN
                    },
                )
                .set("divergences", divergences as u64)
                .set("stops", stops)
                .set(
                    "us_per_stop",
                    if stops > 0 {
                        (r - n) * 1e6 / stops as f64
                    } else {
                        f64::NAN
                    },
                );
            if strace {
                let s = median(&st);
                row.set("strace_s", s).set("strace_ratio", s / n);
            }
            rep.rows.push(row);
        }
        if !strace {
            rep.notes
                .push("strace not found: its columns are empty".into());
        }
        rep.notes.push(machine_note(load_before, load_average()));
        rep.notes.push(format!(
            "true-loop: {loops} iterations of /bin/true from sh (true-loop-1cpu: the same, everything on CPU 0 by taskset); make-j2: the generated project in {}",
            dir.display()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        Ok(rep)
    }
}
