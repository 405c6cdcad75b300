//! Resource limits: the rules of setrlimit/prlimit64, inheritance, the
//! `RLIMIT_NPROC` check of fork and `/proc/PID/limits`, compared with
//! answers recorded from real Linux by tests/oracle/rlimit_rules.c
//! (re-record with tests/oracle/record.sh).

use crate::common::recorded;

use taskcore::procfs::{ProcClock, ProcFs};
use taskcore::uapi::*;
use taskcore::{Errno, Kernel, Rlimit, TaskId};

const RLIMIT_RULES: &str = include_str!("oracle/rlimit_rules.out");

fn want(key: &str) -> &'static str {
    recorded::want(RLIMIT_RULES, key)
}

fn outcome<T>(r: Result<T, Errno>) -> String {
    match r {
        Ok(_) => "ok".into(),
        Err(e) => format!("{e:?}"),
    }
}

fn kernel() -> (Kernel, TaskId, TaskId) {
    let mut k = Kernel::new(taskcore::Config::default()).unwrap();
    let init = k.init_task().unwrap();
    let p = k.fork(init).unwrap();
    (k, init, p)
}

fn lim(cur: u64, max: u64) -> Rlimit {
    Rlimit { cur, max }
}

fn read(k: &Kernel, path: &str) -> Vec<u8> {
    let clock = ProcClock {
        now_ns: 1_000_000_000,
        boot_ns: 0,
        boot_wall_s: 1_700_000_000,
    };
    let fs = ProcFs::new(k, k.root_ns(), clock).unwrap();
    fs.read(fs.resolve(path.as_bytes()).unwrap()).unwrap()
}

#[test]
fn proc_limits_is_byte_exact() {
    let begin = RLIMIT_RULES.find("limits_begin\n").unwrap() + "limits_begin\n".len();
    let end = RLIMIT_RULES.find("limits_end\n").unwrap();
    let table = &RLIMIT_RULES[begin..end];
    let (mut k, init, p) = kernel();
    // The values come from the recorded table; the layout is the library's.
    let num = |s: &str| match s.trim() {
        "unlimited" => RLIM_INFINITY,
        n => n.parse().unwrap(),
    };
    for (i, row) in table.lines().skip(1).enumerate() {
        let l = lim(num(&row[26..46]), num(&row[47..67]));
        k.setrlimit(p, i as u32, l).unwrap();
    }
    let nr = k.pid_vnr(init, p).unwrap();
    let got = String::from_utf8(read(&k, &format!("{nr}/limits"))).unwrap();
    assert_eq!(got, table);
}

#[test]
fn limit_rules_answer_as_linux() {
    let (mut k, init, p) = kernel();
    let nofile = RLIMIT_NOFILE;
    let r = k.setrlimit(p, nofile, lim(100, NR_OPEN + 1));
    assert_eq!(outcome(r), want("root_nofile_over_nr_open"));
    k.setrlimit(p, nofile, lim(100, 200)).unwrap();
    k.setresgid(p, 1000, 1000, 1000).unwrap();
    k.setresuid(p, 1000, 1000, 1000).unwrap();
    let cases = [
        ("user_raise_hard", lim(100, 300)),
        ("user_cur_gt_max", lim(300, 200)),
        ("user_lower_hard", lim(100, 150)),
        ("user_raise_back", lim(100, 200)),
        ("user_soft_to_hard", lim(150, 150)),
    ];
    for (name, l) in cases {
        assert_eq!(outcome(k.setrlimit(p, nofile, l)), want(name), "{name}");
    }
    assert_eq!(outcome(k.getrlimit(p, 16)), want("get_resource_16"));
    assert_eq!(
        outcome(k.setrlimit(p, 16, lim(1, 1))),
        want("set_resource_16")
    );
    let parent = k.pid_vnr(p, init).unwrap();
    let r = k.prlimit64(p, parent, nofile, None);
    assert_eq!(outcome(r), want("prlimit_root_parent"));
    let r = k.prlimit64(p, 99_999_999, nofile, None);
    assert_eq!(outcome(r), want("prlimit_missing_pid"));
    let me = k.pid_vnr(p, p).unwrap();
    let r = k.prlimit64(p, me, nofile, None);
    assert_eq!(outcome(r), want("prlimit_self_pid"));
    let l = r.unwrap();
    assert_eq!(format!("{} {}", l.cur, l.max), want("prlimit_self_values"));
    let c = k.fork(p).unwrap();
    let l = k.getrlimit(c, nofile).unwrap();
    assert_eq!(format!("{} {}", l.cur, l.max), want("inherited"));
    k.exit_group(c, 0).unwrap();
    let cn = k.pid_vnr(p, c).unwrap();
    k.wait4(p, cn, 0).unwrap();
    // RLIMIT_NPROC: the caller counts; fork until refused.
    k.setrlimit(p, RLIMIT_NPROC, lim(3, 3)).unwrap();
    let mut ok = 0;
    let refused = loop {
        match k.fork(p) {
            Ok(_) if ok < 8 => ok += 1,
            r => break r,
        }
    };
    assert_eq!(ok.to_string(), want("nproc_forks"));
    assert_eq!(outcome(refused), want("nproc_refused"));
    // Root (real uid 0) is exempt.
    let q = k.fork(init).unwrap();
    k.setrlimit(q, RLIMIT_NPROC, lim(1, 1)).unwrap();
    assert_eq!(outcome(k.fork(q)), want("nproc_root_exempt"));
}

#[test]
fn set_core_dumps_is_rlimit_core() {
    let (mut k, _init, p) = kernel();
    assert_eq!(k.getrlimit(p, RLIMIT_CORE).unwrap().cur, 0);
    k.set_core_dumps(true);
    assert_eq!(k.getrlimit(p, RLIMIT_CORE).unwrap().cur, RLIM_INFINITY);
    // A process that lowers its own limit no longer dumps core.
    let c = k.fork(p).unwrap();
    k.setrlimit(c, RLIMIT_CORE, lim(0, RLIM_INFINITY)).unwrap();
    let d = k.fork(p).unwrap();
    for (t, bit) in [(c, 0), (d, 0x80)] {
        let nr = k.pid_vnr(p, t).unwrap();
        k.kill(p, nr, SIGQUIT).unwrap();
        let w = k.wait4(p, nr, 0).unwrap();
        let status = match w {
            taskcore::WaitOutcome::Reported(r) => r.status,
            other => panic!("{other:?}"),
        };
        assert_eq!(status, SIGQUIT | bit);
    }
}
