//! The reference model against the `sigcont*` and `sigstop_cancelled*`
//! cases of
//! tests/oracle/ptrace_edges.out (a C tracer run without strace; re-record
//! with tests/oracle/record.sh): SIGCONT to a seized tracee makes every
//! seized thread re-trap (`PTRACE_EVENT_STOP`, `prepare_signal()` ->
//! `ptrace_trap_notify()`) whether a group stop was in effect or not,
//! before the SIGCONT is dequeued; an attached tracee only sees the signal.
//! A SIGCONT during a SIGSTOP signal-delivery-stop makes the resumed
//! SIGSTOP stop nothing (`JOBCTL_STOP_DEQUEUED` cleared).
//! The `exit_*` (`exit_in_stop`, `exit_tracer_gone`, `exit_stop_killed*`)
//! and `zombie_status` cases check the
//! model's event stops: `PTRACE_EVENT_EXIT` for every traced thread of a
//! dying group (message: the group's exit code), a SIGKILL that takes a
//! tracee out of a signal-delivery-stop into its exit stop, and a clone
//! event with its auto-attached thread.
//! Every line of those cases is compared. The `resume_*` cases need
//! `PTRACE_INTERRUPT` and syscall stops, which the model does not have
//! (the core's crates/taskcore/tests/oracle_ptrace_edges.rs covers them).

use taskcore::uapi::*;
use taskcore_model::{CloneArgs, SigAction, SigHandler, WaitOutcome};

use crate::common::model_log;
use model_log::Run;

const OUT: &str = include_str!("../../../../tests/oracle/ptrace_edges.out");

impl Run {
    fn attach(&mut self, pid: i32, seize: bool) {
        let r = self.m.ptrace_attach(self.tracer, pid, seize);
        let req = if seize {
            "PTRACE_SEIZE"
        } else {
            "PTRACE_ATTACH"
        };
        self.req(req, pid, 0, r);
    }

    fn seize(&mut self, pid: i32, options: u32) {
        let r = self.m.ptrace_seize(self.tracer, pid, options);
        self.req("PTRACE_SEIZE", pid, options as i32, r);
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
}

#[test]
fn sigcont_retraps_a_seized_tracee_with_no_stop_in_effect_as_linux() {
    let mut r = Run::new(OUT, "sigcont");
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
    let mut r = Run::new(OUT, "sigcont_attached");
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
    let mut r = Run::new(OUT, "sigcont_threads");
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
    let mut r = Run::new(
        OUT,
        if seize {
            "sigstop_cancelled_seized"
        } else {
            "sigstop_cancelled"
        },
    );
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

/// The tracer's `drain()`: rounds of waits on every tracee still there,
/// then a `PTRACE_CONT` of each stopped one (its signal for a
/// signal-delivery-stop, 0 after an event).
fn drain(r: &mut Run, pids: &[i32]) {
    let mut done = vec![false; pids.len()];
    for _ in 0..6 {
        if done.iter().all(|&d| d) {
            break;
        }
        let mut st = vec![None; pids.len()];
        for (i, &p) in pids.iter().enumerate() {
            if done[i] {
                continue;
            }
            st[i] = r.wait_ev(p, false);
            if st[i].is_some_and(|s| s & 0xff != 0x7f) {
                done[i] = true;
            }
        }
        for (i, &p) in pids.iter().enumerate() {
            let Some(s) = st[i].filter(|s| s & 0xff == 0x7f) else {
                continue;
            };
            let sig = if s >> 16 != 0 { 0 } else { (s >> 8) & 0xff };
            r.cont(p, sig);
        }
    }
}

fn exit_case(threads: usize, sig: i32, sn: &str) {
    let case = format!(
        "exit_{}_{}",
        if threads > 1 { "threads" } else { "single" },
        if sig != 0 { sn } else { "exit_group" }
    );
    let mut r = Run::new(OUT, Box::leak(case.into_boxed_str()));
    let (cp, tp) = r.spawn(threads);
    r.seize(cp, taskcore_model::ptrace_event::PTRACE_O_TRACEEXIT);
    if let Some(tp) = tp {
        r.seize(tp, taskcore_model::ptrace_event::PTRACE_O_TRACEEXIT);
    }
    if sig != 0 {
        r.kill(cp, sig, sn);
    } else {
        let t = r.m.find_task_by_vpid(r.tracer, tp.unwrap()).unwrap();
        r.m.exit_group(t, 3).unwrap();
    }
    let pids: Vec<i32> = std::iter::once(cp).chain(tp).collect();
    drain(&mut r, &pids);
    r.done();
}

#[test]
fn every_traced_thread_of_a_dying_group_stops_in_its_exit_event_as_linux() {
    exit_case(1, SIGTERM, "SIGTERM");
    exit_case(1, SIGKILL, "SIGKILL");
    exit_case(2, SIGTERM, "SIGTERM");
    exit_case(2, SIGKILL, "SIGKILL");
    exit_case(2, 0, "");
}

#[test]
fn sigkill_in_a_signal_delivery_stop_leads_to_the_exit_event_as_linux() {
    let mut r = Run::new(OUT, "exit_in_stop");
    let (cp, _) = r.spawn(1);
    r.seize(cp, taskcore_model::ptrace_event::PTRACE_O_TRACEEXIT);
    r.kill(cp, SIGUSR1, "SIGUSR1");
    r.wait_ev(cp, false);
    r.kill(cp, SIGKILL, "SIGKILL");
    r.wait_ev(cp, false);
    r.cont(cp, 0);
    r.wait_ev(cp, false);
    r.done();
}

#[test]
fn a_clone_event_auto_attaches_the_new_thread_as_linux() {
    let mut r = Run::new(OUT, "zombie_status");
    let c = r.m.fork(r.tracer).unwrap();
    let cp = r.name(c, "tracee");
    r.seize(cp, taskcore_model::ptrace_event::PTRACE_O_TRACECLONE);
    let t = r.m.clone(c, &CloneArgs::thread()).unwrap();
    r.name(t, "tracee.clone");
    let tp = r.m.pid_vnr(r.tracer, t).unwrap();
    r.wait_ev(cp, true);
    r.cont(cp, 0);
    r.wait_ev(tp, false);
    r.cont(tp, 0);
    r.m.exit(t, 0).unwrap();
    r.m.exit_group(c, 173).unwrap();
    r.wait_ev(tp, false);
    r.wait_ev(cp, false);
    r.done();
}

#[test]
fn a_tracee_in_its_exit_stop_exits_when_its_tracer_is_gone_as_linux() {
    let mut r = Run::new(OUT, "exit_tracer_gone");
    let (cp, _) = r.spawn(1);
    let parent = r.tracer;
    let sub = r.m.fork(parent).unwrap();
    let sp = r.name(sub, "subtracer");
    r.tracer = sub;
    r.seize(cp, taskcore_model::ptrace_event::PTRACE_O_TRACEEXIT);
    r.kill(cp, SIGKILL, "SIGKILL");
    r.wait_ev(cp, false);
    r.m.exit_group(sub, 0).unwrap();
    r.tracer = parent;
    r.wait_ev(sp, false);
    r.wait_ev(cp, false);
    r.done();
}

#[test]
fn sigkill_to_a_tracee_in_its_exit_stop_is_dropped_as_linux() {
    let mut r = Run::new(OUT, "exit_stop_killed");
    let (cp, _) = r.spawn(1);
    r.seize(cp, taskcore_model::ptrace_event::PTRACE_O_TRACEEXIT);
    r.kill(cp, SIGTERM, "SIGTERM");
    r.wait_ev(cp, false);
    r.cont(cp, SIGTERM);
    r.wait_ev(cp, false);
    r.kill(cp, SIGKILL, "SIGKILL");
    r.wait_ev(cp, false);
    r.cont(cp, 0);
    r.wait_ev(cp, false);
    r.done();

    let mut r = Run::new(OUT, "exit_stop_killed_exit");
    let c = r.m.fork(r.tracer).unwrap();
    let cp = r.name(c, "tracee");
    r.seize(cp, taskcore_model::ptrace_event::PTRACE_O_TRACEEXIT);
    r.m.exit(c, 5).unwrap();
    r.wait_ev(cp, false);
    r.kill(cp, SIGKILL, "SIGKILL");
    r.wait_ev(cp, false);
    r.done();
}

#[test]
fn the_signal_of_a_syscall_stop_restart_is_sent_as_linux() {
    let mut r = Run::new(OUT, "resume_syscall");
    let c = r.m.fork(r.tracer).unwrap();
    let a = SigAction {
        addr: 0x1000,
        ..SigAction::new(SigHandler::Handler, 0)
    };
    r.m.rt_sigaction(c, SIGUSR1, Some(a)).unwrap();
    let cp = r.name(c, "tracee");
    r.m.ptrace_traceme(c).unwrap();
    r.m.kill(c, cp, SIGSTOP).unwrap();
    r.wait_ev(cp, false);
    let s = r.m.ptrace_syscall(r.tracer, cp, 0);
    r.req("PTRACE_SYSCALL", cp, 0, s);
    assert!(r.m.ptrace_syscall_enter(c).unwrap());
    r.wait_ev(cp, false);
    r.cont(cp, SIGUSR1);
    r.wait_ev(cp, false);
    r.cont(cp, SIGUSR1);
    assert!(!r.m.ptrace_syscall_exit(c).unwrap());
    r.m.kill(c, cp, SIGSTOP).unwrap();
    r.wait_ev(cp, false);
    let s = r.m.ptrace_syscall(r.tracer, cp, 0);
    r.req("PTRACE_SYSCALL", cp, 0, s);
    assert!(r.m.ptrace_syscall_enter(c).unwrap());
    r.wait_ev(cp, false);
    let s = r.m.ptrace_syscall(r.tracer, cp, 0);
    r.req("PTRACE_SYSCALL", cp, 0, s);
    assert!(r.m.ptrace_syscall_exit(c).unwrap());
    r.wait_ev(cp, false);
    r.cont(cp, SIGUSR1);
    r.wait_ev(cp, false);
    r.cont(cp, SIGUSR1);
    // The handler ran twice, once per round: the C tracee's mask.
    r.m.exit(c, 0x11).unwrap();
    r.wait_ev(cp, false);
    r.done();
}

#[test]
fn a_group_exit_takes_a_thread_out_of_its_exit_stop_as_linux() {
    let mut r = Run::new(OUT, "exit_stop_zapped");
    let c = r.m.fork(r.tracer).unwrap();
    let cp = r.name(c, "tracee");
    r.m.clone(c, &CloneArgs::thread()).unwrap();
    r.seize(cp, taskcore_model::ptrace_event::PTRACE_O_TRACEEXIT);
    r.m.exit(c, 5).unwrap();
    r.wait_ev(cp, false);
    r.kill(cp, SIGTERM, "SIGTERM");
    r.wait_ev(cp, false);
    // Reaped: waitpid() fails.
    let e = r.m.wait4(r.tracer, cp, __WALL | WNOHANG).unwrap_err();
    r.check(format!("wait pid=tracee ret=-1 errno={e:?}"));
    r.done();
}

#[test]
fn a_stop_signal_given_to_detach_stops_as_linux() {
    for (first, sn) in [(SIGTERM, "SIGTERM"), (SIGSTOP, "SIGSTOP")] {
        let mut r = Run::new(
            OUT,
            Box::leak(format!("stop_undequeued_{sn}").into_boxed_str()),
        );
        let c = r.m.fork(r.tracer).unwrap();
        let cp = r.name(c, "tracee");
        r.seize(cp, 0);
        r.kill(cp, first, sn);
        r.wait_ev(cp, false);
        let d = r.m.ptrace_detach(r.tracer, cp, SIGSTOP);
        r.req("PTRACE_DETACH", cp, SIGSTOP, d);
        let line = match r.m.wait4(r.tracer, cp, WUNTRACED | WNOHANG).unwrap() {
            WaitOutcome::Reported(w) => {
                format!(
                    "waitpid WUNTRACED ret={} status={:#x}",
                    r.name_of(w.pid),
                    w.status
                )
            }
            _ => "waitpid WUNTRACED ret=none status=0x0".into(),
        };
        r.check(line);
        r.kill(cp, SIGKILL, "SIGKILL");
        r.wait_ev(cp, false);
        r.done();
    }
}

#[test]
fn a_clone_ptrace_child_resumed_with_its_sigstop_stops_again_as_linux() {
    let mut r = Run::new(OUT, "clone_ptrace_stop");
    let c = r.m.fork(r.tracer).unwrap();
    let cp = r.name(c, "tracee");
    r.m.ptrace_traceme(c).unwrap();
    r.m.kill(c, cp, SIGSTOP).unwrap();
    r.wait_ev(cp, false);
    r.cont(cp, 0);
    let args = CloneArgs {
        flags: CLONE_PTRACE,
        exit_signal: SIGCHLD,
        set_tid: vec![],
    };
    let g = r.m.clone(c, &args).unwrap();
    let gp = r.name(g, "tracee.child");
    r.wait_ev(gp, false);
    r.cont(gp, SIGSTOP);
    r.wait_ev(gp, false);
    r.m.kill(r.tracer, gp, SIGKILL).unwrap();
    r.wait_ev(gp, false);
    r.m.kill(r.tracer, cp, SIGKILL).unwrap();
    r.wait_ev(cp, false);
    r.done();
}

#[test]
fn sigkill_from_a_syscall_stop_leads_to_the_exit_event_as_linux() {
    use taskcore_model::ptrace_event::{PTRACE_O_TRACEEXIT, PTRACE_O_TRACESYSGOOD};
    let mut r = Run::new(OUT, "syscall_kill");
    let c = r.m.fork(r.tracer).unwrap();
    let cp = r.name(c, "tracee");
    r.m.ptrace_traceme(c).unwrap();
    r.m.kill(c, cp, SIGSTOP).unwrap();
    r.wait_ev(cp, false);
    let o = PTRACE_O_TRACEEXIT | PTRACE_O_TRACESYSGOOD;
    let s = r.m.ptrace_setoptions(r.tracer, cp, o);
    r.req("PTRACE_SETOPTIONS", cp, o as i32, s);
    let s = r.m.ptrace_syscall(r.tracer, cp, 0);
    r.req("PTRACE_SYSCALL", cp, 0, s);
    assert!(r.m.ptrace_syscall_enter(c).unwrap());
    r.wait_ev(cp, false);
    let s = r.m.ptrace_syscall(r.tracer, cp, SIGKILL);
    r.req("PTRACE_SYSCALL", cp, SIGKILL, s);
    r.wait_ev(cp, false);
    r.cont(cp, 0);
    r.wait_ev(cp, false);
    r.done();
}
