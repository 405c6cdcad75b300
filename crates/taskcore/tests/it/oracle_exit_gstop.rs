//! A thread that exits while a group stop is pending for it, against
//! tests/oracle/exit_gstop.out (re-record with tests/oracle/record.sh):
//! held by its tracer in its `PTRACE_EVENT_EXIT` stop, it is counted in
//! the group stop another thread starts, which completes (the parent's
//! `WUNTRACED` wait reports it) only once the thread is resumed and takes
//! part on its way out (`exit_signals()`). Every line of the recording is
//! compared, in both [`SignalDelivery`] modes.

use taskcore::task::ptrace_event::PTRACE_O_TRACEEXIT;
use taskcore::uapi::*;
use taskcore::{CloneArgs, Config, Kernel, SignalDelivery, TaskId, WaitOutcome};

const OUT: &str = include_str!("oracle/exit_gstop.out");

struct Case {
    k: Kernel,
    me: TaskId,
    child: i32,
    tid: i32,
    lines: Vec<String>,
}

impl Case {
    fn push(&mut self, line: String) {
        self.lines.push(format!("exit_gstop {line}"));
    }

    /// `waitpid(pid, &st, flags)` of the recording, its answer named as
    /// the program names it.
    fn wait(&mut self, step: &str, pid: i32, flags: i32, thread: bool) {
        let (r, st) = match self.k.wait4(self.me, pid, flags).unwrap() {
            WaitOutcome::Reported(r) => (r.pid, r.status),
            _ => (0, 0),
        };
        let st = if st == 0 {
            "0".to_string()
        } else {
            format!("{st:#x}")
        };
        let line = if thread {
            let who = if r == self.tid { "thread" } else { "other" };
            format!("{step} wait={who} status={st}")
        } else if r == self.child {
            format!("{step} ret=child status={st}")
        } else {
            format!("{step} ret={r} status={st}")
        };
        self.push(line);
    }
}

/// Runs the thread's `get_signal` (the return to user space) when
/// deliveries wait for it.
fn run(k: &mut Kernel, task: TaskId) {
    if k.signal_delivery() == SignalDelivery::OnGetSignal {
        let _ = k.get_signal(task);
    }
}

fn exit_gstop(delivery: SignalDelivery) {
    let mut k = Kernel::new(Config::default()).unwrap();
    k.set_signal_delivery(delivery);
    let init = k.init_task().unwrap();
    let me = k.fork(init).unwrap();
    let c = k.fork(me).unwrap();
    let t = k.clone(c, &CloneArgs::thread()).unwrap();
    let child = k.pid_vnr(me, c).unwrap();
    let tid = k.pid_vnr(me, t).unwrap();
    let mut case = Case {
        k,
        me,
        child,
        tid,
        lines: Vec::new(),
    };
    let r = case.k.ptrace_seize(me, tid, PTRACE_O_TRACEEXIT);
    case.push(format!("seize ret={}", if r.is_ok() { 0 } else { -1 }));
    // The thread calls exit(0): it stops in PTRACE_EVENT_EXIT.
    case.k.exit(t, 0).unwrap();
    case.wait("event_exit", tid, __WALL, true);
    case.k.kill(me, child, SIGSTOP).unwrap();
    run(&mut case.k, c);
    case.wait("held", child, WUNTRACED | WNOHANG, false);
    let r = case.k.ptrace_cont(me, tid, 0);
    case.push(format!("cont ret={}", if r.is_ok() { 0 } else { -1 }));
    case.wait("thread_gone", tid, __WALL, true);
    case.wait("stopped", child, WUNTRACED, false);
    case.k.kill(me, child, SIGCONT).unwrap();
    run(&mut case.k, c);
    case.wait("continued", child, WCONTINUED, false);
    case.k.kill(me, child, SIGKILL).unwrap();
    run(&mut case.k, c);
    case.wait("killed", child, 0, false);
    let want: Vec<&str> = OUT.lines().collect();
    assert_eq!(case.lines, want, "{delivery:?}");
}

#[test]
fn a_thread_exiting_with_a_group_stop_pending_takes_part() {
    exit_gstop(SignalDelivery::Immediate);
    exit_gstop(SignalDelivery::OnGetSignal);
}
