//! Edges of ptrace stops against tests/oracle/ptrace_edges.out (a C tracer
//! run without strace; re-record with tests/oracle/record.sh). Each case
//! replays the tracer's calls on the core and compares every line:
//! - `sigcont*`: SIGCONT to a seized tracee re-traps it
//!   (`PTRACE_EVENT_STOP`, `prepare_signal()` -> `ptrace_trap_notify()`)
//!   even when no group stop is in effect, before the SIGCONT is dequeued;
//! - `exit_*`: every thread traced with `PTRACE_O_TRACEEXIT` takes its
//!   `PTRACE_EVENT_EXIT` stop when the group dies (SIGTERM, SIGKILL,
//!   `exit_group` of another thread), the group's exit code as message,
//!   also when SIGKILL finds it in a signal-delivery-stop;
//! - `resume_*`: the restart signal of an event stop is ignored, that of a
//!   syscall stop is sent (`ptrace_report_syscall()`).
//!
//! - `zombie_status`: a traced thread that ended with `exit(0)`, reaped
//!   after another thread's `exit_group(173)`, reports the group's code
//!   (`wait_task_zombie()`).
//!
//! - `exit_tracer_gone`: a tracee waiting in its `PTRACE_EVENT_EXIT` stop
//!   when its tracer exits goes on exiting, and its real parent reaps it.
//!
//! Not expressible here: the tracer's timing (`usleep`, polled waits).

use taskcore::task::ptrace_event::*;
use taskcore::uapi::*;
use taskcore::{CloneArgs, SigAction, SigHandler, SignalAction, SignalDelivery, TaskId};

use crate::common::tracer_log;
use tracer_log::Run;

const OUT: &str = include_str!("oracle/ptrace_edges.out");

/// Case `case` of the recording; the tracee's handlers set [`bit`]s.
fn run(case: &str, delivery: SignalDelivery) -> Run {
    Run::new(OUT, case, delivery).collecting_handlers(bit)
}

/// The bit the tracee's handler sets for `sig`.
fn bit(sig: i32) -> i32 {
    match sig {
        SIGUSR1 => 1,
        SIGUSR2 => 2,
        SIGHUP => 4,
        SIGURG => 8,
        _ => 16,
    }
}

impl Run {
    /// The C program's `spawn()`: a tracee with a SIGUSR1 handler and
    /// `threads` threads.
    fn spawn(&mut self, threads: usize) -> (TaskId, i32, Option<(TaskId, i32)>) {
        let c = self.k.fork(self.tracer).unwrap();
        let a = SigAction {
            addr: 0x1000,
            ..SigAction::new(SigHandler::Handler, 0)
        };
        self.k.rt_sigaction(c, SIGUSR1, Some(a)).unwrap();
        let cp = self.name(c, "tracee");
        let t = (threads > 1).then(|| {
            let t = self.k.clone(c, &CloneArgs::thread()).unwrap();
            let tp = self.name(t, "tracee.thread");
            (t, tp)
        });
        (c, cp, t)
    }

    /// The C program's `drain()`: rounds of waits on each of `pids` (in
    /// order, until it exited), then a restart of each one that stopped
    /// (with its signal for a signal-delivery-stop).
    fn drain(&mut self, pids: &[i32]) {
        self.drain_tasks(pids, &[]);
    }
}

#[test]
fn sigcont_retraps_a_seized_tracee_with_no_stop_in_effect_as_linux() {
    let mut r = run("sigcont", SignalDelivery::Immediate);
    let (_, cp, _) = r.spawn(1);
    r.seize(cp, 0);
    r.kill(cp, SIGCONT, "SIGCONT");
    r.wait(cp);
    r.cont(cp, 0);
    r.wait(cp);
    r.cont(cp, SIGCONT);
    r.wait(cp);
    // SIGCONT while in a signal-delivery-stop: the re-trap comes when the
    // tracee is resumed.
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
    r.k.check_invariants();
}

#[test]
fn sigcont_to_an_attached_tracee_is_only_a_signal_as_linux() {
    let mut r = run("sigcont_attached", SignalDelivery::Immediate);
    let (_, cp, _) = r.spawn(1);
    let res = r.k.ptrace_attach(r.tracer, cp, false);
    r.req("PTRACE_ATTACH", cp, 0, res);
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
    let mut r = run("sigcont_threads", SignalDelivery::Immediate);
    let (_, cp, t) = r.spawn(2);
    let (_, tp) = t.unwrap();
    r.seize(cp, 0);
    r.seize(tp, 0);
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
    r.k.check_invariants();
}

/// The C program's `case_exit()`: `sig` to the tracee, or (0) its thread
/// calls `exit_group(3)`.
fn exit_case(threads: usize, sig: i32, name: &str) {
    let case = format!(
        "exit_{}_{}",
        if threads > 1 { "threads" } else { "single" },
        if sig != 0 { name } else { "exit_group" }
    );
    for delivery in [SignalDelivery::Immediate, SignalDelivery::OnGetSignal] {
        let mut r = run(&case, delivery);
        let (c, cp, t) = r.spawn(threads);
        r.seize(cp, PTRACE_O_TRACEEXIT);
        if let Some((_, tp)) = t {
            r.seize(tp, PTRACE_O_TRACEEXIT);
        }
        if sig != 0 {
            r.kill(cp, sig, name);
        } else {
            r.k.exit_group(t.unwrap().0, 3).unwrap();
        }
        if delivery == SignalDelivery::OnGetSignal {
            // Each thread, woken, runs get_signal().
            for u in [Some(c), t.map(|x| x.0)].into_iter().flatten() {
                let _ = r.k.get_signal(u);
            }
        }
        let mut pids = vec![cp];
        pids.extend(t.map(|x| x.1));
        r.drain_with(&pids, delivery, &[Some(c), t.map(|x| x.0)]);
        r.done();
        r.k.check_invariants();
    }
}

impl Run {
    /// [`Run::drain`], each resumed thread running `get_signal()` when the
    /// embedder must call it.
    fn drain_with(&mut self, pids: &[i32], delivery: SignalDelivery, tasks: &[Option<TaskId>]) {
        if delivery == SignalDelivery::Immediate {
            return self.drain(pids);
        }
        self.drain_tasks(pids, tasks);
    }

    /// The drain loop; after each restart, thread `tasks[i]` (when given)
    /// runs `get_signal()`.
    fn drain_tasks(&mut self, pids: &[i32], tasks: &[Option<TaskId>]) {
        let mut done = vec![false; pids.len()];
        for _ in 0..6 {
            if done.iter().all(|&d| d) {
                break;
            }
            let mut st = vec![-2; pids.len()];
            for (i, &p) in pids.iter().enumerate() {
                if !done[i] {
                    st[i] = self.wait(p);
                    if st[i] >= 0 && st[i] & 0x7f != 0x7f {
                        done[i] = true;
                    }
                }
            }
            for (i, &p) in pids.iter().enumerate() {
                if st[i] >= 0 && st[i] & 0x7f == 0x7f {
                    let ev = (st[i] >> 16) & 0xff;
                    self.cont(p, if ev != 0 { 0 } else { (st[i] >> 8) & 0xff });
                    if let Some(&Some(u)) = tasks.get(i) {
                        let _ = self.k.get_signal(u);
                    }
                }
            }
        }
    }
}

#[test]
fn sigterm_death_of_a_single_thread_stops_in_exit_event_as_linux() {
    exit_case(1, SIGTERM, "SIGTERM");
}

#[test]
fn sigkill_death_of_a_single_thread_stops_in_exit_event_as_linux() {
    exit_case(1, SIGKILL, "SIGKILL");
}

#[test]
fn sigterm_death_stops_every_thread_in_exit_event_as_linux() {
    exit_case(2, SIGTERM, "SIGTERM");
}

#[test]
fn sigkill_death_stops_every_thread_in_exit_event_as_linux() {
    exit_case(2, SIGKILL, "SIGKILL");
}

#[test]
fn exit_group_of_a_thread_stops_every_thread_in_exit_event_as_linux() {
    exit_case(2, 0, "");
}

#[test]
fn restart_signal_of_event_stops_is_ignored_as_linux() {
    let mut r = run("resume_events", SignalDelivery::Immediate);
    let c = r.k.fork(r.tracer).unwrap();
    let cp = r.name(c, "tracee");
    for sig in [SIGUSR1, SIGUSR2, SIGHUP, SIGURG] {
        let a = SigAction {
            addr: 0x1000,
            ..SigAction::new(SigHandler::Handler, 0)
        };
        r.k.rt_sigaction(c, sig, Some(a)).unwrap();
    }
    r.seize(
        cp,
        PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORKDONE | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT,
    );
    let res = r.k.ptrace_interrupt(r.tracer, cp);
    r.req("PTRACE_INTERRUPT", cp, 0, res);
    r.wait(cp); // PTRACE_EVENT_STOP
    r.cont(cp, SIGUSR1);
    r.wait(cp);
    let f = r.k.fork(c).unwrap();
    let at_fork = r.mask(c);
    r.set_mask(f, at_fork);
    r.wait(cp); // fork event
    let fp = r.pid(f);
    r.wait(fp); // the child's PTRACE_EVENT_STOP
    r.cont(fp, SIGHUP);
    let m = r.mask(f);
    r.k.exit_group(f, m).unwrap();
    r.wait(fp); // exit event
    r.cont(fp, 0);
    r.wait(fp);
    r.cont(cp, SIGUSR2);
    r.wait(cp); // SIGCHLD
    r.cont(cp, 0);
    r.k.wait4(c, fp, 0).unwrap();
    let v = r.k.vfork(c).unwrap();
    r.k.exit_group(v, 0).unwrap();
    r.wait(cp); // vfork done
    r.cont(cp, SIGURG);
    r.wait(cp); // SIGCHLD
    r.cont(cp, 0);
    let vp = r.k.pid_vnr(c, v).unwrap();
    r.k.wait4(c, vp, 0).unwrap();
    let m = r.mask(c);
    r.k.execve(c, "/proc/self/exe").unwrap();
    r.wait(cp); // exec event
    r.cont(cp, SIGUSR1);
    // Not killed by the SIGUSR1 (SIG_DFL after exec): the new image exits.
    r.k.exit_group(c, 16 * m + 5).unwrap();
    r.wait(cp); // exit event
    r.cont(cp, SIGUSR1);
    r.wait(cp);
    r.done();
    r.k.check_invariants();
}

#[test]
fn restart_signal_of_syscall_stops_is_sent_as_linux() {
    let mut r = run("resume_syscall", SignalDelivery::OnGetSignal);
    let c = r.k.fork(r.tracer).unwrap();
    let cp = r.name(c, "tracee");
    let a = SigAction {
        addr: 0x1000,
        ..SigAction::new(SigHandler::Handler, 0)
    };
    r.k.rt_sigaction(c, SIGUSR1, Some(a)).unwrap();
    r.k.ptrace_traceme(c).unwrap();
    let mut mask = 0;
    // The tracee returns to user space: get_signal(); a handler sets its
    // bit and returns (rt_sigreturn).
    let user = |r: &mut Run, mask: &mut i32| {
        if let Ok(SignalAction::Handler { sig, old_mask, .. }) = r.k.get_signal(c) {
            *mask |= bit(sig);
            r.k.rt_sigreturn(c, old_mask).unwrap();
        }
    };
    for round in 0..2 {
        r.k.kill(c, cp, SIGSTOP).unwrap();
        user(&mut r, &mut mask);
        r.wait(cp); // SIGSTOP
        r.syscall(cp);
        assert!(r.k.ptrace_syscall_enter(c, 110).unwrap());
        r.wait(cp); // getppid entry
        if round == 1 {
            r.syscall(cp);
            assert!(r.k.ptrace_syscall_exit(c).unwrap());
            r.wait(cp); // getppid exit
        }
        r.cont(cp, SIGUSR1);
        if round == 0 {
            assert!(!r.k.ptrace_syscall_exit(c).unwrap());
        }
        user(&mut r, &mut mask);
        r.wait(cp); // SIGUSR1 signal-delivery-stop: it was sent
        r.cont(cp, SIGUSR1);
        user(&mut r, &mut mask);
        if round == 0 {
            mask <<= 4;
        }
    }
    r.k.exit_group(c, mask).unwrap();
    r.wait(cp);
    r.done();
    r.k.check_invariants();
}

#[test]
fn a_zombie_thread_reaped_after_a_group_exit_reports_the_group_code_as_linux() {
    let mut r = run("zombie_status", SignalDelivery::Immediate);
    let c = r.k.fork(r.tracer).unwrap();
    let cp = r.name(c, "tracee");
    r.seize(cp, PTRACE_O_TRACECLONE);
    let t = r.k.clone(c, &CloneArgs::thread()).unwrap();
    r.wait(cp); // clone event
    r.cont(cp, 0);
    let tp = r.pid(t);
    r.wait(tp);
    r.cont(tp, 0);
    r.k.exit(t, 0).unwrap();
    r.k.exit_group(c, 173).unwrap();
    r.wait(tp);
    r.wait(cp);
    r.done();
    r.k.check_invariants();
}

/// SIGSTOP dequeued into a signal-delivery-stop, then SIGCONT sent, then
/// the tracer resumes with SIGSTOP: no stop (`do_signal_stop()` finds
/// `JOBCTL_STOP_DEQUEUED` cleared); the SIGCONT is delivered next.
fn sigstop_cancelled(seize: bool) {
    let case = if seize {
        "sigstop_cancelled_seized"
    } else {
        "sigstop_cancelled"
    };
    for delivery in [SignalDelivery::Immediate, SignalDelivery::OnGetSignal] {
        let mut r = run(case, delivery);
        let (c, cp, _) = r.spawn(1);
        let user = |r: &mut Run| {
            if delivery == SignalDelivery::OnGetSignal {
                let _ = r.k.get_signal(c);
            }
        };
        if seize {
            r.seize(cp, 0);
        } else {
            let res = r.k.ptrace_attach(r.tracer, cp, false);
            r.req("PTRACE_ATTACH", cp, 0, res);
            user(&mut r);
            r.wait(cp);
            r.cont(cp, 0);
            user(&mut r);
        }
        r.kill(cp, SIGSTOP, "SIGSTOP");
        user(&mut r);
        r.wait(cp);
        r.kill(cp, SIGCONT, "SIGCONT");
        r.cont(cp, SIGSTOP);
        user(&mut r);
        r.wait(cp);
        r.cont(cp, 0);
        user(&mut r);
        r.wait(cp);
        r.cont(cp, 0);
        user(&mut r);
        r.wait(cp);
        r.kill(cp, SIGKILL, "SIGKILL");
        user(&mut r);
        r.wait(cp);
        r.done();
        r.k.check_invariants();
    }
}

#[test]
fn sigcont_during_a_sigstop_delivery_stop_cancels_the_stop_as_linux() {
    sigstop_cancelled(false);
}

#[test]
fn sigcont_during_a_sigstop_delivery_stop_of_a_seized_tracee_as_linux() {
    sigstop_cancelled(true);
}

#[test]
fn sigkill_in_a_signal_delivery_stop_moves_to_the_exit_event_as_linux() {
    for delivery in [SignalDelivery::Immediate, SignalDelivery::OnGetSignal] {
        let mut r = run("exit_in_stop", delivery);
        let (c, cp, _) = r.spawn(1);
        r.seize(cp, PTRACE_O_TRACEEXIT);
        r.kill(cp, SIGUSR1, "SIGUSR1");
        if delivery == SignalDelivery::OnGetSignal {
            let _ = r.k.get_signal(c);
        }
        r.wait(cp);
        r.kill(cp, SIGKILL, "SIGKILL");
        r.wait(cp);
        r.cont(cp, 0);
        r.wait(cp);
        r.done();
        r.k.check_invariants();
    }
}

#[test]
fn a_tracee_in_its_exit_stop_exits_when_its_tracer_is_gone_as_linux() {
    for delivery in [SignalDelivery::Immediate, SignalDelivery::OnGetSignal] {
        let mut r = run("exit_tracer_gone", delivery);
        let (c, cp, _) = r.spawn(1);
        let parent = r.tracer;
        let sub = r.k.fork(parent).unwrap();
        let sp = r.name(sub, "subtracer");
        // The sibling traces the tracee.
        r.tracer = sub;
        r.seize(cp, PTRACE_O_TRACEEXIT);
        r.kill(cp, SIGKILL, "SIGKILL");
        if delivery == SignalDelivery::OnGetSignal {
            let _ = r.k.get_signal(c);
        }
        r.wait(cp);
        r.k.exit_group(sub, 0).unwrap();
        r.tracer = parent;
        r.wait(sp);
        r.wait(cp);
        r.done();
        r.k.check_invariants();
    }
}

#[test]
fn sigkill_to_a_tracee_in_its_exit_stop_is_dropped_as_linux() {
    for delivery in [SignalDelivery::Immediate, SignalDelivery::OnGetSignal] {
        let mut r = run("exit_stop_killed", delivery);
        let (c, cp, _) = r.spawn(1);
        r.seize(cp, PTRACE_O_TRACEEXIT);
        r.kill(cp, SIGTERM, "SIGTERM");
        if delivery == SignalDelivery::OnGetSignal {
            let _ = r.k.get_signal(c);
        }
        r.wait(cp);
        r.cont(cp, SIGTERM);
        if delivery == SignalDelivery::OnGetSignal {
            let _ = r.k.get_signal(c);
        }
        r.wait(cp);
        r.kill(cp, SIGKILL, "SIGKILL");
        r.wait(cp);
        r.cont(cp, 0);
        r.wait(cp);
        r.done();
        r.k.check_invariants();

        let mut r = run("exit_stop_killed_exit", delivery);
        let c = r.k.fork(r.tracer).unwrap();
        let cp = r.name(c, "tracee");
        r.seize(cp, PTRACE_O_TRACEEXIT);
        r.k.exit(c, 5).unwrap();
        r.wait(cp);
        r.kill(cp, SIGKILL, "SIGKILL");
        r.wait(cp);
        r.done();
        r.k.check_invariants();
    }
}

#[test]
fn a_group_exit_takes_a_thread_out_of_its_exit_stop_as_linux() {
    for delivery in [SignalDelivery::Immediate, SignalDelivery::OnGetSignal] {
        let mut r = run("exit_stop_zapped", delivery);
        let c = r.k.fork(r.tracer).unwrap();
        let cp = r.name(c, "tracee");
        let t = r.k.clone(c, &CloneArgs::thread()).unwrap();
        r.seize(cp, PTRACE_O_TRACEEXIT);
        r.k.exit(c, 5).unwrap();
        r.wait(cp);
        r.kill(cp, SIGTERM, "SIGTERM");
        if delivery == SignalDelivery::OnGetSignal {
            let _ = r.k.get_signal(t);
        }
        r.wait(cp);
        r.wait(cp); // reaped: waitpid() fails
        r.done();
        r.k.check_invariants();
    }
}

#[test]
fn a_clone_ptrace_child_resumed_with_its_sigstop_stops_again_as_linux() {
    for delivery in [SignalDelivery::Immediate, SignalDelivery::OnGetSignal] {
        let mut r = run("clone_ptrace_stop", delivery);
        let c = r.k.fork(r.tracer).unwrap();
        let cp = r.name(c, "tracee");
        r.k.ptrace_traceme(c).unwrap();
        r.k.kill(c, cp, SIGSTOP).unwrap();
        if delivery == SignalDelivery::OnGetSignal {
            let _ = r.k.get_signal(c);
        }
        r.wait(cp);
        r.cont(cp, 0);
        let args = CloneArgs {
            flags: CLONE_PTRACE,
            exit_signal: SIGCHLD,
            set_tid: vec![],
        };
        let g = r.k.clone(c, &args).unwrap();
        let gp = r.name(g, "tracee.child");
        if delivery == SignalDelivery::OnGetSignal {
            let _ = r.k.get_signal(g);
        }
        r.wait(gp);
        r.cont(gp, SIGSTOP);
        if delivery == SignalDelivery::OnGetSignal {
            let _ = r.k.get_signal(g);
        }
        r.wait(gp);
        r.k.kill(r.tracer, gp, SIGKILL).unwrap();
        r.wait(gp);
        r.k.kill(r.tracer, cp, SIGKILL).unwrap();
        r.wait(cp);
        r.done();
        r.k.check_invariants();
    }
}

#[test]
fn sigkill_from_a_syscall_stop_leads_to_the_exit_event_as_linux() {
    let mut r = run("syscall_kill", SignalDelivery::Immediate);
    let c = r.k.fork(r.tracer).unwrap();
    let cp = r.name(c, "tracee");
    r.k.ptrace_traceme(c).unwrap();
    r.k.kill(c, cp, SIGSTOP).unwrap();
    r.wait(cp);
    let o = PTRACE_O_TRACEEXIT | PTRACE_O_TRACESYSGOOD;
    let s = r.k.ptrace_setoptions(r.tracer, cp, o);
    r.req("PTRACE_SETOPTIONS", cp, o.into(), s);
    r.syscall(cp);
    assert!(r.k.ptrace_syscall_enter(c, 110).unwrap());
    r.wait(cp);
    let s = r.k.ptrace_syscall(r.tracer, cp, SIGKILL);
    r.req("PTRACE_SYSCALL", cp, SIGKILL as u64, s);
    r.wait(cp);
    r.cont(cp, 0);
    r.wait(cp);
    r.done();
    r.k.check_invariants();
}

#[test]
fn a_sigcont_retrap_survives_a_syscall_exit_stop_as_linux() {
    // Resumed from a syscall-entry stop, the tracee runs its syscall to
    // the exit stop before it looks at signals: the embedder calls
    // get_signal only on its way back to user space (OnGetSignal), as in
    // restart_signal_of_syscall_stops_is_sent_as_linux.
    {
        let mut r = run("sigcont_syscall", SignalDelivery::OnGetSignal);
        let c = r.k.fork(r.tracer).unwrap();
        let cp = r.name(c, "tracee");
        r.seize(cp, 0);
        // The tracee stops itself, then makes getppid().
        r.k.kill(c, cp, SIGSTOP).unwrap();
        let _ = r.k.get_signal(c);
        r.wait(cp); // SIGSTOP
        r.syscall(cp);
        assert!(r.k.ptrace_syscall_enter(c, 110).unwrap());
        r.wait(cp); // getppid entry
        r.kill(cp, SIGCONT, "SIGCONT");
        r.wait(cp);
        r.syscall(cp);
        assert!(r.k.ptrace_syscall_exit(c).unwrap());
        r.wait(cp); // getppid exit
        r.cont(cp, 0);
        let _ = r.k.get_signal(c);
        r.wait(cp); // the re-trap
        r.cont(cp, 0);
        let _ = r.k.get_signal(c);
        r.wait(cp); // SIGCONT
        r.cont(cp, 0);
        let _ = r.k.get_signal(c);
        r.wait(cp);
        r.kill(cp, SIGKILL, "SIGKILL");
        r.wait(cp);
        r.done();
        r.k.check_invariants();
    }
}

/// A seized process of a stopped group, resumed from its group-stop trap,
/// makes a thread (`PTRACE_O_TRACECLONE`): the thread's first trap is its
/// part of the group stop (`task_join_group_stop()`, then
/// `do_signal_stop()` -> `do_jobctl_trap()`: SIGSTOP reported), and no
/// re-trap is left pending, so after `PTRACE_LISTEN` it listens:
/// `PTRACE_SETOPTIONS` fails with ESRCH and there is nothing to wait for.
#[test]
fn a_new_thread_of_a_stopped_group_listens_after_its_first_trap_as_linux() {
    let mut r = run("listen_new_thread", SignalDelivery::Immediate);
    let c = r.k.fork(r.tracer).unwrap();
    let cp = r.name(c, "tracee");
    r.seize(cp, PTRACE_O_TRACECLONE);
    r.k.kill(c, cp, SIGSTOP).unwrap();
    r.wait(cp); // SIGSTOP signal-delivery-stop
    r.cont(cp, SIGSTOP);
    r.wait(cp); // group-stop trap
    r.cont(cp, 0);
    let t = r.k.clone(c, &CloneArgs::thread()).unwrap();
    r.wait(cp); // clone event
    let tp = r.pid(t);
    r.wait(tp); // the thread's first trap
    let l = r.k.ptrace_listen(r.tracer, tp);
    r.req("PTRACE_LISTEN", tp, 0, l);
    let s = r.k.ptrace_setoptions(r.tracer, tp, 0);
    r.req("PTRACE_SETOPTIONS", tp, 0, s);
    r.wait(tp);
    r.kill(cp, SIGKILL, "SIGKILL");
    r.wait(tp);
    r.wait(cp);
    r.done();
    r.k.check_invariants();
}
