//! Ordering where the supervisor cannot see it: a wait is answered by the
//! real kernel at some moment between its entry and exit stops (its
//! window), and other threads' calls may be in flight (entered, not yet
//! exited) at that moment. The core's answer is taken at a point of the
//! window that matches the real one, instead of at the exit stop alone.

use taskcore::sys::{dispatch, SysRet, Syscall};
use taskcore::uapi::WNOHANG;
use taskcore::WaitOutcome;

use super::{InCall, Supervisor};
use crate::tracee::{Memory, SI_PID_OFFSET};

impl Supervisor {
    /// A wait is placed within its window: the real kernel answered at some
    /// moment between its entry and its exit, and the core's answer at the
    /// entry (`ic.entry_peek`), when a death report could have woken it
    /// (`ic.woken`), or now may be that moment's. When the real answer is
    /// one of them, the core applies that one (reaping the child the real
    /// kernel reported, if any); otherwise `None` (applied as it is now,
    /// and compared). The reports already waiting for the supervisor are
    /// taken first when none matches: a death the kernel made before this
    /// answer (a parent's, that handed its children on) may not have been
    /// seen yet.
    pub(super) fn wait_in_window(
        &mut self,
        task: taskcore::TaskId,
        call: &taskcore::sys::Syscall,
        ic: &InCall,
        shown: i64,
    ) -> Option<taskcore::sys::SysResult> {
        use taskcore::sys::Syscall;
        if shown == -(libc::ECHILD as i64) {
            return self.echild_before_hand_on(task, call);
        }
        let entry = ic.entry_peek?;
        let real_child = match (call, shown) {
            (Syscall::Wait4 { .. }, v) if v > 0 => Some(v as i32),
            (Syscall::Waitid { .. }, 0) if ic.args[2] != 0 => {
                let p = Memory::new(self.map.tid_of_task(task)?)
                    .read_i32(ic.args[2] + SI_PID_OFFSET)
                    .ok()?;
                (p > 0).then_some(p)
            }
            (_, 0) => None,
            _ => return None,
        };
        // `None`: the core fails the wait now (ECHILD: the zombie a
        // death report handed to the parent untraced, where the real wait
        // ran while it was still traced, which clears `notask_error` in
        // `wait_consider_task()`).
        // Children exits in flight gave the caller in the core, as of this
        // exit stop (a death report drained below may prove a hand-on done
        // after the wait ran).
        let handed = self.handed_on_in_flight(task);
        // The children the core could report at this exit stop: one that
        // only a report drained below makes reportable may have become so
        // after the kernel's wait ran.
        let before_drain: Vec<i32> = super::entry::waitid_form(call)
            .and_then(|(i, id, o)| self.k.wait_candidates(task, i, id, o).ok())
            .map(|v| v.iter().map(|c| c.pid).collect())
            .unwrap_or_default();
        // The reports dying processes kept, as of this exit stop too.
        let dying: Vec<(i32, taskcore::WaitReport)> = self
            .dying
            .iter()
            .filter_map(|(&r, w)| w.map(|w| (r, w)))
            .collect();
        let mut now = self.peek_wait(task, call);
        // Dead in the core, their death reports not collected at this exit
        // stop: a traced zombie reaches its real parent's wait only once
        // its tracer has waited for it (`exit_notify()` notifies the
        // tracer; the parent is told at the tracer's reap), so the
        // kernel's wait could not report them.
        // They count as not reportable at this stop.
        let before_drain: Vec<i32> = before_drain
            .into_iter()
            .filter(|&x| !self.death_uncollected(x))
            .collect();
        let seen = |now: Option<Option<i32>>| [Some(entry), ic.woken.map(Some), now];
        if !seen(now).contains(&Some(real_child)) && self.drain_stops() > 0 {
            if !self.alive(task) {
                return None;
            }
            now = self.peek_wait(task, call);
        }
        // The core's answer now, or the one at the entry (a child visible
        // to the kernel since before the wait began), against the kernel's.
        if let Some(y) = real_child.filter(|&y| !seen(now).contains(&Some(Some(y)))) {
            let now_x = now.flatten().map(|x| (x, entry == Some(x)));
            let entry_x = entry.map(|x| (x, true));
            for (x, at_entry) in [now_x, entry_x].into_iter().flatten() {
                if self.orphans_in_kernel_order(task, call, x, y, at_entry) {
                    return self.wait_for(task, call, y);
                }
            }
        }
        if let Some(r) = self.past_unseen(task, call, ic, &handed, &before_drain, real_child) {
            return Some(r);
        }
        if let Some(r) = self.entry_report_of_dying(task, call, ic, &dying, real_child) {
            return Some(r);
        }
        if let Some(r) = self.report_before_kill_in_flight(task, call, ic, real_child) {
            return Some(r);
        }
        if self.log.on() {
            let cands: Vec<(i32, i32)> = super::entry::waitid_form(call)
                .and_then(|(i, id, o)| self.k.wait_candidates(task, i, id, o).ok())
                .map(|v| v.iter().map(|c| (c.pid, c.status)).collect())
                .unwrap_or_default();
            dline!(self,
                "[debug]   window: entry {entry:?} woken {:?} now {now:?} real {real_child:?} candidates {cands:x?}",
                ic.woken
            );
        }
        let seen = seen(now);
        if seen.iter().flatten().all(|&s| Some(s) == now) || !seen.contains(&Some(real_child)) {
            return None;
        }
        Some(match real_child {
            None => nothing_yet(call),
            Some(c) => {
                // The entry's report of a stop or a continue that an
                // event since (the child's continue or death) took from
                // the core: the kernel's wait ran before it.
                let gone = self.peek_wait(task, &only_child(call, c)) != Some(Some(c));
                match ic.entry_report.filter(|w| {
                    w.pid == c && gone && (w.status == 0xffff || w.status & 0xff == 0x7f)
                }) {
                    Some(w) => Ok(match call {
                        Syscall::Wait4 { .. } => SysRet::Wait(WaitOutcome::Reported(w)),
                        _ => SysRet::Waitid(WaitOutcome::Reported(w)),
                    }),
                    None => self.wait_for(task, call, c)?,
                }
            }
        })
    }

    /// The kernel reported child `real` stopped or continued, and the
    /// core cannot report it so: its death was applied to the core at one
    /// of its stops, before the kernel's (a fatal signal's delivery, an
    /// exit: its death report not seen yet), and the still-living process
    /// kept that report for real. The one its parent could have taken just
    /// before the core's death is the answer (taken once; its status is
    /// compared as the core's).
    fn entry_report_of_dying(
        &mut self,
        task: taskcore::TaskId,
        call: &Syscall,
        ic: &InCall,
        dying: &[(i32, taskcore::WaitReport)],
        real: Option<i32>,
    ) -> Option<taskcore::sys::SysResult> {
        let y = real?;
        let (r, w) = *dying.iter().find(|d| d.1.pid == y)?;
        let stop_or_cont = |st: i32| st == 0xffff || st & 0xff == 0x7f;
        let core_now = self.peek_wait_report(task, &only_child(call, y));
        if w.pid != y
            || !self.real_is_stop_or_cont(task, call, ic)
            || core_now.is_some_and(|c| stop_or_cont(c.status))
        {
            return None;
        }
        if let Some(slot) = self.dying.get_mut(&r) {
            *slot = None;
        }
        if self.log.on() {
            dline!(
                self,
                "[debug]   window: {y}'s report before its death in the core"
            );
        }
        Some(Ok(match call {
            Syscall::Wait4 { .. } => SysRet::Wait(WaitOutcome::Reported(w)),
            _ => SysRet::Waitid(WaitOutcome::Reported(w)),
        }))
    }

    /// The stop or continue report the parent of the single target of
    /// kill-family `call` by `task` could take now, before the call is
    /// applied to the core at its entry (`None`: another form, a signal
    /// whose generation takes no such report, no such target, or no
    /// report).
    pub(super) fn report_before_kill(
        &mut self,
        task: taskcore::TaskId,
        call: &Syscall,
    ) -> Option<(taskcore::TaskId, taskcore::WaitReport)> {
        let (probe, nr, sig) = single_kill_target(call)?;
        if !takes_wait_report(sig) || dispatch(&mut self.k, task, &probe).is_err() {
            return None;
        }
        let target = self.k.find_task_by_vpid(task, nr).ok()?;
        Some((target, self.report_before_death(target)?))
    }

    /// The kill just applied at the entry of thread `tid` took report
    /// `kept` (from [`Self::report_before_kill`]) from its target's parent
    /// in the core (a SIGCONT ending a stop): kept for the waits whose
    /// window the kill's overlaps ([`Self::report_before_kill_in_flight`]).
    pub(super) fn note_report_taken_by_kill(
        &mut self,
        tid: i32,
        kept: Option<(taskcore::TaskId, taskcore::WaitReport)>,
    ) {
        let Some((t, w)) = kept else {
            return;
        };
        if self.report_before_death(t) == Some(w) {
            return;
        }
        self.taken_by_kill
            .insert(w.pid, (w, tid, self.stops_seen, None));
    }

    /// The kernel reported child `real` stopped or continued where the
    /// core cannot: a kill of another thread applied to the core at its
    /// entry took that report (a SIGCONT ending the stop), and the two
    /// calls' windows overlap (the kill's exit stop not seen before this
    /// wait's entry), so the kernel may have run the wait before the kill.
    /// The kill may have been applied after the wait's entry too: the
    /// moment just before it, when the core had the report (the child's
    /// stop came to the core after the wait's entry), is then one inside
    /// the wait's window. The report the parent could take just before
    /// the kill is the answer (taken once; its status is compared as the
    /// core's; the core's state after the kill is the kernel's after
    /// both).
    fn report_before_kill_in_flight(
        &mut self,
        task: taskcore::TaskId,
        call: &Syscall,
        ic: &InCall,
        real: Option<i32>,
    ) -> Option<taskcore::sys::SysResult> {
        let y = real?;
        let &(w, _, entered, exited) = self.taken_by_kill.get(&y)?;
        let stop_or_cont = |st: i32| st == 0xffff || st & 0xff == 0x7f;
        if exited.is_some_and(|x| x <= ic.entry_seq)
            || !self.real_is_stop_or_cont(task, call, ic)
            || self
                .peek_wait_report(task, &only_child(call, y))
                .is_some_and(|c| stop_or_cont(c.status))
        {
            return None;
        }
        self.taken_by_kill.remove(&y);
        if self.log.on() {
            dline!(
                self,
                "[debug]   window: {y}'s report before a kill in flight (applied at stop {entered}, the wait entered at {})",
                ic.entry_seq
            );
        }
        Some(Ok(match call {
            Syscall::Wait4 { .. } => SysRet::Wait(WaitOutcome::Reported(w)),
            _ => SysRet::Waitid(WaitOutcome::Reported(w)),
        }))
    }

    /// Whether the kernel's answer to wait `call` of `task` reports a stop
    /// or a continue: wait4's status word, waitid's `si_code`
    /// (`CLD_TRAPPED`, `CLD_STOPPED`, `CLD_CONTINUED`).
    fn real_is_stop_or_cont(&self, task: taskcore::TaskId, call: &Syscall, ic: &InCall) -> bool {
        let Some(mem) = self.map.tid_of_task(task).map(Memory::new) else {
            return false;
        };
        match call {
            Syscall::Wait4 { .. } if ic.args[1] != 0 => mem
                .read_i32(ic.args[1])
                .is_ok_and(|st| st == 0xffff || st & 0xff == 0x7f),
            Syscall::Waitid { .. } if ic.args[2] != 0 => mem
                .read_i32(ic.args[2] + 8)
                .is_ok_and(|c| (4..=6).contains(&c)),
            _ => false,
        }
    }

    /// `ECHILD` for real, where the core's wait has children to consider:
    /// if every child of the caller that the wait selects was given it by
    /// an exit in flight (`supervisor/handon.rs`), the kernel's wait ran
    /// before that hand-on, and the core answers `ECHILD` too (the wait
    /// changes nothing); `None` otherwise.
    fn echild_before_hand_on(
        &mut self,
        task: taskcore::TaskId,
        call: &Syscall,
    ) -> Option<taskcore::sys::SysResult> {
        let handed = self.handed_on_in_flight(task);
        if handed.is_empty() {
            return None;
        }
        let (idtype, id, _) = super::entry::waitid_form(call)?;
        let tgid = self
            .map
            .tid_of_task(task)
            .and_then(|t| self.threads.get(&t))
            .map(|t| t.tgid)?;
        let own = self.k.getpid(task).ok()?;
        let own0 = crate::pidmap::in_root(&self.k, task, own);
        let group = match id {
            0 => self.k.getpgid(task, 0).ok()?,
            g => g,
        };
        let selected: Vec<i32> = self
            .core_children_of(tgid, own0)
            .into_iter()
            .map(|c| crate::pidmap::in_ns_of(&self.k, task, c))
            .filter(|&c| match idtype {
                taskcore::uapi::P_PID => c == id,
                taskcore::uapi::P_PGID => self.k.getpgid(task, c) == Ok(group),
                _ => true,
            })
            .collect();
        if selected.is_empty() || !selected.iter().all(|c| handed.contains(c)) {
            return None;
        }
        if self.log.on() {
            dline!(
                self,
                "[debug]   window: ECHILD before the hand-on of {selected:?}"
            );
        }
        Some(Err(taskcore::Errno::ECHILD))
    }

    /// The kernel's answer `real` (a child, or none) placed after the
    /// children the core could report first that the kernel may not have
    /// seen yet when the wait ran, as the replay skips children whose
    /// readiness it cannot confirm: a child with a stop the kernel may
    /// have completed only after the wait ran ([`Self::stop_unseen_at`]),
    /// or one an exit in flight gave the caller (`handed`,
    /// `supervisor/handon.rs`), or one the core could not report at the
    /// wait's exit stop (not in `before_drain`: a report taken since made
    /// it reportable, which may have come after the kernel's wait; nor one
    /// dead in the core whose death report was not collected then). Linux's walk meets the core's candidates
    /// in order (`Kernel::wait_candidates`): when every one before `real`
    /// (all of them, for none) is such a child, the core applies `real`.
    fn past_unseen(
        &mut self,
        task: taskcore::TaskId,
        call: &Syscall,
        ic: &InCall,
        handed: &[i32],
        before_drain: &[i32],
        real: Option<i32>,
    ) -> Option<taskcore::sys::SysResult> {
        let (idtype, id, options) = super::entry::waitid_form(call)?;
        let cands = self.k.wait_candidates(task, idtype, id, options).ok()?;
        let pos = match real {
            None => cands.len(),
            Some(y) => cands.iter().position(|c| c.pid == y)?,
        };
        let unseen = |c: &taskcore::WaitReport| {
            handed.contains(&c.pid)
                || !before_drain.contains(&c.pid)
                || self.stop_unseen_at(c.pid, ic.entry_seq)
                || self.died_after(c.pid, ic.entry_seq)
        };
        if pos == 0 || !cands[..pos].iter().all(unseen) {
            return None;
        }
        if self.log.on() {
            let skipped: Vec<i32> = cands[..pos].iter().map(|c| c.pid).collect();
            dline!(
                self,
                "[debug]   window: {skipped:?} not seen yet by the kernel's wait"
            );
        }
        match real {
            None => Some(nothing_yet(call)),
            Some(y) => self.wait_for(task, call, y),
        }
    }

    /// Whether virtual process `x` was resumed with a stop signal whose
    /// group-stop trap had not been reported by the event `seq` (a
    /// wait's entry): its stop may have been invisible to that wait.
    fn stop_unseen_at(&self, x: i32, seq: u64) -> bool {
        let Some(r) = self.map.to_real(&self.k, self.init, x) else {
            return false;
        };
        match self.group_stops.get(&r) {
            Some(None) => true,
            Some(Some(at)) => *at > seq,
            None => false,
        }
    }

    /// Whether the death report of virtual process `x` came after the
    /// event `seq` (a wait's entry): a traced zombie is hidden from its
    /// parent until its tracer has waited for it (`wait_consider_task()`),
    /// so a wait that ran before that report could not see it.
    fn died_after(&self, x: i32, seq: u64) -> bool {
        self.deaths_seen
            .iter()
            .rev()
            .find(|d| d.0 == x)
            .is_some_and(|d| d.1 > seq)
    }

    /// Whether virtual process `x` is dead in the core while the
    /// supervisor has not yet collected its leader's death report (its
    /// real thread is still traced).
    fn death_uncollected(&self, x: i32) -> bool {
        let Some(r) = self.map.to_real(&self.k, self.init, x) else {
            return false;
        };
        self.threads.contains_key(&r)
            && self
                .map
                .task(r)
                .is_some_and(|t| self.k.is_exiting(t) == Ok(true))
    }

    /// Whether the core would report child `x` where the kernel reported
    /// `y` (a wait by `task`) only because the two came to the caller in
    /// another order: one at least was handed on to it (an orphan, or the
    /// child of one of its threads that exited), at a moment the supervisor
    /// does not know exactly (`forget_original_parent()` appends each to
    /// the new parent's children as the old one exits, between the
    /// caller's forks and other orphans; the core's exit can come at the
    /// exit's entry, or at the death report), the core can report `y` too,
    /// and the
    /// kernel's children list of the caller (`/proc/TGID/task/*/children`,
    /// its walk order) has `y` before `x` — or has `x` but no more `y`,
    /// which this wait reaped, while `x` was the core's answer at the
    /// wait's entry (`x_at_entry`: its death report was taken before the
    /// wait began, so the kernel could report it too, and its walk met `y`
    /// first).
    fn orphans_in_kernel_order(
        &mut self,
        task: taskcore::TaskId,
        call: &taskcore::sys::Syscall,
        x: i32,
        y: i32,
        x_at_entry: bool,
    ) -> bool {
        let Ok(caller) = self.k.getpid(task) else {
            return false;
        };
        // Still in the list its fork put it in: forked by the caller's
        // process, by a thread that is alive.
        let forked = |c: i32| {
            self.born_to.get(&c).is_none_or(|&(p, by)| {
                p == caller
                    && self
                        .map
                        .to_real(&self.k, self.init, by)
                        .is_some_and(|r| self.threads.contains_key(&r))
            })
        };
        if x == y || (forked(x) && forked(y)) {
            return false;
        }
        let (Some(rx), Some(ry), Some(rc)) = (
            self.map.to_real(&self.k, self.init, x),
            self.map.to_real(&self.k, self.init, y),
            self.map
                .tid_of_task(task)
                .and_then(|t| self.threads.get(&t))
                .map(|t| t.tgid),
        ) else {
            return false;
        };
        let only_y = match *call {
            Syscall::Wait4 { options, .. } => Syscall::Wait4 {
                pid: y,
                options: options | WNOHANG,
            },
            Syscall::Waitid { options, .. } => Syscall::Waitid {
                idtype: taskcore::uapi::P_PID,
                id: y,
                options: options | WNOHANG,
            },
            _ => return false,
        };
        if self.peek_wait(task, &only_y) != Some(Some(y)) {
            return false;
        }
        let list = super::lost::children_of_group(rc);
        if self.log.on() {
            dline!(
                self,
                "[debug]   order {x}/{y} ({rx}/{ry}): kernel list {list:?}, born {:?} {:?}",
                self.born_to.get(&x),
                self.born_to.get(&y)
            );
        }
        let at = |r: i32| list.iter().position(|&p| p == r);
        match (at(ry), at(rx)) {
            (Some(a), Some(b)) => a < b,
            (None, Some(_)) => x_at_entry,
            _ => false,
        }
    }

    /// `call` (a wait) by `task` made for child `c` only (`P_PID`).
    fn wait_for(
        &mut self,
        task: taskcore::TaskId,
        call: &taskcore::sys::Syscall,
        c: i32,
    ) -> Option<taskcore::sys::SysResult> {
        use taskcore::sys::Syscall;
        let only = match call {
            Syscall::Wait4 { options, .. } => Syscall::Wait4 {
                pid: c,
                options: *options,
            },
            Syscall::Waitid { options, .. } => Syscall::Waitid {
                idtype: taskcore::uapi::P_PID,
                id: c,
                options: *options,
            },
            _ => return None,
        };
        Some(dispatch(&mut self.k, task, &only))
    }

    /// A zombie just became visible to its parent: each wait in progress
    /// notes the child the core would report now (a peek), the first
    /// time, since the real kernel may wake a blocking waiter at this
    /// moment, or run a `WNOHANG` one (before another child's death can
    /// make a second zombie visible) — or not, if a SIGKILL comes first. It is applied at the
    /// wait's exit if the real answer names it ([`Self::wait_in_window`]),
    /// or at the waiter's death if the child is gone for real
    /// ([`Self::settle_woken_waits`]).
    pub(super) fn note_wakeups(&mut self) {
        let waiting: Vec<(i32, Syscall)> = self
            .threads
            .iter()
            .filter_map(|(&tid, t)| {
                let c = t.in_call.as_ref()?;
                match &c.call {
                    Ok(call @ (Syscall::Wait4 { .. } | Syscall::Waitid { .. }))
                        if c.early.is_none() && c.woken.is_none() =>
                    {
                        Some((tid, call.clone()))
                    }
                    _ => None,
                }
            })
            .collect();
        for (tid, call) in waiting {
            let Some(task) = self.map.task(tid).filter(|&t| self.alive(t)) else {
                continue;
            };
            if let Some(Some(c)) = self.peek_wait(task, &call) {
                if let Some(ic) = self.threads.get_mut(&tid).and_then(|t| t.in_call.as_mut()) {
                    ic.woken = Some(c);
                }
            }
        }
    }

    /// Before the core ends `task`'s group for a real death (SIGKILL: no
    /// syscall-exit stop follows): a wait its threads had in flight
    /// (`gone`: the dead thread `tid`'s) reaped a child the core would
    /// have reported at its entry or at a wake-up if that child is gone
    /// from `/proc`; the core reaps it too. (Not reaped, it was handed on
    /// with the others.)
    pub(super) fn settle_woken_waits(
        &mut self,
        tid: i32,
        task: taskcore::TaskId,
        gone: Option<&super::Thread>,
    ) {
        let Ok(tgid) = self.k.getpid(task) else {
            return;
        };
        let mut woken: Vec<(taskcore::TaskId, Syscall, i32)> = Vec::new();
        // The children the core would have reported at the entry or at a
        // wake-up: either may be the one the kernel reaped.
        let of = |ic: &InCall| match &ic.call {
            Ok(call @ (Syscall::Wait4 { .. } | Syscall::Waitid { .. })) => {
                let mut v: Vec<(Syscall, i32)> = Vec::new();
                for c in [ic.entry_peek.flatten(), ic.woken].into_iter().flatten() {
                    if !v.iter().any(|w| w.1 == c) {
                        v.push((call.clone(), c));
                    }
                }
                v
            }
            _ => Vec::new(),
        };
        if let Some(ic) = gone.and_then(|t| t.in_call.as_ref()) {
            woken.extend(of(ic).into_iter().map(|(call, c)| (task, call, c)));
        }
        for (&t, th) in &self.threads {
            let Some(x) = self
                .map
                .task(t)
                .filter(|&x| t != tid && self.k.getpid(x) == Ok(tgid))
            else {
                continue;
            };
            if let Some(ic) = th.in_call.as_ref() {
                woken.extend(of(ic).into_iter().map(|(call, c)| (x, call, c)));
            }
        }
        for (t, call, c) in woken {
            let Some(real) = self.map.to_real(&self.k, self.init, c) else {
                continue;
            };
            if !std::path::Path::new(&format!("/proc/{real}")).exists() {
                let _ = self.wait_for(t, &call, c);
            }
        }
    }

    /// A kill-family call applied at its entry (`ic.early`, success) to
    /// one task that the kernel answers `ESRCH`: its target existed in the
    /// core at the entry and may have been reaped before the kernel ran
    /// the call — by the supervisor itself, when init is its parent, at
    /// the death report that came inside the call's window (a zombie
    /// takes a signal and does nothing with it; a living target exited in
    /// the window, and what the signal left pending in the core went with
    /// it). Whether the core, asked now with signal 0 (no effect), finds
    /// no target either: then the call is placed at this end of its
    /// window. Or the target is a zombie its parent could reap by a wait
    /// in flight, which for real ran before the kill: that wait is
    /// applied now ([`Self::pull_waits_reaping`]) and the core asked
    /// again. What the entry's signal told others (a parent's stop or
    /// continue report, a fatal status) their own waits still check.
    pub(super) fn target_gone_in_window(&mut self, task: taskcore::TaskId, ic: &InCall) -> bool {
        if !matches!(ic.early, Some(Ok(_))) {
            return false;
        }
        let Some((probe, nr, _)) = ic.call.as_ref().ok().and_then(single_kill_target) else {
            return false;
        };
        if dispatch(&mut self.k, task, &probe) == Err(taskcore::Errno::ESRCH) {
            return true;
        }
        // A zombie in the core that its parent's wait in flight reaps now:
        // for real that wait ran before the kill (nothing else reaps a
        // zombie its tracer has let go).
        let Ok(target) = self.k.find_task_by_vpid(task, nr) else {
            return false;
        };
        self.pull_waits_reaping(target) > 0
            && dispatch(&mut self.k, task, &probe) == Err(taskcore::Errno::ESRCH)
    }

    /// Applies to the core, now, each wait in flight (entered, its exit
    /// not seen, not applied yet) that the core would answer now by
    /// reaping `target` (a zombie its parent can see: its death report
    /// taken), its answer kept for its syscall exit (`InCall::early`,
    /// compared there with the kernel's). Not `WNOWAIT` ones, which reap
    /// nothing. For a call that proves the zombie gone for real (a kill's
    /// `ESRCH`) while the wait's exit stop has not been seen. The number
    /// applied.
    fn pull_waits_reaping(&mut self, target: taskcore::TaskId) -> usize {
        let waits: Vec<(i32, taskcore::TaskId, Syscall)> = self
            .threads
            .iter()
            .filter_map(|(&t, th)| {
                let ic = th.in_call.as_ref().filter(|ic| ic.early.is_none())?;
                let call = ic.call.as_ref().ok()?;
                let (_, _, options) = super::entry::waitid_form(call)?;
                if options & taskcore::uapi::WNOWAIT != 0 {
                    return None;
                }
                Some((t, self.map.task(t)?, call.clone()))
            })
            .collect();
        let mut n = 0;
        for (t, waiter, call) in waits {
            if !self.alive(waiter) {
                continue;
            }
            let Some(v) = self.k.pid_vnr(waiter, target).ok().filter(|&v| v > 0) else {
                continue;
            };
            if self.peek_wait(waiter, &call) != Some(Some(v)) {
                continue;
            }
            let r = dispatch(&mut self.k, waiter, &call);
            if self.log.on() {
                dline!(
                    self,
                    "[debug]   window: wait in flight of {t} reaps {v} before a kill: {r:?}"
                );
            }
            if let Some(ic) = self.threads.get_mut(&t).and_then(|x| x.in_call.as_mut()) {
                ic.early = Some(r);
                n += 1;
            }
        }
        n
    }

    /// Applies, now, the calls in flight of other threads that change the
    /// process group or session of process `target` (virtual tgid:
    /// setpgid naming it, setsid by one of its threads), inside their
    /// windows; their answers are kept for their syscall exits. `Some(n)`:
    /// `n` applied.
    pub(super) fn pull_in_flight(&mut self, tid: i32, target: i32) -> Option<usize> {
        let n = self.apply_in_flight(tid, |sup, t, c| {
            let Some(caller) = sup.map.task(t).and_then(|x| sup.k.getpid(x).ok()) else {
                return false;
            };
            let names = match c.nr {
                libc::SYS_setpgid if c.args[0] as i32 == 0 => caller,
                libc::SYS_setpgid => c.args[0] as i32,
                libc::SYS_setsid => caller,
                _ => return false,
            };
            names == target
        });
        (n > 0).then_some(n)
    }

    /// Before an exit that hands its children on (`find_new_reaper()`
    /// reads each ancestor's `is_child_subreaper` in `exit_notify()`): the
    /// `prctl(PR_SET_CHILD_SUBREAPER)` calls of other threads in flight
    /// (entered, resumed, their exits not seen) are let finish first. Each
    /// was resumed, but may not have run its store yet (a thread resumed
    /// is not a thread scheduled): the exiting thread, still in its
    /// seccomp stop, waits until each prctl's syscall-exit stop is taken
    /// (the call does not block), which puts the store before the exit's
    /// hand-on for real, the order in which the core applies them. A
    /// prctl that has not stopped within a second is applied to the core
    /// now, as the likelier order. Not those held at their own entry
    /// (supervisor/handon.rs): they have not run.
    pub(super) fn pull_subreapers_in_flight(&mut self, tid: i32) {
        let wanted = |sup: &Supervisor, t: i32, c: &InCall| {
            c.nr == libc::SYS_prctl
                && c.args[0] == libc::PR_SET_CHILD_SUBREAPER as u64
                && !sup.held_prctls.contains_key(&t)
        };
        let running: Vec<i32> = self
            .threads
            .iter()
            .filter(|(&t, th)| {
                t != tid
                    && th
                        .in_call
                        .as_ref()
                        .is_some_and(|c| c.early.is_none() && wanted(self, t, c))
            })
            .map(|(&t, _)| t)
            .collect();
        for &t in &running {
            self.finish_call(t);
        }
        let n = self.apply_in_flight(tid, wanted);
        if self.log.on() && !running.is_empty() {
            dline!(self,
                "[debug]   {} subreaper prctl in flight let finish before an exit, {n} applied early",
                running.len()
            );
        }
    }

    /// Takes the stops of thread `t`, resumed inside a call that does not
    /// block, until that call's syscall-exit stop (or its death) is
    /// handled; gives up after about a second.
    fn finish_call(&mut self, t: i32) {
        let start = std::time::Instant::now();
        while self.threads.get(&t).is_some_and(|th| th.in_call.is_some()) {
            let mut st: libc::c_int = 0;
            // SAFETY: waitpid writes the status to a local.
            let r = unsafe { libc::waitpid(t, &mut st, libc::__WALL | libc::WNOHANG) };
            if r == t {
                self.on_status(t, st);
                continue;
            }
            if r < 0 && nix::errno::Errno::last() != nix::errno::Errno::EINTR {
                return;
            }
            if start.elapsed() > std::time::Duration::from_secs(1) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_micros(20));
        }
    }

    /// Applies to the core, now, the calls in flight (entered, resumed,
    /// their exits not seen, not applied yet) of threads other than `tid`
    /// that `wanted` picks; their answers are kept for their syscall exits
    /// (`InCall::early`). The number applied.
    fn apply_in_flight(
        &mut self,
        tid: i32,
        wanted: impl Fn(&Supervisor, i32, &InCall) -> bool,
    ) -> usize {
        let pending: Vec<i32> =
            self.threads
                .iter()
                .filter(|(&t, th)| {
                    t != tid
                        && th.in_call.as_ref().is_some_and(|c| {
                            c.early.is_none() && c.call.is_ok() && wanted(self, t, c)
                        })
                })
                .map(|(&t, _)| t)
                .collect();
        let mut n = 0;
        for t in pending {
            let Some(task) = self.map.task(t).filter(|&x| self.alive(x)) else {
                continue;
            };
            let Some(ic) = self.threads.get_mut(&t).and_then(|th| th.in_call.as_mut()) else {
                continue;
            };
            if let Ok(call) = &ic.call {
                ic.early = Some(dispatch(&mut self.k, task, call));
                n += 1;
            }
        }
        n
    }
}

/// The single target of kill-family `call` (`kill(pid > 0)`, `tgkill`,
/// `tkill`; `None` for another form): the call with signal 0, which asks
/// the core only whether that target exists and may be signalled (the
/// lookups of `kill_pid_info()` and `do_send_specific()`, tgkill's tgid
/// check included), the number naming the task (kill's pid, the tid),
/// and the signal.
fn single_kill_target(call: &Syscall) -> Option<(Syscall, i32, i32)> {
    match *call {
        Syscall::Kill { pid, sig } if pid > 0 => Some((Syscall::Kill { pid, sig: 0 }, pid, sig)),
        Syscall::Tgkill { tgid, tid, sig } => {
            Some((Syscall::Tgkill { tgid, tid, sig: 0 }, tid, sig))
        }
        Syscall::Tkill { tid, sig } => Some((Syscall::Tkill { tid, sig: 0 }, tid, sig)),
        _ => None,
    }
}

/// Whether generating `sig` can take a stop or continue report from its
/// target's parent (Linux, for a traced target as every one here):
/// SIGCONT ends a stop (`prepare_signal()` sets `SIGNAL_STOP_CONTINUED`,
/// clearing `SIGNAL_STOP_STOPPED`, which `wait_task_stopped()` reads),
/// SIGKILL ends the group (`complete_signal()` sets `SIGNAL_GROUP_EXIT`
/// alone, clearing both). A stop signal only flushes a pending SIGCONT
/// (the continue report stays until the stop is taken, at its
/// dequeue); any other fatal signal takes `complete_signal()`'s group
/// exit only for an untraced target (`!p->ptrace`), else at its
/// delivery.
fn takes_wait_report(sig: i32) -> bool {
    sig == libc::SIGCONT || sig == libc::SIGKILL
}

/// The "no child has anything to report yet" answer of wait `call`
/// (`WNOHANG`).
fn nothing_yet(call: &Syscall) -> taskcore::sys::SysResult {
    match call {
        Syscall::Wait4 { .. } => Ok(SysRet::Wait(WaitOutcome::NothingYet)),
        _ => Ok(SysRet::Waitid(WaitOutcome::NothingYet)),
    }
}

/// Wait `call` for child `c` only (`P_PID`), its options kept.
fn only_child(call: &Syscall, c: i32) -> Syscall {
    match *call {
        Syscall::Wait4 { options, .. } => Syscall::Wait4 { pid: c, options },
        Syscall::Waitid { options, .. } => Syscall::Waitid {
            idtype: taskcore::uapi::P_PID,
            id: c,
            options,
        },
        ref other => other.clone(),
    }
}
