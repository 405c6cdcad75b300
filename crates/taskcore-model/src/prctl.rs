//! `prctl(PR_SET_NAME)` and `prctl(PR_GET_NAME)`: a thread's name.
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
}
