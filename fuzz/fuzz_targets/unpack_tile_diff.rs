//! Fuzz target `unpack_tile_diff`: decode the input with the harness generators and run
//! its oracle, which panics on a disagreement (see `tensix_harness::oracles`).
//! The process keeps one workbench, so machines are reset between inputs
//! rather than rebuilt (`tensix_harness::run::Workbench`). The golden model
//! judges every input; one job in eight is also run a second time for the
//! determinism check (`Workbench::sampling_determinism`).
#![no_main]

use std::cell::RefCell;
use tensix_harness::oracles::{targets, Workbench};

thread_local! {
    static BENCH: RefCell<Workbench> = RefCell::new(Workbench::sampling_determinism(8));
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    BENCH.with(|b| targets::fuzz(&mut b.borrow_mut(), &targets::UNPACK_TILE_DIFF, data));
});
