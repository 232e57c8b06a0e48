//! Fuzz target `unpack_program`: decode the input with the harness generators and run
//! its oracle, which panics on a disagreement (see `tensix_harness::oracles`).
//! The process keeps one workbench, so machines are reset between inputs
//! rather than rebuilt (`tensix_harness::run::Workbench`).
#![no_main]

use std::cell::RefCell;
use tensix_harness::oracles::{targets, Workbench};

thread_local! {
    static BENCH: RefCell<Workbench> = RefCell::new(Workbench::new());
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    BENCH.with(|b| targets::fuzz(&mut b.borrow_mut(), &targets::UNPACK_PROGRAM, data));
});
