//! The rare per-task state, kept aside rather than in every task (almost
//! always empty): what exit and exec drop in one place,
//! [`SideState::forget`], when a task is released.

use rustc_hash::FxHashMap;

use crate::ix::TaskIx;
use crate::list::ListHead;
use crate::task::task_struct::SigSave;
use crate::types::SigInfo;

/// The per-task side tables, keyed by task.
#[derive(Clone, Debug, Default)]
pub(crate) struct SideState {
    /// Signals a tracer resumed a thread with, for its next `get_signal()`.
    pub(crate) resume_signals: FxHashMap<TaskIx, SigInfo>,
    /// The siginfo of the signal a thread in signal-delivery-stop stopped
    /// with (`last_siginfo`, what `PTRACE_GETSIGINFO` reads).
    pub(crate) trap_info: FxHashMap<TaskIx, SigInfo>,
    /// The masks of the few threads in `rt_sigtimedwait` or
    /// `rt_sigsuspend` (`real_blocked`, `saved_sigmask`): kept aside, not
    /// in every task.
    pub(crate) sigsave: FxHashMap<TaskIx, SigSave>,
    /// Each tracee's `ptrace_message` (what `PTRACE_GETEVENTMSG` reads):
    /// kept aside, not in every task; absent means 0.
    pub(crate) ptrace_messages: FxHashMap<TaskIx, u64>,
    /// Each vfork child's parent (the thread that waits for it to exec or
    /// exit, `vfork_done`) and that parent's slot generation at the vfork
    /// (kept aside, not in every task; the entry goes when the vfork
    /// completes): once that parent is released (killed while waiting:
    /// Linux clears the child's `vfork_done`), its slot may hold another
    /// task.
    pub(crate) vfork_parents: FxHashMap<TaskIx, (TaskIx, u32)>,
    /// The threads asleep in vfork that have `TIF_SIGPENDING` (kept aside,
    /// almost always empty; the entry goes when the vfork completes): such
    /// a thread wants no further signal (`wants_signal()`). The value: the
    /// process-wide signals `complete_signal()` gave it, which only it has
    /// `TIF_SIGPENDING` for, so the other threads of its group do not see
    /// them pending until one of them is woken.
    pub(crate) vfork_claims: FxHashMap<TaskIx, u64>,
    /// Each tracer's list of the tasks it traces (`ptraced`, newest
    /// first; linked through their `ptrace_entry`), for the tracers whose
    /// list is not empty: kept aside, not in every task.
    ptraced: FxHashMap<TaskIx, ListHead<TaskIx>>,
    /// Each tracee's order key in its tracer's `ptraced` list
    /// (decreasing = later), while it is traced: kept aside, not in every
    /// task.
    ptrace_seqs: FxHashMap<TaskIx, u64>,
}

impl SideState {
    /// Tracer `t`'s `ptraced` list (empty for a thread that traces
    /// nobody).
    #[inline]
    pub(crate) fn ptraced(&self, t: TaskIx) -> ListHead<TaskIx> {
        if self.ptraced.is_empty() {
            return ListHead::EMPTY;
        }
        self.ptraced.get(&t).copied().unwrap_or(ListHead::EMPTY)
    }

    /// Stores tracer `t`'s `ptraced` list (an empty one is not kept).
    pub(crate) fn set_ptraced(&mut self, t: TaskIx, head: ListHead<TaskIx>) {
        if head.is_empty() {
            self.ptraced.remove(&t);
        } else {
            self.ptraced.insert(t, head);
        }
    }

    /// Whether thread `t` traces anyone: one length test when nobody
    /// traces.
    #[inline(always)]
    pub(crate) fn has_tracees(&self, t: TaskIx) -> bool {
        !self.ptraced.is_empty() && self.ptraced.contains_key(&t)
    }

    /// Traced task `t`'s order key in its tracer's list (0 for an
    /// untraced task, which has none).
    #[inline]
    pub(crate) fn ptrace_seq(&self, t: TaskIx) -> u64 {
        self.ptrace_seqs.get(&t).copied().unwrap_or(0)
    }

    /// Sets task `t`'s order key in its tracer's list, or drops it
    /// (`None`: no longer traced).
    pub(crate) fn set_ptrace_seq(&mut self, t: TaskIx, seq: Option<u64>) {
        match seq {
            Some(s) => {
                self.ptrace_seqs.insert(t, s);
            }
            None => {
                self.ptrace_seqs.remove(&t);
            }
        }
    }

    /// Whether task `t` is a vfork child whose vfork has not completed:
    /// one length test when no vfork is in progress.
    #[inline(always)]
    pub(crate) fn has_vfork_parent(&self, t: TaskIx) -> bool {
        !self.vfork_parents.is_empty() && self.vfork_parents.contains_key(&t)
    }

    /// Drops what the tables keep for released task `t`; an empty table
    /// is not hashed, so an exit of a task with nothing aside pays one
    /// length test per table (the ptrace tables are empty for it by then).
    #[inline]
    pub(crate) fn forget(&mut self, t: TaskIx) {
        fn drop_entry<V>(m: &mut FxHashMap<TaskIx, V>, t: TaskIx) {
            if !m.is_empty() {
                m.remove(&t);
            }
        }
        drop_entry(&mut self.resume_signals, t);
        drop_entry(&mut self.trap_info, t);
        drop_entry(&mut self.sigsave, t);
        drop_entry(&mut self.ptrace_messages, t);
        drop_entry(&mut self.vfork_parents, t);
        drop_entry(&mut self.vfork_claims, t);
        // A released task was unlinked from its tracer (`ptrace_unlink`
        // drops its order key) and, as a tracer, detached from its tracees
        // at its exit (`exit_ptrace`): nothing of either is left.
        debug_assert!(!self.ptraced.contains_key(&t));
        debug_assert!(!self.ptrace_seqs.contains_key(&t));
    }
}
