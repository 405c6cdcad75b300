//! The two numberings: the real kernel's pids and the core's (virtual)
//! ones, and the core's task for each real thread.
//!
//! A number stays mapped while the core has it in use (as a pid, tgid,
//! pgid or sid: a process group outlives its leader), so a virtual
//! number the core has freed never reaches the real kernel, even if a
//! stale mapping is left here.

use std::collections::HashMap;

use taskcore::{Kernel, TaskId};

/// A number no real process has (above Linux's `PID_MAX_LIMIT`, 2^22):
/// what an untranslatable pid argument becomes, so that the real kernel
/// gives the call's own "no such process" answer (ESRCH, ECHILD, EPERM…).
pub(crate) const NOPID: i32 = 0x3FFF_FFFF;

/// Both directions of the numbering, and the live threads.
#[derive(Debug, Default)]
pub(crate) struct PidMap {
    v2r: HashMap<i32, i32>,
    r2v: HashMap<i32, i32>,
    /// Real tid → the core's task, for each traced thread alive in the
    /// core.
    tasks: HashMap<i32, TaskId>,
    /// The core's task → real tid.
    tids: HashMap<TaskId, i32>,
}

impl PidMap {
    /// Maps virtual `v` to real `r` (both ways), replacing what either was
    /// mapped to.
    pub(crate) fn insert_number(&mut self, v: i32, r: i32) {
        if let Some(old_r) = self.v2r.insert(v, r) {
            if old_r != r && self.r2v.get(&old_r) == Some(&v) {
                self.r2v.remove(&old_r);
            }
        }
        if let Some(old_v) = self.r2v.insert(r, v) {
            if old_v != v && self.v2r.get(&old_v) == Some(&r) {
                self.v2r.remove(&old_v);
            }
        }
    }

    /// Shows real number `r` to the program as `v` without the reverse
    /// mapping (the supervisor's own process group and session, outside
    /// the namespace, read as init's).
    pub(crate) fn alias(&mut self, r: i32, v: i32) {
        self.r2v.entry(r).or_insert(v);
    }

    /// Records that real thread `tid` is the core's `task`, numbered `v`.
    pub(crate) fn insert_task(&mut self, tid: i32, task: TaskId, v: i32) {
        self.insert_number(v, tid);
        self.tasks.insert(tid, task);
        self.tids.insert(task, tid);
    }

    /// The core's task of real thread `tid`.
    pub(crate) fn task(&self, tid: i32) -> Option<TaskId> {
        self.tasks.get(&tid).copied()
    }

    /// The real tid of the core's `task`.
    pub(crate) fn tid_of_task(&self, task: TaskId) -> Option<i32> {
        self.tids.get(&task).copied()
    }

    /// Forgets real thread `tid` (it is gone from the real kernel); its
    /// numbers stay mapped while the core uses them.
    pub(crate) fn remove_task(&mut self, tid: i32) -> Option<TaskId> {
        let t = self.tasks.remove(&tid)?;
        self.tids.remove(&t);
        Some(t)
    }

    /// Re-keys a thread whose real tid changed: an execve by a non-leader
    /// thread takes the leader's tid (`de_thread()`).
    pub(crate) fn retid(&mut self, old: i32, new: i32) {
        if let Some(t) = self.tasks.remove(&old) {
            self.tasks.insert(new, t);
            self.tids.insert(t, new);
        }
    }

    /// The real number of virtual `v`, as `viewer` (in the core) sees it: `None` when the
    /// core has no such number in use (the program cannot name it).
    pub(crate) fn to_real(&self, k: &Kernel, viewer: TaskId, v: i32) -> Option<i32> {
        if v <= 0 || !k.pid_in_use(viewer, v).unwrap_or(false) {
            return None;
        }
        self.v2r.get(&v).copied()
    }

    /// The virtual number of real `r`: 0 for a number outside the
    /// namespace (as Linux shows a pid from an ancestor namespace).
    pub(crate) fn to_virtual(&self, r: i32) -> i32 {
        if r <= 0 {
            return r;
        }
        self.r2v.get(&r).copied().unwrap_or(0)
    }

    /// Every live thread: (real tid, core task).
    pub(crate) fn threads(&self) -> impl Iterator<Item = (i32, TaskId)> + '_ {
        self.tasks.iter().map(|(&r, &t)| (r, t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reuse_of_either_number_replaces_the_old_pairing() {
        let mut m = PidMap::default();
        m.insert_number(2, 1000);
        m.insert_number(3, 1001);
        assert_eq!(m.to_virtual(1000), 2);
        // The real kernel reuses 1000 for virtual 5.
        m.insert_number(5, 1000);
        assert_eq!(m.to_virtual(1000), 5);
        assert!(!m.v2r.contains_key(&2));
        // The core reuses 3 for real 2000.
        m.insert_number(3, 2000);
        assert_eq!(m.to_virtual(1001), 0);
        assert_eq!(m.to_virtual(2000), 3);
    }

    #[test]
    fn numbers_the_core_freed_do_not_translate() {
        let mut k = Kernel::new(taskcore::Config::default()).unwrap();
        let init = k.init_task().unwrap();
        let c = k.fork(init).unwrap();
        let v = k.pid_vnr(init, c).unwrap();
        let mut m = PidMap::default();
        m.insert_task(4242, c, v);
        assert_eq!(m.to_real(&k, init, v), Some(4242));
        k.exit_group(c, 0).unwrap();
        k.wait4(init, v, 0).unwrap();
        assert_eq!(m.to_real(&k, init, v), None);
        assert_eq!(m.to_real(&k, init, -3), None);
    }
}
