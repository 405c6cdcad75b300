//! `ptrace_may_access` and the dumpable flag against Linux
//! (tests/oracle/ptrace_access.c, .out; re-record with
//! tests/oracle/record.sh): `PTRACE_ATTACH` and `PTRACE_SEIZE` judge the
//! caller's real ids, opening `/proc/PID/maps` and the code bounds of
//! `/proc/PID/stat` and `readlink(/proc/PID/ns/pid)` its fs ids; a target
//! that is
//! not dumpable is refused to every caller but one with euid 0;
//! `PR_SET_DUMPABLE` takes 0 and 1 only. The same scenario is replayed on
//! the core (prctl through `sys::dispatch` from raw registers) and compared
//! line by line.

use taskcore::procfs::{ProcClock, ProcFs};
use taskcore::sys::{dispatch, nr, SysRet, Syscall};
use taskcore::task::cred::ID_UNCHANGED;
use taskcore::{Config, Errno, Kernel, NsKind, PtraceMode, TaskId};

const ORACLE: &str = include_str!("oracle/ptrace_access.out");

/// Ids as the C program's `struct ids` (uids r/e/s, gids r/e/s, fsuid,
/// dumpable), `None` for "left as is".
struct Ids {
    name: &'static str,
    u: [u32; 3],
    g: [u32; 3],
    fsuid: Option<u32>,
    dumpable: Option<u64>,
}

const fn ids(
    name: &'static str,
    u: [u32; 3],
    g: [u32; 3],
    fsuid: Option<u32>,
    dumpable: Option<u64>,
) -> Ids {
    Ids {
        name,
        u,
        g,
        fsuid,
        dumpable,
    }
}

const SAME: [u32; 3] = [1000, 1000, 1000];
const G: [u32; 3] = [2000, 2000, 2000];
const ROOT: [u32; 3] = [0, 0, 0];

const TARGETS: [Ids; 8] = [
    ids("same_dumpable", SAME, G, None, Some(1)),
    ids("same_undumpable", SAME, G, None, None),
    ids("same_set_undumpable", SAME, G, None, Some(0)),
    ids("suid_differs", [1000, 1000, 1001], G, None, Some(1)),
    ids("ruid_differs", [1001, 1000, 1000], G, None, Some(1)),
    ids("egid_differs", SAME, [2000, 2001, 2000], None, Some(1)),
    ids("root", ROOT, ROOT, None, None),
    ids("root_undumpable", ROOT, ROOT, None, Some(0)),
];

const CALLERS: [Ids; 7] = [
    ids("user", SAME, G, None, None),
    ids(
        "user_real_only",
        [1000, 1001, 1001],
        [2000, 2001, 2001],
        None,
        None,
    ),
    ids(
        "user_effective_only",
        [1001, 1000, 1000],
        [2001, 2000, 2000],
        None,
        None,
    ),
    ids("user_fsuid_other", [1000, 1000, 1001], G, Some(1001), None),
    ids("other_user", [1002, 1002, 1002], G, None, None),
    ids("euid_root", [1000, 0, 0], G, None, None),
    ids("root", ROOT, ROOT, None, None),
];

fn prctl(k: &mut Kernel, t: TaskId, option: u64, arg2: u64) -> String {
    let call = Syscall::from_raw(nr::PRCTL, [option, arg2, 0, 0, 0, 0]);
    match call.and_then(|c| dispatch(k, t, &c)) {
        Ok(SysRet::Value(v)) => format!("{v} 0"),
        Ok(other) => panic!("prctl returned {other:?}"),
        Err(e) => format!("-1 {}", e as i32),
    }
}

fn get_dumpable(k: &mut Kernel, t: TaskId) -> String {
    let r = prctl(k, t, nr::PR_GET_DUMPABLE, 0);
    r.strip_suffix(" 0").unwrap().to_string()
}

fn set_ids(k: &mut Kernel, t: TaskId, c: &Ids) {
    if c.u == ROOT && c.g == ROOT {
        return;
    }
    k.setresgid(t, c.g[0], c.g[1], c.g[2]).unwrap();
    k.setresuid(t, c.u[0], c.u[1], c.u[2]).unwrap();
    if let Some(fs) = c.fsuid {
        k.setfsuid(t, fs).unwrap();
    }
}

fn dumpable_rules(k: &mut Kernel, root: TaskId) -> String {
    let mut out = format!("get_dumpable_root {}\n", get_dumpable(k, root));
    let c = k.fork(root).unwrap();
    k.setresgid(c, 2000, 2000, 2000).unwrap();
    k.setresuid(c, 1000, 1000, 1000).unwrap();
    out += &format!("get_dumpable_after_setresuid {}\n", get_dumpable(k, c));
    out += &format!("set_dumpable_2 {}\n", prctl(k, c, nr::PR_SET_DUMPABLE, 2));
    out += &format!(
        "set_dumpable_minus1 {}\n",
        prctl(k, c, nr::PR_SET_DUMPABLE, u64::MAX)
    );
    out += &format!("set_dumpable_1 {}\n", prctl(k, c, nr::PR_SET_DUMPABLE, 1));
    out += &format!("get_dumpable_after_set {}\n", get_dumpable(k, c));
    let g = k.fork(c).unwrap();
    out += &format!("get_dumpable_forked_child {}\n", get_dumpable(k, g));
    k.exit_group(g, 0).unwrap();
    let gp = k.pid_vnr(c, g).unwrap();
    k.wait4(c, gp, 0).unwrap();
    out += &format!("set_dumpable_0 {}\n", prctl(k, c, nr::PR_SET_DUMPABLE, 0));
    out += &format!("get_dumpable_after_clear {}\n", get_dumpable(k, c));
    k.setresuid(c, 1000, ID_UNCHANGED, ID_UNCHANGED).unwrap();
    prctl(k, c, nr::PR_SET_DUMPABLE, 1);
    k.setresuid(c, ID_UNCHANGED, ID_UNCHANGED, 1000).unwrap();
    out += &format!("get_dumpable_after_same_ids {}\n", get_dumpable(k, c));
    k.exit_group(c, 0).unwrap();
    let cp = k.pid_vnr(root, c).unwrap();
    k.wait4(root, cp, 0).unwrap();
    out
}

fn errno(r: Result<(), Errno>) -> i32 {
    r.err().map_or(0, |e| e as i32)
}

fn pair(k: &mut Kernel, root: TaskId, tg: &Ids, cl: &Ids, op: usize) -> String {
    let t = k.fork(root).unwrap();
    set_ids(k, t, tg);
    if let Some(d) = tg.dumpable {
        k.pr_set_dumpable(t, d).unwrap();
    }
    let c = k.fork(root).unwrap();
    set_ids(k, c, cl);
    let pid = k.pid_vnr(c, t).unwrap();
    // The public check agrees with each gated operation.
    let mode = match op {
        0 | 1 => PtraceMode::AttachRealCreds,
        _ => PtraceMode::ReadFsCreds,
    };
    let may = k.ptrace_may_access(c, t, mode).is_ok();
    let e = match op {
        0 => errno(k.ptrace_attach(c, pid, false)),
        1 => errno(k.ptrace_seize(c, pid, 0)),
        _ => {
            let fs = ProcFs::new(k, k.root_ns(), ProcClock::default())
                .unwrap()
                .with_current(c)
                .unwrap();
            if op == 4 {
                match k.ns_readlink_as(c, t, NsKind::Pid) {
                    Ok(_) => 0,
                    Err(e) => e as i32,
                }
            } else if op == 2 {
                let node = fs.resolve(format!("{pid}/maps").as_bytes()).unwrap();
                errno(fs.read(node).map(drop))
            } else {
                let node = fs.resolve(format!("{pid}/stat").as_bytes()).unwrap();
                let stat = String::from_utf8(fs.read(node).unwrap()).unwrap();
                // Fields 3.. after the comm; 26 and 27 are startcode, endcode.
                let rest: Vec<&str> = stat.rsplit_once(") ").unwrap().1.split(' ').collect();
                i32::from(rest[23] == "1" && rest[24] == "1")
            }
        }
    };
    let refused = if op == 3 { e == 1 } else { e != 0 };
    assert_eq!(may, !refused, "ptrace_may_access({mode:?}) vs op {op}");
    k.exit_group(c, 0).unwrap();
    let cp = k.pid_vnr(root, c).unwrap();
    k.wait4(root, cp, 0).unwrap();
    let tp = k.pid_vnr(root, t).unwrap();
    k.kill(root, tp, 9).unwrap();
    k.exit_group(t, 128 + 9).unwrap_or(());
    k.wait4(root, tp, 0).unwrap();
    let name = ["attach", "seize", "maps", "stat_code_hidden", "ns_readlink"][op];
    format!("{name} {} {} {e}\n", tg.name, cl.name)
}

#[test]
fn ptrace_access_and_dumpable_as_linux() {
    let mut k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    let root = k.fork(init).unwrap();
    let mut out = dumpable_rules(&mut k, root);
    for op in 0..5 {
        for tg in &TARGETS {
            for cl in &CALLERS {
                out += &pair(&mut k, root, tg, cl, op);
            }
        }
    }
    let (want, got): (Vec<_>, Vec<_>) = (ORACLE.lines().collect(), out.lines().collect());
    for (i, (w, g)) in want.iter().zip(&got).enumerate() {
        assert_eq!(w, g, "line {}", i + 1);
    }
    assert_eq!(want.len(), got.len());
}
