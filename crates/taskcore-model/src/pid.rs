//! Pid namespaces and `struct pid`: numbers per level, cyclic allocation by
//! a plain scan, lookups.
//!
//! # Linux
//! kernel/pid.c `alloc_pid`, `free_pid`, `find_pid_ns`, `pid_nr_ns`;
//! lib/idr.c `idr_alloc_cyclic` (`idr_next` cursor), `idr_alloc`.

use crate::objects::PidStruct;
use crate::{Errno, Model, Result};

impl Model {
    /// `alloc_pid()`: a new `struct pid` with a number in `ns` and every
    /// ancestor, deepest level first; `set_tid[i]` asks for a number `i`
    /// levels above `ns`. The pid has no users yet.
    ///
    /// # Errors
    /// `EINVAL` for a `set_tid` longer than the levels, out of
    /// `[1, pid_max)`, or not 1 where the level has no init yet; `EEXIST`
    /// for a taken `set_tid`; `EPERM` for a `set_tid` number when not
    /// `may_set_tid` (the caller's `CAP_SYS_ADMIN` or
    /// `CAP_CHECKPOINT_RESTORE`; after that number's `EINVAL` checks,
    /// before `EEXIST`); `EAGAIN` when a level is full (the idr's
    /// `ENOSPC`); `ENOMEM` when `ns`'s init has exited.
    pub(crate) fn alloc_pid(
        &mut self,
        ns: usize,
        set_tid: &[i32],
        may_set_tid: bool,
    ) -> Result<usize> {
        let level = self.nss[ns].level;
        if set_tid.len() > level + 1 {
            return Err(Errno::EINVAL);
        }
        let mut numbers = vec![(0, 0); level + 1];
        let mut moved: Vec<(usize, u32)> = Vec::new();
        let mut tmp = ns;
        let mut result = Ok(());
        for i in (0..=level).rev() {
            let n = &self.nss[tmp];
            let nr = match set_tid.get(level - i) {
                Some(&tid) => {
                    if tid < 1 || tid as u32 >= n.pid_max {
                        result = Err(Errno::EINVAL);
                        break;
                    }
                    if tid != 1 && n.child_reaper.is_none() {
                        result = Err(Errno::EINVAL);
                        break;
                    }
                    if !may_set_tid {
                        // checkpoint_restore_ns_capable()
                        result = Err(Errno::EPERM);
                        break;
                    }
                    if n.idr.contains_key(&(tid as u32)) {
                        // idr_alloc's ENOSPC for a taken id becomes EEXIST.
                        result = Err(Errno::EEXIST);
                        break;
                    }
                    // idr_alloc() leaves the cyclic cursor alone.
                    tid as u32
                }
                None => match n.cyclic_free() {
                    Some(nr) => {
                        moved.push((tmp, n.cursor));
                        self.nss[tmp].cursor = nr + 1;
                        nr
                    }
                    None => {
                        // The idr's ENOSPC is reported as EAGAIN.
                        result = Err(Errno::EAGAIN);
                        break;
                    }
                },
            };
            // Reserve the number now (Linux stores NULL) so that no other
            // level sees it free; levels are distinct namespaces anyway.
            numbers[i] = (tmp, nr);
            self.nss[tmp].idr.insert(nr, usize::MAX);
            tmp = self.nss[tmp].parent.unwrap_or(usize::MAX);
        }
        if result.is_ok() && !self.nss[ns].adding {
            result = Err(Errno::ENOMEM);
        }
        if let Err(e) = result {
            for &(n, nr) in &numbers {
                if self.nss.get(n).and_then(|x| x.idr.get(&nr)) == Some(&usize::MAX) {
                    self.nss[n].idr.remove(&nr);
                }
            }
            if self.opts.compat.pid_cursor_untouched_on_failure {
                for (n, cursor) in moved.into_iter().rev() {
                    self.nss[n].cursor = cursor;
                }
            }
            return Err(e);
        }
        let idx = self.pids.len();
        for &(n, nr) in &numbers {
            self.nss[n].idr.insert(nr, idx);
        }
        self.pids.push(Some(PidStruct {
            numbers,
            count: 0,
            task: None,
        }));
        Ok(idx)
    }

    /// Adds `n` users to `pid`.
    pub(crate) fn get_pid(&mut self, pid: usize, n: usize) {
        self.pids[pid].as_mut().expect("live pid").count += n;
    }

    /// Drops one user of `pid`; frees its numbers with the last one
    /// (`free_pid`).
    pub(crate) fn put_pid(&mut self, pid: usize) {
        let p = self.pids[pid].as_mut().expect("live pid");
        p.count -= 1;
        if p.count == 0 {
            let p = self.pids[pid].take().expect("live pid");
            for (ns, nr) in p.numbers {
                let old = self.nss[ns].idr.remove(&nr);
                debug_assert_eq!(old, Some(pid));
                // free_pid(): all that is left is the reaper: wake it up.
                if let Some((w, group_dead)) = self.nss[ns].zap_waiter {
                    if self.nss[ns].idr.len() <= self.init_pids(w) {
                        self.nss[ns].zap_waiter = None;
                        self.deferred.push_back(crate::Deferred::ResumeExit {
                            task: w,
                            group_dead,
                        });
                    }
                }
            }
        }
    }

    /// The `(namespace, number)` pairs of `pid`, root first.
    pub(crate) fn pid_numbers(&self, pid: usize) -> Vec<(usize, u32)> {
        self.pids[pid].as_ref().expect("live pid").numbers.clone()
    }

    /// The namespace of `pid` (its deepest level).
    pub(crate) fn ns_of_pid(&self, pid: usize) -> usize {
        self.pids[pid]
            .as_ref()
            .expect("live pid")
            .numbers
            .last()
            .expect("a pid has a number")
            .0
    }

    /// `task_active_pid_ns()`.
    pub(crate) fn ns_of(&self, t: usize) -> usize {
        self.ns_of_pid(self.task(t).pid)
    }

    /// `pid->level`.
    pub(crate) fn pid_level(&self, pid: usize) -> usize {
        self.pids[pid].as_ref().expect("live pid").numbers.len() - 1
    }

    /// `pid_nr_ns()`: `pid`'s number in `ns`, 0 if it has none there.
    pub(crate) fn pid_nr_ns(&self, pid: usize, ns: usize) -> i32 {
        let level = self.nss[ns].level;
        match self.pids[pid]
            .as_ref()
            .expect("live pid")
            .numbers
            .get(level)
        {
            Some(&(n, nr)) if n == ns => nr as i32,
            _ => 0,
        }
    }

    /// `find_pid_ns()`.
    pub(crate) fn find_pid(&self, ns: usize, nr: i32) -> Option<usize> {
        if nr <= 0 {
            return None;
        }
        self.nss[ns].idr.get(&(nr as u32)).copied()
    }

    /// `find_task_by_pid_ns()`.
    pub(crate) fn find_task(&self, ns: usize, nr: i32) -> Option<usize> {
        let pid = self.find_pid(ns, nr)?;
        self.pids[pid].as_ref()?.task
    }

    /// `pid_has_task(pid, PIDTYPE_PGID)`: some thread group has `pid` as
    /// its process group.
    pub(crate) fn pgrp_has_task(&self, pid: usize) -> bool {
        self.signals.iter().flatten().any(|s| s.pgrp == pid)
    }

    /// `task_tgid_vnr`-style: the tgid of `t` as `viewer` numbers it.
    pub(crate) fn tgid_nr_ns(&self, t: usize, ns: usize) -> i32 {
        self.pid_nr_ns(self.task(self.leader(t)).pid, ns)
    }
}
