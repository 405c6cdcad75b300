//! Exit: `exit`, `exit_group`, death by signal, zombies, reaping, and the
//! reparenting of orphans.
//!
//! # Lifecycle
//! A task that exits first hands its children to a new reaper (a live
//! thread of its group, else the nearest `PR_SET_CHILD_SUBREAPER` ancestor
//! in its pid namespace, else the namespace's init), and its tracees back
//! to their real parents. It then becomes a zombie and its parent (the
//! tracer, if traced) is notified, unless it is autoreaped: a non-leader
//! thread always is (unless traced), and a process is when its parent
//! ignores SIGCHLD or set `SA_NOCLDWAIT`. A group leader with live threads
//! stays an unreportable zombie until the last thread is released
//! (`delay_group_leader`); that release notifies the parent.
//!
//! # Linux
//! kernel/exit.c: `do_exit`, `do_group_exit`, `exit_notify`,
//! `forget_original_parent`, `find_new_reaper`, `reparent_leader`,
//! `release_task`, `kill_orphaned_pgrp`; kernel/pid_namespace.c
//! `zap_pid_ns_processes`; kernel/ptrace.c `exit_ptrace`.

use crate::errno::Result;
use crate::ix::GroupIx;
use crate::ix::TaskIx;
use crate::list;
use crate::pid::entry::PidIx;
use crate::pid::ns::NsIx;
use crate::slab::SlabIx;
use crate::task::kernel::{Deferral, Deferred, Kernel, Notification, SigInfo, TaskId};
use crate::task::signal::sigsend::{PidType, SendInfo};
use crate::task::state::jobctl_flags::JOBCTL_STOP_PENDING;
use crate::task::state::sighand::SigHand;
use crate::task::task_struct::{
    ExitState, PF_EXITING, SIGNAL_GROUP_EXIT, SIGNAL_UNKILLABLE, TS_VFORK_WAIT,
};
use crate::uapi::{
    valid_signal, __WALL, CLD_DUMPED, CLD_EXITED, CLD_KILLED, SIGCHLD, SIGCONT, SIGHUP, SIGKILL,
    WEXITED, WNOHANG,
};

/// # Lifecycle: exit, exit_group and death by signal (`kernel/exit.c`).
impl Kernel {
    /// `exit(code)`: the calling thread exits with status `(code & 0xff) <<
    /// 8`. Other threads of its group go on.
    ///
    /// # Errors
    /// `ESRCH` if `current` is stale or already exiting.
    ///
    /// # Linux
    /// `SYSCALL_DEFINE1(exit)` -> `do_exit()` (kernel/exit.c).
    pub fn exit(&mut self, current: TaskId, code: i32) -> Result<()> {
        self.probed(crate::probe::Op::Exit, current, |k| {
            k.do_sys_exit(current, code)
        })
    }

    #[inline(always)]
    fn do_sys_exit(&mut self, current: TaskId, code: i32) -> Result<()> {
        let t = self.current(current)?;
        if !self.ptrace_exit_event(t, (code & 0xff) << 8) {
            self.do_exit(t, (code & 0xff) << 8);
        }
        self.run_deferred();
        Ok(())
    }

    /// `exit_group(code)`: every thread of the caller's group exits; the
    /// group's status is `(code & 0xff) << 8` unless the group was already
    /// exiting. The caller exits first, then the other threads in thread
    /// order. A thread traced with `PTRACE_O_TRACEEXIT` (the caller or
    /// another) first stops in its `PTRACE_EVENT_EXIT` stop, the group's
    /// status as event message, and exits when its tracer resumes it.
    ///
    /// # Errors
    /// `ESRCH` if `current` is stale or already exiting.
    ///
    /// # Linux
    /// `do_group_exit()` (kernel/exit.c); `zap_other_threads()`, then each
    /// thread's `do_exit()` -> `ptrace_event(PTRACE_EVENT_EXIT)`.
    pub fn exit_group(&mut self, current: TaskId, code: i32) -> Result<()> {
        self.probed(crate::probe::Op::ExitGroup, current, |k| {
            k.do_sys_exit_group(current, code)
        })
    }

    #[inline(always)]
    fn do_sys_exit_group(&mut self, current: TaskId, code: i32) -> Result<()> {
        let t = self.current(current)?;
        self.do_group_exit(t, (code & 0xff) << 8);
        self.run_deferred();
        Ok(())
    }

    pub(crate) fn do_group_exit(&mut self, t: TaskIx, exit_code: i32) {
        let g = self.tasks[t].group;
        let code = if self.groups[g].flags.get().contains(SIGNAL_GROUP_EXIT) {
            self.groups[g].group_exit_code.get()
        } else if self.is_leader(t) && self.group_empty(g) {
            // thread_group_empty(): a single thread just calls do_exit();
            // the group's stop and continue state stay (a zombie traced by
            // another process still shows them to its real parent).
            exit_code
        } else {
            self.set_group_exit_code(g, exit_code);
            // Linux assigns the flags word: stop and continue state go.
            self.set_group_flags(g, SIGNAL_GROUP_EXIT);
            exit_code
        };
        // A lone thread has no others: no list to collect (and allocate).
        let others = if self.group_empty(g) {
            Vec::new()
        } else {
            self.threads(g)
        };
        if self.ptrace_event_enabled(t, crate::task::ptrace::event::PTRACE_EVENT_EXIT) {
            // The other threads go first; the caller stops before exiting.
            let others: Vec<TaskIx> = others.into_iter().filter(|&u| u != t).collect();
            self.exit_threads(&others, g, code);
            if !self.ptrace_exit_event(t, code) {
                self.do_exit(t, code);
            }
            return;
        }
        self.do_exit(t, code);
        if !others.is_empty() {
            self.exit_threads(&others, g, code);
        }
    }

    /// Kills group `g` with status `code` (a fatal signal, `complete_signal`
    /// followed by each thread's `do_group_exit`).
    pub(crate) fn kill_group(&mut self, g: GroupIx, code: i32) {
        if self.groups[g].flags.get().contains(SIGNAL_GROUP_EXIT) {
            return;
        }
        self.set_group_exit_code(g, code);
        self.set_group_flags(g, SIGNAL_GROUP_EXIT);
        self.zap_other_threads(g, code);
    }

    /// Makes every live thread of group `g` exit with `code`, in thread
    /// order.
    pub(crate) fn zap_other_threads(&mut self, g: GroupIx, code: i32) {
        let threads = self.threads(g);
        self.exit_threads(&threads, g, code);
    }

    /// Makes each of `threads` that is still a live thread of `g` exit;
    /// one traced with `PTRACE_O_TRACEEXIT` takes its `PTRACE_EVENT_EXIT`
    /// stop first and exits when resumed. Exits of earlier threads may
    /// release later ones, or the group.
    ///
    /// # Linux
    /// Each thread killed by `zap_other_threads()`' SIGKILL runs
    /// `get_signal()` -> `do_group_exit()` -> `do_exit()` ->
    /// `ptrace_event(PTRACE_EVENT_EXIT)`; Linux 6.18 stops every such
    /// thread, SIGKILL or not, with the group's exit code as message
    /// (tests/oracle/ptrace_edges.out, cases exit_*).
    pub(crate) fn exit_threads(&mut self, threads: &[TaskIx], g: GroupIx, code: i32) {
        use crate::task::state::jobctl_flags::JOBCTL_EXIT_PENDING;
        for &t in threads {
            if !self
                .tasks
                .get(t)
                .is_some_and(|x| !x.flags.contains(PF_EXITING) && x.group == g)
            {
                continue;
            }
            if self.tasks[t].jobctl & JOBCTL_EXIT_PENDING != 0 {
                // Already in its exit stop: the group's SIGKILL wakes it
                // and it goes on exiting with its own code, without a
                // second stop (tests/oracle/ptrace_edges.out,
                // exit_stop_zapped).
                self.tasks[t].jobctl &= !JOBCTL_EXIT_PENDING;
                let own = self.ptrace_message(t) as i32;
                self.do_exit(t, own);
            } else if !self.ptrace_exit_event(t, code) {
                self.do_exit(t, code);
            }
        }
    }

    /// `do_exit()`: task `t`, which must be alive, exits with status word
    /// `code`.
    pub(crate) fn do_exit(&mut self, t: TaskIx, code: i32) {
        debug_assert!(!self.tasks[t].flags.contains(PF_EXITING));
        if self.do_exit_plain(t, code) {
            return;
        }
        self.do_exit_slow(t, code);
    }

    /// [`Self::do_exit`] of a task not in the usual state (see
    /// [`Self::do_exit_plain`]): out of line, so that the usual exit's
    /// code is not laid out around it.
    #[inline(never)]
    fn do_exit_slow(&mut self, t: TaskIx, code: i32) {
        if self.tasks[t].flags.contains(TS_VFORK_WAIT) {
            self.retarget_vfork_waiter_signals(t);
        }
        let task = &mut self.tasks[t];
        let g = task.group;
        task.flags |= PF_EXITING;
        task.exit_code = code;
        self.exit_signals_group_stop(t);
        let task = &mut self.tasks[t];
        // Its ptrace stop (if any) ends.
        if task.traced_stop() || task.trap_code.get() != 0 {
            self.set_traced_stop(t, false, 0);
        }
        let group_dead = self.exit_live_count(t, g, code);
        self.mm_release(t);
        self.exit_mm(t);
        self.exit_task_namespaces(t);
        self.exit_notify(t, group_dead);
    }

    /// One live thread fewer in group `g` (true: it was the last, the
    /// group is dead), and the `Exited` notification of `t` with `code`:
    /// the step both exit paths share, between `PF_EXITING` and
    /// `exit_mm()`.
    #[inline(always)]
    fn exit_live_count(&mut self, t: TaskIx, g: GroupIx, code: i32) -> bool {
        let grp = &mut self.groups[g];
        grp.live -= 1;
        let group_dead = grp.live == 0;
        let task = self.handle_unchecked(t);
        self.notify(Notification::Exited {
            task,
            exit_code: code,
        });
        group_dead
    }

    /// [`Self::do_exit`] of a task in the usual state, with the task read
    /// and written once: not asleep in vfork nor vforked, no group stop
    /// pending for it, not in a ptrace stop, tracing nobody and without
    /// children, and not in its namespace's init process nor in a group
    /// exiting as a whole (so not the namespace's reaper; none of the steps
    /// that depend on those applies: `retarget_shared_pending()`, the
    /// group-stop participation, the end of a ptrace stop,
    /// `complete_vfork_done()`, the reparenting). The same steps in the
    /// same order otherwise: `PF_EXITING` and the exit code, one live
    /// thread fewer, the `Exited` notification, `exit_mm()`,
    /// `exit_task_namespaces()`, then `exit_notify()`'s tail. False, with
    /// nothing done, for a task in another state.
    #[inline(always)]
    fn do_exit_plain(&mut self, t: TaskIx, code: i32) -> bool {
        let task = &self.tasks[t];
        if task.flags.contains(TS_VFORK_WAIT)
            || self.side.has_vfork_parent(t)
            || task.jobctl & JOBCTL_STOP_PENDING != 0
            || task.traced_stop()
            || task.trap_code.get() != 0
            || self.side.has_tracees(t)
            || !task.children.is_empty()
        {
            return false;
        }
        let g = task.group;
        // Not a namespace's reaper: that is a thread of a group made
        // SIGNAL_UNKILLABLE at its creation (the namespace's pid 1), whose
        // flags lose the bit only when SIGNAL_GROUP_EXIT replaces them. One
        // test of the group's flags, not a lookup of the pid's namespace.
        if self.groups[g]
            .flags
            .get()
            .intersects(SIGNAL_UNKILLABLE | SIGNAL_GROUP_EXIT)
        {
            return false;
        }
        debug_assert_ne!(self.nss[self.ns_of(t)].child_reaper, Some(t));
        let task = &mut self.tasks[t];
        task.flags |= PF_EXITING;
        task.exit_code = code;
        let mm = core::mem::replace(&mut task.mm, crate::task::state::mm_entry::TaskMm::GONE);
        let pidns = core::mem::replace(
            &mut task.nsproxy,
            crate::task::state::nsproxy_struct::NsProxy::NONE,
        )
        .pid_ns_for_children;
        let group_dead = self.exit_live_count(t, g, code);
        self.mmput(mm);
        if let Some(pidns) = pidns {
            self.put_ns(pidns);
        }
        self.exit_notify_tail(t, group_dead, Vec::new());
        true
    }

    /// `exit_signals()`'s group-stop part for thread `t`, now
    /// `PF_EXITING`: a group stop pending for it (`JOBCTL_STOP_PENDING`,
    /// set while it had not exited: a thread held in a ptrace stop, or
    /// entering its exit, when another one started the stop) counts it
    /// as done; the last one to take part makes the group stopped and
    /// tells the real parent (`CLD_STOPPED`). Not for the group's only
    /// thread, nor when the whole group is exiting.
    fn exit_signals_group_stop(&mut self, t: TaskIx) {
        let g = self.tasks[t].group;
        if self.tasks[t].jobctl & JOBCTL_STOP_PENDING == 0
            || self.groups[g].flags.get().contains(SIGNAL_GROUP_EXIT)
            || self.threads(g).len() <= 1
        {
            return;
        }
        if self.task_participate_group_stop(t) {
            self.group_stop_done(g, true);
        }
    }

    /// `exit_signals()` -> `retarget_shared_pending()` for thread `t`,
    /// killed while asleep in vfork: the process-wide signals it could
    /// take and had not (it alone was told of those `complete_signal()`
    /// gave it) go to the other threads, each waking (once this operation
    /// is over) for those it does not block, in thread order after `t`
    /// (during an exec, only the exec'ing thread, where the chain of
    /// retargets through the dying threads ends). Not when the whole group
    /// is exiting.
    fn retarget_vfork_waiter_signals(&mut self, t: TaskIx) {
        if !self.side.vfork_claims.is_empty() {
            self.side.vfork_claims.remove(&t);
        }
        let g = self.tasks[t].group;
        if self.groups[g].flags.get().contains(SIGNAL_GROUP_EXIT) {
            return;
        }
        let mut retarget = self.groups[g].shared_pending.signal() & !self.tasks[t].blocked;
        // The threads an exec kills pass what they are given on as they
        // exit, until it reaches the exec'ing thread, the one left.
        let threads = match self.group_exec_task {
            Some(e) if self.tasks[e].group == g => vec![t, e],
            _ => self.threads(g),
        };
        let at = threads.iter().position(|&u| u == t).unwrap_or(0);
        for &u in threads[at + 1..].iter().chain(&threads[..at]) {
            if retarget == 0 {
                break;
            }
            let blocked = self.tasks[u].blocked;
            if self.tasks[u].flags.contains(PF_EXITING) || retarget & !blocked == 0 {
                continue;
            }
            retarget &= blocked;
            self.deferred.push_back(Deferred {
                task: u,
                gen: self.gens[u.slot()],
                what: Deferral::Dequeue,
            });
        }
    }

    /// Completes a vfork: the vfork parent may run again
    /// (`mm_release` -> `complete_vfork_done`).
    #[inline(always)]
    pub(crate) fn mm_release(&mut self, t: TaskIx) {
        // Most tasks were not vforked: one test here, the rest out of line.
        if self.side.has_vfork_parent(t) {
            self.mm_release_slow(t);
        }
    }

    /// [`Self::mm_release`] of a vfork child.
    #[inline(never)]
    fn mm_release_slow(&mut self, t: TaskIx) {
        let Some((vp, gen)) = self.side.vfork_parents.remove(&t) else {
            return;
        };
        // Not a task that took the slot of a released vfork parent.
        if self.tasks.contains(vp) && gen == self.gens[vp.slot()] {
            self.tasks[vp].flags &= !TS_VFORK_WAIT;
            // Awake, it takes what it was given (or exits).
            if !self.side.vfork_claims.is_empty() {
                self.side.vfork_claims.remove(&vp);
            }
            // A parent killed while it waited left wait_for_vfork_done()
            // and cleared the child's vfork_done: nothing to complete, no
            // PTRACE_EVENT_VFORK_DONE (even from its PTRACE_EVENT_EXIT
            // stop).
            let p = &self.tasks[vp];
            if p.flags.contains(PF_EXITING)
                || p.exit_state() != ExitState::Alive
                || p.jobctl & crate::task::state::jobctl_flags::JOBCTL_EXIT_PENDING != 0
            {
                return;
            }
            let parent = self.handle_unchecked(vp);
            self.notify(Notification::VforkDone { parent });
            self.ptrace_vfork_done(vp, t);
            // Back from wait_for_vfork_done() (and a PTRACE_EVENT_VFORK_DONE
            // stop, if it took one), it takes what was kept pending once
            // this operation is over.
            if !self.tasks[vp].traced_stop() {
                self.deferred.push_back(Deferred {
                    task: vp,
                    gen: self.gens[vp.slot()],
                    what: Deferral::Dequeue,
                });
            }
        }
    }

    fn exit_notify(&mut self, t: TaskIx, group_dead: bool) {
        let mut dead = Vec::new();
        if !self.forget_original_parent(t, &mut dead) {
            // The namespace's last init thread sleeps in
            // zap_pid_ns_processes() until the namespace is empty; its exit
            // goes on from here then (`put_pid`).
            let ns = self.ns_of(t);
            self.nss[ns].zap_waiter = Some((t, group_dead));
            return;
        }
        self.exit_notify_tail(t, group_dead, dead);
    }

    /// The rest of `exit_notify()`, once `t`'s children are settled.
    #[inline(always)]
    pub(crate) fn exit_notify_tail(&mut self, t: TaskIx, group_dead: bool, dead: Vec<TaskIx>) {
        let g = self.tasks[t].group;
        if group_dead {
            self.kill_orphaned_pgrp(g, None);
        }
        let traced = self.tasks[t].ptrace != 0;
        let grp = &self.groups[g];
        let (leader, lone, exit_signal) =
            (grp.leader == t, grp.nr_threads == 1, grp.exit_signal.get());
        if leader && lone && !traced {
            self.set_zombie_lone_leader(t, g);
        } else {
            self.set_exit_state(t, ExitState::Zombie, leader, traced);
        }
        let autoreap = if traced {
            let sig = if leader && lone && !self.ptrace_reparented(t) {
                exit_signal
            } else {
                SIGCHLD
            };
            self.do_notify_parent(t, sig)
        } else if leader {
            lone && self.do_notify_parent(t, exit_signal)
        } else {
            true
        };
        // `t` last, after the children reaped on the way, without pushing it
        // onto `dead` (an allocation per exiting thread).
        for p in dead {
            self.release_task(p);
        }
        if autoreap {
            self.release_task(t);
        }
    }

    /// [`Self::do_notify_parent`] of zombie leader `leader` of group `g`,
    /// whose last other thread was just released: out of line, the
    /// release of a thread rarely ends its group.
    #[inline(never)]
    fn notify_parent_of_leader(&mut self, leader: TaskIx, g: GroupIx) -> bool {
        self.do_notify_parent(leader, self.groups[g].exit_signal.get())
    }

    /// `do_notify_parent()`: tells `t`'s parent (its tracer, if traced)
    /// that `t` died, with signal `sig`. Returns whether `t` should be
    /// reaped at once (the parent ignores its children).
    #[inline(always)]
    pub(crate) fn do_notify_parent(&mut self, t: TaskIx, sig: i32) -> bool {
        let Some(parent) = self.ptrace_parent(t) else {
            // Pid 1 of the root namespace has no parent to tell.
            return true;
        };
        // What the notice reads of the child and of the parent, read once.
        let task = &self.tasks[t];
        let (g, code, tpid, kuid, traced) = (
            task.group,
            task.exit_code,
            task.pid,
            task.cred.uid,
            task.ptrace != 0,
        );
        let par = &self.tasks[parent];
        let (pg, p_exec_id, p_pid, p_userns) =
            (par.group, par.self_exec_id, par.pid, par.cred.user_ns.0);
        let mut sig = sig;
        // A parent that exec'd since the fork gets plain SIGCHLD.
        if sig != SIGCHLD && self.groups[g].parent_exec_id != p_exec_id {
            sig = SIGCHLD;
        }
        let (si_code, status) = if code & 0x80 != 0 {
            (CLD_DUMPED, code & 0x7f)
        } else if code & 0x7f != 0 {
            (CLD_KILLED, code & 0x7f)
        } else {
            (CLD_EXITED, code >> 8)
        };
        let p_ns = self.pids[p_pid].numbers.last().ns;
        let info = SigInfo {
            signo: sig,
            code: si_code,
            pid: self.pid_nr_ns(tpid, p_ns),
            uid: self.kuid_munged(p_userns, kuid),
            status,
            value: 0,
        };
        let pgroup = &self.groups[pg];
        let (psig, pleader) = (pgroup.sighand.get(), pgroup.leader);
        let mut autoreap = false;
        if !traced && sig == SIGCHLD && psig.ignoring_children() {
            autoreap = true;
            if psig.is_ignored(SIGCHLD) {
                sig = 0;
            }
        }
        let group = self.handle_unchecked(pleader);
        if valid_signal(sig) {
            self.send_kernel_signal_to(parent, group, sig, info);
        }
        self.wake_chldexit(pg, group);
        autoreap
    }

    /// Queues a kernel-generated signal to `target`'s thread group, reported
    /// as a notification and delivered when the current operation ends.
    ///
    /// A SIGCHLD that `target` ignores (its action is SIG_IGN or SIG_DFL,
    /// it is untraced and does not block it) is not queued when nothing is
    /// deferred yet: it would be the first deferred work of the operation,
    /// and until it ran nothing could make it taken (only `target`'s own
    /// calls, a handler run by earlier deferred work, or an attach change
    /// its mask, action or tracer; a group exit meanwhile discards it
    /// too), so the send would discard it. Its notification is raised
    /// either way, as before.
    pub(crate) fn send_kernel_signal(&mut self, target: TaskIx, sig: i32, info: SigInfo) {
        let group = self.handle_unchecked(self.leader_of(target));
        self.send_kernel_signal_to(target, group, sig, info);
    }

    /// [`Self::send_kernel_signal`], `group` being the handle of
    /// `target`'s group leader.
    #[inline(always)]
    fn send_kernel_signal_to(&mut self, target: TaskIx, group: TaskId, sig: i32, info: SigInfo) {
        self.notify(Notification::Signal { group, sig, info });
        if sig == SIGCHLD && self.deferred.is_empty() && self.would_discard(target, sig) {
            return;
        }
        self.deferred.push_back(Deferred {
            task: target,
            gen: self.gens[target.slot()],
            what: Deferral::Signal(sig, Some(info), false),
        });
    }

    /// Delivers queued kernel-generated signals until none are left.
    ///
    /// Not forced: `do_notify_parent()` and `do_notify_parent_cldstop()`
    /// send with `force = false`, so an exit signal of SIGKILL or SIGSTOP
    /// does not reach a namespace init that has not asked for it (the
    /// orphaned-pgrp SIGHUP/SIGCONT are forced, `SEND_SIG_PRIV`, but force
    /// only matters for SIGKILL and SIGSTOP).
    ///
    /// The end of an operation: the wait edges marked on the way are
    /// flushed last ([`Self::flush_wait_edges`]).
    #[inline(always)]
    pub(crate) fn run_deferred(&mut self) {
        // Most operations defer nothing: one length test, then the flush's.
        if !self.deferred.is_empty() {
            self.run_deferred_slow();
        }
        self.flush_wait_edges();
    }

    /// [`Self::run_deferred`]'s loop, once something was deferred.
    #[inline(never)]
    fn run_deferred_slow(&mut self) {
        while let Some(d) = self.deferred.pop_front() {
            if self.tasks.contains(d.task) && self.gens[d.task.slot()] == d.gen {
                match d.what {
                    Deferral::Signal(sig, info, force) => {
                        let info = info.map_or(SendInfo::Priv, SendInfo::Info);
                        // Kernel-generated: never short of a queue entry.
                        let _ = self.send_signal_locked(d.task, sig, info, PidType::Tgid, force);
                    }
                    Deferral::ResumeExit { group_dead } => {
                        self.exit_notify_tail(d.task, group_dead, Vec::new())
                    }
                    Deferral::Dequeue => {
                        use crate::task::state::jobctl_flags::JOBCTL_EXIT_PENDING;
                        let t = d.task;
                        if self.tasks[t].jobctl & JOBCTL_EXIT_PENDING != 0 {
                            // Out of its PTRACE_EVENT_EXIT stop, the
                            // untraced thread goes on in do_exit()
                            // (tests/oracle/ptrace_edges.out,
                            // exit_tracer_gone).
                            self.tasks[t].jobctl &= !JOBCTL_EXIT_PENDING;
                            if !self.tasks[t].flags.contains(PF_EXITING) {
                                let code = self.ptrace_message(t) as i32;
                                self.do_exit(t, code);
                            }
                        } else {
                            self.signal_wake_up(t);
                        }
                    }
                }
            }
        }
    }

    /// `find_alive_thread()`: the first thread of `t`'s group not exiting.
    pub(crate) fn find_alive_thread(&self, t: TaskIx) -> Option<TaskIx> {
        let mut next = self.groups[self.tasks[t].group].threads.first;
        while let Some(cur) = next {
            if !self.tasks[cur].flags.contains(PF_EXITING) {
                return Some(cur);
            }
            next = self.tasks[cur].thread_node.next;
        }
        None
    }

    /// `None` when `father`, the namespace's last init thread, must wait
    /// in `zap_pid_ns_processes()` for the namespace to empty.
    fn find_child_reaper(&mut self, father: TaskIx, dead: &mut Vec<TaskIx>) -> Option<TaskIx> {
        let ns = self.ns_of(father);
        let reaper = self.nss[ns]
            .child_reaper
            .expect("a namespace with tasks has its init");
        if reaper != father {
            return Some(reaper);
        }
        if let Some(alive) = self.find_alive_thread(father) {
            self.nss[ns].child_reaper = Some(alive);
            return Some(alive);
        }
        for p in dead.drain(..) {
            self.release_task(p);
        }
        self.zap_pid_ns_processes(ns, father).then_some(father)
    }

    /// `find_new_reaper()`: who adopts `father`'s children.
    fn find_new_reaper(&self, father: TaskIx, child_reaper: TaskIx) -> TaskIx {
        if let Some(alive) = self.find_alive_thread(father) {
            return alive;
        }
        let level = self.pid_level(self.tasks[father].pid);
        let mut next = self.real_parent(father);
        while let Some(reaper) = next {
            if self.pid_level(self.tasks[reaper].pid) != level {
                break;
            }
            if self.groups[self.tasks[reaper].group].is_child_subreaper {
                if let Some(alive) = self.find_alive_thread(reaper) {
                    return alive;
                }
            }
            next = self.real_parent(reaper);
        }
        child_reaper
    }

    /// Returns false when `father` has to wait for its namespace to empty.
    fn forget_original_parent(&mut self, father: TaskIx, dead: &mut Vec<TaskIx>) -> bool {
        if self.side.has_tracees(father) {
            self.exit_ptrace(father, dead);
        }
        let Some(child_reaper) = self.find_child_reaper(father, dead) else {
            return false;
        };
        if self.tasks[father].children.is_empty() {
            return true;
        }
        let reaper = self.find_new_reaper(father, child_reaper);
        let children = list::collect(self.tasks[father].children, &self.groups, |g| &g.sibling);
        let threaded = self.same_group(Some(reaper), Some(father));
        for g in children {
            self.unindex_group(g);
            self.unlink_child(g);
            if !threaded {
                // We don't want people slaying init.
                self.set_exit_signal(g, SIGCHLD);
            }
            self.link_child(reaper, g);
            self.mark_group(g);
            self.send_pdeath_signals(father, g);
            if !threaded {
                self.reparent_leader(father, g, dead);
            }
        }
        true
    }

    /// The parent-death signals of the threads of `g`, whose parent thread
    /// `father` is exiting (`PR_SET_PDEATHSIG`): sent to the thread's
    /// process, preferring the thread, as `kill` from `father` would
    /// (`SEND_SIG_NOINFO`, so only with `kill`'s permission), once this
    /// exit step is over.
    fn send_pdeath_signals(&mut self, father: TaskIx, g: GroupIx) {
        let mut next = self.groups[g].threads.first;
        while let Some(t) = next {
            let sig = i32::from(self.tasks[t].pdeath_signal);
            // group_send_sig_info() checks kill()'s permission: a father
            // that changed its ids may no longer signal its child.
            if sig != 0 && self.may_kill_by(father, t, sig) {
                let nr = self.pid_nr_ns(self.tasks[self.leader_of(father)].pid, self.ns_of(t));
                let info = SigInfo {
                    signo: sig,
                    code: crate::uapi::SI_USER,
                    pid: nr,
                    uid: self.uid_seen_by(t, self.tasks[father].cred.uid),
                    status: 0,
                    value: 0,
                };
                self.deferred.push_back(Deferred {
                    task: t,
                    gen: self.gens[t.slot()],
                    // Forced when the father has no number in t's
                    // namespace (it lives in an ancestor one).
                    what: Deferral::Signal(sig, Some(info), nr == 0),
                });
            }
            next = self.tasks[t].thread_node.next;
        }
    }

    /// `reparent_leader()`: re-notify the new parent of a zombie child and
    /// check for a newly orphaned process group.
    fn reparent_leader(&mut self, father: TaskIx, g: GroupIx, dead: &mut Vec<TaskIx>) {
        let leader = self.groups[g].leader;
        if self.tasks[leader].ptrace == 0
            && self.tasks[leader].exit_state() == ExitState::Zombie
            && self.group_empty(g)
            && !dead.contains(&leader)
            && self.do_notify_parent(leader, self.groups[g].exit_signal.get())
        {
            dead.push(leader);
        }
        self.kill_orphaned_pgrp(g, Some(father));
    }

    /// `exit_ptrace()`: the exiting tracer detaches from all its tracees.
    fn exit_ptrace(&mut self, tracer: TaskIx, dead: &mut Vec<TaskIx>) {
        let tracees = list::collect(self.side.ptraced(tracer), &self.tasks, |t| &t.ptrace_entry);
        for p in tracees {
            if self.ptrace_options(p) & crate::task::ptrace::event::PTRACE_O_EXITKILL != 0
                && self.tasks[p].exit_state() == ExitState::Alive
            {
                // PTRACE_O_EXITKILL: SIGKILL (SEND_SIG_PRIV, so forced) before
                // the detach.
                self.deferred.push_back(Deferred {
                    task: p,
                    gen: self.gens[p.slot()],
                    what: Deferral::Signal(crate::uapi::SIGKILL, None, true),
                });
            }
            if self.ptrace_detach_dead(tracer, p) {
                dead.push(p);
            } else {
                // The tracee runs again once this operation is over, and
                // takes what was kept pending for it.
                self.deferred.push_back(Deferred {
                    task: p,
                    gen: self.gens[p.slot()],
                    what: Deferral::Dequeue,
                });
            }
        }
    }

    /// `__ptrace_detach()`: unlink `p` from `tracer`; returns whether the
    /// now untraced zombie should be released.
    pub(crate) fn ptrace_detach_dead(&mut self, tracer: TaskIx, p: TaskIx) -> bool {
        self.ptrace_unlink(p);
        if self.tasks[p].exit_state() != ExitState::Zombie {
            return false;
        }
        let mut dead = !self.is_leader(p);
        let g = self.tasks[p].group;
        if !dead && self.group_empty(g) {
            if !self.same_group(self.groups[g].real_parent, Some(tracer)) {
                dead = self.do_notify_parent(p, self.groups[g].exit_signal.get());
            } else if self.groups[self.tasks[tracer].group]
                .sighand
                .get()
                .ignoring_children()
            {
                self.wake_parent(tracer);
                dead = true;
            }
        }
        dead
    }

    /// `release_task()`: frees a reaped task, and its leader too if the
    /// leader was a zombie waiting for this last thread and is autoreaped.
    pub(crate) fn release_task(&mut self, p: TaskIx) {
        let mut p = p;
        loop {
            if self.tasks[p].ptrace != 0 {
                self.ptrace_unlink(p);
            }
            // What the release reads of the task and its group, read once.
            let task = &self.tasks[p];
            let (g, pid, thread_next, user_ns) = (
                task.group,
                task.pid,
                task.thread_node.next,
                task.cred.user_ns.0,
            );
            let grp = &self.groups[g];
            let (leader, curr_target, threads_first) =
                (grp.leader, grp.curr_target, grp.threads.first);
            let group_dead = leader == p;
            if group_dead {
                // A leader is released last (delay_group_leader()): its
                // group goes with it, thread list and all.
                debug_assert_eq!(grp.nr_threads, 1, "a leader is released last");
                self.unlink_released_group(g, pid);
            } else {
                // __exit_signal(): the thread after it becomes the start of
                // the search for a taker.
                if curr_target == p {
                    if let Some(next) = thread_next.or(threads_first) {
                        self.groups[g].curr_target = next;
                    }
                }
                // __unhash_process: off the thread list, PID detached.
                let mut head = self.groups[g].threads;
                list::unlink(&mut head, &mut self.tasks, p, |t| &mut t.thread_node);
                let grp = &mut self.groups[g];
                grp.threads = head;
                grp.nr_threads -= 1;
            }
            self.pids[pid].task = None;
            // A leader's numbers that outlive it (its process group's or
            // session's) lose the TGID tag; freed ones lost it with them.
            if !self.put_pid(pid) && group_dead {
                self.set_tgid_tag(pid, false);
            }
            // __exit_signal(): its pending signals go with it.
            self.flush_task_pending(p, u64::MAX);
            debug_assert!(!self.side.has_tracees(p));
            self.side.forget(p);
            debug_assert!(self.tasks[p].children.is_empty());
            self.put_user_ns(user_ns);
            self.free_task_slot(p);
            if group_dead {
                // Its last thread's own pending set went above.
                self.flush_shared_pending(g, u64::MAX);
                self.groups.delete(g);
                return;
            }
            // One thread fewer: a zombie leader may become reapable
            // (delay_group_leader(), which edge_state reads only for a
            // zombie leader: a live one's edges do not change).
            if self.tasks[leader].exit_state() == ExitState::Zombie {
                self.mark_task(leader);
            }
            // The leader was waiting for its last thread: notify now.
            if self.group_empty(g)
                && self.tasks[leader].exit_state() == ExitState::Zombie
                && self.notify_parent_of_leader(leader, g)
            {
                p = leader;
                continue;
            }
            return;
        }
    }

    /// Reaps `p` for a waiter (the `EXIT_DEAD`/`EXIT_TRACE` part of
    /// `wait_task_zombie()`).
    #[inline(always)]
    pub(crate) fn reap_zombie(&mut self, p: TaskIx) {
        if self.ptrace_reparented(p) && self.is_leader(p) && !self.untrace_zombie_leader(p) {
            return;
        }
        self.release_task(p);
    }

    /// EXIT_TRACE: the tracer reaped zombie leader `p`; now its real
    /// parent's turn (true: that parent ignores it, release it now). Out
    /// of line: the usual reaper is the real parent.
    #[inline(never)]
    fn untrace_zombie_leader(&mut self, p: TaskIx) -> bool {
        self.ptrace_unlink(p);
        let sig = self.groups[self.tasks[p].group].exit_signal.get();
        self.do_notify_parent(p, sig)
    }

    /// `kill_orphaned_pgrp()`: if group `g`'s process group becomes orphaned
    /// with stopped members, send it SIGHUP then SIGCONT. `parent` is the
    /// exiting parent when `g` is being reparented, or `None` when `g`
    /// itself exits.
    #[inline(always)]
    pub(crate) fn kill_orphaned_pgrp(&mut self, g: GroupIx, parent: Option<TaskIx>) {
        // No stopped member (the usual case): nothing to send, whoever
        // the parent is; tested here, the rest out of line.
        if self.pgrp_nr_stopped(self.groups[g].pgrp) != 0 {
            self.kill_orphaned_pgrp_slow(g, parent);
        }
    }

    /// [`Self::kill_orphaned_pgrp`] once the process group has a stopped
    /// member.
    #[inline(never)]
    fn kill_orphaned_pgrp_slow(&mut self, g: GroupIx, parent: Option<TaskIx>) {
        let pgrp = self.groups[g].pgrp;
        // No stopped member (the usual case): nothing to send, whoever
        // the parent is. The other tests are free of side effects, so
        // this one, O(1), goes first.
        if self.pgrp_nr_stopped(pgrp) == 0 {
            return;
        }
        let (parent, ignored) = match parent {
            None => (self.groups[g].real_parent, Some(g)),
            Some(p) => (Some(p), None),
        };
        let Some(parent) = parent else {
            return;
        };
        let pg = &self.groups[self.tasks[parent].group];
        if pg.pgrp != pgrp
            && pg.session == self.groups[g].session
            && self.pgrp_nr_stopped(pgrp) > 0
            && self.will_become_orphaned_pgrp(pgrp, ignored)
        {
            let members =
                list::collect(self.pids[pgrp].pgrp_members, &self.groups, |g| &g.pgrp_node);
            for sig in [SIGHUP, SIGCONT] {
                for &m in &members {
                    let leader = self.groups[m].leader;
                    self.deferred.push_back(Deferred {
                        task: leader,
                        gen: self.gens[leader.slot()],
                        what: Deferral::Signal(sig, None, true),
                    });
                }
            }
        }
    }

    /// `will_become_orphaned_pgrp()`: no member other than `ignored` has a
    /// parent in another process group of the same session.
    pub(crate) fn will_become_orphaned_pgrp(&self, pgrp: PidIx, ignored: Option<GroupIx>) -> bool {
        let mut next = self.pids[pgrp].pgrp_members.first;
        while let Some(cur) = next {
            let grp = &self.groups[cur];
            let after = grp.pgrp_node.next;
            let leader = grp.leader;
            let rp = grp.real_parent;
            let dead = self.tasks[leader].exit_state() != ExitState::Alive && self.group_empty(cur);
            if let Some(rp) = rp {
                if Some(cur) != ignored && !dead && !self.is_global_init(rp) {
                    let pg = &self.groups[self.tasks[rp].group];
                    if pg.pgrp != pgrp && pg.session == grp.session {
                        return false;
                    }
                }
            }
            next = after;
        }
        true
    }

    /// `is_global_init()`: `t` belongs to the thread group whose tgid is 1
    /// in the root namespace, and that namespace is the machine's
    /// ([`crate::Config::init_is_global`]). By number, not by slot: the
    /// thread that takes pid 1 over by exec is init too.
    pub(crate) fn is_global_init(&self, t: TaskIx) -> bool {
        self.config.init_is_global
            && self.pid_nr_ns(self.tasks[self.leader_of(t)].pid, self.root_ns) == 1
    }

    /// `zap_pid_ns_processes()`: init of `ns` is exiting: forbid new pids,
    /// SIGKILL every other process of the namespace and reap them. Returns
    /// whether the namespace is now empty but for init; if not (tasks traced
    /// from outside stay until their tracer reaps them), Linux sleeps until
    /// it is, and `init`'s exit is put off until then.
    fn zap_pid_ns_processes(&mut self, ns: NsIx, init: TaskIx) -> bool {
        self.nss[ns].adding = false;
        let init_group = self.tasks[init].group;
        // Ignore SIGCHLD so that children exiting from now on are reaped at
        // once: those traced from outside become the dying init's zombies
        // only after their tracer is done with them.
        let sh = self.groups[init_group].sighand.make_mut();
        sh.ignored |= SigHand::bit(SIGCHLD);
        sh.handled &= !SigHand::bit(SIGCHLD);
        sh.resethand &= !SigHand::bit(SIGCHLD);
        let mut nr = 2;
        while let Some((found, pid)) = self.nss[ns].idr.next_used(nr) {
            nr = found + 1;
            let t = self.pids[PidIx::from_idr(pid)].task;
            // A group whose threads have all exited takes no signal
            // (complete_signal() finds no thread): its zombie keeps its
            // own exit status.
            let Some(t) = t else { continue };
            if self.tasks[t].group != init_group && self.groups[self.tasks[t].group].live > 0 {
                let g = self.tasks[t].group;
                self.kill_group(g, SIGKILL);
            }
        }
        // Reap everything that is now init's (kernel_wait4(-1, __WALL)).
        while let Ok(crate::wait::WaitOutcome::Reported(_)) = self.do_wait(
            init,
            crate::task::lifecycle::wait::WaitFilter::All,
            WEXITED | WNOHANG | __WALL,
        ) {}
        let init_pids = if self.is_leader(init) { 1 } else { 2 };
        self.nss[ns].idr.len() <= init_pids
    }
}
