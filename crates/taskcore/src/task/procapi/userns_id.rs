//! The handle on a user namespace ([`UserNsId`]) that credentials hold,
//! apart from the namespaces themselves (`userns`), which read
//! credentials.

use crate::slab::SlabIx;

crate::slab::slab_index!(
    /// Index of a user namespace in the kernel's user-namespace slab.
    UserNsIx
);

/// A handle on a user namespace (`struct user_namespace *`): valid while
/// something holds the namespace (a task's credentials, a child
/// namespace, a pid namespace it owns). [`UserNsId::default`] is the
/// initial namespace, which is never freed.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct UserNsId(pub(crate) UserNsIx);

impl Default for UserNsId {
    fn default() -> UserNsId {
        UserNsId(UserNsIx::from_slot(UserNsIx::BASE))
    }
}

impl core::fmt::Debug for UserNsId {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "UserNsId({})", self.0)
    }
}
