//! Signals (`kernel/signal.c`): sending (`kill`, `sigsend`), pending sets
//! (`sigpending`), delivery (`sigdeliver`), masks and signal waits
//! (`sigmask`), dispositions (`sigaction`), job control (`jobctl`) and
//! interrupted calls (`restart`).

pub(crate) mod delivery;
pub(crate) mod jobctl;
pub(crate) mod jobctl_flags;
pub(crate) mod kill;
pub(crate) mod restart;
pub(crate) mod sigaction;
pub(crate) mod sigdeliver;
pub(crate) mod sighand;
pub(crate) mod sigmask;
pub(crate) mod sigpending;
pub(crate) mod sigsend;
