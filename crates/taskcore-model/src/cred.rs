//! Credentials: the set*id family and kill's permission check.
//!
//! "Privileged" is effective uid 0 (all capabilities), as in the core.
//!
//! # Linux
//! kernel/sys.c `__sys_setuid()` and siblings; kernel/signal.c
//! `kill_ok_by_cred()`, `check_kill_permission()`.

use crate::{Cred, Errno, Model, Result, Tid};

/// `(uid_t)-1`.
const KEEP: u32 = u32::MAX;

/// What `check_kill_permission()` needs of a sender.
pub(crate) struct Sender {
    pub(crate) cred: Cred,
    pub(crate) signal: usize,
    pub(crate) session: usize,
}

impl Model {
    /// The credentials of `t`.
    ///
    /// # Errors
    /// `ESRCH` if `t` is stale.
    pub fn cred(&self, t: Tid) -> Result<Cred> {
        let i = self.task_idx(t)?;
        Ok(self.task(i).cred.clone())
    }

    /// `commit_creds()`: a change of effective or fs uid or gid makes the
    /// address space not dumpable (`suid_dumpable` is 0).
    fn commit(&mut self, cur: usize, new: Cred) {
        let old = &self.task(cur).cred;
        let key = |c: &Cred| [c.euid, c.egid, c.fsuid, c.fsgid];
        if key(old) != key(&new) {
            if let Some(m) = self.task(cur).mm {
                self.mms[m] = false;
            }
        }
        self.task_mut(cur).cred = new;
    }

    /// `setresuid(r, e, s)`: -1 keeps; unprivileged, each new id must be
    /// one of the current three; fsuid follows euid.
    ///
    /// # Errors
    /// `ESRCH` stale caller; `EPERM`.
    pub fn setresuid(&mut self, current: Tid, r: u32, e: u32, s: u32) -> Result<()> {
        let cur = self.current(current)?;
        let mut c = self.task(cur).cred.clone();
        let old = [c.uid, c.euid, c.suid];
        for x in [r, e, s] {
            if x != KEEP && !old.contains(&x) && c.euid != 0 {
                return Err(Errno::EPERM);
            }
        }
        if r != KEEP {
            c.uid = r;
        }
        if e != KEEP {
            c.euid = e;
        }
        if s != KEEP {
            c.suid = s;
        }
        c.fsuid = c.euid;
        self.commit(cur, c);
        Ok(())
    }

    /// `setuid(uid)`: privileged sets all four uids; otherwise euid and
    /// fsuid, if `uid` is the real or saved uid.
    ///
    /// # Errors
    /// `ESRCH` stale caller; `EINVAL` for -1; `EPERM`.
    pub fn setuid(&mut self, current: Tid, uid: u32) -> Result<()> {
        let cur = self.current(current)?;
        if uid == KEEP {
            return Err(Errno::EINVAL);
        }
        let mut c = self.task(cur).cred.clone();
        if c.euid == 0 {
            (c.uid, c.suid) = (uid, uid);
        } else if uid != c.uid && uid != c.suid {
            return Err(Errno::EPERM);
        }
        (c.euid, c.fsuid) = (uid, uid);
        self.commit(cur, c);
        Ok(())
    }

    /// `setreuid(r, e)`: see the core's `Kernel::setreuid`.
    ///
    /// # Errors
    /// `ESRCH` stale caller; `EPERM`.
    pub fn setreuid(&mut self, current: Tid, r: u32, e: u32) -> Result<()> {
        let cur = self.current(current)?;
        let mut c = self.task(cur).cred.clone();
        let priv_ = c.euid == 0;
        let old = c.clone();
        if r != KEEP && !priv_ && r != old.uid && r != old.euid {
            return Err(Errno::EPERM);
        }
        if e != KEEP && !priv_ && ![old.uid, old.euid, old.suid].contains(&e) {
            return Err(Errno::EPERM);
        }
        if r != KEEP {
            c.uid = r;
        }
        if e != KEEP {
            c.euid = e;
        }
        if r != KEEP || (e != KEEP && e != old.uid) {
            c.suid = c.euid;
        }
        c.fsuid = c.euid;
        self.commit(cur, c);
        Ok(())
    }

    /// The sender snapshot of task `cur`.
    pub(crate) fn sender(&self, cur: usize) -> Sender {
        let signal = self.task(cur).signal;
        Sender {
            cred: self.task(cur).cred.clone(),
            signal,
            session: self.sig(cur).session,
        }
    }

    /// `check_kill_permission()` for a valid signal from user space.
    pub(crate) fn may_kill(&self, s: &Sender, p: usize, sig: i32) -> bool {
        let t = self.task(p);
        if t.signal == s.signal || s.cred.euid == 0 {
            return true;
        }
        let tc = &t.cred;
        let by_cred = [s.cred.euid, s.cred.uid]
            .iter()
            .any(|&u| u == tc.suid || u == tc.uid);
        by_cred || (sig == taskcore::uapi::SIGCONT && self.sig(p).session == s.session)
    }
}
