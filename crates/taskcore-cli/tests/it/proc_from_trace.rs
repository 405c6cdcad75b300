//! `/proc` rendered for the state of a replayed real trace: every file
//! follows Linux's format (proc(5), fs/proc/array.c), field by field.

use std::collections::BTreeMap;
use std::process::Command;

use crate::common::repo;

#[test]
fn replayed_trace_state_renders_linux_formats() {
    let Some(trace) = repo::path(
        "data/traces/python-multiprocessing.strace.gz",
        "replayed_trace_state_renders_linux_formats",
    ) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("taskcore-proc-trace-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = Command::new(env!("CARGO_BIN_EXE_taskcore"))
        .args(["proc", "export"])
        .arg(&dir)
        .arg("--from-trace")
        .arg(&trace)
        .args(["--at", "6000"])
        .output()
        .expect("run taskcore");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut procs = BTreeMap::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let e = e.unwrap();
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let stat = std::fs::read_to_string(e.path().join("stat")).unwrap();
        // pid (comm) state ppid pgrp session tty_nr tpgid flags ... : 52 fields.
        let open = stat.find(" (").unwrap();
        let close = stat.rfind(") ").unwrap();
        assert_eq!(stat[..open].parse::<i32>().unwrap(), pid, "{stat}");
        let comm = &stat[open + 2..close];
        assert!(!comm.is_empty() && comm.len() <= 15, "{comm:?}");
        let rest: Vec<&str> = stat[close + 2..].trim_end().split(' ').collect();
        assert_eq!(rest.len() + 2, 52, "{stat}");
        assert!(["R", "S", "T", "t", "Z"].contains(&rest[0]), "{stat}");
        let num = |i: usize| {
            rest[i]
                .parse::<i64>()
                .unwrap_or_else(|_| panic!("field {} of {stat}", i + 3))
        };
        let (ppid, pgrp, session, threads) = (num(1), num(2), num(3), num(17));
        let status = std::fs::read_to_string(e.path().join("status")).unwrap();
        let field = |k: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(k).map(|v| v.trim().to_string()))
                .unwrap_or_else(|| panic!("{k} in {status}"))
        };
        assert_eq!(field("Name:"), comm);
        assert_eq!(field("Pid:"), pid.to_string());
        assert_eq!(field("Tgid:"), pid.to_string());
        assert_eq!(field("PPid:"), ppid.to_string());
        assert_eq!(field("Threads:"), threads.to_string());
        assert_eq!(field("NSpgid:"), pgrp.to_string());
        assert_eq!(field("NSsid:"), session.to_string());
        assert!(field("State:").starts_with(rest[0]), "{status}");
        let tasks = std::fs::read_dir(e.path().join("task")).unwrap().count() as i64;
        assert_eq!(tasks, threads, "task/ entries of {pid}");
        let cmdline = std::fs::read(e.path().join("cmdline")).unwrap();
        assert!(
            cmdline.is_empty() || cmdline.ends_with(&[0]),
            "cmdline of {pid} is NUL-terminated"
        );
        procs.insert(pid, (ppid, comm.to_string(), rest[0].to_string()));
    }
    // The replayed trace's processes under init -> sh -> strace, as recorded.
    assert!(procs.len() > 5, "{procs:?}");
    for (pid, (ppid, _, _)) in &procs {
        assert!(
            *pid == 1 || procs.contains_key(&(*ppid as i32)),
            "parent of {pid} listed"
        );
    }
    assert_eq!(procs[&3].1, "strace");
    assert!(
        procs.values().any(|(_, comm, _)| comm == "python3"),
        "{procs:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
