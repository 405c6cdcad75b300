//! `taskcore replay` on `data/traces/memory/efault.strace.gz` (efault.c:
//! bad pointers given to the rt_sig* calls, wait4, waitid and clone3,
//! recorded with `%memory`): every `EFAULT` result checked against the
//! address space the trace mapped, with zero mismatches; and the same
//! trace with the page left mapped, or left readable, mismatches.

use std::io::Read;
use std::process::Command;

use crate::common::repo;

/// The `checked_calls` entry of EFAULT results the replay checked.
const CHECKED: &str = "EFAULT from a user pointer";

fn trace_text(test: &str) -> Option<String> {
    let dir = repo::path("data/traces/memory", test)?;
    let gz = std::fs::read(dir.join("efault.strace.gz")).expect("read efault.strace.gz");
    let mut text = String::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_string(&mut text)
        .expect("gunzip");
    Some(text)
}

/// Replays `text` (written to a file named after `name`): the JSON summary.
fn replay(name: &str, text: &str) -> serde_json::Value {
    let path = std::env::temp_dir().join(format!(
        "taskcore-efault-{}-{name}.strace",
        std::process::id()
    ));
    std::fs::write(&path, text).expect("write the trace");
    let out = Command::new(env!("CARGO_BIN_EXE_taskcore"))
        .arg("replay")
        .arg("--json")
        .arg(&path)
        .output()
        .expect("run taskcore");
    let _ = std::fs::remove_file(&path);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last = stdout.lines().last().expect("some output");
    serde_json::from_str(last).expect("json on the last line")
}

/// The line of `text` calling `call` whose arguments contain `arg`.
fn line_with<'a>(text: &'a str, call: &str, arg: &str) -> &'a str {
    text.lines()
        .find(|l| l.contains(&format!(" {call}(")) && l.contains(arg))
        .unwrap_or_else(|| panic!("no {call} line with {arg}"))
}

#[test]
fn every_efault_of_the_bad_pointer_trace_is_checked() {
    let Some(text) = trace_text("every_efault_of_the_bad_pointer_trace_is_checked") else {
        return;
    };
    let efaults = text.lines().filter(|l| l.contains("= -1 EFAULT")).count() as u64;
    assert!(efaults >= 80, "{efaults} EFAULT lines");
    let v = replay("as-recorded", &text);
    assert_eq!(v["mismatches"].as_u64(), Some(0), "{v}");
    assert_eq!(v["checked_calls"][CHECKED].as_u64(), Some(efaults), "{v}");
}

#[test]
fn efault_checks_fail_when_the_address_space_differs() {
    let test = "efault_checks_fail_when_the_address_space_differs";
    let Some(text) = trace_text(test) else {
        return;
    };
    // The unmapped page left mapped: its pointers (and the ones running
    // into it) are readable and writable in the emulation.
    let unmap = line_with(&text, "munmap", ", 4096) = 0");
    let kept = text.replace(&format!("{unmap}\n"), "");
    let v = replay("hole-mapped", &kept);
    assert!(v["mismatches"].as_u64().unwrap() >= 20, "{v}");
    // The PROT_NONE page made read-write.
    let none = line_with(&text, "mprotect", "PROT_NONE");
    let rw = text.replace(none, &none.replace("PROT_NONE", "PROT_READ|PROT_WRITE"));
    let v = replay("none-rw", &rw);
    assert!(v["mismatches"].as_u64().unwrap() >= 20, "{v}");
}
