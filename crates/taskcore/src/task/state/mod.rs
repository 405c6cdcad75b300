//! The state a task, a thread group and the process table hold, apart
//! from the calls that change it (Linux's structure definitions in
//! `include/linux/`, apart from `kernel/*.c`): signal actions (`sighand`),
//! pending sets (`sigpending`), job-control bits (`jobctl_flags`), when
//! signals are taken (`delivery`), credentials (`cred_struct`) and
//! capability sets (`capability`), namespaces for children
//! (`nsproxy_struct`), resource limits (`rlimit`), and the address space
//! as the table holds it (`mm_entry`). Each imports only from below the
//! task folder, and from its neighbours here.

pub mod capability;
pub(crate) mod cred_struct;
pub(crate) mod delivery;
pub(crate) mod jobctl_flags;
pub(crate) mod mm_entry;
pub(crate) mod nsproxy_struct;
pub mod rlimit;
pub(crate) mod sighand;
pub(crate) mod sigpending;
