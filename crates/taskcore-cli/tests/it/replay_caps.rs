//! `taskcore replay` on the capability recordings of `data/traces/extra`
//! (`setpriv --reuid=1000 --regid=1000 --clear-groups id`, keeping
//! CAP_SETGID through PR_SET_KEEPCAPS and capset; `capdrop`, dropping
//! capabilities and trying unshare, clone(CLONE_NEWPID), kill and
//! setresgid, and exec'ing with an ambient capability and a smaller
//! bounding set): zero mismatches, with capget, capset and the capability
//! prctls checked.

use std::path::PathBuf;
use std::process::Command;

use crate::common::repo;

#[test]
fn capability_traces_replay_and_check_capget_capset() {
    let test = "capability_traces_replay_and_check_capget_capset";
    let Some(dir) = repo::path("data/traces/extra", test) else {
        return;
    };
    let files: Vec<PathBuf> = ["setpriv-id", "capdrop"]
        .iter()
        .map(|n| dir.join(format!("{n}.strace.gz")))
        .collect();
    let out = Command::new(env!("CARGO_BIN_EXE_taskcore"))
        .arg("replay")
        .arg("--json")
        .args(&files)
        .output()
        .expect("run taskcore");
    assert!(out.status.success(), "exit status {:?}", out.status);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last = stdout.lines().last().expect("some output");
    let v: serde_json::Value = serde_json::from_str(last).expect("json on the last line");
    assert_eq!(v["mismatches"].as_u64(), Some(0), "{stdout}");
    let checked = v["checked_calls"].as_object().unwrap();
    for (call, at_least) in [
        ("capget", 6),
        ("capset", 8),
        ("prctl", 8),
        ("setresgid", 3),
        ("setgroups", 1),
        ("unshare", 8),
    ] {
        let n = checked.get(call).and_then(|n| n.as_u64()).unwrap_or(0);
        assert!(n >= at_least, "{call} checked {n} times: {checked:?}");
    }
}
