//! A thread waiting in vfork against tests/oracle/vfork_wait.out (a C
//! program run without strace; re-record with tests/oracle/record.sh).
//! The vfork caller sleeps in `wait_for_vfork_done()`, a `TASK_KILLABLE`
//! sleep: signals, group stops and ptrace traps sent meanwhile wait until
//! the child execs or exits; a fatal signal kills it at once. Each case
//! replays the C program's calls on the core, with signals delivered at
//! once ([`SignalDelivery::Immediate`]) and, where the case has no
//! handler to run, as the embedder's `get_signal` calls take them
//! ([`SignalDelivery::OnGetSignal`], driven by the notifications), and
//! compares every line.

use taskcore::task::ptrace_event::{PTRACE_O_TRACEEXIT, PTRACE_O_TRACEVFORKDONE};
use taskcore::uapi::*;
use taskcore::{
    CloneArgs, Notification, SigAction, SigHandler, SignalAction, SignalDelivery, TaskId,
    WaitOutcome,
};

use crate::common::tracer_log;
use tracer_log::Run;

const OUT: &str = include_str!("oracle/vfork_wait.out");

/// One case: the run, the tracee (the vfork caller) and its pid.
struct Case {
    r: Run,
    c: TaskId,
    cp: i32,
    v: Option<TaskId>,
    /// The threads that ran a handler, in order, since last looked at.
    ran: Vec<TaskId>,
}

impl Case {
    /// The C program's `spawn()`: a tracee with a SIGUSR1 handler, SIGCHLD
    /// blocked if `block_chld`.
    fn spawn(case: &str, delivery: SignalDelivery, block_chld: bool) -> Case {
        let mut r = Run::new(OUT, case, delivery);
        let c = r.k.fork(r.tracer).unwrap();
        let a = SigAction {
            addr: 0x1000,
            ..SigAction::new(SigHandler::Handler, 0)
        };
        r.k.rt_sigaction(c, SIGUSR1, Some(a)).unwrap();
        if block_chld {
            r.k.rt_sigprocmask(c, SIG_BLOCK, Some(1 << (SIGCHLD - 1)))
                .unwrap();
        }
        let cp = r.name(c, "tracee");
        Case {
            r,
            c,
            cp,
            v: None,
            ran: Vec::new(),
        }
    }

    /// `start_vfork()`: the tracee vforks; its child is named.
    fn start_vfork(&mut self) {
        let v = self.r.k.vfork(self.c).unwrap();
        self.r.name(v, "tracee.vfork");
        self.v = Some(v);
        self.pump();
    }

    /// `release()`: the vfork child exits(7).
    fn release(&mut self) {
        let v = self.v.take().expect("a vfork child");
        self.r.k.exit_group(v, 7).unwrap();
        self.pump();
    }

    /// `handler_ran()`: whether the tracee ran its SIGUSR1 handler since
    /// the last look.
    fn handler_ran(&mut self) {
        self.pump();
        let c = self.c;
        let ran = if std::mem::take(&mut self.ran).contains(&c) {
            "yes"
        } else {
            "no"
        };
        self.r.check(format!("handler ran={ran}"));
    }

    fn kill(&mut self, sig: i32, name: &str) {
        self.r.kill(self.cp, sig, name);
        self.pump();
    }

    fn cont(&mut self, sig: i32) {
        self.r.cont(self.cp, sig);
        self.pump();
    }

    /// The embedder's part, after each call: a handler the kernel ran
    /// ([`Notification::Handler`], [`SignalDelivery::Immediate`]) is noted;
    /// with [`SignalDelivery::OnGetSignal`], every thread told of a signal
    /// (`SigPending`) or resumed from a stop (`TaskResumed`,
    /// `PtraceResumed`) runs `get_signal` (a handler returns at once, by
    /// its `rt_sigreturn`) until it has nothing left. The tracer's own
    /// SIGCHLD is left pending (it has no handler).
    fn pump(&mut self) {
        loop {
            let mut woken = Vec::new();
            for n in self.r.k.take_notifications() {
                match n {
                    Notification::Handler { task, .. } => self.ran.push(task),
                    Notification::SigPending { task }
                    | Notification::TaskResumed { task }
                    | Notification::PtraceResumed { task, .. }
                        if task != self.r.tracer =>
                    {
                        woken.push(task)
                    }
                    _ => {}
                }
            }
            if woken.is_empty() || self.r.k.signal_delivery() != SignalDelivery::OnGetSignal {
                return;
            }
            for t in woken {
                while let Ok(SignalAction::Handler { old_mask, .. }) = self.r.k.get_signal(t) {
                    self.ran.push(t);
                    self.r.k.rt_sigreturn(t, old_mask).unwrap();
                }
            }
        }
    }
}

fn both(f: impl Fn(SignalDelivery)) {
    f(SignalDelivery::Immediate);
    f(SignalDelivery::OnGetSignal);
}

#[test]
fn a_stop_signal_stops_a_vfork_waiter_only_once_its_child_exits_as_linux() {
    both(|d| {
        let mut c = Case::spawn("stop", d, false);
        c.start_vfork();
        c.kill(SIGSTOP, "SIGSTOP");
        c.r.waitu(c.cp);
        c.release();
        c.r.waitu(c.cp);
        c.kill(SIGCONT, "SIGCONT");
        c.r.waitu(c.cp);
        c.kill(SIGKILL, "SIGKILL");
        c.r.waitu(c.cp);
        c.r.done();
        c.r.k.check_invariants();
    });
}

#[test]
fn a_vfork_waiter_runs_its_handler_only_once_its_child_exits_as_linux() {
    both(|d| {
        let mut c = Case::spawn("handler", d, false);
        c.start_vfork();
        c.kill(SIGUSR1, "SIGUSR1");
        c.handler_ran();
        c.release();
        c.handler_ran();
        c.kill(SIGKILL, "SIGKILL");
        c.r.waitu(c.cp);
        c.r.done();
        c.r.k.check_invariants();
    });
}

#[test]
fn a_fatal_signal_kills_a_vfork_waiter_at_once_as_linux() {
    both(|d| {
        let mut c = Case::spawn("fatal", d, false);
        c.start_vfork();
        c.kill(SIGTERM, "SIGTERM");
        c.r.waitu(c.cp);
        c.release();
        c.r.done();
        c.r.k.check_invariants();
    });
}

#[test]
fn a_core_dumping_signal_kills_a_vfork_waiter_only_after_the_vfork_as_linux() {
    both(|d| {
        let mut c = Case::spawn("core", d, false);
        c.start_vfork();
        c.kill(SIGQUIT, "SIGQUIT");
        c.r.waitu(c.cp);
        c.release();
        c.r.waitu(c.cp);
        c.r.done();
        c.r.k.check_invariants();
    });
}

#[test]
fn a_seized_vfork_waiter_takes_no_stop_until_vfork_done_as_linux() {
    both(|d| {
        let mut c = Case::spawn("traced", d, false);
        let cp = c.cp;
        c.r.seize(cp, PTRACE_O_TRACEVFORKDONE);
        c.start_vfork();
        c.kill(SIGUSR1, "SIGUSR1");
        let res = c.r.k.ptrace_interrupt(c.r.tracer, cp);
        c.r.req("PTRACE_INTERRUPT", cp, 0, res);
        c.pump();
        c.r.wait(cp); // nothing while it waits
        c.release();
        c.r.wait(cp); // PTRACE_EVENT_VFORK_DONE, the interrupt's trap cleared
        c.cont(0);
        c.r.wait(cp); // SIGUSR1
        c.cont(0);
        c.r.wait(cp); // SIGCHLD
        c.cont(SIGUSR1);
        c.handler_ran();
        c.r.wait(cp);
        c.kill(SIGKILL, "SIGKILL");
        c.r.wait(cp);
        c.r.done();
        c.r.k.check_invariants();
    });
}

#[test]
fn a_seized_vfork_waiter_stops_for_sigstop_after_the_vfork_as_linux() {
    both(|d| {
        let mut c = Case::spawn("traced_stop", d, true);
        let cp = c.cp;
        c.r.seize(cp, 0);
        c.start_vfork();
        c.kill(SIGSTOP, "SIGSTOP");
        c.r.wait(cp);
        c.release();
        c.r.wait(cp); // SIGSTOP signal-delivery-stop
        c.cont(SIGSTOP);
        c.r.wait(cp); // group-stop trap
        c.kill(SIGKILL, "SIGKILL");
        c.r.wait(cp);
        c.r.done();
        c.r.k.check_invariants();
    });
}

#[test]
fn a_vfork_waiter_killed_in_its_exit_stop_gets_no_vfork_done_as_linux() {
    both(|d| {
        let mut c = Case::spawn("killed_traced", d, false);
        let cp = c.cp;
        c.r.seize(cp, PTRACE_O_TRACEVFORKDONE | PTRACE_O_TRACEEXIT);
        c.start_vfork();
        c.kill(SIGKILL, "SIGKILL");
        c.r.wait(cp); // PTRACE_EVENT_EXIT
        c.release();
        c.r.wait(cp);
        let msg = c.r.k.ptrace_geteventmsg(c.r.tracer, cp);
        let line = match msg {
            Ok(m) => format!("geteventmsg pid=tracee ret=0 msg={m:#x}"),
            Err(e) => format!("geteventmsg pid=tracee ret=-1 errno={e:?}"),
        };
        c.r.check(line);
        c.cont(0);
        c.r.wait(cp);
        c.r.done();
        c.r.k.check_invariants();
    });
}

#[test]
fn a_sibling_of_a_vfork_waiter_is_not_interrupted_by_its_sigchld_as_linux() {
    both(|d| {
        let mut c = Case::spawn("sibling_wait", d, false);
        let b = c.c;
        let a = SigAction {
            addr: 0x2000,
            ..SigAction::new(SigHandler::Handler, 0)
        };
        c.r.k.rt_sigaction(b, SIGCHLD, Some(a)).unwrap();
        let y = c.r.k.fork(b).unwrap();
        let vforker = c.r.k.clone(b, &CloneArgs::thread()).unwrap();
        let x = c.r.k.fork(vforker).unwrap();
        let v = c.r.k.vfork(vforker).unwrap();
        c.r.name(vforker, "tracee.vforker");
        let yp = c.r.name(y, "tracee.y");
        c.r.name(x, "tracee.vforker.x");
        c.r.name(v, "tracee.vforker.vfork");
        c.pump();
        // B blocks in waitpid(y, 0); x exits (SIGCHLD to the vforker), then
        // y; B retries after each wake-up.
        let ypid_b = c.r.k.pid_vnr(b, y).unwrap();
        let mut outcome = c.r.k.wait4(b, ypid_b, 0).unwrap();
        for dying in [x, y] {
            assert!(matches!(outcome, WaitOutcome::WouldBlock), "{outcome:?}");
            c.r.k.exit_group(dying, 0).unwrap();
            c.pump();
            outcome = c.r.k.wait4(b, ypid_b, 0).unwrap();
            if matches!(outcome, WaitOutcome::Interrupted) {
                break;
            }
        }
        let line = match outcome {
            WaitOutcome::Reported(rep) => format!(
                "waitpid pid=tracee.y ret={} errno=none",
                c.r.name_of(if rep.pid == ypid_b { yp } else { -2 })
            ),
            WaitOutcome::Interrupted => "waitpid pid=tracee.y ret=-1 errno=EINTR".into(),
            o => format!("waitpid pid=tracee.y {o:?}"),
        };
        c.r.check(line);
        let ran_in = |c: &mut Case| {
            c.pump();
            let by = std::mem::take(&mut c.ran).first().copied();
            let n = by.map_or("none".into(), |t| {
                let p = c.r.pid(t);
                c.r.name_of(p)
            });
            c.r.check(format!("handler ran in={n}"));
        };
        ran_in(&mut c);
        c.v = Some(v);
        c.release();
        ran_in(&mut c);
        c.r.done();
        c.r.k.check_invariants();
    });
}

#[test]
fn an_attach_to_a_vfork_waiter_stops_it_after_the_vfork_as_linux() {
    both(|d| {
        let mut c = Case::spawn("attach", d, false);
        let cp = c.cp;
        c.start_vfork();
        let res = c.r.k.ptrace_attach(c.r.tracer, cp, false);
        c.r.req("PTRACE_ATTACH", cp, 0, res);
        c.pump();
        c.r.wait(cp);
        c.release();
        c.r.wait(cp); // SIGSTOP
        c.cont(0);
        c.r.wait(cp); // SIGCHLD
        c.kill(SIGKILL, "SIGKILL");
        c.r.wait(cp);
        c.r.done();
        c.r.k.check_invariants();
    });
}
