//! A task's namespaces for its children, `struct nsproxy` ([`NsProxy`]).
//! `unshare`, `setns` and the namespace links are in `nsproxy`.
//!
//! # Linux
//! include/linux/nsproxy.h `struct nsproxy`.

use crate::pid::ns::NsIx;
use crate::uapi::{
    CLONE_NEWCGROUP, CLONE_NEWIPC, CLONE_NEWNET, CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWTIME,
    CLONE_NEWUSER, CLONE_NEWUTS,
};

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

/// Every `CLONE_NEW*` namespace bit.
pub(crate) const CLONE_NEW_ANY: u64 = CLONE_NEWNS
    | CLONE_NEWUTS
    | CLONE_NEWIPC
    | CLONE_NEWNET
    | CLONE_NEWUSER
    | CLONE_NEWPID
    | CLONE_NEWCGROUP
    | CLONE_NEWTIME;
