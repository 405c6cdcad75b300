//! A tiny simulator loop embedding taskcore (the worked example of
//! `docs/embedding.md`): one `Kernel` per simulated host, a run queue of
//! emulated tasks, `WouldBlock` mapped to "block on child", and the
//! notifications drained after every call to wake the blocked.
//!
//! Each emulated program is a little script: a shell forks three workers
//! and waits for each; a worker "runs" for a few ticks and exits.
//!
//! Run: `cargo run -p taskcore --example sim_loop`.

use std::collections::{HashMap, VecDeque};

use taskcore::{Config, Kernel, Notification, TaskId, WaitOutcome};

/// What an emulated task does next.
#[derive(Debug, Clone, Copy)]
enum Step {
    Fork,
    Work(u32),
    WaitAny,
    Exit(i32),
}

struct Host {
    k: Kernel,
    /// Runnable tasks, round robin.
    runq: VecDeque<TaskId>,
    /// Tasks blocked in wait, by thread group leader.
    blocked: HashMap<TaskId, TaskId>,
    /// Each task's remaining program.
    programs: HashMap<TaskId, VecDeque<Step>>,
    log: Vec<String>,
}

impl Host {
    /// Routes one call's notifications: wake the waiters of a group.
    fn drain(&mut self) {
        for n in self.k.take_notifications() {
            if let Notification::WakeChldexit { group } = n {
                if let Some(t) = self.blocked.remove(&group) {
                    self.runq.push_back(t);
                }
            }
        }
    }

    fn tick(&mut self) -> bool {
        let Some(t) = self.runq.pop_front() else {
            return false;
        };
        let Some(step) = self.programs.get_mut(&t).and_then(|p| p.front().copied()) else {
            return true;
        };
        let pid = self.k.getpid(t).unwrap_or(-1);
        match step {
            Step::Fork => {
                let child = self.k.fork(t).expect("fork");
                let cpid = self.k.getpid(child).expect("live child");
                self.log.push(format!("{pid}: fork -> {cpid}"));
                let work = [Step::Work(cpid as u32 % 3 + 1), Step::Exit(cpid)];
                self.programs.insert(child, work.into_iter().collect());
                self.runq.push_back(child);
                self.advance(t);
            }
            Step::Work(n) => {
                let p = self.programs.get_mut(&t).expect("program");
                p[0] = if n > 1 {
                    Step::Work(n - 1)
                } else {
                    Step::Exit(pid)
                };
                if n <= 1 {
                    p.pop_front();
                }
                self.runq.push_back(t);
            }
            Step::WaitAny => match self.k.wait4(t, -1, 0) {
                Ok(WaitOutcome::Reported(r)) => {
                    self.log
                        .push(format!("{pid}: wait -> {} status {}", r.pid, r.status >> 8));
                    self.advance(t);
                }
                Ok(WaitOutcome::WouldBlock) => {
                    // Block on child: woken by WakeChldexit for our group.
                    let leader = self.k.find_task_by_vpid(t, pid).expect("own leader");
                    self.blocked.insert(leader, t);
                }
                Ok(other) => panic!("{other:?}"),
                Err(e) => {
                    self.log.push(format!("{pid}: wait -> {}", e.name()));
                    self.advance(t);
                }
            },
            Step::Exit(code) => {
                self.k.exit_group(t, code & 0xff).expect("exit");
                self.log.push(format!("{pid}: exit {}", code & 0xff));
                self.programs.remove(&t);
            }
        }
        self.drain();
        true
    }

    fn advance(&mut self, t: TaskId) {
        if let Some(p) = self.programs.get_mut(&t) {
            p.pop_front();
        }
        self.runq.push_back(t);
    }
}

/// Runs the shell's script to the end; returns the log.
fn run() -> Vec<String> {
    let mut k = Kernel::new(Config::default()).expect("a kernel");
    let init = k.init_task().expect("init");
    let shell = k.fork(init).expect("the shell");
    k.take_notifications();
    let mut host = Host {
        k,
        runq: VecDeque::from([shell]),
        blocked: HashMap::new(),
        programs: HashMap::new(),
        log: Vec::new(),
    };
    let prog = [
        Step::Fork,
        Step::Fork,
        Step::Fork,
        Step::WaitAny,
        Step::WaitAny,
        Step::WaitAny,
        Step::WaitAny, // ECHILD: nothing left
        Step::Exit(0),
    ];
    host.programs.insert(shell, prog.into_iter().collect());
    while host.tick() {}
    // The shell's zombie is init's to reap.
    assert!(matches!(
        host.k.wait4(init, -1, 0),
        Ok(WaitOutcome::Reported(_))
    ));
    host.log
}

fn main() {
    for l in run() {
        println!("{l}");
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_shell_reaps_every_worker_then_gets_echild() {
        let log = super::run();
        let reaped: Vec<&String> = log
            .iter()
            .filter(|l| l.contains("wait -> ") && l.contains("status"))
            .collect();
        assert_eq!(reaped.len(), 3, "{log:?}");
        assert_eq!(log[log.len() - 2], "2: wait -> ECHILD");
        // Each worker's status is its pid (its exit code).
        for l in reaped {
            let pid = l
                .split("wait -> ")
                .nth(1)
                .unwrap()
                .split(' ')
                .next()
                .unwrap();
            assert!(l.ends_with(&format!("status {pid}")), "{l}");
        }
    }
}
