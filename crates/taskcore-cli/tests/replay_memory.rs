//! Replay memory does not grow with the trace: peak RSS of `taskcore
//! replay` on a generated loop trace 10x longer stays within a bound of the
//! short one's.
//!
//! A test binary of its own (not a module of `tests/it`): the child's
//! `ru_maxrss` includes its parent's peak RSS at the child's exec
//! (`exec_mmap()` keeps the old mm's high-water mark), so the parent must be
//! small and idle.

use std::io::Write;
use std::path::Path;
use std::process::Command;

/// A loop trace of `n` processes (at most 50 alive; pids wrap at 32,768).
fn write_loop(n: u32, path: &Path) {
    let f = std::fs::File::create(path).unwrap();
    let mut w = std::io::BufWriter::new(flate2::write::GzEncoder::new(
        f,
        flate2::Compression::fast(),
    ));
    let (root, mut pid, mut t) = (1000, 1000, 1.0f64);
    let mut live = Vec::new();
    let mut line = |w: &mut dyn Write, p: i32, s: &str| {
        t += 1e-5;
        writeln!(w, "{p} {t:.6} {s}").unwrap();
    };
    for i in 1..=n {
        pid = if pid + 1 >= 32768 { 300 } else { pid + 1 };
        if pid == root {
            pid += 1;
        }
        line(
            &mut w,
            root,
            &format!("clone(child_stack=NULL, flags=SIGCHLD) = {pid}"),
        );
        line(&mut w, pid, "exit_group(0) = ?");
        line(&mut w, pid, "+++ exited with 0 +++");
        live.push(pid);
        if i % 50 == 0 {
            for c in live.drain(..) {
                line(
                    &mut w,
                    root,
                    &format!("wait4(-1, [{{WIFEXITED(s) && WEXITSTATUS(s) == 0}}], 0, NULL) = {c}"),
                );
            }
        }
    }
    w.into_inner().unwrap().finish().unwrap();
}

/// Peak RSS (bytes) of `taskcore replay FILE`, which must pass.
// Reaped by libc::wait4 below, for its rusage.
#[allow(clippy::zombie_processes)]
fn peak_rss(file: &Path) -> u64 {
    let child = Command::new(env!("CARGO_BIN_EXE_taskcore"))
        .args(["replay", "--jobs", "1"])
        .arg(file)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: zeroed rusage is valid; `pid` is our unreaped child.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above; the pointers are valid for the call.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    assert_eq!(r, pid);
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "replay failed: {status:#x}"
    );
    ru.ru_maxrss as u64 * 1024
}

#[test]
fn peak_rss_does_not_grow_with_trace_length() {
    let dir = std::env::temp_dir().join(format!("taskcore-replay-mem-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (short, long) = (dir.join("short.strace.gz"), dir.join("long.strace.gz"));
    write_loop(10_000, &short);
    write_loop(100_000, &long);
    let (a, b) = (peak_rss(&short), peak_rss(&long));
    std::fs::remove_dir_all(&dir).unwrap();
    // 10x the processes and events: within 1.5x the memory (plus 4 MiB of
    // allocator noise), far from the 10x a per-event or per-task cost gives.
    assert!(b < a + a / 2 + (4 << 20), "short {a} B, long {b} B");
}

/// A million recorded processes alive at once is replayed (not refused,
/// not aborted): 15.8 s of CPU and 3.0 GB here (2026-12-02). Long: `cargo test --release --
/// --ignored million`.
#[test]
#[ignore]
fn a_million_live_recorded_pids_replay() {
    let path =
        std::env::temp_dir().join(format!("taskcore-live1m-{}.strace.gz", std::process::id()));
    let f = std::fs::File::create(&path).unwrap();
    let mut w = std::io::BufWriter::new(flate2::write::GzEncoder::new(
        f,
        flate2::Compression::fast(),
    ));
    let n = 1_000_000;
    let mut t = 1.0f64;
    let mut line = |w: &mut dyn Write, s: String| {
        t += 1e-5;
        writeln!(w, "{}", s.replacen("TS", &format!("{t:.6}"), 1)).unwrap();
    };
    for i in 0..n {
        line(
            &mut w,
            format!(
                "100 TS clone(child_stack=NULL, flags=SIGCHLD) = {}",
                1000 + i
            ),
        );
    }
    for i in 0..n {
        line(&mut w, format!("{} TS exit_group(0) = ?", 1000 + i));
        line(&mut w, format!("{} TS +++ exited with 0 +++", 1000 + i));
    }
    for i in 0..n {
        line(
            &mut w,
            format!(
                "100 TS wait4(-1, [{{WIFEXITED(s) && WEXITSTATUS(s) == 0}}], 0, NULL) = {}",
                1000 + i
            ),
        );
    }
    w.into_inner().unwrap().finish().unwrap();
    let rss = peak_rss(&path);
    std::fs::remove_file(&path).unwrap();
    eprintln!("1M live recorded pids: peak RSS {} MB", rss >> 20);
}
