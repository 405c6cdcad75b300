//! The set*id family, kill's permission check, `si_uid` and the id lines of
//! `/proc/PID/status`, compared with answers recorded from real Linux by
//! tests/oracle/cred_rules.c and kill_perm.c (re-record with
//! tests/oracle/record.sh).

use taskcore::procfs::{ProcClock, ProcFs};
use taskcore::uapi::*;
use taskcore::{Config, Errno, Kernel, TaskId};

const CRED_RULES: &str = include_str!("oracle/cred_rules.out");
const KILL_PERM: &str = include_str!("oracle/kill_perm.out");

fn ids(field: &str) -> Vec<u32> {
    let (_, list) = field.split_once('=').unwrap();
    list.split(',')
        .map(|x| x.parse::<i64>().unwrap() as u32)
        .collect()
}

fn errno_name(e: Errno) -> String {
    format!("{e:?}")
}

/// One recorded line: start from its ids, make its call, render the
/// outcome in the program's format.
fn replay(line: &str) -> String {
    let f: Vec<&str> = line.split(' ').collect();
    let (call, u, g, a) = (f[0], ids(f[1]), ids(f[2]), ids(f[3]));
    let mut k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    let t = k.fork(init).unwrap();
    // As the recording's child: root sets its groups, gids, then uids
    // (the capabilities follow the uids).
    k.setgroups(t, &[]).unwrap();
    k.setresgid(t, g[0], g[1], g[2]).unwrap();
    k.setresuid(t, u[0], u[1], u[2]).unwrap();
    let r: Result<Option<u32>, Errno> = match call {
        "setuid" => k.setuid(t, a[0]).map(|_| None),
        "setgid" => k.setgid(t, a[0]).map(|_| None),
        "setreuid" => k.setreuid(t, a[0], a[1]).map(|_| None),
        "setregid" => k.setregid(t, a[0], a[1]).map(|_| None),
        "setresuid" => k.setresuid(t, a[0], a[1], a[2]).map(|_| None),
        "setresgid" => k.setresgid(t, a[0], a[1], a[2]).map(|_| None),
        "setfsuid" => k.setfsuid(t, a[0]).map(Some),
        "setfsgid" => k.setfsgid(t, a[0]).map(Some),
        other => panic!("unknown call {other}"),
    };
    let res = match r {
        Ok(None) => "ok".to_string(),
        Ok(Some(v)) => format!("ret={v}"),
        Err(e) => errno_name(e),
    };
    let c = k.cred(t).unwrap();
    format!(
        "{} {} {} {} -> {res} uid={},{},{},{} gid={},{},{},{}",
        f[0], f[1], f[2], f[3], c.uid, c.euid, c.suid, c.fsuid, c.gid, c.egid, c.sgid, c.fsgid
    )
}

#[test]
fn set_id_calls_answer_as_linux() {
    let mut bad = Vec::new();
    let mut n = 0;
    for line in CRED_RULES.lines() {
        n += 1;
        let got = replay(line);
        if got != line {
            bad.push(format!("want {line}\n got {got}"));
        }
    }
    assert!(n > 800, "fixture too short: {n}");
    assert!(
        bad.is_empty(),
        "{} of {n} differ:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// `key value...` lines of kill_perm.out.
fn kill_fixture(key: &str) -> String {
    KILL_PERM
        .lines()
        .find_map(|l| l.strip_prefix(key).and_then(|r| r.strip_prefix(' ')))
        .unwrap_or_else(|| panic!("{key} not recorded"))
        .to_string()
}

fn outcome(r: Result<(), Errno>) -> String {
    match r {
        Ok(()) => "ok".into(),
        Err(e) => errno_name(e),
    }
}

/// As kill_perm.c's children: groups, gids, then uids, set by root.
fn user(k: &mut Kernel, t: TaskId, uid: u32, euid: u32, suid: u32) {
    k.setgroups(t, &[20, 5]).unwrap();
    k.setresgid(t, 100, 100, 100).unwrap();
    k.setresuid(t, uid, euid, suid).unwrap();
}

#[test]
fn kill_permission_answers_as_linux() {
    // As kill_perm.c: a root parent; A (uid 1000, own session), B (uid
    // 1001, own session), C (real 1001, effective 1000, A's session via a
    // fork of A), D (uid 1001, a child of A in A's session).
    let mut k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    let root = k.fork(init).unwrap();
    let a = k.fork(root).unwrap();
    k.setsid(a).unwrap();
    let b = k.fork(root).unwrap();
    k.setsid(b).unwrap();
    let d = k.fork(a).unwrap();
    user(&mut k, a, 1000, 1000, 1000);
    user(&mut k, b, 1001, 1001, 1001);
    user(&mut k, d, 1001, 1001, 1001);
    let nr = |k: &Kernel, t| k.pid_vnr(root, t).unwrap();
    let (bn, dn, an) = (nr(&k, b), nr(&k, d), nr(&k, a));
    let cases: Vec<(&str, Result<(), Errno>)> = vec![
        ("a_kills_b_sig0", k.kill(a, bn, 0)),
        ("a_kills_b_term", k.kill(a, bn, SIGTERM)),
        ("a_cont_b_other_session", k.kill(a, bn, SIGCONT)),
        ("a_cont_d_same_session", k.kill(a, dn, SIGCONT)),
        ("a_tkill_b", k.tkill(a, bn, SIGUSR1)),
        ("a_kills_pgrp_b", k.kill(a, -bn, 0)),
        ("a_kills_bad_sig_b", k.kill(a, bn, 65)),
        ("b_kills_a_usr1_after_setreuid", {
            // A process with real uid 1000, effective 1001 (as the
            // recording's last child, set up by root).
            let e = k.fork(root).unwrap();
            user(&mut k, e, 1000, 1001, 1001);
            k.kill(e, an, 0)
        }),
        ("root_kills_a", k.kill(root, an, 0)),
    ];
    for (name, got) in cases {
        assert_eq!(outcome(got), kill_fixture(name), "{name}");
    }
}

#[test]
fn si_uid_and_status_lines_are_the_tasks_ids() {
    let mut k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    let root = k.fork(init).unwrap();
    let c = k.fork(root).unwrap();
    k.setgroups(c, &[27, 4, 1000]).unwrap();
    k.setresgid(c, 1000, 1001, 1002).unwrap();
    k.setresuid(c, 1000, 1001, 0).unwrap();
    let clock = ProcClock {
        now_ns: 1_000_000_000,
        boot_ns: 0,
        boot_wall_s: 1_700_000_000,
    };
    let status = {
        let fs = ProcFs::new(&k, k.root_ns(), clock).unwrap();
        let node = fs
            .resolve(format!("{}/status", k.pid_vnr(root, c).unwrap()).as_bytes())
            .unwrap();
        String::from_utf8(fs.read(node).unwrap()).unwrap()
    };
    for key in ["Uid:", "Gid:", "Groups:", "CapPrm:", "CapEff:"] {
        let got = status.lines().find(|l| l.starts_with(key)).unwrap();
        let want = kill_fixture(&format!("status_{}", &key[..key.len() - 1]));
        if key.starts_with("Cap") {
            // The recording machine's bounding set may lack some
            // capabilities: compare "some" against "none".
            let some = |l: &str| l.rsplit('\t').next() != Some("0000000000000000");
            assert_eq!(some(got), some(&want), "{key}: {got} vs {want}");
        } else {
            assert_eq!(got, want, "{key}");
        }
    }
    k.exit_group(c, 0).unwrap();
    let cn = k.pid_vnr(root, c).unwrap();
    let w = k.waitid(root, P_PID, cn, WEXITED).unwrap();
    let uid = match w {
        taskcore::WaitOutcome::Reported(r) => r.info.uid,
        other => panic!("{other:?}"),
    };
    assert_eq!(uid.to_string(), kill_fixture("si_uid"));
}
