//! The reference model against the `sigcont*` and `sigstop_cancelled*`
//! cases of
//! tests/oracle/ptrace_edges.out (a C tracer run without strace; re-record
//! with tests/oracle/record.sh): SIGCONT to a seized tracee makes every
//! seized thread re-trap (`PTRACE_EVENT_STOP`, `prepare_signal()` ->
//! `ptrace_trap_notify()`) whether a group stop was in effect or not,
//! before the SIGCONT is dequeued; an attached tracee only sees the signal.
//! A SIGCONT during a SIGSTOP signal-delivery-stop makes the resumed
//! SIGSTOP stop nothing (`JOBCTL_STOP_DEQUEUED` cleared).
//! Every line of those cases is compared. The other cases need ptrace
//! options, which the model does not have (the core's
//! crates/taskcore/tests/oracle_ptrace_edges.rs covers them).

use taskcore::uapi::*;
use taskcore_model::{CloneArgs, Config, Errno, Model, SigAction, SigHandler, Tid, WaitOutcome};

const OUT: &str = include_str!("../../../tests/oracle/ptrace_edges.out");

struct Run {
    m: Model,
    tracer: Tid,
    names: Vec<(i32, String)>,
    want: Vec<&'static str>,
    at: usize,
}

impl Run {
    fn new(case: &str) -> Run {
        let mut m = Model::new(Config::default()).unwrap();
        let init = m.init_task().unwrap();
        let tracer = m.fork(init).unwrap();
        let p = m.pid_vnr(tracer, tracer).unwrap();
        let want = OUT
            .lines()
            .filter_map(|l| l.strip_prefix(case).and_then(|r| r.strip_prefix(' ')))
            .collect();
        Run {
            m,
            tracer,
            names: vec![(p, "tracer".into())],
            want,
            at: 0,
        }
    }

    fn name_of(&self, pid: i32) -> String {
        self.names
            .iter()
            .rev()
            .find(|(p, _)| *p == pid)
            .map_or_else(|| "unknown".into(), |(_, n)| n.clone())
    }

    fn name(&mut self, t: Tid, n: &str) -> i32 {
        let p = self.m.pid_vnr(self.tracer, t).unwrap();
        self.names.push((p, n.into()));
        p
    }

    fn check(&mut self, got: String) {
        let want = self.want.get(self.at).copied().unwrap_or("<end>");
        assert_eq!(got, want, "line {} of the case", self.at);
        self.at += 1;
    }

    fn req(&mut self, req: &str, pid: i32, data: i32, r: Result<(), Errno>) {
        let (ret, e) = match r {
            Ok(()) => ("0".to_string(), "none".to_string()),
            Err(e) => ("-1".to_string(), format!("{e:?}")),
        };
        let n = self.name_of(pid);
        self.check(format!(
            "ptrace {req} pid={n} data={data:#x} ret={ret} errno={e}"
        ));
    }

    fn attach(&mut self, pid: i32, seize: bool) {
        let r = self.m.ptrace_attach(self.tracer, pid, seize);
        let req = if seize {
            "PTRACE_SEIZE"
        } else {
            "PTRACE_ATTACH"
        };
        self.req(req, pid, 0, r);
    }

    fn cont(&mut self, pid: i32, sig: i32) {
        let r = self.m.ptrace_cont(self.tracer, pid, sig);
        self.req("PTRACE_CONT", pid, sig, r);
    }

    fn kill(&mut self, pid: i32, sig: i32, name: &str) {
        let r = self.m.kill(self.tracer, pid, sig).map_or(-1, |_| 0);
        self.check(format!("kill {name} ret={r}"));
    }

    fn wait(&mut self, pid: i32) {
        let n = self.name_of(pid);
        let line = match self.m.wait4(self.tracer, pid, __WALL | WNOHANG).unwrap() {
            WaitOutcome::Reported(r) => format!(
                "wait pid={n} ret={} status={:#x}",
                self.name_of(r.pid),
                r.status
            ),
            _ => format!("wait pid={n} ret=none"),
        };
        self.check(line);
    }

    /// A tracee with a SIGUSR1 handler and `threads` threads; their pids.
    fn spawn(&mut self, threads: usize) -> (i32, Option<i32>) {
        let c = self.m.fork(self.tracer).unwrap();
        let a = SigAction {
            addr: 0x1000,
            ..SigAction::new(SigHandler::Handler, 0)
        };
        self.m.rt_sigaction(c, SIGUSR1, Some(a)).unwrap();
        let cp = self.name(c, "tracee");
        let tp = (threads > 1).then(|| {
            let t = self.m.clone(c, &CloneArgs::thread()).unwrap();
            self.name(t, "tracee.thread")
        });
        (cp, tp)
    }

    fn done(&self) {
        assert_eq!(self.at, self.want.len(), "lines left unchecked");
    }
}

#[test]
fn sigcont_retraps_a_seized_tracee_with_no_stop_in_effect_as_linux() {
    let mut r = Run::new("sigcont");
    let (cp, _) = r.spawn(1);
    r.attach(cp, true);
    r.kill(cp, SIGCONT, "SIGCONT");
    r.wait(cp);
    r.cont(cp, 0);
    r.wait(cp);
    r.cont(cp, SIGCONT);
    r.wait(cp);
    r.kill(cp, SIGUSR1, "SIGUSR1");
    r.wait(cp);
    r.kill(cp, SIGCONT, "SIGCONT");
    r.cont(cp, 0);
    r.wait(cp);
    r.cont(cp, 0);
    r.wait(cp);
    r.cont(cp, SIGCONT);
    r.wait(cp);
    r.kill(cp, SIGKILL, "SIGKILL");
    r.wait(cp);
    r.done();
}

#[test]
fn sigcont_to_an_attached_tracee_is_only_a_signal_as_linux() {
    let mut r = Run::new("sigcont_attached");
    let (cp, _) = r.spawn(1);
    r.attach(cp, false);
    r.wait(cp);
    r.cont(cp, 0);
    r.kill(cp, SIGCONT, "SIGCONT");
    r.wait(cp);
    r.cont(cp, SIGCONT);
    r.wait(cp);
    r.kill(cp, SIGKILL, "SIGKILL");
    r.wait(cp);
    r.done();
}

#[test]
fn sigcont_retraps_every_seized_thread_as_linux() {
    let mut r = Run::new("sigcont_threads");
    let (cp, tp) = r.spawn(2);
    let tp = tp.unwrap();
    r.attach(cp, true);
    r.attach(tp, true);
    r.kill(cp, SIGCONT, "SIGCONT");
    r.wait(cp);
    r.wait(tp);
    r.cont(cp, 0);
    r.wait(cp);
    r.cont(tp, 0);
    r.wait(tp);
    r.cont(cp, SIGCONT);
    r.wait(cp);
    r.kill(cp, SIGKILL, "SIGKILL");
    r.wait(tp);
    r.wait(cp);
    r.done();
}

fn sigstop_cancelled(seize: bool) {
    let mut r = Run::new(if seize {
        "sigstop_cancelled_seized"
    } else {
        "sigstop_cancelled"
    });
    let (cp, _) = r.spawn(1);
    r.attach(cp, seize);
    if !seize {
        r.wait(cp);
        r.cont(cp, 0);
    }
    r.kill(cp, SIGSTOP, "SIGSTOP");
    r.wait(cp);
    r.kill(cp, SIGCONT, "SIGCONT");
    r.cont(cp, SIGSTOP);
    r.wait(cp);
    r.cont(cp, 0);
    r.wait(cp);
    r.cont(cp, 0);
    r.wait(cp);
    r.kill(cp, SIGKILL, "SIGKILL");
    r.wait(cp);
    r.done();
}

#[test]
fn sigcont_during_a_sigstop_delivery_stop_cancels_the_stop_as_linux() {
    sigstop_cancelled(false);
}

#[test]
fn sigcont_during_a_sigstop_delivery_stop_of_a_seized_tracee_as_linux() {
    sigstop_cancelled(true);
}
