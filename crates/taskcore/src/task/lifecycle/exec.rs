//! `execve`: a new program image in the calling process.
//!
//! # Linux
//! fs/exec.c `begin_new_exec()`, `de_thread()`, `flush_signal_handlers()`
//! (kernel/signal.c), `__set_task_comm()`.

use crate::errno::Result;
use crate::ix::TaskIx;
use crate::task::kernel::{Kernel, TaskId};
use crate::task::task_struct::{ExitState, PF_FORKNOEXEC, PT_SEIZED};
use crate::uapi::{SIGCHLD, SIGTRAP, TASK_COMM_LEN};

/// # Lifecycle: execve (`fs/exec.c`).
impl Kernel {
    /// A successful `execve` by `current`, running `filename`.
    ///
    /// Whether an exec succeeds depends on files this library does not
    /// model: call this only for an exec that succeeds. Effects:
    /// - a non-leader caller kills the other threads and takes over the
    ///   leader's pid, place among its parent's children and start time
    ///   (`de_thread`); other threads of a multi-threaded caller exit with
    ///   status 0;
    /// - the exit signal becomes SIGCHLD (a `__WCLONE` child stops being
    ///   one);
    /// - handled signals revert to `SIG_DFL`, ignored ones stay ignored, and
    ///   every `sa_flags` is cleared (so `SA_NOCLDWAIT` goes);
    /// - `comm` becomes the last path component of `filename`, truncated to
    ///   15 bytes;
    /// - the saved and fs ids take the effective ones (no binary is
    ///   set-id); the address space is dumpable unless the effective ids
    ///   differ from the real ones, the fs ids changed or the permitted
    ///   capabilities grew, and in those cases the parent-death signal is
    ///   cleared;
    /// - the capabilities follow `cap_bprm_creds_from_file()` for a binary
    ///   without file capabilities: uid 0 (real or effective, unless
    ///   `SECBIT_NOROOT`) gets the bounding and inheritable sets as
    ///   permitted, and as effective if its effective uid is 0; others keep
    ///   the ambient set only (permitted and effective); under
    ///   `no_new_privs`, or traced by a tracer without `CAP_SYS_PTRACE`, the
    ///   permitted set does not grow; `SECBIT_KEEP_CAPS` is cleared;
    /// - a vfork parent is released ([`crate::Notification::VforkDone`]);
    /// - a traced caller stops in its `PTRACE_EVENT_EXEC` stop under
    ///   `PTRACE_O_TRACEEXEC` (message: its former thread id), else,
    ///   attached without `PTRACE_SEIZE`, with SIGTRAP for its tracer.
    ///
    /// # Errors
    /// `ESRCH` if `current` is stale or exiting.
    ///
    /// # Linux
    /// `begin_new_exec()` (fs/exec.c) from the point of no return.
    pub fn execve(&mut self, current: TaskId, filename: &str) -> Result<()> {
        self.probed(crate::probe::Op::Execve, current, |k| {
            k.do_sys_execve(current, filename)
        })
    }

    fn do_sys_execve(&mut self, current: TaskId, filename: &str) -> Result<()> {
        let mut t = self.current(current)?;
        // The new image gets a new address space (allocated before the
        // point of no return, so a failure changes nothing).
        // The new, empty address space: its entry is made when needed.
        let new_mm = crate::task::state::mm_entry::TaskMm::EMPTY;
        let g = self.tasks[t].group;
        // PTRACE_EVENT_EXEC's message: the caller's tid before de_thread().
        let old_vpid = self.pid_for_tracer(t, t);
        if self.groups[g].nr_threads > 1 {
            t = self.de_thread(t);
        }
        // de_thread()'s end, for every exec: "we have changed execution
        // domain", the parent gets SIGCHLD and a clone child becomes an
        // ordinary one for __WCLONE.
        if self.groups[g].exit_signal.get() != SIGCHLD {
            self.set_exit_signal(g, SIGCHLD);
        }
        self.mm_release(t);
        let old_mm = core::mem::replace(&mut self.tasks[t].mm, new_mm);
        self.mmput(old_mm);
        let task = &mut self.tasks[t];
        task.flags &= !PF_FORKNOEXEC;
        task.self_exec_id = task.self_exec_id.wrapping_add(1);
        // begin_new_exec(): dumpable unless the ids differ.
        let c = &task.cred;
        let dumpable = c.euid == c.uid && c.egid == c.gid;
        // The new image's creds (cap_bprm_creds_from_file(), no set-id
        // binary, no file capabilities).
        let nnp = task
            .flags
            .contains(crate::task::task_struct::PFA_NO_NEW_PRIVS);
        let user_ns = c.user_ns.0;
        let ptracer_capable = self.ptracer_capable(t);
        let root = self.make_kuid(user_ns, 0).unwrap_or(u32::MAX);
        let task = &mut self.tasks[t];
        let (new_cred, secureexec) =
            crate::task::procapi::commoncap::bprm_creds(&task.cred, nnp, ptracer_capable, root);
        if secureexec {
            // The parent may not signal a privileged process.
            task.pdeath_signal = 0;
        }
        task.comm = comm_from_path(filename);
        if !dumpable {
            if let Some(mm) = self.mm_own(t).entry() {
                self.mms[mm].dumpable = false;
            }
        }
        // The new image's creds: saved and fs ids follow the effective
        // ones, committed by commit_creds(), which clears the dumpable flag
        // and the parent-death signal if the fs ids change or the
        // permitted set grows.
        self.commit_creds(t, new_cred);
        // The mask and pending signals stay.
        self.flush_signal_handlers(g);
        if !self.ptrace_event(t, crate::task::ptrace::event::PTRACE_EVENT_EXEC, old_vpid)
            && self.tasks[t].ptrace != 0
            && self.tasks[t].ptrace & PT_SEIZED == 0
        {
            // send_sig(SIGTRAP, current, 0): taken on the way back to user
            // space, after a syscall-exit stop.
            let info = crate::types::SigInfo {
                signo: SIGTRAP,
                code: crate::uapi::SI_USER,
                pid: self.pid_nr_ns(self.tasks[t].pid, self.ns_of(t)),
                uid: self.uid_seen_by(t, self.tasks[t].cred.uid),
                ..Default::default()
            };
            let _ = self.send_signal_locked(
                t,
                SIGTRAP,
                crate::task::signal::sigsend::SendInfo::Info(info),
                crate::task::signal::sigsend::PidType::Pid,
                false,
            );
        }
        self.run_deferred();
        Ok(())
    }

    /// `de_thread()`: kill the other threads of `t`'s group; if `t` is not
    /// the leader, it takes the leader's pid and the old leader is released.
    /// Returns `t` (whose handle stays valid).
    fn de_thread(&mut self, t: TaskIx) -> TaskIx {
        let g = self.tasks[t].group;
        self.group_exec_task = Some(t);
        for u in self.threads(g) {
            if u != t
                && self
                    .tasks
                    .get(u)
                    .is_some_and(|x| x.exit_state() == ExitState::Alive)
                && !self.tasks[u]
                    .flags
                    .contains(crate::task::task_struct::PF_EXITING)
            {
                // Killed threads of an exec'ing group exit with status 0.
                self.do_exit(u, 0);
            }
        }
        self.group_exec_task = None;
        let leader = self.groups[g].leader;
        if leader == t {
            return t;
        }
        debug_assert_eq!(self.tasks[leader].exit_state(), ExitState::Zombie);
        // The child edge (and the tracer's) point at the leader: re-key.
        self.unindex_child(g);
        self.unindex_ptrace(leader);
        self.unindex_ptrace(t);
        let (lp, tp) = (self.tasks[leader].pid, self.tasks[t].pid);
        // Exchange pids: the exec'ing thread becomes the tgid.
        self.tasks[t].pid = lp;
        self.tasks[leader].pid = tp;
        self.pids[lp].task = Some(t);
        self.pids[tp].task = Some(leader);
        self.tasks[t].start_time = self.tasks[leader].start_time;
        self.groups[g].leader = t;
        self.set_exit_signal(g, SIGCHLD);
        // The old leader's edges left the index above; it is released below.
        self.clear_traced_stop(leader);
        self.mark_task(t);
        // The old leader is released as an ordinary dead thread.
        self.release_task(leader);
        t
    }
}

/// `comm` for an exec of `path`: its last component, at most 15 bytes,
/// NUL-padded.
pub(crate) fn comm_from_path(path: &str) -> [u8; TASK_COMM_LEN] {
    let base = path.rsplit('/').next().unwrap_or(path);
    let mut comm = [0u8; TASK_COMM_LEN];
    let n = base.len().min(TASK_COMM_LEN - 1);
    comm[..n].copy_from_slice(&base.as_bytes()[..n]);
    comm
}

#[cfg(test)]
mod tests {
    use super::comm_from_path;

    #[test]
    fn comm_is_basename_truncated() {
        assert_eq!(&comm_from_path("/usr/bin/sh")[..3], b"sh\0");
        let c = comm_from_path("/x/a-very-long-program-name");
        assert_eq!(&c[..15], b"a-very-long-pro");
        assert_eq!(c[15], 0);
    }
}
