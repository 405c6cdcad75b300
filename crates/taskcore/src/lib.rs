//! taskcore: a Linux-compatible process-management core for programs that
//! emulate Linux in user space.
//!
//! The crate does no I/O, prints nothing and reads no clock: callers pass
//! time in, and render /proc files into any `core::fmt::Write`.
#![deny(unsafe_code)]

pub mod errno;
pub mod objpool;

pub use errno::{Errno, Result};
