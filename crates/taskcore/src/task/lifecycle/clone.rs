//! Task creation: `clone`, `clone3`, `fork`, `vfork`.
//!
//! # Linux
//! kernel/fork.c `kernel_clone()` and `copy_process()`.

use crate::errno::{Errno, Result};
use crate::ix::TaskIx;
use crate::list;
use crate::pid::ns::NsIx;
use crate::slab::SlabIx;
use crate::task::kernel::{Kernel, TaskId};
use crate::task::state::nsproxy_struct::CLONE_NEW_ANY;
use crate::task::task_struct::{SIGNAL_UNKILLABLE, TS_VFORK_WAIT};
use crate::uapi::{
    CLONE_CLEAR_SIGHAND, CLONE_INTO_CGROUP, CLONE_NEWPID, CLONE_NEWUSER, CLONE_PARENT, CLONE_PIDFD,
    CLONE_SIGHAND, CLONE_THREAD, CLONE_VFORK, CLONE_VM, SIGCHLD,
};

/// Arguments of `clone`/`clone3`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CloneArgs {
    /// `CLONE_*` flags, without the exit signal byte.
    pub flags: u64,
    /// Signal sent to the parent when the child exits: clone(2)'s low byte,
    /// 0..=255 (`SIGCHLD` for fork). A value above 64 (`_NSIG`) is accepted
    /// and no signal is sent at exit, as Linux. Ignored with `CLONE_THREAD`
    /// or `CLONE_PARENT` (legacy clone's rule; [`Kernel::clone3`] refuses
    /// that instead).
    pub exit_signal: i32,
    /// clone3 `set_tid`: the pid wanted at each level, own namespace first;
    /// empty for none. clone(2) has no such argument: it is kept here for
    /// callers that replay clone3 through [`Kernel::clone`]; new callers use
    /// [`Kernel::clone3`], which applies clone3's `set_tid` rules.
    pub set_tid: Vec<i32>,
}

impl CloneArgs {
    /// The arguments of `fork()`: no flags, exit signal SIGCHLD.
    pub fn fork() -> CloneArgs {
        CloneArgs {
            flags: 0,
            exit_signal: SIGCHLD,
            set_tid: Vec::new(),
        }
    }

    /// The arguments of `vfork()`: `CLONE_VM | CLONE_VFORK`, SIGCHLD.
    pub fn vfork() -> CloneArgs {
        CloneArgs {
            flags: CLONE_VM | CLONE_VFORK,
            exit_signal: SIGCHLD,
            set_tid: Vec::new(),
        }
    }

    /// The arguments glibc's `pthread_create` uses (the lifecycle-relevant
    /// part): `CLONE_VM | CLONE_SIGHAND | CLONE_THREAD`.
    pub fn thread() -> CloneArgs {
        CloneArgs {
            flags: CLONE_VM
                | CLONE_SIGHAND
                | CLONE_THREAD
                | crate::uapi::CLONE_FS
                | crate::uapi::CLONE_FILES,
            exit_signal: 0,
            set_tid: Vec::new(),
        }
    }

    /// Decodes legacy `clone(2)` flags, whose low byte is the exit signal.
    pub fn from_clone_flags(flags: u64) -> CloneArgs {
        CloneArgs {
            flags: flags & !crate::uapi::CSIGNAL,
            exit_signal: (flags & crate::uapi::CSIGNAL) as i32,
            set_tid: Vec::new(),
        }
    }
}

/// # Lifecycle: fork, vfork and clone (`kernel/fork.c`).
impl Kernel {
    /// Creates a task as legacy `clone(2)` (and fork/vfork) does, on behalf
    /// of `current`. [`Kernel::clone3`] is clone3(2), with its own argument
    /// rules.
    ///
    /// Returns the new task. Its pid as the caller sees it is
    /// [`Kernel::pid_vnr`]`(current, child)`.
    ///
    /// Modelled flags: `CLONE_THREAD` (a thread of the caller's group, whose
    /// parent is the group's parent), `CLONE_PARENT` (a sibling of the
    /// caller), `CLONE_VFORK` (a [`crate::Notification::VforkDone`] when the
    /// child execs or exits), `CLONE_NEWPID` (the child is init, pid 1, of a
    /// new pid namespace), `CLONE_PTRACE` (a traced caller's tracer also
    /// traces the child, the same way, and the child starts in a ptrace stop
    /// for SIGSTOP, or seized, in a `PTRACE_EVENT_STOP` stop for SIGTRAP).
    /// Other flags are accepted and have no effect on the process table.
    ///
    /// # Errors
    /// - `ESRCH`: `current` is stale or exiting.
    /// - `EINVAL`: `CLONE_NEWNS` or `CLONE_NEWUSER` with `CLONE_FS`
    ///   (checked first); `CLONE_THREAD` without `CLONE_SIGHAND`; `CLONE_SIGHAND`
    ///   without `CLONE_VM`; `CLONE_PARENT` from a namespace init;
    ///   `CLONE_THREAD` with `CLONE_NEWPID` or `CLONE_NEWUSER`; exit signal
    ///   outside 0..=255 (clone(2) cannot pass one); `CLONE_PIDFD` with
    ///   `CLONE_PARENT_SETTID` (clone(2) passes both through one pointer);
    ///   bad `set_tid` (longer than the levels, a number out of range, or not
    ///   1 for a new namespace).
    /// - `EPERM`: a `CLONE_NEW*` namespace bit without `CLONE_NEWUSER`
    ///   and the caller lacks `CAP_SYS_ADMIN` (user namespaces are not
    ///   modelled).
    /// - `ENOSPC`: `CLONE_NEWPID` past 32 nested levels.
    /// - `EPERM`: a `set_tid` number at a level whose pid namespace's
    ///   owner the caller holds neither `CAP_SYS_ADMIN` nor
    ///   `CAP_CHECKPOINT_RESTORE` over (after that level's `EINVAL`).
    /// - `EEXIST`: a `set_tid` number is taken.
    /// - `EAGAIN`: the caller's real user has `RLIMIT_NPROC` tasks already
    ///   (zombies and threads count; real uid 0 and callers with
    ///   `CAP_SYS_RESOURCE` or `CAP_SYS_ADMIN` are exempt); no free
    ///   pid at some level (`pid_max` reached).
    /// - `ENOMEM`: the caller's pid namespace's init has exited.
    ///
    /// Nothing changes when an error is returned.
    ///
    /// # Linux
    /// `copy_process()` (kernel/fork.c) and `alloc_pid()` (kernel/pid.c).
    /// Signal dispositions are copied even with `CLONE_SIGHAND` without
    /// `CLONE_THREAD` (Linux would share them). Only the low 32 bits of
    /// `flags` count, as `sys_clone()` takes them (`lower_32_bits`).
    pub fn clone(&mut self, current: TaskId, args: &CloneArgs) -> Result<TaskId> {
        self.probed(crate::probe::Op::Clone, current, |k| {
            k.do_sys_clone(current, args)
        })
    }

    fn do_sys_clone(&mut self, current: TaskId, args: &CloneArgs) -> Result<TaskId> {
        self.current(current)?;
        let flags = crate::rules::clone_flags(args.flags, args.exit_signal)?;
        self.copy_process(current, flags, args.exit_signal, &args.set_tid, false)
    }

    /// The flag combinations `copy_process()` refuses (EINVAL), for task
    /// slab index `cur`.
    pub(crate) fn clone_flags_valid(&self, cur: TaskIx, flags: u64) -> Result<()> {
        crate::rules::copy_process_flags(flags)?;
        // Siblings of an init would be orphans nobody reaps: Linux refuses.
        let g = self.tasks[cur].group;
        if flags & CLONE_PARENT != 0 && self.groups[g].flags.get().contains(SIGNAL_UNKILLABLE) {
            return Err(Errno::EINVAL);
        }
        // A thread shares its group's namespace: not after
        // unshare(CLONE_NEWPID) or setns() (checked before RLIMIT_NPROC).
        if flags & CLONE_THREAD != 0
            && self.tasks[cur].nsproxy.pid_ns_for_children != Some(self.ns_of(cur))
        {
            return Err(Errno::EINVAL);
        }
        Ok(())
    }

    /// `copy_process()`: the checks and work common to clone(2) and
    /// clone3(2), with arguments already validated by their own entry.
    /// `CLONE_CLEAR_SIGHAND` in `flags` resets the child's handlers.
    /// `pidfd_fault`: with `CLONE_PIDFD`, the pidfd's `put_user()` is
    /// refused (`EFAULT` once the pid is allocated, the clone undone).
    pub(crate) fn copy_process(
        &mut self,
        current: TaskId,
        flags: u64,
        exit_signal: i32,
        set_tid: &[i32],
        pidfd_fault: bool,
    ) -> Result<TaskId> {
        let cur = self.current(current)?;
        self.clone_flags_valid(cur, flags)?;
        // copy_creds(): CLONE_NEWUSER makes the child's user namespace.
        let mut cred = self.tasks[cur].cred.clone();
        let mut new_userns = None;
        if flags & CLONE_NEWUSER != 0 {
            let mut c = crate::task::cred::Cred::clone(&cred);
            new_userns = Some(self.create_user_ns(&mut c)?);
            cred = std::sync::Arc::new(c);
        }
        let r = self.copy_process_creds(cur, flags, exit_signal, set_tid, cred, pidfd_fault);
        // The child (if any) holds its own reference.
        if let Some(ns) = new_userns {
            self.put_user_ns(ns);
        }
        r
    }

    /// [`Kernel::copy_process`] once the child's credentials are made.
    fn copy_process_creds(
        &mut self,
        cur: TaskIx,
        flags: u64,
        exit_signal: i32,
        set_tid: &[i32],
        cred: std::sync::Arc<crate::task::cred::Cred>,
        pidfd_fault: bool,
    ) -> Result<TaskId> {
        if !self.nproc_ok(cur) {
            return Err(Errno::EAGAIN);
        }
        // copy_namespaces(): a new namespace needs CAP_SYS_ADMIN in the
        // child's user namespace (CLONE_NEWUSER gives it).
        let user_ns = cred.user_ns.0;
        if flags & CLONE_NEW_ANY & !CLONE_NEWUSER != 0 && !self.may_make_namespaces(&cred) {
            return Err(Errno::EPERM);
        }
        // What the checks below read and the child copies of the caller
        // (dup_task_struct()), read once: its group, pid and namespace for
        // children; its comm, signal mask, self_exec_id, no_new_privs and
        // address space.
        let src = &self.tasks[cur];
        let (cur_group, cur_pid, for_children, cur_mm) =
            (src.group, src.pid, src.nsproxy.pid_ns_for_children, src.mm);
        let (comm, blocked, self_exec_id) = (src.comm, src.blocked, src.self_exec_id);
        let nnp = src.flags & crate::task::task_struct::PFA_NO_NEW_PRIVS;
        // Children get their pids in the caller's pid_for_children, which a
        // thread must share and a new namespace must start from.
        let active_ns = self.pids[cur_pid].numbers.last().ns;
        let for_children = for_children.ok_or(Errno::ESRCH)?;
        if flags & (CLONE_THREAD | CLONE_NEWPID) != 0 && for_children != active_ns {
            return Err(Errno::EINVAL);
        }
        // CLONE_INTO_CGROUP and a refused pidfd pointer fail after
        // alloc_pid(): its cursors are put back then, as for a failing
        // alloc_pid() (see its divergence).
        let pidfd_fault = pidfd_fault && flags & CLONE_PIDFD != 0;
        let cursors = if flags & CLONE_INTO_CGROUP != 0 || pidfd_fault {
            self.pid_cursors(for_children)
        } else {
            Vec::new()
        };
        let mut new_ns = None;
        // set_tid's permission is the caller's (current_cred()).
        let caller = (!set_tid.is_empty()).then(|| self.tasks[cur].cred.clone());
        let pid = if flags & CLONE_NEWPID != 0 {
            let ns = self.create_pid_namespace(for_children, user_ns)?;
            new_ns = Some(ns);
            match self.alloc_pid(
                ns,
                set_tid,
                true,
                flags & CLONE_THREAD == 0,
                caller.as_deref(),
            ) {
                Ok(pid) => pid,
                Err(e) => {
                    self.put_ns(ns);
                    return Err(e);
                }
            }
        } else {
            self.alloc_pid(
                for_children,
                set_tid,
                false,
                flags & CLONE_THREAD == 0,
                caller.as_deref(),
            )?
        };
        // Undoes the pid and the new namespace on a later failure.
        let undo = |k: &mut Kernel| k.unalloc_pid(pid, new_ns);
        // The pidfd's put_user(), then cgroup_can_fork(): no fd names a
        // cgroup here (clone3 only).
        let late = if pidfd_fault {
            Some(Errno::EFAULT)
        } else if flags & CLONE_INTO_CGROUP != 0 {
            Some(Errno::EBADF)
        } else {
            None
        };
        if let Some(err) = late {
            undo(self);
            self.restore_pid_cursors(cursors);
            return Err(err);
        }
        let mm = match self.copy_mm(cur, cur_mm, flags) {
            Ok(mm) => mm,
            Err(e) => {
                undo(self);
                return Err(e);
            }
        };
        // A thread's group is the caller's; a new process's is provisional,
        // set once it exists.
        let group = if flags & CLONE_THREAD != 0 {
            cur_group
        } else {
            self.groups.vacant_key().unwrap_or(cur_group)
        };
        let child = match self.new_task(pid, group, comm, cred) {
            Ok(t) => t,
            Err(e) => {
                self.mmput(mm);
                undo(self);
                return Err(e);
            }
        };
        let c = &mut self.tasks[child];
        c.mm = mm;
        // The mask is inherited; the pending sets start empty.
        c.blocked = blocked;
        // dup_task_struct() copies the caller, self_exec_id included: a
        // thread or child created after an exec carries the new id.
        c.self_exec_id = self_exec_id;
        c.flags |= nnp;
        // copy_namespaces(): the new namespace's creation reference becomes
        // the child's nsproxy's; else the child takes a reference on the
        // caller's (set_nsproxy(), with the child at hand).
        debug_assert_eq!(c.nsproxy, crate::task::state::nsproxy_struct::NsProxy::NONE);
        if new_ns.is_some() {
            c.nsproxy.pid_ns_for_children = new_ns;
        } else {
            c.nsproxy.pid_ns_for_children = Some(for_children);
            self.get_ns(for_children);
        }
        if flags & CLONE_THREAD != 0 {
            debug_assert_eq!(self.tasks[child].group, cur_group);
            self.join_thread_list(cur_group, child);
        } else {
            // What the new process copies of the caller's, read once.
            let src = &self.groups[cur_group];
            // CLONE_PARENT inherits the caller's parent and parent_exec_id;
            // otherwise the parent is the caller and its self_exec_id is
            // recorded.
            let (parent, exit_signal, parent_exec_id) = if flags & CLONE_PARENT != 0 {
                (src.real_parent, src.exit_signal.get(), src.parent_exec_id)
            } else {
                (Some(cur), exit_signal, self_exec_id)
            };
            let (pgrp, session, sighand) = (src.pgrp, src.session, src.sighand.clone());
            let rlim = src.rlim.clone();
            // Built whole, its one thread the child (its thread list and
            // counts), with the caller's actions and the parent's exec id.
            let g = match self.new_group(
                child,
                pgrp,
                session,
                sighand,
                rlim,
                exit_signal,
                parent_exec_id,
            ) {
                Ok(g) => g,
                Err(e) => {
                    self.unmake_task(child, pid, user_ns, mm);
                    return Err(e);
                }
            };
            if flags & CLONE_CLEAR_SIGHAND != 0 {
                self.flush_signal_handlers(g);
            }
            self.attach_process_pids(g, pid, pgrp, session);
            if self.pids[pid].numbers.last().nr == 1 {
                let ns = self.pids[pid].numbers.last().ns;
                self.nss[ns].child_reaper = Some(child);
                self.set_group_flags(g, self.groups[g].flags.get() | SIGNAL_UNKILLABLE);
            }
            if let Some(parent) = parent {
                // A new edge: registered at once in its first state (a
                // position change, not a readiness write).
                self.link_new_child(parent, g, child, pgrp, exit_signal);
            }
        }
        if flags & CLONE_VFORK != 0 {
            self.vfork_start(cur, child);
        }
        let event = self.ptrace_init_task(cur, child, flags, exit_signal);
        if flags & CLONE_THREAD != 0 {
            self.task_join_group_stop(child);
        }
        if event != 0 {
            let msg = self.pid_for_tracer(cur, child);
            self.ptrace_event(cur, event, msg);
        }
        self.run_deferred();
        Ok(self.handle_unchecked(child))
    }

    /// Whether a child with credentials `cred` may have new namespaces:
    /// `CAP_SYS_ADMIN` in its user namespace. Out of line: most clones
    /// make none.
    #[cold]
    #[inline(never)]
    fn may_make_namespaces(&self, cred: &crate::task::cred::Cred) -> bool {
        self.ns_capable_cred(
            cred,
            cred.user_ns.0,
            crate::task::state::capability::CAP_SYS_ADMIN,
        )
    }

    /// Takes back pid `pid` and new pid namespace `new_ns` (if any) when
    /// the clone fails after `alloc_pid()`. Rare: out of line.
    #[cold]
    #[inline(never)]
    fn unalloc_pid(&mut self, pid: crate::pid::entry::PidIx, new_ns: Option<NsIx>) {
        self.put_pid(pid);
        if let Some(ns) = new_ns {
            self.put_ns(ns);
        }
    }

    /// Takes back new task `child` (pid `pid`, credentials in `user_ns`,
    /// address space `mm`) when its thread group cannot be made. Rare:
    /// out of line.
    #[cold]
    #[inline(never)]
    fn unmake_task(
        &mut self,
        child: TaskIx,
        pid: crate::pid::entry::PidIx,
        user_ns: crate::ix::UserNsIx,
        mm: crate::task::state::mm_entry::TaskMm,
    ) {
        self.exit_task_namespaces(child);
        self.pids[pid].task = None;
        // No handle was made for it; the slot's generation moves on all
        // the same, as at every release.
        self.free_task_slot(child);
        self.put_user_ns(user_ns);
        self.mmput(mm);
        self.put_pid(pid);
    }

    /// `CLONE_VFORK`: the caller `cur` sleeps in wait_for_vfork_done()
    /// (after its PTRACE_EVENT_VFORK stop, if any) until `child` execs or
    /// exits. Out of line: a hash insert the usual fork does not do.
    #[cold]
    #[inline(never)]
    fn vfork_start(&mut self, cur: TaskIx, child: TaskIx) {
        self.tasks[cur].flags |= TS_VFORK_WAIT;
        self.side
            .vfork_parents
            .insert(child, (cur, self.gens[cur.slot()]));
    }

    /// The allocation cursors of pid namespace `ns` and its ancestors,
    /// for [`Self::restore_pid_cursors`] after a failure that follows
    /// `alloc_pid()` (rare: out of line).
    #[cold]
    #[inline(never)]
    fn pid_cursors(&self, ns: NsIx) -> Vec<(NsIx, u32)> {
        let mut cursors = Vec::new();
        let mut n = Some(ns);
        while let Some(ns) = n {
            cursors.push((ns, self.nss[ns].cursor));
            n = self.nss[ns].parent;
        }
        cursors
    }

    /// Puts back the cursors [`Self::pid_cursors`] took.
    #[cold]
    #[inline(never)]
    fn restore_pid_cursors(&mut self, cursors: Vec<(NsIx, u32)>) {
        for (n, cursor) in cursors {
            self.nss[n].cursor = cursor;
        }
    }

    /// `fork()`: [`Kernel::clone`] with [`CloneArgs::fork`].
    ///
    /// # Errors
    /// As [`Kernel::clone`].
    pub fn fork(&mut self, current: TaskId) -> Result<TaskId> {
        self.probed(crate::probe::Op::Fork, current, |k| {
            k.copy_process(current, 0, SIGCHLD, &[], false)
        })
    }

    /// `vfork()`: [`Kernel::clone`] with [`CloneArgs::vfork`].
    ///
    /// # Errors
    /// As [`Kernel::clone`].
    pub fn vfork(&mut self, current: TaskId) -> Result<TaskId> {
        self.probed(crate::probe::Op::Vfork, current, |k| {
            k.copy_process(current, CLONE_VM | CLONE_VFORK, SIGCHLD, &[], false)
        })
    }

    /// Makes `tracer` trace `t` (`__ptrace_link`): `t` joins the head of
    /// the tracer's `ptraced` list.
    pub(crate) fn ptrace_link(&mut self, t: TaskIx, tracer: TaskIx, mode: u8) {
        // Newest first: Linux adds tracees at the head of `ptraced`.
        let seq = u64::MAX - self.next_seq();
        let task = &mut self.tasks[t];
        task.ptrace = mode;
        task.parent = Some(tracer);
        let g = task.group;
        self.side.set_ptrace_seq(t, Some(seq));
        self.groups[g].nr_traced += 1;
        let mut head = self.side.ptraced(tracer);
        list::push_front(&mut head, &mut self.tasks, t, |t| &mut t.ptrace_entry);
        self.side.set_ptraced(tracer, head);
        self.mark_task(t);
    }
}
