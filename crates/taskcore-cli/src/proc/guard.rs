//! `proc mount`'s guard against covering the host's `/proc`.
//!
//! A FUSE mount over a procfs (`/proc` itself, or any procfs mount point,
//! found by `statfs`) is allowed only in a private mount namespace: one
//! that no process lives in but this one, its ancestors (the `unshare -m`
//! or shell that started it) and its descendants. Anywhere else, other
//! processes would see the emulated `/proc` instead of the real one.
//! Whether the namespace is pid 1's says nothing here: a build machine or
//! container may run all its sessions in one namespace that is not pid 1's.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use nix::sys::statfs::{statfs, PROC_SUPER_MAGIC};

/// Whether `dir` is on a procfs (`PROC_SUPER_MAGIC`).
pub(crate) fn is_procfs(dir: &Path) -> bool {
    statfs(dir).is_ok_and(|s| s.filesystem_type() == PROC_SUPER_MAGIC)
}

/// One process as the guard sees it: its parent and its mount namespace
/// (`/proc/PID/ns/mnt`, `None` if unreadable).
#[derive(Debug, Clone)]
struct ProcInfo {
    ppid: u32,
    mnt_ns: Option<PathBuf>,
}

/// Every process of the real `/proc`, by pid.
fn scan() -> HashMap<u32, ProcInfo> {
    let mut all = HashMap::new();
    let Ok(dir) = fs::read_dir("/proc") else {
        return all;
    };
    for e in dir.flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let ppid = fs::read_to_string(e.path().join("status"))
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("PPid:"))
                    .and_then(|v| v.trim().parse().ok())
            })
            .unwrap_or(0);
        let mnt_ns = fs::read_link(e.path().join("ns/mnt")).ok();
        all.insert(pid, ProcInfo { ppid, mnt_ns });
    }
    all
}

/// `Err` with the message to print if mounting at `dir` would cover a
/// procfs that processes other than our own line can see.
pub(crate) fn check_mount_point(dir: &Path) -> Result<(), String> {
    let is_proc = dir.canonicalize().is_ok_and(|c| c == Path::new("/proc")) || is_procfs(dir);
    if !is_proc {
        return Ok(());
    }
    let me = std::process::id();
    let own = fs::read_link("/proc/self/ns/mnt").ok();
    decide(dir, me, own.as_deref(), &scan())
}

/// The decision on a procfs mount point, apart from the look-ups: refuse
/// if our namespace cannot be read, or if some process in it is neither
/// us, nor an ancestor of ours, nor a descendant.
fn decide(
    dir: &Path,
    me: u32,
    own: Option<&Path>,
    all: &HashMap<u32, ProcInfo>,
) -> Result<(), String> {
    let refuse = |why: String| {
        Err(format!(
            "refusing to mount over {}: {why}; run in a private mount namespace, e.g. \
             `unshare -m taskcore proc mount /proc ...`",
            dir.display()
        ))
    };
    let Some(own) = own else {
        return refuse("cannot read this process's mount namespace".into());
    };
    // Walks up from `pid`: whether it reaches `target` (bounded: a cycle of
    // stale entries cannot loop).
    let reaches = |mut pid: u32, target: u32| {
        for _ in 0..all.len() + 1 {
            if pid == target {
                return true;
            }
            match all.get(&pid) {
                Some(p) if p.ppid != 0 => pid = p.ppid,
                _ => return false,
            }
        }
        false
    };
    for (&pid, p) in all {
        if p.mnt_ns.as_deref() != Some(own) {
            continue;
        }
        let ours = reaches(me, pid) || reaches(pid, me);
        if !ours {
            return refuse(format!(
                "it is shared: process {pid}, not started by this one nor one of its \
                 ancestors, lives in the same mount namespace"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(rows: &[(u32, u32, &str)]) -> HashMap<u32, ProcInfo> {
        rows.iter()
            .map(|&(pid, ppid, ns)| {
                let mnt_ns = (!ns.is_empty()).then(|| PathBuf::from(ns));
                (pid, ProcInfo { ppid, mnt_ns })
            })
            .collect()
    }

    #[test]
    fn decide_allows_only_our_own_line_in_the_namespace() {
        let d = Path::new("/proc");
        let host = Path::new("mnt:[1]");
        // 1 -> 10 (shell) -> 20 (unshare'd sh, new ns) -> 30 (us) -> 40
        let private = table(&[
            (1, 0, "mnt:[1]"),
            (10, 1, "mnt:[1]"),
            (11, 1, "mnt:[1]"),
            (20, 10, "mnt:[2]"),
            (30, 20, "mnt:[2]"),
            (40, 30, "mnt:[2]"),
            (50, 1, ""),
        ]);
        assert!(decide(d, 30, Some(Path::new("mnt:[2]")), &private).is_ok());
        // The same tree seen from the host namespace: 11 is a stranger.
        let shared = table(&[(1, 0, "mnt:[1]"), (10, 1, "mnt:[1]"), (11, 1, "mnt:[1]")]);
        let err = decide(d, 10, Some(host), &shared).unwrap_err();
        assert!(
            err.contains("process 11") && err.contains("unshare -m"),
            "{err}"
        );
        // A sibling in our namespace, e.g. another child of our shell.
        let sibling = table(&[(20, 1, "mnt:[2]"), (30, 20, "mnt:[2]"), (31, 20, "mnt:[2]")]);
        assert!(decide(d, 30, Some(Path::new("mnt:[2]")), &sibling).is_err());
        assert!(decide(d, 30, None, &private).is_err());
    }

    #[test]
    fn the_real_proc_is_a_procfs() {
        assert!(is_procfs(Path::new("/proc")));
        assert!(!is_procfs(Path::new("/")));
    }
}
