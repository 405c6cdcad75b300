//! Capabilities: capget/capset, the capability prctl options, no_new_privs,
//! the sets across set*id calls and exec, and the calls each capability
//! gates, replayed from Linux's answers recorded by
//! tests/oracle/caps_rules.c (re-record with tests/oracle/record.sh).
//!
//! Each recorded line is `CASE OP ARGS -> RESULT | STATE`; the ops are
//! parsed back from the lines and made on the core (prctl through the
//! syscall decoder and dispatcher), and the line is rendered again with
//! the core's answer and state (`/proc/PID/status`'s `Cap*` and
//! `NoNewPrivs` lines byte for byte).

use taskcore::procfs::{ProcClock, ProcFs};
use taskcore::sys::{dispatch, nr, SysRet, Syscall};
use taskcore::task::capability::{cap_data_entries, LINUX_CAPABILITY_VERSION_3};
use taskcore::uapi::{CLONE_NEWPID, SIGCHLD, SIGKILL};
use taskcore::{
    CapUserData, CloneArgs, Config, Cred, Errno, Kernel, KernelCap, NsKind, Rlimit, SetnsFd, TaskId,
};

const CAPS_RULES: &str = include_str!("oracle/caps_rules.out");

fn errno(e: Errno) -> String {
    format!("{e:?}")
}

fn num(t: &str) -> i64 {
    if let Some(h) = t.strip_prefix("0x") {
        u64::from_str_radix(h, 16).unwrap() as i64
    } else {
        t.parse().unwrap()
    }
}

/// The recorded state's sets (`inh=`, `prm=`, ...).
fn set(state: &str, key: &str) -> KernelCap {
    let v = state
        .split(' ')
        .find_map(|f| f.strip_prefix(key))
        .unwrap_or_else(|| panic!("{key} in {state}"));
    KernelCap::new(u64::from_str_radix(v, 16).unwrap())
}

/// The caller's state in caps_rules.c's format.
fn state(k: &Kernel, t: TaskId) -> String {
    let c = k.cred(t).unwrap();
    let clock = ProcClock {
        now_ns: 1_000_000_000,
        boot_ns: 0,
        boot_wall_s: 1_700_000_000,
    };
    let fs = ProcFs::new(k, k.root_ns(), clock).unwrap();
    let path = format!("{}/status", k.pid_vnr(t, t).unwrap());
    let status = String::from_utf8(fs.read(fs.resolve(path.as_bytes()).unwrap()).unwrap()).unwrap();
    let line = |key: &str| -> String {
        let l = status.lines().find(|l| l.starts_with(key)).unwrap();
        l[key.len()..].to_string()
    };
    format!(
        "uid={},{},{},{} gid={},{},{},{} inh={} prm={} eff={} bnd={} amb={} sb={} nnp={}",
        c.uid,
        c.euid,
        c.suid,
        c.fsuid,
        c.gid,
        c.egid,
        c.sgid,
        c.fsgid,
        line("CapInh:\t"),
        line("CapPrm:\t"),
        line("CapEff:\t"),
        line("CapBnd:\t"),
        line("CapAmb:\t"),
        k.pr_get_securebits(t).unwrap(),
        line("NoNewPrivs:\t"),
    )
}

/// One case's tasks: the root driver and the case's process, with the
/// child it spawned.
struct Case {
    k: Kernel,
    driver: TaskId,
    t: TaskId,
    spawned: Option<TaskId>,
}

fn unit(r: Result<(), Errno>) -> String {
    match r {
        Ok(()) => "ok".into(),
        Err(e) => errno(e),
    }
}

/// The version `capget`/`capset` leave in the header.
fn version_after(v: u32) -> u32 {
    if cap_data_entries(v).is_some() {
        v
    } else {
        LINUX_CAPABILITY_VERSION_3
    }
}

fn caps(v: u32, d: CapUserData) -> String {
    let cut = |s: KernelCap| {
        if cap_data_entries(v) == Some(1) {
            s.bits() & 0xffff_ffff
        } else {
            s.bits()
        }
    };
    format!(
        "ok eff={:016x} prm={:016x} inh={:016x}",
        cut(d.effective),
        cut(d.permitted),
        cut(d.inheritable)
    )
}

impl Case {
    fn new(start: &str) -> Case {
        let mut k = Kernel::new(Config::default()).unwrap();
        let init = k.init_task().unwrap();
        let c = Cred {
            cap_inheritable: set(start, "inh="),
            cap_permitted: set(start, "prm="),
            cap_effective: set(start, "eff="),
            cap_bset: set(start, "bnd="),
            cap_ambient: set(start, "amb="),
            ..Cred::default()
        };
        k.set_cred(init, c).unwrap();
        let driver = k.fork(init).unwrap();
        let t = k.fork(driver).unwrap();
        Case {
            k,
            driver,
            t,
            spawned: None,
        }
    }

    fn parent(&self) -> i32 {
        self.k.pid_vnr(self.t, self.driver).unwrap()
    }

    /// Runs a child of the case's process that exits at once, and reaps it.
    fn child(&mut self, c: Result<TaskId, Errno>) -> String {
        match c {
            Ok(c) => {
                let pid = self.k.pid_vnr(self.t, c).unwrap();
                self.k.exit_group(c, 0).unwrap();
                self.k.wait4(self.t, pid, 0).unwrap();
                "ok".into()
            }
            Err(e) => errno(e),
        }
    }

    fn op(&mut self, text: &str) -> String {
        let w: Vec<&str> = text.split(' ').collect();
        let a: Vec<i64> = w[1..].iter().map(|x| num(x)).collect();
        let id = |i: usize| a[i] as u32;
        let t = self.t;
        let k = &mut self.k;
        let fsret = |r: Result<u32, Errno>| format!("ret={}", r.unwrap() as i32);
        match w[0] {
            "setuid" => unit(k.setuid(t, id(0))),
            "setgid" => unit(k.setgid(t, id(0))),
            "setreuid" => unit(k.setreuid(t, id(0), id(1))),
            "setregid" => unit(k.setregid(t, id(0), id(1))),
            "setresuid" => unit(k.setresuid(t, id(0), id(1), id(2))),
            "setresgid" => unit(k.setresgid(t, id(0), id(1), id(2))),
            "setfsuid" => fsret(k.setfsuid(t, id(0))),
            "setfsgid" => fsret(k.setfsgid(t, id(0))),
            "setgroups" => {
                let g: Vec<u32> = if a[0] < 0 { vec![] } else { vec![id(0)] };
                unit(k.setgroups(t, &g))
            }
            "capset" | "capsetv" => {
                let (v, pid, s) = if w[0] == "capsetv" {
                    (id(0), a[1] as i32, &a[2..])
                } else {
                    (LINUX_CAPABILITY_VERSION_3, 0, &a[..])
                };
                let mut entries = vec![[s[0] as u32, s[1] as u32, s[2] as u32]];
                if cap_data_entries(v) == Some(2) {
                    let hi = |x: i64| (x as u64 >> 32) as u32;
                    entries.push([hi(s[0]), hi(s[1]), hi(s[2])]);
                }
                let d = CapUserData::from_entries(&entries);
                match k.capset(t, v, pid, Some(d)) {
                    Err(Errno::EINVAL) => format!("EINVAL ver={:#x}", version_after(v)),
                    r => unit(r),
                }
            }
            "capset_efault" => unit(k.capset(t, LINUX_CAPABILITY_VERSION_3, 0, None)),
            "capget" | "capget_parent" | "capget_null" => {
                let v = id(0);
                let pid = match w[0] {
                    "capget_parent" => self.parent(),
                    "capget" => a[1] as i32,
                    _ => 0,
                };
                let k = &self.k;
                match k.capget(t, v, pid, w[0] != "capget_null") {
                    Ok(Some(d)) => caps(v, d),
                    Ok(None) => format!("ok ver={:#x}", version_after(v)),
                    Err(e) => format!("{} ver={:#x}", errno(e), version_after(v)),
                }
            }
            "prctl" => {
                let mut args = [0u64; 6];
                for (i, x) in a.iter().enumerate() {
                    args[i] = *x as u64;
                }
                match Syscall::from_raw(nr::PRCTL, args).and_then(|c| dispatch(k, t, &c)) {
                    Ok(SysRet::Value(v)) => format!("ret={v}"),
                    Ok(other) => panic!("prctl {text}: {other:?}"),
                    Err(e) => errno(e),
                }
            }
            "exec" => unit(k.execve(t, "/build/caps_rules")),
            "kill_parent" => {
                let p = self.parent();
                unit(self.k.kill(t, p, a[0] as i32))
            }
            "unshare" => unit(k.unshare(t, a[0] as u64)),
            "setns_pid" => {
                let f = k.ns_open(t, NsKind::Pid).unwrap();
                let r = k.setns(t, SetnsFd::Ns(f), CLONE_NEWPID);
                k.ns_close(f).unwrap();
                unit(r)
            }
            "clone" => {
                let args = CloneArgs::from_clone_flags(a[0] as u64 | SIGCHLD as u64);
                let c = k.clone(t, &args);
                self.child(c)
            }
            "fork" => {
                let c = k.fork(t);
                self.child(c)
            }
            "setrlimit" => {
                let l = Rlimit {
                    cur: a[1] as u64,
                    max: a[2] as u64,
                };
                unit(k.setrlimit(t, id(0), l))
            }
            "prlimit_parent" => {
                let p = self.parent();
                unit(self.k.prlimit64(t, p, id(0), None).map(|_| ()))
            }
            "spawn" => {
                self.spawned = Some(k.fork(t).unwrap());
                "ok".into()
            }
            "seize" => {
                let c = self.spawned.unwrap();
                let p = k.pid_vnr(t, c).unwrap();
                unit(k.ptrace_seize(t, p, 0))
            }
            "traceme_after_capset" => {
                let c = k.fork(t).unwrap();
                let d = CapUserData {
                    effective: KernelCap::new(a[0] as u64),
                    permitted: KernelCap::new(a[1] as u64),
                    inheritable: KernelCap::new(a[2] as u64),
                };
                let r = unit(k.capset(t, LINUX_CAPABILITY_VERSION_3, 0, Some(d)));
                let tr = unit(k.ptrace_traceme(c));
                let p = k.pid_vnr(t, c).unwrap();
                k.exit_group(c, 0).unwrap();
                k.wait4(t, p, 0).unwrap();
                format!("capset={r} traceme={tr}")
            }
            "reap" => {
                let c = self.spawned.take().unwrap();
                let p = k.pid_vnr(t, c).unwrap();
                k.kill(t, p, SIGKILL).unwrap();
                k.wait4(t, p, 0).unwrap();
                "ok".into()
            }
            other => panic!("unknown op {other}"),
        }
    }
}

#[test]
fn capability_rules_answer_as_linux() {
    let mut lines = CAPS_RULES.lines();
    let start = lines.next().unwrap().strip_prefix("start | ").unwrap();
    let mut case: Option<(String, Case)> = None;
    let (mut n, mut bad) = (0, Vec::new());
    let mut names = std::collections::BTreeSet::new();
    for line in lines {
        let (name, rest) = line.split_once(' ').unwrap();
        let (op, _) = rest.split_once(" -> ").unwrap();
        if case.as_ref().is_none_or(|(c, _)| c != name) {
            case = Some((name.to_string(), Case::new(start)));
            names.insert(name.to_string());
        }
        let c = &mut case.as_mut().unwrap().1;
        let res = c.op(op);
        let got = format!("{name} {op} -> {res} | {}", state(&c.k, c.t));
        n += 1;
        if got != line {
            bad.push(format!("want {line}\n got {got}"));
        }
    }
    assert!(n > 200 && names.len() > 30, "fixture too short: {n} lines");
    assert!(
        bad.is_empty(),
        "{} of {n} differ:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
