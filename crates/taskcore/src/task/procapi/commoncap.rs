//! The capability rules: `capget`/`capset`, how exec moves the five sets
//! (how uid changes move them is in [`crate::task::procapi::cred`]), and the capability prctl(2) options (`PR_CAPBSET_*`,
//! `PR_CAP_AMBIENT`, `PR_*_KEEPCAPS`, `PR_*_SECUREBITS`,
//! `PR_*_NO_NEW_PRIVS`).
//!
//! There are no file capabilities: every exec is of a binary without
//! them. Root is the uid 0 of the credentials' user namespace.
//!
//! # Linux
//! kernel/capability.c (`capget`, `capset`), security/commoncap.c
//! (`cap_capset()`, `cap_emulate_setxuid()`, `cap_task_fix_setuid()`,
//! `cap_bprm_creds_from_file()`, `cap_task_prctl()`), kernel/sys.c
//! (`PR_SET_NO_NEW_PRIVS`).

use crate::errno::{Errno, Result};
use crate::task::kernel::{Kernel, TaskId};
use crate::task::state::capability::{
    cap_data_entries, Cap, CapUserData, KernelCap, CAP_SETPCAP, CAP_SYS_PTRACE, SECBIT_KEEP_CAPS,
    SECBIT_KEEP_CAPS_LOCKED, SECBIT_NOROOT, SECBIT_NO_CAP_AMBIENT_RAISE, SECURE_ALL_BITS,
    SECURE_ALL_LOCKS,
};
use crate::task::state::cred_struct::Cred;
use crate::task::task_struct::{TaskIx, PFA_NO_NEW_PRIVS};

/// `PR_CAP_AMBIENT`'s sub-commands (`arg2`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AmbientOp {
    /// `PR_CAP_AMBIENT_IS_SET` (1): returns 1 if raised, else 0.
    IsSet,
    /// `PR_CAP_AMBIENT_RAISE` (2).
    Raise,
    /// `PR_CAP_AMBIENT_LOWER` (3).
    Lower,
    /// `PR_CAP_AMBIENT_CLEAR_ALL` (4).
    ClearAll,
}

impl AmbientOp {
    /// The sub-command numbered `arg2`, `None` for an unknown one.
    pub fn from_arg(arg2: u64) -> Option<AmbientOp> {
        Some(match arg2 {
            1 => AmbientOp::IsSet,
            2 => AmbientOp::Raise,
            3 => AmbientOp::Lower,
            4 => AmbientOp::ClearAll,
            _ => return None,
        })
    }
}

/// `cap_bprm_creds_from_file()` for a binary without file capabilities
/// and without set-id bits, `old` being the caller's credentials and
/// `no_new_privs` its flag; `ptracer_capable` says whether its tracer (if
/// any) has `CAP_SYS_PTRACE`. Returns the new credentials and whether the
/// exec is `secureexec`: effective ids other than the real ones, or
/// capabilities beyond the ambient set for a task whose real uid is not 0
/// (Linux 6.16's rules: without a set-id bit the ids do not change, so
/// the ambient set stays even when the effective and real ids differ).
///
/// Root (real or effective uid `root`, the kernel uid of the user
/// namespace's uid 0 or `u32::MAX` when unmapped; unless `SECBIT_NOROOT`)
/// gets the bounding and inheritable sets as permitted, effective as well
/// when its effective uid is root; anyone else keeps only the ambient set.
pub(crate) fn bprm_creds(
    old: &Cred,
    no_new_privs: bool,
    ptracer_capable: bool,
    root: u32,
) -> (Cred, bool) {
    let mut new = old.clone();
    let mut effective = false;
    new.cap_permitted = KernelCap::EMPTY;
    if old.securebits & SECBIT_NOROOT == 0 {
        if new.euid == root || new.uid == root {
            new.cap_permitted = old.cap_bset.union(old.cap_inheritable);
        }
        effective = new.euid == root;
    }
    let gained = !new.cap_permitted.is_subset(old.cap_permitted);
    if gained && (no_new_privs || !ptracer_capable) {
        // No set-id bit: the ids stay; the permitted set is at most the
        // old one.
        new.cap_permitted = new.cap_permitted.intersect(old.cap_permitted);
    }
    (new.suid, new.fsuid) = (new.euid, new.euid);
    (new.sgid, new.fsgid) = (new.egid, new.egid);
    new.cap_permitted = new.cap_permitted.union(new.cap_ambient);
    new.cap_effective = if effective {
        new.cap_permitted
    } else {
        new.cap_ambient
    };
    new.securebits &= !SECBIT_KEEP_CAPS;
    // __cap_grew(permitted, ambient): permitted beyond ambient.
    let grew = !new.cap_permitted.is_subset(new.cap_ambient);
    let secureexec =
        new.euid != old.uid || new.egid != old.gid || (new.uid != root && (effective || grew));
    (new, secureexec)
}

/// # Process API: capabilities, capget/capset and the capability prctls (`kernel/capability.c`, `security/commoncap.c`).
impl Kernel {
    /// `capget(hdr, data)`: the effective, permitted and inheritable sets
    /// of process `pid` (0 or the caller's own pid: the caller), with
    /// `hdr.version` `version`. `with_data` false is a NULL data pointer:
    /// only the version is checked, and even an unknown one returns
    /// `Ok(None)`.
    ///
    /// For an unknown version Linux writes
    /// [`LINUX_CAPABILITY_VERSION_3`](crate::task::state::capability::LINUX_CAPABILITY_VERSION_3)
    /// into `hdr.version` (the embedder does, with a NULL data pointer
    /// too). Version 1 copies out only the low 32 bits of each set.
    ///
    /// # Errors
    /// - `ESRCH`: `current` stale; no process `pid` in the caller's pid
    ///   namespace.
    /// - `EINVAL`: an unknown version (with a data pointer); `pid`
    ///   negative.
    ///
    /// # Linux
    /// `SYSCALL_DEFINE2(capget)`, `cap_validate_magic()`,
    /// `cap_get_target_pid()` (kernel/capability.c).
    pub fn capget(
        &self,
        current: TaskId,
        version: u32,
        pid: i32,
        with_data: bool,
    ) -> Result<Option<CapUserData>> {
        let cur = self.task_idx(current)?;
        if !with_data {
            return Ok(None);
        }
        if cap_data_entries(version).is_none() || pid < 0 {
            return Err(Errno::EINVAL);
        }
        let t = if pid == 0 {
            cur
        } else {
            self.find_task(self.ns_of(cur), pid).ok_or(Errno::ESRCH)?
        };
        let c = &self.tasks[t].cred;
        Ok(Some(CapUserData {
            effective: c.cap_effective,
            permitted: c.cap_permitted,
            inheritable: c.cap_inheritable,
        }))
    }

    /// `capset(hdr, data)`: sets the caller's effective, permitted and
    /// inheritable sets to `data` (`None`: the data pointer could not be
    /// read). The ambient set keeps only what stays both permitted and
    /// inheritable. A permitted set that does not grow leaves the
    /// dumpable flag and parent-death signal alone.
    ///
    /// # Errors
    /// In Linux's order:
    /// - `ESRCH`: `current` stale;
    /// - `EINVAL`: an unknown `version` (Linux writes version 3 back);
    /// - `EPERM`: `pid` neither 0 nor the caller's own pid;
    /// - `EFAULT`: `data` `None`;
    /// - `EPERM` (`cap_capset()`): a new inheritable capability outside
    ///   the old inheritable and permitted sets without `CAP_SETPCAP`, or
    ///   outside the old inheritable and bounding sets; a permitted set
    ///   beyond the old one; an effective set beyond the new permitted.
    ///
    /// # Linux
    /// `SYSCALL_DEFINE2(capset)` (kernel/capability.c), `cap_capset()`
    /// (security/commoncap.c).
    pub fn capset(
        &mut self,
        current: TaskId,
        version: u32,
        pid: i32,
        data: Option<CapUserData>,
    ) -> Result<()> {
        let cur = self.current(current)?;
        if cap_data_entries(version).is_none() {
            return Err(Errno::EINVAL);
        }
        if pid != 0 && pid != self.pid_nr_ns(self.tasks[cur].pid, self.ns_of(cur)) {
            return Err(Errno::EPERM);
        }
        let d = data.ok_or(Errno::EFAULT)?;
        self.change_cred(current, |c| {
            let inh_room = if c.capable(CAP_SETPCAP) {
                KernelCap::FULL
            } else {
                c.cap_inheritable.union(c.cap_permitted)
            };
            if !d.inheritable.is_subset(inh_room)
                || !d.inheritable.is_subset(c.cap_inheritable.union(c.cap_bset))
                || !d.permitted.is_subset(c.cap_permitted)
                || !d.effective.is_subset(d.permitted)
            {
                return Err(Errno::EPERM);
            }
            c.cap_effective = d.effective;
            c.cap_inheritable = d.inheritable;
            c.cap_permitted = d.permitted;
            c.cap_ambient = c
                .cap_ambient
                .intersect(d.permitted.intersect(d.inheritable));
            Ok(())
        })
    }

    /// `prctl(PR_CAPBSET_READ, cap)`: 1 if `cap` is in the caller's
    /// bounding set, else 0.
    ///
    /// # Errors
    /// `ESRCH` stale `current`; `EINVAL` if `cap` is above
    /// [`CAP_LAST_CAP`](crate::task::state::capability::CAP_LAST_CAP).
    ///
    /// # Linux
    /// `cap_task_prctl()` PR_CAPBSET_READ.
    pub fn pr_capbset_read(&self, current: TaskId, cap: u64) -> Result<i32> {
        let c = &self.tasks[self.task_idx(current)?].cred;
        let cap = Cap::from_arg(cap).ok_or(Errno::EINVAL)?;
        Ok(i32::from(c.cap_bset.has(cap)))
    }

    /// `prctl(PR_CAPBSET_DROP, cap)`: removes `cap` from the caller's
    /// bounding set (for good).
    ///
    /// # Errors
    /// `ESRCH` stale `current`; `EPERM` without `CAP_SETPCAP` (checked
    /// first); `EINVAL` if `cap` is not a capability.
    ///
    /// # Linux
    /// `cap_prctl_drop()` (security/commoncap.c).
    pub fn pr_capbset_drop(&mut self, current: TaskId, cap: u64) -> Result<()> {
        self.change_cred(current, |c| {
            if !c.capable(CAP_SETPCAP) {
                return Err(Errno::EPERM);
            }
            let cap = Cap::from_arg(cap).ok_or(Errno::EINVAL)?;
            c.cap_bset = c.cap_bset.without(cap);
            Ok(())
        })
    }

    /// `prctl(PR_CAP_AMBIENT, arg2, arg3, arg4, arg5)`. Returns 0, or for
    /// [`AmbientOp::IsSet`] 1 if `arg3` is in the ambient set.
    /// [`AmbientOp::Raise`] needs the capability in the permitted and
    /// inheritable sets.
    ///
    /// # Errors
    /// - `ESRCH`: `current` stale.
    /// - `EINVAL`: `CLEAR_ALL` with a non-zero `arg3`, `arg4` or `arg5`;
    ///   otherwise `arg3` not a capability, non-zero `arg4`/`arg5`, or an
    ///   unknown `arg2` (`op` `None`).
    /// - `EPERM`: a raise of a capability not both permitted and
    ///   inheritable, or under `SECBIT_NO_CAP_AMBIENT_RAISE`.
    ///
    /// # Linux
    /// `cap_task_prctl()` PR_CAP_AMBIENT.
    pub fn pr_cap_ambient(
        &mut self,
        current: TaskId,
        op: Option<AmbientOp>,
        arg3: u64,
        arg4: u64,
        arg5: u64,
    ) -> Result<i32> {
        let cur = self.current(current)?;
        if op == Some(AmbientOp::ClearAll) {
            if arg3 | arg4 | arg5 != 0 {
                return Err(Errno::EINVAL);
            }
            self.change_cred(current, |c| {
                c.cap_ambient = KernelCap::EMPTY;
                Ok(())
            })?;
            return Ok(0);
        }
        let cap = match Cap::from_arg(arg3) {
            Some(cap) if arg4 | arg5 == 0 => cap,
            _ => return Err(Errno::EINVAL),
        };
        let c = &self.tasks[cur].cred;
        match op.ok_or(Errno::EINVAL)? {
            AmbientOp::IsSet => Ok(i32::from(c.cap_ambient.has(cap))),
            AmbientOp::Raise => {
                if !c.cap_permitted.has(cap)
                    || !c.cap_inheritable.has(cap)
                    || c.securebits & SECBIT_NO_CAP_AMBIENT_RAISE != 0
                {
                    return Err(Errno::EPERM);
                }
                self.change_cred(current, |c| {
                    c.cap_ambient = c.cap_ambient.with(cap);
                    Ok(())
                })?;
                Ok(0)
            }
            AmbientOp::Lower => {
                self.change_cred(current, |c| {
                    c.cap_ambient = c.cap_ambient.without(cap);
                    Ok(())
                })?;
                Ok(0)
            }
            AmbientOp::ClearAll => Err(Errno::EINVAL),
        }
    }

    /// `prctl(PR_SET_SECUREBITS, bits)`: sets the securebits.
    ///
    /// # Errors
    /// `ESRCH` stale `current`; `EPERM` if it changes a locked bit,
    /// clears a lock, sets a bit that is not a securebit, or the caller
    /// lacks `CAP_SETPCAP`.
    ///
    /// # Linux
    /// `cap_task_prctl()` PR_SET_SECUREBITS.
    pub fn pr_set_securebits(&mut self, current: TaskId, bits: u64) -> Result<()> {
        self.change_cred(current, |c| {
            let old = u64::from(c.securebits);
            let locks = u64::from(SECURE_ALL_LOCKS);
            if (old & locks) >> 1 & (old ^ bits) != 0
                || old & locks & !bits != 0
                || bits & !u64::from(SECURE_ALL_LOCKS | SECURE_ALL_BITS) != 0
                || !c.capable(CAP_SETPCAP)
            {
                return Err(Errno::EPERM);
            }
            c.securebits = bits as u32;
            Ok(())
        })
    }

    /// `prctl(PR_GET_SECUREBITS)`: the securebits (the return value).
    ///
    /// # Errors
    /// `ESRCH` if `current` is stale.
    pub fn pr_get_securebits(&self, current: TaskId) -> Result<i32> {
        Ok(self.tasks[self.task_idx(current)?].cred.securebits as i32)
    }

    /// `prctl(PR_SET_KEEPCAPS, arg)`: sets or clears `SECBIT_KEEP_CAPS`
    /// (the permitted set survives leaving uid 0; cleared at exec).
    ///
    /// # Errors
    /// `ESRCH` stale `current`; `EINVAL` if `arg` is above 1; `EPERM`
    /// under `SECBIT_KEEP_CAPS_LOCKED`.
    ///
    /// # Linux
    /// `cap_task_prctl()` PR_SET_KEEPCAPS.
    pub fn pr_set_keepcaps(&mut self, current: TaskId, arg: u64) -> Result<()> {
        self.change_cred(current, |c| {
            if arg > 1 {
                return Err(Errno::EINVAL);
            }
            if c.securebits & SECBIT_KEEP_CAPS_LOCKED != 0 {
                return Err(Errno::EPERM);
            }
            if arg == 1 {
                c.securebits |= SECBIT_KEEP_CAPS;
            } else {
                c.securebits &= !SECBIT_KEEP_CAPS;
            }
            Ok(())
        })
    }

    /// `prctl(PR_GET_KEEPCAPS)`: 1 if `SECBIT_KEEP_CAPS` is set, else 0.
    ///
    /// # Errors
    /// `ESRCH` if `current` is stale.
    pub fn pr_get_keepcaps(&self, current: TaskId) -> Result<i32> {
        let c = &self.tasks[self.task_idx(current)?].cred;
        Ok(i32::from(c.securebits & SECBIT_KEEP_CAPS != 0))
    }

    /// `prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)`: sets the caller's
    /// no_new_privs flag (for good; children inherit it): an exec no
    /// longer gains capabilities.
    ///
    /// # Errors
    /// `ESRCH` stale `current`; `EINVAL` unless `args` is `[1, 0, 0, 0]`.
    ///
    /// # Linux
    /// `prctl()` PR_SET_NO_NEW_PRIVS, `task_set_no_new_privs()`.
    pub fn pr_set_no_new_privs(&mut self, current: TaskId, args: [u64; 4]) -> Result<()> {
        let cur = self.current(current)?;
        if args != [1, 0, 0, 0] {
            return Err(Errno::EINVAL);
        }
        self.tasks[cur].flags |= PFA_NO_NEW_PRIVS;
        Ok(())
    }

    /// `prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)`: 1 if set, else 0.
    ///
    /// # Errors
    /// `ESRCH` stale `current`; `EINVAL` unless `args` are all 0.
    pub fn pr_get_no_new_privs(&self, current: TaskId, args: [u64; 4]) -> Result<i32> {
        let cur = self.task_idx(current)?;
        if args != [0; 4] {
            return Err(Errno::EINVAL);
        }
        Ok(i32::from(self.tasks[cur].flags.contains(PFA_NO_NEW_PRIVS)))
    }

    /// Whether task `t`'s tracer, if any, has `CAP_SYS_PTRACE` over `t`'s
    /// user namespace (`ptracer_capable()`; an untraced task: true).
    pub(crate) fn ptracer_capable(&self, t: TaskIx) -> bool {
        let ns = self.tasks[t].cred.user_ns.0;
        match self.tasks[t].parent {
            Some(tr) if self.tasks[t].ptrace != 0 => self
                .tasks
                .get(tr)
                .is_none_or(|x| self.ns_capable_cred(&x.cred, ns, CAP_SYS_PTRACE)),
            _ => true,
        }
    }

    /// `ns_capable(current_user_ns(), cap)` for task `t`: `cap` in its
    /// effective set.
    pub(crate) fn has_cap(&self, t: TaskIx, cap: Cap) -> bool {
        self.tasks[t].cred.capable(cap)
    }
}
