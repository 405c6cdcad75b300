//! Deaths under strace are two moments. A task's `do_exit` (its children
//! reparented, its tracer told) happens somewhere after its last printed
//! activity ([`Kind::Die`](crate::event::Kind::Die), a synthetic event whose
//! window ends at the `+++` line); its parent can see it only once strace
//! has reaped it and printed `+++`. The emulated strace, every traced
//! task's tracer in the core ([`strace`](super::strace)), reaps a leader
//! at its `+++` line and a thread at its exit.

use taskcore::sys::Syscall;
use taskcore::uapi::{__WALL, P_PID, WEXITED, WNOHANG};
use taskcore::TaskId;

use super::Engine;
use crate::event::Event;

impl Engine {
    /// The `do_exit` of the event's task (a tracee of the emulated strace:
    /// its zombie stays invisible to its parent until strace reaps it at
    /// the `+++` line).
    pub(super) fn die(&mut self, e: &Event, code: Option<i32>, sig: Option<(i32, bool)>) {
        let rec = e.pid;
        let Some(tr) = self.pids.task(rec) else {
            return;
        };
        if tr.dead {
            return;
        }
        let leader = self.leader_of(tr.task).ok();
        self.apply_death(e, tr.task, leader, code, sig);
        self.drain();
    }

    /// Applies the death of `task` (the event's recorded task): a pending
    /// exit_group of its process, a fatal signal, or its own exit.
    fn apply_death(
        &mut self,
        e: &Event,
        task: TaskId,
        leader: Option<TaskId>,
        code: Option<i32>,
        sig: Option<(i32, bool)>,
    ) {
        if let Some(l) = leader {
            self.deaths.death_leader.insert(task, l);
            if let Some((s, core)) = sig {
                self.deaths
                    .group_status
                    .entry(l)
                    .or_insert(s | if core { 0x80 } else { 0 });
            }
        }
        let group = leader.and_then(|l| self.deaths.pending_group_exit.remove(&l));
        let r = if let Some((caller, c)) = group {
            let who = self
                .pids
                .task(caller)
                .filter(|t| !t.dead)
                .map_or(task, |t| t.task);
            self.sys(who, &Syscall::ExitGroup { code: c }).map(drop)
        } else if let Some((s, core)) = sig {
            self.k.force_fatal_signal(task, s, core)
        } else {
            // The recorded exit(2), or the status of the `+++` line.
            let code = self
                .deaths
                .pending_exit
                .remove(&e.pid)
                .or(code)
                .unwrap_or(0);
            self.sys(task, &Syscall::Exit { code }).map(drop)
        };
        if let Err(err) = r {
            self.mismatch(e, "death", "task alive".into(), err.name().into());
        }
    }

    /// Tracee `task` exited in the core: a thread other than its
    /// process's leader is reaped by strace at once (no one else can see
    /// its zombie; its `+++` line, if the trace prints it, reports that
    /// reap, and under `-qq` a thread killed by another's `exit_group`
    /// has none).
    pub(super) fn strace_exited(&mut self, task: TaskId) {
        let (Ok(tid), Ok(tgid)) = (self.k.gettid(task), self.k.getpid(task)) else {
            return;
        };
        if tid == tgid {
            return;
        }
        self.strace_reap(task);
    }

    /// strace's `wait4(__WALL)` collecting tracee `task`'s zombie
    /// (`wait_task_zombie()`; nothing when it cannot be reaped).
    fn strace_reap(&mut self, task: TaskId) {
        if let Ok(nr) = self.k.pid_vnr(self.world.strace, task) {
            let _ = self
                .k
                .waitid(self.world.strace, P_PID, nr, WEXITED | __WALL | WNOHANG);
        }
    }

    /// A `+++` line: the death is applied if it was not yet, strace reaps
    /// the process's zombie so that its parent sees it, and the status is
    /// checked. `inferred`: the line is the replay's, from the task's exit
    /// call (`shape/exits.rs`), not the trace's.
    pub(super) fn do_death(
        &mut self,
        e: &Event,
        code: Option<i32>,
        sig: Option<(i32, bool)>,
        inferred: bool,
    ) {
        let rec = e.pid;
        let Some(tr) = self.pids.task(rec) else {
            return;
        };
        if !tr.dead {
            let leader = self.leader_of(tr.task).ok();
            self.apply_death(e, tr.task, leader, code, sig);
            self.drain();
        }
        // strace prints `+++` when its wait reaps the tracee
        // (wait_task_zombie(), which tells the real parent of a process
        // then: do_notify_parent()). A zombie leader whose threads are not
        // all gone cannot be reaped (delay_group_leader()): strace prints
        // no line for it before they are gone, and under `-qq` the line
        // is placed after their deaths (`shape/exits.rs`).
        self.strace_reap(tr.task);
        self.drain();
        self.deaths.unconfirmed_dead.remove(&tr.task);
        let want = match (code, sig) {
            (Some(c), _) => (c & 0xff) << 8,
            (None, Some((s, core))) => s | if core { 0x80 } else { 0 },
            _ => 0,
        };
        // wait_task_zombie(): strace reaps the task after its group's exit
        // began (another thread's exit_group, or a fatal signal): the
        // status is the group's code, not the task's own
        // (tests/oracle/ptrace_edges.out, case zombie_status).
        let group_code = self
            .deaths
            .death_leader
            .remove(&tr.task)
            .and_then(|l| self.deaths.group_status.get(&l).copied());
        let got = self.deaths.exit_codes.get(&tr.task).copied();
        let skipped = self.deaths.exit_after_death.remove(&rec);
        if inferred && skipped && got.is_some() && got != Some(want) {
            // An `exit(N) = ?` line is strace's syscall-entry stop, not
            // the exit: a thread its group's exit reached there (SIGKILL
            // from zap_other_threads()) skips the call
            // (ptrace_report_syscall() returns fatal_signal_pending()) and
            // dies with the group's code, which the core gave it. Without
            // the `+++` line the trace cannot tell which came first.
            *self
                .stats
                .unchecked
                .entry("+++ exited (from exit(N), with its group's exit)".into())
                .or_default() += 1;
            self.close_record(e, got.unwrap_or(want));
            return;
        }
        self.stats.checked += 1;
        self.close_record(e, want);
        match got {
            Some(got) if got == want || group_code == Some(want) => {}
            Some(got) => self.mismatch(e, "exit status", format!("{want:#x}"), format!("{got:#x}")),
            None => self.mismatch(e, "exit status", format!("{want:#x}"), "no exit".into()),
        }
    }
}
