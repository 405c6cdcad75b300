//! Clones whose event never comes. A thread with a fatal signal pending
//! skips its `PTRACE_EVENT_FORK`/`VFORK`/`CLONE` stop (`ptrace_stop()`
//! returns at once when `__fatal_signal_pending()`), and a thread a
//! SIGKILL woke from that stop can no longer be asked its event message
//! (`PTRACE_GETEVENTMSG`: ESRCH). The child is real all the same:
//! `copy_process()` adds it to the task list under the siglock, before
//! the signal was queued (else the clone fails, `ERESTARTNOINTR`). Its
//! creator's death report comes after `exit_notify()` handed it on
//! (`forget_original_parent()`: a live thread of the group, the nearest
//! subreaper ancestor, the supervisor), so it is found there, in the
//! kernel's `/proc/TGID/task/TID/children` lists, as a task the
//! supervisor has not numbered. The core makes it from its creator's
//! call just before the core ends the creator's group, as the real
//! kernel made it before the signal.
//!
//! Its first stop, if it came, parked it (a child waits for its
//! creator's event to be numbered); a death reported before it is
//! numbered is kept (`Supervisor::unborn_deaths`) and applied once it is.

use taskcore::TaskId;

use super::{InCall, Supervisor, Thread};
use crate::tracee::clone_flags_and_tids;
use crate::tracee::Memory;

/// The children (process leaders) in `/proc/TGID/task/TID/children` of
/// thread `tid` of real group `tgid`, in the kernel's order.
fn children_of_thread(tgid: i32, tid: i32) -> Vec<i32> {
    std::fs::read_to_string(format!("/proc/{tgid}/task/{tid}/children"))
        .unwrap_or_default()
        .split_ascii_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}

/// Whether real task `tid` is a zombie (or gone): `/proc/TID/stat`'s
/// state, after the last `)`.
pub(super) fn is_zombie(tid: i32) -> bool {
    let Ok(text) = std::fs::read(format!("/proc/{tid}/stat")) else {
        return true;
    };
    let state = text
        .iter()
        .rposition(|&b| b == b')')
        .and_then(|i| text.get(i + 2));
    matches!(state, Some(b'Z' | b'X') | None)
}

/// The children of every thread of real group `tgid`.
pub(super) fn children_of_group(tgid: i32) -> Vec<i32> {
    let Ok(dir) = std::fs::read_dir(format!("/proc/{tgid}/task")) else {
        return Vec::new();
    };
    let mut tids: Vec<i32> = dir
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .collect();
    tids.sort_unstable();
    tids.into_iter()
        .flat_map(|t| children_of_thread(tgid, t))
        .collect()
}

impl Supervisor {
    /// Whether `ic` of thread `tid` is a clone of a new process whose
    /// child the supervisor has not numbered (nor refused).
    fn is_lost_clone(&self, tid: i32, ic: &InCall) -> bool {
        let clone = matches!(
            ic.nr,
            libc::SYS_clone | libc::SYS_clone3 | libc::SYS_fork | libc::SYS_vfork
        );
        if !clone || ic.child.is_some() || ic.refused.is_some() || ic.call.is_err() {
            return false;
        }
        // A new thread of a dying group dies with it.
        let (flags, _, _) = clone_flags_and_tids(ic.nr, &ic.args, &Memory::new(tid));
        flags & libc::CLONE_THREAD as u64 == 0
    }

    /// Whether the death report of real task `tid`, which the supervisor
    /// does not know, is that of a task not numbered yet: a clone is in
    /// flight without its child, and `tid` is not an orphan the core's
    /// init holds as a zombie (an orphan reparented to the supervisor is
    /// reported twice: traced, then reaped as its child).
    pub(super) fn unborn(&mut self, tid: i32) -> bool {
        let in_flight = self.threads.iter().any(|(&t, th)| {
            th.in_call
                .as_ref()
                .is_some_and(|ic| self.is_lost_clone(t, ic))
        });
        if !in_flight {
            return false;
        }
        let v = self.map.to_virtual(tid);
        let init_zombie = v > 1
            && matches!(
                self.k.waitid(
                    self.init,
                    taskcore::uapi::P_PID,
                    v,
                    taskcore::uapi::WEXITED
                        | taskcore::uapi::WNOHANG
                        | taskcore::uapi::WNOWAIT
                        | taskcore::uapi::__WALL
                ),
                Ok(taskcore::WaitOutcome::Reported(_))
            );
        !init_zombie
    }

    /// Real tasks in `lists` (children lists, in order) that the
    /// supervisor has not numbered: not known, and parked at their first
    /// stop, dead before their numbering, or neither yet (a zombie is
    /// else one whose death the core took, not yet reaped).
    fn unnumbered_in(&self, lists: impl IntoIterator<Item = i32>) -> Vec<i32> {
        let mut out: Vec<i32> = Vec::new();
        for x in lists {
            let new = self.map.task(x).is_none()
                && !self.unnumbered.contains(&x)
                && !out.contains(&x)
                && (self.parked.contains_key(&x)
                    || self.unborn_deaths.contains_key(&x)
                    || !is_zombie(x));
            if new {
                out.push(x);
            }
        }
        out
    }

    /// Real thread groups where an orphan of `task`'s group goes, nearest
    /// first: its ancestors in the core (real tgids), then the supervisor.
    fn reapers_of(&self, task: TaskId) -> Vec<i32> {
        let mut out = Vec::new();
        let mut cur = task;
        for _ in 0..64 {
            let Ok(pp) = self.k.getppid(cur) else { break };
            if pp <= 1 {
                break;
            }
            let Some(r) = self.map.to_real(&self.k, self.init, pp) else {
                break;
            };
            out.push(r);
            let Some(t) = self.map.task(r) else { break };
            cur = t;
        }
        out.push(self.sup_pid);
        out
    }

    /// Before the core ends the group of `task` for a real death: each
    /// clone of a new process its threads had in flight without an event
    /// (`gone`: the dead thread `tid`, already out of the thread table)
    /// made a child that is now unnumbered in a children list; the core
    /// makes it from that call, and it starts (or its kept death is
    /// applied).
    pub(super) fn settle_lost_clones(&mut self, tid: i32, task: TaskId, gone: Option<Thread>) {
        let Ok(tgid) = self.k.getpid(task) else {
            return;
        };
        let real_tgid = gone.as_ref().map_or(0, |t| t.tgid);
        let mut lost: Vec<(i32, i32, InCall)> = Vec::new();
        if let Some(ic) = gone.and_then(|t| t.in_call) {
            if self.is_lost_clone(tid, &ic) {
                lost.push((tid, real_tgid, ic));
            }
        }
        let others: Vec<i32> = self
            .threads
            .iter()
            .filter(|(&t, th)| {
                th.in_call
                    .as_ref()
                    .is_some_and(|ic| self.is_lost_clone(t, ic))
                    && self
                        .map
                        .task(t)
                        .is_some_and(|x| self.k.getpid(x) == Ok(tgid))
            })
            .map(|(&t, _)| t)
            .collect();
        for t in others {
            let th = self.threads.get_mut(&t).expect("listed above");
            let g = th.tgid;
            if let Some(ic) = th.in_call.take() {
                lost.push((t, g, ic));
            }
        }
        if self.log.on() {
            dline!(self, "[debug]   settle {tid}: {} lost", lost.len());
        }
        if lost.is_empty() {
            return;
        }
        // A reaper with a clone of its own in flight (its event not come
        // yet) may hold its own new child in its list: that one is left to
        // its event (randscen seed 8 numbered a reaper's child twice, the
        // first time as the dead creator's, and the core kept a task no
        // real one was).
        let reapers: Vec<i32> = self
            .reapers_of(task)
            .into_iter()
            .filter(|&r| !self.cloning(r))
            .collect();
        for (t, g, mut ic) in lost {
            let g = if g > 0 { g } else { real_tgid };
            let lists = children_of_thread(g, t)
                .into_iter()
                .chain(children_of_group(g))
                .chain(reapers.iter().flat_map(|&r| children_of_group(r)));
            let found = self.unnumbered_in(lists);
            if self.log.on() {
                dline!(
                    self,
                    "[debug]   lost clone of {t}: unnumbered {found:?} reapers {reapers:?}"
                );
            }
            if let Some(&child) = found.first() {
                self.report.lost_clone_events += 1;
                self.make_child(t, g, &mut ic, child);
            }
            if let Some(th) = self.threads.get_mut(&t) {
                th.in_call = Some(ic);
            }
        }
    }

    /// Whether a thread of real group `tgid` has a clone of a new process
    /// in flight whose child it has not been told yet.
    fn cloning(&self, tgid: i32) -> bool {
        self.threads.iter().any(|(&t, th)| {
            th.tgid == tgid
                && th
                    .in_call
                    .as_ref()
                    .is_some_and(|ic| self.is_lost_clone(t, ic))
        })
    }

    /// Thread `tid`, dead with its call `ic` in flight, when the core had
    /// already ended its group (an exit or a fatal signal applied at its
    /// stop while this thread was cloning): a child it made without an
    /// event cannot be made by the core any more. It is killed (as a
    /// child the core refuses), so that nothing waits for its numbering.
    pub(super) fn lost_clone_of_dead_group(&mut self, tid: i32, tgid: i32, ic: InCall) {
        if !self.is_lost_clone(tid, &ic) {
            return;
        }
        // Every live process may be the subreaper it went to.
        let holders: Vec<i32> = self
            .threads
            .iter()
            .filter(|(&r, th)| th.tgid == r)
            .map(|(&r, _)| r)
            .chain([tgid, self.sup_pid])
            .collect();
        let lists: Vec<i32> = holders.into_iter().flat_map(children_of_group).collect();
        if let Some(&child) = self.unnumbered_in(lists).first() {
            self.report.lost_clone_events += 1;
            self.diverge(
                tid,
                format!("{}()", ic.name),
                format!("= {child} (event lost)"),
                "caller already exiting in the core".into(),
            );
            self.kill_unnumbered(child);
        }
    }
}
