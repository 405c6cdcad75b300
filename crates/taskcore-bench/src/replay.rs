//! `replay`: `taskcore replay` of loop-shaped traces against their length.
//!
//! The loop: `bash -c 'for i in $(seq N); do /bin/true & if (( i % 50 ==
//! 0 )); then wait; fi; done; wait'`: N processes created in all, at most
//! ~50 alive at once. A streaming replay costs the same per event and the
//! same memory whatever N is.
//!
//! - Series `loop`: real recordings (strace with the traces README's wider
//!   command), N = 5,000, 20,000, 100,000 (5,000 and 20,000 with
//!   `--quick`). They live in `$TASKCORE_LOOP_TRACES` (default
//!   `target/loop-traces`) as `loop-N.strace.gz`; a missing one is recorded
//!   there first when strace is available (about 2 ms per process: 4
//!   minutes for 100,000; the time is printed). At 100,000 the recorded
//!   pids wrap past this machine's pid_max three times.
//! - Series `generated`: the same shape written by [`generate`] (clone,
//!   execve, exit_group, `+++`, SIGCHLD, a `wait4` per child every 50;
//!   pids wrap at 32,768), N = 5,000, 100,000 and 1,000,000.
//!
//! Each point is one `taskcore replay --json --jobs 1 FILE` in a fresh
//! process: `replay_ns_per_event` is its wall time over the events it
//! replayed, `cpu_ns_per_event` its CPU time (both threads: the reader and
//! the replay), `peak_rss_bytes` its peak RSS (`wait4`'s rusage).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use super::harness::{progress, Column, Experiment, Fmt, Opts, PlotSpec, Report, Row};

/// The `replay` experiment.
#[derive(Debug)]
pub(crate) struct Replay;

/// Where loop traces are kept.
fn trace_dir() -> PathBuf {
    std::env::var_os("TASKCORE_LOOP_TRACES")
        .map_or_else(|| PathBuf::from("target/loop-traces"), PathBuf::from)
}

/// Records `loop-N.strace.gz` with strace.
fn record(n: u64, out: &Path) -> Result<(), String> {
    let t = Instant::now();
    progress(format!(
        "recording the {n}-process loop with strace into {} ...",
        out.display()
    ));
    let status = Command::new("strace")
        .args([
            "-f",
            "-q",
            "-ttt",
            "-e",
            "trace=%process,%signal,%creds,setpgid,setsid,getpgid,getsid,prctl,ptrace,pidfd_open,pidfd_send_signal,unshare,setns,prlimit64,setrlimit,getrlimit",
            "-o",
            &format!("|gzip -1 > {}", out.display()),
            "bash",
            "-c",
            &format!(
                "for i in $(seq {n}); do /bin/true & if (( i % 50 == 0 )); then wait; fi; done; wait"
            ),
        ])
        .status()
        .map_err(|e| format!("strace: {e}"))?;
    if !status.success() {
        return Err(format!("strace exited with {status}"));
    }
    progress(format!(
        "recorded {n} processes in {:.0} s",
        t.elapsed().as_secs_f64()
    ));
    Ok(())
}

/// Writes a loop trace of `n` processes to `out` (gzip): the shape of the
/// recorded loop, with pids from 1,001 wrapping at 32,768 to 300.
pub(crate) fn generate(n: u64, out: &Path) -> Result<(), String> {
    let f = std::fs::File::create(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let mut w = std::io::BufWriter::new(flate2::write::GzEncoder::new(
        f,
        flate2::Compression::fast(),
    ));
    let root = 1000;
    let mut pid = root;
    let mut ts = 1_700_000_000.0_f64;
    let mut batch = Vec::with_capacity(50);
    let mut line = |w: &mut dyn Write, pid: i32, text: &str| -> std::io::Result<()> {
        ts += 0.000_01;
        writeln!(w, "{pid} {ts:.6} {text}")
    };
    let io = |e: std::io::Error| format!("{}: {e}", out.display());
    line(
        &mut w,
        root,
        "execve(\"/usr/bin/bash\", [\"bash\", \"-c\", \"...\"], 0x7ffd /* 20 vars */) = 0",
    )
    .map_err(io)?;
    for i in 1..=n {
        pid += 1;
        if pid >= 32768 {
            pid = 300;
        }
        if pid == root {
            // In use: Linux's allocator skips it.
            pid += 1;
        }
        line(&mut w, root, &format!("clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f5e) = {pid}")).map_err(io)?;
        line(
            &mut w,
            pid,
            "execve(\"/bin/true\", [\"/bin/true\"], 0x55d0 /* 20 vars */) = 0",
        )
        .map_err(io)?;
        line(&mut w, pid, "exit_group(0) = ?").map_err(io)?;
        line(&mut w, pid, "+++ exited with 0 +++").map_err(io)?;
        line(&mut w, root, &format!("--- SIGCHLD {{si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid={pid}, si_uid=0, si_status=0, si_utime=0, si_stime=0}} ---")).map_err(io)?;
        batch.push(pid);
        if i % 50 == 0 || i == n {
            for &c in &batch {
                line(
                    &mut w,
                    root,
                    &format!("wait4(-1, [{{WIFEXITED(s) && WEXITSTATUS(s) == 0}}], 0, NULL) = {c}"),
                )
                .map_err(io)?;
            }
            batch.clear();
            line(
                &mut w,
                root,
                "wait4(-1, 0x7ffd, WNOHANG, NULL) = -1 ECHILD (No child processes)",
            )
            .map_err(io)?;
        }
    }
    line(&mut w, root, "exit_group(0) = ?").map_err(io)?;
    line(&mut w, root, "+++ exited with 0 +++").map_err(io)?;
    w.into_inner()
        .map_err(|e| format!("{}: {e}", out.display()))?
        .finish()
        .map_err(io)?;
    Ok(())
}

/// One replay in a fresh process: (wall s, cpu s, peak RSS bytes, JSON).
fn measure(file: &Path) -> Result<(f64, f64, u64, serde_json::Value), String> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let t = Instant::now();
    let child = Command::new(exe)
        .args(["replay", "--json", "--jobs", "1"])
        .arg(file)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| format!("spawn: {e}"))?;
    let pid = child.id() as libc::pid_t;
    let mut stdout = child.stdout.ok_or("no stdout")?;
    let mut text = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut text).map_err(|e| e.to_string())?;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value; wait4 fills it.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our child, not yet reaped; the pointers are valid.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    let wall = t.elapsed().as_secs_f64();
    if r != pid {
        return Err(format!("wait4: {}", std::io::Error::last_os_error()));
    }
    let cpu = ru.ru_utime.tv_sec as f64
        + ru.ru_utime.tv_usec as f64 * 1e-6
        + ru.ru_stime.tv_sec as f64
        + ru.ru_stime.tv_usec as f64 * 1e-6;
    let line = text.lines().last().ok_or("replay printed nothing")?;
    let v: serde_json::Value =
        serde_json::from_str(line).map_err(|e| format!("replay output {line:?}: {e}"))?;
    Ok((wall, cpu, ru.ru_maxrss as u64 * 1024, v))
}

impl Experiment for Replay {
    fn name(&self) -> &'static str {
        "replay"
    }

    fn about(&self) -> &'static str {
        "taskcore replay of loop traces (5k..1M processes): ns per event and peak RSS against N"
    }

    fn run(&self, opts: &Opts) -> Result<Report, String> {
        let dir = trace_dir();
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let recorded: &[u64] = if opts.quick {
            &[5_000, 20_000]
        } else {
            &[5_000, 20_000, 100_000]
        };
        let generated: &[u64] = if opts.quick {
            &[5_000, 100_000]
        } else {
            &[5_000, 100_000, 1_000_000]
        };
        let mut rep = Report::new("replay", "N processes");
        rep.columns = vec![
            Column::new("events", "events", Fmt::Int),
            Column::new("mismatches", "mismatches", Fmt::Int),
            Column::new("wall", "wall_s", Fmt::Secs),
            Column::new("ns/event (wall)", "replay_ns_per_event", Fmt::Ns),
            Column::new("ns/event (CPU)", "cpu_ns_per_event", Fmt::Ns),
            Column::new("MB/s", "mb_per_s", Fmt::Float),
            Column::new("peak RSS", "peak_rss_bytes", Fmt::Bytes),
        ];
        rep.series = vec![
            (
                "loop".into(),
                "recorded loop traces (strace -f, this machine)".into(),
            ),
            (
                "generated".into(),
                "generated loop traces (same shape)".into(),
            ),
        ];
        let mut points: Vec<(&str, u64, PathBuf)> = Vec::new();
        for &n in recorded {
            let f = dir.join(format!("loop-{n}.strace.gz"));
            if !f.exists() {
                if let Err(e) = record(n, &f) {
                    let _ = std::fs::remove_file(&f);
                    rep.notes.push(format!("loop {n}: not recorded ({e})"));
                    continue;
                }
            }
            points.push(("loop", n, f));
        }
        for &n in generated {
            let f = dir.join(format!("gen-{n}.strace.gz"));
            if !f.exists() {
                let t = Instant::now();
                generate(n, &f)?;
                progress(format!(
                    "generated {n} processes in {:.1} s",
                    t.elapsed().as_secs_f64()
                ));
            }
            points.push(("generated", n, f));
        }
        for (series, n, f) in points {
            progress(format!("replaying {}", f.display()));
            let (wall, cpu, rss, v) = measure(&f)?;
            let events = v["events"].as_u64().unwrap_or(0);
            let bytes = text_bytes(&f);
            let mut row = Row::new(series, n);
            row.set("events", events)
                .set("mismatches", v["mismatches"].as_u64().unwrap_or(u64::MAX))
                .set("wall_s", wall)
                .set("replay_ns_per_event", wall * 1e9 / events.max(1) as f64)
                .set("cpu_ns_per_event", cpu * 1e9 / events.max(1) as f64)
                .set("mb_per_s", bytes as f64 / 1e6 / wall)
                .set("peak_rss_bytes", rss);
            rep.rows.push(row);
        }
        rep.plots.push(PlotSpec {
            file: "replay".into(),
            title: "replay of loop traces: ns per event against N".into(),
            x_label: "N processes".into(),
            y_label: "ns per event (wall)".into(),
            lines: ["loop", "generated"]
                .iter()
                .map(|s| {
                    (
                        s.to_string(),
                        s.to_string(),
                        "replay_ns_per_event".to_string(),
                    )
                })
                .collect(),
        });
        rep.notes.push(
            "one `taskcore replay --jobs 1` per point in a fresh process; MB/s is uncompressed strace text over wall time"
                .into(),
        );
        Ok(rep)
    }
}

/// Uncompressed size of a trace file.
fn text_bytes(f: &Path) -> u64 {
    let Ok(file) = std::fs::File::open(f) else {
        return 0;
    };
    let mut d = flate2::read::MultiGzDecoder::new(std::io::BufReader::new(file));
    std::io::copy(&mut d, &mut std::io::sink()).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_generated_loop_replays_clean_and_wraps() {
        let f = std::env::temp_dir().join(format!("taskcore-gen-{}.strace.gz", std::process::id()));
        super::generate(33_000, &f).unwrap();
        let rep = taskcore_replay::replay_file(&f, taskcore_replay::Options::default()).unwrap();
        std::fs::remove_file(&f).unwrap();
        assert!(
            rep.summary.mismatches.is_empty(),
            "{:?}",
            &rep.summary.mismatches[..1]
        );
        assert_eq!(rep.summary.stats.tasks, 33_001);
        assert!(rep.summary.stats.peak_live <= 3 + 1 + 50);
    }
}
