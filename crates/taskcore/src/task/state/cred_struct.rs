//! A task's credentials, `struct cred` ([`Cred`]): the ids, the
//! supplementary groups and the capability sets, and the tests a
//! permission check makes on them. The calls that change them are in
//! `cred`.
//!
//! # Linux
//! include/linux/cred.h `struct cred`, kernel/cred.c `init_cred`.

use std::sync::Arc;

use crate::ix::UserNsId;
use crate::task::state::capability::{Cap, KernelCap};

/// A task's credentials (`struct cred`). Ids are kernel ids (numbers in
/// the initial user namespace, `kuid_t`/`kgid_t`).
///
/// [`Cred::default`] is `init_cred`: every id 0, no groups, the
/// permitted, effective and bounding sets full, no securebits, the
/// initial user namespace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cred {
    /// Real uid (`uid`).
    pub uid: u32,
    /// Effective uid (`euid`).
    pub euid: u32,
    /// Saved set-user-id (`suid`).
    pub suid: u32,
    /// Filesystem uid (`fsuid`).
    pub fsuid: u32,
    /// Real gid.
    pub gid: u32,
    /// Effective gid.
    pub egid: u32,
    /// Saved set-group-id.
    pub sgid: u32,
    /// Filesystem gid.
    pub fsgid: u32,
    /// Supplementary groups, sorted ascending as `groups_sort()` leaves
    /// them (shared between tasks, as Linux's `group_info`).
    pub groups: Arc<[u32]>,
    /// Capabilities a program may keep across exec (`cap_inheritable`).
    pub cap_inheritable: KernelCap,
    /// Capabilities the task may make effective (`cap_permitted`).
    pub cap_permitted: KernelCap,
    /// Capabilities the permission checks see (`cap_effective`).
    pub cap_effective: KernelCap,
    /// The bounding set (`cap_bset`): the most an exec can give.
    pub cap_bset: KernelCap,
    /// The ambient set (`cap_ambient`): kept across a non-set-id exec;
    /// always within permitted and inheritable.
    pub cap_ambient: KernelCap,
    /// The `SECBIT_*` bits (`securebits`).
    pub securebits: u32,
    /// The user namespace the capabilities are held in, whose maps
    /// translate the ids the task's calls take and report (`user_ns`).
    pub user_ns: UserNsId,
}

impl Default for Cred {
    fn default() -> Cred {
        Cred {
            uid: 0,
            euid: 0,
            suid: 0,
            fsuid: 0,
            gid: 0,
            egid: 0,
            sgid: 0,
            fsgid: 0,
            groups: Arc::from([]),
            cap_inheritable: KernelCap::EMPTY,
            cap_permitted: KernelCap::FULL,
            cap_effective: KernelCap::FULL,
            cap_bset: KernelCap::FULL,
            cap_ambient: KernelCap::EMPTY,
            securebits: 0,
            user_ns: UserNsId::default(),
        }
    }
}

impl Cred {
    /// `ns_capable(cred->user_ns, cap)` for a task with these
    /// credentials: `cap` is in the effective set, which holds in its own
    /// user namespace (`cap_capable()`).
    pub fn capable(&self, cap: Cap) -> bool {
        self.cap_effective.has(cap)
    }

    /// Whether the sender's real or effective uid is the target's real or
    /// saved uid (`kill_ok_by_cred()`'s first test).
    pub(crate) fn same_user_as(&self, target: &Cred) -> bool {
        [self.uid, self.euid]
            .iter()
            .any(|&u| u == target.uid || u == target.suid)
    }
}
