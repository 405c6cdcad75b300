//! `taskcore replay --probe latency`: the latency table and its JSON, and
//! the rest of the replay's output unchanged by the probe.

use std::path::Path;
use std::process::Command;

use crate::common::repo;

/// Runs `taskcore replay ARGS... TRACE` and returns stdout.
fn replay(args: &[&str], trace: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_taskcore"))
        .arg("replay")
        .args(args)
        .arg(trace)
        .output()
        .expect("run taskcore");
    assert!(out.status.success(), "exit status {:?}", out.status);
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn latency_table_and_json_cover_the_replayed_operations() {
    let Some(trace) = repo::path(
        "data/traces/cargo-build.strace.gz",
        "latency_table_and_json_cover_the_replayed_operations",
    ) else {
        return;
    };
    let plain = replay(&["--json"], &trace);
    let probed = replay(&["--json", "--probe", "latency"], &trace);
    let (plain_text, plain_json) = plain.trim_end().rsplit_once('\n').unwrap();
    let (probed_text, probed_json) = probed.trim_end().rsplit_once('\n').unwrap();

    // The table comes after the usual summary, which is unchanged.
    let (before, table) = probed_text
        .split_once("\n== latency per core operation (return probes)\n")
        .expect("latency section");
    assert_eq!(before.trim_end(), plain_text.trim_end());
    let row = |op: &str| {
        table
            .lines()
            .find(|l| l.starts_with(&format!("| {op} ")))
            .unwrap_or_else(|| panic!("no row for {op}:\n{table}"))
            .to_string()
    };
    for op in ["clone", "exit_group", "wait4"] {
        let line = row(op);
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let count: u64 = cells[2].parse().unwrap();
        assert!(count > 0, "{op}: {cells:?}");
        for c in &cells[3..6] {
            assert!(
                c.ends_with("ns") || c.ends_with("us") || c.ends_with("ms"),
                "{c}"
            );
        }
    }
    assert!(table.contains("nmissed 0 (maxactive "), "{table}");

    // The JSON gains a `latency` object and is otherwise identical.
    let mut p: serde_json::Value = serde_json::from_str(probed_json).unwrap();
    let plain: serde_json::Value = serde_json::from_str(plain_json).unwrap();
    let lat = p
        .as_object_mut()
        .unwrap()
        .remove("latency")
        .expect("latency key");
    assert_eq!(p, plain);
    assert_eq!(lat["nmissed"], 0);
    let ops = lat["ops"].as_object().unwrap();
    let clone = &ops["clone"];
    assert!(clone["count"].as_u64().unwrap() > 0);
    assert!(clone["p50_ns"].as_u64().unwrap() <= clone["p99_ns"].as_u64().unwrap());
    assert!(clone["p99_ns"].as_u64().unwrap() <= clone["max_ns"].as_u64().unwrap());
    // One probe call per core operation: wait4 counted as many times as
    // the table says.
    let wait4: u64 = row("wait4")
        .split('|')
        .nth(2)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_eq!(ops["wait4"]["count"].as_u64().unwrap(), wait4);
}

#[test]
fn an_unknown_probe_kind_is_a_usage_error() {
    let out = Command::new(env!("CARGO_BIN_EXE_taskcore"))
        .args(["replay", "--probe", "nosuch"])
        .output()
        .expect("run taskcore");
    assert_eq!(out.status.code(), Some(2));
}
