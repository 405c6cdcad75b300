//! `clone`, `fork`, `vfork`.
//!
//! # Linux
//! kernel/fork.c `kernel_clone`, `copy_process`, `copy_signal`;
//! kernel/pid_namespace.c `create_pid_namespace`; include/linux/ptrace.h
//! `ptrace_init_task`.

use taskcore::task::capability::{CAP_CHECKPOINT_RESTORE, CAP_SYS_ADMIN};
use taskcore::uapi::{
    CLONE_CLEAR_SIGHAND, CLONE_INTO_CGROUP, CLONE_NEWCGROUP, CLONE_NEWIPC, CLONE_NEWNET,
    CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWTIME, CLONE_NEWUSER, CLONE_NEWUTS, CLONE_PARENT,
    CLONE_THREAD, CLONE_VFORK, CLONE_VM, MAX_PID_NS_LEVEL, SIGSTOP, SIGTRAP,
};

use crate::objects::Ns;
use crate::ptrace::PTRACE_EVENT_STOP;
use crate::{
    Action, CloneArgs, Errno, Model, Result, SigHandler, Signal, Task, Tid, PT_SEIZED,
    SIGNAL_STOP_STOPPED, SIGNAL_UNKILLABLE,
};

impl Model {
    /// Legacy `clone(2)` by `current`; returns the new task. Only the low
    /// 32 bits of the flags count; the exit signal is ignored with
    /// `CLONE_THREAD`/`CLONE_PARENT`, and one above 64 is accepted (no
    /// signal at exit). `CLONE_PIDFD` is checked but makes no pidfd here:
    /// [`Model::clone_with_pidfd`] returns it.
    ///
    /// # Errors
    /// - `ESRCH`: `current` is stale or exiting.
    /// - `EINVAL`: exit signal outside 0..=255; `CLONE_PIDFD` with
    ///   `CLONE_PARENT_SETTID` or `CLONE_DETACHED`; `CLONE_THREAD` without
    ///   `CLONE_SIGHAND`; `CLONE_SIGHAND` without `CLONE_VM`;
    ///   `CLONE_PARENT` from a namespace init; `CLONE_THREAD` with
    ///   `CLONE_NEWPID`/`CLONE_NEWUSER`; bad `set_tid`.
    /// - `EPERM`: a `CLONE_NEW*` bit without `CLONE_NEWUSER`, no
    ///   `CAP_SYS_ADMIN`.
    /// - `ENOSPC`: more than 32 nested pid namespaces.
    /// - `EEXIST`, `EAGAIN`, `ENOMEM`: from `alloc_pid`.
    ///
    /// # Linux
    /// `copy_process()`: `CLONE_PARENT`/`CLONE_THREAD` take the caller's
    /// `real_parent` and `parent_exec_id`, `CLONE_PARENT` the caller's
    /// leader's `exit_signal`; a thread's `exit_signal` is -1; the child
    /// copies the caller's `self_exec_id`, dispositions and process group
    /// and session; a traced caller's tracer also traces a `CLONE_PTRACE`
    /// child, which starts with SIGSTOP.
    pub fn clone(&mut self, current: Tid, args: &CloneArgs) -> Result<Tid> {
        self.current(current)?;
        let flags = taskcore::rules::clone_flags(args.flags, args.exit_signal)?;
        self.copy_process(current, flags, args.exit_signal, &args.set_tid)
    }

    /// The flag combinations `copy_process()` refuses with EINVAL.
    pub(crate) fn clone_flags_valid(&self, cur: usize, flags: u64) -> Result<()> {
        taskcore::rules::copy_process_flags(flags)?;
        if flags & CLONE_PARENT != 0 && self.sig(cur).flags & SIGNAL_UNKILLABLE != 0 {
            return Err(Errno::EINVAL);
        }
        // task_active_pid_ns(current) != pid_ns_for_children, for a thread.
        if flags & CLONE_THREAD != 0 && self.pid_ns_for_children(cur) != self.ns_of(cur) {
            return Err(Errno::EINVAL);
        }
        Ok(())
    }

    /// `copy_process()` for clone and clone3, arguments already checked by
    /// their entry; `CLONE_CLEAR_SIGHAND` resets the child's handlers.
    pub(crate) fn copy_process(
        &mut self,
        current: Tid,
        flags: u64,
        exit_signal: i32,
        set_tid: &[i32],
    ) -> Result<Tid> {
        let cur = self.current(current)?;
        self.clone_flags_valid(cur, flags)?;
        if !self.nproc_allows(cur) {
            return Err(Errno::EAGAIN);
        }
        // copy_namespaces(): new namespaces need CAP_SYS_ADMIN,
        // unless CLONE_NEWUSER makes one where the child has it.
        let new_ns = CLONE_NEWNS
            | CLONE_NEWUTS
            | CLONE_NEWIPC
            | CLONE_NEWNET
            | CLONE_NEWPID
            | CLONE_NEWCGROUP
            | CLONE_NEWTIME;
        let admin = self.task(cur).cred.cap_effective.has(CAP_SYS_ADMIN);
        if flags & new_ns != 0 && flags & CLONE_NEWUSER == 0 && !admin {
            return Err(Errno::EPERM);
        }
        // Children get their pids in the caller's pid_for_children, which a
        // thread must share and a new namespace must start from.
        let cur_ns = self.pid_ns_for_children(cur);
        if flags & (CLONE_THREAD | CLONE_NEWPID) != 0 && cur_ns != self.ns_of(cur) {
            return Err(Errno::EINVAL);
        }
        // CLONE_INTO_CGROUP fails after alloc_pid: the cursors it moved.
        let mut cursors = Vec::new();
        let mut n = Some(cur_ns).filter(|_| flags & CLONE_INTO_CGROUP != 0);
        while let Some(x) = n {
            cursors.push((x, self.nss[x].cursor));
            n = self.nss[x].parent;
        }
        let ns = if flags & CLONE_NEWPID != 0 {
            let level = self.nss[cur_ns].level + 1;
            if level > MAX_PID_NS_LEVEL {
                return Err(Errno::ENOSPC);
            }
            let pid_max = self.nss[cur_ns].pid_max;
            self.nss.push(Ns::new(level, Some(cur_ns), pid_max));
            self.nss.len() - 1
        } else {
            cur_ns
        };
        // set_tid's permission: the model has one user namespace.
        let caps = &self.task(cur).cred.cap_effective;
        let may_set_tid = caps.has(CAP_SYS_ADMIN) || caps.has(CAP_CHECKPOINT_RESTORE);
        let pid = match self.alloc_pid(ns, set_tid, may_set_tid) {
            Ok(p) => p,
            Err(e) => {
                if ns != cur_ns {
                    self.nss.pop();
                }
                return Err(e);
            }
        };
        // cgroup_can_fork(): no fd names a cgroup here (clone3 only); the
        // pid allocated is freed again (cursors: as a failing alloc_pid).
        if flags & CLONE_INTO_CGROUP != 0 {
            self.get_pid(pid, 1);
            self.put_pid(pid);
            if ns != cur_ns {
                self.nss.pop();
            }
            // Linux frees the numbers without restoring the cursors.
            if self.opts.compat.pid_cursor_untouched_on_failure {
                for (n, cursor) in cursors {
                    self.nss[n].cursor = cursor;
                }
            }
            return Err(Errno::EBADF);
        }
        let child = self.tasks.len();
        let ct = self.task(cur).clone();
        let thread = flags & CLONE_THREAD != 0;
        // kernel_clone() picks the ptrace event by the clone's own exit
        // signal (a thread's is 0: PTRACE_EVENT_CLONE).
        let clone_exit_sig = exit_signal;
        let (real_parent, parent_exec_id, exit_signal) =
            if flags & (CLONE_PARENT | CLONE_THREAD) != 0 {
                let es = if thread {
                    -1
                } else {
                    self.task(ct.group_leader).exit_signal
                };
                (ct.real_parent, ct.parent_exec_id, es)
            } else {
                (Some(cur), ct.self_exec_id, exit_signal)
            };
        let signal = if thread {
            ct.signal
        } else {
            let src = self.sig(cur);
            let mut unkillable = 0;
            if self.pids[pid].as_ref().expect("new pid").numbers.last() == Some(&(ns, 1)) {
                unkillable = SIGNAL_UNKILLABLE;
            }
            let s = Signal {
                threads: Vec::new(),
                live: 0,
                flags: unkillable,
                group_exit_code: 0,
                stop_sig: 0,
                group_stop_count: 0,
                pgrp: src.pgrp,
                session: src.session,
                pgrp_seq: 0,
                leader: false,
                is_child_subreaper: false,
                actions: if flags & CLONE_CLEAR_SIGHAND != 0 {
                    // flush_signal_handlers(p, 0)
                    src.actions.map(|a| Action {
                        handler: if a.handler == SigHandler::Ignore {
                            SigHandler::Ignore
                        } else {
                            SigHandler::Default
                        },
                        flags: 0,
                    })
                } else {
                    src.actions
                },
                shared_pending: 0,
                curr_target: child,
                rt_queue: Vec::new(),
                rlim: src.rlim,
            };
            self.signals.push(Some(s));
            self.signals.len() - 1
        };
        // copy_mm(): CLONE_VM shares the caller's address space, else the
        // child gets a copy (with its dumpable flag).
        let mm = match ct.mm {
            Some(m) if flags & CLONE_VM != 0 => Some(m),
            Some(m) => Some(self.new_mm(self.mms[m])),
            None => None,
        };
        self.tasks.push(Some(Task {
            self_exec_id: ct.self_exec_id,
            parent_exec_id,
            vfork_parent: if flags & CLONE_VFORK != 0 {
                Some(cur)
            } else {
                None
            },
            blocked: ct.blocked,
            cred: ct.cred.clone(),
            comm: ct.comm,
            mm,
            ..Task::fresh(
                pid,
                if thread { ct.group_leader } else { child },
                signal,
                real_parent,
                exit_signal,
            )
        }));
        self.pids[pid].as_mut().expect("new pid").task = Some(child);
        // ptrace_init_task(): the caller's tracer traces a CLONE_PTRACE
        // child, or one its option for this kind of clone asks for, with
        // the caller's ptrace mode and options.
        let event = self.clone_trace(cur, child, flags, clone_exit_sig);
        {
            let s = self.signals[signal].as_mut().expect("live signal");
            s.threads.push(child);
            s.live += 1;
        }
        if thread {
            self.get_pid(pid, 1);
        } else {
            let seq = self.next_seq();
            let (pgrp, session) = {
                let s = self.signals[signal].as_mut().expect("live signal");
                s.pgrp_seq = seq;
                (s.pgrp, s.session)
            };
            // PID and TGID of the new leader, and its PGID and SID.
            self.get_pid(pid, 2);
            self.get_pid(pgrp, 1);
            self.get_pid(session, 1);
            if self.signals[signal].as_ref().expect("live").flags & SIGNAL_UNKILLABLE != 0 {
                self.nss[ns].child_reaper = Some(child);
            }
            if let Some(rp) = real_parent {
                self.task_mut(rp).children.push(child);
            }
        }
        let seized = self.task(child).ptrace & PT_SEIZED != 0;
        if seized && thread && self.exists(child) {
            // A seized thread of a stopping or stopped group: the group stop
            // it joins (copy_process()'s task_join_group_stop()) is its
            // first trap, a PTRACE_EVENT_STOP with the stop signal, and
            // nothing is left pending after it: resumed, it runs
            // (tests/oracle/ptrace_thread_stops).
            self.task_join_group_stop(child);
        }
        if seized {
            // Seized: JOBCTL_TRAP_STOP, a PTRACE_EVENT_STOP trap for SIGTRAP
            // (or the stop signal of a stopped group it joins).
            if self.exists(child) && !self.task(child).traced_stop {
                let sig = if self.sig(child).flags & SIGNAL_STOP_STOPPED != 0 {
                    self.sig(child).stop_sig
                } else {
                    SIGTRAP
                };
                self.ptrace_trap(child, sig | (PTRACE_EVENT_STOP << 8));
                self.task_mut(child).trap_group = true;
            }
        } else if self.task(child).ptrace != 0 {
            // The child starts with SIGSTOP pending and traps on it.
            self.send_signal(child, SIGSTOP, true, true);
        }
        if thread && !seized && self.exists(child) {
            self.task_join_group_stop(child);
        }
        self.clone_event(cur, child, event);
        self.run_deferred();
        Ok(Tid(child))
    }

    /// `fork()`.
    ///
    /// # Errors
    /// As [`Model::clone`].
    pub fn fork(&mut self, current: Tid) -> Result<Tid> {
        self.clone(current, &CloneArgs::fork())
    }

    /// `vfork()`.
    ///
    /// # Errors
    /// As [`Model::clone`].
    pub fn vfork(&mut self, current: Tid) -> Result<Tid> {
        self.clone(current, &CloneArgs::vfork())
    }
}
