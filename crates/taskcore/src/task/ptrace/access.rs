//! `ptrace_may_access`: may one task inspect or trace another?
//!
//! Linux asks this before `PTRACE_ATTACH`/`PTRACE_SEIZE` and before
//! serving the sensitive `/proc/PID` files:
//!
//! 1. A task of the caller's own thread group: always allowed.
//! 2. Otherwise the caller's uid must equal the target's real, effective
//!    and saved uids, and its gid the target's real, effective and saved
//!    gids. The caller's *real* ids count for [`PtraceMode::AttachRealCreds`]
//!    (and [`PtraceMode::ReadRealCreds`]), its *fs* ids for the `FSCREDS`
//!    modes. A caller with `CAP_SYS_PTRACE` passes without the match.
//! 3. Then the target's address space must be dumpable (`SUID_DUMP_USER`,
//!    see [`Kernel::pr_set_dumpable`]) unless the caller has
//!    `CAP_SYS_PTRACE`. A target without an address space (a zombie)
//!    passes.
//! 4. Then (`cap_ptrace_access_check()`) the target's permitted
//!    capabilities must be within the caller's permitted set (effective
//!    set for the `FSCREDS` modes), unless the caller has `CAP_SYS_PTRACE`.
//!
//! Not modelled: user namespaces (`ptrace_has_cap()` asks in the target's
//! user namespace), LSMs (Yama's `ptrace_scope`, which would refuse
//! non-descendants), and `PTRACE_MODE_NOAUDIT`.
//!
//! # Linux
//! kernel/ptrace.c `__ptrace_may_access()`, `ptrace_has_cap()`;
//! security/commoncap.c `cap_ptrace_access_check()`;
//! include/linux/ptrace.h `PTRACE_MODE_*`. Recorded against Linux in
//! tests/oracle/ptrace_access.c.

use crate::errno::{Errno, Result};
use crate::ix::TaskIx;
use crate::task::kernel::{Kernel, TaskId};
use crate::task::state::capability::CAP_SYS_PTRACE;

/// What the access is for, and whose ids the caller is judged by
/// (`PTRACE_MODE_READ`/`PTRACE_MODE_ATTACH` with `PTRACE_MODE_FSCREDS` or
/// `PTRACE_MODE_REALCREDS`). READ and ATTACH differ only for LSMs, which
/// are not modelled; the ids used differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PtraceMode {
    /// `PTRACE_MODE_READ_FSCREDS`: reading `/proc/PID` files (`maps`,
    /// `stat`'s address fields, `ns/*` links); the caller's fs ids.
    ReadFsCreds,
    /// `PTRACE_MODE_READ_REALCREDS`: the caller's real ids.
    ReadRealCreds,
    /// `PTRACE_MODE_ATTACH_FSCREDS`: the caller's fs ids.
    AttachFsCreds,
    /// `PTRACE_MODE_ATTACH_REALCREDS`: `PTRACE_ATTACH`, `PTRACE_SEIZE`; the
    /// caller's real ids.
    AttachRealCreds,
}

impl PtraceMode {
    fn fscreds(self) -> bool {
        matches!(self, PtraceMode::ReadFsCreds | PtraceMode::AttachFsCreds)
    }
}

/// # ptrace: access checks (`ptrace_may_access()`) and dumpability.
impl Kernel {
    /// Whether task `cur` may access task `t` in `mode` (slab indices of
    /// live table entries).
    pub(crate) fn may_access(&self, cur: TaskIx, t: TaskIx, mode: PtraceMode) -> bool {
        if self.same_group(Some(cur), Some(t)) {
            return true;
        }
        let c = &self.tasks[cur].cred;
        let tc = &self.tasks[t].cred;
        let (uid, gid) = if mode.fscreds() {
            (c.fsuid, c.fsgid)
        } else {
            (c.uid, c.gid)
        };
        let ids_match = [tc.uid, tc.euid, tc.suid].iter().all(|&u| u == uid)
            && [tc.gid, tc.egid, tc.sgid].iter().all(|&g| g == gid);
        // ptrace_has_cap(): CAP_SYS_PTRACE over the target's user
        // namespace (also standing for its mm's, `mm->user_ns`).
        let has_cap = self.ns_capable_cred(c, tc.user_ns.0, CAP_SYS_PTRACE);
        if !ids_match && !has_cap {
            return false;
        }
        let mm = self.tasks[t].mm;
        if !(mm.is_gone() || self.mm_dumpable(mm) || has_cap) {
            return false;
        }
        // cap_ptrace_access_check(): the target's permitted set within the
        // caller's effective (fs creds) or permitted set, or
        // CAP_SYS_PTRACE.
        let caller_caps = if mode.fscreds() {
            c.cap_effective
        } else {
            c.cap_permitted
        };
        tc.cap_permitted.is_subset(caller_caps) || has_cap
    }

    /// `ptrace_may_access(target, mode)` asked by `current`: `Ok(())` if
    /// allowed (the rules are in [`crate::task::ptrace::access`]).
    ///
    /// # Errors
    /// - `ESRCH`: `current` or `target` is stale.
    /// - `EPERM`: access refused (Linux's `__ptrace_may_access()` result;
    ///   callers turn it into their own errno, `/proc` into `EACCES`).
    ///
    /// # Linux
    /// `ptrace_may_access()` (kernel/ptrace.c).
    pub fn ptrace_may_access(
        &self,
        current: TaskId,
        target: TaskId,
        mode: PtraceMode,
    ) -> Result<()> {
        let cur = self.task_idx(current)?;
        let t = self.task_idx(target)?;
        if self.may_access(cur, t, mode) {
            Ok(())
        } else {
            Err(Errno::EPERM)
        }
    }

    /// `ptrace_may_access(target, PTRACE_MODE_READ_FSCREDS)` by `reader`,
    /// as `/proc` asks it: `EACCES` when refused.
    fn proc_access(&self, reader: TaskId, target: TaskId) -> Result<()> {
        let r = self.task_idx(reader)?;
        let t = self.task_idx(target)?;
        if self.may_access(r, t, PtraceMode::ReadFsCreds) {
            Ok(())
        } else {
            Err(Errno::EACCES)
        }
    }

    /// [`Kernel::ns_readlink`] done by task `reader`: Linux serves the link
    /// only to a reader that may `ptrace_may_access` the task with
    /// `PTRACE_MODE_READ_FSCREDS`.
    ///
    /// # Errors
    /// - `ESRCH`: `reader` or `task` stale.
    /// - `EACCES`: the access check refuses (before any `ENOENT`).
    /// - otherwise as [`Kernel::ns_readlink`].
    ///
    /// # Linux
    /// `proc_ns_readlink()` (fs/proc/namespaces.c);
    /// tests/oracle/ptrace_access.c.
    pub fn ns_readlink_as(
        &self,
        reader: TaskId,
        task: TaskId,
        kind: crate::task::procapi::nsproxy::NsKind,
    ) -> Result<String> {
        self.proc_access(reader, task)?;
        self.ns_readlink(task, kind)
    }

    /// [`Kernel::ns_open`] done by task `reader` (opening or following the
    /// link), with the access check of [`Kernel::ns_readlink_as`].
    ///
    /// # Errors
    /// - `ESRCH`: `reader` or `task` stale.
    /// - `EACCES`: the access check refuses.
    /// - otherwise as [`Kernel::ns_open`].
    ///
    /// # Linux
    /// `proc_ns_get_link()` (fs/proc/namespaces.c).
    pub fn ns_open_as(
        &mut self,
        reader: TaskId,
        task: TaskId,
        kind: crate::task::procapi::nsproxy::NsKind,
    ) -> Result<crate::pid::NsRef> {
        self.proc_access(reader, task)?;
        self.ns_open(task, kind)
    }
}
