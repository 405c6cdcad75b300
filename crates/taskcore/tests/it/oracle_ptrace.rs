//! ptrace stops and requests compared with a real C tracer's log,
//! tests/oracle/ptrace_tracer.{c,out} (re-record with
//! tests/oracle/record.sh): each case replays the tracer's calls on the core
//! and asserts every recorded return value and wait status word.
//!
//! Not expressible here: `PTRACE_GET_SYSCALL_INFO` (`syscall_info` lines;
//! the core does not hold registers) and the tracer's own timing
//! (`usleep`).

use taskcore::task::ptrace_event::*;
use taskcore::uapi::*;
use taskcore::{Config, Kernel, SignalDelivery, WaitOutcome};

use crate::common::tracer_log;
use tracer_log::Run;

const OUT: &str = include_str!("oracle/ptrace_tracer.out");

/// Case `case` of the recording.
fn run(case: &str, delivery: SignalDelivery) -> Run {
    Run::new(OUT, case, delivery)
}

#[test]
fn event_stops_as_linux() {
    let mut r = run("events", SignalDelivery::Immediate);
    let c = r.k.fork(r.tracer).unwrap();
    let cp = r.name(c, "tracee");
    let opts = PTRACE_O_TRACEFORK
        | PTRACE_O_TRACEVFORK
        | PTRACE_O_TRACECLONE
        | PTRACE_O_TRACEEXEC
        | PTRACE_O_TRACEEXIT
        | PTRACE_O_TRACEVFORKDONE;
    let res = r.k.ptrace_seize(r.tracer, cp, opts);
    r.req("PTRACE_SEIZE", cp, opts.into(), res);
    // fork: the parent's event stop, the seized child's PTRACE_EVENT_STOP,
    // the child's exit event and exit.
    let f = r.k.fork(c).unwrap();
    r.wait(cp);
    let fp = r.pid(f);
    r.wait(fp);
    r.cont(fp, 0);
    r.k.exit_group(f, 1).unwrap();
    r.wait(fp);
    r.cont(fp, 0);
    r.wait(fp);
    r.cont(cp, 0);
    r.wait(cp); // SIGCHLD of the fork child
    r.cont(cp, SIGCHLD);
    r.k.wait4(c, fp, 0).unwrap();
    // vfork: event, child, vfork-done once the tracee is resumed.
    let v = r.k.vfork(c).unwrap();
    r.wait(cp);
    let vp = r.pid(v);
    r.wait(vp);
    r.cont(vp, 0);
    r.k.exit_group(v, 2).unwrap();
    r.wait(vp);
    r.cont(vp, 0);
    r.wait(vp);
    r.cont(cp, 0);
    r.wait(cp); // vfork done
    r.cont(cp, 0);
    r.wait(cp); // SIGCHLD of the vfork child
    r.cont(cp, SIGCHLD);
    r.k.wait4(c, vp, 0).unwrap();
    // clone (a thread): event, the thread's stop, exit event, exit.
    let t = r.k.clone(c, &taskcore::CloneArgs::thread()).unwrap();
    r.wait(cp);
    let tp = r.pid(t);
    r.cont(cp, 0);
    r.wait(tp);
    r.cont(tp, 0);
    r.k.exit(t, 0).unwrap();
    r.wait(tp);
    r.cont(tp, 0);
    r.wait(tp);
    // exec, then exit(5).
    r.k.execve(c, "/proc/self/exe").unwrap();
    r.wait(cp);
    r.cont(cp, 0);
    r.k.exit_group(c, 5).unwrap();
    r.wait(cp);
    r.cont(cp, 0);
    r.wait(cp);
    r.done();
    r.k.check_invariants();
}

#[test]
fn signal_delivery_stops_inject_and_suppress_as_linux() {
    let mut r = run("signals", SignalDelivery::Immediate);
    let c = r.k.fork(r.tracer).unwrap();
    let cp = r.name(c, "tracee");
    for sig in [SIGUSR1, SIGUSR2, SIGHUP] {
        let a = taskcore::SigAction {
            addr: 0x1000,
            ..taskcore::SigAction::new(taskcore::SigHandler::Handler, 0)
        };
        r.k.rt_sigaction(c, sig, Some(a)).unwrap();
    }
    let res = r.k.ptrace_seize(r.tracer, cp, 0);
    r.req("PTRACE_SEIZE", cp, 0, res);
    r.k.kill(c, cp, SIGUSR1).unwrap();
    r.wait(cp);
    let k = r.k.kill(r.tracer, cp, SIGHUP).map_or(-1, |_| 0);
    r.check(format!("kill SIGHUP to stopped tracee ret={k}"));
    let info = r.k.ptrace_getsiginfo(r.tracer, cp).unwrap();
    assert_eq!((info.signo, info.code), (SIGUSR1, SI_USER));
    r.k.take_notifications();
    r.cont(cp, 0);
    r.wait(cp);
    r.cont(cp, SIGHUP);
    r.k.kill(c, cp, SIGUSR2).unwrap();
    r.wait(cp);
    r.cont(cp, SIGUSR1);
    let mut count = 0;
    for n in r.k.take_notifications() {
        if let taskcore::Notification::Handler { sig, .. } = n {
            count += match sig {
                SIGUSR1 => 1,
                SIGUSR2 => 4,
                SIGHUP => 16,
                _ => 0,
            };
        }
    }
    r.k.exit_group(c, count).unwrap();
    r.wait(cp);
    r.done();
}

#[test]
fn syscall_stops_as_linux() {
    let mut r = run("syscall", SignalDelivery::OnGetSignal);
    let c = r.k.fork(r.tracer).unwrap();
    let cp = r.name(c, "tracee");
    r.k.ptrace_traceme(c).unwrap();
    r.k.kill(c, cp, SIGSTOP).unwrap();
    r.k.get_signal(c).unwrap();
    r.wait(cp);
    for i in 0..4 {
        if i == 2 {
            let res = r.k.ptrace_setoptions(r.tracer, cp, PTRACE_O_TRACESYSGOOD);
            r.req("PTRACE_SETOPTIONS", cp, 1, res);
        }
        let res = r.k.ptrace_syscall(r.tracer, cp, 0);
        r.req("PTRACE_SYSCALL", cp, 0, res);
        let stopped = match i {
            0 => r.k.ptrace_syscall_enter(c, 110).unwrap(),
            1 | 3 => r.k.ptrace_syscall_exit(c).unwrap(),
            _ => r.k.ptrace_syscall_enter(c, 59).unwrap(),
        };
        assert!(stopped);
        r.wait(cp);
        let want = if i % 2 == 0 {
            PTRACE_EVENTMSG_SYSCALL_ENTRY
        } else {
            PTRACE_EVENTMSG_SYSCALL_EXIT
        };
        assert_eq!(r.k.ptrace_geteventmsg(r.tracer, cp), Ok(want));
        r.skip("syscall_info"); // PTRACE_GET_SYSCALL_INFO: not modelled
        if i == 2 {
            r.k.execve(c, "/bin/exit5").unwrap();
        }
    }
    let res = r.k.ptrace_setoptions(r.tracer, cp, 0);
    r.req("PTRACE_SETOPTIONS", cp, 0, res);
    r.cont(cp, 0);
    assert!(!r.k.ptrace_syscall_exit(c).unwrap());
    r.k.get_signal(c).unwrap(); // the SIGTRAP of the exec
    r.wait(cp);
    r.cont(cp, 0);
    assert_eq!(r.k.get_signal(c), Ok(taskcore::SignalAction::None));
    r.k.exit_group(c, 5).unwrap();
    r.wait(cp);
    r.done();
}

#[test]
fn interrupt_and_listen_as_linux() {
    let mut r = run("listen", SignalDelivery::Immediate);
    let c = r.k.fork(r.tracer).unwrap();
    let cp = r.name(c, "tracee");
    let tr = r.tracer;
    let res = r.k.ptrace_seize(tr, cp, 0);
    r.req("PTRACE_SEIZE", cp, 0, res);
    let res = r.k.ptrace_listen(tr, cp);
    r.req("PTRACE_LISTEN", cp, 0, res);
    let res = r.k.ptrace_interrupt(tr, cp);
    r.req("PTRACE_INTERRUPT", cp, 0, res);
    r.wait(cp);
    let res = r.k.ptrace_listen(tr, cp);
    r.req("PTRACE_LISTEN", cp, 0, res);
    r.cont(cp, 0);
    r.wait(cp);
    let res = r.k.ptrace_interrupt(tr, cp);
    r.req("PTRACE_INTERRUPT", cp, 0, res);
    r.wait(cp);
    r.cont(cp, 0);
    let k = r.k.kill(tr, cp, SIGSTOP).map_or(-1, |_| 0);
    r.check(format!("kill SIGSTOP ret={k}"));
    r.wait(cp);
    r.cont(cp, SIGSTOP);
    r.wait(cp);
    let res = r.k.ptrace_listen(tr, cp);
    r.req("PTRACE_LISTEN", cp, 0, res);
    let ret = match r.k.wait4(tr, cp, __WALL | WNOHANG).unwrap() {
        WaitOutcome::Reported(w) => r.name_of(w.pid),
        _ => "0".into(),
    };
    r.check(format!("wait_wnohang_while_listening ret={ret}"));
    let k = r.k.kill(tr, cp, SIGCONT).map_or(-1, |_| 0);
    r.check(format!("kill SIGCONT ret={k}"));
    r.wait(cp);
    r.cont(cp, 0);
    r.wait(cp);
    r.cont(cp, SIGCONT);
    let k = r.k.kill(tr, cp, SIGKILL).map_or(-1, |_| 0);
    r.check(format!("kill SIGKILL ret={k}"));
    r.wait(cp);
    r.done();
}

#[test]
fn attach_errors_and_detach_into_group_stop_as_linux() {
    let mut r = run("attach", SignalDelivery::Immediate);
    let tr = r.tracer;
    let c = r.k.fork(tr).unwrap();
    let cp = r.name(c, "tracee");
    r.cont(cp, 0);
    let res = r.k.ptrace_attach(tr, cp, false);
    r.req("PTRACE_ATTACH", cp, 0, res);
    let res = r.k.ptrace_attach(tr, cp, false);
    r.req("PTRACE_ATTACH", cp, 0, res);
    r.wait(cp);
    r.cont(cp, 0);
    r.cont(cp, 0);
    let res = r.k.ptrace_interrupt(tr, cp);
    r.req("PTRACE_INTERRUPT", cp, 0, res);
    let k = r.k.kill(tr, cp, SIGSTOP).map_or(-1, |_| 0);
    r.check(format!("kill SIGSTOP ret={k}"));
    r.wait(cp);
    r.cont(cp, SIGSTOP);
    r.wait(cp);
    let res = r.k.ptrace_detach(tr, cp, 0);
    r.req("PTRACE_DETACH", cp, 0, res);
    let (ret, st) = match r.k.wait4(tr, cp, WUNTRACED | WNOHANG).unwrap() {
        WaitOutcome::Reported(w) => (r.name_of(w.pid), w.status),
        _ => ("0".into(), 0),
    };
    r.check(format!(
        "waitpid_wuntraced_after_detach ret={ret} status={st:#x}"
    ));
    let res = r.k.ptrace_seize(tr, cp, 0x8000_0000);
    r.req("PTRACE_SEIZE", cp, 0x8000_0000, res);
    let tp = r.pid(tr);
    let res = r.k.ptrace_attach(tr, tp, false);
    r.req("PTRACE_ATTACH", tp, 0, res);
    r.k.kill(tr, cp, SIGKILL).unwrap();
    r.k.wait4(tr, cp, 0).unwrap();
    r.cont(cp, 0);
    let t = r.k.fork(tr).unwrap();
    let first = r.k.ptrace_traceme(t).map_or(-1, |_| 0);
    let second = r.k.ptrace_traceme(t).unwrap_err();
    r.check(format!(
        "traceme first ret={first} second ret=-1 errno={second:?}"
    ));
    let tp = r.name(t, "traceme_child");
    r.k.exit_group(t, 0).unwrap();
    r.wait(tp);
    r.done();
}

#[test]
fn exitkill_as_linux() {
    let want = tracer_log::lines(OUT, "exitkill");
    let mut got = Vec::new();
    for opt in [0, PTRACE_O_EXITKILL] {
        let mut k = Kernel::new(Config::default()).unwrap();
        let init = k.init_task().unwrap();
        let p = k.fork(init).unwrap();
        let c = k.fork(p).unwrap();
        let cp = k.pid_vnr(p, c).unwrap();
        let x = k.fork(p).unwrap();
        let name = if opt == 0 { "none" } else { "EXITKILL" };
        let ret = k.ptrace_seize(x, cp, opt).map_or(-1, |_| 0);
        got.push(format!("tracer seize option={name} ret={ret}"));
        k.exit_group(x, 0).unwrap();
        let (ret, st) = match k.wait4(p, cp, WNOHANG).unwrap() {
            WaitOutcome::Reported(w) => (
                if opt == 0 {
                    "tracee_plain"
                } else {
                    "tracee_exitkill"
                }
                .to_string(),
                w.status,
            ),
            _ => ("0".into(), 0),
        };
        got.push(format!(
            "after_tracer_exit option={name} wait ret={ret} status={st:#x}"
        ));
    }
    assert_eq!(got, want);
}
