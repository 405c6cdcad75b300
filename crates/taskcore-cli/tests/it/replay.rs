//! `taskcore replay` on real recordings: the bundled traces and the held-out
//! ones in `data/traces/extra` must replay with zero mismatches, and every
//! process-lifecycle call they contain must be checked.

use std::path::PathBuf;
use std::process::Command;

use crate::common::repo;

/// The `.strace.gz` files of `data/DIR`, or `None` (skip, said) from a
/// packaged copy of the crate.
fn data(dir: &str, test: &str) -> Option<Vec<PathBuf>> {
    let d = repo::path(&format!("data/{dir}"), test)?;
    let mut v: Vec<PathBuf> = std::fs::read_dir(&d)
        .unwrap_or_else(|e| panic!("{}: {e}", d.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".strace.gz"))
        .collect();
    v.sort();
    Some(v)
}

/// Runs the replay with `--json` and returns the summary object.
fn replay(files: &[PathBuf]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_taskcore"))
        .arg("replay")
        .arg("--json")
        .args(files)
        .output()
        .expect("run taskcore");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last = stdout.lines().last().expect("some output");
    let v: serde_json::Value = serde_json::from_str(last).expect("json on the last line");
    assert_eq!(
        v["mismatches"],
        0,
        "mismatches replaying {files:?}:\n{}",
        stdout
            .lines()
            .filter(|l| l.starts_with("MISMATCH"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(out.status.success(), "exit status {:?}", out.status);
    v
}

#[test]
fn bundled_traces_replay_without_mismatch() {
    let Some(files) = data("traces", "bundled_traces_replay_without_mismatch") else {
        return;
    };
    let v = replay(&files);
    assert!(v["events"].as_u64().unwrap() > 100_000);
    assert!(v["tasks"].as_u64().unwrap() >= 5000);
    assert!(v["checked"].as_u64().unwrap() > 100_000);
    // Every modelled lifecycle call is checked, none skipped.
    let skipped = v["skipped"].as_object().unwrap();
    for name in [
        "clone",
        "clone3",
        "fork",
        "vfork",
        "wait4",
        "waitid",
        "setpgid",
        "setsid",
        "getpgid",
        "getsid",
        "kill",
        "tgkill",
        "rt_sigaction",
    ] {
        assert!(!skipped.contains_key(name), "{name} skipped: {skipped:?}");
    }
    let unchecked = v["unchecked"].as_object().unwrap();
    for name in [
        "clone",
        "wait4",
        "waitid",
        "setpgid",
        "setsid",
        "getpgid",
        "getsid",
        "kill",
        "tgkill",
        "rt_sigaction",
    ] {
        assert!(
            !unchecked.contains_key(name),
            "{name} unchecked: {unchecked:?}"
        );
    }
}

#[test]
fn held_out_traces_replay_without_mismatch() {
    let Some(files) = data("traces/extra", "held_out_traces_replay_without_mismatch") else {
        return;
    };
    assert!(files.len() >= 14);
    let v = replay(&files);
    assert!(v["checked"].as_u64().unwrap() > 40_000);
}

/// The process-API recordings of `data/traces/extra` (Python's and Go's
/// pidfds, `unshare --pid --fork` under `--decode-pids=pidns` (a shell as
/// the namespace's init using its numbers in kill, setpgid and getppid), setpriv
/// between uids and a shell forking past `ulimit -u`): zero mismatches,
/// and each of their process-API calls counted as checked.
#[test]
fn process_api_traces_check_every_listed_call() {
    let Some(dir) = repo::path(
        "data/traces/extra",
        "process_api_traces_check_every_listed_call",
    ) else {
        return;
    };
    let files: Vec<PathBuf> = [
        "python-pidfd",
        "go-exec",
        "unshare-pidns",
        "unshare-pidns-shell",
        "setpriv-ulimit",
    ]
    .iter()
    .map(|n| dir.join(format!("{n}.strace.gz")))
    .collect();
    let v = replay(&files);
    assert_eq!(v["mismatches"].as_u64(), Some(0), "{v}");
    let checked = v["checked_calls"].as_object().unwrap();
    for call in [
        "pidfd_open",
        "pidfd_send_signal",
        "waitid(P_PIDFD)",
        "clone(CLONE_PIDFD)",
        "clone in a pid namespace",
        "kill in a pid namespace",
        "setpgid in a pid namespace",
        "getppid in a pid namespace",
        "unshare",
        "setresuid",
        "setresgid",
        "setgroups",
        "getresuid",
        "prlimit64",
        "clone refused",
    ] {
        assert!(
            checked.get(call).and_then(|n| n.as_u64()).unwrap_or(0) > 0,
            "{call} not checked: {checked:?}"
        );
    }
    let unchecked = v["unchecked"].as_object().unwrap();
    assert!(
        unchecked.keys().all(|k| !k.contains("never created")),
        "{unchecked:?}"
    );
}

#[test]
fn memory_traces_replay_without_mismatch() {
    let Some(files) = data("traces/memory", "memory_traces_replay_without_mismatch") else {
        return;
    };
    assert_eq!(files.len(), 4, "memprog, python-mem, sh-mem, efault");
    let v = replay(&files);
    assert!(v["checked"].as_u64().unwrap() > 2000);
    let skipped = v["skipped"].as_object().unwrap();
    for name in ["mmap", "munmap", "mprotect", "mremap", "brk"] {
        assert!(!skipped.contains_key(name), "{name} skipped: {skipped:?}");
    }
}

/// The `--- SIG` lines of `files`.
fn signal_lines(files: &[PathBuf]) -> u64 {
    files
        .iter()
        .map(|f| {
            let mut text = String::new();
            std::io::Read::read_to_string(
                &mut flate2::read::GzDecoder::new(std::fs::File::open(f).unwrap()),
                &mut text,
            )
            .unwrap();
            text.lines().filter(|l| l.contains(" --- SIG")).count() as u64
        })
        .sum()
}

/// Every `--- SIG` line of `files` was checked, or (a sender the replay
/// does not model) counted apart.
fn every_signal_line_counted(files: &[PathBuf], v: &serde_json::Value) {
    let unchecked = v["unchecked"].as_object().unwrap();
    let apart: u64 = unchecked
        .iter()
        .filter(|(k, _)| k.starts_with("--- signal"))
        .map(|(_, n)| n.as_u64().unwrap())
        .sum();
    assert_eq!(
        v["signals_checked"].as_u64().unwrap() + apart,
        signal_lines(files),
        "{unchecked:?}"
    );
}

/// The bundled workloads recorded again with the wide `%signal` command
/// (`data/traces/wide`): zero mismatches, every `--- SIGxxx` line checked,
/// and no mask or handler-frame call skipped.
#[test]
fn wide_traces_replay_without_mismatch() {
    let Some(files) = data("traces/wide", "wide_traces_replay_without_mismatch") else {
        return;
    };
    assert_eq!(files.len(), 3, "{files:?}");
    let v = replay(&files);
    every_signal_line_counted(&files, &v);
    assert!(v["signals_checked"].as_u64().unwrap() > 4000);
    assert!(v["tasks"].as_u64().unwrap() >= 4900);
    let skipped = v["skipped"].as_object().unwrap();
    for name in [
        "rt_sigprocmask",
        "rt_sigreturn",
        "rt_sigaction",
        "wait4",
        "clone3",
    ] {
        assert!(!skipped.contains_key(name), "{name} skipped: {skipped:?}");
    }
}

/// The `-sig` re-recordings of `data/traces/extra` (the held-out workloads
/// with the wide command): every `--- SIGxxx` line checked or counted apart.
#[test]
fn held_out_sig_recordings_check_every_signal_line() {
    let Some(files) = data(
        "traces/extra",
        "held_out_sig_recordings_check_every_signal_line",
    ) else {
        return;
    };
    let files: Vec<PathBuf> = files
        .into_iter()
        .filter(|p| p.to_string_lossy().ends_with("-sig.strace.gz"))
        .collect();
    assert_eq!(files.len(), 6, "{files:?}");
    let v = replay(&files);
    every_signal_line_counted(&files, &v);
    assert!(v["signals_checked"].as_u64().unwrap() > 2500);
}

/// The signal recordings (`data/traces/signal`, the wider `%signal`
/// command) replay with zero mismatches, and every `--- SIGxxx` line is
/// checked or (a sender the replay does not model) counted apart.
#[test]
fn signal_traces_replay_without_mismatch() {
    let Some(files) = data("traces/signal", "signal_traces_replay_without_mismatch") else {
        return;
    };
    assert_eq!(files.len(), 8, "{files:?}");
    let v = replay(&files);
    every_signal_line_counted(&files, &v);
    assert!(v["signals_checked"].as_u64().unwrap() >= 70);
    let skipped = v["skipped"].as_object().unwrap();
    for name in [
        "rt_sigprocmask",
        "rt_sigreturn",
        "rt_sigsuspend",
        "rt_sigtimedwait",
        "pause",
        "ptrace",
        "restart_syscall",
    ] {
        assert!(!skipped.contains_key(name), "{name} skipped: {skipped:?}");
    }
}

/// The recordings made with `strace -q` and `strace -qq` (`data/traces/qq`):
/// zero mismatches; the `-qq` ones are recognised as dropping `+++ exited`
/// lines, the background job's ignored SIGINT/SIGQUIT are learned, and so
/// is what the recordings cannot show.
#[test]
fn quiet_traces_replay_without_mismatch() {
    let Some(files) = data("traces/qq", "quiet_traces_replay_without_mismatch") else {
        return;
    };
    assert!(files.len() >= 26, "{files:?}");
    let v = replay(&files);
    for f in v["files"].as_array().unwrap() {
        let name = f["file"].as_str().unwrap();
        let want = if name.ends_with("-qq.strace.gz") {
            "dropped"
        } else {
            "printed"
        };
        assert_eq!(f["exit_lines"], want, "{name}");
    }
    assert!(v["learned"]["rt_sigaction old action"].as_u64().unwrap() >= 4);
    // What the recordings do not show: the signals signalfd-late's and
    // signalfd's reads consumed, the namespace of pidns-comments, the
    // forks nproc's RLIMIT_NPROC refused.
    let learned = |k: &str| v["learned"][k].as_u64().unwrap_or(0);
    assert!(learned("signal consumed outside the trace (no --- line once unblocked)") >= 8);
    assert_eq!(learned("pid namespace (--decode-pids=pidns comments)"), 2);
    let refused = v["unchecked"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(k, _)| k.starts_with("clone (refused over"))
        .map(|(_, n)| n.as_u64().unwrap())
        .sum::<u64>();
    assert_eq!(refused, 6);
}

/// Recordings made with `strace -ff` (`data/traces/ff`: one file per task,
/// `NAME/t.TID.gz`), with `-q` and with `-qq`: each directory's files,
/// named by their prefix `t`, are merged by timestamp into one trace,
/// `t.*`, which replays with zero mismatches.
#[test]
fn per_task_recordings_replay_without_mismatch() {
    let Some(root) = repo::path(
        "data/traces/ff",
        "per_task_recordings_replay_without_mismatch",
    ) else {
        return;
    };
    let mut sets: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() && p.file_name().unwrap() != "open")
        .map(|d| d.join("t"))
        .collect();
    sets.sort();
    assert!(sets.len() >= 8, "{sets:?}");
    let v = replay(&sets);
    let files = v["files"].as_array().unwrap();
    assert_eq!(
        files.len(),
        sets.len(),
        "one trace per recording: {files:?}"
    );
    for f in files {
        let name = f["file"].as_str().unwrap();
        assert!(name.ends_with("/t.*"), "{name}");
        let want = if name.contains("-qq/") {
            "dropped"
        } else {
            "printed"
        };
        assert_eq!(f["exit_lines"], want, "{name}");
        assert!(f["checked"].as_u64().unwrap() > 100, "{name}: {f}");
    }
}

/// CPython's own process, signal, credential and pid-namespace tests
/// (`data/traces/suite`), recorded with `-q` and `-qq`: zero mismatches;
/// signals sent while ignored are kept queued by the core (every task is
/// the emulated strace's tracee: `sig_ignored()`'s tracee exception) and
/// their `---` lines, taken with the handler set meanwhile, are checked
/// from that queue (`--- signal sent while ignored, kept by tracing`),
/// and the handler decisions another thread's `rt_sigaction` made after a
/// `---` line are taken from the thread's next lines.
#[test]
fn cpython_test_suite_replays_without_mismatch() {
    let Some(files) = data(
        "traces/suite",
        "cpython_test_suite_replays_without_mismatch",
    ) else {
        return;
    };
    assert_eq!(files.len(), 8, "{files:?}");
    let v = replay(&files);
    for f in v["files"].as_array().unwrap() {
        let name = f["file"].as_str().unwrap();
        let want = if name.ends_with("-qq.strace.gz") {
            "dropped"
        } else {
            "printed"
        };
        assert_eq!(f["exit_lines"], want, "{name}");
    }
    let checked = |k: &str| v["checked_calls"][k].as_u64().unwrap_or(0);
    assert!(checked("--- signal sent while ignored, kept by tracing") > 0);
    assert_eq!(checked("unshare"), 2);
    assert!(checked("clone in a pid namespace") > 0);
    assert!(checked("setresuid") > 0 && checked("setgroups") > 0 && checked("setreuid") > 0);
    let learned = |p: &str| {
        v["learned"]
            .as_object()
            .unwrap()
            .iter()
            .filter(|(k, _)| k.starts_with(p))
            .map(|(_, n)| n.as_u64().unwrap())
            .sum::<u64>()
    };
    assert!(learned("handler not run") > 0);
    assert!(learned("handler run") > 0);
}

/// Records fresh random scenarios on this machine's kernel with strace and
/// replays them: the strongest check the replay has. Needs strace and
/// python3; run with `cargo test -p taskcore-cli -- --ignored fresh`.
#[test]
#[ignore]
fn fresh_random_scenarios_replay_without_mismatch() {
    let Some(script) = repo::path("data/randscen.py", "fresh_random_scenarios") else {
        return;
    };
    let tmp = std::env::temp_dir().join(format!("taskcore-fresh-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let seed0: u64 = std::env::var("FRESH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    let mut files = Vec::new();
    for seed in seed0..seed0 + 4 {
        let f = tmp.join(format!("rs{seed}.strace"));
        let st = Command::new("timeout")
            .args(["60", "strace", "-f", "-q", "-ttt", "-e"])
            // The traces README's wider command (with %signal and %creds).
            .arg("trace=%process,%signal,%creds,setpgid,setsid,getpgid,getsid,prctl,ptrace,pidfd_open,pidfd_send_signal,unshare,setns,prlimit64,setrlimit,getrlimit")
            .arg("-o")
            .arg(&f)
            .arg("python3")
            .arg(&script)
            .arg(seed.to_string())
            .arg("40")
            .status();
        match st {
            Ok(s) if s.success() => files.push(f),
            other => eprintln!("skipping seed {seed}: {other:?}"),
        }
    }
    if files.is_empty() {
        eprintln!("skipped: strace or python3 unavailable");
        return;
    }
    replay(&files);
}

#[test]
fn a_recording_whose_pids_wrap_replays_without_mismatch() {
    let Some(f) = repo::path(
        "data/traces/extra/loop-wrap.strace.gz",
        "a_recording_whose_pids_wrap_replays_without_mismatch",
    ) else {
        return;
    };
    // The recording wraps: a clone returns a pid below the root's.
    let t = taskcore_strace::read_trace(&f).expect("read");
    let root = t.events[0].pid;
    let wrapped = t.events.iter().any(|e| match &e.kind {
        taskcore_strace::EventKind::Syscall(s) => {
            s.call.creates_task()
                && matches!(s.ret, taskcore_strace::Ret::Val(v) if v < i64::from(root))
        }
        _ => false,
    });
    assert!(wrapped, "the trace does not wrap");
    let v = replay(&[f]);
    assert!(v["tasks"].as_u64().unwrap() > 1500);
    assert!(v["checked"].as_u64().unwrap() > 15_000);
}
