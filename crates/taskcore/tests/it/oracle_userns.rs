//! User namespaces: CLONE_NEWUSER in unshare and clone, the uid_map,
//! gid_map and setgroups writes, capabilities held in a namespace and not
//! above it, the overflow ids in getresuid, getgroups, /proc/PID/status
//! and si_uid, and `unshare --user --pid --fork`, replayed from Linux's
//! answers recorded by tests/oracle/userns_rules.c, as root
//! (userns_rules.out) and as uid 1000 (userns_rules_user.out); re-record
//! with tests/oracle/record.sh.
//!
//! Each recorded line is `CASE OP ARGS -> RESULT | STATE`; the ops are
//! parsed back from the lines and made on the core, and the line is
//! rendered again with the core's answer and state (the ids from
//! `getresuid`/`getresgid`, `/proc/PID/status`'s Uid, Gid, CapEff and
//! CapPrm lines as the task reads them, `getgroups`).

use taskcore::procfs::{ProcClock, ProcFs};
use taskcore::uapi::{CLONE_NEWUSER, P_PID, SIGCHLD, SIG_BLOCK, WEXITED};
use taskcore::{
    CloneArgs, Config, Cred, Errno, IdMapFile, Kernel, KernelCap, NsKind, Rlimit, SigWait, TaskId,
    WaitOutcome,
};

const ROOT: &str = include_str!("oracle/userns_rules.out");
const USER: &str = include_str!("oracle/userns_rules_user.out");

fn errno(e: Errno) -> String {
    format!("{e:?}")
}

fn unit(r: Result<(), Errno>) -> String {
    match r {
        Ok(()) => "ok".into(),
        Err(e) => errno(e),
    }
}

fn num(t: &str) -> i64 {
    match t.strip_prefix("0x") {
        Some(h) => i64::from_str_radix(h, 16).unwrap(),
        None => t.parse().unwrap(),
    }
}

/// `key=a,b,c` of a recorded state.
fn field<'a>(state: &'a str, key: &str) -> &'a str {
    state
        .split(' ')
        .find_map(|f| f.strip_prefix(key))
        .unwrap_or_else(|| panic!("{key} in {state}"))
}

fn ids(v: &str) -> Vec<u32> {
    v.split(',').map(|x| x.parse().unwrap()).collect()
}

/// A map text of the recording: `_` a space, `~` a newline.
fn map_text(t: &str) -> Vec<u8> {
    t.bytes()
        .map(|b| match b {
            b'_' => b' ',
            b'~' => b'\n',
            b => b,
        })
        .collect()
}

/// A file's bytes as the recording shows them.
fn shown(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "empty".into();
    }
    bytes
        .iter()
        .map(|&b| match b {
            b' ' => '_',
            b'\n' => '~',
            b => b as char,
        })
        .collect()
}

fn clock() -> ProcClock {
    ProcClock {
        now_ns: 1_000_000_000,
        boot_ns: 0,
        boot_wall_s: 1_700_000_000,
    }
}

/// `/proc/PID/FILE` of `target` read by `reader` (the host's /proc).
fn proc_read(k: &Kernel, reader: TaskId, target: TaskId, file: &str) -> Result<Vec<u8>, Errno> {
    let init = k.init_task().unwrap();
    let fs = ProcFs::new(k, k.root_ns(), clock())
        .unwrap()
        .with_current(reader)?;
    let path = format!("{}/{file}", k.pid_vnr(init, target)?);
    fs.read(fs.resolve(path.as_bytes())?)
}

/// The status line `key`'s numbers joined by commas.
fn status_ids(status: &str, key: &str) -> String {
    let l = status.lines().find(|l| l.starts_with(key)).unwrap();
    l[key.len()..]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(",")
}

fn status_cap(status: &str, key: &str) -> String {
    let l = status.lines().find(|l| l.starts_with(key)).unwrap();
    l[key.len()..].trim().to_string()
}

/// The state part of a line, as userns_rules.c prints it.
fn state(k: &Kernel, t: TaskId) -> String {
    let (r, e, s) = k.getresuid(t).unwrap();
    let (gr, ge, gs) = k.getresgid(t).unwrap();
    let status = String::from_utf8(proc_read(k, t, t, "status").unwrap()).unwrap();
    let groups: Vec<String> = k
        .getgroups(t, 0)
        .unwrap()
        .iter()
        .map(|g| g.to_string())
        .collect();
    format!(
        "ids={r},{e},{s} gids={gr},{ge},{gs} status={}/{} groups={} eff={} prm={}",
        status_ids(&status, "Uid:"),
        status_ids(&status, "Gid:"),
        groups.join(","),
        status_cap(&status, "CapEff:"),
        status_cap(&status, "CapPrm:"),
    )
}

/// One case: the driver (this program's main process) and the case's
/// process, with the parent of the latter.
struct Case {
    k: Kernel,
    root_ns: taskcore::pid::NsId,
    t: TaskId,
    parent: TaskId,
}

impl Case {
    fn new(start: &str) -> Case {
        let mut k = Kernel::new(Config::default()).unwrap();
        let init = k.init_task().unwrap();
        let (u, g) = (ids(field(start, "ids=")), ids(field(start, "gids=")));
        let cap = |key| KernelCap::new(u64::from_str_radix(field(start, key), 16).unwrap());
        let c = Cred {
            uid: u[0],
            euid: u[1],
            suid: u[2],
            fsuid: u[1],
            gid: g[0],
            egid: g[1],
            sgid: g[2],
            fsgid: g[1],
            cap_permitted: cap("prm="),
            cap_effective: cap("eff="),
            ..Cred::default()
        };
        k.set_cred(init, c).unwrap();
        let driver = k.fork(init).unwrap();
        let t = k.fork(driver).unwrap();
        let root_ns = k.root_ns();
        Case {
            k,
            root_ns,
            t,
            parent: driver,
        }
    }

    /// A pid as userns_rules.c prints it: "host" in the initial pid
    /// namespace (the machine's numbers vary).
    fn pids(&self, c: TaskId) -> String {
        if self.k.task_pid_ns(c, NsKind::Pid).unwrap() == self.root_ns {
            return "pid=host ppid=host".into();
        }
        let (pid, ppid) = (self.k.getpid(c).unwrap(), self.k.getppid(c).unwrap());
        format!("pid={pid} ppid={ppid}")
    }

    fn file_write(&mut self, cur: TaskId, target: TaskId, file: &str, text: &str) -> String {
        let buf = map_text(text);
        let r = match file {
            "uid_map" => self
                .k
                .proc_id_map_write(cur, target, IdMapFile::Uid, 0, &buf),
            "gid_map" => self
                .k
                .proc_id_map_write(cur, target, IdMapFile::Gid, 0, &buf),
            "setgroups" => self.k.proc_setgroups_write(cur, target, 0, &buf),
            other => panic!("file {other}"),
        };
        match r {
            Ok(n) if n == buf.len() => "ok".into(),
            Ok(n) => format!("short {n}"),
            Err(e) => errno(e),
        }
    }

    fn file_read(&self, reader: TaskId, target: TaskId, file: &str) -> String {
        match proc_read(&self.k, reader, target, file) {
            Ok(b) => shown(&b),
            Err(e) => errno(e),
        }
    }

    /// Exits child `c` (status `code`) and reaps it from the case's process.
    fn reap(&mut self, c: TaskId, code: i32) {
        let pid = self.k.pid_vnr(self.t, c).unwrap();
        self.k.exit_group(c, code).unwrap();
        self.k.wait4(self.t, pid, 0).unwrap();
    }

    fn clone_args(flags: i64) -> CloneArgs {
        CloneArgs {
            flags: flags as u64,
            exit_signal: SIGCHLD,
            ..CloneArgs::default()
        }
    }

    fn op(&mut self, text: &str) -> String {
        let w: Vec<&str> = text.split(' ').collect();
        let a = |i: usize| num(w[i]);
        let t = self.t;
        match w[0] {
            "unshare" => unit(self.k.unshare(t, a(1) as u64)),
            "write" => self.file_write(t, t, w[1], w[2]),
            "read" => self.file_read(t, t, w[1]),
            "status_parent" => {
                let st = proc_read(&self.k, t, self.parent, "status").unwrap();
                let st = String::from_utf8(st).unwrap();
                format!("{}/{}", status_ids(&st, "Uid:"), status_ids(&st, "Gid:"))
            }
            "setuid" => unit(self.k.setuid(t, a(1) as u32)),
            "setgid" => unit(self.k.setgid(t, a(1) as u32)),
            "setresuid" => unit(self.k.setresuid(t, a(1) as u32, a(2) as u32, a(3) as u32)),
            "setresgid" => unit(self.k.setresgid(t, a(1) as u32, a(2) as u32, a(3) as u32)),
            "setgroups" => {
                let g: Vec<u32> = if a(1) < 0 { vec![] } else { vec![a(1) as u32] };
                unit(self.k.setgroups(t, &g))
            }
            "kill_parent" => {
                let ppid = self.k.getppid(t).unwrap();
                unit(self.k.kill(t, ppid, a(1) as i32))
            }
            "setrlimit" => {
                let l = Rlimit {
                    cur: a(2) as u64,
                    max: a(3) as u64,
                };
                unit(self.k.setrlimit(t, a(1) as u32, l))
            }
            "clone" => match self.k.clone(t, &Self::clone_args(a(1))) {
                Ok(c) => {
                    self.reap(c, 0);
                    "ok".into()
                }
                Err(e) => errno(e),
            },
            "fork_into" | "clone_into" => {
                let c = if w[0] == "fork_into" {
                    self.k.fork(t)
                } else {
                    self.k.clone(t, &Self::clone_args(a(1)))
                };
                match c {
                    Ok(c) => {
                        (self.parent, self.t) = (t, c);
                        self.pids(c)
                    }
                    Err(e) => errno(e),
                }
            }
            "child_exit_siuid" => match self.k.clone(t, &Self::clone_args(a(1))) {
                Ok(c) => {
                    let pid = self.k.pid_vnr(t, c).unwrap();
                    self.k.exit_group(c, 0).unwrap();
                    match self.k.waitid(t, P_PID, pid, WEXITED).unwrap() {
                        WaitOutcome::Reported(r) => format!("si_uid={}", r.info.uid),
                        other => panic!("{other:?}"),
                    }
                }
                Err(e) => errno(e),
            },
            "child_unshare_kill" => {
                let sig = a(2) as i32;
                let mask = 1u64 << (sig - 1);
                self.k.rt_sigprocmask(t, SIG_BLOCK, Some(mask)).unwrap();
                let c = self.k.fork(t).unwrap();
                let u = self.k.unshare(c, a(1) as u64);
                let ppid = self.k.getppid(c).unwrap();
                self.k.kill(c, ppid, sig).unwrap();
                self.reap(c, i32::from(u.is_err()));
                let SigWait::Signal(info) = self.k.rt_sigtimedwait(t, mask, false).unwrap() else {
                    panic!("no signal")
                };
                let u = if u.is_ok() { "ok" } else { "failed" };
                format!("unshare={u} si_uid={}", info.uid)
            }
            "child_userns_recv" => {
                let sig = a(2) as i32;
                let mask = 1u64 << (sig - 1);
                let c = self.k.fork(t).unwrap();
                self.k.rt_sigprocmask(c, SIG_BLOCK, Some(mask)).unwrap();
                let map = match self.k.unshare(c, CLONE_NEWUSER) {
                    Err(e) => errno(e),
                    Ok(()) if w[1] == "-" => "none".into(),
                    Ok(()) => self.file_write(c, c, "uid_map", w[1]),
                };
                let pid = self.k.pid_vnr(t, c).unwrap();
                self.k.kill(t, pid, sig).unwrap();
                let SigWait::Signal(info) = self.k.rt_sigtimedwait(c, mask, false).unwrap() else {
                    panic!("no signal")
                };
                self.reap(c, 0);
                format!("map={map} si_uid={}", info.uid)
            }
            "child_map" => {
                let c = self.k.fork(t).unwrap();
                self.k.unshare(c, CLONE_NEWUSER).unwrap();
                let r = self.file_write(t, c, w[1], w[2]);
                let theirs = self.file_read(t, c, w[1]);
                let own = self.file_read(c, c, w[1]);
                self.reap(c, 0);
                format!("{r} parent_view={theirs} child_view={own}")
            }
            other => panic!("op {other}"),
        }
    }
}

/// Replays every line of `recorded` on the core; returns the lines that
/// differ (recorded, then the core's).
fn replay(recorded: &str) -> (usize, Vec<String>) {
    let mut lines = recorded.lines();
    let start = lines.next().unwrap().strip_prefix("start | ").unwrap();
    let mut case: Option<(String, Case)> = None;
    let mut bad = Vec::new();
    let mut n = 0;
    for line in lines {
        let (head, st) = line.split_once(" | ").unwrap();
        let (call, _) = head.split_once(" -> ").unwrap();
        let (name, op) = call.split_once(' ').unwrap();
        if case.as_ref().is_none_or(|(c, _)| c != name) {
            case = Some((name.to_string(), Case::new(start)));
        }
        let c = &mut case.as_mut().unwrap().1;
        let res = c.op(op);
        c.k.check_invariants();
        let got = format!("{name} {op} -> {res} | {}", state(&c.k, c.t));
        n += 1;
        if got != line {
            bad.push(format!("recorded: {line}\n    core: {got}"));
        }
        let _ = st;
    }
    (n, bad)
}

#[test]
fn userns_rules_as_root() {
    let (n, bad) = replay(ROOT);
    assert!(n > 100, "{n} lines");
    assert!(
        bad.is_empty(),
        "{} of {n} lines differ:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn userns_rules_as_uid_1000() {
    let (n, bad) = replay(USER);
    assert!(n > 100, "{n} lines");
    assert!(
        bad.is_empty(),
        "{} of {n} lines differ:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// A namespace nothing holds is freed, with the references it held.
#[test]
fn user_namespaces_are_freed_with_their_last_task() {
    let mut k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    assert_eq!(k.nr_user_namespaces(), 1);
    let c = k.fork(init).unwrap();
    k.unshare(c, CLONE_NEWUSER).unwrap();
    // Unmapped, its ids cannot own a namespace.
    let both = (CLONE_NEWUSER | taskcore::uapi::CLONE_NEWPID) as i64;
    assert_eq!(k.clone(c, &Case::clone_args(both)), Err(Errno::EPERM));
    for which in [IdMapFile::Uid, IdMapFile::Gid] {
        assert_eq!(k.proc_id_map_write(init, c, which, 0, b"0 0 1\n"), Ok(6));
    }
    let gc = k.clone(c, &Case::clone_args(both)).unwrap();
    assert_eq!(k.nr_user_namespaces(), 3);
    let outer = k.task_user_ns(c).unwrap();
    assert_eq!(
        k.user_ns_parent(k.task_user_ns(gc).unwrap()),
        Ok(Some(outer))
    );
    assert!(k.user_ns_readlink(gc).unwrap().starts_with("user:["));
    assert_eq!(k.user_ns_readlink(init).unwrap(), "user:[4026531837]");
    let pid = k.pid_vnr(c, gc).unwrap();
    k.exit_group(gc, 0).unwrap();
    k.wait4(c, pid, 0).unwrap();
    // The grandchild's namespace goes with it (its pid namespace too).
    assert_eq!(k.nr_user_namespaces(), 2);
    let pid = k.pid_vnr(init, c).unwrap();
    k.exit_group(c, 0).unwrap();
    k.wait4(init, pid, 0).unwrap();
    assert_eq!(k.nr_user_namespaces(), 1);
    assert_eq!(k.user_ns_owner(outer), Err(Errno::EINVAL));
    k.check_invariants();
}

/// Maps and `setgroups` set as Linux shows them (`proc_id_map_seen`,
/// `proc_setgroups_seen`: what a supervisor that reads the files, and
/// not the writes, hands to the core) take effect as a write would:
/// `setuid(0)` inside works once the uid map is there, and the rules a
/// map keeps (set once, `deny` first, within the parent's map) hold.
#[test]
fn maps_seen_in_proc_take_effect_as_written_ones() {
    let mut k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    let c = k.fork(init).unwrap();
    k.setresgid(c, 1000, 1000, 1000).unwrap();
    k.setresuid(c, 1000, 1000, 1000).unwrap();
    k.unshare(c, CLONE_NEWUSER).unwrap();
    assert_eq!(k.setuid(c, 0), Err(Errno::EINVAL));
    assert_eq!(
        k.proc_id_map_seen(init, IdMapFile::Uid, b"0 0 1\n"),
        Err(Errno::EPERM)
    );
    assert_eq!(
        k.proc_id_map_seen(c, IdMapFile::Uid, b"0 1000"),
        Err(Errno::EINVAL)
    );
    assert_eq!(
        k.proc_id_map_seen(c, IdMapFile::Uid, b"0 4294967294 2\n"),
        Err(Errno::EINVAL)
    );
    let text = k.proc_id_map_read(init, c, IdMapFile::Uid).unwrap();
    assert_eq!(text, "");
    assert_eq!(
        k.proc_id_map_seen(c, IdMapFile::Uid, b"         0       1000          1\n"),
        Ok(true)
    );
    assert_eq!(
        k.proc_id_map_seen(c, IdMapFile::Uid, b"0 1000 1\n"),
        Ok(false)
    );
    assert_eq!(
        k.proc_id_map_seen(c, IdMapFile::Uid, b"0 1001 1\n"),
        Err(Errno::EPERM)
    );
    assert_eq!(
        k.proc_id_map_read(init, c, IdMapFile::Uid).unwrap(),
        "         0       1000          1\n"
    );
    assert_eq!(k.setuid(c, 0), Ok(()));
    assert_eq!(k.setgid(c, 0), Err(Errno::EINVAL));
    assert_eq!(k.proc_setgroups_seen(c, true), Ok(false));
    assert_eq!(k.proc_setgroups_seen(c, false), Ok(true));
    assert_eq!(k.proc_setgroups_seen(c, true), Err(Errno::EPERM));
    assert_eq!(k.proc_setgroups_read(c), Ok("deny\n"));
    assert_eq!(
        k.proc_id_map_seen(c, IdMapFile::Gid, b"0 1000 1\n"),
        Ok(true)
    );
    assert_eq!(k.setgid(c, 0), Ok(()));
    // A nested namespace's lines must lie within its parent's map.
    k.unshare(c, CLONE_NEWUSER).unwrap();
    assert_eq!(
        k.proc_id_map_seen(c, IdMapFile::Uid, b"0 0 1\n"),
        Err(Errno::EINVAL)
    );
    assert_eq!(
        k.proc_id_map_seen(c, IdMapFile::Uid, b"0 1000 2\n"),
        Err(Errno::EINVAL)
    );
    assert_eq!(
        k.proc_id_map_seen(c, IdMapFile::Uid, b"5 1000 1\n"),
        Ok(true)
    );
    k.check_invariants();
}

/// A sender that kills its own process group and is reaped half-way (its
/// parent ignores SIGCHLD) takes its user namespace with it; the rest of
/// the group is still signalled, and sees the sender's kernel uid.
#[test]
fn a_sender_reaped_half_way_through_its_group() {
    use taskcore::uapi::SIGUSR1;
    use taskcore::{SigAction, SigHandler};
    let mut k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    let a = k.fork(init).unwrap();
    k.rt_sigaction(a, 17, Some(SigAction::new(SigHandler::Ignore, 0)))
        .unwrap();
    let p = k.fork(a).unwrap();
    k.setpgid(p, 0, 0).unwrap();
    let q = k.fork(p).unwrap();
    k.rt_sigprocmask(q, SIG_BLOCK, Some(1 << (SIGUSR1 - 1)))
        .unwrap();
    k.unshare(p, CLONE_NEWUSER).unwrap();
    assert_eq!(k.nr_user_namespaces(), 2);
    // SIGUSR1 kills P (no handler); its parent ignores SIGCHLD, so P is
    // reaped within the call and its namespace freed; Q (blocking it)
    // takes it with the sender's uid as Q sees it.
    k.kill(p, 0, SIGUSR1).unwrap();
    assert_eq!(k.getpid(p), Err(Errno::ESRCH));
    assert_eq!(k.nr_user_namespaces(), 1);
    k.check_invariants();
    let SigWait::Signal(info) = k.rt_sigtimedwait(q, 1 << (SIGUSR1 - 1), false).unwrap() else {
        panic!("no SIGUSR1")
    };
    // P's namespace mapped nothing: it wrote 65534, which Q's does not
    // take back to P's kernel uid (Linux 6.18: siginfo_unmapped_sender).
    assert_eq!(info.uid, 65534);
}
