//! A task's namespaces for its children, `struct nsproxy` ([`NsProxy`]).
//! `unshare`, `setns` and the namespace links are in `nsproxy`.
//!
//! # Linux
//! include/linux/nsproxy.h `struct nsproxy`.

use crate::pid::ns::NsIx;

/// A task's namespaces for its children (`struct nsproxy`, the pid part; the user
/// namespace is the credentials').
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NsProxy {
    /// Slab index of `pid_ns_for_children` (holding a reference), or `None`
    /// once the task has exited (`exit_task_namespaces`).
    pub(crate) pid_ns_for_children: Option<NsIx>,
}

impl NsProxy {
    /// No nsproxy (an exited task).
    pub(crate) const NONE: NsProxy = NsProxy {
        pid_ns_for_children: None,
    };
}

pub(crate) use crate::uapi::CLONE_NEW_ANY;
