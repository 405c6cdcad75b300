//! `exit`, `exit_group`, group death, zombies, reparenting and release.
//!
//! # Linux
//! kernel/exit.c: `do_exit`, `do_group_exit`, `exit_notify`,
//! `forget_original_parent`, `find_child_reaper`, `find_new_reaper`,
//! `reparent_leader`, `release_task`, `kill_orphaned_pgrp`,
//! `will_become_orphaned_pgrp`, `has_stopped_jobs`; kernel/signal.c
//! `do_notify_parent`; kernel/ptrace.c `exit_ptrace`, `__ptrace_detach`;
//! kernel/pid_namespace.c `zap_pid_ns_processes`; the parent-death
//! signal (`PR_SET_PDEATHSIG`) of `forget_original_parent`.

use taskcore::uapi::{
    valid_signal, __WALL, SA_NOCLDWAIT, SIGCHLD, SIGCONT, SIGHUP, SIGKILL, WEXITED, WNOHANG,
};

use crate::wait::WaitType;
use crate::{
    Deferred, ExitState, Model, Result, SigHandler, Tid, SIGNAL_GROUP_EXIT, SIGNAL_STOP_STOPPED,
};

impl Model {
    /// `exit(code)`: the calling thread exits with status `(code & 0xff) << 8`.
    ///
    /// # Errors
    /// `ESRCH` if `current` is stale or exiting.
    ///
    /// # Linux
    /// `SYSCALL_DEFINE1(exit)` -> `do_exit()`.
    pub fn exit(&mut self, current: Tid, code: i32) -> Result<()> {
        let t = self.current(current)?;
        if !self.exit_event(t, (code & 0xff) << 8) {
            self.do_exit(t, (code & 0xff) << 8);
        }
        self.run_deferred();
        Ok(())
    }

    /// `exit_group(code)`: every thread of the caller's group exits, the
    /// caller first, with the group's exit code if it was already exiting,
    /// else `(code & 0xff) << 8`.
    ///
    /// # Errors
    /// `ESRCH` if `current` is stale or exiting.
    ///
    /// # Linux
    /// `do_group_exit()`: a single-threaded process just calls `do_exit`,
    /// without `SIGNAL_GROUP_EXIT`.
    pub fn exit_group(&mut self, current: Tid, code: i32) -> Result<()> {
        let t = self.current(current)?;
        self.do_group_exit(t, (code & 0xff) << 8);
        self.run_deferred();
        Ok(())
    }

    pub(crate) fn do_group_exit(&mut self, t: usize, exit_code: i32) {
        let mut code = exit_code;
        let s = self.sig(t);
        if s.flags & SIGNAL_GROUP_EXIT != 0 {
            code = s.group_exit_code;
        } else if !self.thread_group_empty(t) {
            let s = self.sig_mut(t);
            s.group_exit_code = code;
            s.flags = SIGNAL_GROUP_EXIT;
        }
        let others = self.sig(t).threads.clone();
        let signal = self.task(t).signal;
        if self.ptrace_event_enabled(t, crate::ptrace_event::PTRACE_EVENT_EXIT) {
            // The caller stops in its exit event: the others go first (a
            // modelling choice shared with taskcore; in Linux they die
            // concurrently).
            let others: Vec<usize> = others.into_iter().filter(|&u| u != t).collect();
            self.exit_threads(&others, signal, code);
            if self.exists(t) && !self.task(t).exiting && !self.exit_event(t, code) {
                self.do_exit(t, code);
            }
            return;
        }
        self.do_exit(t, code);
        self.exit_threads(&others, signal, code);
    }

    /// Each of `threads` still alive in thread group `signal` exits with
    /// `code`, in order (an exit may release later threads): one traced
    /// with `PTRACE_O_TRACEEXIT` stops in its exit event first (the group's
    /// code as message; tests/oracle/ptrace_edges.out, exit_*), one
    /// already stopped there is woken by the SIGKILL and goes on exiting
    /// with its own code.
    fn exit_threads(&mut self, threads: &[usize], signal: usize, code: i32) {
        for &u in threads {
            if self.exists(u) && self.task(u).signal == signal && !self.task(u).exiting {
                if let Some(own) = self.task_mut(u).exit_pending.take() {
                    self.do_exit(u, own);
                } else if !self.exit_event(u, code) {
                    self.do_exit(u, code);
                }
            }
        }
    }

    /// A fatal signal's group exit: `SIGNAL_GROUP_EXIT` with `code`, then
    /// every live thread exits, in thread order (`complete_signal`'s fast
    /// path, or `zap_process` for a core dump, then `do_group_exit`).
    pub(crate) fn kill_group(&mut self, t: usize, code: i32) {
        if self.sig(t).flags & SIGNAL_GROUP_EXIT != 0 {
            return;
        }
        let s = self.sig_mut(t);
        s.group_exit_code = code;
        s.flags = SIGNAL_GROUP_EXIT;
        let threads = s.threads.clone();
        let signal = self.task(t).signal;
        self.exit_threads(&threads, signal, code);
    }

    /// `do_exit()` of live task `t` with status word `code`.
    pub(crate) fn do_exit(&mut self, t: usize, code: i32) {
        debug_assert!(!self.task(t).exiting);
        if self.in_vfork_wait(crate::Tid(t)) {
            self.retarget_shared_pending(t);
        }
        {
            let task = self.task_mut(t);
            task.exiting = true;
            task.traced_stop = false;
            task.trap_code = 0;
            task.trap_group = false;
            task.trap_event = false;
            task.trap_syscall = false;
            task.exit_pending = None;
            task.vfork_done_pending = false;
            task.stopped = false;
            task.exit_code = code;
        }
        let s = self.sig_mut(t);
        s.live -= 1;
        let group_dead = s.live == 0;
        self.mm_release(t);
        // exit_mm()
        self.task_mut(t).mm = None;
        self.exit_notify(t, group_dead);
    }

    /// `exit_signals()` -> `retarget_shared_pending()` for `t`, killed
    /// asleep in vfork (so it took none of its process's pending signals):
    /// the other threads, in thread order after `t`, each take (once this
    /// operation is over) those of the signals it does not block, until
    /// none is left (during an exec, the exec'ing thread). Not when the
    /// whole group is exiting.
    fn retarget_shared_pending(&mut self, t: usize) {
        if self.sig(t).flags & crate::SIGNAL_GROUP_EXIT != 0 {
            return;
        }
        let mut retarget = self.sig(t).shared_pending & !self.task(t).blocked;
        // During an exec the others die too, passing the signals on as they
        // exit, until the exec'ing thread has them.
        let threads = match self.group_exec_task {
            Some(e) if self.same_thread_group(e, t) => vec![t, e],
            _ => self.sig(t).threads.clone(),
        };
        let at = threads.iter().position(|&u| u == t).unwrap_or(0);
        for &u in threads[at + 1..].iter().chain(&threads[..at]) {
            if retarget == 0 {
                break;
            }
            let blocked = self.task(u).blocked;
            if self.task(u).exiting || retarget & !blocked == 0 {
                continue;
            }
            retarget &= blocked;
            self.deferred
                .push_back(crate::Deferred::Dequeue { task: u });
        }
    }

    /// `mm_release()` -> `complete_vfork_done()`.
    pub(crate) fn mm_release(&mut self, t: usize) {
        if let Some(parent) = self.task_mut(t).vfork_parent.take() {
            if self.exists(parent) {
                self.task_mut(parent).vfork_sigpending = false;
            }
            self.vfork_done(parent, t);
            // Back from wait_for_vfork_done() (and a
            // PTRACE_EVENT_VFORK_DONE stop, if it took one), the parent
            // takes what was kept pending once this operation is over.
            if self.exists(parent) && !self.task(parent).exiting && !self.task(parent).traced_stop {
                self.deferred
                    .push_back(crate::Deferred::Dequeue { task: parent });
            }
        }
    }

    fn exit_notify(&mut self, t: usize, group_dead: bool) {
        // The `dead` list: list_add() inserts at the head.
        let mut dead: Vec<usize> = Vec::new();
        if !self.forget_original_parent(t, &mut dead) {
            // Blocked in zap_pid_ns_processes() until the namespace empties.
            let ns = self.ns_of(t);
            self.nss[ns].zap_waiter = Some((t, group_dead));
            return;
        }
        self.exit_notify_tail(t, group_dead, dead);
    }

    /// The rest of `exit_notify()` once the children are gone.
    pub(crate) fn exit_notify_tail(&mut self, t: usize, group_dead: bool, dead: Vec<usize>) {
        let mut dead = dead;
        if group_dead {
            let leader = self.leader(t);
            self.kill_orphaned_pgrp(leader, None);
        }
        self.task_mut(t).exit_state = ExitState::Zombie;
        let autoreap = if self.task(t).ptrace != 0 {
            let sig = if self.thread_group_empty(t) && !self.ptrace_reparented(t) {
                self.task(t).exit_signal
            } else {
                SIGCHLD
            };
            self.do_notify_parent(t, sig)
        } else if self.is_leader(t) {
            self.thread_group_empty(t) && self.do_notify_parent(t, self.task(t).exit_signal)
        } else {
            true
        };
        if autoreap {
            self.task_mut(t).exit_state = ExitState::Dead;
            dead.insert(0, t);
        }
        for p in dead {
            self.release_task(p);
        }
    }

    /// Returns false when `father` is the last thread of a namespace's
    /// init and must wait for the namespace to empty.
    fn forget_original_parent(&mut self, father: usize, dead: &mut Vec<usize>) -> bool {
        if !self.task(father).ptraced.is_empty() {
            self.exit_ptrace(father, dead);
        }
        let Some(child_reaper) = self.find_child_reaper(father, dead) else {
            return false;
        };
        if self.task(father).children.is_empty() {
            return true;
        }
        let reaper = self.find_new_reaper(father, child_reaper);
        let children = self.task(father).children.clone();
        // The father's own numbers and credentials, for its kills.
        let sender = self.pid_numbers(self.task(father).pid);
        let who = self.sender(father);
        for &p in &children {
            for th in self.sig(p).threads.clone() {
                let task = self.task_mut(th);
                task.real_parent = Some(reaper);
                if task.ptrace == 0 {
                    task.parent = Some(reaper);
                }
                self.send_pdeath_signal(&sender, &who, th);
            }
            if !self.same_thread_group(reaper, father) {
                self.reparent_leader(father, p, dead);
            }
        }
        // list_splice_tail_init(&father->children, &reaper->children)
        let moved = std::mem::take(&mut self.task_mut(father).children);
        self.task_mut(reaper).children.extend(moved);
        true
    }

    /// The parent-death signal of thread `th`, whose parent thread is
    /// exiting: `group_send_sig_info(pdeath_signal, SEND_SIG_NOINFO, th,
    /// PIDTYPE_TGID)` from the exiting thread (`sender`, `who`): its
    /// process is sent the signal as by `kill()` (refused without
    /// `kill()`'s permission; forced when the father has no number in
    /// `th`'s namespace), `th` preferred, when the operation ends.
    fn send_pdeath_signal(
        &mut self,
        sender: &[(usize, u32)],
        who: &crate::cred::Sender,
        th: usize,
    ) {
        let sig = self.task(th).pdeath_signal;
        if sig == 0 || !self.may_kill(who, th, sig) {
            return;
        }
        let force = self.sent_from_ancestor_ns(sender, th);
        self.deferred.push_back(Deferred::Signal {
            task: th,
            sig,
            force,
        });
    }

    /// `None` when `father`, the namespace's last init thread, has to wait
    /// in `zap_pid_ns_processes()`.
    fn find_child_reaper(&mut self, father: usize, dead: &mut Vec<usize>) -> Option<usize> {
        let ns = self.ns_of(father);
        let reaper = self.nss[ns].child_reaper;
        if reaper != Some(father) {
            return Some(reaper.expect("a namespace with tasks has a reaper"));
        }
        if let Some(alive) = self.find_alive_thread(father) {
            self.nss[ns].child_reaper = Some(alive);
            return Some(alive);
        }
        for p in std::mem::take(dead) {
            self.release_task(p);
        }
        if !self.zap_pid_ns_processes(ns, father) {
            return None;
        }
        Some(father)
    }

    fn find_new_reaper(&self, father: usize, child_reaper: usize) -> usize {
        if let Some(t) = self.find_alive_thread(father) {
            return t;
        }
        // The first is_child_subreaper ancestor in the same pid namespace
        // (Linux skips the walk when has_child_subreaper says none exists;
        // the walk finds none then, so the result is the same).
        let ns_level = self.pid_level(self.task(father).pid);
        let mut r = self.task(father).real_parent;
        while let Some(rp) = r {
            if self.pid_level(self.task(rp).pid) != ns_level {
                break;
            }
            if self.sig(rp).is_child_subreaper {
                if let Some(t) = self.find_alive_thread(rp) {
                    return t;
                }
            }
            r = self.task(rp).real_parent;
        }
        child_reaper
    }

    fn reparent_leader(&mut self, father: usize, p: usize, dead: &mut Vec<usize>) {
        if self.task(p).exit_state == ExitState::Dead {
            return;
        }
        // We don't want people slaying init.
        self.task_mut(p).exit_signal = SIGCHLD;
        if self.task(p).ptrace == 0
            && self.task(p).exit_state == ExitState::Zombie
            && self.thread_group_empty(p)
            && self.do_notify_parent(p, SIGCHLD)
        {
            self.task_mut(p).exit_state = ExitState::Dead;
            dead.insert(0, p);
        }
        self.kill_orphaned_pgrp(p, Some(father));
    }

    fn exit_ptrace(&mut self, tracer: usize, dead: &mut Vec<usize>) {
        for p in self.task(tracer).ptraced.clone() {
            self.exitkill(p);
            if self.ptrace_detach_dead(tracer, p) {
                dead.insert(0, p);
            } else {
                // A live tracee runs again, once this operation is over, and
                // takes its pending signals (unless a group stop holds it).
                self.deferred.push_back(Deferred::Dequeue { task: p });
            }
        }
    }

    /// `__ptrace_detach()`: unlink `p`; whether the now untraced zombie must
    /// be released.
    pub(crate) fn ptrace_detach_dead(&mut self, tracer: usize, p: usize) -> bool {
        self.ptrace_unlink(p);
        if self.task(p).exit_state != ExitState::Zombie {
            return false;
        }
        let mut dead = !self.is_leader(p);
        if !dead && self.thread_group_empty(p) {
            let rp = self.task(p).real_parent;
            if !rp.is_some_and(|rp| self.same_thread_group(rp, tracer)) {
                dead = self.do_notify_parent(p, self.task(p).exit_signal);
            } else if self.ignoring_children(tracer) {
                dead = true;
            }
        }
        if dead {
            self.task_mut(p).exit_state = ExitState::Dead;
        }
        dead
    }

    /// The group of `t` ignores SIGCHLD or set `SA_NOCLDWAIT`.
    pub(crate) fn ignoring_children(&self, t: usize) -> bool {
        let a = self.sig(t).actions[(SIGCHLD - 1) as usize];
        a.handler == SigHandler::Ignore || a.flags & SA_NOCLDWAIT != 0
    }

    /// `release_task()`: frees `p`, and its zombie leader too if `p` was the
    /// last other thread and the leader's parent does not want it.
    pub(crate) fn release_task(&mut self, p: usize) {
        let mut p = p;
        loop {
            if self.task(p).ptrace != 0 {
                self.ptrace_unlink(p);
            }
            let leader = self.leader(p);
            let group_dead = leader == p;
            let pid = self.task(p).pid;
            let signal = self.task(p).signal;
            debug_assert!(self.task(p).children.is_empty());
            debug_assert!(self.task(p).ptraced.is_empty());
            // __unhash_process()
            self.pids[pid].as_mut().expect("live pid").task = None;
            self.put_pid(pid);
            if group_dead {
                let s = self.signals[signal].as_ref().expect("live signal");
                let (pgrp, session) = (s.pgrp, s.session);
                self.put_pid(pid); // TGID
                self.put_pid(pgrp);
                self.put_pid(session);
                if let Some(rp) = self.task(p).real_parent {
                    self.task_mut(rp).children.retain(|&c| c != p);
                }
            }
            let s = self.signals[signal].as_mut().expect("live signal");
            // __exit_signal(): the next thread becomes the search start.
            if s.curr_target == p {
                let i = s.threads.iter().position(|&u| u == p).expect("on its list");
                s.curr_target = s.threads[(i + 1) % s.threads.len()];
            }
            s.threads.retain(|&u| u != p);
            self.tasks[p] = None;
            if group_dead {
                self.signals[signal] = None;
                return;
            }
            if self.thread_group_empty(leader) && self.task(leader).exit_state == ExitState::Zombie
            {
                let sig = self.task(leader).exit_signal;
                if self.do_notify_parent(leader, sig) {
                    self.task_mut(leader).exit_state = ExitState::Dead;
                    p = leader;
                    continue;
                }
            }
            return;
        }
    }

    /// `do_notify_parent()`: tell `tsk`'s parent (the tracer, if traced)
    /// that it died, with `sig`; returns whether `tsk` is to be reaped at
    /// once.
    pub(crate) fn do_notify_parent(&mut self, tsk: usize, sig: i32) -> bool {
        let Some(parent) = self.task(tsk).parent else {
            // The root namespace's init has no parent to tell.
            return true;
        };
        let mut sig = sig;
        if sig != SIGCHLD && self.task(tsk).parent_exec_id != self.task(parent).self_exec_id {
            // The parent exec'd since: it gets a plain SIGCHLD.
            sig = SIGCHLD;
        }
        let mut autoreap = false;
        if self.task(tsk).ptrace == 0 && sig == SIGCHLD && self.ignoring_children(parent) {
            autoreap = true;
            if self.sig(parent).actions[(SIGCHLD - 1) as usize].handler == SigHandler::Ignore {
                sig = 0;
            }
        }
        if valid_signal(sig) {
            // __send_signal_locked(sig, &info, parent, PIDTYPE_TGID, false)
            self.deferred.push_back(Deferred::Signal {
                task: parent,
                sig,
                force: false,
            });
        }
        autoreap
    }

    /// `kill_orphaned_pgrp()`: `tsk` (a group leader) exits (`parent` is
    /// `None`) or is reparented away from `parent`; if that orphans its
    /// process group and the group has stopped members, they all get
    /// SIGHUP then SIGCONT.
    pub(crate) fn kill_orphaned_pgrp(&mut self, tsk: usize, parent: Option<usize>) {
        let pgrp = self.sig(tsk).pgrp;
        let (parent, ignored) = match parent {
            None => (self.task(tsk).real_parent, Some(tsk)),
            Some(p) => (Some(p), None),
        };
        let Some(parent) = parent else { return };
        if self.sig(parent).pgrp != pgrp
            && self.sig(parent).session == self.sig(tsk).session
            && self.will_become_orphaned_pgrp(pgrp, ignored)
            && self.has_stopped_jobs(pgrp)
        {
            let members = self.pgrp_members(pgrp);
            for sig in [SIGHUP, SIGCONT] {
                for &m in &members {
                    // __kill_pgrp_info(sig, SEND_SIG_PRIV, pgrp)
                    self.deferred.push_back(Deferred::Signal {
                        task: m,
                        sig,
                        force: true,
                    });
                }
            }
        }
    }

    /// `will_become_orphaned_pgrp()`: no member but `ignored` has a parent
    /// in another process group of the same session.
    pub(crate) fn will_become_orphaned_pgrp(&self, pgrp: usize, ignored: Option<usize>) -> bool {
        for p in self.pgrp_members(pgrp) {
            if Some(p) == ignored
                || (self.task(p).exit_state != ExitState::Running && self.thread_group_empty(p))
            {
                continue;
            }
            let Some(rp) = self.task(p).real_parent else {
                continue;
            };
            if self.is_global_init(rp) {
                continue;
            }
            if self.sig(rp).pgrp != pgrp && self.sig(rp).session == self.sig(p).session {
                return false;
            }
        }
        true
    }

    fn has_stopped_jobs(&self, pgrp: usize) -> bool {
        self.pgrp_members(pgrp)
            .into_iter()
            .any(|p| self.sig(p).flags & SIGNAL_STOP_STOPPED != 0)
    }

    /// `zap_pid_ns_processes()`: the last thread of `ns`'s init is exiting:
    /// no more pids, SIGCHLD ignored, SIGKILL to every task of the
    /// namespace (pid order), then reap what can be reaped. Returns whether
    /// the namespace is now empty but for init; if not, Linux sleeps until
    /// it is (children traced from outside wait for their tracer), and so
    /// does `me`'s exit here (see [`Model::put_pid`]).
    fn zap_pid_ns_processes(&mut self, ns: usize, me: usize) -> bool {
        self.nss[ns].adding = false;
        self.sig_mut(me).actions[(SIGCHLD - 1) as usize].handler = SigHandler::Ignore;
        let nrs: Vec<u32> = self.nss[ns].idr.range(2..).map(|(&nr, _)| nr).collect();
        for nr in nrs {
            if let Some(t) = self.find_task(ns, nr as i32) {
                // group_send_sig_info(SIGKILL, SEND_SIG_PRIV, task, PIDTYPE_MAX)
                self.send_signal(t, SIGKILL, true, false);
            }
        }
        // kernel_wait4(-1, NULL, __WALL, NULL) until nothing more is reaped
        // (Linux blocks until ECHILD; we cannot block).
        while let Ok(crate::WaitOutcome::Reported(_)) =
            self.do_wait(me, WaitType::All, WEXITED | __WALL | WNOHANG)
        {}
        self.nss[ns].idr.len() <= self.init_pids(me)
    }

    /// The pids the namespace of `me`, its init's exiting last thread,
    /// keeps when otherwise empty: `me`'s, and the zombie leader's if `me`
    /// is another thread.
    pub(crate) fn init_pids(&self, me: usize) -> usize {
        if self.is_leader(me) {
            1
        } else {
            2
        }
    }
}
