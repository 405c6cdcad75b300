//! unshare(CLONE_NEWPID), setns(CLONE_NEWPID), the /proc/PID/ns links and
//! the NS* lines of /proc/PID/status against answers recorded from real
//! Linux by tests/oracle/pidns_rules.c (re-record with
//! tests/oracle/record.sh). Inode numbers are compared by name (ROOT, NS1,
//! NS2 in order of first sight), as the recording prints them.

use crate::common::recorded;

use std::collections::HashMap;

use taskcore::procfs::{ProcClock, ProcFs};
use taskcore::uapi::{CLONE_NEWNS, CLONE_NEWPID, CLONE_PARENT, CLONE_THREAD, SIGCHLD, SIGKILL};
use taskcore::{CloneArgs, Config, Errno, Kernel, NsKind, SetnsFd, TaskId};

const OUT: &str = include_str!("oracle/pidns_rules.out");

fn want(key: &str) -> &'static str {
    recorded::want(OUT, key)
}

fn check<T>(key: &str, r: Result<T, Errno>) {
    recorded::check(OUT, key, r)
}

/// Names inode numbers as the recording does.
#[derive(Default)]
struct Names(HashMap<u64, usize>);

impl Names {
    fn link(&mut self, k: &Kernel, t: TaskId, kind: NsKind) -> String {
        match k.ns_readlink(t, kind) {
            Err(e) => format!("{e:?}"),
            Ok(s) => {
                let ino: u64 = s["pid:[".len()..s.len() - 1].parse().unwrap();
                let n = self.0.len();
                let i = *self.0.entry(ino).or_insert(n);
                if i == 0 {
                    format!(
                        "pid:[ROOT] ino_is_0xeffffffc {}",
                        u8::from(ino == 0xeffffffc)
                    )
                } else {
                    format!("pid:[NS{i}]")
                }
            }
        }
    }
}

fn status(k: &Kernel, nr: i32) -> String {
    let clock = ProcClock {
        now_ns: 1_000_000_000,
        boot_ns: 0,
        boot_wall_s: 1_700_000_000,
    };
    let fs = ProcFs::new(k, k.root_ns(), clock).unwrap();
    let path = format!("{nr}/status");
    String::from_utf8(fs.read(fs.resolve(path.as_bytes()).unwrap()).unwrap()).unwrap()
}

#[test]
fn unshare_and_links_as_linux() {
    let mut k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    // As the recording: run from a job (its own process group) of a session.
    let shell = k.fork(init).unwrap();
    k.setsid(shell).unwrap();
    let main = k.fork(shell).unwrap();
    k.setpgid(main, 0, 0).unwrap();
    let mut n = Names::default();
    assert_eq!(n.link(&k, main, NsKind::Pid), want("root_pid"));
    assert_eq!(
        n.link(&k, main, NsKind::PidForChildren),
        want("root_pid_for_children")
    );
    check("unshare_clone_parent", k.unshare(main, CLONE_PARENT));
    check("unshare_csignal_bit", k.unshare(main, 1));
    check("unshare_thread_single", k.unshare(main, CLONE_THREAD));

    let a = k.fork(main).unwrap();
    k.setpgid(a, 0, 0).unwrap();
    let _th = k.clone(a, &CloneArgs::thread()).unwrap();
    check("unshare_thread_multi", k.unshare(a, CLONE_THREAD));
    check("unshare_newpid_multi_thread", k.unshare(a, CLONE_NEWPID));
    assert_eq!(
        n.link(&k, a, NsKind::PidForChildren),
        want("multi_thread_pid_for_children")
    );

    let a = k.fork(main).unwrap();
    check("unshare_newpid", k.unshare(a, CLONE_NEWPID));
    assert_eq!(n.link(&k, a, NsKind::Pid), want("after_unshare_pid"));
    assert_eq!(
        n.link(&k, a, NsKind::PidForChildren),
        want("after_unshare_pid_for_children")
    );
    check("unshare_newpid_again", k.unshare(a, CLONE_NEWPID));
    let newpid = CloneArgs {
        flags: CLONE_NEWPID,
        exit_signal: SIGCHLD,
        set_tid: vec![],
    };
    check("clone_newpid_after_unshare", k.clone(a, &newpid));
    check(
        "clone_thread_after_unshare",
        k.clone(a, &CloneArgs::thread()),
    );
    let b = k.fork(a).unwrap();
    assert_eq!(
        k.pid_vnr(b, b).unwrap().to_string(),
        want("first_child_getpid")
    );
    assert_eq!(n.link(&k, b, NsKind::Pid), want("first_child_pid"));
    assert_eq!(
        n.link(&k, b, NsKind::PidForChildren),
        want("first_child_pid_for_children")
    );
    assert_eq!(
        n.link(&k, a, NsKind::PidForChildren),
        want("after_fork_pid_for_children")
    );
    // The NS* lines of the namespace's init, read from the root namespace.
    let v = |t| k.pid_vnr(main, t).unwrap();
    let names = [
        v(b),
        v(a),
        k.getpgid(a, 0).unwrap(),
        k.getsid(a, 0).unwrap(),
    ];
    let bnr = v(b);
    let st = status(&k, bnr);
    let ns_lines: Vec<String> = st
        .lines()
        .filter(|l| l.starts_with("NS"))
        .map(|l| {
            let mut it = l.split('\t');
            let mut s = format!("first_child_status {}", it.next().unwrap());
            for x in it {
                let x: i32 = x.parse().unwrap();
                match names.iter().position(|&p| p == x) {
                    Some(i) => s += &format!(" P{i}"),
                    None => s += &format!(" {x}"),
                }
            }
            s
        })
        .collect();
    let recorded: Vec<&str> = OUT
        .lines()
        .filter(|l| l.starts_with("first_child_status "))
        .collect();
    assert_eq!(ns_lines, recorded);
    let c = k.fork(a).unwrap();
    assert_eq!(
        k.pid_vnr(c, c).unwrap().to_string(),
        want("second_child_getpid")
    );
    k.exit_group(c, 0).unwrap();
    k.wait4(a, -1, 0).unwrap();
    check("unshare_newpid_after_fork", k.unshare(a, CLONE_NEWPID));
    k.kill(a, bnr, SIGKILL).unwrap();
    assert_eq!(n.link(&k, b, NsKind::Pid), want("zombie_init_pid"));
    assert_eq!(
        n.link(&k, b, NsKind::PidForChildren),
        want("zombie_init_pid_for_children")
    );
    k.wait4(a, -1, 0).unwrap();
    check("fork_after_ns_init_died", k.fork(a));
    k.check_invariants();
}

#[test]
fn setns_as_linux() {
    let mut k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    let main = k.fork(init).unwrap();
    let mut n = Names::default();
    n.link(&k, main, NsKind::Pid);
    let rootfd = k.ns_open(main, NsKind::Pid).unwrap();
    let rf = SetnsFd::Ns(rootfd);
    check("setns_current_newpid", k.setns(main, rf, CLONE_NEWPID));
    check("setns_current_0", k.setns(main, rf, 0));
    check("setns_current_wrong_type", k.setns(main, rf, CLONE_NEWNS));
    let closed = k.ns_open(main, NsKind::Pid).unwrap();
    k.ns_close(closed).unwrap();
    check(
        "setns_bad_fd",
        k.setns(main, SetnsFd::Ns(closed), CLONE_NEWPID),
    );
    let newpid = CloneArgs {
        flags: CLONE_NEWPID,
        exit_signal: SIGCHLD,
        set_tid: vec![],
    };
    // The recording saw a first namespace (NS1) before this one.
    let warm = k.clone(main, &newpid).unwrap();
    n.link(&k, warm, NsKind::Pid);
    let d = k.clone(main, &newpid).unwrap();
    check("ns_init_setns_to_parent_ns", k.setns(d, rf, CLONE_NEWPID));
    assert_eq!(
        n.link(&k, d, NsKind::PidForChildren),
        want("ns_init_pid_for_children_after_failed_setns")
    );
    let dnr = k.pid_vnr(main, d).unwrap();
    let dfd = k.pidfd_open(main, dnr, 0).unwrap();
    let dns = k.ns_open(d, NsKind::Pid).unwrap();
    assert_eq!(n.link(&k, d, NsKind::Pid), want("clone_newpid_child_pid"));
    check("setns_pidfd_0", k.setns(main, SetnsFd::PidFd(dfd), 0));
    check(
        "setns_pidfd_bad_flag",
        k.setns(main, SetnsFd::PidFd(dfd), 1),
    );
    let e = k.fork(main).unwrap();
    check(
        "setns_pidfd_descendant",
        k.setns(e, SetnsFd::PidFd(dfd), CLONE_NEWPID),
    );
    assert_eq!(n.link(&k, e, NsKind::Pid), want("after_setns_pid"));
    assert_eq!(
        n.link(&k, e, NsKind::PidForChildren),
        want("after_setns_pid_for_children")
    );
    check("setns_back_to_current", k.setns(e, rf, CLONE_NEWPID));
    assert_eq!(
        n.link(&k, e, NsKind::PidForChildren),
        want("after_setns_back_pid_for_children")
    );
    check(
        "setns_nsfd_descendant",
        k.setns(e, SetnsFd::Ns(dns), CLONE_NEWPID),
    );
    check("unshare_after_setns", k.unshare(e, CLONE_NEWPID));
    let g = k.fork(e).unwrap();
    assert_eq!(
        format!(
            "{} getppid {}",
            k.pid_vnr(g, g).unwrap(),
            k.getppid(g).unwrap()
        ),
        want("setns_child_getpid")
    );
    let u = k.fork(main).unwrap();
    k.setresgid(u, 100, 100, 100).unwrap();
    k.setresuid(u, 1000, 1000, 1000).unwrap();
    check(
        "setns_unprivileged",
        k.setns(u, SetnsFd::PidFd(dfd), CLONE_NEWPID),
    );
    check("unshare_unprivileged", k.unshare(u, CLONE_NEWPID));
    k.kill(main, dnr, SIGKILL).unwrap();
    let e2 = k.fork(main).unwrap();
    check(
        "setns_pidfd_zombie",
        k.setns(e2, SetnsFd::PidFd(dfd), CLONE_NEWPID),
    );
    k.wait4(main, dnr, 0).unwrap();
    check(
        "setns_pidfd_reaped",
        k.setns(main, SetnsFd::PidFd(dfd), CLONE_NEWPID),
    );
    let f = k.fork(main).unwrap();
    check(
        "setns_nsfd_of_dead_ns",
        k.setns(f, SetnsFd::Ns(dns), CLONE_NEWPID),
    );
    check("fork_into_dead_ns", k.fork(f));
    k.check_invariants();
}

#[test]
fn unshare_nesting_limit_as_linux() {
    let mut k = Kernel::new(Config::default()).unwrap();
    let mut t = k.fork(k.init_task().unwrap()).unwrap();
    let mut got = None;
    for depth in 1..=40 {
        if let Err(e) = k.unshare(t, CLONE_NEWPID) {
            got = Some(format!("{depth} {e:?}"));
            break;
        }
        t = k.fork(t).unwrap();
    }
    assert_eq!(got.unwrap(), want("unshare_nested_fails_at_level"));
    k.check_invariants();
}
