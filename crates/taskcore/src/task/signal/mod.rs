//! Signals (`kernel/signal.c`): sending (`kill`, `sigsend`), delivery
//! (`sigdeliver`), masks and signal waits (`sigmask`), dispositions
//! (`sigaction`), job control (`jobctl`) and interrupted calls
//! (`restart`). The state they change (actions, pending sets, job-control
//! bits, when signals are taken) is in `state/`.

pub(crate) mod jobctl;
pub(crate) mod kill;
pub(crate) mod restart;
pub(crate) mod sigaction;
pub(crate) mod sigdeliver;
pub(crate) mod sigmask;
pub(crate) mod sigsend;
