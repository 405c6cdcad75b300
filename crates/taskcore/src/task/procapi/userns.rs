//! User namespaces: the id maps between a namespace's uids and gids and
//! the kernel's (the initial namespace's), the owner whose capabilities
//! reach into a namespace, and the writes of `/proc/PID/uid_map`,
//! `gid_map` and `setgroups`.
//!
//! Credentials keep kernel ids (`kuid_t`, `kgid_t`: the numbers of the
//! initial namespace). A system call converts at its edge: an id it is
//! given with `make_kuid()` (an id the caller's namespace does not
//! map is `EINVAL`), an id it reports with `from_kuid_munged()`
//! (one the reader's namespace does not map reads as the overflow id,
//! 65534).
//!
//! A capability is held in the namespace of the credentials that hold it
//! and in every namespace below it; the owner of a namespace (the
//! effective uid that created it) holds every capability in it from the
//! parent namespace (`cap_capable()`).
//!
//! # Linux
//! kernel/user_namespace.c (`create_user_ns()`, `map_write()`,
//! `new_idmap_permitted()`, `verify_root_map()`, `proc_setgroups_write()`,
//! `userns_may_setgroups()`, `make_kuid()`, `from_kuid_munged()`),
//! security/commoncap.c (`cap_capable()`), kernel/cred.c
//! (`cred_cap_issubset()`).

use crate::errno::{Errno, Result};
use crate::ix::TaskIx;
use crate::slab::SlabIx;
use crate::task::kernel::{Kernel, TaskId};
use crate::task::state::capability::{Cap, CAP_SETFCAP, CAP_SETGID, CAP_SETUID, CAP_SYS_ADMIN};
use crate::task::state::cred_struct::Cred;

/// `overflowuid` (`/proc/sys/kernel/overflowuid`'s default): what a uid
/// the reader's namespace does not map reads as.
pub const OVERFLOW_UID: u32 = 65534;
/// `overflowgid`: as [`OVERFLOW_UID`] for gids.
pub const OVERFLOW_GID: u32 = 65534;
/// `UID_GID_MAP_MAX_EXTENTS`: the most lines one map may have.
pub const UID_GID_MAP_MAX_EXTENTS: usize = 340;
/// A namespace may be created below one of this level at most
/// (`create_user_ns()`'s `parent_ns->level > 32`: `ENOSPC`).
pub const USER_NS_MAX_PARENT_LEVEL: u32 = 32;
/// The initial user namespace's inode number (`PROC_USER_INIT_INO`).
pub const PROC_USER_INIT_INO: u64 = 0xEFFF_FFFD;
/// Where the inode numbers of the other user namespaces start (within
/// Linux's dynamic range, apart from the pid namespaces').
const USER_NS_INO_BASE: u64 = 0xF800_0000;
/// A page (`map_write()` takes less than one).
const PAGE_SIZE: usize = 4096;

pub use crate::ix::UserNsId;
use crate::ix::UserNsIx;

/// One line of an id map (`struct uid_gid_extent`): ids `first ..
/// first + count` of the namespace are `lower_first ..` of the kernel
/// (once installed; as written, of the parent namespace).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IdExtent {
    /// The first id inside the namespace.
    pub first: u32,
    /// The first id it maps to.
    pub lower_first: u32,
    /// How many ids the line maps (at least 1).
    pub count: u32,
}

/// An id map (`struct uid_gid_map`): at most
/// [`UID_GID_MAP_MAX_EXTENTS`] non-overlapping lines, in the order they
/// were written (`/proc/PID/uid_map` shows them so).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IdMap {
    extents: Vec<IdExtent>,
}

impl IdMap {
    /// The initial namespace's map: `0 0 4294967295`.
    fn identity() -> IdMap {
        IdMap {
            extents: vec![IdExtent {
                first: 0,
                lower_first: 0,
                count: u32::MAX,
            }],
        }
    }

    /// The lines, as written.
    pub fn extents(&self) -> &[IdExtent] {
        &self.extents
    }

    /// `map_id_range_down()`: the lower id of `id .. id + count`, when one
    /// line holds the whole range.
    fn map_range_down(&self, id: u32, count: u32) -> Option<u32> {
        let last = id.wrapping_add(count).wrapping_sub(1);
        self.extents.iter().find_map(|e| {
            let end = e.first.wrapping_add(e.count).wrapping_sub(1);
            (id >= e.first && id <= end && last >= e.first && last <= end)
                .then(|| id - e.first + e.lower_first)
        })
    }

    /// `map_id_up()`: the namespace's id for lower id `id`.
    fn map_up(&self, id: u32) -> Option<u32> {
        self.extents.iter().find_map(|e| {
            let end = e.lower_first.wrapping_add(e.count).wrapping_sub(1);
            (id >= e.lower_first && id <= end).then(|| id - e.lower_first + e.first)
        })
    }

    /// `mappings_overlap()`: `x` meets a line of the map, above or below.
    fn overlaps(&self, x: &IdExtent) -> bool {
        let last = |first: u32, count: u32| first.wrapping_add(count).wrapping_sub(1);
        self.extents.iter().any(|p| {
            (p.first <= last(x.first, x.count) && last(p.first, p.count) >= x.first)
                || (p.lower_first <= last(x.lower_first, x.count)
                    && last(p.lower_first, p.count) >= x.lower_first)
        })
    }
}

/// A user namespace (`struct user_namespace`).
#[derive(Clone, Debug)]
pub(crate) struct UserNamespace {
    /// The parent, `None` for the initial namespace.
    pub(crate) parent: Option<UserNsIx>,
    /// Depth: 0 for the initial namespace.
    pub(crate) level: u32,
    /// The effective uid and gid of its creator (kernel ids).
    pub(crate) owner: u32,
    pub(crate) group: u32,
    pub(crate) uid_map: IdMap,
    pub(crate) gid_map: IdMap,
    /// `USERNS_SETGROUPS_ALLOWED` (inherited from the parent).
    pub(crate) setgroups_allowed: bool,
    /// The creator had `CAP_SETFCAP` (`parent_could_setfcap`).
    pub(crate) parent_could_setfcap: bool,
    /// References: tasks whose credentials name it, child user
    /// namespaces, pid namespaces it owns; one for the initial namespace.
    pub(crate) refs: u32,
}

/// Which of the three `/proc/PID` files of a user namespace a write is to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IdMapFile {
    /// `uid_map`.
    Uid,
    /// `gid_map`.
    Gid,
}

/// # Process API: user namespaces and id maps (`kernel/user_namespace.c`).
impl Kernel {
    /// Creates the initial user namespace (identity maps, setgroups
    /// allowed), the first of its slab.
    pub(crate) fn init_user_ns(&mut self) -> Result<()> {
        let ns = UserNamespace {
            parent: None,
            level: 0,
            owner: 0,
            group: 0,
            uid_map: IdMap::identity(),
            gid_map: IdMap::identity(),
            setgroups_allowed: true,
            parent_could_setfcap: true,
            refs: 1,
        };
        let ix = self.userns.insert(ns).ok_or(Errno::ENOMEM)?;
        debug_assert_eq!(ix, UserNsId::default().0);
        Ok(())
    }

    /// The initial user namespace (`&init_user_ns`).
    pub(crate) fn init_userns(&self) -> UserNsIx {
        UserNsId::default().0
    }

    /// Takes a reference on user namespace `ns` (`get_user_ns()`).
    pub(crate) fn get_user_ns(&mut self, ns: UserNsIx) {
        self.userns[ns].refs += 1;
    }

    /// Drops a reference on `ns`, freeing it and then its parent's
    /// reference when it was the last (`put_user_ns()`, `free_user_ns()`).
    #[inline]
    pub(crate) fn put_user_ns(&mut self, ns: UserNsIx) {
        let n = &mut self.userns[ns];
        if n.refs > 1 {
            // Not the last reference (always so for the initial
            // namespace): nothing to free.
            n.refs -= 1;
            return;
        }
        self.put_user_ns_last(ns);
    }

    /// [`Kernel::put_user_ns`] of what may be the last reference.
    #[inline(never)]
    fn put_user_ns_last(&mut self, ns: UserNsIx) {
        let mut next = Some(ns);
        while let Some(ns) = next {
            let n = &mut self.userns[ns];
            n.refs -= 1;
            if n.refs > 0 {
                return;
            }
            next = n.parent;
            self.userns.delete(ns);
        }
    }

    /// `make_kuid(ns, uid)`: the kernel uid of `uid` in `ns`, `None` if
    /// `ns` does not map it (`INVALID_UID`).
    pub(crate) fn make_kuid(&self, ns: UserNsIx, uid: u32) -> Option<u32> {
        self.userns[ns].uid_map.map_range_down(uid, 1)
    }

    /// `make_kgid(ns, gid)`.
    pub(crate) fn make_kgid(&self, ns: UserNsIx, gid: u32) -> Option<u32> {
        self.userns[ns].gid_map.map_range_down(gid, 1)
    }

    /// `from_kuid_munged(ns, kuid)`: kernel uid `kuid` as `ns` sees it,
    /// [`OVERFLOW_UID`] if it does not map it.
    #[inline(always)]
    pub(crate) fn kuid_munged(&self, ns: UserNsIx, kuid: u32) -> u32 {
        // The initial namespace's map is the identity of 0..u32::MAX
        // (all but the invalid id), and never written (its map files
        // refuse with EPERM): no lookup.
        if ns == self.init_userns() && kuid != u32::MAX {
            return kuid;
        }
        self.userns[ns].uid_map.map_up(kuid).unwrap_or(OVERFLOW_UID)
    }

    /// `from_kgid_munged(ns, kgid)`.
    pub(crate) fn kgid_munged(&self, ns: UserNsIx, kgid: u32) -> u32 {
        // As kuid_munged: the initial namespace's map is the identity.
        if ns == self.init_userns() && kgid != u32::MAX {
            return kgid;
        }
        self.userns[ns].gid_map.map_up(kgid).unwrap_or(OVERFLOW_GID)
    }

    /// Kernel uid `kuid` as task `viewer` sees it (in its credentials'
    /// namespace): what `si_uid` and the id calls report.
    #[inline]
    pub(crate) fn uid_seen_by(&self, viewer: TaskIx, kuid: u32) -> u32 {
        self.kuid_munged(self.tasks[viewer].cred.user_ns.0, kuid)
    }

    /// `cap_capable(cred, ns, cap)`: whether credentials `c` hold `cap` in
    /// user namespace `ns`: in their own namespace, the effective set
    /// says; in a namespace below it, its owner (or the owner of the
    /// ancestor just below `c`'s namespace) holds every capability; above
    /// or beside it, none.
    pub(crate) fn ns_capable_cred(&self, c: &Cred, ns: UserNsIx, cap: Cap) -> bool {
        let own = c.user_ns.0;
        let own_level = self.userns[own].level;
        let mut n = ns;
        loop {
            if n == own {
                return c.cap_effective.has(cap);
            }
            let u = &self.userns[n];
            if u.level <= own_level {
                return false;
            }
            let Some(p) = u.parent else { return false };
            if p == own && u.owner == c.euid {
                return true;
            }
            n = p;
        }
    }

    /// `capable(cap)` for credentials `c`: `cap` held in the initial user
    /// namespace.
    pub(crate) fn capable_cred(&self, c: &Cred, cap: Cap) -> bool {
        self.ns_capable_cred(c, self.init_userns(), cap)
    }

    /// `cred_cap_issubset(set, subset)`: whether `subset`'s permitted
    /// capabilities are within `set`'s, across namespaces (a namespace
    /// owned by `set`'s euid below `set`'s namespace is within).
    pub(crate) fn cred_cap_issubset(&self, set: &Cred, subset: &Cred) -> bool {
        if set.user_ns == subset.user_ns {
            return subset.cap_permitted.is_subset(set.cap_permitted);
        }
        let mut n = subset.user_ns.0;
        while let Some(p) = self.userns[n].parent {
            if p == set.user_ns.0 && self.userns[n].owner == set.euid {
                return true;
            }
            n = p;
        }
        false
    }

    /// `in_userns(ancestor, child)`: `child` is `ancestor` or below it.
    pub(crate) fn in_userns(&self, ancestor: UserNsIx, child: UserNsIx) -> bool {
        let want = self.userns[ancestor].level;
        let mut n = child;
        while self.userns[n].level > want {
            match self.userns[n].parent {
                Some(p) => n = p,
                None => return false,
            }
        }
        n == ancestor
    }

    /// `create_user_ns(new)`: makes a user namespace, child of `new`'s,
    /// owned by its effective uid and gid, and moves `new` into it with
    /// every capability there (`set_cred_user_ns()`: full permitted,
    /// effective and bounding sets, empty inheritable and ambient sets,
    /// no securebits). The new namespace holds a reference on its parent,
    /// and one for the caller, who drops it ([`Kernel::put_user_ns`]) once
    /// the credentials are installed (which take their own) or abandoned.
    ///
    /// # Errors
    /// `ENOSPC` below a namespace of level 32; `EPERM` if the parent does
    /// not map the owner's uid or gid; `ENOMEM` if no slot is left.
    pub(crate) fn create_user_ns(&mut self, new: &mut Cred) -> Result<UserNsIx> {
        let parent = new.user_ns.0;
        let p = &self.userns[parent];
        if p.level > USER_NS_MAX_PARENT_LEVEL {
            return Err(Errno::ENOSPC);
        }
        if p.uid_map.map_up(new.euid).is_none() || p.gid_map.map_up(new.egid).is_none() {
            return Err(Errno::EPERM);
        }
        let ns = UserNamespace {
            parent: Some(parent),
            level: p.level + 1,
            owner: new.euid,
            group: new.egid,
            uid_map: IdMap::default(),
            gid_map: IdMap::default(),
            setgroups_allowed: p.setgroups_allowed,
            parent_could_setfcap: new.cap_effective.has(CAP_SETFCAP),
            refs: 1,
        };
        let ix = self.userns.insert(ns).ok_or(Errno::ENOMEM)?;
        self.get_user_ns(parent);
        new.user_ns = UserNsId(ix);
        new.securebits = 0;
        new.cap_inheritable = crate::task::state::capability::KernelCap::EMPTY;
        new.cap_permitted = crate::task::state::capability::KernelCap::FULL;
        new.cap_effective = crate::task::state::capability::KernelCap::FULL;
        new.cap_bset = crate::task::state::capability::KernelCap::FULL;
        new.cap_ambient = crate::task::state::capability::KernelCap::EMPTY;
        Ok(ix)
    }

    /// The user namespace of task `t`'s credentials.
    ///
    /// # Errors
    /// `ESRCH` if `t` is stale.
    pub fn task_user_ns(&self, t: TaskId) -> Result<UserNsId> {
        Ok(self.tasks[self.task_idx(t)?].cred.user_ns)
    }

    /// The parent of user namespace `ns` (`None` for the initial one).
    ///
    /// # Errors
    /// `EINVAL` if `ns` names no namespace.
    pub fn user_ns_parent(&self, ns: UserNsId) -> Result<Option<UserNsId>> {
        Ok(self
            .userns
            .get(ns.0)
            .ok_or(Errno::EINVAL)?
            .parent
            .map(UserNsId))
    }

    /// The owner of user namespace `ns`: its creator's effective uid and
    /// gid (kernel ids; 0 and 0 for the initial namespace).
    ///
    /// # Errors
    /// `EINVAL` if `ns` names no namespace.
    pub fn user_ns_owner(&self, ns: UserNsId) -> Result<(u32, u32)> {
        let u = self.userns.get(ns.0).ok_or(Errno::EINVAL)?;
        Ok((u.owner, u.group))
    }

    /// Number of user namespaces alive (the initial one included).
    pub fn nr_user_namespaces(&self) -> usize {
        self.userns.len()
    }

    /// User namespace `ns`'s inode number: [`PROC_USER_INIT_INO`] for the
    /// initial one, stable for the namespace's life.
    pub(crate) fn user_ns_inum(&self, ns: UserNsIx) -> u64 {
        if ns == self.init_userns() {
            PROC_USER_INIT_INO
        } else {
            USER_NS_INO_BASE + (ns.slot() - UserNsIx::BASE as usize) as u64
        }
    }

    /// `readlink("/proc/PID/ns/user")`: `user:[INODE]`.
    ///
    /// # Errors
    /// `ESRCH` if `task` is stale.
    ///
    /// # Linux
    /// `proc_ns_readlink()`, `userns_get()` (the task's credentials'
    /// namespace).
    pub fn user_ns_readlink(&self, task: TaskId) -> Result<String> {
        let ns = self.tasks[self.task_idx(task)?].cred.user_ns.0;
        Ok(format!("user:[{}]", self.user_ns_inum(ns)))
    }

    /// `/proc/PID/uid_map` or `gid_map` of task `target` as task `reader`
    /// reads it: one `%10u %10u %10u\n` line per extent, the lower ids in
    /// the reader's namespace (its parent's when the reader is in the
    /// map's namespace itself; `4294967295` for an id the reader's
    /// namespace does not map).
    ///
    /// # Errors
    /// `ESRCH` if either task is stale.
    ///
    /// # Linux
    /// `uid_m_show()`, `gid_m_show()`.
    pub fn proc_id_map_read(
        &self,
        reader: TaskId,
        target: TaskId,
        which: IdMapFile,
    ) -> Result<String> {
        let r = self.task_idx(reader)?;
        let t = self.task_idx(target)?;
        Ok(self.render_id_map(
            self.tasks[r].cred.user_ns.0,
            self.tasks[t].cred.user_ns.0,
            which,
        ))
    }

    /// [`Kernel::proc_id_map_read`] from namespace `seq_ns` of map `ns`.
    pub(crate) fn render_id_map(&self, seq_ns: UserNsIx, ns: UserNsIx, which: IdMapFile) -> String {
        let mut lower_ns = seq_ns;
        if lower_ns == ns {
            if let Some(p) = self.userns[ns].parent {
                lower_ns = p;
            }
        }
        let u = &self.userns[ns];
        let (map, lower_map) = match which {
            IdMapFile::Uid => (&u.uid_map, &self.userns[lower_ns].uid_map),
            IdMapFile::Gid => (&u.gid_map, &self.userns[lower_ns].gid_map),
        };
        let mut s = String::new();
        for e in map.extents() {
            let lower = lower_map.map_up(e.lower_first).unwrap_or(u32::MAX);
            s.push_str(&format!("{:>10} {:>10} {:>10}\n", e.first, lower, e.count));
        }
        s
    }

    /// `/proc/PID/setgroups` of task `target`: `allow\n` or `deny\n`.
    ///
    /// # Errors
    /// `ESRCH` if `target` is stale.
    ///
    /// # Linux
    /// `proc_setgroups_show()`.
    pub fn proc_setgroups_read(&self, target: TaskId) -> Result<&'static str> {
        let t = self.task_idx(target)?;
        Ok(self.setgroups_text(self.tasks[t].cred.user_ns.0))
    }

    pub(crate) fn setgroups_text(&self, ns: UserNsIx) -> &'static str {
        if self.userns[ns].setgroups_allowed {
            "allow\n"
        } else {
            "deny\n"
        }
    }

    /// `write(fd, buf, len)` at file offset `pos` on `/proc/PID/uid_map` or
    /// `gid_map` of task `target`, opened and written by task `current`
    /// (its credentials are the opener's, `file->f_cred`). Returns the
    /// bytes taken (all of `buf`); the map is set once, for good.
    ///
    /// The lines are `FIRST LOWER COUNT` in decimal; LOWER is an id of the
    /// parent namespace. Without `CAP_SETUID` (`CAP_SETGID`) over the
    /// parent namespace, the owner of the namespace may write one line of
    /// count 1 mapping its own effective uid (gid, once `setgroups` is
    /// `deny`).
    ///
    /// # Errors
    /// In Linux's order:
    /// - `ESRCH`: a stale task;
    /// - `EACCES`: `current` may not open the file for writing (it belongs
    ///   to `target`'s effective uid, to root while `target` is not
    ///   dumpable; `CAP_DAC_OVERRIDE` over a namespace mapping that owner
    ///   lifts it);
    /// - `EPERM`: `target` is in the initial namespace; `current` is in
    ///   neither the map's namespace nor its parent;
    /// - `EINVAL`: `pos` not 0, or `buf` a page or longer;
    /// - `EPERM`: the map was already written; `current` lacks
    ///   `CAP_SYS_ADMIN` over the map's namespace;
    /// - `EINVAL`: a malformed line, an id of -1, a count of 0 or one that
    ///   wraps, overlapping lines, more than 340 lines, no line;
    /// - `EPERM`: the mapping is not permitted (above; and a map of the
    ///   parent's uid 0 needs `CAP_SETFCAP`: the creator's, when `current`
    ///   is in the map's namespace); a lower range the parent does not map.
    ///
    /// Nothing changes when an error is returned.
    ///
    /// # Linux
    /// `proc_uid_map_write()`, `proc_gid_map_write()`, `map_write()`,
    /// `new_idmap_permitted()`, `verify_root_map()`.
    pub fn proc_id_map_write(
        &mut self,
        current: TaskId,
        target: TaskId,
        which: IdMapFile,
        pos: u64,
        buf: &[u8],
    ) -> Result<usize> {
        let cur = self.current(current)?;
        let t = self.task_idx(target)?;
        self.proc_may_open_write(cur, t)?;
        let file_cred = self.tasks[cur].cred.clone();
        let seq_ns = file_cred.user_ns.0;
        let ns = self.tasks[t].cred.user_ns.0;
        let Some(parent) = self.userns[ns].parent else {
            return Err(Errno::EPERM);
        };
        if seq_ns != ns && seq_ns != parent {
            return Err(Errno::EPERM);
        }
        if pos != 0 || buf.len() >= PAGE_SIZE {
            return Err(Errno::EINVAL);
        }
        let (map, cap_setid) = match which {
            IdMapFile::Uid => (&self.userns[ns].uid_map, CAP_SETUID),
            IdMapFile::Gid => (&self.userns[ns].gid_map, CAP_SETGID),
        };
        if !map.extents.is_empty() || !self.ns_capable_cred(&file_cred, ns, CAP_SYS_ADMIN) {
            return Err(Errno::EPERM);
        }
        let mut new_map = parse_id_map(buf)?;
        if !self.new_idmap_permitted(&file_cred, ns, cap_setid, &new_map) {
            return Err(Errno::EPERM);
        }
        let parent_map = match which {
            IdMapFile::Uid => &self.userns[parent].uid_map,
            IdMapFile::Gid => &self.userns[parent].gid_map,
        };
        for e in &mut new_map.extents {
            e.lower_first = parent_map
                .map_range_down(e.lower_first, e.count)
                .ok_or(Errno::EPERM)?;
        }
        let u = &mut self.userns[ns];
        match which {
            IdMapFile::Uid => u.uid_map = new_map,
            IdMapFile::Gid => u.gid_map = new_map,
        }
        Ok(buf.len())
    }

    /// `new_idmap_permitted()`: may the opener (credentials `c`) install
    /// `map` in `ns`?
    fn new_idmap_permitted(&self, c: &Cred, ns: UserNsIx, cap_setid: Cap, map: &IdMap) -> bool {
        let u = &self.userns[ns];
        let Some(parent) = u.parent else { return false };
        if cap_setid == CAP_SETUID && map.extents.iter().any(|e| e.lower_first == 0) {
            // verify_root_map(): the parent's root mapped in.
            let ok = if c.user_ns.0 == ns {
                u.parent_could_setfcap
            } else {
                self.ns_capable_cred(c, parent, CAP_SETFCAP)
            };
            if !ok {
                return false;
            }
        }
        if let [e] = map.extents() {
            if e.count == 1 && u.owner == c.euid {
                if cap_setid == CAP_SETUID {
                    if self.make_kuid(parent, e.lower_first) == Some(c.euid) {
                        return true;
                    }
                } else if !u.setgroups_allowed
                    && self.make_kgid(parent, e.lower_first) == Some(c.egid)
                {
                    return true;
                }
            }
        }
        // The writer (current) and the opener both need the capability;
        // here they are the same task.
        self.ns_capable_cred(c, parent, cap_setid)
    }

    /// `write(fd, buf, len)` at offset `pos` on `/proc/PID/setgroups` of
    /// task `target`: `allow` or `deny` (trailing white space allowed).
    /// `deny` turns `setgroups(2)` off in the namespace for good (what an
    /// unprivileged gid_map write needs); it must come before the gid map.
    /// Opening the file for writing needs `CAP_SYS_ADMIN` over the
    /// namespace (checked here, as the open's).
    ///
    /// # Errors
    /// - `ESRCH`: a stale task;
    /// - `EACCES`: the open for writing is refused, as for
    ///   [`Kernel::proc_id_map_write`];
    /// - `EPERM`: `current` lacks `CAP_SYS_ADMIN` over the namespace (the
    ///   open); `allow` after `deny`; `deny` after the gid map was written;
    /// - `EINVAL`: `pos` not 0, 8 bytes or more, or neither word.
    ///
    /// # Linux
    /// `proc_setgroups_open()`, `proc_setgroups_write()`.
    pub fn proc_setgroups_write(
        &mut self,
        current: TaskId,
        target: TaskId,
        pos: u64,
        buf: &[u8],
    ) -> Result<usize> {
        let cur = self.current(current)?;
        let t = self.task_idx(target)?;
        self.proc_may_open_write(cur, t)?;
        let ns = self.tasks[t].cred.user_ns.0;
        if !self.ns_capable_cred(&self.tasks[cur].cred, ns, CAP_SYS_ADMIN) {
            return Err(Errno::EPERM);
        }
        if pos != 0 || buf.len() >= 8 {
            return Err(Errno::EINVAL);
        }
        // The kernel copies up to the first NUL.
        let text = buf.split(|&b| b == 0).next().unwrap_or(&[]);
        let (allow, rest) = if let Some(r) = text.strip_prefix(b"allow") {
            (true, r)
        } else if let Some(r) = text.strip_prefix(b"deny") {
            (false, r)
        } else {
            return Err(Errno::EINVAL);
        };
        if !rest.iter().all(|&b| is_space(b)) {
            return Err(Errno::EINVAL);
        }
        let u = &mut self.userns[ns];
        if allow {
            if !u.setgroups_allowed {
                return Err(Errno::EPERM);
            }
        } else {
            if !u.gid_map.extents.is_empty() {
                return Err(Errno::EPERM);
            }
            u.setgroups_allowed = false;
        }
        Ok(buf.len())
    }

    /// The uid or gid map of task `target`'s user namespace set to `text`
    /// as Linux shows it to a reader in the initial namespace (the
    /// `/proc/PID/uid_map` or `gid_map` text of `uid_m_show()`: the lower
    /// ids are kernel ids), for a caller that sees the file's content but
    /// not the write that set it (a supervisor whose program wrote the file
    /// without stopping). No permission is checked: the write was Linux's,
    /// and it succeeded. Returns whether the map changed (`false` when it
    /// was `text`'s map already).
    ///
    /// # Errors
    /// Nothing changes when an error is returned.
    /// - `ESRCH`: `target` is stale;
    /// - `EPERM`: `target` is in the initial namespace, or its map is set
    ///   already to another one (a map is set once);
    /// - `EINVAL`: `text` is not a map `map_write()` accepts, or a line's
    ///   kernel ids are not all within one line of the parent
    ///   namespace's map.
    ///
    /// # Linux
    /// The state `map_write()` leaves (`uid_m_show()` of it read back).
    pub fn proc_id_map_seen(
        &mut self,
        target: TaskId,
        which: IdMapFile,
        text: &[u8],
    ) -> Result<bool> {
        let t = self.task_idx(target)?;
        let ns = self.tasks[t].cred.user_ns.0;
        let Some(parent) = self.userns[ns].parent else {
            return Err(Errno::EPERM);
        };
        let new_map = parse_id_map(text)?;
        let (map, parent_map) = match which {
            IdMapFile::Uid => (&self.userns[ns].uid_map, &self.userns[parent].uid_map),
            IdMapFile::Gid => (&self.userns[ns].gid_map, &self.userns[parent].gid_map),
        };
        if *map == new_map {
            return Ok(false);
        }
        if !map.extents.is_empty() {
            return Err(Errno::EPERM);
        }
        let within_parent = |e: &IdExtent| {
            parent_map
                .map_up(e.lower_first)
                .and_then(|id| parent_map.map_range_down(id, e.count))
                == Some(e.lower_first)
        };
        if !new_map.extents.iter().all(within_parent) {
            return Err(Errno::EINVAL);
        }
        let u = &mut self.userns[ns];
        match which {
            IdMapFile::Uid => u.uid_map = new_map,
            IdMapFile::Gid => u.gid_map = new_map,
        }
        Ok(true)
    }

    /// `setgroups` of task `target`'s user namespace set as Linux shows it
    /// (`allowed`: `/proc/PID/setgroups` reads `allow`), for a caller that
    /// sees the file but not the write, as [`Kernel::proc_id_map_seen`].
    /// Returns whether it changed.
    ///
    /// # Errors
    /// Nothing changes when an error is returned.
    /// - `ESRCH`: `target` is stale;
    /// - `EPERM`: `allow` where the core has `deny` (it is for good), or
    ///   `deny` where the core has a gid map already (`deny` must come
    ///   first).
    ///
    /// # Linux
    /// The state `proc_setgroups_write()` leaves.
    pub fn proc_setgroups_seen(&mut self, target: TaskId, allowed: bool) -> Result<bool> {
        let t = self.task_idx(target)?;
        let ns = self.tasks[t].cred.user_ns.0;
        let u = &mut self.userns[ns];
        match (u.setgroups_allowed, allowed) {
            (a, b) if a == b => Ok(false),
            (false, true) => Err(Errno::EPERM),
            _ if !u.gid_map.extents.is_empty() => Err(Errno::EPERM),
            _ => {
                u.setgroups_allowed = false;
                Ok(true)
            }
        }
    }

    /// The open for writing of a `/proc/PID` file of mode 0644 of task
    /// `t` by task `cur`: the file belongs to `t`'s effective ids while it
    /// is dumpable, else to root (`task_dump_owner()`); the owner's fs uid
    /// may write, or a holder of `CAP_DAC_OVERRIDE` in its own user
    /// namespace when that namespace maps the file's owner
    /// (`capable_wrt_inode_uidgid()`).
    ///
    /// # Errors
    /// `EACCES` otherwise (`generic_permission()`).
    fn proc_may_open_write(&self, cur: TaskIx, t: TaskIx) -> Result<()> {
        let task = &self.tasks[t];
        let dumpable = self.mm_dumpable(task.mm);
        let (uid, gid) = if dumpable {
            (task.cred.euid, task.cred.egid)
        } else {
            (0, 0)
        };
        let c = &self.tasks[cur].cred;
        let ns = c.user_ns.0;
        let mapped = self.userns[ns].uid_map.map_up(uid).is_some()
            && self.userns[ns].gid_map.map_up(gid).is_some();
        if c.fsuid == uid || (c.capable(crate::task::state::capability::CAP_DAC_OVERRIDE) && mapped)
        {
            Ok(())
        } else {
            Err(Errno::EACCES)
        }
    }

    /// `userns_may_setgroups(ns)`: a gid map is written and `setgroups`
    /// is allowed.
    pub(crate) fn userns_may_setgroups(&self, ns: UserNsIx) -> bool {
        let u = &self.userns[ns];
        !u.gid_map.extents.is_empty() && u.setgroups_allowed
    }

    /// Gives task `t`'s credentials a new value, keeping the user
    /// namespaces' task references right.
    pub(crate) fn install_cred(&mut self, t: TaskIx, new: std::sync::Arc<Cred>) {
        let old = self.tasks[t].cred.user_ns.0;
        if new.user_ns.0 != old {
            self.get_user_ns(new.user_ns.0);
            self.tasks[t].cred = new;
            self.put_user_ns(old);
        } else {
            self.tasks[t].cred = new;
        }
    }
}

/// `isspace()` of the kernel's ctype (space, \t \n \v \f \r).
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// `simple_strtoul(s, &end, 10)`, truncated to 32 bits as the extent's
/// `u32` fields keep it: the value and the rest.
fn strtoul(s: &[u8]) -> (u32, &[u8]) {
    let n = s.iter().take_while(|b| b.is_ascii_digit()).count();
    let v = s[..n].iter().fold(0u64, |v, &d| {
        v.wrapping_mul(10).wrapping_add(u64::from(d - b'0'))
    });
    (v as u32, &s[n..])
}

fn skip_spaces(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|&&b| is_space(b)).count();
    &s[n..]
}

/// `map_write()`'s parser: the extents of `buf` (lower ids still the
/// parent's), or `EINVAL`.
fn parse_id_map(buf: &[u8]) -> Result<IdMap> {
    // memdup_user_nul(): the text ends at the first NUL.
    let text = buf.split(|&b| b == 0).next().unwrap_or(&[]);
    let mut map = IdMap::default();
    let mut rest = Some(text);
    while let Some(chunk) = rest {
        let (line, next) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) if i + 1 < chunk.len() => (&chunk[..i], Some(&chunk[i + 1..])),
            Some(i) => (&chunk[..i], None),
            None => (chunk, None),
        };
        rest = next;
        let (first, p) = strtoul(skip_spaces(line));
        if !p.first().is_some_and(|&b| is_space(b)) {
            return Err(Errno::EINVAL);
        }
        let (lower_first, p) = strtoul(skip_spaces(p));
        if !p.first().is_some_and(|&b| is_space(b)) {
            return Err(Errno::EINVAL);
        }
        let (count, p) = strtoul(skip_spaces(p));
        if p.first().is_some_and(|&b| !is_space(b)) {
            return Err(Errno::EINVAL);
        }
        if !skip_spaces(p).is_empty() {
            return Err(Errno::EINVAL);
        }
        let e = IdExtent {
            first,
            lower_first,
            count,
        };
        if first == u32::MAX || lower_first == u32::MAX {
            return Err(Errno::EINVAL);
        }
        if first.wrapping_add(count) <= first || lower_first.wrapping_add(count) <= lower_first {
            return Err(Errno::EINVAL);
        }
        if map.overlaps(&e) {
            return Err(Errno::EINVAL);
        }
        if map.extents.len() + 1 == UID_GID_MAP_MAX_EXTENTS && rest.is_some() {
            return Err(Errno::EINVAL);
        }
        map.extents.push(e);
    }
    if map.extents.is_empty() {
        return Err(Errno::EINVAL);
    }
    Ok(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_lines() {
        let m = parse_id_map(b"0 1000 1\n").unwrap();
        assert_eq!(
            m.extents(),
            [IdExtent {
                first: 0,
                lower_first: 1000,
                count: 1
            }]
        );
        let m = parse_id_map(b"  0 100 10\n10 200 5").unwrap();
        assert_eq!(m.extents().len(), 2);
        assert_eq!(parse_id_map(b"0 1000"), Err(Errno::EINVAL));
        assert_eq!(parse_id_map(b"0 1000 0"), Err(Errno::EINVAL));
        assert_eq!(parse_id_map(b"0 1000 1x"), Err(Errno::EINVAL));
        assert_eq!(parse_id_map(b"0 1000 1\n0 2000 1"), Err(Errno::EINVAL));
        assert_eq!(parse_id_map(b"4294967295 1 1"), Err(Errno::EINVAL));
        assert_eq!(parse_id_map(b""), Err(Errno::EINVAL));
        assert_eq!(parse_id_map(b"\n"), Err(Errno::EINVAL));
    }

    #[test]
    fn map_up_and_down() {
        let m = parse_id_map(b"0 1000 10").unwrap();
        assert_eq!(m.map_range_down(3, 1), Some(1003));
        assert_eq!(m.map_range_down(9, 2), None);
        assert_eq!(m.map_up(1009), Some(9));
        assert_eq!(m.map_up(1010), None);
        let id = IdMap::identity();
        assert_eq!(id.map_range_down(u32::MAX, 1), None);
        assert_eq!(id.map_up(u32::MAX - 1), Some(u32::MAX - 1));
    }
}
