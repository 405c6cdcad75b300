//! Calls applied in another order than the kernel ran them. The core
//! applies a setpgid or setsid at its syscall exit (or earlier, pulled
//! into place: `supervisor/window.rs`), so two such calls on one process
//! whose windows overlap (one entered before the other's exit was seen)
//! are applied in the order of their exit stops, which need not be the
//! kernel's: `setpgid(0, 2)` by a child and `setpgid(child, 0)` by its
//! parent at once leave the child in group 2 or in a group of its own.
//! Both answers are usually the same either way; what tells the order is
//! seen later: the process group a new child inherits (its clone event),
//! or a `getpgrp`/`getpgid`/`getsid` answer. Then an earlier call of such
//! an overlapping pair is applied again after the later one, if that
//! gives the kernel's state (tried on a snapshot of the core first): for
//! these calls the state is the target's group and session, which the
//! last call sets.

use taskcore::sys::{dispatch, Syscall};
use taskcore::{Kernel, TaskId};

use super::{Applied, Supervisor};

/// At most this many calls are kept per process.
const KEPT: usize = 4;

impl Supervisor {
    /// The process a setpgid or setsid (raw number `nr`, virtual
    /// arguments `args`) of `task` changes, and its group and session now.
    pub(super) fn pgrp_target(
        &self,
        task: TaskId,
        nr: i64,
        args: &[u64; 6],
    ) -> Option<(i32, Option<(i32, i32)>)> {
        let own = self.k.getpid(task).ok()?;
        let target = match nr {
            libc::SYS_setpgid if args[0] as i32 != 0 => args[0] as i32,
            libc::SYS_setpgid | libc::SYS_setsid => own,
            _ => return None,
        };
        let ids = self
            .k
            .getpgid(task, target)
            .and_then(|g| Ok((g, self.k.getsid(task, target)?)))
            .ok();
        Some((target, ids))
    }

    /// Setpgid or setsid `call` of `task` on process `target` (its group
    /// and session `before` the call), entered at `entry_seq`, succeeded
    /// in the core: kept for that process, with the calls it overlaps.
    pub(super) fn note_pgrp_call(
        &mut self,
        task: TaskId,
        target: i32,
        before: Option<(i32, i32)>,
        call: &Syscall,
        entry_seq: u64,
    ) {
        let now = Applied {
            task,
            call: call.clone(),
            entry_seq,
            exit_seq: self.stops_seen,
            before,
        };
        let list = self.pgrp_calls.entry(target).or_default();
        // A call that entered after every kept one exited follows them
        // all: they no longer need placing.
        if list.iter().all(|a| a.exit_seq <= entry_seq) {
            list.clear();
        }
        list.push(now);
        if list.len() > KEPT {
            list.remove(0);
        }
    }

    /// Whether the last setpgid or setsid applied to process `target`
    /// exited after the event numbered `seq`.
    pub(super) fn pgrp_call_after(&self, target: i32, seq: u64) -> bool {
        self.pgrp_calls
            .get(&target)
            .and_then(|l| l.last())
            .is_some_and(|a| a.exit_seq > seq)
    }

    /// Whether process `target` (virtual tgid) has calls that overlapped.
    pub(super) fn has_overlapping_pgrp_calls(&self, target: i32) -> bool {
        self.pgrp_calls.get(&target).is_some_and(|l| l.len() > 1)
    }

    /// The kernel's state of process `target` is not the core's (`agrees`
    /// says whether a core state is the kernel's): an earlier call of an
    /// overlapping pair is applied again after the last one, when that
    /// agrees. Whether one was.
    pub(super) fn reorder_pgrp_calls(
        &mut self,
        target: i32,
        agrees: impl Fn(&mut Kernel) -> bool,
    ) -> bool {
        let Some(list) = self.pgrp_calls.get(&target).cloned() else {
            return false;
        };
        let Some(last) = list.last() else {
            return false;
        };
        for (i, a) in list.iter().enumerate().rev().skip(1) {
            // Still in flight when the last one entered.
            if a.exit_seq <= last.entry_seq || !self.alive(a.task) {
                continue;
            }
            let mut k = self.k.snapshot();
            if dispatch(&mut k, a.task, &a.call).is_err() || !agrees(&mut k) {
                continue;
            }
            self.k = k;
            if self.log.on() {
                dline!(
                    self,
                    "[debug]   reordered for {target}: {:?} again after {:?}",
                    a.call,
                    last.call
                );
            }
            if let Some(l) = self.pgrp_calls.get_mut(&target) {
                let moved = l.remove(i);
                l.push(moved);
            }
            return true;
        }
        false
    }

    /// A clone of process `creator` (virtual tgid), entered at
    /// `entry_seq`, made a child in group `pgrp` and session `sid` (the
    /// kernel's, from the child itself), not the creator's now in the
    /// core: the last setpgid or setsid the core applied to the creator
    /// ran after the clone's `copy_process()` if it exited after the
    /// clone entered and the creator was in that group and session before
    /// it. Then the group the child must be moved to, in the creator's
    /// session (the clone placed before that call: the child keeps the
    /// group it inherited); `None` otherwise.
    pub(super) fn inherited_before_pgrp_call(
        &self,
        creator: i32,
        entry_seq: u64,
        pgrp: i32,
        sid: i32,
    ) -> Option<i32> {
        let last = self.pgrp_calls.get(&creator)?.last()?;
        (last.exit_seq > entry_seq && last.before == Some((pgrp, sid))).then_some(pgrp)
    }
}
