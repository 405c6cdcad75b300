//! Baselines for `pidalloc`: the two `get_pid()` algorithms of seed 001
//! (Linux 2.5.7, March 2002), over a task list.
//!
//! ```text
//!  TaskList.tasks: Vec<[pid, pgrp, tgid, session]>   for_each_task order
//!  TaskList.pos:   pid -> index in tasks              (O(1) delete only)
//!  TaskList.used:  bitmap of used pids                (bookkeeping only:
//!                                                      the algorithms never
//!                                                      read it)
//! ```
//!
//! - [`Algo0`] ("algo-0", the code the patch replaces): the interval
//!   `[last_pid, next_safe)` is known free; past it, walk every task, and
//!   whenever one uses `last_pid`, increment it and **restart the walk**.
//!   O(N) per restart, O(N * run of used pids) per search: O(N^2) when the
//!   table is nearly full.
//! - [`Algo1`] ("algo-1"): past the interval, clear a `pid_max`-bit bitmap,
//!   mark every task's four numbers, and take the first clear bit at or
//!   after `last_pid` (wrapping once to `RESERVED_PIDS`); `next_safe` is the
//!   next set bit. O(N + pid_max/64) per search. (The patch's `get_pid_by_map`
//!   is "algo-2", which keeps the bitmap between searches.)
//!
//! Generalised from `PID_MAX = 32768` to any `pid_max`: `last_pid` wraps to
//! 300 on reaching `pid_max`. Every task uses its pid as pgrp, tgid and
//! session too (each task is a process leading its own session); the four
//! comparisons still run. Deletion swaps the last task into the freed slot,
//! so list order becomes a random permutation of pids, as after years of
//! uptime. One divergence: algo-0 detects a full table by counting
//! increments rather than with the patch's `beginpid` test, which would
//! miss a free `beginpid`.

use std::time::Instant;

/// `RESERVED_PIDS`.
pub(crate) const RESERVED_PIDS: u32 = 300;

/// The task list both algorithms walk.
#[derive(Debug)]
pub(crate) struct TaskList {
    /// `[pid, pgrp, tgid, session]` per task, in `for_each_task` order.
    tasks: Vec<[u32; 4]>,
    /// Index in `tasks` of the task using each pid (valid when used).
    pos: Vec<u32>,
    /// Used pids (bookkeeping for deletes and for extrapolating a capped
    /// algo-0 search; the algorithms themselves never read it).
    used: Vec<u64>,
    pub(crate) pid_max: u32,
}

impl TaskList {
    pub(crate) fn new(pid_max: u32) -> TaskList {
        TaskList {
            tasks: Vec::new(),
            pos: vec![u32::MAX; pid_max as usize],
            used: vec![0; (pid_max as usize).div_ceil(64)],
            pid_max,
        }
    }

    /// Number of tasks.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.tasks.len()
    }

    fn is_used(&self, pid: u32) -> bool {
        self.used[(pid / 64) as usize] & (1 << (pid % 64)) != 0
    }

    /// A new task using `pid` joins the end of the list (`SET_LINKS`).
    pub(crate) fn add(&mut self, pid: u32) {
        debug_assert!(!self.is_used(pid));
        self.pos[pid as usize] = self.tasks.len() as u32;
        self.tasks.push([pid; 4]);
        self.used[(pid / 64) as usize] |= 1 << (pid % 64);
    }

    /// Task `pid` leaves (`REMOVE_LINKS`); the last task takes its slot.
    pub(crate) fn remove(&mut self, pid: u32) {
        let i = self.pos[pid as usize] as usize;
        self.tasks.swap_remove(i);
        if i < self.tasks.len() {
            self.pos[self.tasks[i][0] as usize] = i as u32;
        }
        self.pos[pid as usize] = u32::MAX;
        self.used[(pid / 64) as usize] &= !(1 << (pid % 64));
    }

    /// The first free pid at or after `from` (wrapping once to
    /// `RESERVED_PIDS`), and the first used pid after it (or `pid_max`):
    /// what any correct search returns as `(last_pid, next_safe)`.
    pub(crate) fn expected(&self, from: u32) -> Option<(u32, u32)> {
        let free = (from..self.pid_max)
            .chain(RESERVED_PIDS..from.min(self.pid_max))
            .find(|&p| !self.is_used(p))?;
        let next = (free + 1..self.pid_max)
            .find(|&p| self.is_used(p))
            .unwrap_or(self.pid_max);
        Some((free, next))
    }

    /// The number of task visits algo-0's search makes from `last_pid`,
    /// resuming a walk already at position `at`: for each used pid met in a
    /// row, the walk up to its task; then one whole walk.
    pub(crate) fn algo0_visits(&self, last_pid: u32, at: u64) -> u64 {
        let n = self.tasks.len() as u64;
        let mut last = last_pid;
        let mut at = at;
        let mut visits = 0u64;
        let mut steps = 0u64;
        while self.is_used(last) {
            visits += u64::from(self.pos[last as usize]) + 1 - at;
            at = 0;
            last += 1;
            if last >= self.pid_max {
                last = RESERVED_PIDS;
            }
            steps += 1;
            if steps > u64::from(self.pid_max) {
                return visits;
            }
        }
        visits + n - at
    }
}

/// Why [`OldGetPid::get_pid`] stopped before the algorithm finished.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Stop {
    /// The deadline had passed when a search was due: nothing was done.
    Deadline,
    /// An algo-0 search passed the deadline and was stopped; the allocation
    /// was completed without the algorithm (same pid, same final state).
    Capped {
        /// Tasks visited before stopping.
        visits_done: u64,
        /// Tasks the search would still have visited (exact, from
        /// [`TaskList::algo0_visits`]).
        visits_left: u64,
        /// Time the search ran, in ns.
        search_ns: f64,
    },
}

/// A pid allocator over the task list, as a 2002 kernel did it.
pub(crate) trait OldGetPid {
    /// Allocates a pid for a new task and adds the task. `Ok(None)` when no
    /// pid is free.
    ///
    /// # Errors
    /// [`Stop`] when `deadline` has passed: checked before each interval
    /// search, and every 65,536 task visits inside an algo-0 search.
    fn get_pid(&mut self, deadline: Instant) -> Result<Option<u32>, Stop>;
    /// Deletes the task using `pid`.
    fn release(&mut self, pid: u32);
    /// Interval searches so far.
    fn searches(&self) -> u64;
    /// Tasks visited so far.
    #[cfg(test)]
    fn visits(&self) -> u64;
    /// The `pid_max` searched below.
    fn pid_max(&self) -> u32;
    /// The task list.
    fn list_mut(&mut self) -> &mut TaskList;
    /// Sets `last_pid` and forces a search at the next allocation
    /// (`next_safe` = 0): the state of a system that has been running.
    fn set_last_pid(&mut self, last_pid: u32);
}

/// algo-0: repeated task-list walks.
#[derive(Debug)]
pub(crate) struct Algo0 {
    pub(crate) list: TaskList,
    last_pid: u32,
    next_safe: u32,
    searches: u64,
    visits: u64,
}

impl Algo0 {
    pub(crate) fn new(pid_max: u32) -> Algo0 {
        Algo0 {
            list: TaskList::new(pid_max),
            last_pid: 0,
            next_safe: pid_max,
            searches: 0,
            visits: 0,
        }
    }
}

impl OldGetPid for Algo0 {
    fn get_pid(&mut self, deadline: Instant) -> Result<Option<u32>, Stop> {
        let pid_max = self.list.pid_max;
        let wrapped = self.last_pid + 1 >= pid_max;
        if (wrapped || self.last_pid + 1 >= self.next_safe) && Instant::now() > deadline {
            return Err(Stop::Deadline);
        }
        self.last_pid += 1;
        if wrapped {
            self.last_pid = RESERVED_PIDS;
        }
        if wrapped || self.last_pid >= self.next_safe {
            let started = Instant::now();
            self.searches += 1;
            self.next_safe = pid_max;
            let mut increments = 0u32;
            let mut visits = 0u64;
            'repeat: loop {
                for (i, p) in self.list.tasks.iter().enumerate() {
                    visits += 1;
                    if visits & 0xffff == 0 && Instant::now() > deadline {
                        let search_ns = started.elapsed().as_nanos() as f64;
                        // Task `i` is counted in `visits` but not examined:
                        // the model's walk from `i` includes it once more.
                        let left = self.list.algo0_visits(self.last_pid, i as u64) - 1;
                        self.visits += visits;
                        let stop = Stop::Capped {
                            visits_done: visits,
                            visits_left: left,
                            search_ns,
                        };
                        let (pid, next) = self.list.expected(self.last_pid).ok_or(stop)?;
                        self.last_pid = pid;
                        self.next_safe = next;
                        self.list.add(pid);
                        return Err(stop);
                    }
                    let last = self.last_pid;
                    if p[0] == last || p[1] == last || p[2] == last || p[3] == last {
                        self.last_pid += 1;
                        if self.last_pid >= self.next_safe {
                            if self.last_pid >= pid_max {
                                self.last_pid = RESERVED_PIDS;
                            }
                            self.next_safe = pid_max;
                        }
                        increments += 1;
                        if increments > pid_max {
                            self.visits += visits;
                            return Ok(None);
                        }
                        continue 'repeat;
                    }
                    for &x in p {
                        if x > last && self.next_safe > x {
                            self.next_safe = x;
                        }
                    }
                }
                break;
            }
            self.visits += visits;
        }
        let pid = self.last_pid;
        self.list.add(pid);
        Ok(Some(pid))
    }

    fn release(&mut self, pid: u32) {
        self.list.remove(pid);
    }

    fn searches(&self) -> u64 {
        self.searches
    }

    #[cfg(test)]
    fn visits(&self) -> u64 {
        self.visits
    }

    fn pid_max(&self) -> u32 {
        self.list.pid_max
    }

    fn list_mut(&mut self) -> &mut TaskList {
        &mut self.list
    }

    fn set_last_pid(&mut self, last_pid: u32) {
        self.last_pid = last_pid;
        self.next_safe = 0;
    }
}

/// algo-1: a bitmap rebuilt from the task list at every search.
#[derive(Debug)]
pub(crate) struct Algo1 {
    pub(crate) list: TaskList,
    map: Vec<u64>,
    last_pid: u32,
    next_safe: u32,
    searches: u64,
    visits: u64,
}

impl Algo1 {
    pub(crate) fn new(pid_max: u32) -> Algo1 {
        Algo1 {
            list: TaskList::new(pid_max),
            map: vec![0; (pid_max as usize).div_ceil(64)],
            last_pid: 0,
            next_safe: pid_max,
            searches: 0,
            visits: 0,
        }
    }

    /// The first clear bit of `map` in `[from, pid_max)`.
    fn first_zero(&self, from: u32) -> Option<u32> {
        let pid_max = self.list.pid_max;
        if from >= pid_max {
            return None;
        }
        let mut i = (from / 64) as usize;
        let mut w = !self.map[i] & (!0u64 << (from % 64));
        loop {
            if w != 0 {
                let p = (i as u32) * 64 + w.trailing_zeros();
                return (p < pid_max).then_some(p);
            }
            i += 1;
            if i == self.map.len() {
                return None;
            }
            w = !self.map[i];
        }
    }

    /// The first set bit of `map` in `[from, pid_max)`, or `pid_max`.
    fn first_one(&self, from: u32) -> u32 {
        let pid_max = self.list.pid_max;
        if from >= pid_max {
            return pid_max;
        }
        let mut i = (from / 64) as usize;
        let mut w = self.map[i] & (!0u64 << (from % 64));
        loop {
            if w != 0 {
                return ((i as u32) * 64 + w.trailing_zeros()).min(pid_max);
            }
            i += 1;
            if i == self.map.len() {
                return pid_max;
            }
            w = self.map[i];
        }
    }
}

impl OldGetPid for Algo1 {
    fn get_pid(&mut self, deadline: Instant) -> Result<Option<u32>, Stop> {
        let pid_max = self.list.pid_max;
        if (self.last_pid + 1 >= pid_max || self.last_pid + 1 >= self.next_safe)
            && Instant::now() > deadline
        {
            return Err(Stop::Deadline);
        }
        self.last_pid += 1;
        let wrapped = self.last_pid >= pid_max;
        if wrapped {
            self.last_pid = RESERVED_PIDS;
        }
        if wrapped || self.last_pid >= self.next_safe {
            self.searches += 1;
            // Rebuild the map: memset, then mark every task's numbers.
            self.map.fill(0);
            for p in &self.list.tasks {
                for &x in p {
                    self.map[(x / 64) as usize] |= 1 << (x % 64);
                }
            }
            self.visits += self.list.tasks.len() as u64;
            let found = self
                .first_zero(self.last_pid)
                .or_else(|| self.first_zero(RESERVED_PIDS));
            let Some(pid) = found else {
                self.next_safe = RESERVED_PIDS;
                return Ok(None);
            };
            self.last_pid = pid;
            self.next_safe = self.first_one(pid + 1);
        }
        let pid = self.last_pid;
        self.list.add(pid);
        Ok(Some(pid))
    }

    fn release(&mut self, pid: u32) {
        self.list.remove(pid);
    }

    fn searches(&self) -> u64 {
        self.searches
    }

    #[cfg(test)]
    fn visits(&self) -> u64 {
        self.visits
    }

    fn pid_max(&self) -> u32 {
        self.list.pid_max
    }

    fn list_mut(&mut self) -> &mut TaskList {
        &mut self.list
    }

    fn set_last_pid(&mut self, last_pid: u32) {
        self.last_pid = last_pid;
        self.next_safe = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::Rng;
    use std::time::Duration;

    fn far() -> Instant {
        Instant::now() + Duration::from_secs(3600)
    }

    /// Fill, then random delete/realloc rounds: both algorithms return the
    /// pid any correct cyclic search returns, and algo-0 visits exactly
    /// what the visit model predicts.
    #[test]
    fn algorithms_agree_with_the_cyclic_rule_and_the_visit_model() {
        for (pid_max, th) in [(400u32, 10usize), (400, 350), (400, 399), (1000, 990)] {
            let mut a0 = Algo0::new(pid_max);
            let mut a1 = Algo1::new(pid_max);
            let mut live = Vec::new();
            for _ in 0..th {
                let p0 = a0.get_pid(far()).unwrap().unwrap();
                let p1 = a1.get_pid(far()).unwrap().unwrap();
                assert_eq!(p0, p1);
                live.push(p0);
            }
            let mut rng = Rng::new(42);
            for _ in 0..200 {
                let i = loop {
                    let i = rng.below(live.len());
                    if live[i] >= RESERVED_PIDS || th as u32 <= pid_max / 2 {
                        break i;
                    }
                };
                let v = live.swap_remove(i);
                a0.release(v);
                a1.release(v);
                let from = a0.last_pid + 1;
                let from = if from >= pid_max { RESERVED_PIDS } else { from };
                let searching = from >= a0.next_safe || a0.last_pid + 1 >= pid_max;
                let want = a0.list.expected(from).map(|e| e.0);
                let predicted = a0.list.algo0_visits(from, 0);
                let before = a0.visits();
                let p0 = a0.get_pid(far()).unwrap();
                let p1 = a1.get_pid(far()).unwrap();
                assert_eq!(p0, want, "pid_max {pid_max} th {th}");
                assert_eq!(p1, want);
                if searching {
                    assert_eq!(a0.visits() - before, predicted);
                }
                live.push(p0.unwrap());
            }
        }
    }

    #[test]
    fn a_search_due_after_the_deadline_does_nothing() {
        let mut a0 = Algo0::new(400);
        for _ in 0..399 {
            a0.get_pid(far()).unwrap();
        }
        a0.release(350);
        // A search due after the deadline does nothing.
        let past = Instant::now();
        std::thread::sleep(Duration::from_millis(1));
        assert_eq!(a0.get_pid(past), Err(Stop::Deadline));
        assert_eq!(a0.list.len(), 398);
        assert_eq!(a0.get_pid(far()), Ok(Some(350)));
        assert_eq!(a0.list.len(), 399);
    }

    #[test]
    fn a_capped_search_completes_the_allocation_and_counts_its_visits() {
        let pid_max = 40_000;
        let mut a0 = Algo0::new(pid_max);
        for _ in 1..pid_max {
            a0.get_pid(far()).unwrap();
        }
        a0.release(39_000);
        // The next search wraps to 300 and restarts once per used pid up to
        // 39,000: hundreds of millions of visits, stopped after ~5 ms.
        let want = a0.list.algo0_visits(RESERVED_PIDS, 0);
        let before = a0.visits();
        match a0.get_pid(Instant::now() + Duration::from_millis(5)) {
            Err(Stop::Capped {
                visits_done,
                visits_left,
                search_ns,
            }) => {
                assert_eq!(visits_done + visits_left, want);
                assert_eq!(a0.visits() - before, visits_done);
                assert!(search_ns > 0.0);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(a0.list.len(), (pid_max - 1) as usize);
        assert_eq!(a0.last_pid, 39_000);
        assert_eq!(a0.next_safe, 39_001);
    }

    #[test]
    fn full_table_has_no_pid() {
        let mut a1 = Algo1::new(400);
        let mut a0 = Algo0::new(400);
        for _ in 0..399 {
            a0.get_pid(far()).unwrap();
            a1.get_pid(far()).unwrap();
        }
        assert_eq!(a0.get_pid(far()), Ok(None));
        assert_eq!(a1.get_pid(far()), Ok(None));
    }
}
