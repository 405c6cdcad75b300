//! The two numberings: the real kernel's pids and the core's (virtual)
//! ones, and the core's task for each real thread.
//!
//! A number stays mapped while the core has it in use (as a pid, tgid,
//! pgid or sid: a process group outlives its leader), so a virtual
//! number the core has freed never reaches the real kernel, even if a
//! stale mapping is left here.
//!
//! The map pairs the *global* real numbers (the supervisor's: `waitpid`,
//! `/proc`, ptrace events) with the numbers of the core's root namespace.
//! A task in a nested pid namespace (`unshare`/`clone` with
//! `CLONE_NEWPID`) is in a nested namespace of the real kernel too, whose
//! numbers its calls take and return: for each such task the map keeps its
//! real number at every level (`NSpid:` of `/proc/PID/status`), keyed by
//! the core's namespace at that level (the real one was made by the same
//! call). A number a nested task passes or gets is then translated through
//! its global number and the core's numbering of the same `struct pid` in
//! the task's namespace ([`Kernel::pid_nr_in_ns`]).

use std::collections::HashMap;

use taskcore::pid::NsId;
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
    /// (the core's namespace at a level L ≥ 1, the core's number there) →
    /// the real number at level L.
    nested_v2r: HashMap<(NsId, i32), i32>,
    /// (the core's namespace at a level L ≥ 1, the real number there) →
    /// the core's number there.
    nested_r2v: HashMap<(NsId, i32), i32>,
    /// Global real number → its real numbers by level, outermost (the
    /// global one) first, for tasks in nested namespaces.
    levels: HashMap<i32, Vec<i32>>,
    /// The real pid namespaces' inode numbers (`/proc/PID/ns/pid`) → the
    /// core's namespace made by the same call (setns(2) names one by an
    /// open namespace file).
    ns_inodes: HashMap<u64, NsId>,
    /// The virtual number a real process group or session id of 0 stands
    /// for: the supervisor's own, when its leader is outside the
    /// supervisor's pid namespace (Linux then shows it as 0); 0 otherwise.
    outside_leader: i32,
}

/// The inode number of real thread `tid`'s pid namespace (`/proc/TID/ns/pid`).
pub(crate) fn pid_ns_inode(tid: i32) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(format!("/proc/{tid}/ns/pid"))
        .ok()
        .map(|m| m.ino())
}

/// Pairs virtual `v` and real `r` of namespace `ns` both ways, replacing
/// what either was paired with (numbers are reused).
fn pair(
    v2r: &mut HashMap<(NsId, i32), i32>,
    r2v: &mut HashMap<(NsId, i32), i32>,
    ns: NsId,
    v: i32,
    r: i32,
) {
    if let Some(old_r) = v2r.insert((ns, v), r) {
        if old_r != r && r2v.get(&(ns, old_r)) == Some(&v) {
            r2v.remove(&(ns, old_r));
        }
    }
    if let Some(old_v) = r2v.insert((ns, r), v) {
        if old_v != v && v2r.get(&(ns, old_v)) == Some(&r) {
            v2r.remove(&(ns, old_v));
        }
    }
}

/// Number `nr` of `task`'s pid namespace as the core's root namespace
/// numbers it (0 when it has none: a number not in use).
pub(crate) fn in_root(k: &Kernel, task: TaskId, nr: i32) -> i32 {
    match k.task_active_pid_ns(task) {
        Ok(ns) if ns != k.root_ns() => k.pid_nr_in_ns(ns, nr, k.root_ns()).unwrap_or(0),
        Ok(_) => nr,
        Err(_) => 0,
    }
}

/// Number `v0` of the core's root namespace as `task`'s pid namespace
/// numbers it (0 when it has none there).
pub(crate) fn in_ns_of(k: &Kernel, task: TaskId, v0: i32) -> i32 {
    match k.task_active_pid_ns(task) {
        Ok(ns) if ns != k.root_ns() => k.pid_nr_in_ns(k.root_ns(), v0, ns).unwrap_or(0),
        Ok(_) => v0,
        Err(_) => 0,
    }
}

/// The real numbers of thread `tid` at each pid namespace level, from the
/// supervisor's own (its `NSpid:` line, as the supervisor's `/proc` shows
/// it: outermost first).
fn read_nspid(tid: i32) -> Option<Vec<i32>> {
    let text = std::fs::read_to_string(format!("/proc/{tid}/status")).ok()?;
    let line = text.lines().find_map(|l| l.strip_prefix("NSpid:"))?;
    line.split_ascii_whitespace()
        .map(|n| n.parse().ok())
        .collect()
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
    /// A real `r` of 0 (a leader outside the supervisor's own pid
    /// namespace, as `getsid(2)` shows it there) is kept for
    /// [`PidMap::group_to_virtual`] only.
    pub(crate) fn alias(&mut self, r: i32, v: i32) {
        if r == 0 {
            self.outside_leader = v;
        } else if r > 0 {
            self.r2v.entry(r).or_insert(v);
        }
    }

    /// The virtual number of real process group or session id `r` (a
    /// `getpgid`/`getsid` result, a `/proc/PID/stat` field): as
    /// [`PidMap::to_virtual`], except that 0 is the supervisor's own
    /// group or session when its leader is outside the supervisor's pid
    /// namespace (`task_pgrp_nr_ns()` gives 0 for a `struct pid` with no
    /// number there).
    pub(crate) fn group_to_virtual(&self, r: i32) -> i32 {
        match r {
            0 => self.outside_leader,
            r => self.to_virtual(r),
        }
    }

    /// What a real process group or session id of 0 is for `viewer`:
    /// the supervisor's own (see [`PidMap::group_to_virtual`]) in the
    /// namespace the supervisor is init of; 0 in a nested one, where
    /// the core too has no number for it.
    pub(crate) fn outside_group_for(&self, k: &Kernel, viewer: TaskId) -> i32 {
        match Self::nested_ns(k, viewer) {
            None => self.outside_leader,
            Some(_) => 0,
        }
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

    /// Records the real numbers of real thread `tid`, the core's `task`,
    /// at each level of its pid namespaces, when it is in a nested one
    /// (read at its clone event: the thread exists and has not run).
    pub(crate) fn record_levels(&mut self, k: &Kernel, task: TaskId, tid: i32) {
        let Some(mut ns) = k.task_active_pid_ns(task).ok() else {
            return;
        };
        let level = k.pid_ns_level(ns).unwrap_or(0);
        if level == 0 {
            return;
        }
        // One number per level, the first the global one.
        let Some(nums) = read_nspid(tid).filter(|n| n.len() == level + 1 && n[0] == tid) else {
            return;
        };
        let (own_ns, own) = (ns, k.pid_vnr(task, task).unwrap_or(0));
        for l in (1..=level).rev() {
            let v = k.pid_nr_in_ns(own_ns, own, ns).unwrap_or(0);
            if v > 0 {
                pair(&mut self.nested_v2r, &mut self.nested_r2v, ns, v, nums[l]);
            }
            match k.pid_ns_parent(ns) {
                Ok(Some(p)) => ns = p,
                _ => break,
            }
        }
        self.levels.insert(tid, nums);
        // A namespace's first task is its init: its namespace file is
        // known from then on.
        if own == 1 {
            if let Some(ino) = pid_ns_inode(tid) {
                self.ns_inodes.insert(ino, own_ns);
            }
        }
    }

    /// Records that the real pid namespace with inode `ino` is the core's
    /// `ns` (the supervisor's own is the core's root namespace).
    pub(crate) fn insert_ns_inode(&mut self, ino: u64, ns: NsId) {
        self.ns_inodes.insert(ino, ns);
    }

    /// The core's namespace of the real one with inode `ino`.
    pub(crate) fn ns_of_inode(&self, ino: u64) -> Option<NsId> {
        self.ns_inodes.get(&ino).copied()
    }

    /// `viewer`'s pid namespace and its level, when it is a nested one.
    fn nested_ns(k: &Kernel, viewer: TaskId) -> Option<(NsId, usize)> {
        let ns = k.task_active_pid_ns(viewer).ok()?;
        (ns != k.root_ns()).then(|| (ns, k.pid_ns_level(ns).unwrap_or(0)))
    }

    /// The real number of virtual `v`, as `viewer` (in the core) sees it,
    /// in `viewer`'s real namespace (where its calls take numbers): `None`
    /// when the core has no such number in use there (the program cannot
    /// name it).
    pub(crate) fn to_real(&self, k: &Kernel, viewer: TaskId, v: i32) -> Option<i32> {
        if v <= 0 || !k.pid_in_use(viewer, v).unwrap_or(false) {
            return None;
        }
        match Self::nested_ns(k, viewer) {
            None => self.v2r.get(&v).copied(),
            Some((ns, _)) => self.nested_v2r.get(&(ns, v)).copied(),
        }
    }

    /// The virtual number, in `viewer`'s namespace, of real `r` as
    /// `viewer`'s real namespace numbers it (what its calls return): 0 for
    /// a number outside the namespace.
    pub(crate) fn to_virtual_for(&self, k: &Kernel, viewer: TaskId, r: i32) -> i32 {
        match Self::nested_ns(k, viewer) {
            _ if r <= 0 => r,
            None => self.to_virtual(r),
            Some((ns, _)) => self.nested_r2v.get(&(ns, r)).copied().unwrap_or(0),
        }
    }

    /// The virtual number, in `viewer`'s namespace, of global real `g`
    /// (the supervisor's number: `waitpid`'s, `/proc`'s): 0 for a number
    /// outside the namespace.
    pub(crate) fn global_to_virtual_for(&self, k: &Kernel, viewer: TaskId, g: i32) -> i32 {
        match Self::nested_ns(k, viewer) {
            None => self.to_virtual(g),
            // A process of the root namespace only has no number there.
            Some((ns, level)) => self
                .levels
                .get(&g)
                .and_then(|n| n.get(level))
                .and_then(|r| self.nested_r2v.get(&(ns, *r)))
                .copied()
                .unwrap_or(0),
        }
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
