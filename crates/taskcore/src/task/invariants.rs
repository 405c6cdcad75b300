//! A full consistency check of the process table, for tests.
//!
//! [`Kernel::check_invariants`] recomputes from scratch what the incremental
//! structures maintain (the wait index and each edge's registration byte,
//! the list links, the counters, the pid registrations and tags) and panics
//! on the first difference. O(n log n) in the number of tasks: call it from
//! tests after every operation, never from the library.
//!
//! # Linux
//! No Linux analogue (Linux's lists are the truth; there is no index to
//! keep in step).

use crate::list::{self, Link, ListHead, ListIx};
use crate::pid::entry::PidIx;
use crate::pid::TAG_TGID;
use crate::slab::Slab;
use crate::slab::SlabIx;
use crate::task::kernel::Kernel;
use crate::task::task_struct::{ExitState, PF_EXITING, SIGNAL_STOP_STOPPED};
use crate::wait::index::{Class, EdgeState, WaitIndex, UNREGISTERED};

/// Walks a list forwards and backwards, checking the links agree.
fn walk<T, I: ListIx, S: crate::slab::SlotStates<T>>(
    head: ListHead<I>,
    slab: &Slab<T, I, S>,
    link: fn(&T) -> &Link<I>,
    what: &str,
) -> Vec<I> {
    let fwd = list::collect(head, slab, link);
    let mut prev = I::NIL;
    for &x in &fwd {
        assert_eq!(link(&slab[x]).prev, prev, "{what}: prev link of {x:?}");
        prev = x.some();
    }
    assert_eq!(head.last, prev, "{what}: tail");
    fwd
}

/// # Debugging: the internal consistency check.
impl Kernel {
    /// Panics if any internal invariant is broken: the wait index differs
    /// from one rebuilt from scratch, a list link or counter is wrong, a
    /// `struct pid` is registered wrongly or kept without users.
    ///
    /// A self-check for tests and fuzzers (`taskcore-fuzz` calls it after
    /// every operation): O(n log n), walks the whole table.
    ///
    /// # Panics
    /// Only on a broken invariant, which is a bug in taskcore and never the
    /// caller's doing; a consistent kernel passes whatever was called on it.
    ///
    /// # Linux
    /// No Linux analogue.
    pub fn check_invariants(&self) {
        self.check_tasks_and_groups();
        self.check_pids();
        self.check_wait_index();
    }

    fn check_tasks_and_groups(&self) {
        for (t, task) in self.tasks.iter() {
            assert_eq!(
                self.pids[task.pid].task,
                Some(t),
                "task {t}: its pid names it"
            );
            let exiting = task.flags.contains(PF_EXITING);
            let waits_in_zap = self
                .nss
                .iter()
                .any(|(_, ns)| ns.zap_waiter.is_some_and(|(w, _)| w == t));
            assert_eq!(
                exiting,
                task.exit_state() == ExitState::Zombie || waits_in_zap,
                "task {t}: PF_EXITING iff zombie between operations"
            );
            if task.traced_stop() {
                assert!(task.ptrace != 0, "task {t}: ptrace stop while untraced");
            }
            if task.ptrace != 0 {
                let tracer = task
                    .parent
                    .unwrap_or_else(|| panic!("task {t}: traced without a tracer"));
                assert!(self.tasks.contains(tracer), "task {t}: tracer gone");
                let l = walk(
                    self.side.ptraced(tracer),
                    &self.tasks,
                    |x| &x.ptrace_entry,
                    "ptraced",
                );
                assert!(l.contains(&t), "task {t}: not on its tracer's list");
            } else {
                assert_eq!(task.parent, None, "task {t}: untraced with a tracer");
                assert_eq!(
                    task.ptrace_reg, UNREGISTERED,
                    "task {t}: ptrace edge registered"
                );
            }
            let kids = walk(task.children, &self.groups, |g| &g.sibling, "children");
            let mut last = 0;
            for g in kids {
                assert_eq!(self.groups[g].real_parent, Some(t), "child {g} of task {t}");
                assert!(
                    self.groups[g].sibling_seq > last,
                    "children of {t} out of order"
                );
                last = self.groups[g].sibling_seq;
            }
            let traced = walk(
                self.side.ptraced(t),
                &self.tasks,
                |x| &x.ptrace_entry,
                "ptraced",
            );
            let mut last = 0;
            for (i, u) in traced.into_iter().enumerate() {
                assert_eq!(self.tasks[u].parent, Some(t), "tracee {u} of task {t}");
                assert!(self.tasks[u].ptrace != 0, "tracee {u} untraced");
                assert!(
                    i == 0 || self.side.ptrace_seq(u) > last,
                    "ptraced of {t} out of order"
                );
                last = self.side.ptrace_seq(u);
            }
        }
        for (g, grp) in self.groups.iter() {
            let threads = walk(grp.threads, &self.tasks, |x| &x.thread_node, "threads");
            assert!(
                threads.contains(&grp.leader),
                "group {g}: leader off its list"
            );
            assert_eq!(
                grp.nr_threads as usize,
                threads.len(),
                "group {g}: nr_threads"
            );
            let live = threads
                .iter()
                .filter(|&&t| !self.tasks[t].flags.contains(PF_EXITING))
                .count();
            assert_eq!(grp.live as usize, live, "group {g}: live");
            let traced = threads
                .iter()
                .filter(|&&t| self.tasks[t].ptrace != 0)
                .count();
            assert_eq!(grp.nr_traced as usize, traced, "group {g}: nr_traced");
            let mut last = None;
            for &t in &threads {
                assert_eq!(self.tasks[t].group, g, "thread {t} of group {g}");
                let seq = self.tasks[t].thread_seq;
                assert!(
                    last.is_none_or(|l| seq > l),
                    "group {g}: threads out of order"
                );
                last = Some(seq);
            }
            if let Some(p) = grp.real_parent {
                assert!(self.tasks.contains(p), "group {g}: real parent gone");
                let kids = list::collect(self.tasks[p].children, &self.groups, |x| &x.sibling);
                assert!(
                    kids.contains(&g),
                    "group {g}: not among its parent's children"
                );
            } else {
                assert_eq!(
                    grp.child_reg, UNREGISTERED,
                    "group {g}: orphan edge registered"
                );
            }
            let members = walk(
                self.pids[grp.pgrp].pgrp_members,
                &self.groups,
                |x| &x.pgrp_node,
                "pgrp",
            );
            assert!(members.contains(&g), "group {g}: not in its process group");
            let leader_pid = self.tasks[grp.leader].pid;
            assert_eq!(self.pids[leader_pid].tgid_group, Some(g), "group {g}: tgid");
        }
    }

    fn check_pids(&self) {
        let mut ns_refs = vec![
            0u32;
            self.nss
                .iter()
                .map(|(n, _)| n.slot() + 1)
                .max()
                .unwrap_or(0)
        ];
        let mut pid_refs = std::collections::HashMap::new();
        for (_, f) in self.ext.pidfds.iter() {
            *pid_refs.entry(f.pid).or_insert(0u32) += 1;
        }
        let mut sessions = std::collections::HashMap::new();
        for (_, g) in self.groups.iter() {
            *sessions.entry(g.session).or_insert(0u32) += 1;
        }
        for &p in &self.freed_pids {
            assert!(self.pids.contains(p), "freed pid {p} not stored");
        }
        for (&p, &n) in &self.pgrp_stopped {
            assert!(
                n > 0 && self.pids.contains(p) && !self.pid_freed(p),
                "pgrp {p}: stopped count {n} kept"
            );
        }
        for (&p, v) in &self.pid_levels {
            let last = self.pids.get(p).map(|pid| pid.numbers.last());
            assert!(
                v.len() > 1 && last == v.last().copied(),
                "pid {p}: side-table numbers {v:?} not a nested pid's (deepest {last:?})"
            );
        }
        for (p, pid) in self.pids.iter() {
            let level = self.nss[pid.numbers.last().ns].level;
            assert_eq!(
                self.pid_numbers(p).len(),
                level + 1,
                "pid {p}: one number per level"
            );
            ns_refs[pid.numbers.last().ns.slot()] += 1;
            assert!(
                pid.refs >= pid_refs.get(&p).copied().unwrap_or(0),
                "pid {p}: fewer references than pidfds"
            );
            if self.pid_freed(p) {
                assert!(pid.unused(), "pid {p}: freed yet used");
                assert!(pid.refs > 0, "pid {p}: freed entry kept without references");
                for u in self.pid_numbers(p) {
                    assert_ne!(
                        self.nss.get(u.ns).and_then(|n| n.idr.get(u.nr)),
                        Some(p.idr_value())
                    );
                }
                continue;
            }
            assert!(!pid.unused(), "pid {p} kept without users");
            for u in self.pid_numbers(p) {
                assert_eq!(
                    self.nss[u.ns].idr.get(u.nr),
                    Some(p.idr_value()),
                    "pid {p}: number {}",
                    u.nr
                );
                let tagged = self.nss[u.ns].idr.get_tag(u.nr, TAG_TGID);
                assert_eq!(tagged, pid.tgid_group.is_some(), "pid {p}: TGID tag");
            }
            let members = walk(pid.pgrp_members, &self.groups, |x| &x.pgrp_node, "pgrp");
            let stopped = members
                .iter()
                .filter(|&&g| self.groups[g].flags.get().contains(SIGNAL_STOP_STOPPED))
                .count();
            assert_eq!(
                self.pgrp_nr_stopped(p) as usize,
                stopped,
                "pid {p}: stopped members"
            );
            for g in members {
                assert_eq!(self.groups[g].pgrp, p, "pgrp member {g}");
            }
            assert_eq!(
                pid.session_members,
                sessions.get(&p).copied().unwrap_or(0),
                "pid {p}: session members"
            );
        }
        for (_, ns) in self.nss.iter() {
            if let Some(parent) = ns.parent {
                ns_refs[parent.slot()] += 1;
            }
        }
        for (t, task) in self.tasks.iter() {
            let ns = task.nsproxy.pid_ns_for_children;
            if let Some(ns) = ns {
                assert!(
                    self.nss.contains(ns),
                    "task {t}: nsproxy names a freed namespace"
                );
                ns_refs[ns.slot()] += 1;
            }
        }
        for (_, &ns) in self.ext.ns_files.iter() {
            ns_refs[ns.slot()] += 1;
        }
        ns_refs[self.root_ns.slot()] += 1;
        // User namespaces: held by each task's credentials, each child
        // namespace, each pid namespace other than the root one, and once
        // for the initial namespace.
        let mut user_refs = std::collections::HashMap::new();
        let mut hold = |u: crate::ix::UserNsIx, who: &str| {
            assert!(
                self.userns.contains(u),
                "{who} names a freed user namespace"
            );
            *user_refs.entry(u).or_insert(0u32) += 1;
        };
        hold(self.init_userns(), "the kernel");
        for (t, task) in self.tasks.iter() {
            hold(task.cred.user_ns.0, &format!("task {t}"));
        }
        for (u, ns) in self.userns.iter() {
            if let Some(parent) = ns.parent {
                hold(parent, &format!("user namespace {u}"));
            }
        }
        for (n, ns) in self.nss.iter() {
            if n != self.root_ns {
                hold(ns.user_ns, &format!("pid namespace {n}"));
            }
        }
        for (u, ns) in self.userns.iter() {
            assert_eq!(
                ns.refs,
                user_refs.get(&u).copied().unwrap_or(0),
                "user namespace {u}: references"
            );
        }
        for (n, ns) in self.nss.iter() {
            assert_eq!(ns.refs, ns_refs[n.slot()], "ns {n}: reference count");
            for (nr, p) in ns.idr.iter() {
                let p = PidIx::from_idr(p);
                assert!(self.pids.contains(p), "idr names a live pid");
                assert!(
                    self.pid_numbers(p).iter().any(|u| u.ns == n && u.nr == nr),
                    "ns {n}: number {nr} names pid {p} that does not have it"
                );
            }
        }
    }

    fn check_wait_index(&self) {
        assert!(
            self.wait_dirty.is_empty(),
            "wait edges marked but not flushed at the end of an operation: {:?}",
            self.wait_dirty
        );
        let mut rebuilt = WaitIndex::default();
        for (g, grp) in self.groups.iter() {
            match self.child_edge_pos(g) {
                Some(pos) => {
                    let st = self.edge_state(grp.leader, false, self.child_class(g));
                    assert_eq!(
                        EdgeState::decode(grp.child_reg),
                        Some(st),
                        "group {g}: child edge registered in a stale state"
                    );
                    rebuilt.add(&pos, st, grp.leader);
                }
                None => assert_eq!(grp.child_reg, UNREGISTERED),
            }
        }
        for (t, task) in self.tasks.iter() {
            if let Some(pos) = self.ptrace_edge_pos(t) {
                let st = self.edge_state(t, true, Class::Ptrace);
                assert_eq!(
                    EdgeState::decode(task.ptrace_reg),
                    Some(st),
                    "task {t}: ptrace edge registered in a stale state"
                );
                rebuilt.add(&pos, st, t);
            }
        }
        assert!(
            rebuilt == self.wait_index,
            "wait index differs from one rebuilt from scratch"
        );
    }
}
