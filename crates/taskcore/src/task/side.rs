//! The rare per-task state, kept aside rather than in every task (almost
//! always empty): what exit and exec drop in one place,
//! [`SideState::forget`], when a task is released.

use rustc_hash::FxHashMap;

use crate::ix::TaskIx;
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
}

impl SideState {
    /// Whether task `t` is a vfork child whose vfork has not completed:
    /// one length test when no vfork is in progress.
    #[inline(always)]
    pub(crate) fn has_vfork_parent(&self, t: TaskIx) -> bool {
        !self.vfork_parents.is_empty() && self.vfork_parents.contains_key(&t)
    }

    /// Drops what the tables keep for released task `t`; an empty table
    /// is not hashed, so an exit of a task with nothing aside pays one
    /// length test per table.
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
    }
}
