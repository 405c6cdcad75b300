//! Baseline for `wait`: Linux's `do_wait` as it was before 5.13 (before
//! seed 000's "make PIDTYPE_PID case O(1) instead of O(n)"), over a minimal
//! process table.
//!
//! # What is reproduced
//! kernel/exit.c of Linux 5.12: `do_wait` walks every thread of the
//! caller's group (`while_each_thread`), and for each one first its
//! `children` list (`do_wait_thread`) then its `ptraced` list
//! (`ptrace_do_wait`), calling `wait_consider_task` on every entry until
//! one reports: O(children + tracees) per call, even when waiting for one
//! pid. `wait_consider_task`, `eligible_child`, `eligible_pid`,
//! `wait_task_zombie`, `wait_task_stopped` (`task_stopped_code`) and
//! `wait_task_continued` keep their tests and their order. Pids are
//! allocated as 5.12's `alloc_pid` does, with `idr_alloc_cyclic`: here
//! taskcore's own [`Idr`] and [`next_cyclic`], so both sides pay the same
//! for pid allocation and the comparison isolates the wait.
//!
//! ```text
//!  OldTable.tasks: Vec<OldTask>        (task_struct, fields do_wait reads)
//!    waiter.children: first -> c1 <-> c2 <-> ... <-> cN <-> new   (fork order,
//!                                                 list_add_tail)
//!    waiter.ptraced:  first -> tN <-> ... <-> t1  (newest first, list_add)
//!  OldTable.pids: Idr  number -> task index     (find_get_pid, pid_task)
//! ```
//!
//! # What is left out
//! Locking, signals (SIGCHLD is only counted), job control state changes
//! (the stop/continue tests run but never fire: the workload has no
//! stopped children), rusage, namespaces. The task struct is ~100 bytes in
//! one `Vec`, where Linux's `task_struct` is several KiB in a slab: the scan
//! here is friendlier to caches than Linux's, so the baseline is, if
//! anything, faster than the real pre-5.13 kernel.

use taskcore::pid::{next_cyclic, Idr};

/// "No entry" in list links and indices.
const NIL: u32 = u32::MAX;
/// `SIGCHLD`.
const SIGCHLD: i32 = 17;
/// `WEXITED`.
pub(crate) const WEXITED: i32 = 0x4;
/// `WUNTRACED`.
const WUNTRACED: i32 = 0x2;
/// `WCONTINUED`.
const WCONTINUED: i32 = 0x8;
/// `__WNOTHREAD`.
const WNOTHREAD: i32 = 0x2000_0000;
/// `__WALL`.
const WALL: i32 = 0x4000_0000;
/// `__WCLONE`.
const WCLONE: i32 = 0x8000_0000_u32 as i32;
/// `SIGNAL_STOP_STOPPED`.
const SIGNAL_STOP_STOPPED: u32 = 0x1;
/// `SIGNAL_STOP_CONTINUED`.
const SIGNAL_STOP_CONTINUED: u32 = 0x2;
/// `SIGNAL_GROUP_EXIT`.
const SIGNAL_GROUP_EXIT: u32 = 0x4;
/// `PT_PTRACED`.
const PT_PTRACED: u8 = 0x1;
/// `PT_SEIZED`.
const PT_SEIZED: u8 = 0x2;

/// `exit_state` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ExitState {
    Alive,
    Zombie,
    /// `EXIT_TRACE`: reaped by a tracer, still to be reaped by the parent.
    Trace,
    /// `EXIT_DEAD`: being released.
    Dead,
}

/// A doubly linked list head (`struct list_head` used as a head).
#[derive(Clone, Copy, Debug)]
struct Head {
    first: u32,
    last: u32,
}

impl Head {
    const EMPTY: Head = Head {
        first: NIL,
        last: NIL,
    };
}

/// A list node (`struct list_head` embedded in a task).
#[derive(Clone, Copy, Debug)]
struct Link {
    prev: u32,
    next: u32,
}

impl Link {
    const UNLINKED: Link = Link {
        prev: NIL,
        next: NIL,
    };
}

/// The `task_struct` fields `do_wait` and the lifecycle touch. The
/// `signal_struct` fields live on the group leader.
#[derive(Clone, Debug)]
struct OldTask<const PAD: usize> {
    /// The pid number (the identity of `task->thread_pid`).
    pid: u32,
    group_leader: u32,
    real_parent: u32,
    /// `parent`: the tracer when traced, else `real_parent`.
    parent: u32,
    children: Head,
    sibling: Link,
    ptraced: Head,
    ptrace_entry: Link,
    /// Link in the leader's `thread_group` list.
    thread_node: Link,
    exit_state: ExitState,
    ptrace: u8,
    /// `TASK_TRACED` (a ptrace stop).
    traced: bool,
    exit_signal: i32,
    exit_code: i32,
    /// `signal->flags` (on the leader).
    sig_flags: u32,
    /// `signal->group_exit_code` (on the leader).
    group_exit_code: i32,
    /// `signal->nr_threads` / `thread_group` head (on the leader).
    nr_threads: u32,
    threads: Head,
    /// Slot in use.
    live: bool,
    /// Room for the rest of a real `task_struct` (the fields do_wait does
    /// not read), so that consecutive tasks are as far apart as in Linux's
    /// slab; 0 for the compact table.
    _pad: [u8; PAD],
}

/// What [`OldTable::wait`] returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OldWait {
    /// A child reported: `(pid, status)`.
    Reported(i32, i32),
    /// Nothing to report now: the caller would sleep (`-ERESTARTSYS`).
    WouldBlock,
    /// `ECHILD`.
    Echild,
}

/// `struct wait_opts`.
struct WaitOpts {
    /// `PIDTYPE_PID` with this pid number, or `None` for `PIDTYPE_MAX`.
    pid: Option<u32>,
    flags: i32,
    notask_error: bool,
}

/// Size of a `task_struct` on this kind of machine (x86_64, Linux 6.x:
/// `objsize` of the `task_struct` slab in /proc/slabinfo, 5,888 bytes).
pub(crate) const TASK_STRUCT_SIZE: usize = 5888;

/// Padding that makes an [`OldTask`] as large as a `task_struct`.
pub(crate) const SLAB_PAD: usize = TASK_STRUCT_SIZE - core::mem::size_of::<OldTask<0>>();

/// The minimal pre-5.13 process table.
///
/// `PAD` bytes of padding per task (0: compact, the default) model the
/// distance between `task_struct`s in Linux's slab.
#[derive(Debug)]
pub(crate) struct OldTable<const PAD: usize = 0> {
    tasks: Vec<OldTask<PAD>>,
    free: Vec<u32>,
    pids: Idr,
    cursor: u32,
    pid_max: u32,
    /// SIGCHLDs that would have been sent (kept so the notify path does
    /// some work, as Linux's does).
    pub(crate) sigchld_sent: u64,
}

/// Links `t` at the tail of `head` through the link `f` selects.
fn list_add_tail<const P: usize>(
    tasks: &mut [OldTask<P>],
    head: &mut Head,
    t: u32,
    f: fn(&mut OldTask<P>) -> &mut Link,
) {
    let last = head.last;
    *f(&mut tasks[t as usize]) = Link {
        prev: last,
        next: NIL,
    };
    if last == NIL {
        head.first = t;
    } else {
        f(&mut tasks[last as usize]).next = t;
    }
    head.last = t;
}

/// Links `t` at the head of `head` (`list_add`).
fn list_add<const P: usize>(
    tasks: &mut [OldTask<P>],
    head: &mut Head,
    t: u32,
    f: fn(&mut OldTask<P>) -> &mut Link,
) {
    let first = head.first;
    *f(&mut tasks[t as usize]) = Link {
        prev: NIL,
        next: first,
    };
    if first == NIL {
        head.last = t;
    } else {
        f(&mut tasks[first as usize]).prev = t;
    }
    head.first = t;
}

/// Unlinks `t` from `head` (`list_del_init`).
fn list_del<const P: usize>(
    tasks: &mut [OldTask<P>],
    head: &mut Head,
    t: u32,
    f: fn(&mut OldTask<P>) -> &mut Link,
) {
    let Link { prev, next } = *f(&mut tasks[t as usize]);
    if prev == NIL {
        head.first = next;
    } else {
        f(&mut tasks[prev as usize]).next = next;
    }
    if next == NIL {
        head.last = prev;
    } else {
        f(&mut tasks[next as usize]).prev = prev;
    }
    *f(&mut tasks[t as usize]) = Link::UNLINKED;
}

fn sibling<const P: usize>(t: &mut OldTask<P>) -> &mut Link {
    &mut t.sibling
}
fn ptrace_entry<const P: usize>(t: &mut OldTask<P>) -> &mut Link {
    &mut t.ptrace_entry
}
fn thread_node<const P: usize>(t: &mut OldTask<P>) -> &mut Link {
    &mut t.thread_node
}

impl<const PAD: usize> OldTable<PAD> {
    /// A table holding init (pid 1), whose index is returned by
    /// [`OldTable::init`].
    pub(crate) fn new(pid_max: u32) -> Self {
        let mut t = Self {
            tasks: Vec::new(),
            free: Vec::new(),
            pids: Idr::new(),
            cursor: 0,
            pid_max,
            sigchld_sent: 0,
        };
        let init = t.alloc_task(NIL).expect("empty table has pid 1");
        debug_assert_eq!(t.tasks[init as usize].pid, 1);
        t
    }

    /// The init task's index.
    pub(crate) fn init(&self) -> u32 {
        0
    }

    /// The pid number of task `t`.
    pub(crate) fn pid_of(&self, t: u32) -> i32 {
        self.tasks[t as usize].pid as i32
    }

    /// `alloc_pid` + the task part of `copy_process`: a new single-threaded
    /// process, child of `parent` (or of nobody for init).
    fn alloc_task(&mut self, parent: u32) -> Option<u32> {
        let nr = next_cyclic(&self.pids, self.cursor, self.pid_max)?;
        let idx = match self.free.pop() {
            Some(i) => i,
            None => {
                self.tasks.push(OldTask {
                    pid: 0,
                    group_leader: 0,
                    real_parent: NIL,
                    parent: NIL,
                    children: Head::EMPTY,
                    sibling: Link::UNLINKED,
                    ptraced: Head::EMPTY,
                    ptrace_entry: Link::UNLINKED,
                    thread_node: Link::UNLINKED,
                    exit_state: ExitState::Alive,
                    ptrace: 0,
                    traced: false,
                    exit_signal: 0,
                    exit_code: 0,
                    sig_flags: 0,
                    group_exit_code: 0,
                    nr_threads: 0,
                    threads: Head::EMPTY,
                    live: false,
                    _pad: [0; PAD],
                });
                (self.tasks.len() - 1) as u32
            }
        };
        self.pids.insert(nr, idx).ok()?;
        self.cursor = nr + 1;
        let task = &mut self.tasks[idx as usize];
        *task = OldTask {
            pid: nr,
            group_leader: idx,
            real_parent: parent,
            parent,
            children: Head::EMPTY,
            sibling: Link::UNLINKED,
            ptraced: Head::EMPTY,
            ptrace_entry: Link::UNLINKED,
            thread_node: Link::UNLINKED,
            exit_state: ExitState::Alive,
            ptrace: 0,
            traced: false,
            exit_signal: SIGCHLD,
            exit_code: 0,
            sig_flags: 0,
            group_exit_code: 0,
            nr_threads: 1,
            threads: Head::EMPTY,
            live: true,
            _pad: [0; PAD],
        };
        let mut th = Head::EMPTY;
        list_add_tail(&mut self.tasks, &mut th, idx, thread_node);
        self.tasks[idx as usize].threads = th;
        if parent != NIL {
            let mut ch = self.tasks[parent as usize].children;
            list_add_tail(&mut self.tasks, &mut ch, idx, sibling);
            self.tasks[parent as usize].children = ch;
        }
        Some(idx)
    }

    /// `fork()` by `parent`: the child joins the tail of its `children`
    /// list. `None` when no pid is free.
    pub(crate) fn fork(&mut self, parent: u32) -> Option<u32> {
        debug_assert!(self.tasks[parent as usize].live);
        self.alloc_task(parent)
    }

    /// `PTRACE_SEIZE` of `child` by `tracer` (`__ptrace_link`: the tracee
    /// joins the head of the tracer's `ptraced` list).
    pub(crate) fn ptrace_seize(&mut self, tracer: u32, child: u32) {
        let c = &mut self.tasks[child as usize];
        debug_assert_eq!(c.ptrace, 0);
        c.ptrace = PT_PTRACED | PT_SEIZED;
        c.parent = tracer;
        let mut head = self.tasks[tracer as usize].ptraced;
        list_add(&mut self.tasks, &mut head, child, ptrace_entry);
        self.tasks[tracer as usize].ptraced = head;
    }

    /// `__ptrace_unlink`.
    fn ptrace_unlink(&mut self, child: u32) {
        let tracer = self.tasks[child as usize].parent;
        let mut head = self.tasks[tracer as usize].ptraced;
        list_del(&mut self.tasks, &mut head, child, ptrace_entry);
        self.tasks[tracer as usize].ptraced = head;
        let c = &mut self.tasks[child as usize];
        c.ptrace = 0;
        c.traced = false;
        c.parent = c.real_parent;
    }

    /// `exit_group(code)` of single-threaded process `t`: `do_exit` ->
    /// `exit_notify`: children go to init, tracees are detached, the task
    /// becomes a zombie and its parent (tracer if traced) is notified.
    pub(crate) fn exit(&mut self, t: u32, code: i32) {
        let init = self.init();
        // forget_original_parent: tracees first, then children to init.
        while self.tasks[t as usize].ptraced.first != NIL {
            let p = self.tasks[t as usize].ptraced.first;
            self.ptrace_unlink(p);
        }
        while self.tasks[t as usize].children.first != NIL {
            let c = self.tasks[t as usize].children.first;
            let mut h = self.tasks[t as usize].children;
            list_del(&mut self.tasks, &mut h, c, sibling);
            self.tasks[t as usize].children = h;
            let mut ih = self.tasks[init as usize].children;
            list_add_tail(&mut self.tasks, &mut ih, c, sibling);
            self.tasks[init as usize].children = ih;
            let ct = &mut self.tasks[c as usize];
            ct.real_parent = init;
            if ct.ptrace == 0 {
                ct.parent = init;
            }
        }
        let task = &mut self.tasks[t as usize];
        task.exit_code = (code & 0xff) << 8;
        task.exit_state = ExitState::Zombie;
        // do_notify_parent(tsk, tsk->exit_signal).
        self.sigchld_sent += 1;
    }

    /// `same_thread_group(a, b)`.
    fn same_thread_group(&self, a: u32, b: u32) -> bool {
        self.tasks[a as usize].group_leader == self.tasks[b as usize].group_leader
    }

    /// `ptrace_reparented(p)`: traced by someone outside the real parent's
    /// group.
    fn ptrace_reparented(&self, p: u32) -> bool {
        let t = &self.tasks[p as usize];
        !self.same_thread_group(t.real_parent, t.parent)
    }

    /// `delay_group_leader(p)`.
    fn delay_group_leader(&self, p: u32) -> bool {
        let t = &self.tasks[p as usize];
        t.group_leader == p && t.nr_threads > 1
    }

    /// `eligible_pid()` + `eligible_child()`.
    fn eligible_child(&self, wo: &WaitOpts, ptrace: bool, p: u32) -> bool {
        let t = &self.tasks[p as usize];
        if let Some(pid) = wo.pid {
            // task_pid_type(p, PIDTYPE_PID) == wo->wo_pid
            if t.pid != pid {
                return false;
            }
        }
        if ptrace || wo.flags & WALL != 0 {
            return true;
        }
        if (t.exit_signal != SIGCHLD) ^ (wo.flags & WCLONE != 0) {
            return false;
        }
        true
    }

    /// `wait_consider_task()`: 0 to go on, else the report.
    fn wait_consider_task(&mut self, wo: &mut WaitOpts, ptrace: bool, p: u32) -> Option<OldWait> {
        let exit_state = self.tasks[p as usize].exit_state;
        if exit_state == ExitState::Dead {
            return None;
        }
        if !self.eligible_child(wo, ptrace, p) {
            return None;
        }
        if exit_state == ExitState::Trace {
            if !ptrace {
                wo.notask_error = false;
            }
            return None;
        }
        let mut ptrace = ptrace;
        if !ptrace && self.tasks[p as usize].ptrace != 0 {
            // Traced by its real parent's group: seen with ptrace semantics.
            if !self.ptrace_reparented(p) {
                ptrace = true;
            }
        }
        if exit_state == ExitState::Zombie {
            if !self.delay_group_leader(p) && (ptrace || self.tasks[p as usize].ptrace == 0) {
                return self.wait_task_zombie(wo, p);
            }
            if !ptrace || wo.flags & (WCONTINUED | WEXITED) != 0 {
                wo.notask_error = false;
            }
        } else {
            wo.notask_error = false;
        }
        if let Some(r) = self.wait_task_stopped(wo, ptrace, p) {
            return Some(r);
        }
        self.wait_task_continued(wo, p)
    }

    /// `wait_task_zombie()`: reap `p` and report its status.
    fn wait_task_zombie(&mut self, wo: &WaitOpts, p: u32) -> Option<OldWait> {
        if wo.flags & WEXITED == 0 {
            return None;
        }
        let traced_leader = self.ptrace_reparented(p) && self.tasks[p as usize].group_leader == p;
        let leader = self.tasks[p as usize].group_leader;
        let status = if self.tasks[leader as usize].sig_flags & SIGNAL_GROUP_EXIT != 0 {
            self.tasks[leader as usize].group_exit_code
        } else {
            self.tasks[p as usize].exit_code
        };
        let pid = self.tasks[p as usize].pid as i32;
        if traced_leader {
            // EXIT_TRACE: the tracer detaches; the real parent reaps later.
            self.tasks[p as usize].exit_state = ExitState::Trace;
            self.ptrace_unlink(p);
            self.tasks[p as usize].exit_state = ExitState::Zombie;
            self.sigchld_sent += 1;
        } else {
            self.tasks[p as usize].exit_state = ExitState::Dead;
            self.release_task(p);
        }
        Some(OldWait::Reported(pid, status))
    }

    /// `wait_task_stopped()` up to `task_stopped_code()`: nothing in this
    /// workload is stopped, so it never reports.
    fn wait_task_stopped(&mut self, wo: &WaitOpts, ptrace: bool, p: u32) -> Option<OldWait> {
        if !ptrace && wo.flags & WUNTRACED == 0 {
            return None;
        }
        let t = &self.tasks[p as usize];
        let stopped = if ptrace {
            t.traced
        } else {
            self.tasks[t.group_leader as usize].sig_flags & SIGNAL_STOP_STOPPED != 0
        };
        debug_assert!(!stopped, "the benchmark never stops a child");
        None
    }

    /// `wait_task_continued()`: likewise never reports here.
    fn wait_task_continued(&mut self, wo: &WaitOpts, p: u32) -> Option<OldWait> {
        if wo.flags & WCONTINUED == 0 {
            return None;
        }
        let leader = self.tasks[p as usize].group_leader;
        debug_assert_eq!(
            self.tasks[leader as usize].sig_flags & SIGNAL_STOP_CONTINUED,
            0
        );
        None
    }

    /// `release_task()`: unhash `p`, free its pid and slot.
    fn release_task(&mut self, p: u32) {
        if self.tasks[p as usize].ptrace != 0 {
            self.ptrace_unlink(p);
        }
        let parent = self.tasks[p as usize].real_parent;
        if parent != NIL {
            let mut h = self.tasks[parent as usize].children;
            list_del(&mut self.tasks, &mut h, p, sibling);
            self.tasks[parent as usize].children = h;
        }
        let nr = self.tasks[p as usize].pid;
        self.pids.remove(nr);
        self.tasks[p as usize].live = false;
        self.free.push(p);
    }

    /// `wait4(pid, options)` by `current` (`pid > 0` or `-1`): the pre-5.13
    /// `do_wait`, which scans every thread's `children` then `ptraced`
    /// list.
    pub(crate) fn wait(&mut self, current: u32, pid: i32, options: i32) -> OldWait {
        let mut wo = WaitOpts {
            pid: None,
            flags: options | WEXITED,
            notask_error: true,
        };
        if pid > 0 {
            // find_get_pid(); then the `!pid_has_task` early ECHILD.
            match self.pids.get(pid as u32) {
                Some(_) => wo.pid = Some(pid as u32),
                None => return OldWait::Echild,
            }
        }
        // tsk = current; do { ... } while_each_thread(current, tsk);
        let leader = self.tasks[current as usize].group_leader;
        let mut tsk = current;
        loop {
            // do_wait_thread(): the children list, in fork order.
            let mut p = self.tasks[tsk as usize].children.first;
            while p != NIL {
                let next = self.tasks[p as usize].sibling.next;
                if let Some(r) = self.wait_consider_task(&mut wo, false, p) {
                    return r;
                }
                p = next;
            }
            // ptrace_do_wait(): the ptraced list, newest first.
            let mut p = self.tasks[tsk as usize].ptraced.first;
            while p != NIL {
                let next = self.tasks[p as usize].ptrace_entry.next;
                if let Some(r) = self.wait_consider_task(&mut wo, true, p) {
                    return r;
                }
                p = next;
            }
            if wo.flags & WNOTHREAD != 0 {
                break;
            }
            tsk = match self.tasks[tsk as usize].thread_node.next {
                NIL => self.tasks[leader as usize].threads.first,
                n => n,
            };
            if tsk == current {
                break;
            }
        }
        if wo.notask_error {
            OldWait::Echild
        } else {
            OldWait::WouldBlock
        }
    }

    /// Number of live tasks.
    #[cfg(test)]
    pub(crate) fn nr_tasks(&self) -> usize {
        self.tasks.len() - self.free.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reaps_the_waited_pid_and_reports_status() {
        let mut t = OldTable::<0>::new(32768);
        let init = t.init();
        let w = t.fork(init).unwrap();
        let kids: Vec<u32> = (0..5).map(|_| t.fork(w).unwrap()).collect();
        assert_eq!(t.wait(w, -1, 0), OldWait::WouldBlock);
        t.exit(kids[3], 7);
        let pid = t.pid_of(kids[3]);
        assert_eq!(t.wait(w, pid, 0), OldWait::Reported(pid, 7 << 8));
        assert_eq!(t.wait(w, pid, 0), OldWait::Echild);
        t.exit(kids[1], 1);
        t.exit(kids[4], 4);
        // Any child: the first zombie in fork order.
        let p1 = t.pid_of(kids[1]);
        assert_eq!(t.wait(w, -1, 0), OldWait::Reported(p1, 1 << 8));
        assert_eq!(t.nr_tasks(), 2 + 3);
    }

    #[test]
    fn tracees_are_reaped_through_the_children_list() {
        let mut t = OldTable::<0>::new(32768);
        let w = t.fork(t.init()).unwrap();
        let kids: Vec<u32> = (0..4).map(|_| t.fork(w).unwrap()).collect();
        for &k in &kids {
            t.ptrace_seize(w, k);
        }
        t.exit(kids[2], 0);
        let pid = t.pid_of(kids[2]);
        assert_eq!(t.wait(w, pid, 0), OldWait::Reported(pid, 0));
        // Its ptrace link went with it.
        let mut n = 0;
        let mut p = t.tasks[w as usize].ptraced.first;
        while p != NIL {
            n += 1;
            p = t.tasks[p as usize].ptrace_entry.next;
        }
        assert_eq!(n, 3);
    }

    #[test]
    fn no_children_is_echild_and_exit_reparents_to_init() {
        let mut t = OldTable::<0>::new(32768);
        let init = t.init();
        let w = t.fork(init).unwrap();
        assert_eq!(t.wait(w, -1, 0), OldWait::Echild);
        let c = t.fork(w).unwrap();
        t.exit(w, 0);
        let wp = t.pid_of(w);
        assert_eq!(t.wait(init, -1, 0), OldWait::Reported(wp, 0));
        t.exit(c, 2);
        let cp = t.pid_of(c);
        assert_eq!(t.wait(init, cp, 0), OldWait::Reported(cp, 2 << 8));
    }
}
