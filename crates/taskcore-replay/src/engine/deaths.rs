//! Deaths under strace are two moments. A task's `do_exit` (its children
//! reparented, its tracer told) happens somewhere after its last printed
//! activity ([`Kind::Die`](crate::event::Kind::Die), a synthetic event whose
//! window ends at the `+++` line); its parent can see it only once strace
//! has reaped it and printed `+++`. The emulated strace therefore seizes a
//! dying process's leader before its `do_exit` and reaps it at the `+++`
//! line.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use taskcore::sys::Syscall;
use taskcore::uapi::{__WALL, P_PID, WEXITED, WNOHANG};
use taskcore::{TaskId, WaitOutcome};

use super::Engine;
use crate::event::Event;

/// What the engine knows of deaths in progress: the core's exit codes, the
/// exits begun, and which deaths strace has not printed (reaped) yet.
#[derive(Clone, Debug, Default)]
pub(super) struct Deaths {
    /// Recorded tid -> emulated number of the leader strace seized as it
    /// died, until strace has reaped it.
    pub(super) dying_leader: HashMap<i32, i32>,
    /// Exit status words from `Exited` notifications.
    pub(super) exit_codes: HashMap<TaskId, i32>,
    /// Pending `exit(code)` of a recorded tid.
    pub(super) pending_exit: HashMap<i32, i32>,
    /// Pending `exit_group(code)` by a recorded tid, keyed by its leader
    /// task.
    pub(super) pending_group_exit: HashMap<TaskId, (i32, i32)>,
    /// The status word of each group (leader task) whose exit began
    /// (`exit_group` entered, or a fatal signal applied): what `wait`
    /// reports for any of its zombies from then on.
    pub(super) group_status: HashMap<TaskId, i32>,
    /// The leader of each task that died in the core, until its `+++` line.
    pub(super) death_leader: HashMap<TaskId, TaskId>,
    /// Tasks dead in the core whose `+++` line has not been seen.
    pub(super) unconfirmed_dead: HashSet<TaskId>,
    /// Groups (leader tasks) stopped by a kill whose `--- stopped` line has
    /// not been seen.
    pub(super) unconfirmed_stop: HashSet<TaskId>,
}

impl Engine {
    /// The `do_exit` of the event's task: the process's leader, when the
    /// whole process is ending, is first seized by the emulated strace, so
    /// that its zombie stays invisible to its parent until strace reaps it
    /// at the `+++` line.
    pub(super) fn die(&mut self, e: &Event, code: Option<i32>, sig: Option<(i32, bool)>) {
        let rec = e.pid;
        let Some(tr) = self.pids.task(rec) else {
            return;
        };
        if tr.dead {
            return;
        }
        let leader = self.leader_of(tr.task).ok();
        let group_ending = leader.is_some_and(|l| {
            l == tr.task || self.deaths.pending_group_exit.contains_key(&l) || sig.is_some()
        });
        if let (Some(l), true) = (leader, group_ending) {
            if let Ok(nr) = self.k.pid_vnr(self.world.strace, l) {
                // EPERM when the program traces it itself: then unseized.
                let _ = self.k.ptrace_attach(self.world.strace, nr, true);
                self.deaths.dying_leader.insert(rec, nr);
            }
        }
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

    /// Whether recorded task `rec`'s `+++` line is still to come: the
    /// task is alive in the core, or dead there and its line not seen.
    fn death_line_to_come(&self, rec: i32) -> bool {
        self.pids
            .task(rec)
            .is_some_and(|t| !t.dead || self.deaths.unconfirmed_dead.contains(&t.task))
    }

    /// A `+++` line: the death is applied if it was not yet, strace reaps
    /// the process's zombie so that its parent sees it, and the status is
    /// checked.
    pub(super) fn do_death(&mut self, e: &Event, code: Option<i32>, sig: Option<(i32, bool)>) {
        let rec = e.pid;
        let Some(tr) = self.pids.task(rec) else {
            return;
        };
        if !tr.dead {
            let leader = self.leader_of(tr.task).ok();
            self.apply_death(e, tr.task, leader, code, sig);
            self.drain();
        }
        // strace reaps what it seized at the leader's own `+++` line: a
        // zombie leader is reaped only once its threads are gone
        // (delay_group_leader()), and its real parent is told then
        // (wait_task_zombie() -> do_notify_parent()), not at the `+++` line
        // of the thread that died first or last. A leader whose `+++` line
        // was already applied is reaped at the first line that can.
        let seized: Vec<(i32, i32)> = self
            .deaths
            .dying_leader
            .iter()
            .map(|(&r, &n)| (r, n))
            .collect();
        for (r, nr) in seized {
            let leader_rec = self.pids.rec_of(nr);
            if leader_rec != Some(rec) {
                if r != rec && self.pids.is_live(r) {
                    continue;
                }
                if leader_rec.is_some_and(|l| self.death_line_to_come(l)) {
                    continue;
                }
            }
            let w = self
                .k
                .waitid(self.world.strace, P_PID, nr, WEXITED | __WALL | WNOHANG);
            if !matches!(w, Ok(WaitOutcome::NothingYet)) {
                self.deaths.dying_leader.remove(&r);
            }
        }
        self.drain();
        self.deaths.unconfirmed_dead.remove(&tr.task);
        let want = match (code, sig) {
            (Some(c), _) => (c & 0xff) << 8,
            (None, Some((s, core))) => s | if core { 0x80 } else { 0 },
            _ => 0,
        };
        self.stats.checked += 1;
        self.close_record(e, want);
        // wait_task_zombie(): strace reaps the task after its group's exit
        // began (another thread's exit_group, or a fatal signal): the
        // status is the group's code, not the task's own
        // (tests/oracle/ptrace_edges.out, case zombie_status).
        let group_code = self
            .deaths
            .death_leader
            .remove(&tr.task)
            .and_then(|l| self.deaths.group_status.get(&l).copied());
        match self.deaths.exit_codes.get(&tr.task) {
            Some(&got) if got == want || group_code == Some(want) => {}
            Some(&got) => {
                self.mismatch(e, "exit status", format!("{want:#x}"), format!("{got:#x}"))
            }
            None => self.mismatch(e, "exit status", format!("{want:#x}"), "no exit".into()),
        }
    }
}
