//! cargo-fuzz target `replay`: see `taskcore_fuzz::replay`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| taskcore_fuzz::replay(data));
