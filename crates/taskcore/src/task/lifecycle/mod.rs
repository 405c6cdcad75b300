//! A process's life: creation (`clone`, `clone3`, `fork`, `vfork`), the
//! address space it gets (`mm`), a new program (`exec`), process groups and
//! sessions (`pgrp`), and its end (`exit`: zombies, reparenting, reaping).

pub(crate) mod clone;
pub(crate) mod clone3;
pub(crate) mod exec;
pub(crate) mod exit;
pub(crate) mod mm;
pub(crate) mod pgrp;
pub(crate) mod wait;
