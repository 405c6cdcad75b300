//! ptrace (`kernel/ptrace.c`): attach, seize, resume and detach
//! (`attach`), event, group and syscall stops (`event`), and
//! `ptrace_may_access` (`access`).

pub mod access;
pub(crate) mod attach;
pub mod event;
