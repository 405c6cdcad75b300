//! cargo-fuzz target `procfs`: see `taskcore_fuzz::procfs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| taskcore_fuzz::procfs(data));
