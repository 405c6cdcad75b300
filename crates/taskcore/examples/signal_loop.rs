//! A tiny user-space kernel loop that delivers signals itself
//! (`SignalDelivery::OnGetSignal`): a run queue of emulated tasks, each
//! returning to user space through `get_signal` before its next step,
//! handlers "run" (logged) and returned from with `rt_sigreturn`, and a
//! wait interrupted by a handled signal restarted or failed with `EINTR`
//! as `SA_RESTART` says.
//!
//! The scenario: a shell handles SIGUSR1 (with `SA_RESTART`) and SIGUSR2
//! (without), forks two workers and waits for any child. The first worker
//! sends SIGUSR1 (the wait restarts), the second SIGUSR2 (the wait fails
//! with `EINTR` and the shell waits again). The run ends with the log of
//! what happened, checked against the expected one.
//!
//! Run: `cargo run -p taskcore --example signal_loop`.

use std::collections::{HashMap, VecDeque};

use taskcore::uapi::{SA_RESTART, SIGUSR1, SIGUSR2};
use taskcore::{
    Config, Errno, Kernel, Notification, Restart, Restarted, SigAction, SigHandler, SignalAction,
    SignalDelivery, TaskId, WaitOutcome,
};

/// What an emulated task does next.
#[derive(Debug, Clone, Copy)]
enum Step {
    Handle(i32, u64),
    Fork,
    /// Runs user code for this many turns.
    Work(u32),
    SignalParent(i32),
    WaitAny,
    Exit(i32),
}

struct Host {
    k: Kernel,
    runq: VecDeque<TaskId>,
    /// Tasks asleep in a wait.
    asleep: Vec<TaskId>,
    programs: HashMap<TaskId, VecDeque<Step>>,
    log: Vec<String>,
}

impl Host {
    fn name(&self, t: TaskId) -> String {
        format!("pid {}", self.k.getpid(t).unwrap_or(0))
    }

    /// Routes one call's notifications: a sleeper wakes on a child event or
    /// on a signal to take.
    fn drain(&mut self) {
        for n in self.k.take_notifications() {
            let woken = match n {
                Notification::WakeChldexit { group } => {
                    let i = self
                        .asleep
                        .iter()
                        .position(|&t| self.k.getpid(t).ok() == self.k.getpid(group).ok());
                    i.map(|i| self.asleep.remove(i))
                }
                Notification::SigPending { task } => {
                    let i = self.asleep.iter().position(|&t| t == task);
                    i.map(|i| self.asleep.remove(i))
                }
                _ => None,
            };
            if let Some(t) = woken {
                self.runq.push_back(t);
            }
        }
    }

    /// The return to user space: take signals until there is nothing to
    /// take. Returns what an interrupted wait becomes, if a handler ran.
    fn return_to_user(&mut self, t: TaskId) -> Option<SigAction> {
        let mut ran = None;
        loop {
            let a = self.k.get_signal(t).unwrap();
            self.drain();
            match a {
                SignalAction::Handler {
                    sig,
                    action,
                    old_mask,
                    ..
                } => {
                    self.log.push(format!(
                        "{} runs the handler at {:#x} for signal {sig}",
                        self.name(t),
                        action.addr
                    ));
                    self.k.rt_sigreturn(t, old_mask).unwrap();
                    self.drain();
                    ran = Some(action);
                }
                _ => return ran,
            }
        }
    }

    /// Runs task `t` for one step.
    fn step(&mut self, t: TaskId) {
        let Some(&step) = self.programs.get(&t).and_then(|p| p.front()) else {
            return;
        };
        match step {
            Step::Handle(sig, flags) => {
                let a = SigAction {
                    addr: 0x40_1000 + sig as u64,
                    ..SigAction::new(SigHandler::Handler, flags)
                };
                self.k.rt_sigaction(t, sig, Some(a)).unwrap();
            }
            Step::Fork => {
                let c = self.k.fork(t).unwrap();
                let i = self.programs[&t]
                    .iter()
                    .filter(|s| matches!(s, Step::Fork))
                    .count();
                let (sig, work) = if i == 2 { (SIGUSR1, 3) } else { (SIGUSR2, 12) };
                let prog = [
                    Step::Work(work),
                    Step::SignalParent(sig),
                    Step::Exit(i as i32),
                ];
                self.programs.insert(c, prog.into());
                self.runq.push_back(c);
            }
            Step::Work(n) => {
                if n > 1 {
                    let p = self.programs.get_mut(&t).unwrap();
                    p[0] = Step::Work(n - 1);
                    self.runq.push_back(t);
                    return;
                }
            }
            Step::SignalParent(sig) => {
                let pp = self.k.getppid(t).unwrap();
                self.k.kill(t, pp, sig).unwrap();
            }
            Step::WaitAny => match self.k.wait4(t, -1, 0) {
                Ok(WaitOutcome::Reported(r)) => {
                    let msg = format!(
                        "{} reaps pid {} (status {:#x})",
                        self.name(t),
                        r.pid,
                        r.status
                    );
                    self.log.push(msg);
                }
                Ok(WaitOutcome::WouldBlock) => {
                    self.drain();
                    self.asleep.push(t);
                    return;
                }
                Ok(WaitOutcome::Interrupted) => {
                    self.drain();
                    let handler = self.return_to_user(t);
                    match Restart::Sys.resolve(handler.as_ref()) {
                        Restarted::Restart => {
                            self.log.push(format!("{}: wait4 restarted", self.name(t)));
                            self.runq.push_back(t);
                            return;
                        }
                        _ => self.log.push(format!("{}: wait4 -> EINTR", self.name(t))),
                    }
                }
                Ok(_) => {}
                Err(Errno::ECHILD) => self.log.push(format!("{}: wait4 -> ECHILD", self.name(t))),
                Err(e) => panic!("{e:?}"),
            },
            Step::Exit(code) => {
                self.k.exit_group(t, code).unwrap();
                self.drain();
                self.programs.remove(&t);
                return;
            }
        }
        self.drain();
        self.programs.get_mut(&t).unwrap().pop_front();
        if self.return_to_user(t).is_some() {
            // A handler ran after a call that did not sleep: nothing to
            // restart.
        }
        self.runq.push_back(t);
    }
}

fn main() {
    let mut k = Kernel::new(Config::default()).unwrap();
    k.set_signal_delivery(SignalDelivery::OnGetSignal);
    let init = k.init_task().unwrap();
    let shell = k.fork(init).unwrap();
    let mut h = Host {
        k,
        runq: VecDeque::from([shell]),
        asleep: Vec::new(),
        programs: HashMap::new(),
        log: Vec::new(),
    };
    let prog = [
        Step::Handle(SIGUSR1, SA_RESTART),
        Step::Handle(SIGUSR2, 0),
        Step::Fork,
        Step::Fork,
        Step::WaitAny,
        Step::WaitAny,
        Step::WaitAny,
        Step::WaitAny,
        Step::Exit(0),
    ];
    h.programs.insert(shell, prog.into());
    let mut steps = 0;
    while let Some(t) = h.runq.pop_front() {
        h.step(t);
        steps += 1;
        assert!(steps < 1000, "the loop does not end");
    }
    for l in &h.log {
        println!("{l}");
    }
    let want = [
        "pid 2 runs the handler at 0x40100a for signal 10",
        "pid 2: wait4 restarted",
        "pid 2 reaps pid 3 (status 0x200)",
        "pid 2 runs the handler at 0x40100c for signal 12",
        "pid 2: wait4 -> EINTR",
        "pid 2 reaps pid 4 (status 0x100)",
        "pid 2: wait4 -> ECHILD",
    ];
    assert_eq!(h.log, want);
    println!("ok: {} steps", steps);
}
