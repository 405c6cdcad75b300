//! clone(2) and clone3(2) argument rules, and `/proc/loadavg`'s namespace,
//! compared with answers recorded from real Linux by the programs in
//! tests/oracle/ (`clone_rules.c`, `loadavg_ns.c`; re-record with
//! tests/oracle/record.sh).

use taskcore::procfs::{ProcClock, ProcFs};
use taskcore::uapi::*;
use taskcore::{Clone3Args, Errno, Kernel, TaskId};

use crate::common::clone_oracle::{self, c3, cl, fixture};

const LOADAVG_NS: &str = include_str!("oracle/loadavg_ns.out");

// The recorded clone and clone3 cases, shared with the reference model.
clone_oracle::clone_oracle_tests!(Kernel);

/// A kernel with init and one ordinary process (the recording program).
fn runner() -> (Kernel, TaskId) {
    clone_oracle::runner::<Kernel>("")
}

#[test]
fn clone3_into_cgroup_fails_last_and_changes_nothing() {
    // Linux looks at the cgroup fd after alloc_pid() (recorded above:
    // EEXIST, EINVAL and EPERM come first). The pid it took is freed and,
    // as for a failing alloc_pid() (taskcore's documented divergence), the
    // cursor is put back: the next fork gets the number it would have got.
    let (mut k, p) = runner();
    let a = k.fork(p).unwrap();
    let a_nr = k.pid_vnr(p, a).unwrap();
    let cg = Clone3Args {
        cgroup: 999,
        ..c3(CLONE_INTO_CGROUP, SIGCHLD as u64)
    };
    let tasks = k.nr_tasks();
    assert_eq!(k.clone3(p, &cg), Err(Errno::EBADF));
    assert_eq!(k.nr_tasks(), tasks);
    assert_eq!(k.pid_in_use(p, a_nr + 1), Ok(false));
    let b = k.fork(p).unwrap();
    assert_eq!(k.pid_vnr(p, b), Ok(a_nr + 1));
    k.check_invariants();
}

#[test]
fn clone3_refuses_exit_signal_with_parent_where_clone_ignores_it() {
    // Regression: one entry once applied clone(2)'s rule to clone3.
    let (mut k, p) = runner();
    let args = c3(CLONE_PARENT, SIGCHLD as u64);
    assert_eq!(k.clone3(p, &args), Err(Errno::EINVAL));
    assert!(k.clone(p, &cl(CLONE_PARENT | SIGCHLD as u64)).is_ok());
}

#[test]
fn loadavg_last_pid_is_the_readers_namespace() {
    let want = fixture(LOADAVG_NS);
    let (mut k, p) = runner();
    // Host pids used before the namespace, as on a real machine.
    for _ in 0..5 {
        k.fork(p).unwrap();
    }
    let ns_init = k.clone(p, &cl(CLONE_NEWPID | SIGCHLD as u64)).unwrap();
    let c = k.fork(ns_init).unwrap();
    assert_eq!(
        k.pid_vnr(ns_init, ns_init).unwrap().to_string(),
        want["init_pid"]
    );
    assert_eq!(
        k.pid_vnr(ns_init, c).unwrap().to_string(),
        want["child_pid"]
    );
    let cnr = k.pid_vnr(ns_init, c).unwrap();
    k.exit_group(c, 0).unwrap();
    k.wait4(ns_init, cnr, 0).unwrap();
    let clock = ProcClock {
        now_ns: 1_000_000_000,
        boot_ns: 0,
        boot_wall_s: 1_700_000_000,
    };
    let fs = ProcFs::new(&k, k.root_ns(), clock)
        .unwrap()
        .with_current(ns_init)
        .unwrap();
    let node = fs.resolve(b"loadavg").unwrap();
    let text = String::from_utf8(fs.read(node).unwrap()).unwrap();
    let last = text.trim_end().rsplit(' ').next().unwrap();
    assert_eq!(last, want["init_reads_last_pid"], "{text}");
}
