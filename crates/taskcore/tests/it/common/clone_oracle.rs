//! clone(2) and clone3(2) argument rules against Linux's answers recorded
//! by tests/oracle/clone_rules.c (re-record with tests/oracle/record.sh),
//! shared by the core (crates/taskcore/tests/it/oracle_clone.rs) and the
//! reference model (crates/taskcore-model/tests/it/oracle_clone.rs): each
//! check is one function generic over [`TaskApi`], and
//! `clone_oracle_tests!(Type)` makes a `#[test]` of each for `Type`, so one
//! text of the recorded cases holds both implementations to Linux.

#![allow(dead_code)]

use std::collections::BTreeMap;

use taskcore::sys::TaskApi;
use taskcore::uapi::*;
use taskcore::{Clone3Args, CloneArgs, Config, Errno, SigAction, SigHandler};

/// The recording.
pub(crate) const CLONE_RULES: &str = include_str!("../oracle/clone_rules.out");

/// `name -> answer` lines of a recorded fixture.
pub(crate) fn fixture(text: &str) -> BTreeMap<&str, &str> {
    text.lines()
        .filter_map(|l| l.split_once(' '))
        .collect::<BTreeMap<_, _>>()
}

/// `ok` or the errno's name, as the oracle programs print a result.
pub(crate) fn answer<T>(r: &Result<T, Errno>) -> String {
    match r {
        Ok(_) => "ok".to_string(),
        Err(e) => format!("{e:?}"),
    }
}

/// A table with init and one ordinary process (the recording program);
/// for a `*_unprivileged` case, that process dropped root
/// (`setresuid(1000, 1000, 1000)`), as clone_rules.c's child does.
pub(crate) fn runner<K: TaskApi>(case: &str) -> (K, K::Task) {
    let mut k = K::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    let p = k.fork(init).unwrap();
    if case.ends_with("_unprivileged") {
        k.setresuid(p, 1000, 1000, 1000).unwrap();
    }
    (k, p)
}

pub(crate) fn c3(flags: u64, exit_signal: u64) -> Clone3Args {
    Clone3Args {
        flags,
        exit_signal,
        ..Clone3Args::default()
    }
}

pub(crate) fn with_tid(set_tid: Option<Vec<i32>>, size: u64) -> Clone3Args {
    Clone3Args {
        set_tid,
        set_tid_size: size,
        ..c3(0, SIGCHLD as u64)
    }
}

pub(crate) fn cl(flags: u64) -> CloneArgs {
    CloneArgs::from_clone_flags(flags)
}

/// One recorded call.
enum Call {
    Clone3(Clone3Args),
    Clone(CloneArgs),
}

/// Every recorded case that is one clone or clone3 by the runner.
fn cases() -> Vec<(&'static str, Call)> {
    use Call::{Clone, Clone3};
    let sig = SIGCHLD as u64;
    let tvm = CLONE_THREAD | CLONE_SIGHAND | CLONE_VM;
    let cgroup = |args: Clone3Args| {
        Clone3(Clone3Args {
            flags: args.flags | CLONE_INTO_CGROUP,
            cgroup: 999,
            ..args
        })
    };
    vec![
        ("c3_plain", Clone3(c3(0, sig))),
        ("c3_parent_exitsig", Clone3(c3(CLONE_PARENT, sig))),
        ("c3_parent_noexitsig", Clone3(c3(CLONE_PARENT, 0))),
        ("c3_thread_exitsig", Clone3(c3(tvm, sig))),
        ("c3_exitsig_65", Clone3(c3(0, 65))),
        ("c3_exitsig_64", Clone3(c3(0, 64))),
        ("c3_exitsig_high32", Clone3(c3(0, (1 << 32) | sig))),
        ("c3_exitsig_256", Clone3(c3(0, 256 | sig))),
        ("c3_settid_size_33", Clone3(with_tid(Some(vec![0, 0]), 33))),
        ("c3_settid_null_size1", Clone3(with_tid(None, 1))),
        ("c3_settid_ptr_size0", Clone3(with_tid(Some(vec![0, 0]), 0))),
        (
            "c3_settid_size2_level0",
            Clone3(with_tid(Some(vec![0, 0]), 2)),
        ),
        ("c3_settid_1_taken", Clone3(with_tid(Some(vec![1]), 1))),
        ("c3_settid_0", Clone3(with_tid(Some(vec![0]), 1))),
        (
            "c3_settid_over_pid_max",
            Clone3(with_tid(Some(vec![1 << 30]), 1)),
        ),
        (
            "c3_sighand_clear_sighand",
            Clone3(c3(CLONE_SIGHAND | CLONE_VM | CLONE_CLEAR_SIGHAND, sig)),
        ),
        ("c3_detached", Clone3(c3(CLONE_DETACHED, sig))),
        ("c3_csignal_bits", Clone3(c3(0x11, sig))),
        ("c3_unknown_flag_40", Clone3(c3(1 << 40, sig))),
        (
            "c3_cgroup_over_intmax",
            Clone3(Clone3Args {
                cgroup: 1 << 32,
                ..c3(CLONE_INTO_CGROUP, sig)
            }),
        ),
        ("c3_cgroup_bad_fd", cgroup(c3(0, sig))),
        (
            "c3_cgroup_bad_fd_settid_taken",
            cgroup(with_tid(Some(vec![1]), 1)),
        ),
        (
            "c3_cgroup_bad_fd_thread_nosighand",
            cgroup(c3(CLONE_THREAD | CLONE_VM, 0)),
        ),
        (
            "c3_cgroup_bad_fd_newpid_unprivileged",
            cgroup(c3(CLONE_NEWPID, sig)),
        ),
        (
            "c3_stack0_size",
            Clone3(Clone3Args {
                stack_size: 4096,
                ..c3(0, sig)
            }),
        ),
        (
            "c3_thread_nosighand",
            Clone3(c3(CLONE_THREAD | CLONE_VM, 0)),
        ),
        ("c3_sighand_novm", Clone3(c3(CLONE_SIGHAND, sig))),
        ("c3_thread_newpid", Clone3(c3(tvm | CLONE_NEWPID, 0))),
        ("cl_plain", Clone(cl(sig))),
        ("cl_parent_exitsig", Clone(cl(CLONE_PARENT | sig))),
        ("cl_exitsig_100", Clone(cl(100))),
        ("cl_exitsig_65", Clone(cl(65))),
        (
            "cl_pidfd_parent_settid",
            Clone(cl(CLONE_PIDFD | CLONE_PARENT_SETTID | sig)),
        ),
        ("cl_detached", Clone(cl(CLONE_DETACHED | sig))),
        ("cl_thread_nosighand", Clone(cl(CLONE_THREAD | CLONE_VM))),
        ("cl_sighand_novm", Clone(cl(CLONE_SIGHAND | sig))),
        // Asked by a process that dropped root (see `runner`).
        ("cl_newpid_unprivileged", Clone(cl(CLONE_NEWPID | sig))),
        ("cl_newuts_unprivileged", Clone(cl(CLONE_NEWUTS | sig))),
        ("c3_newpid_unprivileged", Clone3(c3(CLONE_NEWPID, sig))),
        (
            "c3_newpid_pidfd_unprivileged",
            Clone3(c3(CLONE_NEWPID | CLONE_PIDFD, sig)),
        ),
        (
            "c3_newpid_newuser_unprivileged",
            Clone3(c3(CLONE_NEWPID | CLONE_NEWUSER, sig)),
        ),
    ]
}

/// Every recorded clone case, through both entries (the plain one and the
/// `CLONE_PIDFD` one) on a fresh table each: the recorded answer, and a
/// refused call changes nothing (`copy_process()` undoes its work).
pub(crate) fn clone_and_clone3_answer_as_linux<K: TaskApi>() {
    let want = fixture(CLONE_RULES);
    let cases = cases();
    // clear_sighand_child and the two *_newpid_for_children_over_nproc
    // cases have their own checks below.
    assert_eq!(cases.len() + 3, want.len(), "a recorded case is not driven");
    for (name, call) in cases {
        let w = want
            .get(name)
            .unwrap_or_else(|| panic!("{name} not recorded"));
        for with_pidfd in [false, true] {
            let (mut k, p) = runner::<K>(name);
            let before = k.nr_tasks();
            let got = match (&call, with_pidfd) {
                (Call::Clone3(a), false) => answer(&k.clone3(p, a)),
                (Call::Clone3(a), true) => answer(&k.clone3_with_pidfd(p, a)),
                (Call::Clone(a), false) => answer(&k.clone(p, a)),
                (Call::Clone(a), true) => answer(&k.clone_with_pidfd(p, a)),
            };
            assert_eq!(&got, w, "{name} (CLONE_PIDFD entry: {with_pidfd})");
            if got != "ok" {
                assert_eq!(
                    k.nr_tasks(),
                    before,
                    "{name}: a refused clone changes nothing"
                );
            }
        }
    }
}

fn disposition<K: TaskApi>(k: &mut K, t: K::Task, sig: i32) -> &'static str {
    match k.rt_sigaction(t, sig, None).unwrap().handler {
        SigHandler::Default => "dfl",
        SigHandler::Ignore => "ign",
        SigHandler::Handler => "handler",
        other => panic!("a handler kind this test does not know: {other:?}"),
    }
}

/// `CLONE_CLEAR_SIGHAND`: the child's handlers are reset, an ignored
/// signal stays ignored (`clear_sighand_child`); the parent keeps its own.
pub(crate) fn clone3_clear_sighand_resets_handlers_as_linux<K: TaskApi>() {
    let want = fixture(CLONE_RULES)["clear_sighand_child"];
    let (mut k, p) = runner::<K>("");
    let act = |handler| Some(SigAction::new(handler, 0));
    k.rt_sigaction(p, SIGUSR2, act(SigHandler::Ignore)).unwrap();
    k.rt_sigaction(p, SIGUSR1, act(SigHandler::Handler))
        .unwrap();
    let child = k
        .clone3(p, &c3(CLONE_CLEAR_SIGHAND, SIGCHLD as u64))
        .unwrap();
    let got = format!(
        "usr1={} usr2={}",
        disposition(&mut k, child, SIGUSR1),
        disposition(&mut k, child, SIGUSR2)
    );
    assert_eq!(got, want);
    assert_eq!(disposition(&mut k, p, SIGUSR1), "handler");
}

/// `copy_process()` refuses a thread whose `pid_for_children` is not its
/// active namespace among its first checks, before `RLIMIT_NPROC`; a fork
/// then meets the limit.
pub(crate) fn thread_with_new_pid_for_children_is_einval_before_nproc<K: TaskApi>() {
    let want = fixture(CLONE_RULES);
    let (mut k, p) = runner::<K>("");
    k.unshare(p, CLONE_NEWPID).unwrap();
    k.setresuid(p, 1000, 1000, 1000).unwrap();
    let one = taskcore::Rlimit { cur: 1, max: 1 };
    k.prlimit64(p, 0, RLIMIT_NPROC, Some(one)).unwrap();
    let thread = cl(CLONE_THREAD | CLONE_SIGHAND | CLONE_VM);
    assert_eq!(
        answer(&k.clone(p, &thread)),
        want["cl_thread_newpid_for_children_over_nproc"]
    );
    assert_eq!(
        answer(&k.clone(p, &cl(SIGCHLD as u64))),
        want["cl_fork_newpid_for_children_over_nproc"]
    );
}

/// clone3's `set_tid` needs `CAP_SYS_ADMIN` or `CAP_CHECKPOINT_RESTORE`
/// over the pid namespace's owner (`checkpoint_restore_ns_capable()` in
/// `alloc_pid()`), checked after the number's `EINVAL` checks and before
/// a taken number's `EEXIST`. Linux's answers: `clone_rules.c` run as uid
/// 1000 without capabilities (`setpriv --reuid 1000 --regid 1000
/// --clear-groups`, Linux 6.x, 2026-12-02) printed `c3_settid_1_taken
/// EPERM`, `c3_cgroup_bad_fd_settid_taken EPERM`, `c3_settid_0 EINVAL`
/// and `c3_settid_over_pid_max EINVAL`; as root (the fixture) the first
/// two are `EEXIST`.
pub(crate) fn set_tid_needs_checkpoint_restore_capability<K: TaskApi>() {
    let cases = [
        ("c3_settid_1_taken", with_tid(Some(vec![1]), 1), "EPERM"),
        (
            "c3_cgroup_bad_fd_settid_taken",
            Clone3Args {
                flags: CLONE_INTO_CGROUP,
                cgroup: 999,
                ..with_tid(Some(vec![1]), 1)
            },
            "EPERM",
        ),
        ("c3_settid_0", with_tid(Some(vec![0]), 1), "EINVAL"),
        (
            "c3_settid_over_pid_max",
            with_tid(Some(vec![1 << 30]), 1),
            "EINVAL",
        ),
    ];
    let root = fixture(CLONE_RULES);
    for (name, args, unprivileged) in cases {
        let (mut k, p) = runner::<K>("");
        assert_eq!(answer(&k.clone3(p, &args)), root[name], "{name} as root");
        let (mut k, p) = runner::<K>("");
        k.setresuid(p, 1000, 1000, 1000).unwrap();
        let before = k.nr_tasks();
        assert_eq!(
            answer(&k.clone3(p, &args)),
            unprivileged,
            "{name} as uid 1000"
        );
        assert_eq!(k.nr_tasks(), before, "{name}: nothing made");
    }
}

/// `clone_oracle_tests!(Type)`: one `#[test]` per check above, for `Type`
/// (an implementation of [`TaskApi`]).
macro_rules! clone_oracle_tests {
    ($k:ty) => {
        $crate::common::clone_oracle::clone_oracle_tests!(@each $k;
            clone_and_clone3_answer_as_linux,
            clone3_clear_sighand_resets_handlers_as_linux,
            thread_with_new_pid_for_children_is_einval_before_nproc,
            set_tid_needs_checkpoint_restore_capability);
    };
    (@each $k:ty; $($name:ident),*) => {
        $(
            #[test]
            fn $name() {
                $crate::common::clone_oracle::$name::<$k>();
            }
        )*
    };
}
pub(crate) use clone_oracle_tests;
