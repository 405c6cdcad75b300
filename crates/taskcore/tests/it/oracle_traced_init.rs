//! A signal sent from inside a pid namespace to its init, which has no
//! handler: dropped at send when the init is untraced; traced, queued
//! anyway (`sig_ignored()`'s ptrace exception), reported to the tracer and
//! dropped in `get_signal()` when the tracer resumes the init with it.
//! Compared with tests/oracle/traced_init.c's recording (re-record with
//! tests/oracle/record.sh).

use std::fmt::Write;
use taskcore::uapi::{__WALL, SIGKILL, SIGSTOP, SIGTERM, SIGUSR1, WNOHANG};
use taskcore::{Config, Kernel, TaskId, WaitOutcome};

const OUT: &str = include_str!("oracle/traced_init.out");

/// The tracer `a` waits for its traced init `b` (number `bn`) and resumes
/// every stop with its signal, as traced_init.c's loop does, until no stop
/// is left.
fn drain(k: &mut Kernel, a: TaskId, bn: i32, key: &str, out: &mut String, stops: &mut u32) {
    while let WaitOutcome::Reported(r) = k.wait4(a, bn, __WALL | WNOHANG).unwrap() {
        assert_eq!(r.status & 0xff, 0x7f, "{key}: not a stop: {:#x}", r.status);
        let sig = r.status >> 8 & 0xff;
        writeln!(out, "{key} stop={sig}").unwrap();
        *stops += 1;
        k.ptrace_cont(a, bn, sig).unwrap();
    }
}

fn run(key: &str, sig: i32, traced: bool, out: &mut String) {
    let mut k = Kernel::new(Config::default()).unwrap();
    let init = k.init_task().unwrap();
    let a = k.fork(init).unwrap();
    k.unshare(a, taskcore::uapi::CLONE_NEWPID).unwrap();
    let b = k.fork(a).unwrap();
    let bn = k.pid_vnr(a, b).unwrap();
    assert_eq!(k.pid_vnr(b, b).unwrap(), 1);
    let mut stops = 0;
    if traced {
        k.ptrace_traceme(b).unwrap();
        k.tgkill(b, 1, 1, SIGSTOP).unwrap();
        drain(&mut k, a, bn, key, out, &mut stops);
    }
    let c = k.fork(b).unwrap();
    let ret = i32::from(k.kill(c, 1, sig).is_err());
    drain(&mut k, a, bn, key, out, &mut stops);
    k.exit_group(c, ret).unwrap();
    drain(&mut k, a, bn, key, out, &mut stops);
    let cn = k.pid_vnr(b, c).unwrap();
    let st = match k.wait4(b, cn, 0).unwrap() {
        WaitOutcome::Reported(r) => r.status,
        other => panic!("{key}: {other:?}"),
    };
    k.exit_group(b, 7 + (st >> 8 & 0xff)).unwrap();
    match k.wait4(a, bn, __WALL).unwrap() {
        WaitOutcome::Reported(r) if r.status & 0x7f == 0 => {
            writeln!(out, "{key} exit={}", r.status >> 8 & 0xff).unwrap()
        }
        WaitOutcome::Reported(r) => writeln!(out, "{key} killed={}", r.status & 0x7f).unwrap(),
        other => panic!("{key}: {other:?}"),
    }
    writeln!(out, "{key} stops={stops}").unwrap();
}

#[test]
fn signal_to_a_traced_namespace_init_is_reported_then_dropped() {
    let mut out = String::new();
    run("untraced_sigterm", SIGTERM, false, &mut out);
    run("traced_sigterm", SIGTERM, true, &mut out);
    run("traced_sigusr1", SIGUSR1, true, &mut out);
    run("traced_sigkill", SIGKILL, true, &mut out);
    assert_eq!(out, OUT);
}
