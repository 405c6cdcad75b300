//! Exits in flight. An exit (at its seccomp stop) or a fatal signal (at
//! its delivery stop) is applied to the core before the real kernel has
//! run it: the real task still has all of `do_exit()` before its
//! `exit_notify()` to run, which hands its children on
//! (`forget_original_parent()`: to a live thread of the group, else the
//! nearest subreaper ancestor, else the namespace's init). The supervisor
//! sees that moment only as having passed, at the group's last death
//! report. Until then, a wait by the new parent may have run before the
//! hand-on: a child the core already gives it may not have been its
//! child for the kernel yet. Each such hand-on is kept here, from the
//! stop that applied it to the report that proves it done, so that a
//! wait's answer can be placed before it (`supervisor/window.rs`), as the
//! replay lets a wait skip children whose readiness it cannot confirm.

use taskcore::TaskId;

use super::{HandOn, Supervisor};
use crate::pidmap::in_root;

/// What [`Supervisor::hand_on_before`] saw, for
/// [`Supervisor::hand_on_after`].
pub(super) struct Before {
    /// The exiting process's real tgid.
    tgid: i32,
    parent: i32,
    children: Vec<i32>,
}

impl Supervisor {
    /// The children (root namespace numbers, the core's list order) of
    /// every live thread of the process with real tgid `tgid` and root
    /// number `v0`, from the core's `/proc/V0/task/TID/children`.
    pub(super) fn core_children_of(&self, tgid: i32, v0: i32) -> Vec<i32> {
        let mut out = Vec::new();
        for (&rt, th) in &self.threads {
            if th.tgid != tgid {
                continue;
            }
            let Some(t) = self.map.task(rt) else { continue };
            let Ok(vt) = self.k.pid_vnr(self.init, t) else {
                continue;
            };
            let Ok(text) = self
                .k
                .proc_read(self.init, &format!("{v0}/task/{vt}/children"))
            else {
                continue;
            };
            out.extend(
                String::from_utf8_lossy(&text)
                    .split_ascii_whitespace()
                    .filter_map(|p| p.parse::<i32>().ok())
                    .filter(|&p| p > 0),
            );
        }
        out
    }

    /// Before the core exits thread `tid` (`task`) or ends its group: its
    /// process's children now.
    pub(super) fn hand_on_before(&self, tid: i32, task: TaskId) -> Option<Before> {
        let tgid = self.threads.get(&tid).map(|t| t.tgid).filter(|&g| g > 0)?;
        let parent = in_root(&self.k, task, self.k.getpid(task).ok()?);
        let children = self.core_children_of(tgid, parent);
        (!children.is_empty()).then_some(Before {
            tgid,
            parent,
            children,
        })
    }

    /// After: the children no thread of the process has any more were
    /// handed on in the core; kept until the group's last death report.
    /// The waits in flight note what the core could report them now: the
    /// kernel's `exit_notify()` to come may wake them with a handed-on
    /// zombie (`reparent_leader()` notifies its new parent) before the
    /// exiting process's own death report (`supervisor/window.rs`).
    pub(super) fn hand_on_after(&mut self, before: Option<Before>) {
        let Some(b) = before else { return };
        let still = self.core_children_of(b.tgid, b.parent);
        let moved: Vec<i32> = b
            .children
            .into_iter()
            .filter(|c| !still.contains(c))
            .collect();
        if moved.is_empty() {
            return;
        }
        if self.log.on() {
            dline!(
                self,
                "[debug]   hand-on in flight from {}: {moved:?}",
                b.parent
            );
        }
        let e = self.hand_ons.entry(b.tgid).or_insert(HandOn {
            parent: b.parent,
            children: Vec::new(),
        });
        e.children.extend(moved);
        self.note_wakeups();
    }

    /// A thread of real group `tgid` is gone: once none is left, its
    /// exit_notify() has handed every child on for real.
    pub(super) fn end_hand_on(&mut self, tgid: i32) {
        let tracked = self.hand_ons.contains_key(&tgid) || self.dying.contains_key(&tgid);
        if tracked && !self.threads.values().any(|t| t.tgid == tgid) {
            self.hand_ons.remove(&tgid);
            self.dying.remove(&tgid);
            self.release_prctls(tgid);
        }
    }

    /// The subreaper prctls held for the exit of real group `tgid`, whose
    /// children the kernel has now handed on, run now: after the hand-on,
    /// as the core applied it.
    fn release_prctls(&mut self, tgid: i32) {
        let held: Vec<i32> = self
            .held_prctls
            .iter()
            .filter(|&(_, &g)| g == tgid)
            .map(|(&t, _)| t)
            .collect();
        for t in held {
            self.held_prctls.remove(&t);
            let set = self
                .threads
                .get(&t)
                .and_then(|th| th.in_call.as_ref())
                .map(|c| c.args[1] != 0);
            // Another exit in flight it could decide holds it again.
            let again = match (self.map.task(t), set) {
                (Some(task), Some(set)) => self.exit_decided_by_subreaper(task, set),
                _ => None,
            };
            match again {
                Some(g) => {
                    self.held_prctls.insert(t, g);
                }
                None => self.resume(t, 0),
            }
        }
    }

    /// A `prctl(PR_SET_CHILD_SUBREAPER)` of `task` at its seccomp stop
    /// (`set`: it sets the flag, else clears it) while an exit the core
    /// applied is in flight: the kernel's `exit_notify()` of that exit,
    /// still to come or not, reads the flag (`find_new_reaper()` walks
    /// the exiting process's ancestors), so the two may run in either
    /// order, where the core applied the exit first. The exit (real
    /// tgid) whose hand-on the prctl would change: one whose children the
    /// core gave to an ancestor above the caller (the caller an ancestor
    /// of the exiting process, `set`), or to the caller (`!set`). The
    /// supervisor holds the prctl until that hand-on is done for real,
    /// which makes the kernel's order the core's.
    pub(super) fn exit_decided_by_subreaper(&self, task: TaskId, set: bool) -> Option<i32> {
        let k = &self.k;
        let me = in_root(k, task, k.getpid(task).ok()?);
        let ppid_of = |v0: i32| -> Option<i32> {
            let t = k.find_task_by_vpid(self.init, v0).ok()?;
            Some(in_root(k, t, k.getppid(t).ok()?))
        };
        self.hand_ons.iter().find_map(|(&g, h)| {
            if h.parent == me {
                return None;
            }
            // Where the core put the children: their parent now.
            let reaper = h.children.iter().find_map(|&c| ppid_of(c))?;
            if !set {
                return (reaper == me).then_some(g);
            }
            let mut a = ppid_of(h.parent)?;
            for _ in 0..64 {
                if a == reaper || a <= 1 {
                    return None;
                }
                if a == me {
                    return Some(g);
                }
                a = ppid_of(a)?;
            }
            None
        })
    }

    /// Before the core may end `task`'s group at one of its stops: the
    /// stop or continue report its parent could take now (a peek), which
    /// the kernel's still-living process keeps until it dies.
    pub(super) fn report_before_death(&mut self, task: TaskId) -> Option<taskcore::WaitReport> {
        use taskcore::uapi::{P_PID, WCONTINUED, WSTOPPED};
        let me = self.k.getpid(task).ok()?;
        let parent = self.k.getppid(task).ok().filter(|&p| p > 0)?;
        let pt = self.k.find_task_by_vpid(task, parent).ok()?;
        let me_there = self
            .k
            .pid_vnr(pt, task)
            .ok()
            .filter(|&v| v > 0)
            .unwrap_or(me);
        let call = taskcore::sys::Syscall::Waitid {
            idtype: P_PID,
            id: me_there,
            options: WSTOPPED | WCONTINUED,
        };
        self.peek_wait_report(pt, &call)
    }

    /// The core ended the group of thread `tid` at one of its stops,
    /// before the kernel (`group`: the whole group; else only that
    /// thread, which ends the group if it is the last one): kept until
    /// its last death report, with the stop or continue report its parent
    /// could take before (`report`).
    pub(super) fn note_dying(
        &mut self,
        tid: i32,
        group: bool,
        report: Option<taskcore::WaitReport>,
    ) {
        let Some(g) = self.threads.get(&tid).map(|t| t.tgid).filter(|&g| g > 0) else {
            return;
        };
        let last = !self.threads.iter().any(|(&t, th)| t != tid && th.tgid == g);
        if group || last {
            self.dying.insert(g, report);
        }
    }

    /// Whether `shown` (in `task`'s numbers), a `getppid` answer of the
    /// kernel that is not the core's, is the parent an exit in flight
    /// took `task`'s process from in the core: the kernel ran the call
    /// before that exit's `exit_notify()` handed the process on (the
    /// core's answer then), as its `real_parent` still showed.
    pub(super) fn ran_before_hand_on(&self, task: TaskId, shown: i64) -> bool {
        let k = &self.k;
        let Ok(own) = k.getpid(task).map(|p| in_root(k, task, p)) else {
            return false;
        };
        self.hand_ons.values().any(|h| {
            h.children.contains(&own)
                && i64::from(crate::pidmap::in_ns_of(k, task, h.parent)) == shown
        })
    }

    /// The children (numbers in `waiter`'s namespace) that exits in
    /// flight handed to `waiter`'s process in the core from another
    /// process: the kernel may not have handed them on yet.
    pub(super) fn handed_on_in_flight(&self, waiter: TaskId) -> Vec<i32> {
        let k = &self.k;
        let Ok(own) = k.getpid(waiter).map(|p| in_root(k, waiter, p)) else {
            return Vec::new();
        };
        self.hand_ons
            .values()
            .filter(|h| h.parent != own)
            .flat_map(|h| h.children.iter().copied())
            .map(|c| crate::pidmap::in_ns_of(k, waiter, c))
            .filter(|&c| c > 0)
            .collect()
    }
}

impl Supervisor {
    /// A real death by SIGKILL of `task`, whose group the core ended
    /// before the kernel (its exit at its `exit_group` or `exit` entry,
    /// a fatal signal at its delivery stop): a SIGKILL from another task
    /// came in between, before the kernel's `do_group_exit()` read the
    /// group's code (or while the thread was still in its seccomp stop,
    /// which then skips the call: `__seccomp_filter()`), and decided the
    /// status. The core's group takes SIGKILL's status before its parent
    /// can see the zombie (at the tracer's reap). A group with a thread
    /// alive in the core is left to the SIGKILL's own death reports.
    pub(super) fn sigkill_overtook(&mut self, task: TaskId) {
        if self.k.is_exiting(task) != Ok(true) {
            return;
        }
        if self.k.sigkill_overtook_exit(task) == Ok(true) {
            if self.log.on() {
                dline!(self, "[debug]   a SIGKILL overtook an exit applied early");
            }
            self.report.not_checked(
                "SIGKILL overtook an exit applied early (status from the death report)",
            );
        }
    }
}
