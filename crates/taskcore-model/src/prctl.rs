//! `prctl(PR_SET_NAME)` and `prctl(PR_GET_NAME)`: a thread's name;
//! `prctl(PR_SET_PDEATHSIG)` and `prctl(PR_GET_PDEATHSIG)`: the signal a
//! thread's process gets when its parent thread exits (sent by
//! `forget_original_parent()`, module `exit`; cleared by a credential
//! change, module `cred`, and by a privileged exec, module `exec`).
//!
//! # Linux
//! kernel/sys.c `prctl()`, `__set_task_comm()`; fs/exec.c sets the name
//! of an exec'd image from its path's last component.

use crate::{Model, Result, Tid};

/// A name as `comm` keeps it: up to the first NUL, at most 15 bytes, the
/// rest of the 16 NUL.
pub(crate) fn comm_of(name: &[u8]) -> [u8; 16] {
    let mut comm = [0u8; 16];
    for (slot, &b) in comm
        .iter_mut()
        .zip(name.iter().take(15).take_while(|&&b| b != 0))
    {
        *slot = b;
    }
    comm
}

impl Model {
    /// `prctl(PR_SET_NAME, name)`: the thread's name becomes `name` up to a
    /// NUL, cut to 15 bytes.
    ///
    /// # Errors
    /// `ESRCH` if `current` is stale.
    pub fn pr_set_name(&mut self, current: Tid, name: &[u8]) -> Result<()> {
        let t = self.task_idx(current)?;
        self.task_mut(t).comm = comm_of(name);
        Ok(())
    }

    /// `prctl(PR_GET_NAME, buf)`: the 16 bytes Linux copies out.
    ///
    /// # Errors
    /// `ESRCH` if `current` is stale.
    pub fn pr_get_name(&self, current: Tid) -> Result<[u8; 16]> {
        let t = self.task_idx(current)?;
        Ok(self.task(t).comm)
    }

    /// `prctl(PR_SET_PDEATHSIG, sig)`: the signal (0 for none) the calling
    /// thread's process is sent, as by `kill()` from the parent thread
    /// (`SI_USER`, with `kill()`'s permission check), when the thread that
    /// created it (its `real_parent`) exits, even if that thread's process
    /// lives on. A new task starts with none; a change of effective or fs
    /// uid or gid clears it, and so does an exec whose effective ids differ
    /// from the real ones (`secureexec`) or that resets the fs ids.
    ///
    /// # Errors
    /// `ESRCH`: stale or exiting caller. `EINVAL`: `sig` outside 0..=64
    /// (`valid_signal()`).
    ///
    /// # Linux
    /// `prctl()` PR_SET_PDEATHSIG (kernel/sys.c).
    pub fn set_pdeathsig(&mut self, current: Tid, sig: i32) -> Result<()> {
        let t = self.current(current)?;
        self.task_mut(t).pdeath_signal = taskcore::rules::pdeathsig_sig(sig)?;
        Ok(())
    }

    /// `prctl(PR_GET_PDEATHSIG, &sig)`: the calling thread's parent-death
    /// signal, 0 for none.
    ///
    /// # Errors
    /// `ESRCH`: stale caller.
    ///
    /// # Linux
    /// `prctl()` PR_GET_PDEATHSIG (kernel/sys.c).
    pub fn pdeathsig(&self, current: Tid) -> Result<i32> {
        let t = self.task_idx(current)?;
        Ok(self.task(t).pdeath_signal)
    }
}
