//! clone3's and legacy clone's argument rules against the real kernel:
//! `data/linux-oracle/clone3_rules.c` recorded what this machine's Linux
//! returned for each case (`clone3_rules.txt`; re-record with
//! `data/linux-oracle/record.sh`), and the core must return the same.

use taskcore::uapi::{
    CLONE_CLEAR_SIGHAND, CLONE_DETACHED, CLONE_PARENT, CLONE_SIGHAND, CLONE_THREAD, CLONE_VM,
    SIGCHLD, SIGUSR1, SIGUSR2,
};
use taskcore::{Clone3Args, CloneArgs, Config, Kernel, SigAction, SigHandler, TaskId};

fn c3(flags: u64, exit_signal: u64, n_tids: usize) -> Clone3Args {
    Clone3Args {
        flags,
        exit_signal,
        set_tid: vec![0; n_tids],
    }
}

fn outcome(r: taskcore::Result<TaskId>) -> String {
    match r {
        Ok(_) => "0".into(),
        Err(e) => e.name().into(),
    }
}

#[test]
fn clone3_and_clone_rules_match_linux() {
    let recorded = include_str!("../../../data/linux-oracle/clone3_rules.txt");
    let mut k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    let p = k.fork(init).unwrap();
    let mut seen = 0;
    for line in recorded.lines() {
        let (case, want) = line.split_once(' ').unwrap();
        let got = match case {
            "fork_like" => outcome(k.clone3(p, &c3(0, 17, 0))),
            "thread_with_exit_signal" => {
                outcome(k.clone3(p, &c3(CLONE_THREAD | CLONE_SIGHAND | CLONE_VM, 17, 0)))
            }
            "parent_with_exit_signal" => outcome(k.clone3(p, &c3(CLONE_PARENT, 17, 0))),
            "parent_without_exit_signal" => outcome(k.clone3(p, &c3(CLONE_PARENT, 0, 0))),
            "exit_signal_65" => outcome(k.clone3(p, &c3(0, 65, 0))),
            "exit_signal_above_byte" => outcome(k.clone3(p, &c3(0, 0x100 | 17, 0))),
            "exit_signal_64" => outcome(k.clone3(p, &c3(0, 64, 0))),
            "detached" => outcome(k.clone3(p, &c3(CLONE_DETACHED, 17, 0))),
            "signal_in_flags" => outcome(k.clone3(p, &c3(SIGCHLD as u64, 0, 0))),
            "sighand_and_clear_sighand" => outcome(k.clone3(
                p,
                &c3(CLONE_SIGHAND | CLONE_VM | CLONE_CLEAR_SIGHAND, 17, 0),
            )),
            "unknown_high_flag" => outcome(k.clone3(p, &c3(1 << 40, 17, 0))),
            "set_tid_size_33" => outcome(k.clone3(p, &c3(0, 17, 33))),
            "clear_sighand" => outcome(k.clone3(p, &c3(CLONE_CLEAR_SIGHAND, 17, 0))),
            "legacy_parent_with_exit_signal" => outcome(k.clone(
                p,
                &CloneArgs {
                    flags: CLONE_PARENT,
                    exit_signal: SIGUSR1,
                    set_tid: vec![],
                },
            )),
            "clear_sighand_child_sees" => {
                let handler = SigAction {
                    handler: SigHandler::Handler,
                    flags: 0,
                };
                let ignore = SigAction {
                    handler: SigHandler::Ignore,
                    flags: 0,
                };
                k.rt_sigaction(p, SIGUSR1, Some(handler)).unwrap();
                k.rt_sigaction(p, SIGUSR2, Some(ignore)).unwrap();
                let c = k.clone3(p, &c3(CLONE_CLEAR_SIGHAND, 17, 0)).unwrap();
                let name = |a: SigAction| match a.handler {
                    SigHandler::Default => "DFL",
                    SigHandler::Ignore => "IGN",
                    _ => "HANDLER",
                };
                let a1 = k.rt_sigaction(c, SIGUSR1, None).unwrap();
                let a2 = k.rt_sigaction(c, SIGUSR2, None).unwrap();
                format!("{} {}", name(a1), name(a2))
            }
            other => panic!("a case this test does not know: {other}"),
        };
        assert_eq!(got, want, "{case}");
        seen += 1;
    }
    assert_eq!(seen, 15);
    k.check_invariants();
}
