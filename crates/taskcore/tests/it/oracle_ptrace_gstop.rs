//! Group stop under ptrace against tests/oracle/ptrace_gstop.out (re-record
//! with tests/oracle/record.sh): a thread already in a ptrace stop when its
//! group stops is counted in the stop and takes part in it (a group-stop
//! trap) when resumed, before it dequeues another pending signal; the
//! restart signal of a group-stop trap is ignored and the SIGSTOP of an
//! attach to a stopped process is its next stop. Every `wait`,
//! `getsiginfo` and `cont` line of the recording is compared, in both
//! [`SignalDelivery`] modes.
//!
//! Not expressed here: the thread states and ShdPnd lines (other tests
//! read procfs).

use taskcore::uapi::*;
use taskcore::{CloneArgs, Config, Kernel, SignalDelivery, TaskId, WaitOutcome};

const OUT: &str = include_str!("oracle/ptrace_gstop.out");

/// The recorded lines of `case` that this test reproduces.
fn recorded(case: &str) -> Vec<&'static str> {
    OUT.lines()
        .filter(|l| l.starts_with(case))
        .filter(|l| {
            let step = l.split(' ').nth(1).unwrap_or("");
            matches!(step, "wait" | "getsiginfo" | "cont" | "attach")
        })
        .collect()
}

struct Tracer {
    k: Kernel,
    me: TaskId,
    pid: i32,
    lines: Vec<String>,
    case: &'static str,
}

impl Tracer {
    fn wait(&mut self, flags: i32) {
        let line = match self.k.wait4(self.me, -1, __WALL | flags).unwrap() {
            WaitOutcome::Reported(r) => format!(
                "wait ret={} status={:#x}",
                if r.pid == self.pid { "child" } else { "other" },
                r.status
            ),
            _ => "wait ret=0 status=0x0".into(),
        };
        self.push(line);
    }

    fn siginfo(&mut self) {
        let line = match self.k.ptrace_getsiginfo(self.me, self.pid) {
            Ok(i) => format!("getsiginfo si_signo={} si_code={}", i.signo, i.code),
            Err(e) => format!("getsiginfo errno={e:?}"),
        };
        self.push(line);
    }

    fn cont(&mut self, sig: i32) {
        let r = match self.k.ptrace_cont(self.me, self.pid, sig) {
            Ok(()) => 0,
            Err(_) => -1,
        };
        self.push(format!("cont data={sig} ret={r}"));
    }

    fn attach(&mut self) {
        let r = match self.k.ptrace_attach(self.me, self.pid, false) {
            Ok(()) => 0,
            Err(_) => -1,
        };
        self.push(format!("attach ret={r}"));
    }

    fn push(&mut self, line: String) {
        self.lines.push(format!("{} {line}", self.case));
    }
}

fn tracer(delivery: SignalDelivery, case: &'static str) -> (Tracer, TaskId) {
    let mut k = Kernel::new(Config::default()).unwrap();
    k.set_signal_delivery(delivery);
    let init = k.init_task().unwrap();
    let me = k.fork(init).unwrap();
    let child = k.fork(me).unwrap();
    let pid = k.pid_vnr(me, child).unwrap();
    let t = Tracer {
        k,
        me,
        pid,
        lines: Vec::new(),
        case,
    };
    (t, child)
}

/// Runs the thread's `get_signal` (the return to user space) when
/// deliveries wait for it.
fn run(t: &mut Tracer, task: TaskId) {
    if t.k.signal_delivery() == SignalDelivery::OnGetSignal {
        let _ = t.k.get_signal(task);
    }
}

fn traced_leader(delivery: SignalDelivery) {
    let (mut t, leader) = tracer(delivery, "traced_leader");
    let thread = t.k.clone(leader, &CloneArgs::thread()).unwrap();
    t.attach();
    run(&mut t, leader);
    t.wait(0);
    t.siginfo();
    let (me, pid) = (t.me, t.pid);
    t.k.kill(me, pid, SIGSTOP).unwrap();
    run(&mut t, thread);
    t.wait(WNOHANG);
    t.k.kill(me, pid, SIGTERM).unwrap();
    t.cont(0);
    run(&mut t, leader);
    t.wait(0);
    t.siginfo();
    t.cont(0);
    run(&mut t, leader);
    t.wait(0);
    t.siginfo();
    t.cont(SIGTERM);
    run(&mut t, leader);
    run(&mut t, thread);
    t.wait(0);
    assert_eq!(t.lines, recorded("traced_leader"), "{delivery:?}");
}

fn attach_stopped(delivery: SignalDelivery) {
    let (mut t, child) = tracer(delivery, "attach_stopped");
    let (me, pid) = (t.me, t.pid);
    t.k.kill(me, pid, SIGSTOP).unwrap();
    run(&mut t, child);
    let st = match t.k.wait4(me, pid, WUNTRACED).unwrap() {
        WaitOutcome::Reported(r) => r.status,
        _ => 0,
    };
    assert_eq!(st, 0x137f);
    t.attach();
    run(&mut t, child);
    t.wait(0);
    t.siginfo();
    t.cont(SIGUSR1);
    run(&mut t, child);
    t.wait(0);
    t.siginfo();
    t.cont(SIGUSR1);
    run(&mut t, child);
    t.wait(0);
    assert_eq!(t.lines, recorded("attach_stopped"), "{delivery:?}");
}

#[test]
fn traced_leader_takes_part_in_the_group_stop_first() {
    traced_leader(SignalDelivery::Immediate);
    traced_leader(SignalDelivery::OnGetSignal);
}

#[test]
fn attach_to_a_stopped_process_ignores_the_restart_signal() {
    attach_stopped(SignalDelivery::Immediate);
    attach_stopped(SignalDelivery::OnGetSignal);
}
