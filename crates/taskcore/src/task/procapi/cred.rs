//! Credentials: real, effective, saved and filesystem uid and gid,
//! supplementary groups and the capability sets, with the set*id family's
//! rules.
//!
//! A permission check asks for one capability in the effective set
//! ([`Cred::capable`]): `CAP_SETUID` for the set*uid family, `CAP_SETGID`
//! for the set*gid family and `setgroups`, each in the caller's own user
//! namespace. A change of uids moves the capabilities as
//! `cap_task_fix_setuid()` does (security/commoncap.c), root being the
//! namespace's uid 0.
//!
//! The ids are kernel ids (the initial user namespace's numbers): the
//! calls take and report ids of the caller's namespace
//! ([`crate::task::userns`]).
//!
//! # Linux
//! include/linux/cred.h `struct cred`; kernel/sys.c `__sys_setuid()` and
//! siblings; kernel/groups.c `setgroups`/`getgroups`.

use crate::ix::TaskIx;
use std::sync::Arc;

use crate::errno::{Errno, Result};
use crate::ix::UserNsId;
use crate::task::kernel::{Kernel, TaskId};
use crate::task::state::capability::{
    Cap, KernelCap, CAP_SETGID, CAP_SETUID, SECBIT_KEEP_CAPS, SECBIT_NO_SETUID_FIXUP,
};
pub use crate::task::state::cred_struct::Cred;

/// `(uid_t)-1`: "leave unchanged" for the set*id calls, never a valid id.
pub const ID_UNCHANGED: u32 = u32::MAX;

/// Most supplementary groups a task can have (`NGROUPS_MAX`).
pub const NGROUPS_MAX: usize = 65536;

/// `cap_emulate_setxuid()`: the capabilities after a set*uid call turned
/// `old`'s uids into `new`'s (unless `SECBIT_NO_SETUID_FIXUP`):
/// - no uid 0 left where there was one: the ambient set is cleared, and
///   the permitted and effective sets too unless `SECBIT_KEEP_CAPS`;
/// - effective uid leaving 0: the effective set is cleared;
/// - effective uid becoming 0: the effective set is the permitted set.
///
/// `root` is the kernel uid of the namespace's uid 0 (`u32::MAX`, which
/// no credential holds, when the namespace does not map it).
fn cap_emulate_setxuid(new: &mut Cred, old: &Cred, root: u32) {
    if old.securebits & SECBIT_NO_SETUID_FIXUP != 0 {
        return;
    }
    let had_root = [old.uid, old.euid, old.suid].contains(&root);
    let has_root = [new.uid, new.euid, new.suid].contains(&root);
    if had_root && !has_root {
        if old.securebits & SECBIT_KEEP_CAPS == 0 {
            new.cap_permitted = KernelCap::EMPTY;
            new.cap_effective = KernelCap::EMPTY;
        }
        new.cap_ambient = KernelCap::EMPTY;
    }
    if old.euid == root && new.euid != root {
        new.cap_effective = KernelCap::EMPTY;
    }
    if old.euid != root && new.euid == root {
        new.cap_effective = new.cap_permitted;
    }
}

/// `cap_task_fix_setuid(LSM_SETID_FS)`: an fs uid leaving 0 drops
/// `CAP_FS_MASK` from the effective set, one becoming 0 raises the
/// permitted ones of it (unless `SECBIT_NO_SETUID_FIXUP`); `root` as for
/// [`cap_emulate_setxuid`].
fn cap_fix_setfsuid(new: &mut Cred, old: &Cred, root: u32) {
    if old.securebits & SECBIT_NO_SETUID_FIXUP != 0 {
        return;
    }
    let fs = KernelCap::FS_MASK;
    if old.fsuid == root && new.fsuid != root {
        new.cap_effective = KernelCap::new(new.cap_effective.bits() & !fs.bits());
    }
    if old.fsuid != root && new.fsuid == root {
        new.cap_effective = new.cap_effective.union(new.cap_permitted.intersect(fs));
    }
}

/// The real/effective/saved triple of one kind of id, plus its fs id.
struct Ids {
    r: u32,
    e: u32,
    s: u32,
    fs: u32,
}

impl Ids {
    fn any(&self, id: u32) -> bool {
        id == self.r || id == self.e || id == self.s
    }
}

/// Which of the two id kinds a call changes.
#[derive(Clone, Copy)]
enum Kind {
    User,
    Group,
}

impl Kind {
    /// The capability that lifts the call's id rules.
    fn cap(self) -> Cap {
        match self {
            Kind::User => CAP_SETUID,
            Kind::Group => CAP_SETGID,
        }
    }
}

fn ids(c: &Cred, kind: Kind) -> Ids {
    match kind {
        Kind::User => Ids {
            r: c.uid,
            e: c.euid,
            s: c.suid,
            fs: c.fsuid,
        },
        Kind::Group => Ids {
            r: c.gid,
            e: c.egid,
            s: c.sgid,
            fs: c.fsgid,
        },
    }
}

fn store(c: &mut Cred, kind: Kind, n: &Ids) {
    match kind {
        Kind::User => (c.uid, c.euid, c.suid, c.fsuid) = (n.r, n.e, n.s, n.fs),
        Kind::Group => (c.gid, c.egid, c.sgid, c.fsgid) = (n.r, n.e, n.s, n.fs),
    }
}

/// # Process API: credentials, the set*id family (`kernel/sys.c`, `kernel/cred.c`).
impl Kernel {
    /// The credentials of task `t`.
    ///
    /// # Errors
    /// `ESRCH` if `t` is stale.
    pub fn cred(&self, t: TaskId) -> Result<Cred> {
        let i = self.task_idx(t)?;
        Ok(Cred::clone(&self.tasks[i].cred))
    }

    /// Sets the credentials of task `t` outright, as a loader or a test
    /// harness does before the first instruction (no permission check;
    /// `groups` is sorted).
    ///
    /// # Errors
    /// `ESRCH` if `t` is stale; `EINVAL` if `cred.user_ns` names no user
    /// namespace.
    pub fn set_cred(&mut self, t: TaskId, cred: Cred) -> Result<()> {
        let i = self.task_idx(t)?;
        self.userns.get(cred.user_ns.0).ok_or(Errno::EINVAL)?;
        let mut cred = cred;
        let mut g = cred.groups.to_vec();
        g.sort_unstable();
        cred.groups = g.into();
        self.install_cred(i, Arc::new(cred));
        Ok(())
    }

    /// The kernel id of `id` (of `kind`) in user namespace `ns`, `None` if
    /// `ns` does not map it (`make_kuid()`/`make_kgid()`).
    fn make_kid(&self, ns: UserNsId, kind: Kind, id: u32) -> Option<u32> {
        match kind {
            Kind::User => self.make_kuid(ns.0, id),
            Kind::Group => self.make_kgid(ns.0, id),
        }
    }

    /// Kernel id `kid` (of `kind`) as namespace `ns` shows it
    /// (`from_kuid_munged()`/`from_kgid_munged()`).
    fn kid_munged(&self, ns: UserNsId, kind: Kind, kid: u32) -> u32 {
        match kind {
            Kind::User => self.kuid_munged(ns.0, kid),
            Kind::Group => self.kgid_munged(ns.0, kid),
        }
    }

    /// The caller's user namespace, and the kernel id of its uid 0
    /// (`u32::MAX` if unmapped).
    fn ns_and_root(&self, current: TaskId) -> Result<(UserNsId, u32)> {
        let ns = self.tasks[self.current(current)?].cred.user_ns;
        Ok((ns, self.make_kuid(ns.0, 0).unwrap_or(u32::MAX)))
    }

    /// Converts a set*id argument: -1 stays "unchanged", another id
    /// becomes a kernel id, `EINVAL` if the namespace does not map it.
    fn arg_kid(&self, ns: UserNsId, kind: Kind, id: u32) -> Result<u32> {
        if id == ID_UNCHANGED {
            return Ok(ID_UNCHANGED);
        }
        self.make_kid(ns, kind, id).ok_or(Errno::EINVAL)
    }

    pub(crate) fn change_cred(
        &mut self,
        current: TaskId,
        f: impl FnOnce(&mut Cred) -> Result<()>,
    ) -> Result<()> {
        let cur = self.current(current)?;
        let mut new = Cred::clone(&self.tasks[cur].cred);
        f(&mut new)?;
        self.commit_creds(cur, new);
        Ok(())
    }

    /// [`Kernel::change_cred`] for a set*id call of `kind`: a uid change
    /// then moves the capabilities (`security_task_fix_setuid()`).
    fn change_ids(
        &mut self,
        current: TaskId,
        kind: Kind,
        f: impl FnOnce(&mut Cred) -> Result<()>,
    ) -> Result<()> {
        let (_, root) = self.ns_and_root(current)?;
        self.change_cred(current, |c| {
            let old = c.clone();
            f(c)?;
            if let Kind::User = kind {
                cap_emulate_setxuid(c, &old, root);
            }
            Ok(())
        })
    }

    /// `commit_creds()`: installs `new`; a change of effective or fs id,
    /// or a permitted set that is not within the old one
    /// (`cred_cap_issubset()`), clears the parent-death signal and the
    /// dumpable flag.
    pub(crate) fn commit_creds(&mut self, cur: TaskIx, new: Cred) {
        let old = &self.tasks[cur].cred;
        let key = |c: &Cred| (c.euid, c.egid, c.fsuid, c.fsgid);
        if key(old) != key(&new) || !self.cred_cap_issubset(old, &new) {
            self.tasks[cur].pdeath_signal = 0;
            // set_dumpable(mm, suid_dumpable), suid_dumpable being 0.
            if let Some(mm) = self.mm_own(cur).entry() {
                self.mms[mm].dumpable = false;
            }
        }
        self.install_cred(cur, Arc::new(new));
    }

    fn set_id(&mut self, current: TaskId, kind: Kind, id: u32) -> Result<()> {
        let (ns, _) = self.ns_and_root(current)?;
        let id = self.make_kid(ns, kind, id).ok_or(Errno::EINVAL)?;
        self.change_ids(current, kind, |c| {
            let old = ids(c, kind);
            let n = if c.capable(kind.cap()) {
                Ids {
                    r: id,
                    e: id,
                    s: id,
                    fs: id,
                }
            } else if id == old.r || id == old.s {
                Ids {
                    e: id,
                    fs: id,
                    ..old
                }
            } else {
                return Err(Errno::EPERM);
            };
            store(c, kind, &n);
            Ok(())
        })
    }

    fn set_re_id(&mut self, current: TaskId, kind: Kind, r: u32, e: u32) -> Result<()> {
        let (ns, _) = self.ns_and_root(current)?;
        let (r, e) = (self.arg_kid(ns, kind, r)?, self.arg_kid(ns, kind, e)?);
        self.change_ids(current, kind, |c| {
            let old = ids(c, kind);
            let cap = c.capable(kind.cap());
            let mut n = Ids { ..old };
            if r != ID_UNCHANGED {
                if r != old.r && r != old.e && !cap {
                    return Err(Errno::EPERM);
                }
                n.r = r;
            }
            if e != ID_UNCHANGED {
                if !old.any(e) && !cap {
                    return Err(Errno::EPERM);
                }
                n.e = e;
            }
            if r != ID_UNCHANGED || (e != ID_UNCHANGED && e != old.r) {
                n.s = n.e;
            }
            n.fs = n.e;
            store(c, kind, &n);
            Ok(())
        })
    }

    fn set_res_id(&mut self, current: TaskId, kind: Kind, r: u32, e: u32, s: u32) -> Result<()> {
        let (ns, _) = self.ns_and_root(current)?;
        let r = self.arg_kid(ns, kind, r)?;
        let (e, s) = (self.arg_kid(ns, kind, e)?, self.arg_kid(ns, kind, s)?);
        self.change_ids(current, kind, |c| {
            let old = ids(c, kind);
            let given = [r, e, s].into_iter().filter(|&x| x != ID_UNCHANGED);
            if !c.capable(kind.cap()) && given.clone().any(|x| !old.any(x)) {
                return Err(Errno::EPERM);
            }
            let pick = |x: u32, o: u32| if x == ID_UNCHANGED { o } else { x };
            let e = pick(e, old.e);
            let n = Ids {
                r: pick(r, old.r),
                e,
                s: pick(s, old.s),
                fs: e,
            };
            store(c, kind, &n);
            Ok(())
        })
    }

    fn set_fs_id(&mut self, current: TaskId, kind: Kind, id: u32) -> Result<u32> {
        let (ns, root) = self.ns_and_root(current)?;
        let cur = self.current(current)?;
        let mut c = Cred::clone(&self.tasks[cur].cred);
        let old = ids(&c, kind);
        let old_fs = self.kid_munged(ns, kind, old.fs);
        let Some(id) = self.make_kid(ns, kind, id) else {
            return Ok(old_fs);
        };
        if id != old.fs && (old.any(id) || c.capable(kind.cap())) {
            let before = c.clone();
            store(&mut c, kind, &Ids { fs: id, ..old });
            if let Kind::User = kind {
                cap_fix_setfsuid(&mut c, &before, root);
            }
            self.commit_creds(cur, c);
        }
        Ok(old_fs)
    }

    /// `setuid(uid)`: with `CAP_SETUID`, sets real, effective, saved and fs uid;
    /// otherwise sets effective and fs uid to `uid` if it is the real or
    /// saved uid.
    ///
    /// # Errors
    /// `ESRCH` if `current` is stale; `EINVAL` for `uid` -1
    /// ([`ID_UNCHANGED`]); `EPERM` without `CAP_SETUID` if `uid` is neither
    /// the real nor the saved uid.
    ///
    /// # Linux
    /// `__sys_setuid()` (kernel/sys.c).
    pub fn setuid(&mut self, current: TaskId, uid: u32) -> Result<()> {
        self.set_id(current, Kind::User, uid)
    }

    /// `setgid(gid)`: as [`Kernel::setuid`] for group ids, with `CAP_SETGID`
    /// (the capabilities do not move).
    ///
    /// # Errors
    /// As [`Kernel::setuid`].
    ///
    /// # Linux
    /// `__sys_setgid()` (kernel/sys.c).
    pub fn setgid(&mut self, current: TaskId, gid: u32) -> Result<()> {
        self.set_id(current, Kind::Group, gid)
    }

    /// `setreuid(ruid, euid)`, -1 ([`ID_UNCHANGED`]) leaving one as is.
    /// Without `CAP_SETUID`, the real uid may become the real or effective uid, the
    /// effective uid any of real, effective, saved. The saved uid becomes
    /// the new effective uid when the real uid is given or the effective
    /// uid is set to something other than the old real uid; the fs uid
    /// follows the effective uid.
    ///
    /// # Errors
    /// `ESRCH` if `current` is stale; `EPERM` as above.
    ///
    /// # Linux
    /// `__sys_setreuid()` (kernel/sys.c).
    pub fn setreuid(&mut self, current: TaskId, ruid: u32, euid: u32) -> Result<()> {
        self.set_re_id(current, Kind::User, ruid, euid)
    }

    /// `setregid(rgid, egid)`: as [`Kernel::setreuid`] for group ids, with
    /// `CAP_SETGID`.
    ///
    /// # Errors
    /// As [`Kernel::setreuid`].
    ///
    /// # Linux
    /// `__sys_setregid()` (kernel/sys.c).
    pub fn setregid(&mut self, current: TaskId, rgid: u32, egid: u32) -> Result<()> {
        self.set_re_id(current, Kind::Group, rgid, egid)
    }

    /// `setresuid(ruid, euid, suid)`, -1 leaving one as is. Without `CAP_SETUID`,
    /// each given id must be the current real, effective or saved uid. The
    /// fs uid follows the effective uid.
    ///
    /// # Errors
    /// `ESRCH` if `current` is stale; `EPERM` as above.
    ///
    /// # Linux
    /// `__sys_setresuid()` (kernel/sys.c).
    pub fn setresuid(&mut self, current: TaskId, ruid: u32, euid: u32, suid: u32) -> Result<()> {
        self.set_res_id(current, Kind::User, ruid, euid, suid)
    }

    /// `setresgid(rgid, egid, sgid)`: as [`Kernel::setresuid`] for groups.
    ///
    /// # Errors
    /// As [`Kernel::setresuid`].
    ///
    /// # Linux
    /// `__sys_setresgid()` (kernel/sys.c).
    pub fn setresgid(&mut self, current: TaskId, rgid: u32, egid: u32, sgid: u32) -> Result<()> {
        self.set_res_id(current, Kind::Group, rgid, egid, sgid)
    }

    /// `setfsuid(uid)`: returns the old fs uid, and sets it to `uid` if
    /// it has `CAP_SETUID` or `uid` is the real, effective, saved or fs uid. A -1
    /// only queries. Never fails for a live caller (Linux reports nothing).
    ///
    /// # Errors
    /// `ESRCH` if `current` is stale.
    ///
    /// # Linux
    /// `__sys_setfsuid()` (kernel/sys.c).
    pub fn setfsuid(&mut self, current: TaskId, uid: u32) -> Result<u32> {
        self.set_fs_id(current, Kind::User, uid)
    }

    /// `setfsgid(gid)`: as [`Kernel::setfsuid`] for the fs gid.
    ///
    /// # Errors
    /// As [`Kernel::setfsuid`].
    ///
    /// # Linux
    /// `__sys_setfsgid()` (kernel/sys.c).
    pub fn setfsgid(&mut self, current: TaskId, gid: u32) -> Result<u32> {
        self.set_fs_id(current, Kind::Group, gid)
    }

    /// `getresuid()`: (real, effective, saved) uid, in the caller's user
    /// namespace (an unmapped one reads as
    /// [`OVERFLOW_UID`](crate::task::userns::OVERFLOW_UID)); `getuid()`
    /// and `geteuid()` are its first two.
    ///
    /// # Errors
    /// `ESRCH` if `current` is stale.
    pub fn getresuid(&self, current: TaskId) -> Result<(u32, u32, u32)> {
        let c = &self.tasks[self.task_idx(current)?].cred;
        let f = |id| self.kid_munged(c.user_ns, Kind::User, id);
        Ok((f(c.uid), f(c.euid), f(c.suid)))
    }

    /// `getresgid()`: (real, effective, saved) gid, in the caller's user
    /// namespace (as [`Kernel::getresuid`]).
    ///
    /// # Errors
    /// `ESRCH` if `current` is stale.
    pub fn getresgid(&self, current: TaskId) -> Result<(u32, u32, u32)> {
        let c = &self.tasks[self.task_idx(current)?].cred;
        let f = |id| self.kid_munged(c.user_ns, Kind::Group, id);
        Ok((f(c.gid), f(c.egid), f(c.sgid)))
    }

    /// `setgroups(size, list)`: replaces the supplementary groups (gids of
    /// the caller's user namespace), stored sorted.
    ///
    /// # Errors
    /// `ESRCH` if `current` is stale; `EPERM` without `CAP_SETGID`, or in a
    /// user namespace whose gid map is not written or whose `setgroups`
    /// is `deny`; `EINVAL` for more than [`NGROUPS_MAX`] groups or a gid
    /// the namespace does not map (-1 included).
    ///
    /// # Linux
    /// `setgroups()` (kernel/groups.c): `may_setgroups()`
    /// (`userns_may_setgroups()`), then the size, then
    /// `groups_from_user()` and `groups_sort()`.
    pub fn setgroups(&mut self, current: TaskId, groups: &[u32]) -> Result<()> {
        let (ns, _) = self.ns_and_root(current)?;
        let may = self.userns_may_setgroups(ns.0);
        let kids: Vec<Option<u32>> = groups
            .iter()
            .map(|&g| self.make_kid(ns, Kind::Group, g))
            .collect();
        self.change_cred(current, |c| {
            if !c.capable(CAP_SETGID) || !may {
                return Err(Errno::EPERM);
            }
            if groups.len() > NGROUPS_MAX || kids.contains(&None) {
                return Err(Errno::EINVAL);
            }
            let mut g: Vec<u32> = kids.into_iter().flatten().collect();
            g.sort_unstable();
            c.groups = g.into();
            Ok(())
        })
    }

    /// `getgroups(size, list)`: the supplementary groups, sorted; `size` 0
    /// asks only for the count (the returned list is then still whole).
    ///
    /// # Errors
    /// `ESRCH` if `current` is stale; `EINVAL` if `size` is negative, or
    /// non-zero and smaller than the number of groups.
    ///
    /// # Linux
    /// `getgroups()` (kernel/groups.c).
    pub fn getgroups(&self, current: TaskId, size: i32) -> Result<Vec<u32>> {
        let c = &self.tasks[self.task_idx(current)?].cred;
        let n = c.groups.len();
        if size < 0 || (size != 0 && (size as usize) < n) {
            return Err(Errno::EINVAL);
        }
        Ok(c.groups
            .iter()
            .map(|&g| self.kid_munged(c.user_ns, Kind::Group, g))
            .collect())
    }
}
