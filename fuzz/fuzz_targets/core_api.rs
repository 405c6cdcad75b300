//! cargo-fuzz target `core_api`: see `taskcore_fuzz::core_api`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| taskcore_fuzz::core_api(data));
