//! The process API beyond the lifecycle and signals: credentials
//! (`cred`) and capabilities (`capability`, `commoncap`), resource limits
//! (`rlimit`), `prctl`, pidfds (`pidfd`), namespaces (`nsproxy`; user
//! namespaces, their id maps and `ns_capable` in `userns`), and the state
//! kept for `/proc` (`procinfo`).

pub mod capability;
pub mod commoncap;
pub mod cred;
pub(crate) mod cred_struct;
pub(crate) mod nsproxy;
pub(crate) mod nsproxy_struct;
pub mod pidfd;
pub(crate) mod prctl;
pub(crate) mod prlimit;
pub(crate) mod procinfo;
pub mod rlimit;
pub mod userns;
pub(crate) mod userns_id;
