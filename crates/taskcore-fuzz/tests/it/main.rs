//! The fuzz targets' corpora and properties as tests, in one test binary.
//!
//! Every file under a crate's `tests/` is its own test binary that links the
//! whole library, and linking dominated `cargo test`. So this crate has one:
//! each former `tests/NAME.rs` is the module `NAME` here, and its tests are
//! named `NAME::...` (`cargo test -p taskcore-fuzz --test it NAME::`).
//!
//! Adding tests: put the file in `tests/it/` (not `tests/`) and add
//! `mod NAME;` below, in order. Shared helpers live in `common/`; a file that
//! had `#[path = "common/X.rs"] mod X;` says `use crate::common::X;`.

mod atomicity;
mod corpus;
