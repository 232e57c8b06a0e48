//! Fuzz target `pack_tile_diff`: decode the input with the harness generators and run
//! its oracle, which panics on a disagreement (see `tensix_harness::oracles`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    tensix_harness::oracles::targets::run("pack_tile_diff", data);
});
