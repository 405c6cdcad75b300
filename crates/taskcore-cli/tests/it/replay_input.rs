//! `taskcore replay`'s exit statuses: 0 every check passed, 1 mismatches,
//! 2 unusable input. Input that is not a good trace is never a pass.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::repo;

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("taskcore-replay-input-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

fn run(args: &[&Path]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_taskcore"))
        .arg("replay")
        .args(args)
        .output()
        .expect("run taskcore")
}

fn gz(text: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(text).unwrap();
    e.finish().unwrap()
}

const GOOD: &str = "\
100 1.0 clone(child_stack=NULL, flags=SIGCHLD) = 101
101 1.1 exit_group(3) = ?
101 1.2 +++ exited with 3 +++
100 1.3 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 3}], 0, NULL) = 101
";

#[test]
fn a_good_trace_exits_0_and_a_wrong_one_1() {
    let good = tmp("good.strace");
    std::fs::write(&good, GOOD).unwrap();
    assert_eq!(run(&[&good]).status.code(), Some(0));
    let bad = tmp("bad.strace");
    std::fs::write(
        &bad,
        GOOD.replace("== 3}], 0, NULL) = 101", "== 4}], 0, NULL) = 101"),
    )
    .unwrap();
    let out = run(&[&bad]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("bad.strace:4:"));
}

#[test]
fn unusable_input_exits_2_naming_the_file() {
    let empty = tmp("empty.strace");
    std::fs::write(&empty, "").unwrap();
    let text = tmp("text.txt");
    std::fs::write(&text, "hello\nthis is not a trace\n".repeat(50)).unwrap();
    let cut = tmp("cut.strace.gz");
    let mut bytes = gz(GOOD.repeat(2000).as_bytes());
    bytes.truncate(bytes.len() / 2);
    std::fs::write(&cut, bytes).unwrap();
    let dir = std::env::temp_dir();
    let missing = tmp("missing.strace");
    for (p, what) in [
        (&empty, "no strace events"),
        (&text, "no strace events"),
        (&cut, "unreadable from here on"),
        (&dir, "is a directory"),
        (&missing, "cannot read"),
    ] {
        let out = run(&[p]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{}: {err}", p.display());
        assert!(err.contains(what), "{}: {err}", p.display());
        let name = p.file_name().unwrap().to_string_lossy();
        assert!(err.contains(&*name), "{err}");
    }
    // A trace with many unparsable lines among good ones.
    let noisy = tmp("noisy.strace");
    std::fs::write(&noisy, format!("{GOOD}{}", "garbage line\n".repeat(20))).unwrap();
    let out = run(&[&noisy]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("20 of 24 lines unparsable"));
    // One unusable file among good ones still fails the run.
    let good = tmp("good2.strace");
    std::fs::write(&good, GOOD).unwrap();
    assert_eq!(run(&[&good, &empty]).status.code(), Some(2));
}

#[test]
fn a_long_line_is_quoted_cut() {
    let f = tmp("long.strace");
    let long = format!("{GOOD}100 1.4 {}\n", "x".repeat(100_000));
    std::fs::write(&f, long).unwrap();
    let out = run(&[&f]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.lines().all(|l| l.len() < 400), "{}", err.len());
    assert!(err.contains("long.strace:5:"), "{err}");
}

#[test]
fn standard_input_is_read_with_a_dash() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_taskcore"))
        .args(["replay", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(&gz(GOOD.as_bytes()))
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("checks 3"));
}

#[test]
fn several_files_give_each_its_single_file_result_in_order() {
    let a = tmp("a.strace");
    let b = tmp("b.strace");
    std::fs::write(&a, GOOD).unwrap();
    std::fs::write(
        &b,
        GOOD.replace("== 3}], 0, NULL) = 101", "== 4}], 0, NULL) = 101"),
    )
    .unwrap();
    let one = |p: &Path| String::from_utf8_lossy(&run(&[p]).stdout).to_string();
    let both = String::from_utf8_lossy(&run(&[&b, &a]).stdout).to_string();
    let (ob, oa) = (one(&b), one(&a));
    assert!(
        both.starts_with(&format!("{ob}{oa}")),
        "{both}\n---\n{ob}{oa}"
    );
}

#[test]
fn a_recording_that_stops_mid_call_is_unusable_but_reports_its_checks() {
    let Some(f) = repo::path(
        "data/traces/truncated/randscen-fresh-s212.strace.gz",
        "a_recording_that_stops_mid_call_is_unusable_but_reports_its_checks",
    ) else {
        return;
    };
    let out = run(&[&f]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("ends mid-call"), "{err}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("mismatches 0") && stdout.contains("UNUSABLE"),
        "{stdout}"
    );
    let checks: u64 = stdout
        .split("checks ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(checks > 300, "{stdout}");
}

#[test]
fn a_binary_file_is_named_as_such() {
    // An ELF header and some machine code: NUL bytes, no final newline.
    let f = tmp("binary.strace");
    let mut bytes = b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x03\0>\0".to_vec();
    bytes.extend_from_slice(b"\n\x48\x89\xe5\0\0\x0f\x05");
    std::fs::write(&f, &bytes).unwrap();
    let out = run(&[&f]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("binary.strace:1: binary file"), "{err}");
    assert!(!err.contains("no newline"), "{err}");
}

#[test]
fn a_trace_cut_mid_line_or_mid_gzip_is_unusable() {
    // Mid-line: the last line has no newline.
    let f = tmp("midline.strace");
    std::fs::write(&f, &GOOD[..GOOD.len() - 10]).unwrap();
    let out = run(&[&f]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("ends mid-line"), "{err}");
    // Mid-pair: a call entered, never resumed, by a task that never ended.
    let f = tmp("midpair.strace");
    std::fs::write(&f, format!("{GOOD}100 1.5 wait4(-1,  <unfinished ...>\n")).unwrap();
    let out = run(&[&f]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("ends mid-call"), "{err}");
    // A .gz still being written: flushed, not finished.
    let f = tmp("writing.strace.gz");
    let mut e = flate2::write::GzEncoder::new(
        std::fs::File::create(&f).unwrap(),
        flate2::Compression::default(),
    );
    e.write_all(GOOD.repeat(100).as_bytes()).unwrap();
    e.flush().unwrap();
    let out = run(&[&f]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    drop(e);
    // Garbage interleaved with good lines.
    let f = tmp("interleaved.strace");
    let text: String = GOOD
        .lines()
        .flat_map(|l| [l, "\u{1}\u{2}garbage(((", "]]] = ?"])
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&f, text + "\n").unwrap();
    let out = run(&[&f]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_trace_recorded_without_f_is_refused_with_the_right_command() {
    let f = tmp("nof.strace");
    std::fs::write(
        &f,
        "1.0 clone(child_stack=NULL, flags=SIGCHLD) = 4242\n1.1 wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = 4242\n1.2 +++ exited with 0 +++\n",
    )
    .unwrap();
    let out = run(&[&f]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("strace -f -ttt"), "{err}");
}

/// A `strace -ff` recording whose tasks overlap in time keeps a file open
/// per task while merging: 300 children alive at once replay under a soft
/// limit of 64 open files, which `taskcore replay` raises to the hard one.
#[test]
fn a_per_task_recording_wider_than_the_open_file_limit_replays() {
    let d = tmp("ff-many");
    std::fs::create_dir_all(&d).unwrap();
    let n = 300;
    let mut parent = String::new();
    for i in 0..n {
        let c = 2000 + i;
        parent += &format!(
            "1.{:06} clone(child_stack=NULL, flags=SIGCHLD) = {c}\n",
            10 * i
        );
        std::fs::write(
            d.join(format!("t.{c}")),
            format!(
                "1.{:06} getpid() = {c}\n2.{:06} exit_group(0) = ?\n2.{:06} +++ exited with 0 +++\n",
                10 * i + 5,
                10 * i,
                10 * i + 5
            ),
        )
        .unwrap();
    }
    for i in 0..n {
        parent += &format!(
            "3.{:06} wait4(-1, [{{WIFEXITED(s) && WEXITSTATUS(s) == 0}}], 0, NULL) = {}\n",
            10 * i,
            2000 + i
        );
    }
    parent += "4.000000 exit_group(0) = ?\n4.100000 +++ exited with 0 +++\n";
    std::fs::write(d.join("t.1000"), parent).unwrap();
    let out = Command::new("sh")
        .arg("-c")
        .arg("ulimit -Sn 64 && exec \"$0\" replay \"$1\"")
        .arg(env!("CARGO_BIN_EXE_taskcore"))
        .arg(d.join("t"))
        .output()
        .expect("run sh");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("mismatches 0") && stdout.contains("tasks created 301"),
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&d);
}
