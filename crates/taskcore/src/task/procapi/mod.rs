//! The process API beyond the lifecycle and signals: credentials
//! (`cred`) and capabilities (`commoncap`), resource limits (`prlimit`),
//! `prctl`, pidfds (`pidfd`), namespaces (`nsproxy`; user namespaces,
//! their id maps and `ns_capable` in `userns`), and the state kept for
//! `/proc` (`procinfo`). The structures they change (`struct cred`,
//! capability sets, `struct nsproxy`, the limits) are in `state/`.

pub mod commoncap;
pub mod cred;
pub(crate) mod nsproxy;
pub mod pidfd;
pub(crate) mod prctl;
pub(crate) mod prlimit;
pub(crate) mod procinfo;
pub mod userns;
