//! `execve` (a successful one).
//!
//! # Linux
//! fs/exec.c `begin_new_exec`, `de_thread`, `setup_new_exec`;
//! kernel/signal.c `flush_signal_handlers`; include/linux/ptrace.h
//! `ptrace_event(PTRACE_EVENT_EXEC)`.

use crate::Cred;
use taskcore::task::capability::{KernelCap, CAP_SYS_PTRACE, SECBIT_KEEP_CAPS, SECBIT_NOROOT};
use taskcore::uapi::{SIGCHLD, SIGTRAP};

use crate::{Action, ExitState, Model, Result, SigHandler, Tid, PT_PTRACED, PT_SEIZED};

impl Model {
    /// A successful `execve` by `current`; its `comm` becomes the last
    /// component of `filename`, at most 15 bytes.
    ///
    /// # Errors
    /// `ESRCH`: stale or exiting caller.
    ///
    /// # Linux
    /// `de_thread()`: other threads are killed (they exit with status 0, in
    /// thread order here); a non-leader caller takes the leader's pid and
    /// place among its parent's children and the old leader is released;
    /// every exec resets `exit_signal` to SIGCHLD ("we have changed execution
    /// domain"). Then `self_exec_id` is bumped, handlers revert to SIG_DFL
    /// (ignored signals stay ignored) with every `sa_flags` cleared, a vfork
    /// parent is released, and a tracee traced with `PTRACE_O_TRACEEXEC`
    /// stops in its `PTRACE_EVENT_EXEC` stop (message: its thread id before
    /// the exec, as its tracer sees it), else one attached without
    /// `PTRACE_SEIZE` gets SIGTRAP. No binary is set-id: the ids stay but
    /// for the saved and fs ones, which take the effective ones
    /// (`cap_bprm_creds_from_file()`, `commit_creds()`: if that changes
    /// the fs ids the process is not dumpable and loses its parent-death
    /// signal); an exec with effective ids other than the real ones is a
    /// `secureexec` and loses the parent-death signal too.
    pub fn execve(&mut self, current: Tid, filename: &str) -> Result<()> {
        let t = self.current(current)?;
        // PTRACE_EVENT_EXEC's message: the caller's tid before de_thread(),
        // as its tracer sees it.
        let old_vpid = self.pid_for_tracer(t, t);
        if !self.thread_group_empty(t) {
            self.de_thread(t);
        }
        // no_thread_group: we have changed execution domain.
        self.task_mut(t).exit_signal = SIGCHLD;
        // exec_mmap() -> mm_release(): the vfork parent may run.
        self.mm_release(t);
        let task = self.task_mut(t);
        task.comm =
            crate::prctl::comm_of(filename.rsplit('/').next().unwrap_or(filename).as_bytes());
        task.forknoexec = false;
        task.self_exec_id += 1;
        // A new address space, dumpable unless the effective ids differ
        // from the real ones (begin_new_exec()).
        let c = &self.task(t).cred;
        let dumpable = c.euid == c.uid && c.egid == c.gid;
        let mm = self.new_mm(dumpable);
        self.task_mut(t).mm = Some(mm);
        // The new image's creds (no set-id binaries, no file capabilities):
        // saved and fs ids take the effective ones; committed with
        // commit_creds(), which clears the dumpable flag and the
        // parent-death signal if that changes the fs ids or grows the
        // permitted set.
        let old = self.task(t).cred.clone();
        let task = self.task(t);
        let tracer_capable = task.ptrace == 0
            || task
                .parent
                .is_none_or(|p| self.task(p).cred.cap_effective.has(CAP_SYS_PTRACE));
        let (c, secureexec) = exec_creds(&old, tracer_capable);
        // bprm->secureexec: the parent may no longer signal it.
        if secureexec {
            self.task_mut(t).pdeath_signal = 0;
        }
        self.commit(t, c);
        // flush_signal_handlers(current, 0)
        for a in self.sig_mut(t).actions.iter_mut() {
            let handler = if a.handler == SigHandler::Ignore {
                SigHandler::Ignore
            } else {
                SigHandler::Default
            };
            *a = Action { handler, flags: 0 };
        }
        let event = crate::ptrace_event::PTRACE_EVENT_EXEC;
        if self.ptrace_event(t, event, old_vpid) {
            // exec_binprm(): the event stop replaces the legacy SIGTRAP.
        } else if self.task(t).ptrace & (PT_PTRACED | PT_SEIZED) == PT_PTRACED {
            // Legacy exec report: send_sig(SIGTRAP, current, 0).
            self.send_signal(t, SIGTRAP, false, true);
        }
        self.run_deferred();
        Ok(())
    }

    fn de_thread(&mut self, t: usize) {
        // zap_other_threads(): the others die (exit code 0: group_exec_task).
        self.group_exec_task = Some(t);
        for u in self.sig(t).threads.clone() {
            if u != t && self.exists(u) && !self.task(u).exiting {
                self.do_exit(u, 0);
            }
        }
        self.group_exec_task = None;
        let leader = self.leader(t);
        if leader == t {
            return;
        }
        debug_assert_eq!(self.task(leader).exit_state, ExitState::Zombie);
        // exchange_tids(tsk, leader); transfer_pid(TGID/PGID/SID): the group
        // identity follows the pid struct, which now belongs to `t`.
        let (lp, tp) = (self.task(leader).pid, self.task(t).pid);
        self.task_mut(t).pid = lp;
        self.task_mut(leader).pid = tp;
        self.pids[lp].as_mut().expect("live pid").task = Some(t);
        self.pids[tp].as_mut().expect("live pid").task = Some(leader);
        // list_replace_init(&leader->sibling, &tsk->sibling)
        if let Some(rp) = self.task(t).real_parent {
            for c in self.task_mut(rp).children.iter_mut() {
                if *c == leader {
                    *c = t;
                }
            }
        }
        for th in self.sig(t).threads.clone() {
            self.task_mut(th).group_leader = t;
        }
        self.task_mut(t).exit_signal = SIGCHLD;
        self.task_mut(leader).exit_signal = -1;
        self.task_mut(leader).exit_state = ExitState::Dead;
        self.release_task(leader);
    }
}

/// `cap_bprm_creds_from_file()` for a plain binary: uid 0 (real or
/// effective, unless `SECBIT_NOROOT`) gets bounding | inheritable as
/// permitted, effective too when the effective uid is 0; anyone else only
/// the ambient set. Capabilities gained under a tracer without
/// `CAP_SYS_PTRACE` are cut back to the old permitted set. The second
/// value is `secureexec`.
fn exec_creds(old: &Cred, tracer_capable: bool) -> (Cred, bool) {
    let mut c = old.clone();
    let root_rules = old.securebits & SECBIT_NOROOT == 0;
    let mut permitted = KernelCap::EMPTY;
    if root_rules && (old.uid == 0 || old.euid == 0) {
        permitted = old.cap_bset.union(old.cap_inheritable);
    }
    if !tracer_capable && !permitted.is_subset(old.cap_permitted) {
        permitted = permitted.intersect(old.cap_permitted);
    }
    let effective = root_rules && old.euid == 0;
    c.cap_permitted = permitted.union(old.cap_ambient);
    c.cap_effective = if effective {
        c.cap_permitted
    } else {
        old.cap_ambient
    };
    c.securebits &= !SECBIT_KEEP_CAPS;
    (c.suid, c.fsuid, c.sgid, c.fsgid) = (c.euid, c.euid, c.egid, c.egid);
    let beyond_ambient = !c.cap_permitted.is_subset(c.cap_ambient);
    let secureexec =
        c.euid != c.uid || c.egid != c.gid || (c.uid != 0 && (effective || beyond_ambient));
    (c, secureexec)
}
