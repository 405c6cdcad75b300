//! cargo-fuzz target `mm`: see `taskcore_fuzz::mm`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| taskcore_fuzz::mm(data));
