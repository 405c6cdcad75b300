//! The prctl options of the process table: the thread's name, the
//! parent-death signal, the dumpable flag (`PR_SET_CHILD_SUBREAPER` lives with the process
//! groups, [`Kernel::set_child_subreaper`]).
//!
//! # Linux
//! kernel/sys.c `prctl()`.

use crate::errno::Result;
use crate::task::kernel::{Kernel, TaskId};
use crate::uapi::TASK_COMM_LEN;

/// # Process API: prctl (`kernel/sys.c`).
impl Kernel {
    /// `prctl(PR_SET_NAME, name)`: [`Kernel::set_comm`] (15 bytes kept,
    /// up to a NUL; shown by `/proc` comm, stat and status).
    ///
    /// # Errors
    /// `ESRCH` if `current` is stale.
    pub fn pr_set_name(&mut self, current: TaskId, name: &[u8]) -> Result<()> {
        self.set_comm(current, name)
    }

    /// `prctl(PR_GET_NAME, buf)`: the 16 bytes Linux copies out, the name
    /// NUL-padded.
    ///
    /// # Errors
    /// `ESRCH` if `current` is stale.
    pub fn pr_get_name(&self, current: TaskId) -> Result<[u8; TASK_COMM_LEN]> {
        let t = self.task_idx(current)?;
        Ok(self.tasks[t].comm)
    }

    /// `prctl(PR_SET_PDEATHSIG, sig)`: the signal the calling thread gets
    /// when its parent *thread* exits (0 for none), even if the parent's
    /// process lives on: sent to the thread's process as `kill` from the
    /// exiting thread would (`SI_USER`, `si_pid` its tgid), preferring this
    /// thread, and only with `kill`'s permission. A child starts with none,
    /// and a change of effective or fs uid or gid clears it
    /// (`commit_creds()`, also at an exec that resets the fs ids to the
    /// effective ones), as does an exec with effective ids other than the
    /// real ones (`secureexec`; there are no set-id binaries here).
    ///
    /// # Linux
    /// `prctl()` PR_SET_PDEATHSIG; `forget_original_parent()` sends it.
    ///
    /// # Errors
    /// `ESRCH` if `current` is stale; `EINVAL` if `sig` is not 0..=64.
    pub fn set_pdeathsig(&mut self, current: TaskId, sig: i32) -> Result<()> {
        let t = self.current(current)?;
        // pdeathsig_sig() accepts 0..=64 only.
        self.tasks[t].pdeath_signal = crate::rules::pdeathsig_sig(sig)? as u8;
        Ok(())
    }

    /// `prctl(PR_GET_PDEATHSIG, &sig)`: the stored parent-death signal.
    ///
    /// # Errors
    /// `ESRCH` if `current` is stale.
    pub fn pdeathsig(&self, current: TaskId) -> Result<i32> {
        let t = self.task_idx(current)?;
        Ok(i32::from(self.tasks[t].pdeath_signal))
    }

    /// `prctl(PR_SET_DUMPABLE, arg)`: sets the dumpable flag of the
    /// caller's address space (shared by the threads and `CLONE_VM`
    /// children using it, copied by fork): `0` (`SUID_DUMP_DISABLE`) or
    /// `1` (`SUID_DUMP_USER`). While clear, [`Kernel::ptrace_may_access`]
    /// refuses unprivileged callers and the process's `/proc` files belong
    /// to root. A change of effective or fs ids clears it, an exec with
    /// equal real and effective ids sets it.
    ///
    /// # Errors
    /// - `ESRCH`: `current` stale.
    /// - `EINVAL`: `arg` neither 0 nor 1 (2, `SUID_DUMP_ROOT`, is only for
    ///   the `suid_dumpable` sysctl).
    ///
    /// # Linux
    /// `prctl()` PR_SET_DUMPABLE, `set_dumpable()` (kernel/sys.c,
    /// fs/exec.c); tests/oracle/ptrace_access.c.
    pub fn pr_set_dumpable(&mut self, current: TaskId, arg: u64) -> Result<()> {
        let t = self.current(current)?;
        let dumpable = crate::rules::dumpable_arg(arg)?;
        // An entry-less space is dumpable already.
        if dumpable != self.mm_dumpable(self.tasks[t].mm) {
            if let Some(mm) = self.mm_own(t).entry() {
                self.mms[mm].dumpable = dumpable;
            }
        }
        Ok(())
    }

    /// `prctl(PR_GET_DUMPABLE)`: the dumpable flag of the caller's address
    /// space, 0 or 1 (the return value).
    ///
    /// # Errors
    /// `ESRCH` if `current` is stale.
    ///
    /// # Linux
    /// `prctl()` PR_GET_DUMPABLE, `get_dumpable()`.
    pub fn pr_get_dumpable(&self, current: TaskId) -> Result<i32> {
        let t = self.task_idx(current)?;
        Ok(i32::from(self.mm_dumpable(self.tasks[t].mm)))
    }
}
