//! Credentials: the set*id family and kill's permission check.
//!
//! "Privileged" is the capability Linux asks for in the effective set:
//! `CAP_SETUID` for uids, `CAP_SETGID` for gids and groups, `CAP_KILL`
//! for signals. A uid change moves the capabilities
//! (`cap_emulate_setxuid()`, and the fs-uid rule of
//! `cap_task_fix_setuid()`), unless `SECBIT_NO_SETUID_FIXUP`.
//!
//! # Linux
//! kernel/sys.c `__sys_setuid()` and siblings; kernel/signal.c
//! `kill_ok_by_cred()`, `check_kill_permission()`.

use crate::{Cred, Errno, Model, Result, Tid};
use taskcore::task::capability::{
    Cap, KernelCap, CAP_KILL, CAP_SETGID, CAP_SETUID, SECBIT_KEEP_CAPS, SECBIT_NO_SETUID_FIXUP,
};

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

    /// `commit_creds()`: a change of effective or fs uid or gid, or a
    /// permitted set growing, makes the address space not dumpable
    /// (`suid_dumpable` is 0) and clears the parent-death signal.
    pub(crate) fn commit(&mut self, cur: usize, new: Cred) {
        let old = &self.task(cur).cred;
        let key = |c: &Cred| [c.euid, c.egid, c.fsuid, c.fsgid];
        if key(old) != key(&new) || !new.cap_permitted.is_subset(old.cap_permitted) {
            if let Some(m) = self.task(cur).mm {
                self.mms[m] = false;
            }
            self.task_mut(cur).pdeath_signal = 0;
        }
        self.task_mut(cur).cred = new;
    }

    /// `setresuid(r, e, s)`: -1 keeps; unprivileged, each new id must be
    /// one of the current three; fsuid follows euid.
    ///
    /// # Errors
    /// `ESRCH` stale caller; `EPERM`.
    pub fn setresuid(&mut self, current: Tid, r: u32, e: u32, s: u32) -> Result<()> {
        self.set_res(current, Ids::User, [r, e, s])
    }

    /// `setresgid(r, e, s)`: as [`Model::setresuid`] for gids.
    ///
    /// # Errors
    /// `ESRCH` stale caller; `EPERM`.
    pub fn setresgid(&mut self, current: Tid, r: u32, e: u32, s: u32) -> Result<()> {
        self.set_res(current, Ids::Group, [r, e, s])
    }

    /// `setuid(uid)`: privileged sets all four uids; otherwise euid and
    /// fsuid, if `uid` is the real or saved uid.
    ///
    /// # Errors
    /// `ESRCH` stale caller; `EINVAL` for -1; `EPERM`.
    pub fn setuid(&mut self, current: Tid, uid: u32) -> Result<()> {
        self.set_one(current, Ids::User, uid)
    }

    /// `setgid(gid)`: as [`Model::setuid`] for gids.
    ///
    /// # Errors
    /// `ESRCH` stale caller; `EINVAL` for -1; `EPERM`.
    pub fn setgid(&mut self, current: Tid, gid: u32) -> Result<()> {
        self.set_one(current, Ids::Group, gid)
    }

    /// `setreuid(r, e)`: see the core's `Kernel::setreuid`.
    ///
    /// # Errors
    /// `ESRCH` stale caller; `EPERM`.
    pub fn setreuid(&mut self, current: Tid, r: u32, e: u32) -> Result<()> {
        self.set_re(current, Ids::User, r, e)
    }

    /// `setregid(r, e)`: as [`Model::setreuid`] for gids.
    ///
    /// # Errors
    /// `ESRCH` stale caller; `EPERM`.
    pub fn setregid(&mut self, current: Tid, r: u32, e: u32) -> Result<()> {
        self.set_re(current, Ids::Group, r, e)
    }

    /// `setfsuid(uid)`: the old fsuid; it becomes `uid` when privileged or
    /// `uid` is one of the real, effective, saved and fs uids (-1 only
    /// asks).
    ///
    /// # Errors
    /// `ESRCH` stale caller.
    pub fn setfsuid(&mut self, current: Tid, uid: u32) -> Result<u32> {
        self.set_fs(current, Ids::User, uid)
    }

    /// `setfsgid(gid)`: as [`Model::setfsuid`] for the fs gid.
    ///
    /// # Errors
    /// `ESRCH` stale caller.
    pub fn setfsgid(&mut self, current: Tid, gid: u32) -> Result<u32> {
        self.set_fs(current, Ids::Group, gid)
    }

    /// `setgroups(list)`: privileged only; at most 65,536 groups, none -1;
    /// kept sorted.
    ///
    /// # Errors
    /// `ESRCH` stale caller; `EPERM` unprivileged (checked first);
    /// `EINVAL`.
    pub fn setgroups(&mut self, current: Tid, groups: &[u32]) -> Result<()> {
        let cur = self.current(current)?;
        let mut c = self.task(cur).cred.clone();
        if !c.cap_effective.has(CAP_SETGID) {
            return Err(Errno::EPERM);
        }
        if groups.len() > 65_536 || groups.contains(&KEEP) {
            return Err(Errno::EINVAL);
        }
        let mut g = groups.to_vec();
        g.sort();
        c.groups = g.into();
        self.commit(cur, c);
        Ok(())
    }

    fn set_res(&mut self, current: Tid, k: Ids, new: [u32; 3]) -> Result<()> {
        let cur = self.current(current)?;
        let mut c = self.task(cur).cred.clone();
        let mut ids = k.get(&c);
        let old = [ids[0], ids[1], ids[2]];
        let before = c.clone();
        for x in new {
            if x != KEEP && !old.contains(&x) && !c.cap_effective.has(k.cap()) {
                return Err(Errno::EPERM);
            }
        }
        for (slot, x) in ids.iter_mut().zip(new) {
            if x != KEEP {
                *slot = x;
            }
        }
        ids[3] = ids[1];
        k.put(&mut c, ids);
        k.fixup(&mut c, &before);
        self.commit(cur, c);
        Ok(())
    }

    fn set_one(&mut self, current: Tid, k: Ids, id: u32) -> Result<()> {
        let cur = self.current(current)?;
        if id == KEEP {
            return Err(Errno::EINVAL);
        }
        let mut c = self.task(cur).cred.clone();
        let before = c.clone();
        let mut ids = k.get(&c);
        if c.cap_effective.has(k.cap()) {
            (ids[0], ids[2]) = (id, id);
        } else if id != ids[0] && id != ids[2] {
            return Err(Errno::EPERM);
        }
        (ids[1], ids[3]) = (id, id);
        k.put(&mut c, ids);
        k.fixup(&mut c, &before);
        self.commit(cur, c);
        Ok(())
    }

    fn set_re(&mut self, current: Tid, k: Ids, r: u32, e: u32) -> Result<()> {
        let cur = self.current(current)?;
        let mut c = self.task(cur).cred.clone();
        let before = c.clone();
        let priv_ = c.cap_effective.has(k.cap());
        let old = k.get(&c);
        if r != KEEP && !priv_ && r != old[0] && r != old[1] {
            return Err(Errno::EPERM);
        }
        if e != KEEP && !priv_ && !old[..3].contains(&e) {
            return Err(Errno::EPERM);
        }
        let mut ids = old;
        if r != KEEP {
            ids[0] = r;
        }
        if e != KEEP {
            ids[1] = e;
        }
        if r != KEEP || (e != KEEP && e != old[0]) {
            ids[2] = ids[1];
        }
        ids[3] = ids[1];
        k.put(&mut c, ids);
        k.fixup(&mut c, &before);
        self.commit(cur, c);
        Ok(())
    }

    fn set_fs(&mut self, current: Tid, k: Ids, id: u32) -> Result<u32> {
        let cur = self.current(current)?;
        let mut c = self.task(cur).cred.clone();
        let mut ids = k.get(&c);
        let old = ids[3];
        if id != KEEP && (c.cap_effective.has(k.cap()) || ids.contains(&id)) {
            let before = c.clone();
            ids[3] = id;
            k.put(&mut c, ids);
            if let Ids::User = k {
                fs_fixup(&mut c, &before);
            }
            self.commit(cur, c);
        }
        Ok(old)
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
        if t.signal == s.signal || s.cred.cap_effective.has(CAP_KILL) {
            return true;
        }
        let tc = &t.cred;
        let by_cred = [s.cred.euid, s.cred.uid]
            .iter()
            .any(|&u| u == tc.suid || u == tc.uid);
        by_cred || (sig == taskcore::uapi::SIGCONT && self.sig(p).session == s.session)
    }
}

/// Which four ids a call changes: (real, effective, saved, fs).
#[derive(Clone, Copy)]
enum Ids {
    User,
    Group,
}

impl Ids {
    /// The capability that lifts the id rules.
    fn cap(self) -> Cap {
        match self {
            Ids::User => CAP_SETUID,
            Ids::Group => CAP_SETGID,
        }
    }

    /// After a set*uid call (`before` its credentials): root lost from
    /// every uid clears permitted and effective (unless keep-caps) and
    /// ambient; effective uid leaving 0 clears effective, becoming 0 copies
    /// permitted into it. Gid calls move nothing.
    fn fixup(self, c: &mut Cred, before: &Cred) {
        if let Ids::Group = self {
            return;
        }
        if before.securebits & SECBIT_NO_SETUID_FIXUP != 0 {
            return;
        }
        let root = |x: &Cred| x.uid == 0 || x.euid == 0 || x.suid == 0;
        if root(before) && !root(c) {
            c.cap_ambient = KernelCap::EMPTY;
            if before.securebits & SECBIT_KEEP_CAPS == 0 {
                c.cap_permitted = KernelCap::EMPTY;
                c.cap_effective = KernelCap::EMPTY;
            }
        }
        match (before.euid == 0, c.euid == 0) {
            (true, false) => c.cap_effective = KernelCap::EMPTY,
            (false, true) => c.cap_effective = c.cap_permitted,
            _ => {}
        }
    }

    fn get(self, c: &Cred) -> [u32; 4] {
        match self {
            Ids::User => [c.uid, c.euid, c.suid, c.fsuid],
            Ids::Group => [c.gid, c.egid, c.sgid, c.fsgid],
        }
    }

    fn put(self, c: &mut Cred, [r, e, s, f]: [u32; 4]) {
        match self {
            Ids::User => (c.uid, c.euid, c.suid, c.fsuid) = (r, e, s, f),
            Ids::Group => (c.gid, c.egid, c.sgid, c.fsgid) = (r, e, s, f),
        }
    }
}

/// An fs uid leaving 0 drops the file-system capabilities from the
/// effective set; one becoming 0 raises the permitted ones of them.
fn fs_fixup(c: &mut Cred, before: &Cred) {
    if before.securebits & SECBIT_NO_SETUID_FIXUP != 0 {
        return;
    }
    let fs = KernelCap::FS_MASK;
    if before.fsuid == 0 && c.fsuid != 0 {
        c.cap_effective = KernelCap::new(c.cap_effective.bits() & !fs.bits());
    } else if before.fsuid != 0 && c.fsuid == 0 {
        c.cap_effective = c.cap_effective.union(c.cap_permitted.intersect(fs));
    }
}
