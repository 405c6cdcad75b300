//! cargo-fuzz target `strace`: see `taskcore_fuzz::strace`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| taskcore_fuzz::strace(data));
