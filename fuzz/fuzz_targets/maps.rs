//! cargo-fuzz target `maps`: see `taskcore_fuzz::maps`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| taskcore_fuzz::maps(data));
