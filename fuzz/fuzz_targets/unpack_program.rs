//! Fuzz target `unpack_program`: decode the input with the harness generators and run
//! its oracle, which panics on a disagreement (see `tensix_harness::oracles`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    tensix_harness::oracles::targets::run("unpack_program", data);
});
