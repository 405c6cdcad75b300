//! `taskcore replay` on the user-namespace recording of `data/traces/extra`
//! (`setpriv --reuid=1000 --regid=1000 --clear-groups unshare --user --pid
//! --fork --map-root-user sh -c 'id; echo $$'`): zero mismatches, with the
//! uid_map, setgroups and gid_map writes, the unshare and the id calls
//! inside the namespace checked.

use std::process::Command;

use crate::common::repo;

#[test]
fn unprivileged_user_and_pid_namespace_replays() {
    let test = "unprivileged_user_and_pid_namespace_replays";
    let Some(dir) = repo::path("data/traces/extra", test) else {
        return;
    };
    let out = Command::new(env!("CARGO_BIN_EXE_taskcore"))
        .arg("replay")
        .arg("--json")
        .arg(dir.join("unshare-userns.strace.gz"))
        .output()
        .expect("run taskcore");
    assert!(out.status.success(), "exit status {:?}", out.status);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let last = stdout.lines().last().expect("some output");
    let v: serde_json::Value = serde_json::from_str(last).expect("json on the last line");
    assert_eq!(v["mismatches"].as_u64(), Some(0), "{stdout}");
    let checked = v["checked_calls"].as_object().unwrap();
    for (call, at_least) in [("write", 3), ("unshare", 1), ("getuid", 2), ("getgid", 2)] {
        let n = checked.get(call).and_then(|n| n.as_u64()).unwrap_or(0);
        assert!(n >= at_least, "{call} checked {n} times: {checked:?}");
    }
}
