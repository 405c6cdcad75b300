//! The reference model against Linux's capability recording
//! (crates/taskcore/tests/oracle/caps_rules.out): every case made only of
//! calls the model has (the set*id family, `setgroups`, exec, kill,
//! unshare, clone, fork, resource limits) is replayed on the model, whose
//! credentials (ids and the five capability sets) must be the recorded
//! ones after every call, with the recorded result.
//!
//! The model's init has every capability; the recording machine's root
//! may lack some (a container without `CAP_SYS_RESOURCE`). These cases
//! only move sets that start as root's, so the model's sets are compared
//! within the recording's bounding set, and no case here depends on a
//! capability outside it.

use taskcore::{CloneArgs, Config, Cred, Errno, KernelCap, Rlimit};
use taskcore_model::{Model, Tid};

const CAPS_RULES: &str = include_str!("../../../taskcore/tests/it/oracle/caps_rules.out");

fn num(t: &str) -> i64 {
    match t.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).unwrap() as i64,
        None => t.parse().unwrap(),
    }
}

fn field<'a>(state: &'a str, key: &str) -> &'a str {
    state
        .split(' ')
        .find_map(|f| f.strip_prefix(key))
        .unwrap_or_else(|| panic!("{key} in {state}"))
}

fn set(state: &str, key: &str) -> KernelCap {
    KernelCap::new(u64::from_str_radix(field(state, key), 16).unwrap())
}

/// The model's credentials in the recording's state format (ids and sets
/// within `mask`).
fn state(c: &Cred, mask: KernelCap) -> String {
    format!(
        "uid={},{},{},{} gid={},{},{},{} inh={} prm={} eff={} bnd={} amb={}",
        c.uid,
        c.euid,
        c.suid,
        c.fsuid,
        c.gid,
        c.egid,
        c.sgid,
        c.fsgid,
        c.cap_inheritable.intersect(mask),
        c.cap_permitted.intersect(mask),
        c.cap_effective.intersect(mask),
        c.cap_bset.intersect(mask),
        c.cap_ambient.intersect(mask)
    )
}

/// The recorded state without the fields the model does not keep.
fn recorded_state(s: &str) -> String {
    s.split(" sb=").next().unwrap().to_string()
}

const MODEL_OPS: [&str; 15] = [
    "setuid",
    "setgid",
    "setreuid",
    "setregid",
    "setresuid",
    "setresgid",
    "setfsuid",
    "setfsgid",
    "setgroups",
    "exec",
    "kill_parent",
    "unshare",
    "clone",
    "fork",
    "setrlimit",
];

fn unit(r: Result<(), Errno>) -> String {
    match r {
        Ok(()) => "ok".into(),
        Err(e) => format!("{e:?}"),
    }
}

struct Case {
    m: Model,
    driver: Tid,
    t: Tid,
}

impl Case {
    fn new() -> Case {
        let mut m = Model::new(Config::default()).unwrap();
        let init = m.init_task().unwrap();
        let driver = m.fork(init).unwrap();
        let t = m.fork(driver).unwrap();
        Case { m, driver, t }
    }

    fn op(&mut self, text: &str) -> String {
        let w: Vec<&str> = text.split(' ').collect();
        let a: Vec<i64> = w[1..].iter().map(|x| num(x)).collect();
        let id = |i: usize| a[i] as u32;
        let (m, t) = (&mut self.m, self.t);
        let fsret = |r: Result<u32, Errno>| format!("ret={}", r.unwrap() as i32);
        match w[0] {
            "setuid" => unit(m.setuid(t, id(0))),
            "setgid" => unit(m.setgid(t, id(0))),
            "setreuid" => unit(m.setreuid(t, id(0), id(1))),
            "setregid" => unit(m.setregid(t, id(0), id(1))),
            "setresuid" => unit(m.setresuid(t, id(0), id(1), id(2))),
            "setresgid" => unit(m.setresgid(t, id(0), id(1), id(2))),
            "setfsuid" => fsret(m.setfsuid(t, id(0))),
            "setfsgid" => fsret(m.setfsgid(t, id(0))),
            "setgroups" => {
                let g: Vec<u32> = if a[0] < 0 { vec![] } else { vec![id(0)] };
                unit(m.setgroups(t, &g))
            }
            "exec" => unit(m.execve(t, "/build/caps_rules")),
            "kill_parent" => {
                let p = m.pid_vnr(t, self.driver).unwrap();
                unit(m.kill(t, p, a[0] as i32))
            }
            "unshare" => unit(m.unshare(t, a[0] as u64)),
            "clone" | "fork" => {
                let c = if w[0] == "fork" {
                    m.fork(t)
                } else {
                    let flags = a[0] as u64 | taskcore::uapi::SIGCHLD as u64;
                    m.clone(t, &CloneArgs::from_clone_flags(flags))
                };
                match c {
                    Ok(c) => {
                        let p = m.pid_vnr(t, c).unwrap();
                        m.exit_group(c, 0).unwrap();
                        m.wait4(t, p, 0).unwrap();
                        "ok".into()
                    }
                    Err(e) => format!("{e:?}"),
                }
            }
            "setrlimit" => {
                let l = Rlimit {
                    cur: a[1] as u64,
                    max: a[2] as u64,
                };
                unit(m.prlimit64(t, 0, id(0), Some(l)).map(drop))
            }
            other => panic!("unknown op {other}"),
        }
    }
}

#[test]
fn model_credentials_follow_the_capability_recording() {
    let mut lines = CAPS_RULES.lines();
    let start = lines.next().unwrap().strip_prefix("start | ").unwrap();
    // Group the lines by case, keeping the cases the model can make.
    let mut cases: Vec<(&str, Vec<&str>)> = Vec::new();
    for line in lines {
        let name = line.split(' ').next().unwrap();
        match cases.last_mut() {
            Some((n, v)) if *n == name => v.push(line),
            _ => cases.push((name, vec![line])),
        }
    }
    let mask = set(start, "bnd=");
    // Root's sets in the recording: all of its bounding set.
    assert_eq!(set(start, "prm="), mask);
    assert_eq!(set(start, "eff="), mask);
    let mut n = 0;
    let mut bad = Vec::new();
    for (name, lines) in &cases {
        let model_only = lines.iter().all(|l| {
            let op = l.split(' ').nth(1).unwrap();
            MODEL_OPS.contains(&op)
        });
        if !model_only {
            continue;
        }
        let mut c = Case::new();
        for line in lines {
            let rest = line.split_once(' ').unwrap().1;
            let (op, after) = rest.split_once(" -> ").unwrap();
            let (res, st) = after.split_once(" | ").unwrap();
            let got_res = c.op(op);
            let got = state(&c.m.cred(c.t).unwrap(), mask);
            n += 1;
            if got_res != res || got != recorded_state(st) {
                bad.push(format!(
                    "{name} {op}\n want {res} {}\n  got {got_res} {got}",
                    recorded_state(st)
                ));
            }
        }
    }
    assert!(n >= 25, "{n} lines");
    assert!(bad.is_empty(), "{} differ:\n{}", bad.len(), bad.join("\n"));
}
