//! Replaying a C tracer's log on the core: the oracle tracers under
//! `tests/oracle/` (`ptrace_tracer.c`, `ptrace_edges.c`, with the helpers
//! of `tracer_log.h`) print one line per ptrace call, wait status word,
//! event message and kill, with pids as names. A [`Run`] replays one
//! case's calls on a [`Kernel`] and produces each line the same way, so
//! that every recorded line is asserted in order.

#![allow(dead_code)]

use std::collections::HashMap;

use taskcore::task::ptrace_event::*;
use taskcore::uapi::*;
use taskcore::{Config, Errno, Kernel, Notification, SignalDelivery, TaskId, WaitOutcome};

/// The recorded lines of case `case` in `out`, without the case name.
pub(crate) fn lines(out: &'static str, case: &str) -> Vec<&'static str> {
    out.lines()
        .filter_map(|l| l.strip_prefix(case).and_then(|r| r.strip_prefix(' ')))
        .collect()
}

/// One case being replayed: the kernel, the tracer (a child of init, as
/// the C program is), the pid names given so far, and the recorded lines.
pub(crate) struct Run {
    pub(crate) k: Kernel,
    pub(crate) tracer: TaskId,
    names: Vec<(i32, String)>,
    want: Vec<&'static str>,
    at: usize,
    /// With [`Run::collecting_handlers`]: before each line, the handlers
    /// the kernel ran are taken from its notifications, per task.
    collect: Option<fn(i32) -> i32>,
    masks: HashMap<TaskId, i32>,
}

impl Run {
    /// Case `case` of recording `out`, signals delivered as `delivery`.
    pub(crate) fn new(out: &'static str, case: &str, delivery: SignalDelivery) -> Run {
        let mut k = Kernel::new(Config::default()).unwrap();
        k.set_signal_delivery(delivery);
        let init = k.init_task().unwrap();
        let tracer = k.fork(init).unwrap();
        let p = k.pid_vnr(tracer, tracer).unwrap();
        Run {
            k,
            tracer,
            names: vec![(p, "tracer".into())],
            want: lines(out, case),
            at: 0,
            collect: None,
            masks: HashMap::new(),
        }
    }

    /// Keeps, per task, the OR of `bit(sig)` over the handlers the kernel
    /// ran ([`Notification::Handler`]), as a tracee's handler that sets a
    /// bit per signal does; read with [`Run::mask`]. Notifications are
    /// then consumed before each checked line.
    pub(crate) fn collecting_handlers(mut self, bit: fn(i32) -> i32) -> Run {
        self.collect = Some(bit);
        self
    }

    fn collect_handlers(&mut self) {
        let Some(bit) = self.collect else { return };
        for n in self.k.take_notifications() {
            if let Notification::Handler { task, sig, .. } = n {
                *self.masks.entry(task).or_default() |= bit(sig);
            }
        }
    }

    /// The handler mask of task `t` so far (see [`Run::collecting_handlers`]).
    pub(crate) fn mask(&mut self, t: TaskId) -> i32 {
        self.collect_handlers();
        self.masks.get(&t).copied().unwrap_or(0)
    }

    /// `t`'s pid as the tracer sees it.
    pub(crate) fn pid(&self, t: TaskId) -> i32 {
        self.k.pid_vnr(self.tracer, t).unwrap()
    }

    /// A pid's name as `tracer_log.h`'s `pn()` gives it.
    pub(crate) fn name_of(&self, pid: i32) -> String {
        match pid {
            0 => "0".into(),
            -1 => "-1".into(),
            _ => self
                .names
                .iter()
                .rev()
                .find(|(p, _)| *p == pid)
                .map_or_else(|| "unknown".into(), |(_, n)| n.clone()),
        }
    }

    /// Names task `t` (`name()` in the C program); its pid.
    pub(crate) fn name(&mut self, t: TaskId, n: &str) -> i32 {
        let p = self.pid(t);
        self.names.push((p, n.into()));
        p
    }

    /// Asserts that the next recorded line is `got`.
    pub(crate) fn check(&mut self, got: String) {
        self.collect_handlers();
        let want = self.want.get(self.at).copied().unwrap_or("<end>");
        assert_eq!(got, want, "line {} of the case", self.at);
        self.at += 1;
    }

    /// The line of a ptrace request `req` on `pid` with `data` that gave `r`.
    pub(crate) fn req(&mut self, req: &str, pid: i32, data: u64, r: Result<(), Errno>) {
        let (ret, e) = match r {
            Ok(()) => ("0".to_string(), "none".to_string()),
            Err(e) => ("-1".to_string(), format!("{e:?}")),
        };
        let line = format!(
            "ptrace {req} pid={} data={data:#x} ret={ret} errno={e}",
            self.name_of(pid)
        );
        self.check(line);
    }

    /// `PTRACE_SEIZE` with options `opts`.
    pub(crate) fn seize(&mut self, pid: i32, opts: u32) {
        let r = self.k.ptrace_seize(self.tracer, pid, opts);
        self.req("PTRACE_SEIZE", pid, opts.into(), r);
    }

    /// `PTRACE_CONT` with signal `sig`.
    pub(crate) fn cont(&mut self, pid: i32, sig: i32) {
        let r = self.k.ptrace_cont(self.tracer, pid, sig);
        self.req("PTRACE_CONT", pid, sig as u64, r);
    }

    /// `PTRACE_SYSCALL` with no signal.
    pub(crate) fn syscall(&mut self, pid: i32) {
        let r = self.k.ptrace_syscall(self.tracer, pid, 0);
        self.req("PTRACE_SYSCALL", pid, 0, r);
    }

    /// `kill(pid, sig)` by the tracer, logged under the name `name`.
    pub(crate) fn kill(&mut self, pid: i32, sig: i32, name: &str) {
        let r = self.k.kill(self.tracer, pid, sig).map_or(-1, |_| 0);
        self.check(format!("kill {name} ret={r}"));
    }

    /// `waitpid(pid, __WALL | WNOHANG | WUNTRACED | WCONTINUED)`, logged
    /// as a `waitu` line (`vfork_wait.c`'s `Wut()`). The status; -2 when
    /// nothing was reported, -1 on an error.
    pub(crate) fn waitu(&mut self, pid: i32) -> i32 {
        let n = self.name_of(pid);
        let opts = __WALL | WNOHANG | WUNTRACED | WCONTINUED;
        match self.k.wait4(self.tracer, pid, opts) {
            Ok(WaitOutcome::Reported(r)) => {
                let rn = self.name_of(r.pid);
                self.check(format!("waitu pid={n} ret={rn} status={:#x}", r.status));
                r.status
            }
            Ok(_) => {
                self.check(format!("waitu pid={n} ret=none"));
                -2
            }
            Err(e) => {
                self.check(format!("waitu pid={n} ret=-1 errno={e:?}"));
                -1
            }
        }
    }

    /// `waitpid(pid, __WALL | WNOHANG)` as `tracer_log.h`'s `Wt()` logs it,
    /// with an event stop's message, naming a new child as the tracer
    /// does. The status; -2 when nothing was reported, -1 on an error.
    pub(crate) fn wait(&mut self, pid: i32) -> i32 {
        let n = self.name_of(pid);
        let r = match self.k.wait4(self.tracer, pid, __WALL | WNOHANG) {
            Ok(WaitOutcome::Reported(r)) => r,
            Ok(_) => {
                self.check(format!("wait pid={n} ret=none"));
                return -2;
            }
            Err(e) => {
                self.check(format!("wait pid={n} ret=-1 errno={e:?}"));
                return -1;
            }
        };
        let st = r.status;
        let rn = self.name_of(r.pid);
        self.check(format!("wait pid={n} ret={rn} status={st:#x}"));
        let ev = (st >> 16) & 0xff;
        if st & 0x7f == 0x7f && ev != 0 && ev != PTRACE_EVENT_STOP {
            let msg = self.k.ptrace_geteventmsg(self.tracer, r.pid).unwrap();
            let sfx = match ev {
                PTRACE_EVENT_FORK => Some("fork"),
                PTRACE_EVENT_VFORK => Some("vfork"),
                PTRACE_EVENT_CLONE => Some("clone"),
                _ => None,
            };
            if let Some(s) = sfx {
                self.names.push((msg as i32, format!("{rn}.{s}")));
            }
            let m = if ev == PTRACE_EVENT_EXIT {
                format!("{msg:#x}")
            } else {
                self.name_of(msg as i32)
            };
            self.check(format!("eventmsg pid={rn} msg={m}"));
        }
        st
    }

    /// Skips the next recorded line, which must start with `prefix` (a
    /// line of a call the core does not model).
    pub(crate) fn skip(&mut self, prefix: &str) {
        let want = self.want.get(self.at).copied().unwrap_or("<end>");
        assert!(want.starts_with(prefix), "line {}: {want}", self.at);
        self.at += 1;
    }

    /// Sets task `t`'s handler mask (a fork child starts with its
    /// parent's).
    pub(crate) fn set_mask(&mut self, t: TaskId, mask: i32) {
        self.masks.insert(t, mask);
    }

    /// Asserts that every recorded line was produced.
    pub(crate) fn done(&self) {
        assert_eq!(self.at, self.want.len(), "lines left unchecked");
    }
}
