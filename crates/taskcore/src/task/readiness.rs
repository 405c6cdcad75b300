//! Readiness setters: every write of a field that `edge_state` reads goes
//! through a setter here, which marks the wait edges that depend on it
//! dirty; [`Kernel::flush_wait_edges`] brings the marked edges up to date in
//! the wait index once, at the end of the operation.
//!
//! The fields are the task's `exit_state`, its `PF_TRACED_STOP` flag and
//! `trap_code`, and the group's `SIGNAL_*` flags, `group_exit_code`,
//! `exit_signal` and thread count (`delay_group_leader`). Changes of an
//! edge's *position* (its waiter, list or process group) still take the edge
//! out of the index first ([`Kernel::unindex_child`],
//! [`Kernel::unindex_ptrace`]) and mark it after.
//!
//! A write that bypasses these setters leaves its edge stale until the next
//! mark of that edge: [`Kernel::check_invariants`] compares every
//! registered edge with `edge_state` and fails the tests on it.
//!
//! # Complexity
//! A mark is a push onto a vector that keeps its capacity (no allocation
//! once warm); the flush is O(marked edges) index updates.
//!
//! # Linux
//! No Linux analogue: Linux has no index to keep in step (`do_wait` walks
//! the lists and reads these fields directly).

use crate::ix::GroupIx;
use crate::ix::TaskIx;
use crate::task::kernel::Kernel;
use crate::task::task_struct::{ExitState, SignalFlags, SIGNAL_STOP_STOPPED};
use crate::uapi::SIGCHLD;
use crate::wait::dirty::Dirty;
use crate::wait::index::{Cat, Class, EdgeState, READY_EXIT};
use crate::wait::ready::{mark, mark_if_edged, registered_by_caller};

impl Kernel {
    /// Marks the edges that lead to task `t` (its ptrace edge, and its
    /// group's child edge when it is the leader) for the next flush.
    #[inline]
    pub(crate) fn mark_task(&mut self, t: TaskIx) {
        let _ = mark(&mut self.wait_dirty, Dirty::Task(t));
    }

    /// Marks the edges that depend on group `g` (its child edge and the
    /// ptrace edges of its traced threads) for the next flush.
    #[inline]
    pub(crate) fn mark_group(&mut self, g: GroupIx) {
        let _ = mark(&mut self.wait_dirty, Dirty::Group(g));
    }

    /// Brings every marked edge up to date in the wait index. Entries whose
    /// task or group was released since are skipped (their edges left the
    /// index on release); a reused slot is synced from its current state,
    /// which is harmless. Called at the end of every operation: with
    /// nothing marked it is one length test.
    #[inline(always)]
    pub(crate) fn flush_wait_edges(&mut self) {
        if !self.wait_dirty.is_empty() {
            self.flush_wait_edges_slow();
        }
    }

    #[inline(never)]
    fn flush_wait_edges_slow(&mut self) {
        let mut i = 0;
        while i < self.wait_dirty.len() {
            match self.wait_dirty[i] {
                Dirty::Task(t) => {
                    if self.tasks.contains(t) {
                        self.sync_task(t);
                    }
                }
                Dirty::Group(g) => {
                    if self.groups.contains(g) {
                        self.sync_group(g);
                    }
                }
            }
            i += 1;
        }
        self.wait_dirty.clear();
    }

    /// Sets task `t`'s `exit_state`; `leader` and `traced` say whether
    /// it leads its group and is traced (`ptrace != 0`), the two ways an
    /// edge can lead to it: its group's child edge (which reads the
    /// leader's state) and its ptrace edge. The exit state of a thread
    /// that is neither is read by no edge: nothing is marked then.
    #[inline(always)]
    pub(crate) fn set_exit_state(&mut self, t: TaskIx, s: ExitState, leader: bool, traced: bool) {
        debug_assert_eq!(leader, self.is_leader(t));
        debug_assert_eq!(traced, self.tasks[t].ptrace != 0);
        let m = mark_if_edged(&mut self.wait_dirty, Dirty::Task(t), leader || traced);
        let task = &mut self.tasks[t];
        let w = task.wait_state.get().with_exit_state(s);
        task.wait_state.set(w, m);
    }

    /// [`Self::set_exit_state`] to `Zombie` of task `t`, the untraced
    /// leader and only thread of group `g` (a process's usual exit), with
    /// the one edge that reads it, the group's child edge, registered at
    /// once in the state it now has (a reapable zombie of its class; a
    /// zombie's stop and continue are not reported from the children
    /// list) instead of marked and recomputed at the flush. No mark is
    /// pushed ([`registered_by_caller`]): the task's two edges are its
    /// ptrace edge, which it has none of (untraced), and the child edge
    /// registered here; the marks of other edges, whatever
    /// `register_child_state` does, are left as they are.
    #[inline(always)]
    pub(crate) fn set_zombie_lone_leader(&mut self, t: TaskIx, g: GroupIx) {
        debug_assert!(self.is_leader(t) && self.tasks[t].ptrace == 0);
        debug_assert_eq!(self.groups[g].nr_threads, 1);
        let m = registered_by_caller();
        let task = &mut self.tasks[t];
        let w = task.wait_state.get().with_exit_state(ExitState::Zombie);
        task.wait_state.set(w, m);
        let grp = &self.groups[g];
        if let Some(parent) = grp.real_parent {
            let class = if grp.exit_signal.get() == SIGCHLD {
                Class::Normal
            } else {
                Class::Clone
            };
            let new = EdgeState {
                class,
                cat: Cat::ZombieReap,
                ready: READY_EXIT,
            };
            self.register_child_state(g, parent, new);
        }
    }

    /// Sets or clears task `t`'s `PF_TRACED_STOP` and sets its `trap_code`
    /// (the ptrace stop's wait status; 0 once reported or ended).
    pub(crate) fn set_traced_stop(&mut self, t: TaskIx, stopped: bool, code: i32) {
        let task = &mut self.tasks[t];
        let w = task.wait_state.get().with_traced_stop(stopped);
        task.wait_state
            .set(w, mark(&mut self.wait_dirty, Dirty::Task(t)));
        task.trap_code
            .set(code, mark(&mut self.wait_dirty, Dirty::Task(t)));
    }

    /// Clears task `t`'s ptrace stop, its `trap_code` left as it is.
    pub(crate) fn clear_traced_stop(&mut self, t: TaskIx) {
        let m = mark(&mut self.wait_dirty, Dirty::Task(t));
        let w = self.tasks[t].wait_state.get().with_traced_stop(false);
        self.tasks[t].wait_state.set(w, m);
    }

    /// Sets task `t`'s `trap_code` alone (0: the stop was reported).
    pub(crate) fn set_trap_code(&mut self, t: TaskIx, code: i32) {
        let m = mark(&mut self.wait_dirty, Dirty::Task(t));
        self.tasks[t].trap_code.set(code, m);
    }

    /// Sets group `g`'s `exit_signal` (the child edge's `__WCLONE` class).
    pub(crate) fn set_exit_signal(&mut self, g: GroupIx, sig: i32) {
        let m = mark(&mut self.wait_dirty, Dirty::Group(g));
        self.groups[g].exit_signal.set(sig, m);
    }

    /// Sets group `g`'s `group_exit_code` (a group stop's reported signal).
    pub(crate) fn set_group_exit_code(&mut self, g: GroupIx, code: i32) {
        let m = mark(&mut self.wait_dirty, Dirty::Group(g));
        self.groups[g].group_exit_code.set(code, m);
    }

    /// Sets group `g`'s `SIGNAL_*` flags, keeping the process group's count
    /// of stopped members in step, and marks the group's edges.
    pub(crate) fn set_group_flags(&mut self, g: GroupIx, flags: SignalFlags) {
        let old = self.groups[g].flags.get();
        let m = mark(&mut self.wait_dirty, Dirty::Group(g));
        self.groups[g].flags.set(flags, m);
        let (was, is) = (
            old.contains(SIGNAL_STOP_STOPPED),
            flags.contains(SIGNAL_STOP_STOPPED),
        );
        if was != is {
            let pgrp = self.groups[g].pgrp;
            self.pgrp_count_stopped(pgrp, is);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::task::kernel::{Config, Kernel};
    use crate::task::task_struct::SIGNAL_STOP_CONTINUED;

    /// A kernel with init and one child process; the child's group.
    fn with_child() -> (Kernel, crate::task::task_struct::GroupIx) {
        let mut k = Kernel::new(Config::default()).unwrap();
        let init = k.init_task().unwrap();
        let c = k.fork(init).unwrap();
        let g = k.tasks[k.task_idx(c).unwrap()].group;
        k.check_invariants();
        (k, g)
    }

    #[test]
    fn a_new_kernel_has_no_mark_left() {
        // Kernel::new sets init's SIGNAL_UNKILLABLE through its setter, as
        // an operation does, and ends as one: flushed.
        let k = Kernel::new(Config::default()).unwrap();
        assert!(k.wait_dirty.is_empty());
        k.check_invariants();
    }

    #[test]
    #[should_panic(expected = "child edge registered in a stale state")]
    fn a_write_that_bypasses_its_setter_fails_the_invariants() {
        // Outside the tests such a write does not compile (`Ready::set`
        // asks for a mark); `set_unmarked` exists for this test only.
        let (mut k, g) = with_child();
        let f = k.groups[g].flags.get() | SIGNAL_STOP_CONTINUED;
        k.groups[g].flags.set_unmarked(f);
        k.check_invariants();
    }

    #[test]
    #[should_panic(expected = "marked but not flushed")]
    fn an_unflushed_mark_fails_the_invariants() {
        let (mut k, g) = with_child();
        let f = k.groups[g].flags.get() | SIGNAL_STOP_CONTINUED;
        k.set_group_flags(g, f);
        k.check_invariants();
    }

    #[test]
    fn a_lone_leaders_zombie_registration_pushes_no_mark_and_keeps_others() {
        use crate::wait::dirty::Dirty;
        use crate::wait::index::{Cat, Class, EdgeState, READY_EXIT};
        let (mut k, g) = with_child();
        let t = k.groups[g].leader;
        let init_g = k.tasks[k.init].group;
        // A mark of another edge, pending when the child becomes a zombie.
        k.mark_group(init_g);
        k.set_zombie_lone_leader(t, g);
        assert_eq!(k.wait_dirty, vec![Dirty::Group(init_g)]);
        let zombie = EdgeState {
            class: Class::Normal,
            cat: Cat::ZombieReap,
            ready: READY_EXIT,
        };
        assert_eq!(k.groups[g].child_reg, zombie.encode());
    }

    #[test]
    fn a_setter_marks_and_the_flush_registers_the_new_state() {
        let (mut k, g) = with_child();
        let f = k.groups[g].flags.get() | SIGNAL_STOP_CONTINUED;
        k.set_group_flags(g, f);
        k.set_group_exit_code(g, 0);
        // Consecutive marks of one group are kept once.
        assert_eq!(k.wait_dirty.len(), 1);
        k.flush_wait_edges();
        assert!(k.wait_dirty.is_empty());
        k.check_invariants();
    }
}
