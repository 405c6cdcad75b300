//! The real procps `ps -ef`, `ps -eLf`, `pgrep -l`, `top -b -n 1` and psmisc
//! `pstree -p` against the emulated `/proc`, served through FUSE (`taskcore
//! proc mount /proc -- CMD` inside `unshare -m`) and bind-mounted from
//! `taskcore proc export`.
//!
//! The expected processes come from the export of the same generated
//! workload: every process directory, its `stat` (ppid) and `cmdline`.
//! Where the machine lacks root, `/dev/fuse`, `unshare` or the tools, the
//! tests print why and pass.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_taskcore");
const WORKLOAD: [&str; 4] = ["--processes", "6", "--threads-per-process", "3"];

/// One emulated process as the export shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Expected {
    ppid: u32,
    /// The command line, arguments joined by spaces.
    cmd: String,
    comm: String,
    threads: BTreeSet<u32>,
}

fn which(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Why these tests cannot run here, if they cannot.
fn missing_prerequisite() -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let root = status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|v| v.split_whitespace().nth(1))
        == Some("0");
    if !root {
        return Some("not running as root".into());
    }
    for tool in ["unshare", "timeout", "ps", "pstree", "mount"] {
        if !which(tool) {
            return Some(format!("`{tool}` is not installed"));
        }
    }
    let probe = Command::new("unshare").args(["-m", "true"]).output();
    if !probe.is_ok_and(|o| o.status.success()) {
        return Some("`unshare -m` fails (no CAP_SYS_ADMIN?)".into());
    }
    None
}

fn export(dir: &Path) -> BTreeMap<u32, Expected> {
    let out = Command::new(BIN)
        .args(["proc", "export"])
        .arg(dir)
        .args(WORKLOAD)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "export: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut procs = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let stat = std::fs::read_to_string(e.path().join("stat")).unwrap();
        let after = &stat[stat.rfind(')').unwrap() + 2..];
        let ppid = after.split(' ').nth(1).unwrap().parse().unwrap();
        let comm = stat[stat.find('(').unwrap() + 1..stat.rfind(')').unwrap()].to_string();
        let raw = std::fs::read(e.path().join("cmdline")).unwrap();
        let cmd = raw
            .split(|&b| b == 0)
            .filter(|a| !a.is_empty())
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect::<Vec<_>>()
            .join(" ");
        let threads = std::fs::read_dir(e.path().join("task"))
            .unwrap()
            .map(|t| t.unwrap().file_name().to_string_lossy().parse().unwrap())
            .collect();
        procs.insert(
            pid,
            Expected {
                ppid,
                cmd,
                comm,
                threads,
            },
        );
    }
    procs
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("taskcore-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Runs `cmd` with the emulated /proc mounted over /proc through FUSE.
fn under_fuse(cmd: &[&str]) -> Output {
    Command::new("timeout")
        .args(["60", "unshare", "-m", BIN, "proc", "mount", "/proc"])
        .args(WORKLOAD)
        .arg("--")
        .args(cmd)
        .output()
        .unwrap()
}

/// Parses `ps -ef`: UID PID PPID C STIME TTY TIME CMD.
fn parse_ps_ef(out: &str) -> BTreeMap<u32, (u32, String)> {
    let mut lines = out.lines();
    let header = lines.next().unwrap_or_default();
    assert!(header.starts_with("UID"), "ps header: {header}");
    lines
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            assert!(f.len() >= 8, "ps line: {l}");
            (
                f[1].parse().unwrap(),
                (f[2].parse().unwrap(), f[7..].join(" ")),
            )
        })
        .collect()
}

fn check_ps(got: &BTreeMap<u32, (u32, String)>, want: &BTreeMap<u32, Expected>) {
    let want_ps: BTreeMap<u32, (u32, String)> = want
        .iter()
        .map(|(&pid, e)| (pid, (e.ppid, e.cmd.clone())))
        .collect();
    assert_eq!(got, &want_ps, "ps -ef lists exactly the emulated processes");
    // The generated workload itself, independently of the export.
    assert_eq!(got.get(&1), Some(&(0, "/sbin/init".to_string())));
    assert_eq!(got.get(&2), Some(&(1, "-bash".to_string())));
    assert_eq!(got.len(), 2 + 6);
}

#[test]
fn ps_and_pstree_through_fuse() {
    if let Some(why) = missing_prerequisite() {
        eprintln!("skipped: {why}");
        return;
    }
    if !Path::new("/dev/fuse").exists() {
        eprintln!("skipped: no /dev/fuse");
        return;
    }
    let dir = scratch("fuse-expected");
    let want = export(&dir);

    let out = under_fuse(&["ps", "-ef"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "ps -ef: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    check_ps(&parse_ps_ef(&stdout), &want);

    let out = under_fuse(&["pstree", "-p"]);
    let tree = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "pstree: {tree}");
    // Every process as `comm(pid)` and every other thread as
    // `{comm}(tid)`, nothing else.
    let mut seen = BTreeSet::new();
    for (&pid, e) in &want {
        assert!(
            tree.contains(&format!("{}({pid})", e.comm)),
            "{pid} in\n{tree}"
        );
        seen.insert(pid);
        for &t in e.threads.iter().filter(|&&t| t != pid) {
            assert!(
                tree.contains(&format!("{{{}}}({t})", e.comm)),
                "{t} in\n{tree}"
            );
            seen.insert(t);
        }
    }
    let numbers: BTreeSet<u32> = tree
        .split('(')
        .skip(1)
        .filter_map(|s| s.split(')').next()?.parse().ok())
        .collect();
    assert_eq!(numbers, seen, "pstree shows exactly the emulated tasks");
    // Parent links: every worker hangs under bash(2), bash under init(1).
    assert!(tree.starts_with("init(1)---bash(2)-"), "{tree}");

    // ps -eLf: one line per thread (UID PID PPID LWP C NLWP ...).
    let out = under_fuse(&["ps", "-eLf"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "ps -eLf: {text}");
    let mut lwps: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
    for l in text.lines().skip(1) {
        let f: Vec<&str> = l.split_whitespace().collect();
        let (pid, lwp, nlwp): (u32, u32, usize) = (
            f[1].parse().unwrap(),
            f[3].parse().unwrap(),
            f[5].parse().unwrap(),
        );
        assert_eq!(nlwp, want[&pid].threads.len(), "NLWP of {pid}");
        lwps.entry(pid).or_default().insert(lwp);
    }
    let want_lwps: BTreeMap<u32, BTreeSet<u32>> =
        want.iter().map(|(&p, e)| (p, e.threads.clone())).collect();
    assert_eq!(lwps, want_lwps, "ps -eLf lists every thread");

    // pgrep -l NAME: exactly the processes of that name.
    if which("pgrep") {
        let out = under_fuse(&["pgrep", "-l", "httpd"]);
        let got: BTreeSet<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_string)
            .collect();
        let expect: BTreeSet<String> = want
            .iter()
            .filter(|(_, e)| e.comm == "httpd")
            .map(|(p, _)| format!("{p} httpd"))
            .collect();
        assert!(!expect.is_empty());
        assert_eq!(got, expect, "pgrep -l httpd");
    }
    // top -b -n 1: the task counts of its summary line.
    if which("top") {
        let out = under_fuse(&["top", "-b", "-n", "1"]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "top: {text}");
        let tasks = text
            .lines()
            .find(|l| l.starts_with("Tasks:"))
            .unwrap_or_default();
        let total: u32 = tasks
            .split_whitespace()
            .nth(1)
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        assert_eq!(total as usize, want.len(), "top: {tasks}");
        assert!(tasks.contains(" 1 running,"), "top: {tasks}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ps_through_a_bind_mounted_export() {
    if let Some(why) = missing_prerequisite() {
        eprintln!("skipped: {why}");
        return;
    }
    let dir = scratch("bind");
    let want = export(&dir);
    // ps needs /proc/<its own pid>/stat: `--reader-pid $$` writes it for the
    // shell that then execs ps (same pid), as the README shows.
    let script = format!(
        "{bin} proc export {d} --force --reader-pid $$ {w} && echo $$ && \
         mount --bind {d} /proc && exec ps -ef",
        bin = BIN,
        d = dir.display(),
        w = WORKLOAD.join(" ")
    );
    let out = Command::new("timeout")
        .args(["60", "unshare", "-m", "sh", "-c", &script])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (own, rest) = stdout.split_once('\n').unwrap();
    let own: u32 = own.trim().parse().unwrap();
    let mut got = parse_ps_ef(rest);
    got.remove(&own);
    check_ps(&got, &want);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn export_refuses_a_non_empty_directory_without_force() {
    let dir = scratch("nonempty");
    std::fs::create_dir_all(dir.join("99999")).unwrap();
    std::fs::write(dir.join("stale"), "x").unwrap();
    let run = |force: bool| {
        let mut c = Command::new(BIN);
        c.args(["proc", "export"]).arg(&dir).args(WORKLOAD);
        if force {
            c.arg("--force");
        }
        c.output().unwrap()
    };
    let out = run(false);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not empty"));
    assert!(
        dir.join("stale").exists(),
        "nothing removed without --force"
    );
    let out = run(true);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!dir.join("stale").exists() && !dir.join("99999").exists());
    assert!(dir.join("1/stat").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_command_not_found_under_mount_exits_127() {
    if let Some(why) = missing_prerequisite() {
        eprintln!("skipped: {why}");
        return;
    }
    if !Path::new("/dev/fuse").exists() {
        eprintln!("skipped: no /dev/fuse");
        return;
    }
    let out = under_fuse(&["/nonexistent/taskcore-no-such-command"]);
    assert_eq!(
        out.status.code(),
        Some(127),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("command not found"));
}

#[test]
fn mount_refuses_the_host_proc_outside_a_private_namespace() {
    // A process of ours that is not an ancestor of the mount: /proc is
    // shared with it, so the guard must refuse, whatever namespace pid 1 is
    // in (on some machines every session shares one namespace that is not
    // pid 1's). The refusal comes before the source is loaded, and the
    // source is bad: even a broken guard fails with another message and
    // never mounts.
    let mut sibling = Command::new("sleep").arg("60").spawn().unwrap();
    let out = Command::new(BIN)
        .args([
            "proc",
            "mount",
            "/proc",
            "--from-trace",
            "/nonexistent.strace",
        ])
        .args(["--", "true"])
        .output()
        .unwrap();
    sibling.kill().unwrap();
    sibling.wait().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("private mount namespace"), "{err}");
}

#[test]
fn mount_refuses_a_namespace_entered_with_nsenter() {
    // A mount namespace made by someone else and entered with `nsenter`
    // (as `docker exec` does) is not private even though our parent is in
    // another namespace: its first process would see the emulated /proc.
    if let Some(why) = missing_prerequisite() {
        eprintln!("skipped: {why}");
        return;
    }
    if !which("nsenter") {
        eprintln!("skipped: `nsenter` is not installed");
        return;
    }
    let mut owner = Command::new("unshare")
        .args(["-m", "sleep", "60"])
        .spawn()
        .unwrap();
    // Wait until the sleeper has its own namespace.
    let own = std::fs::read_link("/proc/self/ns/mnt").unwrap();
    let ns = format!("/proc/{}/ns/mnt", owner.id());
    for _ in 0..200 {
        if std::fs::read_link(&ns).is_ok_and(|n| n != own) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let out = Command::new("nsenter")
        .args(["-m", "-t", &owner.id().to_string(), BIN])
        .args([
            "proc",
            "mount",
            "/proc",
            "--from-trace",
            "/nonexistent.strace",
        ])
        .args(["--", "true"])
        .output()
        .unwrap();
    owner.kill().unwrap();
    owner.wait().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("private mount namespace"), "{err}");
}
