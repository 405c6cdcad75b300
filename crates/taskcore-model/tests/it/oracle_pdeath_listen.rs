//! The reference model against two real-Linux recordings (re-record with
//! tests/oracle/record.sh):
//! - the `listen` case of tests/oracle/ptrace_tracer.out (a C tracer):
//!   `PTRACE_LISTEN` refused for a running tracee (`ESRCH`), accepted in a
//!   `PTRACE_INTERRUPT` trap, the listener out of reach of `PTRACE_CONT`
//!   and `wait` until interrupted, and re-trapping on SIGCONT after a
//!   group stop; every line is compared.
//! - the `pdeath_*` lines of tests/oracle/jobctl_rules.out: a forked child
//!   does not inherit the parent-death signal, which comes when the parent
//!   *thread* exits while its process lives on (the model keeps no
//!   siginfo: `si_code` and `si_pid` are the core's to check, in
//!   crates/taskcore/tests/oracle_signals.rs).

use taskcore::uapi::*;
use taskcore_model::{CloneArgs, Errno, WaitOutcome};

use crate::common::model_log;
use model_log::Run;

impl Run {
    fn listen(&mut self, pid: i32) {
        let r = self.m.ptrace_listen(self.tracer, pid);
        self.req("PTRACE_LISTEN", pid, 0, r);
    }

    fn interrupt(&mut self, pid: i32) {
        let r = self.m.ptrace_interrupt(self.tracer, pid);
        self.req("PTRACE_INTERRUPT", pid, 0, r);
    }
}

#[test]
fn interrupt_and_listen_as_linux() {
    let mut r = Run::new(
        include_str!("../../../../tests/oracle/ptrace_tracer.out"),
        "listen",
    );
    let c = r.m.fork(r.tracer).unwrap();
    let cp = r.m.pid_vnr(r.tracer, c).unwrap();
    r.names.push((cp, "tracee".into()));
    let s = r.m.ptrace_seize(r.tracer, cp, 0);
    r.req("PTRACE_SEIZE", cp, 0, s);
    r.listen(cp); // running: not in a stop
    r.interrupt(cp);
    r.wait(cp); // PTRACE_EVENT_STOP
    r.listen(cp); // a PTRACE_EVENT_STOP of an interrupt will do
    r.cont(cp, 0); // listening: not in a ptrace stop
    r.wait(cp);
    r.interrupt(cp);
    r.wait(cp);
    r.cont(cp, 0);
    r.kill(cp, SIGSTOP, "SIGSTOP");
    r.wait(cp); // signal-delivery-stop
    r.cont(cp, SIGSTOP);
    r.wait(cp); // group stop
    r.listen(cp);
    let ret = match r.m.wait4(r.tracer, cp, __WALL | WNOHANG).unwrap() {
        WaitOutcome::Reported(w) => r.name_of(w.pid),
        _ => "0".into(),
    };
    r.check(format!("wait_wnohang_while_listening ret={ret}"));
    r.kill(cp, SIGCONT, "SIGCONT");
    r.wait(cp); // the listener's re-trap
    r.cont(cp, 0);
    r.wait(cp); // SIGCONT's signal-delivery-stop
    r.cont(cp, SIGCONT);
    r.kill(cp, SIGKILL, "SIGKILL");
    r.wait(cp);
    r.done();
}

#[test]
fn pdeath_signal_follows_the_parent_thread_as_linux() {
    let out = include_str!("../../../../tests/oracle/jobctl_rules.out");
    let mut r = Run::new(out, "pdeath_fork_child");
    let p = r.tracer;
    let parent = r.m.getpid(p).unwrap();
    let t = r.m.clone(p, &CloneArgs::thread()).unwrap();
    let c = r.m.fork(t).unwrap();
    let usr1 = 1u64 << (SIGUSR1 - 1);
    r.m.rt_sigprocmask(c, SIG_SETMASK, Some(usr1)).unwrap();
    r.m.set_pdeathsig(c, SIGUSR1).unwrap();
    let d = r.m.fork(c).unwrap();
    let got = r.m.pdeathsig(d).unwrap();
    r.check(format!("get={got}"));
    r.done();
    assert_eq!(r.m.rt_sigtimedwait_now(c, usr1), Err(Errno::EAGAIN));
    r.m.exit(t, 0).unwrap();
    let sig = r.m.rt_sigtimedwait_now(c, usr1).unwrap();
    let ppid = if r.m.getppid(c).unwrap() == parent {
        "parent"
    } else {
        "other"
    };
    // The model keeps no siginfo: the line's si_code and si_pid are
    // Linux's SI_USER and the parent's tgid.
    let line = format!("pdeath_thread_exit sig={sig} si_code=0 si_pid=parent ppid_after={ppid}");
    assert!(out.lines().any(|l| l == line), "{line}");
}
