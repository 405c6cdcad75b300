//! Replaying a C tracer's log on the reference model: the oracle tracers
//! under `tests/oracle/` (with the helpers of `tracer_log.h`) print one line
//! per ptrace call, wait status word, event message and kill, with pids as
//! names. A [`Run`] replays one case's calls on a [`Model`] and produces
//! each line the same way, so that every recorded line is asserted in
//! order. (The core's tests have their own, `crates/taskcore/tests/common/
//! tracer_log.rs`: the two crates' handles differ.)

#![allow(dead_code)]

use taskcore::uapi::*;
use taskcore_model::{Config, Errno, Model, Tid, WaitOutcome};

/// One case being replayed: the model, the tracer (a child of init, as the
/// C program is), the pid names given so far, and the recorded lines.
pub(crate) struct Run {
    pub(crate) m: Model,
    pub(crate) tracer: Tid,
    pub(crate) names: Vec<(i32, String)>,
    want: Vec<&'static str>,
    at: usize,
}

impl Run {
    /// Case `case` of recording `out` (its lines without the case name).
    pub(crate) fn new(out: &'static str, case: &str) -> Run {
        let mut m = Model::new(Config::default()).unwrap();
        let init = m.init_task().unwrap();
        let tracer = m.fork(init).unwrap();
        let p = m.pid_vnr(tracer, tracer).unwrap();
        let want = out
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

    /// A pid's name as `tracer_log.h`'s `pn()` gives it.
    pub(crate) fn name_of(&self, pid: i32) -> String {
        self.names
            .iter()
            .rev()
            .find(|(p, _)| *p == pid)
            .map_or_else(|| "unknown".into(), |(_, n)| n.clone())
    }

    /// Names task `t` (`name()` in the C program); its pid.
    pub(crate) fn name(&mut self, t: Tid, n: &str) -> i32 {
        let p = self.m.pid_vnr(self.tracer, t).unwrap();
        self.names.push((p, n.into()));
        p
    }

    /// Asserts that the next recorded line is `got`.
    pub(crate) fn check(&mut self, got: String) {
        let want = self.want.get(self.at).copied().unwrap_or("<end>");
        assert_eq!(got, want, "line {} of the case", self.at);
        self.at += 1;
    }

    /// The line of a ptrace request `req` on `pid` with `data` that gave `r`.
    pub(crate) fn req(&mut self, req: &str, pid: i32, data: i32, r: Result<(), Errno>) {
        let (ret, e) = match r {
            Ok(()) => ("0".to_string(), "none".to_string()),
            Err(e) => ("-1".to_string(), format!("{e:?}")),
        };
        let n = self.name_of(pid);
        self.check(format!(
            "ptrace {req} pid={n} data={data:#x} ret={ret} errno={e}"
        ));
    }

    /// `PTRACE_CONT` with signal `sig`.
    pub(crate) fn cont(&mut self, pid: i32, sig: i32) {
        let r = self.m.ptrace_cont(self.tracer, pid, sig);
        self.req("PTRACE_CONT", pid, sig, r);
    }

    /// `kill(pid, sig)` by the tracer, logged under the name `name`.
    pub(crate) fn kill(&mut self, pid: i32, sig: i32, name: &str) {
        let r = self.m.kill(self.tracer, pid, sig).map_or(-1, |_| 0);
        self.check(format!("kill {name} ret={r}"));
    }

    /// `waitpid(pid, __WALL | WNOHANG)`, logged without event messages.
    pub(crate) fn wait(&mut self, pid: i32) {
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

    /// A wait that prints the event message after an event stop (the
    /// tracer's `Wq`); the status, if any.
    pub(crate) fn wait_ev(&mut self, pid: i32, msg_as_name: bool) -> Option<i32> {
        let n = self.name_of(pid);
        match self.m.wait4(self.tracer, pid, __WALL | WNOHANG).unwrap() {
            WaitOutcome::Reported(r) => {
                let line = format!(
                    "wait pid={n} ret={} status={:#x}",
                    self.name_of(r.pid),
                    r.status
                );
                self.check(line);
                if r.status & 0xff == 0x7f && !matches!(r.status >> 16, 0 | 0x80) {
                    let msg = self.m.ptrace_geteventmsg(self.tracer, pid).unwrap();
                    let msg = if msg_as_name {
                        self.name_of(msg as i32)
                    } else {
                        format!("{msg:#x}")
                    };
                    self.check(format!("eventmsg pid={n} msg={msg}"));
                }
                Some(r.status)
            }
            _ => {
                self.check(format!("wait pid={n} ret=none"));
                None
            }
        }
    }

    /// Asserts that every recorded line was produced.
    pub(crate) fn done(&self) {
        assert_eq!(self.at, self.want.len(), "lines left unchecked");
    }
}
