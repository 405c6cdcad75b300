//! `scale`: a million processes, then a million threads in one process.
//!
//! Scenario `processes`: N forks of init (`pid_max` 4,194,304), then each
//! exits (`exit_group`), then init reaps them all (`wait4(-1)`).
//! Scenario `threads`: init forks one process, which clones N threads
//! (`CloneArgs::thread()`); every thread but the leader calls `exit` (and
//! is released at once, as Linux autoreaps non-leader threads), then the
//! leader exits and init reaps the process.
//!
//! Each (scenario, N) runs in a fresh process (`taskcore bench scale
//! --scale-child SCENARIO N`, hidden), which reports seconds per phase and
//! its peak RSS (`VmHWM`) minus its RSS before the scenario (`VmRSS` with
//! an empty [`Kernel`]): bytes per task = that difference / N. The child
//! drains the core's notifications every 4096 operations, as a real caller
//! would consume them.
//!
//! Rows: series `processes` and `threads`, size N; `taskcore_ns` = the
//! whole scenario (create + exit + reap) per task, wall clock; extra fields
//! give each phase in wall seconds, the total in CPU seconds (thread CPU
//! time, which a shared machine does not inflate) and the peak RSS per
//! task.

use std::process::{Command, ExitCode};
use std::time::Instant;

use serde_json::{json, Value};
use taskcore::{CloneArgs, Config, Kernel, TaskId, WaitOutcome};

use super::harness::{progress, Column, Experiment, Fmt, Opts, PlotSpec, Report, Row};

/// The `scale` experiment.
#[derive(Debug)]
pub(crate) struct Scale;

const PID_MAX: u32 = 4 * 1024 * 1024;
const SCENARIOS: [&str; 2] = ["processes", "threads"];

/// A field of /proc/self/status in KiB (`VmRSS`, `VmHWM`).
fn status_kb(field: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    s.lines()
        .find(|l| l.starts_with(field) && l[field.len()..].starts_with(':'))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
}

/// CPU time of this thread in seconds (`CLOCK_THREAD_CPUTIME_ID`): unlike
/// wall time, it does not count time spent waiting for a shared CPU.
fn cpu_now() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid out pointer for clock_gettime.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// Wall and CPU time of one phase.
struct Phase {
    wall: Instant,
    cpu: f64,
}

impl Phase {
    fn start() -> Phase {
        Phase {
            wall: Instant::now(),
            cpu: cpu_now(),
        }
    }

    /// `(name, wall seconds, cpu seconds)`.
    fn end(self, name: &'static str) -> (&'static str, f64, f64) {
        (
            name,
            self.wall.elapsed().as_secs_f64(),
            cpu_now() - self.cpu,
        )
    }
}

fn drain(k: &mut Kernel, ops: u64) {
    if ops.is_multiple_of(4096) {
        drop(k.take_notifications());
    }
}

/// Runs one scenario; returns each phase's wall and CPU seconds.
fn scenario(name: &str, n: u64) -> Result<Vec<(&'static str, f64, f64)>, String> {
    fn e(what: &'static str) -> impl Fn(taskcore::Errno) -> String {
        move |err| format!("{what}: {err:?}")
    }
    let mut k = Kernel::new(Config {
        pid_max: PID_MAX,
        ..Config::default()
    })
    .map_err(e("Kernel::new"))?;
    let init = k.init_task().map_err(e("init"))?;
    let mut phases = Vec::new();
    match name {
        "processes" => {
            let t = Phase::start();
            let mut kids: Vec<TaskId> = Vec::with_capacity(n as usize);
            for i in 0..n {
                kids.push(k.fork(init).map_err(e("fork"))?);
                drain(&mut k, i);
            }
            phases.push(t.end("create"));
            let t = Phase::start();
            for (i, &c) in kids.iter().enumerate() {
                k.exit_group(c, 0).map_err(e("exit_group"))?;
                drain(&mut k, i as u64);
            }
            phases.push(t.end("exit"));
            let t = Phase::start();
            for i in 0..n {
                match k.wait4(init, -1, 0).map_err(e("wait4"))? {
                    WaitOutcome::Reported(_) => {}
                    other => return Err(format!("wait4: {other:?}")),
                }
                drain(&mut k, i);
            }
            phases.push(t.end("reap"));
        }
        "threads" => {
            let t = Phase::start();
            let p = k.fork(init).map_err(e("fork"))?;
            let mut threads: Vec<TaskId> = Vec::with_capacity(n as usize);
            let args = CloneArgs::thread();
            for i in 0..n {
                threads.push(k.clone(p, &args).map_err(e("clone"))?);
                drain(&mut k, i);
            }
            phases.push(t.end("create"));
            let t = Phase::start();
            for (i, &th) in threads.iter().enumerate() {
                k.exit(th, 0).map_err(e("exit"))?;
                drain(&mut k, i as u64);
            }
            k.exit(p, 0).map_err(e("exit leader"))?;
            phases.push(t.end("exit"));
            let t = Phase::start();
            let pid = k.pid_vnr(init, p).map_err(e("pid_vnr"))?;
            match k.wait4(init, pid, 0).map_err(e("wait4"))? {
                WaitOutcome::Reported(_) => {}
                other => return Err(format!("wait4: {other:?}")),
            }
            phases.push(t.end("reap"));
        }
        _ => return Err(format!("unknown scenario {name}")),
    }
    drop(k.take_notifications());
    if k.nr_tasks() != 1 {
        return Err(format!("{} tasks left after reaping", k.nr_tasks()));
    }
    Ok(phases)
}

/// Entry point of the child process: prints one JSON line.
pub(crate) fn child_main(name: &str, n: &str) -> ExitCode {
    let Ok(n) = n.parse::<u64>() else {
        eprintln!("scale child: bad N {n}");
        return ExitCode::from(2);
    };
    let base = status_kb("VmRSS").unwrap_or(0);
    match scenario(name, n) {
        Ok(phases) => {
            let hwm = status_kb("VmHWM").unwrap_or(0);
            let ph: serde_json::Map<String, Value> = phases
                .iter()
                .map(|(k, w, c)| (k.to_string(), json!({"wall_s": w, "cpu_s": c})))
                .collect();
            println!(
                "{}",
                json!({"scenario": name, "n": n, "phases": ph, "base_rss_kb": base, "hwm_kb": hwm})
            );
            ExitCode::SUCCESS
        }
        Err(msg) => {
            eprintln!("scale child {name} {n}: {msg}");
            ExitCode::FAILURE
        }
    }
}

/// Runs a scenario in a fresh copy of this executable.
fn spawn(name: &str, n: u64) -> Result<Value, String> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let out = Command::new(exe)
        .args(["bench", "scale", "--scale-child", name, &n.to_string()])
        .output()
        .map_err(|e| format!("spawn: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "scale child {name} {n} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().last().ok_or("scale child printed nothing")?;
    serde_json::from_str(line).map_err(|e| format!("scale child output {line:?}: {e}"))
}

impl Experiment for Scale {
    fn name(&self) -> &'static str {
        "scale"
    }

    fn about(&self) -> &'static str {
        "1M processes, then 1M threads: create, exit, reap; seconds per phase and peak RSS per task"
    }

    fn run(&self, opts: &Opts) -> Result<Report, String> {
        let sizes: &[u64] = if opts.quick {
            &[100_000, 1_000_000]
        } else {
            &[10_000, 100_000, 1_000_000]
        };
        let mut rep = Report::new("scale", "N tasks");
        rep.columns = vec![
            Column::new("create", "create_s", Fmt::Secs),
            Column::new("exit", "exit_s", Fmt::Secs),
            Column::new("reap", "reap_s", Fmt::Secs),
            Column::new("total", "total_s", Fmt::Secs),
            Column::new("total CPU", "total_cpu_s", Fmt::Secs),
            Column::new("ns per task", "taskcore_ns", Fmt::Ns),
            Column::new("peak RSS per task", "rss_bytes_per_task", Fmt::Bytes),
        ];
        for s in SCENARIOS {
            let title = match s {
                "processes" => "N forks of init, each exits, init reaps all (wait4(-1))",
                _ => "one process clones N threads; each exits; init reaps the process",
            };
            rep.series.push((s.to_string(), title.to_string()));
        }
        for s in SCENARIOS {
            for &n in sizes {
                let v = spawn(s, n)?;
                let phase = |p: &str, k: &str| v["phases"][p][k].as_f64().unwrap_or(f64::NAN);
                let (c, x, r) = (
                    phase("create", "wall_s"),
                    phase("exit", "wall_s"),
                    phase("reap", "wall_s"),
                );
                let total = c + x + r;
                let cpu =
                    phase("create", "cpu_s") + phase("exit", "cpu_s") + phase("reap", "cpu_s");
                let hwm = v["hwm_kb"].as_u64().unwrap_or(0);
                let base = v["base_rss_kb"].as_u64().unwrap_or(0);
                let per_task = (hwm.saturating_sub(base) * 1024) as f64 / n as f64;
                let mut row = Row::new(s, n);
                row.set("taskcore_ns", total * 1e9 / n as f64)
                    .set("create_s", c)
                    .set("exit_s", x)
                    .set("reap_s", r)
                    .set("total_s", total)
                    .set("total_cpu_s", cpu)
                    .set("rss_bytes_per_task", per_task)
                    .set("peak_rss_kb", hwm)
                    .set("base_rss_kb", base);
                progress(format!(
                    "scale {s} N={n}: create {c:.3} s, exit {x:.3} s, reap {r:.3} s, {per_task:.0} B/task"
                ));
                rep.rows.push(row);
            }
        }
        rep.plots.push(PlotSpec {
            file: "scale".into(),
            title: "scale: ns per task (create + exit + reap)".into(),
            x_label: "N tasks".into(),
            y_label: "ns per task".into(),
            lines: SCENARIOS
                .iter()
                .map(|s| (s.to_string(), s.to_string(), "taskcore_ns".to_string()))
                .collect(),
        });
        if let Some(r) = rep
            .rows
            .iter()
            .find(|r| r.series == "processes" && r.size == 1_000_000)
        {
            let total = r.get_f64("total_s").unwrap_or(f64::NAN);
            let cpu = r.get_f64("total_cpu_s").unwrap_or(f64::NAN);
            let rss = r.get_f64("rss_bytes_per_task").unwrap_or(f64::NAN);
            rep.notes.push(format!(
                "goal scale: 1M processes created and reaped in {total:.3} s wall, {cpu:.3} s CPU \
                 (goal < 1 s: {}), peak RSS {rss:.0} B per task (goal < 512: {})",
                if cpu < 1.0 { "met" } else { "MISSED" },
                if rss < 512.0 { "met" } else { "MISSED" }
            ));
            rep.notes.push(format!(
                "goal scale (issue 13): 1M processes in {cpu:.3} s CPU (goal < 0.5 s: {}), \
                 {rss:.0} B peak RSS per process (goal < 320 B: {})",
                if cpu < 0.5 { "met" } else { "MISSED" },
                if rss < 320.0 { "met" } else { "MISSED" }
            ));
        }
        if let Some(r) = rep
            .rows
            .iter()
            .find(|r| r.series == "threads" && r.size == 1_000_000)
        {
            let cpu = r.get_f64("total_cpu_s").unwrap_or(f64::NAN);
            rep.notes.push(format!(
                "goal scale (issue 13): 1M threads in {cpu:.3} s CPU (goal < 0.15 s: {})",
                if cpu < 0.15 { "met" } else { "MISSED" }
            ));
        }
        rep.notes.push(
            "Each scenario runs in a fresh process; RSS per task = (VmHWM at the end - VmRSS \
             before the scenario) / N, so it includes every transient (vector doubling, the \
             test's own handle vector of 8 bytes per task)."
                .into(),
        );
        Ok(rep)
    }
}
